/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-ctho-bench: speed of the ctHO planner and of the flow-level engine.
 *
 *  * CtHoPlanOptimal/K: the planner at K UEs (C_max = 4096); Google Benchmark fits
 *    its complexity (expected O(K log K): the search adds only log C_max passes).
 *  * CtHoPlanOptimalSignalling/K: the same with the packet level's signalling (requests
 *    wait behind the KV in the send buffer), printed as a ratio against CtHoPlanOptimal/K.
 *  * CtHoBruteForce/K: the O(K^2 C_max) scan the tests use as reference, same inputs,
 *    printed as a ratio against the planner.
 *  * FlowLevelRun/K: one Monte-Carlo run of the paper's road through the flow-level
 *    core (FluidHandoverEngine); runs/s, and the ratio against the
 *    closed-form plan of the same batch.
 *  * Figure3All: all of Fig. 3 (4 panels, 100 runs per point, 3 schemes), seconds.
 */
#include "../examples/ctho-figures/ctho-figures-study.h"
#include "../examples/studies/fluid-handover-scenario.h"
#include "../test/ctho-brute-force.h"
#include "recording-reporter.h"

#include "ns3/ctho-planner.h"

#include <benchmark/benchmark.h>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

std::vector<CtHoUe>
RandomUes(std::size_t k, uint32_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> tau(1.0, 1.5);
    std::uniform_int_distribution<uint64_t> c(1024, 4096);
    std::vector<CtHoUe> ues;
    for (std::size_t i = 0; i < k; ++i)
    {
        ues.push_back({i, tau(rng), c(rng)});
    }
    return ues;
}

void
CtHoPlanOptimal(benchmark::State& state)
{
    const auto ues = RandomUes(static_cast<std::size_t>(state.range(0)), 1);
    const CtHoPlanner planner(9809.0, PrefillTimeModel::CtHoDefault(), 0.01);
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(planner.PlanOptimal(ues).worstDelay);
    }
    state.SetComplexityN(state.range(0));
}

BENCHMARK(CtHoPlanOptimal)->RangeMultiplier(4)->Range(4, 1 << 16)->Complexity();

void
CtHoPlanOptimalSignalling(benchmark::State& state)
{
    // The packet level's signalling on the study's default path (4.5 Gbit/s, a 512 KiB
    // send buffer: 0.93 ms; 100 us): each request may wait behind the KV already in the
    // buffer, and PlanOptimal evaluates every L where that wait varies.
    const auto ues = RandomUes(static_cast<std::size_t>(state.range(0)), 1);
    CtHoPlanner planner(9809.0, PrefillTimeModel::CtHoDefault(), 0.01);
    CtHoSignalling sig;
    sig.pathDelay = 1e-4;
    sig.requestTime = 2.2e-7;
    sig.idTimePerToken = 7.2e-9;
    sig.closeAhead = 9.3e-4;
    planner.SetSignalling(sig);
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(planner.PlanOptimal(ues).worstDelay);
    }
}

BENCHMARK(CtHoPlanOptimalSignalling)->Arg(16)->Arg(64)->Arg(1024);

void
CtHoBruteForce(benchmark::State& state)
{
    edgellmtest::CtHoInstance inst;
    inst.ues = RandomUes(static_cast<std::size_t>(state.range(0)), 1);
    inst.rate = 9809.0;
    inst.a = 9.4267e-5;
    inst.b = 2.4e-3;
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(edgellmtest::BruteForceMinimum(inst));
    }
}

BENCHMARK(CtHoBruteForce)->Arg(4)->Arg(16);

void
FlowLevelRun(benchmark::State& state)
{
    RoadUeDraw road;
    road.numUes = static_cast<uint32_t>(state.range(0));
    FluidHandoverConfig cfg;
    uint64_t run = 0;
    for (auto _ : state)
    {
        const auto ues = road.Draw(++run);
        benchmark::DoNotOptimize(FluidHandoverScenario::Run(cfg, ues).worstDelay);
    }
    state.counters["runs_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

BENCHMARK(FlowLevelRun)->Arg(4)->Arg(12);

void
ClosedFormRun(benchmark::State& state)
{
    RoadUeDraw road;
    road.numUes = static_cast<uint32_t>(state.range(0));
    const CtHoPlanner planner(4.5e9 / 458752.0, PrefillTimeModel::CtHoDefault(), 0.01);
    uint64_t run = 0;
    for (auto _ : state)
    {
        const auto ues = road.Draw(++run);
        benchmark::DoNotOptimize(planner.PlanOptimal(ues).worstDelay);
    }
}

BENCHMARK(ClosedFormRun)->Arg(4)->Arg(12);

void
Figure3All(benchmark::State& state)
{
    CtHoFigureSettings base;
    base.runs = 100;
    for (auto _ : state)
    {
        for (const std::string figure : {"3a", "3b", "3c", "3d"})
        {
            benchmark::DoNotOptimize(CtHoFigures::RunFlowLevel(figure, base, nullptr).size());
        }
    }
}

BENCHMARK(Figure3All)->Iterations(1)->Unit(benchmark::kSecond);

} // namespace

int
main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    RecordingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    auto& s = reporter.seconds;
    // A figure whose benchmarks were filtered out prints n/a, never a made-up 0.
    auto show =
        [&s](const std::string& name, const std::string& a, const std::string& b, double scale) {
            std::cout << name << "=";
            if (!s.count(a) || (!b.empty() && !s.count(b)))
            {
                std::cout << "n/a\n";
                return;
            }
            std::cout << (b.empty() ? s[a] * scale : s[a] / s[b] * scale) << "\n";
        };
    std::cout << std::setprecision(4);
    show("planner_vs_bruteforce_k16", "CtHoBruteForce/16", "CtHoPlanOptimal/16", 1);
    show("planner_us_k65536", "CtHoPlanOptimal/65536", "", 1e6);
    show("signalling_vs_none_k16", "CtHoPlanOptimalSignalling/16", "CtHoPlanOptimal/16", 1);
    show("signalling_vs_none_k1024", "CtHoPlanOptimalSignalling/1024", "CtHoPlanOptimal/1024", 1);
    if (s.count("FlowLevelRun/4"))
    {
        std::cout << "flow_runs_per_s_k4=" << 1 / s["FlowLevelRun/4"] << "\n";
    }
    else
    {
        std::cout << "flow_runs_per_s_k4=n/a\n";
    }
    show("flow_vs_closed_form_k4", "FlowLevelRun/4", "ClosedFormRun/4", 1);
    show("figure3_all_s", "Figure3All/iterations:1", "", 1);
    return 0;
}
