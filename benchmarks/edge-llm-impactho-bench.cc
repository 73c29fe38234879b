/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-impactho-bench: time per backhaul slot of ImpactHO's weighted water-filling
 * (safeguarded Newton price search) at N = 10, 1e3, 1e4 users, in the feasible regime,
 * in the EB fallback and without admission, against equal allocation (EA) on the same
 * users as the baseline. Every user has its own parameters (context, M, k, tau, x).
 * The last lines print each size's time and its ratio to EA (target at N = 10,000:
 * <= 1.3, issue 12).
 */
#include "recording-reporter.h"

#include "ns3/slot-allocator.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <cmath>
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

/**
 * N algebraic users (ImpactHO Eq. (6)), each with its own parameters: Qwen3-8B cache
 * (1,179,648 bits per token) of 2^{11..15} tokens (continuous), M in [0.90, 0.96],
 * k in [20, 70], tau in [0.05, 0.10], received fraction in [0, 0.5].
 */
std::vector<SlotUser>
Users(std::size_t n)
{
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u01(0, 1);
    std::vector<SlotUser> users;
    for (std::size_t i = 0; i < n; ++i)
    {
        SlotUser u;
        u.userId = i;
        u.cacheBits = std::exp2(11 + 4 * u01(rng)) * 1179648.0;
        u.utility.family = AccuracyUtility::ALGEBRAIC;
        u.utility.asymptote = 0.90 + 0.06 * u01(rng);
        u.utility.sharpness = 20 + 50 * u01(rng);
        u.utility.inflection = 0.05 + 0.05 * u01(rng);
        u.received = 0.5 * u01(rng);
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

/// No admission in an infeasible slot: half of what lifts every user to tau.
void
WaterFillingNoAdmission(benchmark::State& state)
{
    const auto users = Users(static_cast<std::size_t>(state.range(0)));
    double need = 0;
    for (const auto& u : users)
    {
        need += u.cacheBits * std::max(0.0, u.utility.inflection - u.received);
    }
    for (auto _ : state)
    {
        benchmark::DoNotOptimize(
            SlotAllocator::WaterFilling(users, 0.5 * need, SlotAllocator::NO_ADMISSION).usedBits);
    }
}

BENCHMARK(WaterFillingNoAdmission)->Arg(10)->Arg(1000)->Arg(10000);

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
            std::cout << "allocator_us_per_slot_n" << n << "=" << s[wf] * 1e6 << " ea_us_per_slot_n"
                      << n << "=" << s[ea] * 1e6 << " wf_over_ea_n" << n << "=" << s[wf] / s[ea]
                      << "\n";
        }
        else
        {
            std::cout << "allocator_us_per_slot_n" << n << "=n/a\n";
        }
    }
    return 0;
}
