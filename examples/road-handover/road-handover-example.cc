/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "road-handover-example.h"

#include "../common/program-options.h"
#include "../common/table-cell.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/multi-cell-scenario.h"
#include "../studies/road-handover-scenario.h"

#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// The words of the program's help that name the RAT's parts.
struct RatTexts
{
    const char* usage;             //!< CommandLine::Usage
    const char* bsDistance;        //!< --bsDistance help
    const char* handoverAlgorithm; //!< --handoverAlgorithm help
    const char* pcap;              //!< --pcap help
};

const RatTexts&
TextsFor(const std::string& ran)
{
    static const RatTexts lte{
        "Packet-level edge-LLM handover on the ctHO paper's road (LTE, X2 backhaul).",
        "D_bs, distance between the eNBs, m",
        "'' (handovers at the boundary, announced: ctHO) or an LTE algorithm, e.g. "
        "ns3::A3RsrpHandoverAlgorithm, ns3::A2A4RsrqHandoverAlgorithm (online ctHO)",
        "Write pcap of the eNBs' point-to-point links (X2, S1-U) to "
        "<outputDir>/<scheme>-<node>-<device>.pcap (decode: tools/edge-llm-kv.lua)"};
    static const RatTexts nr{
        "Packet-level edge-LLM handover on the ctHO paper's road (5G-LENA NR, Xn backhaul "
        "on nr's X2 links).",
        "D_bs, distance between the gNBs, m",
        "'' (handovers at the boundary, announced: ctHO) or an NR algorithm, e.g. "
        "ns3::NrA3RsrpHandoverAlgorithm, ns3::NrA2A4RsrqHandoverAlgorithm (online ctHO; "
        "the LTE names are mapped to these)",
        "Write pcap of the gNBs' point-to-point links (Xn/X2, S1-U) to "
        "<outputDir>/<scheme>-<node>-<device>.pcap (decode: tools/edge-llm-kv.lua)"};
    return ran == "nr" ? nr : lte;
}

/// "path/edge-llm-lte-handover.cc" -> "edge-llm-lte-handover", as CommandLine names it.
std::string
ProgramName(const std::string& programFile)
{
    return std::filesystem::path(programFile).stem().string();
}

/// \return the banner's and the plot title's UEs: "K UEs" or the trace's vehicles
std::string
UesText(const RoadHandoverConfig& cfg)
{
    return cfg.mobilityTrace.empty() ? std::to_string(cfg.road.numUes) + " UEs"
                                     : "the vehicles of " + cfg.mobilityTrace + " (one UE each)";
}

/// \return the banner's and the plot title's contexts: "contexts Unif[a, b]" at the handover,
///         or with a mobility trace the prompts' "prompts Unif[a, b]"
std::string
ContextsText(const RoadHandoverConfig& cfg)
{
    return (cfg.mobilityTrace.empty() ? "contexts Unif[" : "prompts Unif[") +
           std::to_string(cfg.road.contextMin) + ", " + std::to_string(cfg.road.contextMax) + "]";
}

/// An attribute's value as its checker writes it (an enum's name, e.g. "Tcp").
std::string
AttributeText(Ptr<Object> object, const std::string& attribute)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(object->GetInstanceTypeId().LookupAttributeByName(attribute, &info),
                        "no attribute " << attribute);
    Ptr<AttributeValue> value = info.checker->Create();
    object->GetAttribute(attribute, *value);
    return value->SerializeToString(info.checker);
}

/// \return whether the road offers \p scheme: every scheme with a scheduler but a
///         target-coordinated one (the road has one source: nothing to coordinate)
bool
OnTheRoad(const HandoverScheme& scheme)
{
    return scheme.HasScheduler() && !scheme.targetCoordinated;
}

/// The program's options as parsed and checked (ParseOptions).
struct RoadOptions
{
    RoadHandoverConfig cfg;              //!< The scenario (pcapPrefix set per scheme)
    std::vector<HandoverScheme> schemes; //!< In the order given (HandoverSchemeRegistry)
    std::string outputDir;               //!< Where handover-delays.{csv,png} go
    bool pcap{false};                    //!< Write pcap of the BSs' point-to-point links
};

/// The options in the units a user types them, before they become RoadHandoverConfig's.
struct RawOptions
{
    std::string schemes{"ctho,tho,cho"}; //!< --schemes
    double backhaulDelayUs{0};           //!< --backhaulDelayUs
    double batchPeriodMs{0};             //!< --batchPeriodMs
    uint32_t backhaulMtu{0};             //!< --backhaulMtu
    double lookaheadMs{0};               //!< --lookaheadMs
    TraceOptions trace;                  //!< --mobilityTrace, --mobilityActivity, --traceMinDwellMs
};

/**
 * \brief Register every option of the program, each bound to its knob.
 * \param options the program's options
 * \param text the RAT's help words
 * \param o the options' destinations (RoadHandoverConfig's knobs in its own units)
 * \param raw the options whose units differ from the config's
 */
void
AddOptions(ProgramOptions& options, const RatTexts& text, RoadOptions& o, RawOptions& raw)
{
    RoadHandoverConfig& cfg = o.cfg;
    options.AddValue("schemes",
                     "Comma-separated: " + HandoverSchemeRegistry::Describe(OnTheRoad),
                     raw.schemes);
    options.AddRangedValue("numUes",
                           "K, UEs handing over",
                           cfg.road.numUes,
                           MultiCellConfig::UesPerSiteRange());
    options.AddValue("bsDistance", text.bsDistance, cfg.bsDistance);
    options.AddValue("boundary", "x_b, handover boundary, m", cfg.road.boundary);
    options.AddValue("startMin", "UE start position, lower bound, m", cfg.road.startMin);
    options.AddValue("startMax", "UE start position, upper bound, m", cfg.road.startMax);
    options.AddValue("speed", "UE speed, m/s", cfg.road.speed);
    options.AddRangedValue("contextMin",
                           "Context at the handover, lower bound (with --mobilityTrace: the "
                           "prompt's), tokens",
                           cfg.road.contextMin,
                           edgellm::ContextTokensRange());
    options.AddRangedValue("contextMax",
                           "Context at the handover, upper bound (C_max; with --mobilityTrace: "
                           "the prompt's), tokens",
                           cfg.road.contextMax,
                           edgellm::ContextTokensRange());
    options.AddValue("allowBeyondContextWindow",
                     "Accept a C_max beyond the model's context window (said on the output)",
                     cfg.allowBeyondContextWindow);
    options.AddValue("model", "LLM preset", cfg.model);
    options.AddRangedValue("kvBits",
                           "KV precision q: 16, 8 or 4",
                           cfg.kvBits,
                           LlmModelProfile::KvBitsRange());
    options.AddRangedValue("backhaulGbps",
                           "X2 backhaul rate, Gbit/s",
                           cfg.backhaulGbps,
                           edgellm::BackhaulGbpsRange());
    options.AddValue("backhaulDelayUs", "X2 backhaul delay, us", raw.backhaulDelayUs);
    options.AddRangedValue("backhaulMtu",
                           "X2 backhaul MTU, bytes",
                           raw.backhaulMtu,
                           edgellm::BackhaulMtuRange());
    options.AddValue("prefillA", "Prefill slope a, s/token", cfg.prefillA);
    options.AddValue("prefillB", "Prefill constant b, s", cfg.prefillB);
    options.AddValue("prefillC", "Prefill quadratic c, s/token^2", cfg.prefillC);
    options.AddValue("batchPeriodMs", "Batching period T_c, ms", raw.batchPeriodMs);
    options.AddValue("decodeRate", "Decoded tokens/s per session", cfg.decodeRate);
    options.AddValue("servingGpu",
                     "A GPU that serves many users on every BS: a GpuIterationModel preset "
                     "(ctho-a100, impactho-qwen3-8b-a100; continuous batching, decodeRate and "
                     "the prefill model unused); \"\": one session at a time (the papers')",
                     cfg.servingGpu);
    options.AddRangedValue("tokensAfterHandover",
                           "Tokens each session decodes after its handover",
                           cfg.tokensAfterHandover,
                           edgellm::ContextTokensRange());
    options.AddValue("handoverAlgorithm", text.handoverAlgorithm, cfg.handoverAlgorithm);
    options.AddValue("lookaheadMs",
                     "Online: scheduler look-ahead for predicted arrivals, ms",
                     raw.lookaheadMs);
    options.AddValue("predictArrivals",
                     "Online: predict arrivals from UE positions and speeds",
                     cfg.predictArrivals);
    options.AddValue("predictedHandoverX",
                     "Online: where the predictor expects handovers, m (default: the boundary)",
                     cfg.predictedHandoverX);
    options.AddValue("raPreambles",
                     "Contention RA preambles per cell (ns3::LteEnbMac, NR: ns3::NrGnbMac "
                     "NumberOfRaPreambles; 64 - it are dedicated to handovers); 0: chosen from "
                     "numUes",
                     cfg.raPreambles);
    options.AddValue("preambleTransMax",
                     "RA attempts (ns3::LteEnbMac, NR: ns3::NrGnbMac PreambleTransMax); 0: "
                     "chosen from numUes",
                     cfg.preambleTransMax);
    options.AddValue("srsPeriodicity",
                     "LTE: SRS periodicity = SRS slots per cell, ms (ns3::LteEnbRrc::"
                     "SrsPeriodicity); 0: chosen from numUes",
                     cfg.srsPeriodicity);
    options.AddValue("amcModel",
                     "LTE: CQI model (ns3::LteAmc::AmcModel): MiErrorModel or PiroEW2010 "
                     "(cheaper per UE); empty: ns-3's default (MiErrorModel)",
                     cfg.amcModel);
    options.AddValue("warmupOnGpu",
                     "Warm-up: prefill the prompts one after another on the source's GPU "
                     "(road time 0 grows with numUes) instead of taking them as prefilled",
                     cfg.warmupOnGpu);
    raw.trace.Add(options, {"numUes", "startMin", "startMax", "speed", "boundary", "warmupOnGpu"});
    options.AddValue("outputDir", "Where handover-delays.csv goes", o.outputDir);
    options.AddValue("pcap", text.pcap, o.pcap);
}

/**
 * \brief Check the options whose units differ from the config's, and the online options'
 *        combination, and move them into the config.
 * \param raw the options as typed
 * \param cfg the config, completed
 * \return false (after printing the error) if one is out of its range
 */
bool
CheckRawOptions(const RawOptions& raw, RoadHandoverConfig& cfg)
{
    // ns-3's Time is an int64 of ns: check before converting, so 1e300 cannot wrap.
    if (!CheckTimeOptions(raw.backhaulDelayUs, raw.batchPeriodMs, std::cerr))
    {
        return false;
    }
    cfg.backhaulDelay = MicroSeconds(raw.backhaulDelayUs);
    cfg.batchPeriod = MicroSeconds(raw.batchPeriodMs * 1000);
    if (!(raw.lookaheadMs >= 0 && raw.lookaheadMs <= 3.6e6))
    {
        std::cerr << "error: --lookaheadMs must be in [0, 3.6e6] ms, got "
                  << edgellm::FormatValue(raw.lookaheadMs) << std::endl;
        return false;
    }
    cfg.lookahead = MicroSeconds(raw.lookaheadMs * 1000);
    // The online options act only on handovers an LTE algorithm makes: given without one,
    // they would be ignored without a word.
    if (cfg.handoverAlgorithm.empty() &&
        (raw.lookaheadMs != 0 || cfg.predictArrivals || !std::isnan(cfg.predictedHandoverX)))
    {
        std::cerr << "error: --lookaheadMs, --predictArrivals and --predictedHandoverX act "
                     "only on online handovers: give --handoverAlgorithm too"
                  << std::endl;
        return false;
    }
    if (!std::isnan(cfg.predictedHandoverX) &&
        (!cfg.predictArrivals ||
         !(cfg.predictedHandoverX > 0 && cfg.predictedHandoverX < cfg.bsDistance)))
    {
        std::cerr << "error: --predictedHandoverX: needs --predictArrivals=true and must be in "
                     "(0, bsDistance) = (0, "
                  << cfg.bsDistance << ") m, got " << cfg.predictedHandoverX << std::endl;
        return false;
    }
    try
    {
        edgellm::CheckBackhaulMtu("--backhaulMtu", raw.backhaulMtu);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return false;
    }
    cfg.backhaulMtu = static_cast<uint16_t>(raw.backhaulMtu);
    return true;
}

/**
 * \brief The types of this module the road never builds with \p cfg: the engine's choice
 *        (MultiCellScenario::GetTypesUnused; the road's backhaul is always the RAN's X2
 *        link) and, once they are known, the schemes' (HandoverSchemeRegistry::TypesUnused).
 * \param cfg the road's config
 * \param schemes the schemes run (null: not parsed yet, every scheduler counts as used)
 * \return TypeId name -> why
 */
TypesUnused
RoadTypesUnused(const RoadHandoverConfig& cfg, const std::vector<HandoverScheme>* schemes)
{
    TypesUnused unused = MultiCellScenario::GetTypesUnused(cfg.GetEngineConfig());
    for (const char* type :
         {"ns3::EdgeLlmBackhaul", "ns3::EdgeLlmBackhaulRouting", "ns3::CrossTrafficMeter"})
    {
        if (const auto it = unused.find(type); it != unused.end())
        {
            it->second = "the road's backhaul is the RAN's own X2 link; use "
                         "edge-llm-backhaul-study (--backhaul) for EdgeLlmBackhaul";
        }
    }
    if (schemes)
    {
        unused.merge(HandoverSchemeRegistry::TypesUnused(*schemes));
    }
    return unused;
}

/**
 * \brief Parse and check the command line (exit status 2 on bad input, with one line naming
 *        the option and its valid range), the output directory included.
 * \param argc the command line's argument count
 * \param argv the command line
 * \param programFile the example's source file (CommandLine's program name)
 * \param ran "lte" or "nr"
 * \param o the options, filled
 * \return 0 to run, 2 (after printing the error) to exit with it
 */
int
ParseOptions(int argc,
             char* argv[],
             const std::string& programFile,
             const std::string& ran,
             RoadOptions& o)
{
    const RatTexts& text = TextsFor(ran);
    o.cfg.ran = ran;
    o.outputDir = "results/" + ProgramName(programFile);
    RawOptions raw;
    raw.backhaulDelayUs = o.cfg.backhaulDelay.GetMicroSeconds();
    raw.batchPeriodMs = o.cfg.batchPeriod.GetMilliSeconds();
    raw.backhaulMtu = o.cfg.backhaulMtu;

    CommandLine cmd(programFile);
    ProgramOptions options(cmd);
    cmd.Usage(text.usage);
    AddOptions(options, text, o, raw);
    // Attribute defaults and global values first: a bad one, or one this program would
    // overwrite, is refused naming it and its valid range (exit 2).
    std::map<std::string, std::string> attributesSet =
        MultiCellScenario::GetAttributesSet(ProgramKnobOptions(ScenarioProgram::ROAD));
    attributesSet.merge(HandoverSchemeRegistry::AttributesSet(OnTheRoad));
    if (!options.Check(argc, argv, std::cerr) ||
        !CheckAttributeArguments(argc,
                                 argv,
                                 attributesSet,
                                 std::cerr,
                                 RoadTypesUnused(o.cfg, nullptr)))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    if (!CheckRawOptions(raw, o.cfg) || !raw.trace.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    o.cfg.mobilityTrace = raw.trace.trace;
    o.cfg.mobilityActivity = raw.trace.activity;
    o.cfg.traceMinDwell = raw.trace.MinDwell();
    try
    {
        o.schemes = HandoverSchemeRegistry::ParseList(raw.schemes, OnTheRoad);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: --schemes: " << e.what() << std::endl;
        return 2;
    }
    if (!CheckPacketPreTransfer(o.schemes, o.cfg.handoverAlgorithm.empty(), std::cerr))
    {
        return 2;
    }
    try
    {
        o.cfg.Validate();
        EdgeLlmHelper::CheckNodeDefaults(o.cfg.model, o.cfg.kvBits);
        // Check the output directory before simulating, so a bad one costs nothing.
        CheckOutputDirectory("--outputDir", o.outputDir);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::ROAD) << std::endl;
        return 2;
    }
    // Now that the schemes are known: an attribute of a scheduler none of them builds.
    if (!CheckAttributeArguments(argc,
                                 argv,
                                 attributesSet,
                                 std::cerr,
                                 RoadTypesUnused(o.cfg, &o.schemes)))
    {
        return 2;
    }
    const std::string note = LlmModelProfile::FromPreset(o.cfg.model, o.cfg.kvBits)
                                 .BeyondContextNote(o.cfg.road.contextMax);
    if (!note.empty())
    {
        std::cout << note << std::endl;
    }
    return 0;
}

/// The protocol options, which come as ns-3 attribute defaults (--ns3::EdgeLlmNode::...).
struct Protocol
{
    std::string transport; //!< "Tcp" or "Udp"
    bool layerwise{false}; //!< LayerwiseStreaming
};

/// \return the protocol options read back from a node made with the attribute defaults
Protocol
ReadProtocol()
{
    Ptr<EdgeLlmNode> defaults = CreateObject<EdgeLlmNode>();
    BooleanValue layerwise;
    defaults->GetSourceRole()->GetAttribute("LayerwiseStreaming", layerwise);
    return {AttributeText(defaults->GetBackhaulTransport(), "Transport"), layerwise.Get()};
}

/**
 * \brief Print one run's totals line and its planned batches (every batch's L).
 * \param scheme the scheme
 * \param r the run's result
 */
void
PrintRunTotals(const HandoverScheme& scheme, const RoadHandoverResult& r)
{
    const std::string& name = scheme.name;
    std::cout << "\n"
              << name << ": KV bytes sent " << r.kvBytesSent << ", received " << r.kvBytesReceived
              << (r.kvBytesSent > r.kvBytesReceived
                      ? " (" + std::to_string(r.kvBytesSent - r.kvBytesReceived) +
                            " still in flight when the run stopped)"
                      : std::string())
              << (r.timedOut > 0
                      ? ", " + std::to_string(r.timedOut) + " transfer(s) timed out into re-prefill"
                      : std::string())
              << ", warm-up " << r.warmup << " s (handover times are simulation times)"
              << ", simulated " << r.simulatedSeconds << " s"
              << (r.handoverFailures > 0
                      ? ", handovers aborted by the RRC " + std::to_string(r.handoverFailures) +
                            " (served again by the source)"
                      : std::string())
              << (r.latePrompts > 0 ? ", prompts sent late (attach after the prompt time) " +
                                          std::to_string(r.latePrompts)
                                    : std::string())
              << (r.lostSessions > 0 ? ", sessions lost " + std::to_string(r.lostSessions) +
                                           "  [LOST: see the SessionLost trace]"
                                     : std::string())
              << (r.complete ? "" : "  [INCOMPLETE: some UE never resumed]") << "\n";
    if (const std::string trace = r.DescribeTraceHandovers(); !trace.empty())
    {
        std::cout << "  " << trace << "\n"; // a UE's first handover in the table below
    }
    // Every batch's prefill length L (online handovers make several batches).
    if (r.batches.empty())
    {
        std::cout << "  batches: none ("
                  << (scheme.slotPolicy
                          ? name + " plans no prefill/transfer split: the cache goes over "
                                   "the backhaul in importance order, slot by slot"
                          : std::string("no handover was planned"))
                  << ")\n";
    }
    if (scheme.wrapsInner)
    {
        // Proactive pre-transfer: what was sent ahead, used and wasted (the table's prefill
        // and transfer columns are the split of the rest).
        std::cout << "  pre-transfer: " << r.preTransfer.Describe() << "\n";
    }
    for (const auto& batch : r.batches)
    {
        std::cout << "  batch planned at " << std::fixed << std::setprecision(4) << batch.plannedAt
                  << " s: L = " << batch.prefillLength << " tokens, UEs";
        for (uint64_t ue : batch.ues)
        {
            std::cout << " " << ue;
        }
        std::cout << "\n";
    }
}

/**
 * \brief Print one run's per-UE table (delays and what bounded each).
 * \param r the run's result
 * \param ahead add the tokens a pre-transfer put at the target (pre-ctho)
 */
void
PrintUeTable(const RoadHandoverResult& r, bool ahead)
{
    std::cout << "  ue  handover_s  context" << (ahead ? "    ahead" : "")
              << "  prefill  transfer  predicted_s  restored_s  "
                 "stall_s  measured_s  bound\n";
    for (const auto& ue : r.ues)
    {
        std::ostringstream bound;
        bound << ue.bound;
        if (ue.bound == "prefill" && !std::isnan(ue.batchStart))
        {
            bound << " (batch from " << std::fixed << std::setprecision(4) << ue.batchStart
                  << " s)";
        }
        else if (!std::isnan(ue.receivedFraction))
        {
            bound << " (" << std::fixed << std::setprecision(1) << 100 * ue.receivedFraction
                  << " % of the cache, accuracy " << std::setprecision(4) << ue.accuracy << ")";
        }
        std::cout << "  " << std::setw(2) << ue.ueId << "  " << TableCell(ue.handoverTime, 10)
                  << "  " << std::setw(7) << ue.contextTokens;
        if (ahead)
        {
            std::cout << "  " << std::setw(7) << ue.preSentTokens;
        }
        std::cout << "  " << std::setw(7) << ue.prefillTokens << "  " << std::setw(8)
                  << ue.transferTokens << "  " << TableCell(ue.predictedDelay, 11) << "  "
                  << TableCell(ue.restoredDelay, 10) << "  " << TableCell(ue.stall, 7) << "  "
                  << TableCell(ue.measuredDelay, 10) << "  " << bound.str() << "\n";
    }
}

/**
 * \param r a run's result
 * \return "" if every UE that handed over measured its delay at the UE, else " over the N
 *         of M UEs that handed over measured at the UE" (a trace's worst cases are over those)
 */
std::string
MeasuredOver(const RoadHandoverResult& r)
{
    uint32_t handedOver = 0;
    uint32_t measured = 0;
    for (const EdgeLlmUeResult& u : r.ues)
    {
        handedOver += std::isnan(u.handoverTime) ? 0 : 1;
        measured += std::isnan(u.handoverTime) || std::isnan(u.measuredDelay) ? 0 : 1;
    }
    return measured == handedOver
               ? std::string()
               : " over the " + std::to_string(measured) + " of " + std::to_string(handedOver) +
                     " UEs that handed over measured at the UE";
}

/**
 * \brief Print one run's worst-user delays: planned vs measured, and the flow level on the
 *        same handovers.
 * \param scheme the scheme
 * \param r the run's result
 */
void
PrintWorstUser(const HandoverScheme& scheme, const RoadHandoverResult& r)
{
    const std::string& name = scheme.name;
    std::cout << std::fixed << std::setprecision(4);
    const std::string measuredOver = MeasuredOver(r);
    if (std::none_of(r.ues.begin(), r.ues.end(), [](const EdgeLlmUeResult& u) {
            return !std::isnan(u.handoverTime);
        }))
    {
        std::cout << "  worst-user delay: n/a (no UE handed over)\n";
    }
    else if (std::isnan(r.predictedWorst))
    {
        std::cout << "  worst-user delay: measured " << TableCell(r.measuredWorst, 0) << " s"
                  << measuredOver << " (" << name << " has no planned delay to compare)\n";
    }
    else
    {
        std::cout << "  worst-user delay: predicted " << r.predictedWorst << " s, measured "
                  << TableCell(r.measuredWorst, 0) << " s" << measuredOver << " (" << std::showpos
                  << 100.0 * (r.measuredWorst - r.predictedWorst) / r.predictedWorst
                  << std::noshowpos << " %)";
        // The plan covers the BS side only; at a small delay the UE side's own share
        // (radio handover, token cadence) dominates the relative gap: say which.
        if (!std::isnan(r.restoredWorst) && !std::isnan(r.measuredWorst) &&
            r.measuredWorst > 1.25 * r.predictedWorst)
        {
            std::cout << "; restored at the target " << r.restoredWorst << " s (" << std::showpos
                      << 100.0 * (r.restoredWorst - r.predictedWorst) / r.predictedWorst
                      << std::noshowpos << " %): the UE side adds "
                      << r.measuredWorst - r.restoredWorst
                      << " s of radio handover and token delivery that the plan leaves out";
        }
        std::cout << "\n  " << r.predictionError.Describe() << "\n";
    }
    if (std::isnan(r.clairvoyantWorst))
    {
        std::cout << "  flow level: n/a on a mobility trace (handovers both ways, several per "
                     "UE)\n";
        std::cout.unsetf(std::ios::fixed);
        return;
    }
    std::cout << "  flow level on these handovers: this policy"
              << (scheme.wrapsInner ? " (without pre-transfer) " : " ")
              << (std::isnan(r.fluidWorst) ? std::string("n/a (no flow-level model)")
                                           : TableCell(r.fluidWorst, 0) + " s")
              << ", one-batch clairvoyant ctHO (every time known, one L) " << r.clairvoyantWorst
              << " s; packet-level restore " << r.restoredWorst
              << " s = " << r.restoredWorst / r.clairvoyantWorst << " x one-batch"
              << (r.fluidWorst < r.clairvoyantWorst
                      ? " (several batches beat one batch when handovers spread)"
                      : "")
              << "\n";
    std::cout.unsetf(std::ios::fixed);
}

/**
 * \brief Print the closing line: the schemes side by side, worst and mean measured delay.
 * \param o the options (the schemes' names, the number of UEs)
 * \param results the runs' results, in the schemes' order
 */
void
PrintComparison(const RoadOptions& o, const std::vector<RoadHandoverResult>& results)
{
    const bool trace = !o.cfg.mobilityTrace.empty();
    std::cout << "\nschemes by measured (UE-side) delay, worst / mean over "
              << (trace ? std::string("every handover")
                        : std::to_string(o.cfg.road.numUes) + " UEs")
              << ":" << std::fixed << std::setprecision(4);
    for (std::size_t i = 0; i < results.size(); ++i)
    {
        const RoadHandoverResult& r = results[i];
        // The road's draw: over its UEs (a missing delay makes the mean unknown); a trace:
        // the engine's summary over every handover.
        double mean = r.ueDelay.mean;
        if (!trace)
        {
            double sum = 0;
            for (const auto& ue : r.ues)
            {
                sum += ue.measuredDelay;
            }
            mean = sum / static_cast<double>(r.ues.size());
        }
        const double worst = trace ? r.ueDelay.worst : r.measuredWorst;
        std::cout << "  " << o.schemes[i].name << " " << TableCell(worst, 0) << " / "
                  << TableCell(mean, 0) << " s";
    }
    std::cout << std::endl;
    std::cout.unsetf(std::ios::fixed);
}

/// The program's files: handover-delays.csv (every column of the printed table) and the
/// per-UE delays per scheme plotted beside it, one run at a time.
class RoadTables
{
  public:
    /**
     * \brief The CSV's header.
     * \param protocol the protocol options (every row's transport and layerwise columns)
     * \param preTransfer a pre-transfer scheme runs: two more columns, the tokens sent
     *        ahead and used, and the bytes sent ahead and wasted
     */
    RoadTables(Protocol protocol, bool preTransfer)
        : m_protocol(std::move(protocol)),
          m_preTransfer(preTransfer)
    {
        m_csv << "scheme,ue_id,handover_s,context_tokens,prefill_tokens,transfer_tokens,"
                 "predicted_delay_s,restored_s,stall_s,measured_delay_s,tokens_missing,bound,"
                 "batch_start_s,"
                 "received_fraction,accuracy,transport,layerwise"
              << (preTransfer ? ",pre_sent_tokens,pre_wasted_bytes" : "") << "\n";
        m_csv << std::setprecision(9);
    }

    /**
     * \brief Add one run's rows and plot points. A value that does not apply (predicted for
     *        ImpactHO, batch start for a transfer-bound UE, ...) is an empty field.
     * \param name the scheme
     * \param r the run's result
     */
    void Add(const std::string& name, const RoadHandoverResult& r)
    {
        for (const auto& ue : r.ues)
        {
            m_csv << name << "," << ue.ueId << "," << EdgeLlmCsvField(ue.handoverTime) << ","
                  << ue.contextTokens << "," << ue.prefillTokens << "," << ue.transferTokens << ","
                  << EdgeLlmCsvField(ue.predictedDelay) << "," << EdgeLlmCsvField(ue.restoredDelay)
                  << "," << EdgeLlmCsvField(ue.stall) << "," << EdgeLlmCsvField(ue.measuredDelay)
                  << "," << ue.tokensMissing << "," << ue.bound << ","
                  << EdgeLlmCsvField(ue.batchStart) << "," << EdgeLlmCsvField(ue.receivedFraction)
                  << "," << EdgeLlmCsvField(ue.accuracy) << "," << m_protocol.transport << ","
                  << (m_protocol.layerwise ? 1 : 0);
            if (m_preTransfer)
            {
                m_csv << "," << ue.preSentTokens << "," << ue.preWastedBytes;
            }
            m_csv << "\n";
            m_points.push_back({static_cast<double>(ue.ueId), name, ue.measuredDelay, 0, true});
        }
    }

    /**
     * \brief Write <stem>.csv whole or not at all, and <stem>.png beside it.
     * \param name the program's name (the title's first words)
     * \param cfg the scenario (the title)
     * \param stem the files' path without extension
     * \return false (after printing why) if a file could not be written
     */
    bool Write(const std::string& name,
               const RoadHandoverConfig& cfg,
               const std::string& stem) const
    {
        const bool trace = !cfg.mobilityTrace.empty();
        double lastUe = cfg.road.numUes;
        if (trace)
        {
            lastUe = 1; // the highest IMSI plotted
            for (const FigurePoint& p : m_points)
            {
                lastUe = std::max(lastUe, p.x);
            }
        }
        std::ostringstream title;
        title << name << ": measured handover delay per UE and scheme\\n"
              << UesText(cfg) << ", " << cfg.model << " q = " << cfg.kvBits << ", backhaul "
              << cfg.backhaulGbps << " Gbit/s, transport " << m_protocol.transport
              << ", layer-wise " << (m_protocol.layerwise ? "on" : "off") << "\\n"
              << (trace ? "prompts U[" : "contexts U[") << cfg.road.contextMin << ", "
              << cfg.road.contextMax << "] tokens, ";
        if (!trace)
        {
            title << cfg.road.speed << " m/s, ";
        }
        title << "D_{bs} = " << cfg.bsDistance << " m, seed " << RngSeedManager::GetSeed()
              << " run " << RngSeedManager::GetRun();
        return WriteFigure(stem,
                           m_csv.str(),
                           title.str(),
                           "UE (IMSI)",
                           "Measured handover delay at the UE (s)",
                           m_points,
                           {"set xtics 1",
                            "set xrange [0.5:" + std::to_string(std::lround(lastUe)) + ".5]",
                            // gnuplot refuses to autoscale a plot without one defined
                            // point (a trace where no UE handed over)
                            std::any_of(m_points.begin(),
                                        m_points.end(),
                                        [](const FigurePoint& p) { return std::isfinite(p.mean); })
                                ? "set yrange [0:*]"
                                : "set yrange [0:1]"});
    }

  private:
    Protocol m_protocol;               //!< Every row's transport and layer-wise columns
    bool m_preTransfer;                //!< The two pre-transfer columns
    std::ostringstream m_csv;          //!< handover-delays.csv
    std::vector<FigurePoint> m_points; //!< handover-delays.png
};

} // namespace

int
RunRoadHandoverExample(int argc,
                       char* argv[],
                       const std::string& programFile,
                       const std::string& ran)
{
    RoadOptions o;
    if (const int status = ParseOptions(argc, argv, programFile, ran, o); status != 0)
    {
        return status;
    }
    const std::string name = ProgramName(programFile);
    RoadHandoverConfig& cfg = o.cfg;
    const Protocol protocol = ReadProtocol();
    std::cout << name << ": " << UesText(cfg) << ", " << cfg.model << " at q = " << cfg.kvBits
              << " bits, backhaul " << cfg.backhaulGbps << " Gbit/s (MTU " << cfg.backhaulMtu
              << ", transport " << protocol.transport << ", layer-wise "
              << (protocol.layerwise ? "on" : "off") << "), " << ContextsText(cfg)
              << " tokens, seed " << RngSeedManager::GetSeed() << " run "
              << RngSeedManager::GetRun() << std::endl;
    std::cout << "delays per UE: predicted_s the plan's; restored_s the target's resume minus "
                 "the handover's start; stall_s the UE's gap between its last token of the "
                 "old cell and its first of the new; measured_s that gap's excess over the "
                 "decode cadence: the delay the user feels"
              << std::endl;

    const bool anyPre =
        std::any_of(o.schemes.begin(), o.schemes.end(), [](const auto& s) { return s.wrapsInner; });
    RoadTables tables(protocol, anyPre);
    std::vector<RoadHandoverResult> results;
    for (const HandoverScheme& scheme : o.schemes)
    {
        cfg.pcapPrefix = o.pcap ? o.outputDir + "/" + scheme.name : "";
        cfg.schedulerAttributes = scheme.attributes; // set on each BS's scheduler
        try
        {
            results.push_back(RoadHandoverScenario::Run(cfg, scheme.typeId));
        }
        catch (const std::invalid_argument& e)
        {
            // Refused before simulating (an attribute that does not fit the backhaul, ...):
            // the CSV and PNG are written only after every scheme ran.
            std::cerr << "error: " << e.what() << std::endl;
            return 2;
        }
        const RoadHandoverResult& r = results.back();
        PrintRunTotals(scheme, r);
        PrintUeTable(r, scheme.wrapsInner);
        PrintWorstUser(scheme, r);
        tables.Add(scheme.name, r);
        // A mobility trace: every handover's record (a vehicle hands over several times),
        // each file whole or not at all.
        const std::string every = o.outputDir + "/handovers-" + scheme.name + ".csv";
        if (!cfg.mobilityTrace.empty() && !WriteFileAtomically(every, r.handoverCsv))
        {
            return 1;
        }
    }
    PrintComparison(o, results);

    // The CSV (whole or not at all), and beside it the per-UE delays per scheme as a PNG.
    const std::string stem = o.outputDir + "/handover-delays";
    if (!tables.Write(name, cfg, stem))
    {
        return 1;
    }
    std::cout << "\nwrote " << stem << ".csv and " << stem << ".png"
              << (cfg.mobilityTrace.empty() ? std::string()
                                            : " (each UE's first handover; every handover: " +
                                                  o.outputDir + "/handovers-<scheme>.csv)")
              << std::endl;
    return std::all_of(results.begin(),
                       results.end(),
                       [](const RoadHandoverResult& r) { return r.complete; })
               ? 0
               : 1;
}

} // namespace ns3
