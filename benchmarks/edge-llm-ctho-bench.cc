/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-ctho-bench: speed of the ctHO planner and of the flow-level engine.
 *
 *  * CtHoPlanOptimal/K: the planner at K UEs (C_max = 4096); Google Benchmark fits
 *    its complexity (expected O(K log K): the search adds only log C_max passes).
 *  * CtHoBruteForce/K: the O(K^2 C_max) scan the tests use as reference, same inputs,
 *    printed as a ratio against the planner.
 *  * FlowLevelRun/K: one Monte-Carlo run of the paper's road through the flow-level
 *    engine (events, FluidBackhaul, PrefillEngine); runs/s, and the ratio against the
 *    closed-form plan of the same batch.
 *  * Figure3All: all of Fig. 3 (4 panels, 100 runs per point, 3 schemes), seconds.
 */
#include "../test/ctho-brute-force.h"

#include "ns3/ctho-figures.h"
#include "ns3/ctho-planner.h"
#include "ns3/fluid-handover-scenario.h"

#include <benchmark/benchmark.h>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>

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

/// Keeps each run's time per iteration (ns) for the closing ratios.
class RecordingReporter : public benchmark::ConsoleReporter
{
  public:
    void ReportRuns(const std::vector<Run>& runs) override
    {
        for (const auto& r : runs)
        {
            if (r.run_type == Run::RT_Iteration)
            {
                seconds[r.benchmark_name()] =
                    r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }

    std::map<std::string, double> seconds; //!< per iteration
};

} // namespace

int
main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    RecordingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    auto& s = reporter.seconds;
    auto ratio = [&s](const std::string& a, const std::string& b) {
        return s.count(a) && s.count(b) && s[b] > 0 ? s[a] / s[b] : 0.0;
    };
    std::cout << std::setprecision(4);
    std::cout << "planner_vs_bruteforce_k16=" << ratio("CtHoBruteForce/16", "CtHoPlanOptimal/16")
              << "x faster\n";
    std::cout << "planner_us_k65536=" << s["CtHoPlanOptimal/65536"] * 1e6 << "\n";
    std::cout << "flow_runs_per_s_k4=" << (s["FlowLevelRun/4"] > 0 ? 1 / s["FlowLevelRun/4"] : 0)
              << "\n";
    std::cout << "flow_vs_closed_form_k4=" << ratio("FlowLevelRun/4", "ClosedFormRun/4") << "\n";
    std::cout << "figure3_all_s=" << s["Figure3All/iterations:1"] << "\n";
    return 0;
}
