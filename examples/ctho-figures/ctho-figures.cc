/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ctho-figures: reproduces ctHO's Figs. 3a-3d and 4 (Lee et al., arXiv:2603.28018)
 * with the flow-level engine, Monte-Carlo with 95 % confidence intervals, and
 * optional packet-level points (LTE X2 handovers; the backhaul transport is
 * ns3::EdgeLlmBackhaulTransport::Transport, TCP by default) on the same plot.
 *
 *   ctho-figures --figure=3a [--runs=100] [--packetLevel=0|1] [--outputDir=DIR]
 *                [--contextMin=1024] [--contextMax=4096] [--numUes=4] [--backhaulGbps=4.5]
 *
 * Writes DIR/fig<id>.csv (x,scheme,mean_delay_s,ci95_s,runs), DIR/fig<id>.plt and,
 * with gnuplot installed, DIR/fig<id>.png; prints each point's mean worst-user delay per
 * scheme and the largest tHO/ctHO and cHO/ctHO ratios over the sweep. Progress goes to
 * stderr.
 */
#include "../common/program-options.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/multi-cell-scenario.h"
#include "../studies/road-handover-scenario.h"
#include "ctho-figures-study.h"

#include "ns3/core-module.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \brief One packet-level run of a curve's scheme (its scheduler type and attributes).
 * \param cfg the run's road
 * \param curve the curve (CtHoFigures::Scheme())
 * \return the run's result
 */
RoadHandoverResult
RunPacket(RoadHandoverConfig cfg, const std::string& curve)
{
    const HandoverScheme& scheme = CtHoFigures::Scheme(curve);
    cfg.schedulerAttributes = scheme.attributes;
    return RoadHandoverScenario::Run(cfg, scheme.typeId);
}

/**
 * \brief The packet-level road scenario for a figure point.
 * \param s the point's settings
 * \param allowBeyondContextWindow --allowBeyondContextWindow
 * \return the road's config
 */
RoadHandoverConfig
PacketConfig(const CtHoFigureSettings& s, bool allowBeyondContextWindow)
{
    RoadHandoverConfig cfg;
    cfg.allowBeyondContextWindow = allowBeyondContextWindow;
    cfg.road = s.road;
    cfg.model = s.fluid.model;
    cfg.kvBits = s.fluid.kvBits;
    cfg.backhaulGbps = s.fluid.backhaulGbps;
    cfg.prefillA = s.fluid.prefill.GetA();
    cfg.prefillB = s.fluid.prefill.GetB();
    cfg.prefillC = s.fluid.prefill.GetC();
    cfg.batchPeriod = s.fluid.batchPeriod;
    return cfg;
}

/// The program's options as parsed and checked (ParseOptions).
struct FigureOptions
{
    std::string figure;                            //!< 3a | 3b | 3c | 3d | 4 | online
    CtHoFigureSettings base;                       //!< Every knob where not swept
    bool packetLevel{false};                       //!< Add packet-level points
    uint32_t packetRuns{5};                        //!< Runs per packet-level point
    std::string outputDir{"results/ctho-figures"}; //!< Where fig<id>.* go
    std::vector<double> xs;                        //!< The figure's sweep
    bool allowBeyondContextWindow{false};          //!< Accept C_max beyond the model's window
};

/**
 * \brief Refuse the option the figure sweeps (it would be overwritten at every point).
 * \param figure the figure
 * \param argc the command line's argument count
 * \param argv the command line
 * \throws std::invalid_argument naming the option
 */
void
RefuseSweptOption(const std::string& figure, int argc, char* argv[])
{
    static const std::map<std::string, std::string> swept = {{"3a", "backhaulGbps"},
                                                             {"3b", "prefillA"},
                                                             {"3c", "contextMax"},
                                                             {"3d", "numUes"}};
    const auto sweptOption = swept.find(figure);
    for (int i = 1; sweptOption != swept.end() && i < argc; ++i)
    {
        const std::string arg = argv[i];
        const std::string option = "--" + sweptOption->second;
        if (arg == option || arg.rfind(option + "=", 0) == 0)
        {
            throw std::invalid_argument(option + ": Fig. " + figure +
                                        " sweeps it; drop the option");
        }
    }
}

/**
 * \brief Check the parsed options, each against its range, and the output directory.
 * \param o the options (xs filled)
 * \param argc the command line's argument count
 * \param argv the command line
 * \throws std::invalid_argument naming the option and its valid range
 */
void
CheckOptions(FigureOptions& o, int argc, char* argv[])
{
    if (o.figure.empty())
    {
        throw std::invalid_argument("--figure is required: 3a, 3b, 3c, 3d, 4 or online");
    }
    o.xs = CtHoFigures::SweepValues(o.figure);
    if (o.base.runs < 2 || o.base.runs > 1000000)
    {
        throw std::invalid_argument("--runs must be in [2, 1000000] (a confidence interval "
                                    "needs two)");
    }
    if (o.packetRuns < 2 || o.packetRuns > 1000)
    {
        throw std::invalid_argument("--packetRuns must be in [2, 1000] (the packet-level "
                                    "points' 95 % confidence interval needs two runs)");
    }
    RefuseSweptOption(o.figure, argc, argv);
    edgellm::CheckBackhaulGbps("--backhaulGbps", o.base.fluid.backhaulGbps);
    if (o.packetLevel && o.figure == "online")
    {
        throw std::invalid_argument("--packetLevel applies to Figs. 3a-3d and 4, not to "
                                    "online");
    }
    o.base.road.Validate();
    // C_max (Fig. 3c: the sweep's longest) against the model's window.
    LlmModelProfile::FromPreset(o.base.fluid.model, o.base.fluid.kvBits)
        .CheckContext(o.figure == "3c" ? "Fig. 3c's C_max sweep" : "--contextMax",
                      o.figure == "3c" ? static_cast<uint64_t>(o.xs.back())
                                       : o.base.road.contextMax,
                      o.allowBeyondContextWindow);
    if (o.figure == "3c" && o.base.road.contextMin > o.xs.front())
    {
        // Every point of the C_max sweep must keep C_min <= C_max.
        std::ostringstream what;
        what << "--contextMin must be in [1, " << o.xs.front() << "] for Fig. 3c (its C_max "
             << "sweep starts at " << o.xs.front() << " tokens), got " << o.base.road.contextMin;
        throw std::invalid_argument(what.str());
    }
    CheckOutputDirectory("--outputDir", o.outputDir); // before any simulation runs
}

/**
 * \brief The types of this module ctho-figures never builds for \p o: its curves'
 *        schedulers only (HandoverSchemeRegistry::TypesUnused); at flow level nothing else,
 *        with --packetLevel=1 the road's engine (its backhaul the RAN's X2 link).
 * \param o the options (parsed and checked)
 * \return TypeId name -> why
 */
TypesUnused
TypesUnusedFor(const FigureOptions& o)
{
    TypesUnused unused =
        o.packetLevel
            ? MultiCellScenario::GetTypesUnused(
                  PacketConfig(o.base, o.allowBeyondContextWindow).GetEngineConfig())
            : FlowLevelTypesUnused("ctho-figures runs at flow level without --packetLevel=1: "
                                   "no BS, UE, link or GPU of this module is built");
    std::vector<HandoverScheme> schemes;
    for (const std::string& curve : CtHoFigures::Schemes(o.figure))
    {
        if (curve != "no-ho")
        {
            schemes.push_back(CtHoFigures::Scheme(curve));
        }
    }
    unused.merge(HandoverSchemeRegistry::TypesUnused(schemes));
    return unused;
}

/**
 * \brief Parse and check the command line (exit status 2 on bad input, with one line naming
 *        the option and its valid range).
 * \param argc the command line's argument count
 * \param argv the command line
 * \param o the options, filled
 * \return 0 to run, 2 (after printing the error) to exit with it
 */
int
ParseOptions(int argc, char* argv[], FigureOptions& o)
{
    CtHoFigureSettings& base = o.base;
    uint32_t runs = 100;
    double prefillA = base.fluid.prefill.GetA();

    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("Reproduces ctHO's Figs. 3a-3d and 4 (flow level, optional packet-level points).");
    options.AddValue("figure", "3a | 3b | 3c | 3d | 4 | online", o.figure);
    options.AddValue("runs", "Monte-Carlo runs per point (>= 2)", runs);
    options.AddValue("packetLevel",
                     "Add packet-level points (LTE X2; transport: "
                     "--ns3::EdgeLlmBackhaulTransport::Transport) for "
                     "Figs. 3a-3d and 4",
                     o.packetLevel);
    options.AddValue("packetRuns",
                     "Runs per packet-level point (>= 2: the plotted 95 % CI needs two)",
                     o.packetRuns);
    options.AddValue("outputDir", "Where fig<id>.csv/.plt/.png go", o.outputDir);
    options.AddRangedValue("backhaulGbps",
                           "Backhaul rate where not swept, Gbit/s",
                           base.fluid.backhaulGbps,
                           edgellm::BackhaulGbpsRange());
    options.AddRangedValue("contextMin",
                           "Smallest drawn context C_min, tokens (C ~ U[C_min, C_max]; equal to "
                           "--contextMax: every UE has that context)",
                           base.road.contextMin,
                           edgellm::ContextTokensRange());
    options.AddRangedValue("contextMax",
                           "C_max where not swept, tokens",
                           base.road.contextMax,
                           edgellm::ContextTokensRange());
    options.AddRangedValue("numUes",
                           "K where not swept",
                           base.road.numUes,
                           RoadUeDraw::NumUesRange());
    options.AddValue("prefillA", "Prefill slope a where not swept, s/token", prefillA);
    options.AddValue("allowBeyondContextWindow",
                     "Accept a C_max beyond the model's context window (said on the output)",
                     o.allowBeyondContextWindow);
    // Attribute defaults first: a bad one, or one the packet-level road scenario sets
    // itself, is refused naming it and its valid range (exit 2).
    if (!options.Check(argc, argv, std::cerr) ||
        !CheckAttributeArguments(
            argc,
            argv,
            MultiCellScenario::GetAttributesSet(ProgramKnobOptions(ScenarioProgram::CTHO_FIGURES)),
            std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    base.runs = runs;
    try
    {
        PrefillTimeModel::CheckCoefficients(prefillA, base.fluid.prefill.GetB(), 0.0, "prefillA");
        base.fluid.prefill = PrefillTimeModel(prefillA, base.fluid.prefill.GetB(), 0.0);
        CheckOptions(o, argc, argv);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::CTHO_FIGURES)
                  << std::endl;
        return 2;
    }
    // Now that the figure and the level are known: an attribute of a type of this module
    // the program never builds for them.
    if (!CheckAttributeArguments(argc, argv, {}, std::cerr, TypesUnusedFor(o)))
    {
        return 2;
    }
    const std::string note =
        LlmModelProfile::FromPreset(o.base.fluid.model, o.base.fluid.kvBits)
            .BeyondContextNote(o.figure == "3c" ? static_cast<uint64_t>(o.xs.back())
                                                : o.base.road.contextMax);
    if (!note.empty())
    {
        std::cout << note << std::endl;
    }
    return 0;
}

/**
 * \brief The progress printer of a figure's flow-level runs (stderr): each finished point,
 *        and every 10 s within a long one.
 * \param figure the figure
 * \return the callback for CtHoFigures::RunFlowLevel
 */
CtHoFigureProgress
ProgressPrinter(const std::string& figure)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto lastPoint = std::make_shared<uint32_t>(0);
    auto lastPrint = std::make_shared<double>(0);
    return [=](uint32_t p, uint32_t n, uint64_t done, uint64_t total) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (p == *lastPoint && elapsed - *lastPrint < 10)
        {
            return;
        }
        *lastPoint = p;
        *lastPrint = elapsed;
        std::cerr << "[fig" << figure << "] points done " << p << "/" << n << ", runs " << done
                  << "/" << total << ", " << std::fixed << std::setprecision(1) << elapsed
                  << " s elapsed, ~" << elapsed * (total - done) / std::max<uint64_t>(done, 1)
                  << " s left" << std::endl;
    };
}

/**
 * \brief Fig. online: print the ratio online / clairvoyant worst-user delay per run,
 *        summarized per look-ahead.
 * \param o the options
 */
void
PrintOnlineRatios(const FigureOptions& o)
{
    for (double x : o.xs)
    {
        const CtHoFigureSettings s = CtHoFigures::AtPoint(o.figure, o.base, x);
        std::vector<double> ratios;
        for (uint64_t r = 1; r <= o.base.runs; ++r)
        {
            ratios.push_back(CtHoFigures::FlowLevelRun(o.figure, s, "ctho-online", r) /
                             CtHoFigures::FlowLevelRun(o.figure, s, "ctho", r));
        }
        const SampleSummary sum = SummarizeSamples(ratios);
        std::cout << std::fixed << std::setprecision(4) << "look-ahead " << x
                  << " s: online / clairvoyant worst-user delay = " << sum.mean << " +- "
                  << sum.ci95 << " (95 % CI, " << sum.n << " runs)" << std::endl;
    }
}

/**
 * \brief Fig. 4's packet-level points over LTE's own radio: G tokens of 1000 B at
 *        100 tokens/s, 6 RBs, 10 dBm, log-distance path loss (exponent 3.5), so the radio,
 *        not the decoder, limits a far UE; no-HO disables the handover. Within the
 *        source's coverage only (the UE loses the source beyond ~350 m: radio link
 *        failure, no value).
 * \param o the options
 * \param points the figure's points, appended to
 */
void
AddPacketPointsFig4(const FigureOptions& o, std::vector<CtHoFigurePoint>& points)
{
    for (double x : {250.0, 300.0})
    {
        const CtHoFigureSettings s = CtHoFigures::AtPoint(o.figure, o.base, x);
        for (const std::string scheme : {"ctho", "no-ho"})
        {
            std::vector<double> packet;
            for (uint32_t r = 1; r <= o.packetRuns; ++r)
            {
                RngSeedManager::SetRun(r);
                RoadHandoverConfig cfg = PacketConfig(s, o.allowBeyondContextWindow);
                cfg.bsDistance = x;
                cfg.handoverDisabled = scheme == "no-ho";
                cfg.streamTokens = o.base.streamTokens;
                cfg.tokenBytes = 1000;
                cfg.decodeRate = 100;
                cfg.tokensAfterHandover = o.base.streamTokens + 1000;
                cfg.pathlossModel = "ns3::LogDistancePropagationLossModel";
                cfg.pathlossExponent = 3.5;
                cfg.bandwidthRbs = 6;
                cfg.bsTxPowerDbm = 10;
                const RoadHandoverResult res = RunPacket(cfg, "ctho");
                packet.push_back(res.streamWorst);
            }
            const SampleSummary ps = SummarizeSamples(packet);
            points.push_back({x, scheme + "-packet-lte", ps.mean, ps.ci95, ps.n});
            std::cout << std::fixed << std::setprecision(4)
                      << "packet level (LTE radio), D_bs = " << x << " m, " << scheme << ": "
                      << ps.mean << " s (" << o.packetRuns << " runs)" << std::endl;
        }
    }
}

/**
 * \brief Figs. 3a-3d's packet-level points (the sweep's second and middle x), each beside
 *        the flow level on the same runs.
 * \param o the options
 * \param points the figure's points, appended to
 */
void
AddPacketPointsSweep(const FigureOptions& o, std::vector<CtHoFigurePoint>& points)
{
    const std::vector<double> px = {o.xs[1], o.xs[o.xs.size() / 2]};
    for (double x : px)
    {
        const CtHoFigureSettings s = CtHoFigures::AtPoint(o.figure, o.base, x);
        for (const auto& scheme : CtHoFigures::Schemes(o.figure))
        {
            std::vector<double> packet;
            std::vector<double> flow;
            for (uint32_t r = 1; r <= o.packetRuns; ++r)
            {
                RngSeedManager::SetRun(r);
                const RoadHandoverResult res =
                    RunPacket(PacketConfig(s, o.allowBeyondContextWindow), scheme);
                double worst = 0;
                for (const auto& ue : res.ues)
                {
                    worst = std::max(worst, ue.restoredDelay);
                }
                packet.push_back(worst);
                flow.push_back(CtHoFigures::FlowLevelRun(o.figure, s, scheme, r));
            }
            const SampleSummary ps = SummarizeSamples(packet);
            const SampleSummary fs = SummarizeSamples(flow);
            points.push_back({x, scheme + "-packet", ps.mean, ps.ci95, ps.n});
            std::ostringstream line;
            line << std::fixed << std::setprecision(4) << "packet level, x = " << x << ", "
                 << scheme << ": " << ps.mean << " s vs flow level " << fs.mean << " s on the same "
                 << o.packetRuns << " runs (" << std::showpos << std::setprecision(2)
                 << 100.0 * (ps.mean - fs.mean) / fs.mean << " %)";
            std::cout << line.str() << std::endl;
            std::cerr << "[fig" << o.figure << "] packet-level x = " << x << " " << scheme
                      << " done" << std::endl;
        }
    }
}

/// Each x's mean worst-user delay per scheme.
using MeansByX = std::map<double, std::map<std::string, double>>;

/**
 * \brief Write fig<id>.csv, .plt and .png.
 * \param o the options
 * \param points the figure's points
 * \param stem the files' path without extension
 * \param byX filled with each point's mean per scheme
 * \return false (after printing why) if a file could not be written
 */
bool
WriteFigureFiles(const FigureOptions& o,
                 const std::vector<CtHoFigurePoint>& points,
                 const std::string& stem,
                 MeansByX& byX)
{
    std::ostringstream csv;
    csv << "x,scheme,mean_delay_s,ci95_s,runs\n" << std::setprecision(9);
    std::vector<FigurePoint> plotted;
    for (const auto& p : points)
    {
        csv << p.x << "," << p.scheme << "," << p.mean << "," << p.ci95 << "," << p.runs << "\n";
        plotted.push_back(
            {p.x, p.scheme, p.mean, p.ci95, p.scheme.find("-packet") != std::string::npos});
        byX[p.x][p.scheme] = p.mean;
    }
    return WriteFigure(stem,
                       csv.str(),
                       CtHoFigures::Title(o.figure, o.base, o.packetLevel ? o.packetRuns : 0),
                       CtHoFigures::XLabel(o.figure),
                       CtHoFigures::YLabel(o.figure),
                       plotted);
}

/**
 * \brief Print each point's mean worst-user delay per scheme (the CSV has the CIs too) and
 *        the largest tHO/ctHO and cHO/ctHO ratios over the sweep (the paper's "up to 3.7x /
 *        3.1x" at a glance).
 * \param figure the figure
 * \param byX each point's mean per scheme
 */
void
PrintSweepSummary(const std::string& figure, const MeansByX& byX)
{
    double thoRatio = 0;
    double choRatio = 0;
    double thoAt = 0;
    double choAt = 0;
    for (const auto& [x, m] : byX)
    {
        if (!m.count("ctho") || !m.count("tho") || !m.count("cho") || m.at("ctho") <= 0)
        {
            continue;
        }
        if (m.at("tho") / m.at("ctho") > thoRatio)
        {
            thoRatio = m.at("tho") / m.at("ctho");
            thoAt = x;
        }
        if (m.at("cho") / m.at("ctho") > choRatio)
        {
            choRatio = m.at("cho") / m.at("ctho");
            choAt = x;
        }
    }
    for (const auto& [x, m] : byX)
    {
        std::cout << std::defaultfloat << std::setprecision(6) << "fig" << figure << " x = " << x
                  << ":" << std::fixed << std::setprecision(4);
        for (const auto& [scheme, mean] : m)
        {
            std::cout << " " << scheme << " " << mean << " s";
        }
        std::cout << std::endl;
    }
    std::cout << std::defaultfloat << std::setprecision(4) << "fig" << figure
              << ": largest tHO/ctHO = " << thoRatio << " (x = " << thoAt
              << "), largest cHO/ctHO = " << choRatio << " (x = " << choAt << ")" << std::endl;
}

/**
 * \brief The program: parse, run the flow level (and the packet-level points), write the
 *        figure's files, print the summary.
 * \param argc the command line's argument count
 * \param argv the command line
 * \return the exit status: 0, 1 (a file could not be written), 2 (bad options)
 */
int
Main(int argc, char* argv[])
{
    FigureOptions o;
    if (const int status = ParseOptions(argc, argv, o); status != 0)
    {
        return status;
    }
    std::vector<CtHoFigurePoint> points =
        CtHoFigures::RunFlowLevel(o.figure, o.base, ProgressPrinter(o.figure));
    // --packetLevel with --figure=online is refused by CheckOptions.
    if (o.figure == "online")
    {
        PrintOnlineRatios(o);
    }
    else if (o.packetLevel && o.figure == "4")
    {
        AddPacketPointsFig4(o, points);
    }
    else if (o.packetLevel)
    {
        AddPacketPointsSweep(o, points);
    }

    const std::string stem = o.outputDir + "/fig" + o.figure;
    MeansByX byX;
    if (!WriteFigureFiles(o, points, stem, byX))
    {
        return 1;
    }
    if (o.figure != "online")
    {
        PrintSweepSummary(o.figure, byX);
    }
    std::cout << "wrote " << stem << ".csv, " << stem << ".plt, " << stem << ".png" << std::endl;
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    try
    {
        return Main(argc, argv);
    }
    catch (const std::invalid_argument& e)
    {
        // A configuration the scenarios refuse (e.g. an --ns3::EdgeLlmNode attribute that
        // does not fit the backhaul): nothing was written.
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::CTHO_FIGURES)
                  << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
}
