/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-handover-engine.h"

#include "edge-llm-limits.h"
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
    HANDOVER = 2,
    TRIGGER = 3,
    WAKE = 4, //!< A link's batch ends: pre-transfers may resume
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
    if (m_pre && !m_yield && m_share >= 1 && !m_scheduler->AllocatesSlots())
    {
        throw std::invalid_argument("ns3::PreTransferScheduler::YieldToHandovers false needs "
                                    "RateShare < 1 (the handovers' part of the link)");
    }
    ValidateEpisodes();
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
        if (!std::isnan(m_ues[i].handoverTime))
        {
            byPair[LinkKey(m_ues[i].source, m_ues[i].target)].push_back(i);
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
    return last != nullptr && last->target == u.source && last->source == u.predictedTarget &&
           u.triggerTime < last->handoverTime + m_pre->pingPongTime.GetSeconds();
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
    const bool follow = m_pre->followDecoding;
    const uint64_t tokens = follow ? u.contextTokens : u.prefixTokens;
    if (tokens * m_bytesPerTokenInt > mem.GetCapacity())
    {
        ++m_result.evictions; // larger than the whole memory: refused, as an eviction
        m_result.ues[i].evicted = true;
        return;
    }
    for (uint64_t j : mem.Reserve(i, tokens * m_bytesPerTokenInt))
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
            // (A token whose bytes all arrived, up to rounding in the sum of rates.)
            r.usedTokens = std::min(
                m_ues[i].contextTokens,
                static_cast<uint64_t>(std::floor(m_state[i].arrived / m_bytesPerToken + 1e-9)));
            r.wastedBytes +=
                m_state[i].arrived - static_cast<double>(r.usedTokens) * m_bytesPerToken;
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
        }
    }
    return rest;
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
    bool othersSending = false;
    for (std::size_t j = 0; j < m_ues.size(); ++j)
    {
        othersSending =
            othersSending || (m_state[j].phase == SENDING && m_ues[j].source == source &&
                              m_ues[j].predictedTarget == target);
    }
    const double rate =
        m_linkBytesPerSecond * 8.0 * (!m_yield && othersSending ? 1.0 - m_share : 1.0);
    CtHoSignalling signalling;
    signalling.gpuFreeAt = m_gpuFreeAt[target];
    const CtHoPlan p = m_scheduler->PlanBatch(rest,
                                              rate / m_bitsPerToken,
                                              m_config.prefill,
                                              m_config.batchPeriod.GetSeconds(),
                                              m_linkBusy[link],
                                              signalling);
    for (const CtHoUePlan& u : p.ues)
    {
        FluidEpisodeResult& r = m_result.ues[u.ueId];
        r.prefillTokens = u.prefillTokens;
        r.transferTokens = u.transferTokens;
        r.handoverBytes = static_cast<double>(u.transferTokens) * m_bytesPerToken;
        r.delay = u.delay;
        if (u.transferTokens > 0)
        {
            m_linkBusy[link] = std::max(m_linkBusy[link], u.transferDone);
        }
    }
    if (p.prefillLength > 0)
    {
        m_gpuFreeAt[target] = std::max(m_gpuFreeAt[target], p.prefillDone);
    }
    if (m_linkBusy[link] > now)
    {
        Push(m_linkBusy[link], WAKE, 0);
    }
}

double
FluidHandoverEngine::GoalAt(std::size_t i, double t) const
{
    const EpisodeState& e = m_state[i];
    return std::min(e.goal, e.goal0 + e.growth * (t - e.since));
}

bool
FluidHandoverEngine::Following(std::size_t i, double now) const
{
    const double g = GoalAt(i, now);
    return m_state[i].growth > 0 && g < m_state[i].goal &&
           m_state[i].arrived >= g - 1e-9 * m_state[i].goal;
}

double
FluidHandoverEngine::SendingRates(double now, std::vector<double>& rate)
{
    // Each sending episode's rate now, none while a batch uses the link if they yield: one
    // that has caught up with the decoding (FollowDecoding) follows it; the others share
    // equally what RateShare x R leaves.
    std::map<uint32_t, uint32_t> catching;
    std::map<uint32_t, double> followed;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        if (m_state[i].phase == SENDING)
        {
            const uint32_t link = LinkKey(m_ues[i].source, m_ues[i].predictedTarget);
            if (Following(i, now))
            {
                followed[link] += m_state[i].growth;
            }
            else
            {
                ++catching[link];
            }
        }
    }
    double next = m_events.empty() ? std::numeric_limits<double>::infinity() : m_events.top().time;
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        if (m_state[i].phase != SENDING)
        {
            continue;
        }
        const uint32_t link = LinkKey(m_ues[i].source, m_ues[i].predictedTarget);
        const double allowed = m_share * m_linkBytesPerSecond;
        if (m_yield && now < m_linkBusy[link])
        {
            continue;
        }
        const EpisodeState& e = m_state[i];
        const double g = GoalAt(i, now);
        double t = std::numeric_limits<double>::infinity();
        if (Following(i, now))
        {
            rate[i] = e.growth * std::min(1.0, allowed / followed[link]);
            t = (e.goal - g) / e.growth; // the decoding reaches the context
        }
        else
        {
            rate[i] = std::max(0.0, allowed - followed[link]) / catching[link];
            if (rate[i] > 0)
            {
                t = (e.goal - e.arrived) / rate[i]; // all sent (if the goal is whole)
            }
            if (e.growth > 0 && g < e.goal)
            {
                t = std::min(t, (e.goal - g) / e.growth); // the goal becomes whole
                if (rate[i] > e.growth)
                {
                    t = std::min(t, (g - e.arrived) / (rate[i] - e.growth)); // caught up
                }
            }
        }
        m_state[i].completion = now + t;
        next = std::min(next, m_state[i].completion);
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
            if (m_state[i].arrived >= m_state[i].goal * (1 - 1e-12))
            {
                m_state[i].arrived = m_state[i].goal;
                m_state[i].phase = HELD;
            }
        }
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
    case TRIGGER:
        Trigger(e.index);
        break;
    default: // WAKE: the rates are recomputed by the next SendingRates
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
}

double
FluidHandoverEngine::ShareActiveSlot(double t, const std::vector<std::size_t>& active)
{
    const double dt = m_scheduler->GetSlotLength().GetSeconds();
    const double window = m_scheduler->GetTransferWindow().GetSeconds();
    std::vector<SlotUser> users;
    for (std::size_t i : active)
    {
        users.push_back({i, m_slot[i].bits, m_slot[i].x, *m_ues[i].utility});
    }
    const SlotAllocation a = m_scheduler->AllocateSlot(users, m_config.backhaulGbps * 1e9 * dt);
    ++m_result.slots;
    m_result.fallbackSlots += a.regime == SlotAllocation::FALLBACK ? 1 : 0;
    double used = 0;
    for (std::size_t n = 0; n < active.size(); ++n)
    {
        SlotState& u = m_slot[active[n]];
        FluidEpisodeResult& r = m_result.ues[active[n]];
        const double arrival = m_ues[active[n]].handoverTime;
        // Sent at a constant rate over the slot; the window may cut it short.
        const double share = std::clamp((arrival + window - t) / dt, 0.0, 1.0);
        const double y = u.x + (a.target[n] - u.x) * share;
        if (std::isnan(r.latency99) && y >= u.reach99 && a.target[n] > u.x)
        {
            r.latency99 = t + dt * (u.reach99 - u.x) / (a.target[n] - u.x) - arrival;
        }
        const double bits = (std::min(1.0, y) - u.x) * u.bits;
        used += bits;
        r.handoverBytes += bits / 8;
        u.x = std::min(1.0, y);
    }
    return used;
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
    ScheduleEpisodes();
    double now = 0;
    while (true)
    {
        std::vector<double> rate(m_ues.size(), 0.0);
        const double next = SendingRates(now, rate);
        if (!std::isfinite(next))
        {
            break;
        }
        Progress(rate, now, next);
        now = next;
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
