/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/kv-transfer-connection.h"
#include "ns3/kv-transfer-header.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/token-stream-header.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

using namespace ns3;

/**
 * \ingroup edge-llm-tests
 * \brief Every header survives serialization field by field, and frame validation
 *        rejects a wrong version, an unknown type and inconsistent lengths.
 */
class KvHeaderRoundTripTestCase : public TestCase
{
  public:
    KvHeaderRoundTripTestCase()
        : TestCase("KV transfer and token headers: round trip and frame validation")
    {
    }

  private:
    /// A \p H read from 3 bytes: nothing read, invalid; then from SIZE bytes: valid.
    template <typename H>
    void CheckShort(const uint8_t (&bytes)[3])
    {
        Ptr<Packet> p = Create<Packet>(bytes, 3);
        H h;
        NS_TEST_ASSERT_MSG_EQ(p->RemoveHeader(h), 0u, H::GetTypeId().GetName() << ": nothing read");
        NS_TEST_ASSERT_MSG_EQ(h.IsValid(), false, H::GetTypeId().GetName() << ": invalid");
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 3u, "the bytes are left in place");
        Ptr<Packet> whole = Create<Packet>(H::SIZE);
        H w;
        NS_TEST_ASSERT_MSG_EQ(whole->RemoveHeader(w), H::SIZE, "a whole header is read");
        NS_TEST_ASSERT_MSG_EQ(w.truncated, false, H::GetTypeId().GetName() << ": complete");
    }

    void DoRun() override
    {
        KvTransferRequestHeader req;
        req.sessionId = 0x0102030405060708ULL;
        req.ueAddress = 0x07000002;
        req.uePort = 9002;
        req.sourceCellId = 1;
        req.handoverTimeNs = 1234567890123LL;
        req.contextTokens = 4096;
        req.prefillLength = 380;
        req.prefillTokens = 380;
        req.transferTokens = 3716;
        req.batchId = 7;
        req.batchSize = 4;
        req.bytesPerToken = 57344;
        req.tokensGenerated = 55;
        req.maxNewTokens = 2000;
        req.flags = KvTransferRequestHeader::IMPORTANCE_ORDERED;
        req.kvDeadlineNs = 1234987654321LL;
        KvFrameHeader frame;
        frame.type = KvFrameHeader::TRANSFER_REQUEST;
        frame.messageLength = KvTransferRequestHeader::SIZE;
        frame.payloadLength = 380 * 4;
        Ptr<Packet> p = Create<Packet>(frame.payloadLength);
        p->AddHeader(req);
        p->AddHeader(frame);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 8u + 68u + 1520u, "frame size on the wire");
        KvFrameHeader f2;
        KvTransferRequestHeader r2;
        p->RemoveHeader(f2);
        p->RemoveHeader(r2);
        NS_TEST_ASSERT_MSG_EQ(f2.IsValid(), true, "valid frame");
        NS_TEST_ASSERT_MSG_EQ(+f2.type, +KvFrameHeader::TRANSFER_REQUEST, "type");
        NS_TEST_ASSERT_MSG_EQ(f2.payloadLength, 1520u, "payload length");
        NS_TEST_ASSERT_MSG_EQ(r2.sessionId, req.sessionId, "sessionId");
        NS_TEST_ASSERT_MSG_EQ(r2.ueAddress, req.ueAddress, "ueAddress");
        NS_TEST_ASSERT_MSG_EQ(r2.uePort, req.uePort, "uePort");
        NS_TEST_ASSERT_MSG_EQ(r2.sourceCellId, req.sourceCellId, "sourceCellId");
        NS_TEST_ASSERT_MSG_EQ(r2.handoverTimeNs, req.handoverTimeNs, "handoverTimeNs");
        NS_TEST_ASSERT_MSG_EQ(r2.contextTokens, req.contextTokens, "contextTokens");
        NS_TEST_ASSERT_MSG_EQ(r2.prefillLength, req.prefillLength, "prefillLength");
        NS_TEST_ASSERT_MSG_EQ(r2.prefillTokens, req.prefillTokens, "prefillTokens");
        NS_TEST_ASSERT_MSG_EQ(r2.transferTokens, req.transferTokens, "transferTokens");
        NS_TEST_ASSERT_MSG_EQ(r2.batchId, req.batchId, "batchId");
        NS_TEST_ASSERT_MSG_EQ(r2.batchSize, req.batchSize, "batchSize");
        NS_TEST_ASSERT_MSG_EQ(r2.bytesPerToken, req.bytesPerToken, "bytesPerToken");
        NS_TEST_ASSERT_MSG_EQ(r2.tokensGenerated, req.tokensGenerated, "tokensGenerated");
        NS_TEST_ASSERT_MSG_EQ(r2.maxNewTokens, req.maxNewTokens, "maxNewTokens");
        NS_TEST_ASSERT_MSG_EQ(r2.flags, req.flags, "flags");
        NS_TEST_ASSERT_MSG_EQ(r2.kvDeadlineNs, req.kvDeadlineNs, "kvDeadlineNs");

        // Big-endian on the wire: the first frame bytes are version, type, length.
        uint8_t raw[8];
        Ptr<Packet> q = Create<Packet>();
        q->AddHeader(frame);
        q->CopyData(raw, 8);
        NS_TEST_ASSERT_MSG_EQ(+raw[0], 1, "version byte");
        NS_TEST_ASSERT_MSG_EQ(+raw[1], 1, "type byte");
        NS_TEST_ASSERT_MSG_EQ(+raw[3], 68, "message length, low byte (big-endian)");

        KvFrameHeader bad = frame;
        bad.version = 2;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "unknown version");
        bad = frame;
        bad.type = 99;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "unknown type");
        bad = frame;
        bad.messageLength = 67;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "message length must match the type");
        bad.type = KvFrameHeader::TRANSFER_COMPLETE;
        bad.messageLength = KvTransferCompleteHeader::SIZE;
        bad.payloadLength = 1;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "TRANSFER_COMPLETE carries no payload");
        // The pre-transfer messages (14..18) and the idle-cache ones (19, 20) carry a
        // KvTransferCompleteHeader; 21 is unknown.
        for (uint8_t type = 14; type <= 21; ++type)
        {
            bad.type = type;
            bad.payloadLength = 0;
            NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), (type <= 20), "type " << +type);
            bad.payloadLength = 1;
            NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "type " << +type << " with a payload");
        }

        // TRANSFER_RESPONSE and TRANSFER_STATUS: field order and sizes as documented.
        KvTransferResponseHeader resp;
        resp.sessionId = 0x1122334455667788ULL;
        resp.bytesPerToken = 28672;
        resp.result = KvTransferResponseHeader::REFUSED_KV_FORMAT;
        Ptr<Packet> rp = Create<Packet>();
        rp->AddHeader(resp);
        NS_TEST_ASSERT_MSG_EQ(rp->GetSize(), 16u, "TRANSFER_RESPONSE size");
        uint8_t rraw[16];
        rp->CopyData(rraw, 16);
        NS_TEST_ASSERT_MSG_EQ(+rraw[0], 0x11, "sessionId first, big-endian");
        NS_TEST_ASSERT_MSG_EQ(+rraw[10], 0x70, "bytesPerToken 28672 = 0x00007000");
        NS_TEST_ASSERT_MSG_EQ(+rraw[12], 1, "result byte");
        KvTransferResponseHeader resp2;
        rp->RemoveHeader(resp2);
        NS_TEST_ASSERT_MSG_EQ(resp2.sessionId, resp.sessionId, "response sessionId");
        NS_TEST_ASSERT_MSG_EQ(resp2.bytesPerToken, 28672u, "response bytesPerToken");
        NS_TEST_ASSERT_MSG_EQ(+resp2.result, 1, "response result");
        KvTransferStatusHeader st;
        st.sessionId = 5;
        st.receivedBytes = 0x0000000100000002ULL;
        st.state = KvTransferStatusHeader::RESTORED;
        Ptr<Packet> sp = Create<Packet>();
        sp->AddHeader(st);
        NS_TEST_ASSERT_MSG_EQ(sp->GetSize(), 20u, "TRANSFER_STATUS size");
        uint8_t sraw[20];
        sp->CopyData(sraw, 20);
        NS_TEST_ASSERT_MSG_EQ(+sraw[11], 1, "receivedBytes high word");
        NS_TEST_ASSERT_MSG_EQ(+sraw[15], 2, "receivedBytes low word");
        NS_TEST_ASSERT_MSG_EQ(+sraw[16], 2, "state byte: RESTORED");
        KvTransferStatusHeader st2;
        sp->RemoveHeader(st2);
        NS_TEST_ASSERT_MSG_EQ(st2.receivedBytes, st.receivedBytes, "status receivedBytes");
        NS_TEST_ASSERT_MSG_EQ(+st2.state, +KvTransferStatusHeader::RESTORED, "status state");
        bad = frame;
        bad.type = KvFrameHeader::TRANSFER_STATUS;
        bad.messageLength = KvTransferStatusHeader::SIZE;
        bad.payloadLength = 0;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), true, "a TRANSFER_STATUS frame");
        bad.messageLength = KvTransferResponseHeader::SIZE;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "TRANSFER_STATUS is 20 bytes");
        bad.type = KvFrameHeader::TRANSFER_RESPONSE;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), true, "a TRANSFER_RESPONSE frame");
        bad.payloadLength = 4;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "TRANSFER_RESPONSE carries no payload");

        // A byte string shorter than a header leaves it invalid and is not read past.
        const uint8_t three[3] = {1, 1, 0};
        CheckShort<KvFrameHeader>(three);
        CheckShort<KvTransferRequestHeader>(three);
        CheckShort<KvSegmentHeader>(three);
        CheckShort<KvTransferCompleteHeader>(three);
        CheckShort<KvBatchCloseHeader>(three);
        CheckShort<KvRedirectHeader>(three);
        CheckShort<KvTransferResponseHeader>(three);
        CheckShort<KvTransferStatusHeader>(three);
        CheckShort<KvPlanHeader>(three);

        // PLAN_REQUEST (variable length) and PLAN: field order and sizes as documented.
        KvPlanRequestHeader pr;
        pr.requestId = 7;
        pr.replyByNs = -5;
        pr.planningBitRate = 4500000000ULL;
        pr.backhaulFreeAtNs = 1000000000LL;
        pr.bytesPerToken = 57344;
        pr.pathDelay = 0.5; // 0x3FE0000000000000
        pr.requestTime = 1e-6;
        pr.idTimePerToken = 3.2e-8;
        pr.closeAhead = -2.0; // 0xC000000000000000 (the header carries any double)
        pr.members = {{0x0102030405060708ULL, 1004000000LL, 3000}, {12, 1000000000LL, 2000}};
        Ptr<Packet> prp = Create<Packet>();
        prp->AddHeader(pr);
        NS_TEST_ASSERT_MSG_EQ(prp->GetSize(),
                              72u + 2 * 20u,
                              "PLAN_REQUEST size: 72 + 20 per member");
        uint8_t prraw[112];
        prp->CopyData(prraw, 112);
        NS_TEST_ASSERT_MSG_EQ(+prraw[3], 7, "requestId first, big-endian");
        NS_TEST_ASSERT_MSG_EQ(+prraw[5], 2, "memberCount");
        NS_TEST_ASSERT_MSG_EQ(+prraw[15], 0xFB, "replyByNs -5, two's complement");
        NS_TEST_ASSERT_MSG_EQ(+prraw[40], 0x3F, "pathDelay 0.5: IEEE 754, big-endian");
        NS_TEST_ASSERT_MSG_EQ(+prraw[41], 0xE0, "pathDelay 0.5, second byte");
        NS_TEST_ASSERT_MSG_EQ(+prraw[64], 0xC0, "closeAhead -2 at byte 64");
        NS_TEST_ASSERT_MSG_EQ(+prraw[72], 1, "the first member's sessionId at byte 72");
        NS_TEST_ASSERT_MSG_EQ(+prraw[91], 0xB8, "its context 3000 = 0x0BB8 ends at byte 91");
        // Fewer bytes than the member count says: nothing read, invalid.
        Ptr<Packet> cut = prp->CreateFragment(0, 111);
        KvPlanRequestHeader prCut;
        NS_TEST_ASSERT_MSG_EQ(cut->RemoveHeader(prCut), 0u, "a cut PLAN_REQUEST reads nothing");
        NS_TEST_ASSERT_MSG_EQ(prCut.IsValid(), false, "a cut PLAN_REQUEST is invalid");
        KvPlanRequestHeader pr2;
        NS_TEST_ASSERT_MSG_EQ(prp->RemoveHeader(pr2), 112u, "a whole PLAN_REQUEST is read");
        NS_TEST_ASSERT_MSG_EQ(pr2.IsValid(), true, "valid");
        NS_TEST_ASSERT_MSG_EQ(pr2.requestId, 7u, "requestId");
        NS_TEST_ASSERT_MSG_EQ(pr2.replyByNs, -5, "replyByNs");
        NS_TEST_ASSERT_MSG_EQ(pr2.planningBitRate, pr.planningBitRate, "planningBitRate");
        NS_TEST_ASSERT_MSG_EQ(pr2.backhaulFreeAtNs, pr.backhaulFreeAtNs, "backhaulFreeAtNs");
        NS_TEST_ASSERT_MSG_EQ(pr2.bytesPerToken, 57344u, "bytesPerToken");
        NS_TEST_ASSERT_MSG_EQ(pr2.pathDelay, 0.5, "pathDelay");
        NS_TEST_ASSERT_MSG_EQ(pr2.requestTime, 1e-6, "requestTime, bit for bit");
        NS_TEST_ASSERT_MSG_EQ(pr2.idTimePerToken, 3.2e-8, "idTimePerToken, bit for bit");
        NS_TEST_ASSERT_MSG_EQ(pr2.closeAhead, -2.0, "closeAhead");
        NS_TEST_ASSERT_MSG_EQ(pr2.members.size(), 2u, "members");
        NS_TEST_ASSERT_MSG_EQ(pr2.members[0].sessionId, pr.members[0].sessionId, "member session");
        NS_TEST_ASSERT_MSG_EQ(pr2.members[0].handoverTimeNs, 1004000000LL, "member tau");
        NS_TEST_ASSERT_MSG_EQ(pr2.members[1].contextTokens, 2000u, "member context");
        KvPlanHeader plan;
        plan.requestId = 7;
        plan.groupId = KvPlanHeader::GROUP_BIT | 3;
        plan.groupSize = 3;
        plan.sources = 2;
        plan.prefillLength = 2469;
        plan.batchStartNs = 1010000000LL;
        plan.planningBitRate = 2250000001ULL; // 0x861C4681
        Ptr<Packet> pp = Create<Packet>();
        pp->AddHeader(plan);
        NS_TEST_ASSERT_MSG_EQ(pp->GetSize(), 36u, "PLAN size");
        uint8_t praw[36];
        pp->CopyData(praw, 36);
        NS_TEST_ASSERT_MSG_EQ(+praw[31], 0, "planningBitRate: 8 bytes, big-endian");
        NS_TEST_ASSERT_MSG_EQ(+praw[32], 0x86, "planningBitRate's top byte");
        NS_TEST_ASSERT_MSG_EQ(+praw[35], 0x81, "planningBitRate's low byte");
        NS_TEST_ASSERT_MSG_EQ(+praw[4], 0x80, "groupId has its top bit set");
        NS_TEST_ASSERT_MSG_EQ(+praw[9], 3, "groupSize");
        NS_TEST_ASSERT_MSG_EQ(+praw[11], 2, "sources");
        KvPlanHeader plan2;
        pp->RemoveHeader(plan2);
        NS_TEST_ASSERT_MSG_EQ(plan2.groupId, plan.groupId, "groupId");
        NS_TEST_ASSERT_MSG_EQ(plan2.prefillLength, 2469u, "prefillLength");
        NS_TEST_ASSERT_MSG_EQ(plan2.batchStartNs, 1010000000LL, "batchStartNs");
        NS_TEST_ASSERT_MSG_EQ(plan2.planningBitRate, 2250000001ULL, "planningBitRate");
        bad = frame;
        bad.type = KvFrameHeader::PLAN_REQUEST;
        bad.payloadLength = 0;
        bad.messageLength = 72;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), true, "a PLAN_REQUEST of no member");
        bad.messageLength = 112;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), true, "a PLAN_REQUEST of two members");
        bad.messageLength = 111;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "a PLAN_REQUEST of 1.95 members");
        bad.messageLength = 71;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "shorter than a PLAN_REQUEST");
        bad.type = KvFrameHeader::PLAN;
        bad.messageLength = 36;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), true, "a PLAN frame");
        bad.payloadLength = 1;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "PLAN carries no payload");
        bad.payloadLength = 0;
        bad.messageLength = 28;
        NS_TEST_ASSERT_MSG_EQ(bad.IsValid(), false, "a PLAN of the old 28 bytes");

        EdgeLlmTokenHeader tok;
        tok.sessionId = 42;
        tok.tokenIndex = 17;
        tok.cellId = 2;
        Ptr<Packet> t = Create<Packet>(4);
        t->AddHeader(tok);
        EdgeLlmTokenHeader tok2;
        t->RemoveHeader(tok2);
        NS_TEST_ASSERT_MSG_EQ(tok2.sessionId, 42u, "token session");
        NS_TEST_ASSERT_MSG_EQ(tok2.tokenIndex, 17u, "token index");
        NS_TEST_ASSERT_MSG_EQ(tok2.cellId, 2u, "token cell");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The stream parser on malformed input: a valid TRANSFER_COMPLETE split across
 *        three chunks is delivered once; then a frame with version 2 is counted as a
 *        protocol error and nothing after it is parsed, not even a valid frame.
 */
class KvParserErrorTestCase : public TestCase
{
  public:
    KvParserErrorTestCase()
        : TestCase("KV stream parser: split frames parse, a malformed frame stops the stream")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<KvTransferConnection> c = CreateObject<KvTransferConnection>();
        std::vector<uint64_t> completed;
        c->SetMessageCallback(compat::MakeCallback<void, const KvFrameHeader&, Ptr<Packet>>(
            [&completed](const KvFrameHeader& frame, Ptr<Packet> message) {
                if (frame.type == KvFrameHeader::TRANSFER_COMPLETE)
                {
                    KvTransferCompleteHeader h;
                    message->RemoveHeader(h);
                    completed.push_back(h.sessionId);
                }
            }));
        auto frameOf = [](uint64_t session, uint8_t version) {
            KvTransferCompleteHeader done;
            done.sessionId = session;
            done.totalBytes = 1000;
            KvFrameHeader frame;
            frame.version = version;
            frame.type = KvFrameHeader::TRANSFER_COMPLETE;
            frame.messageLength = KvTransferCompleteHeader::SIZE;
            Ptr<Packet> p = Create<Packet>();
            p->AddHeader(done);
            p->AddHeader(frame);
            return p;
        };
        Ptr<Packet> good = frameOf(7, KvFrameHeader::VERSION);
        NS_TEST_ASSERT_MSG_EQ(good->GetSize(), 24u, "8 + 16 bytes");
        c->ReceiveBytes(good->CreateFragment(0, 3));
        c->ReceiveBytes(good->CreateFragment(3, 10));
        NS_TEST_ASSERT_MSG_EQ(completed.size(), 0u, "not before the last byte");
        c->ReceiveBytes(good->CreateFragment(13, 11));
        NS_TEST_ASSERT_MSG_EQ(completed.size(), 1u, "one message");
        NS_TEST_ASSERT_MSG_EQ(completed.front(), 7u, "session 7");
        NS_TEST_ASSERT_MSG_EQ(c->GetProtocolErrors(), 0u, "no error yet");
        Ptr<Packet> bad = frameOf(8, 2);
        bad->AddAtEnd(frameOf(9, KvFrameHeader::VERSION));
        c->ReceiveBytes(bad);
        NS_TEST_ASSERT_MSG_EQ(c->GetProtocolErrors(), 1u, "the version-2 frame is counted");
        NS_TEST_ASSERT_MSG_EQ(completed.size(), 1u, "nothing parsed after it");
        c->ReceiveBytes(frameOf(10, KvFrameHeader::VERSION));
        NS_TEST_ASSERT_MSG_EQ(completed.size(), 1u, "the stream stays stopped");
        NS_TEST_ASSERT_MSG_EQ(c->GetProtocolErrors(), 1u, "one error in all");
        c->Dispose();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Two KvTransferConnections over a 1 Gbit/s point-to-point link: every byte
 *        arrives, the control message arrives first, and the backhaul serves one
 *        session at a time in earliest-deadline order (ctHO Sec. III-B).
 *
 * Jobs queued at t = 0 before the connection is up: A (1 MB, deadline 2 s),
 * B (300 kB, deadline 1 s), C (0 B, deadline 1.5 s). EDF sends B, then C's completion,
 * then A; so when B's last byte arrives none of A's has. HasKvBacklog() is true while
 * jobs are queued, when A's last frame is being written and when it has arrived but is
 * not yet acknowledged (only the socket holds it then), false
 * once everything is acknowledged and while only a control message is in the socket
 * (which GetBacklogBytes() counts).
 */
class KvConnectionEdfTestCase : public TestCase
{
  public:
    KvConnectionEdfTestCase()
        : TestCase("KV connection: bytes conserved, control first, EDF one session at a time")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
        p2p.SetChannelAttribute("Delay", StringValue("1ms"));
        NetDeviceContainer devs = p2p.Install(nodes);
        if (const char* pcap = std::getenv("EDGE_LLM_PCAP"))
        {
            // test/cli/kv-dissector-test.sh decodes this capture with tools/edge-llm-kv.lua
            p2p.EnablePcap(pcap, devs.Get(1), false, true);
        }
        InternetStackHelper internet;
        internet.Install(nodes);
        Ipv4AddressHelper addr("10.9.0.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = addr.Assign(devs);

        Ptr<KvTransferConnection> tx = CreateObject<KvTransferConnection>();
        Ptr<KvTransferConnection> rx = CreateObject<KvTransferConnection>();
        tx->SetScheduler(CreateObject<CtHoScheduler>());

        std::map<uint64_t, uint64_t> received;
        std::map<uint64_t, Time> doneAt;
        const std::map<uint64_t, uint64_t> sizes = {{1, 1000000}, {2, 300000}, {3, 0}};
        uint64_t aBytesWhenBDone = UINT64_MAX;
        std::vector<uint8_t> messageOrder;
        std::vector<uint64_t> completionOrder;
        bool kvWhenLastArrived = false;
        rx->SetKvBytesCallback(
            compat::MakeCallback<void, uint64_t, uint64_t>([&](uint64_t s, uint64_t n) {
                received[s] += n;
                if (s == 2 && received[2] == sizes.at(2))
                {
                    aBytesWhenBDone = received[1];
                }
            }));
        rx->SetMessageCallback(compat::MakeCallback<void, const KvFrameHeader&, Ptr<Packet>>(
            [&](const KvFrameHeader& f, Ptr<Packet> m) {
                messageOrder.push_back(f.type);
                if (f.type == KvFrameHeader::TRANSFER_COMPLETE)
                {
                    KvTransferCompleteHeader c;
                    m->RemoveHeader(c);
                    doneAt[c.sessionId] = Simulator::Now();
                    if (c.sessionId == 1)
                    {
                        // Everything written, its ACKs a path delay away: A's last KV
                        // bytes are still unacknowledged in the sender's socket.
                        kvWhenLastArrived = tx->HasKvBacklog();
                    }
                    completionOrder.push_back(c.sessionId);
                    NS_TEST_EXPECT_MSG_EQ(c.totalBytes, sizes.at(c.sessionId), "total bytes");
                }
            }));

        Ptr<Socket> listener = Socket::CreateSocket(nodes.Get(1), TcpSocketFactory::GetTypeId());
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9001));
        listener->Listen();
        listener->SetAcceptCallback(
            MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
            compat::MakeCallback<void, Ptr<Socket>, const Address&>(
                [&](Ptr<Socket> s, const Address&) { rx->SetSocket(s, true); }));
        Ptr<Socket> client = Socket::CreateSocket(nodes.Get(0), TcpSocketFactory::GetTypeId());
        client->SetAttribute("SegmentSize", UintegerValue(9000 - 52));

        KvTransferRequestHeader req;
        req.sessionId = 9;
        tx->SendMessage(KvFrameHeader::TRANSFER_REQUEST, req, 4000);
        tx->AddTransfer({1, Seconds(0), Seconds(2), sizes.at(1)});
        tx->AddTransfer({2, Seconds(0), Seconds(1), sizes.at(2)});
        tx->AddTransfer({3, Seconds(0), Seconds(1.5), sizes.at(3)});
        // Sockets may only send once the nodes are initialized, i.e. inside the run.
        compat::ScheduleNow([&]() {
            client->Bind();
            client->Connect(InetSocketAddress(ifs.GetAddress(1), 9001));
            tx->SetSocket(client, false);
        });
        // HasKvBacklog: KV queued or still in the transport, never control messages alone.
        const bool kvQueuedAtStart = tx->HasKvBacklog();
        bool kvWhenLastFramed = false;
        tx->SetTransferSentCallback(compat::MakeCallback<void, uint64_t>([&](uint64_t s) {
            if (s == 1)
            {
                kvWhenLastFramed = tx->HasKvBacklog(); // its last frame is still unacked
            }
        }));
        bool kvAfterAcked = true;
        uint64_t controlBacklog = 0;
        bool kvWithControlOnly = true;
        compat::Schedule(Seconds(3), [&]() {
            kvAfterAcked = tx->HasKvBacklog();
            KvTransferRequestHeader late;
            late.sessionId = 10;
            tx->SendMessage(KvFrameHeader::TRANSFER_REQUEST, late, 0);
            controlBacklog = tx->GetBacklogBytes();
            kvWithControlOnly = tx->HasKvBacklog();
        });

        Simulator::Stop(Seconds(5));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(kvQueuedAtStart, true, "jobs queued: KV backlog");
        NS_TEST_EXPECT_MSG_EQ(kvWhenLastFramed, true, "last KV frame being written: KV backlog");
        NS_TEST_EXPECT_MSG_EQ(kvWhenLastArrived, true, "last KV bytes unacknowledged: KV backlog");
        NS_TEST_EXPECT_MSG_EQ(kvAfterAcked, false, "every KV byte acknowledged: none");
        NS_TEST_EXPECT_MSG_GT(controlBacklog, 0u, "a control message in the socket is backlog");
        NS_TEST_EXPECT_MSG_EQ(kvWithControlOnly, false, "but no KV backlog");

        NS_TEST_ASSERT_MSG_EQ(received[1], sizes.at(1), "A's bytes all arrive");
        NS_TEST_ASSERT_MSG_EQ(received[2], sizes.at(2), "B's bytes all arrive");
        NS_TEST_ASSERT_MSG_EQ(received.count(3), 0u, "C has no KV bytes");
        NS_TEST_ASSERT_MSG_EQ(tx->GetKvBytesSent(), 1300000u, "sent");
        NS_TEST_ASSERT_MSG_EQ(rx->GetKvBytesReceived(), 1300000u, "received = sent");
        NS_TEST_ASSERT_MSG_EQ(rx->GetProtocolErrors(), 0u, "no malformed frame");
        NS_TEST_ASSERT_MSG_EQ(aBytesWhenBDone, 0u, "B (earlier deadline) goes entirely first");
        NS_TEST_ASSERT_MSG_EQ(messageOrder.empty(), false, "messages arrived");
        NS_TEST_ASSERT_MSG_EQ(+messageOrder.front(),
                              +KvFrameHeader::TRANSFER_REQUEST,
                              "the control message goes first");
        NS_TEST_ASSERT_MSG_EQ(doneAt.size(), 3u, "three completions");
        const std::vector<uint64_t> edf = {2, 3, 1}; // deadlines 1 s, 1.5 s, 2 s
        NS_TEST_ASSERT_MSG_EQ((completionOrder == edf), true, "EDF: B, then C, then A");
        NS_TEST_ASSERT_MSG_LT(doneAt[3], doneAt[1], "A finishes last");
        // 1.3 MB at 1 Gbit/s is 10.4 ms of payload; TCP's slow start and a 2 ms RTT add
        // a few RTTs: all done well within 60 ms.
        NS_TEST_ASSERT_MSG_LT(doneAt[1], MilliSeconds(60), "finishes near the link rate");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The KV transfer protocol (UNIT).
 */
class EdgeLlmProtocolTestSuite : public TestSuite
{
  public:
    EdgeLlmProtocolTestSuite()
        : TestSuite("edge-llm-protocol", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new KvHeaderRoundTripTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvConnectionEdfTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvParserErrorTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance registering the suite.
static EdgeLlmProtocolTestSuite g_edgeLlmProtocolTestSuite;
