/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FluidServingEngine (many users, a continuous-batching GPU per BS, handovers at flow
 * level): time to first token at low load, a handover's stall under cHO and tHO, the three
 * idle-cache policies and LRU eviction, each worked out by hand from the iteration-time
 * equation; token conservation over a trace with handovers; every refusal. Slot policies
 * (ImpactHO, EA): received fractions, resume times and stalls by hand on links that carry
 * a whole number of tokens per slot, water-filling against SlotAllocator, both sides of a
 * slot boundary, and idle caches sharing a link with slot episodes.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/core-module.h"
#include "ns3/fluid-serving-engine.h"
#include "ns3/handover-scheduler.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/slot-allocator.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Round constants for hand calculation: t = 0.01 + 0.001 P + 0.002 B + 1e-5 K.
FluidServingConfig
HandConfig()
{
    FluidServingConfig c;
    c.gpu.c0 = 0.01;
    c.gpu.cPrefill = 0.001;
    c.gpu.cDecode = 0.002;
    c.gpu.cKv = 1e-5;
    c.gpu.tokenBudget = 100000;
    c.gpu.kvMemoryBytes = 20000ULL * 57344; // 20,000 tokens
    c.backhaulGbps = 4.5;
    c.uplinkDelay = 0.01;
    c.downlinkDelay = 0.02;
    return c;
}

/// Qwen2.5-7B's KV bytes per token at 16 bits: 2 x 28 x 4 x 128 x 2.
constexpr double BYTES_PER_TOKEN = 57344;

/// Seconds to send \p tokens' KV at 4.5 Gbit/s.
double
TransferTime(double tokens)
{
    return tokens * BYTES_PER_TOKEN * 8 / 4.5e9;
}

LlmRequest
Req(double arrival, uint64_t prompt, uint64_t output, uint32_t ue, uint64_t conv, uint32_t turn)
{
    LlmRequest r;
    r.arrival = arrival;
    r.promptTokens = prompt;
    r.outputTokens = output;
    r.ue = ue;
    r.conversation = conv;
    r.turn = turn;
    return r;
}

FluidServingResult
RunOne(const FluidServingConfig& c,
       const std::string& scheme,
       const std::vector<uint16_t>& cells,
       const std::vector<ServingHandover>& handovers,
       const std::vector<LlmRequest>& requests)
{
    FluidServingEngine engine(c,
                              HandoverSchemeRegistry::Create(scheme),
                              2,
                              cells,
                              handovers,
                              requests);
    return engine.Run();
}

TEST(FluidServingEngine, BytesPerTokenIsQwen)
{
    EXPECT_EQ(LlmModelProfile::FromPreset("qwen2.5-7b-instruct", 16).BytesPerToken(),
              BYTES_PER_TOKEN);
}

// One request alone: TTFT = uplink + c0 + c_p P + downlink; each later token one decode
// iteration reading the context so far.
TEST(FluidServingEngine, LowLoadTtftByHand)
{
    auto r = RunOne(HandConfig(), "ctho", {1}, {}, {Req(1.0, 100, 3, 0, 0, 0)});
    ASSERT_EQ(r.requests.size(), 1u);
    const auto& q = r.requests[0];
    EXPECT_TRUE(q.served);
    EXPECT_NEAR(q.ttft, 0.01 + (0.01 + 0.001 * 100) + 0.02, 1e-12);
    const double t2 = 0.01 + 0.002 + 1e-5 * 101; // context 100 + 1 decoded
    const double t3 = 0.01 + 0.002 + 1e-5 * 102;
    EXPECT_NEAR(q.tpot, (t2 + t3) / 2, 1e-12);
    EXPECT_NEAR(q.e2e, q.ttft + t2 + t3, 1e-12);
    EXPECT_EQ(q.decodedTokens, 3u);
    EXPECT_EQ(q.prefillTokens, 100u);
    EXPECT_EQ(q.handovers, 0u);
    EXPECT_TRUE(q.sloMet);
    // The GPU series: per 1 s period and cell, until the period the request ended in.
    EXPECT_NEAR(r.end, 1.0 + q.e2e, 1e-12);
    ASSERT_EQ(r.series.size(), 4u); // at 1 s and 2 s, cells 1 and 2
    EXPECT_EQ(r.series[0].utilization, 0.0);
    EXPECT_NEAR(r.series[2].time, 2.0, 1e-12);
    EXPECT_EQ(r.series[2].cell, 1);
    EXPECT_NEAR(r.series[2].utilization, (0.01 + 0.001 * 100) + t2 + t3, 1e-12);
    EXPECT_EQ(r.series[3].utilization, 0.0);
}

// A handover during the third token's iteration: two tokens decoded, C = 1002. cHO sends
// the whole context, then one decode iteration; tHO prefills it as one priority chunk,
// whose last position gives the next token.
TEST(FluidServingEngine, HandoverStallByHand)
{
    const double iter1 = 0.01 + 0.001 * 1000; // at the BS at 0.01
    const double iter2 = 0.01 + 0.002 + 1e-5 * 1001;
    const double tau = 0.01 + iter1 + iter2 + 0.005; // inside iteration 3
    std::vector<ServingHandover> ho{{0, tau, 2}};
    auto cho = RunOne(HandConfig(), "cho", {1}, ho, {Req(0, 1000, 10, 0, 0, 0)});
    const auto& c = cho.requests[0];
    EXPECT_TRUE(c.served);
    EXPECT_EQ(c.handovers, 1u);
    EXPECT_EQ(c.transferTokens, 1002u);
    EXPECT_NEAR(c.stall, TransferTime(1002) + (0.01 + 0.002 + 1e-5 * 1002), 1e-12);
    EXPECT_EQ(c.decodedTokens, 10u);

    // Handed over during its prompt's prefill (0.01 to 1.02 s): a handover, no stall (the
    // wait is in its TTFT).
    auto early = RunOne(HandConfig(), "cho", {1}, {{0, 0.5, 2}}, {Req(0, 1000, 10, 0, 0, 0)});
    EXPECT_EQ(early.requests[0].handovers, 1u);
    EXPECT_EQ(early.requests[0].stalls, 0u);
    EXPECT_EQ(early.requests[0].stall, 0.0);
    EXPECT_TRUE(early.requests[0].served);

    auto tho = RunOne(HandConfig(), "tho", {1}, ho, {Req(0, 1000, 10, 0, 0, 0)});
    const auto& t = tho.requests[0];
    EXPECT_EQ(t.transferTokens, 0u);
    EXPECT_EQ(t.prefillTokens, 1000u + 1002u);
    EXPECT_NEAR(t.stall, 0.01 + 0.001 * 1002, 1e-12);
    EXPECT_EQ(t.decodedTokens, 10u);

    // ctHO splits: its planner reads the idle target GPU as p(L) = (c_p + c0 / budget) L + c0
    // and the link as (C - L) tokens at R; the brute-force argmin L* of the larger of the two
    // gives the stall: prefill L* and transfer C - L* side by side, then one decode step.
    uint64_t best = 0;
    double bestValue = 1e9;
    for (uint64_t l = 0; l <= 1002; ++l)
    {
        double v = std::max((0.001 + 0.01 / 100000) * l + 0.01, TransferTime(1002 - l));
        if (l == 0)
        {
            v = TransferTime(1002); // nothing to prefill: no prefill time
        }
        if (v < bestValue)
        {
            bestValue = v;
            best = l;
        }
    }
    auto ct = RunOne(HandConfig(), "ctho", {1}, ho, {Req(0, 1000, 10, 0, 0, 0)});
    const auto& s = ct.requests[0];
    EXPECT_EQ(s.transferTokens, 1002 - best);
    EXPECT_NEAR(s.stall,
                std::max(0.01 + 0.001 * best, TransferTime(1002 - best)) +
                    (0.01 + 0.002 + 1e-5 * 1002),
                1e-12);
    EXPECT_LT(s.stall, std::min(c.stall, t.stall));
    EXPECT_EQ(s.decodedTokens, 10u);
}

// A second handover 80 ms after the first, before the next token: the stall is the UE's
// whole gap, from the first handover to the next token (cHO: the second restore sends the
// context again, then one decode step).
TEST(FluidServingEngine, TwoQuickHandoversAddUp)
{
    const double iter1 = 0.01 + 0.001 * 1000;
    const double iter2 = 0.01 + 0.002 + 1e-5 * 1001;
    const double tau = 0.01 + iter1 + iter2 + 0.005;
    FluidServingEngine e(HandConfig(),
                         HandoverSchemeRegistry::Create("cho"),
                         3,
                         {1},
                         {{0, tau, 2}, {0, tau + 0.08, 3}},
                         {Req(0, 1000, 10, 0, 0, 0)});
    const auto q = e.Run().requests[0];
    EXPECT_EQ(q.handovers, 2u);
    EXPECT_EQ(q.stalls, 2u);
    EXPECT_NEAR(q.stall, 0.08 + TransferTime(1002) + (0.01 + 0.002 + 1e-5 * 1002), 1e-12);
    EXPECT_NEAR(q.worstStall, TransferTime(1002) + (0.01 + 0.002 + 1e-5 * 1002), 1e-12);
    EXPECT_EQ(q.decodedTokens, 10u);
}

// Two handovers at one instant (1 to 2, 2 to 3), then 3 to 1: the restore goes from cell 1
// straight to cell 3, cell 2 never serves it.
TEST(FluidServingEngine, SameInstantHandoversFollowTheUe)
{
    FluidServingEngine e(HandConfig(),
                         HandoverSchemeRegistry::Create("cho"),
                         3,
                         {1},
                         {{0, 1.1, 2}, {0, 1.1, 3}, {0, 1.5, 1}},
                         {Req(0, 1000, 200, 0, 0, 0)});
    const auto r = e.Run();
    EXPECT_EQ(r.requests[0].handovers, 3u);
    EXPECT_EQ(r.requests[0].stalls, 3u);
    EXPECT_EQ(r.requests[0].decodedTokens, 200u);
    EXPECT_EQ(r.restores, 2u); // 1 to 3, then 3 to 1
    for (const auto& s : r.series)
    {
        if (s.cell == 2)
        {
            EXPECT_EQ(s.utilization, 0.0) << s.time;
        }
    }
}

// K requests of one UE hand over together: ctHO's batch prices K x L prefill tokens on the
// target, so it stays no worse than the better of cHO and tHO.
TEST(FluidServingEngine, CtHoBatchOfManyRequests)
{
    for (uint32_t k : {1u, 4u, 16u})
    {
        std::vector<LlmRequest> rq;
        for (uint32_t i = 0; i < k; ++i)
        {
            rq.push_back(Req(0, 1000, 400, 0, i, 0));
        }
        auto c = HandConfig();
        c.gpu.tokenBudget = 2048;
        std::map<std::string, double> worst;
        for (const char* s : {"cho", "tho", "ctho"})
        {
            FluidServingEngine e(c, HandoverSchemeRegistry::Create(s), 2, {1}, {{0, 30.0, 2}}, rq);
            for (const auto& q : e.Run().requests)
            {
                worst[s] = std::max(worst[s], q.stall);
            }
        }
        EXPECT_LE(worst["ctho"], std::min(worst["cho"], worst["tho"]) * 1.05) << "K = " << k;
    }
}

// Qwen2.5-7B-Instruct's context window is 131072 tokens (its model card's, with YaRN):
// context + output up to it is served, one token more is refused (reported, not served).
TEST(FluidServingEngine, ContextWindowBothSides)
{
    auto c = HandConfig();
    c.gpu.kvMemoryBytes = 140000ULL * 57344;
    c.gpu.cKv = 1e-6;
    FluidServingEngine e(c,
                         HandoverSchemeRegistry::Create("ctho"),
                         2,
                         {1},
                         {},
                         {Req(0, 131070, 2, 0, 0, 0), Req(200, 131071, 2, 0, 1, 0)});
    const auto r = e.Run();
    EXPECT_TRUE(r.requests[0].served);
    EXPECT_FALSE(r.requests[1].served);
    EXPECT_EQ(r.overContext, 1u);
}

/// Two turns of one conversation; the UE hands over between them (at 3 s).
FluidServingResult
IdleRun(IdleCachePolicy policy)
{
    auto c = HandConfig();
    c.idlePolicy = policy;
    return RunOne(c,
                  "ctho",
                  {1},
                  {{0, 3.0, 2}},
                  {Req(0, 100, 2, 0, 7, 0), Req(5.0, 50, 2, 0, 7, 1)});
}

TEST(FluidServingEngine, IdlePoliciesByHand)
{
    // Turn 0 leaves a context of 102 tokens parked at cell 1.
    const double withCache = 0.01 + 0.001 * 50 + 1e-5 * 102; // new prompt over the cache
    {
        auto r = IdleRun(IdleCachePolicy::MOVE_NOW);
        const auto& q = r.requests[1];
        EXPECT_EQ(r.idleMoves, 1u);
        EXPECT_EQ(q.contextTokens, 152u);
        EXPECT_EQ(q.cachedTokens, 102u);
        EXPECT_EQ(q.prefillTokens, 50u);
        EXPECT_NEAR(q.ttft, 0.01 + withCache + 0.02, 1e-12);
    }
    {
        auto r = IdleRun(IdleCachePolicy::DROP);
        const auto& q = r.requests[1];
        EXPECT_EQ(r.idleDrops, 1u);
        EXPECT_EQ(q.cachedTokens, 0u);
        EXPECT_EQ(q.prefillTokens, 152u);
        EXPECT_NEAR(q.ttft, 0.01 + (0.01 + 0.001 * 152) + 0.02, 1e-12);
    }
    {
        auto r = IdleRun(IdleCachePolicy::MOVE_ON_NEXT_TURN);
        const auto& q = r.requests[1];
        EXPECT_EQ(r.idleFetches, 1u);
        EXPECT_EQ(q.transferTokens, 102u);
        EXPECT_EQ(q.cachedTokens, 102u);
        EXPECT_NEAR(q.ttft, 0.01 + TransferTime(102) + withCache + 0.02, 1e-12);
    }
}

// KV memory of 200 tokens: B's admission evicts A's idle cache, A's second turn evicts B's;
// both second turns re-prefill their whole context.
TEST(FluidServingEngine, LruEvictionByHand)
{
    auto c = HandConfig();
    c.gpu.kvMemoryBytes = static_cast<uint64_t>(200 * BYTES_PER_TOKEN);
    auto r = RunOne(c,
                    "ctho",
                    {1, 1},
                    {},
                    {Req(0, 100, 2, 0, 0, 0),
                     Req(1.0, 100, 2, 1, 1, 0),
                     Req(5.0, 50, 2, 0, 0, 1),
                     Req(6.0, 50, 2, 1, 1, 1)});
    EXPECT_EQ(r.evictions, 2u);
    for (std::size_t i : {2, 3})
    {
        EXPECT_EQ(r.requests[i].cachedTokens, 0u) << i;
        EXPECT_EQ(r.requests[i].prefillTokens, 152u) << i;
        EXPECT_TRUE(r.requests[i].served) << i;
    }
    // B with one turn: at B's admission A's idle 102 tokens and B's 102 need 204 tokens of
    // memory; with exactly that A's cache stays, with one byte less it is evicted.
    c.gpu.kvMemoryBytes = static_cast<uint64_t>(204 * BYTES_PER_TOKEN);
    auto kept =
        RunOne(c,
               "ctho",
               {1, 1},
               {},
               {Req(0, 100, 2, 0, 0, 0), Req(1.0, 100, 2, 1, 1, 0), Req(5.0, 50, 2, 0, 0, 1)});
    EXPECT_EQ(kept.requests[2].cachedTokens, 102u);
    c.gpu.kvMemoryBytes = static_cast<uint64_t>(204 * BYTES_PER_TOKEN) - 1;
    auto lost =
        RunOne(c,
               "ctho",
               {1, 1},
               {},
               {Req(0, 100, 2, 0, 0, 0), Req(1.0, 100, 2, 1, 1, 0), Req(5.0, 50, 2, 0, 0, 1)});
    EXPECT_EQ(lost.requests[2].cachedTokens, 0u);
}

// Many UEs, conversations and handovers back and forth: every request ends, every token
// is decoded once, and a run is deterministic.
TEST(FluidServingEngine, TokensConservedOverHandovers)
{
    RequestGeneratorConfig g;
    g.rate = 20;
    g.duration = 20;
    g.numUes = 10;
    g.turnsPerConversation = 3;
    g.promptMu = 5;
    g.outputMu = 4;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    auto requests = LlmRequestTrace::Generate(g);
    ASSERT_GT(requests.size(), 100u);
    std::vector<ServingHandover> ho;
    for (uint32_t u = 0; u < 10; ++u)
    {
        for (int k = 0; k < 6; ++k)
        {
            ho.push_back(ServingHandover{u,
                                         1.0 + 3.3 * k + 0.17 * u,
                                         static_cast<uint16_t>(k % 2 == 0 ? 2 : 1)});
        }
    }
    for (const char* scheme : {"ctho", "tho", "cho", "impactho", "ea", "wta", "pf"})
    {
        for (auto policy :
             {IdleCachePolicy::MOVE_NOW, IdleCachePolicy::MOVE_ON_NEXT_TURN, IdleCachePolicy::DROP})
        {
            auto c = HandConfig();
            c.idlePolicy = policy;
            auto r = RunOne(c, scheme, std::vector<uint16_t>(10, 1), ho, requests);
            uint64_t handovers = 0;
            for (std::size_t i = 0; i < requests.size(); ++i)
            {
                const auto& q = r.requests[i];
                ASSERT_TRUE(q.served) << scheme << " request " << i;
                EXPECT_EQ(q.decodedTokens, requests[i].outputTokens);
                EXPECT_GE(q.sent, requests[i].arrival);
                EXPECT_GE(q.ttft, 0.03 - 1e-12); // uplink + downlink at least
                handovers += q.handovers;
                if (!std::isnan(q.received))
                {
                    EXPECT_GE(q.received, 0.0);
                    EXPECT_LE(q.received, 1.0);
                    EXPECT_LE(q.accuracy, 0.9535);
                }
            }
            EXPECT_GT(handovers, 0u) << scheme;
            auto again = RunOne(c, scheme, std::vector<uint16_t>(10, 1), ho, requests);
            for (std::size_t i = 0; i < requests.size(); ++i)
            {
                EXPECT_EQ(again.requests[i].e2e, r.requests[i].e2e);
            }
        }
    }
}

TEST(FluidServingEngine, Refusals)
{
    auto c = HandConfig();
    std::vector<LlmRequest> one{Req(0, 10, 2, 0, 0, 0)};
    auto make = [&](const std::string& scheme,
                    uint16_t cells,
                    const std::vector<uint16_t>& initial,
                    const std::vector<ServingHandover>& ho,
                    const std::vector<LlmRequest>& reqs,
                    const FluidServingConfig& cfg) {
        return edgellmtest::ErrorOf([&] {
            FluidServingEngine e(cfg,
                                 HandoverSchemeRegistry::Create(scheme),
                                 cells,
                                 initial,
                                 ho,
                                 reqs);
        });
    };
    EXPECT_EQ(make("ctho", 2, {1}, {}, one, c), "");
    EXPECT_EQ(make("impactho", 2, {1}, {}, one, c), "");
    EXPECT_NE(make("tc-ctho", 2, {1}, {}, one, c)
                  .find("not modelled in serving mode: it takes a batch or slot policy its source "
                        "plans alone, or a pre-transfer around one (ctho, tho, cho, pre-ctho, "
                        "impactho, ea, wta, pf, pre-impactho)"),
              std::string::npos);
    EXPECT_EQ(make("tho", 2, {1}, {}, one, c), "");
    EXPECT_EQ(make("cho", 2, {1}, {}, one, c), "");
    EXPECT_EQ(make("pre-ctho", 2, {1}, {}, one, c), "");
    EXPECT_NE(make("ctho", 2, {3}, {}, one, c).find("initialCell[0] must be in [1, 2], got 3"),
              std::string::npos);
    EXPECT_NE(make("ctho", 2, {0}, {}, one, c).find("initialCell[0]"), std::string::npos);
    EXPECT_NE(make("ctho", 2, {1}, {{0, 1.0, 1}}, one, c).find("handovers[0].target"),
              std::string::npos);
    EXPECT_EQ(make("ctho", 2, {1}, {{0, 1.0, 2}}, one, c), "");
    EXPECT_NE(make("ctho", 2, {1}, {{1, 1.0, 2}}, one, c).find("handovers[0].ue must be < 1"),
              std::string::npos);
    EXPECT_NE(make("ctho", 2, {1}, {{0, -1.0, 2}}, one, c).find("handovers[0].time"),
              std::string::npos);
    EXPECT_NE(
        make("ctho", 2, {1}, {}, {Req(0, 10, 2, 1, 0, 0)}, c).find("requests[0].ue must be < 1"),
        std::string::npos);
    EXPECT_NE(
        make("ctho", 2, {1}, {}, {Req(0, 10, 2, 0, 0, 1)}, c).find("requests[0].turn must be 0"),
        std::string::npos);
    auto bad = c;
    bad.backhaulGbps = 0;
    EXPECT_NE(make("ctho", 2, {1}, {}, one, bad).find("backhaulGbps must be in (0"),
              std::string::npos);
    bad = c;
    bad.ttftSlo = 0;
    EXPECT_NE(make("ctho", 2, {1}, {}, one, bad).find("ttftSlo"), std::string::npos);
    bad = c;
    bad.uplinkDelay = -1e-9;
    EXPECT_NE(make("ctho", 2, {1}, {}, one, bad).find("uplinkDelay must be in [0, 10]"),
              std::string::npos);
    bad.uplinkDelay = 0;
    EXPECT_EQ(make("ctho", 2, {1}, {}, one, bad), "");
    // The planner's worst prefill slope: 0.001 + c0 + 0.002 x 256 + 1e-5 x 20000 <= 1 s.
    bad.gpu.c0 = 0.286;
    EXPECT_EQ(make("ctho", 2, {1}, {}, one, bad), "");
    bad.gpu.c0 = 0.288;
    EXPECT_NE(make("ctho", 2, {1}, {}, one, bad).find("must be at most 1 s"), std::string::npos);
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  IdleCachePolicyFromName("keep");
              }).find("move-now, move-on-next-turn, drop"),
              std::string::npos);
}

/// Slot tests: HandConfig with a link that carries exactly 100 tokens per 1/64 s slot:
/// R = 100 x 57344 x 8 x 64 bit/s = 2.9360128 Gbit/s.
FluidServingConfig
SlotConfig()
{
    auto c = HandConfig();
    c.backhaulGbps = 2.9360128;
    return c;
}

/// dt of the slot tests, s (a power of two: slot starts k dt are exact)
constexpr double DT = 1.0 / 64;

/// A slot policy \p scheme with slot DT and window \p window (s).
Ptr<HandoverScheduler>
SlotPolicy(const std::string& scheme, double window)
{
    auto s = HandoverSchemeRegistry::Create(scheme);
    s->SetAttribute("SlotLength", TimeValue(Seconds(DT)));
    s->SetAttribute("TransferWindow", TimeValue(Seconds(window)));
    return s;
}

FluidServingResult
RunSlots(const std::string& scheme,
         double window,
         const std::vector<uint16_t>& cells,
         const std::vector<ServingHandover>& handovers,
         const std::vector<LlmRequest>& requests,
         const FluidServingConfig& c = SlotConfig())
{
    FluidServingEngine engine(c, SlotPolicy(scheme, window), 2, cells, handovers, requests);
    return engine.Run();
}

/// The importance-order preset below 4K tokens (ImpactHO Eq. (6), algebraic, HEADLINE):
/// A(y) = M/2 (1 + u / sqrt(1 + u^2)), u = k (y - tau), M = 0.9535, k = 45, tau = 0.065.
double
PresetAccuracy(double y)
{
    const double u = 45 * (y - 0.065);
    return 0.9535 / 2 * (1 + u / std::sqrt(1 + u * u));
}

// One request (prompt 998) handed over during its third iteration (1.03999 to 1.06199 s):
// C = 998 + 2 decoded = 1000 tokens, 10 slots of 100 tokens. EA with one user gives it the
// whole budget. Then one decode step on the target over the KV it holds:
// 0.01 + 0.002 + 1e-5 x held.
TEST(FluidServingEngine, EaOneHandoverByHand)
{
    {
        // At 1.05 s, inside slot 67: it waits for slot 68 (1.0625 s); the cache is whole at
        // the end of slot 77 (1.21875 s), well inside the 500 ms window.
        auto r = RunSlots("ea", 0.5, {1}, {{0, 1.05, 2}}, {Req(0, 998, 10, 0, 0, 0)});
        const auto& q = r.requests[0];
        EXPECT_TRUE(q.served);
        EXPECT_EQ(q.decodedTokens, 10u);
        EXPECT_EQ(q.handovers, 1u);
        EXPECT_EQ(q.stalls, 1u);
        EXPECT_NEAR(q.received, 1.0, 1e-12);
        EXPECT_NEAR(q.accuracy, PresetAccuracy(1.0), 1e-12);
        EXPECT_EQ(q.transferTokens, 1000u);
        EXPECT_EQ(q.prefillTokens, 998u); // nothing re-prefilled
        const double resume = 68.0 / 64 + 1000 * 57344 * 8 / 2.9360128e9;
        EXPECT_NEAR(resume, 1.21875, 1e-12);
        EXPECT_NEAR(q.stall, resume + (0.01 + 0.002 + 1e-5 * 1000) - 1.05, 1e-9);
        EXPECT_NEAR(r.backhaulBytes, 1000 * BYTES_PER_TOKEN, 1e-3);
        EXPECT_EQ(r.restores, 1u);
    }
    {
        // On a slot boundary (67/64 s) with a 100 ms window: x = R T_max / (C s_KV) = 0.64;
        // it resumes at the window's end with 640 tokens of KV.
        const double tau = 67.0 / 64;
        auto r = RunSlots("ea", 0.1, {1}, {{0, tau, 2}}, {Req(0, 998, 10, 0, 0, 0)});
        const auto& q = r.requests[0];
        const double x = std::min(1.0, 2.9360128e9 * 0.1 / (1000 * 57344 * 8));
        EXPECT_NEAR(x, 0.64, 1e-12);
        EXPECT_NEAR(q.received, x, 1e-9);
        EXPECT_NEAR(q.accuracy, PresetAccuracy(x), 1e-9);
        EXPECT_EQ(q.transferTokens, 640u);
        EXPECT_NEAR(q.stall, 0.1 + (0.01 + 0.002 + 1e-5 * 640), 1e-9);
        EXPECT_TRUE(q.served);
        EXPECT_EQ(q.decodedTokens, 10u);
        EXPECT_EQ(q.prefillTokens, 998u);
        EXPECT_NEAR(r.backhaulBytes, 640 * BYTES_PER_TOKEN, 1e-3);
    }
}

// Two UEs, prompts of 998 and 999 tokens: the first prefills alone (1.008 s, to 1.018 s),
// the second with the first's decode step (0.01 + 0.999 + 0.002 + 1e-5 x 999 = 1.02099 s,
// to 2.03899 s); both hand over to the same cell at 132/64 s, inside the next iteration
// (0.01 + 0.004 + 1e-5 x 2000 = 0.034 s, to 2.07299 s): C = 998 + 2 = 999 + 1 = 1000. EA
// halves each slot (50 tokens each); the 100 ms window ends 0.4 into the seventh slot:
// 6.4 x 50 = 320 tokens each, x = R T_max / 2 / (C s_KV) = 0.32.
TEST(FluidServingEngine, EaTwoUesShareTheLink)
{
    const double tau = 132.0 / 64;
    auto r = RunSlots("ea",
                      0.1,
                      {1, 1},
                      {{0, tau, 2}, {1, tau, 2}},
                      {Req(0, 998, 10, 0, 0, 0), Req(0, 999, 10, 1, 1, 0)});
    const double x = 2.9360128e9 * 0.1 / 2 / (1000 * 57344 * 8);
    EXPECT_NEAR(x, 0.32, 1e-12);
    for (const auto& q : r.requests)
    {
        EXPECT_NEAR(q.received, x, 1e-9);
        EXPECT_EQ(q.transferTokens, 320u);
        EXPECT_TRUE(q.served);
        EXPECT_EQ(q.decodedTokens, 10u);
    }
    EXPECT_NEAR(r.backhaulBytes, 640 * BYTES_PER_TOKEN, 1e-3);
    // The first to resume decodes alone (0.01 + 0.002 + 1e-5 x 320); the second joins the
    // next iteration, two decode steps over 321 + 320 tokens.
    const double first = 0.01 + 0.002 + 1e-5 * 320;
    EXPECT_NEAR(r.requests[0].stall, 0.1 + first, 1e-9);
    EXPECT_NEAR(r.requests[1].stall, 0.1 + first + (0.01 + 0.004 + 1e-5 * 641), 1e-9);
}

// ImpactHO on two users of 1000 and 500 tokens (prompts 998 and 499: the second prefills
// with the first's second token, to 1.018 + 0.52099 = 1.53899 s; handed over at 100/64 s,
// inside the next iteration, to 1.56799 s) with a window of one slot: one
// slot of 100 tokens, which SlotAllocator's water-filling shares (sum L tau = 97.5 tokens
// fits: its feasible regime).
TEST(FluidServingEngine, ImpactHoOneSlotIsWaterFilling)
{
    const double tau = 100.0 / 64;
    auto r = RunSlots("impactho",
                      DT,
                      {1, 1},
                      {{0, tau, 2}, {1, tau, 2}},
                      {Req(0, 998, 10, 0, 0, 0), Req(0, 499, 10, 1, 1, 0)});
    const double bits = 57344 * 8;
    const std::vector<SlotUser> users{{0, 1000 * bits, 0, AccuracyUtility::Preset(1000)},
                                      {1, 500 * bits, 0, AccuracyUtility::Preset(500)}};
    const SlotAllocation ref = SlotAllocator::WaterFilling(users, 2.9360128 * 1e9 * DT);
    ASSERT_EQ(ref.regime, SlotAllocation::WATER_FILLING);
    const uint64_t context[2] = {1000, 500};
    for (std::size_t i = 0; i < 2; ++i)
    {
        const auto& q = r.requests[i];
        EXPECT_NEAR(q.received, ref.target[i], 1e-12) << i;
        EXPECT_GE(q.received, 0.065) << i; // both lifted to tau
        EXPECT_NEAR(q.accuracy, PresetAccuracy(q.received), 1e-12) << i;
        EXPECT_EQ(q.transferTokens,
                  static_cast<uint64_t>(std::floor(ref.target[i] * context[i] + 1e-6)))
            << i;
        EXPECT_TRUE(q.served) << i;
    }
    // The whole budget used: 1000 x1 + 500 x2 = 100 tokens.
    EXPECT_NEAR(1000 * r.requests[0].received + 500 * r.requests[1].received, 100, 1e-6);
    EXPECT_NEAR(r.backhaulBytes, 100 * BYTES_PER_TOKEN, 1e-2);
    EXPECT_GT(r.requests[0].received, 0.0);
    EXPECT_NE(r.requests[0].received, r.requests[1].received);
}

// Slot-granular: a window shorter than a slot, a window that closes before the next slot,
// and a handover on, just before and just after a slot boundary (C = 1000 as above).
TEST(FluidServingEngine, SlotBoundariesBothSides)
{
    const std::vector<LlmRequest> one{Req(0, 998, 10, 0, 0, 0)};
    const double step = 0.01 + 0.002 + 1e-5 * 1000; // one decode step over the whole cache
    {
        // Half a slot from a boundary: half of 100 tokens.
        auto r = RunSlots("ea", DT / 2, {1}, {{0, 67.0 / 64, 2}}, one);
        EXPECT_NEAR(r.requests[0].received, 0.05, 1e-9);
        EXPECT_EQ(r.requests[0].transferTokens, 50u);
        EXPECT_NEAR(r.requests[0].stall, DT / 2 + (0.01 + 0.002 + 1e-5 * 50), 1e-9);
        EXPECT_TRUE(r.requests[0].served);
    }
    {
        // At 1.05 s with a 10 ms window: it closes (1.06 s) before the next slot (1.0625 s):
        // nothing received, it decodes on with no KV of its context.
        auto r = RunSlots("ea", 0.01, {1}, {{0, 1.05, 2}}, one);
        EXPECT_EQ(r.requests[0].received, 0.0);
        EXPECT_NEAR(r.requests[0].accuracy, PresetAccuracy(0), 1e-12);
        EXPECT_EQ(r.requests[0].transferTokens, 0u);
        EXPECT_NEAR(r.requests[0].stall, 0.01 + (0.01 + 0.002), 1e-9);
        EXPECT_TRUE(r.requests[0].served);
        EXPECT_EQ(r.backhaulBytes, 0.0);
    }
    const double boundary = 67.0 / 64;
    {
        auto r = RunSlots("ea", 0.5, {1}, {{0, boundary, 2}}, one);
        EXPECT_NEAR(r.requests[0].stall, 10.0 / 64 + step, 1e-9); // slot 67 on
    }
    {
        auto r = RunSlots("ea", 0.5, {1}, {{0, boundary - 1e-6, 2}}, one);
        EXPECT_NEAR(r.requests[0].stall, 1e-6 + 10.0 / 64 + step, 1e-9); // waits for slot 67
    }
    {
        auto r = RunSlots("ea", 0.5, {1}, {{0, boundary + 1e-6, 2}}, one);
        EXPECT_NEAR(r.requests[0].stall, 11.0 / 64 - 1e-6 + step, 1e-9); // waits for slot 68
    }
}

// An idle cache moved (move-now) on a link a slot episode fills: UE 0's 102 tokens wait
// while UE 1's 1000 tokens take all of slots 131 to 140, then go at R (1.02 slots). UE 0's
// next turn, sent at 2.1 s, starts when they land, behind UE 1's last token's iteration on
// cell 2.
TEST(FluidServingEngine, IdleCacheUsesWhatSlotsLeave)
{
    auto c = SlotConfig();
    c.idlePolicy = IdleCachePolicy::MOVE_NOW;
    const double tau = 131.0 / 64; // inside UE 1's third iteration (2.03999 to 2.06199 s)
    auto r =
        RunSlots("ea",
                 0.5,
                 {1, 1},
                 {{0, tau, 2}, {1, tau, 2}},
                 {Req(0, 100, 2, 0, 7, 0), Req(2.1, 50, 2, 0, 7, 1), Req(1.0, 998, 3, 1, 8, 0)},
                 c);
    EXPECT_EQ(r.idleMoves, 1u);
    const double resume = tau + 10.0 / 64;       // UE 1's cache whole
    const double lands = tau + (10 + 1.02) / 64; // UE 0's idle cache
    const double ue1Token = resume + (0.01 + 0.002 + 1e-5 * 1000);
    EXPECT_NEAR(r.requests[2].stall, ue1Token - tau, 1e-9);
    EXPECT_LT(lands, ue1Token); // its turn waits for that iteration
    const auto& q = r.requests[1];
    EXPECT_EQ(q.cachedTokens, 102u);
    EXPECT_NEAR(q.ttft, ue1Token + (0.01 + 0.001 * 50 + 1e-5 * 102) + 0.02 - 2.1, 1e-9);
    EXPECT_NEAR(r.backhaulBytes, (1000 + 102) * BYTES_PER_TOKEN, 1e-2);
    // Without UE 1's handover the link is free: the cache lands 1.02 slots after tau and
    // the turn starts at once when it arrives (2.11 s, later).
    auto alone = RunSlots("ea",
                          0.5,
                          {1, 1},
                          {{0, tau, 2}},
                          {Req(0, 100, 2, 0, 7, 0), Req(2.1, 50, 2, 0, 7, 1)},
                          c);
    EXPECT_NEAR(alone.requests[1].ttft, 0.01 + (0.01 + 0.001 * 50 + 1e-5 * 102) + 0.02, 1e-9);
    (void)lands;
}

// A second handover during the episode (3 slots, 300 tokens, sent to cell 2): the source
// sends the whole cache anew to cell 3 from slot 70 (10 slots), or, the UE back at cell 1,
// the request goes on there with its cache; the bytes sent to cell 2 are lost.
TEST(FluidServingEngine, HandoverDuringAnEpisode)
{
    const double tau = 67.0 / 64;
    const double again = 70.0 / 64;
    const double step = 0.01 + 0.002 + 1e-5 * 1000;
    {
        FluidServingEngine e(SlotConfig(),
                             SlotPolicy("ea", 0.5),
                             3,
                             {1},
                             {{0, tau, 2}, {0, again, 3}},
                             {Req(0, 998, 10, 0, 0, 0)});
        const auto r = e.Run();
        const auto& q = r.requests[0];
        EXPECT_EQ(q.handovers, 2u);
        EXPECT_EQ(q.stalls, 2u);
        EXPECT_NEAR(q.stall, 80.0 / 64 + step - tau, 1e-9);
        EXPECT_NEAR(q.worstStall, 10.0 / 64 + step, 1e-9);
        EXPECT_NEAR(q.received, 1.0, 1e-12);
        EXPECT_EQ(q.transferTokens, 1000u);
        EXPECT_NEAR(r.backhaulBytes, (300 + 1000) * BYTES_PER_TOKEN, 1e-2);
        EXPECT_EQ(r.restores, 1u);
        EXPECT_TRUE(q.served);
    }
    {
        FluidServingEngine e(SlotConfig(),
                             SlotPolicy("ea", 0.5),
                             2,
                             {1},
                             {{0, tau, 2}, {0, again, 1}},
                             {Req(0, 998, 10, 0, 0, 0)});
        const auto r = e.Run();
        const auto& q = r.requests[0];
        EXPECT_NEAR(q.stall, again + step - tau, 1e-9);
        EXPECT_TRUE(std::isnan(q.received));
        EXPECT_EQ(q.transferTokens, 0u);
        EXPECT_NEAR(r.backhaulBytes, 300 * BYTES_PER_TOKEN, 1e-2);
        EXPECT_TRUE(q.served);
        EXPECT_EQ(q.prefillTokens, 998u);
    }
}

// Which schemes serving mode models: batch and slot policies a source plans alone, and
// pre-transfer policies around them; not target-coordinated ones.
TEST(FluidServingEngine, ModelsSlotPolicies)
{
    for (const char* name :
         {"ctho", "tho", "cho", "impactho", "ea", "wta", "pf", "pre-ctho", "pre-impactho"})
    {
        EXPECT_TRUE(FluidServingEngine::Models(HandoverSchemeRegistry::Find(name))) << name;
    }
    const std::vector<LlmRequest> one{Req(0, 10, 2, 0, 0, 0)};
    EXPECT_FALSE(FluidServingEngine::Models(HandoverSchemeRegistry::Find("tc-ctho")));
    const std::string error = edgellmtest::ErrorOf([&] {
        FluidServingEngine e(HandConfig(),
                             HandoverSchemeRegistry::Create("tc-ctho"),
                             2,
                             {1},
                             {},
                             one);
    });
    EXPECT_NE(error.find("scheme 'tc-ctho' is not modelled in serving mode: it takes a batch or "
                         "slot policy its source plans alone, or a pre-transfer around one "
                         "(ctho, tho, cho, pre-ctho, impactho, ea, wta, pf, pre-impactho)"),
              std::string::npos)
        << error;
    EXPECT_EQ(HandoverSchemeRegistry::Names(", ", FluidServingEngine::Models),
              "ctho, tho, cho, pre-ctho, impactho, ea, wta, pf, pre-impactho");
}

/// Pre-transfer tests: HandConfig with a link that carries exactly 10,000 tokens/s:
/// R = 10^4 x 57344 x 8 bit/s = 4.58752 Gbit/s.
FluidServingConfig
PreConfig()
{
    auto c = HandConfig();
    c.backhaulGbps = 4.58752;
    return c;
}

/// A predicted-crossing pre-transfer around \p inner (a TypeId name).
Ptr<PreTransferScheduler>
PrePolicy(const std::string& inner, double lead, double share, bool follow)
{
    auto s = CreateObject<PreTransferScheduler>();
    s->SetInnerScheduler(inner);
    s->SetAttribute("Trigger", EnumValue(PreTransferScheduler::PREDICTED_CROSSING));
    s->SetAttribute("LeadTime", TimeValue(Seconds(lead)));
    s->SetAttribute("RateShare", DoubleValue(share));
    s->SetAttribute("FollowDecoding", BooleanValue(follow));
    return s;
}

/// When a request of prompt 1000 sent at 0 decodes its token k (1-based) alone on a GPU
/// (HandConfig): the prompt's iteration ends at 0.01 + 0.01 + 0.001 x 1000 = 1.02 s with
/// token 1; token k + 1 takes 0.01 + 0.002 + 1e-5 x (1000 + k) (the context read).
double
TokenTime(int k)
{
    double t = 1.02;
    for (int j = 1; j < k; ++j)
    {
        t += 0.012 + 1e-5 * (1000 + j);
    }
    return t;
}

FluidServingResult
RunPre(Ptr<HandoverScheduler> s,
       const std::vector<ServingHandover>& handovers,
       const std::vector<LlmRequest>& requests,
       const FluidServingConfig& c = PreConfig())
{
    FluidServingEngine engine(c, s, 2, {1}, handovers, requests);
    return engine.Run();
}

// pre-ctho around cHO: a handover 5 ms after token 11 (C = 1011), its trigger LeadTime =
// 50 ms before. The request decodes since 1.02 s: it sends its context at the trigger
// ahead at RateShare x R = 5000 tokens/s: 250 tokens (< 1011). At the handover cHO sends
// the other 761 at R (76.1 ms), then one decode iteration reads the 1011.
TEST(FluidServingEngine, PreCtHoSendsAheadByHand)
{
    const double tau = TokenTime(11) + 0.005;
    for (const char* inner : {"ns3::ChoScheduler", "ns3::CtHoScheduler"})
    {
        auto r =
            RunPre(PrePolicy(inner, 0.05, 0.5, false), {{0, tau, 2}}, {Req(0, 1000, 20, 0, 0, 0)});
        const auto& q = r.requests[0];
        EXPECT_TRUE(q.served) << inner;
        EXPECT_EQ(q.preSentTokens, 250u) << inner;
        EXPECT_NEAR(q.preWastedBytes, 0, 1e-3) << inner;
        EXPECT_NEAR(r.preSentBytes, 250 * BYTES_PER_TOKEN, 1e-3) << inner;
        EXPECT_NEAR(r.preWastedBytes, 0, 1e-3) << inner;
        if (std::string(inner) == "ns3::ChoScheduler")
        {
            EXPECT_EQ(q.transferTokens, 761u);
            EXPECT_NEAR(q.stall, 761.0 / 10000 + (0.012 + 1e-5 * 1011), 1e-9);
            EXPECT_NEAR(r.backhaulBytes, 1011 * BYTES_PER_TOKEN, 1e-3);
        }
        else
        {
            // ctHO splits the 761 tokens left (transfer + prefill), never the 250 held.
            EXPECT_EQ(q.transferTokens + q.prefillTokens - 1000, 761u);
        }
        EXPECT_EQ(q.decodedTokens, 20u) << inner;
    }
    // A share of 0 sends nothing: the whole context at the handover (plain cHO's stall).
    auto none = RunPre(PrePolicy("ns3::ChoScheduler", 0.05, 0.0, false),
                       {{0, tau, 2}},
                       {Req(0, 1000, 20, 0, 0, 0)});
    EXPECT_EQ(none.requests[0].preSentTokens, 0u);
    EXPECT_NEAR(none.requests[0].stall, 1011.0 / 10000 + (0.012 + 1e-5 * 1011), 1e-9);
}

// A lead of 0.5 s starts sending at token 1 (1.02 s; the trigger at about 0.75 s found no
// token yet) at R (RateShare 1). FollowDecoding: the 1001 tokens take 0.1001 s, each later
// token 0.1 ms: all 1011 are there at the handover, whose stall is one decode iteration.
// Without it the 10 tokens decoded after 1.02 s are sent at the handover.
TEST(FluidServingEngine, PreCtHoWholeContextAhead)
{
    const double tau = TokenTime(11) + 0.005;
    auto follow = RunPre(PrePolicy("ns3::ChoScheduler", 0.5, 1.0, true),
                         {{0, tau, 2}},
                         {Req(0, 1000, 20, 0, 0, 0)});
    const auto& f = follow.requests[0];
    EXPECT_EQ(f.preSentTokens, 1011u);
    EXPECT_EQ(f.transferTokens, 0u);
    EXPECT_NEAR(f.stall, 0.012 + 1e-5 * 1011, 1e-9);
    EXPECT_NEAR(f.preWastedBytes, 0, 1e-3);
    auto fixed = RunPre(PrePolicy("ns3::ChoScheduler", 0.5, 1.0, false),
                        {{0, tau, 2}},
                        {Req(0, 1000, 20, 0, 0, 0)});
    const auto& x = fixed.requests[0];
    EXPECT_EQ(x.preSentTokens, 1001u);
    EXPECT_EQ(x.transferTokens, 10u);
    EXPECT_NEAR(x.stall, 10.0 / 10000 + (0.012 + 1e-5 * 1011), 1e-9);
}

// A request that ends (token 5) before its UE's handover (2 s) sends from its first token
// at 5000 tokens/s until its end: every byte is waste.
TEST(FluidServingEngine, PreSentToARequestThatEndedIsWaste)
{
    auto r = RunPre(PrePolicy("ns3::ChoScheduler", 1.5, 0.5, false),
                    {{0, 2.0, 2}},
                    {Req(0, 1000, 5, 0, 0, 0)});
    const auto& q = r.requests[0];
    const double bytes = 5000 * (TokenTime(5) - TokenTime(1)) * BYTES_PER_TOKEN;
    EXPECT_TRUE(q.served);
    EXPECT_EQ(q.preSentTokens, static_cast<uint64_t>(std::floor(bytes / BYTES_PER_TOKEN)));
    EXPECT_NEAR(q.preWastedBytes, bytes, bytes * 1e-9);
    EXPECT_NEAR(r.preWastedBytes, bytes, bytes * 1e-9);
    EXPECT_NEAR(r.preSentBytes, bytes, bytes * 1e-9);
    EXPECT_EQ(q.handovers, 0u);
}

// pre-impactho (ImpactHO inside, slots of 1/64 s, window 0.1 s, 100 tokens per slot):
// prompt 998, tokens at 1.018 s and 1.03999 s (C = 1000); the trigger at 1.04 s sends
// 3200 tokens/s for 10 ms: 32 tokens ahead. The handover at 1.05 s waits for slot 68
// (1.0625 s); slots 68 to 72 bring 500 tokens, slot 73 (from 1.140625 s) 0.6 x 100 until the
// window closes at 1.15 s: x = (32 + 560) / 1000 at resume.
TEST(FluidServingEngine, PreImpactHoFractionIncludesAhead)
{
    auto s = PrePolicy("ns3::ChoScheduler", 0.01, 0.5, false);
    s->SetInnerPolicy(SlotPolicy("impactho", 0.1));
    auto r = RunPre(s, {{0, 1.05, 2}}, {Req(0, 998, 10, 0, 0, 0)}, SlotConfig());
    const auto& q = r.requests[0];
    EXPECT_EQ(q.preSentTokens, 32u);
    EXPECT_NEAR(q.received, 0.592, 1e-9);
    EXPECT_NEAR(q.accuracy, PresetAccuracy(0.592), 1e-9);
    EXPECT_NEAR(q.preWastedBytes, 0, 1e-3);
    EXPECT_NEAR(r.backhaulBytes, 592 * BYTES_PER_TOKEN, 1e-2);
    auto plain = RunSlots("impactho", 0.1, {1}, {{0, 1.05, 2}}, {Req(0, 998, 10, 0, 0, 0)});
    EXPECT_NEAR(plain.requests[0].received, 0.56, 1e-9);
}

// An A3 trigger needs ServingHandover::likely, in [0, time].
TEST(FluidServingEngine, PreA3NeedsLikely)
{
    const std::vector<LlmRequest> one{Req(0, 10, 2, 0, 0, 0)};
    auto make = [&](double likely) {
        return edgellmtest::ErrorOf([&] {
            ServingHandover h{0, 1.0, 2};
            h.likely = likely;
            FluidServingEngine e(HandConfig(),
                                 HandoverSchemeRegistry::Create("pre-ctho"),
                                 2,
                                 {1},
                                 {h},
                                 one);
        });
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(make(nan).find("handovers[0].likely must be given for scheme 'pre-ctho'"),
              std::string::npos);
    EXPECT_EQ(make(0.0), "");
    EXPECT_EQ(make(0.5), "");
    EXPECT_EQ(make(1.0), "");
    EXPECT_NE(make(-1e-9).find("handovers[0].likely must be in [0, 1]"), std::string::npos);
    EXPECT_NE(make(1.0 + 1e-9).find("handovers[0].likely must be in [0, 1]"), std::string::npos);
    // Other policies ignore it but still check it; a predicted crossing needs none.
    EXPECT_EQ(edgellmtest::ErrorOf([&] {
                  FluidServingEngine e(HandConfig(),
                                       PrePolicy("ns3::CtHoScheduler", 0.1, 0.5, false),
                                       2,
                                       {1},
                                       {{0, 1.0, 2}},
                                       one);
              }),
              "");
    // With likely the A3 policy sends from then: a request decoding since 1.02 s, likely
    // at 1.1 s, the handover 5 ms after token 11: (tau - 1.1) x 5000 tokens/s ahead (the
    // default RateShare 0.5).
    const double tau = TokenTime(11) + 0.005;
    ServingHandover h{0, tau, 2};
    h.likely = 1.1;
    auto a3 = HandoverSchemeRegistry::Create("pre-ctho");
    a3->SetAttribute("InnerScheduler", StringValue("ns3::ChoScheduler"));
    auto r = RunPre(a3, {h}, {Req(0, 1000, 20, 0, 0, 0)});
    EXPECT_EQ(r.requests[0].preSentTokens,
              static_cast<uint64_t>(std::floor(5000 * (tau - 1.1) + 1e-9)));
}

// Batch policies leave the slot fields NaN.
TEST(FluidServingEngine, BatchPoliciesHaveNoFraction)
{
    auto r = RunOne(HandConfig(), "cho", {1}, {{0, 1.05, 2}}, {Req(0, 998, 10, 0, 0, 0)});
    EXPECT_TRUE(std::isnan(r.requests[0].received));
    EXPECT_TRUE(std::isnan(r.requests[0].accuracy));
}

// A request too big for the memory is reported, not served, and does not stop the others.
TEST(FluidServingEngine, TooBigIsReported)
{
    auto c = HandConfig();
    c.gpu.kvMemoryBytes = static_cast<uint64_t>(100 * BYTES_PER_TOKEN);
    auto r = RunOne(c, "ctho", {1}, {}, {Req(0, 99, 2, 0, 0, 0), Req(0.5, 98, 2, 0, 1, 0)});
    EXPECT_FALSE(r.requests[0].served); // 101 tokens
    EXPECT_TRUE(r.requests[1].served);  // exactly 100
    EXPECT_DOUBLE_EQ(r.sloAttainment, 0.5);
}

} // namespace
