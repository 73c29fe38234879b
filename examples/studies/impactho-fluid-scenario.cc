/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "impactho-fluid-scenario.h"

#include "ns3/ctho-planner.h"
#include "ns3/double.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/enum.h"
#include "ns3/fluid-handover-engine.h"
#include "ns3/impactho-scheduler.h"
#include "ns3/llm-model-profile.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{
/// Random streams of the ImpactHO draws.
constexpr int64_t STREAM_ARRIVALS = 21;
constexpr int64_t STREAM_CONTEXTS = 22;
} // namespace

void
ImpactHoFluidConfig::Validate() const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    (void)LlmModelProfile::FromPreset(model, kvBits);
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    require(slot.IsStrictlyPositive(), "slot must be > 0");
    require(window.IsStrictlyPositive(), "window must be > 0");
    require(arrivalRate > 0 && arrivalRate <= 1e4, "arrivalRate must be in (0, 1e4] users/s");
    require(simTime.IsStrictlyPositive(), "simTime must be > 0");
    require(!contexts.empty(), "contexts must list at least one length");
    require(kvAccuracyLoss >= 0 && kvAccuracyLoss < 1, "kvAccuracyLoss must be in [0, 1)");
    require(kvBits < 16 || kvAccuracyLoss == 0,
            "kvAccuracyLoss must be 0 at kvBits 16 (the loss is that of a lower precision)");
    require(calibration == AccuracyUtility::HEADLINE || calibration == AccuracyUtility::JOINT,
            "calibration must be HEADLINE or JOINT");
    if (anchors)
    {
        anchors->Validate();
    }
    require(!preTransfer ||
                preTransfer->GetPreTransfer()->trigger == PreTransferSettings::PREDICTED_CROSSING,
            "preTransfer needs ns3::PreTransferScheduler::Trigger PredictedCrossing (Poisson "
            "arrivals have no position: the LeadTime is the prediction)");
}

AccuracyUtility
ImpactHoFluidConfig::Utility(uint64_t contextTokens) const
{
    return anchors ? AccuracyUtility::FromAnchors(*anchors,
                                                  contextTokens,
                                                  importanceOrder,
                                                  kvAccuracyLoss)
                   : AccuracyUtility::Preset(contextTokens,
                                             importanceOrder,
                                             kvAccuracyLoss,
                                             calibration);
}

std::vector<std::pair<double, uint64_t>>
ImpactHoFluidScenario::DrawHandovers(const ImpactHoFluidConfig& cfg, uint64_t run)
{
    // Draws of (seed, run): Poisson arrivals and uniform contexts, fixed streams.
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(run);
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetStream(STREAM_ARRIVALS);
    gap->SetAttribute("Mean", DoubleValue(1.0 / cfg.arrivalRate));
    Ptr<UniformRandomVariable> pick = CreateObject<UniformRandomVariable>();
    pick->SetStream(STREAM_CONTEXTS);
    RngSeedManager::SetRun(oldRun);
    std::vector<std::pair<double, uint64_t>> handovers;
    for (double t = gap->GetValue(); t < cfg.simTime.GetSeconds(); t += gap->GetValue())
    {
        handovers.emplace_back(t, cfg.contexts[pick->GetInteger(0, cfg.contexts.size() - 1)]);
    }
    return handovers;
}

double
ImpactHoFluidScenario::RePrefillLatency(uint64_t context)
{
    return PrefillTimeModel::ImpactHoQwen3_8b().Evaluate(context);
}

double
ImpactHoFluidScenario::HybridLatency(uint64_t context,
                                     double arrival,
                                     double& backhaulFreeAt,
                                     double backhaulTokensPerSecond)
{
    // ctHO for this user alone (no batching period), on its own GPU, behind the FCFS
    // backhaul's backlog: the split that minimizes its own delay.
    CtHoPlanner planner(backhaulTokensPerSecond, PrefillTimeModel::ImpactHoQwen3_8b(), 0.0);
    planner.SetBackhaulFreeAt(backhaulFreeAt);
    const CtHoPlan plan = planner.PlanOptimal({{0, arrival, context}});
    if (plan.ues[0].transferTokens > 0)
    {
        backhaulFreeAt = plan.ues[0].transferDone;
    }
    return plan.worstDelay;
}

namespace
{
/**
 * The run's policy: cfg's ImpactHoScheduler, inside a copy of cfg.preTransfer if it has one
 * (its settings; the caller's object keeps its own inner policy).
 */
Ptr<HandoverScheduler>
SlotPolicy(const ImpactHoFluidConfig& cfg)
{
    ObjectFactory factory("ns3::ImpactHoScheduler");
    factory.Set("Policy", StringValue(cfg.policy));
    factory.Set("Fallback", StringValue(cfg.fallback));
    factory.Set("SlotLength", TimeValue(cfg.slot));
    factory.Set("TransferWindow", TimeValue(cfg.window));
    Ptr<HandoverScheduler> policy = factory.Create<HandoverScheduler>();
    if (!cfg.preTransfer)
    {
        return policy;
    }
    Ptr<PreTransferScheduler> pre = CopyObject<PreTransferScheduler>(cfg.preTransfer);
    pre->SetInnerPolicy(policy);
    return pre;
}

/// The handovers of (seed, run) as the flow-level core's episodes: one link (cell 1 to
/// cell 2), each trigger LeadTime before its handover (a pre-transfer's predicted crossing).
std::vector<FluidHandoverEpisode>
SlotEpisodes(const ImpactHoFluidConfig& cfg, uint64_t run, const HandoverScheduler& policy)
{
    const std::optional<PreTransferSettings> pre = policy.GetPreTransfer();
    std::vector<FluidHandoverEpisode> episodes;
    for (const auto& [t, c] : ImpactHoFluidScenario::DrawHandovers(cfg, run))
    {
        FluidHandoverEpisode e;
        e.ueId = episodes.size();
        e.source = 1;
        e.target = 2;
        e.predictedTarget = 2;
        e.handoverTime = t;
        e.triggerTime = pre ? std::max(0.0, t - pre->leadTime.GetSeconds())
                            : std::numeric_limits<double>::quiet_NaN();
        e.contextTokens = c;
        e.prefixTokens = c;
        e.utility = cfg.Utility(c);
        episodes.push_back(e);
    }
    return episodes;
}
} // namespace

ImpactHoFluidResult
ImpactHoFluidScenario::Run(const ImpactHoFluidConfig& cfg, uint64_t run)
{
    cfg.Validate();
    Ptr<HandoverScheduler> policy = SlotPolicy(cfg);
    const std::vector<FluidHandoverEpisode> episodes = SlotEpisodes(cfg, run, *policy);
    FluidEngineConfig engine;
    engine.model = cfg.model;
    engine.kvBits = cfg.kvBits;
    engine.backhaulGbps = cfg.backhaulGbps;
    const FluidEngineResult core = FluidHandoverEngine(engine, policy, episodes).Run();

    // Per user, and the means (anytime inference: A_i of the final fraction).
    const double bitsPerToken =
        static_cast<double>(LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BitsPerToken());
    ImpactHoFluidResult result;
    double accSum = 0;
    double fullSum = 0;
    uint32_t starved = 0;
    for (std::size_t i = 0; i < episodes.size(); ++i)
    {
        const FluidEpisodeResult& e = core.ues[i];
        ImpactHoUserResult r;
        r.arrival = episodes[i].handoverTime;
        r.contextTokens = episodes[i].contextTokens;
        r.received = e.received;
        r.accuracy = e.accuracy;
        r.utility = *episodes[i].utility;
        r.fullAccuracy = r.utility.asymptote;
        r.starved = e.starved;
        r.latency99 = e.latency99;
        r.cacheBits = static_cast<double>(r.contextTokens) * bitsPerToken;
        r.preSent = e.receivedAhead;
        accSum += r.accuracy;
        fullSum += r.fullAccuracy;
        starved += r.starved ? 1 : 0;
        result.users.push_back(r);
    }
    if (!episodes.empty())
    {
        const auto n = static_cast<double>(episodes.size());
        result.meanAccuracy = accSum / n;
        result.meanFullAccuracy = fullSum / n;
        result.starvationRate = static_cast<double>(starved) / n;
    }
    result.slots = core.slots;
    result.fallbackSlots = core.fallbackSlots;
    result.preSentBits = core.preSentBytes * 8;
    return result;
}

} // namespace ns3
