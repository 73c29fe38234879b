/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-brute-force.h"
#include "edge-llm-test-util.h"

#include "ns3/coordinated-planner.h"
#include "ns3/ctho-planner.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;

/**
 * \ingroup edge-llm-tests
 * \brief doc/edge-llm-design.rst, KV cache size: KV bytes per token, and the paper's 3072 tokens =
 *        176 MB.
 */
class KvCacheSizeTestCase : public TestCase
{
  public:
    KvCacheSizeTestCase()
        : TestCase("KV cache size of the presets (ctHO Sec. IV-A: 3072 tokens = 176 MB)")
    {
    }

  private:
    void DoRun() override
    {
        const auto qwen = LlmModelProfile::FromPreset("qwen2.5-7b-instruct");
        // 2 * 28 * 4 * 128 * 16 = 458,752 bits per token (ctHO Sec. IV-A).
        NS_TEST_ASSERT_MSG_EQ(qwen.BitsPerToken(), 458752ULL, "s_KV of Qwen2.5-7B");
        NS_TEST_ASSERT_MSG_EQ_TOL(3072.0 * qwen.BytesPerToken() / 1e6,
                                  176.0,
                                  0.5,
                                  "3072 tokens of Qwen2.5-7B should be 176 MB");
        const auto qwen3 = LlmModelProfile::FromPreset("qwen3-8b");
        NS_TEST_ASSERT_MSG_EQ(qwen3.BitsPerToken(), 1179648ULL, "s_KV of Qwen3-8B");
        NS_TEST_ASSERT_MSG_EQ(qwen3.BitsPerEntry() / 8, 512ULL, "Qwen3-8B entry = 512 B");
        NS_TEST_ASSERT_MSG_EQ(qwen3.BytesPerEntry(), 512ULL, "2 x 128 values x 2 bytes");
        NS_TEST_ASSERT_MSG_EQ(LlmModelProfile::FromPreset("qwen3-8b", 4).BytesPerEntry(),
                              128ULL,
                              "2 x 128 values x 0.5 byte");
        NS_TEST_ASSERT_MSG_EQ(LlmModelProfile::FromPreset("qwen3-14b").BitsPerToken(),
                              1310720ULL,
                              "s_KV of Qwen3-14B");
        NS_TEST_ASSERT_MSG_EQ(LlmModelProfile::FromPreset("llama-3.1-8b-instruct").BitsPerToken(),
                              1048576ULL,
                              "s_KV of Llama-3.1-8B");
        NS_TEST_ASSERT_MSG_EQ(LlmModelProfile::FromPreset("qwen3-8b", 4).BitsPerToken(),
                              1179648ULL / 4,
                              "q = 4 quarters the cache");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A three-UE batch worked by hand (doc/edge-llm-testing.rst, "Validation").
 *
 * R = 1000 tokens/s, p(L) = 0.001 L + 0.01 s, T_c = 0.1 s; UEs (tau, C) =
 * (0, 300), (0.05, 200), (0.12, 100). t_s = 0.2 s, f(L) = 0.21 + 0.001 L.
 * For 30 <= L < 100 the FIFO backhaul gives g(L) = 0.45 - 0.002 L (UE 2 binds), so
 * f = g at L* = 80 with V = 0.29 s. tHO (L = 300): 0.51 s; cHO (L = 0): 0.48 s.
 */
class CtHoHandWorkedTestCase : public TestCase
{
  public:
    CtHoHandWorkedTestCase()
        : TestCase("ctHO plan of a hand-worked three-UE batch")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<CtHoUe> ues = {{1, 0.0, 300}, {2, 0.05, 200}, {3, 0.12, 100}};
        const PrefillTimeModel p(0.001, 0.01, 0.0);
        const double tol = 1e-9;
        Ptr<HandoverScheduler> ctho = CreateObject<CtHoScheduler>();
        const CtHoPlan plan = ctho->PlanBatch(ues, 1000.0, p, 0.1);
        NS_TEST_ASSERT_MSG_EQ(plan.prefillLength, 80ULL, "L* where f(L) = g(L)");
        NS_TEST_ASSERT_MSG_EQ_TOL(plan.batchStart, 0.2, tol, "t_s = ceil(0.12 / 0.1) * 0.1");
        NS_TEST_ASSERT_MSG_EQ_TOL(plan.worstDelay, 0.29, tol, "V(L*)");
        NS_TEST_ASSERT_MSG_EQ_TOL(plan.prefillDone, 0.29, tol, "T_pf = 0.2 + 0.08 + 0.01");
        // Per UE: n_tx = 220, 120, 20; FIFO completions 0.22, 0.34, 0.36.
        const double transferDone[] = {0.22, 0.34, 0.36};
        const double delay[] = {0.29, 0.29, 0.24};
        const uint64_t tx[] = {220, 120, 20};
        for (std::size_t i = 0; i < 3; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(plan.ues[i].ueId, ues[i].ueId, "input order kept");
            NS_TEST_ASSERT_MSG_EQ(plan.ues[i].prefillTokens, 80ULL, "n_pf = min(C, L)");
            NS_TEST_ASSERT_MSG_EQ(plan.ues[i].transferTokens, tx[i], "n_tx = (C - L)^+");
            NS_TEST_ASSERT_MSG_EQ_TOL(plan.ues[i].transferDone, transferDone[i], tol, "T_tx");
            NS_TEST_ASSERT_MSG_EQ_TOL(plan.ues[i].delay, delay[i], tol, "D_i");
        }
        Ptr<HandoverScheduler> tho = CreateObject<ThoScheduler>();
        Ptr<HandoverScheduler> cho = CreateObject<ChoScheduler>();
        const CtHoPlan thoPlan = tho->PlanBatch(ues, 1000.0, p, 0.1);
        const CtHoPlan choPlan = cho->PlanBatch(ues, 1000.0, p, 0.1);
        NS_TEST_ASSERT_MSG_EQ(thoPlan.prefillLength, 300ULL, "tHO prefills C_max");
        NS_TEST_ASSERT_MSG_EQ_TOL(thoPlan.worstDelay, 0.51, tol, "tHO: 0.2 + 0.31 - 0");
        NS_TEST_ASSERT_MSG_EQ(choPlan.prefillLength, 0ULL, "cHO prefills nothing");
        NS_TEST_ASSERT_MSG_EQ_TOL(choPlan.worstDelay, 0.48, tol, "cHO: UE 3 done at 0.6");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The full g(L) when the backhaul idles between handovers.
 *
 * UEs (tau, C) = (0, 100), (1, 300), R = 1000 tokens/s, L = 0: the paper's j = 1
 * terms give max(0.1, 0.4 - 1)^+ = 0.1 s, but UE 2's 300 tokens start at tau = 1 and
 * need 0.3 s: g = 0.3 s (the j = k = 2 term).
 */
class CtHoIdleBackhaulTestCase : public TestCase
{
  public:
    CtHoIdleBackhaulTestCase()
        : TestCase("ctHO transfer bound g(L) when the backhaul idles")
    {
    }

  private:
    void DoRun() override
    {
        const CtHoPlanner planner(1000.0, PrefillTimeModel(0.001, 0.01, 0.0), 0.01);
        const CtHoPlan plan = planner.PlanWithPrefillLength({{1, 0.0, 100}, {2, 1.0, 300}}, 0);
        NS_TEST_ASSERT_MSG_EQ_TOL(plan.transferDelay, 0.3, 1e-12, "g(0) with an idle gap");
        NS_TEST_ASSERT_MSG_EQ_TOL(plan.ues[1].transferDone, 1.3, 1e-12, "UE 2 done at 1.3 s");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief PlanOptimal() against a scan of every L on 200 random instances, in the papers'
 *        model and with random packet-level signalling (path delay, request and id wire
 *        times, control backlog, online close, GPU busy): f stays non-decreasing and g
 *        non-increasing where the planner's searches assume it.
 */
class CtHoBruteForceTestCase : public TestCase
{
  public:
    /// \param signalling with random packet-level signalling (CtHoSignalling) or without
    explicit CtHoBruteForceTestCase(bool signalling)
        : TestCase(signalling ? "ctHO planner with signalling equals a brute force over every L"
                              : "ctHO planner equals a brute force over every L (200 random "
                                "instances)"),
          m_signalling(signalling)
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t seed = 1; seed <= 200; ++seed)
        {
            edgellmtest::CtHoInstance inst = edgellmtest::RandomInstance(seed);
            CtHoPlanner planner(inst.rate,
                                PrefillTimeModel(inst.a, inst.b, inst.c),
                                inst.batchPeriod);
            if (m_signalling)
            {
                inst.signalling = edgellmtest::RandomSignalling(seed, inst);
                planner.SetSignalling(inst.signalling);
            }
            const CtHoPlan plan = planner.PlanOptimal(inst.ues);
            const double best = edgellmtest::BruteForceMinimum(inst);
            NS_TEST_ASSERT_MSG_EQ_TOL(plan.worstDelay,
                                      best,
                                      1e-9 * std::max(1.0, best),
                                      "V(L*) differs from the brute-force minimum, seed " << seed);
            NS_TEST_ASSERT_MSG_EQ_TOL(edgellmtest::BruteForceValue(inst, plan.prefillLength),
                                      plan.worstDelay,
                                      1e-9 * std::max(1.0, best),
                                      "plan value != V(L) by definition, seed " << seed);
        }
    }

    bool m_signalling; //!< Random packet-level signalling on
};

/**
 * \ingroup edge-llm-tests
 * \brief Target-coordinated planning (CoordinatedPlanner) by hand and against a brute force.
 *
 * By hand: two sources, one UE each at tau = 0 with C = 1000, p(L) = 1e-4 L, T_c = 0;
 * source A's path carries 10,000 tokens/s, B's 2,000. B's transfer binds:
 * V(L) = max(1e-4 L, (1000 - L) / 2000), crossing at L = 833.3: V(833) = 0.0835 s,
 * V(834) = 0.0834 s, so L* = 834 and V = 0.0834 s (A alone would plan L = 500, 0.05 s,
 * and B alone the same 834: the shared GPU batch serves B's need).
 *
 * Brute force: 300 random instances of 2 or 3 sources with 1 to 4 UEs each (contexts
 * 1-300, rates 200-20,000 tokens/s, random p(L), T_c 0 or 10 ms, handovers within or
 * across batch periods): for every L in {0, ..., C_max}, V(L) is the largest over the
 * sources of the single-source reference BruteForceValue (straight from the definition)
 * with the batch held until the last handover of any source; the planner's V equals the
 * minimum and its L is the smallest argmin. Every fifth instance has the target's GPU
 * busy until a random time in [1, 1.6] s (SetGpuFreeAt: the batch starts no earlier),
 * every other source a path busy with earlier transfers until [0.99, 1.04] s
 * (backhaulFreeAt: its FIFO starts no earlier); every fourth (seed % 4 = 1) gives each
 * source its own random packet-level signalling (RandomSignalling: path delay, request and
 * id wire times, a control backlog, bytes ahead of a request; no close message). Bad values: NaN
 * GPU and path free times are refused, naming the field.
 */
class CoordinatedBruteForceTestCase : public TestCase
{
  public:
    CoordinatedBruteForceTestCase()
        : TestCase("target-coordinated planning: one L, one EDF per path, equals a brute force")
    {
    }

  private:
    void DoRun() override
    {
        {
            CoordinatedPlanner planner(PrefillTimeModel(1e-4, 0, 0), 0);
            std::vector<CoordinatedSource> sources(2);
            sources[0].sourceCellId = 1;
            sources[0].backhaulTokensPerSecond = 10000;
            sources[0].ues = {{1, 0.0, 1000}};
            sources[1].sourceCellId = 2;
            sources[1].backhaulTokensPerSecond = 2000;
            sources[1].ues = {{2, 0.0, 1000}};
            const CoordinatedPlan p = planner.PlanOptimal(sources);
            NS_TEST_EXPECT_MSG_EQ(p.prefillLength, 834u, "L* at the crossing with B's path");
            NS_TEST_EXPECT_MSG_EQ_TOL(p.worstDelay, 0.0834, 1e-12, "V(834) = p(834)");
            NS_TEST_EXPECT_MSG_EQ(p.sources.size(), 2u, "a plan per source");
            NS_TEST_EXPECT_MSG_EQ_TOL(p.sources[1].ues[0].transferDone,
                                      0.083,
                                      1e-12,
                                      "B: 166 / 2000");
            NS_TEST_EXPECT_MSG_EQ_TOL(p.sources[0].ues[0].transferDone,
                                      0.0166,
                                      1e-12,
                                      "A: 166 / 1e4");
        }
        for (uint32_t seed = 1; seed <= 300; ++seed)
        {
            std::mt19937_64 rng(seed);
            std::uniform_real_distribution<double> u01(0.0, 1.0);
            const double a = 1e-5 + u01(rng) * 2e-4;
            const double b = u01(rng) * 5e-3;
            const double tc = seed % 4 == 0 ? 0.0 : 0.01;
            const double spread = seed % 3 == 0 ? 0.5 : 0.008;
            const std::size_t nSources = 2 + seed % 2;
            // Every fifth instance: the target's GPU busy until a random time around the
            // handovers; every other source's path busy with earlier transfers.
            const double gpuFreeAt = seed % 5 == 0 ? 1.0 + u01(rng) * 0.6 : 0.0;
            std::vector<CoordinatedSource> sources(nSources);
            std::vector<edgellmtest::CtHoInstance> insts(nSources);
            double last = 0;
            uint64_t cmax = 0;
            for (std::size_t s = 0; s < nSources; ++s)
            {
                sources[s].sourceCellId = static_cast<uint16_t>(s + 1);
                sources[s].backhaulTokensPerSecond = 200 + u01(rng) * 19800;
                const bool signalling = seed % 4 == 1; // packet level, its own path's
                sources[s].backhaulFreeAt =
                    !signalling && (seed + s) % 2 == 0 ? 0.99 + u01(rng) * 0.05 : 0.0;
                const std::size_t k = 1 + static_cast<std::size_t>(u01(rng) * 4);
                for (std::size_t i = 0; i < k; ++i)
                {
                    CtHoUe ue;
                    ue.ueId = s * 10 + i;
                    ue.handoverTime = 1.0 + u01(rng) * spread;
                    ue.contextTokens = 1 + static_cast<uint64_t>(u01(rng) * 300);
                    sources[s].ues.push_back(ue);
                    last = std::max(last, ue.handoverTime);
                    cmax = std::max(cmax, ue.contextTokens);
                }
                insts[s].ues = sources[s].ues;
                insts[s].rate = sources[s].backhaulTokensPerSecond;
                insts[s].a = a;
                insts[s].b = b;
                insts[s].batchPeriod = tc;
                insts[s].backhaulFreeAt = sources[s].backhaulFreeAt;
                if (signalling)
                {
                    CtHoSignalling sig = edgellmtest::RandomSignalling(seed * 10 + s, insts[s]);
                    sig.closeSentAt = -1; // announced: no close message
                    sources[s].signalling = sig;
                    insts[s].signalling = sig;
                }
            }
            for (auto& inst : insts)
            {
                // One batch, one GPU (a source's own gpuFreeAt counts as well).
                inst.signalling.gpuFreeAt = std::max({last, gpuFreeAt, inst.signalling.gpuFreeAt});
            }
            double best = std::numeric_limits<double>::infinity();
            uint64_t bestL = 0;
            for (uint64_t l = 0; l <= cmax; ++l)
            {
                double v = 0;
                for (const auto& inst : insts)
                {
                    v = std::max(v, edgellmtest::BruteForceValue(inst, l));
                }
                if (v < best - 1e-12)
                {
                    best = v;
                    bestL = l;
                }
            }
            CoordinatedPlanner planner(PrefillTimeModel(a, b, 0), tc);
            planner.SetGpuFreeAt(gpuFreeAt);
            const CoordinatedPlan p = planner.PlanOptimal(sources);
            NS_TEST_ASSERT_MSG_EQ_TOL(p.worstDelay, best, 1e-9, "seed " << seed << ": min V");
            NS_TEST_ASSERT_MSG_EQ(p.prefillLength, bestL, "seed " << seed << ": smallest argmin");
        }
        bool threw = false;
        try
        {
            CoordinatedPlanner(PrefillTimeModel(1e-4, 0, 0), 0).PlanOptimal({});
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "no source: refused");
        std::string what;
        try
        {
            CoordinatedPlanner(PrefillTimeModel(1e-4, 0, 0), 0).SetGpuFreeAt(std::nan(""));
        }
        catch (const std::invalid_argument& e)
        {
            what = e.what();
        }
        NS_TEST_EXPECT_MSG_NE(what.find("gpuFreeAt"), std::string::npos, "NaN GPU time: " << what);
        what.clear();
        try
        {
            std::vector<CoordinatedSource> one(1);
            one[0].backhaulTokensPerSecond = 1000;
            one[0].backhaulFreeAt = std::nan("");
            one[0].ues = {{1, 0.0, 10}};
            CoordinatedPlanner(PrefillTimeModel(1e-4, 0, 0), 0).PlanOptimal(one);
        }
        catch (const std::invalid_argument& e)
        {
            what = e.what();
        }
        NS_TEST_EXPECT_MSG_NE(what.find("backhaulFreeAt"),
                              std::string::npos,
                              "NaN path time: " << what);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet-level signalling by hand (R = 1000 tokens/s, p(L) = 1e-4 L + 2e-3 s,
 *        T_c = 10 ms, C = 300, tHO's L = 300; d = 100 us, request 20 us, 1 us per id,
 *        close 10 us). The request reaches the target at tau + 20 + 300 + 100 us: the
 *        first boundary (20 ms) holds for tau = 19.580 ms - 1 us, the next (30 ms) from
 *        19.580 ms + 1 us; without the ids (papers' form) both start at 20 ms. An online
 *        close sent at 19.890 ms -/+ 1 us arrives 110 us later, at either side of 20 ms.
 *        A control backlog until 30 ms moves the start to 40 ms; a GPU busy until 30 ms
 *        starts it at 30 ms, one busy 100 ns longer at 40 ms. cHO (L = 0) at tau = 0:
 *        the request, 300 tokens at R and d: 0.30012 s. The field checks at their edges.
 */
class CtHoSignallingTestCase : public TestCase
{
  public:
    CtHoSignallingTestCase()
        : TestCase("ctHO planner at packet level: request, token ids, close message and path delay")
    {
    }

  private:
    void DoRun() override
    {
        const PrefillTimeModel p(1e-4, 2e-3, 0);
        CtHoSignalling sig;
        sig.pathDelay = 100e-6;
        sig.requestTime = 20e-6;
        sig.idTimePerToken = 1e-6;
        sig.closeTime = 10e-6;
        auto start = [&](double tau, const CtHoSignalling& g) {
            CtHoPlanner planner(1000, p, 0.01);
            planner.SetSignalling(g);
            return planner.PlanWithPrefillLength({{1, tau, 300}}, 300);
        };
        const double edge = 0.02 - 420e-6; // tau + 420 us = 20 ms
        for (double side : {-1e-6, 1e-6})
        {
            const CtHoPlan plan = start(edge + side, sig);
            const double ts = (side < 0) ? 0.02 : 0.03;
            NS_TEST_EXPECT_MSG_EQ_TOL(plan.batchStart, ts, 1e-12, "t_s, ids, side " << side);
            NS_TEST_EXPECT_MSG_EQ_TOL(plan.worstDelay,
                                      ts + 0.032 - (edge + side),
                                      1e-12,
                                      "delay = t_s + p(300) - tau, side " << side);
            CtHoSignalling noIds = sig;
            noIds.idTimePerToken = 0;
            NS_TEST_EXPECT_MSG_EQ_TOL(start(edge + side, noIds).batchStart,
                                      0.02,
                                      1e-12,
                                      "without ids, side " << side);
        }
        const double closeEdge = 0.02 - 110e-6;
        for (double side : {-1e-6, 1e-6})
        {
            CtHoSignalling online = sig;
            online.closeSentAt = closeEdge + side;
            const double expected = side < 0 ? 0.02 : 0.03;
            NS_TEST_EXPECT_MSG_EQ_TOL(start(0.0195, online).batchStart,
                                      expected,
                                      1e-12,
                                      "close sent at 19.890 ms " << side);
        }
        CtHoSignalling busy = sig;
        busy.controlFreeAt = 0.03;
        NS_TEST_EXPECT_MSG_EQ_TOL(start(0.0195, busy).batchStart, 0.04, 1e-12, "backlog");
        CtHoSignalling gpu = sig;
        gpu.gpuFreeAt = 0.0300001; // an earlier batch holds the GPU just past 30 ms
        NS_TEST_EXPECT_MSG_EQ_TOL(start(0.0195, gpu).batchStart, 0.04, 1e-12, "GPU busy");
        gpu.gpuFreeAt = 0.03;
        NS_TEST_EXPECT_MSG_EQ_TOL(start(0.0195, gpu).batchStart, 0.03, 1e-12, "GPU free at 30 ms");
        CtHoPlanner planner(1000, p, 0.01);
        planner.SetSignalling(sig);
        const CtHoPlan cho = planner.PlanWithPrefillLength({{1, 0.0, 300}}, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(cho.worstDelay, 0.30012, 1e-12, "cHO: 20 us + 0.3 s + 100 us");
        NS_TEST_EXPECT_MSG_EQ_TOL(cho.ues[0].transferDone, 0.30012, 1e-12, "KV arrival");

        auto refused = [&](CtHoSignalling g) {
            try
            {
                planner.SetSignalling(g);
            }
            catch (const std::invalid_argument&)
            {
                return true;
            }
            return false;
        };
        CtHoSignalling g;
        g.idTimePerToken = 1e-3; // = 1/R: an id as costly as its KV
        NS_TEST_EXPECT_MSG_EQ(refused(g), true, "idTimePerToken = 1/R refused");
        g.idTimePerToken = 0.999e-3;
        NS_TEST_EXPECT_MSG_EQ(refused(g), false, "idTimePerToken just below 1/R accepted");
        g = CtHoSignalling();
        g.pathDelay = -1e-12;
        NS_TEST_EXPECT_MSG_EQ(refused(g), true, "negative path delay refused");
        g.pathDelay = 0;
        NS_TEST_EXPECT_MSG_EQ(refused(g), false, "zero path delay accepted");
        g.requestTime = std::numeric_limits<double>::quiet_NaN();
        NS_TEST_EXPECT_MSG_EQ(refused(g), true, "NaN request time refused");
        g.requestTime = 0;
        g.controlFreeAt = -1e-12;
        NS_TEST_EXPECT_MSG_EQ(refused(g), true, "negative control backlog end refused");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief HandoverSchemeRegistry (issue 44): names unique; every entry's TypeId a
 *        HandoverScheduler that accepts each of its attributes; the created object reports
 *        the entry's name (the literal in its class, an independent check) and capabilities;
 *        an unknown name, a repeated or empty list refused naming the valid names; every
 *        scheme its own plot colour, a series matched by name, label or name + '-'.
 */
class SchemeRegistryTestCase : public TestCase
{
  public:
    SchemeRegistryTestCase()
        : TestCase("Scheme registry: one entry per scheme, its TypeId, attributes and name")
    {
    }

  private:
    void DoRun() override
    {
        std::set<std::string> names;
        const TypeId base = TypeId::LookupByName("ns3::HandoverScheduler");
        for (const HandoverScheme& s : HandoverSchemeRegistry::GetAll())
        {
            NS_TEST_EXPECT_MSG_EQ(names.insert(s.name).second, true, s.name << " listed twice");
            NS_TEST_EXPECT_MSG_EQ(s.description.empty(), false, s.name << ": a description");
            if (!s.HasScheduler())
            {
                NS_TEST_EXPECT_MSG_EQ(s.batchPlan || s.slotPolicy || !s.attributes.empty(),
                                      false,
                                      s.name << ": a formula has no scheduler capabilities");
                continue;
            }
            TypeId tid;
            NS_TEST_ASSERT_MSG_EQ(TypeId::LookupByNameFailSafe(s.typeId, &tid),
                                  true,
                                  s.name << ": " << s.typeId << " registered");
            NS_TEST_EXPECT_MSG_EQ(tid.IsChildOf(base), true, s.name << ": a HandoverScheduler");
            for (const auto& [attribute, value] : s.attributes)
            {
                TypeId::AttributeInformation info;
                NS_TEST_ASSERT_MSG_EQ(tid.LookupAttributeByName(attribute, &info),
                                      true,
                                      s.name << ": " << s.typeId << "::" << attribute);
                NS_TEST_EXPECT_MSG_EQ(bool(info.checker->CreateValidValue(StringValue(value))),
                                      true,
                                      s.name << ": " << attribute << "=" << value);
            }
            Ptr<HandoverScheduler> object = HandoverSchemeRegistry::Create(s.name);
            NS_TEST_EXPECT_MSG_EQ(object->GetSchemeName(), s.name, "the object's own name");
            NS_TEST_EXPECT_MSG_EQ(object->AllocatesSlots(), s.slotPolicy, s.name << ": slots");
            NS_TEST_EXPECT_MSG_EQ(s.batchPlan, !s.slotPolicy, s.name << ": batch or slot");
            NS_TEST_EXPECT_MSG_EQ(object->GetPlanLead().IsStrictlyPositive(),
                                  s.targetCoordinated,
                                  s.name << ": target-coordinated");
            NS_TEST_EXPECT_MSG_EQ(object->GetPreTransfer().has_value(),
                                  s.wrapsInner,
                                  s.name << ": wraps an inner policy");
        }
        ExpectRefused([] { HandoverSchemeRegistry::Find("best"); },
                      "unknown scheme 'best'; valid schemes: " + HandoverSchemeRegistry::Names());
        ExpectRefused([] { HandoverSchemeRegistry::ParseList("ctho,ctho"); },
                      "'ctho' is listed twice");
        ExpectRefused([] { HandoverSchemeRegistry::ParseList("ctho,"); }, "give one or more of");
        // A program's filter: only its schemes are valid, and the message lists those.
        const HandoverSchemeRegistry::Filter batch = [](const auto& s) { return s.batchPlan; };
        ExpectRefused([&batch] { HandoverSchemeRegistry::ParseList("ea", batch); },
                      "scheme 'ea' is not offered here; valid schemes: " +
                          HandoverSchemeRegistry::Names(", ", batch));
        ExpectRefused([&batch] { HandoverSchemeRegistry::ParseList("best", batch); },
                      "unknown scheme 'best'; valid schemes: " +
                          HandoverSchemeRegistry::Names(", ", batch));
        // A baseline's description says what its plan does, on one UE of 1000 tokens: tHO
        // prefills the whole context (L = C), cHO sends the whole cache (L = 0).
        const std::vector<CtHoUe> one{{1, 0.0, 1000}};
        const PrefillTimeModel p(0.001, 0.01, 0.0);
        for (const auto& [name, length, words] :
             {std::make_tuple("tho", uint64_t{1000}, "whole context prefilled"),
              std::make_tuple("cho", uint64_t{0}, "whole cache over the backhaul")})
        {
            const CtHoPlan plan = HandoverSchemeRegistry::Create(name)->PlanBatch(one, 1e4, p, 0);
            NS_TEST_EXPECT_MSG_EQ(plan.prefillLength, length, name << ": L");
            NS_TEST_EXPECT_MSG_NE(HandoverSchemeRegistry::Find(name).description.find(words),
                                  std::string::npos,
                                  name << ": its description says " << words);
        }
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::ParseList("tho,ctho", batch).size(),
                              2,
                              "the filter's schemes accepted");
        ExpectRefused([] { HandoverSchemeRegistry::Create("hybrid"); }, "has no scheduler");
        const std::vector<HandoverScheme> parsed = HandoverSchemeRegistry::ParseList("pf,ctho");
        NS_TEST_ASSERT_MSG_EQ(parsed.size(), 2, "two schemes");
        NS_TEST_EXPECT_MSG_EQ(parsed[0].name + parsed[1].name, "pfctho", "in the order given");
        NS_TEST_EXPECT_MSG_EQ(
            HandoverSchemeRegistry::AttributesSet().at("ns3::ImpactHoScheduler::Policy"),
            "set per scheme: impactho (WaterFilling), ea (Equal), wta (Wta), pf (Pf)",
            "the attributes the schemes set, by the TypeId that declares them");
        // Plot colours: one per scheme, all different; a series is drawn in its scheme's.
        std::set<std::string> colors;
        for (const HandoverScheme& s : HandoverSchemeRegistry::GetAll())
        {
            NS_TEST_EXPECT_MSG_EQ(s.color.size(), 7u, s.name << ": a #RRGGBB colour");
            colors.insert(s.color);
        }
        NS_TEST_EXPECT_MSG_EQ(colors.size(),
                              HandoverSchemeRegistry::GetAll().size(),
                              "every scheme its own colour");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("tho"), "#D55E00", "tHO");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("cho"), "#009E73", "cHO");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("ctho-packet-lte"),
                              HandoverSchemeRegistry::Find("ctho").color,
                              "a scheme's packet-level points");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("pre-ctho"),
                              HandoverSchemeRegistry::Find("pre-ctho").color,
                              "the longest name, not ctho's");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("ours"),
                              HandoverSchemeRegistry::Find("impactho").color,
                              "by label");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("no-ho"), "", "no scheme");
        NS_TEST_EXPECT_MSG_EQ(HandoverSchemeRegistry::PlotColor("chop"), "", "no '-' after cho");
    }

    /**
     * \brief Expect \p call to throw std::invalid_argument whose message contains \p text.
     * \param call the call
     * \param text the expected part of the message
     */
    void ExpectRefused(const std::function<void()>& call, const std::string& text)
    {
        const std::string what = edgellmtest::ErrorOf(call);
        NS_TEST_EXPECT_MSG_NE(what.find(text), std::string::npos, "message: " << what);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The planner's math (UNIT).
 */
class EdgeLlmPlannerTestSuite : public TestSuite
{
  public:
    EdgeLlmPlannerTestSuite()
        : TestSuite("edge-llm-planner", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new KvCacheSizeTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new CtHoHandWorkedTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new CtHoIdleBackhaulTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new CtHoBruteForceTestCase(false), EDGE_LLM_TEST_QUICK);
        AddTestCase(new CtHoSignallingTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new CoordinatedBruteForceTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new CtHoBruteForceTestCase(true), EDGE_LLM_TEST_QUICK);
        AddTestCase(new SchemeRegistryTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmPlannerTestSuite g_edgeLlmPlannerTestSuite;
