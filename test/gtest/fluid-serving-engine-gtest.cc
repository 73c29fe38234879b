/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FluidServingEngine (many users, a continuous-batching GPU per BS, handovers at flow
 * level): time to first token at low load, a handover's stall under cHO and tHO, the three
 * idle-cache policies and LRU eviction, each worked out by hand from the iteration-time
 * equation; token conservation over a trace with handovers; every refusal.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/core-module.h"
#include "ns3/fluid-serving-engine.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"

#include <cmath>
#include <gtest/gtest.h>
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
    for (const char* scheme : {"ctho", "tho", "cho"})
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
    EXPECT_NE(make("impactho", 2, {1}, {}, one, c).find("not modelled in serving mode"),
              std::string::npos);
    EXPECT_NE(make("tc-ctho", 2, {1}, {}, one, c)
                  .find("not modelled in serving mode: it takes a batch policy its source plans "
                        "alone (ctho, tho, cho)"),
              std::string::npos);
    EXPECT_EQ(make("tho", 2, {1}, {}, one, c), "");
    EXPECT_EQ(make("cho", 2, {1}, {}, one, c), "");
    EXPECT_NE(make("pre-ctho", 2, {1}, {}, one, c).find("not modelled in serving mode"),
              std::string::npos);
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
