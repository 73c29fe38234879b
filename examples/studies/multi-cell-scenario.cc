/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "multi-cell-scenario.h"

#include "edge-llm-run-progress.h"

#include "ns3/accuracy-utility.h"
#include "ns3/angles.h"
#include "ns3/antenna-model.h"
#include "ns3/boolean.h"
#include "ns3/channel-condition-model.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-backhaul-helper.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/fluid-serving-engine.h"
#include "ns3/gpu-iteration-model.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/llm-model-profile.h"
#include "ns3/log.h"
#include "ns3/mobility-helper.h"
#include "ns3/mobility-model.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/position-allocator.h"
#include "ns3/ppp-header.h"
#include "ns3/prefill-time-model.h"
#include "ns3/propagation-loss-model.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/token-stream-header.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MultiCellScenario");

EdgeLlmPredictionError
EdgeLlmPredictionErrorOf(const std::vector<EdgeLlmUeResult>& ues)
{
    std::vector<double> predicted;
    std::vector<double> restored;
    for (const auto& ue : ues)
    {
        predicted.push_back(ue.predictedDelay);
        restored.push_back(ue.restoredDelay);
    }
    return EdgeLlmPredictionError::Of(predicted, restored);
}

namespace
{

/// \return a mobility trace's instant \p seconds as a Time, rounded to the microsecond (the
///         resolution every trace-derived event of the engine uses)
Time
TraceInstant(double seconds)
{
    return MicroSeconds(std::llround(seconds * 1e6));
}

/// First random stream of the RAN's models (every scenario, the road preset included).
constexpr int64_t STREAM_RAN = 100;
/// Random streams of the scenario's own draws (prompts, handover times; mobility).
constexpr int64_t STREAM_DRAWS = 20;
constexpr int64_t STREAM_MOBILITY = 5000; //!< see STREAM_DRAWS
/// First random stream of the backhaul's queue discs (RED, PIE, COBALT drops).
constexpr int64_t STREAM_QUEUE_DISCS = 20000;
/// Cross traffic starts this long before the first scripted handover, s.
constexpr double CROSS_LEAD = 0.1;
/// A road runs this far beside the straight line between its two sites, m.
constexpr double ROAD_OFFSET = 10;
/// Expected radio latency of a prompt, s (for the warm-up).
constexpr double UPLINK_LATENCY = 0.02;
/// Decoding every session has done before the first handover, s.
constexpr double DECODE_LEAD = 0.1;
/// Without the GPU warm-up: the prompts' uplink allowance per UE of a cell, s (the UEs
/// start near the cell edge; 50 prompts per cell arrive within about 0.3 s there).
constexpr double UPLINK_PER_UE = 0.02;
/// Mobility "trace": how often each vehicle's strongest cell is sampled
/// (MobilityTrace::StrongestCellChanges; the instants themselves to 1 us)
const Time TRACE_STEP = MilliSeconds(100);
/// LTE's downlink carrier at ns-3's default EARFCN 100, Hz (a Friis model's Frequency)
constexpr double LTE_DL_FREQUENCY_HZ = 2.12e9;

/// The RAN's path-loss model as the config makes the RAN build it, for the mobility
/// trace's strongest cells: LTE's configured model (LogDistance with the reference loss
/// BuildSites set, an Exponent where it has one; "": Friis at LTE's downlink carrier); NR:
/// the 3GPP UMa model of its scenario at nrFrequencyHz without shadowing, line of sight
/// (the channel condition the RAN uses by default).
Ptr<PropagationLossModel>
PathLossModelOf(const MultiCellConfig& cfg)
{
    if (cfg.ran == "nr")
    {
        ObjectFactory f("ns3::ThreeGppUmaPropagationLossModel");
        f.Set("Frequency", DoubleValue(cfg.nrFrequencyHz));
        f.Set("ShadowingEnabled", BooleanValue(false));
        Ptr<PropagationLossModel> m = f.Create<PropagationLossModel>();
        m->SetAttribute("ChannelConditionModel",
                        PointerValue(CreateObject<AlwaysLosChannelConditionModel>()));
        return m;
    }
    ObjectFactory f(cfg.pathlossModel.empty() ? "ns3::FriisPropagationLossModel"
                                              : cfg.pathlossModel);
    Ptr<PropagationLossModel> m = f.Create<PropagationLossModel>();
    m->SetAttributeFailSafe("Exponent", DoubleValue(cfg.pathlossExponent));
    m->SetAttributeFailSafe("Frequency", DoubleValue(LTE_DL_FREQUENCY_HZ));
    return m;
}

void
Require(bool ok, const std::string& what)
{
    if (!ok)
    {
        throw std::invalid_argument(what);
    }
}

/// TCP payload bytes of a packet that starts with an IPv4 header (0: not TCP).
uint64_t
TcpPayloadAfterIp(Ptr<Packet> p)
{
    Ipv4Header ip;
    if (p->RemoveHeader(ip) == 0 || ip.GetProtocol() != 6 || ip.GetFragmentOffset() != 0)
    {
        return 0;
    }
    TcpHeader tcp;
    p->PeekHeader(tcp);
    return p->GetSize() - tcp.GetSerializedSize();
}

/// TCP payload bytes of a queue-disc item (0: not TCP).
uint64_t
TcpPayload(Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ip || ip->GetHeader().GetProtocol() != 6 || ip->GetHeader().GetFragmentOffset() != 0)
    {
        return 0;
    }
    TcpHeader tcp;
    item->GetPacket()->PeekHeader(tcp);
    return item->GetPacket()->GetSize() - tcp.GetSerializedSize();
}
} // namespace

struct MultiCellScenario::Counters
{
    std::map<uint64_t, EdgeLlmUeResult> ues; //!< By IMSI
    std::vector<BackhaulLinkCount> links;    //!< Road links
    std::vector<double> sojourn;             //!< Queue-disc sojourn times, s
    std::set<uint64_t> stalled;              //!< UEs whose stall was measured
    uint32_t resumed{0};                     //!< UEs whose stall was measured
    uint32_t rrcFailures{0};                 //!< RRC handover failures
    std::set<uint64_t> noSession; //!< UEs that handed over before their prompt opened a session
    std::set<uint64_t> started;   //!< UEs whose source RRC traced HandoverStart
    /// UEs whose scripted handover had not started handoverStartTimeout after its request
    std::set<uint64_t> notStarted;
    std::set<uint64_t> settled;              //!< UEs nothing is left to wait for
    std::map<uint64_t, uint16_t> joinedCell; //!< UE -> the cell of its last HandoverEndOk
    std::set<uint64_t> moving;               //!< UEs between HandoverStart and HandoverEndOk
    uint32_t tracePlanMisses{0};             //!< Trace handovers not requested as announced
    std::function<void()> stopWhenDrained;   //!< Re-armed each ms
    std::map<uint64_t, uint64_t> turnCached; //!< Request session -> idle-cache tokens held
    uint64_t idleDrops{0};                   //!< Idle conversation caches freed at handovers
    uint64_t idleMoves{0};                   //!< ... sent to a handover target (move-now)
    uint64_t idleFetches{0};                 //!< ... sent to a next turn's BS that asked

    /// The stop rule's trigger: \p imsi has resumed, has no session to resume, or its
    /// handover never started; once all \p total UEs have, stopWhenDrained (if set) takes
    /// over. Each UE counts once, whichever way it settled first.
    void Settle(uint64_t imsi, uint32_t total)
    {
        if (settled.insert(imsi).second && settled.size() == total && stopWhenDrained)
        {
            stopWhenDrained();
        }
    }
};

std::string
MultiCellConfig::NumSitesRange()
{
    return "{7, 19} (hex) or [2, " + std::to_string(MAX_ROAD_SITES) + "] (road)";
}

std::string
MultiCellConfig::UesPerSiteRange()
{
    return "[1, " + std::to_string(MAX_UES_PER_SITE) + "]";
}

void
MultiCellConfig::Validate() const
{
    ValidateSitesAndBackhaul();
    ValidateUesAndHandovers();
    ValidateLlmAndRadio();
    ValidateRanCoupling();
}

void
MultiCellConfig::ValidateSitesAndBackhaul() const
{
    Require(ran == "lte" || ran == "nr", "ran must be lte or nr, got '" + ran + "'");
    Require(EdgeLlmRan::IsAvailable(ran),
            "ran '" + ran + "' needs ns-3's nr module, which this build lacks; valid here: lte");
    Require(layout == "road" || layout == "hex" || layout == "file",
            "layout must be road, hex or file, got '" + layout + "'");
    Require((layout == "file") == !siteFile.empty(),
            "siteFile is read with layout file only, and layout file needs it; got layout '" +
                layout + "' with siteFile '" + siteFile + "'");
    if (layout == "file")
    {
        // Sectors point somewhere: only a trace's UEs attach to the strongest cell (antenna
        // gains included); the drawn ones start around their home site as if it were omni.
        const std::vector<SiteRecord> sites = SiteRecord::Read(siteFile);
        Require(!SiteRecord::AreSectors(sites) || mobility == "trace",
                "siteFile: sector antennas (azimuth, beamwidth columns) need mobility trace "
                "(its UEs attach to the strongest cell, antenna gains included), got mobility " +
                    mobility);
        // nr v4.1.1: with an RRC algorithm no UE ever handed over between two sectors of one
        // site (A3-RSRP, 55 dB of pattern in the new sector's favour; scripted handovers, and
        // directional cells at distinct positions, do hand over): not diagnosed, refused.
        Require(ran != "nr" || handover == "script" ||
                    SiteRecord::CountPositions(sites) == sites.size(),
                "siteFile: sectors of one site (cells at one position) over nr need handover "
                "script: with the RRC's algorithm (got '" +
                    handover +
                    "') nr v4.1.1's UEs never handed over between them in our runs (known issue)");
    }
    else if (layout == "road")
    {
        Require(numSites >= 2 && numSites <= MAX_ROAD_SITES,
                "numSites must be in " + NumSitesRange() + ", got " + std::to_string(numSites) +
                    " for the road layout");
    }
    else
    {
        Require(numSites == 7 || numSites == 19,
                "numSites must be in " + NumSitesRange() + ", got " + std::to_string(numSites) +
                    " for the hex layout");
    }
    Require(std::isfinite(interSiteDistance) && interSiteDistance > 0 &&
                interSiteDistance <= MAX_INTER_SITE,
            "interSiteDistance must be in (0, " + edgellm::FormatNumber(MAX_INTER_SITE) +
                "] m, got " + edgellm::FormatValue(interSiteDistance));
    Require(backhaul == "mesh" || backhaul == "star" || backhaul == "ring" || backhaul == "x2" ||
                backhaul == "file",
            "backhaul must be mesh, star, ring, file or x2, got '" + backhaul + "'");
    Require(backhaul == "file" || (backhaulFile.empty() && backhaulFileFormat == "Inet"),
            "backhaulFile and backhaulFileFormat are read with backhaul file only, got backhaul '" +
                backhaul + "' with backhaulFile '" + backhaulFile + "' and backhaulFileFormat '" +
                backhaulFileFormat + "'");
    if (backhaul == "file")
    {
        Require(backhaulFileFormat == "Inet" || backhaulFileFormat == "Orbis" ||
                    backhaulFileFormat == "Rocketfuel",
                "backhaulFileFormat must be Inet, Orbis or Rocketfuel, got '" + backhaulFileFormat +
                    "'");
        Require(!backhaulFile.empty() && std::ifstream(backhaulFile).good(),
                "backhaul file needs backhaulFile, a readable topology file, got '" + backhaulFile +
                    "'");
    }
    Require(backhaul != "ring" || numSites >= 3,
            "backhaul ring needs numSites >= 3, got " + std::to_string(numSites));
    Require(backhaul != "x2" || (queueDisc.empty() && crossTrafficLoad == 0),
            "backhaul x2 (the RAN's own cables) takes no queueDisc and no crossTrafficLoad "
            "(they need an EdgeLlmBackhaul: mesh, star, ring or file), got queueDisc '" +
                queueDisc + "' and crossTrafficLoad " + edgellm::FormatNumber(crossTrafficLoad));
    // Under EdgeLlmRan's X2 priority root (X2SignallingPriority, as set now: the RAN the
    // engine creates takes it) the disc becomes the KV band's, else the device's root.
    EdgeLlmBackhaul::CheckQueueDisc("queueDisc",
                                    queueDisc,
                                    EdgeLlmRan::DefaultX2SignallingPriority());
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    // backhaulDelay, backhaulMtu, bsTxPowerDbm: EdgeLlmRanConfig::Validate below, their
    // owner, checks them.
    Require(std::isfinite(crossTrafficLoad) && crossTrafficLoad >= 0 &&
                crossTrafficLoad <= MAX_CROSS_LOAD,
            "crossTrafficLoad must be in [0, " + edgellm::FormatNumber(MAX_CROSS_LOAD) +
                "] (a share of the link rate; above it the KV transfer gets under 10 % of "
                "the link), got " +
                edgellm::FormatValue(crossTrafficLoad));
}

void
MultiCellConfig::ValidateUesAndHandovers() const
{
    Require(uesPerSite >= 1 && uesPerSite <= MAX_UES_PER_SITE,
            "uesPerSite must be in " + UesPerSiteRange() + ", got " + std::to_string(uesPerSite));
    Require(mobility == "road" || mobility == "random-waypoint" || mobility == "gauss-markov" ||
                mobility == "trace",
            "mobility must be road, random-waypoint, gauss-markov or trace, got '" + mobility +
                "'");
    ValidateTrace();
    CheckSpeed("speed", speed);
    Require(handover == "script" || handover == "A3-RSRP" || handover == "A2-A4-RSRQ" ||
                handover.rfind("ns3::", 0) == 0,
            "handover must be script, A3-RSRP, A2-A4-RSRQ or a handover algorithm TypeId "
            "(ns3::...), got '" +
                handover + "'");
    Require(handover != "script" || mobility == "road" || mobility == "trace",
            "handover script needs mobility road or trace (a scripted handover happens where the "
            "road crosses the boundary); with " +
                mobility + " use handover A3-RSRP or A2-A4-RSRQ");
    Require(roads == "cycle" || roads == "random",
            "roads must be cycle or random, got '" + roads + "'");
    Require(roads == "cycle" || mobility == "road",
            "roads random needs mobility road (it chooses the roads the UEs drive), got "
            "mobility " +
                mobility);
    Require(std::isfinite(boundaryFraction) && boundaryFraction > 0 && boundaryFraction <= 0.5,
            "boundaryFraction must be in (0, 0.5] (past the midpoint the home site is the "
            "weaker cell), got " +
                edgellm::FormatValue(boundaryFraction));
    Require(!platoonSpread.IsStrictlyNegative() && platoonSpread <= Seconds(60),
            "platoonSpread must be in [0, 60] s");
    Require(peerRange == 0 || (peerRange >= 1 && peerRange <= 1000),
            "peerRange must be 0 (every pair) or in [1, 1000] inter-site distances, got " +
                edgellm::FormatValue(peerRange));
    Require(!promptRetry.IsStrictlyNegative() && promptRetry <= Seconds(10),
            "promptRetry must be 0 (never) or in (0, 10] s, got " +
                edgellm::FormatValue(promptRetry.GetSeconds()) + " s");
    Require(handoverStartTimeout.IsStrictlyPositive() && handoverStartTimeout <= Seconds(60),
            "handoverStartTimeout must be in (0, 60] s, got " +
                edgellm::FormatValue(handoverStartTimeout.GetSeconds()) + " s");
    Require(!handoverLead.IsStrictlyNegative() && handoverLead <= Seconds(60),
            "handoverLead must be 0 (the warm-up's own) or in (0, 60] s, got " +
                edgellm::FormatValue(handoverLead.GetSeconds()) + " s");
    Require(std::isnan(predictedHandoverDistance) ||
                (std::isfinite(predictedHandoverDistance) && predictedHandoverDistance >= 0 &&
                 predictedHandoverDistance <= interSiteDistance),
            "predictedHandoverDistance must be NaN (boundaryFraction x interSiteDistance) or in "
            "[0, interSiteDistance] = [0, " +
                edgellm::FormatNumber(interSiteDistance) + "] m, got " +
                edgellm::FormatValue(predictedHandoverDistance));
    Require(streamTokens <= tokensAfterHandover,
            "streamTokens must be in [0, tokensAfterHandover] = [0, " +
                std::to_string(tokensAfterHandover) + "] tokens");
}

void
MultiCellConfig::ValidateTrace() const
{
    const bool trace = mobility == "trace";
    Require(trace == !mobilityTrace.empty(),
            "mobilityTrace is read with mobility trace only, and mobility trace needs it; got "
            "mobility '" +
                mobility + "' with mobilityTrace '" + mobilityTrace + "'");
    Require(trace || mobilityActivity.empty(),
            "mobilityActivity is read with mobility trace only, got mobility '" + mobility + "'");
    Require(!traceMinDwell.IsStrictlyNegative() && traceMinDwell <= Seconds(60),
            "traceMinDwell must be in [0, 60] s, got " +
                edgellm::FormatValue(traceMinDwell.GetSeconds()) + " s");
    Require(traceAnnounceLead.IsStrictlyPositive() && traceAnnounceLead <= Seconds(60),
            "traceAnnounceLead must be in (0, 60] s, got " +
                edgellm::FormatValue(traceAnnounceLead.GetSeconds()) + " s");
    Require(ownSessions || trace,
            "ownSessions false needs mobility trace (the drawn UEs' run ends when their own "
            "sessions resume)");
    if (!trace)
    {
        return;
    }
    Require(!predictArrivals,
            "predictArrivals predicts along the drawn roads; mobility trace has none (with "
            "handover script the sources know every handover the trace implies)");
    const MobilityTrace vehicles = MobilityTrace::Read(mobilityTrace, mobilityActivity);
    Require(vehicles.GetN() <= MAX_UES_PER_SITE,
            "mobilityTrace: at most " + std::to_string(MAX_UES_PER_SITE) +
                " vehicles (every one may be in one cell at once: uesPerSite's range " +
                UesPerSiteRange() + "), got " + std::to_string(vehicles.GetN()));
    Require(vehicles.GetEnd() <= MAX_SIM_SECONDS,
            "mobilityTrace: the last vehicle must leave by " +
                edgellm::FormatNumber(MAX_SIM_SECONDS) + " s (the longest run), got " +
                edgellm::FormatNumber(vehicles.GetEnd()) + " s");
    // Any cell may serve every vehicle at once (LTE's SRS slots).
    MultiCellConfig cell = *this;
    cell.uesPerSite = std::max<uint32_t>(vehicles.GetN(), 1);
    try
    {
        cell.ValidateRanCoupling();
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument("mobilityTrace: " + std::to_string(vehicles.GetN()) +
                                    " vehicles, each of which may be in one cell: " + e.what());
    }
}

void
MultiCellConfig::ValidateLlmAndRadio() const
{
    Require(tokenBytes <= EdgeLlmNode::MAX_TOKEN_BYTES,
            "tokenBytes must be in [0, " + std::to_string(EdgeLlmNode::MAX_TOKEN_BYTES) +
                "] (EdgeLlmNode TokenBytes), got " + std::to_string(tokenBytes));
    Require(!warmDecodeStart.IsStrictlyNegative(), "warmDecodeStart must be >= 0");
    Require(!lookahead.IsStrictlyNegative(),
            "lookahead must be >= 0 s, got " + edgellm::FormatValue(lookahead.GetSeconds()));
    Require(!maxSimTime.IsStrictlyNegative(), "maxSimTime must be >= 0 (0: automatic)");
    Require(!drainGrace.IsStrictlyNegative() && drainGrace <= Seconds(1),
            "drainGrace must be in [0, 1] s");
    // kvBits: LlmModelProfile::FromPreset below, its owner, checks it.
    PrefillTimeModel::CheckCoefficients(prefillA,
                                        prefillB,
                                        prefillC,
                                        "prefillA",
                                        "prefillB",
                                        "prefillC");
    edgellm::CheckBatchPeriod("batchPeriod", batchPeriod.GetSeconds());
    EdgeLlmNode::CheckDecodeRate("decodeRate", decodeRate);
    if (!servingGpu.empty())
    {
        try
        {
            GpuIterationModel::FromPreset(servingGpu)
                .CheckPlanning(LlmModelProfile::FromPreset(model, kvBits).BytesPerToken());
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("servingGpu: ") + e.what());
        }
    }
    try
    {
        IdleCachePolicyFromName(idleCachePolicy);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("idleCachePolicy: ") + e.what());
    }
    Require(promptMax >= 1 && promptMax <= MAX_PROMPT,
            "promptMax must be in [1, " + std::to_string(MAX_PROMPT) + "] tokens, got " +
                std::to_string(promptMax));
    Require(promptMin >= 1 && promptMin <= promptMax,
            "promptMin must be in [1, promptMax] = [1, " + std::to_string(promptMax) +
                "] tokens, got " + std::to_string(promptMin));
    edgellm::CheckContextTokens("tokensAfterHandover", static_cast<double>(tokensAfterHandover));
    Require(promptTime.IsStrictlyPositive() && promptTime <= Seconds(10),
            "promptTime must be in (0, 10] s");
    Require(tailTime.IsStrictlyPositive() && tailTime <= Seconds(MAX_SIM_SECONDS),
            "tailTime must be in (0, " + edgellm::FormatNumber(MAX_SIM_SECONDS) + "] s");
    Require(seedStream <= 1000000, "seedStream must be in [0, 1000000]");
    Require(!monitorInterval.IsStrictlyNegative() && monitorInterval <= Seconds(10),
            "monitorInterval must be 0 (no monitor) or in (0, 10] s");
    Require(std::isfinite(pathlossExponent) && pathlossExponent >= 1.5 && pathlossExponent <= 6,
            "pathlossExponent must be in [1.5, 6] (measured exponents: about 1.6 in corridors "
            "to 6 in buildings), got " +
                edgellm::FormatValue(pathlossExponent));
    Require(std::isnan(pathlossReferenceDb) ||
                (std::isfinite(pathlossReferenceDb) && pathlossReferenceDb >= 0 &&
                 pathlossReferenceDb <= 100),
            "pathlossReferenceDb must be NaN (the model's defaults) or in [0, 100] dB, got " +
                edgellm::FormatValue(pathlossReferenceDb));
}

void
MultiCellConfig::ValidateRanCoupling() const
{
    // The backhaul against the RAN's handover timers, the TypeIds, the radio's ranges.
    GetRanConfig().Validate(ran);
    if (ran == "lte")
    {
        // One SRS slot per UE and per temporary attach context (LteEnbRrc): fewer and the
        // eNB hands out RNTI 0. 0 is ns-3's default, 40 ms.
        const uint32_t srs = srsPeriodicity == 0 ? 40 : srsPeriodicity;
        std::string valid; // LteEnbRrc's periods that are long enough
        for (uint32_t p : {2u, 5u, 10u, 20u, 40u, 80u, 160u, 320u})
        {
            if (p >= 2 * uesPerSite)
            {
                valid += (valid.empty() ? "" : ", ") + std::to_string(p);
            }
        }
        Require(srs >= 2 * uesPerSite,
                "srsPeriodicity must be >= 2 x uesPerSite (the UEs of one cell; the road: "
                "numUes) = " +
                    std::to_string(2 * uesPerSite) +
                    " ms (one SRS slot per UE and per temporary attach context; fewer and the "
                    "eNB hands out RNTI 0): " +
                    (valid.empty() ? std::string("no SRS period is that long (320 at most)")
                                   : "one of " + valid) +
                    "; got " + std::to_string(srsPeriodicity));
    }
    if (queueDisc == "ns3::TbfQueueDisc" && !EdgeLlmRan::DefaultX2SignallingPriority())
    {
        // TBF as the root shapes every backhaul link to its Rate (ns-3's default 1 Mbit/s).
        // Without the X2 priority the RRC's X2 messages wait behind the whole shaped queue
        // and ns-3's RRC aborts on the late message: the Rate must not be below the link's.
        TypeId::AttributeInformation info;
        NS_ABORT_UNLESS(
            TypeId::LookupByName("ns3::TbfQueueDisc").LookupAttributeByName("Rate", &info));
        const double rate = static_cast<double>(
            DynamicCast<const DataRateValue>(info.initialValue)->Get().GetBitRate());
        Require(rate >= backhaulGbps * 1e9,
                "queueDisc ns3::TbfQueueDisc as the root shapes the backhaul to its Rate "
                "(--ns3::TbfQueueDisc::Rate), " +
                    edgellm::FormatNumber(rate) + " bit/s; it must be >= backhaulGbps (" +
                    edgellm::FormatNumber(backhaulGbps * 1e9) +
                    " bit/s): below it the X2 signalling, without X2SignallingPriority, waits "
                    "behind the shaped KV queue and ns-3's RRC aborts");
    }
    LlmModelProfile::FromPreset(model, kvBits)
        .CheckContext("promptMax", promptMax, allowBeyondContextWindow);
}

void
MultiCellConfig::CheckSpeed(const std::string& field, double speed)
{
    Require(std::isfinite(speed) && speed >= MIN_SPEED && speed <= MAX_SPEED,
            field + " must be in [" + edgellm::FormatNumber(MIN_SPEED) + ", " +
                edgellm::FormatNumber(MAX_SPEED) +
                "] m/s (500 km/h, the fastest mobility LTE is specified for; below 0.1 m/s a "
                "road takes hours of simulated LTE), got " +
                edgellm::FormatValue(speed));
}

EdgeLlmRanConfig
MultiCellConfig::GetRanConfig() const
{
    EdgeLlmRanConfig radio;
    radio.backhaulGbps = backhaulGbps;
    radio.backhaulDelay = backhaulDelay;
    radio.backhaulMtu = backhaulMtu;
    radio.handoverAlgorithm = handover == "script"       ? ""
                              : handover == "A3-RSRP"    ? "ns3::A3RsrpHandoverAlgorithm"
                              : handover == "A2-A4-RSRQ" ? "ns3::A2A4RsrqHandoverAlgorithm"
                                                         : handover;
    radio.pathlossModel = ran == "lte" ? pathlossModel : ""; // NR: its 3GPP scenario's
    radio.pathlossExponent = pathlossExponent;
    radio.bsTxPowerDbm = bsTxPowerDbm;
    radio.bandwidthRbs = bandwidthRbs;
    radio.nrFrequencyHz = nrFrequencyHz;
    radio.nrBandwidthHz = nrBandwidthHz;
    radio.nrNumerology = nrNumerology;
    radio.raPreambles = raPreambles; // both RATs (LteEnbMac, NrGnbMac)
    radio.preambleTransMax = preambleTransMax;
    if (ran == "lte")
    {
        radio.srsPeriodicity = srsPeriodicity;
    }
    radio.amcModel = amcModel; // LTE's knob: EdgeLlmRanConfig::Validate refuses it over NR
    radio.maxLossDb = maxLossDb;
    radio.stream = STREAM_RAN;
    return radio;
}

std::string
MultiCellConfig::Describe() const
{
    std::ostringstream line;
    line << (ran == "nr" ? "NR" : "LTE") << ", " << numSites << " " << layout << " sites, "
         << backhaul << " backhaul ";
    if (backhaul == "file")
    {
        line << "(" << backhaulFile.substr(backhaulFile.find_last_of('/') + 1) << ") ";
    }
    line << backhaulGbps << " Gbit/s";
    if (backhaul != "x2")
    {
        line << ", KV band " << GetKvQueueDisc();
    }
    return line.str();
}

std::string
MultiCellConfig::GetKvQueueDisc() const
{
    return backhaul == "x2"    ? std::string()
           : queueDisc.empty() ? std::string("ns3::FifoQueueDisc")
                               : queueDisc;
}

MultiCellScenario::MultiCellScenario(const MultiCellConfig& config)
    : m_cfg(config),
      m_counters(std::make_unique<Counters>())
{
    m_cfg.Validate();
    if (m_cfg.layout == "file")
    {
        m_siteRecords = SiteRecord::Read(m_cfg.siteFile);
        m_cfg.numSites = static_cast<uint32_t>(m_siteRecords.size());
        // Each cell's nearest cell at another position (not its site's other sectors); the
        // largest of those is the layout's d, so that every site has a neighbour
        // (Neighbours: within 1.01 d) and a peer.
        double d = 0;
        for (const SiteRecord& a : m_siteRecords)
        {
            double nearest = std::numeric_limits<double>::infinity();
            for (const SiteRecord& b : m_siteRecords)
            {
                if (a.x != b.x || a.y != b.y)
                {
                    nearest = std::min(nearest, std::hypot(a.x - b.x, a.y - b.y));
                }
            }
            d = std::max(d, nearest);
        }
        m_cfg.interSiteDistance = d;
    }
    if (m_cfg.mobility == "trace")
    {
        m_trace = std::make_unique<MobilityTrace>(
            MobilityTrace::Read(m_cfg.mobilityTrace, m_cfg.mobilityActivity));
        m_cfg.uesPerSite = m_trace->GetN();
    }
}

const MobilityTrace*
MultiCellScenario::GetMobilityTrace() const
{
    return m_trace.get();
}

const std::vector<SiteRecord>&
MultiCellScenario::GetSiteRecords() const
{
    return m_siteRecords;
}

const std::vector<std::vector<MobilityTrace::CellChange>>&
MultiCellScenario::GetImpliedHandovers() const
{
    return m_implied;
}

const MultiCellConfig&
MultiCellScenario::GetConfig() const
{
    return m_cfg;
}

MultiCellScenario::~MultiCellScenario() = default;

std::vector<Vector>
MultiCellScenario::SitePositions(const std::string& layout,
                                 uint32_t numSites,
                                 double interSiteDistance)
{
    const double d = interSiteDistance;
    std::vector<Vector> sites;
    if (layout == "road")
    {
        Require(numSites >= 2 && numSites <= MultiCellConfig::MAX_ROAD_SITES,
                "numSites must be in " + MultiCellConfig::NumSitesRange() + ", got " +
                    std::to_string(numSites) + " for the road layout");
        for (uint32_t i = 0; i < numSites; ++i)
        {
            sites.emplace_back(i * d, 0, 0);
        }
        return sites;
    }
    Require(layout == "hex", "layout must be road or hex, got '" + layout + "'");
    Require(numSites == 7 || numSites == 19, "numSites must be 7 or 19 for the hex layout");
    const double pi = std::acos(-1.0);
    auto at = [&](double radius, double degrees) {
        const double a = degrees * pi / 180;
        // Rounded to the micrometre: the same positions on every platform.
        auto round = [](double v) { return std::round(v * 1e6) / 1e6; };
        return Vector(round(radius * std::cos(a)), round(radius * std::sin(a)), 0);
    };
    sites.emplace_back(0, 0, 0);
    for (int k = 0; k < 6; ++k)
    {
        sites.push_back(at(d, 60.0 * k));
    }
    if (numSites == 19)
    {
        for (int k = 0; k < 12; ++k)
        {
            sites.push_back(k % 2 == 0 ? at(2 * d, 30.0 * k) : at(std::sqrt(3.0) * d, 30.0 * k));
        }
    }
    return sites;
}

std::vector<std::vector<uint32_t>>
MultiCellScenario::Neighbours(const std::vector<Vector>& positions, double interSiteDistance)
{
    const auto n = static_cast<uint32_t>(positions.size());
    std::vector<std::vector<uint32_t>> neighbours(n);
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t t = 0; t < n; ++t)
        {
            if (t != s && CalculateDistance(positions[s], positions[t]) <= 1.01 * interSiteDistance)
            {
                neighbours[s].push_back(t);
            }
        }
    }
    return neighbours;
}

std::vector<uint32_t>
MultiCellScenario::RoadTargets(const std::vector<Vector>& positions, double interSiteDistance)
{
    const std::vector<std::vector<uint32_t>> neighbours = Neighbours(positions, interSiteDistance);
    const auto n = static_cast<uint32_t>(positions.size());
    std::vector<uint32_t> targets(n, 0);
    for (uint32_t s = 0; s < n; ++s)
    {
        NS_ABORT_MSG_IF(neighbours[s].empty(),
                        "MultiCellScenario: site " << s << " has no neighbour");
        // The first after s in cyclic order: the smallest (t - s) mod n.
        targets[s] = *std::min_element(
            neighbours[s].begin(),
            neighbours[s].end(),
            [s, n](uint32_t a, uint32_t b) { return (a + n - s) % n < (b + n - s) % n; });
    }
    return targets;
}

std::map<std::string, std::string>
MultiCellScenario::GetAttributesSet(const std::map<std::string, std::string>& options)
{
    // Attribute -> the config knob (ScenarioCommonConfig, MultiCellConfig) the engine sets
    // it from; "": set per node or per UE (cell ids, session ids, addresses, prompts).
    static const std::map<std::string, std::string> knobs = {
        {"ns3::EdgeLlmNode::Model", "model"},
        {"ns3::EdgeLlmNode::KvBits", "kvBits"},
        {"ns3::EdgeLlmNode::DecodeRate", "decodeRate"},
        {"ns3::EdgeLlmNode::TokenBytes", "tokenBytes"},
        {"ns3::EdgeLlmNode::CellId", ""},
        {"ns3::EdgeLlmNode::PrefillPromptsOnGpu", "prefillPromptsOnGpu"},
        {"ns3::EdgeLlmNode::WarmDecodeStart", "warmDecodeStart"},
        {"ns3::Application::StartTime", ""},
        {"ns3::Application::StopTime", ""},
        {"ns3::PrefillEngine::PrefillA", "prefillA"},
        {"ns3::PrefillEngine::PrefillB", "prefillB"},
        {"ns3::PrefillEngine::PrefillC", "prefillC"},
        {"ns3::PrefillEngine::BatchPeriod", "batchPeriod"},
        {"ns3::EdgeLlmNode::ServingGpu", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::C0", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::CPrefill", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::CDecode", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::CKv", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::TokenBudget", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::MaxRunning", "servingGpu"},
        {"ns3::EdgeLlmServingGpu::KvMemory", "servingGpu"},
        {"ns3::HandoverScheduler::Lookahead", "lookahead"},
        {"ns3::EdgeLlmUeApp::PromptTokens", ""},
        {"ns3::EdgeLlmUeApp::MaxNewTokens", "tokensAfterHandover"},
        {"ns3::EdgeLlmUeApp::SessionId", ""},
        {"ns3::EdgeLlmUeApp::ServerAddress", ""},
        {"ns3::EdgeLlmUeApp::ServerPort", ""},
        {"ns3::EdgeLlmUeApp::DecodeInterval", "decodeRate"},
        {"ns3::EdgeLlmUeApp::PromptRetry", "promptRetry"},
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
        {"ns3::LteHelper::HandoverAlgorithm", "handover"},
        {"ns3::LteHelper::PathlossModel", "pathlossModel"},
        {"ns3::LteEnbNetDevice::DlBandwidth", "bandwidthRbs"},
        {"ns3::LteEnbNetDevice::UlBandwidth", "bandwidthRbs"},
        {"ns3::LteEnbPhy::TxPower", "bsTxPowerDbm"},
        {"ns3::LteEnbMac::NumberOfRaPreambles", "raPreambles"},
        {"ns3::LteEnbMac::PreambleTransMax", "preambleTransMax"},
        {"ns3::NrGnbMac::NumberOfRaPreambles", "raPreambles"},
        {"ns3::NrGnbMac::PreambleTransMax", "preambleTransMax"},
        {"ns3::LteEnbRrc::SrsPeriodicity", "srsPeriodicity"},
        {"ns3::LteAmc::AmcModel", "amcModel"},
        {"ns3::LogDistancePropagationLossModel::ReferenceDistance", "pathlossReferenceDb"},
        {"ns3::LogDistancePropagationLossModel::ReferenceLoss", "pathlossReferenceDb"},
        {"ns3::LogDistancePropagationLossModel::Exponent", "pathlossExponent"},
        {"ns3::EdgeLlmBackhaul::Topology", "backhaul"},
        {"ns3::EdgeLlmBackhaul::TopologyFile", "backhaulFile"},
        {"ns3::EdgeLlmBackhaul::TopologyFormat", "backhaulFileFormat"},
        {"ns3::EdgeLlmBackhaul::PeerRange", "peerRange"},
        {"ns3::EdgeLlmBackhaul::LinkDataRate", "backhaulGbps"},
        {"ns3::EdgeLlmBackhaul::AggregationDataRate", "backhaulGbps"},
        {"ns3::EdgeLlmBackhaul::LinkDelay", "backhaulDelay"},
        {"ns3::EdgeLlmBackhaul::LinkMtu", "backhaulMtu"},
        {"ns3::EdgeLlmBackhaul::QueueDisc", "queueDisc"},
    };
    std::map<std::string, std::string> advice;
    for (const auto& [attribute, knob] : knobs)
    {
        const auto option = options.find(knob);
        if (option != options.end())
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

std::map<std::string, std::string>
MultiCellScenario::GetTypesUnused(const MultiCellConfig& cfg)
{
    std::map<std::string, std::string> unused = {
        {"ns3::ImpactHoClairvoyantBound",
         "the scenario engine runs no clairvoyant bound (impactho-figures --figure=bound does)"},
    };
    if (cfg.backhaul == "x2")
    {
        for (const char* type :
             {"ns3::EdgeLlmBackhaul", "ns3::EdgeLlmBackhaulRouting", "ns3::CrossTrafficMeter"})
        {
            unused[type] = "the backhaul is the RAN's own X2 link (backhaul x2): no "
                           "EdgeLlmBackhaul, router or cross traffic is built";
        }
    }
    if (!cfg.monitorInterval.IsStrictlyPositive())
    {
        unused["ns3::BackhaulMonitor"] = "monitorInterval is 0: no BackhaulMonitor is built";
    }
    unused[cfg.ran == "nr" ? "ns3::LteEdgeLlmRan" : "ns3::NrEdgeLlmRan"] =
        "the RAN is " + cfg.ran + " (ran " + cfg.ran + ")";
    return unused;
}

void
MultiCellScenario::RequireDone(bool done, const char* part, const char* needs) const
{
    NS_ABORT_MSG_UNLESS(done, "MultiCellScenario::" << part << ": " << needs);
}

void
MultiCellScenario::BuildSites()
{
    RequireDone(m_bsNodes.GetN() == 0, "BuildSites", "already done (each part runs once)");
    Ipv4AddressGenerator::Reset();
    if (m_cfg.layout == "file")
    {
        m_sites.clear();
        m_antennas.clear();
        for (const SiteRecord& r : m_siteRecords)
        {
            m_sites.emplace_back(r.x, r.y, 0);
            // The engine's copy of the cell's antenna (BuildRan gives the RAN its own).
            m_antennas.push_back(r.sector ? r.antenna.CreateModel(true) : nullptr);
        }
    }
    else
    {
        m_sites = SitePositions(m_cfg.layout, m_cfg.numSites, m_cfg.interSiteDistance);
    }
    m_roadTarget = RoadTargets(m_sites, m_cfg.interSiteDistance);
    m_neighbours = Neighbours(m_sites, m_cfg.interSiteDistance);
    if (m_cfg.ran == "lte" && m_cfg.pathlossModel == "ns3::LogDistancePropagationLossModel" &&
        !std::isnan(m_cfg.pathlossReferenceDb))
    {
        Config::SetDefault("ns3::LogDistancePropagationLossModel::ReferenceDistance",
                           DoubleValue(1));
        Config::SetDefault("ns3::LogDistancePropagationLossModel::ReferenceLoss",
                           DoubleValue(m_cfg.pathlossReferenceDb));
    }
    // The RAN first: its EPC nodes exist before the scenario's.
    m_ran = EdgeLlmRan::Create(m_cfg.ran, m_cfg.GetRanConfig());
    m_bsNodes.Create(m_cfg.numSites);
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    for (std::size_t i = 0; i < m_sites.size(); ++i)
    {
        const double z = m_siteRecords.empty() ? m_ran->GetBsHeight() : m_siteRecords[i].height;
        pos->Add(Vector(m_sites[i].x, m_sites[i].y, z));
    }
    MobilityHelper mobility;
    mobility.SetPositionAllocator(pos);
    mobility.Install(m_bsNodes);
}

void
MultiCellScenario::BuildUes()
{
    RequireDone(m_bsNodes.GetN() > 0, "BuildUes", "call BuildSites first");
    RequireDone(m_ueNodes.GetN() == 0, "BuildUes", "already done (each part runs once)");
    if (m_trace)
    {
        BuildTraceUes();
        return;
    }
    DrawUes();
    if (m_cfg.mobility == "road")
    {
        PlaceUesOnRoads();
        CreateUeNodes();
        return;
    }
    InstallRandomMobility();
}

void
MultiCellScenario::BuildTraceUes()
{
    m_loss = PathLossModelOf(m_cfg);
    const uint32_t n = m_trace->GetN();
    const double step = TRACE_STEP.GetSeconds();
    m_ues.assign(n, ScenarioUe());
    m_home.assign(n, 0);
    m_implied.assign(n, {});
    m_tau.clear();
    Ptr<UniformRandomVariable> promptDraw = CreateObject<UniformRandomVariable>();
    promptDraw->SetStream(STREAM_DRAWS + 2 * m_cfg.seedStream); // as DrawUes
    const LlmModelProfile model = LlmModelProfile::FromPreset(m_cfg.model, m_cfg.kvBits);
    for (uint32_t i = 0; i < n; ++i)
    {
        const MobilityTrace::Vehicle& v = m_trace->Get(i);
        ScenarioUe& ue = m_ues[i];
        // Its prompt when it enters (after the attach: promptTime at the earliest), to the
        // microsecond; enough tokens to decode until it leaves, and tokensAfterHandover more.
        const double promptAt = std::max(v.enter, m_cfg.promptTime.GetSeconds());
        ue.promptAt = TraceInstant(promptAt);
        ue.leaveAt = TraceInstant(v.leave);
        if (ue.leaveAt <= ue.promptAt)
        {
            // Gone before it could send its prompt: no session (InstallApps never starts it).
            ue.promptAt = Time::Max();
        }
        if (!m_cfg.ownSessions)
        {
            ue.promptAt = Time::Max(); // its requests only (InstallRequests)
        }
        ue.promptTokens = promptDraw->GetInteger(m_cfg.promptMin, m_cfg.promptMax);
        ue.maxNewTokens =
            static_cast<uint32_t>(std::ceil(std::max(0.0, v.leave - promptAt) * m_cfg.decodeRate)) +
            m_cfg.tokensAfterHandover;
        model.CheckContext("mobilityTrace: vehicle " + std::to_string(i) +
                               "'s context by the time it leaves (prompt + decodeRate x its stay)",
                           uint64_t{ue.promptTokens} + ue.maxNewTokens,
                           m_cfg.allowBeyondContextWindow);
        // Its handovers once its session is under way (TraceReadyTime); its home is the
        // strongest cell then.
        m_implied[i] = m_trace->StrongestCellChanges(
            i,
            [this](uint32_t site, const Vector& p) { return RxPowerDbm(site, p); },
            m_cfg.numSites,
            step,
            m_cfg.traceMinDwell.GetSeconds(),
            ue.homeSite,
            TraceReadyTime(promptAt));
        m_home[i] = ue.homeSite;
        ue.position = m_trace->GetPosition(i, 0);
        AddTraceHandovers(i);
    }
    m_handoverStart = m_tau.empty() ? 0 : *std::min_element(m_tau.begin(), m_tau.end());
    m_ueNodes.Create(n);
    m_trace->Install(m_ueNodes, m_ran->GetUeHeight());
}

double
MultiCellScenario::TraceReadyTime(double promptAt) const
{
    // As DrawUes' warm-up for one UE: the prompt's uplink, its prefill on the home site's
    // GPU on a T_c boundary (without the GPU warm-up: the uplink allowance), DECODE_LEAD of
    // decoding; or handoverLead after the prompt if that is longer.
    const PrefillTimeModel p(m_cfg.prefillA, m_cfg.prefillB, m_cfg.prefillC);
    const double gpu = m_cfg.prefillPromptsOnGpu ? m_cfg.batchPeriod.GetSeconds() +
                                                       std::max(0.0, p.Evaluate(m_cfg.promptMax))
                                                 : UPLINK_PER_UE;
    return promptAt +
           std::max(UPLINK_LATENCY + gpu, m_cfg.handoverLead.GetSeconds() - DECODE_LEAD) +
           DECODE_LEAD;
}

void
MultiCellScenario::AddTraceHandovers(uint32_t i)
{
    if (m_cfg.handover != "script")
    {
        return; // the RRC's algorithm decides
    }
    ScenarioUe& ue = m_ues[i];
    for (const MobilityTrace::CellChange& c : m_implied[i])
    {
        Require(ArePeers(c.from, c.to),
                "mobilityTrace: vehicle " + std::to_string(i) + " hands over from site " +
                    std::to_string(c.from) + " to site " + std::to_string(c.to) + " at " +
                    edgellm::FormatNumber(c.at) + " s, but the " + m_cfg.backhaul +
                    " backhaul has no X2/Xn between them (peerRange " +
                    edgellm::FormatNumber(m_cfg.peerRange) +
                    " inter-site distances): raise peerRange (0: every pair) or use backhaul mesh");
        const Time at = TraceInstant(c.at);
        if (ue.handoverAt == Time::Max())
        {
            ue.handoverAt = at;
            ue.targetSite = c.to;
        }
        else
        {
            ue.laterHandovers.emplace_back(at, c.to);
        }
        m_tau.push_back(c.at);
    }
}

bool
MultiCellScenario::ArePeers(uint32_t a, uint32_t b) const
{
    // EdgeLlmBackhaul's PeerRange on Star, Ring and File (the BSs' 3-D distance); the mesh
    // and the RAN's own X2 cables join every pair.
    if (m_cfg.backhaul == "mesh" || m_cfg.backhaul == "x2" || m_cfg.peerRange == 0)
    {
        return true;
    }
    return EdgeLlmBackhaul::WithinPeerRange(m_bsNodes.Get(a),
                                            m_bsNodes.Get(b),
                                            m_cfg.peerRange * m_cfg.interSiteDistance);
}

double
MultiCellScenario::RxPowerDbm(uint32_t site, const Vector& position) const
{
    Ptr<MobilityModel> ue = CreateObject<ConstantPositionMobilityModel>();
    ue->SetPosition(Vector(position.x, position.y, m_ran->GetUeHeight()));
    const double tx =
        m_siteRecords.empty() ? m_cfg.bsTxPowerDbm : m_siteRecords.at(site).txPowerDbm;
    Ptr<MobilityModel> bs = m_bsNodes.Get(site)->GetObject<MobilityModel>();
    const double rx = m_loss->CalcRxPower(tx, bs, ue);
    if (site >= m_antennas.size() || !m_antennas[site])
    {
        return rx; // omnidirectional
    }
    // The UE's direction from the BS, as the spectrum channel gives the transmitter's antenna.
    return rx + m_antennas[site]->GetGainDb(Angles(ue->GetPosition(), bs->GetPosition()));
}

void
MultiCellScenario::DrawUes()
{
    const uint32_t k = m_cfg.uesPerSite;
    const uint32_t n = m_cfg.numSites * k;

    // Prompts and handover instants, from the scenario's own streams.
    Ptr<UniformRandomVariable> prompt = CreateObject<UniformRandomVariable>();
    prompt->SetStream(STREAM_DRAWS + 2 * m_cfg.seedStream);
    Ptr<UniformRandomVariable> when = CreateObject<UniformRandomVariable>();
    when->SetStream(STREAM_DRAWS + 2 * m_cfg.seedStream + 1);
    // Warm-up: each site's GPU prefills its k prompts one after another, each on a T_c
    // boundary (without prefillPromptsOnGpu every cache is built on its prompt's arrival);
    // the platoons start crossing once the longest could be done and every session has
    // decoded for DECODE_LEAD.
    const PrefillTimeModel p(m_cfg.prefillA, m_cfg.prefillB, m_cfg.prefillC);
    const double tc = m_cfg.batchPeriod.GetSeconds();
    const double gpu = m_cfg.prefillPromptsOnGpu
                           ? k * (tc + std::max(0.0, p.Evaluate(m_cfg.promptMax)))
                           : k * UPLINK_PER_UE;
    const double busy =
        m_cfg.promptTime.GetSeconds() +
        std::max(UPLINK_LATENCY + gpu, m_cfg.handoverLead.GetSeconds() - DECODE_LEAD);
    const double step = tc > 0 ? tc : 1e-3;
    m_handoverStart = std::ceil((busy + DECODE_LEAD) / step - 1e-9) * step;
    m_drawnUes = true;
    const double spread = m_cfg.platoonSpread.GetSeconds();
    // Enough tokens to decode until the handover and tokensAfterHandover after it.
    const auto before = static_cast<uint32_t>(std::ceil(
        (m_handoverStart + m_cfg.platoonSpread.GetSeconds() + m_cfg.tailTime.GetSeconds()) *
        m_cfg.decodeRate));
    m_home.resize(n);
    m_tau.resize(n);
    m_ues.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        ScenarioUe& ue = m_ues[i];
        m_home[i] = i / k;
        ue.homeSite = m_home[i];
        ue.targetSite = m_roadTarget[m_home[i]];
        ue.promptTokens = prompt->GetInteger(m_cfg.promptMin, m_cfg.promptMax);
        ue.maxNewTokens = before + m_cfg.tokensAfterHandover;
        ue.promptAt = m_cfg.promptTime;
        // Rounded to the microsecond, so that a Time holds it exactly.
        m_tau[i] = std::round((m_handoverStart + spread * when->GetValue()) * 1e6) / 1e6;
        ue.handoverAt = MicroSeconds(static_cast<int64_t>(std::llround(m_tau[i] * 1e6)));
    }
    if (m_cfg.roads == "random")
    {
        // After every instant: the same prompts and instants as with "cycle".
        for (uint32_t i = 0; i < n; ++i)
        {
            const std::vector<uint32_t>& near = m_neighbours[m_home[i]];
            m_ues[i].targetSite = near[when->GetInteger(0, static_cast<uint32_t>(near.size()) - 1)];
        }
    }
}

void
MultiCellScenario::PlaceUesOnRoads()
{
    const double z = m_ran->GetUeHeight();
    for (uint32_t i = 0; i < m_ues.size(); ++i)
    {
        const Vector& a = m_sites[m_home[i]];
        const Vector& b = m_sites[m_ues[i].targetSite];
        const double len = CalculateDistance(a, b);
        const Vector dir((b.x - a.x) / len, (b.y - a.y) / len, 0);
        // The road runs ROAD_OFFSET m to the left of the line from a to b; the UE
        // crosses the boundary (boundaryFraction of the way) at its tau.
        const double bx = a.x + m_cfg.boundaryFraction * len * dir.x - ROAD_OFFSET * dir.y;
        const double by = a.y + m_cfg.boundaryFraction * len * dir.y + ROAD_OFFSET * dir.x;
        const double back = m_cfg.speed * m_tau[i];
        m_ues[i].position = Vector(bx - back * dir.x, by - back * dir.y, z);
        m_ues[i].velocity = Vector(m_cfg.speed * dir.x, m_cfg.speed * dir.y, 0);
    }
}

void
MultiCellScenario::InstallRandomMobility()
{
    const auto n = static_cast<uint32_t>(m_ues.size());
    const double z = m_ran->GetUeHeight();
    const double d = m_cfg.interSiteDistance;
    m_ueNodes.Create(n);
    MobilityHelper mobility;
    // Random motion in the layout's bounding box (each site's cell reaching d / 2 out),
    // from a start drawn in the square of side d / 2 around the home site.
    double xMin = 0;
    double xMax = 0;
    double yMin = 0;
    double yMax = 0;
    for (const auto& s : m_sites)
    {
        xMin = std::min(xMin, s.x - d / 2);
        xMax = std::max(xMax, s.x + d / 2);
        yMin = std::min(yMin, s.y - d / 2);
        yMax = std::max(yMax, s.y + d / 2);
    }
    Ptr<UniformRandomVariable> offset = CreateObject<UniformRandomVariable>();
    offset->SetStream(STREAM_MOBILITY - 1 - m_cfg.seedStream);
    Ptr<ListPositionAllocator> start = CreateObject<ListPositionAllocator>();
    for (uint32_t i = 0; i < n; ++i)
    {
        const Vector& s = m_sites[m_home[i]];
        const double dx = offset->GetValue(-d / 4, d / 4);
        const double dy = offset->GetValue(-d / 4, d / 4);
        m_ues[i].position = Vector(s.x + dx, s.y + dy, z);
        start->Add(m_ues[i].position);
    }
    mobility.SetPositionAllocator(start);
    std::ostringstream speed;
    speed << "ns3::ConstantRandomVariable[Constant=" << m_cfg.speed << "]";
    if (m_cfg.mobility == "random-waypoint")
    {
        Ptr<RandomBoxPositionAllocator> box = CreateObject<RandomBoxPositionAllocator>();
        Ptr<UniformRandomVariable> x = CreateObject<UniformRandomVariable>();
        x->SetAttribute("Min", DoubleValue(xMin));
        x->SetAttribute("Max", DoubleValue(xMax));
        Ptr<UniformRandomVariable> y = CreateObject<UniformRandomVariable>();
        y->SetAttribute("Min", DoubleValue(yMin));
        y->SetAttribute("Max", DoubleValue(yMax));
        Ptr<ConstantRandomVariable> zz = CreateObject<ConstantRandomVariable>();
        zz->SetAttribute("Constant", DoubleValue(z));
        box->SetX(x);
        box->SetY(y);
        box->SetZ(zz);
        box->AssignStreams(STREAM_MOBILITY + 1000 + 3 * m_cfg.seedStream);
        mobility.SetMobilityModel("ns3::RandomWaypointMobilityModel",
                                  "Speed",
                                  StringValue(speed.str()),
                                  "Pause",
                                  StringValue("ns3::ConstantRandomVariable[Constant=0]"),
                                  "PositionAllocator",
                                  PointerValue(box));
    }
    else
    {
        mobility.SetMobilityModel(
            "ns3::GaussMarkovMobilityModel",
            "Bounds",
            BoxValue(Box(xMin, xMax, yMin, yMax, z, z)),
            "TimeStep",
            TimeValue(Seconds(1)),
            "Alpha",
            DoubleValue(0.85),
            "MeanVelocity",
            StringValue(speed.str()),
            "MeanPitch",
            StringValue("ns3::ConstantRandomVariable[Constant=0]"),
            "NormalPitch",
            StringValue("ns3::NormalRandomVariable[Mean=0.0|Variance=0.0|Bound=0.0]"));
    }
    mobility.Install(m_ueNodes);
    mobility.AssignStreams(m_ueNodes, STREAM_MOBILITY + 10 * m_cfg.seedStream);
}

void
MultiCellScenario::BuildUes(const std::vector<ScenarioUe>& ues)
{
    RequireDone(m_bsNodes.GetN() > 0, "BuildUes", "call BuildSites first");
    RequireDone(m_ueNodes.GetN() == 0, "BuildUes", "already done (each part runs once)");
    Require(!ues.empty(), "BuildUes: ues must have at least one UE");
    const LlmModelProfile profile = LlmModelProfile::FromPreset(m_cfg.model, m_cfg.kvBits);
    std::vector<uint32_t> perSite(m_cfg.numSites, 0);
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        const ScenarioUe& ue = ues[i];
        const std::string name = "BuildUes: ues[" + std::to_string(i) + "].";
        Require(ue.homeSite < m_cfg.numSites,
                name + "homeSite must be in [0, " + std::to_string(m_cfg.numSites - 1) + "], got " +
                    std::to_string(ue.homeSite));
        Require(++perSite[ue.homeSite] <= m_cfg.uesPerSite,
                name + "homeSite: at most uesPerSite = " + std::to_string(m_cfg.uesPerSite) +
                    " UEs per site (the cell capacity the config was checked for)");
        // The target is read by a scripted handover and by the arrival predictor.
        const bool targeted = ue.handoverAt != Time::Max() || m_cfg.predictArrivals;
        Require(!targeted || (ue.targetSite < m_cfg.numSites && ue.targetSite != ue.homeSite),
                name + "targetSite must be a site in [0, " + std::to_string(m_cfg.numSites - 1) +
                    "] other than homeSite " + std::to_string(ue.homeSite) +
                    " (a scripted handover or predictArrivals reads it), got " +
                    std::to_string(ue.targetSite));
        const std::pair<const char*, double> coordinates[] = {{"position.x", ue.position.x},
                                                              {"position.y", ue.position.y},
                                                              {"position.z", ue.position.z},
                                                              {"velocity.x", ue.velocity.x},
                                                              {"velocity.y", ue.velocity.y},
                                                              {"velocity.z", ue.velocity.z}};
        for (const auto& [field, v] : coordinates)
        {
            Require(std::isfinite(v),
                    name + field + " must be finite, got " + edgellm::FormatValue(v));
        }
        Require(ue.promptTokens >= 1, name + "promptTokens must be >= 1");
        profile.CheckContext(name + "promptTokens",
                             ue.promptTokens,
                             m_cfg.allowBeyondContextWindow);
        Require(ue.maxNewTokens >= 1, name + "maxNewTokens must be >= 1");
        Require(!ue.promptAt.IsStrictlyNegative(), name + "promptAt must be >= 0");
        Require(!ue.handoverAt.IsStrictlyNegative(),
                name + "handoverAt must be >= 0 (Time::Max(): none)");
        CheckLaterHandovers(ue, name);
    }
    m_ues = ues;
    m_home.clear();
    m_tau.clear();
    for (const ScenarioUe& ue : m_ues)
    {
        m_home.push_back(ue.homeSite);
        if (ue.handoverAt != Time::Max())
        {
            m_tau.push_back(ue.handoverAt.GetSeconds());
        }
        for (const auto& later : ue.laterHandovers)
        {
            m_tau.push_back(later.first.GetSeconds());
        }
    }
    m_handoverStart = m_tau.empty() ? 0 : *std::min_element(m_tau.begin(), m_tau.end());
    CreateUeNodes();
}

void
MultiCellScenario::CheckLaterHandovers(const ScenarioUe& ue, const std::string& name) const
{
    Require(ue.laterHandovers.empty() || ue.handoverAt != Time::Max(),
            name + "laterHandovers needs a first handover (handoverAt)");
    Time after = ue.handoverAt;
    uint32_t from = ue.targetSite;
    for (std::size_t k = 0; k < ue.laterHandovers.size(); ++k)
    {
        const auto& [at, to] = ue.laterHandovers[k];
        const std::string field = name + "laterHandovers[" + std::to_string(k) + "]";
        Require(at > after && at != Time::Max(),
                field + ": its time must be after the previous handover's, " +
                    edgellm::FormatNumber(after.GetSeconds()) + " s");
        Require(to < m_cfg.numSites && to != from,
                field + ": its site must be in [0, " + std::to_string(m_cfg.numSites - 1) +
                    "] other than the previous target " + std::to_string(from) + ", got " +
                    std::to_string(to));
        after = at;
        from = to;
    }
    Require(ue.leaveAt > ue.promptAt, name + "leaveAt must be after promptAt (Time::Max(): never)");
}

void
MultiCellScenario::CreateUeNodes()
{
    m_ueNodes.Create(m_ues.size());
    MobilityHelper mobility;
    mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    mobility.Install(m_ueNodes);
    for (uint32_t i = 0; i < m_ueNodes.GetN(); ++i)
    {
        Ptr<ConstantVelocityMobilityModel> m =
            m_ueNodes.Get(i)->GetObject<ConstantVelocityMobilityModel>();
        m->SetPosition(Vector(m_ues[i].position.x, m_ues[i].position.y, m_ran->GetUeHeight()));
        m->SetVelocity(m_ues[i].velocity);
    }
}

void
MultiCellScenario::BuildRan()
{
    RequireDone(m_ueNodes.GetN() > 0, "BuildRan", "call BuildUes first");
    RequireDone(m_ran->GetBsDevices().GetN() == 0,
                "BuildRan",
                "already done (each part runs once)");
    if (m_cfg.backhaul != "x2")
    {
        // The backhaul: Mesh (the RAN's X2/Xn cables), Star (every site to an aggregation
        // router, X2 over two hops) or Ring, with per-link rate, delay, MTU and queue disc.
        Ptr<EdgeLlmBackhaul> backhaul = CreateObject<EdgeLlmBackhaul>();
        const std::string topology = m_cfg.backhaul == "star"   ? "Star"
                                     : m_cfg.backhaul == "ring" ? "Ring"
                                     : m_cfg.backhaul == "file" ? "File"
                                                                : "Mesh";
        const DataRate rate(static_cast<uint64_t>(std::llround(m_cfg.backhaulGbps * 1e9)));
        backhaul->SetAttribute("Topology", StringValue(topology));
        backhaul->SetAttribute("LinkDataRate", DataRateValue(rate));
        backhaul->SetAttribute("AggregationDataRate", DataRateValue(rate));
        backhaul->SetAttribute("LinkDelay", TimeValue(m_cfg.backhaulDelay));
        backhaul->SetAttribute("LinkMtu", UintegerValue(m_cfg.backhaulMtu));
        backhaul->SetAttribute("QueueDisc", StringValue(m_cfg.queueDisc));
        if (topology != "Mesh")
        {
            backhaul->SetAttribute("PeerRange",
                                   DoubleValue(m_cfg.peerRange * m_cfg.interSiteDistance));
        }
        if (m_cfg.backhaul == "file")
        {
            backhaul->SetAttribute("TopologyFile", StringValue(m_cfg.backhaulFile));
            backhaul->SetAttribute("TopologyFormat", StringValue(m_cfg.backhaulFileFormat));
        }
        m_ran->SetBackhaul(backhaul);
    }
    m_ran->Install(m_bsNodes, m_ueNodes);
    for (uint32_t s = 0; s < m_siteRecords.size(); ++s)
    {
        m_ran->SetBsTxPower(m_ran->GetBsDevices().Get(s), m_siteRecords[s].txPowerDbm);
        if (m_siteRecords[s].sector)
        {
            m_ran->SetBsAntenna(m_ran->GetBsDevices().Get(s), m_siteRecords[s].antenna);
        }
    }
    if (!m_cfg.pcapPrefix.empty())
    {
        // The usual helper call, on the sites' point-to-point devices (X2/Xn and S1-U);
        // tools/edge-llm-kv.lua decodes the KV transfer in them.
        for (uint32_t n = 0; n < m_bsNodes.GetN(); ++n)
        {
            for (uint32_t d = 0; d < m_bsNodes.Get(n)->GetNDevices(); ++d)
            {
                Ptr<NetDevice> dev = m_bsNodes.Get(n)->GetDevice(d);
                if (DynamicCast<PointToPointNetDevice>(dev))
                {
                    PointToPointHelper().EnablePcap(m_cfg.pcapPrefix, dev, false);
                }
            }
        }
    }
    NetDeviceContainer bs = m_ran->GetBsDevices();
    NetDeviceContainer ue = m_ran->GetUeDevices();
    for (uint32_t s = 0; s < m_cfg.numSites; ++s)
    {
        NetDeviceContainer home;
        for (uint32_t i = 0; i < ue.GetN(); ++i)
        {
            if (m_home[i] == s)
            {
                home.Add(ue.Get(i));
            }
        }
        if (home.GetN() > 0)
        {
            m_ran->Attach(home, bs.Get(s));
        }
    }
}

void
MultiCellScenario::BuildBackhaul()
{
    RequireDone(m_ran && m_ran->GetBsDevices().GetN() > 0, "BuildBackhaul", "call BuildRan first");
    RequireDone(!m_backhaulBuilt, "BuildBackhaul", "already done (each part runs once)");
    m_backhaulBuilt = true;
    Ptr<EdgeLlmBackhaul> backhaul = m_ran->GetBackhaul();
    if (!backhaul)
    {
        return; // the RAN's own cables (backhaul x2): no cross traffic, no per-link counts
    }
    backhaul->AssignStreams(STREAM_QUEUE_DISCS); // every run of a study draws the same drops
    // Cross traffic planned with (EdgeLlmBackhaul: before ConnectBackhaul, in InstallApps);
    // blind planning installs it after.
    if (m_cfg.crossTrafficLoad > 0 && m_cfg.planWithCrossTraffic)
    {
        InstallCrossTraffic();
    }
    // The KV account and the queues' delay on every link, each direction.
    Counters* counters = m_counters.get();
    const auto& links = backhaul->GetLinks();
    for (std::size_t l = 0; l < links.size(); ++l)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<PointToPointNetDevice> out =
                DynamicCast<PointToPointNetDevice>(links[l].devices.Get(i));
            Ptr<PointToPointNetDevice> in =
                DynamicCast<PointToPointNetDevice>(links[l].devices.Get(1 - i));
            Ptr<QueueDisc> qd = links[l].rootQueueDisc[i];
            NS_ABORT_MSG_UNLESS(out && in && qd,
                                "MultiCellScenario: backhaul link "
                                    << l << " without devices or queue disc");
            const std::size_t index = counters->links.size();
            BackhaulLinkCount link;
            link.fromNodeId = out->GetNode()->GetId();
            link.toNodeId = in->GetNode()->GetId();
            const int32_t from = backhaul->GetSiteIndex(out->GetNode());
            const int32_t to = backhaul->GetSiteIndex(in->GetNode());
            link.fromCellId = from < 0 ? 0 : m_ran->GetCellId(m_ran->GetBsDevices().Get(from));
            link.toCellId = to < 0 ? 0 : m_ran->GetCellId(m_ran->GetBsDevices().Get(to));
            counters->links.push_back(link);
            ConnectLinkCounters(index, qd, out, in);
        }
    }
}

void
MultiCellScenario::InstallCrossTraffic()
{
    const double lastTau =
        m_tau.empty() ? m_handoverStart : *std::max_element(m_tau.begin(), m_tau.end());
    m_ran->GetBackhaul()->InstallCrossTraffic(m_cfg.crossTrafficLoad,
                                              Seconds(std::max(0.0, m_handoverStart - CROSS_LEAD)),
                                              Seconds(lastTau) + m_cfg.tailTime);
}

void
MultiCellScenario::ConnectLinkCounters(std::size_t index,
                                       Ptr<QueueDisc> qd,
                                       Ptr<PointToPointNetDevice> out,
                                       Ptr<PointToPointNetDevice> in)
{
    Counters* counters = m_counters.get();
    qd->TraceConnectWithoutContext("Enqueue",
                                   compat::MakeCallback<void, Ptr<const QueueDiscItem>>(
                                       [counters, index](Ptr<const QueueDiscItem> item) {
                                           counters->links[index].offeredBytes += TcpPayload(item);
                                       }));
    qd->TraceConnectWithoutContext(
        "DropBeforeEnqueue",
        compat::MakeCallback<void, Ptr<const QueueDiscItem>, const char*>(
            [counters, index](Ptr<const QueueDiscItem> item, const char*) {
                // Never enqueued: offered and dropped.
                counters->links[index].offeredBytes += TcpPayload(item);
                counters->links[index].droppedBytes += TcpPayload(item);
                ++counters->links[index].droppedPackets;
            }));
    qd->TraceConnectWithoutContext(
        "DropAfterDequeue",
        compat::MakeCallback<void, Ptr<const QueueDiscItem>, const char*>(
            [counters, index](Ptr<const QueueDiscItem> item, const char*) {
                counters->links[index].droppedBytes += TcpPayload(item);
                ++counters->links[index].droppedPackets;
            }));
    qd->TraceConnectWithoutContext("SojournTime",
                                   compat::MakeCallback<void, Time>([counters](Time t) {
                                       counters->sojourn.push_back(t.GetSeconds());
                                   }));
    out->TraceConnectWithoutContext(
        "MacTxDrop",
        compat::MakeCallback<void, Ptr<const Packet>>([counters, index](Ptr<const Packet> p) {
            counters->links[index].droppedBytes += TcpPayloadAfterIp(p->Copy());
            ++counters->links[index].droppedPackets;
        }));
    in->TraceConnectWithoutContext(
        "MacRx",
        compat::MakeCallback<void, Ptr<const Packet>>([counters, index](Ptr<const Packet> p) {
            Ptr<Packet> copy = p->Copy();
            PppHeader ppp;
            copy->RemoveHeader(ppp);
            if (ppp.GetProtocol() == 0x0021) // PPP: IPv4
            {
                counters->links[index].receivedBytes += TcpPayloadAfterIp(copy);
            }
        }));
}

void
MultiCellScenario::InstallApps(const std::string& schedulerType)
{
    RequireDone(m_backhaulBuilt, "InstallApps", "call BuildBackhaul first");
    RequireDone(m_bsApps.GetN() == 0, "InstallApps", "already done (each part runs once)");
    RequireTypeId("schedulerType", schedulerType, "ns3::HandoverScheduler");
    // The one place a scenario configures the helper: the RAN, the scheduler, the LLM,
    // the warm-up and the GPU.
    EdgeLlmHelper edge;
    edge.SetRan(m_ran);
    ObjectFactory scheduler(schedulerType);
    scheduler.Set("Lookahead", TimeValue(m_cfg.lookahead));
    HandoverSchemeRegistry::SetAttributes(scheduler, m_cfg.schedulerAttributes);
    edge.SetScheduler(scheduler);
    edge.SetNodeAttribute("Model", StringValue(m_cfg.model));
    edge.SetNodeAttribute("KvBits", UintegerValue(m_cfg.kvBits));
    edge.SetNodeAttribute("DecodeRate", DoubleValue(m_cfg.decodeRate));
    edge.SetNodeAttribute("TokenBytes", UintegerValue(m_cfg.tokenBytes));
    edge.SetNodeAttribute("PrefillPromptsOnGpu", BooleanValue(m_cfg.prefillPromptsOnGpu));
    if (m_cfg.warmDecodeStart.IsStrictlyPositive())
    {
        edge.SetNodeAttribute("WarmDecodeStart", TimeValue(m_cfg.warmDecodeStart));
    }
    edge.SetPrefillEngineAttribute("PrefillA", DoubleValue(m_cfg.prefillA));
    edge.SetPrefillEngineAttribute("PrefillB", DoubleValue(m_cfg.prefillB));
    edge.SetPrefillEngineAttribute("PrefillC", DoubleValue(m_cfg.prefillC));
    edge.SetPrefillEngineAttribute("BatchPeriod", TimeValue(m_cfg.batchPeriod));
    if (!m_cfg.servingGpu.empty())
    {
        edge.EnableServingGpu(m_cfg.servingGpu);
    }
    edge.SetIdleCacheRoleAttribute("Policy", StringValue(m_cfg.idleCachePolicy));
    m_bsApps = edge.InstallOnEnbs(m_ran->GetBsDevices());
    if (!m_ran->GetBackhaul())
    {
        edge.ConnectBackhaul(m_bsApps); // the RAN's own X2/Xn cables
    }
    else
    {
        // Peers over the backhaul's paths, planned at each path's bottleneck less the cross
        // traffic installed so far (EdgeLlmBackhaul): with planWithCrossTraffic the cross
        // traffic is installed before (BuildBackhaul), else after, so the plan is blind.
        edge.ConnectBackhaul(m_bsApps, m_ran->GetBackhaul());
        if (m_cfg.crossTrafficLoad > 0 && !m_cfg.planWithCrossTraffic)
        {
            InstallCrossTraffic();
        }
    }
    try
    {
        EdgeLlmHelper::CheckConfiguration(m_bsApps);
    }
    catch (const std::invalid_argument&)
    {
        Simulator::Destroy(); // nothing ran: leave the simulator as it was
        throw;
    }
    edge.ConnectHandoverTrace(m_bsApps);
    EdgeLlmHelper::AddEpcRoutes(m_ran->GetSgwNode(), m_ran->GetPgwNode(), m_bsNodes);
    // Each UE is served by the EdgeLlmNode of the cell it attaches to (its home site's).
    m_ueApps = edge.InstallUe(m_ueNodes, m_ran->GetUeDevices(), m_bsApps);
    for (uint32_t i = 0; i < m_ueApps.GetN(); ++i)
    {
        m_ueApps.Get(i)->SetAttribute("PromptTokens", UintegerValue(m_ues[i].promptTokens));
        m_ueApps.Get(i)->SetAttribute("MaxNewTokens", UintegerValue(m_ues[i].maxNewTokens));
        if (m_drawnUes && !m_cfg.prefillPromptsOnGpu)
        {
            m_ueApps.Get(i)->SetAttribute("PromptRetry", TimeValue(m_cfg.promptRetry));
        }
    }
    m_bsApps.Start(Seconds(0));
    for (uint32_t i = 0; i < m_ueApps.GetN(); ++i)
    {
        if (m_ues[i].promptAt == Time::Max())
        {
            // A trace's vehicle gone before its prompt: an application that never starts
            // (ns-3 starts an Application at its start time even after its stop time).
            m_ueApps.Get(i)->SetStartTime(TimeStep(Time::Max().GetTimeStep() / 2));
            continue;
        }
        m_ueApps.Get(i)->SetStartTime(m_ues[i].promptAt);
        if (m_ues[i].leaveAt != Time::Max())
        {
            m_ueApps.Get(i)->SetStopTime(m_ues[i].leaveAt);
        }
    }
}

void
MultiCellScenario::ScheduleHandovers()
{
    RequireDone(m_bsApps.GetN() > 0, "ScheduleHandovers", "call InstallApps first");
    RequireDone(!m_handoversScheduled, "ScheduleHandovers", "already done (each part runs once)");
    m_handoversScheduled = true;
    if (m_cfg.handover != "script")
    {
        // The RRC's algorithm decides; the sources may predict arrivals.
        if (m_cfg.predictArrivals)
        {
            InstallArrivalPredictors();
        }
        return;
    }
    for (uint32_t i = 0; i < m_ueNodes.GetN(); ++i)
    {
        const ScenarioUe& u = m_ues[i];
        if (u.handoverAt == Time::Max())
        {
            continue; // stays on its home site
        }
        ScheduleHandover(i, u.handoverAt, u.homeSite, u.targetSite);
        uint32_t from = u.targetSite;
        for (const auto& [at, to] : u.laterHandovers)
        {
            ScheduleHandover(i, at, from, to);
            from = to;
        }
    }
}

void
MultiCellScenario::ScheduleHandover(uint32_t i, Time at, uint32_t from, uint32_t to)
{
    NetDeviceContainer bs = m_ran->GetBsDevices();
    Ptr<NetDevice> ueDev = m_ran->GetUeDevices().Get(i);
    if (m_trace)
    {
        // A trace's UE may still be in its previous handover, or not where the trace put it.
        compat::Schedule(at, [this, i, from, to, at]() {
            RequestTraceHandover(i, from, to, at + m_cfg.handoverStartTimeout);
        });
    }
    else
    {
        m_ran->HandoverRequest(at, ueDev, bs.Get(from), bs.Get(to));
    }
    Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(m_bsApps.Get(from));
    const uint64_t imsi = m_ran->GetImsi(ueDev);
    const uint16_t targetCell = m_ran->GetCellId(bs.Get(to));
    if (m_trace && at - m_cfg.traceAnnounceLead > Simulator::Now())
    {
        // A trace's handovers spread over its whole length: each is announced only
        // traceAnnounceLead ahead, so a batch holds the handovers that close together.
        Simulator::Schedule(at - m_cfg.traceAnnounceLead - Simulator::Now(),
                            &EdgeLlmNode::ExpectHandover,
                            source,
                            imsi,
                            targetCell,
                            at);
    }
    else
    {
        source->ExpectHandover(imsi, targetCell, at);
    }
    // Proactive pre-transfer with a predicted crossing: the scripted handover is the
    // crossing predicted from the UE's position and speed, LeadTime ahead.
    const std::optional<PreTransferSettings> pre =
        source->GetScheduler() ? source->GetScheduler()->GetPreTransfer() : std::nullopt;
    if (pre && pre->trigger == PreTransferSettings::PREDICTED_CROSSING)
    {
        const Time likely = std::max(Simulator::Now(), at - pre->leadTime);
        Simulator::Schedule(likely - Simulator::Now(),
                            &EdgeLlmNode::UeHandoverLikely,
                            source,
                            imsi,
                            targetCell);
    }
    // ns-3's RRCs (LTE and nr) take a target's HANDOVER PREPARATION FAILURE (no SRS
    // index left, AdmitHandoverRequest false) back to CONNECTED_NORMALLY without a
    // trace, and wait for ever for an answer that was lost: without HandoverStart by
    // then, the source's batch goes on without the UE (NotifyHandoverFailure: the
    // session stays at the source, HandoverFailed), the result counts it, and the
    // stop rule does not wait for it. (A UE's later handovers: only its first is watched.)
    Counters* c = m_counters.get();
    const uint32_t total = m_ueNodes.GetN();
    compat::Schedule(at + m_cfg.handoverStartTimeout, [c, source, imsi, total]() {
        if (!c->started.count(imsi) && c->notStarted.insert(imsi).second)
        {
            source->RrcHandoverFailure(imsi, 0, 0); // its sessions there, requests' too
            c->Settle(imsi, total);
        }
    });
}

void
MultiCellScenario::RequestTraceHandover(uint32_t i, uint32_t from, uint32_t to, Time deadline)
{
    Counters& c = *m_counters;
    NetDeviceContainer bs = m_ran->GetBsDevices();
    Ptr<NetDevice> ueDev = m_ran->GetUeDevices().Get(i);
    const uint64_t imsi = m_ran->GetImsi(ueDev);
    if (c.moving.count(imsi) && Simulator::Now() < deadline)
    {
        // Its previous handover has not ended (ns-3's RRCs abort on a request then): again
        // in 10 ms, until handoverStartTimeout after the announced instant.
        compat::Schedule(MilliSeconds(10), [this, i, from, to, deadline]() {
            RequestTraceHandover(i, from, to, deadline);
        });
        return;
    }
    const auto joined = c.joinedCell.find(imsi);
    uint32_t serving = m_home[i];
    for (uint32_t s = 0; joined != c.joinedCell.end() && s < bs.GetN(); ++s)
    {
        serving = m_ran->GetCellId(bs.Get(s)) == joined->second ? s : serving;
    }
    if (serving == from && !c.moving.count(imsi))
    {
        m_ran->HandoverRequest(Seconds(0), ueDev, bs.Get(from), bs.Get(to));
        return;
    }
    // Not where the trace put it (an earlier handover failed, or still pending): the
    // announced source's batch goes on without it; it follows the trace from where it is.
    ++c.tracePlanMisses;
    DynamicCast<EdgeLlmNode>(m_bsApps.Get(from))->RrcHandoverFailure(imsi, 0, 0);
    if (!c.moving.count(imsi) && serving != to && ArePeers(serving, to))
    {
        m_ran->HandoverRequest(Seconds(0), ueDev, bs.Get(serving), bs.Get(to));
    }
}

void
MultiCellScenario::InstallArrivalPredictors()
{
    // Online look-ahead from positions and speeds: a UE is expected to hand over when its
    // road (home site toward targetSite) reaches predictedHandoverDistance, with the
    // context it will have by then. Each source predicts its own home UEs driving toward
    // the target asked about.
    struct Road
    {
        Ptr<MobilityModel> mobility; //!< The UE's
        Vector from;                 //!< Its home site
        Vector direction;            //!< Unit vector toward its target site
        double handoverAt;           //!< Distance along the road of the handover, m
        uint16_t targetCell;         //!< Its target site's cell id
    };

    std::map<uint32_t, std::map<uint64_t, Road>> bySite; // site -> IMSI -> road
    NetDeviceContainer ueDevs = m_ran->GetUeDevices();
    for (uint32_t i = 0; i < m_ueNodes.GetN(); ++i)
    {
        const ScenarioUe& u = m_ues[i];
        const Vector& a = m_sites[u.homeSite];
        const Vector& b = m_sites[u.targetSite];
        const double len = CalculateDistance(a, b);
        bySite[u.homeSite][m_ran->GetImsi(ueDevs.Get(i))] = {
            m_ueNodes.Get(i)->GetObject<MobilityModel>(),
            a,
            Vector((b.x - a.x) / len, (b.y - a.y) / len, 0),
            std::isnan(m_cfg.predictedHandoverDistance) ? m_cfg.boundaryFraction * len
                                                        : m_cfg.predictedHandoverDistance,
            m_ran->GetCellId(m_ran->GetBsDevices().Get(u.targetSite))};
    }
    for (const auto& [site, roads] : bySite)
    {
        Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(m_bsApps.Get(site));
        source->SetArrivalPredictor([source, roads](uint16_t target, Time now, Time horizon) {
            std::vector<CtHoUe> next;
            for (const auto& [imsi, r] : roads)
            {
                if (r.targetCell != target)
                {
                    continue;
                }
                const Vector p = r.mobility->GetPosition();
                const Vector v = r.mobility->GetVelocity();
                const double x =
                    (p.x - r.from.x) * r.direction.x + (p.y - r.from.y) * r.direction.y;
                const double speed = v.x * r.direction.x + v.y * r.direction.y;
                if (speed <= 0 || x >= r.handoverAt)
                {
                    continue;
                }
                const Time when = now + Seconds((r.handoverAt - x) / speed);
                const uint64_t c = source->PredictContextAt(imsi, when);
                if (when <= now + horizon && c > 0)
                {
                    next.push_back({imsi, when.GetSeconds(), c});
                }
            }
            return next;
        });
    }
}

void
MultiCellScenario::InstallRequests(const std::vector<LlmRequest>& requests, Time start)
{
    RequireDone(m_bsApps.GetN() > 0, "InstallRequests", "call InstallApps first");
    RequireDone(!m_outputsConnected, "InstallRequests", "call it before ConnectOutputs");
    RequireDone(m_requestApps.GetN() == 0, "InstallRequests", "already done (at most once)");
    EdgeLlmHelper edge;
    edge.SetRan(m_ran);
    // A prompt the radio lost is resent (PromptRetry, as the drawn UEs' with their prompts
    // off the GPU); a BS ignores a prompt of a session it holds or has seen.
    edge.SetUeAttribute("PromptRetry", TimeValue(m_cfg.promptRetry));
    m_requestApps =
        edge.InstallUeRequests(m_ueNodes, m_ran->GetUeDevices(), m_bsApps, requests, start);
    Counters* c = m_counters.get();
    for (uint32_t b = 0; b < m_bsApps.GetN(); ++b)
    {
        m_bsApps.Get(b)->TraceConnectWithoutContext(
            "TurnStarted",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [c](uint64_t id, uint16_t, uint64_t cached) { c->turnCached[id] = cached; }));
        Ptr<Object> idle = DynamicCast<EdgeLlmNode>(m_bsApps.Get(b))->GetIdleCacheRole();
        idle->TraceConnectWithoutContext(
            "IdleCacheDropped",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [c](uint64_t, uint16_t, uint64_t) { ++c->idleDrops; }));
        idle->TraceConnectWithoutContext(
            "IdleCacheMoved",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [c](uint64_t, uint16_t, uint64_t) { ++c->idleMoves; }));
        idle->TraceConnectWithoutContext(
            "IdleCacheFetched",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [c](uint64_t, uint16_t, uint64_t) { ++c->idleFetches; }));
    }
    for (const LlmRequest& q : requests)
    {
        m_requestUe.push_back(q.ue);
        m_lastRequestAt = std::max(m_lastRequestAt, start + Seconds(q.arrival));
    }
}

void
MultiCellScenario::StopWhenRequestsDone()
{
    for (uint32_t i = 0; i < m_requestApps.GetN(); ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(m_requestApps.Get(i));
        UintegerValue wanted;
        app->GetAttribute("MaxNewTokens", wanted);
        if (app->GetTokensReceived() + app->GetTokensMissing() < wanted.Get() &&
            !app->HasTurnEnded())
        {
            Simulator::Schedule(MilliSeconds(10), &MultiCellScenario::StopWhenRequestsDone, this);
            return;
        }
    }
    Stop();
}

void
MultiCellScenario::CollectRequests(MultiCellResult& result) const
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    std::map<uint64_t, std::vector<const EdgeLlmHandoverRecord*>> records; // by session
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        if (EdgeLlmSessionId::RequestOf(rec.sessionId) != 0 && rec.started)
        {
            records[rec.sessionId].push_back(&rec);
        }
    }
    for (uint32_t i = 0; i < m_requestApps.GetN(); ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(m_requestApps.Get(i));
        EdgeLlmRequestResult r;
        r.sessionId = app->GetSessionId();
        r.ue = m_requestUe[i];
        r.arrival = app->GetRequestTime().GetSeconds();
        r.sent =
            app->GetPromptTime().IsStrictlyNegative() ? nan : app->GetPromptTime().GetSeconds();
        r.promptCell = app->GetPromptCellId();
        const auto cached = m_counters->turnCached.find(r.sessionId);
        r.cachedTokens = cached != m_counters->turnCached.end() ? cached->second : 0;
        UintegerValue wanted;
        app->GetAttribute("MaxNewTokens", wanted);
        r.outputTokens = wanted.Get();
        r.tokensReceived = app->GetTokensReceived();
        r.tokensMissing = app->GetTokensMissing();
        const Time first = app->GetFirstTokenTime();
        const Time last = app->GetLastTokenTime();
        r.firstToken = first.IsStrictlyNegative() ? nan : first.GetSeconds();
        r.lastToken = last.IsStrictlyNegative() ? nan : last.GetSeconds();
        for (const EdgeLlmUeApp::Stall& st : app->GetStalls())
        {
            ++r.stalls;
            r.stall += (st.firstAfter - st.lastBefore).GetSeconds();
            r.worstStall = std::max(r.worstStall, (st.firstAfter - st.lastBefore).GetSeconds());
            r.excess += st.excess.GetSeconds();
        }
        for (const EdgeLlmHandoverRecord* rec : records[r.sessionId])
        {
            // Its handovers, in order: the restored ones, their plans, the last one's share.
            const bool restored = rec->outcome == EdgeLlmHandoverRecord::RESTORED ||
                                  rec->outcome == EdgeLlmHandoverRecord::TIMED_OUT;
            r.restores += restored ? 1 : 0;
            r.restorePrefillTokens += rec->prefillTokens + rec->reprefillTokens;
            r.transferTokens += rec->transferTokens;
            if (restored && !std::isnan(rec->receivedFraction))
            {
                const auto utility = UtilityAt(rec->targetCellId, rec->contextTokens);
                r.received = rec->receivedFraction;
                r.accuracy = utility ? utility->Value(rec->receivedFraction) : nan;
            }
        }
        result.requests.push_back(r);
    }
}

void
MultiCellScenario::ConnectOutputs()
{
    RequireDone(m_handoversScheduled, "ConnectOutputs", "call ScheduleHandovers first");
    RequireDone(!m_outputsConnected, "ConnectOutputs", "already done (each part runs once)");
    m_outputsConnected = true;
    m_stats = CreateObject<EdgeLlmSessionStats>();
    m_stats->SetAttribute("StreamTokens", UintegerValue(m_cfg.streamTokens));
    ApplicationContainer ueApps = m_ueApps;
    ueApps.Add(m_requestApps);
    m_stats->Install(m_bsApps, ueApps);
    if (m_cfg.monitorInterval.IsStrictlyPositive())
    {
        // Every point-to-point device of the sites (X2/Xn, S1-U), after their queue discs
        // are in place.
        m_monitor = CreateObject<BackhaulMonitor>();
        m_monitor->SetAttribute("Interval", TimeValue(m_cfg.monitorInterval));
        m_monitor->Install(m_bsNodes);
    }
    Counters* c = m_counters.get();
    NetDeviceContainer ueDevs = m_ran->GetUeDevices();
    for (uint32_t i = 0; i < m_ueNodes.GetN(); ++i)
    {
        EdgeLlmUeResult& r = c->ues[m_ran->GetImsi(ueDevs.Get(i))];
        r.ueId = m_ran->GetImsi(ueDevs.Get(i));
        r.homeSite = m_home[i];
        r.startX = m_ues[i].position.x;
        r.promptTokens = m_ues[i].promptTokens;
    }
    // The per-UE results come from the session records (m_stats, the one collector);
    // the traces below add what is no session record's: the RRC's side (HandoverEndOk,
    // failures), the sources' aborted handovers, the UEs' stalls (and the UEs resumed:
    // the stop rule).
    const uint32_t total = m_ueNodes.GetN();
    for (uint32_t b = 0; b < m_bsApps.GetN(); ++b)
    {
        ConnectSiteTraces(b, total);
    }
    ConnectRrcFailureTraces();
    ConnectUeTraces(total);
    ConnectStreamMeasured(total);
}

void
MultiCellScenario::ConnectSiteTraces(uint32_t b, uint32_t total)
{
    Counters* c = m_counters.get();
    Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(m_bsApps.Get(b));
    // A UE that left before its prompt opened a session has nothing to resume: the
    // stop rule does not wait for it (the result counts it).
    bs->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverWithoutSession",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [c, total](uint64_t id, uint16_t, uint64_t) {
                if (EdgeLlmSessionId::RequestOf(id) != 0)
                {
                    return; // a request's (InstallRequests): the UEs' rule is for their own
                }
                c->noSession.insert(id);
                c->Settle(id, total);
            }));
    bs->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverFailed",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [c, total, done = m_cfg.failedHandoverDone](uint64_t id, uint16_t, uint64_t) {
                if (EdgeLlmSessionId::RequestOf(id) != 0)
                {
                    return; // a request's: its UE's own session settles the UE
                }
                const auto u = c->ues.find(id);
                if (u != c->ues.end())
                {
                    u->second.handoverFailed = true;
                }
                if (done)
                {
                    c->Settle(id, total);
                }
            }));
    // The source RRC reports HandoverStart once the target admitted the UE (its
    // HANDOVER REQUEST ACK): a scripted handover without it was refused or lost.
    std::ostringstream startPath;
    startPath << "/NodeList/" << m_bsNodes.Get(b)->GetId() << "/DeviceList/*/"
              << m_ran->GetRrcName() << "/HandoverStart";
    Config::ConnectWithoutContextFailSafe(
        startPath.str(),
        compat::MakeCallback<void, uint64_t, uint16_t, uint16_t, uint16_t>(
            [c](uint64_t imsi, uint16_t, uint16_t, uint16_t) {
                c->started.insert(imsi);
                c->moving.insert(imsi);
            }));
    // The RRC (LteEnbRrc or NrGnbRrc, the RAN's) that admitted a UE reports
    // HandoverEndOk once the UE has joined its cell.
    std::ostringstream path;
    path << "/NodeList/" << m_bsNodes.Get(b)->GetId() << "/DeviceList/*/" << m_ran->GetRrcName()
         << "/HandoverEndOk";
    Config::ConnectWithoutContextFailSafe(
        path.str(),
        compat::MakeCallback<void, uint64_t, uint16_t, uint16_t>(
            [c](uint64_t imsi, uint16_t cellId, uint16_t) {
                c->moving.erase(imsi);
                c->joinedCell[imsi] = cellId;
                auto u = c->ues.find(imsi);
                if (u != c->ues.end() && std::isnan(u->second.handoverEndTime))
                {
                    u->second.handoverEndTime = Simulator::Now().GetSeconds();
                    u->second.servingCellId = cellId;
                }
            }));
}

void
MultiCellScenario::ConnectRrcFailureTraces()
{
#if EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES
    Counters* c = m_counters.get();
    for (const char* failure : {"HandoverFailureNoPreamble",
                                "HandoverFailureMaxRach",
                                "HandoverFailureLeaving",
                                "HandoverFailureJoining"})
    {
        for (uint32_t n = 0; n < m_bsNodes.GetN(); ++n)
        {
            std::ostringstream path;
            path << "/NodeList/" << m_bsNodes.Get(n)->GetId() << "/DeviceList/*/"
                 << m_ran->GetRrcName() << "/" << failure;
            Config::ConnectWithoutContextFailSafe(
                path.str(),
                compat::MakeCallback<void, uint64_t, uint16_t, uint16_t>(
                    [c](uint64_t, uint16_t, uint16_t) { ++c->rrcFailures; }));
        }
    }
#endif
}

void
MultiCellScenario::ConnectUeTraces(uint32_t total)
{
    Counters* c = m_counters.get();
    for (uint32_t i = 0; i < m_ueApps.GetN(); ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(m_ueApps.Get(i));
        const uint64_t imsi = app->GetSessionId();
        app->TraceConnectWithoutContext(
            "Stall",
            compat::MakeCallback<void, uint64_t, uint16_t, uint16_t, Time, Time>(
                [c,
                 imsi,
                 total,
                 streams = m_cfg.streamTokens > 0](uint64_t, uint16_t, uint16_t, Time, Time) {
                    ++c->ues[imsi].stalls;
                    if (c->stalled.insert(imsi).second)
                    {
                        ++c->resumed;
                        if (!streams)
                        {
                            c->Settle(imsi, total); // else once it streamed G tokens
                        }
                    }
                }));
        ConnectStream(i, total);
    }
}

void
MultiCellScenario::ConnectStream(uint32_t i, uint32_t total)
{
    Counters* c = m_counters.get();
    Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(m_ueApps.Get(i));
    const uint64_t imsi = app->GetSessionId();
    if (m_cfg.streamTokens == 0)
    {
        return;
    }
    if (m_ues[i].streamFrom != Time::Max())
    {
        // No handover: the stream is measured from this instant, at the home site.
        Ptr<EdgeLlmNode> home = DynamicCast<EdgeLlmNode>(m_bsApps.Get(m_home[i]));
        const Time from = m_ues[i].streamFrom;
        Ptr<EdgeLlmSessionStats> stats = m_stats;
        compat::Schedule(from - Simulator::Now(), [stats, home, imsi, from]() {
            stats->StartStream(imsi, home->PredictContextAt(imsi, from));
        });
    }
    // The session stats measure the stream; its first one measured is the UE's (its
    // first handover's, a cancelled one's dropped). The session's last token ends the
    // wait unmeasured (the handover came later than its tokens allowed for).
    app->TraceConnectWithoutContext(
        "TokenReceived",
        compat::MakeCallback<void, uint64_t, uint32_t, uint16_t>(
            [c, imsi, total, last = m_ues[i].maxNewTokens](uint64_t, uint32_t index, uint16_t) {
                if (index >= last)
                {
                    c->Settle(imsi, total);
                }
            }));
}

void
MultiCellScenario::ConnectStreamMeasured(uint32_t total)
{
    Counters* c = m_counters.get();
    m_stats->TraceConnectWithoutContext("StreamMeasured",
                                        compat::MakeCallback<void, uint64_t, Time, Time>(
                                            [c, total](uint64_t imsi, Time start, Time delay) {
                                                if (EdgeLlmSessionId::RequestOf(imsi) != 0)
                                                {
                                                    return; // a request's stream
                                                }
                                                EdgeLlmUeResult& u = c->ues[imsi];
                                                if (std::isnan(u.streamDelay))
                                                {
                                                    u.streamStart = start.GetSeconds();
                                                    u.streamDelay = delay.GetSeconds();
                                                    c->Settle(imsi, total);
                                                }
                                            }));
}

MultiCellResult
MultiCellScenario::Simulate(const std::string& monitorPlotStem)
{
    return Simulate(monitorPlotStem, nullptr);
}

void
MultiCellScenario::Stop()
{
    RequireDone(m_bsApps.GetN() > 0, "Stop", "call InstallApps first");
    EdgeLlmHelper::StopWhenDrained(m_bsApps, m_cfg.drainGrace);
}

const std::vector<ScenarioUe>&
MultiCellScenario::GetUes() const
{
    return m_ues;
}

Time
MultiCellScenario::GetStopTime() const
{
    RequireDone(m_ueNodes.GetN() > 0, "GetStopTime", "call BuildUes first");
    if (m_cfg.maxSimTime.IsStrictlyPositive())
    {
        return m_cfg.maxSimTime;
    }
    if (m_trace)
    {
        // The trace's end, then at most tailTime for the handovers still restoring (RunToStop
        // stops once the backhaul is drained after the end).
        return std::max(TraceInstant(m_trace->GetEnd()), m_lastRequestAt) + m_cfg.tailTime;
    }
    const double lastTau =
        m_tau.empty() ? m_handoverStart : *std::max_element(m_tau.begin(), m_tau.end());
    return std::max(Seconds(lastTau), m_lastRequestAt) + m_cfg.tailTime;
}

MultiCellResult
MultiCellScenario::Simulate(const std::string& monitorPlotStem,
                            const std::function<void(const MultiCellResult&)>& beforeDestroy)
{
    RequireDone(m_outputsConnected, "Simulate", "call ConnectOutputs first");
    RunToStop();
    MultiCellResult result;
    result.scheme = DynamicCast<EdgeLlmNode>(m_bsApps.Get(0))->GetScheduler()->GetSchemeName();
    result.simulatedSeconds = Simulator::Now().GetSeconds();
    result.handoverStart = m_handoverStart;
    CollectUes(result);
    CollectRequests(result);
    CollectTotals(result);
    CollectOutputs(result, monitorPlotStem);
    if (beforeDestroy)
    {
        beforeDestroy(result);
    }
    m_counters->stopWhenDrained = nullptr;
    m_stats = nullptr;
    m_monitor = nullptr;
    Simulator::Destroy();
    return result;
}

void
MultiCellScenario::StopWhenSettled()
{
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        if (rec.started && rec.outcome == EdgeLlmHandoverRecord::PENDING)
        {
            Simulator::Schedule(MilliSeconds(10), &MultiCellScenario::StopWhenSettled, this);
            return;
        }
    }
    m_requestApps.GetN() > 0 ? StopWhenRequestsDone() : Stop();
}

void
MultiCellScenario::RunToStop()
{
    Counters& c = *m_counters;
    // Every UE done (Counters::Settle): stop drainGrace after the backhaul has delivered
    // every KV byte sent (the scenarios' stop rule).
    if (!m_trace)
    {
        c.stopWhenDrained = [this]() {
            m_requestApps.GetN() > 0 ? StopWhenRequestsDone() : Stop();
        };
    }
    else if (!m_cfg.maxSimTime.IsStrictlyPositive())
    {
        // A trace's run lasts as long as the trace, then until every handover started is
        // final and the backhaul is drained (at most tailTime: GetStopTime).
        Simulator::Schedule(TraceInstant(m_trace->GetEnd()),
                            &MultiCellScenario::StopWhenSettled,
                            this);
    }
    const Time stopAt = GetStopTime();
    Simulator::Stop(stopAt);
    EdgeLlmRunProgress progress(
        DynamicCast<EdgeLlmNode>(m_bsApps.Get(0))->GetScheduler()->GetSchemeName(),
        stopAt,
        std::cerr);
    progress.SetStatus([&c, this]() {
        uint32_t notStarted = 0;
        for (uint64_t imsi : c.notStarted)
        {
            notStarted += c.started.count(imsi) ? 0 : 1;
        }
        return "resumed " + std::to_string(c.resumed) + " of " + std::to_string(m_ueNodes.GetN()) +
               " UEs, " + std::to_string(c.noSession.size()) + " without a session, " +
               std::to_string(notStarted) + " handovers not started, " +
               std::to_string(c.rrcFailures) + " RRC handover failures";
    });
    Simulator::Run();
}

void
MultiCellScenario::CollectUes(MultiCellResult& result)
{
    Counters& c = *m_counters;
    // Each UE's handover from its session records: the first it started that was not
    // cancelled (an RRC that aborted a handover and retried it gives the retry), else the
    // first it started.
    std::map<uint64_t, const EdgeLlmHandoverRecord*> chosen;
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        const auto u = c.ues.find(rec.sessionId);
        if (u == c.ues.end())
        {
            continue; // no UE of this scenario
        }
        u->second.lost = u->second.lost || rec.outcome == EdgeLlmHandoverRecord::LOST;
        if (!rec.started)
        {
            continue;
        }
        ++result.handovers;
        const auto [it, first] = chosen.emplace(rec.sessionId, &rec);
        if (!first && it->second->outcome == EdgeLlmHandoverRecord::CANCELLED &&
            rec.outcome != EdgeLlmHandoverRecord::CANCELLED)
        {
            it->second = &rec;
        }
    }
    for (const auto& [ueId, rec] : chosen)
    {
        EdgeLlmUeResult& r = c.ues.at(ueId);
        FillFromRecord(*rec, r);
        r.preSentTokens = rec->preSentTokens;
        r.preWastedBytes = m_stats->GetPreWastedBytes(ueId);
        result.restoredSessions += std::isnan(r.restoredDelay) ? 0 : 1;
    }
    for (uint32_t i = 0; i < m_ueApps.GetN(); ++i)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(m_ueApps.Get(i));
        EdgeLlmUeResult& r = c.ues[app->GetSessionId()];
        r.tokensMissing = app->GetTokensMissing();
        r.tokensDuplicated = app->GetTokensDuplicated();
        r.promptTime = app->GetPromptTime().GetSeconds();
        AddBoundDetails(r);
    }
    result.rrcFailures = c.rrcFailures;
    result.noSession = static_cast<uint32_t>(c.noSession.size());
    for (uint64_t imsi : c.notStarted)
    {
        result.handoversNotStarted += c.started.count(imsi) ? 0 : 1;
    }
}

void
MultiCellScenario::CollectTotals(MultiCellResult& result) const
{
    const Counters& c = *m_counters;
    const auto pairs = EdgeLlmHelper::GetConnectionPairs(m_bsApps);
    // Pre-transfers may still be sending when the run stops (the UEs' next likely
    // handovers): only the handovers' own bytes must all have arrived.
    uint64_t handoverSent = 0;
    uint64_t handoverReceived = 0;
    for (const auto& [sending, receiving] : pairs)
    {
        result.kvBytesSent += sending->GetKvBytesSent();
        result.kvBytesReceived += receiving->GetKvBytesReceived();
        handoverSent += sending->GetKvBytesSent() - sending->GetBackgroundBytesSent();
        handoverReceived +=
            receiving->GetKvBytesReceived() - receiving->GetBackgroundBytesReceived();
    }
    for (uint32_t b = 0; b < m_bsApps.GetN(); ++b)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(m_bsApps.Get(b));
        result.lostSessions += bs->GetLostSessions();
        result.idleEvictions +=
            bs->GetServingGpu() ? bs->GetServingGpu()->GetGpu().GetEvictions() : 0;
    }
    result.idleDrops = c.idleDrops;
    result.idleMoves = c.idleMoves;
    result.idleFetches = c.idleFetches;
    std::vector<double> measured;
    std::vector<double> restored;
    bool complete = true;
    for (const auto& [imsi, r] : c.ues)
    {
        result.ues.push_back(r);
        measured.push_back(r.measuredDelay);
        restored.push_back(r.restoredDelay);
        complete = complete && !std::isnan(r.restoredDelay) && !std::isnan(r.measuredDelay);
    }
    if (m_trace)
    {
        // A vehicle need not hand over, and leaves when the trace says: complete when every
        // handover started was restored.
        complete = true;
        for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
        {
            complete = complete && (!rec.started || !std::isnan(rec.restoredDelay) ||
                                    rec.outcome == EdgeLlmHandoverRecord::CANCELLED);
        }
    }
    result.complete = complete && handoverSent == handoverReceived;
    result.measured = EdgeLlmDelaySummary::OfKnown(measured);
    result.restored = EdgeLlmDelaySummary::OfKnown(restored);
    result.predictionError = EdgeLlmPredictionErrorOf(result.ues);
    // ImpactHO's accuracy over the UEs whose target counted a received share.
    double shareSum = 0;
    double accuracySum = 0;
    uint32_t withShare = 0;
    for (const auto& ue : result.ues)
    {
        if (!std::isnan(ue.receivedFraction) && !std::isnan(ue.accuracy))
        {
            shareSum += ue.receivedFraction;
            accuracySum += ue.accuracy;
            result.starved += ue.starved ? 1 : 0;
            ++withShare;
        }
    }
    result.accuracyUes = withShare;
    if (withShare > 0)
    {
        result.meanReceivedShare = shareSum / withShare;
        result.meanAccuracy = accuracySum / withShare;
    }
    result.queueDelay = EdgeLlmDelaySummary::OfKnown(c.sojourn);
    result.links = c.links;
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        result.replannedTransfers += rec.replanned ? 1 : 0;
    }
}

void
MultiCellScenario::CollectOutputs(MultiCellResult& result, const std::string& monitorPlotStem)
{
    result.handoverCsv = m_stats->GetCsv();
    result.ueDelay = m_stats->SummarizeUeDelay();
    // Over the handovers started and not cancelled (a superseded one has no restore of its
    // own), the unrestored ones counted as unknown.
    std::vector<double> restored;
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        if (rec.started && rec.outcome != EdgeLlmHandoverRecord::CANCELLED)
        {
            restored.push_back(rec.restoredDelay);
        }
    }
    result.everyRestored = EdgeLlmDelaySummary::OfKnown(restored);
    result.tracePlanMisses = m_counters->tracePlanMisses;
    result.preTransfer = m_stats->GetPreTransferTotals();
    CollectImplied(result);
    if (m_monitor)
    {
        result.monitorCsv = m_monitor->GetCsv();
        result.monitorTotalsCsv = m_monitor->GetTotalsCsv();
        if (!monitorPlotStem.empty())
        {
            std::ostringstream subtitle;
            subtitle << m_cfg.Describe() << ", load " << m_cfg.crossTrafficLoad << ", "
                     << result.scheme;
            m_monitor->SetPlotSubtitle(subtitle.str());
            m_monitor->WritePlots(monitorPlotStem); // throws std::runtime_error
        }
    }
}

void
MultiCellScenario::CollectImplied(MultiCellResult& result) const
{
    if (!m_trace)
    {
        return;
    }
    result.fromTrace = true;
    // By IMSI: each UE's implied changes as (instant, target cell).
    std::map<uint64_t, std::vector<std::pair<double, uint16_t>>> implied;
    std::map<uint64_t, uint32_t> vehicle; // IMSI -> the trace's node number
    NetDeviceContainer bs = m_ran->GetBsDevices();
    for (uint32_t i = 0; i < m_implied.size(); ++i)
    {
        const uint64_t imsi = m_ran->GetImsi(m_ran->GetUeDevices().Get(i));
        vehicle[imsi] = i;
        auto& list = implied[imsi];
        for (const MobilityTrace::CellChange& c : m_implied[i])
        {
            list.emplace_back(c.at, m_ran->GetCellId(bs.Get(c.to)));
        }
        result.impliedHandovers += static_cast<uint32_t>(m_implied[i].size());
    }
    std::vector<double> offsets;
    for (const EdgeLlmHandoverRecord& rec : m_stats->GetRecords())
    {
        const auto it = implied.find(rec.sessionId);
        if (!rec.started || it == implied.end())
        {
            continue;
        }
        const uint32_t v = vehicle.at(rec.sessionId);
        const Vector at = m_trace->GetPosition(v, rec.handoverTime);
        result.tracePoints.push_back(
            {v, rec.handoverTime, at.x, at.y, rec.restoredDelay, rec.ueDelay});
        double best = std::numeric_limits<double>::infinity();
        for (const auto& [at, cell] : it->second)
        {
            if (cell == rec.targetCellId && std::abs(rec.handoverTime - at) < std::abs(best))
            {
                best = rec.handoverTime - at;
            }
        }
        if (std::isinf(best))
        {
            ++result.unimpliedHandovers;
            continue;
        }
        offsets.push_back(best);
    }
    result.impliedOffset = EdgeLlmDelaySummary::OfKnown(offsets);
}

void
MultiCellScenario::FillFromRecord(const EdgeLlmHandoverRecord& rec, EdgeLlmUeResult& r)
{
    r.sourceCellId = rec.sourceCellId;
    r.targetCellId = rec.targetCellId;
    r.handoverTime = rec.handoverTime;
    r.contextTokens = rec.contextTokens;
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
        // Every KV byte arrived (KvTransferReceived; after a TransferTimeout the record's
        // kept bytes are not counted here).
        r.kvBytesReceived = rec.kvBytesReceived;
        r.transferDone = rec.transferDoneAt.GetSeconds();
    }
    else if (!std::isnan(rec.receivedFraction) || rec.replanned)
    {
        // ImpactHO, cut at the window: its share; replanned: the whole tokens it kept.
        r.kvBytesReceived = rec.kvBytesReceived;
    }
    r.replanned = rec.replanned;
    r.reprefillTokens = rec.reprefillTokens;
    r.receivedFraction = rec.receivedFraction;
    if (rec.restoredAt != Time::Max())
    {
        r.restoredDelay = rec.restoredDelay;
        r.restoredAt = rec.restoredAt.GetSeconds();
        r.bound = rec.bound;
        r.batchStart = rec.batchStart;
    }
    r.stall = rec.ueStall;
    r.measuredDelay = rec.ueDelay;
}

void
MultiCellScenario::AddBoundDetails(EdgeLlmUeResult& r) const
{
    if (std::isnan(r.restoredDelay))
    {
        return;
    }
    const std::optional<AccuracyUtility> utility = UtilityAt(r.targetCellId, r.contextTokens);
    if (utility && !std::isnan(r.receivedFraction))
    {
        // ImpactHO: the accuracy on the share received; starved: below the anchor tau.
        r.accuracy = utility->Value(r.receivedFraction);
        r.starved = r.receivedFraction < utility->inflection;
    }
}

std::optional<AccuracyUtility>
MultiCellScenario::UtilityAt(uint16_t targetCell, uint64_t contextTokens) const
{
    for (uint32_t b = 0; b < m_bsApps.GetN(); ++b)
    {
        Ptr<EdgeLlmNode> target = DynamicCast<EdgeLlmNode>(m_bsApps.Get(b));
        if (target->GetCellId() != targetCell)
        {
            continue;
        }
        BooleanValue importanceOrder;
        DoubleValue accuracyLoss;
        StringValue calibration;
        target->GetSourceRole()->GetAttribute("ImportanceOrder", importanceOrder);
        target->GetSourceRole()->GetAttribute("KvAccuracyLoss", accuracyLoss);
        target->GetSourceRole()->GetAttribute("UtilityCalibration", calibration);
        return AccuracyUtility::Preset(contextTokens,
                                       importanceOrder.Get(),
                                       accuracyLoss.Get(),
                                       calibration.Get() == "Joint" ? AccuracyUtility::JOINT
                                                                    : AccuracyUtility::HEADLINE);
    }
    return std::nullopt;
}

std::string
MultiCellResult::DescribeTraceHandovers() const
{
    if (!fromTrace)
    {
        return "";
    }
    // "mean 0.0424 s, worst 0.0619 s" (a unit's scale and decimals), "n/a" without a sample.
    auto meanWorst =
        [](const EdgeLlmDelaySummary& d, double scale, int decimals, const char* unit) {
            if (d.count == 0)
            {
                return std::string("n/a");
            }
            std::ostringstream os;
            os << std::fixed << std::setprecision(decimals) << "mean " << scale * d.mean << " "
               << unit << ", worst " << scale * d.worst << " " << unit;
            return os.str();
        };
    std::ostringstream os;
    os << "every handover: " << handovers << " started (" << impliedHandovers
       << " implied by the trace"
       << (tracePlanMisses > 0 ? ", " + std::to_string(tracePlanMisses) + " not as announced"
                               : std::string())
       << (impliedOffset.count < impliedHandovers
               ? ", " + std::to_string(impliedHandovers - impliedOffset.count) +
                     " implied never started"
               : std::string())
       << "), " << everyRestored.count << " restored"
       << (everyRestored.unknown > 0 ? " (" + std::to_string(everyRestored.unknown) + " not)"
                                     : std::string())
       << ", " << meanWorst(everyRestored, 1, 4, "s") << "; at the UE "
       << meanWorst(ueDelay, 1, 4, "s")
       << (ueDelay.unknown > 0 ? " (measured at the UE in " + std::to_string(ueDelay.count) +
                                     " of " + std::to_string(ueDelay.count + ueDelay.unknown) + ")"
                               : std::string())
       << "; RRC start - implied instant: " << meanWorst(impliedOffset, 1e3, 2, "ms") << " over "
       << impliedOffset.count << " (" << unimpliedHandovers << " not implied)";
    return os.str();
}

MultiCellResult
MultiCellScenario::Run(const MultiCellConfig& config,
                       const std::string& schedulerType,
                       const std::string& monitorPlotStem)
{
    RequireTypeId("schedulerType", schedulerType, "ns3::HandoverScheduler");
    MultiCellScenario s(config);
    s.BuildSites();
    s.BuildUes();
    s.BuildRan();
    s.BuildBackhaul();
    s.InstallApps(schedulerType); // a bad node configuration: destroyed, rethrown
    s.ScheduleHandovers();
    s.ConnectOutputs();
    return s.Simulate(monitorPlotStem);
}

Ptr<EdgeLlmSessionStats>
MultiCellScenario::GetSessionStats() const
{
    return m_stats;
}

Ptr<BackhaulMonitor>
MultiCellScenario::GetBackhaulMonitor() const
{
    return m_monitor;
}

NodeContainer
MultiCellScenario::GetBsNodes() const
{
    return m_bsNodes;
}

NodeContainer
MultiCellScenario::GetUeNodes() const
{
    return m_ueNodes;
}

Ptr<EdgeLlmRan>
MultiCellScenario::GetRan() const
{
    return m_ran;
}

ApplicationContainer
MultiCellScenario::GetBsApps() const
{
    return m_bsApps;
}

ApplicationContainer
MultiCellScenario::GetUeApps() const
{
    return m_ueApps;
}

uint32_t
MultiCellScenario::GetHomeSite(uint32_t ueIndex) const
{
    NS_ABORT_MSG_UNLESS(ueIndex < m_home.size(),
                        "MultiCellScenario::GetHomeSite: UE " << ueIndex << " of "
                                                              << m_home.size());
    return m_home[ueIndex];
}

} // namespace ns3
