/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-impactho-bench: time per backhaul slot of ImpactHO's weighted water-filling
 * (TOMS 748 price search) at N = 10, 1e3, 1e4 users, in the feasible regime and in the
 * EB fallback, against equal allocation (EA) on the same users as the baseline.
 */
#include "recording-reporter.h"

#include "ns3/slot-allocator.h"

#include <algorithm>
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

/// N users of qwen3-8b with 4K/8K/16K contexts, fractions received in [0, 0.5].
std::vector<SlotUser>
Users(std::size_t n)
{
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int> pick(0, 2);
    std::uniform_real_distribution<double> x(0, 0.5);
    std::vector<SlotUser> users;
    for (std::size_t i = 0; i < n; ++i)
    {
        const uint64_t context = 4096ULL << pick(rng);
        SlotUser u;
        u.userId = i;
        u.cacheBits = static_cast<double>(context) * 1179648.0;
        u.received = x(rng);
        u.utility = AccuracyUtility::Preset(context);
        users.push_back(u);
    }
    return users;
}

/// A budget that is binding but feasible: a tenth of what the users still miss above tau.
double
FeasibleBudget(const std::vector<SlotUser>& users)
{
    double need = 0;
    double room = 0;
    for (const auto& u : users)
    {
        need += u.cacheBits * std::max(0.0, u.utility.inflection - u.received);
        room += u.cacheBits * (1 - std::max(u.received, u.utility.inflection));
    }
    return need + 0.1 * room;
}

void
WaterFilling(benchmark::State& state)
{
    const auto users = Users(static_cast<std::size_t>(state.range(0)));
    const double budget = FeasibleBudget(users);
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(SlotAllocator::WaterFilling(users, budget).price);
    }
    state.SetComplexityN(state.range(0));
}

BENCHMARK(WaterFilling)->Arg(10)->Arg(1000)->Arg(10000)->Complexity();

void
WaterFillingFallbackEb(benchmark::State& state)
{
    const auto users = Users(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(SlotAllocator::WaterFilling(users, 1.0).usedBits);
    }
}

BENCHMARK(WaterFillingFallbackEb)->Arg(10)->Arg(1000)->Arg(10000);

void
EqualAllocation(benchmark::State& state)
{
    const auto users = Users(static_cast<std::size_t>(state.range(0)));
    const double budget = FeasibleBudget(users);
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(SlotAllocator::EqualAllocation(users, budget).usedBits);
    }
}

BENCHMARK(EqualAllocation)->Arg(10)->Arg(1000)->Arg(10000);

} // namespace

int
main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    RecordingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    std::cout << std::setprecision(4);
    for (const char* n : {"10", "1000", "10000"})
    {
        const std::string wf = std::string("WaterFilling/") + n;
        const std::string ea = std::string("EqualAllocation/") + n;
        auto& s = reporter.seconds;
        if (s.count(wf) && s.count(ea))
        {
            std::cout << "allocator_us_per_slot_n" << n << "=" << s[wf] * 1e6 << " (x"
                      << s[wf] / s[ea] << " of EA)\n";
        }
        else
        {
            std::cout << "allocator_us_per_slot_n" << n << "=n/a\n";
        }
    }
    return 0;
}
