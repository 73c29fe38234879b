/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/road-handover/road-handover-example.h"
#include "../examples/studies/fluid-handover-scenario.h"
#include "../examples/studies/road-handover-scenario.h"
#include "edge-llm-test-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-ran.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/edge-llm-ue-app.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/llm-model-profile.h"
#include "ns3/lte-helper.h"
#include "ns3/mobility-helper.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

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
            // Every batch is reported (the printout lists each batch's L): each UE is in
            // exactly one, and its n_pf is at most that batch's L, which one member reaches.
            std::map<uint64_t, uint32_t> batchesOf;
            for (const auto& b : r.batches)
            {
                uint64_t largest = 0;
                for (uint64_t id : b.ues)
                {
                    ++batchesOf[id];
                    for (const auto& ue : r.ues)
                    {
                        if (ue.ueId == id)
                        {
                            NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.prefillTokens,
                                                        b.prefillLength,
                                                        algorithm << " UE " << id << ": n_pf <= L");
                            largest = std::max<uint64_t>(largest, ue.prefillTokens);
                        }
                    }
                }
                NS_TEST_ASSERT_MSG_EQ(largest, b.prefillLength, algorithm << ": L = max n_pf");
            }
            NS_TEST_ASSERT_MSG_EQ(batchesOf.size(),
                                  r.ues.size(),
                                  algorithm << ": every UE batched");
            for (const auto& [id, n] : batchesOf)
            {
                NS_TEST_ASSERT_MSG_EQ(n, 1u, algorithm << " UE " << id << ": in one batch");
            }
            NS_TEST_ASSERT_MSG_EQ_TOL(r.restoredWorst,
                                      r.fluidWorst,
                                      0.05 * r.fluidWorst,
                                      algorithm << ": packet level within 5 % of the flow level");
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The UE-side delay in a loaded source cell that loses tokens (12 UEs, the
 *        packet level's most): never negative, and not below the target's restore time.
 *
 * EXTENSIVE: two 12-UE runs take about 60 s.
 *
 * The target's restore time D_i = resume - handover is a lower bound of what the user
 * waits: the first token after the handover is decoded one interval after the resume.
 * The UE-side delay may only exceed it by the radio's latency difference, which can be
 * either sign by a fraction of one LTE TTI (1 ms): hence measured >= D_i - 1 ms. The old
 * measurement (stall - token gap * DecodeInterval) went 1.6 ms below D_i here (ctHO, run
 * 1, UEs 3 and 11: 0.4880 s vs 0.4896 s, 0.4780 s vs 0.4796 s): a late last token from the
 * loaded source cell shortened it.
 */
class UeDelayNotBelowRestoreTestCase : public TestCase
{
  public:
    UeDelayNotBelowRestoreTestCase()
        : TestCase("UE-side delay >= 0 and >= the target's restore time when tokens are lost")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg;
        cfg.road.numUes = 12;
        uint32_t lost = 0;
        for (const char* type : {"ns3::CtHoScheduler", "ns3::ChoScheduler"})
        {
            const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, type);
            NS_TEST_ASSERT_MSG_EQ(r.complete, true, r.scheme << ": every UE resumes");
            for (const auto& ue : r.ues)
            {
                lost += ue.tokensMissing;
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.measuredDelay,
                                            0.0,
                                            r.scheme << " UE " << ue.ueId << ": never negative");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.measuredDelay,
                                            ue.restoredDelay - 1e-3,
                                            r.scheme << " UE " << ue.ueId
                                                     << ": not below the restore time (lost "
                                                     << ue.tokensMissing << " tokens)");
            }
        }
        NS_TEST_ASSERT_MSG_GT(lost, 0u, "the run loses tokens in the source cell");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The main job's output (RunRoadHandoverExample, the body of
 *        edge-llm-lte-handover): the CSV has the table's columns, each UE's bound, the
 *        ImpactHO share and accuracy instead of NaN, the closing comparison line, and the
 *        PNG beside the CSV.
 *
 * Hand-checked values: a tHO UE is bounded by its prefill batch, so restored_s =
 * batch_start_s + p(L) - handover_s with p(L) = a L + b and L the batch's longest context;
 * a cHO UE (no prefill) is bounded by its transfer; the closing line's worst delay of a
 * scheme is the largest measured_delay_s of its CSV rows.
 */
class MainJobOutputTestCase : public TestCase
{
  public:
    MainJobOutputTestCase()
        : TestCase("Main job: CSV columns, bound per UE, ImpactHO share and accuracy, summary, PNG")
    {
    }

  private:
    /// Split a CSV line.
    static std::vector<std::string> Split(const std::string& line)
    {
        std::vector<std::string> out;
        std::istringstream in(line);
        std::string f;
        while (std::getline(in, f, ','))
        {
            out.push_back(f);
        }
        if (!line.empty() && line.back() == ',')
        {
            out.emplace_back();
        }
        return out;
    }

    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        const std::string dir = edgellmtest::FreshTempDir("main-job-output-test");
        std::vector<std::string> args = {"edge-llm-lte-handover",
                                         "--outputDir=" + dir,
                                         "--numUes=2",
                                         "--schemes=tho,cho,impactho"};
        std::vector<char*> argv;
        for (auto& a : args)
        {
            argv.push_back(a.data());
        }
        argv.push_back(nullptr);
        std::ostringstream captured;
        std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
        const int code = RunRoadHandoverExample(static_cast<int>(args.size()),
                                                argv.data(),
                                                "edge-llm-lte-handover.cc",
                                                "lte");
        std::cout.rdbuf(old);
        const std::string out = captured.str();
        NS_TEST_ASSERT_MSG_EQ(code, 0, "the run completes");
        NS_TEST_ASSERT_MSG_EQ(out.find("nan"), std::string::npos, "no NaN printed:\n" << out);
        NS_TEST_EXPECT_MSG_NE(out.find("measured_s that gap's excess over the decode cadence: "
                                       "the delay the user feels"),
                              std::string::npos,
                              "one legend line for the delay columns");
        std::ifstream pltFile(dir + "/handover-delays.plt");
        const std::string plt((std::istreambuf_iterator<char>(pltFile)),
                              std::istreambuf_iterator<char>());
        NS_TEST_EXPECT_MSG_NE(plt.find("title \"tho\" with yerrorbars lc rgb '#D55E00'"),
                              std::string::npos,
                              "tHO in its colour:\n"
                                  << plt);
        NS_TEST_EXPECT_MSG_NE(plt.find("title \"cho\" with yerrorbars lc rgb '#009E73'"),
                              std::string::npos,
                              "cHO in another");

        std::ifstream csvFile(dir + "/handover-delays.csv");
        std::string header;
        std::getline(csvFile, header);
        NS_TEST_ASSERT_MSG_EQ(header,
                              "scheme,ue_id,handover_s,context_tokens,prefill_tokens,"
                              "transfer_tokens,predicted_delay_s,restored_s,stall_s,"
                              "measured_delay_s,tokens_missing,bound,batch_start_s,"
                              "received_fraction,accuracy,"
                              "transport,layerwise",
                              "every column of the table");
        std::map<std::string, std::vector<std::vector<std::string>>> rows;
        std::string line;
        while (std::getline(csvFile, line))
        {
            const auto f = Split(line);
            NS_TEST_ASSERT_MSG_EQ(f.size(), 17u, "17 fields: " << line);
            rows[f[0]].push_back(f);
        }
        NS_TEST_ASSERT_MSG_EQ(rows["tho"].size(), 2u, "2 tHO rows");
        NS_TEST_ASSERT_MSG_EQ(rows["cho"].size(), 2u, "2 cHO rows");
        NS_TEST_ASSERT_MSG_EQ(rows["impactho"].size(), 2u, "2 ImpactHO rows");

        const RoadHandoverConfig cfg;
        uint64_t longest = 0;
        for (const auto& f : rows["tho"])
        {
            longest = std::max<uint64_t>(longest, std::stoull(f[3]));
        }
        const double prefill = cfg.prefillA * longest + cfg.prefillB; // c = 0
        for (const auto& f : rows["tho"])
        {
            NS_TEST_ASSERT_MSG_EQ(f[11], "prefill", "tHO is bounded by its prefill batch");
            const double handover = std::stod(f[2]);
            const double batchStart = std::stod(f[12]);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(batchStart, handover, "the batch starts after the HO");
            NS_TEST_ASSERT_MSG_EQ_TOL(std::stod(f[7]),
                                      batchStart + prefill - handover,
                                      1e-6,
                                      "restored = batch start + p(L) - handover");
        }
        for (const auto& f : rows["cho"])
        {
            NS_TEST_ASSERT_MSG_EQ(f[11], "transfer", "cHO is bounded by its transfer");
            NS_TEST_ASSERT_MSG_EQ(f[12], "", "no batch start");
        }
        for (const auto& f : rows["impactho"])
        {
            NS_TEST_ASSERT_MSG_EQ(f[6], "", "ImpactHO plans no delay: an empty field");
            const double share = std::stod(f[13]);
            const double accuracy = std::stod(f[14]);
            NS_TEST_ASSERT_MSG_GT(share, 0.0, "share received > 0");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(share, 1.0, "share received <= 1");
            NS_TEST_ASSERT_MSG_GT(accuracy, 0.0, "accuracy > 0");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(accuracy, 0.9535, "accuracy <= the preset's M");
        }
        // The closing line: worst / mean measured delay of each scheme, from the rows.
        const auto at = out.find("schemes by measured (UE-side) delay");
        NS_TEST_ASSERT_MSG_NE(at, std::string::npos, "the closing line:\n" << out);
        const std::string closing = out.substr(at, out.find('\n', at) - at);
        for (const std::string scheme : {"tho", "cho", "impactho"})
        {
            double worst = 0;
            double sum = 0;
            for (const auto& f : rows[scheme])
            {
                worst = std::max(worst, std::stod(f[9]));
                sum += std::stod(f[9]);
            }
            std::ostringstream expected;
            expected << std::fixed << std::setprecision(4) << "  " << scheme << " " << worst
                     << " / " << sum / 2 << " s";
            NS_TEST_ASSERT_MSG_NE(closing.find(expected.str()),
                                  std::string::npos,
                                  "'" << expected.str() << "' in: " << closing);
        }
        if (std::system("command -v gnuplot >/dev/null 2>&1") == 0)
        {
            std::ifstream png(dir + "/handover-delays.png", std::ios::binary);
            char magic[4] = {0, 0, 0, 0};
            png.read(magic, 4);
            NS_TEST_ASSERT_MSG_EQ(std::string(magic + 1, 3), "PNG", "the PNG beside the CSV");
        }
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A scheduler type name that is no creatable HandoverScheduler (unknown, the
 *        wrong base class, the abstract base) is refused by the road and flow-level
 *        scenarios with std::invalid_argument naming the field and the valid names,
 *        before anything runs (it used to reach ObjectFactory, which aborts).
 */
class SchedulerTypeRefusedTestCase : public TestCase
{
  public:
    SchedulerTypeRefusedTestCase()
        : TestCase("Scenarios refuse a scheduler type that is no HandoverScheduler")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string bad : {"ns3::Foo", "ns3::Node", "ns3::HandoverScheduler"})
        {
            std::string road;
            try
            {
                RoadHandoverScenario::Run(RoadHandoverConfig(), bad);
            }
            catch (const std::invalid_argument& e)
            {
                road = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(
                road.find("schedulerType: '" + bad + "' is no ns3::HandoverScheduler; valid: "),
                std::string::npos,
                "road: " << road);
            NS_TEST_ASSERT_MSG_NE(road.find("ns3::ChoScheduler"), std::string::npos, road);
            std::string fluid;
            try
            {
                FluidHandoverConfig cfg;
                cfg.schedulerType = bad;
                FluidHandoverScenario::Run(cfg, RoadUeDraw().Draw(1));
            }
            catch (const std::invalid_argument& e)
            {
                fluid = e.what();
            }
            NS_TEST_ASSERT_MSG_NE(
                fluid.find("schedulerType: '" + bad + "' is no ns3::HandoverScheduler; valid: "),
                std::string::npos,
                "fluid: " << fluid);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Slow and long X2 backhauls: handover signalling never waits behind KV bytes,
 *        and a backhaul on which a handover cannot complete is refused up front.
 *
 * Checks: (1) the minimum rate for the paper's link (MTU 9000 B, 100 us), by hand from
 * the RRC's timers (HandoverJoiningTimeoutDuration 200 ms, HandoverLeavingTimeoutDuration
 * 500 ms), the 20 ms radio allowance, two 9002-byte frames ahead and the 63-byte ack /
 * 41-byte release: max(8 (18004 + 63) / 0.1799, 8 (18004 + 41) / 0.4799) = 803424.1 bit/s;
 * just below it (0.99 x) the configuration is refused naming --backhaulGbps and the
 * minimum, just above it (8.1e-4 Gbit/s, 1.008 x) every UE hands over to the target and
 * resumes (without the refusal, 1e-5 Gbit/s crashed ns-3's RRC). (2) The delay's boundary:
 * 179 ms is accepted, 180 ms (= 200 ms - 20 ms) refused naming backhaulDelay. (3) At
 * 1 Gbit/s, with ctHO's KV transfer filling the link while later UEs hand over, each
 * handover's X2 preparation (request at the crossing to the ack at the source, i.e.
 * HandoverStart) stays within the priority queue's bound: the request and the ack each
 * wait behind at most two 9002-byte frames, 300 bytes each is a generous size for both
 * messages, plus the two link delays: 2 x 100 us + 8 (4 x 9002 + 2 x 300) / 1e9 =
 * 0.493 ms. With X2SignallingPriority = false (ns-3's FIFO order, the old behaviour) the
 * later UEs' preparation takes 3.6 to 3.9 ms: the case checks that it exceeds the bound.
 */
class X2SignallingTestCase : public TestCase
{
  public:
    X2SignallingTestCase()
        : TestCase("slow X2 backhaul: signalling before KV bytes, too slow a link refused")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        const double minRate = 803424.1; // bit/s, by hand (see the class comment)
        NS_TEST_ASSERT_MSG_EQ_TOL(EdgeLlmRan::MinBackhaulBitRate("lte", 9000, MicroSeconds(100)),
                                  minRate,
                                  0.1,
                                  "minimum X2 rate for MTU 9000 B and 100 us");
        NS_TEST_ASSERT_MSG_EQ(
            EdgeLlmRan::MinBackhaulBitRate("lte", 9000, MilliSeconds(180)),
            std::numeric_limits<double>::infinity(),
            "a 180 ms link leaves no time for the ack within the 200 ms joining timer");

        // Just below: refused, with the computed minimum and the field.
        RoadHandoverConfig below;
        below.backhaulGbps = 0.99 * minRate / 1e9;
        std::string what;
        try
        {
            below.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            what = e.what();
        }
        // The config's message names its knob (a program names its own option for it).
        NS_TEST_ASSERT_MSG_EQ(what.rfind("backhaulGbps must be >= ", 0), 0, what);
        NS_TEST_ASSERT_MSG_NE(what.find("0.000803425 Gbit/s (803425 bit/s)"),
                              std::string::npos,
                              what);

        // The minimum as printed (rounded up to a whole bit/s) is itself accepted.
        RoadHandoverConfig printed;
        printed.backhaulGbps = 0.000803425;
        bool printedAccepted = true;
        try
        {
            printed.Validate();
        }
        catch (const std::invalid_argument&)
        {
            printedAccepted = false;
        }
        NS_TEST_ASSERT_MSG_EQ(printedAccepted, true, "0.000803425 Gbit/s is accepted");

        // The delay's boundary, on both sides.
        RoadHandoverConfig longLink;
        longLink.backhaulDelay = MilliSeconds(179);
        bool accepted = true;
        try
        {
            longLink.Validate();
        }
        catch (const std::invalid_argument&)
        {
            accepted = false;
        }
        NS_TEST_ASSERT_MSG_EQ(accepted, true, "179 ms is accepted at 4.5 Gbit/s");
        longLink.backhaulDelay = MilliSeconds(180);
        what.clear();
        try
        {
            longLink.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            what = e.what();
        }
        NS_TEST_ASSERT_MSG_NE(what.find("backhaulDelay"), std::string::npos, "180 ms refused");

        // Just above: every handover completes.
        RoadHandoverConfig above;
        above.backhaulGbps = 8.1e-4;
        const RoadHandoverResult slow = RoadHandoverScenario::Run(above, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(slow.complete, true, "8.1e-4 Gbit/s: every UE resumes");
        for (const auto& ue : slow.ues)
        {
            NS_TEST_ASSERT_MSG_EQ(ue.stalls, 1u, "UE " << ue.ueId << ": one handover");
            NS_TEST_ASSERT_MSG_EQ(ue.servingCellId,
                                  slow.targetCellId,
                                  "UE " << ue.ueId << ": handover completed at the target");
        }

        // Under a saturating KV transfer: the X2 preparation within the priority bound.
        RoadHandoverConfig busy;
        busy.backhaulGbps = 1;
        const RoadHandoverResult r = RoadHandoverScenario::Run(busy, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "1 Gbit/s: every UE resumes");
        NS_TEST_ASSERT_MSG_GT(r.kvBytesSent, 0u, "the KV transfer shares the X2 link");
        const double bound = 2 * 100e-6 + 8.0 * (4 * 9002 + 2 * 300) / 1e9; // 0.493 ms
        for (const auto& ue : r.ues)
        {
            const double crossing = (busy.road.boundary - ue.startX) / busy.road.speed;
            NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.handoverTime - crossing,
                                        bound,
                                        "UE " << ue.ueId << ": X2 request -> ack within the bound");
        }

        // The same run in ns-3's FIFO order (the old behaviour): X2-C waits behind KV.
        Config::SetDefault("ns3::EdgeLlmRan::X2SignallingPriority", BooleanValue(false));
        const RoadHandoverResult fifo = RoadHandoverScenario::Run(busy, "ns3::CtHoScheduler");
        Config::SetDefault("ns3::EdgeLlmRan::X2SignallingPriority", BooleanValue(true));
        double slowest = 0;
        for (const auto& ue : fifo.ues)
        {
            slowest =
                std::max(slowest,
                         ue.handoverTime - (busy.road.boundary - ue.startX) / busy.road.speed);
        }
        NS_TEST_ASSERT_MSG_GT(slowest, bound, "without the priority an X2-C message waits");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The Helpers path, in the order of ns-3's own LTE scripts (lena-x2-handover-measures):
 *        LteHelper with a PointToPointEpcHelper, eNB devices, EdgeLlmHelper::InstallOnEnbs,
 *        then ConnectBackhaul. Called before LteHelper::AddX2Interface it is refused with a
 *        message naming the order; after it the X2 links get the X2 priority queue disc as
 *        on the RAN seam. ns-3's X2 link (MTU 3000, delay 0) must carry at least, by hand,
 *        R_min = max(8 (2 x 3002 + 63) / 0.18, 8 (2 x 3002 + 41) / 0.48) = 269,644.4 bit/s:
 *        269,644 bit/s is refused, 269,645 bit/s accepted.
 */
class HelpersPathTestCase : public TestCase
{
  public:
    HelpersPathTestCase()
        : TestCase("Helpers path: call order, X2 priority queue and minimum X2 rate")
    {
    }

  private:
    /**
     * Build two eNBs the way an ns-3 LTE script does, X2 link at \p x2Rate bit/s (made
     * after ConnectBackhaul if \p x2First is false), and connect the edge-LLM backhaul.
     * \return the error ConnectBackhaul threw ("" if none); \p prioritised: whether both
     *         X2 devices got the X2 priority queue disc
     */
    static std::string Connect(uint64_t x2Rate, bool x2First, bool& prioritised)
    {
        Ptr<LteHelper> lte = CreateObject<LteHelper>();
        Ptr<PointToPointEpcHelper> epc = CreateObject<PointToPointEpcHelper>();
        epc->SetAttribute("X2LinkDataRate", DataRateValue(DataRate(x2Rate)));
        lte->SetEpcHelper(epc);
        NodeContainer enbs;
        enbs.Create(2);
        MobilityHelper mobility;
        Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
        positions->Add(Vector(0, 0, 0));
        positions->Add(Vector(300, 0, 0));
        mobility.SetPositionAllocator(positions);
        mobility.Install(enbs);
        const NetDeviceContainer enbDevices = lte->InstallEnbDevice(enbs);
        EdgeLlmHelper edge;
        edge.SetSchedulerType("ns3::CtHoScheduler");
        const ApplicationContainer bs = edge.InstallOnEnbs(enbDevices);
        std::string error;
        try
        {
            if (x2First)
            {
                lte->AddX2Interface(enbs);
            }
            edge.ConnectBackhaul(bs);
        }
        catch (const std::invalid_argument& e)
        {
            error = e.what();
        }
        prioritised = true;
        for (uint32_t n = 0; n < 2; ++n)
        {
            bool found = false;
            for (uint32_t d = 0; d < enbs.Get(n)->GetNDevices(); ++d)
            {
                Ptr<PointToPointNetDevice> dev =
                    DynamicCast<PointToPointNetDevice>(enbs.Get(n)->GetDevice(d));
                if (dev && dev->GetChannel() &&
                    dev->GetChannel()->GetDevice(0)->GetNode() != epc->GetSgwNode() &&
                    dev->GetChannel()->GetDevice(1)->GetNode() != epc->GetSgwNode())
                {
                    found = true;
                    prioritised = prioritised && EdgeLlmRan::HasX2QueueDisc(dev);
                }
            }
            prioritised = prioritised && found;
        }
        Simulator::Destroy();
        return error;
    }

    void DoRun() override
    {
        bool prioritised = false;
        const std::string early = Connect(10000000000, false, prioritised);
        NS_TEST_EXPECT_MSG_NE(early.find("Call it after the X2/Xn links exist: "
                                         "LteHelper::AddX2Interface"),
                              std::string::npos,
                              "before AddX2Interface: refused, naming the order: " << early);
        NS_TEST_EXPECT_MSG_EQ(Connect(10000000000, true, prioritised), "", "after: accepted");
        NS_TEST_EXPECT_MSG_EQ(prioritised, true, "both X2 devices: X2-C and X2-U ahead of KV");

        NS_TEST_EXPECT_MSG_EQ_TOL(EdgeLlmRan::MinBackhaulBitRate("lte", 3000, Seconds(0)),
                                  269644.4,
                                  0.1,
                                  "ns-3's X2 link: minimum rate by hand");
        const std::string slow = Connect(269644, true, prioritised);
        NS_TEST_EXPECT_MSG_NE(slow.find("carries 269644 bit/s; it must carry at least 269645"),
                              std::string::npos,
                              "269,644 bit/s refused, naming rate and minimum: " << slow);
        NS_TEST_EXPECT_MSG_EQ(Connect(269645, true, prioritised), "", "269,645 bit/s accepted");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The doc's worked example (user doc, "Helpers") run to the end: a script's own
 *        LteHelper and PointToPointEpcHelper, two eNBs 300 m apart, two UEs near the
 *        midpoint handed over by request at 2.0 and 2.05 s; InstallOnEnbs, ConnectBackhaul,
 *        ConnectHandoverTrace, AddEpcRoutes, InstallUe with the EPC's SGW, one
 *        EdgeLlmSessionStats. Both handovers must be recorded and restored at the target
 *        (two SessionRestored traces through EdgeLlmNode::GetTargetRole()). With
 *        StreamTokens G = 50 each record's streamDelay, and the stream StartStream opens
 *        at 1 s, must equal the time to the first token of index >= C - P + G taken from
 *        the raw traces (HandoverStarted's context, the UE's TokenReceived).
 */
class WorkedExampleTestCase : public TestCase
{
  public:
    WorkedExampleTestCase()
        : TestCase("Helpers worked example: a script's own EPC, both handovers restored")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::NoBackhaulEpcHelper::X2LinkDataRate",
                           DataRateValue(DataRate("4.5Gbps")));
        Config::SetDefault("ns3::NoBackhaulEpcHelper::X2LinkMtu", UintegerValue(9000));
        Ptr<LteHelper> lte = CreateObject<LteHelper>();
        Ptr<PointToPointEpcHelper> epc = CreateObject<PointToPointEpcHelper>();
        lte->SetEpcHelper(epc);
        lte->SetHandoverAlgorithmType("ns3::NoOpHandoverAlgorithm");
        NodeContainer enbs;
        enbs.Create(2);
        NodeContainer ueNodes;
        ueNodes.Create(2);
        MobilityHelper mobility;
        Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
        for (const double x : {0.0, 300.0, 140.0, 145.0})
        {
            at->Add(Vector(x, 0, 0));
        }
        mobility.SetPositionAllocator(at);
        mobility.Install(enbs);
        mobility.Install(ueNodes);
        const NetDeviceContainer enbDevs = lte->InstallEnbDevice(enbs);
        const NetDeviceContainer ueDevs = lte->InstallUeDevice(ueNodes);
        InternetStackHelper internet;
        internet.Install(ueNodes);
        epc->AssignUeIpv4Address(ueDevs);
        Ipv4StaticRoutingHelper routing;
        for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
        {
            routing.GetStaticRouting(ueNodes.Get(i)->GetObject<Ipv4>())
                ->SetDefaultRoute(epc->GetUeDefaultGatewayAddress(), 1);
        }
        lte->Attach(ueDevs, enbDevs.Get(0));
        lte->AddX2Interface(enbs);

        EdgeLlmHelper edge;
        edge.SetSchedulerType("ns3::CtHoScheduler");
        edge.SetUeAttribute("MaxNewTokens", UintegerValue(6000));
        const ApplicationContainer bs = edge.InstallOnEnbs(enbDevs);
        edge.ConnectBackhaul(bs);
        edge.ConnectHandoverTrace(bs);
        EdgeLlmHelper::AddEpcRoutes(epc->GetSgwNode(), epc->GetPgwNode(), enbs);
        const ApplicationContainer ues = edge.InstallUe(ueNodes, ueDevs, bs, epc->GetSgwNode());
        Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
        const uint32_t g = 50;
        stats->SetAttribute("StreamTokens", UintegerValue(g));
        stats->Install(bs, ues);
        // The streams, measured here from the raw traces: each handover's start and
        // context, each UE's token arrivals, and a stream opened without a handover.
        std::map<uint64_t, std::pair<double, uint64_t>> started; // id -> (tau, C)
        std::map<uint64_t, std::map<uint32_t, double>> tokenAt;  // id -> index -> s
        std::vector<std::tuple<uint64_t, double, double>> measured;
        DynamicCast<EdgeLlmNode>(bs.Get(0))->GetSourceRole()->TraceConnectWithoutContext(
            "HandoverStarted",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&started](uint64_t id, uint16_t, uint64_t context) {
                    started[id] = {Simulator::Now().GetSeconds(), context};
                }));
        for (uint32_t i = 0; i < ues.GetN(); ++i)
        {
            ues.Get(i)->TraceConnectWithoutContext(
                "TokenReceived",
                compat::MakeCallback<void, uint64_t, uint32_t, uint16_t>(
                    [&tokenAt](uint64_t id, uint32_t index, uint16_t) {
                        tokenAt[id].emplace(index, Simulator::Now().GetSeconds());
                    }));
        }
        stats->TraceConnectWithoutContext(
            "StreamMeasured",
            compat::MakeCallback<void, uint64_t, Time, Time>(
                [&measured](uint64_t id, Time start, Time delay) {
                    measured.emplace_back(id, start.GetSeconds(), delay.GetSeconds());
                }));
        const uint64_t first = DynamicCast<EdgeLlmUeApp>(ues.Get(0))->GetSessionId();
        uint64_t contextAt1s = 0;
        compat::Schedule(Seconds(1), [&]() {
            contextAt1s = DynamicCast<EdgeLlmNode>(bs.Get(0))->PredictContextAt(first, Seconds(1));
            stats->StartStream(first, contextAt1s);
        });
        uint32_t restored = 0;
        DynamicCast<EdgeLlmNode>(bs.Get(1))->GetTargetRole()->TraceConnectWithoutContext(
            "SessionRestored",
            compat::MakeCallback<void, uint64_t, uint16_t, Time>(
                [&restored](uint64_t, uint16_t, Time) { ++restored; }));
        for (uint32_t i = 0; i < ueDevs.GetN(); ++i)
        {
            lte->HandoverRequest(Seconds(2.0 + 0.05 * i),
                                 ueDevs.Get(i),
                                 enbDevs.Get(0),
                                 enbDevs.Get(1));
        }
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(stats->GetRecords().size(), 2u, "one record per handover");
        NS_TEST_EXPECT_MSG_EQ(stats->CountOutcome(EdgeLlmHandoverRecord::RESTORED),
                              2u,
                              "both restored at the target");
        NS_TEST_EXPECT_MSG_EQ(restored, 2u, "SessionRestored through GetTargetRole()");
        UintegerValue prompt;
        ues.Get(0)->GetAttribute("PromptTokens", prompt);
        // The time from start to the first token of index >= (context - prompt) + G.
        auto streamOf = [&](uint64_t id, double start, uint64_t context) {
            const auto token =
                tokenAt[id].lower_bound(static_cast<uint32_t>(context - prompt.Get() + g));
            return token == tokenAt[id].end() ? -1.0 : token->second - start;
        };
        for (const EdgeLlmHandoverRecord& r : stats->GetRecords())
        {
            const auto [tau, context] = started.at(r.sessionId);
            const double expected = streamOf(r.sessionId, tau, context);
            NS_TEST_EXPECT_MSG_GT(expected, 0.0, "the G-th token after the handover came");
            NS_TEST_EXPECT_MSG_EQ_TOL(r.streamDelay,
                                      expected,
                                      1e-12,
                                      "record's stream, session " << r.sessionId);
        }
        NS_TEST_ASSERT_MSG_EQ(measured.size(), 3u, "StreamMeasured: two handovers, one start");
        const double baseline = streamOf(first, 1.0, contextAt1s);
        NS_TEST_EXPECT_MSG_GT(baseline, 0.0, "the G-th token after 1 s came");
        uint32_t baselines = 0;
        for (const auto& [id, start, delay] : measured)
        {
            if (start == 1.0)
            {
                ++baselines;
                NS_TEST_EXPECT_MSG_EQ(id, first, "StartStream's session");
                NS_TEST_EXPECT_MSG_EQ_TOL(delay, baseline, 1e-12, "StartStream's stream");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(baselines, 1u, "one stream opened by StartStream");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The stream after the handover at its boundary (MultiCellConfig::streamTokens): with
 *        G = tokensAfterHandover - 1 = 499 every UE's 499th token after its handover
 *        arrives (complete, every streamDelay known); with G = 500 the handover comes at
 *        least a token after the planned crossing, so no UE has a 500th token after it:
 *        each UE is done at its session's last token (streamDelay unknown, not complete),
 *        and the run ends within 0.1 s of the G = 499 run (one token, 10 ms, plus the
 *        drain), not at its safety limit (over 20 s later).
 */
class StreamBoundaryTestCase : public TestCase
{
  public:
    StreamBoundaryTestCase()
        : TestCase("Stream after the handover: G = 499 measured, G = 500 ends at the last token")
    {
    }

  private:
    void DoRun() override
    {
        RoadHandoverConfig cfg;
        cfg.road.numUes = 2;
        cfg.streamTokens = cfg.tokensAfterHandover - 1;
        const RoadHandoverResult fits = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(fits.complete, true, "G = 499: every UE streamed G");
        for (const auto& ue : fits.ues)
        {
            NS_TEST_EXPECT_MSG_EQ(std::isnan(ue.streamDelay), false, "G = 499: measured");
        }
        cfg.streamTokens = cfg.tokensAfterHandover;
        const RoadHandoverResult over = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_EXPECT_MSG_EQ(over.complete, false, "G = 500: no UE has a 500th token after");
        for (const auto& ue : over.ues)
        {
            NS_TEST_EXPECT_MSG_EQ(std::isnan(ue.streamDelay), true, "G = 500: unknown");
            NS_TEST_EXPECT_MSG_EQ(ue.stalls, 1u, "G = 500: the UE resumed all the same");
        }
        NS_TEST_EXPECT_MSG_LT(std::abs(over.simulatedSeconds - fits.simulatedSeconds),
                              0.1,
                              "G = 500 ends at the sessions' last tokens, not the safety limit");
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
        AddTestCase(new UeDelayNotBelowRestoreTestCase, EDGE_LLM_TEST_EXTENSIVE); // ~60 s
        AddTestCase(new MainJobOutputTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new SchedulerTypeRefusedTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new X2SignallingTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new HelpersPathTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new WorkedExampleTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new StreamBoundaryTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmLteHandoverTestSuite g_edgeLlmLteHandoverTestSuite;
