/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "road-handover-scenario.h"

#include "fluid-handover-scenario.h"
#include "multi-cell-scenario.h"

#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-ran.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/handover-scheduler.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/prefill-time-model.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoadHandoverScenario");

namespace
{
/// A run that simulates longer than this prints a note of its predicted length first, s
constexpr double LONG_RUN_SECONDS = 60;
/// LTE's RA preambles per cell (3GPP TS 36.321)
constexpr uint32_t RA_PREAMBLES = 64;
/// ns-3's LteEnbMac RaResponseWindowSize default, ms: a dedicated preamble is held
/// PreambleTransMax x (it + 5) ms (LteEnbMac::DoAllocateNcRaPreamble)
constexpr uint32_t RA_RESPONSE_WINDOW_MS = 3;
/// Up to this many UEs, ns-3's RACH defaults serve every handover (12 dedicated preambles)
constexpr uint32_t DEFAULT_RACH_UES = 12;
/// Prompt time up to DEFAULT_RACH_UES UEs, and its growth per further UE (attach time)
constexpr int64_t BASE_PROMPT_MS = 100;
constexpr int64_t PROMPT_MS_PER_UE = 2; //!< see BASE_PROMPT_MS
/// Beyond DEFAULT_RACH_UES UEs, UE i sends its prompt i times this later, ms (the uplink
/// then carries one prompt at a time instead of K at once)
constexpr int64_t PROMPT_SPACING_MS = 2;
/// Beyond DEFAULT_RACH_UES UEs, the uplink queue allowed for on top of uplinkLatency before
/// every session starts decoding, ms (measured up to 210 ms with 100 UEs)
constexpr int64_t PROMPT_MARGIN_MS = 300;

} // namespace

RoadHandoverConfig::RadioSettings
RoadHandoverConfig::GetRadioSettings() const
{
    RadioSettings r;
    const uint32_t k = road.numUes;
    r.srsPeriodicity = srsPeriodicity;
    if (r.srsPeriodicity == 0)
    {
        r.srsPeriodicity = 40; // ns-3's default while it serves 2 K contexts
        for (uint32_t p : {40u, 80u, 160u, 320u})
        {
            r.srsPeriodicity = p;
            if (p >= 2 * k)
            {
                break;
            }
        }
    }
    r.preambleTransMax = preambleTransMax;
    if (r.preambleTransMax == 0)
    {
        r.preambleTransMax = k <= DEFAULT_RACH_UES ? 50 : 10;
    }
    // The most boundary crossings within one hold time of a dedicated preamble.
    const double hold = r.preambleTransMax * (RA_RESPONSE_WINDOW_MS + 5) * 1e-3;
    std::vector<double> times;
    if (k > 0 && road.speed > 0 && road.startMin <= road.startMax && road.startMax < road.boundary)
    {
        for (const auto& ue : road.Draw(RngSeedManager::GetRun()))
        {
            times.push_back(ue.handoverTime);
        }
    }
    std::sort(times.begin(), times.end());
    for (std::size_t i = 0, j = 0; i < times.size(); ++i)
    {
        while (times[i] - times[j] >= hold)
        {
            ++j;
        }
        r.peakHandovers = std::max<uint32_t>(r.peakHandovers, static_cast<uint32_t>(i - j + 1));
    }
    r.raPreambles = raPreambles;
    if (r.raPreambles == 0)
    {
        const uint32_t free = RA_PREAMBLES - std::min(RA_PREAMBLES, r.peakHandovers);
        r.raPreambles = k <= DEFAULT_RACH_UES ? 52 : std::min(28u, free / 4 * 4);
    }
    r.promptSpacing = MilliSeconds(k <= DEFAULT_RACH_UES ? 0 : PROMPT_SPACING_MS);
    r.promptMargin = MilliSeconds(k <= DEFAULT_RACH_UES ? 0 : PROMPT_MARGIN_MS);
    r.promptTime = promptTime;
    if (r.promptTime.IsZero())
    {
        r.promptTime = MilliSeconds(
            BASE_PROMPT_MS + PROMPT_MS_PER_UE * (std::max(k, DEFAULT_RACH_UES) - DEFAULT_RACH_UES));
    }
    return r;
}

void
RoadHandoverConfig::Validate() const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    // The road's own knobs here; the knobs it shares with every scenario (RAN, radio,
    // backhaul, LLM, GPU, decoding, speed) by the engine's config, their owner, at the end.
    // The packet level's range first, so that every numUes out of it gets one message.
    require(road.numUes >= 1 && road.numUes <= MultiCellConfig::MAX_UES_PER_SITE,
            "numUes must be in " + MultiCellConfig::UesPerSiteRange() +
                " at packet level (the most measured to attach, hand over and restore in one "
                "LTE cell; the SRS slots alone, 2 K <= 320, would allow 160, untested; the flow "
                "level takes any K), got " +
                std::to_string(road.numUes));
    // The packet level's speed range (the engine's, named as the road's knob) before the
    // draw's own check (any speed > 0, the flow level's).
    MultiCellConfig::CheckSpeed("speed", road.speed);
    road.Validate();
    LlmModelProfile::FromPreset(model, kvBits)
        .CheckContext("contextMax", road.contextMax, allowBeyondContextWindow);
    require(std::isfinite(bsDistance) && bsDistance > 0 &&
                bsDistance <= MultiCellConfig::MAX_INTER_SITE,
            "bsDistance must be in (0, " + edgellm::FormatNumber(MultiCellConfig::MAX_INTER_SITE) +
                "] m (beyond it the UEs at the boundary may not reach the target BS), got " +
                edgellm::FormatValue(bsDistance));
    // Past the midpoint the source is the weaker cell (same power, same path loss): the
    // UE's link to it fails before the crossing (measured, D = 300 m: boundary 240 m at
    // 20 m/s and 230 m at 5 m/s end in an RRC abort or no handover at all; 230 m at
    // 20 m/s works), so the handover requested at the crossing cannot happen.
    require(road.boundary <= bsDistance / 2,
            "boundary must be in (0, bsDistance / 2] = (0, " +
                edgellm::FormatNumber(bsDistance / 2) +
                "] m (past the midpoint the source is the weaker cell and the UE may lose it "
                "before the crossing), got " +
                edgellm::FormatValue(road.boundary));
    require(std::isnan(predictedHandoverX) ||
                (std::isfinite(predictedHandoverX) && predictedHandoverX >= 0 &&
                 predictedHandoverX <= bsDistance),
            "predictedHandoverX must be NaN (the boundary) or in [0, bsDistance] = [0, " +
                edgellm::FormatNumber(bsDistance) + "] m");
    require(!promptTime.IsStrictlyNegative(), "promptTime must be >= 0 (0: automatic)");
    require(!uplinkLatency.IsStrictlyNegative(), "uplinkLatency must be >= 0");
    require(!(handoverDisabled && !handoverAlgorithm.empty()),
            "handoverDisabled and handoverAlgorithm exclude each other");
    // A TypeId (the RAN checks it is this RAT's handover algorithm); the engine's own
    // names (script, A3-RSRP, A2-A4-RSRQ) are not the road's.
    require(handoverAlgorithm.empty() || handoverAlgorithm.rfind("ns3::", 0) == 0,
            "handoverAlgorithm must be empty (handovers requested at the boundary and "
            "announced) or a handover algorithm TypeId, e.g. ns3::A3RsrpHandoverAlgorithm, "
            "got '" +
                handoverAlgorithm + "'");
    require(mobilityTrace.empty() || !handoverDisabled,
            "handoverDisabled: the trace's vehicles hand over wherever the trace takes them; "
            "leave out mobilityTrace or handoverDisabled");
    if ((ran == "lte" || ran == "nr") && mobilityTrace.empty())
    {
        // Each RACH/SRS knob as given (0: automatic) by its owner, then the dedicated
        // preambles' capacity for the crossings the draw gives (LteEnbMac or NrGnbMac).
        EdgeLlmRanConfig rach;
        rach.raPreambles = raPreambles;
        rach.preambleTransMax = preambleTransMax;
        rach.srsPeriodicity = ran == "lte" ? srsPeriodicity : 0;
        rach.Validate(ran);
        // The SRS slots for K UEs: MultiCellConfig::Validate (srsPeriodicity), below.
        const RadioSettings radio = GetRadioSettings();
        const uint32_t holdMs = radio.preambleTransMax * (RA_RESPONSE_WINDOW_MS + 5);
        require(allowHandoverFailures || handoverDisabled ||
                    radio.raPreambles + radio.peakHandovers <= RA_PREAMBLES,
                "raPreambles must be <= " +
                    std::to_string((RA_PREAMBLES - std::min(RA_PREAMBLES, radio.peakHandovers)) /
                                   4 * 4) +
                    " (64 - " + std::to_string(radio.peakHandovers) +
                    " dedicated, a multiple of 4): " + std::to_string(radio.peakHandovers) +
                    " UEs cross the boundary within one hold time of a dedicated preamble "
                    "(preambleTransMax x 8 = " +
                    std::to_string(holdMs) +
                    " ms), and a handover finding none fails (HandoverFailureNoPreamble); got " +
                    std::to_string(radio.raPreambles) +
                    " (a lower preambleTransMax holds each preamble shorter)");
    }
    if (ran == "nr")
    {
        // The engine gives NR its 3GPP propagation whatever its (LTE) pathlossModel says;
        // the road's knob is the RAN's to refuse over NR.
        EdgeLlmRanConfig propagation;
        propagation.pathlossModel = pathlossModel;
        propagation.Validate("nr");
    }
    GetEngineConfig().Validate();
}

MultiCellConfig
RoadHandoverConfig::GetEngineConfig() const
{
    const RadioSettings radio = GetRadioSettings();
    MultiCellConfig e;
    // The knobs the road shares with the engine, as they are; then the road's own, mapped.
    static_cast<ScenarioCommonConfig&>(e) = *this;
    e.layout = "road";
    e.numSites = 2;
    e.interSiteDistance = bsDistance;
    e.pathlossReferenceDb = std::numeric_limits<double>::quiet_NaN(); // the model's own
    e.raPreambles = radio.raPreambles;
    e.preambleTransMax = radio.preambleTransMax;
    e.srsPeriodicity = radio.srsPeriodicity;
    e.backhaul = "x2";
    e.uesPerSite = road.numUes;
    e.mobility = "road";
    e.speed = road.speed;
    e.handover = handoverAlgorithm.empty() ? "script" : handoverAlgorithm;
    e.boundaryFraction = road.boundary / bsDistance;
    e.predictedHandoverDistance =
        std::isnan(predictedHandoverX) ? road.boundary : predictedHandoverX;
    e.prefillPromptsOnGpu = warmupOnGpu || ran == "nr"; // Run()'s rule: nr warms up on the GPU
    e.tailTime = tailTime;
    e.maxSimTime = maxSimTime;
    e.drainGrace = MilliSeconds(1);
    // Every UE streams again (or streamed G), or had its handover aborted (the source
    // serves it again): the road's run is over.
    e.streamTokens = streamTokens;
    e.failedHandoverDone = true;
    if (!mobilityTrace.empty())
    {
        // The trace's vehicles replace the draw: the engine's trace mobility on the road's
        // two sites, each vehicle's prompt drawn in [contextMin, contextMax] and prefilled
        // on its home GPU when it enters, the RACH and SRS as given or the engine's
        // defaults (sized for every vehicle in one cell), the run as long as the trace.
        const MultiCellConfig defaults;
        e.mobility = "trace";
        e.promptMin = road.contextMin;
        e.promptMax = road.contextMax;
        e.prefillPromptsOnGpu = true;
        e.raPreambles = raPreambles > 0 ? raPreambles : defaults.raPreambles;
        e.preambleTransMax = preambleTransMax > 0 ? preambleTransMax : defaults.preambleTransMax;
        e.srsPeriodicity = srsPeriodicity > 0 ? srsPeriodicity : defaults.srsPeriodicity;
    }
    return e;
}

namespace
{

/// The warm-up plan of a road run: the drawn UEs, where each starts and what it prompts.
struct WarmupPlan
{
    std::vector<CtHoUe> drawn;               //!< The flow level's UEs (tau_i, C_i)
    RoadHandoverConfig::RadioSettings radio; //!< RACH, SRS and prompt timing
    Time decodeAt;                           //!< WarmDecodeStart without the GPU
    Time warmup;                             //!< W, the road's time 0
    std::vector<double> x0;                  //!< Start positions, m
    std::vector<uint32_t> prompts;           //!< Prompt tokens
    std::vector<uint32_t> maxNewTokens;      //!< Tokens each session decodes

    /// \return when UE \p i sends its prompt
    Time PromptAt(uint32_t i) const
    {
        return radio.promptTime + radio.promptSpacing * static_cast<int64_t>(i);
    }
};

/**
 * \brief Plan the warm-up: W, a multiple of T_c, after which every session's context at
 *        its handover is the drawn C_i (prompt + tokens decoded by then).
 * \param cfg the run's configuration
 * \return the plan
 */
WarmupPlan
PlanWarmup(const RoadHandoverConfig& cfg)
{
    // The flow level's UEs for this run. The road's time 0 comes after a warm-up W (a
    // multiple of T_c, so batch boundaries fall as at flow level) in which every
    // session's prompt is prefilled on the source's one GPU (in IMSI order, each on a
    // T_c boundary) and decoding has begun. Each prompt is sized so that the context
    // at the handover (prompt + tokens decoded by then) is the drawn C_i.
    WarmupPlan w;
    w.drawn = cfg.road.Draw(RngSeedManager::GetRun());
    const std::vector<CtHoUe>& drawn = w.drawn;
    const uint32_t k = cfg.road.numUes;
    const PrefillTimeModel prefill(cfg.prefillA, cfg.prefillB, cfg.prefillC);
    const double tc = cfg.batchPeriod.GetSeconds();
    w.radio = cfg.GetRadioSettings();
    const RoadHandoverConfig::RadioSettings& radio = w.radio;
    // UE i sends its prompt at promptTime + i x promptSpacing (K prompts at one instant
    // queue for the uplink: measured 100 UEs, 130 ms more than uplinkLatency on average).
    auto promptAt = [&](uint32_t i) { return w.PromptAt(i); };
    const double arrival = (radio.promptTime + cfg.uplinkLatency).GetSeconds();
    // Without the GPU every session starts decoding at one instant after the last prompt's
    // expected arrival (EdgeLlmNode WarmDecodeStart; beyond 12 UEs with the uplink queue's
    // margin), which bounds the warm-up; on the GPU, the prompts' prefill queue does.
    w.decodeAt = promptAt(k - 1) + cfg.uplinkLatency + radio.promptMargin;
    const Time decodeAt = w.decodeAt;
    double busy = cfg.warmupOnGpu ? arrival : decodeAt.GetSeconds();
    double firstHandover = drawn.front().handoverTime;
    for (const auto& ue : drawn)
    {
        if (cfg.warmupOnGpu)
        {
            busy += tc + prefill.Evaluate(ue.contextTokens);
        }
        firstHandover = std::min(firstHandover, ue.handoverTime);
    }
    const Time step = tc > 0 ? cfg.batchPeriod : MilliSeconds(1);
    const double needed = std::max(0.0, busy + 0.1 - firstHandover); // 100 ms of decoding
    w.warmup = step * static_cast<int64_t>(std::ceil(needed / step.GetSeconds()));
    const Time warmup = w.warmup;

    std::vector<double>& x0 = w.x0;
    std::vector<uint32_t>& prompts = w.prompts;
    std::vector<uint32_t>& maxNewTokens = w.maxNewTokens;
    x0.resize(k);
    prompts.resize(k);
    maxNewTokens.resize(k);
    double gpuFree = 0;
    for (uint32_t i = 0; i < k; ++i)
    {
        const double tau = warmup.GetSeconds() + drawn[i].handoverTime;
        x0[i] = cfg.road.boundary - tau * cfg.road.speed;
        double start = cfg.warmupOnGpu ? std::max(arrival, gpuFree)
                       : radio.promptMargin.IsZero()
                           ? (promptAt(i) + cfg.uplinkLatency).GetSeconds()
                           : decodeAt.GetSeconds();
        start = tc > 0 && cfg.warmupOnGpu ? std::ceil(start / tc - 1e-9) * tc : start;
        uint64_t p = drawn[i].contextTokens;
        double decodeStart = start;
        double decoded = 0;
        // Without the GPU (PrefillPromptsOnGpu false) decoding starts at the arrival: one
        // pass; on it, the prefill time depends on the prompt size, so iterate.
        for (int iteration = 0; iteration < (cfg.warmupOnGpu ? 4 : 1); ++iteration)
        {
            decodeStart = start + (cfg.warmupOnGpu ? prefill.Evaluate(p) : 0.0);
            decoded = std::max(0.0, std::floor((tau - decodeStart) * cfg.decodeRate));
            p = drawn[i].contextTokens > decoded + 1
                    ? drawn[i].contextTokens - static_cast<uint64_t>(decoded)
                    : 1;
        }
        gpuFree = decodeStart;
        prompts[i] = static_cast<uint32_t>(p);
        maxNewTokens[i] = static_cast<uint32_t>(decoded) + cfg.tokensAfterHandover;
    }

    return w;
}

/**
 * \brief Replay the run at flow level on what actually happened: the clairvoyant plan
 *        (every time known) and the run's own policy (result's clairvoyantWorst, fluidWorst).
 * \param cfg the run's configuration
 * \param schedulerType the run's scheduler
 * \param automatic true if the RRC's algorithm decided the handovers
 * \param prefill the prefill time model
 * \param result the run's result, completed here
 */
void
ReplayFlowLevel(const RoadHandoverConfig& cfg,
                const std::string& schedulerType,
                bool automatic,
                const PrefillTimeModel& prefill,
                RoadHandoverResult& result)
{
    // The flow level on what actually happened: the clairvoyant plan (every time known)
    // and the run's own policy.
    std::vector<CtHoUe> actual;
    for (const auto& r : result.ues)
    {
        if (!std::isnan(r.handoverTime))
        {
            actual.push_back({r.ueId, r.handoverTime, r.contextTokens});
        }
    }
    // The ctHO-family flow level has no slot policy (ImpactHO: slots, partial caches): no
    // replay.
    ObjectFactory scheduler(schedulerType);
    HandoverSchemeRegistry::SetAttributes(scheduler, cfg.schedulerAttributes);
    const bool impactHo = scheduler.Create<HandoverScheduler>()->AllocatesSlots();
    result.fluidWorst = std::numeric_limits<double>::quiet_NaN();
    if (!actual.empty())
    {
        FluidHandoverConfig fluid;
        fluid.schedulerType = schedulerType;
        fluid.schedulerAttributes = cfg.schedulerAttributes;
        fluid.model = cfg.model;
        fluid.kvBits = cfg.kvBits;
        fluid.backhaulGbps = cfg.backhaulGbps;
        fluid.prefill = prefill;
        fluid.batchPeriod = cfg.batchPeriod;
        FluidHandoverConfig clairvoyant = fluid;
        clairvoyant.schedulerType = "ns3::CtHoScheduler";
        clairvoyant.schedulerAttributes.clear();
        result.clairvoyantWorst = FluidHandoverScenario::Run(clairvoyant, actual).worstDelay;
        fluid.knownHandoverTimes = !automatic;
        fluid.lookahead = cfg.lookahead;
        if (!impactHo)
        {
            result.fluidWorst = FluidHandoverScenario::Run(fluid, actual).worstDelay;
        }
    }
}

/**
 * \brief When the run stops: maxSimTime if set, else W + the last crossing + the slowest
 *        restore any scheme could need (every cache over the backhaul one after another, or
 *        a prefill of the longest context per UE) + the tokens after it + tailTime.
 * \param cfg the run's configuration
 * \param drawn the flow level's UEs
 * \param bytesPerToken KV bytes per token
 * \param prefill the prefill time model
 * \param warmup W
 * \param allBytes set to every UE's KV bytes, summed
 * \return the stop time
 */
Time
StopTime(const RoadHandoverConfig& cfg,
         const std::vector<CtHoUe>& drawn,
         uint64_t bytesPerToken,
         const PrefillTimeModel& prefill,
         Time warmup,
         double& allBytes)
{
    const uint32_t k = cfg.road.numUes;
    // The tail after the last crossing also covers the slowest restore any scheme could
    // need: every cache over the backhaul one after another, or a prefill of the longest
    // context, then the tokens streamed after it (a slow backhaul must not cut it short).
    double lastTau = 0;
    allBytes = 0;
    uint64_t longest = 0;
    for (const auto& ue : drawn)
    {
        lastTau = std::max(lastTau, ue.handoverTime);
        allBytes += static_cast<double>(ue.contextTokens) * static_cast<double>(bytesPerToken);
        longest = std::max<uint64_t>(longest, ue.contextTokens);
    }
    const double restoreBound =
        std::max(8.0 * allBytes / (cfg.backhaulGbps * 1e9), k * prefill.Evaluate(longest)) +
        cfg.tokensAfterHandover / cfg.decodeRate;
    return cfg.maxSimTime.IsStrictlyPositive()
               ? cfg.maxSimTime
               : warmup + Seconds(lastTau + restoreBound) + cfg.tailTime;
}

/**
 * \param cfg the run's configuration
 * \param plan its warm-up plan
 * \param stopAt the run's safety stop
 * \return the engine's config for this run: the road's (RoadHandoverConfig::GetEngineConfig)
 *         with the plan's decoding start and the run's stop time
 */
MultiCellConfig
MakeEngineConfig(const RoadHandoverConfig& cfg, const WarmupPlan& plan, Time stopAt)
{
    MultiCellConfig e = cfg.GetEngineConfig();
    e.warmDecodeStart = !cfg.warmupOnGpu && plan.radio.promptMargin.IsStrictlyPositive()
                            ? plan.decodeAt
                            : Seconds(0);
    e.maxSimTime = stopAt;
    return e;
}

/**
 * \param cfg the run's configuration
 * \param plan its warm-up plan
 * \return the road's UEs for the engine: all on the source (site 0), driving toward the
 *         target (site 1) on a road 10 m beside the BSs; scripted handovers at the
 *         boundary crossing (none for online handovers or no-HO)
 */
std::vector<ScenarioUe>
MakeEngineUes(const RoadHandoverConfig& cfg, const WarmupPlan& plan)
{
    const bool scripted = cfg.handoverAlgorithm.empty() && !cfg.handoverDisabled;
    std::vector<ScenarioUe> ues(cfg.road.numUes);
    for (uint32_t i = 0; i < ues.size(); ++i)
    {
        ScenarioUe& u = ues[i];
        u.homeSite = 0;
        u.targetSite = 1;
        u.position = Vector(plan.x0[i], 10, 0);
        u.velocity = Vector(cfg.road.speed, 0, 0);
        u.promptTokens = plan.prompts[i];
        u.maxNewTokens = plan.maxNewTokens[i];
        u.promptAt = plan.PromptAt(i);
        u.handoverAt = scripted ? plan.warmup + Seconds(plan.drawn[i].handoverTime) : Time::Max();
        // No-HO: the stream is measured from the boundary crossing, from the source.
        u.streamFrom =
            cfg.handoverDisabled ? plan.warmup + Seconds(plan.drawn[i].handoverTime) : Time::Max();
    }
    return ues;
}

/**
 * \brief Every planned batch (the session records') and the largest L among them.
 * \param engine the engine (its session records, still alive)
 * \param result its batches and prefillLength set
 */
void
CollectBatches(MultiCellScenario& engine, RoadHandoverResult& result)
{
    result.batches = engine.GetSessionStats()->GetBatches();
    for (const EdgeLlmHandoverBatch& batch : result.batches)
    {
        result.prefillLength = std::max(result.prefillLength, batch.prefillLength);
    }
}

/**
 * \brief The road's result from the engine's (Simulate's beforeDestroy): per UE the
 *        engine's result with the road's draw; the batches (the session records'); totals.
 * \param cfg the road
 * \param run the engine's result
 * \param engine the engine (its session records and applications, still alive)
 * \param plan the warm-up plan (draws, prompt times)
 * \param result filled
 */
void
CollectRoad(const RoadHandoverConfig& cfg,
            const MultiCellResult& run,
            MultiCellScenario& engine,
            const WarmupPlan& plan,
            RoadHandoverResult& result)
{
    Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(engine.GetBsApps().Get(0));
    Ptr<EdgeLlmNode> target = DynamicCast<EdgeLlmNode>(engine.GetBsApps().Get(1));
    const ApplicationContainer ueApps = engine.GetUeApps();
    static_cast<MultiCellResult&>(result) = run; // the engine's, then the road's view of it
    result.ues.clear();
    result.kvBytesSent = source->GetConnection(target->GetCellId())->GetKvBytesSent();
    result.kvBytesReceived = target->GetConnection(source->GetCellId())->GetKvBytesReceived();
    for (const EdgeLlmHandoverRecord& rec : engine.GetSessionStats()->GetRecords())
    {
        // TransferTimedOut at the target, as the road counted it.
        result.timedOut += rec.timedOut && rec.targetCellId == target->GetCellId() ? 1 : 0;
    }
    CollectBatches(engine, result);
    std::map<uint64_t, const EdgeLlmUeResult*> byId;
    for (const EdgeLlmUeResult& ue : run.ues)
    {
        byId[ue.ueId] = &ue;
    }
    uint32_t done = 0;
    for (uint32_t i = 0; i < cfg.road.numUes; ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(ueApps.Get(i));
        EdgeLlmUeResult r = *byId.at(app->GetSessionId());
        if (app->GetPromptTime() > plan.PromptAt(i))
        {
            ++result.latePrompts; // attached after promptTime: its context falls short
        }
        r.drawnContext = plan.drawn[i].contextTokens;
        result.handoverFailures += r.handoverFailed ? 1 : 0;
        done += (cfg.streamTokens > 0 ? !std::isnan(r.streamDelay) : r.stalls > 0) ? 1 : 0;
        result.ues.push_back(r);
    }
    result.complete = done == cfg.road.numUes;
}

/**
 * \brief The road's result on a mobility trace (Simulate's beforeDestroy): the engine's, as
 *        it is (every UE, KV bytes both ways: the vehicles hand over either way), with the
 *        batches, the timeouts and the aborted handovers the road reports.
 * \param run the engine's result
 * \param engine the engine (its session records, still alive)
 * \param result filled
 */
void
CollectTrace(const MultiCellResult& run, MultiCellScenario& engine, RoadHandoverResult& result)
{
    static_cast<MultiCellResult&>(result) = run;
    for (const EdgeLlmHandoverRecord& rec : engine.GetSessionStats()->GetRecords())
    {
        result.timedOut += rec.timedOut ? 1 : 0;
    }
    CollectBatches(engine, result);
    for (const EdgeLlmUeResult& r : result.ues)
    {
        result.handoverFailures += r.handoverFailed ? 1 : 0;
    }
}

/**
 * \brief Build the road in the engine (its sites, \p ues or, if null, the trace's vehicles,
 *        the RAN, the X2/Xn cable, the applications, the handovers and the outputs), note
 *        the two cells' ids, and simulate.
 * \param engine the engine, made with the road's config
 * \param ues the road's drawn UEs, or null for the trace's
 * \param schedulerType the run's scheduler
 * \param note printed before simulating if the run may be long ("": none)
 * \param collect called with the engine's result before Simulator::Destroy
 * \param result its cell ids set
 */
void
SimulateRoad(MultiCellScenario& engine,
             const std::vector<ScenarioUe>* ues,
             const std::string& schedulerType,
             const std::string& note,
             const std::function<void(const MultiCellResult&)>& collect,
             RoadHandoverResult& result)
{
    engine.BuildSites();
    if (ues)
    {
        engine.BuildUes(*ues);
    }
    else
    {
        engine.BuildUes();
    }
    engine.BuildRan();
    engine.BuildBackhaul();
    engine.InstallApps(schedulerType); // a bad node configuration: destroyed, rethrown
    engine.ScheduleHandovers();
    engine.ConnectOutputs();
    result.sourceCellId = DynamicCast<EdgeLlmNode>(engine.GetBsApps().Get(0))->GetCellId();
    result.targetCellId = DynamicCast<EdgeLlmNode>(engine.GetBsApps().Get(1))->GetCellId();
    if (!note.empty())
    {
        std::cerr << note << std::endl;
    }
    engine.Simulate("", collect);
}

/**
 * \brief The worst cases over the result's UEs (EdgeLlmDelaySummary: a missing value makes
 *        one unknown, never silently smaller) and the prediction error.
 * \param result completed
 * \param handedOverOnly only the UEs that handed over count (a trace's vehicle need not:
 *        its delays do not exist), and each worst case is over the known values; else every
 *        UE, which the road's draw hands over, a missing value making the worst unknown
 */
void
SummarizeWorst(RoadHandoverResult& result, bool handedOverOnly)
{
    auto worst = [&result, handedOverOnly](double EdgeLlmUeResult::*delay) {
        std::vector<double> v;
        for (const auto& r : result.ues)
        {
            if (!handedOverOnly || !std::isnan(r.handoverTime))
            {
                v.push_back(r.*delay);
            }
        }
        // A trace: the worst over the known values (the program says over how many).
        return handedOverOnly ? EdgeLlmDelaySummary::OfKnown(v).worst
                              : EdgeLlmDelaySummary::Of(v).worst;
    };
    result.predictedWorst = worst(&EdgeLlmUeResult::predictedDelay);
    result.measuredWorst = worst(&EdgeLlmUeResult::measuredDelay);
    result.restoredWorst = worst(&EdgeLlmUeResult::restoredDelay);
    result.streamWorst = worst(&EdgeLlmUeResult::streamDelay);
    result.predictionError = EdgeLlmPredictionErrorOf(result.ues);
}

/**
 * \brief The road on a mobility trace: the engine's run, without the draw's warm-up and
 *        without the flow-level replay (the vehicles hand over both ways and several times:
 *        clairvoyantWorst and fluidWorst NaN).
 * \param cfg the road's config (mobilityTrace set)
 * \param schedulerType the run's scheduler
 * \return what happened
 */
RoadHandoverResult
RunOnTrace(const RoadHandoverConfig& cfg, const std::string& schedulerType)
{
    RoadHandoverResult result;
    MultiCellScenario engine(cfg.GetEngineConfig());
    SimulateRoad(
        engine,
        nullptr,
        schedulerType,
        "",
        [&](const MultiCellResult& run) { CollectTrace(run, engine, result); },
        result);
    SummarizeWorst(result, true);
    result.clairvoyantWorst = std::numeric_limits<double>::quiet_NaN();
    result.fluidWorst = std::numeric_limits<double>::quiet_NaN();
    return result;
}

} // namespace

RoadHandoverResult
RoadHandoverScenario::Run(const RoadHandoverConfig& given, const std::string& schedulerType)
{
    given.Validate();
    // Over NR the warm-up prefills on the GPU: with the instant warm-up a UE of nr's
    // A3-RSRP run (seed 1, run 2) restored at the target but its stream never resumed
    // (not diagnosed); the GPU warm-up is the one validated over nr (doc, "UE capacity").
    RoadHandoverConfig cfg = given;
    cfg.warmupOnGpu = cfg.warmupOnGpu || cfg.ran == "nr";
    RequireTypeId("schedulerType", schedulerType, "ns3::HandoverScheduler");
    if (!cfg.mobilityTrace.empty())
    {
        return RunOnTrace(cfg, schedulerType);
    }

    RoadHandoverResult result;
    const WarmupPlan plan = PlanWarmup(cfg);
    const PrefillTimeModel prefill(cfg.prefillA, cfg.prefillB, cfg.prefillC);
    result.warmup = plan.warmup.GetSeconds();
    const uint64_t bytesPerToken =
        LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BytesPerToken();
    double allBytes = 0;
    const Time stopAt = StopTime(cfg, plan.drawn, bytesPerToken, prefill, plan.warmup, allBytes);

    // A slow backhaul can make the run simulate many minutes of LTE (about as many minutes
    // of wall time): say so up front, and report progress (wall time and ETA) rather than
    // run silently; so does any run slow in wall time (e.g. a high decode rate).
    std::ostringstream note;
    if (stopAt > Seconds(LONG_RUN_SECONDS))
    {
        note << "note: " << schedulerType << ": this run simulates up to " << stopAt.GetSeconds()
             << " s (all " << allBytes << " KV bytes at " << cfg.backhaulGbps << " Gbit/s take "
             << 8.0 * allBytes / (cfg.backhaulGbps * 1e9)
             << " s); a progress line every 10 s of wall time";
    }
    // The engine builds the road: the RAN (LTE or NR) with its EPC, X2/Xn cable and
    // handover algorithm; known handover times are requested at the boundary crossing and
    // announced, otherwise the RRC's algorithm decides (online ctHO).
    MultiCellScenario engine(MakeEngineConfig(cfg, plan, stopAt));
    const std::vector<ScenarioUe> ues = MakeEngineUes(cfg, plan);
    SimulateRoad(
        engine,
        &ues,
        schedulerType,
        note.str(),
        [&](const MultiCellResult& run) { CollectRoad(cfg, run, engine, plan, result); },
        result);
    SummarizeWorst(result, false);
    const bool automatic = !cfg.handoverAlgorithm.empty();
    ReplayFlowLevel(cfg, schedulerType, automatic, prefill, result);
    return result;
}

} // namespace ns3
