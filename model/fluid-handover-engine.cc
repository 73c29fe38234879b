/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-handover-engine.h"

#include "ctho-planner.h"
#include "edge-llm-limits.h"
#include "fluid-pre-transfer.h"
#include "fluid-slot-share.h"
#include "handover-batcher.h"
#include "kv-pre-transfer-store.h"
#include "llm-model-profile.h"
#include "slot-allocator.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{
/// Engine events; at equal times they run in this order (a handover before a trigger of
/// the same instant, which then has nothing to send ahead).
enum Kind
{
    HOLD_EXPIRE = 0,
    TRIGGER_END = 1,
    HANDOVER = 2,     //!< A known-times batch is planned (index: the batch)
    ARRIVAL = 3,      //!< Online: a handover happens (index: the episode)
    GATHERED = 4,     //!< Online: a source plans its gathered handovers (index: the source)
    RELEASE = 5,      //!< A known-times member's parts start (index: the episode)
    TRIGGER = 6,      //!< A pre-transfer's trigger (index: the episode)
    CLOSE = 7,        //!< A batcher's timer: an online batch closes (index: m_calls)
    PREFILL_DONE = 8, //!< A GPU batch ends (index: m_gpuDone)
};

bool
IsTime(double t)
{
    return std::isfinite(t) && t >= 0;
}

uint32_t
LinkKey(uint16_t source, uint16_t target)
{
    return (static_cast<uint32_t>(source) << 16) | target;
}

/// The most slots from time 0 to a slot policy's handover (slot indices stay exact).
constexpr double MAX_SLOTS = 1e12;

/// The fraction y with A(y) = level (A increasing), by bisection to 1e-12; infinity if
/// even the whole cache stays below the level.
double
FractionFor(const AccuracyUtility& a, double level)
{
    if (a.Value(1) < level)
    {
        return std::numeric_limits<double>::infinity();
    }
    double lo = 0;
    double hi = 1;
    for (int i = 0; i < 60; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        (a.Value(mid) >= level ? hi : lo) = mid;
    }
    return hi;
}
} // namespace

void
FluidEngineConfig::Validate() const
{
    LlmModelProfile::FromPreset(model, kvBits); // names the model or kvBits
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    edgellm::CheckBatchPeriod("batchPeriod", batchPeriod.GetSeconds());
    if (std::isnan(batchSpan) || batchSpan < 0)
    {
        throw std::invalid_argument("batchSpan must be >= 0 s (infinity: one batch per pair)");
    }
    if (kvMemoryCapacity < 1)
    {
        throw std::invalid_argument("kvMemoryCapacity must be >= 1 byte, got 0");
    }
    if (gatherTime.IsStrictlyNegative() || gatherTime > Seconds(1))
    {
        throw std::invalid_argument("gatherTime must be in [0, 1] s, got " +
                                    edgellm::FormatValue(gatherTime.GetSeconds()) + " s");
    }
}

bool
FluidHandoverEngine::Later::operator()(const Event& a, const Event& b) const
{
    return std::tie(a.time, a.kind, a.seq) > std::tie(b.time, b.kind, b.seq);
}

FluidHandoverEngine::FluidHandoverEngine(const FluidEngineConfig& config,
                                         Ptr<HandoverScheduler> scheduler,
                                         const std::vector<FluidHandoverEpisode>& ues)
    : m_config(config),
      m_scheduler(scheduler),
      m_ues(ues)
{
    m_config.Validate();
    if (!m_scheduler)
    {
        throw std::invalid_argument("the flow-level engine needs a scheduler: a batch or slot "
                                    "policy, or a PreTransferScheduler around one");
    }
    m_pre = m_scheduler->GetPreTransfer();
    m_share = m_pre ? m_pre->rateShare : 0.0;
    m_yield = m_pre ? m_pre->yieldToHandovers : true;
    if (m_pre)
    {
        CheckFluidPreTransfer(*m_pre, m_scheduler->AllocatesSlots());
    }
    if (!m_config.knownHandoverTimes && m_scheduler->AllocatesSlots())
    {
        throw std::invalid_argument("knownHandoverTimes false (online batches) needs a batch "
                                    "policy; " +
                                    m_scheduler->GetSchemeName() + " allocates slots");
    }
    ValidateEpisodes();
    if (!m_config.knownHandoverTimes)
    {
        CheckOnlineBatchSizes();
    }
    const LlmModelProfile profile = LlmModelProfile::FromPreset(m_config.model, m_config.kvBits);
    m_bytesPerTokenInt = profile.BytesPerToken();
    m_bytesPerToken = static_cast<double>(profile.BytesPerToken());
    m_bitsPerToken = static_cast<double>(profile.BitsPerToken());
    m_linkBytesPerSecond = m_config.backhaulGbps * 1e9 / 8.0;
}

FluidHandoverEngine::~FluidHandoverEngine() = default;

void
FluidHandoverEngine::ValidateEpisodes() const
{
    const bool follow = m_pre && m_pre->followDecoding;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        const FluidHandoverEpisode& u = m_ues[i];
        const std::string at = "ues[" + std::to_string(i) + "].";
        const bool handover = !std::isnan(u.handoverTime);
        if (handover && !IsTime(u.handoverTime))
        {
            throw std::invalid_argument(at + "handoverTime must be a finite time >= 0 s or NaN");
        }
        if (handover)
        {
            edgellm::CheckContextTokens(at + "contextTokens", static_cast<double>(u.contextTokens));
        }
        if (handover && (u.target == u.source))
        {
            throw std::invalid_argument(at + "target must differ from source");
        }
        if (!std::isnan(u.triggerTime) && !IsTime(u.triggerTime))
        {
            throw std::invalid_argument(at + "triggerTime must be a finite time >= 0 s or NaN");
        }
        if (!std::isnan(u.triggerEnd) && !IsTime(u.triggerEnd))
        {
            throw std::invalid_argument(at + "triggerEnd must be a finite time >= 0 s or NaN");
        }
        if (!std::isnan(u.triggerTime) && u.predictedTarget == u.source)
        {
            throw std::invalid_argument(at + "predictedTarget must differ from source");
        }
        if (!(u.decodeRate >= 0) || !std::isfinite(u.decodeRate))
        {
            throw std::invalid_argument(at + "decodeRate must be a finite number >= 0 tokens/s");
        }
        if ((handover || (follow && !std::isnan(u.triggerTime))) &&
            u.prefixTokens > u.contextTokens)
        {
            throw std::invalid_argument(at + "prefixTokens must be <= contextTokens");
        }
        if (m_scheduler->AllocatesSlots())
        {
            ValidateSlotEpisode(i);
        }
    }
}

void
FluidHandoverEngine::CheckOnlineBatchSizes() const
{
    // HandoverBatcher counts an online batch's members in 16 bits (as the packet level).
    std::map<uint32_t, uint64_t> handovers;
    for (const FluidHandoverEpisode& u : m_ues)
    {
        if (!std::isnan(u.handoverTime) &&
            ++handovers[LinkKey(u.source, u.target)] > std::numeric_limits<uint16_t>::max())
        {
            throw std::invalid_argument(
                "knownHandoverTimes false (online batches) takes at most 65535 handovers from "
                "one cell to another, got more from cell " +
                std::to_string(u.source) + " to cell " + std::to_string(u.target));
        }
    }
}

void
FluidHandoverEngine::ValidateSlotEpisode(std::size_t i) const
{
    const FluidHandoverEpisode& u = m_ues[i];
    const std::string at = "ues[" + std::to_string(i) + "].";
    const std::string policy = " with a slot policy (" + m_scheduler->GetSchemeName() + ")";
    const double dt = m_scheduler->GetSlotLength().GetSeconds();
    if (!std::isnan(u.handoverTime) && !(u.handoverTime <= MAX_SLOTS * dt))
    {
        std::ostringstream what;
        what << at << "handoverTime must be at most " << MAX_SLOTS << " slots of "
             << edgellm::FormatValue(dt) << " s" << policy << ", got "
             << edgellm::FormatValue(u.handoverTime) << " s";
        throw std::invalid_argument(what.str());
    }
    if (!std::isnan(u.handoverTime) && !u.utility)
    {
        throw std::invalid_argument(at + "utility is required" + policy +
                                    ": the accuracy utility A_i of its context");
    }
    try
    {
        if (u.utility)
        {
            u.utility->Validate();
        }
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(at + "utility: " + e.what());
    }
    if (!m_pre || m_share <= 0 || std::isnan(u.triggerTime))
    {
        return; // its trigger, if any, sends nothing ahead
    }
    if (std::isnan(u.handoverTime))
    {
        throw std::invalid_argument(at + "handoverTime must be set for a triggered episode" +
                                    policy +
                                    " and a pre-transfer (slots send ahead only to a handover "
                                    "that comes: no waste is modelled)");
    }
    if (u.predictedTarget != u.target)
    {
        throw std::invalid_argument(
            at + "predictedTarget must equal target" + policy +
            " and a pre-transfer (it sends ahead to the handover's target)");
    }
    if (!std::isnan(u.triggerEnd))
    {
        throw std::invalid_argument(at + "triggerEnd must be NaN" + policy +
                                    " and a pre-transfer (the sending ahead ends at the handover)");
    }
}

void
FluidHandoverEngine::Push(double time, int kind, std::size_t index)
{
    m_events.push(Event{time, kind, m_seq++, index});
}

KvPreTransferStore&
FluidHandoverEngine::Store(uint16_t cell)
{
    std::unique_ptr<KvPreTransferStore>& store = m_memory[cell];
    if (!store)
    {
        store = std::make_unique<KvPreTransferStore>(m_config.kvMemoryCapacity);
    }
    return *store;
}

void
FluidHandoverEngine::ScheduleEpisodes()
{
    // Batches: per source-target pair, in handover order, within batchSpan of the first.
    std::map<uint32_t, std::vector<std::size_t>> byPair;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        m_result.ues[i].ueId = m_ues[i].ueId;
        m_result.ues[i].handoverTime = m_ues[i].handoverTime;
        if (!std::isnan(m_ues[i].handoverTime) && m_config.knownHandoverTimes)
        {
            byPair[LinkKey(m_ues[i].source, m_ues[i].target)].push_back(i);
        }
        else if (!std::isnan(m_ues[i].handoverTime))
        {
            Push(m_ues[i].handoverTime, ARRIVAL, i);
        }
        if (m_pre && !std::isnan(m_ues[i].triggerTime))
        {
            Push(m_ues[i].triggerTime, TRIGGER, i);
        }
        if (m_pre && !std::isnan(m_ues[i].triggerEnd))
        {
            Push(m_ues[i].triggerEnd, TRIGGER_END, i);
        }
    }
    for (auto& [pair, members] : byPair)
    {
        std::stable_sort(members.begin(), members.end(), [this](std::size_t a, std::size_t b) {
            return m_ues[a].handoverTime < m_ues[b].handoverTime;
        });
        for (std::size_t k = 0; k < members.size();)
        {
            const double first = m_ues[members[k]].handoverTime;
            std::vector<std::size_t> batch;
            for (;
                 k < members.size() && m_ues[members[k]].handoverTime <= first + m_config.batchSpan;
                 ++k)
            {
                batch.push_back(members[k]);
            }
            Push(first, HANDOVER, m_batches.size());
            m_batches.push_back(batch);
        }
    }
}

void
FluidHandoverEngine::Stop(std::size_t i)
{
    // The source stops sending ahead; the target gives back the room it will not fill.
    if (m_state[i].phase == SENDING)
    {
        m_state[i].phase = HELD;
        Store(m_ues[i].predictedTarget)
            .Shrink(i, static_cast<uint64_t>(std::ceil(m_state[i].arrived)));
    }
}

void
FluidHandoverEngine::Drop(std::size_t i)
{
    // The target drops what it holds: waste.
    if (m_state[i].phase == SENDING || m_state[i].phase == HELD)
    {
        m_result.ues[i].wastedBytes += m_state[i].arrived;
        Store(m_ues[i].predictedTarget).Release(i);
        m_state[i].phase = GONE;
    }
}

bool
FluidHandoverEngine::PingPongGuarded(const FluidHandoverEpisode& u) const
{
    // The UE's last handover by its trigger came from the predicted target into its source
    // less than PingPongTime before: no pre-transfer back (as at packet level,
    // EdgeLlmPreTransferRole).
    const FluidHandoverEpisode* last = nullptr;
    for (const FluidHandoverEpisode& e : m_ues)
    {
        if (e.ueId == u.ueId && !std::isnan(e.handoverTime) && e.handoverTime <= u.triggerTime &&
            (last == nullptr || e.handoverTime >= last->handoverTime))
        {
            last = &e;
        }
    }
    return last != nullptr && last->target == u.source &&
           FluidPingPongGuarded(last->source,
                                last->handoverTime,
                                u.predictedTarget,
                                u.triggerTime,
                                m_pre->pingPongTime.GetSeconds());
}

void
FluidHandoverEngine::Trigger(std::size_t i)
{
    const FluidHandoverEpisode& u = m_ues[i];
    if (m_state[i].phase != IDLE || m_state[i].handled || m_share <= 0 || u.prefixTokens == 0 ||
        PingPongGuarded(u))
    {
        return;
    }
    KvPreTransferStore& mem = Store(u.predictedTarget);
    // FollowDecoding: the tokens decoded after the trigger follow, up to the context at the
    // handover; the room for all of them is reserved at once (flow level).
    const bool follow = m_pre->followDecoding && u.decodeRate > 0;
    const uint64_t tokens = follow ? u.contextTokens : u.prefixTokens;
    const FluidAheadRoom room = ReserveAhead(mem, i, tokens * m_bytesPerTokenInt);
    if (room.refused)
    {
        ++m_result.evictions; // larger than the whole memory: refused, as an eviction
        m_result.ues[i].evicted = true;
        return;
    }
    for (uint64_t j : room.evicted)
    {
        // Evicted: what arrived is waste; a source still sending stops.
        m_result.ues[j].wastedBytes += m_state[j].arrived;
        m_result.ues[j].evicted = true;
        m_state[j].phase = GONE;
        ++m_result.evictions;
    }
    m_state[i].goal = static_cast<double>(tokens) * m_bytesPerToken;
    m_state[i].goal0 = static_cast<double>(u.prefixTokens) * m_bytesPerToken;
    m_state[i].growth = follow ? u.decodeRate * m_bytesPerToken : 0.0;
    m_state[i].since = u.triggerTime;
    m_state[i].phase = SENDING;
}

std::vector<CtHoUe>
FluidHandoverEngine::ClaimSentAhead(const std::vector<std::size_t>& members, double now)
{
    // Every member stops sending ahead; one whose target holds its entry uses its whole
    // tokens, the rest of its cache is left to plan.
    const double hold = m_pre ? m_pre->holdTime.GetSeconds() : 0.0;
    std::vector<CtHoUe> rest;
    for (std::size_t i : members)
    {
        m_state[i].handled = true;
        Stop(i);
        FluidEpisodeResult& r = m_result.ues[i];
        r.handedOver = true;
        r.target = m_ues[i].target;
        r.predictedRight = m_ues[i].target == m_ues[i].predictedTarget;
        r.preSentBytes = m_state[i].arrived;
        if (m_state[i].phase == HELD && r.predictedRight)
        {
            const FluidAheadClaim claim =
                ClaimAhead(m_state[i].arrived, m_bytesPerToken, m_ues[i].contextTokens);
            r.usedTokens = claim.usedTokens;
            r.wastedBytes += claim.wastedBytes;
            Store(m_ues[i].target).Release(i);
            m_state[i].phase = GONE;
        }
        else if (m_state[i].phase == HELD)
        {
            Push(std::max(now, m_ues[i].handoverTime) + hold, HOLD_EXPIRE, i);
        }
        if (m_ues[i].contextTokens > r.usedTokens)
        {
            rest.push_back(CtHoUe{i, m_ues[i].handoverTime, m_ues[i].contextTokens - r.usedTokens});
        }
        else
        {
            r.delay = 0; // the target holds the whole cache at the handover
            r.prefillDone = m_ues[i].handoverTime;
            r.transferDone = m_ues[i].handoverTime;
        }
    }
    return rest;
}

double
FluidHandoverEngine::HandoverRate(uint16_t source, uint16_t target) const
{
    // Pre-transfers that do not yield keep RateShare x R while they send to this target.
    if (m_yield || m_share <= 0)
    {
        return m_linkBytesPerSecond * 8.0;
    }
    bool othersSending = false;
    for (std::size_t j = 0; j < m_ues.size() && !othersSending; ++j)
    {
        othersSending = m_state[j].phase == SENDING && m_ues[j].source == source &&
                        m_ues[j].predictedTarget == target;
    }
    return m_linkBytesPerSecond * 8.0 * (othersSending ? 1.0 - m_share : 1.0);
}

void
FluidHandoverEngine::PlanBatch(const std::vector<std::size_t>& members, double now)
{
    const uint16_t source = m_ues[members.front()].source;
    const uint16_t target = m_ues[members.front()].target;
    const uint32_t link = LinkKey(source, target);
    const std::vector<CtHoUe> rest = ClaimSentAhead(members, now);
    if (rest.empty())
    {
        return;
    }
    const double rate = HandoverRate(source, target);
    CtHoSignalling signalling;
    signalling.gpuFreeAt = m_gpuFreeAt[target];
    const CtHoPlan p = m_scheduler->PlanBatch(rest,
                                              rate / m_bitsPerToken,
                                              m_config.prefill,
                                              m_config.batchPeriod.GetSeconds(),
                                              LinkFreeAt(link, now),
                                              signalling);
    const uint64_t key = m_nextGpuKey++;
    for (const CtHoUePlan& u : p.ues)
    {
        const std::size_t i = u.ueId;
        BatchMember parts;
        parts.gpuKey = key;
        parts.gpuSize = static_cast<uint32_t>(rest.size());
        parts.deadline = u.handoverTime + p.transferDelay;
        parts.rate = rate;
        Assign(i, u.prefillTokens, u.transferTokens, p.prefillLength, parts);
        m_links[link].unreleasedSeconds += m_result.ues[i].handoverBytes * 8.0 / rate;
        // Each member's parts start at its own handover (the first's is now).
        Push(std::max(now, u.handoverTime), RELEASE, i);
    }
    if (p.prefillLength > 0)
    {
        m_gpuFreeAt[target] = std::max(m_gpuFreeAt[target], p.prefillDone);
    }
}

void
FluidHandoverEngine::Assign(std::size_t i,
                            uint64_t prefillTokens,
                            uint64_t transferTokens,
                            uint64_t prefillLength,
                            const BatchMember& parts)
{
    FluidEpisodeResult& r = m_result.ues[i];
    r.prefillTokens = prefillTokens;
    r.transferTokens = transferTokens;
    r.prefillLength = prefillLength;
    r.handoverBytes = static_cast<double>(transferTokens) * m_bytesPerToken;
    m_members[i] = parts;
    if (transferTokens > 0)
    {
        ++m_links[LinkKey(m_ues[i].source, m_ues[i].target)].planned; // pre-transfers yield
    }
}

void
FluidHandoverEngine::Release(std::size_t i, double now)
{
    const FluidEpisodeResult& r = m_result.ues[i];
    BatchMember& m = m_members[i];
    m.pending = 2;
    m.last = now;
    if (r.transferTokens > 0)
    {
        LinkState& link = m_links[LinkKey(m_ues[i].source, m_ues[i].target)];
        link.unreleasedSeconds =
            std::max(0.0, link.unreleasedSeconds - r.handoverBytes * 8.0 / m.rate);
        AddTransfer(i, now);
    }
    else
    {
        m_result.ues[i].transferDone = m_ues[i].handoverTime;
        PartDone(i, now);
    }
    if (r.prefillTokens > 0)
    {
        JoinGpu(m.gpuKey, m.gpuSize, i, now);
    }
    else
    {
        m_result.ues[i].prefillDone = m_ues[i].handoverTime;
        PartDone(i, now);
    }
}

HandoverBatcher&
FluidHandoverEngine::Batcher(uint16_t source)
{
    std::unique_ptr<HandoverBatcher>& b = m_batchers[source];
    if (b)
    {
        return *b;
    }
    b = std::make_unique<HandoverBatcher>(m_scheduler);
    HandoverBatcher::Clock clock;
    clock.now = [this]() { return Seconds(m_now); };
    clock.call = [this](Time at, std::function<void()> action) {
        m_calls.push_back(std::move(action));
        Push(at.GetSeconds(), CLOSE, m_calls.size() - 1);
    };
    b->SetClock(clock);
    b->SetBatchCompleteCallback(
        [this, source](uint32_t id, uint16_t, uint16_t size, bool online, const CtHoPlan& plan) {
            if (online && plan.prefillLength > 0)
            {
                CloseGpu((static_cast<uint64_t>(source) << 32) | id, size, m_now);
            }
        });
    // The episodes foreseen within the Lookahead: perfect foresight of their times, and of
    // their contexts less the whole tokens already sent ahead to that target.
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < m_ues.size(); ++j)
    {
        if (m_ues[j].source == source && !std::isnan(m_ues[j].handoverTime))
        {
            order.push_back(j);
        }
    }
    std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t c) {
        return m_ues[a].handoverTime < m_ues[c].handoverTime;
    });
    b->SetArrivalPredictor([this, order](uint16_t target, Time now, Time horizon) {
        const double from = now.GetSeconds();
        const double to = (now + horizon).GetSeconds();
        auto j =
            std::upper_bound(order.begin(), order.end(), from, [this](double t, std::size_t k) {
                return t < m_ues[k].handoverTime;
            });
        std::vector<CtHoUe> next;
        for (; j != order.end() && m_ues[*j].handoverTime <= to; ++j)
        {
            const FluidHandoverEpisode& u = m_ues[*j];
            if (u.target == target)
            {
                next.push_back(CtHoUe{*j, u.handoverTime, PredictedRest(*j)});
            }
        }
        return next;
    });
    return *b;
}

uint64_t
FluidHandoverEngine::PredictedRest(std::size_t j) const
{
    const FluidHandoverEpisode& u = m_ues[j];
    const EpisodeState& e = m_state[j];
    const bool held = (e.phase == SENDING || e.phase == HELD) && u.predictedTarget == u.target;
    const auto tokens = held ? static_cast<uint64_t>(std::floor(e.arrived / m_bytesPerToken)) : 0;
    return u.contextTokens > tokens ? u.contextTokens - tokens : 0; // 0: nothing to plan
}

void
FluidHandoverEngine::Arrive(std::size_t i, double now)
{
    // At its handover the source stops sending the episode ahead and the target takes what
    // arrived; the rest is planned with the source's other handovers within gatherTime of
    // the first (as the packet level's EdgeLlmSourceRole; 0: those of this instant).
    const uint16_t source = m_ues[i].source;
    for (const CtHoUe& rest : ClaimSentAhead({i}, now))
    {
        std::vector<CtHoUe>& gathered = m_gathered[source];
        if (gathered.empty())
        {
            Push(now + m_config.gatherTime.GetSeconds(), GATHERED, source);
        }
        gathered.push_back(rest);
    }
}

void
FluidHandoverEngine::ProcessGathered(uint16_t source, double now)
{
    std::map<uint16_t, std::vector<CtHoUe>> byTarget;
    for (const CtHoUe& rest : m_gathered[source])
    {
        byTarget[m_ues[rest.ueId].target].push_back(rest);
    }
    m_gathered.erase(source);
    for (const auto& [target, arrivals] : byTarget)
    {
        Batcher(source).SetSimultaneous(target, arrivals);
        for (const CtHoUe& ue : arrivals)
        {
            BeginOnline(ue.ueId, ue.contextTokens, now);
        }
    }
}

void
FluidHandoverEngine::BeginOnline(std::size_t i, uint64_t context, double now)
{
    const FluidHandoverEpisode& u = m_ues[i];
    const uint32_t link = LinkKey(u.source, u.target);
    HandoverBatcher::PlanInputs inputs;
    const double rate = HandoverRate(u.source, u.target);
    inputs.backhaulTokensPerSecond = rate / m_bitsPerToken;
    inputs.prefill = m_config.prefill;
    inputs.batchPeriod = m_config.batchPeriod.GetSeconds();
    inputs.backhaulFreeAt = LinkFreeAt(link, now);
    const auto gpu = m_gpuBusy.find(u.target); // the target GPU's last batch, any source's
    inputs.signalling.gpuFreeAt = gpu != m_gpuBusy.end() ? gpu->second : 0.0;
    const HandoverBatcher::Decision d =
        Batcher(u.source).Start(i, u.target, context, Seconds(u.handoverTime), inputs, nullptr);
    BatchMember parts;
    parts.gpuKey = (static_cast<uint64_t>(u.source) << 32) | d.batchId;
    parts.gpuSize = d.batchSize;
    parts.deadline = d.deadline.GetSeconds();
    parts.rate = rate;
    Assign(i, d.prefillTokens, d.transferTokens, d.prefillLength, parts);
    Release(i, now);
}

void
FluidHandoverEngine::JoinGpu(uint64_t key, uint32_t size, std::size_t i, double now)
{
    auto it = m_gpuWaiting.find(key);
    if (it == m_gpuWaiting.end())
    {
        GpuBatch b;
        b.target = m_ues[i].target;
        b.size = size;
        b.prefillLength = m_result.ues[i].prefillLength;
        b.lastHandover = m_ues[i].handoverTime;
        it = m_gpuWaiting.emplace(key, b).first;
    }
    it->second.lastHandover = std::max(it->second.lastHandover, m_ues[i].handoverTime);
    it->second.members.push_back(i);
    StartGpuIfReady(key, now);
}

void
FluidHandoverEngine::CloseGpu(uint64_t key, uint32_t size, double now)
{
    auto it = m_gpuWaiting.find(key);
    if (it != m_gpuWaiting.end())
    {
        it->second.size = size;
        StartGpuIfReady(key, now);
    }
}

void
FluidHandoverEngine::StartGpuIfReady(uint64_t key, double now)
{
    // As PrefillEngine: on the first T_c boundary at or after the last member's handover,
    // now (every member in, or the close) and the GPU's previous batch.
    auto it = m_gpuWaiting.find(key);
    const GpuBatch& b = it->second;
    if (b.size == 0 || b.members.size() < b.size)
    {
        return;
    }
    double& busy = m_gpuBusy[b.target];
    const double ready = std::max({b.lastHandover, now, busy});
    busy = CtHoPlanner::BatchStart(ready, m_config.batchPeriod.GetSeconds()) +
           m_config.prefill.Evaluate(b.prefillLength);
    m_gpuDone.push_back(b.members);
    Push(busy, PREFILL_DONE, m_gpuDone.size() - 1);
    m_gpuWaiting.erase(it);
}

void
FluidHandoverEngine::AddTransfer(std::size_t i, double now)
{
    const FluidHandoverEpisode& u = m_ues[i];
    LinkState& link = m_links[LinkKey(u.source, u.target)];
    SettleLink(link, now);
    LinkJob j;
    j.episode = i;
    j.bits = m_result.ues[i].handoverBytes * 8.0;
    j.rate = m_members[i].rate;
    j.job.sessionId = u.ueId;
    j.job.handoverTime = Seconds(u.handoverTime);
    j.job.deadline = Seconds(m_members[i].deadline);
    link.jobs.push_back(j);
    ServeLink(link, now);
}

void
FluidHandoverEngine::SettleLink(LinkState& link, double now)
{
    if (link.busy)
    {
        LinkJob& j = link.jobs[link.serving];
        j.bits -= std::min(j.bits, j.rate * (now - link.since));
        link.since = now;
        link.busy = false;
    }
}

void
FluidHandoverEngine::ServeLink(LinkState& link, double now) const
{
    if (link.jobs.empty())
    {
        return;
    }
    std::size_t pick = 0;
    if (link.jobs.size() > 1)
    {
        // Assigned into a kept vector: a Time made outside a simulation costs a registry
        // insertion (Time::Mark), and this runs at every join and end.
        m_view.resize(link.jobs.size());
        for (std::size_t k = 0; k < link.jobs.size(); ++k)
        {
            m_view[k] = link.jobs[k].job;
            m_view[k].remainingBytes = static_cast<uint64_t>(std::ceil(link.jobs[k].bits / 8.0));
        }
        pick = m_scheduler->SelectNextTransfer(m_view);
    }
    link.serving = pick;
    link.busy = true;
    link.since = now;
    link.doneAt = now + link.jobs[pick].bits / link.jobs[pick].rate;
}

double
FluidHandoverEngine::LinkFreeAt(uint32_t key, double now) const
{
    // The backlog ahead of a new batch: every planned transfer, one after another.
    const auto it = m_links.find(key);
    if (it == m_links.end())
    {
        return now;
    }
    const LinkState& link = it->second;
    double seconds = link.unreleasedSeconds;
    for (std::size_t k = 0; k < link.jobs.size(); ++k)
    {
        const LinkJob& j = link.jobs[k];
        const double sent = link.busy && k == link.serving ? j.rate * (now - link.since) : 0.0;
        seconds += std::max(0.0, j.bits - sent) / j.rate;
    }
    return now + seconds;
}

double
FluidHandoverEngine::NextTransferDone() const
{
    double next = std::numeric_limits<double>::infinity();
    for (const auto& [key, link] : m_links)
    {
        next = link.busy ? std::min(next, link.doneAt) : next;
    }
    return next;
}

void
FluidHandoverEngine::CompleteTransfers(double now)
{
    for (auto& [key, link] : m_links)
    {
        if (!link.busy || link.doneAt > now)
        {
            continue;
        }
        const std::size_t i = link.jobs[link.serving].episode;
        link.jobs.erase(link.jobs.begin() + static_cast<std::ptrdiff_t>(link.serving));
        link.busy = false;
        --link.planned;
        ServeLink(link, now);
        m_result.ues[i].transferDone = now;
        PartDone(i, now);
    }
}

void
FluidHandoverEngine::PartDone(std::size_t i, double now)
{
    BatchMember& m = m_members[i];
    m.last = std::max(m.last, now);
    if (--m.pending == 0)
    {
        m_result.ues[i].delay = m.last - m_ues[i].handoverTime;
    }
}

double
FluidHandoverEngine::GoalAt(std::size_t i, double t) const
{
    // What is decoded by t; within a time step of the whole context it is the whole.
    const EpisodeState& e = m_state[i];
    const double g = e.goal0 + e.growth * (t - e.since);
    return g >= e.goal - e.growth * FluidTimeResolution(t) ? e.goal : g;
}

double
FluidHandoverEngine::SendingRates(double now, std::vector<double>& rate)
{
    // Each sending episode's rate now, none while a batch uses the link if they yield: one
    // that has caught up with the decoding (FollowDecoding) follows it; the others share
    // equally what RateShare x R leaves.
    if (m_share <= 0)
    {
        return m_events.empty() ? std::numeric_limits<double>::infinity() : m_events.top().time;
    }
    // The sending episodes by link, in index order.
    std::map<uint32_t, std::vector<std::size_t>> byLink;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        if (m_state[i].phase == SENDING)
        {
            byLink[LinkKey(m_ues[i].source, m_ues[i].predictedTarget)].push_back(i);
        }
    }
    double next = m_events.empty() ? std::numeric_limits<double>::infinity() : m_events.top().time;
    for (const auto& [link, sending] : byLink)
    {
        const auto busy = m_links.find(link);
        if (m_yield && busy != m_links.end() && busy->second.planned > 0)
        {
            continue; // a planned transfer uses the link
        }
        std::vector<FluidAheadSender> senders;
        for (std::size_t i : sending)
        {
            const EpisodeState& e = m_state[i];
            senders.push_back({e.arrived, GoalAt(i, now), e.goal, e.growth});
        }
        const std::vector<FluidAheadRate> rates =
            ShareAheadRate(m_share * m_linkBytesPerSecond, senders);
        for (std::size_t n = 0; n < sending.size(); ++n)
        {
            rate[sending[n]] = rates[n].rate;
            m_state[sending[n]].completion = now + rates[n].change;
            next = std::min(next, m_state[sending[n]].completion);
        }
    }
    return next;
}

void
FluidHandoverEngine::Progress(const std::vector<double>& rate, double now, double next)
{
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        if (rate[i] > 0)
        {
            // Never ahead of the decoding.
            m_state[i].arrived =
                std::min(m_state[i].arrived + rate[i] * (next - now), GoalAt(i, next));
            // All sent, or so nearly that the rest would take less than a time step.
            const double left = m_state[i].goal - m_state[i].arrived;
            if (left <= std::max(m_state[i].goal * 1e-12, rate[i] * FluidTimeResolution(next)))
            {
                m_state[i].arrived = m_state[i].goal;
                m_state[i].phase = HELD;
            }
        }
    }
}

void
FluidHandoverEngine::CatchUpStalled(double now)
{
    // The sending episodes whose next change is due now have what was decoded (all of it
    // without FollowDecoding); one that gained nothing would stall the loop for ever.
    bool moved = false;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        EpisodeState& e = m_state[i];
        if (e.phase != SENDING || e.completion > now)
        {
            continue;
        }
        const double target = GoalAt(i, now); // never above the goal
        moved = moved || target > e.arrived || target >= e.goal;
        e.arrived = std::max(e.arrived, target);
        if (e.arrived >= e.goal)
        {
            e.phase = HELD;
        }
    }
    if (!moved)
    {
        throw std::logic_error("FluidHandoverEngine::Run: no progress at t = " +
                               edgellm::FormatValue(now) + " s (please report this input)");
    }
}

void
FluidHandoverEngine::Dispatch(const Event& e, double now)
{
    switch (e.kind)
    {
    case HOLD_EXPIRE:
        Drop(e.index);
        break;
    case TRIGGER_END:
        if (!m_state[e.index].handled &&
            (m_state[e.index].phase == SENDING || m_state[e.index].phase == HELD))
        {
            Stop(e.index);
            Push(now + m_pre->holdTime.GetSeconds(), HOLD_EXPIRE, e.index);
        }
        break;
    case HANDOVER:
        PlanBatch(m_batches[e.index], now);
        break;
    case ARRIVAL:
        Arrive(e.index, now);
        break;
    case GATHERED:
        ProcessGathered(static_cast<uint16_t>(e.index), now);
        break;
    case RELEASE:
        Release(e.index, now);
        break;
    case TRIGGER:
        Trigger(e.index);
        break;
    case CLOSE:
        m_calls[e.index]();
        break;
    case PREFILL_DONE:
        for (std::size_t i : m_gpuDone[e.index])
        {
            m_result.ues[i].prefillDone = now;
            PartDone(i, now);
        }
        break;
    default:
        break;
    }
}

void
FluidHandoverEngine::Summarize()
{
    // The run's end: what is still held was never used.
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        if (!m_state[i].handled)
        {
            m_result.ues[i].preSentBytes = m_state[i].arrived;
        }
        Drop(i);
    }
    SumTotals();
}

void
FluidHandoverEngine::SumTotals()
{
    uint32_t handovers = 0;
    for (const FluidEpisodeResult& r : m_result.ues)
    {
        m_result.preSentBytes += r.preSentBytes;
        m_result.wastedBytes += r.wastedBytes;
        m_result.handoverBytes += r.handoverBytes;
        if (r.handedOver && !std::isnan(r.delay))
        {
            ++handovers;
            m_result.worstDelay = std::max(m_result.worstDelay, r.delay);
            m_result.meanDelay += r.delay;
        }
    }
    m_result.meanDelay = handovers > 0 ? m_result.meanDelay / handovers : 0.0;
    m_result.backhaulBytes = m_result.preSentBytes + m_result.handoverBytes;
    // A batch policy's handover that never ended makes the totals unknown, never smaller.
    const bool unfinished =
        !m_scheduler->AllocatesSlots() &&
        std::any_of(m_result.ues.begin(), m_result.ues.end(), [](const FluidEpisodeResult& r) {
            return r.handedOver && std::isnan(r.delay);
        });
    if (unfinished)
    {
        m_result.worstDelay = std::numeric_limits<double>::quiet_NaN();
        m_result.meanDelay = std::numeric_limits<double>::quiet_NaN();
    }
}

double
FluidHandoverEngine::ShareActiveSlot(double t, const std::vector<std::size_t>& active)
{
    const double dt = m_scheduler->GetSlotLength().GetSeconds();
    const double window = m_scheduler->GetTransferWindow().GetSeconds();
    std::vector<SlotUser> users;
    std::vector<double> windowEnds;
    for (std::size_t i : active)
    {
        users.push_back({i, m_slot[i].bits, m_slot[i].x, *m_ues[i].utility});
        windowEnds.push_back(m_ues[i].handoverTime + window);
    }
    const FluidSlotShare s =
        ShareFluidSlot(*m_scheduler, users, windowEnds, t, dt, m_config.backhaulGbps * 1e9 * dt);
    ++m_result.slots;
    m_result.fallbackSlots += s.allocation.regime == SlotAllocation::FALLBACK ? 1 : 0;
    for (std::size_t n = 0; n < active.size(); ++n)
    {
        SlotState& u = m_slot[active[n]];
        FluidEpisodeResult& r = m_result.ues[active[n]];
        const double arrival = m_ues[active[n]].handoverTime;
        const double target = s.allocation.target[n];
        if (std::isnan(r.latency99) && s.reached[n] >= u.reach99 && target > u.x)
        {
            r.latency99 = t + dt * (u.reach99 - u.x) / (target - u.x) - arrival;
        }
        r.handoverBytes += (s.reached[n] - u.x) * u.bits / 8;
        u.x = s.reached[n];
    }
    return s.usedBits;
}

void
FluidHandoverEngine::SendAheadInSlot(double spare, std::vector<std::size_t> ahead)
{
    // Smallest rest first, so that a cache that needs less than its part leaves the rest
    // to the others (water-filling on bits).
    std::sort(ahead.begin(), ahead.end(), [this](std::size_t a, std::size_t b) {
        return (m_slot[a].prefix - m_slot[a].x) * m_slot[a].bits <
               (m_slot[b].prefix - m_slot[b].x) * m_slot[b].bits;
    });
    for (std::size_t n = 0; n < ahead.size(); ++n)
    {
        SlotState& u = m_slot[ahead[n]];
        FluidEpisodeResult& r = m_result.ues[ahead[n]];
        const double bits =
            std::min(spare / static_cast<double>(ahead.size() - n), (u.prefix - u.x) * u.bits);
        spare -= bits;
        r.preSentBytes += bits / 8;
        u.x = std::min(1.0, u.x + bits / u.bits);
        r.receivedAhead = u.x;
        if (std::isnan(r.latency99) && u.x >= u.reach99)
        {
            r.latency99 = 0; // it arrives with 99 % of its accuracy
        }
    }
}

void
FluidHandoverEngine::RunSlots()
{
    const double dt = m_scheduler->GetSlotLength().GetSeconds();
    const double window = m_scheduler->GetTransferWindow().GetSeconds();
    const double budget = m_config.backhaulGbps * 1e9 * dt;
    // The episodes with a handover by its time; the longest lead of a trigger that sends
    // ahead (and a microsecond for its rounding) bounds the scan of each slot.
    std::vector<std::size_t> order;
    std::vector<double> starts; // the handovers and the triggers that send ahead, sorted
    double lead = 0;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        const FluidHandoverEpisode& u = m_ues[i];
        if (!std::isnan(u.handoverTime))
        {
            order.push_back(i);
            m_slot[i].bits = static_cast<double>(u.contextTokens) * m_bitsPerToken;
            m_slot[i].prefix =
                static_cast<double>(u.prefixTokens) / static_cast<double>(u.contextTokens);
            m_slot[i].reach99 = FractionFor(*u.utility, 0.99 * u.utility->asymptote);
            const bool sends = m_share > 0 && !std::isnan(u.triggerTime);
            lead = sends ? std::max(lead, u.handoverTime - u.triggerTime + 1e-6) : lead;
            starts.push_back(u.handoverTime);
            if (sends)
            {
                starts.push_back(u.triggerTime);
            }
        }
    }
    std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
        return m_ues[a].handoverTime < m_ues[b].handoverTime;
    });
    std::sort(starts.begin(), starts.end());
    std::size_t first = 0; // episodes before it are done (window closed or cache whole)
    for (uint64_t k = 0;; ++k)
    {
        const double t = static_cast<double>(k) * dt;
        while (first < order.size() &&
               (m_ues[order[first]].handoverTime + window <= t || m_slot[order[first]].x >= 1.0))
        {
            ++first;
        }
        if (first >= order.size())
        {
            break;
        }
        // Per link: the active episodes, and those sent ahead (trigger fired, handover
        // after this slot's start).
        std::map<uint32_t, std::pair<std::vector<std::size_t>, std::vector<std::size_t>>> links;
        for (std::size_t n = first; n < order.size() && m_ues[order[n]].handoverTime <= t + lead;
             ++n)
        {
            const std::size_t i = order[n];
            const FluidHandoverEpisode& u = m_ues[i];
            auto& [active, ahead] = links[LinkKey(u.source, u.target)];
            if (u.handoverTime <= t && u.handoverTime + window > t && m_slot[i].x < 1.0)
            {
                active.push_back(i);
            }
            if (m_share > 0 && u.handoverTime > t && u.triggerTime <= t &&
                m_slot[i].x < m_slot[i].prefix)
            {
                ahead.push_back(i);
            }
        }
        bool busy = false;
        for (const auto& [link, episodes] : links)
        {
            const double used = episodes.first.empty() ? 0.0 : ShareActiveSlot(t, episodes.first);
            // (What the active ones left, never below 0 by rounding.)
            SendAheadInSlot(std::clamp(budget - used, 0.0, m_share * budget), episodes.second);
            busy = busy || !episodes.first.empty() || !episodes.second.empty();
        }
        if (!busy)
        {
            // Idle until the next handover or trigger: skip to (about) its slot; the
            // slots skipped would have done nothing.
            // (Episode order[first] is not done and not active: its handover is ahead.)
            const double next = *std::upper_bound(starts.begin(), starts.end(), t);
            const auto slot = static_cast<uint64_t>(std::floor(next / dt));
            k = slot > k + 2 ? slot - 2 : k; // the loop's ++k: slot - 1, at most its slot
        }
    }
    SummarizeSlots();
}

void
FluidHandoverEngine::SummarizeSlots()
{
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        const FluidHandoverEpisode& u = m_ues[i];
        FluidEpisodeResult& r = m_result.ues[i];
        if (std::isnan(u.handoverTime))
        {
            continue;
        }
        r.handedOver = true;
        r.target = u.target;
        r.predictedRight = u.predictedTarget == u.target; // as for batch policies
        r.received = m_slot[i].x;
        r.accuracy = u.utility->Value(r.received);
        r.starved = r.received < u.utility->inflection;
    }
    SumTotals();
}

FluidEngineResult
FluidHandoverEngine::Run()
{
    if (m_ran)
    {
        throw std::logic_error("FluidHandoverEngine::Run: an engine runs once (make another)");
    }
    m_ran = true;
    m_result.scheme = m_scheduler->GetSchemeName();
    m_result.ues.resize(m_ues.size());
    m_state.assign(m_ues.size(), EpisodeState());
    if (m_scheduler->AllocatesSlots())
    {
        for (std::size_t i = 0; i < m_ues.size(); ++i)
        {
            m_result.ues[i].ueId = m_ues[i].ueId;
            m_result.ues[i].handoverTime = m_ues[i].handoverTime;
        }
        m_slot.assign(m_ues.size(), SlotState());
        RunSlots();
        return m_result;
    }
    m_members.assign(m_ues.size(), BatchMember());
    ScheduleEpisodes();
    double& now = m_now;
    std::vector<double> rate;
    while (true)
    {
        rate.assign(m_ues.size(), 0.0);
        const double next = std::min(SendingRates(now, rate), NextTransferDone());
        if (!std::isfinite(next))
        {
            break;
        }
        if (next <= now && (m_events.empty() || m_events.top().time > now) &&
            NextTransferDone() > now)
        {
            CatchUpStalled(now); // a rate's change within a time step of now
            continue;
        }
        Progress(rate, now, next);
        now = next;
        CompleteTransfers(now);
        while (!m_events.empty() && m_events.top().time <= now)
        {
            const Event e = m_events.top();
            m_events.pop();
            Dispatch(e, now);
        }
    }
    Summarize();
    return m_result;
}

} // namespace ns3
