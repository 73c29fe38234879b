/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-handover-scenario.h"

#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/fluid-handover-engine.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/object-factory.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/// The source and target cells of the flow-level batch.
constexpr uint16_t SOURCE_CELL = 1;
constexpr uint16_t TARGET_CELL = 2;

/// \return the config's scheduler \throws std::invalid_argument for a bad schedulerType
Ptr<HandoverScheduler>
CreateScheduler(const FluidHandoverConfig& config)
{
    // A name that is no creatable HandoverScheduler would make ObjectFactory abort.
    RequireTypeId("schedulerType", config.schedulerType, "ns3::HandoverScheduler");
    ObjectFactory schedulerFactory(config.schedulerType);
    schedulerFactory.Set("Lookahead", TimeValue(config.lookahead));
    HandoverSchemeRegistry::SetAttributes(schedulerFactory, config.schedulerAttributes);
    return schedulerFactory.Create<HandoverScheduler>();
}
} // namespace

FluidHandoverResult
FluidHandoverScenario::Run(const FluidHandoverConfig& config, const std::vector<CtHoUe>& ues)
{
    FluidEngineConfig engine;
    engine.model = config.model;
    engine.kvBits = config.kvBits;
    engine.backhaulGbps = config.backhaulGbps;
    engine.prefill = config.prefill;
    engine.batchPeriod = config.batchPeriod;
    engine.knownHandoverTimes = config.knownHandoverTimes;
    engine.gatherTime = config.gatherTime;
    engine.Validate(); // the model and the rate are named before the UEs and the scheduler
    if (ues.empty())
    {
        throw std::invalid_argument("a flow-level batch needs at least one UE");
    }
    if (config.lookahead.IsStrictlyNegative())
    {
        throw std::invalid_argument("lookahead must be >= 0 s, got " +
                                    edgellm::FormatValue(config.lookahead.GetSeconds()) + " s");
    }
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        // Every UE hands over (NaN would be the core's "no handover").
        if (!std::isfinite(ues[i].handoverTime) || ues[i].handoverTime < 0)
        {
            throw std::invalid_argument("ues[" + std::to_string(i) +
                                        "].handoverTime must be a finite time >= 0 s, got " +
                                        edgellm::FormatValue(ues[i].handoverTime));
        }
    }
    std::vector<FluidHandoverEpisode> episodes(ues.size());
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        episodes[i].ueId = ues[i].ueId;
        episodes[i].source = SOURCE_CELL;
        episodes[i].target = TARGET_CELL;
        episodes[i].handoverTime = ues[i].handoverTime;
        episodes[i].contextTokens = ues[i].contextTokens;
    }
    const Ptr<HandoverScheduler> scheduler = CreateScheduler(config);
    if (scheduler->AllocatesSlots())
    {
        throw std::invalid_argument(
            "schedulerType must be a batch policy (ctHO, tHO, cHO, ...): " + config.schedulerType +
            " allocates slots (ImpactHoFluidScenario runs those)");
    }
    const FluidEngineResult run = FluidHandoverEngine(engine, scheduler, episodes).Run();
    FluidHandoverResult result;
    result.ues.resize(ues.size());
    double latest = -1;
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        const FluidEpisodeResult& r = run.ues[i];
        CtHoUePlan& u = result.ues[i];
        u.ueId = ues[i].ueId;
        u.handoverTime = ues[i].handoverTime;
        u.contextTokens = ues[i].contextTokens;
        u.prefillTokens = r.prefillTokens;
        u.transferTokens = r.transferTokens;
        u.prefillDone = r.prefillDone;
        u.transferDone = r.transferDone;
        u.delay = r.delay;
        result.worstDelay = std::max(result.worstDelay, r.delay);
        if (u.handoverTime >= latest)
        {
            latest = u.handoverTime; // the last batch planned: the last handover's
            result.prefillLength = r.prefillLength;
        }
    }
    return result;
}

} // namespace ns3
