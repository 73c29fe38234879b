/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pre-transfer-fluid-scenario.h"

#include "ns3/edge-llm-limits.h"
#include "ns3/kv-pre-transfer-store.h"
#include "ns3/llm-model-profile.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

namespace
{
/// Random streams of RoadEpisodes' stops (fixed, beside the road draw's 11 and 12).
constexpr int64_t STREAM_STOP = 13;
constexpr int64_t STREAM_STOP_X = 14; //!< see STREAM_STOP

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

struct Event
{
    double time;
    int kind;
    uint64_t seq;
    std::size_t index; //!< Episode, or batch for HANDOVER
};

struct Later
{
    bool operator()(const Event& a, const Event& b) const
    {
        return std::tie(a.time, a.kind, a.seq) > std::tie(b.time, b.kind, b.seq);
    }
};

/// Where an episode's bytes sent ahead are.
enum Phase
{
    IDLE,    //!< Nothing sent ahead (yet)
    SENDING, //!< Sending to the predicted target
    HELD,    //!< Held there, the source no longer sending
    GONE,    //!< Used, dropped or evicted
};

struct EpisodeState
{
    Phase phase{IDLE};
    double arrived{0};    //!< Bytes at the predicted target
    double goal{0};       //!< Bytes it sends ahead in all (FollowDecoding: the context's)
    double goal0{0};      //!< Bytes decoded at the trigger (the prefix's)
    double growth{0};     //!< Bytes decoded per s after it (FollowDecoding; else 0)
    double since{0};      //!< The trigger's time, s
    bool handled{false};  //!< Its batch was planned
    double completion{0}; //!< When SENDING ends at the current rate, s
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
} // namespace

void
PreTransferFluidConfig::Validate() const
{
    LlmModelProfile::FromPreset(model, kvBits); // names the model or kvBits
    if (!(backhaulGbps > 0) || !std::isfinite(backhaulGbps))
    {
        throw std::invalid_argument("backhaulGbps must be a finite number > 0");
    }
    if (batchPeriod.IsStrictlyNegative())
    {
        throw std::invalid_argument("batchPeriod must be >= 0");
    }
    if (std::isnan(batchSpan) || batchSpan < 0)
    {
        throw std::invalid_argument("batchSpan must be >= 0 s (infinity: one batch per pair)");
    }
    if (kvMemoryCapacity < 1)
    {
        throw std::invalid_argument("kvMemoryCapacity must be >= 1 byte, got 0");
    }
}

PreTransferFluidResult
PreTransferFluidScenario::Run(const PreTransferFluidConfig& config,
                              Ptr<HandoverScheduler> scheduler,
                              const std::vector<PreTransferUe>& ues)
{
    config.Validate();
    if (!scheduler || scheduler->AllocatesSlots())
    {
        throw std::invalid_argument("the pre-transfer engine needs a PreTransferScheduler or a "
                                    "batch policy (ctHO, tHO, cHO), not a slot policy");
    }
    const std::optional<PreTransferSettings> pre = scheduler->GetPreTransfer();
    const double share = pre ? pre->rateShare : 0.0;
    const bool yield = pre ? pre->yieldToHandovers : true;
    if (pre && !yield && share >= 1)
    {
        throw std::invalid_argument("ns3::PreTransferScheduler::YieldToHandovers false needs "
                                    "RateShare < 1 (the handovers' part of the link)");
    }
    const double hold = pre ? pre->holdTime.GetSeconds() : 0.0;
    const double pingPong = pre ? pre->pingPongTime.GetSeconds() : 0.0;
    const bool follow = pre && pre->followDecoding;
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        const PreTransferUe& u = ues[i];
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
    }

    const LlmModelProfile profile = LlmModelProfile::FromPreset(config.model, config.kvBits);
    const auto bytesPerToken = static_cast<double>(profile.BytesPerToken());
    const double linkBytesPerSecond = config.backhaulGbps * 1e9 / 8.0;

    PreTransferFluidResult result;
    result.scheme = scheduler->GetSchemeName();
    result.ues.resize(ues.size());
    std::vector<EpisodeState> state(ues.size());
    std::map<uint16_t, KvPreTransferStore> memory; // per target
    std::map<uint32_t, double> linkBusy;           // per source-target link: batch ends, s
    std::map<uint16_t, double> gpuFreeAt;          // per target: batch prefill ends, s
    std::priority_queue<Event, std::vector<Event>, Later> events;
    uint64_t seq = 0;
    auto push = [&](double t, int kind, std::size_t index) {
        events.push(Event{t, kind, seq++, index});
    };
    auto store = [&](uint16_t cell) -> KvPreTransferStore& {
        return memory.try_emplace(cell, config.kvMemoryCapacity).first->second;
    };

    // Batches: per source-target pair, in handover order, within batchSpan of the first.
    std::map<uint32_t, std::vector<std::size_t>> byPair;
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        result.ues[i].ueId = ues[i].ueId;
        result.ues[i].handoverTime = ues[i].handoverTime;
        if (!std::isnan(ues[i].handoverTime))
        {
            byPair[LinkKey(ues[i].source, ues[i].target)].push_back(i);
        }
        if (pre && !std::isnan(ues[i].triggerTime))
        {
            push(ues[i].triggerTime, TRIGGER, i);
        }
        if (pre && !std::isnan(ues[i].triggerEnd))
        {
            push(ues[i].triggerEnd, TRIGGER_END, i);
        }
    }
    std::vector<std::vector<std::size_t>> batches;
    for (auto& [pair, members] : byPair)
    {
        std::stable_sort(members.begin(), members.end(), [&ues](std::size_t a, std::size_t b) {
            return ues[a].handoverTime < ues[b].handoverTime;
        });
        for (std::size_t k = 0; k < members.size();)
        {
            const double first = ues[members[k]].handoverTime;
            std::vector<std::size_t> batch;
            for (; k < members.size() && ues[members[k]].handoverTime <= first + config.batchSpan;
                 ++k)
            {
                batch.push_back(members[k]);
            }
            push(first, HANDOVER, batches.size());
            batches.push_back(batch);
        }
    }

    // The source stops sending ahead; the target gives back the room it will not fill.
    auto stop = [&](std::size_t i) {
        if (state[i].phase == SENDING)
        {
            state[i].phase = HELD;
            store(ues[i].predictedTarget)
                .Shrink(i, static_cast<uint64_t>(std::ceil(state[i].arrived)));
        }
    };
    // The target drops what it holds: waste.
    auto drop = [&](std::size_t i) {
        if (state[i].phase == SENDING || state[i].phase == HELD)
        {
            result.ues[i].wastedBytes += state[i].arrived;
            store(ues[i].predictedTarget).Release(i);
            state[i].phase = GONE;
        }
    };
    // An episode whose UE's last handover by its trigger came from the predicted target
    // into its source less than PingPongTime before: no pre-transfer back (as at packet
    // level, EdgeLlmPreTransferRole).
    auto pingPongGuarded = [&](const PreTransferUe& u) {
        const PreTransferUe* last = nullptr;
        for (const PreTransferUe& e : ues)
        {
            if (e.ueId == u.ueId && !std::isnan(e.handoverTime) &&
                e.handoverTime <= u.triggerTime &&
                (last == nullptr || e.handoverTime >= last->handoverTime))
            {
                last = &e;
            }
        }
        return last != nullptr && last->target == u.source && last->source == u.predictedTarget &&
               u.triggerTime < last->handoverTime + pingPong;
    };
    auto trigger = [&](std::size_t i) {
        const PreTransferUe& u = ues[i];
        if (state[i].phase != IDLE || state[i].handled || share <= 0 || u.prefixTokens == 0 ||
            pingPongGuarded(u))
        {
            return;
        }
        KvPreTransferStore& mem = store(u.predictedTarget);
        // FollowDecoding: the tokens decoded after the trigger follow, up to the context at
        // the handover; the room for all of them is reserved at once (flow level).
        const uint64_t tokens = follow ? u.contextTokens : u.prefixTokens;
        if (tokens * profile.BytesPerToken() > mem.GetCapacity())
        {
            ++result.evictions; // larger than the whole memory: refused, as an eviction
            result.ues[i].evicted = true;
            return;
        }
        for (uint64_t j : mem.Reserve(i, tokens * profile.BytesPerToken()))
        {
            // Evicted: what arrived is waste; a source still sending stops.
            result.ues[j].wastedBytes += state[j].arrived;
            result.ues[j].evicted = true;
            state[j].phase = GONE;
            ++result.evictions;
        }
        state[i].goal = static_cast<double>(tokens) * bytesPerToken;
        state[i].goal0 = static_cast<double>(u.prefixTokens) * bytesPerToken;
        state[i].growth = follow ? u.decodeRate * bytesPerToken : 0.0;
        state[i].since = ues[i].triggerTime;
        state[i].phase = SENDING;
    };
    auto plan = [&](const std::vector<std::size_t>& members, double now) {
        const uint16_t source = ues[members.front()].source;
        const uint16_t target = ues[members.front()].target;
        const uint32_t link = LinkKey(source, target);
        std::vector<CtHoUe> rest;
        for (std::size_t i : members)
        {
            state[i].handled = true;
            stop(i);
            PreTransferUeResult& r = result.ues[i];
            r.handedOver = true;
            r.target = ues[i].target;
            r.predictedRight = ues[i].target == ues[i].predictedTarget;
            r.preSentBytes = state[i].arrived;
            if (state[i].phase == HELD && r.predictedRight)
            {
                // (A token whose bytes all arrived, up to rounding in the sum of rates.)
                r.usedTokens = std::min(
                    ues[i].contextTokens,
                    static_cast<uint64_t>(std::floor(state[i].arrived / bytesPerToken + 1e-9)));
                r.wastedBytes +=
                    state[i].arrived - static_cast<double>(r.usedTokens) * bytesPerToken;
                store(target).Release(i);
                state[i].phase = GONE;
            }
            else if (state[i].phase == HELD)
            {
                push(std::max(now, ues[i].handoverTime) + hold, HOLD_EXPIRE, i);
            }
            if (ues[i].contextTokens > r.usedTokens)
            {
                rest.push_back(CtHoUe{i, ues[i].handoverTime, ues[i].contextTokens - r.usedTokens});
            }
            else
            {
                r.delay = 0; // the target holds the whole cache at the handover
            }
        }
        if (rest.empty())
        {
            return;
        }
        bool othersSending = false;
        for (std::size_t j = 0; j < ues.size(); ++j)
        {
            othersSending =
                othersSending || (state[j].phase == SENDING && ues[j].source == source &&
                                  ues[j].predictedTarget == target);
        }
        const double rate =
            linkBytesPerSecond * 8.0 * (!yield && othersSending ? 1.0 - share : 1.0);
        CtHoSignalling signalling;
        signalling.gpuFreeAt = gpuFreeAt[target];
        const CtHoPlan p = scheduler->PlanBatch(rest,
                                                rate / static_cast<double>(profile.BitsPerToken()),
                                                config.prefill,
                                                config.batchPeriod.GetSeconds(),
                                                linkBusy[link],
                                                signalling);
        for (const CtHoUePlan& u : p.ues)
        {
            PreTransferUeResult& r = result.ues[u.ueId];
            r.prefillTokens = u.prefillTokens;
            r.transferTokens = u.transferTokens;
            r.handoverBytes = static_cast<double>(u.transferTokens) * bytesPerToken;
            r.delay = u.delay;
            if (u.transferTokens > 0)
            {
                linkBusy[link] = std::max(linkBusy[link], u.transferDone);
            }
        }
        if (p.prefillLength > 0)
        {
            gpuFreeAt[target] = std::max(gpuFreeAt[target], p.prefillDone);
        }
        if (linkBusy[link] > now)
        {
            push(linkBusy[link], WAKE, 0);
        }
    };

    double now = 0;
    while (true)
    {
        // Each sending episode's rate now, none while a batch uses the link if they yield:
        // one that has caught up with the decoding (FollowDecoding) follows it; the others
        // share equally what RateShare x R leaves.
        auto goalAt = [&state](std::size_t i, double t) {
            const EpisodeState& e = state[i];
            return std::min(e.goal, e.goal0 + e.growth * (t - e.since));
        };
        auto following = [&](std::size_t i) {
            const double g = goalAt(i, now);
            return state[i].growth > 0 && g < state[i].goal &&
                   state[i].arrived >= g - 1e-9 * state[i].goal;
        };
        std::map<uint32_t, uint32_t> catching;
        std::map<uint32_t, double> followed;
        for (std::size_t i = 0; i < ues.size(); ++i)
        {
            if (state[i].phase == SENDING)
            {
                const uint32_t link = LinkKey(ues[i].source, ues[i].predictedTarget);
                if (following(i))
                {
                    followed[link] += state[i].growth;
                }
                else
                {
                    ++catching[link];
                }
            }
        }
        std::vector<double> rate(ues.size(), 0.0);
        double next = events.empty() ? std::numeric_limits<double>::infinity() : events.top().time;
        for (std::size_t i = 0; i < ues.size(); ++i)
        {
            if (state[i].phase != SENDING)
            {
                continue;
            }
            const uint32_t link = LinkKey(ues[i].source, ues[i].predictedTarget);
            const double allowed = share * linkBytesPerSecond;
            if (yield && now < linkBusy[link])
            {
                continue;
            }
            const EpisodeState& e = state[i];
            const double g = goalAt(i, now);
            double t = std::numeric_limits<double>::infinity();
            if (following(i))
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
            state[i].completion = now + t;
            next = std::min(next, state[i].completion);
        }
        if (!std::isfinite(next))
        {
            break;
        }
        for (std::size_t i = 0; i < ues.size(); ++i)
        {
            if (rate[i] > 0)
            {
                // Never ahead of the decoding.
                state[i].arrived =
                    std::min(state[i].arrived + rate[i] * (next - now), goalAt(i, next));
                if (state[i].arrived >= state[i].goal * (1 - 1e-12))
                {
                    state[i].arrived = state[i].goal;
                    state[i].phase = HELD;
                }
            }
        }
        now = next;
        while (!events.empty() && events.top().time <= now)
        {
            const Event e = events.top();
            events.pop();
            switch (e.kind)
            {
            case HOLD_EXPIRE:
                drop(e.index);
                break;
            case TRIGGER_END:
                if (!state[e.index].handled &&
                    (state[e.index].phase == SENDING || state[e.index].phase == HELD))
                {
                    stop(e.index);
                    push(now + hold, HOLD_EXPIRE, e.index);
                }
                break;
            case HANDOVER:
                plan(batches[e.index], now);
                break;
            case TRIGGER:
                trigger(e.index);
                break;
            default: // WAKE: the rates are recomputed above
                break;
            }
        }
    }
    // The run's end: what is still held was never used.
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        if (!state[i].handled)
        {
            result.ues[i].preSentBytes = state[i].arrived;
        }
        drop(i);
    }
    uint32_t handovers = 0;
    for (const PreTransferUeResult& r : result.ues)
    {
        result.preSentBytes += r.preSentBytes;
        result.wastedBytes += r.wastedBytes;
        result.handoverBytes += r.handoverBytes;
        if (r.handedOver)
        {
            ++handovers;
            result.worstDelay = std::max(result.worstDelay, r.delay);
            result.meanDelay += r.delay;
        }
    }
    result.meanDelay = handovers > 0 ? result.meanDelay / handovers : 0.0;
    result.backhaulBytes = result.preSentBytes + result.handoverBytes;
    return result;
}

std::vector<PreTransferUe>
PreTransferFluidScenario::RoadEpisodes(const RoadUeDraw& road,
                                       uint64_t run,
                                       const PreTransferScheduler& policy,
                                       double bsDistance,
                                       double pathlossExponent,
                                       double decodeRate,
                                       double stopShare)
{
    road.Validate();
    if (!std::isfinite(bsDistance) || bsDistance <= road.boundary)
    {
        throw std::invalid_argument("bsDistance must be a finite number > boundary (" +
                                    std::to_string(road.boundary) + " m)");
    }
    if (!std::isfinite(decodeRate) || decodeRate <= 0)
    {
        throw std::invalid_argument("decodeRate must be a finite number > 0 tokens/s");
    }
    if (!(stopShare >= 0 && stopShare <= 1))
    {
        throw std::invalid_argument("stopShare must be in [0, 1]");
    }
    const std::vector<CtHoUe> drawn = road.Draw(run);
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(run);
    Ptr<UniformRandomVariable> stops = CreateObject<UniformRandomVariable>();
    stops->SetStream(STREAM_STOP);
    Ptr<UniformRandomVariable> where = CreateObject<UniformRandomVariable>();
    where->SetStream(STREAM_STOP_X);
    RngSeedManager::SetRun(oldRun);
    std::vector<PreTransferUe> episodes;
    for (const CtHoUe& ue : drawn)
    {
        const double startX = road.boundary - road.speed * ue.handoverTime;
        PreTransferUe e;
        e.ueId = ue.ueId;
        e.source = 1;
        e.predictedTarget = 2;
        e.target = 2;
        e.contextTokens = ue.contextTokens;
        e.handoverTime = ue.handoverTime;
        e.decodeRate = decodeRate;
        const double stopDraw = stops->GetValue();
        const double stopAt = ue.handoverTime * where->GetValue(); // x ~ Unif[x(0), boundary)
        if (stopDraw < stopShare)
        {
            e.handoverTime = std::numeric_limits<double>::quiet_NaN();
            e.triggerEnd = stopAt;
        }
        const double trigger = policy.RoadTriggerTime(startX,
                                                      road.speed,
                                                      ue.handoverTime,
                                                      bsDistance,
                                                      pathlossExponent);
        const double until = std::isnan(e.handoverTime) ? stopAt : ue.handoverTime;
        if (trigger < until)
        {
            e.triggerTime = trigger;
            const double decoded = std::ceil(decodeRate * (ue.handoverTime - trigger));
            e.prefixTokens = decoded >= static_cast<double>(ue.contextTokens)
                                 ? 0
                                 : ue.contextTokens - static_cast<uint64_t>(decoded);
        }
        episodes.push_back(e);
    }
    return episodes;
}

} // namespace ns3
