/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-brute-force.h"

#include "ns3/ctho-planner.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/fluid-handover-scenario.h"
#include "ns3/llm-model-profile.h"
#include "ns3/test.h"

#include <cstddef>
#include <cstdint>

using namespace ns3;

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level engine (events, FluidBackhaul, PrefillEngine, HandoverBatcher)
 *        reproduces the closed-form plan UE by UE, and ctHO attains the brute-force
 *        minimum and beats tHO and cHO, on random batches.
 *
 * The engine simulates: transfers served one at a time by the scheduler's EDF pick,
 * a T_c-aligned batch on the GPU. The planner computes the same schedule in closed
 * form; the brute force scans every L with the O(K^2) definition of g (doc/edge-llm.rst,
 * ctHO delay).
 */
class FluidMatchesPlanTestCase : public TestCase
{
  public:
    FluidMatchesPlanTestCase()
        : TestCase("flow-level engine = closed-form plan; ctHO = brute force <= tHO, cHO")
    {
    }

  private:
    void DoRun() override
    {
        const LlmModelProfile profile = LlmModelProfile::FromPreset("qwen2.5-7b-instruct");
        for (uint32_t seed = 1; seed <= 60; ++seed)
        {
            const edgellmtest::CtHoInstance inst = edgellmtest::RandomInstance(seed);
            FluidHandoverConfig cfg;
            cfg.backhaulGbps = inst.rate * static_cast<double>(profile.BitsPerToken()) / 1e9;
            cfg.prefill = PrefillTimeModel(inst.a, inst.b, inst.c);
            cfg.batchPeriod = Seconds(inst.batchPeriod);
            const CtHoPlanner planner(inst.rate, cfg.prefill, inst.batchPeriod);
            double worst[3] = {0, 0, 0};
            const char* types[3] = {"ns3::CtHoScheduler", "ns3::ThoScheduler", "ns3::ChoScheduler"};
            for (int s = 0; s < 3; ++s)
            {
                cfg.schedulerType = types[s];
                const FluidHandoverResult r = FluidHandoverScenario::Run(cfg, inst.ues);
                const CtHoPlan plan = planner.PlanWithPrefillLength(inst.ues, r.prefillLength);
                for (std::size_t i = 0; i < inst.ues.size(); ++i)
                {
                    NS_TEST_ASSERT_MSG_EQ(r.ues[i].transferTokens,
                                          plan.ues[i].transferTokens,
                                          "split, seed " << seed);
                    // ns time resolution: 1e-9 s per event.
                    NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[i].delay,
                                              plan.ues[i].delay,
                                              1e-6,
                                              types[s] << " D_i, seed " << seed << " UE " << i);
                }
                worst[s] = r.worstDelay;
            }
            NS_TEST_ASSERT_MSG_EQ_TOL(worst[0],
                                      edgellmtest::BruteForceMinimum(inst),
                                      1e-6,
                                      "ctHO attains the minimum, seed " << seed);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(worst[0], worst[1] + 1e-6, "ctHO <= tHO, seed " << seed);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(worst[0], worst[2] + 1e-6, "ctHO <= cHO, seed " << seed);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A hand-worked FIFO backhaul: UEs (tau, C) = (0 s, 100), (0.05 s, 100), cHO
 *        at R = 1000 tokens/s: UE 1 done at 0.1 s, UE 2 waits and is done at 0.2 s
 *        (delay 0.15 s), not at 0.15 s as an equal split would give.
 */
class FluidFifoTestCase : public TestCase
{
  public:
    FluidFifoTestCase()
        : TestCase("flow-level backhaul serves one UE at a time, FIFO")
    {
    }

  private:
    void DoRun() override
    {
        const LlmModelProfile profile = LlmModelProfile::FromPreset("qwen2.5-7b-instruct");
        FluidHandoverConfig cfg;
        cfg.schedulerType = "ns3::ChoScheduler";
        cfg.backhaulGbps = 1000.0 * static_cast<double>(profile.BitsPerToken()) / 1e9;
        const FluidHandoverResult r =
            FluidHandoverScenario::Run(cfg, {{1, 0.0, 100}, {2, 0.05, 100}});
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].transferDone, 0.1, 1e-9, "UE 1 done at 0.1 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].transferDone, 0.2, 1e-9, "UE 2 done at 0.2 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].delay, 0.15, 1e-9, "UE 2 delay 0.15 s");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Online ctHO (handover times not announced) on the paper's road.
 *
 * With a look-ahead that foresees every handover of the batch (and no gathering
 * window), the online batch is the clairvoyant one: same L, same delays. With no look-ahead each
 * batch closes on the first T_c boundary after its first handover: every UE still resumes, its
 * split adds up, and no UE resumes sooner than the fastest way to rebuild its own context alone
 * (the ctHO optimum of a batch of one).
 */
class FluidOnlineTestCase : public TestCase
{
  public:
    FluidOnlineTestCase()
        : TestCase("online ctHO: full look-ahead = clairvoyant; no look-ahead resumes everyone")
    {
    }

  private:
    void DoRun() override
    {
        RoadUeDraw road;
        road.numUes = 6;
        const LlmModelProfile profile = LlmModelProfile::FromPreset("qwen2.5-7b-instruct");
        for (uint64_t run = 1; run <= 20; ++run)
        {
            const auto ues = road.Draw(run);
            FluidHandoverConfig known;
            const FluidHandoverResult clairvoyant = FluidHandoverScenario::Run(known, ues);
            FluidHandoverConfig online = known;
            online.knownHandoverTimes = false;
            online.lookahead = Seconds(1.0); // > the 0.5 s spread of the road's handovers
            online.gatherTime = Seconds(0);  // no burst to gather: plan at the first handover
            const FluidHandoverResult foreseen = FluidHandoverScenario::Run(online, ues);
            NS_TEST_ASSERT_MSG_EQ_TOL(foreseen.worstDelay,
                                      clairvoyant.worstDelay,
                                      1e-6,
                                      "full look-ahead = clairvoyant, run " << run);
            online.lookahead = Seconds(0);
            online.gatherTime = MilliSeconds(2);
            const FluidHandoverResult blind = FluidHandoverScenario::Run(online, ues);
            const double rate =
                known.backhaulGbps * 1e9 / static_cast<double>(profile.BitsPerToken());
            for (std::size_t i = 0; i < ues.size(); ++i)
            {
                const auto& u = blind.ues[i];
                NS_TEST_ASSERT_MSG_EQ(u.prefillTokens + u.transferTokens,
                                      ues[i].contextTokens,
                                      "split adds up, run " << run);
                NS_TEST_ASSERT_MSG_GT(u.delay, 0.0, "every UE resumes, run " << run);
                // Alone, UE i needs at least min_L max(p(L) + wait for a boundary, C_i - L / R).
                const CtHoPlanner alone(rate, known.prefill, known.batchPeriod.GetSeconds());
                const double bound = alone.PlanOptimal({ues[i]}).worstDelay;
                NS_TEST_ASSERT_MSG_GT_OR_EQ(u.delay + 1e-6, bound, "no UE beats its lone optimum");
            }
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level engine (UNIT).
 */
class EdgeLlmFluidTestSuite : public TestSuite
{
  public:
    EdgeLlmFluidTestSuite()
        : TestSuite("edge-llm-fluid", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new FluidFifoTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FluidMatchesPlanTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FluidOnlineTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmFluidTestSuite g_edgeLlmFluidTestSuite;
