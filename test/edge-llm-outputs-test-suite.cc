/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/edge-llm-run-progress.h"
#include "../examples/studies/road-handover-scenario.h"
#include "edge-llm-test-util.h"

#include "ns3/backhaul-monitor.h"
#include "ns3/config.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/edge-llm-ue-app.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/llm-model-profile.h"
#include "ns3/node-list.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/test.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

/**
 * \file
 * \ingroup edge-llm-tests
 * The reusable outputs of a backhaul study (issue 11, item 4): EdgeLlmSessionStats (one
 * record per handover, from the BSs' and UEs' traces) and BackhaulMonitor (per link
 * direction: utilization, KV bytes, queue occupancy, drops, queueing delay). Every
 * expected value is computed by hand from the link rate, the packet sizes and the
 * transfer/prefill formulas, or read from ns-3's own counters (QueueDisc::GetStats).
 */

namespace
{

constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

/// Context of the session the session-stats tests move, tokens.
constexpr uint64_t CONTEXT = 300;
/// Backhaul link rate of the session-stats tests, bit/s.
constexpr double LINK_RATE = 1e9;
/// Its one-way propagation delay, s.
constexpr double LINK_DELAY = 100e-6;

/// \return the KV bytes per token of qwen2.5-7b (28 layers x 2 x 4 heads x 128 x 2 B)
uint64_t
BytesPerToken()
{
    return LlmModelProfile::FromPreset("qwen2.5-7b-instruct").BytesPerToken();
}

/// \return the shortest time one hop moves \p tokens' KV cache in: S 8 / R + d, s
double
HopTime(uint64_t tokens)
{
    return static_cast<double>(tokens * BytesPerToken()) * 8.0 / LINK_RATE + LINK_DELAY;
}

/// Upper slack of one cHO hop: headers (0.6 % at MTU 9000) and the control messages, s.
double
Slack(uint64_t tokens)
{
    return 0.006 * HopTime(tokens) + 0.002;
}

/// \return the session-stats tests' link: LINK_RATE, MTU 9000, LINK_DELAY
PointToPointHelper
TestLink()
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(LINK_RATE))));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(LINK_DELAY)));
    return p2p;
}

/// A handover the test triggers: at \p time, cell \p from hands session 1 to \p to.
struct Move
{
    double time;   //!< s
    uint16_t from; //!< Cell that calls NotifyHandoverStart
    uint16_t to;   //!< Its target
};

/**
 * \p n BSs (cells 1..n, GatherTime 0, \p scheduler) joined by 1 Gbit/s, 100 us, MTU 9000
 * point-to-point links in \p edges; cell 1 holds session 1 (a 300-token context, 5 tokens
 * to decode after a handover); \p moves are applied; 2 s are simulated. \p setup runs
 * before the simulation (e.g. attributes of the nodes).
 * \return the stats, read before Simulator::Destroy
 */
Ptr<EdgeLlmSessionStats>
RunSessions(const std::string& scheduler,
            uint32_t n,
            const std::vector<std::pair<uint16_t, uint16_t>>& edges,
            const std::vector<Move>& moves,
            const std::map<uint16_t, Time>& transferTimeout = {},
            Time batchPeriod = MilliSeconds(10))
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(n);
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p = TestLink();
    Ipv4AddressHelper addr("10.40.0.0", "255.255.255.252");
    for (const auto& [a, b] : edges)
    {
        addr.Assign(p2p.Install(nodes.Get(a - 1), nodes.Get(b - 1)));
        addr.NewNetwork();
    }
    EdgeLlmHelper edge;
    edge.SetSchedulerType(scheduler);
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0)));
    edge.SetPrefillEngineAttribute("BatchPeriod", TimeValue(batchPeriod));
    std::vector<uint16_t> cells;
    for (uint32_t i = 0; i < n; ++i)
    {
        cells.push_back(static_cast<uint16_t>(i + 1));
    }
    ApplicationContainer apps = edge.InstallBs(nodes, cells);
    edge.ConnectBackhaul(apps);
    auto bs = [&apps](uint16_t cell) { return DynamicCast<EdgeLlmNode>(apps.Get(cell - 1)); };
    for (const auto& [cell, timeout] : transferTimeout)
    {
        bs(cell)->GetTargetRole()->SetAttribute("TransferTimeout", TimeValue(timeout));
    }
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(apps, ApplicationContainer());
    bs(1)->OpenSession(1, CONTEXT, 5);
    for (const Move& m : moves)
    {
        Simulator::Schedule(Seconds(m.time),
                            &EdgeLlmNode::NotifyHandoverStart,
                            bs(m.from),
                            1,
                            m.to);
    }
    apps.Start(Seconds(0));
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    Simulator::Destroy();
    return stats;
}

/// \return the lines of \p text
std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
    {
        lines.push_back(line);
    }
    return lines;
}

/// \return the comma-separated fields of \p line
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> fields;
    std::string field;
    std::istringstream in(line);
    while (std::getline(in, field, ','))
    {
        fields.push_back(field);
    }
    if (!line.empty() && line.back() == ',')
    {
        fields.emplace_back();
    }
    return fields;
}

/// \return a fresh empty directory under the system's temporary directory
std::string
TempDir(const std::string& name)
{
    return edgellmtest::FreshTempDir("outputs-" + name);
}

/// What RunUeHandovers saw.
struct UeRun
{
    Ptr<EdgeLlmSessionStats> stats; //!< The session stats of both BSs and the UE
    std::vector<double> tokenTimes; //!< When cell 1 decoded each token, s (index 0: first)
    uint64_t kvBytesAtCell2{0};     //!< KV bytes cell 2 received (KvTransferReceived)
    /// Both BSs' StateTransition traces in time order, as "cell:session:OLD>NEW"
    std::vector<std::string> transitions;
};

/**
 * A UE (EdgeLlmUeApp, session 7, 300-token prompt, \p maxNewTokens) linked to both BSs
 * (cells 1, 2; cHO) by point-to-point links, streaming from cell 1 from 50 ms, hands over
 * 1 -> 2 at 302.5 ms and back 2 -> 1 at 902.5 ms; 2.5 s are simulated.
 * \param maxNewTokens the UE's MaxNewTokens
 * \param dropFromCell2 the UE's device on cell 2's link drops the first this many packets
 *        it receives (cell 2's first tokens: lost on the way)
 * \param silentSession also session 8 on cell 1 (300 tokens of context, 500 to decode) with
 *        no UE application, handed over 1 -> 2 with session 7: its record has no stall
 */
UeRun
RunUeHandovers(uint32_t maxNewTokens, uint32_t dropFromCell2 = 0, bool silentSession = false)
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes; // BS 1, BS 2, UE
    nodes.Create(3);
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p = TestLink();
    Ipv4AddressHelper addr("10.60.0.0", "255.255.255.252");
    addr.Assign(p2p.Install(nodes.Get(0), nodes.Get(1)));
    addr.NewNetwork();
    const Ipv4InterfaceContainer ue1 = addr.Assign(p2p.Install(nodes.Get(0), nodes.Get(2)));
    addr.NewNetwork();
    const NetDeviceContainer link2 = p2p.Install(nodes.Get(1), nodes.Get(2));
    addr.Assign(link2);
    if (dropFromCell2 > 0)
    {
        std::list<uint32_t> first;
        for (uint32_t i = 0; i < dropFromCell2; ++i)
        {
            first.push_back(i);
        }
        Ptr<ReceiveListErrorModel> drop = CreateObject<ReceiveListErrorModel>();
        drop->SetList(first);
        link2.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(drop));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    EdgeLlmHelper edge;
    edge.SetSchedulerType("ns3::ChoScheduler");
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0)));
    ApplicationContainer bsApps = edge.InstallBs(NodeContainer(nodes.Get(0), nodes.Get(1)), {1, 2});
    edge.ConnectBackhaul(bsApps);
    Ptr<EdgeLlmUeApp> ue = CreateObject<EdgeLlmUeApp>();
    ue->SetAttribute("SessionId", UintegerValue(7));
    ue->SetAttribute("ServerAddress", Ipv4AddressValue(ue1.GetAddress(0)));
    ue->SetAttribute("PromptTokens", UintegerValue(300));
    ue->SetAttribute("MaxNewTokens", UintegerValue(maxNewTokens));
    nodes.Get(2)->AddApplication(ue);
    UeRun run;
    run.stats = CreateObject<EdgeLlmSessionStats>();
    run.stats->Install(bsApps, ApplicationContainer(ue));
    auto bs = [&bsApps](uint16_t cell) { return DynamicCast<EdgeLlmNode>(bsApps.Get(cell - 1)); };
    bs(1)->TraceConnectWithoutContext("TokenDecoded",
                                      compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                                          [&run](uint64_t, uint16_t, uint64_t) {
                                              run.tokenTimes.push_back(
                                                  Simulator::Now().GetSeconds());
                                          }));
    bs(2)->GetTargetRole()->TraceConnectWithoutContext(
        "KvTransferReceived",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [&run](uint64_t, uint16_t, uint64_t bytes) { run.kvBytesAtCell2 += bytes; }));
    for (uint16_t cell : {1, 2})
    {
        bs(cell)->TraceConnectWithoutContext(
            "StateTransition",
            compat::MakeCallback<void,
                                 uint64_t,
                                 uint16_t,
                                 EdgeLlmNode::SessionState,
                                 EdgeLlmNode::SessionState>([&run](uint64_t id,
                                                                   uint16_t cellId,
                                                                   EdgeLlmNode::SessionState from,
                                                                   EdgeLlmNode::SessionState to) {
                run.transitions.push_back(std::to_string(cellId) + ":" + std::to_string(id) + ":" +
                                          EdgeLlmNode::ToString(from) + ">" +
                                          EdgeLlmNode::ToString(to));
            }));
    }
    Simulator::Schedule(Seconds(0.3025), &EdgeLlmNode::NotifyHandoverStart, bs(1), 7, 2);
    Simulator::Schedule(Seconds(0.9025), &EdgeLlmNode::NotifyHandoverStart, bs(2), 7, 1);
    if (silentSession)
    {
        bs(1)->OpenSession(8, 300, 500);
        Simulator::Schedule(Seconds(0.3025), &EdgeLlmNode::NotifyHandoverStart, bs(1), 8, 2);
    }
    bsApps.Start(Seconds(0));
    ue->SetStartTime(Seconds(0.05));
    Simulator::Stop(Seconds(2.5));
    Simulator::Run();
    Simulator::Destroy();
    return run;
}

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief EdgeLlmDelaySummary by hand: mean, the nearest-rank p95 (the ceil(0.95 n)-th
 *        smallest: n = 20 gives the 19th, n = 21 the 20th, n < 20 the largest), and a
 *        NaN sample makes mean, p95 and worst unknown, never smaller.
 */
class DelaySummaryTestCase : public TestCase
{
  public:
    DelaySummaryTestCase()
        : TestCase("delay summary: mean, nearest-rank p95, worst; NaN makes it unknown")
    {
    }

  private:
    void DoRun() override
    {
        const EdgeLlmDelaySummary none = EdgeLlmDelaySummary::Of({});
        NS_TEST_EXPECT_MSG_EQ(none.count, 0u, "no sample");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(none.mean) && std::isnan(none.p95) &&
                                  std::isnan(none.worst),
                              true,
                              "no sample: unknown");
        std::vector<double> v;
        for (int i = 20; i >= 1; --i)
        {
            v.push_back(i); // 20, 19, ..., 1: any order
        }
        EdgeLlmDelaySummary s = EdgeLlmDelaySummary::Of(v);
        NS_TEST_EXPECT_MSG_EQ(s.count, 20u, "count");
        NS_TEST_EXPECT_MSG_EQ_TOL(s.mean, 10.5, 1e-12, "mean of 1..20");
        NS_TEST_EXPECT_MSG_EQ(s.p95, 19.0, "n = 20: ceil(19) = 19th smallest");
        NS_TEST_EXPECT_MSG_EQ(s.worst, 20.0, "worst");
        v.push_back(21);
        s = EdgeLlmDelaySummary::Of(v);
        NS_TEST_EXPECT_MSG_EQ(s.p95, 20.0, "n = 21: ceil(19.95) = 20th smallest");
        v.resize(19); // 20..2
        s = EdgeLlmDelaySummary::Of(v);
        NS_TEST_EXPECT_MSG_EQ(s.p95, 20.0, "n = 19: ceil(18.05) = 19th, the largest");
        s = EdgeLlmDelaySummary::Of({0.25});
        NS_TEST_EXPECT_MSG_EQ(s.p95, 0.25, "n = 1: the sample");
        s = EdgeLlmDelaySummary::Of({1.0, NaN, 3.0});
        NS_TEST_EXPECT_MSG_EQ(s.count, 3u, "the unknown sample counts");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(s.mean), true, "mean unknown");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(s.p95), true, "p95 unknown");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(s.worst), true, "worst unknown, not 3");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Two handovers of one session over a full mesh of 3 cells, cHO (the whole cache
 *        crosses the backhaul): 1 -> 2 at 10 ms, 2 -> 3 at 500 ms. Two records, each
 *        keyed by its handover time; n_pf = 0, n_tx = the context (300 tokens, then 305:
 *        the 5 tokens decoded at cell 2 by then), KV bytes n_tx x 57,344 expected and
 *        received, restored delay in [S 8 / R + d, + slack], bound "transfer". Then the
 *        CSV, written whole and read back.
 */
class TwoHandoversTestCase : public TestCase
{
  public:
    TwoHandoversTestCase()
        : TestCase("session stats: one record per handover, cHO values by hand, CSV")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<EdgeLlmSessionStats> stats = RunSessions("ns3::ChoScheduler",
                                                     3,
                                                     {{1, 2}, {2, 3}, {1, 3}},
                                                     {{0.010, 1, 2}, {0.500, 2, 3}});
        const auto& r = stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), 2u, "one record per handover");
        const uint64_t contexts[] = {CONTEXT, CONTEXT + 5};
        const double times[] = {0.010, 0.500};
        const uint16_t from[] = {1, 2};
        const uint16_t to[] = {2, 3};
        for (std::size_t i = 0; i < 2; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(r[i].sessionId, 1u, "session");
            NS_TEST_EXPECT_MSG_EQ(r[i].sourceCellId, from[i], "source " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].targetCellId, to[i], "target " << i);
            NS_TEST_EXPECT_MSG_EQ_TOL(r[i].handoverTime, times[i], 1e-12, "handover time " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].contextTokens, contexts[i], "context " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].planned, true, "planned " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].prefillTokens, 0u, "cHO prefills nothing " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].transferTokens, contexts[i], "cHO sends all " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].kvBytesExpected,
                                  contexts[i] * 57344,
                                  "n_tx x 57,344 B " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].kvBytesReceived, contexts[i] * 57344, "received " << i);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r[i].restoredDelay,
                                        HopTime(contexts[i]),
                                        "no faster than the link " << i);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r[i].restoredDelay,
                                        HopTime(contexts[i]) + Slack(contexts[i]),
                                        "the link plus overheads " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].bound, "transfer", "bound " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].GetOutcomeName(), "restored", "outcome " << i);
            NS_TEST_EXPECT_MSG_EQ(std::isnan(r[i].ueDelay), true, "no UE app: unknown");
        }
        NS_TEST_EXPECT_MSG_EQ(stats->CountOutcome(EdgeLlmHandoverRecord::RESTORED), 2u, "two");
        const EdgeLlmDelaySummary d = stats->SummarizeRestoredDelay();
        NS_TEST_EXPECT_MSG_EQ(d.count, 2u, "two delays");
        NS_TEST_EXPECT_MSG_EQ(d.worst,
                              std::max(r[0].restoredDelay, r[1].restoredDelay),
                              "worst of the two");
        NS_TEST_EXPECT_MSG_EQ_TOL(d.mean,
                                  (r[0].restoredDelay + r[1].restoredDelay) / 2,
                                  1e-15,
                                  "mean of the two");

        const std::string dir = TempDir("stats");
        const std::string path = dir + "/handovers.csv";
        stats->WriteCsv(path);
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        NS_TEST_EXPECT_MSG_EQ(text.str(), stats->GetCsv(), "the file is the CSV");
        NS_TEST_EXPECT_MSG_EQ(std::filesystem::exists(path + ".tmp"), false, "no temp file");
        const auto lines = Lines(text.str());
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 3u, "header and two records");
        const auto header = Fields(lines[0]);
        const auto first = Fields(lines[1]);
        NS_TEST_ASSERT_MSG_EQ(first.size(), header.size(), "as many fields as columns");
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < header.size(); ++c)
        {
            row[header[c]] = first[c];
        }
        NS_TEST_EXPECT_MSG_EQ(row["session_id"], "1", "session");
        NS_TEST_EXPECT_MSG_EQ(row["source_cell"], "1", "source");
        NS_TEST_EXPECT_MSG_EQ(row["target_cell"], "2", "target");
        NS_TEST_EXPECT_MSG_EQ(row["handover_s"], "0.01", "handover time");
        NS_TEST_EXPECT_MSG_EQ(row["transfer_tokens"], "300", "n_tx");
        NS_TEST_EXPECT_MSG_EQ(row["kv_bytes_received"], "17203200", "300 x 57,344 B");
        NS_TEST_EXPECT_MSG_EQ(row["measured_delay_s"], "", "unknown: an empty field, never nan");
        NS_TEST_EXPECT_MSG_EQ(row["tokens_missing"], "", "no stall: no count either");
        NS_TEST_EXPECT_MSG_EQ(row["bound"], "transfer", "bound");
        NS_TEST_EXPECT_MSG_EQ(row["outcome"], "restored", "outcome");
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief tHO (the target prefills the whole context), T_c = 0: the restored delay is
 *        the request's trip (d plus its transmission, under 1 ms) plus p(300) =
 *        9.4267e-5 x 300 + 2.4e-3 = 30.6801 ms; n_pf = 300, n_tx = 0, no KV byte; bound
 *        "prefill", its batch started p(300) before the resume, after the request's trip.
 */
class PrefillBoundTestCase : public TestCase
{
  public:
    PrefillBoundTestCase()
        : TestCase("session stats: tHO restores in p(n_pf) plus the request's trip, prefill-bound")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<EdgeLlmSessionStats> stats =
            RunSessions("ns3::ThoScheduler", 2, {{1, 2}}, {{0.010, 1, 2}}, {}, Seconds(0));
        const auto& r = stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), 1u, "one handover");
        const double p = 9.4267e-5 * 300 + 2.4e-3;
        NS_TEST_EXPECT_MSG_EQ(r[0].prefillTokens, 300u, "n_pf: the whole context");
        NS_TEST_EXPECT_MSG_EQ(r[0].transferTokens, 0u, "n_tx = 0");
        NS_TEST_EXPECT_MSG_EQ(r[0].kvBytesExpected, 0u, "no KV byte expected");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r[0].restoredDelay, p + LINK_DELAY, "p(300) + d");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r[0].restoredDelay, p + 0.001, "p(300) + under 1 ms");
        NS_TEST_EXPECT_MSG_EQ(r[0].bound, "prefill", "prefill-bound");
        NS_TEST_EXPECT_MSG_EQ(r[0].GetOutcomeName(), "restored", "restored");
        // T_c = 0: the batch starts when the request is in and lasts p(300) to the resume.
        NS_TEST_EXPECT_MSG_EQ_TOL(r[0].batchStart + p,
                                  r[0].restoredAt.GetSeconds(),
                                  1e-9,
                                  "the batch that ended at the resume started p(300) before");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r[0].batchStart,
                                    r[0].handoverTime + LINK_DELAY,
                                    "after the request's trip");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Online prediction at packet level: tHO (n_pf = 300, no KV byte), one online
 *        batch, T_c = 10 ms, 1 Gbit/s, d = 100 us, TCP at MTU 9000. The request (8 + 68 B
 *        of headers and 300 x 4 B of token ids), the frame that ends its empty transfer
 *        (8 + 16 B) and the close message (8 + 8 B) leave in one segment with 54 B of
 *        TCP/IP/PPP headers: 1,370 B, 10.96 us, so they reach the target at tau +
 *        110.96 us. A handover at 20 ms - 115 us restores at 20 ms + p(300); one at 20 ms
 *        - 106 us at 30 ms + p(300). The prediction equals the restore on both sides (it
 *        once ignored the ids and the close message's trip: 10 ms short on the late side,
 *        and on every online batch). ctHO over TCP and UDP, KV bytes queued when the close
 *        is sent: the batch still starts on the 20 ms boundary (restore = max(20 ms +
 *        p(n_pf), last KV byte)) and within 2 ms of the prediction.
 */
class OnlinePredictionTestCase : public TestCase
{
  public:
    OnlinePredictionTestCase()
        : TestCase("session stats: online prediction counts the token ids and the batch close")
    {
    }

  private:
    void DoRun() override
    {
        const double p = 9.4267e-5 * 300 + 2.4e-3;
        const double arrival = (1322 + 70) * 8 / LINK_RATE + LINK_DELAY; // 111.136 us
        const double edge = 0.02 - arrival;
        for (const auto& [tau, start] :
             {std::pair{edge - 3.864e-6, 0.02}, std::pair{edge + 5.136e-6, 0.03}})
        {
            Ptr<EdgeLlmSessionStats> stats =
                RunSessions("ns3::ThoScheduler", 2, {{1, 2}}, {{tau, 1, 2}});
            const auto& r = stats->GetRecords();
            NS_TEST_ASSERT_MSG_EQ(r.size(), 1u, "one handover at " << tau);
            NS_TEST_EXPECT_MSG_EQ((tau + arrival < 0.02), (start == 0.02), "sides of the edge");
            NS_TEST_EXPECT_MSG_EQ(r[0].prefillTokens, 300u, "n_pf = C");
            NS_TEST_EXPECT_MSG_EQ(r[0].GetOutcomeName(), "restored", "restored at " << tau);
            NS_TEST_EXPECT_MSG_EQ_TOL(r[0].restoredDelay,
                                      start + p - tau,
                                      1e-9,
                                      "restore = t_s + p(300) - tau, tau " << tau);
            NS_TEST_EXPECT_MSG_EQ_TOL(r[0].predictedDelay,
                                      r[0].restoredDelay,
                                      1e-9,
                                      "prediction = restore, tau " << tau);
        }
        // ctHO splits the context, so KV bytes are queued in the transport when the close
        // is sent: it must still reach the target by the planned start, over TCP and over
        // the UDP transport (whose send buffer also holds the bytes in flight). A close
        // that missed the start would put the restore a whole T_c (10 ms) after the
        // prediction; the transfer's packet headers leave well under 2 ms.
        for (const std::string transport : {"Tcp", "Udp"})
        {
            Config::SetDefault("ns3::EdgeLlmBackhaulTransport::Transport", StringValue(transport));
            Ptr<EdgeLlmSessionStats> stats =
                RunSessions("ns3::CtHoScheduler", 2, {{1, 2}}, {{0.0150, 1, 2}});
            Config::SetDefault("ns3::EdgeLlmBackhaulTransport::Transport", StringValue("Tcp"));
            const auto& r = stats->GetRecords();
            NS_TEST_ASSERT_MSG_EQ(r.size(), 1u, "one handover, " << transport);
            NS_TEST_EXPECT_MSG_GT(r[0].prefillTokens, 0u, "ctHO prefills some, " << transport);
            NS_TEST_EXPECT_MSG_GT(r[0].transferTokens, 0u, "and sends some, " << transport);
            NS_TEST_EXPECT_MSG_EQ(r[0].GetOutcomeName(), "restored", "restored, " << transport);
            NS_TEST_EXPECT_MSG_EQ_TOL(r[0].restoredDelay,
                                      r[0].predictedDelay,
                                      0.002,
                                      "restore within 2 ms of the prediction, " << transport);
            // The request reaches the target ~0.11 ms after tau = 15 ms: the batch must start
            // on the 20 ms boundary, so the restore is the later of 20 ms + p(n_pf) and the
            // last KV byte (a close behind the queued KV would start it at 30 ms).
            const double p = 9.4267e-5 * static_cast<double>(r[0].prefillTokens) + 2.4e-3;
            const double expected = std::max(0.02 + p, r[0].transferDoneAt.GetSeconds());
            NS_TEST_EXPECT_MSG_EQ_TOL(r[0].restoredAt.GetSeconds(),
                                      expected,
                                      1e-6,
                                      "batch on the 20 ms boundary, " << transport);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The records of handovers that did not restore: a session lost at its second
 *        handover (link 1-2 only; 2 -> 3 has no backhaul path, so no HandoverStarted: the
 *        record is added by SessionLost), which makes the delay summary unknown (NaN),
 *        never the first handover's delay alone; a ping-pong (1 -> 2 at 10 ms, back at
 *        20 ms, before the ~138 ms transfer ends): cancelled, and left out of the summary;
 *        a transfer that hits a 50 ms TransferTimeout at the target: timed_out, its kept
 *        bytes and its delay 50 ms + p(m) by hand (m the tokens re-prefilled).
 */
class FailedHandoversTestCase : public TestCase
{
  public:
    FailedHandoversTestCase()
        : TestCase("session stats: lost, cancelled and timed-out handovers")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<EdgeLlmSessionStats> lost =
            RunSessions("ns3::ChoScheduler", 3, {{1, 2}}, {{0.010, 1, 2}, {0.500, 2, 3}});
        const auto& r = lost->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), 2u, "two handovers");
        NS_TEST_EXPECT_MSG_EQ(r[0].GetOutcomeName(), "restored", "first restored");
        NS_TEST_EXPECT_MSG_EQ(r[1].GetOutcomeName(), "lost", "second lost");
        NS_TEST_EXPECT_MSG_EQ(r[1].sourceCellId, 2u, "lost at cell 2");
        NS_TEST_EXPECT_MSG_EQ(r[1].targetCellId, 3u, "could not reach 3");
        NS_TEST_EXPECT_MSG_EQ_TOL(r[1].handoverTime, 0.500, 1e-12, "at its handover");
        NS_TEST_EXPECT_MSG_EQ(r[1].bound, "none", "never restored");
        const EdgeLlmDelaySummary d = lost->SummarizeRestoredDelay();
        NS_TEST_EXPECT_MSG_EQ(d.count, 2u, "both count");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(d.worst), true, "worst unknown, not the first's");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(d.mean), true, "mean unknown");

        Ptr<EdgeLlmSessionStats> pingPong =
            RunSessions("ns3::ChoScheduler", 2, {{1, 2}}, {{0.010, 1, 2}, {0.020, 2, 1}});
        const auto& p = pingPong->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(p.size(), 1u, "the way back starts no handover");
        NS_TEST_EXPECT_MSG_EQ(p[0].GetOutcomeName(), "cancelled", "cancelled");
        NS_TEST_EXPECT_MSG_EQ(std::isnan(p[0].restoredDelay), true, "no delay");
        NS_TEST_EXPECT_MSG_EQ(pingPong->SummarizeRestoredDelay().count, 0u, "not summarized");

        Ptr<EdgeLlmSessionStats> timeout =
            RunSessions("ns3::ChoScheduler", 2, {{1, 2}}, {{0.010, 1, 2}}, {{2, MilliSeconds(50)}});
        const auto& t = timeout->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(t.size(), 1u, "one handover");
        NS_TEST_EXPECT_MSG_EQ(t[0].timedOut, true, "timed out");
        NS_TEST_EXPECT_MSG_EQ(t[0].GetOutcomeName(), "timed_out", "outcome");
        // In 50 ms at most 50e-3 x 1e9 / 8 = 6.25 MB arrive: 108 whole tokens, so at
        // least 192 of the 300 are re-prefilled, on their own batch, which starts at the
        // timeout (60 ms, a T_c boundary): the delay is 50 ms + p(m) = 9.4267e-5 m + 2.4e-3.
        const uint64_t m = t[0].reprefillTokens;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(m, 192u, "at most 108 tokens in 50 ms");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(m, CONTEXT, "at most all of them");
        NS_TEST_EXPECT_MSG_EQ(t[0].kvBytesReceived, (CONTEXT - m) * 57344, "the kept tokens");
        NS_TEST_EXPECT_MSG_EQ_TOL(t[0].restoredDelay,
                                  0.050 + 9.4267e-5 * m + 2.4e-3,
                                  1e-9,
                                  "timeout + p(m)");
        NS_TEST_EXPECT_MSG_EQ(t[0].bound, "prefill", "the re-prefill bounded it");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A lost prompt and EdgeLlmUeApp's PromptRetry: a UE linked to one BS (1 Gbit/s,
 *        100 us) sends its 300-token prompt at 50 ms; the BS's device drops the first packet
 *        it receives (the prompt). Without a retry no session ever opens; with PromptRetry
 *        100 ms the second copy opens it at 150 ms + the link's latency (under 1 ms of
 *        serialization), and all 20 tokens arrive. With a retry shorter than the first
 *        token's wait (5 ms against the prompt's prefill of about 31 ms, nothing dropped),
 *        the copies that follow the first are ignored: one session, 20 tokens, none twice.
 *        A UE that hands over (100 ms) before its resent prompt arrives: the BS traces
 *        HandoverWithoutSession at 100 ms and ignores the copy; one that hands over after
 *        its session opened (200 ms) is no such case.
 */
class PromptRetryTestCase : public TestCase
{
  public:
    PromptRetryTestCase()
        : TestCase("UE app: a lost prompt is resent after PromptRetry, copies are ignored")
    {
    }

  private:
    struct Outcome
    {
        std::vector<double> sessionStarts; //!< SessionStarted at the BS, s
        uint32_t tokens{0};                //!< Tokens the UE received
        uint32_t duplicated{0};            //!< Tokens it received twice or late
        uint32_t retries{0};               //!< Prompts it resent
        std::vector<double> noSession;     //!< HandoverWithoutSession at the BS, s
    };

    static Outcome Run(Time retry, bool dropFirst, Time handoverAt = Seconds(-1))
    {
        Ipv4AddressGenerator::Reset();
        NodeContainer nodes; // BS, UE
        nodes.Create(2);
        InternetStackHelper internet;
        internet.Install(nodes);
        NetDeviceContainer link = TestLink().Install(nodes.Get(0), nodes.Get(1));
        Ipv4AddressHelper addr("10.61.0.0", "255.255.255.252");
        const Ipv4InterfaceContainer ifs = addr.Assign(link);
        if (dropFirst)
        {
            Ptr<ReceiveListErrorModel> drop = CreateObject<ReceiveListErrorModel>();
            drop->SetList({0}); // the first packet the BS receives: the prompt
            link.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(drop));
        }
        EdgeLlmHelper edge;
        edge.SetSchedulerType("ns3::ChoScheduler");
        ApplicationContainer bsApps = edge.InstallBs(NodeContainer(nodes.Get(0)), {1});
        Ptr<EdgeLlmUeApp> ue = CreateObject<EdgeLlmUeApp>();
        ue->SetAttribute("SessionId", UintegerValue(7));
        ue->SetAttribute("ServerAddress", Ipv4AddressValue(ifs.GetAddress(0)));
        ue->SetAttribute("PromptTokens", UintegerValue(300));
        ue->SetAttribute("MaxNewTokens", UintegerValue(20));
        ue->SetAttribute("PromptRetry", TimeValue(retry));
        nodes.Get(1)->AddApplication(ue);
        Outcome out;
        bsApps.Get(0)->TraceConnectWithoutContext(
            "SessionStarted",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out](uint64_t, uint16_t, uint64_t) {
                    out.sessionStarts.push_back(Simulator::Now().GetSeconds());
                }));
        DynamicCast<EdgeLlmNode>(bsApps.Get(0))
            ->GetSourceRole()
            ->TraceConnectWithoutContext("HandoverWithoutSession",
                                         compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                                             [&out](uint64_t, uint16_t, uint64_t) {
                                                 out.noSession.push_back(
                                                     Simulator::Now().GetSeconds());
                                             }));
        if (!handoverAt.IsNegative())
        {
            Simulator::Schedule(handoverAt,
                                &EdgeLlmNode::NotifyHandoverStart,
                                DynamicCast<EdgeLlmNode>(bsApps.Get(0)),
                                7,
                                2);
        }
        bsApps.Start(Seconds(0));
        ue->SetStartTime(Seconds(0.05));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        out.tokens = ue->GetTokensReceived();
        out.duplicated = ue->GetTokensDuplicated();
        out.retries = ue->GetPromptRetries();
        Simulator::Destroy();
        return out;
    }

    void DoRun() override
    {
        const Outcome lost = Run(Seconds(0), true);
        NS_TEST_EXPECT_MSG_EQ(lost.sessionStarts.size(), 0u, "no retry: the lost prompt is lost");
        NS_TEST_EXPECT_MSG_EQ(lost.tokens, 0u, "no retry: no token");
        NS_TEST_EXPECT_MSG_EQ(lost.retries, 0u, "no retry: none resent");

        const Outcome resent = Run(MilliSeconds(100), true);
        NS_TEST_ASSERT_MSG_EQ(resent.sessionStarts.size(), 1u, "retry: one session");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(resent.sessionStarts[0],
                                    0.15 + LINK_DELAY,
                                    "opened by the copy sent at 150 ms");
        NS_TEST_EXPECT_MSG_LT(resent.sessionStarts[0],
                              0.15 + LINK_DELAY + 0.001,
                              "the copy's latency: the link's delay and under 1 ms on the wire");
        NS_TEST_EXPECT_MSG_EQ(resent.retries, 1u, "one copy: the first token came before 250 ms");
        NS_TEST_EXPECT_MSG_EQ(resent.tokens, 20u, "retry: every token");

        const Outcome eager = Run(MilliSeconds(5), false);
        NS_TEST_EXPECT_MSG_EQ(eager.sessionStarts.size(), 1u, "copies ignored: one session");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(eager.retries, 2u, "copies sent while the prompt prefilled");
        NS_TEST_EXPECT_MSG_EQ(eager.tokens, 20u, "every token once");
        NS_TEST_EXPECT_MSG_EQ(eager.duplicated, 0u, "no token twice");
        NS_TEST_EXPECT_MSG_EQ(eager.noSession.size(), 0u, "no handover");

        // The UE hands over at 100 ms, before the copy sent at 150 ms arrives: the BS
        // traces HandoverWithoutSession then, and the late copy opens nothing.
        const Outcome gone = Run(MilliSeconds(100), true, MilliSeconds(100));
        NS_TEST_ASSERT_MSG_EQ(gone.noSession.size(), 1u, "one HandoverWithoutSession");
        NS_TEST_EXPECT_MSG_EQ_TOL(gone.noSession[0], 0.1, 1e-12, "at the handover");
        NS_TEST_EXPECT_MSG_EQ(gone.sessionStarts.size(), 0u, "the late copy is ignored");
        NS_TEST_EXPECT_MSG_EQ(gone.tokens, 0u, "no token");
        // Handed over after the session opened: no such trace.
        const Outcome after = Run(MilliSeconds(100), true, MilliSeconds(200));
        NS_TEST_EXPECT_MSG_EQ(after.noSession.size(), 0u, "a session to hand over");
        NS_TEST_EXPECT_MSG_EQ(after.sessionStarts.size(), 1u, "opened by the copy");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The UE side: a UE (EdgeLlmUeApp, session 7) linked to both BSs by point-to-point
 *        links, streaming from cell 1, hands over 1 -> 2 at 302.5 ms and back 2 -> 1 at
 *        902.5 ms (cHO). Each Stall (from, to) lands in its own record. The stall's excess
 *        is the delay D (resume - handover) plus one decode interval T = 10 ms (the first
 *        token follows the resume by T) minus the part of the interval that had run at the
 *        handover (in (0, T]), plus the difference of the two paths' latencies (under
 *        0.5 ms): so in [D - 0.5 ms, D + T + 0.5 ms].
 */
class UeDelayTestCase : public TestCase
{
  public:
    UeDelayTestCase()
        : TestCase("session stats: the UE's stall lands in the record of its handover")
    {
    }

  private:
    void DoRun() override
    {
        const UeRun run = RunUeHandovers(150);
        const Ptr<EdgeLlmSessionStats> stats = run.stats;
        const auto& r = stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), 2u, "two handovers");
        const uint16_t from[] = {1, 2};
        for (std::size_t i = 0; i < 2; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(r[i].sessionId, 7u, "session " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].sourceCellId, from[i], "source " << i);
            NS_TEST_EXPECT_MSG_EQ(r[i].GetOutcomeName(), "restored", "restored " << i);
            NS_TEST_ASSERT_MSG_EQ(std::isnan(r[i].ueDelay), false, "the UE's delay " << i);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r[i].ueDelay,
                                        r[i].restoredDelay - 0.0005,
                                        "at least D " << i);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r[i].ueDelay,
                                        r[i].restoredDelay + 0.010 + 0.0005,
                                        "at most D + T " << i);
            NS_TEST_EXPECT_MSG_GT(r[i].ueStall, r[i].ueDelay, "the raw gap is longer " << i);
        }
        const EdgeLlmDelaySummary d = stats->SummarizeUeDelay();
        NS_TEST_EXPECT_MSG_EQ(d.worst, std::max(r[0].ueDelay, r[1].ueDelay), "worst UE delay");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief SummarizeUeDelay over a run where one restored record has no stall (session 8,
 *        with no UE application, hands over with session 7): the summary is over session
 *        7's two known delays (count 2, mean and worst by hand from the records), never
 *        NaN, and counts the record without one (unknown 1); its CSV row leaves the stall,
 *        the delay and the tokens missing empty.
 */
class UeDelayWithoutStallTestCase : public TestCase
{
  public:
    UeDelayWithoutStallTestCase()
        : TestCase("session stats: a record without a stall leaves the UE delay summary known")
    {
    }

  private:
    void DoRun() override
    {
        const UeRun run = RunUeHandovers(150, 0, true);
        const auto& r = run.stats->GetRecords();
        std::vector<double> known;
        uint32_t silent = 0;
        for (const auto& rec : r)
        {
            if (rec.sessionId == 8)
            {
                ++silent;
                NS_TEST_EXPECT_MSG_EQ(rec.GetOutcomeName(), "restored", "session 8 restored");
                NS_TEST_EXPECT_MSG_EQ(std::isnan(rec.ueStall), true, "session 8: no stall");
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(std::isnan(rec.ueDelay), false, "session 7's delay");
                known.push_back(rec.ueDelay);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(silent, 1u, "one record of session 8");
        NS_TEST_ASSERT_MSG_EQ(known.size(), 2u, "two of session 7");
        const EdgeLlmDelaySummary d = run.stats->SummarizeUeDelay();
        NS_TEST_EXPECT_MSG_EQ(d.count, 2u, "the two known delays");
        NS_TEST_EXPECT_MSG_EQ(d.unknown, 1u, "one record without a stall");
        NS_TEST_EXPECT_MSG_EQ_TOL(d.mean, (known[0] + known[1]) / 2, 1e-15, "mean of the two");
        NS_TEST_EXPECT_MSG_EQ(d.worst, std::max(known[0], known[1]), "worst of the two");
        for (const std::string& line : Lines(run.stats->GetCsv()))
        {
            if (line.rfind("8,", 0) == 0)
            {
                NS_TEST_EXPECT_MSG_NE(line.find(",,,,"),
                                      std::string::npos,
                                      "stall, delay and tokens missing empty: " << line);
            }
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Tokens lost at the UE at a handover: the UE's device on cell 2's link drops cell
 *        2's first N = 3 tokens. The record of the handover 1 -> 2 then says so
 *        (ueTokensMissing N, the CSV's tokens_missing "3"; the handover back, and a run
 *        without the drops, 0). By hand: the first token that arrives from cell 2 is N
 *        indices later and N decode intervals (T = 10 ms) later than in the run without
 *        the drops (same link, same packet size), so the raw stall grows by N T while the
 *        measured delay (arrival - index x T against the old cell's reference) stays the
 *        same, within 0.1 ms; the restore is the same.
 */
class TokensMissingTestCase : public TestCase
{
  public:
    TokensMissingTestCase()
        : TestCase("session stats: tokens lost at the UE at a handover are counted per record")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 3;
        const double decodeInterval = 0.010; // 100 tokens/s, EdgeLlmNode's default
        const UeRun whole = RunUeHandovers(150);
        const UeRun lossy = RunUeHandovers(150, n);
        const auto& w = whole.stats->GetRecords();
        const auto& l = lossy.stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(w.size(), 2u, "two handovers");
        NS_TEST_ASSERT_MSG_EQ(l.size(), 2u, "two handovers with the drops");
        NS_TEST_EXPECT_MSG_EQ(w[0].ueTokensMissing, 0u, "nothing lost: 0");
        NS_TEST_EXPECT_MSG_EQ(w[1].ueTokensMissing, 0u, "nothing lost on the way back");
        NS_TEST_EXPECT_MSG_EQ(l[0].ueTokensMissing, n, "cell 2's first N tokens lost");
        NS_TEST_EXPECT_MSG_EQ(l[1].ueTokensMissing, 0u, "the way back lost nothing");
        NS_TEST_EXPECT_MSG_EQ_TOL(l[0].restoredDelay, w[0].restoredDelay, 1e-9, "same restore");
        NS_TEST_EXPECT_MSG_EQ_TOL(l[0].ueDelay, w[0].ueDelay, 1e-4, "the time lost: the same");
        NS_TEST_EXPECT_MSG_EQ_TOL(l[0].ueStall,
                                  w[0].ueStall + n * decodeInterval,
                                  1e-4,
                                  "the raw gap: N intervals longer");
        const auto lines = Lines(lossy.stats->GetCsv());
        const auto header = Fields(lines.at(0));
        const auto first = Fields(lines.at(1));
        NS_TEST_ASSERT_MSG_EQ(first.size(), header.size(), "as many fields as columns");
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < header.size(); ++c)
        {
            row[header[c]] = first[c];
        }
        NS_TEST_EXPECT_MSG_EQ(row["tokens_missing"], "3", "the record's column");
        NS_TEST_EXPECT_MSG_EQ(Fields(lines.at(2)).at(11), "0", "the way back: 0, not empty");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Session state through one door: both BSs trace every change of the session's
 *        state (StateTransition), in the order the protocol gives by hand: cell 1
 *        prefills the prompt and streams, the UE leaves (HANDED_OVER); cell 2 creates the
 *        session RESTORING (creation is no transition) and streams once restored; the UE
 *        goes back: cell 2 hands over, cell 1 (which released its copy on the restore)
 *        restores a new one and streams until all 150 tokens are decoded (FINISHED).
 */
class StateTransitionTestCase : public TestCase
{
  public:
    StateTransitionTestCase()
        : TestCase("session state: one door, StateTransition traced at both BSs")
    {
    }

  private:
    void DoRun() override
    {
        const UeRun run = RunUeHandovers(150);
        const std::vector<std::string> expected{"1:7:PREFILLING>DECODING",
                                                "1:7:DECODING>HANDED_OVER",
                                                "2:7:RESTORING>DECODING",
                                                "2:7:DECODING>HANDED_OVER",
                                                "1:7:RESTORING>DECODING",
                                                "1:7:DECODING>FINISHED"};
        std::string seen;
        for (const auto& t : run.transitions)
        {
            seen += t + " ";
        }
        NS_TEST_ASSERT_MSG_EQ(run.transitions.size(), expected.size(), "transitions: " << seen);
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(run.transitions[i], expected[i], "transition " << i);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A UE that hands over after its session decoded every token it asked for
 *        (MaxNewTokens) needs nothing restored: no KV byte moves and its record says
 *        "after_decoding", never "restored" with an unknown UE-side delay. The boundary is
 *        found from a live run's own token times (cell 1's TokenDecoded): with k tokens
 *        decoded before the handover at 302.5 ms, MaxNewTokens = k hands over after
 *        decoding, k + 1 (a token still due) is restored as before.
 */
class HandoverAfterDecodingTestCase : public TestCase
{
  public:
    HandoverAfterDecodingTestCase()
        : TestCase("session stats: a handover after the session decoded every token")
    {
    }

  private:
    void DoRun() override
    {
        const UeRun live = RunUeHandovers(150);
        const auto k = static_cast<uint32_t>(std::count_if(live.tokenTimes.begin(),
                                                           live.tokenTimes.end(),
                                                           [](double t) { return t < 0.3025; }));
        NS_TEST_ASSERT_MSG_GT(k, 1u, "the stream had started before the handover");

        const UeRun done = RunUeHandovers(k);
        NS_TEST_EXPECT_MSG_EQ(done.tokenTimes.size(), k, "cell 1 decoded all k tokens");
        const auto& r = done.stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), 1u, "one handover recorded; none back (nothing moved)");
        NS_TEST_EXPECT_MSG_EQ(r[0].GetOutcomeName(), "after_decoding", "reported as such");
        NS_TEST_EXPECT_MSG_EQ(done.kvBytesAtCell2, 0u, "no KV byte moved");
        NS_TEST_EXPECT_MSG_EQ(done.stats->CountOutcome(EdgeLlmHandoverRecord::RESTORED),
                              0u,
                              "nothing restored");
        NS_TEST_EXPECT_MSG_EQ(done.stats->SummarizeUeDelay().count, 0u, "no delay to count");

        const UeRun due = RunUeHandovers(k + 1);
        const auto& q = due.stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(q.size(), 2u, "a token still due: both handovers");
        NS_TEST_EXPECT_MSG_EQ(q[0].GetOutcomeName(), "restored", "k + 1: restored");
        NS_TEST_EXPECT_MSG_EQ(
            due.kvBytesAtCell2,
            (300 + k) * LlmModelProfile::FromPreset("qwen2.5-7b-instruct").BytesPerToken(),
            "k + 1: the whole context moved (cHO)");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief EdgeLlmRunProgress: with a wall interval of 1 ns every check (each 100 ms of
 *        simulated time) prints one line: 9 in all up to T = 1 s (the check due at 1 s
 *        comes after Simulator::Stop(1 s), scheduled first, ends the run), the first
 *        "run: simulated 0.100 of 1.000 s, wall ..."; it schedules nothing past T; and a run
 *        whose last other event is at 0.25 s ends at the next check (0.3 s), not at T.
 */
class RunProgressTestCase : public TestCase
{
  public:
    RunProgressTestCase()
        : TestCase("run progress: a line per wall interval, ETA, never keeps a run alive")
    {
    }

  private:
    void DoRun() override
    {
        std::ostringstream out;
        {
            Simulator::Stop(Seconds(1));
            EdgeLlmRunProgress progress("run",
                                        Seconds(1),
                                        out,
                                        std::chrono::nanoseconds(1),
                                        MilliSeconds(100));
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(progress.GetLines(), 9u, "one line per check");
        }
        Simulator::Destroy();
        const std::vector<std::string> lines = Lines(out.str());
        NS_TEST_ASSERT_MSG_EQ(lines.size(), 9u, out.str());
        NS_TEST_EXPECT_MSG_EQ(lines[0].rfind("run: simulated 0.100 of 1.000 s, wall ", 0),
                              0u,
                              lines[0]);
        NS_TEST_EXPECT_MSG_NE(lines[0].find(" s, ETA "), std::string::npos, lines[0]);

        std::ostringstream quiet;
        {
            compat::Schedule(Seconds(0.25), []() {}); // ns-3.35: no lambdas in Schedule
            EdgeLlmRunProgress progress("run",
                                        Seconds(10),
                                        quiet,
                                        std::chrono::hours(1),
                                        MilliSeconds(100));
            Simulator::Run();
            NS_TEST_EXPECT_MSG_EQ(Simulator::Now(), Seconds(0.3), "ends at the next check");
            NS_TEST_EXPECT_MSG_EQ(progress.GetLines(), 0u, "a quick run prints nothing");
        }
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(quiet.str(), "", "nothing printed");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A second, independent path: the road scenario over LTE (2 UEs, ctHO, seed 1)
 *        records each UE's handover with its own hand-written trace sinks; stats
 *        installed on the same applications (at time 0, on every EdgeLlmNode and
 *        EdgeLlmUeApp of the NodeList) must give the same values UE by UE: handover time,
 *        context, n_pf, n_tx, predicted, restored and UE-side delays, bound, KV bytes.
 *        A BackhaulMonitor on the BSs' links sees the KV connection's bytes on the X2 link.
 */
class RoadCrossCheckTestCase : public TestCase
{
  public:
    RoadCrossCheckTestCase()
        : TestCase("session stats: the same values as the road scenario's own sinks (LTE)")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg;
        cfg.road.numUes = 2;
        Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
        Ptr<BackhaulMonitor> monitor = CreateObject<BackhaulMonitor>();
        auto bsNodes = std::make_shared<std::map<uint16_t, uint32_t>>(); // cell -> node id
        compat::Schedule(Seconds(0), [stats, monitor, bsNodes]() {
            ApplicationContainer bs;
            ApplicationContainer ues;
            for (auto n = NodeList::Begin(); n != NodeList::End(); ++n)
            {
                for (uint32_t a = 0; a < (*n)->GetNApplications(); ++a)
                {
                    Ptr<Application> app = (*n)->GetApplication(a);
                    if (Ptr<EdgeLlmNode> node = DynamicCast<EdgeLlmNode>(app))
                    {
                        bs.Add(app);
                        (*bsNodes)[node->GetCellId()] = (*n)->GetId();
                        monitor->Install(NodeContainer(*n)); // its X2 and S1-U links
                    }
                    else if (DynamicCast<EdgeLlmUeApp>(app))
                    {
                        ues.Add(app);
                    }
                }
            }
            stats->Install(bs, ues);
        });
        const RoadHandoverResult road = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(road.complete, true, "the road run completes");
        const auto& r = stats->GetRecords();
        NS_TEST_ASSERT_MSG_EQ(r.size(), road.ues.size(), "one record per UE (one handover each)");
        for (const auto& ue : road.ues)
        {
            const EdgeLlmHandoverRecord* rec = nullptr;
            for (const auto& x : r)
            {
                rec = x.sessionId == ue.ueId ? &x : rec;
            }
            NS_TEST_ASSERT_MSG_NE(rec, nullptr, "a record for IMSI " << ue.ueId);
            NS_TEST_EXPECT_MSG_EQ(rec->sourceCellId, road.sourceCellId, "source");
            NS_TEST_EXPECT_MSG_EQ(rec->targetCellId, road.targetCellId, "target");
            NS_TEST_EXPECT_MSG_EQ(rec->handoverTime, ue.handoverTime, "handover time");
            NS_TEST_EXPECT_MSG_EQ(rec->contextTokens, ue.contextTokens, "context");
            NS_TEST_EXPECT_MSG_EQ(rec->prefillTokens, ue.prefillTokens, "n_pf");
            NS_TEST_EXPECT_MSG_EQ(rec->transferTokens, ue.transferTokens, "n_tx");
            NS_TEST_EXPECT_MSG_EQ(rec->predictedDelay, ue.predictedDelay, "predicted");
            NS_TEST_EXPECT_MSG_EQ(rec->restoredDelay, ue.restoredDelay, "restored");
            NS_TEST_EXPECT_MSG_EQ(rec->ueStall, ue.stall, "UE stall");
            NS_TEST_EXPECT_MSG_EQ(rec->ueDelay, ue.measuredDelay, "UE delay");
            NS_TEST_EXPECT_MSG_EQ(rec->bound, ue.bound, "bound");
            NS_TEST_EXPECT_MSG_EQ(rec->kvBytesExpected, ue.kvBytesExpected, "KV expected");
            NS_TEST_EXPECT_MSG_EQ(rec->kvBytesReceived, ue.kvBytesReceived, "KV received");
            NS_TEST_EXPECT_MSG_EQ(rec->GetOutcomeName(), "restored", "restored");
        }
        NS_TEST_EXPECT_MSG_EQ(stats->SummarizeRestoredDelay().worst,
                              road.restoredWorst,
                              "worst restored delay");
        NS_TEST_EXPECT_MSG_EQ(stats->SummarizeUeDelay().worst, road.measuredWorst, "worst UE");

        // The X2 link from source to target, monitored on the same run: its KV bytes are
        // the TCP payload of the KV connection, so at least every KV byte the source sent
        // and at most 1 % more (KV frame headers and control messages; no loss on a
        // dedicated link, so no retransmission); the handover signalling is X2-C; the
        // root queue disc is the X2 link's PrioQueueDisc (EdgeLlmRan), which saw every
        // packet it sent.
        bool found = false;
        for (uint32_t d = 0; d < monitor->GetNDirections(); ++d)
        {
            const BackhaulMonitor::Totals t = monitor->GetTotals(d);
            if (t.fromNode != bsNodes->at(road.sourceCellId) ||
                t.toNode != bsNodes->at(road.targetCellId))
            {
                continue;
            }
            found = true;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(t.kvBytes, road.kvBytesSent, "every KV byte sent");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t.kvBytes,
                                        road.kvBytesSent + road.kvBytesSent / 100,
                                        "plus framing");
            NS_TEST_EXPECT_MSG_GT(t.x2cBytes, 0u, "X2-C signalling");
            NS_TEST_EXPECT_MSG_EQ(t.hasQueueDisc, true, "the X2 queue disc");
            NS_TEST_EXPECT_MSG_EQ(t.qdiscDrops, 0u, "no drop");
            NS_TEST_EXPECT_MSG_EQ(t.sojournCount, t.txPackets, "each packet through it");
        }
        NS_TEST_EXPECT_MSG_EQ(found, true, "the X2 link source -> target is monitored");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Writing into a directory that does not exist: std::runtime_error naming the
 *        path and the missing directory, and no file (nor temporary file) anywhere; the
 *        same for every writer of the backhaul monitor.
 */
class WriteFailureTestCase : public TestCase
{
  public:
    WriteFailureTestCase()
        : TestCase("outputs: a write into a missing directory fails clearly, leaves no file")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = TempDir("fail");
        const std::string missing = dir + "/no-such-dir";
        Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
        Ptr<BackhaulMonitor> monitor = CreateObject<BackhaulMonitor>();
        const std::vector<std::pair<std::string, std::function<void()>>> writers = {
            {"stats.csv", [&]() { stats->WriteCsv(missing + "/stats.csv"); }},
            {"series.csv", [&]() { monitor->WriteCsv(missing + "/series.csv"); }},
            {"totals.csv", [&]() { monitor->WriteTotalsCsv(missing + "/totals.csv"); }},
            {"plots", [&]() { monitor->WritePlots(missing + "/plots"); }},
        };
        for (const auto& [name, write] : writers)
        {
            std::string message;
            try
            {
                write();
            }
            catch (const std::runtime_error& e)
            {
                message = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(message, "", name << ": an error");
            NS_TEST_EXPECT_MSG_NE(message.find(missing), std::string::npos, name << ": the path");
            NS_TEST_EXPECT_MSG_NE(message.find("does not exist"),
                                  std::string::npos,
                                  name << ": the reason: " << message);
        }
        NS_TEST_EXPECT_MSG_EQ(std::filesystem::exists(missing), false, "nothing created");
        NS_TEST_EXPECT_MSG_EQ(std::filesystem::is_empty(dir), true, "no file beside it");
        std::filesystem::remove_all(dir);
    }
};

namespace
{

/// What one point-to-point monitor run gives.
struct LinkRun
{
    BackhaulMonitor::Totals totals;                //!< Direction 0 (node 0 -> node 1)
    std::vector<BackhaulMonitor::Interval> series; //!< Its intervals
    double length{0};                              //!< Interval length, s
    std::string csv;                               //!< The series CSV
    QueueDisc::Stats qdisc;                        //!< ns-3's own queue disc counters
    uint64_t deviceDropped{0};                     //!< ns-3's device queue counter
    std::map<uint16_t, uint64_t> sent;             //!< Packets each OnOff sent, by port
};

/**
 * Node 0 -> node 1 over one point-to-point link of \p rate (1 ms delay), monitored
 * every 100 ms; one UDP OnOff source per entry of \p loads (port -> bit/s, 1000-byte
 * payloads, constant rate) from 0.1 s to 1.1 s; 1.2 s simulated. \p queue: the root
 * queue disc ("" ns-3's default pfifo_fast, "none" no queue disc and no flow control,
 * else a FifoQueueDisc MaxSize such as "5p"); \p deviceQueue the device queue's MaxSize.
 */
LinkRun
RunLink(const std::string& rate,
        const std::map<uint16_t, double>& loads,
        const std::string& queue,
        const std::string& deviceQueue = "100p")
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", StringValue("1ms"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(deviceQueue));
#if EDGE_LLM_NS3_VERSION >= 3036
    if (queue == "none")
    {
        // Without flow control the IP layer hands every packet to the device, whose
        // queue drops (with it, ns-3's TrafficControlLayer drops at a stopped queue).
        p2p.DisableFlowControl();
    }
#endif
    NetDeviceContainer devs = p2p.Install(nodes);
    if (!queue.empty() && queue != "none")
    {
        // Before the addresses: Assign installs the default only where there is none.
        TrafficControlHelper fifo;
        fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(queue));
        fifo.Install(devs);
    }
    Ipv4AddressHelper addr("10.50.0.0", "255.255.255.252");
    // Assign installs the default queue disc where there is none, unless the device has
    // no flow control (a queue disc would never hold a packet there).
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    Ptr<BackhaulMonitor> monitor = CreateObject<BackhaulMonitor>();
    monitor->SetAttribute("Interval", TimeValue(MilliSeconds(100)));
    monitor->Install(devs);
    LinkRun run;
    std::vector<Ptr<Application>> sources;
    for (const auto& [port, bps] : loads)
    {
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
        onoff.SetConstantRate(DataRate(static_cast<uint64_t>(bps)), 1000);
        ApplicationContainer app = onoff.Install(nodes.Get(0));
        app.Start(Seconds(0.1));
        app.Stop(Seconds(1.1));
        const uint16_t p = port;
        app.Get(0)->TraceConnectWithoutContext(
            "Tx",
            compat::MakeCallback<void, Ptr<const Packet>>(
                [&run, p](Ptr<const Packet>) { ++run.sent[p]; }));
        run.sent[port] = 0;
    }
    Simulator::Stop(Seconds(1.2));
    Simulator::Run();
    run.totals = monitor->GetTotals(0);
    run.series = monitor->GetIntervals(0);
    run.length = monitor->GetIntervalSeconds(0);
    run.csv = monitor->GetCsv();
    Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devs.Get(0));
    if (Ptr<QueueDisc> q =
            nodes.Get(0)->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(dev))
    {
        run.qdisc = q->GetStats();
    }
    run.deviceDropped = dev->GetQueue()->GetTotalDroppedPackets();
    Simulator::Destroy();
    return run;
}

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief Utilization by hand: a 10 Mbit/s link carries UDP at 5 Mbit/s of 1000-byte
 *        payloads (625 packets/s), each 1030 bytes on the wire (8 UDP + 20 IPv4 + 2 PPP):
 *        utilization 625 x 1030 x 8 / 1e7 = 0.515 in every 100 ms interval of the steady
 *        part (0.2 s to 1.0 s), within one packet's worth (1030 x 8 / 1e7 / 0.1 = 0.00824),
 *        and 0 before the source starts. The whole run's totals: tx bytes = packets x 1030
 *        (+ ARP); the same run twice gives the same CSV byte for byte.
 */
class UtilizationTestCase : public TestCase
{
  public:
    UtilizationTestCase()
        : TestCase("backhaul monitor: utilization of a half-loaded link, by hand")
    {
    }

  private:
    void DoRun() override
    {
        const LinkRun run = RunLink("10Mbps", {{5000, 5e6}}, "");
        NS_TEST_ASSERT_MSG_EQ(run.series.size(), 12u, "1.2 s in 100 ms intervals");
        NS_TEST_EXPECT_MSG_EQ_TOL(run.length, 0.1, 1e-12, "interval length");
        const double expected = 625.0 * 1030 * 8 / 1e7;
        const double onePacket = 1030.0 * 8 / 1e7 / 0.1;
        NS_TEST_EXPECT_MSG_EQ(TimeStep(run.series[0].busy).GetSeconds(), 0.0, "idle before 0.1 s");
        for (std::size_t k = 2; k < 10; ++k)
        {
            const double u = TimeStep(run.series[k].busy).GetSeconds() / run.length;
            NS_TEST_EXPECT_MSG_EQ_TOL(u, expected, onePacket, "interval " << k);
            NS_TEST_EXPECT_MSG_EQ(run.series[k].kvBytes, 0u, "port 5000 is not KV");
        }
        const uint64_t packets = run.sent.at(5000);
        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(packets), 625.0, 1.0, "1 s at 625/s");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(run.totals.txBytes, packets * 1030, "every packet");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(run.totals.txBytes,
                                    packets * 1030 + 2 * 64,
                                    "plus at most the ARP exchange");
        NS_TEST_EXPECT_MSG_EQ(run.totals.otherBytes, packets * 1030, "UDP 5000: other");
        NS_TEST_EXPECT_MSG_EQ_TOL(run.totals.utilization,
                                  packets * 1030.0 * 8 / 1e7 / 1.2,
                                  0.001,
                                  "whole-run utilization");
        NS_TEST_EXPECT_MSG_EQ(run.totals.qdiscDrops, 0u, "no drop");
        const LinkRun again = RunLink("10Mbps", {{5000, 5e6}}, "");
        NS_TEST_EXPECT_MSG_EQ(again.csv, run.csv, "deterministic");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief KV bytes by port: on one link, UDP to port 9001 (the KV port, EdgeLlmNode's
 *        BackhaulPort) at 2 Mbit/s, to 4444 (X2-C) at 1 Mbit/s and to 5000 at 1 Mbit/s.
 *        KV bytes = the KV source's packets x 1000 payload bytes, X2-C bytes = its
 *        packets x 1030, the rest other; the series' KV bytes add up to the total. And
 *        Classify on hand-built packets: TCP from port 9001 is KV, UDP 2152 is X2-U, a
 *        later IPv4 fragment and a non-IPv4 PPP frame are other; with KvPort 9002,
 *        port 9001 is other (the boundary is the attribute, not a constant).
 */
class KvClassificationTestCase : public TestCase
{
  public:
    KvClassificationTestCase()
        : TestCase("backhaul monitor: KV, X2-C, X2-U and other bytes by port")
    {
    }

  private:
    /// \return a PPP frame: IPv4 (protocol \p proto, fragment offset \p offset) and L4
    static Ptr<Packet> Frame(uint8_t proto,
                             uint16_t src,
                             uint16_t dst,
                             uint32_t payload,
                             uint16_t offset = 0)
    {
        Ptr<Packet> p = Create<Packet>(payload);
        if (offset == 0 && proto == 17)
        {
            UdpHeader udp;
            udp.SetSourcePort(src);
            udp.SetDestinationPort(dst);
            p->AddHeader(udp);
        }
        else if (offset == 0 && proto == 6)
        {
            TcpHeader tcp;
            tcp.SetSourcePort(src);
            tcp.SetDestinationPort(dst);
            p->AddHeader(tcp);
        }
        Ipv4Header ip;
        ip.SetProtocol(proto);
        ip.SetPayloadSize(p->GetSize());
        ip.SetFragmentOffset(offset);
        p->AddHeader(ip);
        PppHeader ppp;
        ppp.SetProtocol(0x0021);
        p->AddHeader(ppp);
        return p;
    }

    void DoRun() override
    {
        // (protocol, source port, destination port, payload, fragment offset), the
        // monitor's KV and control ports, the class and the payload it reports.
        struct Case
        {
            uint8_t protocol;
            uint16_t src;
            uint16_t dst;
            uint32_t bytes;
            uint16_t offset;
            uint16_t kvPort;
            uint16_t controlPort;
            BackhaulMonitor::TrafficClass expected;
            const char* what;
        };

        const std::vector<Case> cases{
            {6, 9001, 50000, 1448, 0, 9001, 36422, BackhaulMonitor::KV, "TCP from the KV port"},
            {6, 9001, 50000, 1448, 0, 9002, 36422, BackhaulMonitor::OTHER, "KvPort 9002: 9001"},
            {17, 50000, 9002, 10, 0, 9002, 36422, BackhaulMonitor::KV, "KvPort 9002: UDP to it"},
            {17, 4444, 4444, 100, 0, 9001, 36422, BackhaulMonitor::X2C, "X2-C"},
            {17, 2152, 2152, 100, 0, 9001, 36422, BackhaulMonitor::X2U, "X2-U"},
            {17, 9001, 9001, 800, 1000, 9001, 36422, BackhaulMonitor::OTHER, "a later fragment"},
            // The separate control channel's port: UDP only (its KvDatagramSocket stream).
            {17, 50000, 36422, 40, 0, 9001, 36422, BackhaulMonitor::KV, "UDP to the control port"},
            {17, 36422, 36422, 40, 0, 9001, 36423, BackhaulMonitor::OTHER, "ControlPort 36423"},
            {6,
             36422,
             50000,
             40,
             0,
             9001,
             36422,
             BackhaulMonitor::OTHER,
             "TCP on the control port"},
        };
        for (const Case& c : cases)
        {
            uint64_t payload = 0;
            NS_TEST_EXPECT_MSG_EQ(
                BackhaulMonitor::Classify(Frame(c.protocol, c.src, c.dst, c.bytes, c.offset),
                                          c.kvPort,
                                          c.controlPort,
                                          payload),
                c.expected,
                c.what);
            // The L4 payload; a later fragment has no L4 header: its IP payload.
            NS_TEST_EXPECT_MSG_EQ(payload, c.bytes, c.what << ": payload");
        }
        uint64_t payload = 0;
        Ptr<Packet> arp = Create<Packet>(28);
        PppHeader ppp;
        ppp.SetProtocol(0x0057); // IPv6
        arp->AddHeader(ppp);
        NS_TEST_EXPECT_MSG_EQ(BackhaulMonitor::Classify(arp, 9001, 36422, payload),
                              BackhaulMonitor::OTHER,
                              "not IPv4");

        const LinkRun run = RunLink("10Mbps", {{9001, 2e6}, {4444, 1e6}, {5000, 1e6}}, "");
        const uint64_t kv = run.sent.at(9001);
        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(kv), 250.0, 1.0, "2 Mbit/s for 1 s");
        NS_TEST_EXPECT_MSG_EQ(run.totals.kvBytes, kv * 1000, "KV payload bytes");
        NS_TEST_EXPECT_MSG_EQ(run.totals.kvWireBytes, kv * 1030, "KV packets on the wire");
        NS_TEST_EXPECT_MSG_EQ(run.totals.x2cBytes, run.sent.at(4444) * 1030, "X2-C bytes");
        NS_TEST_EXPECT_MSG_EQ(run.totals.x2uBytes, 0u, "no X2-U");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(run.totals.otherBytes, run.sent.at(5000) * 1030, "other");
        uint64_t sum = 0;
        for (const auto& in : run.series)
        {
            sum += in.kvBytes;
        }
        NS_TEST_EXPECT_MSG_EQ(sum, run.totals.kvBytes, "series add up to the total");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Drops and queueing delay: a 1 Mbit/s link offered 5 Mbit/s, root FifoQueueDisc
 *        of 5 packets. The monitor's drops (packets and bytes) equal ns-3's
 *        QueueDisc::GetStats(), per-interval drops add up to them; the largest occupancy
 *        is the limit, 5 packets; a packet waits behind at most 5 others of T = 1030 x 8
 *        / 1e6 = 8.24 ms each, so the largest sojourn is in [4 T, 5 T] and the mean of a
 *        saturated interval at least 3 T. Without a queue disc (nor flow control) and a
 *        5-packet device queue, the device drops equal the queue's own counter and the queue
 *        columns are empty. The source sends to the KV port: each dropped packet carries
 *        1000 KV bytes, and every KV byte sent is transmitted or dropped on the link
 *        (sent x 1000 = KV bytes + KV bytes dropped).
 */
class QueueDropsTestCase : public TestCase
{
  public:
    QueueDropsTestCase()
        : TestCase("backhaul monitor: queue disc and device drops equal ns-3's counters")
    {
    }

  private:
    void DoRun() override
    {
        const LinkRun run = RunLink("1Mbps", {{9001, 5e6}}, "5p", "1p");
        NS_TEST_ASSERT_MSG_GT(run.qdisc.nTotalDroppedPackets, 0u, "the overload drops");
        NS_TEST_EXPECT_MSG_EQ(run.totals.qdiscDrops,
                              run.qdisc.nTotalDroppedPackets,
                              "drops = QueueDisc::GetStats");
        NS_TEST_EXPECT_MSG_EQ(run.totals.qdiscDropBytes,
                              run.qdisc.nTotalDroppedBytes,
                              "dropped bytes = QueueDisc::GetStats");
        uint64_t drops = 0;
        uint32_t maxPackets = 0;
        for (const auto& in : run.series)
        {
            drops += in.qdiscDrops;
            maxPackets = std::max(maxPackets, in.maxPackets);
        }
        NS_TEST_EXPECT_MSG_EQ(drops, run.totals.qdiscDrops, "intervals add up");
        NS_TEST_EXPECT_MSG_EQ(run.totals.kvDropBytes,
                              run.totals.qdiscDrops * 1000,
                              "1000 KV bytes per dropped packet");
        NS_TEST_EXPECT_MSG_EQ(run.sent.at(9001) * 1000,
                              run.totals.kvBytes + run.totals.kvDropBytes,
                              "every KV byte sent is transmitted or dropped");
        NS_TEST_EXPECT_MSG_EQ(maxPackets, 5u, "occupancy reaches the limit, never more");
        const double t = 1030.0 * 8 / 1e6;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(run.totals.sojournMax, 4 * t, "full queue");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(run.totals.sojournMax, 5 * t + 1e-9, "at most 5 ahead");
        const auto& mid = run.series[5];
        NS_TEST_EXPECT_MSG_GT_OR_EQ(mid.sojournSum / mid.sojournCount, 3 * t, "saturated");
        NS_TEST_EXPECT_MSG_EQ_TOL(mid.packetSeconds / run.length, 4.5, 0.5, "4 to 5 queued");
        NS_TEST_EXPECT_MSG_EQ_TOL(TimeStep(mid.busy).GetSeconds() / run.length,
                                  1.0,
                                  1e-9,
                                  "a saturated link is busy all the time");

#if EDGE_LLM_NS3_VERSION >= 3036
        // Device-queue drops need a device without flow control (PointToPointHelper::
        // DisableFlowControl, ns-3.36 on); ns-3.35 drops in its TrafficControlLayer instead.
        const LinkRun bare = RunLink("1Mbps", {{9001, 5e6}}, "none", "5p");
        NS_TEST_ASSERT_MSG_GT(bare.deviceDropped, 0u, "the device queue drops");
        NS_TEST_EXPECT_MSG_EQ(bare.totals.hasQueueDisc, false, "no queue disc");
        NS_TEST_EXPECT_MSG_EQ(bare.totals.deviceDrops, bare.deviceDropped, "= Queue counter");
        NS_TEST_EXPECT_MSG_EQ(bare.totals.kvDropBytes,
                              bare.deviceDropped * 1000,
                              "1000 KV bytes per dropped packet");
        NS_TEST_EXPECT_MSG_EQ(bare.sent.at(9001) * 1000,
                              bare.totals.kvBytes + bare.totals.kvDropBytes,
                              "every KV byte sent is transmitted or dropped");
        const auto header = Fields(Lines(bare.csv)[0]);
        const auto row = Fields(Lines(bare.csv)[6]);
        for (std::size_t c = 0; c < header.size(); ++c)
        {
            if (header[c].rfind("qdisc_", 0) == 0)
            {
                NS_TEST_EXPECT_MSG_EQ(row[c], "", header[c] << ": empty, not 0");
            }
        }
#endif
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Which directions Install takes: on a chain n0 - n1 - n2, Install(nodes n0, n1)
 *        monitors every point-to-point device of those nodes (0 -> 1, 1 -> 0, 1 -> 2);
 *        installing all the devices afterwards adds only n2's (2 -> 1), never a second
 *        copy. Links are named by their channel's two nodes. Attribute boundaries:
 *        Interval must be > 0 (0 refused, 1 ns accepted), KvPort in [1, 65535] (0
 *        refused, 1 accepted).
 */
class InstallTestCase : public TestCase
{
  public:
    InstallTestCase()
        : TestCase("backhaul monitor: directions of Install(nodes), no duplicates, attributes")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(3);
        PointToPointHelper p2p;
        NetDeviceContainer devs = p2p.Install(nodes.Get(0), nodes.Get(1));
        devs.Add(p2p.Install(nodes.Get(1), nodes.Get(2)));
        const uint32_t id0 = nodes.Get(0)->GetId();
        const uint32_t id1 = nodes.Get(1)->GetId();
        const uint32_t id2 = nodes.Get(2)->GetId();
        Ptr<BackhaulMonitor> monitor = CreateObject<BackhaulMonitor>();
        monitor->Install(NodeContainer(nodes.Get(0), nodes.Get(1)));
        NS_TEST_ASSERT_MSG_EQ(monitor->GetNDirections(), 3u, "n0's device and n1's two");
        monitor->Install(devs);
        NS_TEST_ASSERT_MSG_EQ(monitor->GetNDirections(), 4u, "only n2's device is new");
        const std::string first = "n" + std::to_string(id0) + "-n" + std::to_string(id1);
        const std::string second = "n" + std::to_string(id1) + "-n" + std::to_string(id2);
        const std::vector<std::tuple<std::string, uint32_t, uint32_t>> expected =
            {{first, id0, id1}, {first, id1, id0}, {second, id1, id2}, {second, id2, id1}};
        for (uint32_t d = 0; d < 4; ++d)
        {
            const BackhaulMonitor::Totals t = monitor->GetTotals(d);
            NS_TEST_EXPECT_MSG_EQ(t.link, std::get<0>(expected[d]), "link " << d);
            NS_TEST_EXPECT_MSG_EQ(t.fromNode, std::get<1>(expected[d]), "from " << d);
            NS_TEST_EXPECT_MSG_EQ(t.toNode, std::get<2>(expected[d]), "to " << d);
            NS_TEST_EXPECT_MSG_EQ(t.hasQueueDisc, false, "no internet stack: no queue disc");
        }
        Ptr<BackhaulMonitor> m = CreateObject<BackhaulMonitor>();
        NS_TEST_EXPECT_MSG_EQ(m->SetAttributeFailSafe("Interval", TimeValue(Seconds(0))),
                              false,
                              "Interval 0 refused");
        NS_TEST_EXPECT_MSG_EQ(m->SetAttributeFailSafe("Interval", TimeValue(NanoSeconds(1))),
                              true,
                              "Interval 1 ns accepted");
        NS_TEST_EXPECT_MSG_EQ(m->SetAttributeFailSafe("KvPort", UintegerValue(0)),
                              false,
                              "KvPort 0 refused");
        NS_TEST_EXPECT_MSG_EQ(m->SetAttributeFailSafe("KvPort", UintegerValue(1)),
                              true,
                              "KvPort 1 accepted");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The outputs test suite.
 */
class EdgeLlmOutputsTestSuite : public TestSuite
{
  public:
    EdgeLlmOutputsTestSuite()
        : TestSuite("edge-llm-outputs", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new DelaySummaryTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new TwoHandoversTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PrefillBoundTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new OnlinePredictionTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new FailedHandoversTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new UeDelayTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new UeDelayWithoutStallTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new TokensMissingTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PromptRetryTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new StateTransitionTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new HandoverAfterDecodingTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new RunProgressTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new RoadCrossCheckTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new WriteFailureTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new UtilizationTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvClassificationTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new QueueDropsTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new InstallTestCase(), EDGE_LLM_TEST_QUICK);
    }
};

/// Static variable for test initialization
static EdgeLlmOutputsTestSuite g_edgeLlmOutputsTestSuite;
