/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "road-handover-scenario.h"

#include "edge-llm-helper.h"
#include "edge-llm-ran.h"
#include "edge-llm-run-progress.h"
#include "edge-llm-session-stats.h"
#include "fluid-handover-scenario.h"

#include "ns3/accuracy-utility.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/handover-scheduler.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/log.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/prefill-time-model.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoadHandoverScenario");

namespace
{
/// First random stream of the RAN's (the road draws use lower fixed streams).
constexpr int64_t STREAM_RAN = 100;
/// A run that simulates longer than this prints a note of its predicted length first, s
constexpr double LONG_RUN_SECONDS = 60;
/// Most UEs of the packet level: the largest K measured to attach, hand over and restore
/// in ctHO, tHO and cHO. The SRS rule alone (2 K slots, 320 ms LTE's longest period) would
/// allow 160, but a 160-UE tHO run had not finished its handovers after 7 CPU-minutes.
constexpr uint32_t MAX_PACKET_UES = 100;
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
/// Fastest UE, m/s: 500 km/h, LTE's highest mobility class (3GPP high-speed train)
constexpr double MAX_SPEED = 500 / 3.6;
/// Slowest UE speed, m/s: slower, a 150 m approach simulates hours of LTE.
constexpr double MIN_SPEED = 0.1;
/// Longest batching period T_c, s: longer, the batch waits more than any handover takes.
constexpr double MAX_BATCH_PERIOD = 1.0;
/// Longest BS distance, m (measured, default radio: 50 km hands over, 100 km does not)
constexpr double MAX_BS_DISTANCE = 50000;

/// A bound as the messages print it (%g: 138.889, 10000, 0.001, 1e+06)
std::string
Number(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}
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
    require(ran == "lte" || ran == "nr", "ran must be lte or nr, got '" + ran + "'");
    require(ran != "nr" || EdgeLlmRan::IsAvailable("nr"),
            "ran 'nr' needs ns-3's nr module (5G-LENA), which this build of edge-llm does not "
            "have; valid here: lte");
    // The packet level's range first, so that every numUes out of it gets one message.
    require(road.numUes >= 1 && road.numUes <= MAX_PACKET_UES,
            "numUes must be in [1, " + std::to_string(MAX_PACKET_UES) +
                "] at packet level (the most measured to attach, hand over and restore in one "
                "LTE cell; the SRS slots alone, 2 K <= 320, would allow 160, untested; the flow "
                "level takes any K)");
    // Speed: LTE's fastest mobility class (3GPP, high-speed train), 500 km/h.
    require(std::isfinite(road.speed) && road.speed >= MIN_SPEED && road.speed <= MAX_SPEED,
            "speed must be in [" + Number(MIN_SPEED) + ", " + Number(MAX_SPEED) +
                "] m/s (500 km/h, the fastest mobility LTE is specified for; below 0.1 m/s "
                "the road takes hours of simulated LTE)");
    require(batchPeriod >= Seconds(0) && batchPeriod <= Seconds(MAX_BATCH_PERIOD),
            "batchPeriod (--batchPeriodMs) must be in [0, " + Number(MAX_BATCH_PERIOD * 1e3) +
                "] ms");
    road.Validate();
    require(std::isfinite(bsDistance) && bsDistance > 0 && bsDistance <= MAX_BS_DISTANCE,
            "bsDistance must be in (0, " + Number(MAX_BS_DISTANCE) +
                "] m (beyond it the UEs at the boundary may not reach the target BS)");
    // Past the midpoint the source is the weaker cell (same power, same path loss): the
    // UE's link to it fails before the crossing (measured, D = 300 m: boundary 240 m at
    // 20 m/s and 230 m at 5 m/s end in an RRC abort or no handover at all; 230 m at
    // 20 m/s works), so the handover requested at the crossing cannot happen.
    require(road.boundary <= bsDistance / 2,
            "boundary must be in (0, bsDistance / 2] = (0, " + Number(bsDistance / 2) +
                "] m (past the midpoint the source is the weaker cell and the UE may lose it "
                "before the crossing)");
    // kvBits: LlmModelProfile::FromPreset below, its owner, checks it.
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    // backhaulDelay, backhaulMtu (and bandwidthRbs): EdgeLlmRanConfig::Validate below, their
    // owner, checks them.
    // PrefillTimeModel's ranges (its one check), named by this config's knobs.
    PrefillTimeModel::CheckCoefficients(prefillA,
                                        prefillB,
                                        prefillC,
                                        "prefillA",
                                        "prefillB",
                                        "prefillC");
    require(!batchPeriod.IsStrictlyNegative(), "batchPeriod must be >= 0");
    // The range of EdgeLlmNode's DecodeRate attribute (its one check), which Run() sets.
    EdgeLlmNode::CheckDecodeRate("decodeRate", decodeRate);
    edgellm::CheckContextTokens("tokensAfterHandover", tokensAfterHandover);
    require(streamTokens <= tokensAfterHandover,
            "streamTokens must be in [0, tokensAfterHandover] = [0, " +
                std::to_string(tokensAfterHandover) + "] tokens");
    require(!promptTime.IsStrictlyNegative(), "promptTime must be >= 0 (0: automatic)");
    if (ran == "lte")
    {
        // Each knob's own range first (EdgeLlmRanConfig below), then its capacity for K.
        EdgeLlmRanConfig rach;
        rach.raPreambles = raPreambles;
        rach.preambleTransMax = preambleTransMax;
        rach.srsPeriodicity = srsPeriodicity;
        rach.Validate("lte");
        const RadioSettings radio = GetRadioSettings();
        require(radio.srsPeriodicity >= 2 * road.numUes,
                "srsPeriodicity must be >= 2 numUes = " + std::to_string(2 * road.numUes) +
                    " ms (one SRS slot per UE and per temporary attach context; fewer and the "
                    "eNB hands out RNTI 0), one of 2, 5, 10, 20, 40, 80, 160, 320; got " +
                    std::to_string(radio.srsPeriodicity));
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
    require(!uplinkLatency.IsStrictlyNegative(), "uplinkLatency must be >= 0");
    require(tokenBytes <= 1400, "tokenBytes must be in [0, 1400]");
    require(std::isfinite(pathlossExponent) && pathlossExponent >= 1.5 && pathlossExponent <= 6,
            "pathlossExponent must be in [1.5, 6] (measured exponents: about 1.6 in corridors "
            "to 6 in buildings)");
    require(std::isnan(predictedHandoverX) ||
                (std::isfinite(predictedHandoverX) && predictedHandoverX >= 0 &&
                 predictedHandoverX <= bsDistance),
            "predictedHandoverX must be NaN (the boundary) or in [0, bsDistance] = [0, " +
                Number(bsDistance) + "] m");
    require(std::isfinite(enbTxPowerDbm) && enbTxPowerDbm >= -30 && enbTxPowerDbm <= 60,
            "enbTxPowerDbm must be in [-30, 60] dBm");
    require(!(handoverDisabled && !handoverAlgorithm.empty()),
            "handoverDisabled and handoverAlgorithm exclude each other");
    {
        // The RAN's own checks of its knobs (the handover algorithm and path-loss model
        // are this RAT's TypeIds, the NR radio's ranges).
        EdgeLlmRanConfig radio;
        radio.backhaulGbps = backhaulGbps; // >= the rate a handover needs (the RAN's check)
        radio.backhaulDelay = backhaulDelay;
        radio.backhaulMtu = backhaulMtu;
        radio.pathlossModel = pathlossModel;
        radio.handoverAlgorithm = handoverAlgorithm;
        radio.bandwidthRbs = bandwidthRbs;
        radio.nrFrequencyHz = nrFrequencyHz;
        radio.nrBandwidthHz = nrBandwidthHz;
        radio.nrNumerology = nrNumerology;
        radio.amcModel = amcModel;
        radio.Validate(ran);
    }
    (void)LlmModelProfile::FromPreset(model, kvBits); // throws for an unknown model
}

std::map<std::string, std::string>
RoadHandoverScenario::GetAttributesSet(const std::map<std::string, std::string>& options)
{
    // Attribute -> the RoadHandoverConfig knob Run() sets it from ("": the helper sets it
    // per node or per UE: cell ids, session ids, addresses, prompt sizes).
    static const std::map<std::string, std::string> knobs = {
        {"ns3::EdgeLlmNode::Model", "model"},
        {"ns3::EdgeLlmNode::KvBits", "kvBits"},
        {"ns3::EdgeLlmNode::DecodeRate", "decodeRate"},
        {"ns3::EdgeLlmNode::TokenBytes", "tokenBytes"},
        {"ns3::EdgeLlmNode::CellId", ""},
        {"ns3::Application::StartTime", ""},
        {"ns3::Application::StopTime", ""},
        {"ns3::PrefillEngine::PrefillA", "prefillA"},
        {"ns3::PrefillEngine::PrefillB", "prefillB"},
        {"ns3::PrefillEngine::PrefillC", "prefillC"},
        {"ns3::PrefillEngine::BatchPeriod", "batchPeriod"},
        {"ns3::HandoverScheduler::Lookahead", "lookahead"},
        {"ns3::EdgeLlmUeApp::PromptTokens", "contextMin"},
        {"ns3::EdgeLlmUeApp::MaxNewTokens", "tokensAfterHandover"},
        {"ns3::EdgeLlmUeApp::SessionId", ""},
        {"ns3::EdgeLlmUeApp::ServerAddress", ""},
        {"ns3::EdgeLlmUeApp::ServerPort", ""},
        {"ns3::EdgeLlmUeApp::DecodeInterval", "decodeRate"},
        {"ns3::NoBackhaulEpcHelper::X2LinkDataRate", "backhaulGbps"},
        {"ns3::NoBackhaulEpcHelper::X2LinkDelay", "backhaulDelay"},
        {"ns3::NoBackhaulEpcHelper::X2LinkMtu", "backhaulMtu"},
        {"ns3::NrNoBackhaulEpcHelper::X2LinkDataRate", "backhaulGbps"},
        {"ns3::NrNoBackhaulEpcHelper::X2LinkDelay", "backhaulDelay"},
        {"ns3::NrNoBackhaulEpcHelper::X2LinkMtu", "backhaulMtu"},
        {"ns3::PointToPointEpcHelper::X2LinkDataRate", "backhaulGbps"},
        {"ns3::PointToPointEpcHelper::X2LinkDelay", "backhaulDelay"},
        {"ns3::PointToPointEpcHelper::X2LinkMtu", "backhaulMtu"},
        {"ns3::NrPointToPointEpcHelper::X2LinkDataRate", "backhaulGbps"},
        {"ns3::NrPointToPointEpcHelper::X2LinkDelay", "backhaulDelay"},
        {"ns3::NrPointToPointEpcHelper::X2LinkMtu", "backhaulMtu"},
        {"ns3::LteHelper::HandoverAlgorithm", "handoverAlgorithm"},
        {"ns3::LteEnbNetDevice::DlBandwidth", "bandwidthRbs"},
        {"ns3::LteEnbNetDevice::UlBandwidth", "bandwidthRbs"},
        {"ns3::LteEnbPhy::TxPower", "enbTxPowerDbm"},
        {"ns3::LteEnbMac::NumberOfRaPreambles", "raPreambles"},
        {"ns3::LteEnbMac::PreambleTransMax", "preambleTransMax"},
        {"ns3::LteEnbRrc::SrsPeriodicity", "srsPeriodicity"},
        {"ns3::LteAmc::AmcModel", "amcModel"},
        {"ns3::EdgeLlmNode::PrefillPromptsOnGpu", "warmupOnGpu"},
        {"ns3::EdgeLlmNode::WarmDecodeStart", ""},
    };
    std::map<std::string, std::string> advice;
    for (const auto& [attribute, knob] : knobs)
    {
        const auto option = options.find(knob);
        if (knob == "contextMin")
        {
            advice[attribute] = "each UE's prompt is sized to reach its drawn context at the "
                                "handover (--contextMin, --contextMax)";
        }
        else if (option != options.end())
        {
            advice[attribute] = "use --" + option->second;
        }
        else if (knob.empty())
        {
            advice[attribute] = "the scenario sets it per node or per UE";
        }
        else
        {
            advice[attribute] = "the scenario sets it from its " + knob +
                                " knob, which this program does not expose";
        }
    }
    return advice;
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
 * \param cfg the run's configuration
 * \param radio its RACH and SRS settings
 * \return the RAN's configuration (RAT, backhaul, radio, handover algorithm)
 */
EdgeLlmRanConfig
MakeRanConfig(const RoadHandoverConfig& cfg, const RoadHandoverConfig::RadioSettings& radio)
{
    EdgeLlmRanConfig ranConfig;
    ranConfig.backhaulGbps = cfg.backhaulGbps;
    ranConfig.backhaulDelay = cfg.backhaulDelay;
    ranConfig.backhaulMtu = cfg.backhaulMtu;
    ranConfig.handoverAlgorithm = cfg.handoverAlgorithm;
    ranConfig.bsTxPowerDbm = cfg.enbTxPowerDbm;
    ranConfig.pathlossModel = cfg.pathlossModel;
    ranConfig.pathlossExponent = cfg.pathlossExponent;
    ranConfig.bandwidthRbs = cfg.bandwidthRbs;
    ranConfig.nrFrequencyHz = cfg.nrFrequencyHz;
    ranConfig.nrBandwidthHz = cfg.nrBandwidthHz;
    ranConfig.nrNumerology = cfg.nrNumerology;
    ranConfig.stream = STREAM_RAN;
    if (cfg.ran == "lte")
    {
        ranConfig.raPreambles = radio.raPreambles;
        ranConfig.preambleTransMax = radio.preambleTransMax;
        ranConfig.srsPeriodicity = radio.srsPeriodicity;
        ranConfig.amcModel = cfg.amcModel;
    }
    return ranConfig;
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
    const bool impactHo =
        ObjectFactory(schedulerType).Create<HandoverScheduler>()->AllocatesSlots();
    result.fluidWorst = std::numeric_limits<double>::quiet_NaN();
    if (!actual.empty())
    {
        FluidHandoverConfig fluid;
        fluid.schedulerType = schedulerType;
        fluid.model = cfg.model;
        fluid.kvBits = cfg.kvBits;
        fluid.backhaulGbps = cfg.backhaulGbps;
        fluid.prefill = prefill;
        fluid.batchPeriod = cfg.batchPeriod;
        FluidHandoverConfig clairvoyant = fluid;
        clairvoyant.schedulerType = "ns3::CtHoScheduler";
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
 * \brief Place the road: the two BSs bsDistance apart, each UE at its start position on a
 *        road 10 m beside them, moving at the road's speed (ConstantVelocityMobilityModel).
 * \param cfg the run's configuration
 * \param ran the RAN (its antenna heights)
 * \param x0 the UEs' start positions, m
 * \param enbNodes the BS nodes
 * \param ueNodes the UE nodes
 */
void
PlaceNodes(const RoadHandoverConfig& cfg,
           Ptr<EdgeLlmRan> ran,
           const std::vector<double>& x0,
           NodeContainer& enbNodes,
           NodeContainer& ueNodes)
{
    const uint32_t k = cfg.road.numUes;
    MobilityHelper enbMobility;
    Ptr<ListPositionAllocator> enbPos = CreateObject<ListPositionAllocator>();
    // Antenna heights are the RAN's (LTE 0 m; NR: 3GPP TR 38.901's, e.g. 25 m and 1.5 m).
    enbPos->Add(Vector(0, 0, ran->GetBsHeight()));
    enbPos->Add(Vector(cfg.bsDistance, 0, ran->GetBsHeight()));
    enbMobility.SetPositionAllocator(enbPos);
    enbMobility.Install(enbNodes);
    MobilityHelper ueMobility;
    ueMobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    ueMobility.Install(ueNodes);
    for (uint32_t i = 0; i < k; ++i)
    {
        Ptr<ConstantVelocityMobilityModel> m =
            ueNodes.Get(i)->GetObject<ConstantVelocityMobilityModel>();
        m->SetPosition(Vector(x0[i], 10, ran->GetUeHeight())); // a road 10 m beside the BSs
        m->SetVelocity(Vector(cfg.road.speed, 0, 0));
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
 * \brief Configure the helper of the BS applications: the RAN, the scheduler with its
 *        Lookahead, the LLM (Model, KvBits, DecodeRate, TokenBytes), the warm-up
 *        (PrefillPromptsOnGpu, WarmDecodeStart) and the GPU (prefill a, b, c; T_c).
 * \param edge the helper
 * \param cfg the run's configuration
 * \param schedulerType the scheduler
 * \param ran the RAN
 * \param radio the RACH, SRS and prompt timing
 * \param decodeAt WarmDecodeStart without the GPU
 */
void
ConfigureEdge(EdgeLlmHelper& edge,
              const RoadHandoverConfig& cfg,
              const std::string& schedulerType,
              Ptr<EdgeLlmRan> ran,
              const RoadHandoverConfig::RadioSettings& radio,
              Time decodeAt)
{
    edge.SetRan(ran);
    edge.SetSchedulerType(schedulerType, "Lookahead", TimeValue(cfg.lookahead));
    edge.SetNodeAttribute("Model", StringValue(cfg.model));
    edge.SetNodeAttribute("KvBits", UintegerValue(cfg.kvBits));
    edge.SetNodeAttribute("DecodeRate", DoubleValue(cfg.decodeRate));
    edge.SetNodeAttribute("TokenBytes", UintegerValue(cfg.tokenBytes));
    edge.SetNodeAttribute("PrefillPromptsOnGpu", BooleanValue(cfg.warmupOnGpu));
    if (!cfg.warmupOnGpu && radio.promptMargin.IsStrictlyPositive())
    {
        edge.SetNodeAttribute("WarmDecodeStart", TimeValue(decodeAt));
    }
    edge.SetPrefillEngineAttribute("PrefillA", DoubleValue(cfg.prefillA));
    edge.SetPrefillEngineAttribute("PrefillB", DoubleValue(cfg.prefillB));
    edge.SetPrefillEngineAttribute("PrefillC", DoubleValue(cfg.prefillC));
    edge.SetPrefillEngineAttribute("BatchPeriod", TimeValue(cfg.batchPeriod));
}

/**
 * \brief Each UE's handover from the session records (EdgeLlmSessionStats, the one
 *        collector): its last started handover's time and context, last plan, last KV
 *        transfer, last restore with what bounded it (EdgeLlmHandoverRecord::bound), and
 *        the first stall the UE measured, over the records from the source to the target
 *        (a handover back is not the road's); a record of a UE the road does not know is
 *        left out.
 * \param records the session records, in the order the handovers started
 * \param source the source BS's cell id
 * \param target the target BS's cell id
 * \param[in,out] ues the UEs' results by IMSI
 * \return each restored UE's resume instant, s, by IMSI
 */
std::map<uint64_t, double>
FillFromRecords(const std::vector<EdgeLlmHandoverRecord>& records,
                uint16_t source,
                uint16_t target,
                std::map<uint64_t, RoadHandoverUeResult>& ues)
{
    std::map<uint64_t, double> restoredAt;
    for (const EdgeLlmHandoverRecord& rec : records)
    {
        auto u = ues.find(rec.sessionId);
        if (u == ues.end() || rec.sourceCellId != source || rec.targetCellId != target)
        {
            continue;
        }
        RoadHandoverUeResult& r = u->second;
        if (rec.started)
        {
            r.handoverTime = rec.handoverTime;
            r.contextTokens = rec.contextTokens;
        }
        if (rec.planned || !std::isnan(rec.receivedFraction))
        {
            // (ImpactHO plans no split: the record offers the whole cache, and
            // receivedFraction says how much of it arrived by the window's end.)
            r.prefillTokens = rec.prefillTokens;
            r.transferTokens = rec.transferTokens;
            r.predictedDelay = rec.predictedDelay;
            r.kvBytesExpected = rec.kvBytesExpected;
        }
        if (rec.transferDoneAt != Time::Max())
        {
            r.kvBytesReceived = rec.kvBytesReceived;
            r.transferDone = rec.transferDoneAt.GetSeconds();
        }
        if (!std::isnan(rec.receivedFraction))
        {
            r.receivedFraction = rec.receivedFraction;
        }
        if (rec.restoredAt != Time::Max())
        {
            r.restoredDelay = rec.restoredDelay;
            r.bound = rec.bound;
            restoredAt[rec.sessionId] = rec.restoredAt.GetSeconds();
        }
        if (!std::isnan(rec.ueStall) && std::isnan(r.stall))
        {
            r.stall = rec.ueStall;
            r.measuredDelay = rec.ueDelay;
        }
    }
    return restoredAt;
}

/**
 * \brief What the road adds to the bound of a UE's delay (RoadHandoverUeResult::bound, the
 *        record's): the start of the target's prefill batch a prefill-bound restore waited
 *        for, and ImpactHO's accuracy on the fraction received.
 * \param r the UE's result
 * \param restoredAt resume instant by IMSI, s (FillFromRecords)
 * \param batchStartByEnd the target GPU's batches: start by end, s
 * \param importanceOrder the target's ImportanceOrder
 * \param accuracyLoss the target's KvAccuracyLoss
 * \param calibration the target's UtilityCalibration
 */
void
AddBoundDetails(RoadHandoverUeResult& r,
                const std::map<uint64_t, double>& restoredAt,
                const std::map<double, double>& batchStartByEnd,
                bool importanceOrder,
                double accuracyLoss,
                AccuracyUtility::Calibration calibration)
{
    const auto resumed = restoredAt.find(r.ueId);
    if (resumed == restoredAt.end())
    {
        return;
    }
    if (!std::isnan(r.receivedFraction))
    {
        r.accuracy =
            AccuracyUtility::Preset(r.contextTokens, importanceOrder, accuracyLoss, calibration)
                .Value(r.receivedFraction);
    }
    else if (r.bound == "prefill")
    {
        const auto batch = batchStartByEnd.find(resumed->second);
        if (batch != batchStartByEnd.end())
        {
            r.batchStart = batch->second;
        }
    }
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
    Ipv4AddressGenerator::Reset();

    RoadHandoverResult result;
    const uint32_t k = cfg.road.numUes;

    const WarmupPlan plan = PlanWarmup(cfg);
    const std::vector<CtHoUe>& drawn = plan.drawn;
    const RoadHandoverConfig::RadioSettings& radio = plan.radio;
    const PrefillTimeModel prefill(cfg.prefillA, cfg.prefillB, cfg.prefillC);
    auto promptAt = [&](uint32_t i) { return plan.PromptAt(i); };
    const Time decodeAt = plan.decodeAt;
    const Time warmup = plan.warmup;
    result.warmup = warmup.GetSeconds();
    const std::vector<double>& x0 = plan.x0;
    const std::vector<uint32_t>& prompts = plan.prompts;
    const std::vector<uint32_t>& maxNewTokens = plan.maxNewTokens;

    // The RAN (LTE or NR) with its EPC, X2/Xn backhaul and handover algorithm: the one
    // part of the scenario that depends on the RAT. Known handover times: each handover is
    // requested at the boundary crossing and announced. Otherwise the RRC's algorithm
    // decides (online ctHO).
    const bool automatic = !cfg.handoverAlgorithm.empty();
    const EdgeLlmRanConfig ranConfig = MakeRanConfig(cfg, radio);
    Ptr<EdgeLlmRan> ran = EdgeLlmRan::Create(cfg.ran, ranConfig);

    NodeContainer enbNodes;
    enbNodes.Create(2);
    NodeContainer ueNodes;
    ueNodes.Create(k);

    PlaceNodes(cfg, ran, x0, enbNodes, ueNodes);

    ran->Install(enbNodes, ueNodes);
    NetDeviceContainer enbDevs = ran->GetBsDevices();
    NetDeviceContainer ueDevs = ran->GetUeDevices();
    if (!cfg.pcapPrefix.empty())
    {
        // The usual helper call, on the BSs' point-to-point devices (X2/Xn and S1-U);
        // tools/edge-llm-kv.lua decodes the KV transfer in them.
        for (uint32_t n = 0; n < enbNodes.GetN(); ++n)
        {
            for (uint32_t d = 0; d < enbNodes.Get(n)->GetNDevices(); ++d)
            {
                Ptr<NetDevice> dev = enbNodes.Get(n)->GetDevice(d);
                if (DynamicCast<PointToPointNetDevice>(dev))
                {
                    PointToPointHelper().EnablePcap(cfg.pcapPrefix, dev, false);
                }
            }
        }
    }
    ran->Attach(ueDevs, enbDevs.Get(0));

    EdgeLlmHelper edge;
    ConfigureEdge(edge, cfg, schedulerType, ran, radio, decodeAt);
    ApplicationContainer bsApps = edge.InstallOnEnbs(enbDevs);
    edge.ConnectBackhaul(bsApps);
    try
    {
        EdgeLlmHelper::CheckConfiguration(bsApps);
    }
    catch (const std::invalid_argument&)
    {
        Simulator::Destroy(); // nothing ran: leave the simulator as it was
        throw;
    }
    edge.ConnectHandoverTrace(bsApps);
    EdgeLlmHelper::AddEpcRoutes(ran->GetSgwNode(), ran->GetPgwNode(), enbNodes);
    // Each UE's prompt goes to the cell it attached to (the source), once attached.
    ApplicationContainer ueApps = edge.InstallUe(ueNodes, ueDevs, bsApps);

    Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(bsApps.Get(0));
    Ptr<EdgeLlmNode> target = DynamicCast<EdgeLlmNode>(bsApps.Get(1));
    result.scheme = source->GetScheduler()->GetSchemeName();
    result.sourceCellId = source->GetCellId();
    result.targetCellId = target->GetCellId();
    const uint64_t bytesPerToken = source->GetModelProfile().BytesPerToken();

    std::map<uint64_t, RoadHandoverUeResult> ues;
    std::map<uint64_t, uint64_t> streamTarget; // token index that completes the G tokens
    uint32_t streamed = 0;
    uint32_t resumed = 0;
    uint32_t failed = 0; // sessions whose handover the RRC aborted (served by the source)
    // Every UE streams again (or streamed G): stop 1 ms after the backhaul has delivered
    // every KV byte sent (the scenarios' stop rule).
    auto maybeStop = [&]() {
        const uint32_t done = cfg.streamTokens > 0 ? streamed : resumed;
        if (done + failed == k)
        {
            EdgeLlmHelper::StopWhenDrained(bsApps, MilliSeconds(1));
        }
    };
    for (uint32_t i = 0; i < k; ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(ueApps.Get(i));
        app->SetAttribute("PromptTokens", UintegerValue(prompts[i]));
        app->SetAttribute("MaxNewTokens", UintegerValue(maxNewTokens[i]));
        const uint64_t imsi = app->GetSessionId();
        RoadHandoverUeResult& r = ues[imsi];
        r.ueId = imsi;
        r.startX = x0[i];
        r.promptTokens = prompts[i];
        r.drawnContext = drawn[i].contextTokens;
        const Time tau = warmup + Seconds(drawn[i].handoverTime);
        if (cfg.handoverDisabled)
        {
            // No-HO: streaming is measured from the boundary crossing, from the source.
            compat::Schedule(tau, [&, imsi, tau]() {
                RoadHandoverUeResult& u = ues[imsi];
                u.streamStart = tau.GetSeconds();
                streamTarget[imsi] =
                    source->PredictContextAt(imsi, tau) - u.promptTokens + cfg.streamTokens;
            });
        }
        else if (!automatic)
        {
            ran->HandoverRequest(tau, ueDevs.Get(i), enbDevs.Get(0), enbDevs.Get(1));
            source->ExpectHandover(imsi, target->GetCellId(), tau);
        }
    }

    source->TraceConnectWithoutContext("HandoverFailed",
                                       compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                                           [&](uint64_t id, uint16_t, uint64_t) {
                                               RoadHandoverUeResult& r = ues[id];
                                               if (!r.handoverFailed)
                                               {
                                                   r.handoverFailed = true;
                                                   ++failed;
                                                   maybeStop();
                                               }
                                           }));
    // Each handover's record (times, split, prediction, KV bytes, restore, stall, what
    // bounded it) is the session statistics' (the one collector); the road adds what is
    // its own: the stream after the handover, the batches, the RRC's side.
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(bsApps, ueApps);
    source->TraceConnectWithoutContext("HandoverStarted",
                                       compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                                           [&](uint64_t id, uint16_t, uint64_t c) {
                                               ues[id].streamStart = Simulator::Now().GetSeconds();
                                               streamTarget[id] =
                                                   c - ues[id].promptTokens + cfg.streamTokens;
                                           }));
    source->TraceConnectWithoutContext(
        "HandoverPlanned",
        compat::MakeCallback<void, uint64_t, uint64_t, uint64_t, Time>(
            [&](uint64_t id, uint64_t npf, uint64_t, Time) {
                result.prefillLength = std::max(result.prefillLength, npf);
                // A batch's members are planned at one instant, one call each.
                const double now = Simulator::Now().GetSeconds();
                if (result.batches.empty() || result.batches.back().plannedAt != now)
                {
                    result.batches.push_back({now, 0, {}});
                }
                result.batches.back().prefillLength =
                    std::max(result.batches.back().prefillLength, npf);
                result.batches.back().ues.push_back(id);
            }));
    // The target GPU's batches, to tell which one a prefill-bound session waited for.
    std::map<uint64_t, double> batchStartAt;  // key -> start, s
    std::map<double, double> batchStartByEnd; // end -> start, s
    target->GetPrefillEngine()->TraceConnectWithoutContext(
        "BatchStart",
        compat::MakeCallback<void, uint64_t, uint64_t, uint32_t>(
            [&](uint64_t key, uint64_t, uint32_t) {
                batchStartAt[key] = Simulator::Now().GetSeconds();
            }));
    target->GetPrefillEngine()->TraceConnectWithoutContext(
        "BatchEnd",
        compat::MakeCallback<void, uint64_t, uint64_t, uint32_t>(
            [&](uint64_t key, uint64_t, uint32_t) {
                batchStartByEnd[Simulator::Now().GetSeconds()] = batchStartAt[key];
            }));
    // The radio side of each handover: the RRC (LteEnbRrc or NrGnbRrc, the RAN's) that
    // admitted the UE reports HandoverEndOk once the UE has joined its cell.
    for (uint32_t n = 0; n < enbNodes.GetN(); ++n)
    {
        std::ostringstream path;
        path << "/NodeList/" << enbNodes.Get(n)->GetId() << "/DeviceList/*/" << ran->GetRrcName()
             << "/HandoverEndOk";
        Config::ConnectWithoutContextFailSafe(
            path.str(),
            compat::MakeCallback<void, uint64_t, uint16_t, uint16_t>(
                [&](uint64_t imsi, uint16_t cellId, uint16_t) {
                    auto u = ues.find(imsi);
                    if (u != ues.end() && std::isnan(u->second.handoverEndTime))
                    {
                        u->second.handoverEndTime = Simulator::Now().GetSeconds();
                        u->second.servingCellId = cellId;
                    }
                }));
    }
    for (uint32_t i = 0; i < k; ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(ueApps.Get(i));
        const uint64_t imsi = app->GetSessionId();
        app->TraceConnectWithoutContext(
            "Stall",
            compat::MakeCallback<void, uint64_t, uint16_t, uint16_t, Time, Time>(
                [&, imsi](uint64_t, uint16_t, uint16_t, Time, Time) {
                    if (ues[imsi].stalls++ == 0)
                    {
                        ++resumed;
                        maybeStop();
                    }
                }));
        if (cfg.streamTokens > 0)
        {
            app->TraceConnectWithoutContext(
                "TokenReceived",
                compat::MakeCallback<void, uint64_t, uint32_t, uint16_t>(
                    [&, imsi](uint64_t, uint32_t index, uint16_t) {
                        RoadHandoverUeResult& r = ues[imsi];
                        auto t = streamTarget.find(imsi);
                        if (t != streamTarget.end() && index >= t->second &&
                            std::isnan(r.streamDelay))
                        {
                            r.streamDelay = Simulator::Now().GetSeconds() - r.streamStart;
                            ++streamed;
                            maybeStop();
                        }
                    }));
        }
    }

    bsApps.Start(Seconds(0));
    for (uint32_t i = 0; i < k; ++i)
    {
        ueApps.Get(i)->SetStartTime(promptAt(i));
    }
    if (automatic && cfg.predictArrivals)
    {
        // Online look-ahead from UE positions and speeds: a UE is expected to hand over
        // when it reaches predictedHandoverX, with the context it will have by then.
        const double xHo =
            std::isnan(cfg.predictedHandoverX) ? cfg.road.boundary : cfg.predictedHandoverX;
        std::map<uint64_t, Ptr<MobilityModel>> mobility;
        for (uint32_t i = 0; i < k; ++i)
        {
            mobility[DynamicCast<EdgeLlmUeApp>(ueApps.Get(i))->GetSessionId()] =
                ueNodes.Get(i)->GetObject<MobilityModel>();
        }
        source->SetArrivalPredictor([source, mobility, xHo](uint16_t, Time now, Time horizon) {
            std::vector<CtHoUe> next;
            for (const auto& [imsi, m] : mobility)
            {
                const double x = m->GetPosition().x;
                const double v = m->GetVelocity().x;
                if (v <= 0 || x >= xHo)
                {
                    continue;
                }
                const Time when = now + Seconds((xHo - x) / v);
                const uint64_t c = source->PredictContextAt(imsi, when);
                if (when <= now + horizon && c > 0)
                {
                    next.push_back({imsi, when.GetSeconds(), c});
                }
            }
            return next;
        });
    }
    double allBytes = 0;
    const Time stopAt = StopTime(cfg, drawn, bytesPerToken, prefill, warmup, allBytes);
    Simulator::Stop(stopAt);
    // A slow backhaul can make the run simulate many minutes of LTE (about as many minutes
    // of wall time): say so up front, and report progress (wall time and ETA) rather than
    // run silently; so does any run slow in wall time (e.g. a high decode rate).
    if (stopAt > Seconds(LONG_RUN_SECONDS))
    {
        std::cerr << "note: " << schedulerType << ": this run simulates up to "
                  << stopAt.GetSeconds() << " s (all " << allBytes << " KV bytes at "
                  << cfg.backhaulGbps << " Gbit/s take "
                  << 8.0 * allBytes / (cfg.backhaulGbps * 1e9)
                  << " s); a progress line every 10 s of wall time" << std::endl;
    }
    EdgeLlmRunProgress progress(schedulerType, stopAt, std::cerr);
    Simulator::Run();

    result.simulatedSeconds = Simulator::Now().GetSeconds();
    BooleanValue importanceOrderValue;
    DoubleValue accuracyLossValue;
    target->GetAttribute("ImportanceOrder", importanceOrderValue);
    target->GetAttribute("KvAccuracyLoss", accuracyLossValue);
    StringValue calibrationValue;
    target->GetAttribute("UtilityCalibration", calibrationValue);
    const AccuracyUtility::Calibration calibration =
        calibrationValue.Get() == "Joint" ? AccuracyUtility::JOINT : AccuracyUtility::HEADLINE;
    const bool importanceOrder = importanceOrderValue.Get();
    const double accuracyLoss = accuracyLossValue.Get();
    result.complete = cfg.streamTokens > 0 ? streamed == k : resumed == k;
    result.lostSessions = source->GetLostSessions() + target->GetLostSessions();
    result.handoverFailures = failed;
    result.kvBytesSent = source->GetConnection(target->GetCellId())->GetKvBytesSent();
    result.kvBytesReceived = target->GetConnection(source->GetCellId())->GetKvBytesReceived();
    for (const EdgeLlmHandoverRecord& rec : stats->GetRecords())
    {
        // TransferTimedOut at the target, as the road counted it.
        result.timedOut += rec.timedOut && rec.targetCellId == target->GetCellId() ? 1 : 0;
    }
    const std::map<uint64_t, double> restoredAt =
        FillFromRecords(stats->GetRecords(), source->GetCellId(), target->GetCellId(), ues);
    for (uint32_t i = 0; i < k; ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(ueApps.Get(i));
        RoadHandoverUeResult& r = ues[app->GetSessionId()];
        r.tokensMissing = app->GetTokensMissing();
        r.promptTime = app->GetPromptTime().GetSeconds();
        if (app->GetPromptTime() > promptAt(i))
        {
            ++result.latePrompts; // attached after promptTime: its context falls short
        }
        r.tokensDuplicated = app->GetTokensDuplicated();
        AddBoundDetails(r, restoredAt, batchStartByEnd, importanceOrder, accuracyLoss, calibration);
        result.ues.push_back(r);
    }
    // The worst cases (EdgeLlmDelaySummary: a missing value makes one unknown, never
    // silently smaller).
    auto worst = [&result](double RoadHandoverUeResult::*delay) {
        std::vector<double> v;
        for (const auto& r : result.ues)
        {
            v.push_back(r.*delay);
        }
        return EdgeLlmDelaySummary::Of(v).worst;
    };
    result.predictedWorst = worst(&RoadHandoverUeResult::predictedDelay);
    result.measuredWorst = worst(&RoadHandoverUeResult::measuredDelay);
    result.restoredWorst = worst(&RoadHandoverUeResult::restoredDelay);
    result.streamWorst = worst(&RoadHandoverUeResult::streamDelay);
    Simulator::Destroy();

    ReplayFlowLevel(cfg, schedulerType, automatic, prefill, result);
    return result;
}

} // namespace ns3
