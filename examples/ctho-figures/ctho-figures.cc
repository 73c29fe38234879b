/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ctho-figures: reproduces ctHO's Figs. 3a-3d and 4 (Lee et al., arXiv:2603.28018)
 * with the flow-level engine, Monte-Carlo with 95 % confidence intervals, and
 * optional packet-level points (LTE X2 handovers; the backhaul transport is
 * ns3::EdgeLlmNode::Transport, TCP by default) on the same plot.
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
#include "ctho-figures-study.h"

#include "ns3/core-module.h"
#include "ns3/edge-llm-figure-writer.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/road-handover-scenario.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

/// The packet-level road scenario for a figure point.
RoadHandoverConfig
PacketConfig(const CtHoFigureSettings& s)
{
    RoadHandoverConfig cfg;
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

} // namespace

int Main(int argc, char* argv[]);

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
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
}

int
Main(int argc, char* argv[])
{
    std::string figure;
    uint32_t runs = 100;
    bool packetLevel = false;
    uint32_t packetRuns = 5;
    std::string outputDir = "results/ctho-figures";
    CtHoFigureSettings base;
    double prefillA = base.fluid.prefill.GetA();

    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("Reproduces ctHO's Figs. 3a-3d and 4 (flow level, optional packet-level points).");
    options.AddValue("figure", "3a | 3b | 3c | 3d | 4 | online", figure);
    options.AddValue("runs", "Monte-Carlo runs per point (>= 2)", runs);
    options.AddValue(
        "packetLevel",
        "Add packet-level points (LTE X2; transport: --ns3::EdgeLlmNode::Transport) for "
        "Figs. 3a-3d",
        packetLevel);
    options.AddValue("packetRuns",
                     "Runs per packet-level point (>= 2: the plotted 95 % CI needs two)",
                     packetRuns);
    options.AddValue("outputDir", "Where fig<id>.csv/.plt/.png go", outputDir);
    options.AddValue("backhaulGbps",
                     "Backhaul rate where not swept, Gbit/s",
                     base.fluid.backhaulGbps);
    options.AddValue("contextMin",
                     "Smallest drawn context C_min, tokens (C ~ U[C_min, C_max]; equal to "
                     "--contextMax: every UE has that context)",
                     base.road.contextMin);
    options.AddValue("contextMax", "C_max where not swept, tokens", base.road.contextMax);
    options.AddValue("numUes", "K where not swept", base.road.numUes);
    options.AddValue("prefillA", "Prefill slope a where not swept, s/token", prefillA);
    // Attribute defaults first: a bad one, or one the packet-level road scenario sets
    // itself, is refused naming it and its valid range (exit 2).
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    if (!CheckAttributeArguments(argc,
                                 argv,
                                 RoadHandoverScenario::GetAttributesSet(
                                     {{"backhaulGbps", "backhaulGbps"}, {"prefillA", "prefillA"}}),
                                 std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    base.runs = runs;
    base.fluid.prefill = PrefillTimeModel(prefillA, base.fluid.prefill.GetB(), 0.0);

    std::vector<double> xs;
    try
    {
        if (figure.empty())
        {
            throw std::invalid_argument("--figure is required: 3a, 3b, 3c, 3d, 4 or online");
        }
        xs = CtHoFigures::SweepValues(figure);
        if (runs < 2 || runs > 1000000)
        {
            throw std::invalid_argument("--runs must be in [2, 1000000] (a confidence interval "
                                        "needs two)");
        }
        if (packetRuns < 2 || packetRuns > 1000)
        {
            throw std::invalid_argument("--packetRuns must be in [2, 1000] (the packet-level "
                                        "points' 95 % confidence interval needs two runs)");
        }
        // The option a figure sweeps would be overwritten at every point: refuse it.
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
        edgellm::CheckBackhaulGbps("--backhaulGbps", base.fluid.backhaulGbps);
        if (packetLevel && figure == "online")
        {
            throw std::invalid_argument("--packetLevel applies to Figs. 3a-3d and 4, not to "
                                        "online");
        }
        base.road.Validate();
        if (figure == "3c" && base.road.contextMin > xs.front())
        {
            // Every point of the C_max sweep must keep C_min <= C_max.
            std::ostringstream what;
            what << "--contextMin must be in [1, " << xs.front() << "] for Fig. 3c (its C_max "
                 << "sweep starts at " << xs.front() << " tokens), got " << base.road.contextMin;
            throw std::invalid_argument(what.str());
        }
        CheckOutputDirectory(outputDir); // before any simulation runs
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }

    const auto t0 = std::chrono::steady_clock::now();
    uint32_t lastPoint = 0;
    double lastPrint = 0;
    auto progress = [&](uint32_t p, uint32_t n, uint64_t done, uint64_t total) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        // Each finished point, and every 10 s within a long one.
        if (p == lastPoint && elapsed - lastPrint < 10)
        {
            return;
        }
        lastPoint = p;
        lastPrint = elapsed;
        std::cerr << "[fig" << figure << "] points done " << p << "/" << n << ", runs " << done
                  << "/" << total << ", " << std::fixed << std::setprecision(1) << elapsed
                  << " s elapsed, ~" << elapsed * (total - done) / std::max<uint64_t>(done, 1)
                  << " s left" << std::endl;
    };
    std::vector<CtHoFigurePoint> points = CtHoFigures::RunFlowLevel(figure, base, progress);

    if (figure == "online")
    {
        // The ratio online / clairvoyant per run, summarized per look-ahead.
        for (double x : xs)
        {
            const CtHoFigureSettings s = CtHoFigures::AtPoint(figure, base, x);
            std::vector<double> ratios;
            for (uint64_t r = 1; r <= base.runs; ++r)
            {
                ratios.push_back(CtHoFigures::FlowLevelRun(figure, s, "ctho-online", r) /
                                 CtHoFigures::FlowLevelRun(figure, s, "ctho", r));
            }
            const SampleSummary sum = SummarizeSamples(ratios);
            std::cout << std::fixed << std::setprecision(4) << "look-ahead " << x
                      << " s: online / clairvoyant worst-user delay = " << sum.mean << " +- "
                      << sum.ci95 << " (95 % CI, " << sum.n << " runs)" << std::endl;
        }
    }
    if (packetLevel && figure == "online")
    {
        std::cerr << "note: the example edge-llm-lte-handover runs online ctHO over LTE "
                     "(--handoverAlgorithm); --figure=online is flow level only"
                  << std::endl;
    }
    else if (packetLevel && figure == "4")
    {
        // Fig. 4 over LTE's own radio: G tokens of 1000 B at 100 tokens/s, 6 RBs, 10 dBm,
        // log-distance path loss (exponent 3.5), so the radio, not the decoder, limits a
        // far UE; no-HO disables the handover. Within the source's coverage only (the UE
        // loses the source beyond ~350 m: radio link failure, no value).
        for (double x : {250.0, 300.0})
        {
            const CtHoFigureSettings s = CtHoFigures::AtPoint(figure, base, x);
            for (const std::string scheme : {"ctho", "no-ho"})
            {
                std::vector<double> packet;
                for (uint32_t r = 1; r <= packetRuns; ++r)
                {
                    RngSeedManager::SetRun(r);
                    RoadHandoverConfig cfg = PacketConfig(s);
                    cfg.bsDistance = x;
                    cfg.handoverDisabled = scheme == "no-ho";
                    cfg.streamTokens = base.streamTokens;
                    cfg.tokenBytes = 1000;
                    cfg.decodeRate = 100;
                    cfg.tokensAfterHandover = base.streamTokens + 1000;
                    cfg.pathlossModel = "ns3::LogDistancePropagationLossModel";
                    cfg.pathlossExponent = 3.5;
                    cfg.bandwidthRbs = 6;
                    cfg.bsTxPowerDbm = 10;
                    const RoadHandoverResult res =
                        RoadHandoverScenario::Run(cfg, CtHoFigures::SchedulerType("ctho"));
                    packet.push_back(res.streamWorst);
                }
                const SampleSummary ps = SummarizeSamples(packet);
                points.push_back({x, scheme + "-packet-lte", ps.mean, ps.ci95, ps.n});
                std::cout << std::fixed << std::setprecision(4)
                          << "packet level (LTE radio), D_bs = " << x << " m, " << scheme << ": "
                          << ps.mean << " s (" << packetRuns << " runs)" << std::endl;
            }
        }
    }
    else if (packetLevel)
    {
        const std::vector<double> px = {xs[1], xs[xs.size() / 2]};
        for (double x : px)
        {
            const CtHoFigureSettings s = CtHoFigures::AtPoint(figure, base, x);
            for (const auto& scheme : CtHoFigures::Schemes(figure))
            {
                std::vector<double> packet;
                std::vector<double> flow;
                for (uint32_t r = 1; r <= packetRuns; ++r)
                {
                    RngSeedManager::SetRun(r);
                    const RoadHandoverResult res =
                        RoadHandoverScenario::Run(PacketConfig(s),
                                                  CtHoFigures::SchedulerType(scheme));
                    double worst = 0;
                    for (const auto& ue : res.ues)
                    {
                        worst = std::max(worst, ue.restoredDelay);
                    }
                    packet.push_back(worst);
                    flow.push_back(CtHoFigures::FlowLevelRun(figure, s, scheme, r));
                }
                const SampleSummary ps = SummarizeSamples(packet);
                const SampleSummary fs = SummarizeSamples(flow);
                points.push_back({x, scheme + "-packet", ps.mean, ps.ci95, ps.n});
                std::ostringstream line;
                line << std::fixed << std::setprecision(4) << "packet level, x = " << x << ", "
                     << scheme << ": " << ps.mean << " s vs flow level " << fs.mean
                     << " s on the same " << packetRuns << " runs (" << std::showpos
                     << std::setprecision(2) << 100.0 * (ps.mean - fs.mean) / fs.mean << " %)";
                std::cout << line.str() << std::endl;
                std::cerr << "[fig" << figure << "] packet-level x = " << x << " " << scheme
                          << " done" << std::endl;
            }
        }
    }

    // CSV, gnuplot script, PNG.
    std::ostringstream csv;
    csv << "x,scheme,mean_delay_s,ci95_s,runs\n" << std::setprecision(9);
    std::vector<FigurePoint> plotted;
    std::map<double, std::map<std::string, double>> byX;
    for (const auto& p : points)
    {
        csv << p.x << "," << p.scheme << "," << p.mean << "," << p.ci95 << "," << p.runs << "\n";
        plotted.push_back(
            {p.x, p.scheme, p.mean, p.ci95, p.scheme.find("-packet") != std::string::npos});
        byX[p.x][p.scheme] = p.mean;
    }
    const std::string stem = outputDir + "/fig" + figure;
    if (!WriteFigure(stem,
                     csv.str(),
                     CtHoFigures::Title(figure, base, packetLevel ? packetRuns : 0),
                     CtHoFigures::XLabel(figure),
                     CtHoFigures::YLabel(figure),
                     plotted))
    {
        return 1;
    }

    // The paper's "up to 3.7x / 3.1x" at a glance.
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
    if (figure != "online")
    {
        // Each point's mean worst-user delay per scheme (the CSV has the CIs too).
        for (const auto& [x, m] : byX)
        {
            std::cout << std::defaultfloat << std::setprecision(6) << "fig" << figure
                      << " x = " << x << ":" << std::fixed << std::setprecision(4);
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
    std::cout << "wrote " << stem << ".csv, " << stem << ".plt, " << stem << ".png" << std::endl;
    return 0;
}
