/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GpuIterationModel and ContinuousBatchingGpu (doc/edge-llm-design.rst, "A GPU shared by
 * many users"): iteration times by hand, the presets against their sources (ctHO's p(L),
 * ImpactHO Table II's re-prefill times, the datasheet and model constants), the batching
 * (budget split, chunks, prefixes, first tokens, held sequences, priority, maxRunning,
 * memory admission, idle-cache eviction, removal mid-iteration) traced by hand, the mean
 * time in system of a Poisson stream against M/D/1's closed form, and every refusal on both
 * sides of its rule.
 */
#include "../../model/continuous-batching-gpu.h"
#include "../../model/gpu-iteration-model.h"
#include "edge-llm-gtest-util.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Round numbers for hand traces: c0 = 10 ms, c_p = 1 ms, c_d = 2 ms, c_kv = 10 us.
GpuIterationModel
Simple(uint64_t budget, uint32_t maxRunning = 100, uint64_t memory = 1000000)
{
    GpuIterationModel m;
    m.c0 = 0.01;
    m.cPrefill = 0.001;
    m.cDecode = 0.002;
    m.cKv = 1e-5;
    m.tokenBudget = budget;
    m.maxRunning = maxRunning;
    m.kvMemoryBytes = memory;
    return m;
}

/// A spec.
GpuSequenceSpec
Spec(uint64_t prefill,
     uint64_t decode,
     uint64_t cached = 0,
     bool priority = false,
     bool held = false)
{
    GpuSequenceSpec s;
    s.cachedTokens = cached;
    s.prefillTokens = prefill;
    s.decodeTokens = decode;
    s.priority = priority;
    s.held = held;
    return s;
}

/// Events as "id:kind:decoded" joined by spaces (kinds P, T, F).
std::string
Text(const std::vector<GpuEvent>& events)
{
    std::string out;
    for (const auto& e : events)
    {
        const char kind =
            e.kind == GpuEvent::PREFILL_DONE ? 'P' : (e.kind == GpuEvent::TOKEN ? 'T' : 'F');
        out += (out.empty() ? "" : " ") + std::to_string(e.id) + ":" + kind + ":" +
               std::to_string(e.decoded);
    }
    return out;
}

/// Expect an iteration's P, B, K and its duration (t computed by hand by the caller).
void
ExpectIteration(const GpuIteration& it, uint64_t p, uint64_t b, uint64_t k, double t)
{
    EXPECT_EQ(it.prefillTokens, p);
    EXPECT_EQ(it.decodeSequences, b);
    EXPECT_EQ(it.kvTokensRead, k);
    EXPECT_NEAR(it.duration, t, 1e-12);
}

} // namespace

// ---------------------------------------------------------------- iteration model

TEST(GpuIterationModel, MixedIterationByHand)
{
    const GpuIterationModel m; // ctho-a100's constants
    // P = 1000, B = 20, K = 50000: 2.4e-3 + 0.094267 + 0.00188534 + 0.0014062 s.
    EXPECT_NEAR(m.IterationTime(1000, 20, 50000), 0.09995854, 1e-12);
    // One decode step of a 3000-token context: 2.4e-3 + 9.4267e-5 + 8.4372e-5 s.
    EXPECT_NEAR(m.IterationTime(0, 1, 3000), 0.002578639, 1e-12);
    // No work: no time, whatever K says.
    EXPECT_EQ(m.IterationTime(0, 0, 0), 0.0);
    EXPECT_EQ(m.IterationTime(0, 0, 12345), 0.0);
    const GpuIterationModel s = Simple(10);
    EXPECT_NEAR(s.IterationTime(7, 3, 100), 0.01 + 0.007 + 0.006 + 0.001, 1e-15);
}

TEST(GpuIterationModel, CthoPresetIsThePapersPrefillModel)
{
    const GpuIterationModel m = GpuIterationModel::FromPreset("ctho-a100");
    // ctHO Sec. IV-A: p(L) = a L + b, a = 9.4267e-5 s/token, b = 2.4e-3 s.
    for (const uint64_t l : {1ULL, 300ULL, 1024ULL, 3072ULL})
    {
        EXPECT_NEAR(m.IterationTime(l, 0, 0), 9.4267e-5 * l + 2.4e-3, 1e-15) << l;
    }
    EXPECT_NEAR(m.IterationTime(3072, 0, 0), 0.291988224, 1e-12);
    // The default model is this preset.
    const GpuIterationModel d;
    EXPECT_EQ(d.c0, m.c0);
    EXPECT_EQ(d.cPrefill, m.cPrefill);
    EXPECT_EQ(d.cDecode, m.cDecode);
    EXPECT_EQ(d.cKv, m.cKv);
    EXPECT_EQ(d.tokenBudget, m.tokenBudget);
    EXPECT_EQ(d.maxRunning, m.maxRunning);
    EXPECT_EQ(d.kvMemoryBytes, m.kvMemoryBytes);
    EXPECT_EQ(GpuIterationModel::PresetNames().front(), "ctho-a100");
    // Its constants from their sources: a decode token costs a prefill token; Qwen2.5-7B's
    // 2 x 28 x 4 x 128 x 2 = 57344 B per token (458752 bit) over 2.039e12 B/s; vLLM's
    // 2048 / 256 on an A100; 0.9 x 80e9 - 7.615e9 x 2 bytes.
    EXPECT_EQ(m.cDecode, 9.4267e-5);
    EXPECT_EQ(2 * 28 * 4 * 128 * 2, 57344);
    EXPECT_EQ(57344 * 8, 458752);
    EXPECT_NEAR(m.cKv, 57344 / 2.039e12, 5e-13);
    EXPECT_EQ(m.tokenBudget, 2048U);
    EXPECT_EQ(m.maxRunning, 256U);
    EXPECT_NEAR(static_cast<double>(m.kvMemoryBytes), 0.9 * 80e9 - 2 * 7.615e9, 5e6);
    EXPECT_NO_THROW(m.Validate());
}

TEST(GpuIterationModel, ImpactHoPresetAgainstTableTwo)
{
    const GpuIterationModel m = GpuIterationModel::FromPreset("impactho-qwen3-8b-a100");
    EXPECT_NO_THROW(m.Validate());
    // Sources: Qwen3-8B's 2 x 36 x 8 x 128 x 2 = 147456 B per token over 2.039e12 B/s; the
    // weights (8.19e9 x 2 bytes) streamed once per iteration for c0; 0.9 x 80e9 - 16.38e9.
    EXPECT_EQ(2 * 36 * 8 * 128 * 2, 147456);
    EXPECT_NEAR(m.cKv, 147456 / 2.039e12, 5e-13);
    EXPECT_NEAR(m.c0, 2 * 8.19e9 / 2.039e12, 5e-8);
    EXPECT_EQ(m.kvMemoryBytes, 55620000000ULL);
    EXPECT_EQ(m.tokenBudget, 2048U);
    EXPECT_EQ(m.maxRunning, 256U);
    EXPECT_EQ(m.cDecode, m.cPrefill);

    // A one-sequence chunked prefill of L tokens at the budget T = 2048, summed by hand:
    // chunk i (of n = L / T) costs c0 + c_p T + c_kv i T.
    const double T = 2048;
    const std::vector<double> lengths{4096, 8192, 16384};
    const std::vector<double> tableTwo{0.300, 0.676, 1.566};      // ImpactHO Table II, s
    const std::vector<double> residuals{0.0762, 0.0770, -0.0576}; // stated in the doc, s
    std::vector<double> byHand;
    double normal = 0; // sum of L_i r_i: 0 at the least-squares slope
    for (std::size_t i = 0; i < lengths.size(); ++i)
    {
        double t = 0;
        for (double prefix = 0; prefix < lengths[i]; prefix += T)
        {
            t += m.c0 + m.cPrefill * T + m.cKv * prefix;
        }
        byHand.push_back(t);
        EXPECT_NEAR(t - tableTwo[i], residuals[i], 5e-4) << lengths[i];
        normal += lengths[i] * (t - tableTwo[i]);
    }
    // Least squares in s = c_p + c0 / T: sum L_i r_i / sum L_i^2 is the slope's error, here
    // within the rounding of the published constants.
    EXPECT_LT(std::fabs(normal) / (4096.0 * 4096 + 8192.0 * 8192 + 16384.0 * 16384), 1e-9);

    // The GPU class on one sequence gives the same times.
    for (std::size_t i = 0; i < lengths.size(); ++i)
    {
        ContinuousBatchingGpu gpu(m, 147456);
        ASSERT_TRUE(gpu.Add(7, Spec(static_cast<uint64_t>(lengths[i]), 1)));
        double t = 0;
        uint32_t iterations = 0;
        bool done = false;
        while (gpu.HasWork())
        {
            t += gpu.BeginIteration().duration;
            ++iterations;
            for (const auto& e : gpu.EndIteration())
            {
                done = done || e.kind == GpuEvent::PREFILL_DONE;
            }
        }
        EXPECT_TRUE(done);
        EXPECT_EQ(iterations, static_cast<uint32_t>(lengths[i] / T));
        EXPECT_NEAR(t, byHand[i], 1e-12);
        EXPECT_NEAR(t - tableTwo[i], residuals[i], 5e-4);
    }
}

TEST(GpuIterationModel, ValidateEveryFieldBothSides)
{
    const auto errorWith = [](auto set) {
        GpuIterationModel m;
        set(m);
        return edgellmtest::ErrorOf([&] { m.Validate(); });
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto below = [](double v) { return std::nextafter(v, -1e300); };
    const auto above = [](double v) { return std::nextafter(v, 1e300); };

    // c0 in [0, 10]
    EXPECT_EQ(errorWith([](auto& m) { m.c0 = 0; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.c0 = 10; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.c0 = -0.001; }), "c0 must be in [0, 10], got -0.001");
    EXPECT_EQ(errorWith([&](auto& m) { m.c0 = below(0.0); }), "c0 must be in [0, 10], got -5e-324");
    EXPECT_EQ(errorWith([&](auto& m) { m.c0 = above(10.0); }),
              "c0 must be in [0, 10], got 10.000000000000002");
    EXPECT_EQ(errorWith([&](auto& m) { m.c0 = nan; }), "c0 must be in [0, 10], got nan");
    // cPrefill, cDecode in [0, 1]
    EXPECT_EQ(errorWith([](auto& m) { m.cPrefill = 0; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.cPrefill = 1; }), "");
    EXPECT_EQ(errorWith([&](auto& m) { m.cPrefill = below(0.0); }),
              "cPrefill must be in [0, 1], got -5e-324");
    EXPECT_EQ(errorWith([](auto& m) { m.cPrefill = 1.5; }), "cPrefill must be in [0, 1], got 1.5");
    EXPECT_EQ(errorWith([&](auto& m) { m.cPrefill = nan; }), "cPrefill must be in [0, 1], got nan");
    EXPECT_EQ(errorWith([](auto& m) { m.cDecode = 0; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.cDecode = 1; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.cDecode = -1; }), "cDecode must be in [0, 1], got -1");
    EXPECT_EQ(errorWith([&](auto& m) { m.cDecode = above(1.0); }),
              "cDecode must be in [0, 1], got 1.0000000000000002");
    EXPECT_EQ(errorWith([&](auto& m) { m.cDecode = nan; }), "cDecode must be in [0, 1], got nan");
    // cKv in [0, 1e-3]
    EXPECT_EQ(errorWith([](auto& m) { m.cKv = 0; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.cKv = 1e-3; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.cKv = -1e-9; }), "cKv must be in [0, 0.001], got -1e-09");
    EXPECT_EQ(errorWith([](auto& m) { m.cKv = 0.002; }), "cKv must be in [0, 0.001], got 0.002");
    EXPECT_EQ(errorWith([&](auto& m) { m.cKv = nan; }), "cKv must be in [0, 0.001], got nan");
    // tokenBudget in [1, 1e6]
    EXPECT_EQ(errorWith([](auto& m) { m.tokenBudget = 1; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.tokenBudget = 1000000; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.tokenBudget = 0; }),
              "tokenBudget must be in [1, 1000000], got 0");
    EXPECT_EQ(errorWith([](auto& m) { m.tokenBudget = 1000001; }),
              "tokenBudget must be in [1, 1000000], got 1000001");
    // maxRunning in [1, 1e5]
    EXPECT_EQ(errorWith([](auto& m) { m.maxRunning = 1; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.maxRunning = 100000; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.maxRunning = 0; }),
              "maxRunning must be in [1, 100000], got 0");
    EXPECT_EQ(errorWith([](auto& m) { m.maxRunning = 100001; }),
              "maxRunning must be in [1, 100000], got 100001");
    // kvMemoryBytes in [1, 2^50]
    EXPECT_EQ(errorWith([](auto& m) { m.kvMemoryBytes = 1; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.kvMemoryBytes = 1ULL << 50; }), "");
    EXPECT_EQ(errorWith([](auto& m) { m.kvMemoryBytes = 0; }),
              "kvMemoryBytes must be in [1, 1125899906842624], got 0");
    EXPECT_EQ(errorWith([](auto& m) { m.kvMemoryBytes = (1ULL << 50) + 1; }),
              "kvMemoryBytes must be in [1, 1125899906842624], got 1125899906842625");
}

TEST(GpuIterationModel, UnknownPresetNamesTheValidOnes)
{
    EXPECT_EQ(edgellmtest::ErrorOf([] { GpuIterationModel::FromPreset("h100"); }),
              "preset must be one of ctho-a100, impactho-qwen3-8b-a100, got 'h100'");
    EXPECT_EQ(edgellmtest::ErrorOf([] { GpuIterationModel::FromPreset(""); }),
              "preset must be one of ctho-a100, impactho-qwen3-8b-a100, got ''");
    for (const auto& name : GpuIterationModel::PresetNames())
    {
        EXPECT_EQ(edgellmtest::ErrorOf([&] { GpuIterationModel::FromPreset(name).Validate(); }), "")
            << name;
    }
}

// ---------------------------------------------------------------- batching by hand

TEST(ContinuousBatchingGpu, BudgetSplitChunksPrefixesAndFirstTokens)
{
    ContinuousBatchingGpu gpu(Simple(10), 1);
    ASSERT_TRUE(gpu.Add(1, Spec(3, 5)));
    EXPECT_TRUE(gpu.HasWork());
    // 1: the whole 3-token prompt in one chunk; its first token with it (no budget, no B).
    ExpectIteration(gpu.BeginIteration(), 3, 0, 0, 0.01 + 0.003);
    EXPECT_TRUE(gpu.IsBusy());
    EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1");
    EXPECT_FALSE(gpu.IsBusy());

    ASSERT_TRUE(gpu.Add(2, Spec(25, 2)));
    ASSERT_TRUE(gpu.Add(3, Spec(4, 1)));
    // 2: seq 1 decodes (context 3 + 1, one budget token); 9 tokens left go to seq 2's first
    // chunk (prefix 0); seq 3 gets none.
    ExpectIteration(gpu.BeginIteration(), 9, 1, 4, 0.01 + 0.009 + 0.002 + 4e-5);
    EXPECT_EQ(gpu.GetRunning(), 3U);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:2");
    // 3: seq 1 (context 5); seq 2's second chunk of 9 reads its prefix of 9.
    ExpectIteration(gpu.BeginIteration(), 9, 1, 5 + 9, 0.01 + 0.009 + 0.002 + 14e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:3");
    // 4: seq 1 (context 6); seq 2's last 7 (prefix 18) with its first token; seq 3's first 2.
    ExpectIteration(gpu.BeginIteration(), 9, 1, 6 + 18 + 0, 0.01 + 0.009 + 0.002 + 24e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:4 2:P:0 2:T:1");
    // 5: seqs 1 (context 7) and 2 (context 26) decode; seq 3's last 2 (prefix 2).
    ExpectIteration(gpu.BeginIteration(), 2, 2, 7 + 26 + 2, 0.01 + 0.002 + 0.004 + 35e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:5 1:F:5 2:T:2 2:F:2 3:P:0 3:T:1 3:F:1");
    EXPECT_FALSE(gpu.HasWork());
    EXPECT_EQ(gpu.GetRunning(), 0U);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 0U);
    EXPECT_FALSE(gpu.Has(1));
    // Nothing to do: duration 0 and no iteration under way.
    ExpectIteration(gpu.BeginIteration(), 0, 0, 0, 0);
    EXPECT_FALSE(gpu.IsBusy());
}

TEST(ContinuousBatchingGpu, DecodesTakeTheBudgetFirstInAdmissionOrder)
{
    // Budget 2, three decode-only sequences (context 10 each): the first two decode.
    ContinuousBatchingGpu gpu(Simple(2), 1);
    for (uint64_t id = 1; id <= 3; ++id)
    {
        ASSERT_TRUE(gpu.Add(id, Spec(0, 2, 10)));
    }
    ASSERT_TRUE(gpu.Add(4, Spec(5, 1)));
    ExpectIteration(gpu.BeginIteration(), 0, 2, 20, 0.01 + 0.004 + 20e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:1 2:T:1");
    // Expected next iteration: D = 3 > T = 2, so B = 2 and K = round((11 + 11 + 10) 2 / 3) =
    // 21; prefill waits but the decodes leave it no budget (P = 0).
    EXPECT_NEAR(gpu.ExpectedIterationTime(), 0.01 + 0.004 + 21e-5, 1e-15);
    EXPECT_TRUE(std::isinf(gpu.ExpectedPriorityPrefillTime(5)));
    EXPECT_EQ(gpu.ExpectedPriorityPrefillTime(0), 0.0);
    ExpectIteration(gpu.BeginIteration(), 0, 2, 22, 0.01 + 0.004 + 22e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:2 1:F:2 2:T:2 2:F:2");
    // Seq 3 decodes (context 10) and seq 4's prefill takes the one token left.
    ExpectIteration(gpu.BeginIteration(), 1, 1, 10, 0.01 + 0.001 + 0.002 + 10e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "3:T:1");
}

TEST(ContinuousBatchingGpu, HeldSequencesWaitForRelease)
{
    ContinuousBatchingGpu gpu(Simple(10), 1);
    // A restore: 100 tokens received, 4 to prefill, 2 to decode, part of its KV still on the
    // backhaul.
    ASSERT_TRUE(gpu.Add(1, Spec(4, 2, 100, true, true)));
    ExpectIteration(gpu.BeginIteration(), 4, 0, 100, 0.01 + 0.004 + 100e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0"); // no first token: held
    EXPECT_FALSE(gpu.HasWork());
    ExpectIteration(gpu.BeginIteration(), 0, 0, 0, 0);
    EXPECT_FALSE(gpu.IsBusy());
    EXPECT_TRUE(gpu.Has(1));
    gpu.Release(1);
    EXPECT_TRUE(gpu.HasWork());
    // Its first token is now a decode step of the whole context 104.
    ExpectIteration(gpu.BeginIteration(), 0, 1, 104, 0.01 + 0.002 + 104e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:1");
    ExpectIteration(gpu.BeginIteration(), 0, 1, 105, 0.01 + 0.002 + 105e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:2 1:F:2");

    // Released during the iteration of its last chunk: that iteration gives no first token.
    ASSERT_TRUE(gpu.Add(2, Spec(3, 1, 0, false, true)));
    ExpectIteration(gpu.BeginIteration(), 3, 0, 0, 0.013);
    gpu.Release(2);
    EXPECT_EQ(Text(gpu.EndIteration()), "2:P:0");
    ExpectIteration(gpu.BeginIteration(), 0, 1, 3, 0.01 + 0.002 + 3e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "2:T:1 2:F:1");

    // Prefill only (decodeTokens 0), held or not: PREFILL_DONE, then FINISHED, room freed.
    ASSERT_TRUE(gpu.Add(3, Spec(6, 0, 50, true, true)));
    ASSERT_TRUE(gpu.Add(4, Spec(2, 0)));
    ExpectIteration(gpu.BeginIteration(), 8, 0, 50, 0.01 + 0.008 + 50e-5);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 56U + 2U);
    EXPECT_EQ(Text(gpu.EndIteration()), "3:P:0 3:F:0 4:P:0 4:F:0");
    EXPECT_EQ(gpu.GetKvBytesInUse(), 0U);

    // A held decode-only restore is admitted but gives no work until Release.
    ASSERT_TRUE(gpu.Add(5, Spec(0, 1, 40, true, true)));
    EXPECT_FALSE(gpu.HasWork());
    ExpectIteration(gpu.BeginIteration(), 0, 0, 0, 0);
    EXPECT_EQ(gpu.GetRunning(), 1U);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 41U);
    gpu.Release(5);
    ExpectIteration(gpu.BeginIteration(), 0, 1, 40, 0.01 + 0.002 + 40e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "5:T:1 5:F:1");
}

// A ctHO restore: the first L tokens prefilled, the rest (the suffix) received over the
// backhaul. The suffix is in the room and in every decode step's context, never in a
// prefill chunk's prefix.
TEST(ContinuousBatchingGpu, SuffixTokensAreReadByDecodeStepsOnly)
{
    GpuSequenceSpec restore = Spec(100, 2, 0, true, true);
    restore.suffixTokens = 500;
    // Room 500 + 100 + 2 = 602 tokens at 1 byte per token: fits in 602, not in 601.
    EXPECT_FALSE(ContinuousBatchingGpu(Simple(1000, 100, 601), 1).Add(1, restore));
    ContinuousBatchingGpu gpu(Simple(60, 100, 602), 1);
    ASSERT_TRUE(gpu.Add(1, restore));
    // Two chunks (budget 60): the second reads the first's 60 tokens, not the suffix.
    ExpectIteration(gpu.BeginIteration(), 60, 0, 0, 0.01 + 0.060);
    EXPECT_EQ(Text(gpu.EndIteration()), "");
    ExpectIteration(gpu.BeginIteration(), 40, 0, 60, 0.01 + 0.040 + 60e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0"); // held: no first token
    EXPECT_EQ(gpu.GetKvBytesInUse(), 602U);
    gpu.Release(1);
    // Decode steps read the whole context: suffix 500 + prefix 100 (+ decoded).
    ExpectIteration(gpu.BeginIteration(), 0, 1, 600, 0.01 + 0.002 + 600e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:T:1");
    EXPECT_EQ(gpu.Remove(1), 601U); // 500 + 100 + 1 decoded
    EXPECT_EQ(gpu.GetKvBytesInUse(), 0U);
}

TEST(ContinuousBatchingGpu, PriorityGoesFirstInAdmissionAndChunks)
{
    // Admission: maxRunning 2; two plain sequences queued before a priority one.
    {
        ContinuousBatchingGpu gpu(Simple(10, 2), 1);
        ASSERT_TRUE(gpu.Add(1, Spec(8, 1)));
        ASSERT_TRUE(gpu.Add(2, Spec(8, 1)));
        ASSERT_TRUE(gpu.Add(3, Spec(8, 1, 0, true)));
        EXPECT_EQ(gpu.GetWaiting(), 3U);
        // Seq 3 admitted first, then seq 1; seq 2 waits (maxRunning). Chunks: 8 to seq 3,
        // the 2 left to seq 1.
        ExpectIteration(gpu.BeginIteration(), 10, 0, 0, 0.02);
        EXPECT_EQ(gpu.GetRunning(), 2U);
        EXPECT_EQ(gpu.GetWaiting(), 1U);
        EXPECT_TRUE(gpu.Has(2));
        EXPECT_EQ(Text(gpu.EndIteration()), "3:P:0 3:T:1 3:F:1");
        // Seq 2 admitted now: seq 1's last 6 (prefix 2), then 4 to seq 2.
        ExpectIteration(gpu.BeginIteration(), 10, 0, 2, 0.02 + 2e-5);
        EXPECT_EQ(gpu.GetRunning(), 2U);
        EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1 1:F:1");
    }
    // Chunks: a priority sequence admitted after a plain one gets its chunk first.
    {
        ContinuousBatchingGpu gpu(Simple(8), 1);
        ASSERT_TRUE(gpu.Add(1, Spec(12, 1)));
        ExpectIteration(gpu.BeginIteration(), 8, 0, 0, 0.018);
        EXPECT_EQ(Text(gpu.EndIteration()), "");
        ASSERT_TRUE(gpu.Add(2, Spec(6, 1, 0, true)));
        // Seq 2 takes 6, seq 1 the 2 left (prefix 8); in admission order it would be 4 + 4.
        ExpectIteration(gpu.BeginIteration(), 8, 0, 8, 0.018 + 8e-5);
        EXPECT_EQ(Text(gpu.EndIteration()), "2:P:0 2:T:1 2:F:1");
        ExpectIteration(gpu.BeginIteration(), 2, 0, 10, 0.012 + 10e-5);
        EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1 1:F:1");
    }
    // Events come in admission order, whatever the chunk order.
    {
        ContinuousBatchingGpu gpu(Simple(10), 1);
        ASSERT_TRUE(gpu.Add(1, Spec(14, 1)));
        ExpectIteration(gpu.BeginIteration(), 10, 0, 0, 0.02);
        EXPECT_EQ(Text(gpu.EndIteration()), "");
        ASSERT_TRUE(gpu.Add(2, Spec(6, 1, 0, true)));
        ExpectIteration(gpu.BeginIteration(), 10, 0, 10, 0.02 + 10e-5);
        EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1 1:F:1 2:P:0 2:T:1 2:F:1");
    }
}

TEST(ContinuousBatchingGpu, MemoryAdmissionWithoutOvertaking)
{
    // 10 bytes per token, 1000 bytes: 100 tokens.
    ContinuousBatchingGpu gpu(Simple(100, 100, 1000), 10);
    ASSERT_TRUE(gpu.Add(1, Spec(60, 10))); // 700 B
    ASSERT_TRUE(gpu.Add(2, Spec(30, 10))); // 400 B: does not fit next to seq 1
    ASSERT_TRUE(gpu.Add(3, Spec(10, 10))); // 200 B: would fit, but may not overtake seq 2
    ExpectIteration(gpu.BeginIteration(), 60, 0, 0, 0.07);
    EXPECT_EQ(gpu.GetRunning(), 1U);
    EXPECT_EQ(gpu.GetWaiting(), 2U);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 700U);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1");
    // Seq 1 keeps its room while it decodes: still nobody admitted.
    for (uint64_t k = 2; k <= 10; ++k)
    {
        ExpectIteration(gpu.BeginIteration(), 0, 1, 60 + k - 1, 0.012 + (59 + k) * 1e-5);
        EXPECT_EQ(gpu.GetRunning(), 1U);
        gpu.EndIteration();
    }
    EXPECT_FALSE(gpu.Has(1));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 0U);
    // Now seqs 2 and 3 (600 B) are admitted together.
    ExpectIteration(gpu.BeginIteration(), 40, 0, 0, 0.05);
    EXPECT_EQ(gpu.GetRunning(), 2U);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 600U);
    EXPECT_EQ(Text(gpu.EndIteration()), "2:P:0 2:T:1 3:P:0 3:T:1");

    // A priority sequence that does not fit blocks the plain ones behind it too.
    ContinuousBatchingGpu g2(Simple(100, 100, 1000), 10);
    ASSERT_TRUE(g2.Add(1, Spec(50, 10))); // 600 B
    ExpectIteration(g2.BeginIteration(), 50, 0, 0, 0.06);
    EXPECT_EQ(Text(g2.EndIteration()), "1:P:0 1:T:1");
    ASSERT_TRUE(g2.Add(2, Spec(50, 0, 0, true))); // 500 B: does not fit the 400 B free
    ASSERT_TRUE(g2.Add(3, Spec(1, 1)));           // 20 B: fits, but waits behind seq 2
    ExpectIteration(g2.BeginIteration(), 0, 1, 51, 0.012 + 51e-5);
    EXPECT_EQ(g2.GetRunning(), 1U);
    EXPECT_EQ(g2.GetWaiting(), 2U);
    EXPECT_EQ(g2.GetKvBytesInUse(), 600U);
    EXPECT_EQ(Text(g2.EndIteration()), "1:T:2");
}

TEST(ContinuousBatchingGpu, AddRefusesWhatCanNeverFit)
{
    // Exactly fits: (50 + 40 + 10) tokens x 10 B = 1000 B of 1000.
    ContinuousBatchingGpu fits(Simple(10, 10, 1000), 10);
    EXPECT_TRUE(fits.Add(1, Spec(40, 10, 50)));
    // One byte over: the same in 999 B; nothing queued.
    ContinuousBatchingGpu over(Simple(10, 10, 999), 10);
    EXPECT_FALSE(over.Add(1, Spec(40, 10, 50)));
    EXPECT_FALSE(over.Has(1));
    EXPECT_EQ(over.GetWaiting(), 0U);
    EXPECT_FALSE(over.HasWork());
    // At 1 byte per token: 1000 tokens fit 1000 B, 1001 do not.
    ContinuousBatchingGpu unit(Simple(10, 10, 1000), 1);
    EXPECT_TRUE(unit.Add(1, Spec(1000, 0)));
    EXPECT_FALSE(unit.Add(2, Spec(1000, 1)));
    // Token counts whose bytes overflow 64 bits are refused, not wrapped.
    EXPECT_FALSE(unit.Add(3, Spec(std::numeric_limits<uint64_t>::max(), 1)));
    ContinuousBatchingGpu wide(Simple(10, 10, 1000), 1ULL << 40);
    EXPECT_FALSE(wide.Add(1, Spec(1ULL << 30, 0)));
}

TEST(ContinuousBatchingGpu, ParkedCachesEvictedLeastRecentlyParkedFirst)
{
    ContinuousBatchingGpu gpu(Simple(100, 100, 1000), 10);
    EXPECT_TRUE(gpu.Park(1, 30)); // 300 B
    EXPECT_TRUE(gpu.Park(2, 20)); // 200 B
    EXPECT_TRUE(gpu.Park(3, 40)); // 400 B
    EXPECT_EQ(gpu.GetKvBytesInUse(), 900U);
    // Unpark and park again: conversation 1 becomes the most recent.
    EXPECT_EQ(gpu.Unpark(1), 30U);
    EXPECT_TRUE(gpu.Park(1, 30));
    EXPECT_EQ(gpu.GetEvictions(), 0U);
    // Admitting 400 B with 100 B free: evicts 2 (oldest, 200 B), then 3 (400 B); 1 stays.
    ASSERT_TRUE(gpu.Add(7, Spec(35, 5)));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 900U); // nothing admitted yet
    gpu.BeginIteration();
    EXPECT_EQ(gpu.GetRunning(), 1U);
    EXPECT_EQ(gpu.GetEvictions(), 2U);
    EXPECT_FALSE(gpu.IsParked(2));
    EXPECT_FALSE(gpu.IsParked(3));
    EXPECT_TRUE(gpu.IsParked(1));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 300U + 400U);
    gpu.EndIteration();
    // Park 500 B with 300 B free: evicts 1.
    EXPECT_TRUE(gpu.Park(4, 50));
    EXPECT_EQ(gpu.GetEvictions(), 3U);
    EXPECT_FALSE(gpu.IsParked(1));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 900U);
    // 950 B cannot fit even with 4 evicted (100 free + 500): refused, counted, 4 kept.
    EXPECT_FALSE(gpu.Park(5, 95));
    EXPECT_EQ(gpu.GetEvictions(), 4U);
    EXPECT_TRUE(gpu.IsParked(4));
    EXPECT_FALSE(gpu.IsParked(5));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 900U);
    // Exactly 600 B fits after evicting 4.
    EXPECT_TRUE(gpu.Park(6, 60));
    EXPECT_EQ(gpu.GetEvictions(), 5U);
    EXPECT_FALSE(gpu.IsParked(4));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 1000U);
    // A sequence that cannot be admitted even with every cache evicted evicts none.
    EXPECT_EQ(gpu.Unpark(6), 60U);
    EXPECT_TRUE(gpu.Park(8, 20));
    ASSERT_TRUE(gpu.Add(9, Spec(80, 0))); // 800 B; 400 free + 200 parked
    EXPECT_TRUE(gpu.HasWork());           // seq 7 still decodes
    gpu.BeginIteration();
    EXPECT_TRUE(gpu.IsParked(8));
    EXPECT_EQ(gpu.GetEvictions(), 5U);
    EXPECT_EQ(gpu.GetWaiting(), 1U);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 600U);
    gpu.EndIteration();
    // Unpark of what is not held: 0 (never parked, evicted, already taken).
    EXPECT_EQ(gpu.Unpark(42), 0U);
    EXPECT_EQ(gpu.Unpark(2), 0U);
    EXPECT_EQ(gpu.Unpark(6), 0U);
    EXPECT_EQ(gpu.Unpark(8), 20U);
}

TEST(ContinuousBatchingGpu, RemoveDropsTheIterationsWork)
{
    ContinuousBatchingGpu gpu(Simple(10, 3), 1);
    ASSERT_TRUE(gpu.Add(1, Spec(2, 5, 10))); // 17 B
    ASSERT_TRUE(gpu.Add(2, Spec(2, 5)));     // 7 B
    ASSERT_TRUE(gpu.Add(3, Spec(20, 1)));    // 21 B
    ASSERT_TRUE(gpu.Add(4, Spec(3, 1)));     // waits: maxRunning 3
    // Chunks 2 (prefix 10), 2, and 6 of seq 3.
    ExpectIteration(gpu.BeginIteration(), 10, 0, 10, 0.02 + 10e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "1:P:0 1:T:1 2:P:0 2:T:1");
    // Seqs 1 (context 13) and 2 (context 3) decode; seq 3 takes the 8 left (prefix 6).
    ExpectIteration(gpu.BeginIteration(), 8, 2, 13 + 3 + 6, 0.01 + 0.008 + 0.004 + 22e-5);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 17U + 7U + 21U);
    // Seq 1 leaves mid-iteration: its context is 10 + 2 + 1 (this step does not count).
    EXPECT_EQ(gpu.Remove(1), 13U);
    EXPECT_FALSE(gpu.Has(1));
    EXPECT_EQ(gpu.GetKvBytesInUse(), 7U + 21U);
    // Seq 4 leaves while waiting.
    EXPECT_EQ(gpu.Remove(4), 0U);
    EXPECT_EQ(gpu.GetWaiting(), 0U);
    EXPECT_EQ(Text(gpu.EndIteration()), "2:T:2");
    // Seq 2 (context 4); seq 3's last 6 (prefix 14). Seq 3 leaves: no PREFILL_DONE.
    ExpectIteration(gpu.BeginIteration(), 6, 1, 4 + 14, 0.01 + 0.006 + 0.002 + 18e-5);
    EXPECT_EQ(gpu.Remove(3), 14U);
    // A new sequence with the same id, added mid-iteration, did none of that work.
    ASSERT_TRUE(gpu.Add(3, Spec(1, 1)));
    EXPECT_EQ(Text(gpu.EndIteration()), "2:T:3");
    ExpectIteration(gpu.BeginIteration(), 1, 1, 5, 0.01 + 0.001 + 0.002 + 5e-5);
    EXPECT_EQ(Text(gpu.EndIteration()), "2:T:4 3:P:0 3:T:1 3:F:1");
}

TEST(ContinuousBatchingGpu, ExpectedTimesByHand)
{
    ContinuousBatchingGpu gpu(Simple(10), 1);
    // Idle: a one-token iteration, c0 + c_p.
    EXPECT_NEAR(gpu.ExpectedIterationTime(), 0.011, 1e-15);
    // A priority prefill of 25 tokens on an idle GPU: ceil(25 / 10) = 3 full budgets.
    EXPECT_NEAR(gpu.ExpectedPriorityPrefillTime(25), 3 * (0.01 + 0.01), 1e-15);
    ASSERT_TRUE(gpu.Add(1, Spec(3, 5)));
    ASSERT_TRUE(gpu.Add(2, Spec(5, 5, 20)));
    gpu.BeginIteration();
    gpu.EndIteration(); // both prefilled, first tokens: contexts 4 and 26
    // Two decode steps (K = 30), no prefill waiting.
    EXPECT_NEAR(gpu.ExpectedIterationTime(), 0.01 + 0.004 + 30e-5, 1e-15);
    // Prefill waits: 8 tokens of it.
    ASSERT_TRUE(gpu.Add(3, Spec(50, 1)));
    const double full = 0.01 + 0.008 + 0.004 + 30e-5;
    EXPECT_NEAR(gpu.ExpectedIterationTime(), full, 1e-15);
    // 20 priority tokens: ceil(20 / 8) = 3 iterations; with 5 priority tokens queued first,
    // ceil(25 / 8) = 4.
    EXPECT_NEAR(gpu.ExpectedPriorityPrefillTime(20), 3 * full, 1e-15);
    ASSERT_TRUE(gpu.Add(4, Spec(5, 0, 0, true)));
    EXPECT_NEAR(gpu.ExpectedPriorityPrefillTime(20), 4 * full, 1e-15);
    EXPECT_NEAR(gpu.ExpectedPriorityPrefillTime(19), 3 * full, 1e-15);
}

// ---------------------------------------------------------------- queueing

namespace
{

/**
 * Poisson arrivals of one-iteration requests (P tokens, decodeTokens 1, tokenBudget = P:
 * service D = c0 + c_p P) served back to back: the mean time in system over \p n requests.
 */
double
MeanTimeInSystem(double rho, uint32_t n, uint64_t seed, double& serviceOut)
{
    GpuIterationModel m = GpuIterationModel::FromPreset("ctho-a100");
    const uint64_t p = 100;
    m.tokenBudget = p;
    const double d = m.c0 + m.cPrefill * p;
    serviceOut = d;
    ContinuousBatchingGpu gpu(m, 57344);
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(rho / d);
    std::vector<double> arrival(n);
    double t = 0;
    for (auto& a : arrival)
    {
        t += gap(rng);
        a = t;
    }
    double now = 0;
    double total = 0;
    uint32_t next = 0;
    uint32_t finished = 0;
    while (finished < n)
    {
        while (next < n && arrival[next] <= now)
        {
            EXPECT_TRUE(gpu.Add(next, Spec(p, 1)));
            ++next;
        }
        if (!gpu.HasWork())
        {
            now = arrival[next]; // idle until the next arrival
            continue;
        }
        now += gpu.BeginIteration().duration;
        for (const auto& e : gpu.EndIteration())
        {
            if (e.kind == GpuEvent::FINISHED)
            {
                total += now - arrival[e.id];
                ++finished;
            }
        }
    }
    return total / n;
}

} // namespace

TEST(ContinuousBatchingGpu, PoissonStreamMatchesMD1)
{
    // M/D/1: W = D + rho D / (2 (1 - rho)): 1.5 D at rho = 0.5, 3 D at rho = 0.8. 100k
    // requests from an empty GPU; the tolerance is 4 standard deviations of such a mean
    // (0.32 % of W at rho = 0.5, 1.5 % at rho = 0.8, over 20 independent seeds).
    for (const auto& [rho, tol] : {std::pair{0.5, 0.013}, std::pair{0.8, 0.06}})
    {
        double d = 0;
        const double w = MeanTimeInSystem(rho, 100000, 46, d);
        const double expected = d + rho * d / (2 * (1 - rho));
        EXPECT_NEAR(w / expected, 1.0, tol) << "rho " << rho;
    }
}

TEST(ContinuousBatchingGpu, ThousandsOfSequences)
{
    // 20000 requests queued at once (100-token prompts, 20 tokens each), 256 running at a
    // time: every one finishes, every token is decoded, the memory ends empty.
    ContinuousBatchingGpu gpu(GpuIterationModel::FromPreset("ctho-a100"), 57344);
    const uint32_t n = 20000;
    for (uint32_t i = 0; i < n; ++i)
    {
        ASSERT_TRUE(gpu.Add(i, Spec(100, 20)));
    }
    uint64_t tokens = 0;
    uint32_t finished = 0;
    uint64_t iterations = 0;
    while (gpu.HasWork())
    {
        const GpuIteration it = gpu.BeginIteration();
        EXPECT_LE(it.prefillTokens + it.decodeSequences, 2048U);
        EXPECT_LE(gpu.GetRunning(), 256U);
        ++iterations;
        for (const auto& e : gpu.EndIteration())
        {
            tokens += e.kind == GpuEvent::TOKEN ? 1 : 0;
            finished += e.kind == GpuEvent::FINISHED ? 1 : 0;
        }
    }
    EXPECT_EQ(finished, n);
    EXPECT_EQ(tokens, 20ULL * n);
    EXPECT_EQ(gpu.GetKvBytesInUse(), 0U);
    EXPECT_GT(iterations, 20000U / 256U * 19U);
}

// ---------------------------------------------------------------- refusals

TEST(ContinuousBatchingGpu, Refusals)
{
    GpuIterationModel bad = Simple(10);
    bad.tokenBudget = 0;
    EXPECT_EQ(edgellmtest::ErrorOf([&] { ContinuousBatchingGpu g(bad, 1); }),
              "tokenBudget must be in [1, 1000000], got 0");
    EXPECT_EQ(edgellmtest::ErrorOf([] { ContinuousBatchingGpu g(Simple(10), 0); }),
              "bytesPerToken must be >= 1, got 0");
    EXPECT_EQ(edgellmtest::ErrorOf([] { ContinuousBatchingGpu g(Simple(10), 1); }), "");

    ContinuousBatchingGpu gpu(Simple(10), 1);
    // Iterations: End while idle, Begin while busy.
    EXPECT_THROW(gpu.EndIteration(), std::logic_error);
    ASSERT_TRUE(gpu.Add(1, Spec(5, 1)));
    gpu.BeginIteration();
    EXPECT_THROW(gpu.BeginIteration(), std::logic_error);
    gpu.EndIteration();
    EXPECT_THROW(gpu.EndIteration(), std::logic_error);
    // Unknown ids (never added, or finished).
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Release(1); }), "Release: unknown id 1");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Remove(99); }), "Remove: unknown id 99");
    // Add: an id already here, a spec with no work (1 token of work is enough).
    ASSERT_TRUE(gpu.Add(2, Spec(0, 1, 5)));
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Add(2, Spec(1, 0)); }), "id 2 is already on this GPU");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Add(3, Spec(0, 0, 10)); }),
              "prefillTokens + decodeTokens must be >= 1 (a sequence with work), got 0 for id "
              "3");
    EXPECT_FALSE(gpu.Has(3));
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Add(3, Spec(1, 0)); }), "");
    // Park: a conversation already parked, 0 tokens (1 is fine).
    EXPECT_TRUE(gpu.Park(10, 5));
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Park(10, 5); }),
              "Park: conversation 10 is already parked");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Park(11, 0); }), "Park: tokens must be >= 1, got 0");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { gpu.Park(11, 1); }), "");
}
