/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/fluid-handover-scenario.h"
#include "../examples/studies/impactho-fluid-scenario.h"
#include "../examples/studies/pre-transfer-fluid-scenario.h"
#include "ctho-brute-force.h"
#include "edge-llm-mesh-fixture.h"
#include "edge-llm-test-util.h"

#include "ns3/accuracy-utility.h"
#include "ns3/boolean.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-backhaul-helper.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/enum.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/kv-pre-transfer-store.h"
#include "ns3/object-factory.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/// qwen2.5-7b-instruct at 16 bits: 2 (K, V) x 28 layers x 4 KV heads x 128 x 2 bytes.
constexpr double BYTES_PER_TOKEN = 57344;
/// 4.5 Gbit/s in bytes/s.
constexpr double LINK_BYTES_PER_S = 4.5e9 / 8;
const double NaN = std::numeric_limits<double>::quiet_NaN();

Ptr<PreTransferScheduler>
PreTransfer(const std::string& inner, double share = 0.5, bool yield = true, double hold = 1.0)
{
    Ptr<PreTransferScheduler> s = CreateObject<PreTransferScheduler>();
    s->SetAttribute("InnerScheduler", StringValue(inner));
    s->SetAttribute("RateShare", DoubleValue(share));
    s->SetAttribute("YieldToHandovers", BooleanValue(yield));
    s->SetAttribute("HoldTime", TimeValue(Seconds(hold)));
    return s;
}

PreTransferUe
Episode(uint64_t id,
        double trigger,
        double handover,
        uint64_t prefix,
        uint64_t context,
        uint16_t source = 1,
        uint16_t predicted = 2,
        uint16_t target = 2)
{
    PreTransferUe e;
    e.ueId = id;
    e.source = source;
    e.triggerTime = trigger;
    e.predictedTarget = predicted;
    e.handoverTime = handover;
    e.target = target;
    e.prefixTokens = prefix;
    e.contextTokens = context;
    return e;
}

/// ctHO's delay for one UE of \p tokens handing over at \p tau, by brute force over L
/// (the module's default GPU, T_c = 10 ms, R = 4.5 Gbit/s).
double
CtHoAlone(uint64_t tokens, double tau)
{
    edgellmtest::CtHoInstance inst;
    inst.ues = {CtHoUe{0, tau, tokens}};
    inst.rate = LINK_BYTES_PER_S / BYTES_PER_TOKEN;
    inst.a = 9.4267e-5;
    inst.b = 2.4e-3;
    inst.c = 0;
    inst.batchPeriod = 0.01;
    return edgellmtest::BruteForceMinimum(inst);
}

double
Conservation(const PreTransferFluidResult& r)
{
    double used = 0;
    for (const auto& u : r.ues)
    {
        used += static_cast<double>(u.usedTokens) * BYTES_PER_TOKEN + u.wastedBytes;
    }
    return used - r.preSentBytes;
}
} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief A handover predicted right: only the tail crosses at the handover (hand
 *        calculation), for a complete and a partial pre-transfer, cHO and ctHO inside.
 */
class PreTransferTailTestCase : public TestCase
{
  public:
    PreTransferTailTestCase()
        : TestCase("A right prediction leaves the tail: delay = its transfer (hand calculation)")
    {
    }

  private:
    void DoRun() override
    {
        PreTransferFluidConfig cfg;
        // Complete: 1000 tokens (57.344 MB) at 0.5 x 4.5 Gbit/s take 0.204 s < 1 s; the
        // tail, 100 tokens, crosses in 100 x 57344 x 8 / 4.5e9 s.
        PreTransferFluidResult r = PreTransferFluidScenario::Run(cfg,
                                                                 PreTransfer("ns3::ChoScheduler"),
                                                                 {Episode(1, 0, 1.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ(r.scheme, "pre-cho", "scheme name");
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 1000, "the whole prefix is used");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].preSentBytes, 1000 * BYTES_PER_TOKEN, 1e-3, "sent");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay,
                                  100 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "delay = the tail's transfer");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].handoverBytes, 100 * BYTES_PER_TOKEN, 1e-6, "tail");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedBytes, 0.0, 1e-6, "no waste");
        // ctHO plans the tail: its brute-force optimum for 100 tokens.
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::CtHoScheduler"),
                                          {Episode(1, 0, 1.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, CtHoAlone(100, 1.0), 1e-9, "ctHO of the tail");
        // Partial: triggered 0.1 s before the handover, 0.1 x 281.25 MB/s = 28.125 MB
        // arrive: 490 whole tokens (28,098,560 B), 26,440 B of a token wasted; the rest
        // 1100 - 490 = 610 tokens cross at the handover.
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::ChoScheduler"),
                                          {Episode(1, 0.9, 1.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 490, "whole tokens used");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].wastedBytes, 26440.0, 1e-3, "partial token wasted");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay,
                                  610 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "delay = the rest's transfer");
        // The whole cache ahead: nothing left, D = 0.
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::CtHoScheduler"),
                                          {Episode(1, 0, 1.0, 1100, 1100)});
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 0.0, 1e-15, "nothing left");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.handoverBytes, 0.0, 1e-15, "nothing at the handover");
        // FollowDecoding: the 100 tokens decoded after the trigger (100 tokens/s for 1 s)
        // follow once the prefix is in (0.204 s): all 1100 are at the target at the
        // handover, D = 0; without it the same episode leaves them (10.19 ms above).
        Ptr<PreTransferScheduler> follow = PreTransfer("ns3::ChoScheduler");
        follow->SetAttribute("FollowDecoding", BooleanValue(true));
        PreTransferUe decoding = Episode(1, 0, 1.0, 1000, 1100);
        decoding.decodeRate = 100;
        r = PreTransferFluidScenario::Run(cfg, follow, {decoding});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 1100, "the decoding followed");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 0.0, 1e-15, "nothing left");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 1100 * BYTES_PER_TOKEN, 1e-3, "sent ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedBytes, 0.0, 1e-3, "no waste");
        // Triggered 0.1 s before: 28.125 MB by the handover, not caught up (57.344 MB +
        // 5.7 MB/s of decoding): as without following.
        decoding.triggerTime = 0.9;
        decoding.prefixTokens = 1090;
        r = PreTransferFluidScenario::Run(cfg, follow, {decoding});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 490, "whole tokens of 28.125 MB");
        // The trigger at the handover (or after) sends nothing: ctHO's delay.
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::CtHoScheduler"),
                                          {Episode(1, 1.0, 1.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 0.0, 1e-15, "trigger at tau: nothing ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, CtHoAlone(1100, 1.0), 1e-9, "ctHO");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A wrong prediction: exactly the pre-sent bytes are waste and the UE gets ctHO's
 *        delay (brute force, and the plain ctHO through the same engine).
 */
class PreTransferWrongTargetTestCase : public TestCase
{
  public:
    PreTransferWrongTargetTestCase()
        : TestCase("A wrong prediction wastes the pre-sent bytes and gives ctHO's delay")
    {
    }

  private:
    void DoRun() override
    {
        PreTransferFluidConfig cfg;
        const std::vector<PreTransferUe> ues{Episode(1, 0, 1.0, 1000, 1100, 1, 2, 3)};
        const PreTransferFluidResult r =
            PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::CtHoScheduler"), ues);
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].predictedRight, false, "predicted 2, went to 3");
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 0, "nothing used at cell 3");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].wastedBytes, 1000 * BYTES_PER_TOKEN, 1e-3, "waste");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, CtHoAlone(1100, 1.0), 1e-9, "ctHO's delay");
        const PreTransferFluidResult plain =
            PreTransferFluidScenario::Run(cfg, CreateObject<CtHoScheduler>(), ues);
        NS_TEST_ASSERT_MSG_EQ_TOL(plain.ues[0].delay, r.ues[0].delay, 1e-12, "plain ctHO");
        NS_TEST_ASSERT_MSG_EQ_TOL(plain.preSentBytes, 0.0, 1e-15, "plain ctHO sends nothing ahead");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A full KV memory evicts the oldest entry (store by hand; engine: the evicted UE
 *        gets ctHO's delay on its whole cache, its bytes are waste); a prefix larger than
 *        the memory is cut to the whole tokens that fit.
 */
class PreTransferMemoryTestCase : public TestCase
{
  public:
    PreTransferMemoryTestCase()
        : TestCase("A full KV memory evicts the oldest entry; byte accounting by hand")
    {
    }

  private:
    void DoRun() override
    {
        KvPreTransferStore store(100);
        NS_TEST_ASSERT_MSG_EQ(store.Reserve(1, 40).size(), 0, "fits");
        NS_TEST_ASSERT_MSG_EQ(store.Reserve(2, 40).size(), 0, "fits");
        std::vector<uint64_t> evicted = store.Reserve(3, 40);
        NS_TEST_ASSERT_MSG_EQ(evicted.size(), 1, "120 > 100: one eviction");
        NS_TEST_ASSERT_MSG_EQ(evicted[0], 1, "the oldest");
        store.Shrink(2, 10); // 10 + 40 held
        evicted = store.Reserve(4, 60);
        NS_TEST_ASSERT_MSG_EQ(evicted.size(), 1, "50 free < 60: evict 2 (10 B) -> 60 free");
        NS_TEST_ASSERT_MSG_EQ(evicted[0], 2, "the oldest");
        NS_TEST_ASSERT_MSG_EQ(store.GetReserved(), 100, "40 + 60");
        NS_TEST_ASSERT_MSG_EQ(store.Release(3), 40, "room given back");
        NS_TEST_ASSERT_MSG_EQ(store.Reserve(5, 40).size(), 0, "exactly full: no eviction");
        // Grow (a pre-transfer following the decoding): 5 from 40 to 50 B in a full memory
        // evicts the oldest other entry (4, 60 B), never itself.
        evicted = store.Grow(5, 50);
        NS_TEST_ASSERT_MSG_EQ(evicted.size(), 1, "one eviction");
        NS_TEST_ASSERT_MSG_EQ(evicted[0], 4, "the other, older entry");
        NS_TEST_ASSERT_MSG_EQ(store.GetReserved(), 50, "only 5, grown");
        NS_TEST_ASSERT_MSG_EQ(store.Grow(5, 100).size(), 0, "alone, up to the capacity");
        bool threw = false;
        try
        {
            store.Reserve(6, 101);
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "more than the capacity");
        threw = false;
        try
        {
            KvPreTransferStore none(0);
        }
        catch (const std::invalid_argument& e)
        {
            threw = std::string(e.what()).find("kvMemoryCapacity") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "capacity 0 named");

        // Engine: room for 1.5 prefixes. UE 1 (0.2 s to send) is evicted by UE 2's trigger
        // at 0.5 s; UE 1 then hands over with nothing held.
        PreTransferFluidConfig cfg;
        cfg.batchSpan = 0;
        cfg.kvMemoryCapacity = static_cast<uint64_t>(1500 * BYTES_PER_TOKEN);
        PreTransferFluidResult r = PreTransferFluidScenario::Run(
            cfg,
            PreTransfer("ns3::CtHoScheduler"),
            {Episode(1, 0, 2.0, 1000, 1100), Episode(2, 0.5, 2.5, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ(r.evictions, 1, "one eviction");
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].evicted, true, "the oldest");
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 0, "evicted: nothing held");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].wastedBytes, 1000 * BYTES_PER_TOKEN, 1e-3, "waste");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, CtHoAlone(1100, 2.0), 1e-9, "ctHO");
        NS_TEST_ASSERT_MSG_EQ(r.ues[1].usedTokens, 1000, "the newer entry is used");
        NS_TEST_ASSERT_MSG_EQ_TOL(Conservation(r), 0.0, 1e-3, "bytes conserved");
        // A prefix larger than the whole memory is refused (as the packet level's target
        // does): nothing sent ahead, the whole cache at the handover; one byte less than
        // the prefix refuses it, exactly the prefix takes it.
        cfg.kvMemoryCapacity = static_cast<uint64_t>(1000 * BYTES_PER_TOKEN) - 1;
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::ChoScheduler"),
                                          {Episode(1, 0, 2.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 0, "refused");
        NS_TEST_ASSERT_MSG_EQ(r.evictions, 1, "counted as an eviction");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.preSentBytes, 0.0, 1e-15, "nothing sent ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay,
                                  1100 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "the whole cache at the handover");
        cfg.kvMemoryCapacity = static_cast<uint64_t>(1000 * BYTES_PER_TOKEN);
        r = PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::ChoScheduler"),
                                          {Episode(1, 0, 2.0, 1000, 1100)});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 1000, "exactly the memory: taken");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay,
                                  100 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "the tail at the handover");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Ping-pong between two cells: 1 -> 2, back 2 -> 1, then a trigger towards 2 that
 *        ends without a handover; every byte is used or wasted (hand calculation). A
 *        trigger back to the cell the UE left less than PingPongTime (1 s) before is
 *        ignored (both sides of the boundary), unless PingPongTime is 0.
 */
class PreTransferPingPongTestCase : public TestCase
{
  public:
    PreTransferPingPongTestCase()
        : TestCase("Ping-pong between two cells: each handover uses its prefix, the aborted "
                   "trigger's bytes are waste")
    {
    }

  private:
    void DoRun() override
    {
        PreTransferFluidConfig cfg;
        // Each trigger back comes PingPongTime (1 s) or more after the handover it undoes.
        PreTransferUe back = Episode(7, 2.05, 2.5, 1150, 1200, 2, 1, 1);
        PreTransferUe again = Episode(7, 3.6, NaN, 1250, 1250, 1, 2, 2);
        again.triggerEnd = 3.8; // 0.2 s at 281.25 MB/s: 56.25 MB sent, then dropped
        const PreTransferUe first = Episode(7, 0, 1.0, 1000, 1100);
        const PreTransferFluidResult r =
            PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::ChoScheduler"),
                                          {first, back, again});
        NS_TEST_ASSERT_MSG_EQ(r.ues[0].usedTokens, 1000, "1 -> 2 uses its prefix");
        NS_TEST_ASSERT_MSG_EQ(r.ues[1].usedTokens, 1150, "2 -> 1 uses its prefix");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].delay,
                                  50 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "back: 50 tokens left");
        NS_TEST_ASSERT_MSG_EQ(r.ues[2].handedOver, false, "no third handover");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[2].wastedBytes, 0.2 * LINK_BYTES_PER_S / 2, 1e-3, "waste");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedBytes, 0.2 * LINK_BYTES_PER_S / 2, 1e-3, "only that");
        NS_TEST_ASSERT_MSG_EQ_TOL(Conservation(r), 0.0, 1e-3, "bytes conserved");

        // Back at 1.99 s, 0.99 s after the handover 1 -> 2: ignored, the whole cache of
        // 1200 tokens crosses at the handover (cHO); at 2.0 s (1 s after) it goes ahead.
        back.triggerTime = 1.99;
        PreTransferFluidResult g =
            PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::ChoScheduler"), {first, back});
        NS_TEST_ASSERT_MSG_EQ(g.ues[1].preSentBytes, 0.0, "inside PingPongTime: nothing ahead");
        NS_TEST_ASSERT_MSG_EQ(g.ues[1].usedTokens, 0, "nothing used");
        NS_TEST_ASSERT_MSG_EQ_TOL(g.ues[1].delay,
                                  1200 * BYTES_PER_TOKEN / LINK_BYTES_PER_S,
                                  1e-12,
                                  "the whole cache at the handover");
        back.triggerTime = 2.0;
        g = PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::ChoScheduler"), {first, back});
        NS_TEST_ASSERT_MSG_EQ(g.ues[1].usedTokens, 1150, "at the boundary: ahead");
        back.triggerTime = 1.5;
        Ptr<PreTransferScheduler> noGuard = PreTransfer("ns3::ChoScheduler");
        noGuard->SetAttribute("PingPongTime", TimeValue(Seconds(0)));
        g = PreTransferFluidScenario::Run(cfg, noGuard, {first, back});
        NS_TEST_ASSERT_MSG_EQ(g.ues[1].usedTokens, 1150, "PingPongTime 0: no guard");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Sharing the link: yielding pre-transfers pause while a batch transfers; with
 *        YieldToHandovers false the batch is planned on (1 - RateShare) R (hand calculation).
 */
class PreTransferShareTestCase : public TestCase
{
  public:
    PreTransferShareTestCase()
        : TestCase("Pre-transfers yield to a batch, or keep their share and halve its rate")
    {
    }

  private:
    void DoRun() override
    {
        PreTransferFluidConfig cfg;
        cfg.batchSpan = 0;
        // UE 1 hands over at 10 ms with 2000 tokens (cHO: all cross, 114.688 MB); UE 2 sends
        // 2000 tokens (114.688 MB) ahead from 0 and hands over at 0.3 s, before they are all
        // sent either way.
        const std::vector<PreTransferUe> ues{Episode(1, NaN, 0.01, 0, 2000),
                                             Episode(2, 0, 0.3, 2000, 2100)};
        const double full = 2000 * BYTES_PER_TOKEN / LINK_BYTES_PER_S; // 0.2039 s
        PreTransferFluidResult r =
            PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::ChoScheduler"), ues);
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, full, 1e-12, "the batch at full rate");
        const double yielded = (0.01 + (0.3 - 0.01 - full)) * LINK_BYTES_PER_S / 2;
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].preSentBytes, yielded, 1e-3, "paused while it ran");
        r = PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::ChoScheduler", 0.5, false), ues);
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[0].delay, 2 * full, 1e-12, "the batch on half the link");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ues[1].preSentBytes, 0.3 * LINK_BYTES_PER_S / 2, 1e-3, "kept");
        NS_TEST_ASSERT_MSG_EQ_TOL(Conservation(r), 0.0, 1e-3, "bytes conserved");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The road: triggers by hand (A3 position, predicted crossing), the plain batch
 *        policies through the engine match the flow-level batch engine, and bytes are
 *        conserved with stops and a small memory.
 */
class PreTransferRoadTestCase : public TestCase
{
  public:
    PreTransferRoadTestCase()
        : TestCase("Road triggers by hand; plain policies match the flow level; conservation")
    {
    }

  private:
    void DoRun() override
    {
        // x = D k / (1 + k), k = 10^(offset / 20) (Friis).
        const double k = std::pow(10.0, -3.0 / 20.0);
        NS_TEST_ASSERT_MSG_EQ_TOL(PreTransferScheduler::A3EnteringPosition(300, 2, -3),
                                  300 * k / (1 + k),
                                  1e-9,
                                  "A3 at -3 dB");
        NS_TEST_ASSERT_MSG_EQ_TOL(PreTransferScheduler::A3EnteringPosition(300, 2, 0),
                                  150.0,
                                  1e-12,
                                  "0 dB: midway");
        NS_TEST_ASSERT_MSG_EQ_TOL(PreTransferScheduler::A3EnteringPosition(300, 2, 20),
                                  3000.0 / 11,
                                  1e-9,
                                  "+20 dB: k = 10");
        Ptr<PreTransferScheduler> p = PreTransfer("ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ_TOL(p->RoadTriggerTime(120, 20, 1.5, 300, 2),
                                  (300 * k / (1 + k) - 120) / 20 + 0.256,
                                  1e-9,
                                  "reach x, then TimeToTrigger");
        NS_TEST_ASSERT_MSG_EQ_TOL(p->RoadTriggerTime(130, 20, 1.0, 300, 2),
                                  0.256,
                                  1e-12,
                                  "already past x: TimeToTrigger");
        p->SetAttribute("Trigger", EnumValue(PreTransferScheduler::PREDICTED_CROSSING));
        NS_TEST_ASSERT_MSG_EQ_TOL(p->RoadTriggerTime(120, 20, 1.5, 300, 2), 0.5, 1e-12, "lead 1 s");
        p->SetAttribute("LeadTime", TimeValue(Seconds(2)));
        NS_TEST_ASSERT_MSG_EQ_TOL(p->RoadTriggerTime(120, 20, 1.5, 300, 2), 0.0, 1e-12, "at 0");

        // Plain policies through this engine (one batch: known times) = the flow level.
        RoadUeDraw road;
        road.numUes = 8;
        PreTransferFluidConfig cfg;
        const std::vector<PreTransferUe> episodes =
            PreTransferFluidScenario::RoadEpisodes(road, 3, *p, 300, 2, 100, 0);
        std::vector<CtHoUe> ues;
        for (const auto& e : episodes)
        {
            ues.push_back(CtHoUe{e.ueId, e.handoverTime, e.contextTokens});
        }
        for (const std::string type :
             {"ns3::CtHoScheduler", "ns3::ThoScheduler", "ns3::ChoScheduler"})
        {
            FluidHandoverConfig fluid;
            fluid.schedulerType = type;
            const double expected = FluidHandoverScenario::Run(fluid, ues).worstDelay;
            ObjectFactory factory(type);
            const double got =
                PreTransferFluidScenario::Run(cfg, factory.Create<HandoverScheduler>(), episodes)
                    .worstDelay;
            // The flow level rounds each event to ns-3's 1 ns time step.
            NS_TEST_ASSERT_MSG_EQ_TOL(got, expected, 1e-8, type << " equals the flow level");
        }
        // Stops and a memory for two average prefixes: evictions, waste, conservation.
        cfg.batchSpan = 0;
        cfg.kvMemoryCapacity = static_cast<uint64_t>(5000 * BYTES_PER_TOKEN);
        road.numUes = 12;
        const std::vector<PreTransferUe> stopping =
            PreTransferFluidScenario::RoadEpisodes(road, 3, *p, 300, 2, 100, 0.5);
        uint32_t stops = 0;
        for (const auto& e : stopping)
        {
            stops += std::isnan(e.handoverTime) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT(stops, 0, "some UEs stop");
        NS_TEST_ASSERT_MSG_LT(stops, 12, "some hand over");
        const PreTransferFluidResult r = PreTransferFluidScenario::Run(cfg, p, stopping);
        NS_TEST_ASSERT_MSG_GT(r.evictions, 0, "the memory filled");
        NS_TEST_ASSERT_MSG_GT(r.wastedBytes, 0.0, "waste");
        NS_TEST_ASSERT_MSG_EQ_TOL(Conservation(r) / r.preSentBytes, 0.0, 1e-12, "conserved");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Bad input names the field: inner policy, RateShare with YieldToHandovers false,
 *        episodes (each side of every boundary).
 */
class PreTransferInputTestCase : public TestCase
{
  public:
    PreTransferInputTestCase()
        : TestCase("Bad pre-transfer input names the field and the valid range")
    {
    }

  private:
    /// \return the message of what \p f throws ("" if nothing)
    static std::string Error(const std::function<void()>& f)
    {
        return edgellmtest::ErrorOf(f);
    }

    void DoRun() override
    {
        Ptr<PreTransferScheduler> p = CreateObject<PreTransferScheduler>();
        std::string e = Error([&]() { p->SetInnerScheduler("ns3::NoSuchScheduler"); });
        NS_TEST_ASSERT_MSG_NE(e.find("InnerScheduler must be one of"), std::string::npos, e);
        NS_TEST_ASSERT_MSG_NE(e.find("ns3::CtHoScheduler"), std::string::npos, "lists " << e);
        NS_TEST_ASSERT_MSG_NE(e.find("ns3::ImpactHoScheduler"), std::string::npos, "lists " << e);
        NS_TEST_ASSERT_MSG_EQ(e.find("ns3::PreTransferScheduler,"), std::string::npos, e);
        e = Error([&]() { p->SetInnerScheduler("ns3::PreTransferScheduler"); });
        NS_TEST_ASSERT_MSG_NE(e, "", "no nesting");
        e = Error([&]() { p->SetInnerScheduler("ns3::ThoScheduler"); });
        NS_TEST_ASSERT_MSG_EQ(e, "", "a batch policy");
        NS_TEST_ASSERT_MSG_EQ(p->ShareSlot(Seconds(0), nullptr, nullptr).size(), 0, "no slots");
        NS_TEST_ASSERT_MSG_EQ(p->GetSchemeName(), "pre-tho", "named after the inner");
        NS_TEST_ASSERT_MSG_EQ(p->AllocatesSlots(), false, "a batch policy inside");
        NS_TEST_ASSERT_MSG_EQ(p->GetTransferWindow(), Time(0), "no window");
        e = Error([&]() { p->SetInnerScheduler("ns3::ImpactHoScheduler"); });
        NS_TEST_ASSERT_MSG_EQ(e, "", "a slot policy");
        NS_TEST_ASSERT_MSG_EQ(p->GetSchemeName(), "pre-impactho", "named after the inner");
        NS_TEST_ASSERT_MSG_EQ(p->AllocatesSlots(), true, "the inner's slots");
        NS_TEST_ASSERT_MSG_EQ(p->GetSlotLength(), MilliSeconds(100), "ImpactHO's dt");
        NS_TEST_ASSERT_MSG_EQ(p->GetTransferWindow(), MilliSeconds(500), "ImpactHO's T_max");
        // One user of a 1000-byte cache alone with a budget of the whole cache: ImpactHO
        // fills it (x = 1). 600 bytes sent ahead and 100 since: its grant is the 300 left.
        const AccuracyUtility u = AccuracyUtility::Preset(1000, true, 0, AccuracyUtility::HEADLINE);
        const auto sent = [](uint16_t, uint64_t) { return uint64_t{100}; };
        const auto budget = [](uint16_t, const std::set<uint16_t>&) { return 8000.0; };
        auto grant = [&]() {
            const auto shares = p->ShareSlot(Seconds(0), sent, budget);
            return shares.size() == 1 && shares[0].grants.size() == 1 ? shares[0].grants[0].second
                                                                      : uint64_t{0};
        };
        p->SetBytesSentAhead(7, 600);
        p->AddSlotTransfer(7, 2, Seconds(0), 1000, u);
        NS_TEST_ASSERT_MSG_EQ(grant(), 300, "1000 - 600 ahead - 100 sent");
        NS_TEST_ASSERT_MSG_EQ(p->RemoveSlotTransfer(7), 2, "the inner's transfer, to cell 2");
        NS_TEST_ASSERT_MSG_EQ(p->HasSlotTransfers(), false, "none left");
        p->AddSlotTransfer(7, 2, Seconds(0), 1000, u);
        NS_TEST_ASSERT_MSG_EQ(grant(), 900, "the bytes ahead were forgotten with it");

        PreTransferFluidConfig cfg;
        e = Error([&]() {
            PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::CtHoScheduler", 1.0, false),
                                          {Episode(1, 0, 1, 10, 10)});
        });
        NS_TEST_ASSERT_MSG_NE(e.find("RateShare < 1"), std::string::npos, e);
        e = Error([&]() {
            PreTransferFluidScenario::Run(cfg,
                                          PreTransfer("ns3::CtHoScheduler", 0.99, false),
                                          {Episode(1, 0, 1, 10, 10)});
        });
        NS_TEST_ASSERT_MSG_EQ(e, "", "0.99 is valid");
        auto run = [&](const PreTransferUe& u) {
            return Error([&]() {
                PreTransferFluidScenario::Run(cfg, PreTransfer("ns3::CtHoScheduler"), {u});
            });
        };
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 11, 10)).find("ues[0].prefixTokens"),
                              std::string::npos,
                              "prefix above the context");
        NS_TEST_ASSERT_MSG_EQ(run(Episode(1, 0, 1, 10, 10)), "", "prefix = context is valid");
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 0, 0)).find("ues[0].contextTokens"),
                              std::string::npos,
                              "no context");
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, -1e-9, 1, 10)).find("ues[0].handoverTime"),
                              std::string::npos,
                              "negative handover time");
        NS_TEST_ASSERT_MSG_EQ(run(Episode(1, 0, 0, 1, 10)), "", "handover at 0 is valid");
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, -1e-9, 1, 1, 10)).find("ues[0].triggerTime"),
                              std::string::npos,
                              "negative trigger");
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 1, 10, 2, 2, 3)).find("predictedTarget"),
                              std::string::npos,
                              "predicted = source");
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 1, 10, 1, 2, 1)).find("ues[0].target"),
                              std::string::npos,
                              "target = source");
        cfg.kvMemoryCapacity = 0;
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 1, 10)).find("kvMemoryCapacity"),
                              std::string::npos,
                              "memory 0");
        cfg.kvMemoryCapacity = 1;
        NS_TEST_ASSERT_MSG_EQ(run(Episode(1, 0, 1, 1, 10)), "", "1 byte: nothing fits, valid");
        cfg.batchSpan = -1e-9;
        NS_TEST_ASSERT_MSG_NE(run(Episode(1, 0, 1, 1, 10)).find("batchSpan"),
                              std::string::npos,
                              "negative span");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Engines ask a policy what it sends ahead, never cast it: GetPreTransfer() is empty
 *        for the plain policies and carries every PreTransferScheduler attribute as set;
 *        InnerScheduler takes the inner policy's attributes in ns-3's ObjectFactory form,
 *        and a bad form names the field and what is valid, leaving the inner policy as it
 *        was.
 */
class PreTransferAskedTestCase : public TestCase
{
  public:
    PreTransferAskedTestCase()
        : TestCase("Pre-transfer asked through the base class; InnerScheduler with attributes")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* plain : {"ns3::CtHoScheduler",
                                  "ns3::ThoScheduler",
                                  "ns3::ChoScheduler",
                                  "ns3::CoordinatedCtHoScheduler",
                                  "ns3::ImpactHoScheduler"})
        {
            Ptr<HandoverScheduler> s = ObjectFactory(plain).Create<HandoverScheduler>();
            NS_TEST_ASSERT_MSG_EQ(s->GetPreTransfer().has_value(), false, plain);
        }
        Ptr<HandoverScheduler> p = CreateObject<PreTransferScheduler>();
        p->SetAttribute("Trigger", EnumValue(PreTransferScheduler::PREDICTED_CROSSING));
        p->SetAttribute("A3Offset", DoubleValue(1.5));
        p->SetAttribute("TimeToTrigger", TimeValue(MilliSeconds(40)));
        p->SetAttribute("LeadTime", TimeValue(Seconds(2)));
        p->SetAttribute("RateShare", DoubleValue(0.25));
        p->SetAttribute("YieldToHandovers", BooleanValue(false));
        p->SetAttribute("HoldTime", TimeValue(Seconds(3)));
        p->SetAttribute("PingPongTime", TimeValue(MilliSeconds(500)));
        p->SetAttribute("FollowDecoding", BooleanValue(true));
        p->SetAttribute("PacingInterval", TimeValue(MilliSeconds(20)));
        const std::optional<PreTransferSettings> s = p->GetPreTransfer();
        NS_TEST_ASSERT_MSG_EQ(s.has_value(), true, "a pre-transfer policy says so");
        NS_TEST_ASSERT_MSG_EQ(s->trigger, PreTransferSettings::PREDICTED_CROSSING, "trigger");
        NS_TEST_ASSERT_MSG_EQ(s->a3OffsetDb, 1.5, "A3Offset");
        NS_TEST_ASSERT_MSG_EQ(s->timeToTrigger, MilliSeconds(40), "TimeToTrigger");
        NS_TEST_ASSERT_MSG_EQ(s->leadTime, Seconds(2), "LeadTime");
        NS_TEST_ASSERT_MSG_EQ(s->rateShare, 0.25, "RateShare");
        NS_TEST_ASSERT_MSG_EQ(s->yieldToHandovers, false, "YieldToHandovers");
        NS_TEST_ASSERT_MSG_EQ(s->holdTime, Seconds(3), "HoldTime");
        NS_TEST_ASSERT_MSG_EQ(s->pingPongTime, MilliSeconds(500), "PingPongTime");
        NS_TEST_ASSERT_MSG_EQ(s->followDecoding, true, "FollowDecoding");
        NS_TEST_ASSERT_MSG_EQ(s->pacingInterval, MilliSeconds(20), "PacingInterval");

        // The inner policy's attributes ride on InnerScheduler (EA: Policy Equal).
        Ptr<PreTransferScheduler> pre = CreateObject<PreTransferScheduler>();
        auto set = [&pre](const std::string& spec) {
            return edgellmtest::ErrorOf([&]() { pre->SetInnerScheduler(spec); });
        };
        NS_TEST_ASSERT_MSG_EQ(set("ns3::ImpactHoScheduler[Policy=Equal]"), "", "one attribute");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSchemeName(), "pre-ea", "the inner is EA");
        NS_TEST_ASSERT_MSG_EQ(set("ns3::ImpactHoScheduler[Policy=Pf|SlotLength=200ms]"),
                              "",
                              "two attributes");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSchemeName(), "pre-pf", "the inner is PF");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSlotLength(), MilliSeconds(200), "its slot length");
        NS_TEST_ASSERT_MSG_EQ(set("ns3::ImpactHoScheduler"), "", "defaults again");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSchemeName(), "pre-impactho", "water-filling by default");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSlotLength(), MilliSeconds(100), "default slot length");
        const std::string bad[][2] = {
            {"ns3::ImpactHoScheduler[NoSuch=1]", "attribute of ns3::ImpactHoScheduler (Policy"},
            {"ns3::ImpactHoScheduler[Policy]", "not Name=Value"},
            {"ns3::ImpactHoScheduler[Policy=Bogus]",
             "valid value of ns3::ImpactHoScheduler::Policy"},
            {"ns3::ImpactHoScheduler[SlotLength=0s]", "ns3::ImpactHoScheduler::SlotLength"},
            {"ns3::ImpactHoScheduler[Policy=Equal", "one pair of brackets at the end"},
            {"ns3::ImpactHoScheduler[]", "one pair of brackets at the end"},
            {"ns3::ImpactHoScheduler[Policy=Equal]]", "one pair of brackets at the end"},
            {"ns3::ImpactHoScheduler[Policy=Equal]x", "one pair of brackets at the end"},
            {"ns3::NoSuch[Policy=Equal]", "InnerScheduler must be one of"},
            {"ns3::PreTransferScheduler[RateShare=1]", "InnerScheduler must be one of"}};
        for (const auto& [spec, expected] : bad)
        {
            const std::string e = set(spec);
            NS_TEST_ASSERT_MSG_NE(e.find(expected), std::string::npos, spec << ": " << e);
            NS_TEST_ASSERT_MSG_NE(e.find("ns3::PreTransferScheduler::InnerScheduler"),
                                  std::string::npos,
                                  "names the field: " << e);
            NS_TEST_ASSERT_MSG_EQ(pre->GetSchemeName(), "pre-impactho", "unchanged by " << spec);
        }
        // SlotLength's valid range starts at 1 us: the boundary's other side is accepted.
        NS_TEST_ASSERT_MSG_EQ(set("ns3::ImpactHoScheduler[SlotLength=1us]"), "", "1 us");
        NS_TEST_ASSERT_MSG_EQ(pre->GetSlotLength(), MicroSeconds(1), "1 us slots");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief ImpactHO with pre-transfer (flow level): the most important entries are sent in
 *        the slots before each arrival with the idle budget (hand calculation: one slot
 *        ahead at RateShare 0.5 of 20 Gbit/s x 100 ms = 1 Gbit); a whole cache sent ahead
 *        gives the full accuracy; bits are conserved; a trigger other than a predicted
 *        crossing is refused.
 */
class PreTransferImpactHoTestCase : public TestCase
{
  public:
    PreTransferImpactHoTestCase()
        : TestCase("ImpactHO with pre-transfer: important entries ahead, idle budget only")
    {
    }

  private:
    void DoRun() override
    {
        ImpactHoFluidConfig cfg;
        cfg.arrivalRate = 1;
        cfg.simTime = Seconds(20);
        cfg.contexts = {4096}; // 4096 x 1,179,648 bit (qwen3-8b) = 4.832 Gbit
        const ImpactHoFluidResult plain = ImpactHoFluidScenario::Run(cfg, 1);
        Ptr<PreTransferScheduler> p = PreTransfer("ns3::CtHoScheduler");
        p->SetAttribute("Trigger", EnumValue(PreTransferScheduler::PREDICTED_CROSSING));
        p->SetAttribute("LeadTime", TimeValue(MilliSeconds(100)));
        cfg.preTransfer = p;
        const ImpactHoFluidResult one = ImpactHoFluidScenario::Run(cfg, 1);
        const double cache = 4096.0 * 1179648.0;
        uint32_t exact = 0;
        double sent = 0;
        for (std::size_t i = 0; i < one.users.size(); ++i)
        {
            const double x = one.users[i].preSent;
            sent += x * one.users[i].cacheBits;
            NS_TEST_ASSERT_MSG_LT_OR_EQ(x, 1e9 / cache + 1e-12, "at most one slot's half");
            exact += std::abs(x - 1e9 / cache) < 1e-12 ? 1 : 0;
            NS_TEST_ASSERT_MSG_GT_OR_EQ(one.users[i].accuracy + 1e-12,
                                        plain.users[i].accuracy,
                                        "never less accurate");
        }
        NS_TEST_ASSERT_MSG_GT(exact, one.users.size() / 2, "most get exactly 1 Gbit ahead");
        NS_TEST_ASSERT_MSG_EQ_TOL(sent / one.preSentBits, 1.0, 1e-12, "bits conserved");
        // A second ahead at the whole idle budget: every cache arrives whole.
        p->SetAttribute("LeadTime", TimeValue(Seconds(1)));
        p->SetAttribute("RateShare", DoubleValue(1.0));
        const ImpactHoFluidResult whole = ImpactHoFluidScenario::Run(cfg, 1);
        for (const auto& u : whole.users)
        {
            NS_TEST_ASSERT_MSG_EQ_TOL(u.preSent, 1.0, 1e-12, "sent ahead whole");
            NS_TEST_ASSERT_MSG_EQ_TOL(u.accuracy, u.utility.Value(1.0), 1e-12, "the whole cache's");
            NS_TEST_ASSERT_MSG_EQ_TOL(u.latency99, 0.0, 1e-15, "at once");
        }
        p->SetAttribute("Trigger", EnumValue(PreTransferScheduler::A3_ENTERING));
        bool refused = false;
        try
        {
            ImpactHoFluidScenario::Run(cfg, 1);
        }
        catch (const std::invalid_argument& e)
        {
            refused = std::string(e.what()).find("PredictedCrossing") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(refused, true, "A3 has no meaning for Poisson arrivals");
    }
};

namespace
{
/// What one packet-level pre-transfer run traced, per session.
struct PacketRun
{
    std::map<uint64_t, uint64_t> used;     //!< PreTransferUsed tokens
    std::map<uint64_t, uint64_t> wasted;   //!< PreTransferWasted bytes, any BS
    std::map<uint64_t, double> wastedAt;   //!< When the last waste was traced, s
    std::map<uint64_t, uint64_t> evicted;  //!< PreTransferEvicted bytes
    std::map<uint64_t, uint64_t> npf;      //!< HandoverPlanned n_pf
    std::map<uint64_t, uint64_t> ntx;      //!< HandoverPlanned n_tx
    std::map<uint64_t, double> predicted;  //!< HandoverPlanned delay, s
    std::map<uint64_t, double> restored;   //!< SessionRestored delay, s
    std::map<uint16_t, uint64_t> received; //!< Per cell: KV bytes from cell 1
    uint64_t receivedAt1{0};               //!< Cell 1's KV bytes from cell 2
    std::map<uint64_t, double> fraction;   //!< PartialRestored fraction (slot policies)
    /// Every PreTransferUsed (cell, tokens) and SessionRestored (cell, delay), in order
    std::map<uint64_t, std::vector<std::pair<uint16_t, double>>> usedAll;
    std::map<uint64_t, std::vector<std::pair<uint16_t, double>>> restoredAll;
    uint32_t lost{0}; //!< PreTransferLost
    /// EdgeLlmSessionStats' totals at the stop, and after Simulator::Destroy
    EdgeLlmSessionStats::PreTransferTotals totals;
    EdgeLlmSessionStats::PreTransferTotals totalsAfterDestroy; //!< (kept by the stats)
};

/// A test's steps on the mesh's BSs (cells 1..n), before it runs.
using PacketScript = std::function<void(const std::vector<Ptr<EdgeLlmNode>>&)>;

/**
 * \p n BSs (cells 1..n) on a star: each site's 1 Gbit/s, 100 us, MTU 9000 link to one
 * aggregation router (every path two hops, every site's link shared by its paths), with
 * \p scheduler, GatherTime 0; \p backhaul keeps the topology.
 */
ApplicationContainer
MakeStar(uint32_t n, const std::string& scheduler, Ptr<EdgeLlmBackhaul>& backhaul)
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(n);
    InternetStackHelper internet;
    internet.Install(nodes);
    backhaul = CreateObject<EdgeLlmBackhaul>();
    backhaul->SetAttribute("Topology", StringValue("Star"));
    backhaul->SetAttribute("LinkDataRate", DataRateValue(DataRate("1Gbps")));
    backhaul->SetAttribute("LinkDelay", TimeValue(MicroSeconds(100)));
    backhaul->SetAttribute("LinkMtu", UintegerValue(9000));
    backhaul->Install(nodes, nullptr);
    EdgeLlmHelper edge;
    edge.SetSchedulerType(scheduler);
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0)));
    std::vector<uint16_t> cells;
    for (uint32_t i = 0; i < n; ++i)
    {
        cells.push_back(static_cast<uint16_t>(i + 1));
    }
    ApplicationContainer apps = edge.InstallBs(nodes, cells);
    edge.ConnectBackhaul(apps, backhaul);
    return apps;
}

/**
 * \p cells BSs over 1 Gbit/s, 1 ms links; every BS's scheduler \p scheduler (a
 * PreTransferScheduler gets InnerScheduler \p inner, RateShare 0.5, HoldTime 1 s);
 * \p script opens sessions at cell 1 and schedules triggers and handovers; runs to 10 s.
 */
PacketRun
RunPacket(const std::string& scheduler,
          uint32_t cells,
          const std::string& transport,
          uint64_t memoryBytes,
          const PacketScript& script,
          const std::string& inner = "ns3::ChoScheduler",
          bool star = false)
{
    Ptr<EdgeLlmBackhaul> backhaul;
    ApplicationContainer apps =
        star ? MakeStar(cells, scheduler, backhaul)
             : edgellmtest::MakeMesh(cells, scheduler, "1Gbps", transport, "1ms");
    std::vector<Ptr<EdgeLlmNode>> bs;
    PacketRun out;
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> n = DynamicCast<EdgeLlmNode>(apps.Get(i));
        bs.push_back(n);
        n->GetPreTransferRole()->SetAttribute("KvMemoryCapacity", UintegerValue(memoryBytes));
        if (Ptr<PreTransferScheduler> p = DynamicCast<PreTransferScheduler>(n->GetScheduler()))
        {
            p->SetAttribute("InnerScheduler", StringValue(inner));
            p->SetAttribute("RateShare", DoubleValue(0.5));
            p->SetAttribute("HoldTime", TimeValue(Seconds(1)));
        }
        auto sink = [&out](std::map<uint64_t, uint64_t>* m, bool add) {
            return compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [m, add](uint64_t id, uint16_t, uint64_t v) { (*m)[id] = add ? (*m)[id] + v : v; });
        };
        n->GetPreTransferRole()->TraceConnectWithoutContext("PreTransferUsed",
                                                            sink(&out.used, false));
        n->GetPreTransferRole()->TraceConnectWithoutContext("PreTransferEvicted",
                                                            sink(&out.evicted, true));
        n->GetPreTransferRole()->TraceConnectWithoutContext(
            "PreTransferWasted",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out](uint64_t id, uint16_t, uint64_t bytes) {
                    out.wasted[id] += bytes;
                    out.wastedAt[id] = Simulator::Now().GetSeconds();
                }));
        n->GetPreTransferRole()->TraceConnectWithoutContext(
            "PreTransferLost",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out](uint64_t, uint16_t, uint64_t) { ++out.lost; }));
        n->GetSourceRole()->TraceConnectWithoutContext(
            "HandoverPlanned",
            compat::MakeCallback<void, uint64_t, uint64_t, uint64_t, Time>(
                [&out](uint64_t id, uint64_t npf, uint64_t ntx, Time predicted) {
                    out.npf[id] = npf;
                    out.ntx[id] = ntx;
                    out.predicted[id] = predicted.GetSeconds();
                }));
        n->GetTargetRole()->TraceConnectWithoutContext(
            "SessionRestored",
            compat::MakeCallback<void, uint64_t, uint16_t, Time>(
                [&out](uint64_t id, uint16_t, Time delay) {
                    out.restored[id] = delay.GetSeconds();
                }));
        const uint16_t cell = n->GetCellId();
        n->GetPreTransferRole()->TraceConnectWithoutContext(
            "PreTransferUsed",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out, cell](uint64_t id, uint16_t, uint64_t tokens) {
                    out.usedAll[id].emplace_back(cell, tokens);
                }));
        n->GetTargetRole()->TraceConnectWithoutContext(
            "SessionRestored",
            compat::MakeCallback<void, uint64_t, uint16_t, Time>(
                [&out, cell](uint64_t id, uint16_t, Time delay) {
                    out.restoredAll[id].emplace_back(cell, delay.GetSeconds());
                }));
        n->GetTargetRole()->TraceConnectWithoutContext(
            "PartialRestored",
            compat::MakeCallback<void, uint64_t, uint16_t, double>(
                [&out](uint64_t id, uint16_t, double fraction) { out.fraction[id] = fraction; }));
    }
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(apps, ApplicationContainer());
    script(bs);
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    out.totals = stats->GetPreTransferTotals();
    for (uint32_t i = 1; i < bs.size(); ++i)
    {
        out.received[bs[i]->GetCellId()] = bs[i]->GetConnection(1)->GetKvBytesReceived();
    }
    out.receivedAt1 = bs[0]->GetConnection(2)->GetKvBytesReceived();
    Simulator::Destroy();
    out.totalsAfterDestroy = stats->GetPreTransferTotals();
    return out;
}

/// Store into \p into the KV bytes \p bs has received from \p peer so far.
void
ProbeKvReceived(Ptr<EdgeLlmNode> bs, uint16_t peer, uint64_t* into)
{
    *into = bs->GetConnection(peer)->GetKvBytesReceived();
}

/// Cell 1's session \p id of \p tokens: likely to \p likely at \p at, hands over to \p to at
/// \p handover.
void
Plan(const std::vector<Ptr<EdgeLlmNode>>& bs,
     uint64_t id,
     uint64_t tokens,
     uint16_t likely,
     double at,
     uint16_t to,
     double handover)
{
    bs[0]->OpenSession(id, tokens, 5);
    Simulator::Schedule(Seconds(at), &EdgeLlmNode::NotifyHandoverLikely, bs[0], id, likely);
    Simulator::Schedule(Seconds(handover), &EdgeLlmNode::NotifyHandoverStart, bs[0], id, to);
}
} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief Packet level, both transports: a right prediction commits the tokens sent ahead
 *        and the rest crosses at the handover (cHO inside: n_tx = C - P); every byte that
 *        reached the target is used, wasted or part of the rest; the restore follows the
 *        plan of the rest; a handover with nothing left restores at once.
 */
class PreTransferPacketTestCase : public TestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit PreTransferPacketTestCase(const std::string& transport)
        : TestCase("Packet level: the prefix sent ahead is committed, the rest follows the "
                   "plan; bytes conserved [" +
                   transport + "]"),
          m_transport(transport)
    {
    }

  private:
    void DoRun() override
    {
        // Session 1 (1000 tokens, 57.344 MB) is sent ahead from 10 ms at 0.5 x ~1 Gbit/s:
        // complete in about 0.93 s, before its handover at 1.5 s. Session 2 (also 1000)
        // hands over at 0.5 s, its pre-transfer half done.
        const PacketRun r = RunPacket("ns3::PreTransferScheduler",
                                      2,
                                      m_transport,
                                      edgellm::DEFAULT_KV_MEMORY_CAPACITY,
                                      [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                                          Plan(bs, 1, 1000, 2, 0.01, 2, 1.5);
                                          Plan(bs, 2, 1000, 2, 0.2, 2, 0.5);
                                      });
        NS_TEST_ASSERT_MSG_EQ(r.used.at(1), 1000, "the whole cache was sent ahead");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(1) + r.npf.at(1), 0, "nothing left at the handover");
        NS_TEST_ASSERT_MSG_LT(r.restored.at(1), 0.005, "restored on the request's arrival");
        const uint64_t p = r.used.at(2);
        NS_TEST_ASSERT_MSG_GT(p, 100, "0.3 s of a half link sent ahead");
        NS_TEST_ASSERT_MSG_LT(p, 900, "not all of it");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(2), 1000 - p, "cHO: the rest crosses, n_tx = C - P");
        NS_TEST_ASSERT_MSG_EQ(r.npf.at(2), 0, "cHO prefills nothing");
        // The rest at ~1 Gbit/s: the plan and the restore agree (5 % + 2 ms).
        const double rest = static_cast<double>(1000 - p) * BYTES_PER_TOKEN * 8 / 1e9;
        NS_TEST_ASSERT_MSG_GT(r.restored.at(2), rest, "at least the rest's wire time");
        NS_TEST_ASSERT_MSG_LT(std::abs(r.restored.at(2) - r.predicted.at(2)),
                              0.05 * r.predicted.at(2) + 0.002,
                              "the plan of the rest holds");
        // Conservation at the target: sent ahead (used + wasted) plus the rests.
        const double wasted = static_cast<double>(r.wasted.count(2) ? r.wasted.at(2) : 0) +
                              static_cast<double>(r.wasted.count(1) ? r.wasted.at(1) : 0);
        const double expected =
            static_cast<double>(1000 + p + r.ntx.at(2)) * BYTES_PER_TOKEN + wasted;
        NS_TEST_ASSERT_MSG_EQ_TOL(static_cast<double>(r.received.at(2)),
                                  expected,
                                  0.5,
                                  "every byte received is used, wasted or the rest");
        NS_TEST_ASSERT_MSG_LT(wasted, BYTES_PER_TOKEN, "only a partial token is wasted");
        NS_TEST_ASSERT_MSG_EQ(r.lost, 0, "no commit for evicted bytes");
    }

    std::string m_transport; //!< The transport under test
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level: a wrong prediction (sent ahead to cell 2, hands over to cell 3)
 *        wastes exactly what reached cell 2, dropped HoldTime after the handover, and the
 *        UE gets the plain policy's delay at cell 3.
 */
class PreTransferPacketWrongTestCase : public TestCase
{
  public:
    PreTransferPacketWrongTestCase()
        : TestCase("Packet level: a wrong prediction wastes what reached the other cell and "
                   "gives the plain delay")
    {
    }

  private:
    void DoRun() override
    {
        auto script = [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
            Plan(bs, 1, 1000, 2, 0.01, 3, 1.5);
        };
        const PacketRun r = RunPacket("ns3::PreTransferScheduler",
                                      3,
                                      "Tcp",
                                      edgellm::DEFAULT_KV_MEMORY_CAPACITY,
                                      script);
        NS_TEST_ASSERT_MSG_EQ(r.used.count(1), 0, "nothing used at cell 3");
        NS_TEST_ASSERT_MSG_EQ(r.received.at(2), 1000 * BYTES_PER_TOKEN, "all of it reached 2");
        NS_TEST_ASSERT_MSG_EQ(r.wasted.at(1), r.received.at(2), "and all of it is waste");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.wastedAt.at(1), 2.5, 0.01, "dropped HoldTime after tau");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(1), 1000, "cHO: the whole cache crosses to 3");
        const PacketRun plain = RunPacket(
            "ns3::ChoScheduler",
            3,
            "Tcp",
            edgellm::DEFAULT_KV_MEMORY_CAPACITY,
            [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                bs[0]->OpenSession(1, 1000, 5);
                Simulator::Schedule(Seconds(1.5), &EdgeLlmNode::NotifyHandoverStart, bs[0], 1, 3);
            });
        NS_TEST_ASSERT_MSG_EQ_TOL(r.restored.at(1),
                                  plain.restored.at(1),
                                  0.001,
                                  "the plain policy's delay");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level: a likely handover noticed before the session exists at its source
 *        (a predicted crossing fires once, possibly before the prompt arrives) waits for
 *        the session and then sends its cache ahead; the same notice for a session that
 *        hands over first is forgotten.
 */
class PreTransferPacketEarlyTestCase : public TestCase
{
  public:
    PreTransferPacketEarlyTestCase()
        : TestCase("Packet level: a likely handover noticed before the session opens waits "
                   "for it")
    {
    }

  private:
    void DoRun() override
    {
        const PacketRun r = RunPacket("ns3::PreTransferScheduler",
                                      2,
                                      "Tcp",
                                      edgellm::DEFAULT_KV_MEMORY_CAPACITY,
                                      [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                                          // Session 9: noticed at 10 ms, opened at 0.2 s, hands
                                          // over at 1.5 s.
                                          Simulator::Schedule(Seconds(0.01),
                                                              &EdgeLlmNode::NotifyHandoverLikely,
                                                              bs[0],
                                                              uint64_t{9},
                                                              uint16_t{2});
                                          Simulator::Schedule(Seconds(0.2),
                                                              &EdgeLlmNode::OpenSession,
                                                              bs[0],
                                                              uint64_t{9},
                                                              uint64_t{1000},
                                                              uint32_t{5});
                                          Simulator::Schedule(Seconds(1.5),
                                                              &EdgeLlmNode::NotifyHandoverStart,
                                                              bs[0],
                                                              uint64_t{9},
                                                              uint16_t{2});
                                      });
        NS_TEST_ASSERT_MSG_EQ(r.used.count(9), 1, "sent ahead once the session existed");
        NS_TEST_ASSERT_MSG_EQ(r.used.at(9), 1000, "all of it, from 0.2 s at 0.5 Gbit/s");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(9), 0, "nothing left at the handover");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level: a full KV memory evicts the oldest pre-sent cache (traced with the
 *        bytes that had arrived, all waste); its source stops counting on it, so its
 *        handover moves the whole cache; the newer one is used.
 */
class PreTransferPacketEvictionTestCase : public TestCase
{
  public:
    PreTransferPacketEvictionTestCase()
        : TestCase("Packet level: a full KV memory evicts the oldest; its UE moves its whole "
                   "cache")
    {
    }

  private:
    void DoRun() override
    {
        // Room for 1.5 caches: session 2's reservation at 1.2 s evicts session 1's (sent
        // completely by then).
        const PacketRun r = RunPacket(
            "ns3::PreTransferScheduler",
            2,
            "Tcp",
            static_cast<uint64_t>(1500 * BYTES_PER_TOKEN),
            [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                Plan(bs, 1, 1000, 2, 0.01, 2, 2.5);
                Plan(bs, 2, 1000, 2, 1.2, 2, 3.5);
                // The trigger repeats (an A3 report every 240
                // ms): not sent again where it was evicted.
                Simulator::Schedule(Seconds(1.8), &EdgeLlmNode::NotifyHandoverLikely, bs[0], 1, 2);
            });
        NS_TEST_ASSERT_MSG_EQ(r.evicted.at(1), 1000 * BYTES_PER_TOKEN, "evicted, all arrived");
        NS_TEST_ASSERT_MSG_EQ(r.wasted.at(1), 1000 * BYTES_PER_TOKEN, "all of it waste, once");
        NS_TEST_ASSERT_MSG_EQ(r.used.count(1), 0, "nothing of it used");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(1), 1000, "its handover moves the whole cache");
        NS_TEST_ASSERT_MSG_EQ(r.used.at(2), 1000, "the newer one is used");
        NS_TEST_ASSERT_MSG_EQ(r.ntx.at(2), 0, "nothing left of it");
        NS_TEST_ASSERT_MSG_EQ(r.lost, 0, "no commit for evicted bytes");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level ping-pong between two cells: 1 -> 2 -> 1, each handover predicted and
 *        its whole cache sent ahead (the second from cell 2, of the session cell 2 restored):
 *        both restore on the request's arrival, the cache crosses once each way, nothing
 *        is wasted; a third trigger back to 2 that no handover follows sends the cache
 *        there again, held (not waste while cell 1 serves the session). Triggers back to
 *        the cell just left less than PingPongTime (1 s) after the handover send nothing.
 */
class PreTransferPacketPingPongTestCase : public TestCase
{
  public:
    PreTransferPacketPingPongTestCase()
        : TestCase("Packet level: ping-pong 1 -> 2 -> 1 uses both prefixes; bytes by hand")
    {
    }

  private:
    void DoRun() override
    {
        uint64_t probe[2]{1, 1};
        const PacketRun r = RunPacket(
            "ns3::PreTransferScheduler",
            2,
            "Tcp",
            edgellm::DEFAULT_KV_MEMORY_CAPACITY,
            [&probe](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                Plan(bs, 7, 1000, 2, 0.01, 2, 1.5);
                // Back to 1 at 0.1 s and 0.99 s after the handover at 1.5 s: ignored.
                for (double at : {1.6, 2.49, 2.52})
                {
                    Simulator::Schedule(Seconds(at),
                                        &EdgeLlmNode::NotifyHandoverLikely,
                                        bs[1],
                                        7,
                                        1);
                }
                Simulator::Schedule(Seconds(2.51), &ProbeKvReceived, bs[0], uint16_t{2}, &probe[0]);
                Simulator::Schedule(Seconds(4.0), &EdgeLlmNode::NotifyHandoverStart, bs[1], 7, 1);
                Simulator::Schedule(Seconds(4.1), &EdgeLlmNode::NotifyHandoverLikely, bs[0], 7, 2);
                Simulator::Schedule(Seconds(5.0), &ProbeKvReceived, bs[1], uint16_t{1}, &probe[1]);
                Simulator::Schedule(Seconds(5.1), &EdgeLlmNode::NotifyHandoverLikely, bs[0], 7, 2);
            });
        NS_TEST_ASSERT_MSG_EQ(probe[0], 0, "2 -> 1: nothing before PingPongTime ended");
        NS_TEST_ASSERT_MSG_EQ(probe[1], 1000 * BYTES_PER_TOKEN, "1 -> 2: only the first cache");
        const auto& used = r.usedAll.at(7);
        NS_TEST_ASSERT_MSG_EQ(used.size(), 2, "two handovers used bytes sent ahead");
        NS_TEST_ASSERT_MSG_EQ(used.at(0).first, 2, "first at cell 2");
        NS_TEST_ASSERT_MSG_EQ(used.at(0).second, 1000, "the whole cache");
        NS_TEST_ASSERT_MSG_EQ(used.at(1).first, 1, "then back at cell 1");
        NS_TEST_ASSERT_MSG_EQ(used.at(1).second, 1005, "its 1000 tokens and the 5 cell 2 decoded");
        const auto& restored = r.restoredAll.at(7);
        NS_TEST_ASSERT_MSG_EQ(restored.size(), 2, "restored twice");
        for (const auto& [cell, delay] : restored)
        {
            NS_TEST_ASSERT_MSG_LT(delay, 0.005, "at cell " << cell << ": nothing left");
        }
        // Cell 2 -> 1 carried the second cache once; cell 1 -> 2 the first and the third
        // trigger's, which no handover used.
        const double second = used.at(1).second * BYTES_PER_TOKEN;
        NS_TEST_ASSERT_MSG_EQ(r.receivedAt1, second, "2 -> 1: the cache once");
        NS_TEST_ASSERT_MSG_EQ(r.wasted.count(7), 0, "nothing wasted while cell 1 serves it");
        NS_TEST_ASSERT_MSG_EQ(r.received.at(2),
                              1000 * BYTES_PER_TOKEN + second,
                              "1 -> 2: the first cache, and the third trigger's (held at 2)");
        NS_TEST_ASSERT_MSG_EQ(r.lost, 0, "no commit for evicted bytes");
        // The run's totals: every byte sent ahead used or still held at the stop.
        for (const auto& t : {r.totals, r.totalsAfterDestroy})
        {
            NS_TEST_ASSERT_MSG_EQ(t.usedBytes, 1000 * BYTES_PER_TOKEN + second, "both used");
            NS_TEST_ASSERT_MSG_EQ(t.heldBytes, second, "the third held at cell 2");
            NS_TEST_ASSERT_MSG_EQ(t.wastedBytes, 0, "none wasted");
            NS_TEST_ASSERT_MSG_EQ(t.inFlightBytes, 0, "none on the way");
            NS_TEST_ASSERT_MSG_EQ(t.sentBytes, t.usedBytes + t.heldBytes, "sent = used + held");
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level with ImpactHO inside: the cache goes ahead in importance order (512-byte
 *        entries, each with its 3-byte coordinate), the entries committed count as received
 *        (a whole cache sent ahead resumes at once with all of it), the rest follows in
 *        ImpactHO's slots and takes the pre-sent bytes' wire time off the plain ImpactHO
 *        delay; a wrong prediction wastes exactly what crossed; wire bytes conserved.
 */
class PreTransferPacketImpactHoTestCase : public TestCase
{
  public:
    PreTransferPacketImpactHoTestCase()
        : TestCase("Packet level, ImpactHO inside: entries sent ahead count as received; the rest "
                   "in slots; waste and wire bytes by hand")
    {
    }

  private:
    void DoRun() override
    {
        // An entry: K and V of one (layer, head, token), 2 x 128 x 2 bytes; 112 per token.
        constexpr double ENTRY = 512;
        constexpr double WIRE_PER_TOKEN = BYTES_PER_TOKEN * (ENTRY + 3) / ENTRY; // 57,680 B
        // Session 1 (1000 tokens) goes ahead from 10 ms, complete before its handover at
        // 1.5 s; session 2 (1000) hands over at 0.5 s, part of it ahead; session 3 (500) is
        // sent ahead to cell 3 but hands over to cell 2 at 2 s.
        auto script = [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
            Plan(bs, 1, 1000, 2, 0.01, 2, 1.5);
            Plan(bs, 2, 1000, 2, 0.2, 2, 0.5);
            Plan(bs, 3, 500, 3, 0.01, 2, 2.0);
        };
        const PacketRun r = RunPacket("ns3::PreTransferScheduler",
                                      3,
                                      "Tcp",
                                      edgellm::DEFAULT_KV_MEMORY_CAPACITY,
                                      script,
                                      "ns3::ImpactHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.used.at(1), 1000, "the whole cache went ahead");
        NS_TEST_ASSERT_MSG_EQ(r.fraction.at(1), 1.0, "all of it counts as received");
        NS_TEST_ASSERT_MSG_LT(r.restored.at(1), 0.005, "restored on the request's arrival");
        const uint64_t p = r.used.at(2); // whole tokens' worth of entries ahead
        NS_TEST_ASSERT_MSG_GT(p, 50, "0.3 s of a quarter link went ahead");
        NS_TEST_ASSERT_MSG_LT(p, 900, "not all of it");
        NS_TEST_ASSERT_MSG_EQ(r.fraction.at(2), 1.0, "ahead + the rest in the window = all");
        // The rest, C - P (P in [p, p + 1) tokens), at ~1 Gbit/s in ImpactHO's 100 ms slots
        // from the handover (at a slot boundary).
        const double restLow = (1000.0 - p - 1) * WIRE_PER_TOKEN * 8 / 1e9;
        const double restHigh = (1000.0 - p) * WIRE_PER_TOKEN * 8 / 1e9 / 0.95;
        NS_TEST_ASSERT_MSG_GT(r.restored.at(2), restLow, "at least the rest's wire time");
        NS_TEST_ASSERT_MSG_LT(r.restored.at(2), restHigh + 0.005, "about the rest's wire time");
        // Plain ImpactHO on the same handovers: the whole cache crosses after the handover.
        const PacketRun plain = RunPacket(
            "ns3::ImpactHoScheduler",
            3,
            "Tcp",
            edgellm::DEFAULT_KV_MEMORY_CAPACITY,
            [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                bs[0]->OpenSession(2, 1000, 5);
                Simulator::Schedule(Seconds(0.5), &EdgeLlmNode::NotifyHandoverStart, bs[0], 2, 2);
            });
        NS_TEST_ASSERT_MSG_GT(plain.restored.at(2) - r.restored.at(2),
                              0.9 * static_cast<double>(p) * WIRE_PER_TOKEN * 8 / 1e9,
                              "the entries ahead take their wire time off the delay");
        // Session 3: everything that reached cell 3 is waste, bytes as they crossed.
        NS_TEST_ASSERT_MSG_EQ(r.received.at(3), 500 * WIRE_PER_TOKEN, "all of it reached 3");
        NS_TEST_ASSERT_MSG_EQ(r.wasted.at(3), r.received.at(3), "and all of it is waste");
        NS_TEST_ASSERT_MSG_EQ(r.fraction.at(3), 1.0, "its whole cache crossed to 2");
        NS_TEST_ASSERT_MSG_EQ(r.used.count(3), 0, "nothing of it used");
        // Cell 2: the three caches once each (ahead or after), nothing wasted there.
        NS_TEST_ASSERT_MSG_EQ(r.received.at(2), 2500 * WIRE_PER_TOKEN, "each entry once");
        NS_TEST_ASSERT_MSG_EQ(r.wasted.count(1) + r.wasted.count(2), 0, "no partial token");
        NS_TEST_ASSERT_MSG_EQ(r.lost, 0, "no commit for evicted bytes");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Packet level on a star (every path two hops over shared site links): a
 *        pre-transfer yields to handover transfers on every link of its path, not only on
 *        its own connection: to another source's transfer into its target (the target's
 *        PRE_TRANSFER_PAUSE) and to its own source's transfer to another target (the
 *        source's uplink). Either way the handover's plan at the full 1 Gbit/s holds (5 % +
 *        3 ms), where a pre-transfer yielding on its own connection only makes it 57 ms
 *        (12 %) late (checked by disabling the pause), and the pre-transfer still completes
 *        before its own handover.
 */
class PreTransferPacketStarTestCase : public TestCase
{
  public:
    PreTransferPacketStarTestCase()
        : TestCase("Packet level, star: pre-transfers pause for handover transfers on any link "
                   "of their path")
    {
    }

  private:
    void DoRun() override
    {
        // Another source: cell 2 sends session 20 ahead to cell 3 from 10 ms; cell 1 moves
        // session 10 (57.3 MB, cHO: the whole cache, about 0.46 s at 1 Gbit/s) to cell 3 at
        // 0.3 s, into cell 3's link.
        const PacketRun other = RunPacket(
            "ns3::PreTransferScheduler",
            3,
            "Tcp",
            edgellm::DEFAULT_KV_MEMORY_CAPACITY,
            [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                bs[1]->OpenSession(20, 1000, 5);
                Simulator::Schedule(Seconds(0.01),
                                    &EdgeLlmNode::NotifyHandoverLikely,
                                    bs[1],
                                    20,
                                    3);
                Simulator::Schedule(Seconds(2.5), &EdgeLlmNode::NotifyHandoverStart, bs[1], 20, 3);
                bs[0]->OpenSession(10, 1000, 5);
                Simulator::Schedule(Seconds(0.3), &EdgeLlmNode::NotifyHandoverStart, bs[0], 10, 3);
            },
            "ns3::ChoScheduler",
            true);
        const double planned = other.predicted.at(10);
        NS_TEST_ASSERT_MSG_GT(planned, 0.45, "the whole cache at about 1 Gbit/s");
        NS_TEST_ASSERT_MSG_LT(std::abs(other.restored.at(10) - planned),
                              0.05 * planned + 0.003,
                              "the plan holds: cell 2's bytes ahead paused (target's PAUSE)");
        NS_TEST_ASSERT_MSG_EQ(other.used.at(20), 1000, "cell 2's pre-transfer completes later");
        // Its own source: cell 1 sends session 11 ahead to cell 2 and moves session 12 to
        // cell 3 at 0.3 s, both through cell 1's link.
        const PacketRun own = RunPacket(
            "ns3::PreTransferScheduler",
            3,
            "Tcp",
            edgellm::DEFAULT_KV_MEMORY_CAPACITY,
            [](const std::vector<Ptr<EdgeLlmNode>>& bs) {
                Plan(bs, 11, 1000, 2, 0.01, 2, 2.5);
                bs[0]->OpenSession(12, 1000, 5);
                Simulator::Schedule(Seconds(0.3), &EdgeLlmNode::NotifyHandoverStart, bs[0], 12, 3);
            },
            "ns3::ChoScheduler",
            true);
        NS_TEST_ASSERT_MSG_LT(std::abs(own.restored.at(12) - own.predicted.at(12)),
                              0.05 * own.predicted.at(12) + 0.003,
                              "the plan holds: the source's own bytes ahead paused");
        NS_TEST_ASSERT_MSG_EQ(own.used.at(11), 1000, "its pre-transfer completes later");
        NS_TEST_ASSERT_MSG_EQ(own.lost + other.lost, 0, "no commit for evicted bytes");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Proactive KV pre-transfer: flow level and packet level.
 */
class EdgeLlmPreTransferTestSuite : public TestSuite
{
  public:
    EdgeLlmPreTransferTestSuite()
        : TestSuite("edge-llm-pre-transfer", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new PreTransferTailTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferWrongTargetTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferMemoryTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPingPongTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferShareTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferRoadTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferInputTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferAskedTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferImpactHoTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketTestCase("Tcp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketTestCase("Udp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketWrongTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketEvictionTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketEarlyTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketPingPongTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketImpactHoTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new PreTransferPacketStarTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// The suite's one instance.
static EdgeLlmPreTransferTestSuite g_edgeLlmPreTransferTestSuite;
