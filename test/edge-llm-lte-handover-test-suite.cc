/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/edge-llm-compat.h"
#include "ns3/fluid-handover-scenario.h"
#include "ns3/llm-model-profile.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/road-handover-scenario.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

using namespace ns3;

/**
 * \ingroup edge-llm-tests
 * \brief The main job at packet level (ctHO's road, LTE X2 handovers, TCP over the X2
 *        backhaul) for ctHO, tHO and cHO on the same seed.
 *
 * Checks, per scheme: every UE hands over once and resumes; every KV byte the plan
 * sends arrives (per UE: n_tx * s_KV / 8; per connection: sent = received); the split
 * adds up to the context; the target never beats the fluid model (packets carry
 * headers, the fluid model does not); the worst-user stall measured at the UE is
 * within 10 % of the planner's prediction. Across schemes: ctHO's measured worst delay
 * is not above tHO's nor cHO's.
 */
class LteHandoverSystemTestCase : public TestCase
{
  public:
    LteHandoverSystemTestCase()
        : TestCase("ctHO, tHO and cHO over LTE X2 handovers: bytes, delays, ordering")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg; // the paper's defaults (ctHO Sec. IV-A)
        const uint64_t bytesPerToken =
            LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BytesPerToken();
        double measuredWorst[3] = {0, 0, 0};
        const char* types[3] = {"ns3::CtHoScheduler", "ns3::ThoScheduler", "ns3::ChoScheduler"};
        for (int s = 0; s < 3; ++s)
        {
            const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, types[s]);
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, r.scheme << ": every UE resumes");
            NS_TEST_ASSERT_MSG_EQ(r.ues.size(), cfg.road.numUes, r.scheme << ": one result per UE");
            uint64_t expectedTotal = 0;
            for (const auto& ue : r.ues)
            {
                NS_TEST_ASSERT_MSG_EQ(ue.stalls,
                                      1u,
                                      r.scheme << " UE " << ue.ueId << ": one handover");
                NS_TEST_ASSERT_MSG_GT(ue.handoverTime, 0.0, "handover happened");
                // Handover when crossing x_b = 150 m at 20 m/s, plus X2 preparation (< 50 ms).
                NS_TEST_ASSERT_MSG_EQ_TOL(ue.handoverTime,
                                          (cfg.road.boundary - ue.startX) / cfg.road.speed + 0.025,
                                          0.025,
                                          "handover at the boundary crossing");
                NS_TEST_ASSERT_MSG_EQ(ue.prefillTokens + ue.transferTokens,
                                      ue.contextTokens,
                                      "n_pf + n_tx = C");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.contextTokens,
                                            uint64_t{ue.promptTokens},
                                            "context = prompt + decoded tokens");
                // Prompts are sized so the context at the handover is the drawn one.
                NS_TEST_ASSERT_MSG_EQ_TOL(double(ue.contextTokens),
                                          double(ue.drawnContext),
                                          5.0,
                                          "context at the handover ~ drawn C_i");
                NS_TEST_ASSERT_MSG_EQ(ue.kvBytesReceived,
                                      ue.transferTokens * bytesPerToken,
                                      r.scheme << " UE " << ue.ueId << ": every KV byte arrives");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.restoredDelay,
                                            ue.predictedDelay - 1e-9,
                                            "packets never beat the fluid model");
                // The stream resumes right after the last decoded token: nothing repeated;
                // at most the one token in the source's RLC UM buffer is lost on leaving.
                NS_TEST_ASSERT_MSG_EQ(ue.tokensDuplicated, 0u, "no token decoded twice");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.tokensMissing, 1u, "at most the in-flight token");
                expectedTotal += ue.transferTokens * bytesPerToken;
            }
            NS_TEST_ASSERT_MSG_EQ(r.kvBytesSent, expectedTotal, r.scheme << ": bytes sent");
            NS_TEST_ASSERT_MSG_EQ(r.kvBytesReceived, expectedTotal, r.scheme << ": bytes received");
            NS_TEST_ASSERT_MSG_EQ_TOL(r.measuredWorst,
                                      r.predictedWorst,
                                      0.10 * r.predictedWorst,
                                      r.scheme << ": measured worst delay within 10 % of the plan");
            measuredWorst[s] = r.measuredWorst;

            // The flow level, on the same run's UEs, predicts the target-side delay the
            // packets produce within 5 % (the packet level adds headers, slow start and
            // the X2 preparation before the RRC's HandoverStart).
            FluidHandoverConfig fluid;
            fluid.schedulerType = types[s];
            const double flowWorst =
                FluidHandoverScenario::Run(fluid, cfg.road.Draw(RngSeedManager::GetRun()))
                    .worstDelay;
            double restoredWorst = 0;
            for (const auto& ue : r.ues)
            {
                restoredWorst = std::max(restoredWorst, ue.restoredDelay);
            }
            NS_TEST_ASSERT_MSG_EQ_TOL(restoredWorst,
                                      flowWorst,
                                      0.05 * flowWorst,
                                      r.scheme << ": packet level within 5 % of the flow level");
        }
        NS_TEST_ASSERT_MSG_LT_OR_EQ(measuredWorst[0], measuredWorst[1], "ctHO <= tHO measured");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(measuredWorst[0], measuredWorst[2], "ctHO <= cHO measured");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Online ctHO with automatic LTE handovers (A3-RSRP and A2-A4-RSRQ): nobody
 *        announces the handover times.
 *
 * Checks: every UE hands over once, after its boundary crossing (the algorithms need
 * a signal margin and a time to trigger), and resumes; every KV byte arrives, per UE
 * and per connection, and none twice; the split adds up; the target-side worst delay
 * is within 5 % of the flow level's for the same handovers and policy.
 */
class OnlineCtHoSystemTestCase : public TestCase
{
  public:
    OnlineCtHoSystemTestCase()
        : TestCase("online ctHO over automatic LTE handovers: every UE resumes, bytes conserved")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(2);
        for (const std::string algorithm :
             {"ns3::A3RsrpHandoverAlgorithm", "ns3::A2A4RsrqHandoverAlgorithm"})
        {
            RoadHandoverConfig cfg;
            cfg.handoverAlgorithm = algorithm;
            const uint64_t bytesPerToken =
                LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BytesPerToken();
            const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, algorithm << ": every UE resumes");
            uint64_t expectedTotal = 0;
            for (const auto& ue : r.ues)
            {
                NS_TEST_ASSERT_MSG_EQ(ue.stalls, 1u, algorithm << ": one handover per UE");
                NS_TEST_ASSERT_MSG_GT(ue.handoverTime,
                                      (cfg.road.boundary - ue.startX) / cfg.road.speed,
                                      algorithm << ": after the boundary crossing");
                NS_TEST_ASSERT_MSG_EQ(ue.prefillTokens + ue.transferTokens,
                                      ue.contextTokens,
                                      "n_pf + n_tx = C");
                NS_TEST_ASSERT_MSG_EQ(ue.kvBytesReceived,
                                      ue.transferTokens * bytesPerToken,
                                      algorithm << " UE " << ue.ueId << ": every KV byte arrives");
                NS_TEST_ASSERT_MSG_EQ(ue.tokensDuplicated, 0u, "no token decoded twice");
                NS_TEST_ASSERT_MSG_EQ(std::isfinite(ue.measuredDelay), true, "delay reported");
                expectedTotal += ue.transferTokens * bytesPerToken;
            }
            NS_TEST_ASSERT_MSG_EQ(r.kvBytesSent, expectedTotal, algorithm << ": bytes sent");
            NS_TEST_ASSERT_MSG_EQ(r.kvBytesReceived, expectedTotal, "bytes received = sent");
            NS_TEST_ASSERT_MSG_EQ_TOL(r.restoredWorst,
                                      r.fluidWorst,
                                      0.05 * r.fluidWorst,
                                      algorithm << ": packet level within 5 % of the flow level");
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Whole-scenario tests (SYSTEM).
 */
class EdgeLlmLteHandoverTestSuite : public TestSuite
{
  public:
    EdgeLlmLteHandoverTestSuite()
        : TestSuite("edge-llm-lte-handover", EDGE_LLM_TEST_SYSTEM)
    {
        AddTestCase(new LteHandoverSystemTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new OnlineCtHoSystemTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmLteHandoverTestSuite g_edgeLlmLteHandoverTestSuite;
