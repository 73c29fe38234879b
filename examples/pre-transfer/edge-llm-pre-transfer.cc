/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Proactive KV pre-transfer on the paper's road at flow level (doc/edge-llm-design.rst,
 * "Proactive KV pre-transfer"): the worst-user handover delay and the backhaul bytes
 * wasted on wrong predictions against the A3 trigger's offset, and the delay-vs-bytes
 * trade-off against ctHO, tHO and cHO on the same handovers.
 */
#include "../common/program-options.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/pre-transfer-fluid-scenario.h"
#include "../studies/road-ue-draw.h"

#include "ns3/core-module.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/pre-transfer-scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/// The program's options.
struct Options
{
    uint32_t numUes{12};                   //!< K
    uint32_t runs{20};                     //!< Monte-Carlo runs per point
    std::string offsets{"-12,-9,-6,-3,0"}; //!< A3 offsets swept, dB
    double stopShare{0.25};                //!< UEs that end their session before the boundary
    double rateShare{0.5};                 //!< PreTransferScheduler RateShare
    double kvMemoryGb{16};                 //!< Per-BS memory for caches sent ahead, GB (1e9 bytes)
    double backhaulGbps{4.5};              //!< R
    double decodeRate{100};                //!< tokens/s
    double startMin{0};                    //!< Road start positions, m (the paper's: 120)
    double startMax{130};                  //!< see startMin (the paper's: 130)
    std::string batching{"online"};        //!< online: 2 ms gathering; known: one batch
    std::string outputDir{"results/edge-llm-pre-transfer"}; //!< Where the files go
};

/// One point's samples over the runs.
struct Samples
{
    std::vector<double> worst; //!< Worst-user delay, s
    std::vector<double> waste; //!< Wasted bytes, GB
    std::vector<double> bytes; //!< Backhaul bytes, GB
};

std::vector<double>
ParseOffsets(const std::string& text)
{
    std::vector<double> out;
    std::stringstream in(text);
    std::string item;
    // getline drops an empty last item: a trailing comma is refused here.
    const bool trailing = !text.empty() && text.back() == ',';
    while (!trailing && std::getline(in, item, ','))
    {
        std::size_t used = 0;
        double v = 0;
        try
        {
            v = std::stod(item, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (used != item.size() || item.empty() || !(v >= -15 && v <= 15))
        {
            throw std::invalid_argument("--offsets must be a comma-separated list of dB values in "
                                        "[-15, 15] (ns3::PreTransferScheduler::A3Offset), got '" +
                                        text + "'");
        }
        if (std::find(out.begin(), out.end(), v) != out.end())
        {
            // One point per offset: a repeat would pool its runs twice into one mean.
            throw std::invalid_argument("--offsets: " + item + " is listed twice");
        }
        out.push_back(v);
    }
    if (trailing)
    {
        throw std::invalid_argument("--offsets must be a comma-separated list of dB values in "
                                    "[-15, 15] (ns3::PreTransferScheduler::A3Offset), got '" +
                                    text + "'");
    }
    if (out.empty())
    {
        throw std::invalid_argument("--offsets must name at least one offset");
    }
    return out;
}

/// \return whether \p scheme is a baseline of the pre-transfer: a batch policy on its own
bool
IsBaseline(const HandoverScheme& scheme)
{
    return scheme.batchPlan && !scheme.wrapsInner && !scheme.targetCoordinated;
}

/// \return the pre-transfer scheme the flow level models: the registry's first around a
///         batch policy (pre-ctho); its baselines are IsBaseline()'s
std::string
PreTransferSchemeName()
{
    return HandoverSchemeRegistry::Select(
               [](const HandoverScheme& s) { return s.wrapsInner && s.batchPlan; })
        .front()
        .name;
}

/// \return \p offset as --offsets would give it ("-6", "-3.25")
std::string
OffsetText(double offset)
{
    std::ostringstream text;
    text << offset;
    return text.str();
}

/// Runs \p scheduler on run \p run's road; adds the point's samples.
void
RunPoint(const Options& o,
         const PreTransferScheduler& trigger,
         Ptr<HandoverScheduler> scheduler,
         double batchSpan,
         uint64_t run,
         Samples& samples,
         std::ostringstream& ueCsv,
         const std::string& label)
{
    RoadUeDraw road;
    road.numUes = o.numUes;
    road.startMin = o.startMin;
    road.startMax = o.startMax;
    road.Validate();
    const std::vector<PreTransferUe> episodes = PreTransferFluidScenario::RoadEpisodes(road,
                                                                                       run,
                                                                                       trigger,
                                                                                       300,
                                                                                       2,
                                                                                       o.decodeRate,
                                                                                       o.stopShare);
    PreTransferFluidConfig cfg;
    cfg.backhaulGbps = o.backhaulGbps;
    cfg.batchSpan = batchSpan;
    cfg.kvMemoryCapacity = static_cast<uint64_t>(o.kvMemoryGb * 1e9);
    const PreTransferFluidResult r = PreTransferFluidScenario::Run(cfg, scheduler, episodes);
    samples.worst.push_back(r.worstDelay);
    samples.waste.push_back(r.wastedBytes / 1e9);
    samples.bytes.push_back(r.backhaulBytes / 1e9);
    for (const PreTransferUeResult& u : r.ues)
    {
        ueCsv << label << ',' << run << ',' << u.ueId << ',' << (u.handedOver ? 1 : 0) << ','
              << std::setprecision(12) << u.preSentBytes << ',' << u.usedTokens << ','
              << u.handoverBytes << ',' << u.wastedBytes << ',' << (u.evicted ? 1 : 0) << ','
              << (u.handedOver ? u.delay : std::nan("")) << '\n';
    }
}

/**
 * \brief Parse and check the command line: a bad option, attribute or value is refused
 *        naming it and its valid range.
 * \param argc the command line's argument count
 * \param argv the command line
 * \param o the options, filled
 * \param offsets the A3 offsets swept (--offsets), dB, filled
 * \return 0 to run, 2 (after printing the error) to exit with it
 */
int
ParseOptions(int argc, char* argv[], Options& o, std::vector<double>& offsets)
{
    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("Proactive KV pre-transfer on the road at flow level: worst-user delay and "
              "backhaul waste against the A3 trigger offset, and the delay-vs-bytes trade-off "
              "against ctHO, tHO and cHO.");
    options.AddRangedValue("numUes",
                           "K, UEs on the road per run (1..10000)",
                           o.numUes,
                           RoadUeDraw::NumUesRange());
    options.AddValue("runs", "Monte-Carlo runs per point (>= 1)", o.runs);
    options.AddValue("offsets",
                     "A3 offsets swept, dB, comma-separated, each in [-15, 15]",
                     o.offsets);
    options.AddValue("stopShare",
                     "Share of UEs that end their session before the boundary (never hand "
                     "over), in [0, 1]",
                     o.stopShare);
    options.AddValue("rateShare",
                     "ns3::PreTransferScheduler::RateShare, in (0, 1] (0 would send nothing "
                     "ahead)",
                     o.rateShare);
    options.AddValue("kvMemoryGb",
                     "KV memory for caches sent ahead, per BS, GB, in [1e-9, 1e6] (1 byte to "
                     "10^15 bytes, as ns3::EdgeLlmPreTransferRole::KvMemoryCapacity)",
                     o.kvMemoryGb);
    options.AddRangedValue("backhaulGbps",
                           "Backhaul link rate, Gbit/s, > 0",
                           o.backhaulGbps,
                           edgellm::BackhaulGbpsRange());
    options.AddValue("decodeRate", "Decoded tokens/s per UE, > 0", o.decodeRate);
    options.AddValue("startMin",
                     "Road: UEs start at x ~ Unif[startMin, startMax], m (the paper's road: 120 "
                     "to 130; the default road is longer, so that triggers come early)",
                     o.startMin);
    options.AddValue("startMax", "Road: see startMin; < the boundary, 150 m", o.startMax);
    options.AddValue("batching",
                     "known: each run's handovers form one batch planned at the first (ctHO's "
                     "setting); online: handovers within 2 ms planned together; every scheme "
                     "alike",
                     o.batching);
    options.AddValue("outputDir", "Where the CSV, gnuplot and PNG files go", o.outputDir);
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    const std::string perPoint = "the program sets it per point";
    if (!CheckAttributeArguments(
            argc,
            argv,
            {{"ns3::PreTransferScheduler::A3Offset", "use --offsets"},
             {"ns3::PreTransferScheduler::RateShare", "use --rateShare"},
             {"ns3::PreTransferScheduler::InnerScheduler", perPoint},
             {"ns3::PreTransferScheduler::Trigger", "the program sweeps the A3 trigger's offset"}},
            std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    try
    {
        offsets = ParseOffsets(o.offsets);
        if (o.batching != "known" && o.batching != "online")
        {
            throw std::invalid_argument("--batching must be known or online, got '" + o.batching +
                                        "'");
        }
        if (o.runs < 1)
        {
            throw std::invalid_argument("--runs must be in [1, 4294967295], got 0");
        }
        if (!(o.rateShare > 0 && o.rateShare <= 1))
        {
            throw std::invalid_argument("--rateShare must be in (0, 1], got " +
                                        edgellm::FormatValue(o.rateShare));
        }
        // Whole bytes from 1 to KvMemoryCapacity's largest (a GB is 1e9 bytes).
        const double maxGb = static_cast<double>(edgellm::MAX_KV_MEMORY_CAPACITY) / 1e9;
        if (!(o.kvMemoryGb * 1e9 >= 1 && o.kvMemoryGb <= maxGb))
        {
            std::ostringstream what;
            what << "--kvMemoryGb must be in [1e-9, " << maxGb
                 << "] GB (1 byte to 10^15 bytes), got " << o.kvMemoryGb;
            throw std::invalid_argument(what.str());
        }
        CheckOutputDirectory("--outputDir", o.outputDir);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::PRE_TRANSFER)
                  << std::endl;
        return 2;
    }
    // Flow level: its schemes' schedulers only (the baselines and the pre-transfer one).
    std::vector<HandoverScheme> schemes = HandoverSchemeRegistry::Select(IsBaseline);
    schemes.push_back(HandoverSchemeRegistry::Find(PreTransferSchemeName()));
    TypesUnused unused =
        FlowLevelTypesUnused("edge-llm-pre-transfer runs at flow level: no BS, UE, link or GPU "
                             "of this module is built");
    unused.merge(HandoverSchemeRegistry::TypesUnused(schemes));
    if (!CheckAttributeArguments(argc, argv, {}, std::cerr, unused))
    {
        return 2;
    }
    return 0;
}

/**
 * \brief Every run: the baselines' points, then pre-transfer at each offset.
 * \param o the options
 * \param offsets the A3 offsets swept, dB
 * \param preScheme the pre-transfer scheme's name
 * \param baselines each baseline's samples, filled
 * \param pre the pre-transfer's samples per offset, filled
 * \param ueCsv the per-UE rows, appended
 * \return false (after printing the error) if a scheme refused its settings: exit status 2
 */
bool
RunAll(const Options& o,
       const std::vector<double>& offsets,
       const std::string& preScheme,
       std::map<std::string, Samples>& baselines,
       std::map<double, Samples>& pre,
       std::ostringstream& ueCsv)
{
    const uint64_t firstRun = RngSeedManager::GetRun();
    try
    {
        Ptr<PreTransferScheduler> trigger = CreateObject<PreTransferScheduler>();
        // known: each run's handovers form one batch (ctHO's setting); online: those within
        // 2 ms (EdgeLlmNode's GatherTime) are planned together. Every scheme alike.
        const double span =
            o.batching == "online" ? 0.002 : std::numeric_limits<double>::infinity();
        for (uint32_t k = 0; k < o.runs; ++k)
        {
            const uint64_t run = firstRun + k;
            for (const HandoverScheme& baseline : HandoverSchemeRegistry::Select(IsBaseline))
            {
                Ptr<HandoverScheduler> s = HandoverSchemeRegistry::Create(baseline.name);
                // The same batching as pre-ctho: only the pre-transfer differs.
                RunPoint(o,
                         *trigger,
                         s,
                         span,
                         run,
                         baselines[s->GetSchemeName()],
                         ueCsv,
                         s->GetSchemeName());
            }
            for (double offset : offsets)
            {
                ObjectFactory factory = HandoverSchemeRegistry::GetFactory(preScheme);
                factory.Set("A3Offset", DoubleValue(offset));
                factory.Set("RateShare", DoubleValue(o.rateShare));
                Ptr<PreTransferScheduler> p = factory.Create<PreTransferScheduler>();
                std::ostringstream label;
                label << preScheme << "@" << offset << "dB";
                // Known: pre-transfers stop at the batch's plan (its first handover);
                // online: each handover is planned when it happens (2 ms gathering), so every
                // UE sends ahead until its own.
                RunPoint(o, *p, p, span, run, pre[offset], ueCsv, label.str());
            }
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::PRE_TRANSFER)
                  << std::endl;
        return false;
    }

    return true;
}

/// The summary's CSV and the figures' points.
struct Summary
{
    std::ostringstream csv;               //!< pre-transfer-*.csv
    std::vector<FigurePoint> delayPoints; //!< pre-transfer-delay.png
    std::vector<FigurePoint> wastePoints; //!< pre-transfer-waste.png
    std::vector<FigurePoint> tradeoff;    //!< pre-transfer-tradeoff.png
};

/**
 * \brief Print each scheme's and offset's summary and fill the CSV and points.
 * \param o the options
 * \param offsets the A3 offsets swept, dB
 * \param preScheme the pre-transfer scheme's name
 * \param baselines each baseline's samples
 * \param pre the pre-transfer's samples per offset
 * \param t the summary, filled
 */
void
Summarize(const Options& o,
          const std::vector<double>& offsets,
          const std::string& preScheme,
          const std::map<std::string, Samples>& baselines,
          const std::map<double, Samples>& pre,
          Summary& t)
{
    t.csv << "scheme,a3_offset_db,worst_delay_s,worst_delay_ci95,wasted_gb,wasted_ci95,backhaul_gb,"
             "backhaul_ci95,runs\n";
    std::cout << "Pre-transfer on the road (flow level): K = " << o.numUes << ", " << o.runs
              << (o.runs == 1 ? " run" : " runs") << ", start U[" << o.startMin << ", "
              << o.startMax << "] m, " << o.batching << " batches, stopShare " << o.stopShare
              << ", RateShare " << o.rateShare << "\n";
    auto report = [&](const std::string& scheme, double offset, const Samples& s) {
        const SampleSummary w = SummarizeSamples(s.worst);
        const SampleSummary x = SummarizeSamples(s.waste);
        const SampleSummary b = SummarizeSamples(s.bytes);
        t.csv << scheme << ',' << (std::isnan(offset) ? std::string() : std::to_string(offset))
              << ',' << std::setprecision(9) << w.mean << ',' << w.ci95 << ',' << x.mean << ','
              << x.ci95 << ',' << b.mean << ',' << b.ci95 << ',' << w.n << '\n';
        std::cout << "  " << std::left << std::setw(20)
                  << (std::isnan(offset) ? scheme : scheme + " @ " + OffsetText(offset) + " dB")
                  << std::right << std::fixed << std::setprecision(4) << " worst delay " << w.mean
                  << " s, backhaul " << std::setprecision(3) << b.mean << " GB, waste " << x.mean
                  << " GB\n";
        std::cout.unsetf(std::ios::fixed);
        std::ostringstream series; // each offset its own point in the key
        series << scheme;
        if (!std::isnan(offset))
        {
            series << " " << offset << " dB";
        }
        t.tradeoff.push_back(FigurePoint{b.mean, series.str(), w.mean, w.ci95, true});
    };
    for (const auto& [scheme, s] : baselines)
    {
        report(scheme, std::nan(""), s);
        for (double offset : offsets)
        {
            const SampleSummary w = SummarizeSamples(s.worst);
            t.delayPoints.push_back(FigurePoint{offset, scheme, w.mean, w.ci95, false});
        }
    }
    for (const auto& [offset, s] : pre)
    {
        report(preScheme, offset, s);
        const SampleSummary w = SummarizeSamples(s.worst);
        const SampleSummary x = SummarizeSamples(s.waste);
        t.delayPoints.push_back(FigurePoint{offset, preScheme, w.mean, w.ci95, false});
        t.wastePoints.push_back(FigurePoint{offset, preScheme, x.mean, x.ci95, false});
    }
}

/**
 * \brief Write the figures (CSV, gnuplot, PNG) and pre-transfer-ues.csv into --outputDir.
 * \param o the options
 * \param t the summary
 * \param ueCsv the per-UE rows
 * \return the exit status: 0, or 1 if a file could not be written
 */
int
WriteOutputs(const Options& o, const Summary& t, const std::string& ueCsv)
{
    const std::string dir = o.outputDir + "/";
    // Delays span two decades (tHO against pre-ctho): a log axis, unless a delay is 0 (a
    // run without handovers, --stopShare=1).
    const bool positive = std::all_of(t.delayPoints.begin(),
                                      t.delayPoints.end(),
                                      [](const FigurePoint& p) { return p.mean > 0; });
    const std::vector<std::string> logY =
        positive ? std::vector<std::string>{"set logscale y"} : std::vector<std::string>{};
    const bool ok = WriteFigure(dir + "pre-transfer-delay",
                                t.csv.str(),
                                "Worst-user handover delay vs pre-transfer trigger offset",
                                "A3 trigger offset (dB)",
                                "worst-user delay (s)",
                                t.delayPoints,
                                logY) &&
                    WriteFigure(dir + "pre-transfer-waste",
                                t.csv.str(),
                                "Backhaul bytes wasted on wrong predictions",
                                "A3 trigger offset (dB)",
                                "wasted bytes (GB)",
                                t.wastePoints) &&
                    WriteFigure(dir + "pre-transfer-tradeoff",
                                t.csv.str(),
                                "Delay vs backhaul bytes",
                                "backhaul bytes per run (GB)",
                                "worst-user delay (s)",
                                t.tradeoff,
                                logY) &&
                    WriteFileAtomically(dir + "pre-transfer-ues.csv", ueCsv);
    if (ok)
    {
        std::cout << "\nwrote " << dir << "pre-transfer-{delay,waste,tradeoff}.{csv,plt,png} and "
                  << dir << "pre-transfer-ues.csv" << std::endl;
    }
    return ok ? 0 : 1;
}
} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    std::vector<double> offsets;
    if (const int status = ParseOptions(argc, argv, o, offsets); status != 0)
    {
        return status;
    }
    std::ostringstream ueCsv;
    ueCsv << "scheme,run,ue,handed_over,pre_sent_bytes,used_tokens,handover_bytes,wasted_bytes,"
             "evicted,delay_s\n";
    std::map<std::string, Samples> baselines;
    std::map<double, Samples> pre;
    const std::string preScheme = PreTransferSchemeName();
    if (!RunAll(o, offsets, preScheme, baselines, pre, ueCsv))
    {
        return 2;
    }
    Summary t;
    Summarize(o, offsets, preScheme, baselines, pre, t);
    return WriteOutputs(o, t, ueCsv.str());
}
