/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * impactho-figures: ImpactHO's Figs. 3-5 and Table II (Kim et al., 2026) at flow level,
 * Monte-Carlo with 95 % confidence intervals.
 *
 *   impactho-figures --figure=3a|3b|4a|4b|5a|5b|table2 [--runs=50] [--simTime=100]
 *                    [--outputDir=results/impactho-figures]
 *   impactho-figures --figure=bound [--runs=10] [--simTime=20]
 *
 * Figures write DIR/fig<id>.csv (x,scheme,mean_accuracy,ci95,starvation_rate,runs) and
 * DIR/fig<id>.png; table2 writes DIR/table2.csv (context_tokens,scheme,latency_ms); bound
 * writes DIR/figbound.csv (rho,series,mean,ci95,runs) and DIR/figbound.png.
 * Progress goes to stderr.
 */
#include "ns3/core-module.h"
#include "ns3/edge-llm-figure-writer.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/impactho-bound-scenario.h"
#include "ns3/impactho-fluid-scenario.h"
#include "ns3/impactho-packet-scenario.h"
#include "ns3/llm-model-profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// One curve: its name and how it sets up a run at sweep value x.
struct Curve
{
    std::string name;
    std::function<void(ImpactHoFluidConfig&, double)> set;
};

void
SetPolicy(ImpactHoFluidConfig& c, const std::string& policy)
{
    c.policy = policy;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string figure;
    uint32_t runs = 50;
    double simTime = 100;
    std::string outputDir = "results/impactho-figures";
    bool packetLevel = false;
    uint32_t packetRuns = 2;
    double packetSimTime = 10;
    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("ImpactHO's Figs. 3-5 and Table II at flow level.");
    options.AddValue("figure", "3a | 3b | 4a | 4b | 5a | 5b | table2 | bound", figure);
    options.AddValue("runs", "Monte-Carlo runs per point (>= 2)", runs);
    options.AddValue("simTime", "Simulated arrival time per run, s", simTime);
    options.AddValue("outputDir", "Where the CSV and PNG go", outputDir);
    options.AddValue("packetLevel",
                     "Add packet-level points of ours (backhaul transport: "
                     "--ns3::EdgeLlmNode::Transport, Tcp by default) at two x values",
                     packetLevel);
    options.AddValue("packetRuns", "Runs per packet-level point", packetRuns);
    options.AddValue("packetSimTime",
                     "Simulated arrival time per packet-level run, s",
                     packetSimTime);
    // Attribute defaults first: a bad one, or one the packet-level scenario sets per curve
    // (ImpactHoPacketScenario), is refused naming it and its valid range (exit 2).
    const std::string perCurve = "the figure sets it per curve and point";
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    if (!CheckAttributeArguments(argc,
                                 argv,
                                 {{"ns3::EdgeLlmNode::Model", perCurve},
                                  {"ns3::EdgeLlmNode::KvBits", perCurve},
                                  {"ns3::EdgeLlmNode::ImportanceOrder", perCurve},
                                  {"ns3::EdgeLlmNode::KvAccuracyLoss", perCurve},
                                  {"ns3::ImpactHoScheduler::Policy", perCurve},
                                  {"ns3::ImpactHoScheduler::Fallback", perCurve},
                                  {"ns3::ImpactHoScheduler::SlotLength", perCurve},
                                  {"ns3::ImpactHoScheduler::TransferWindow", perCurve}},
                                 std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);

    // Sweep, x label and curves of each figure (defaults: rho = 4, B = 20 Gbit/s,
    // dt = 100 ms, T_max = 500 ms, Qwen3-8B, contexts 4K/8K/16K).
    auto rho = [](ImpactHoFluidConfig& c, double x) { c.arrivalRate = x; };
    auto bw = [](ImpactHoFluidConfig& c, double x) { c.backhaulGbps = x; };
    auto dt = [](ImpactHoFluidConfig& c, double x) { c.slot = MilliSeconds(x); };
    auto tmax = [](ImpactHoFluidConfig& c, double x) { c.window = MilliSeconds(x); };
    auto baselines = [](std::function<void(ImpactHoFluidConfig&, double)> sweep) {
        std::vector<Curve> curves;
        for (const auto& [name, policy] :
             std::vector<std::pair<std::string, std::string>>{{"ours", "WaterFilling"},
                                                              {"ea", "Equal"},
                                                              {"wta", "Wta"},
                                                              {"pf", "Pf"}})
        {
            curves.push_back({name, [sweep, policy = policy](ImpactHoFluidConfig& c, double x) {
                                  sweep(c, x);
                                  SetPolicy(c, policy);
                              }});
        }
        return curves;
    };
    std::map<std::string, std::tuple<std::vector<double>, std::string, std::vector<Curve>>> figs;
    figs["3a"] = {{1, 2, 3, 4, 5, 6, 7, 8}, "Handover arrival rate rho (users/s)", baselines(rho)};
    figs["3b"] = {{10, 15, 20, 25, 30}, "Backhaul bandwidth B (Gbit/s)", baselines(bw)};
    figs["4a"] = {{20, 40, 60, 80, 100}, "Slot length dt (ms)", baselines(dt)};
    figs["4b"] = {{200, 400, 600, 800, 1000}, "Transfer window T_{max} (ms)", baselines(tmax)};
    figs["5a"] = {{1, 2, 3, 4, 5, 6, 7, 8},
                  "Handover arrival rate rho (users/s)",
                  {{"ours", rho}, {"random-order", [rho](ImpactHoFluidConfig& c, double x) {
                                       rho(c, x);
                                       c.importanceOrder = false;
                                   }}}};
    figs["5b"] = {{4, 6, 8, 10, 12},
                  "Handover arrival rate rho (users/s)",
                  {{"ours", rho},
                   {"ours-wta",
                    [rho](ImpactHoFluidConfig& c, double x) {
                        rho(c, x);
                        c.fallback = "CascadingWta";
                    }},
                   {"no-admission", [rho](ImpactHoFluidConfig& c, double x) {
                        rho(c, x);
                        c.fallback = "None";
                    }}}};
    try
    {
        if (figure != "table2" && figure != "bound" && !figs.count(figure))
        {
            throw std::invalid_argument(
                "--figure must be 3a, 3b, 4a, 4b, 5a, 5b, table2 or bound, got '" + figure + "'");
        }
        if (figure == "bound")
        {
            // The clairvoyant MILP grows with the arrivals: its own defaults, 10 runs of 20 s,
            // unless --runs / --simTime are given.
            auto given = [argc, argv](const std::string& name) {
                for (int i = 1; i < argc; ++i)
                {
                    const std::string a = argv[i];
                    if (a.rfind("--" + name + "=", 0) == 0 || a == "--" + name)
                    {
                        return true;
                    }
                }
                return false;
            };
            runs = given("runs") ? runs : 10;
            simTime = given("simTime") ? simTime : 20;
            if (simTime > 60)
            {
                throw std::invalid_argument(
                    "--simTime must be in (0, 60] s for --figure=bound (the MILP grows with it)");
            }
        }
        if (runs < 2 || runs > 100000)
        {
            throw std::invalid_argument("--runs must be in [2, 100000]");
        }
        if (!(simTime > 0 && simTime <= 1e5))
        {
            throw std::invalid_argument("--simTime must be in (0, 1e5] s");
        }
        if (packetLevel && (packetRuns < 1 || packetRuns > 1000))
        {
            throw std::invalid_argument("--packetRuns must be in [1, 1000]");
        }
        if (packetLevel && !(packetSimTime > 0 && packetSimTime <= 1000))
        {
            throw std::invalid_argument("--packetSimTime must be in (0, 1000] s");
        }
        CheckOutputDirectory(outputDir);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }

    if (figure == "bound")
    {
        // ImpactHO Sec. VI-E: the online allocator against the clairvoyant bound.
        try
        {
            return ImpactHoBoundScenario::Figure(runs, simTime, outputDir);
        }
        catch (const std::exception& e)
        {
            std::cerr << "error: " << e.what() << std::endl;
            return 1;
        }
    }

    if (figure == "table2")
    {
        // ImpactHO Table II: rho = 4 on t in [0, 1] s, T_max = inf, per-user latency:
        // re-prefill (own GPU), hybrid (ctHO split for one user, FCFS backhaul), ImpactHO
        // until 99 % of full accuracy.
        std::map<uint64_t, std::map<std::string, std::vector<double>>> lat;
        const double tokensPerSecond =
            20e9 / static_cast<double>(LlmModelProfile::FromPreset("qwen3-8b").BitsPerToken());
        for (uint32_t r = 1; r <= runs; ++r)
        {
            ImpactHoFluidConfig c;
            c.simTime = Seconds(1);
            c.window = Seconds(1e6);
            const ImpactHoFluidResult res = ImpactHoFluidScenario::Run(c, r);
            double backhaulFree = 0;
            for (const auto& u : res.users)
            {
                lat[u.contextTokens]["re-prefill"].push_back(
                    ImpactHoFluidScenario::RePrefillLatency(u.contextTokens));
                lat[u.contextTokens]["hybrid"].push_back(
                    ImpactHoFluidScenario::HybridLatency(u.contextTokens,
                                                         u.arrival,
                                                         backhaulFree,
                                                         tokensPerSecond));
                if (!std::isnan(u.latency99))
                {
                    lat[u.contextTokens]["impactho"].push_back(u.latency99);
                }
            }
        }
        std::ostringstream csv;
        csv << "context_tokens,scheme,latency_ms\n";
        std::cout << "Table II (per-user latency, ms; " << runs << " runs)\n";
        for (const auto& [c, schemes] : lat)
        {
            for (const auto& [scheme, v] : schemes)
            {
                const SampleSummary s = SummarizeSamples(v);
                csv << c << "," << scheme << "," << std::fixed << std::setprecision(1)
                    << 1000 * s.mean << "\n";
                std::cout << "  " << c << " tokens, " << scheme << ": " << std::fixed
                          << std::setprecision(1) << 1000 * s.mean << " ms\n";
            }
        }
        return WriteFileAtomically(outputDir + "/table2.csv", csv.str()) ? 0 : 1;
    }

    const auto& [xs, xLabel, curves] = figs.at(figure);
    std::ostringstream csv;
    csv << "x,scheme,mean_accuracy,ci95,starvation_rate,runs\n" << std::setprecision(9);
    std::vector<FigurePoint> points;
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t total = xs.size() * curves.size() * runs;
    uint64_t done = 0;
    for (std::size_t p = 0; p < xs.size(); ++p)
    {
        std::vector<double> ceiling;
        for (const auto& curve : curves)
        {
            std::vector<double> acc;
            std::vector<double> starved;
            for (uint32_t r = 1; r <= runs; ++r)
            {
                ImpactHoFluidConfig c;
                c.simTime = Seconds(simTime);
                curve.set(c, xs[p]);
                const ImpactHoFluidResult res = ImpactHoFluidScenario::Run(c, r);
                acc.push_back(res.meanAccuracy);
                starved.push_back(res.starvationRate);
                if (curve.name == "ours")
                {
                    ceiling.push_back(res.meanFullAccuracy);
                }
            }
            done += runs;
            const SampleSummary s = SummarizeSamples(acc);
            const SampleSummary st = SummarizeSamples(starved);
            csv << xs[p] << "," << curve.name << "," << s.mean << "," << s.ci95 << "," << st.mean
                << "," << s.n << "\n";
            points.push_back({xs[p], curve.name, 100 * s.mean, 100 * s.ci95, false});
        }
        if (!ceiling.empty() && figure != "5b" && figure != "5a")
        {
            const SampleSummary s = SummarizeSamples(ceiling);
            csv << xs[p] << ",full-cache," << s.mean << "," << s.ci95 << ",0," << s.n << "\n";
            points.push_back({xs[p], "full-cache", 100 * s.mean, 100 * s.ci95, false});
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cerr << "[fig" << figure << "] point " << p + 1 << "/" << xs.size() << ", runs "
                  << done << "/" << total << ", " << std::fixed << std::setprecision(1) << elapsed
                  << " s elapsed, ~" << elapsed * (total - done) / std::max<uint64_t>(done, 1)
                  << " s left" << std::endl;
    }
    if (packetLevel)
    {
        // Packet-level points of the first curve (ours) on the same runs' handovers.
        for (double x : {xs[1], xs[xs.size() / 2]})
        {
            std::vector<double> packet;
            std::vector<double> fluid;
            std::vector<double> starved;
            for (uint32_t r = 1; r <= packetRuns; ++r)
            {
                ImpactHoFluidConfig c;
                c.simTime = Seconds(packetSimTime);
                curves.front().set(c, x);
                ImpactHoFluidResult pr;
                try
                {
                    pr = ImpactHoPacketScenario::Run(c, r);
                }
                catch (const std::invalid_argument& e)
                {
                    // Refused before simulating (e.g. an --ns3::EdgeLlmNode attribute that
                    // does not fit the backhaul); nothing has been written yet.
                    std::cerr << "error: " << e.what() << std::endl;
                    return 2;
                }
                packet.push_back(pr.meanAccuracy);
                starved.push_back(pr.starvationRate);
                fluid.push_back(ImpactHoFluidScenario::Run(c, r).meanAccuracy);
            }
            const SampleSummary ps = SummarizeSamples(packet);
            const SampleSummary fs = SummarizeSamples(fluid);
            // One run has no confidence interval: the ci95 field is left empty.
            csv << x << "," << curves.front().name << "-packet," << ps.mean << ","
                << (ps.n >= 2 ? std::to_string(ps.ci95) : std::string()) << ","
                << SummarizeSamples(starved).mean << "," << ps.n << "\n";
            points.push_back(
                {x, curves.front().name + "-packet", 100 * ps.mean, 100 * ps.ci95, true});
            std::cout << std::fixed << std::setprecision(2) << "packet level, x = " << x << ": "
                      << 100 * ps.mean << " % vs flow level " << 100 * fs.mean << " % on the same "
                      << packetRuns << " runs (" << std::showpos << 100 * (ps.mean - fs.mean)
                      << std::noshowpos << " pp)" << std::endl;
        }
    }
    const std::string stem = outputDir + "/fig" + figure;
    if (!WriteFigure(stem,
                     csv.str(),
                     "ImpactHO Fig. " + figure + " (" + std::to_string(runs) + " runs per point" +
                         (packetLevel ? ", packet level: " + std::to_string(packetRuns) : "") +
                         ", 95% CI)",
                     xLabel,
                     "Average accuracy (%)",
                     points))
    {
        return 1;
    }
    std::cout << csv.str() << "wrote " << stem << ".csv, " << stem << ".png" << std::endl;
    return 0;
}
