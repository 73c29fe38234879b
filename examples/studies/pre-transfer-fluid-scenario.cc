/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pre-transfer-fluid-scenario.h"

#include "ns3/edge-llm-limits.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/// Random streams of RoadEpisodes' stops (fixed, beside the road draw's 11 and 12).
constexpr int64_t STREAM_STOP = 13;
constexpr int64_t STREAM_STOP_X = 14; //!< see STREAM_STOP
} // namespace

PreTransferFluidResult
PreTransferFluidScenario::Run(const PreTransferFluidConfig& config,
                              Ptr<HandoverScheduler> scheduler,
                              const std::vector<PreTransferUe>& ues)
{
    return FluidHandoverEngine(config, scheduler, ues).Run();
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
        throw std::invalid_argument("stopShare must be in [0, 1], got " +
                                    edgellm::FormatValue(stopShare));
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
