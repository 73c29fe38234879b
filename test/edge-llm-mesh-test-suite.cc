/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/llm-model-profile.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

/**
 * \file
 * \ingroup edge-llm-tests
 * Sessions on a partial backhaul mesh (issue 10, item 3): a second handover while the
 * first restore runs, to a cell the source has no link to. Every session must end
 * restored at some BS or lost with a SessionLost trace, over TCP and UDP.
 *
 * Expected times come from the transfer formula, not from the code: a cHO handover of
 * a 300-token qwen2.5-7b context moves S = 300 x 57,344 B = 17,203,200 B; on a 1 Gbit/s
 * link that takes at least S x 8 / 1e9 = 137.6256 ms of payload, plus the 100 us
 * propagation. A relay is store-and-forward: each hop starts when the previous one has
 * delivered the whole cache.
 */

namespace
{

/// KV bytes of the 300-token context every test moves.
const uint64_t CONTEXT = 300;

/// Backhaul link rate, bit/s, and one-way propagation delay, s.
constexpr double LINK_RATE = 1e9;
/// One-way propagation delay of each backhaul link, s.
constexpr double LINK_DELAY = 100e-6;

/// \return the KV bytes of the whole context
uint64_t
ContextBytes()
{
    return CONTEXT * LlmModelProfile::FromPreset("qwen2.5-7b-instruct").BytesPerToken();
}

/// \return the shortest time one hop can deliver the whole cache in, s
double
HopTime()
{
    return static_cast<double>(ContextBytes()) * 8.0 / LINK_RATE + LINK_DELAY;
}

/// What the BSs of a mesh run traced, by cell id.
struct MeshOutcome
{
    std::map<uint16_t, std::vector<double>> restoredAt;   //!< SessionRestored times, s
    std::map<uint16_t, std::vector<double>> restoreDelay; //!< SessionRestored delays, s
    std::map<uint16_t, uint64_t> kvReceived;              //!< KvTransferReceived bytes
    std::map<uint16_t, std::vector<double>> tokens;       //!< TokenDecoded times, s
    std::map<uint16_t, std::vector<uint64_t>> released;   //!< SessionReleased bytes
    std::map<uint16_t, uint16_t> handedTo;                //!< Last HandoverStarted target
    /// SessionLost: (time s, unreachable cell, reason), by the BS that traced it
    std::map<uint16_t, std::vector<std::pair<double, uint16_t>>> lost;
    std::map<uint16_t, uint64_t> lostReason; //!< Last SessionLost reason, by BS
    /// TransferTimedOut: (time s, tokens to re-prefill), by BS
    std::map<uint16_t, std::vector<std::pair<double, uint64_t>>> timedOut;
    std::map<uint16_t, uint64_t> lostCount; //!< GetLostSessions(), by BS
    uint64_t lostTotal{0};                  //!< Sum of GetLostSessions() over the BSs
    /// KV payload bytes sent / received on each directed link (a, b)
    std::map<std::pair<uint16_t, uint16_t>, std::pair<uint64_t, uint64_t>> link;
};

/// A handover the test triggers: at \p time, cell \p from hands session 1 to \p to.
struct Move
{
    double time;   //!< s
    uint16_t from; //!< Cell that calls NotifyHandoverStart
    uint16_t to;   //!< Its target
};

/**
 * \p n BSs (cells 1..n, cHO, GatherTime 0) joined by the 1 Gbit/s, 100 us, MTU 9000
 * point-to-point links in \p edges (pairs of cell ids); cell \p home holds session 1 with
 * a 300-token context and 5 tokens to decode after a handover; \p moves are applied;
 * the run lasts 3 s.
 */
MeshOutcome
RunMesh(const std::string& transport,
        uint32_t n,
        const std::vector<std::pair<uint16_t, uint16_t>>& edges,
        uint16_t home,
        const std::vector<Move>& moves,
        uint32_t targetKvBits = 16,
        const std::map<uint16_t, Time>& transferTimeout = {},
        const std::string& pcapName = "")
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(n);
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", StringValue("100us"));
    Ipv4AddressHelper addr("10.30.0.0", "255.255.255.252");
    for (const auto& [a, b] : edges)
    {
        addr.Assign(p2p.Install(nodes.Get(a - 1), nodes.Get(b - 1)));
        addr.NewNetwork();
    }
    EdgeLlmHelper edge;
    edge.SetSchedulerType("ns3::ChoScheduler");
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0)));
    edge.SetBackhaulTransportAttribute("Transport", StringValue(transport));
    std::vector<uint16_t> cells;
    for (uint32_t i = 0; i < n; ++i)
    {
        cells.push_back(static_cast<uint16_t>(i + 1));
    }
    ApplicationContainer apps = edge.InstallBs(nodes, cells);
    edge.ConnectBackhaul(apps);
    const char* pcap = std::getenv("EDGE_LLM_MESH_PCAP");
    if (pcap && !pcapName.empty() && transport == "Tcp")
    {
        // test/cli/kv-dissector-test.sh decodes these captures: every backhaul link of
        // cell 2, <EDGE_LLM_MESH_PCAP>-<pcapName>-1-<device>.pcap
        p2p.EnablePcap(std::string(pcap) + "-" + pcapName, NodeContainer(nodes.Get(1)));
    }
    auto bs = [&apps](uint16_t cell) { return DynamicCast<EdgeLlmNode>(apps.Get(cell - 1)); };
    MeshOutcome out;
    for (uint16_t cell = 1; cell <= n; ++cell)
    {
        // Every cell has an entry, so that a test reads them after a failed check.
        out.restoredAt[cell];
        out.restoreDelay[cell];
        out.kvReceived[cell] = 0;
        out.tokens[cell];
        out.released[cell];
        out.handedTo[cell] = 0;
        out.lost[cell];
        out.lostReason[cell] = 0;
        out.timedOut[cell];
        Ptr<EdgeLlmNode> app = bs(cell);
        if (cell != home)
        {
            app->SetAttribute("KvBits", UintegerValue(targetKvBits));
        }
        if (transferTimeout.count(cell))
        {
            app->GetTargetRole()->SetAttribute("TransferTimeout",
                                               TimeValue(transferTimeout.at(cell)));
        }
        app->GetTargetRole()->TraceConnectWithoutContext(
            "TransferTimedOut",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out, cell](uint64_t, uint16_t, uint64_t tokens) {
                    out.timedOut[cell].emplace_back(Simulator::Now().GetSeconds(), tokens);
                }));
        app->GetTargetRole()->TraceConnectWithoutContext(
            "SessionRestored",
            compat::MakeCallback<void, uint64_t, uint16_t, Time>(
                [&out, cell](uint64_t, uint16_t, Time delay) {
                    out.restoredAt[cell].push_back(Simulator::Now().GetSeconds());
                    out.restoreDelay[cell].push_back(delay.GetSeconds());
                }));
        app->GetTargetRole()->TraceConnectWithoutContext(
            "KvTransferReceived",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out, cell](uint64_t, uint16_t, uint64_t bytes) {
                    out.kvReceived[cell] = bytes;
                }));
        app->TraceConnectWithoutContext("TokenDecoded",
                                        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                                            [&out, cell](uint64_t, uint16_t, uint64_t) {
                                                out.tokens[cell].push_back(
                                                    Simulator::Now().GetSeconds());
                                            }));
        app->GetSourceRole()->TraceConnectWithoutContext(
            "SessionReleased",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out, cell](uint64_t, uint16_t, uint64_t bytes) {
                    out.released[cell].push_back(bytes);
                }));
        app->GetSourceRole()->TraceConnectWithoutContext(
            "HandoverStarted",
            compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
                [&out, cell](uint64_t, uint16_t target, uint64_t) {
                    out.handedTo[cell] = target;
                }));
        app->TraceConnectWithoutContext(
            "SessionLost",
            compat::MakeCallback<void, uint64_t, uint16_t, EdgeLlmNode::LossReason>(
                [&out, cell](uint64_t, uint16_t unreachable, EdgeLlmNode::LossReason reason) {
                    out.lost[cell].emplace_back(Simulator::Now().GetSeconds(), unreachable);
                    out.lostReason[cell] = reason;
                }));
    }
    bs(home)->OpenSession(1, CONTEXT, 5);
    for (const Move& m : moves)
    {
        Simulator::Schedule(Seconds(m.time),
                            &EdgeLlmNode::NotifyHandoverStart,
                            bs(m.from),
                            1,
                            m.to);
    }
    apps.Start(Seconds(0));
    Simulator::Stop(Seconds(3));
    Simulator::Run();
    for (uint16_t cell = 1; cell <= n; ++cell)
    {
        out.lostCount[cell] = bs(cell)->GetLostSessions();
        out.lostTotal += bs(cell)->GetLostSessions();
    }
    for (const auto& [a, b] : edges)
    {
        for (const auto& [x, y] : {std::make_pair(a, b), std::make_pair(b, a)})
        {
            out.link[{x, y}] = {bs(x)->GetConnection(y)->GetKvBytesSent(),
                                bs(y)->GetConnection(x)->GetKvBytesReceived()};
        }
    }
    Simulator::Destroy();
    return out;
}

/// \return how many SessionRestored traces \p cell gave
std::size_t
Restores(const MeshOutcome& o, uint16_t cell)
{
    return o.restoredAt.at(cell).size();
}

/// \return how many tokens \p cell decoded
std::size_t
Tokens(const MeshOutcome& o, uint16_t cell)
{
    return o.tokens.at(cell).size();
}

/// \return the sum over the cells of how many entries each has in \p byCell
template <typename V>
std::size_t
Total(const std::map<uint16_t, std::vector<V>>& byCell)
{
    std::size_t n = 0;
    for (const auto& [cell, v] : byCell)
    {
        n += v.size();
    }
    return n;
}

/// \return the first value of \p v, or -1 if it is empty
double
First(const std::vector<double>& v)
{
    return v.empty() ? -1.0 : v.front();
}

/// \return the first SessionLost of \p cell (time s, unreachable cell), or (-1, 0)
std::pair<double, uint16_t>
FirstLoss(const MeshOutcome& o, uint16_t cell)
{
    const auto& v = o.lost.at(cell);
    return v.empty() ? std::make_pair(-1.0, uint16_t{0}) : v.front();
}

/// A mesh test that runs over one backhaul transport, named after it.
class MeshTestCase : public TestCase
{
  public:
    /**
     * \param name what the test checks
     * \param transport "Tcp" or "Udp"
     */
    MeshTestCase(const std::string& name, const std::string& transport)
        : TestCase(name + " [" + transport + "]"),
          m_transport(transport)
    {
    }

  protected:
    /// Upper slack on a store-and-forward chain of \p hops: packet headers (at most
    /// 0.6 % at MTU 9000), the transport's start (TCP handshake and slow start over a
    /// 0.2 ms round trip) and the control messages' round trips: 2 ms a hop.
    static double Slack(uint32_t hops)
    {
        return hops * (0.006 * HopTime() + 0.002);
    }

    std::string m_transport; //!< The transport under test
};

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief Shape (a): links 1-2 and 2-3, no 1-3. The UE goes 1 -> 2 at 10 ms and 2 -> 3
 *        at 40 ms, while 2 restores. Cell 1 cannot reach 3, so it refuses the redirect
 *        (TRANSFER_REDIRECT_REFUSED); cell 2 finishes the restore (the whole cache, by
 *        10 ms + H at the earliest, H = one hop's time) and relays the session to 3,
 *        which restores it with the whole cache no sooner than 10 ms + 2 H and decodes
 *        its 5 tokens, the first one decode interval (10 ms) after the restore. Cell 1
 *        is released by 2, cell 2 by 3; nothing is lost. On the old code cell 1 ignored
 *        the redirect and nothing was restored anywhere.
 */
class RelayTestCase : public MeshTestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit RelayTestCase(const std::string& transport)
        : MeshTestCase("partial mesh 1-2-3: the session is relayed through 2 and restored at 3",
                       transport)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o = RunMesh(m_transport,
                                      3,
                                      {{1, 2}, {2, 3}},
                                      1,
                                      {{0.010, 1, 2}, {0.040, 2, 3}},
                                      16,
                                      {},
                                      "relay");
        NS_TEST_ASSERT_MSG_EQ(Restores(o, 3), 1u, "restored at cell 3");
        NS_TEST_ASSERT_MSG_EQ(Restores(o, 2), 0u, "not decoded at cell 2");
        NS_TEST_ASSERT_MSG_EQ(o.lostTotal, 0u, "nothing lost");
        NS_TEST_EXPECT_MSG_EQ(o.kvReceived.at(2), ContextBytes(), "cell 2 got the whole cache");
        NS_TEST_EXPECT_MSG_EQ(o.kvReceived.at(3), ContextBytes(), "cell 3 got the whole cache");
        NS_TEST_EXPECT_MSG_EQ(o.handedTo.at(2), 3u, "cell 2 handed it on to 3");
        NS_TEST_EXPECT_MSG_EQ(o.released.at(1).size(), 1u, "cell 1 released by cell 2");
        NS_TEST_EXPECT_MSG_EQ(o.released.at(2).size(), 1u, "cell 2 released by cell 3");
        const double lower = 0.010 + 2 * HopTime();
        const double at = First(o.restoredAt.at(3));
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at, lower, "two store-and-forward hops");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(at, lower + Slack(2), "two hops plus overheads");
        NS_TEST_EXPECT_MSG_EQ_TOL(First(o.restoreDelay.at(3)),
                                  at - 0.040,
                                  1e-9,
                                  "the delay counts from the UE's handover to cell 3");
        NS_TEST_ASSERT_MSG_EQ(Tokens(o, 3), 5u, "cell 3 decodes the 5 tokens");
        NS_TEST_EXPECT_MSG_EQ(Tokens(o, 1) + Tokens(o, 2), 0u, "no token elsewhere");
        NS_TEST_EXPECT_MSG_EQ_TOL(First(o.tokens.at(3)), at + 0.010, 1e-9, "first token");
        for (const auto& [dir, bytes] : o.link)
        {
            NS_TEST_EXPECT_MSG_EQ(bytes.first,
                                  bytes.second,
                                  "bytes sent = delivered, " << dir.first << " -> " << dir.second);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Shape (b): link 1-2 only; cell 3 has no backhaul at all. The UE goes 1 -> 2 at
 *        10 ms and 2 -> 3 at 40 ms. Cell 1 refuses the redirect and cell 2 cannot relay:
 *        cell 2 traces SessionLost(1, 3, NO_BACKHAUL_PATH) once, one round trip after
 *        40 ms at the earliest (0.2 ms) and no later than the refusal waiting behind a
 *        full 512 KiB send buffer of KV bytes (4.2 ms) plus slack; it tells cell 1
 *        (TRANSFER_STATUS LOST), which stops sending well before the whole cache.
 *        Nothing is restored or decoded and exactly one loss is counted. On the old
 *        code the loss was silent (count 0).
 */
class NoPathTestCase : public MeshTestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit NoPathTestCase(const std::string& transport)
        : MeshTestCase("no backhaul path to the new cell: lost, traced and counted once", transport)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o =
            RunMesh(m_transport, 3, {{1, 2}}, 1, {{0.010, 1, 2}, {0.040, 2, 3}}, 16, {}, "nopath");
        NS_TEST_ASSERT_MSG_EQ(o.lostTotal, 1u, "one lost session in the run");
        NS_TEST_ASSERT_MSG_EQ(o.lostCount.at(2), 1u, "counted at cell 2");
        NS_TEST_ASSERT_MSG_EQ(o.lost.at(2).size(), 1u, "traced once, at cell 2");
        NS_TEST_EXPECT_MSG_EQ(FirstLoss(o, 2).second, 3u, "it could not reach cell 3");
        NS_TEST_EXPECT_MSG_EQ(o.lostReason.at(2),
                              uint64_t{EdgeLlmNode::NO_BACKHAUL_PATH},
                              "reason: no backhaul path");
        const double at = FirstLoss(o, 2).first;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at, 0.040 + 2 * LINK_DELAY, "after the redirect's round trip");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(at,
                                    0.040 + 2 * LINK_DELAY + 512.0 * 1024 * 8 / LINK_RATE + 0.002,
                                    "the refusal waits behind at most one send buffer");
        NS_TEST_EXPECT_MSG_EQ(Total(o.restoredAt), 0u, "restored nowhere");
        NS_TEST_EXPECT_MSG_EQ(Total(o.tokens), 0u, "decoded nowhere");
        NS_TEST_EXPECT_MSG_EQ(Total(o.released), 0u, "no release as restored");
        const auto [sent, received] = o.link.at({1, 2});
        NS_TEST_EXPECT_MSG_LT(sent, ContextBytes() / 2, "cell 1 stopped sending");
        NS_TEST_EXPECT_MSG_EQ(sent, received, "bytes sent = delivered");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Shape (b), direct: cell 2 holds a built session (no restore running) and the UE
 *        hands over to cell 3, to which it has no link (only 1-2 exists): SessionLost at
 *        exactly 10 ms, counted once, and no byte moves. The old code aborted the run
 *        ("no backhaul peer with that cell id").
 */
class DirectNoPathTestCase : public MeshTestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit DirectNoPathTestCase(const std::string& transport)
        : MeshTestCase("handover to a cell with no backhaul link: lost at once, not an abort",
                       transport)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o = RunMesh(m_transport, 3, {{1, 2}}, 2, {{0.010, 2, 3}});
        NS_TEST_ASSERT_MSG_EQ(o.lostTotal, 1u, "one lost session");
        NS_TEST_ASSERT_MSG_EQ(o.lost.at(2).size(), 1u, "traced at cell 2");
        NS_TEST_EXPECT_MSG_EQ_TOL(FirstLoss(o, 2).first, 0.010, 1e-12, "at the handover");
        NS_TEST_EXPECT_MSG_EQ(FirstLoss(o, 2).second, 3u, "to cell 3");
        NS_TEST_EXPECT_MSG_EQ(o.link.at({2, 1}).first, 0u, "nothing sent");
        NS_TEST_EXPECT_MSG_EQ(Total(o.restoredAt), 0u, "restored nowhere");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Shape (c), a line 1-2-3-4: the UE goes 1 -> 2 at 10 ms, 2 -> 3 at 40 ms (2 is
 *        restoring: relayed through 2) and 3 -> 4 at 200 ms (3 is restoring from 2, which
 *        has no link to 4: relayed through 3). Three store-and-forward hops: restored at
 *        4 only, with the whole cache, no sooner than 10 ms + 3 H; each BS is released by
 *        the next; 5 tokens at 4; nothing lost.
 */
class RelayChainTestCase : public MeshTestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit RelayChainTestCase(const std::string& transport)
        : MeshTestCase("line 1-2-3-4, two handovers mid-restore: relayed twice, restored at 4",
                       transport)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o = RunMesh(m_transport,
                                      4,
                                      {{1, 2}, {2, 3}, {3, 4}},
                                      1,
                                      {{0.010, 1, 2}, {0.040, 2, 3}, {0.200, 3, 4}});
        NS_TEST_ASSERT_MSG_EQ(Restores(o, 4), 1u, "restored at cell 4");
        NS_TEST_ASSERT_MSG_EQ(Restores(o, 2) + Restores(o, 3), 0u, "nowhere else");
        NS_TEST_ASSERT_MSG_EQ(o.lostTotal, 0u, "nothing lost");
        NS_TEST_EXPECT_MSG_EQ(o.kvReceived.at(4), ContextBytes(), "with the whole cache");
        for (uint16_t cell = 1; cell <= 3; ++cell)
        {
            NS_TEST_EXPECT_MSG_EQ(o.released.at(cell).size(), 1u, "cell " << cell << " released");
        }
        const double lower = 0.010 + 3 * HopTime();
        const double at = First(o.restoredAt.at(4));
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at, lower, "three store-and-forward hops");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(at, lower + Slack(3), "three hops plus overheads");
        NS_TEST_EXPECT_MSG_EQ_TOL(First(o.restoreDelay.at(4)), at - 0.200, 1e-9, "from 200 ms");
        NS_TEST_EXPECT_MSG_EQ(Tokens(o, 4), 5u, "cell 4 decodes the 5 tokens");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Shape (a) with a TransferTimeout of \p timeout at cell 2 (1-2, 2-3; the UE goes
 *        1 -> 2 at 10 ms and 2 -> 3 at \p redirectAt). The timeout makes cell 2 re-prefill
 *        the m missing tokens: it fires at 10 ms + timeout, or, if cell 2 is waiting for
 *        the answer to its redirect then, when the refusal arrives (one round trip after
 *        \p redirectAt at the earliest). m is at least 300 minus the whole tokens the
 *        link can carry by then. The re-prefill starts on the next 10 ms batch boundary
 *        and lasts p(m) = 9.4267e-5 m + 2.4e-3 s; then cell 2 relays the whole context to
 *        cell 3, which restores it one hop later (H) at the earliest.
 */
class RelayAfterTimeoutTestCase : public MeshTestCase
{
  public:
    /**
     * \param transport "Tcp" or "Udp"
     * \param redirectAt when the UE hands over 2 -> 3, s
     * \param timeout cell 2's TransferTimeout, s
     */
    RelayAfterTimeoutTestCase(const std::string& transport, double redirectAt, double timeout)
        : MeshTestCase(std::string("relay after a transfer timeout ") +
                           (0.010 + timeout < redirectAt ? "before" : "during") +
                           " the redirect: re-prefilled at 2, restored at 3",
                       transport),
          m_redirectAt(redirectAt),
          m_timeout(timeout)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o = RunMesh(m_transport,
                                      3,
                                      {{1, 2}, {2, 3}},
                                      1,
                                      {{0.010, 1, 2}, {m_redirectAt, 2, 3}},
                                      16,
                                      {{2, Seconds(m_timeout)}});
        NS_TEST_ASSERT_MSG_EQ(o.timedOut.at(2).size(), 1u, "cell 2 timed out once");
        NS_TEST_ASSERT_MSG_EQ(o.timedOut.at(3).size(), 0u, "cell 3 has no timeout");
        const auto [timedOutAt, missing] = o.timedOut.at(2).front();
        const double deadline = 0.010 + m_timeout;
        if (deadline < m_redirectAt)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(timedOutAt, deadline, 1e-12, "at the deadline");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(timedOutAt,
                                        m_redirectAt + 2 * LINK_DELAY,
                                        "deferred to the refusal's arrival");
        }
        const uint64_t bytesPerToken = ContextBytes() / CONTEXT;
        const double carried = (timedOutAt - 0.010 - LINK_DELAY) * LINK_RATE / 8.0;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(missing,
                                    CONTEXT - static_cast<uint64_t>(carried) / bytesPerToken,
                                    "no more tokens arrived than the link carries");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(missing, CONTEXT, "at most the whole context");
        const double start = std::ceil(timedOutAt / 0.010 - 1e-9) * 0.010;
        const double reprefilled = start + 9.4267e-5 * static_cast<double>(missing) + 2.4e-3;
        NS_TEST_ASSERT_MSG_EQ(Restores(o, 3), 1u, "restored at cell 3");
        NS_TEST_EXPECT_MSG_EQ(Restores(o, 2), 0u, "not decoded at cell 2");
        NS_TEST_EXPECT_MSG_EQ(o.lostTotal, 0u, "nothing lost");
        NS_TEST_EXPECT_MSG_EQ(o.kvReceived.at(3), ContextBytes(), "the whole cache at 3");
        const double at = First(o.restoredAt.at(3));
        NS_TEST_EXPECT_MSG_GT_OR_EQ(at, reprefilled + HopTime(), "re-prefill, then one hop");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(at, reprefilled + HopTime() + Slack(1), "plus overheads");
        NS_TEST_EXPECT_MSG_EQ(o.released.at(1).size(), 1u, "cell 1 released by cell 2");
        NS_TEST_EXPECT_MSG_EQ(Tokens(o, 3), 5u, "cell 3 decodes the 5 tokens");
    }

    double m_redirectAt; //!< s
    double m_timeout;    //!< s
};

/**
 * \ingroup edge-llm-tests
 * \brief A target that refuses the KV format (KvBits 8 against 16) ends the session at
 *        the source: besides TransferRefused, the source traces SessionLost with reason
 *        KV_FORMAT_REFUSED and counts it; the target counts nothing (one count per
 *        session).
 */
class RefusedIsLostTestCase : public MeshTestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit RefusedIsLostTestCase(const std::string& transport)
        : MeshTestCase("a refused KV format counts as one lost session, at the source", transport)
    {
    }

  private:
    void DoRun() override
    {
        const MeshOutcome o = RunMesh(m_transport, 2, {{1, 2}}, 1, {{0.010, 1, 2}}, 8);
        NS_TEST_ASSERT_MSG_EQ(o.lostTotal, 1u, "one lost session");
        NS_TEST_EXPECT_MSG_EQ(o.lostCount.at(1), 1u, "counted at the source");
        NS_TEST_EXPECT_MSG_EQ(o.lostReason.at(1),
                              uint64_t{EdgeLlmNode::KV_FORMAT_REFUSED},
                              "reason: KV format refused");
        NS_TEST_EXPECT_MSG_EQ(FirstLoss(o, 1).second, 2u, "refused by cell 2");
        NS_TEST_EXPECT_MSG_EQ(Total(o.restoredAt), 0u, "restored nowhere");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The mesh test suite: partial backhaul meshes, over TCP and UDP.
 */
class EdgeLlmMeshTestSuite : public TestSuite
{
  public:
    EdgeLlmMeshTestSuite()
        : TestSuite("edge-llm-mesh", EDGE_LLM_TEST_SYSTEM)
    {
        for (const std::string transport : {"Tcp", "Udp"})
        {
            AddTestCase(new RelayTestCase(transport), EDGE_LLM_TEST_QUICK);
            AddTestCase(new NoPathTestCase(transport), EDGE_LLM_TEST_QUICK);
            AddTestCase(new DirectNoPathTestCase(transport), EDGE_LLM_TEST_QUICK);
            AddTestCase(new RelayChainTestCase(transport), EDGE_LLM_TEST_QUICK);
            AddTestCase(new RelayAfterTimeoutTestCase(transport, 0.040, 0.010),
                        EDGE_LLM_TEST_QUICK);
            AddTestCase(new RelayAfterTimeoutTestCase(transport, 0.0449, 0.035),
                        EDGE_LLM_TEST_QUICK);
            AddTestCase(new RefusedIsLostTestCase(transport), EDGE_LLM_TEST_QUICK);
        }
    }
};

/// Static variable for test initialization
static EdgeLlmMeshTestSuite g_edgeLlmMeshTestSuite;
