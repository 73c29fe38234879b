/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/fluid-handover-scenario.h"
#include "ctho-brute-force.h"
#include "edge-llm-test-util.h"

#include "ns3/boolean.h"
#include "ns3/ctho-planner.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/fluid-handover-engine.h"
#include "ns3/impactho-scheduler.h"
#include "ns3/llm-model-profile.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/slot-allocator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level engine (FluidHandoverEngine through FluidHandoverScenario)
 *        reproduces the closed-form plan UE by UE, and ctHO attains the brute-force
 *        minimum and beats tHO and cHO, on random batches.
 *
 * The engine simulates: transfers served one at a time by the scheduler's EDF pick,
 * a T_c-aligned batch on the GPU. The planner computes the same schedule in closed
 * form; the brute force scans every L with the O(K^2) definition of g (doc/edge-llm-design.rst,
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
            const char* types[3] = {"ns3::CtHoScheduler", "ns3::ChoScheduler", "ns3::ChoScheduler"};
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
 * \brief The flow-level core (FluidHandoverEngine) against hand calculations: a cHO
 *        handover alone, and a cache sent ahead at RateShare x R, whole or cut by the
 *        handover.
 *
 * qwen2.5-7b-instruct at q = 16: s_KV = 2 x 28 layers x 4 heads x 128 x 16 bit = 458752
 * bit = 57344 bytes per token; R = 4.5 Gbit/s.
 */
class FluidEngineHandTestCase : public TestCase
{
  public:
    FluidEngineHandTestCase()
        : TestCase("flow-level core: cHO and a pre-transfer by hand")
    {
    }

  private:
    static FluidHandoverEpisode Episode(double trigger, double handover)
    {
        FluidHandoverEpisode e;
        e.triggerTime = trigger;
        e.handoverTime = handover;
        e.prefixTokens = 1000;
        e.contextTokens = 1500;
        return e;
    }

    void DoRun() override
    {
        const FluidEngineConfig config;
        // cHO sends all C = 1500 tokens: D = 1500 x 458752 / 4.5e9 = 0.152917333... s.
        const std::vector<FluidHandoverEpisode> plain{
            Episode(std::numeric_limits<double>::quiet_NaN(), 1.0)};
        FluidEngineResult r =
            FluidHandoverEngine(config, CreateObject<ChoScheduler>(), plain).Run();
        NS_TEST_ASSERT_MSG_EQ(r.scheme, "cho", "the policy's name");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.worstDelay, 0.6881280 / 4.5, 1e-12, "cHO: C s_KV / R");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.handoverBytes, 1500 * 57344.0, 1e-3, "all sent at tau");

        // Sent ahead from t = 0 at 0.5 x 4.5e9 / 8 = 281.25e6 B/s: the 57.344e6 B prefix is
        // there at 0.204 s < tau = 1 s; the rest, 500 tokens: D = 500 x 458752 / 4.5e9.
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        pre->SetAttribute("InnerScheduler", StringValue("ns3::ChoScheduler"));
        pre->SetAttribute("RateShare", DoubleValue(0.5));
        const std::vector<FluidHandoverEpisode> whole{Episode(0, 1.0)};
        r = FluidHandoverEngine(config, pre, whole).Run();
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 1000, "the whole prefix used");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 57344000.0, 1e-3, "prefix bytes ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedBytes, 0.0, 1e-3, "nothing wasted");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.worstDelay, 0.229376 / 4.5, 1e-12, "rest: 500 tokens");

        // Cut at tau = 0.1 s: 28.125e6 B arrived, floor(28125000 / 57344) = 490 tokens used
        // (28098560 B), 26440 B wasted; the rest, 1010 tokens: D = 1010 x 458752 / 4.5e9.
        const std::vector<FluidHandoverEpisode> cut{Episode(0, 0.1)};
        r = FluidHandoverEngine(config, pre, cut).Run();
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 490, "whole tokens of what arrived");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 28125000.0, 1e-3, "R/2 x 0.1 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedBytes, 26440.0, 1e-3, "the part token");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.worstDelay, 0.46333952 / 4.5, 1e-12, "rest: 1010 tokens");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.backhaulBytes,
                                  28125000.0 + 1010 * 57344.0,
                                  1e-3,
                                  "ahead + at tau");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level core's batches by hand: transfers on a link, released at their
 *        handovers (online: when planned), one at a time by the policy's EDF across
 *        batches; online gathering; the batch knobs' refusals.
 *
 * cHO (L = 0: every token over the backhaul) at R = 1000 tokens/s (0.458752 Gbit/s for
 * qwen2.5-7b-instruct at q = 16), so C tokens take C ms.
 */
class FluidEngineBatchTestCase : public TestCase
{
  public:
    FluidEngineBatchTestCase()
        : TestCase("flow-level core: batches on a link (EDF across batches), online, refusals")
    {
    }

  private:
    static FluidHandoverEpisode Episode(uint64_t id, double tau, uint64_t context)
    {
        FluidHandoverEpisode e;
        e.ueId = id;
        e.handoverTime = tau;
        e.contextTokens = context;
        return e;
    }

    void DoRun() override
    {
        FluidEngineConfig config;
        config.backhaulGbps = 0.458752;
        // Known times, batchSpan 0.5 s: {A (0 s, 700), B (0.3 s, 100)}, then {C (0.55 s, 10)}.
        // Batch 1: A 0-0.7 s, B 0.7-0.8 s, g = 0.7 s: deadlines A 0.7 s, B 1.0 s. Batch 2 is
        // planned on the backlog (0.55 + 0.15 + 0.1 = 0.8 s): done 0.81 s, deadline 0.81 s.
        // On the link C (deadline 0.81 s) goes before B (1.0 s): A 0-0.7, C 0.7-0.71, B
        // 0.71-0.81. D_A = 0.7 s, D_B = 0.51 s, D_C = 0.16 s.
        config.batchSpan = 0.5;
        const std::vector<FluidHandoverEpisode> three{Episode(1, 0, 700),
                                                      Episode(2, 0.3, 100),
                                                      Episode(3, 0.55, 10)};
        FluidEngineResult r =
            FluidHandoverEngine(config, CreateObject<ChoScheduler>(), three).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 0.7, 1e-9, "A: 0 to 0.7 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[2].delay, 0.16, 1e-9, "C before B: EDF across batches");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].delay, 0.51, 1e-9, "B after C");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].transferDone, 0.81, 1e-9, "B's last byte");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[2].prefillDone, 0.55, 1e-12, "nothing to prefill: tau");

        // Online, gathered 10 ms: A (0 s, 100) and B (5 ms, 100) are planned together at
        // 10 ms and sent from then: A 0.01-0.11 s, B 0.11-0.21 s.
        config.knownHandoverTimes = false;
        config.gatherTime = MilliSeconds(10);
        const std::vector<FluidHandoverEpisode> two{Episode(1, 0, 100), Episode(2, 0.005, 100)};
        r = FluidHandoverEngine(config, CreateObject<ChoScheduler>(), two).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 0.11, 1e-9, "gathered: A sent from 10 ms");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].delay, 0.205, 1e-9, "gathered: B after A");
        // Not gathered: each sent from its handover, A 0-0.1 s, B 0.1-0.2 s.
        config.gatherTime = Seconds(0);
        r = FluidHandoverEngine(config, CreateObject<ChoScheduler>(), two).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 0.1, 1e-9, "A sent from its handover");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].delay, 0.195, 1e-9, "B after A");

        // gatherTime: [0, 1] s; online batches need a batch policy.
        config.gatherTime = Seconds(1);
        NS_TEST_ASSERT_MSG_EQ(
            FluidHandoverEngine(config, CreateObject<ChoScheduler>(), two).Run().ues.size(),
            2u,
            "gatherTime 1 s accepted");
        config.gatherTime = MilliSeconds(1001);
        Expect(config, CreateObject<ChoScheduler>(), two, "gatherTime must be in [0, 1] s");
        config.gatherTime = NanoSeconds(-1);
        Expect(config, CreateObject<ChoScheduler>(), two, "gatherTime must be in [0, 1] s");
        config.gatherTime = Seconds(0);
        Expect(config, CreateObject<ImpactHoScheduler>(), two, "needs a batch policy");
    }

    /// Constructing the engine throws std::invalid_argument containing \p what.
    void Expect(const FluidEngineConfig& config,
                Ptr<HandoverScheduler> scheduler,
                const std::vector<FluidHandoverEpisode>& ues,
                const std::string& what)
    {
        const std::string message =
            edgellmtest::ErrorOf([&]() { FluidHandoverEngine(config, scheduler, ues); });
        NS_TEST_EXPECT_MSG_NE(message.find(what), std::string::npos, "refused: " << what);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level core on the inputs a review broke it with: rounding that froze the
 *        clock, FollowDecoding without decoding, sending ahead after an online handover,
 *        same-instant online handovers, a prediction blind to what was sent ahead, online
 *        batches past 16 bits, and ctHO's preset on bad UEs.
 *
 * qwen2.5-7b-instruct at q = 16: 57344 bytes (458752 bit) per token.
 */
class FluidEngineEdgeTestCase : public TestCase
{
  public:
    FluidEngineEdgeTestCase()
        : TestCase("flow-level core: rounding, FollowDecoding, online pre-transfer, refusals")
    {
    }

  private:
    static Ptr<PreTransferScheduler> Pre(const std::string& inner)
    {
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        pre->SetAttribute("InnerScheduler", StringValue(inner));
        pre->SetAttribute("RateShare", DoubleValue(0.5));
        return pre;
    }

    static FluidHandoverEpisode Episode(double trigger, double tau, uint64_t prefix, uint64_t c)
    {
        FluidHandoverEpisode e;
        e.triggerTime = trigger;
        e.handoverTime = tau;
        e.prefixTokens = prefix;
        e.contextTokens = c;
        return e;
    }

    void DoRun() override
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        // A one-token cache at 1000 Gbit/s, and ten tokens 1000 s in: the last bytes took
        // less than a time step of the clock (it froze). Both whole at the handover: D = 0.
        FluidEngineConfig fast;
        fast.backhaulGbps = 1000;
        FluidEngineResult r =
            FluidHandoverEngine(fast, Pre("ns3::CtHoScheduler"), {Episode(0.04, 0.54, 1, 1)}).Run();
        NS_TEST_EXPECT_MSG_EQ(r.ues[0].usedTokens, 1u, "the token arrived");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.worstDelay, 0.0, 1e-12, "whole at the handover");
        r = FluidHandoverEngine(FluidEngineConfig(),
                                Pre("ns3::CtHoScheduler"),
                                {Episode(1000.01, 1000.51, 10, 10)})
                .Run();
        NS_TEST_EXPECT_MSG_EQ(r.ues[0].usedTokens, 10u, "ten tokens 1000 s in");

        // FollowDecoding with no decoding sends the prefix only (it followed nothing for
        // ever): one token ahead, no handover, wasted.
        Ptr<PreTransferScheduler> follow = Pre("ns3::CtHoScheduler");
        follow->SetAttribute("FollowDecoding", BooleanValue(true));
        r = FluidHandoverEngine(FluidEngineConfig(), follow, {Episode(0, nan, 1, 2)}).Run();
        NS_TEST_EXPECT_MSG_EQ_TOL(r.preSentBytes, 57344.0, 1e-6, "the prefix, not the context");

        // Online, gathered 2 ms, 100 Gbit/s, cHO: sending ahead stops at the handover. A
        // trigger after it sends nothing: D = 2 ms + 100 x 458752 / 1e11 s. One 0.5 ms
        // before it sends 0.5 x 1e11 / 8 x 0.0005 = 3125000 B: 54 whole tokens used,
        // 28424 B wasted, the 46 left sent after the gathering.
        FluidEngineConfig online;
        online.backhaulGbps = 100;
        online.knownHandoverTimes = false;
        r = FluidHandoverEngine(online, Pre("ns3::ChoScheduler"), {Episode(0.101, 0.1, 100, 100)})
                .Run();
        NS_TEST_EXPECT_MSG_EQ_TOL(r.preSentBytes, 0.0, 1e-6, "nothing ahead after tau");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.worstDelay, 0.002458752, 1e-12, "all after the gathering");
        r = FluidHandoverEngine(online, Pre("ns3::ChoScheduler"), {Episode(0.0995, 0.1, 100, 100)})
                .Run();
        NS_TEST_EXPECT_MSG_EQ(r.ues[0].usedTokens, 54u, "sent ahead until tau only");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.wastedBytes, 28424.0, 1e-3, "the part token");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.worstDelay, 0.00221102592, 1e-12, "46 tokens after 2 ms");

        // Online with gatherTime 0: handovers of one instant are planned together, as with
        // known times (R = 1000 tokens/s, ctHO, two caches of 300 tokens at 0.1 s).
        FluidEngineConfig together;
        together.backhaulGbps = 0.458752;
        const std::vector<FluidHandoverEpisode> pair{Episode(nan, 0.1, 0, 300),
                                                     Episode(nan, 0.1, 0, 300)};
        const double known =
            FluidHandoverEngine(together, CreateObject<CtHoScheduler>(), pair).Run().worstDelay;
        together.knownHandoverTimes = false;
        together.gatherTime = Seconds(0);
        NS_TEST_EXPECT_MSG_EQ_TOL(
            FluidHandoverEngine(together, CreateObject<CtHoScheduler>(), pair).Run().worstDelay,
            known,
            1e-9,
            "one instant, one plan");

        // The Lookahead foresees B, whose whole cache is at the target already: A is planned
        // alone (as without B), not with B's 1000 tokens.
        online.backhaulGbps = 4.5;
        online.gatherTime = Seconds(0);
        Ptr<PreTransferScheduler> ahead = Pre("ns3::CtHoScheduler");
        ahead->SetAttribute("Lookahead", TimeValue(Seconds(0.5)));
        const double alone =
            FluidHandoverEngine(online, ahead, {Episode(nan, 0.9, 0, 2000)}).Run().worstDelay;
        r = FluidHandoverEngine(online,
                                ahead,
                                {Episode(nan, 0.9, 0, 2000), Episode(0, 1.0, 1000, 1000)})
                .Run();
        NS_TEST_EXPECT_MSG_EQ_TOL(r.ues[0].delay, alone, 1e-12, "B predicted with nothing left");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.ues[1].delay, 0.0, 1e-12, "B whole at its handover");

        // Online batches count members in 16 bits: 65535 handovers per link taken, 65536
        // refused (checked before the run).
        std::vector<FluidHandoverEpisode> many(65535, Episode(nan, 0.1, 0, 1));
        FluidHandoverEngine(online, CreateObject<ThoScheduler>(), many);
        many.push_back(Episode(nan, 0.1, 0, 1));
        const std::string message = edgellmtest::ErrorOf(
            [&]() { FluidHandoverEngine(online, CreateObject<ThoScheduler>(), many); });
        NS_TEST_EXPECT_MSG_NE(message.find("at most 65535 handovers"), std::string::npos, message);

        // ctHO's preset: every UE hands over at a time >= 0; a batch policy; lookahead >= 0.
        FluidHandoverConfig preset;
        ExpectPreset(preset, {{7, nan, 1000}}, "ues[0].handoverTime must be a finite time");
        ExpectPreset(preset, {{7, -1e-9, 1000}}, "ues[0].handoverTime must be a finite time");
        NS_TEST_EXPECT_MSG_EQ(FluidHandoverScenario::Run(preset, {{7, 0.0, 1000}}).ues.size(),
                              1u,
                              "a handover at 0 s");
        preset.lookahead = NanoSeconds(-1);
        ExpectPreset(preset, {{7, 0.0, 1000}}, "lookahead must be >= 0 s");
        preset.lookahead = Seconds(0);
        preset.schedulerType = "ns3::ImpactHoScheduler";
        ExpectPreset(preset, {{7, 0.0, 1000}}, "must be a batch policy");
    }

    /// FluidHandoverScenario::Run throws std::invalid_argument containing \p what.
    void ExpectPreset(const FluidHandoverConfig& config,
                      const std::vector<CtHoUe>& ues,
                      const std::string& what)
    {
        const std::string message =
            edgellmtest::ErrorOf([&]() { FluidHandoverScenario::Run(config, ues); });
        NS_TEST_EXPECT_MSG_NE(message.find(what), std::string::npos, "refused: " << what);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The flow-level core with a slot policy, by hand: ImpactHO's equal-allocation
 *        baseline (EA) shares each link's slot budget R dt = 4.5e9 x 0.1 = 0.45 Gbit
 *        equally; a handover inside a slot waits for the next; a window that ends
 *        mid-slot cuts the share pro rata; two links have a budget each; a pre-transfer
 *        around the policy sends RateShare of the idle budget ahead. Caches of 2000 tokens:
 *        2000 x 458752 bit = 0.917504 Gbit (qwen2.5-7b-instruct, q = 16).
 */
class FluidEngineSlotTestCase : public TestCase
{
  public:
    FluidEngineSlotTestCase()
        : TestCase("flow-level core: a slot policy and its pre-transfer by hand")
    {
    }

  private:
    static constexpr double CACHE = 2000 * 458752.0; //!< L_i, bits

    static Ptr<HandoverScheduler> Ea()
    {
        Ptr<HandoverScheduler> ea = CreateObject<ImpactHoScheduler>();
        ea->SetAttribute("Policy", StringValue("Equal"));
        ea->SetAttribute("TransferWindow", TimeValue(MilliSeconds(300)));
        return ea;
    }

    static FluidHandoverEpisode Episode(double handover, uint16_t target)
    {
        FluidHandoverEpisode e;
        e.handoverTime = handover;
        e.target = target;
        e.predictedTarget = target;
        e.contextTokens = 2000;
        e.prefixTokens = 2000;
        e.utility = AccuracyUtility::Preset(2000);
        return e;
    }

    static Ptr<HandoverScheduler> PreEa()
    {
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        pre->SetAttribute("RateShare", DoubleValue(0.5));
        pre->SetInnerPolicy(Ea());
        return pre;
    }

    /// \return the message a run of \p ues under \p policy (default EA) throws ("" if none)
    static std::string Refusal(const std::vector<FluidHandoverEpisode>& ues,
                               Ptr<HandoverScheduler> policy = Ea())
    {
        return edgellmtest::ErrorOf(
            [&]() { FluidHandoverEngine(FluidEngineConfig(), policy, ues); });
    }

    void OneLink()
    {
        // A (tau 0): slot 0 alone, 0.45; slots 0.1 and 0.2 with B, 0.225 each: 0.9 Gbit;
        // its window closes at 0.3. B (tau 0.05): 0.225 + 0.225, then alone at 0.3 cut to
        // half a slot (window ends at 0.35): 0.225: 0.675 Gbit. Four slots.
        const std::vector<FluidHandoverEpisode> ues{Episode(0, 2), Episode(0.05, 2)};
        const FluidEngineResult r = FluidHandoverEngine(FluidEngineConfig(), Ea(), ues).Run();
        NS_TEST_ASSERT_MSG_EQ(r.scheme, "ea", "the policy's name");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].received, 0.9e9 / CACHE, 1e-12, "A: 0.9 Gbit");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].received, 0.675e9 / CACHE, 1e-12, "B: 0.675 Gbit");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].handoverBytes, 0.9e9 / 8, 1e-3, "A's bytes");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.handoverBytes, 1.575e9 / 8, 1e-3, "both");
        NS_TEST_ASSERT_MSG_EQ(r.slots, 4, "slots 0, 0.1, 0.2, 0.3");
        NS_TEST_ASSERT_MSG_EQ(r.fallbackSlots, 0, "a baseline has no fallback");
        NS_TEST_ASSERT_MSG_EQ(std::isnan(r.ues[0].delay), true, "no restore delay");
        const AccuracyUtility a = AccuracyUtility::Preset(2000);
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].accuracy, a.Value(0.675e9 / CACHE), 1e-12, "A(x)");
        NS_TEST_ASSERT_MSG_EQ(r.ues[1].starved, (0.675e9 / CACHE < a.inflection), "tau");
    }

    void TwoLinks()
    {
        // B to cell 3: a budget of its own. A: 0.45 + 0.45 + the rest, 0.017504 Gbit; B:
        // 0.45 + 0.45, then the rest is its slot-0.3 share, sent at a constant rate over a
        // slot its window cuts in half: 0.008752 Gbit. Slots: 1 + 2 + 2 + 1.
        const std::vector<FluidHandoverEpisode> ues{Episode(0, 2), Episode(0.05, 3)};
        const FluidEngineResult r = FluidHandoverEngine(FluidEngineConfig(), Ea(), ues).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].received, 1.0, 1e-12, "A whole");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].received, 0.908752e9 / CACHE, 1e-12, "B cut");
        NS_TEST_ASSERT_MSG_EQ(r.slots, 6, "a budget per link");
    }

    void SentAhead()
    {
        // Trigger at 0, handover at 0.25: slots 0, 0.1, 0.2 send 0.5 x 0.45 Gbit ahead
        // (0.675 Gbit); at 0.3 the rest, 0.242504 Gbit < 0.45, completes it.
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        pre->SetAttribute("RateShare", DoubleValue(0.5));
        pre->SetInnerPolicy(Ea());
        NS_TEST_ASSERT_MSG_EQ(pre->AllocatesSlots(), true, "asked through the base class");
        std::vector<FluidHandoverEpisode> ues{Episode(0.25, 2)};
        ues[0].triggerTime = 0;
        const FluidEngineResult r = FluidHandoverEngine(FluidEngineConfig(), pre, ues).Run();
        NS_TEST_ASSERT_MSG_EQ(r.scheme, "pre-ea", "the wrapper's name");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].receivedAhead, 0.675e9 / CACHE, 1e-12, "ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 0.675e9 / 8, 1e-3, "bytes ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].received, 1.0, 1e-12, "whole at 0.3");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.backhaulBytes, CACHE / 8, 1e-3, "each bit once");
    }

    void EdgeCases()
    {
        // A prefix of half the context: only it is sent ahead (10 idle slots would carry
        // the whole cache).
        Ptr<HandoverScheduler> pre = PreEa();
        std::vector<FluidHandoverEpisode> ues{Episode(1.05, 2)};
        ues[0].triggerTime = 0;
        ues[0].prefixTokens = 1000;
        FluidEngineResult r = FluidHandoverEngine(FluidEngineConfig(), pre, ues).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].receivedAhead, 0.5, 1e-12, "the prefix alone");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, CACHE / 16, 1e-3, "half the cache's bytes");

        // A utility that never reaches 99 % of its ceiling (A(1) < 0.99 M): the cache
        // arrives whole, the 99 % latency stays unknown.
        ues = {Episode(0, 2)};
        ues[0].utility->sharpness = 5;
        ues[0].utility->inflection = 0.5;
        NS_TEST_ASSERT_MSG_LT(ues[0].utility->Value(1),
                              0.99 * ues[0].utility->asymptote,
                              "the premise");
        FluidHandoverEngine engine(FluidEngineConfig(), Ea(), ues);
        r = engine.Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].received, 1.0, 1e-12, "whole: 3 slots of 0.45 Gbit");
        NS_TEST_ASSERT_MSG_EQ(std::isnan(r.ues[0].latency99), true, "never at 99 %");
        bool again = false;
        try
        {
            engine.Run();
        }
        catch (const std::logic_error& e)
        {
            again = std::string(e.what()).find("runs once") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(again, true, "a second Run is refused");

        // A handover 1e6 s in (1e7 idle slots, skipped) gets what one at 0.05 s gets.
        ues = {Episode(0.05, 2), Episode(1e6 + 0.05, 2)};
        r = FluidHandoverEngine(FluidEngineConfig(), Ea(), ues).Run();
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].received, r.ues[0].received, 1e-6, "shifted");
        NS_TEST_ASSERT_MSG_EQ(r.slots, 6, "3 slots each, none idle counted");
    }

    void Refusals()
    {
        // Each slot episode field's boundary: the valid side ran above.
        std::vector<FluidHandoverEpisode> ues{Episode(0, 2)};
        ues[0].utility.reset();
        NS_TEST_ASSERT_MSG_NE(Refusal(ues).find("ues[0].utility is required with a slot policy"),
                              std::string::npos,
                              Refusal(ues));
        // A trigger that sends nothing ahead (no pre-transfer) is ignored, as for batch
        // policies; with a pre-transfer it must hand over, to the predicted target, and end
        // there.
        ues[0] = Episode(0, 2);
        ues[0].triggerTime = 0;
        ues[0].predictedTarget = 3;
        ues[0].triggerEnd = 1;
        NS_TEST_ASSERT_MSG_EQ(Refusal(ues), "", "no pre-transfer: triggers ignored");
        NS_TEST_ASSERT_MSG_NE(
            Refusal(ues, PreEa()).find("ues[0].predictedTarget must equal target"),
            std::string::npos,
            Refusal(ues, PreEa()));
        ues[0].predictedTarget = 2;
        NS_TEST_ASSERT_MSG_NE(Refusal(ues, PreEa()).find("ues[0].triggerEnd must be NaN"),
                              std::string::npos,
                              Refusal(ues, PreEa()));
        ues[0].triggerEnd = std::numeric_limits<double>::quiet_NaN();
        NS_TEST_ASSERT_MSG_EQ(Refusal(ues, PreEa()), "", "the valid side");
        ues[0].handoverTime = std::numeric_limits<double>::quiet_NaN();
        NS_TEST_ASSERT_MSG_NE(Refusal(ues, PreEa()).find("ues[0].handoverTime must be set"),
                              std::string::npos,
                              Refusal(ues, PreEa()));
        NS_TEST_ASSERT_MSG_EQ(Refusal(ues), "", "no handover, no pre-transfer: nothing to do");
        // Slot indices stay exact: at most 1e12 slots of 0.1 s.
        ues[0] = Episode(1e11, 2);
        NS_TEST_ASSERT_MSG_EQ(Refusal(ues), "", "1e12 slots");
        ues[0].handoverTime = 1.0001e11;
        NS_TEST_ASSERT_MSG_NE(Refusal(ues).find("handoverTime must be at most 1e+12 slots"),
                              std::string::npos,
                              Refusal(ues));
        ues[0] = Episode(0, 2);
        ues[0].utility->inflection = 1;
        NS_TEST_ASSERT_MSG_NE(Refusal(ues).find("ues[0].utility: tau (inflection) must be in"),
                              std::string::npos,
                              Refusal(ues));
        // A batch policy shares no slot; a wrapper takes no wrapper and no null policy.
        bool batch = false;
        try
        {
            CreateObject<CtHoScheduler>()->AllocateSlot({}, 1);
        }
        catch (const std::logic_error& e)
        {
            batch = std::string(e.what()).find("ctho shares no slot") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(batch, true, "a batch policy's AllocateSlot");
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        for (Ptr<HandoverScheduler> inner :
             {Ptr<HandoverScheduler>(),
              Ptr<HandoverScheduler>(CreateObject<PreTransferScheduler>())})
        {
            std::string e;
            try
            {
                pre->SetInnerPolicy(inner);
            }
            catch (const std::invalid_argument& x)
            {
                e = x.what();
            }
            NS_TEST_ASSERT_MSG_NE(e.find("ns3::PreTransferScheduler::InnerScheduler must be"),
                                  std::string::npos,
                                  "refused: " << e);
        }
    }

    void DoRun() override
    {
        OneLink();
        TwoLinks();
        SentAhead();
        EdgeCases();
        Refusals();
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
        AddTestCase(new FluidEngineHandTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FluidEngineBatchTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FluidEngineEdgeTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FluidEngineSlotTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmFluidTestSuite g_edgeLlmFluidTestSuite;
