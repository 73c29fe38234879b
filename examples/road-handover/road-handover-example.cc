/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "road-handover-example.h"

#include "../common/program-options.h"
#include "../common/table-cell.h"

#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-figure-writer.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-node.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/road-handover-scenario.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
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

} // namespace

int
RunRoadHandoverExample(int argc,
                       char* argv[],
                       const std::string& programFile,
                       const std::string& ran)
{
    const RatTexts& text = TextsFor(ran);
    const std::string name = ProgramName(programFile);
    RoadHandoverConfig cfg;
    cfg.ran = ran;
    std::string schemes = "ctho,tho,cho";
    std::string outputDir = "results/" + name;
    double backhaulDelayUs = cfg.backhaulDelay.GetMicroSeconds();
    double batchPeriodMs = cfg.batchPeriod.GetMilliSeconds();
    uint32_t backhaulMtu = cfg.backhaulMtu;
    double lookaheadMs = 0;

    CommandLine cmd(programFile);
    ProgramOptions options(cmd);
    cmd.Usage(text.usage);
    options.AddValue("schemes",
                     "Comma-separated: ctho, tho, cho, impactho (importance-ordered partial "
                     "transfer, 100 ms slots, 500 ms window)",
                     schemes);
    options.AddValue("numUes", "K, UEs handing over", cfg.road.numUes);
    options.AddValue("bsDistance", text.bsDistance, cfg.bsDistance);
    options.AddValue("boundary", "x_b, handover boundary, m", cfg.road.boundary);
    options.AddValue("startMin", "UE start position, lower bound, m", cfg.road.startMin);
    options.AddValue("startMax", "UE start position, upper bound, m", cfg.road.startMax);
    options.AddValue("speed", "UE speed, m/s", cfg.road.speed);
    options.AddValue("contextMin",
                     "Context at the handover, lower bound, tokens",
                     cfg.road.contextMin);
    options.AddValue("contextMax",
                     "Context at the handover, upper bound (C_max), tokens",
                     cfg.road.contextMax);
    options.AddValue("model", "LLM preset", cfg.model);
    options.AddValue("kvBits", "KV precision q: 16, 8 or 4", cfg.kvBits);
    options.AddValue("backhaulGbps", "X2 backhaul rate, Gbit/s", cfg.backhaulGbps);
    options.AddValue("backhaulDelayUs", "X2 backhaul delay, us", backhaulDelayUs);
    options.AddValue("backhaulMtu", "X2 backhaul MTU, bytes", backhaulMtu);
    options.AddValue("prefillA", "Prefill slope a, s/token", cfg.prefillA);
    options.AddValue("prefillB", "Prefill constant b, s", cfg.prefillB);
    options.AddValue("prefillC", "Prefill quadratic c, s/token^2", cfg.prefillC);
    options.AddValue("batchPeriodMs", "Batching period T_c, ms", batchPeriodMs);
    options.AddValue("decodeRate", "Decoded tokens/s per session", cfg.decodeRate);
    options.AddValue("tokensAfterHandover",
                     "Tokens each session decodes after its handover",
                     cfg.tokensAfterHandover);
    options.AddValue("handoverAlgorithm", text.handoverAlgorithm, cfg.handoverAlgorithm);
    options.AddValue("lookaheadMs",
                     "Online: scheduler look-ahead for predicted arrivals, ms",
                     lookaheadMs);
    options.AddValue("predictArrivals",
                     "Online: predict arrivals from UE positions and speeds",
                     cfg.predictArrivals);
    options.AddValue("predictedHandoverX",
                     "Online: where the predictor expects handovers, m (default: the boundary)",
                     cfg.predictedHandoverX);
    options.AddValue("raPreambles",
                     "LTE: contention RA preambles per cell (ns3::LteEnbMac::NumberOfRaPreambles; "
                     "64 - it are dedicated to handovers); 0: chosen from numUes",
                     cfg.raPreambles);
    options.AddValue("preambleTransMax",
                     "LTE: RA attempts (ns3::LteEnbMac::PreambleTransMax); 0: chosen from numUes",
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
    bool pcap = false;
    options.AddValue("outputDir", "Where handover-delays.csv goes", outputDir);
    options.AddValue("pcap", text.pcap, pcap);
    // Attribute defaults and global values first: a bad one, or one this program would
    // overwrite, is refused naming it and its valid range (exit 2).
    const std::map<std::string, std::string> attributesSet =
        RoadHandoverScenario::GetAttributesSet({{"model", "model"},
                                                {"kvBits", "kvBits"},
                                                {"decodeRate", "decodeRate"},
                                                {"prefillA", "prefillA"},
                                                {"prefillB", "prefillB"},
                                                {"prefillC", "prefillC"},
                                                {"batchPeriod", "batchPeriodMs"},
                                                {"lookahead", "lookaheadMs"},
                                                {"tokensAfterHandover", "tokensAfterHandover"},
                                                {"backhaulGbps", "backhaulGbps"},
                                                {"backhaulDelay", "backhaulDelayUs"},
                                                {"backhaulMtu", "backhaulMtu"},
                                                {"handoverAlgorithm", "handoverAlgorithm"},
                                                {"raPreambles", "raPreambles"},
                                                {"preambleTransMax", "preambleTransMax"},
                                                {"srsPeriodicity", "srsPeriodicity"},
                                                {"amcModel", "amcModel"},
                                                {"warmupOnGpu", "warmupOnGpu"}});
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    if (!CheckAttributeArguments(argc, argv, attributesSet, std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    // ns-3's Time is an int64 of ns: check before converting, so 1e300 cannot wrap.
    if (!(backhaulDelayUs >= 0 && backhaulDelayUs <= 1e6) ||
        !(batchPeriodMs >= 0 && batchPeriodMs <= 1e3))
    {
        std::cerr << "error: --backhaulDelayUs must be in [0, 1e6] us and --batchPeriodMs in "
                     "[0, 1000] ms"
                  << std::endl;
        return 2;
    }
    cfg.backhaulDelay = MicroSeconds(backhaulDelayUs);
    cfg.batchPeriod = MicroSeconds(batchPeriodMs * 1000);
    if (!(lookaheadMs >= 0 && lookaheadMs <= 3.6e6))
    {
        std::cerr << "error: --lookaheadMs: must be in [0, 3.6e6] ms" << std::endl;
        return 2;
    }
    cfg.lookahead = MicroSeconds(lookaheadMs * 1000);
    // The online options act only on handovers an LTE algorithm makes: given without one,
    // they would be ignored without a word.
    if (cfg.handoverAlgorithm.empty() &&
        (lookaheadMs != 0 || cfg.predictArrivals || !std::isnan(cfg.predictedHandoverX)))
    {
        std::cerr << "error: --lookaheadMs, --predictArrivals and --predictedHandoverX act "
                     "only on online handovers: give --handoverAlgorithm too"
                  << std::endl;
        return 2;
    }
    if (!std::isnan(cfg.predictedHandoverX) &&
        (!cfg.predictArrivals ||
         !(cfg.predictedHandoverX > 0 && cfg.predictedHandoverX < cfg.bsDistance)))
    {
        std::cerr << "error: --predictedHandoverX: needs --predictArrivals=true and must be in "
                     "(0, bsDistance) = (0, "
                  << cfg.bsDistance << ") m, got " << cfg.predictedHandoverX << std::endl;
        return 2;
    }
    if (backhaulMtu < 576 || backhaulMtu > 65535)
    {
        std::cerr << "error: --backhaulMtu: must be in [576, 65535] bytes, got " << backhaulMtu
                  << std::endl;
        return 2;
    }
    cfg.backhaulMtu = static_cast<uint16_t>(backhaulMtu);

    std::vector<std::pair<std::string, std::string>> runs;
    std::istringstream list(schemes);
    std::string s;
    while (std::getline(list, s, ','))
    {
        for (const auto& run : runs)
        {
            if (run.first == s)
            {
                std::cerr << "error: --schemes: '" << s << "' is listed twice" << std::endl;
                return 2;
            }
        }
        if (s == "ctho")
        {
            runs.emplace_back(s, "ns3::CtHoScheduler");
        }
        else if (s == "tho")
        {
            runs.emplace_back(s, "ns3::ThoScheduler");
        }
        else if (s == "cho")
        {
            runs.emplace_back(s, "ns3::ChoScheduler");
        }
        else if (s == "impactho")
        {
            runs.emplace_back(s, "ns3::ImpactHoScheduler");
        }
        else
        {
            std::cerr << "error: --schemes: unknown scheme '" << s
                      << "'; valid schemes: ctho, tho, cho, impactho" << std::endl;
            return 2;
        }
    }
    try
    {
        cfg.Validate();
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    // Check the output directory before simulating, so a bad one costs nothing.
    const std::string path = outputDir + "/handover-delays.csv";
    try
    {
        CheckOutputDirectory(outputDir);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }

    // The protocol options come as ns-3 attribute defaults (--ns3::EdgeLlmNode::...):
    // read them back from a node made with those defaults, to say what ran.
    Ptr<EdgeLlmNode> defaults = CreateObject<EdgeLlmNode>();
    BooleanValue layerwise;
    defaults->GetAttribute("LayerwiseStreaming", layerwise);
    const std::string transportName = AttributeText(defaults, "Transport"); // "Tcp" or "Udp"
    std::cout << name << ": " << cfg.road.numUes << " UEs, " << cfg.model
              << " at q = " << cfg.kvBits << " bits, backhaul " << cfg.backhaulGbps
              << " Gbit/s (MTU " << cfg.backhaulMtu << ", transport " << transportName
              << ", layer-wise " << (layerwise.Get() ? "on" : "off") << "), contexts Unif["
              << cfg.road.contextMin << ", " << cfg.road.contextMax << "] tokens, seed "
              << RngSeedManager::GetSeed() << " run " << RngSeedManager::GetRun() << std::endl;

    // The CSV has every column of the printed table, and the PNG beside it plots them.
    std::ostringstream csv;
    csv << "scheme,ue_id,handover_s,context_tokens,prefill_tokens,transfer_tokens,"
           "predicted_delay_s,restored_s,stall_s,measured_delay_s,bound,batch_start_s,"
           "received_fraction,accuracy,transport,layerwise\n";
    csv << std::setprecision(9);
    // A value that does not apply (predicted for ImpactHO, batch start for a transfer-bound
    // UE, ...) is an empty CSV field and "n/a" in the table, never "nan".
    auto field = &EdgeLlmCsvField;
    auto cell = &TableCell;
    std::vector<RoadHandoverResult> results;
    std::vector<FigurePoint> points;
    for (const auto& [name, type] : runs)
    {
        cfg.pcapPrefix = pcap ? outputDir + "/" + name : "";
        RoadHandoverResult r;
        try
        {
            r = RoadHandoverScenario::Run(cfg, type);
        }
        catch (const std::invalid_argument& e)
        {
            // Refused before simulating (an attribute that does not fit the backhaul, ...):
            // the CSV and PNG are written only after every scheme ran.
            std::cerr << "error: " << e.what() << std::endl;
            return 2;
        }
        results.push_back(r);
        std::cout << "\n"
                  << name << ": KV bytes sent " << r.kvBytesSent << ", received "
                  << r.kvBytesReceived
                  << (r.kvBytesSent > r.kvBytesReceived
                          ? " (" + std::to_string(r.kvBytesSent - r.kvBytesReceived) +
                                " still in flight when the run stopped)"
                          : std::string())
                  << (r.timedOut > 0 ? ", " + std::to_string(r.timedOut) +
                                           " transfer(s) timed out into re-prefill"
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
        // Every batch's prefill length L (online handovers make several batches).
        if (r.batches.empty())
        {
            std::cout << "  batches: none ("
                      << (type == "ns3::ImpactHoScheduler"
                              ? name + " plans no prefill/transfer split: the cache goes over "
                                       "the backhaul in importance order, slot by slot"
                              : std::string("no handover was planned"))
                      << ")\n";
        }
        for (const auto& batch : r.batches)
        {
            std::cout << "  batch planned at " << std::fixed << std::setprecision(4)
                      << batch.plannedAt << " s: L = " << batch.prefillLength << " tokens, UEs";
            for (uint64_t ue : batch.ues)
            {
                std::cout << " " << ue;
            }
            std::cout << "\n";
        }
        std::cout << "  ue  handover_s  context  prefill  transfer  predicted_s  restored_s  "
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
            std::cout << "  " << std::setw(2) << ue.ueId << "  " << cell(ue.handoverTime, 10)
                      << "  " << std::setw(7) << ue.contextTokens << "  " << std::setw(7)
                      << ue.prefillTokens << "  " << std::setw(8) << ue.transferTokens << "  "
                      << cell(ue.predictedDelay, 11) << "  " << cell(ue.restoredDelay, 10) << "  "
                      << cell(ue.stall, 7) << "  " << cell(ue.measuredDelay, 10) << "  "
                      << bound.str() << "\n";
            csv << name << "," << ue.ueId << "," << field(ue.handoverTime) << ","
                << ue.contextTokens << "," << ue.prefillTokens << "," << ue.transferTokens << ","
                << field(ue.predictedDelay) << "," << field(ue.restoredDelay) << ","
                << field(ue.stall) << "," << field(ue.measuredDelay) << "," << ue.bound << ","
                << field(ue.batchStart) << "," << field(ue.receivedFraction) << ","
                << field(ue.accuracy) << "," << transportName << "," << (layerwise.Get() ? 1 : 0)
                << "\n";
            points.push_back({static_cast<double>(ue.ueId), name, ue.measuredDelay, 0, true});
        }
        std::cout << std::fixed << std::setprecision(4);
        if (std::isnan(r.predictedWorst))
        {
            std::cout << "  worst-user delay: measured " << cell(r.measuredWorst, 0) << " s ("
                      << name << " has no planned delay to compare)\n";
        }
        else
        {
            std::cout << "  worst-user delay: predicted " << r.predictedWorst << " s, measured "
                      << cell(r.measuredWorst, 0) << " s (" << std::showpos
                      << 100.0 * (r.measuredWorst - r.predictedWorst) / r.predictedWorst
                      << std::noshowpos << " %)";
            // The plan covers the BS side only; at a small delay the UE side's own share
            // (radio handover, token cadence) dominates the relative gap: say which.
            if (!std::isnan(r.restoredWorst) && !std::isnan(r.measuredWorst) &&
                r.measuredWorst > 1.25 * r.predictedWorst)
            {
                std::cout << "; restored at the target " << r.restoredWorst << " s ("
                          << std::showpos
                          << 100.0 * (r.restoredWorst - r.predictedWorst) / r.predictedWorst
                          << std::noshowpos << " %): the UE side adds "
                          << r.measuredWorst - r.restoredWorst
                          << " s of radio handover and token delivery that the plan leaves out";
            }
            std::cout << "\n";
        }
        std::cout << "  flow level on these handovers: this policy "
                  << (std::isnan(r.fluidWorst) ? std::string("n/a (no flow-level model)")
                                               : cell(r.fluidWorst, 0) + " s")
                  << ", one-batch clairvoyant ctHO (every time known, one L) " << r.clairvoyantWorst
                  << " s; packet-level restore " << r.restoredWorst
                  << " s = " << r.restoredWorst / r.clairvoyantWorst << " x one-batch"
                  << (r.fluidWorst < r.clairvoyantWorst
                          ? " (several batches beat one batch when handovers spread)"
                          : "")
                  << "\n";
        std::cout.unsetf(std::ios::fixed);
    }

    // One closing line: the schemes side by side, worst and mean measured delay.
    std::cout << "\nschemes by measured (UE-side) delay, worst / mean over " << cfg.road.numUes
              << " UEs:" << std::fixed << std::setprecision(4);
    for (std::size_t i = 0; i < results.size(); ++i)
    {
        const RoadHandoverResult& r = results[i];
        double sum = 0;
        for (const auto& ue : r.ues)
        {
            sum += ue.measuredDelay;
        }
        std::cout << "  " << runs[i].first << " " << cell(r.measuredWorst, 0) << " / "
                  << cell(sum / static_cast<double>(r.ues.size()), 0) << " s";
    }
    std::cout << std::endl;
    std::cout.unsetf(std::ios::fixed);

    // The CSV (whole or not at all), and beside it the per-UE delays per scheme as a PNG.
    std::ostringstream title;
    title << name << ": measured handover delay per UE and scheme\\n"
          << cfg.road.numUes << " UEs, " << cfg.model << " q = " << cfg.kvBits << ", backhaul "
          << cfg.backhaulGbps << " Gbit/s, transport " << transportName << ", layer-wise "
          << (layerwise.Get() ? "on" : "off") << "\\ncontexts U[" << cfg.road.contextMin << ", "
          << cfg.road.contextMax << "] tokens, " << cfg.road.speed
          << " m/s, D_{bs} = " << cfg.bsDistance << " m, seed " << RngSeedManager::GetSeed()
          << " run " << RngSeedManager::GetRun();
    const std::string stem = outputDir + "/handover-delays";
    if (!WriteFigure(stem,
                     csv.str(),
                     title.str(),
                     "UE (IMSI)",
                     "Measured handover delay at the UE (s)",
                     points,
                     {"set xtics 1",
                      "set xrange [0.5:" + std::to_string(cfg.road.numUes) + ".5]",
                      "set yrange [0:*]"}))
    {
        return 1;
    }
    std::cout << "\nwrote " << path << " and " << stem << ".png" << std::endl;

    bool complete = true;
    for (const auto& r : results)
    {
        complete = complete && r.complete;
    }
    return complete ? 0 : 1;
}

} // namespace ns3
