/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/road-handover-scenario.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4.h"
#include "ns3/kv-datagram-header.h"
#include "ns3/kv-datagram-socket.h"
#include "ns3/llm-model-profile.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Link of the transfer cases: 1 Gbit/s, 1 ms, MTU 9000.
constexpr uint64_t LINK_BPS = 1000000000;
/// Link MTU, bytes.
constexpr uint32_t LINK_MTU = 9000;
/// DATA payload the owner derives from the MTU: MTU - IPv4 20 - UDP 8 - KV header 6.
constexpr uint32_t PAYLOAD = LINK_MTU - 28 - 6;
/// Bytes on the wire per full DATA datagram: payload + KV 6 + UDP 8 + IPv4 20 + PPP 2.
constexpr uint32_t WIRE = PAYLOAD + 6 + 8 + 20 + 2;
/// The application writes the stream in records of this size (64 KiB).
constexpr uint32_t RECORD = 65536;
/// Each record starts with 8 real bytes: MAGIC and the record's index, big-endian.
constexpr uint32_t MAGIC = 0xC0FFEE42;

/// \return the hand-computed completion time of \p bytes: payload at the link rate
///         scaled by the wire / payload ratio, plus the one-way propagation delay
double
HandComputedSeconds(uint64_t bytes)
{
    return static_cast<double>(bytes) * 8.0 * WIRE / PAYLOAD / LINK_BPS + 1e-3;
}

/// Writes `total` stream bytes as 64 KiB records whenever the send buffer has room.
struct StreamWriter
{
    Ptr<Socket> socket;  //!< Where to write
    uint64_t total{0};   //!< Bytes to write
    uint64_t written{0}; //!< Bytes written so far
    uint32_t records{0}; //!< Records written so far
    uint32_t refused{0}; //!< Send() calls that returned -1 although the room was checked

    /// Write as many records as fit.
    void Fill()
    {
        while (written < total)
        {
            const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(RECORD, total - written));
            if (socket->GetTxAvailable() < n)
            {
                return;
            }
            const uint8_t head[8] = {
                static_cast<uint8_t>(MAGIC >> 24),
                static_cast<uint8_t>(MAGIC >> 16),
                static_cast<uint8_t>(MAGIC >> 8),
                static_cast<uint8_t>(MAGIC),
                static_cast<uint8_t>(records >> 24),
                static_cast<uint8_t>(records >> 16),
                static_cast<uint8_t>(records >> 8),
                static_cast<uint8_t>(records),
            };
            Ptr<Packet> p = Create<Packet>(head, 8);
            p->AddAtEnd(Create<Packet>(n - 8)); // virtual bytes
            if (socket->Send(p, 0) != static_cast<int>(n))
            {
                ++refused;
                return;
            }
            written += n;
            ++records;
        }
    }
};

/// Reads the stream and checks every record header: order, no gap, no duplicate.
struct StreamChecker
{
    uint64_t expected{0};          //!< Bytes the writer sends
    uint64_t offset{0};            //!< Bytes received so far
    uint32_t badRecords{0};        //!< Record headers that did not match their position
    uint32_t goodRecords{0};       //!< Record headers that matched
    std::array<uint8_t, 8> head{}; //!< Header being collected
    Time done{-1};                 //!< When the last byte arrived

    /// Consume bytes read from the socket.
    void Consume(Ptr<Packet> p)
    {
        const uint32_t size = p->GetSize();
        uint32_t i = 0;
        while (i < size)
        {
            const uint64_t inRecord = offset % RECORD;
            if (inRecord < 8)
            {
                const uint32_t n =
                    static_cast<uint32_t>(std::min<uint64_t>(8 - inRecord, size - i));
                p->CreateFragment(i, n)->CopyData(head.data() + inRecord, n);
                i += n;
                offset += n;
                if (offset % RECORD == 8)
                {
                    const uint32_t magic = (uint32_t{head[0]} << 24) | (uint32_t{head[1]} << 16) |
                                           (uint32_t{head[2]} << 8) | head[3];
                    const uint32_t index = (uint32_t{head[4]} << 24) | (uint32_t{head[5]} << 16) |
                                           (uint32_t{head[6]} << 8) | head[7];
                    if (magic == MAGIC && index == offset / RECORD)
                    {
                        ++goodRecords;
                    }
                    else
                    {
                        ++badRecords;
                    }
                }
                continue;
            }
            const uint32_t n =
                static_cast<uint32_t>(std::min<uint64_t>(RECORD - inRecord, size - i));
            i += n;
            offset += n;
        }
        if (offset == expected && done.IsNegative())
        {
            done = Simulator::Now();
        }
    }

    /// \return records the writer produces for `expected` bytes
    uint32_t ExpectedRecords() const
    {
        return static_cast<uint32_t>((expected + RECORD - 1) / RECORD);
    }
};

/**
 * Two nodes on a 1 Gbit/s, 1 ms, MTU 9000 point-to-point link; on each a UDP socket
 * bound to its link address, port 9001 (EdgeLlmNode's BackhaulPort), and a
 * KvDatagramSocket fed by the UDP socket's receive callback (as EdgeLlmNode does).
 */
struct DatagramLink
{
    NodeContainer nodes;                             //!< node 0, node 1
    NetDeviceContainer devices;                      //!< their link devices
    Ipv4InterfaceContainer interfaces;               //!< their link addresses
    std::array<Ptr<Socket>, 2> udp;                  //!< shared UDP sockets
    std::array<Ptr<KvDatagramSocket>, 2> kv;         //!< the transports
    std::array<StreamWriter, 2> writer;              //!< what each node sends
    std::array<StreamChecker, 2> checker;            //!< what each node receives
    std::array<uint64_t, 2> dataTx{{0, 0}};          //!< DATA datagrams sent (Tx trace)
    std::array<uint64_t, 2> dataSeqs{{0, 0}};        //!< 1 + highest DATA sequence sent
    std::array<uint64_t, 2> retransmitTrace{{0, 0}}; //!< Retransmit trace calls
    uint64_t phyDrops{0};                            //!< datagrams the error model dropped

    DatagramLink()
    {
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(LINK_BPS)));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(LINK_MTU));
        p2p.SetChannelAttribute("Delay", StringValue("1ms"));
        devices = p2p.Install(nodes);
        InternetStackHelper internet;
        internet.Install(nodes);
        Ipv4AddressHelper addr("10.7.0.0", "255.255.255.252");
        interfaces = addr.Assign(devices);
        for (uint32_t i = 0; i < 2; ++i)
        {
            kv[i] = CreateObject<KvDatagramSocket>();
            kv[i]->SetNode(nodes.Get(i));
            kv[i]->SetAttribute("DatagramPayload", UintegerValue(PAYLOAD));
            kv[i]->SetAttribute("PacingRate", DataRateValue(DataRate(LINK_BPS)));
            udp[i] = Socket::CreateSocket(nodes.Get(i), UdpSocketFactory::GetTypeId());
            udp[i]->Bind(InetSocketAddress(interfaces.GetAddress(i), 9001));
            const Ipv4Address peer = interfaces.GetAddress(1 - i);
            Ptr<KvDatagramSocket> transport = kv[i];
            udp[i]->SetRecvCallback(
                compat::MakeCallback<void, Ptr<Socket>>([transport, peer](Ptr<Socket> s) {
                    Address from;
                    while (Ptr<Packet> p = s->RecvFrom(from))
                    {
                        if (InetSocketAddress::ConvertFrom(from).GetIpv4() == peer)
                        {
                            transport->ReceiveDatagram(p);
                        }
                    }
                }));
            writer[i].socket = kv[i];
            StreamWriter* w = &writer[i];
            StreamChecker* c = &checker[i];
            kv[i]->SetSendCallback(compat::MakeCallback<void, Ptr<Socket>, uint32_t>(
                [w](Ptr<Socket>, uint32_t) { w->Fill(); }));
            kv[i]->SetRecvCallback(compat::MakeCallback<void, Ptr<Socket>>([c](Ptr<Socket> s) {
                while (Ptr<Packet> p = s->Recv())
                {
                    c->Consume(p);
                }
            }));
            uint64_t* tx = &dataTx[i];
            uint64_t* seqs = &dataSeqs[i];
            kv[i]->TraceConnectWithoutContext(
                "Tx",
                compat::MakeCallback<void, Ptr<const Packet>, const KvDatagramHeader&>(
                    [tx, seqs](Ptr<const Packet>, const KvDatagramHeader& h) {
                        if (h.type == KvDatagramHeader::DATA)
                        {
                            ++*tx;
                            *seqs = std::max<uint64_t>(*seqs, h.sequence + 1ULL);
                        }
                    }));
            uint64_t* rt = &retransmitTrace[i];
            kv[i]->TraceConnectWithoutContext(
                "Retransmit",
                compat::MakeCallback<void, uint32_t>([rt](uint32_t) { ++*rt; }));
        }
    }

    /// Break the cycle socket -> UDP socket -> receive callback -> socket.
    ~DatagramLink()
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            udp[i]->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
            udp[i]->Close();
            kv[i]->Dispose();
        }
    }

    /// Node \p from sends \p bytes to the other node, starting at time 0 of the run.
    void Send(uint32_t from, uint64_t bytes)
    {
        writer[from].total = bytes;
        checker[1 - from].expected = bytes;
    }

    /// Wire the transports up at t = 0 (nodes initialized) and run until \p stop.
    void Run(Time stop)
    {
        compat::ScheduleNow([this]() {
            for (uint32_t i = 0; i < 2; ++i)
            {
                kv[i]->SetUdpSocket(udp[i], InetSocketAddress(interfaces.GetAddress(1 - i), 9001));
                kv[i]->Connect(InetSocketAddress(interfaces.GetAddress(1 - i), 9001));
                writer[i].Fill();
            }
        });
        Simulator::Stop(stop);
        Simulator::Run();
    }
};

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief KvDatagramHeader: DATA and ACK (0..4 SACK blocks) survive serialization, the
 *        wire layout is the documented one, and malformed byte strings (truncated, bad
 *        version, bad type, count > 4, inconsistent blocks, random bytes) are rejected
 *        without reading out of range.
 */
class KvDatagramHeaderTestCase : public TestCase
{
  public:
    KvDatagramHeaderTestCase()
        : TestCase("KV datagram header: round trips and malformed byte strings")
    {
    }

  private:
    /// \return the header read from \p bytes (nothing read past them; all or nothing)
    KvDatagramHeader Parse(const std::vector<uint8_t>& bytes)
    {
        Ptr<Packet> p = Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size()));
        KvDatagramHeader h;
        const uint32_t read = p->PeekHeader(h);
        NS_TEST_EXPECT_MSG_EQ(read,
                              h.IsValid() ? h.GetSerializedSize() : 0u,
                              "a header reads all of its bytes or none");
        return h;
    }

    /// \return the serialized bytes of \p h
    static std::vector<uint8_t> Bytes(const KvDatagramHeader& h)
    {
        Ptr<Packet> p = Create<Packet>();
        p->AddHeader(h);
        std::vector<uint8_t> out(p->GetSize());
        p->CopyData(out.data(), p->GetSize());
        return out;
    }

    void DoRun() override
    {
        // DATA with a virtual payload.
        KvDatagramHeader data;
        data.type = KvDatagramHeader::DATA;
        data.sequence = 0xA1B2C3D4;
        Ptr<Packet> p = Create<Packet>(8966);
        p->AddHeader(data);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 6u + 8966u, "DATA header is 6 bytes");
        KvDatagramHeader d2;
        p->RemoveHeader(d2);
        NS_TEST_ASSERT_MSG_EQ(d2.IsValid(), true, "DATA valid");
        NS_TEST_ASSERT_MSG_EQ(+d2.type, +KvDatagramHeader::DATA, "DATA type");
        NS_TEST_ASSERT_MSG_EQ(d2.sequence, 0xA1B2C3D4u, "sequence");
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 8966u, "payload left intact");
        const std::vector<uint8_t> dataWire = Bytes(data);
        const std::vector<uint8_t> dataExpected = {1, 1, 0xA1, 0xB2, 0xC3, 0xD4};
        NS_TEST_ASSERT_MSG_EQ((dataWire == dataExpected), true, "DATA wire bytes, big-endian");

        // ACK with 0..4 SACK blocks.
        for (uint32_t n = 0; n <= 4; ++n)
        {
            KvDatagramHeader ack;
            ack.type = KvDatagramHeader::ACK;
            ack.nextExpected = 1000;
            for (uint32_t b = 0; b < n; ++b)
            {
                ack.sackBlocks.push_back({1010 + 20 * b, 1015 + 20 * b});
            }
            const std::vector<uint8_t> wire = Bytes(ack);
            NS_TEST_ASSERT_MSG_EQ(wire.size(), 7u + 8u * n, "ACK size with " << n << " blocks");
            NS_TEST_ASSERT_MSG_EQ(+wire[6], n, "count byte");
            const KvDatagramHeader back = Parse(wire);
            NS_TEST_ASSERT_MSG_EQ(back.IsValid(), true, "ACK valid with " << n << " blocks");
            NS_TEST_ASSERT_MSG_EQ(back.nextExpected, 1000u, "cumulative ack");
            NS_TEST_ASSERT_MSG_EQ(back.sackBlocks.size(), n, "blocks");
            for (uint32_t b = 0; b < n; ++b)
            {
                NS_TEST_ASSERT_MSG_EQ(back.sackBlocks[b].start, 1010 + 20 * b, "block start");
                NS_TEST_ASSERT_MSG_EQ(back.sackBlocks[b].end, 1015 + 20 * b, "block end");
            }
            // Every proper prefix is truncated, hence invalid.
            for (std::size_t len = 0; len < wire.size(); ++len)
            {
                const std::vector<uint8_t> prefix(wire.begin(), wire.begin() + len);
                NS_TEST_ASSERT_MSG_EQ(Parse(prefix).IsValid(),
                                      false,
                                      "ACK with " << n << " blocks truncated to " << len);
            }
        }
        for (std::size_t len = 0; len < dataWire.size(); ++len)
        {
            const std::vector<uint8_t> prefix(dataWire.begin(), dataWire.begin() + len);
            NS_TEST_ASSERT_MSG_EQ(Parse(prefix).IsValid(), false, "DATA truncated to " << len);
        }

        // Bad fields.
        std::vector<uint8_t> bad = dataWire;
        bad[0] = 2;
        NS_TEST_ASSERT_MSG_EQ(Parse(bad).IsValid(), false, "bad version");
        bad = dataWire;
        bad[1] = 3;
        NS_TEST_ASSERT_MSG_EQ(Parse(bad).IsValid(), false, "bad type 3");
        bad[1] = 0;
        NS_TEST_ASSERT_MSG_EQ(Parse(bad).IsValid(), false, "bad type 0");
        // ACK, nextExpected 5, count 5, and 5 well-formed blocks: count > 4.
        std::vector<uint8_t> five = {1, 2, 0, 0, 0, 5, 5};
        for (uint32_t b = 0; b < 5; ++b)
        {
            const std::vector<uint8_t> block = {0,
                                                0,
                                                0,
                                                static_cast<uint8_t>(10 + 10 * b),
                                                0,
                                                0,
                                                0,
                                                static_cast<uint8_t>(12 + 10 * b)};
            five.insert(five.end(), block.begin(), block.end());
        }
        NS_TEST_ASSERT_MSG_EQ(Parse(five).IsValid(), false, "count 5 > 4");
        five[6] = 255;
        NS_TEST_ASSERT_MSG_EQ(Parse(five).IsValid(), false, "count 255");
        five[6] = 4;
        NS_TEST_ASSERT_MSG_EQ(Parse(five).IsValid(), true, "the same bytes with count 4");
        KvDatagramHeader inconsistent;
        inconsistent.type = KvDatagramHeader::ACK;
        inconsistent.nextExpected = 10;
        inconsistent.sackBlocks.push_back({12, 12});
        NS_TEST_ASSERT_MSG_EQ(Parse(Bytes(inconsistent)).IsValid(), false, "empty block");
        inconsistent.sackBlocks[0] = {10, 12};
        NS_TEST_ASSERT_MSG_EQ(Parse(Bytes(inconsistent)).IsValid(),
                              false,
                              "block at the cumulative ack");

        // Random byte strings: never a crash; whatever parses valid re-serializes to a
        // prefix of the input (it was read in range and field by field).
        uint32_t state = 12345;
        uint32_t valid = 0;
        for (uint32_t k = 0; k < 20000; ++k)
        {
            state = state * 1664525u + 1013904223u;
            std::vector<uint8_t> bytes((state >> 24) % 48);
            for (auto& b : bytes)
            {
                state = state * 1664525u + 1013904223u;
                b = static_cast<uint8_t>(state >> 24);
            }
            if (bytes.size() >= 2 && (k % 2) == 0)
            {
                bytes[0] = 1; // half the strings get the right version ...
                bytes[1] = static_cast<uint8_t>(1 + (k / 2) % 2); // ... and a known type
                if (bytes.size() >= 7 && bytes[1] == KvDatagramHeader::ACK)
                {
                    bytes[6] %= 6; // counts 0..5
                }
            }
            const KvDatagramHeader h = Parse(bytes);
            if (h.IsValid())
            {
                ++valid;
                const std::vector<uint8_t> again = Bytes(h);
                NS_TEST_ASSERT_MSG_EQ((again.size() <= bytes.size()), true, "read in range");
                NS_TEST_ASSERT_MSG_EQ(std::equal(again.begin(), again.end(), bytes.begin()),
                                      true,
                                      "a valid parse re-serializes to the input's prefix");
            }
        }
        NS_TEST_ASSERT_MSG_GT(valid, 0u, "some random strings are valid headers");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The Socket interface: stream type, no Bind/Listen, Connect succeeds at once,
 *        the send buffer bounds Send(), and the attribute checkers reject bad values
 *        (PacingRate 0 by name).
 */
class KvDatagramSocketApiTestCase : public TestCase
{
  public:
    KvDatagramSocketApiTestCase()
        : TestCase("KV datagram socket: Socket API and attribute checks")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<KvDatagramSocket> s = CreateObject<KvDatagramSocket>();
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("PacingRate", DataRateValue(DataRate(0))),
                              false,
                              "PacingRate 0 is rejected");
        NS_TEST_ASSERT_MSG_EQ(
            s->SetAttributeFailSafe("PacingRate", DataRateValue(DataRate("10Gb/s"))),
            true,
            "PacingRate 10 Gbit/s is accepted");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("DatagramPayload", UintegerValue(0)),
                              false,
                              "DatagramPayload 0");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("DatagramPayload", UintegerValue(65502)),
                              false,
                              "DatagramPayload beyond a UDP datagram");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("AckEvery", UintegerValue(0)),
                              false,
                              "AckEvery 0");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("DupThreshold", UintegerValue(0)),
                              false,
                              "DupThreshold 0");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("MinRto", TimeValue(Time(0))),
                              false,
                              "MinRto 0");
        NS_TEST_ASSERT_MSG_EQ(s->SetAttributeFailSafe("AckDelay", TimeValue(MicroSeconds(-1))),
                              false,
                              "negative AckDelay");
        // The checker's description names the constraint (shown by --PrintAttributes).
        TypeId::AttributeInformation info;
        NS_TEST_ASSERT_MSG_EQ(
            KvDatagramSocket::GetTypeId().LookupAttributeByName("PacingRate", &info),
            true,
            "PacingRate exists");
        NS_TEST_ASSERT_MSG_EQ(info.checker->GetUnderlyingTypeInformation(),
                              "DataRate > 0 bit/s",
                              "PacingRate's checker states its range");

        NS_TEST_ASSERT_MSG_EQ(s->GetSocketType(), Socket::NS3_SOCK_STREAM, "a stream socket");
        NS_TEST_ASSERT_MSG_EQ(s->Bind(), -1, "Bind");
        NS_TEST_ASSERT_MSG_EQ(s->GetErrno(), Socket::ERROR_OPNOTSUPP, "Bind: not supported");
        NS_TEST_ASSERT_MSG_EQ(s->Listen(), -1, "Listen");
        NS_TEST_ASSERT_MSG_EQ(s->GetErrno(), Socket::ERROR_OPNOTSUPP, "Listen: not supported");
        NS_TEST_ASSERT_MSG_EQ(s->GetTxAvailable(), 512u * 1024u, "empty send buffer, 512 KiB");
        NS_TEST_ASSERT_MSG_EQ(s->Send(Create<Packet>(512 * 1024 + 1), 0), -1, "too big");
        NS_TEST_ASSERT_MSG_EQ(s->GetErrno(), Socket::ERROR_MSGSIZE, "ERROR_MSGSIZE");
        NS_TEST_ASSERT_MSG_EQ(s->Send(Create<Packet>(100000), 0), 100000, "accepted");
        NS_TEST_ASSERT_MSG_EQ(s->GetTxAvailable(), 512u * 1024u - 100000u, "room left");
        NS_TEST_ASSERT_MSG_EQ(s->GetRxAvailable(), 0u, "nothing received");
        NS_TEST_ASSERT_MSG_EQ((s->Recv() == nullptr), true, "Recv on an empty stream");
        NS_TEST_ASSERT_MSG_EQ(s->GetErrno(), Socket::ERROR_AGAIN, "ERROR_AGAIN");

        bool connected = false;
        s->SetConnectCallback(compat::MakeCallback<void, Ptr<Socket>>(
                                  [&connected](Ptr<Socket>) { connected = true; }),
                              MakeNullCallback<void, Ptr<Socket>>());
        NS_TEST_ASSERT_MSG_EQ(s->Connect(InetSocketAddress(Ipv4Address("10.0.0.2"), 7000)),
                              0,
                              "Connect");
        NS_TEST_ASSERT_MSG_EQ(connected, false, "the connect callback is scheduled, not called");
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(connected, true, "connected at once");
        Address peer;
        NS_TEST_ASSERT_MSG_EQ(s->GetPeerName(peer), 0, "peer set by Connect");
        NS_TEST_ASSERT_MSG_EQ(InetSocketAddress::ConvertFrom(peer).GetPort(), 7000, "peer port");
        NS_TEST_ASSERT_MSG_EQ(s->Close(), 0, "Close");
        NS_TEST_ASSERT_MSG_EQ(s->GetTxAvailable(), 512u * 1024u, "Close drops the send buffer");
        NS_TEST_ASSERT_MSG_EQ(s->Send(Create<Packet>(10), 0), -1, "no Send after Close");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief 20 MB over a lossless 1 Gbit/s link: every record in order, exactly once; no
 *        retransmission; ceil(N / 8966) DATA datagrams; the transfer ends at the paced
 *        link rate, N x 9002 / 8966 x 8 / 1 Gbit/s + 1 ms (hand computation), within 2 %.
 */
class KvDatagramLosslessTestCase : public TestCase
{
  public:
    KvDatagramLosslessTestCase()
        : TestCase("KV datagram socket: 20 MB lossless at the paced link rate")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t n = 20000000;
        DatagramLink link;
        link.Send(0, n);
        link.Run(Seconds(2));
        const StreamChecker& c = link.checker[1];
        const double expected = HandComputedSeconds(n); // 0.161642 s
        std::cout << "lossless: done " << c.done.GetSeconds() << " s, hand-computed " << expected
                  << " s, DATA sent " << link.dataTx[0] << ", retransmissions "
                  << link.kv[0]->GetRetransmissions() << ", srtt "
                  << link.kv[0]->GetSrtt().GetMicroSeconds() << " us" << std::endl;
        NS_TEST_ASSERT_MSG_EQ(c.offset, n, "every byte arrived, none twice");
        NS_TEST_ASSERT_MSG_EQ(c.badRecords, 0u, "records in order");
        NS_TEST_ASSERT_MSG_EQ(c.goodRecords, c.ExpectedRecords(), "every record header seen");
        NS_TEST_ASSERT_MSG_EQ(link.writer[0].refused,
                              0u,
                              "Send() took what GetTxAvailable() allowed");
        NS_TEST_ASSERT_MSG_EQ(link.kv[0]->GetRetransmissions(), 0u, "no loss, no retransmission");
        NS_TEST_ASSERT_MSG_EQ(link.kv[0]->GetTimeouts(), 0u, "no spurious timeout");
        NS_TEST_ASSERT_MSG_EQ(link.kv[1]->GetDuplicates(), 0u, "no duplicate");
        NS_TEST_ASSERT_MSG_EQ(link.dataTx[0], (n + PAYLOAD - 1) / PAYLOAD, "ceil(N / 8966) DATA");
        NS_TEST_ASSERT_MSG_EQ(link.kv[0]->GetBytesAcked(), n, "all bytes acknowledged");
        NS_TEST_ASSERT_MSG_EQ(link.kv[0]->GetTxAvailable(), 512u * 1024u, "send buffer empty");
        NS_TEST_ASSERT_MSG_EQ_TOL(c.done.GetSeconds(), expected, 0.02 * expected, "paced rate");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief 20 MB with 1 % of the packets into the receiver lost (RateErrorModel): every
 *        record exactly once, in order; each lost datagram was retransmitted (at least
 *        as many retransmissions as drops, and few spurious ones).
 */
class KvDatagramLossTestCase : public TestCase
{
  public:
    KvDatagramLossTestCase()
        : TestCase("KV datagram socket: 1 % random loss, every byte once and in order")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        const uint64_t n = 20000000;
        DatagramLink link;
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(0.01));
        em->AssignStreams(7);
        link.devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        if (const char* pcap = std::getenv("EDGE_LLM_UDP_PCAP"))
        {
            // test/cli/kv-dissector-test.sh decodes this capture with tools/edge-llm-kv.lua
            PointToPointHelper().EnablePcap(pcap, link.devices.Get(1), false, true);
        }
        uint64_t* drops = &link.phyDrops;
        link.devices.Get(1)->TraceConnectWithoutContext(
            "PhyRxDrop",
            compat::MakeCallback<void, Ptr<const Packet>>(
                [drops](Ptr<const Packet>) { ++*drops; }));
        link.Send(0, n);
        link.Run(Seconds(5));
        const StreamChecker& c = link.checker[1];
        const uint64_t retx = link.kv[0]->GetRetransmissions();
        std::cout << "1 % loss: done " << c.done.GetSeconds() << " s (lossless hand-computed "
                  << HandComputedSeconds(n) << " s), dropped " << link.phyDrops
                  << ", retransmissions " << retx << " (trace " << link.retransmitTrace[0]
                  << "), timeouts " << link.kv[0]->GetTimeouts() << ", duplicates "
                  << link.kv[1]->GetDuplicates() << std::endl;
        NS_TEST_ASSERT_MSG_EQ(c.offset, n, "every byte arrived, none twice");
        NS_TEST_ASSERT_MSG_EQ(c.badRecords, 0u, "records in order");
        NS_TEST_ASSERT_MSG_EQ(c.goodRecords, c.ExpectedRecords(), "every record header seen");
        NS_TEST_ASSERT_MSG_GT(link.phyDrops, 0u, "the error model dropped datagrams");
        NS_TEST_ASSERT_MSG_GT(retx, 0u, "retransmissions");
        NS_TEST_ASSERT_MSG_EQ(link.retransmitTrace[0], retx, "Retransmit trace = counter");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(retx, link.phyDrops, "each drop was repaired by a resend");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(retx, link.phyDrops + link.phyDrops / 4 + 2, "few spurious");
        // A datagram may be short when the send buffer held less than 8966 bytes unsent.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(link.dataSeqs[0], (n + PAYLOAD - 1) / PAYLOAD, "datagrams");
        NS_TEST_ASSERT_MSG_EQ(link.dataTx[0], link.dataSeqs[0] + retx, "Tx = new + resent");
        NS_TEST_ASSERT_MSG_EQ(link.kv[0]->GetBytesAcked(), n, "all bytes acknowledged");
        // 1 % more datagrams and a short send-buffer stall per hole: well within 25 %.
        NS_TEST_ASSERT_MSG_LT(c.done.GetSeconds(), 1.25 * HandComputedSeconds(n), "near the rate");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The receiver's interface goes down at 20 ms for 200 ms: the transfer stalls,
 *        retransmits on timeouts (with backoff) and completes after 220 ms with every
 *        record exactly once, in order.
 */
class KvDatagramOutageTestCase : public TestCase
{
  public:
    KvDatagramOutageTestCase()
        : TestCase("KV datagram socket: 200 ms backhaul outage, transfer resumes")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t n = 20000000;
        DatagramLink link;
        Ptr<Ipv4> ipv4 = link.nodes.Get(1)->GetObject<Ipv4>();
        const uint32_t ifIndex = link.interfaces.Get(1).second;
        Simulator::Schedule(MilliSeconds(20), &Ipv4::SetDown, ipv4, ifIndex);
        Simulator::Schedule(MilliSeconds(220), &Ipv4::SetUp, ipv4, ifIndex);
        uint64_t atUp = 0;
        compat::Schedule(MilliSeconds(220), [&]() { atUp = link.checker[1].offset; });
        link.Send(0, n);
        link.Run(Seconds(5));
        const StreamChecker& c = link.checker[1];
        // Without the outage the transfer ends at HandComputedSeconds(n) = 0.1616 s; the
        // outage adds 200 ms plus the wait for the next timeout after 220 ms. The RTO
        // doubles from ~2.5 ms at each expiry, so the expiries since the first loss (just
        // before 20 ms) sum to less than twice the time already waited: the wait after
        // 220 ms is below 200 ms + 2 RTO; 0.2 s + 0.2 s bounds the delay.
        std::cout << "outage: done " << c.done.GetSeconds() << " s, bytes before the link came "
                  << "back " << atUp << ", retransmissions " << link.kv[0]->GetRetransmissions()
                  << ", timeouts " << link.kv[0]->GetTimeouts() << ", duplicates "
                  << link.kv[1]->GetDuplicates() << std::endl;
        NS_TEST_ASSERT_MSG_EQ(c.offset, n, "every byte arrived, none twice");
        NS_TEST_ASSERT_MSG_EQ(c.badRecords, 0u, "records in order");
        NS_TEST_ASSERT_MSG_EQ(c.goodRecords, c.ExpectedRecords(), "every record header seen");
        NS_TEST_ASSERT_MSG_LT(atUp, n, "the outage interrupted the transfer");
        NS_TEST_ASSERT_MSG_GT(c.done, MilliSeconds(220), "finishes after the outage");
        NS_TEST_ASSERT_MSG_LT(c.done.GetSeconds(),
                              HandComputedSeconds(n) + 0.2 + 0.2,
                              "resumes within one backed-off RTO of the link's return");
        NS_TEST_ASSERT_MSG_GT(link.kv[0]->GetRetransmissions(), 0u, "retransmissions");
        NS_TEST_ASSERT_MSG_GT(link.kv[0]->GetTimeouts(), 0u, "timeouts");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Both nodes send 5 MB at once over the same UDP sockets: both streams arrive
 *        whole and in order, each at the paced link rate (hand computation, 2 %).
 */
class KvDatagramBidirectionalTestCase : public TestCase
{
  public:
    KvDatagramBidirectionalTestCase()
        : TestCase("KV datagram socket: both directions at once")
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t n = 5000000;
        DatagramLink link;
        link.Send(0, n);
        link.Send(1, n);
        link.Run(Seconds(2));
        const double expected = HandComputedSeconds(n); // 0.041161 s
        for (uint32_t i = 0; i < 2; ++i)
        {
            const StreamChecker& c = link.checker[i];
            std::cout << "bidirectional: node " << i << " done " << c.done.GetSeconds()
                      << " s, hand-computed " << expected << " s, retransmissions "
                      << link.kv[1 - i]->GetRetransmissions() << std::endl;
            NS_TEST_ASSERT_MSG_EQ(c.offset, n, "every byte arrived, none twice");
            NS_TEST_ASSERT_MSG_EQ(c.badRecords, 0u, "records in order");
            NS_TEST_ASSERT_MSG_EQ(c.goodRecords, c.ExpectedRecords(), "every record seen");
            NS_TEST_ASSERT_MSG_EQ(link.kv[1 - i]->GetRetransmissions(), 0u, "no loss");
            NS_TEST_ASSERT_MSG_EQ_TOL(c.done.GetSeconds(), expected, 0.02 * expected, "rate");
        }
        Simulator::Destroy();
    }
};

/**
 * \brief Sets ns3::EdgeLlmBackhaulTransport::Transport (and optionally other defaults) for one run
 *        and puts the defaults back afterwards, so the other cases see the usual ones.
 */
struct ScopedDefaults
{
    std::vector<std::pair<std::string, std::string>> restore; //!< name, value to put back

    /// Set \p name to \p value; \p old is the value to restore.
    void Set(const std::string& name, const std::string& value, const std::string& old)
    {
        Config::SetDefault(name, StringValue(value));
        restore.emplace_back(name, old);
    }

    ~ScopedDefaults()
    {
        for (const auto& [name, value] : restore)
        {
            Config::SetDefault(name, StringValue(value));
        }
    }
};

/// \return the paper's prefill time p(n) = a n + b (RoadHandoverConfig's a, b; c = 0), s
double
LinearPrefillSeconds(const RoadHandoverConfig& cfg, uint64_t tokens)
{
    return cfg.prefillA * static_cast<double>(tokens) + cfg.prefillB;
}

/**
 * \ingroup edge-llm-tests
 * \brief Issue 10 item 1: a TRANSFER_REQUEST larger than the send buffer (4 bytes per
 *        forwarded token; the default buffer, 512 KiB, holds 131,069 tokens' worth after
 *        the frame and message headers) used to wait for ever for room for all of it.
 *
 * tHO at one UE, C = 131,056 tokens (the first context that hung) or 2^20 (1M): the
 * target prefills all C tokens, so the session must resume p(C) = a C + b after the
 * batch starts, which is on the first T_c boundary after the handover, plus the
 * request's own transfer time (C x 4 bytes at the link rate: 0.9 ms at 128K, 7.5 ms at
 * 1M, which can push the batch one T_c later). Hand-computed bounds: restored delay in
 * [p(C), p(C) + 2 T_c + 4 C x 8 / R_bh + 1 ms]; no KV bytes.
 */
class LongContextThoTestCase : public TestCase
{
  public:
    /**
     * \param context C, tokens
     * \param transport "Tcp" or "Udp"
     */
    LongContextThoTestCase(uint64_t context, const std::string& transport)
        : TestCase("tHO at C = " + std::to_string(context) + " tokens over " + transport +
                   ": the TRANSFER_REQUEST larger than the send buffer gets through"),
          m_context(context),
          m_transport(transport)
    {
    }

  private:
    void DoRun() override
    {
        ScopedDefaults defaults;
        defaults.Set("ns3::EdgeLlmBackhaulTransport::Transport", m_transport, "Tcp");
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg;
        cfg.road.numUes = 1;
        cfg.road.contextMin = m_context;
        cfg.road.contextMax = m_context;
        // Up to a million tokens on purpose (the request's size is the case), past the
        // model's window.
        cfg.allowBeyondContextWindow = true;
        cfg.tokensAfterHandover = 20;
        const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::ThoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "the UE resumes");
        NS_TEST_ASSERT_MSG_EQ(r.ues.size(), 1u, "one UE");
        const EdgeLlmUeResult& ue = r.ues.front();
        NS_TEST_ASSERT_MSG_EQ(ue.prefillTokens, ue.contextTokens, "tHO prefills everything");
        NS_TEST_ASSERT_MSG_EQ(r.kvBytesReceived, 0u, "tHO sends no KV bytes");
        const double p = LinearPrefillSeconds(cfg, ue.contextTokens);
        const double tc = cfg.batchPeriod.GetSeconds();
        const double request = 4.0 * ue.contextTokens * 8 / (cfg.backhaulGbps * 1e9);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.restoredDelay, p, "no faster than p(C)");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.restoredDelay,
                                    p + 2 * tc + request + 1e-3,
                                    "p(C) + the wait for the batch + the request");
    }

    uint64_t m_context;      //!< C, tokens
    std::string m_transport; //!< "Tcp" or "Udp"
};

/**
 * \ingroup edge-llm-tests
 * \brief Issue 10 item 1: ctHO at C = 262,144 tokens plans L > 131,069, so its
 *        TRANSFER_REQUEST exceeds the 512 KiB send buffer; before the fix nothing was sent.
 *
 * To keep the packet count low: one UE, X2 MTU 65535 and a GPU 9.4 x faster than the
 * paper's (a = 1e-5 s/token), so that ctHO prefills most of the context (L ~ 239K,
 * a 955 kB request) and transfers ~23K tokens (1.3 GB).
 *
 * Independent value: for one UE handing over at tau, ctHO's worst delay is
 * V(L) = max(w + p(L), (C - L) / R) with w = t_s - tau in [0, T_c) the wait for the batch
 * and R = R_bh / s_KV tokens/s; minimised by brute force over L for w = 0 and w = T_c,
 * which bracket the optimum. Checks: the UE resumes, every KV byte of n_tx arrives,
 * L is between the two brute-force optima, and the restored delay is within 1 %
 * (headers) of the bracket.
 */
class LongContextCtHoTestCase : public TestCase
{
  public:
    /// \param transport "Tcp" or "Udp"
    explicit LongContextCtHoTestCase(const std::string& transport)
        : TestCase("ctHO at C = 262144 tokens over " + transport +
                   ": a TRANSFER_REQUEST above the send buffer, then the KV cache"),
          m_transport(transport)
    {
    }

  private:
    void DoRun() override
    {
        ScopedDefaults defaults;
        defaults.Set("ns3::EdgeLlmBackhaulTransport::Transport", m_transport, "Tcp");
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg;
        cfg.road.numUes = 1;
        cfg.road.contextMin = 262144;
        cfg.road.contextMax = 262144;
        // Past the model's 131,072-token window on purpose: a request this large is the case.
        cfg.allowBeyondContextWindow = true;
        cfg.backhaulMtu = 65535;
        cfg.prefillA = 1e-5;
        cfg.tokensAfterHandover = 20;
        const uint64_t bytesPerToken =
            LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BytesPerToken();
        const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "the UE resumes");
        NS_TEST_ASSERT_MSG_EQ(r.ues.size(), 1u, "one UE");
        const EdgeLlmUeResult& ue = r.ues.front();
        const uint64_t c = ue.contextTokens;
        NS_TEST_ASSERT_MSG_EQ(ue.prefillTokens + ue.transferTokens, c, "n_pf + n_tx = C");
        NS_TEST_ASSERT_MSG_EQ(ue.kvBytesReceived,
                              ue.transferTokens * bytesPerToken,
                              "every KV byte arrives");
        // The request carries 4 bytes per prefilled token: more than the buffer holds.
        NS_TEST_ASSERT_MSG_GT(4 * ue.prefillTokens, 512u * 1024, "the request exceeds 512 KiB");

        const double rate = cfg.backhaulGbps * 1e9 / (8.0 * bytesPerToken); // tokens/s
        const double tc = cfg.batchPeriod.GetSeconds();
        double best[2];
        uint64_t bestL[2];
        for (int k = 0; k < 2; ++k)
        {
            const double w = k * tc;
            best[k] = static_cast<double>(c) / rate; // L = 0: transfer everything
            bestL[k] = 0;
            for (uint64_t l = 1; l <= c; ++l)
            {
                const double v =
                    std::max(w + LinearPrefillSeconds(cfg, l), static_cast<double>(c - l) / rate);
                if (v < best[k])
                {
                    best[k] = v;
                    bestL[k] = l;
                }
            }
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.prefillTokens, bestL[1], "L >= the optimum at w = T_c");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.prefillTokens, bestL[0], "L <= the optimum at w = 0");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.restoredDelay, best[0], "no faster than the fluid optimum");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.restoredDelay,
                                    1.01 * best[1],
                                    "within 1 % of the fluid optimum");
    }

    std::string m_transport; //!< "Tcp" or "Udp"
};

/**
 * \ingroup edge-llm-tests
 * \brief Issue 10 item 4: KV segments near or above the send buffer. Before, a
 *        KV_SEGMENT frame (8 + 16 header bytes + SegmentBytes) went to the socket only
 *        once all of it fitted: above 524,264 bytes (512 KiB - 24) nothing was ever sent,
 *        and just below, each frame waited for the buffer to drain (stop-and-wait).
 *
 * cHO at one UE, C = 4096 tokens, over TCP and UDP, SegmentBytes 524,264 (the last value
 * that used to send), 524,265 (the first that hung) and 16 MiB (the largest accepted).
 * Hand-computed: cHO transfers the whole cache, so the restore takes C s_KV 8 / R_bh =
 * 4096 x 57,344 x 8 / 4.5e9 = 0.41755 s at the nominal rate; packet headers (0.6 % at
 * MTU 9000), the propagation delay and the X2 set-up add less than 2 %.
 */
class LargeSegmentTestCase : public TestCase
{
  public:
    LargeSegmentTestCase()
        : TestCase("KV segments of 524264, 524265 and 16 MiB bytes: cHO at the link rate")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string transport : {"Tcp", "Udp"})
        {
            for (const std::string segment : {"524264", "524265", "16777216"})
            {
                ScopedDefaults defaults;
                defaults.Set("ns3::EdgeLlmBackhaulTransport::Transport", transport, "Tcp");
                defaults.Set("ns3::KvTransferConnection::SegmentBytes", segment, "65536");
                RngSeedManager::SetSeed(1);
                RngSeedManager::SetRun(1);
                RoadHandoverConfig cfg;
                cfg.road.numUes = 1;
                cfg.road.contextMin = 4096;
                cfg.road.contextMax = 4096;
                cfg.tokensAfterHandover = 20;
                const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::ChoScheduler");
                const std::string what = transport + ", SegmentBytes " + segment;
                NS_TEST_ASSERT_MSG_EQ(r.complete, true, what << ": the UE resumes");
                NS_TEST_ASSERT_MSG_EQ(r.ues.size(), 1u, "one UE");
                const EdgeLlmUeResult& ue = r.ues.front();
                // s_KV = 2 (K, V) x 28 layers x 4 KV heads x 128 dims x 2 bytes = 57,344
                const double hand =
                    8.0 * 57344 * static_cast<double>(ue.contextTokens) / (cfg.backhaulGbps * 1e9);
                NS_TEST_ASSERT_MSG_EQ(ue.transferTokens, ue.contextTokens, "cHO sends it all");
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.restoredDelay, hand, what << ": not above R_bh");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.restoredDelay,
                                            1.02 * hand,
                                            what << ": within 2 % of the link rate");
            }
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Issue 10 item 2: a fast backhaul must not be throttled by the connection's
 *        buffer. At 100 Gbit/s and 100 us, the bandwidth-delay product is 2.5 MB; the
 *        former fixed 512 KiB buffer capped one connection at 512 KiB x 8 / RTT = 20.6
 *        Gbit/s (cHO: restore 0.060 s against 0.011 s predicted).
 *
 * cHO, the default four UEs. Their handovers are more than 35 ms apart and each
 * transfer takes less than 12 ms plus the one-way delay d, so each UE's cache has the
 * link to itself: hand-computed restore = C_i x s_KV x 8 / R_bh + d (s_KV = 57,344
 * bytes/token). Each UE's restore (at the target) must be within 5 % of it: packet
 * headers (0.6 %) and what slow start still costs (the initial window is one
 * bandwidth-delay product) fit in that. At d = 100 us over TCP and UDP; at d = 10 ms
 * (a 312 MB buffer) over UDP only: there ns-3's TCP pays slow start and, after idle, a
 * burst that overflows the queue (doc: "Backhaul buffers and frame sizes").
 */
class FastBackhaulTestCase : public TestCase
{
  public:
    /**
     * \param transport "Tcp" or "Udp"
     * \param delay the backhaul's one-way delay
     */
    FastBackhaulTestCase(const std::string& transport, Time delay)
        : TestCase("cHO over a 100 Gbit per s, " + std::to_string(delay.GetMicroSeconds()) +
                   " us backhaul (" + transport +
                   "): each restore within 5 % of C s_KV over R_bh plus the delay"),
          m_transport(transport),
          m_delay(delay)
    {
    }

  private:
    void DoRun() override
    {
        ScopedDefaults defaults;
        defaults.Set("ns3::EdgeLlmBackhaulTransport::Transport", m_transport, "Tcp");
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        RoadHandoverConfig cfg;
        cfg.backhaulGbps = 100;
        cfg.backhaulDelay = m_delay;
        cfg.tokensAfterHandover = 20;
        const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::ChoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.complete, true, "every UE resumes");
        std::vector<double> times;
        for (const auto& ue : r.ues)
        {
            const double transfer =
                8.0 * 57344 * static_cast<double>(ue.contextTokens) / (cfg.backhaulGbps * 1e9);
            const double hand = transfer + m_delay.GetSeconds();
            NS_TEST_ASSERT_MSG_LT(transfer, 0.012, "each transfer is short");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(ue.restoredDelay, transfer, "not above the link rate");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.restoredDelay,
                                        1.05 * hand,
                                        "UE " << ue.ueId << ": within 5 % of C s_KV / R_bh + d");
            times.push_back(ue.handoverTime);
        }
        std::sort(times.begin(), times.end());
        for (std::size_t i = 1; i < times.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(times[i] - times[i - 1],
                                  0.012 + m_delay.GetSeconds(),
                                  "transfers do not overlap");
        }
    }

    std::string m_transport; //!< "Tcp" or "Udp"
    Time m_delay;            //!< One-way backhaul delay
};

/**
 * \ingroup edge-llm-tests
 * \brief The KV transfer's transports: the paced UDP socket, and frames of any size
 *        over TCP and UDP (UNIT).
 */
class EdgeLlmTransportTestSuite : public TestSuite
{
  public:
    EdgeLlmTransportTestSuite()
        : TestSuite("edge-llm-transport", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new KvDatagramHeaderTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvDatagramSocketApiTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvDatagramLosslessTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvDatagramLossTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvDatagramOutageTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new KvDatagramBidirectionalTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new LongContextThoTestCase(131056, "Tcp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new LongContextThoTestCase(131056, "Udp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new LongContextCtHoTestCase("Tcp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new LongContextCtHoTestCase("Udp"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new LargeSegmentTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new FastBackhaulTestCase("Tcp", MicroSeconds(100)), EDGE_LLM_TEST_QUICK);
        AddTestCase(new FastBackhaulTestCase("Udp", MicroSeconds(100)), EDGE_LLM_TEST_QUICK);
        AddTestCase(new FastBackhaulTestCase("Udp", MilliSeconds(10)), EDGE_LLM_TEST_QUICK);
        AddTestCase(new LongContextThoTestCase(1048576, "Tcp"), EDGE_LLM_TEST_EXTENSIVE);
        AddTestCase(new LongContextThoTestCase(1048576, "Udp"), EDGE_LLM_TEST_EXTENSIVE);
    }
};

/// Static instance registering the suite.
static EdgeLlmTransportTestSuite g_edgeLlmTransportTestSuite;
