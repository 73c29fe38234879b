/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Property tests of the ctHO math layer (doc/edge-llm-design.rst, Model Description: KV cache
 * size, Prefill time, ctHO delay), driven directly with no simulator.
 */
#include "../ctho-brute-force.h"

#include "ns3/ctho-planner.h"
#include "ns3/llm-model-profile.h"
#include "ns3/prefill-time-model.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>
#include <utility>

using namespace ns3;
using ns3::edgellmtest::BruteForceMinimum;
using ns3::edgellmtest::BruteForceValue;
using ns3::edgellmtest::CtHoInstance;
using ns3::edgellmtest::RandomInstance;

namespace
{

CtHoPlanner
PlannerFor(const CtHoInstance& inst)
{
    return CtHoPlanner(inst.rate, PrefillTimeModel(inst.a, inst.b, inst.c), inst.batchPeriod);
}

class CtHoRandomInstance : public ::testing::TestWithParam<uint32_t>
{
};

// The planner's L* attains the brute-force minimum of V over every L.
TEST_P(CtHoRandomInstance, OptimalMatchesBruteForce)
{
    const CtHoInstance inst = RandomInstance(GetParam());
    uint64_t bruteL = 0;
    const double best = BruteForceMinimum(inst, &bruteL);
    const CtHoPlan plan = PlannerFor(inst).PlanOptimal(inst.ues);
    EXPECT_NEAR(plan.worstDelay, best, 1e-9 * std::max(1.0, best));
    EXPECT_NEAR(BruteForceValue(inst, plan.prefillLength), best, 1e-9 * std::max(1.0, best));
}

// The FIFO schedule's per-UE delays realize V(L): max_i D_i = max(f(L), g(L)),
// at every L (not just L*), and f / g match their definitions.
TEST_P(CtHoRandomInstance, PerUeDelaysRealizeValue)
{
    const CtHoInstance inst = RandomInstance(GetParam());
    const CtHoPlanner planner = PlannerFor(inst);
    uint64_t cmax = 0;
    for (const auto& ue : inst.ues)
    {
        cmax = std::max(cmax, ue.contextTokens);
    }
    for (uint64_t l : {uint64_t{0}, uint64_t{1}, cmax / 3, cmax / 2, cmax})
    {
        const CtHoPlan plan = planner.PlanWithPrefillLength(inst.ues, l);
        double worst = 0;
        for (std::size_t i = 0; i < plan.ues.size(); ++i)
        {
            const auto& u = plan.ues[i];
            EXPECT_EQ(u.ueId, inst.ues[i].ueId);
            EXPECT_EQ(u.prefillTokens + u.transferTokens, inst.ues[i].contextTokens);
            EXPECT_EQ(u.prefillTokens, std::min<uint64_t>(l, inst.ues[i].contextTokens));
            EXPECT_GE(u.delay, -1e-12);
            worst = std::max(worst, u.delay);
        }
        EXPECT_NEAR(worst, BruteForceValue(inst, l), 1e-9);
        EXPECT_NEAR(plan.worstDelay, std::max(plan.prefillDelay, plan.transferDelay), 1e-12);
    }
}

// The result does not depend on the order the UEs are given in.
TEST_P(CtHoRandomInstance, InvariantUnderInputOrder)
{
    CtHoInstance inst = RandomInstance(GetParam());
    const CtHoPlan forward = PlannerFor(inst).PlanOptimal(inst.ues);
    std::reverse(inst.ues.begin(), inst.ues.end());
    const CtHoPlan backward = PlannerFor(inst).PlanOptimal(inst.ues);
    EXPECT_NEAR(forward.worstDelay, backward.worstDelay, 1e-12);
}

// ctHO is never worse than tHO (L = C_max) or cHO (L = 0).
TEST_P(CtHoRandomInstance, NoWorseThanBaselines)
{
    const CtHoInstance inst = RandomInstance(GetParam());
    const CtHoPlanner planner = PlannerFor(inst);
    uint64_t cmax = 0;
    for (const auto& ue : inst.ues)
    {
        cmax = std::max(cmax, ue.contextTokens);
    }
    const double ctho = planner.PlanOptimal(inst.ues).worstDelay;
    EXPECT_LE(ctho, planner.PlanWithPrefillLength(inst.ues, cmax).worstDelay + 1e-12);
    EXPECT_LE(ctho, planner.PlanWithPrefillLength(inst.ues, 0).worstDelay + 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CtHoRandomInstance, ::testing::Range(1000u, 1100u));

TEST(CtHoPlanner, SingleUeBalancesPrefillAndTransfer)
{
    // K = 1, tau = 0, C = 1000, R = 1000 tokens/s, p(L) = 0.001 L, T_c = 0:
    // f(L) = 0.001 L, g(L) = (1000 - L) / 1000 -> L* = 500, V = 0.5 s.
    const CtHoPlanner planner(1000.0, PrefillTimeModel(0.001, 0.0, 0.0), 0.0);
    const CtHoPlan plan = planner.PlanOptimal({{7, 0.0, 1000}});
    EXPECT_EQ(plan.prefillLength, 500u);
    EXPECT_NEAR(plan.worstDelay, 0.5, 1e-12);
}

TEST(CtHoPlanner, ZeroPrefillLengthNeedsNoBatch)
{
    const CtHoPlanner planner(1000.0, PrefillTimeModel(1.0, 1.0, 0.0), 0.01);
    const CtHoPlan plan = planner.PlanOptimal({{1, 0.5, 10}, {2, 0.5, 20}});
    // Prefill of any length costs >= 1 s; sending 30 tokens costs 0.03 s.
    EXPECT_EQ(plan.prefillLength, 0u);
    EXPECT_NEAR(plan.worstDelay, 0.03, 1e-12);
    EXPECT_DOUBLE_EQ(plan.ues[0].prefillDone, 0.5); // nothing to prefill: done at tau
}

TEST(CtHoPlanner, BatchStartsOnTheNextBoundary)
{
    const CtHoPlanner planner(1000.0, PrefillTimeModel(), 0.01);
    EXPECT_NEAR(planner.BatchStart(1.0), 1.0, 1e-12);
    EXPECT_NEAR(planner.BatchStart(1.001), 1.01, 1e-12);
    EXPECT_NEAR(planner.BatchStart(0.0), 0.0, 1e-12);
}

TEST(CtHoPlanner, RejectsBadInput)
{
    EXPECT_THROW(CtHoPlanner(0.0, PrefillTimeModel(), 0.01), std::invalid_argument);
    EXPECT_THROW(CtHoPlanner(-1.0, PrefillTimeModel(), 0.01), std::invalid_argument);
    EXPECT_THROW(CtHoPlanner(1.0, PrefillTimeModel(), -0.01), std::invalid_argument);
    const CtHoPlanner planner(1000.0, PrefillTimeModel(), 0.01);
    EXPECT_THROW(planner.PlanOptimal({}), std::invalid_argument);
    EXPECT_THROW(planner.PlanOptimal({{1, -1.0, 10}}), std::invalid_argument);
    EXPECT_THROW(planner.PlanOptimal({{1, 1.0, 0}}), std::invalid_argument);
}

/// The message PrefillTimeModel::CheckCoefficients throws for a, b, c named by a config
/// ("" if it accepts them).
std::string
CoefficientError(double a, double b, double c)
{
    try
    {
        PrefillTimeModel::CheckCoefficients(a, b, c, "prefillA", "prefillB", "prefillC");
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

// The one check of the prefill coefficients, at each edge of each range and just past it,
// with the caller's names; the constructor refuses the same values with its own names.
TEST(PrefillTimeModel, CoefficientRangesAtBothSides)
{
    EXPECT_EQ(CoefficientError(0, -3600, 0), "");
    EXPECT_EQ(CoefficientError(1, 3600, 1e-3), "");
    EXPECT_EQ(CoefficientError(1.0000001, 0, 0),
              "prefillA must be in [0, 1] s/token, got 1.0000001");
    EXPECT_EQ(CoefficientError(-1e-12, 0, 0), "prefillA must be in [0, 1] s/token, got -1e-12");
    EXPECT_EQ(CoefficientError(0, 3600.5, 0), "prefillB must be in [-3600, 3600] s, got 3600.5");
    EXPECT_EQ(CoefficientError(0, -3600.5, 0), "prefillB must be in [-3600, 3600] s, got -3600.5");
    EXPECT_EQ(CoefficientError(0, 0, 0.0010001),
              "prefillC must be in [0, 1e-3] s/token^2, got 0.0010001");
    EXPECT_THROW(PrefillTimeModel(1.0000001, 0, 0), std::invalid_argument);
    try
    {
        PrefillTimeModel bad(0, 0, -1);
        FAIL() << "c = -1 accepted";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "prefill quadratic coefficient c must be in [0, 1e-3] s/token^2, got -1");
    }
}

TEST(PrefillTimeModel, LinearQuadraticAndZero)
{
    const PrefillTimeModel ctho = PrefillTimeModel::CtHoDefault();
    EXPECT_DOUBLE_EQ(ctho.Evaluate(0), 0.0);
    EXPECT_NEAR(ctho.Evaluate(1000), 9.4267e-5 * 1000 + 2.4e-3, 1e-15);
    // ImpactHO Table II: Qwen3-8B re-prefill 300 / 676 / 1566 ms at 4K / 8K / 16K.
    const PrefillTimeModel q = PrefillTimeModel::ImpactHoQwen3_8b();
    EXPECT_NEAR(q.Evaluate(4096), 0.300, 0.02);
    EXPECT_NEAR(q.Evaluate(8192), 0.676, 0.02);
    EXPECT_NEAR(q.Evaluate(16384), 1.566, 0.03);
    EXPECT_DOUBLE_EQ(q.Evaluate(1), 0.0); // b < 0: a batch never takes negative time
    EXPECT_THROW(PrefillTimeModel(-1e-5, 0, 0), std::invalid_argument);
    EXPECT_THROW(PrefillTimeModel(1e-5, 0, -1), std::invalid_argument);
}

TEST(LlmModelProfile, PresetsAndErrors)
{
    // doc/edge-llm-design.rst, KV cache size: the presets' table, q = 16.
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen2.5-7b-instruct").BitsPerToken(), 458752u);
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen3-8b").BitsPerToken(), 1179648u);
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen3-14b").BitsPerToken(), 1310720u);
    EXPECT_EQ(LlmModelProfile::FromPreset("llama-3.1-8b-instruct").BitsPerToken(), 1048576u);
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen3-8b", 8).BytesPerToken(), 1179648u / 16);
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen3-8b").EntriesPerToken(), 36u * 8u);
    try
    {
        LlmModelProfile::FromPreset("gpt-5");
        FAIL() << "an unknown model must throw";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("qwen3-8b"), std::string::npos)
            << "the message lists the valid models";
    }
    EXPECT_THROW(LlmModelProfile::FromPreset("qwen3-8b", 12), std::invalid_argument);
}

TEST(LlmModelProfile, ContextWindowAtBothSides)
{
    // The model cards (LlmModelProfile's comment): 131,072 tokens each, Qwen's with YaRN
    // over a native 32,768.
    const std::pair<const char*, uint64_t> native[] = {{"qwen2.5-7b-instruct", 32768},
                                                       {"qwen3-8b", 32768},
                                                       {"qwen3-14b", 32768},
                                                       {"llama-3.1-8b-instruct", 131072}};
    for (const auto& [name, nativeWindow] : native)
    {
        const LlmModelProfile p = LlmModelProfile::FromPreset(name);
        EXPECT_EQ(p.contextWindow, 131072u) << name;
        EXPECT_EQ(p.nativeContextWindow, nativeWindow) << name;
        EXPECT_NO_THROW(p.CheckContext("contextMax", 131072, false)) << name << ": the window";
        EXPECT_THROW(p.CheckContext("contextMax", 131073, false), std::invalid_argument)
            << name << ": one more";
        EXPECT_NO_THROW(p.CheckContext("contextMax", 2000000, true)) << name << ": allowed";
        EXPECT_EQ(p.BeyondContextNote(131072), "") << name << ": nothing to say at the window";
    }
    const LlmModelProfile llama = LlmModelProfile::FromPreset("llama-3.1-8b-instruct");
    try
    {
        llama.CheckContext("--promptMax", 2000000, false);
        FAIL() << "2M tokens for a 128K model must throw";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "--promptMax = 2000000 tokens exceeds the context window of "
                  "llama-3.1-8b-instruct (131072 tokens); set allowBeyondContextWindow to "
                  "simulate it anyway");
    }
    EXPECT_EQ(llama.BeyondContextNote(131073),
              "note: contexts up to 131073 tokens exceed the context window of "
              "llama-3.1-8b-instruct (131072 tokens): allowed by allowBeyondContextWindow");
    LlmModelProfile handMade; // no window known: not checked
    EXPECT_NO_THROW(handMade.CheckContext("contextMax", 2000000, false));
}

} // namespace

// A batch of n members prefilled in turn (a ServingGpu): slope and quadratic coefficient
// times n, the constant kept; each capped at its range's top.
TEST(PrefillTimeModel, InTurnScalesTheSlopeByMembers)
{
    const PrefillTimeModel p(1e-4, 2e-3, 1e-9);
    const PrefillTimeModel three = p.InTurn(3);
    EXPECT_DOUBLE_EQ(three.GetA(), 3e-4);
    EXPECT_DOUBLE_EQ(three.GetB(), 2e-3);
    EXPECT_DOUBLE_EQ(three.GetC(), 3e-9);
    EXPECT_DOUBLE_EQ(p.InTurn(1).GetA(), 1e-4);
    EXPECT_DOUBLE_EQ(p.InTurn(0).GetA(), 1e-4); // no member: one's
    const PrefillTimeModel big(0.6, 0, 6e-4);
    EXPECT_DOUBLE_EQ(big.InTurn(2).GetA(), 1.0);
    EXPECT_DOUBLE_EQ(big.InTurn(2).GetC(), 1e-3);
}
