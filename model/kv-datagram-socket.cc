/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "kv-datagram-socket.h"

#include "edge-llm-compat.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/inet6-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("KvDatagramSocket");

NS_OBJECT_ENSURE_REGISTERED(KvDatagramSocket);

namespace
{
/// Cap of the RTO backoff multiplier (MaxRto caps the RTO itself).
constexpr uint32_t MAX_BACKOFF = 1u << 16;

/// Accepts a DataRateValue of more than 0 bit/s (PacingRate).
class PositiveDataRateChecker : public DataRateChecker
{
  public:
    bool Check(const AttributeValue& value) const override
    {
        const auto* v = dynamic_cast<const DataRateValue*>(&value);
        return v != nullptr && v->Get().GetBitRate() > 0;
    }

    std::string GetValueTypeName() const override
    {
        return "ns3::DataRateValue";
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return "DataRate > 0 bit/s";
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<DataRateValue>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* src = dynamic_cast<const DataRateValue*>(&source);
        auto* dst = dynamic_cast<DataRateValue*>(&destination);
        if (src == nullptr || dst == nullptr)
        {
            return false;
        }
        *dst = *src;
        return true;
    }
};

/// \return a checker that rejects a DataRate of 0 bit/s
Ptr<const AttributeChecker>
MakePositiveDataRateChecker()
{
    return Create<PositiveDataRateChecker>();
}
} // namespace

TypeId
KvDatagramSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::KvDatagramSocket")
            .SetParent<Socket>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<KvDatagramSocket>()
            .AddAttribute("SndBufSize",
                          "Send buffer, bytes, in [1, 2^31): bytes queued unsent plus bytes "
                          "in flight not yet cumulatively acknowledged (the window).",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&KvDatagramSocket::m_sndBufSize),
                          MakeUintegerChecker<uint32_t>(1, 0x7fffffff))
            .AddAttribute("RcvBufSize",
                          "Out-of-order holding limit, bytes, in [1, 2^31): DATA datagrams "
                          "beyond a gap that would hold more are dropped and counted.",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&KvDatagramSocket::m_rcvBufSize),
                          MakeUintegerChecker<uint32_t>(1, 0x7fffffff))
            .AddAttribute(
                "DatagramPayload",
                "Largest stream bytes per DATA datagram, in [1, 65501]. The owner "
                "sets it from the link MTU: MTU - 28 (IPv4 + UDP) - 6 "
                "(KvDatagramHeader::DATA_SIZE); the default fits a 9000-byte MTU.",
                UintegerValue(8960),
                MakeUintegerAccessor(&KvDatagramSocket::m_payloadSize),
                MakeUintegerChecker<uint32_t>(1, 65535 - 28 - KvDatagramHeader::DATA_SIZE))
            .AddAttribute("PacingRate",
                          "Sending rate of DATA datagrams, > 0 bit/s; the owner sets it to the "
                          "backhaul link's rate. A datagram of n payload bytes is followed by "
                          "(n + 6 + Overhead) x 8 / PacingRate.",
                          DataRateValue(DataRate("1Gb/s")),
                          MakeDataRateAccessor(&KvDatagramSocket::m_pacingRate),
                          MakePositiveDataRateChecker())
            .AddAttribute("Overhead",
                          "Bytes per datagram below the KV header counted by pacing, in "
                          "[0, 1024]: IPv4 20 + UDP 8 + PPP 2 by default.",
                          UintegerValue(30),
                          MakeUintegerAccessor(&KvDatagramSocket::m_overhead),
                          MakeUintegerChecker<uint32_t>(0, 1024))
            .AddAttribute("AckEvery",
                          "In-order DATA datagrams per ACK, in [1, 1024].",
                          UintegerValue(2),
                          MakeUintegerAccessor(&KvDatagramSocket::m_ackEvery),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("AckDelay",
                          "Longest wait before an in-order datagram is acknowledged, in "
                          "[0, 1 s]. Also the peer's ack delay that the RTO allows for.",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&KvDatagramSocket::m_ackDelay),
                          MakeTimeChecker(Time(0), Seconds(1)))
            .AddAttribute("DupThreshold",
                          "Fast retransmit: a datagram is resent once a datagram this many "
                          "positions beyond it has been SACKed, in [1, 65535].",
                          UintegerValue(3),
                          MakeUintegerAccessor(&KvDatagramSocket::m_dupThreshold),
                          MakeUintegerChecker<uint32_t>(1, 65535))
            .AddAttribute("MinRto",
                          "Lower bound of the retransmission timeout, in [1 us, 60 s].",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&KvDatagramSocket::m_minRto),
                          MakeTimeChecker(MicroSeconds(1), Seconds(60)))
            .AddAttribute("InitialRto",
                          "Retransmission timeout before the first RTT sample, in "
                          "[1 us, 60 s].",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&KvDatagramSocket::m_initialRto),
                          MakeTimeChecker(MicroSeconds(1), Seconds(60)))
            .AddAttribute("MaxRto",
                          "Upper bound of the retransmission timeout, backoff included, in "
                          "[1 us, 600 s]; must be >= MinRto.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&KvDatagramSocket::m_maxRto),
                          MakeTimeChecker(MicroSeconds(1), Seconds(600)))
            .AddTraceSource("Tx",
                            "A datagram was sent: DATA (retransmissions included) or ACK.",
                            MakeTraceSourceAccessor(&KvDatagramSocket::m_txTrace),
                            "ns3::KvDatagramSocket::DatagramTracedCallback")
            .AddTraceSource("Rx",
                            "A well-formed datagram arrived from the peer (duplicates "
                            "included).",
                            MakeTraceSourceAccessor(&KvDatagramSocket::m_rxTrace),
                            "ns3::KvDatagramSocket::DatagramTracedCallback")
            .AddTraceSource("Retransmit",
                            "A DATA datagram was retransmitted (fast or on timeout).",
                            MakeTraceSourceAccessor(&KvDatagramSocket::m_retransmitTrace),
                            "ns3::KvDatagramSocket::RetransmitTracedCallback");
    return tid;
}

KvDatagramSocket::KvDatagramSocket()
    : m_sndBufSize(512 * 1024),
      m_rcvBufSize(512 * 1024),
      m_payloadSize(8960),
      m_pacingRate("1Gb/s"),
      m_overhead(30),
      m_ackEvery(2),
      m_ackDelay(MicroSeconds(100)),
      m_dupThreshold(3),
      m_minRto(MilliSeconds(1)),
      m_initialRto(MilliSeconds(10)),
      m_maxRto(Seconds(1))
{
    NS_LOG_FUNCTION(this);
}

KvDatagramSocket::~KvDatagramSocket()
{
    NS_LOG_FUNCTION(this);
}

void
KvDatagramSocket::DoDispose()
{
    NS_LOG_FUNCTION(this);
    Close();
    m_udp = nullptr;
    m_node = nullptr;
    Socket::DoDispose();
}

// --------------------------------------------------------------------------- owner

void
KvDatagramSocket::SetUdpSocket(Ptr<Socket> udp, const Address& peer)
{
    NS_LOG_FUNCTION(this << udp << peer);
    NS_ABORT_MSG_IF(m_pacingRate.GetBitRate() == 0,
                    "KvDatagramSocket: attribute PacingRate must be > 0 bit/s");
    NS_ABORT_MSG_IF(m_minRto > m_maxRto,
                    "KvDatagramSocket: attribute MinRto ("
                        << m_minRto.As(Time::MS) << ") exceeds MaxRto (" << m_maxRto.As(Time::MS)
                        << ")");
    NS_ABORT_MSG_UNLESS(InetSocketAddress::IsMatchingType(peer) ||
                            Inet6SocketAddress::IsMatchingType(peer),
                        "KvDatagramSocket: the peer must be an Inet(6)SocketAddress");
    NS_ABORT_MSG_IF(!udp, "KvDatagramSocket: no UDP socket");
    m_udp = udp;
    m_peer = peer;
    m_hasPeer = true;
    ScheduleSend();
}

void
KvDatagramSocket::SetNode(Ptr<Node> node)
{
    m_node = node;
}

void
KvDatagramSocket::ReceiveDatagram(Ptr<Packet> datagram)
{
    NS_LOG_FUNCTION(this << datagram);
    if (m_closed || !datagram)
    {
        return;
    }
    KvDatagramHeader header;
    datagram->PeekHeader(header); // reads at most datagram->GetSize() bytes
    if (!header.IsValid())
    {
        NS_LOG_LOGIC("malformed datagram: " << header);
        ++m_malformed;
        return;
    }
    Ptr<Packet> payload = datagram->Copy();
    payload->RemoveAtStart(header.GetSerializedSize());
    if (header.type == KvDatagramHeader::DATA)
    {
        if (payload->GetSize() == 0)
        {
            ++m_malformed;
            return;
        }
        m_rxTrace(payload, header);
        HandleData(header.sequence, payload);
    }
    else
    {
        m_rxTrace(payload, header);
        HandleAck(header);
    }
}

// --------------------------------------------------------------------------- counters

uint64_t
KvDatagramSocket::GetRetransmissions() const
{
    return m_retransmissions;
}

uint64_t
KvDatagramSocket::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
KvDatagramSocket::GetDuplicates() const
{
    return m_duplicates;
}

uint64_t
KvDatagramSocket::GetRcvBufDrops() const
{
    return m_rcvBufDrops;
}

uint64_t
KvDatagramSocket::GetMalformed() const
{
    return m_malformed;
}

uint64_t
KvDatagramSocket::GetBytesAcked() const
{
    return m_bytesAcked;
}

uint64_t
KvDatagramSocket::GetBytesReceived() const
{
    return m_bytesReceived;
}

Time
KvDatagramSocket::GetSrtt() const
{
    return m_hasRttSample ? m_srtt : Time(0);
}

Time
KvDatagramSocket::GetRto() const
{
    Time base = m_initialRto;
    if (m_hasRttSample)
    {
        // RFC 6298 with a floor G under the variance term and the peer's ack delay (taken
        // as our AckDelay) added, as QUIC's PTO (RFC 9002) does. G is DupThreshold + 1
        // full datagrams' pacing gaps: the time fast retransmit needs to see a hole, so
        // that on a link whose RTT hardly varies the timer does not pre-empt it.
        const Time g =
            (m_dupThreshold + 1) * m_pacingRate.CalculateBytesTxTime(
                                       m_payloadSize + KvDatagramHeader::DATA_SIZE + m_overhead);
        base = std::max(m_minRto, m_srtt + std::max(4 * m_rttvar, g) + m_ackDelay);
    }
    const int64_t ns = base.GetNanoSeconds();
    if (ns >= m_maxRto.GetNanoSeconds() / static_cast<int64_t>(m_backoff))
    {
        return m_maxRto;
    }
    return NanoSeconds(ns * static_cast<int64_t>(m_backoff));
}

// --------------------------------------------------------------------------- send side

Ptr<Packet>
KvDatagramSocket::TakeNewPayload()
{
    uint32_t want = static_cast<uint32_t>(std::min<uint64_t>(m_payloadSize, m_txQueuedBytes));
    Ptr<Packet> out;
    while (want > 0)
    {
        Ptr<Packet> front = m_txQueue.front();
        const uint32_t size = front->GetSize();
        const uint32_t n = std::min(want, size - m_txQueueOffset);
        Ptr<Packet> piece =
            (m_txQueueOffset == 0 && n == size) ? front : front->CreateFragment(m_txQueueOffset, n);
        if (out)
        {
            out->AddAtEnd(piece);
        }
        else
        {
            out = piece->Copy();
        }
        m_txQueueOffset += n;
        m_txQueuedBytes -= n;
        want -= n;
        if (m_txQueueOffset == size)
        {
            m_txQueue.pop_front();
            m_txQueueOffset = 0;
        }
    }
    return out;
}

bool
KvDatagramSocket::HasDataToSend() const
{
    return !m_retxQueue.empty() || m_txQueuedBytes > 0;
}

void
KvDatagramSocket::ScheduleSend()
{
    if (m_closed || !m_udp || compat::IsPending(m_sendEvent) || !HasDataToSend())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time delay = m_nextSendTime > now ? m_nextSendTime - now : Time(0);
    m_sendEvent = Simulator::Schedule(delay, &KvDatagramSocket::SendNext, this);
}

void
KvDatagramSocket::SendNext()
{
    const Time now = Simulator::Now();
    uint32_t sent = 0;
    while (!m_retxQueue.empty())
    {
        const uint32_t seq = *m_retxQueue.begin();
        m_retxQueue.erase(m_retxQueue.begin());
        auto it = m_inflight.find(seq);
        if (it == m_inflight.end())
        {
            continue; // acknowledged meanwhile
        }
        TxRecord& rec = it->second;
        rec.retransmitted = true;
        rec.lastSent = now;
        ++m_retransmissions;
        NS_LOG_LOGIC("retransmit " << seq);
        m_retransmitTrace(seq);
        Transmit(seq, rec.payload);
        sent = rec.payload->GetSize();
        break;
    }
    if (sent == 0 && m_txQueuedBytes > 0)
    {
        Ptr<Packet> payload = TakeNewPayload();
        const uint32_t seq = m_txNextSeq++;
        TxRecord rec;
        rec.payload = payload;
        rec.lastSent = now;
        m_inflight.emplace(seq, rec);
        m_unsacked.insert(m_unsacked.end(), seq);
        sent = payload->GetSize();
        m_inflightBytes += sent;
        Transmit(seq, payload);
        NotifyDataSent(sent);
    }
    if (sent == 0)
    {
        return;
    }
    m_nextSendTime =
        now + m_pacingRate.CalculateBytesTxTime(sent + KvDatagramHeader::DATA_SIZE + m_overhead);
    if (!compat::IsPending(m_rtoEvent))
    {
        ArmRto();
    }
    ScheduleSend();
}

void
KvDatagramSocket::Transmit(uint32_t seq, Ptr<Packet> payload)
{
    KvDatagramHeader header;
    header.type = KvDatagramHeader::DATA;
    header.sequence = seq;
    Ptr<Packet> datagram = payload->Copy();
    datagram->AddHeader(header);
    m_txTrace(payload, header);
    if (m_udp->SendTo(datagram, 0, m_peer) < 0)
    {
        // Lost like a datagram dropped on the way: the ARQ recovers it.
        NS_LOG_LOGIC("UDP send of datagram " << seq << " failed: " << m_udp->GetErrno());
    }
}

void
KvDatagramSocket::HandleAck(const KvDatagramHeader& ack)
{
    NS_LOG_FUNCTION(this << ack);
    if (ack.nextExpected > m_txNextSeq)
    {
        ++m_malformed; // acknowledges datagrams never sent
        return;
    }
    const Time now = Simulator::Now();
    bool newlyAcked = false;
    bool haveSample = false;
    Time sampleSent;
    auto consider = [&](const TxRecord& rec) {
        newlyAcked = true;
        if (!rec.retransmitted && (!haveSample || rec.lastSent > sampleSent))
        {
            haveSample = true;
            sampleSent = rec.lastSent;
        }
    };

    // Cumulative part: free the send buffer.
    uint64_t freed = 0;
    while (!m_inflight.empty() && m_inflight.begin()->first < ack.nextExpected)
    {
        auto it = m_inflight.begin();
        if (!it->second.sacked)
        {
            consider(it->second);
            m_unsacked.erase(it->first);
        }
        freed += it->second.payload->GetSize();
        m_inflight.erase(it);
    }
    m_retxQueue.erase(m_retxQueue.begin(), m_retxQueue.lower_bound(ack.nextExpected));

    // SACK blocks: only datagrams not SACKed before are visited (O(log n) each).
    for (const KvDatagramHeader::SackBlock& b : ack.sackBlocks)
    {
        const uint32_t start = std::max(b.start, ack.nextExpected);
        const uint32_t end = std::min(b.end, m_txNextSeq);
        if (start >= end)
        {
            continue;
        }
        m_sackHigh = std::max(m_sackHigh, end);
        for (auto it = m_unsacked.lower_bound(start); it != m_unsacked.end() && *it < end;)
        {
            TxRecord& rec = m_inflight.at(*it);
            rec.sacked = true;
            consider(rec);
            m_retxQueue.erase(*it);
            it = m_unsacked.erase(it);
        }
    }

    if (haveSample)
    {
        UpdateRtt(now - sampleSent);
    }
    if (newlyAcked)
    {
        m_backoff = 1;
    }

    // Fast retransmit: holes DupThreshold or more positions below the highest SACK.
    for (auto it = m_unsacked.begin();
         it != m_unsacked.end() &&
         static_cast<uint64_t>(*it) + m_dupThreshold < static_cast<uint64_t>(m_sackHigh);
         ++it)
    {
        if (m_retxQueue.count(*it) != 0)
        {
            continue;
        }
        const TxRecord& rec = m_inflight.at(*it);
        if (!rec.retransmitted || now - rec.lastSent >= GetRto())
        {
            NS_LOG_LOGIC("fast retransmit of " << *it << " (SACKed up to " << m_sackHigh << ")");
            m_retxQueue.insert(*it);
        }
    }

    ArmRto();
    ScheduleSend();
    if (freed > 0)
    {
        m_inflightBytes -= freed;
        m_bytesAcked += freed;
        NotifySend(GetTxAvailable());
    }
}

void
KvDatagramSocket::UpdateRtt(Time sample)
{
    const int64_t r = sample.GetNanoSeconds();
    if (!m_hasRttSample)
    {
        m_hasRttSample = true;
        m_srtt = NanoSeconds(r);
        m_rttvar = NanoSeconds(r / 2);
        return;
    }
    const int64_t srtt = m_srtt.GetNanoSeconds();
    const int64_t dev = srtt > r ? srtt - r : r - srtt;
    m_rttvar = NanoSeconds((3 * m_rttvar.GetNanoSeconds() + dev) / 4);
    m_srtt = NanoSeconds((7 * srtt + r) / 8);
}

Time
KvDatagramSocket::OldestSendTime() const
{
    if (!m_unsacked.empty())
    {
        return m_inflight.at(*m_unsacked.begin()).lastSent;
    }
    return m_inflight.begin()->second.lastSent;
}

void
KvDatagramSocket::ArmRto()
{
    m_rtoEvent.Cancel();
    if (m_closed || m_inflight.empty())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time deadline = OldestSendTime() + GetRto();
    m_rtoEvent = Simulator::Schedule(deadline > now ? deadline - now : Time(0),
                                     &KvDatagramSocket::OnRto,
                                     this);
}

void
KvDatagramSocket::OnRto()
{
    if (m_inflight.empty())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time rto = GetRto();
    const Time deadline = OldestSendTime() + rto;
    const uint32_t oldest = m_unsacked.empty() ? m_inflight.begin()->first : *m_unsacked.begin();
    if (deadline > now || m_retxQueue.count(oldest) != 0)
    {
        // The oldest datagram was (or is about to be) resent since the timer was armed.
        m_rtoEvent = Simulator::Schedule(deadline > now ? deadline - now : rto,
                                         &KvDatagramSocket::OnRto,
                                         this);
        return;
    }
    ++m_timeouts;
    NS_LOG_LOGIC("RTO " << rto.As(Time::MS) << " expired; oldest " << oldest);
    m_retxQueue.insert(oldest);
    for (uint32_t seq : m_unsacked)
    {
        if (now - m_inflight.at(seq).lastSent >= rto)
        {
            m_retxQueue.insert(seq);
        }
    }
    m_backoff = std::min(MAX_BACKOFF, 2 * m_backoff);
    m_rtoEvent = Simulator::Schedule(GetRto(), &KvDatagramSocket::OnRto, this);
    ScheduleSend();
}

// --------------------------------------------------------------------------- receive side

void
KvDatagramSocket::HandleData(uint32_t seq, Ptr<Packet> payload)
{
    NS_LOG_FUNCTION(this << seq << payload->GetSize());
    if (seq < m_rxNext || m_rxHeld.count(seq) != 0)
    {
        ++m_duplicates;
        SendAck();
        return;
    }
    if (seq != m_rxNext)
    {
        const uint32_t size = payload->GetSize();
        if (m_rxHeldBytes + size > m_rcvBufSize)
        {
            ++m_rcvBufDrops;
            SendAck();
            return;
        }
        m_rxHeld.emplace(seq, payload);
        m_rxHeldBytes += size;
        m_rxLatest = seq;
        // Merge seq into the runs [start, end) of held datagrams.
        auto next = m_rxRuns.upper_bound(seq);
        const bool right = next != m_rxRuns.end() && next->first == seq + 1;
        const bool left = next != m_rxRuns.begin() && std::prev(next)->second == seq;
        if (left && right)
        {
            std::prev(next)->second = next->second;
            m_rxRuns.erase(next);
        }
        else if (left)
        {
            std::prev(next)->second = seq + 1;
        }
        else if (right)
        {
            const uint32_t end = next->second;
            m_rxRuns.erase(next);
            m_rxRuns.emplace(seq, end);
        }
        else
        {
            m_rxRuns.emplace(seq, seq + 1);
        }
        SendAck();
        return;
    }

    // In order: deliver it and whatever run it completes.
    uint64_t delivered = payload->GetSize();
    m_rxBuffer.push_back(payload);
    ++m_rxNext;
    bool filledGap = false;
    if (!m_rxRuns.empty() && m_rxRuns.begin()->first == m_rxNext)
    {
        filledGap = true;
        const uint32_t end = m_rxRuns.begin()->second;
        m_rxRuns.erase(m_rxRuns.begin());
        while (m_rxNext < end)
        {
            auto it = m_rxHeld.begin();
            NS_ASSERT(it != m_rxHeld.end() && it->first == m_rxNext);
            const uint32_t size = it->second->GetSize();
            delivered += size;
            m_rxHeldBytes -= size;
            m_rxBuffer.push_back(it->second);
            m_rxHeld.erase(it);
            ++m_rxNext;
        }
    }
    m_rxAvailable += delivered;
    m_bytesReceived += delivered;
    if (filledGap || ++m_unackedInOrder >= m_ackEvery)
    {
        SendAck();
    }
    else if (!compat::IsPending(m_ackEvent))
    {
        m_ackEvent = Simulator::Schedule(m_ackDelay, &KvDatagramSocket::SendAck, this);
    }
    NotifyDataRecv();
}

void
KvDatagramSocket::SendAck()
{
    m_ackEvent.Cancel();
    m_unackedInOrder = 0;
    if (m_closed || !m_udp)
    {
        return;
    }
    KvDatagramHeader header;
    header.type = KvDatagramHeader::ACK;
    header.nextExpected = m_rxNext;
    // The run holding the latest datagram first (RFC 2018), then the highest others.
    auto latest = m_rxRuns.upper_bound(m_rxLatest);
    if (latest != m_rxRuns.begin() && std::prev(latest)->second > m_rxLatest)
    {
        latest = std::prev(latest);
        header.sackBlocks.push_back({latest->first, latest->second});
    }
    else
    {
        latest = m_rxRuns.end();
    }
    for (auto it = m_rxRuns.rbegin();
         it != m_rxRuns.rend() && header.sackBlocks.size() < KvDatagramHeader::MAX_SACK_BLOCKS;
         ++it)
    {
        if (latest == m_rxRuns.end() || it->first != latest->first)
        {
            header.sackBlocks.push_back({it->first, it->second});
        }
    }
    Ptr<Packet> ack = Create<Packet>();
    m_txTrace(ack, header);
    ack->AddHeader(header);
    if (m_udp->SendTo(ack, 0, m_peer) < 0)
    {
        NS_LOG_LOGIC("UDP send of an ACK failed: " << m_udp->GetErrno());
    }
}

// --------------------------------------------------------------------------- Socket API

Socket::SocketErrno
KvDatagramSocket::GetErrno() const
{
    return m_errno;
}

Socket::SocketType
KvDatagramSocket::GetSocketType() const
{
    return NS3_SOCK_STREAM;
}

Ptr<Node>
KvDatagramSocket::GetNode() const
{
    return m_node;
}

int
KvDatagramSocket::Bind(const Address& /* address */)
{
    m_errno = ERROR_OPNOTSUPP;
    return -1;
}

int
KvDatagramSocket::Bind()
{
    m_errno = ERROR_OPNOTSUPP;
    return -1;
}

int
KvDatagramSocket::Bind6()
{
    m_errno = ERROR_OPNOTSUPP;
    return -1;
}

int
KvDatagramSocket::Close()
{
    NS_LOG_FUNCTION(this);
    m_closed = true;
    m_sendEvent.Cancel();
    m_rtoEvent.Cancel();
    m_ackEvent.Cancel();
    m_txQueue.clear();
    m_txQueueOffset = 0;
    m_txQueuedBytes = 0;
    m_inflight.clear();
    m_unsacked.clear();
    m_retxQueue.clear();
    m_inflightBytes = 0;
    m_rxHeld.clear();
    m_rxRuns.clear();
    m_rxHeldBytes = 0;
    m_rxBuffer.clear();
    m_rxAvailable = 0;
    return 0;
}

int
KvDatagramSocket::ShutdownSend()
{
    m_shutdownSend = true;
    return 0;
}

int
KvDatagramSocket::ShutdownRecv()
{
    m_shutdownRecv = true;
    return 0;
}

int
KvDatagramSocket::Connect(const Address& address)
{
    NS_LOG_FUNCTION(this << address);
    if (m_closed)
    {
        m_errno = ERROR_BADF;
        return -1;
    }
    if (!m_hasPeer &&
        (InetSocketAddress::IsMatchingType(address) || Inet6SocketAddress::IsMatchingType(address)))
    {
        m_peer = address;
        m_hasPeer = true;
    }
    Simulator::ScheduleNow(&KvDatagramSocket::NotifyConnectionSucceeded, this);
    return 0;
}

int
KvDatagramSocket::Listen()
{
    m_errno = ERROR_OPNOTSUPP;
    return -1;
}

uint64_t
KvDatagramSocket::GetTxQueuedBytes() const
{
    return m_txQueuedBytes;
}

uint32_t
KvDatagramSocket::GetTxAvailable() const
{
    const uint64_t used = m_txQueuedBytes + m_inflightBytes;
    return used >= m_sndBufSize ? 0 : static_cast<uint32_t>(m_sndBufSize - used);
}

int
KvDatagramSocket::Send(Ptr<Packet> p, uint32_t /* flags */)
{
    NS_LOG_FUNCTION(this << p);
    if (m_closed)
    {
        m_errno = ERROR_BADF;
        return -1;
    }
    if (m_shutdownSend)
    {
        m_errno = ERROR_SHUTDOWN;
        return -1;
    }
    const uint32_t size = p->GetSize();
    if (size > GetTxAvailable())
    {
        m_errno = ERROR_MSGSIZE;
        return -1;
    }
    if (size > 0)
    {
        m_txQueue.push_back(p->Copy());
        m_txQueuedBytes += size;
        ScheduleSend();
    }
    return static_cast<int>(size);
}

int
KvDatagramSocket::SendTo(Ptr<Packet> p, uint32_t flags, const Address& /* toAddress */)
{
    return Send(p, flags);
}

uint32_t
KvDatagramSocket::GetRxAvailable() const
{
    return static_cast<uint32_t>(std::min<uint64_t>(m_rxAvailable, UINT32_MAX));
}

Ptr<Packet>
KvDatagramSocket::Recv(uint32_t maxSize, uint32_t /* flags */)
{
    if (m_closed)
    {
        m_errno = ERROR_BADF;
        return nullptr;
    }
    if (m_shutdownRecv)
    {
        m_errno = ERROR_SHUTDOWN;
        return nullptr;
    }
    if (m_rxAvailable == 0 || maxSize == 0)
    {
        m_errno = ERROR_AGAIN;
        return nullptr;
    }
    uint32_t want = static_cast<uint32_t>(std::min<uint64_t>(maxSize, m_rxAvailable));
    Ptr<Packet> out;
    while (want > 0)
    {
        Ptr<Packet> front = m_rxBuffer.front();
        const uint32_t size = front->GetSize();
        Ptr<Packet> piece;
        if (size <= want)
        {
            piece = front;
            m_rxBuffer.pop_front();
        }
        else
        {
            piece = front->CreateFragment(0, want);
            m_rxBuffer.front() = front->CreateFragment(want, size - want);
        }
        const uint32_t n = piece->GetSize();
        if (out)
        {
            out->AddAtEnd(piece);
        }
        else
        {
            out = piece->Copy();
        }
        want -= n;
        m_rxAvailable -= n;
    }
    return out;
}

Ptr<Packet>
KvDatagramSocket::RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress)
{
    Ptr<Packet> p = Recv(maxSize, flags);
    if (p)
    {
        fromAddress = m_peer;
    }
    return p;
}

int
KvDatagramSocket::GetSockName(Address& address) const
{
    if (!m_udp)
    {
        m_errno = ERROR_NOTCONN;
        return -1;
    }
    return m_udp->GetSockName(address);
}

int
KvDatagramSocket::GetPeerName(Address& address) const
{
    if (!m_hasPeer)
    {
        m_errno = ERROR_NOTCONN;
        return -1;
    }
    address = m_peer;
    return 0;
}

bool
KvDatagramSocket::SetAllowBroadcast(bool allowBroadcast)
{
    return !allowBroadcast;
}

bool
KvDatagramSocket::GetAllowBroadcast() const
{
    return false;
}

} // namespace ns3
