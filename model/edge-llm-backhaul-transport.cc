/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-backhaul-transport.h"

#include "edge-llm-compat.h"

#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmBackhaulTransport");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmBackhaulTransport);

namespace
{
/// Prefix of this object's attributes in messages
const std::string ATTRIBUTE{"ns3::EdgeLlmBackhaulTransport::"};
/// IPv4 + TCP (with timestamps) header bytes: MSS = MTU - 52.
constexpr uint32_t TCP_IP_OVERHEAD = EdgeLlmPeer::TCP_IP_OVERHEAD;
/// IPv4 (20) + UDP (8) header bytes.
constexpr uint32_t UDP_IP_OVERHEAD = EdgeLlmPeer::UDP_IP_OVERHEAD;
/// Smallest BackhaulSegmentSize accepted, bytes.
constexpr uint32_t MIN_SEGMENT_SIZE = 64;
/// Smallest explicit BackhaulBuffer accepted, bytes.
constexpr uint32_t MIN_BACKHAUL_BUFFER = 16384;
/// Automatic BackhaulBuffer: never below the former fixed default, bytes.
constexpr uint64_t MIN_AUTO_BUFFER = 512 * 1024;
/// Automatic BackhaulBuffer: at most TCP's largest window (window scale 14), bytes.
constexpr uint64_t MAX_AUTO_BUFFER = uint64_t{1} << 30;
/// Automatic BackhaulBuffer: bandwidth-delay product x this.
constexpr double BDP_HEADROOM = 1.25;
/// TCP segments one backhaul buffer may hold: ns-3's TCP sender walks the segments in
/// flight on every ACK, so its run time grows with their number (issue 10: 8192 segments
/// of 64 bytes took 1136 s wall for a 59 MB transfer, 59 segments of 8948 bytes 2.2 s).
/// Also the largest initial window.
constexpr uint64_t MAX_SEGMENTS_IN_FLIGHT = 1024;
/// TCP's delayed-acknowledgement timeout on the backhaul connections (ns-3's default is
/// 200 ms). A connection carries data one way, so a transfer's last odd segment has no
/// reply to ride on: its acknowledgement waited 200 ms, and the source counted those bytes
/// as still on the path (HasKvBacklog), halving a later transfer's planned rate. 1 ms is
/// within any plan's 2 ms margin and above the gap between two 9000-byte segments on a
/// link of 144 Mbit/s or more (slower links acknowledge every segment).
constexpr double BACKHAUL_DELAYED_ACK_S = 1e-3;
/// UDP port of ns-3's X2-C (EpcX2) on every BS node
constexpr uint16_t X2_C_PORT = 4444;
/// UDP port of GTP-U on every BS node (X2-U and S1-U)
constexpr uint16_t GTP_U_PORT = 2152;
} // namespace

TypeId
EdgeLlmBackhaulTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmBackhaulTransport")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("BackhaulPort",
                          "TCP or UDP port of the KV transfer protocol (not X2's 4444 or 2152).",
                          UintegerValue(EdgeLlmNode::DEFAULT_BACKHAUL_PORT),
                          MakeUintegerAccessor(&EdgeLlmBackhaulTransport::m_backhaulPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Transport",
                          "Backhaul transport of the KV transfer protocol: Tcp (two TCP "
                          "connections per BS pair, one per direction, ns-3's default TCP "
                          "variant) or Udp "
                          "(KvDatagramSocket: paced at the link rate, selective-repeat "
                          "retransmission; an RDMA-like transfer without congestion control).",
                          EnumValue(EdgeLlmNode::TCP),
                          compat::MakeEnumAccessor<EdgeLlmNode::Transport>(
                              &EdgeLlmBackhaulTransport::m_transport),
                          MakeEnumChecker(EdgeLlmNode::TCP, "Tcp", EdgeLlmNode::UDP, "Udp"))
            .AddAttribute(
                "ControlChannel",
                "Where the transfer protocol's control messages travel. Shared: in the KV "
                "connection, ahead of the KV frames not yet written, so a request waits "
                "behind the KV already in the send buffer and behind a stalled stream (TCP "
                "in retransmission timeout). Separate: on their own reliable stream per "
                "peer (KvDatagramSocket over UDP ControlPort, as X2-C runs beside X2-U); "
                "each TRANSFER_REQUEST also goes, without its token ids, into the KV "
                "stream ahead of its KV bytes, and the target acts on whichever copy comes "
                "first.",
                EnumValue(EdgeLlmNode::SHARED),
                compat::MakeEnumAccessor<EdgeLlmNode::ControlChannel>(
                    &EdgeLlmBackhaulTransport::m_controlChannel),
                MakeEnumChecker(EdgeLlmNode::SHARED, "Shared", EdgeLlmNode::SEPARATE, "Separate"))
            .AddAttribute("ControlPort",
                          "UDP port of the control channel with ControlChannel=Separate (not "
                          "X2's 4444 or 2152, not UePort; not BackhaulPort with "
                          "Transport=Udp).",
                          UintegerValue(EdgeLlmNode::DEFAULT_CONTROL_PORT),
                          MakeUintegerAccessor(&EdgeLlmBackhaulTransport::m_controlPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("BackhaulBuffer",
                          "Send and receive buffer of each backhaul connection, bytes (TCP's, "
                          "or KvDatagramSocket's window): 0 = automatic, else >= 16384 "
                          "(checked when the application starts). Automatic: the largest over "
                          "the peer links of ceil(1.25 x R x RTT / 8), RTT = 2 d + 4 (MTU + 2) "
                          "x 8 / R (R the link rate, d its delay), within [512 KiB, 1 GiB]. "
                          "One connection carries at most BackhaulBuffer x 8 / RTT bit/s; a "
                          "buffer that caps a link below its rate gets a warning on stderr. "
                          "Control messages wait behind at most this many KV bytes (plus the "
                          "rest of one segment).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmBackhaulTransport::m_backhaulBuffer),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BackhaulSegmentSize",
                          "TCP segment size on the backhaul, bytes: 0 = link MTU - 52, else "
                          "in [64, link MTU - 52] and at least the buffer in use / 1024 (a "
                          "buffer holds at most 1024 segments in flight; checked when the "
                          "application starts).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmBackhaulTransport::m_backhaulSegmentSize),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

EdgeLlmBackhaulTransport::EdgeLlmBackhaulTransport(EdgeLlmNode* node, EdgeLlmBsState* state)
    : m_node(node),
      m_bs(state)
{
}

void
EdgeLlmBackhaulTransport::DoDispose()
{
    for (const auto& udp : m_udpSockets)
    {
        udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_udpSockets.clear();
    m_listenSocket = nullptr;
    Object::DoDispose();
}

EdgeLlmNode::Transport
EdgeLlmBackhaulTransport::GetTransport() const
{
    return m_transport;
}

bool
EdgeLlmBackhaulTransport::IsControlSeparate() const
{
    return m_controlChannel == EdgeLlmNode::SEPARATE;
}

uint32_t
EdgeLlmBackhaulTransport::GetSegmentSizeAttribute() const
{
    return m_backhaulSegmentSize;
}

uint32_t
EdgeLlmBackhaulTransport::GetBufferInUse() const
{
    return m_bufferInUse;
}

std::string
EdgeLlmBackhaulTransport::CheckConfiguration(uint16_t uePort) const
{
    std::string error = CheckPorts(uePort);
    if (error.empty())
    {
        error = CheckSegmentSize();
    }
    return error.empty() ? CheckBuffers() : error;
}

void
EdgeLlmBackhaulTransport::SizeBuffers()
{
    SizeBackhaulBuffers();
    if (m_transport == EdgeLlmNode::TCP && !m_bs->GetPeers().empty())
    {
        const uint32_t mss = BackhaulMss();
        const uint64_t segments = (uint64_t{m_bufferInUse} + mss - 1) / mss;
        // Where the link itself needs a window of thousands of segments (automatic
        // segment size, a huge bandwidth-delay product), say what to expect.
        if (segments > MAX_SEGMENTS_IN_FLIGHT)
        {
            std::cerr << "warning: cell " << m_node->GetCellId() << ": the " << m_bufferInUse
                      << "-byte backhaul buffer holds " << segments << " TCP segments of " << mss
                      << " bytes in flight (more than " << MAX_SEGMENTS_IN_FLIGHT
                      << "); ns-3's TCP slows down with every segment in flight, so expect "
                      << "a long run, and transfers slower than planned: each starts with a "
                      << "window of at most " << MAX_SEGMENTS_IN_FLIGHT
                      << " segments and grows over round trips to the link rate, which the "
                      << "planner assumes from the first byte (Transport=Udp paces at the "
                      << "link rate from the start)" << std::endl;
        }
    }
}

void
EdgeLlmBackhaulTransport::Start()
{
    if (m_transport == EdgeLlmNode::UDP)
    {
        StartDatagramStreams(m_backhaulPort, false);
    }
    else if (!m_bs->GetPeers().empty())
    {
        m_listenSocket = MakeBackhaulSocket();
        NS_ABORT_MSG_IF(
            m_listenSocket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_backhaulPort)) != 0,
            "EdgeLlmBackhaulTransport: cannot bind TCP port " << m_backhaulPort);
        m_listenSocket->Listen();
        m_listenSocket->SetAcceptCallback(
            MakeCallback(&EdgeLlmBackhaulTransport::HandleAccept, this),
            MakeCallback(&EdgeLlmBackhaulTransport::HandleNewConnection, this));
    }
    for (auto& [id, peer] : m_bs->GetPeers())
    {
        peer.connection->SetScheduler(m_node->GetScheduler());
        // One TCP connection per direction: each BS opens the one it sends on and reads
        // the one its peer opened (HandleNewConnection). A connection then carries data
        // one way and acknowledgements only the other, so an acknowledgement sent ahead of
        // queued KV bytes (EdgeLlmX2PacketFilter's AckPriority) never overtakes a data
        // segment of its own connection (ns-3's TCP drops the data of a segment whose
        // acknowledgement number is below the one already received).
        if (m_transport == EdgeLlmNode::TCP)
        {
            Ptr<Socket> socket = MakeBackhaulSocket();
            socket->Bind(InetSocketAddress(peer.local, 0));
            socket->Connect(InetSocketAddress(peer.remote, m_backhaulPort));
            peer.connection->SetSocket(socket, false);
        }
    }
    if (m_controlChannel == EdgeLlmNode::SEPARATE)
    {
        StartDatagramStreams(m_controlPort, true);
    }
}

void
EdgeLlmBackhaulTransport::Stop()
{
    if (m_listenSocket)
    {
        m_listenSocket->Close();
    }
    for (auto& [id, peer] : m_bs->GetPeers())
    {
        if (peer.connection)
        {
            peer.connection->Close();
        }
        if (peer.control)
        {
            peer.control->Close();
        }
    }
    for (const auto& udp : m_udpSockets)
    {
        udp->Close();
        udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

uint32_t
EdgeLlmBackhaulTransport::BackhaulMss() const
{
    if (m_backhaulSegmentSize != 0)
    {
        return m_backhaulSegmentSize;
    }
    // Link MTU - 52 (IPv4 + TCP with timestamps), over the smallest peer link.
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        mtu = std::min(mtu, peer.Mtu());
    }
    return mtu == std::numeric_limits<uint32_t>::max() ? 536 : mtu - TCP_IP_OVERHEAD;
}

Ptr<Socket>
EdgeLlmBackhaulTransport::MakeBackhaulSocket() const
{
    Ptr<Socket> socket = Socket::CreateSocket(m_node->GetNode(), TcpSocketFactory::GetTypeId());
    socket->SetAttribute("SndBufSize", UintegerValue(m_bufferInUse));
    socket->SetAttribute("RcvBufSize", UintegerValue(m_bufferInUse));
    const uint32_t mss = BackhaulMss();
    socket->SetAttribute("SegmentSize", UintegerValue(mss));
    socket->SetAttribute("DelAckTimeout", TimeValue(Seconds(BACKHAUL_DELAYED_ACK_S)));
    // A dedicated link of known rate: start with a window of one bandwidth-delay product
    // (at most MAX_SEGMENTS_IN_FLIGHT segments, never below TCP's own initial window),
    // so that the first transfer is not held back by slow start.
    uint64_t bdp = 0;
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        bdp = std::max(
            bdp,
            static_cast<uint64_t>(std::ceil(peer.LoneFlowBitRate(m_bs->PathPlanning(), true) *
                                            peer.RttSeconds(m_bs->PathPlanning()) / 8)));
    }
    UintegerValue initial;
    socket->GetAttribute("InitialCwnd", initial);
    const uint64_t window = std::min<uint64_t>(
        {(std::min<uint64_t>(bdp, m_bufferInUse) + mss - 1) / mss, MAX_SEGMENTS_IN_FLIGHT});
    socket->SetAttribute("InitialCwnd", UintegerValue(std::max<uint64_t>(initial.Get(), window)));
    return socket;
}

std::string
EdgeLlmBackhaulTransport::CheckPorts(uint16_t uePort) const
{
    std::ostringstream error;
    // ns-3's EPC binds UDP 4444 (X2-C) and 2152 (X2-U, S1-U GTP-U) on the BS's node: a
    // UDP socket of ours there cannot bind, and a TCP one would share X2's numbers.
    std::vector<std::pair<std::string, uint16_t>> ports{
        {"ns3::EdgeLlmNode::UePort", uePort},
        {ATTRIBUTE + "BackhaulPort", m_backhaulPort}};
    if (m_controlChannel == EdgeLlmNode::SEPARATE)
    {
        ports.emplace_back(ATTRIBUTE + "ControlPort", m_controlPort);
    }
    for (const auto& [name, port] : ports)
    {
        if (port == X2_C_PORT || port == GTP_U_PORT)
        {
            error << name << " is " << port << "; it must not be " << X2_C_PORT << " (X2-C) or "
                  << GTP_U_PORT
                  << " (X2-U and S1-U GTP-U): ns-3's EPC uses these UDP ports on the BS (cell "
                  << m_node->GetCellId() << ")";
            return error.str();
        }
    }
    if (m_transport == EdgeLlmNode::UDP && uePort == m_backhaulPort)
    {
        error << "ns3::EdgeLlmNode::UePort and " << ATTRIBUTE << "BackhaulPort are both " << uePort
              << "; with Transport=Udp they must differ (both are UDP sockets on the BS, cell "
              << m_node->GetCellId() << ")";
        return error.str();
    }
    if (m_controlChannel == EdgeLlmNode::SEPARATE &&
        (m_controlPort == uePort ||
         (m_transport == EdgeLlmNode::UDP && m_controlPort == m_backhaulPort)))
    {
        error << ATTRIBUTE << "ControlPort is " << m_controlPort << ", as "
              << (m_controlPort == uePort ? "UePort" : "BackhaulPort with Transport=Udp")
              << "; with ControlChannel=Separate it must differ (both are UDP sockets on the "
                 "BS, cell "
              << m_node->GetCellId() << ")";
        return error.str();
    }
    return "";
}

std::string
EdgeLlmBackhaulTransport::CheckSegmentSize() const
{
    std::ostringstream error;
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        const uint32_t mtu = peer.Mtu();
        if (m_transport == EdgeLlmNode::TCP && m_backhaulSegmentSize != 0 &&
            (m_backhaulSegmentSize < MIN_SEGMENT_SIZE ||
             m_backhaulSegmentSize > mtu - TCP_IP_OVERHEAD))
        {
            error << ATTRIBUTE << "BackhaulSegmentSize is " << m_backhaulSegmentSize
                  << "; it must be 0 (link MTU - " << TCP_IP_OVERHEAD << ") or in ["
                  << MIN_SEGMENT_SIZE << ", " << mtu - TCP_IP_OVERHEAD << "] for the link to cell "
                  << id << " (MTU " << mtu << ")";
            return error.str();
        }
    }
    return "";
}

std::string
EdgeLlmBackhaulTransport::CheckBuffers() const
{
    std::ostringstream error;
    if (m_backhaulBuffer > MAX_AUTO_BUFFER)
    {
        error << ATTRIBUTE << "BackhaulBuffer is " << m_backhaulBuffer
              << " bytes; it must be at most " << MAX_AUTO_BUFFER
              << " (1 GiB, TCP window scaling's limit), or 0 (automatic) (cell "
              << m_node->GetCellId() << ")";
        return error.str();
    }
    if (m_backhaulBuffer != 0 && m_backhaulBuffer < MIN_BACKHAUL_BUFFER)
    {
        error << ATTRIBUTE << "BackhaulBuffer is " << m_backhaulBuffer
              << " bytes; it must be 0 (automatic: from the links' bandwidth-delay product) or "
              << ">= " << MIN_BACKHAUL_BUFFER << " (cell " << m_node->GetCellId() << ")";
        return error.str();
    }
    if (m_transport == EdgeLlmNode::TCP && !m_bs->GetPeers().empty() && m_backhaulSegmentSize != 0)
    {
        // An explicit segment size that makes the window thousands of segments long is
        // refused: the run would take hours.
        const uint64_t buffer = BackhaulBufferBytes();
        const uint32_t mss = BackhaulMss();
        const uint64_t segments = (buffer + mss - 1) / mss;
        const uint64_t smallest = (buffer + MAX_SEGMENTS_IN_FLIGHT - 1) / MAX_SEGMENTS_IN_FLIGHT;
        if (segments > MAX_SEGMENTS_IN_FLIGHT)
        {
            error << ATTRIBUTE << "BackhaulSegmentSize is " << m_backhaulSegmentSize << ": the "
                  << buffer << "-byte backhaul buffer would hold " << segments
                  << " segments in flight, more than the " << MAX_SEGMENTS_IN_FLIGHT
                  << " that ns-3's TCP simulates in practical time; with this buffer it must "
                  << "be 0 (link MTU - " << TCP_IP_OVERHEAD << ") or >= " << smallest << " (cell "
                  << m_node->GetCellId() << ")";
            return error.str();
        }
    }
    return "";
}

CtHoSignalling
EdgeLlmBackhaulTransport::Signalling(const EdgeLlmPeer& peer, double bitRate) const
{
    // Per packet: payload room and header bytes (PPP 2 B on a point-to-point link).
    constexpr double PPP_BYTES = EdgeLlmPeer::PPP_BYTES;
    const double mtu = peer.Mtu();
    double room = 0;
    double headers = 0;
    // The control messages' transport: the KV connection's, or the separate channel's
    // KvDatagramSocket.
    if (m_transport == EdgeLlmNode::UDP || m_controlChannel == EdgeLlmNode::SEPARATE)
    {
        room = mtu - UDP_IP_OVERHEAD - KvDatagramHeader::DATA_SIZE;
        headers = UDP_IP_OVERHEAD + KvDatagramHeader::DATA_SIZE + PPP_BYTES;
    }
    else
    {
        room = BackhaulMss();
        headers = TCP_IP_OVERHEAD + PPP_BYTES;
    }
    // A message of n bytes in one packet; token ids at the share of headers a full
    // packet of them carries.
    auto wire = [&](double bytes) { return 8 * (bytes + headers) / bitRate; };
    CtHoSignalling sig;
    sig.pathDelay = peer.DelaySeconds();
    sig.controlFreeAt =
        Simulator::Now().GetSeconds() +
        8.0 * static_cast<double>(peer.Control()->GetBytesAheadOfControl()) / bitRate;
    // The request and its end-of-transfer frame (right behind it when n_tx = 0).
    sig.requestTime = wire(2 * KvFrameHeader::SIZE + KvTransferRequestHeader::SIZE +
                           KvTransferCompleteHeader::SIZE);
    sig.idTimePerToken =
        8.0 * KvTransferRequestHeader::TOKEN_ID_BYTES * (1 + headers / room) / bitRate;
    sig.closeTime = wire(KvFrameHeader::SIZE + KvBatchCloseHeader::SIZE);
    sig.closeMargin = 8 * (mtu + PPP_BYTES) / bitRate; // one full packet ahead of it
    if (m_controlChannel == EdgeLlmNode::SEPARATE)
    {
        return sig; // no KV ahead of a control message: closeAhead 0
    }
    // KV bytes may fill the send buffer, and a KV frame being written goes first: one
    // segment (plus its frame header and the packets' headers) besides the buffer.
    const double segment =
        peer.connection->GetSegmentBytes() + KvFrameHeader::SIZE + KvSegmentHeader::SIZE;
    sig.closeAhead = 8.0 * (m_bufferInUse + segment * (1 + headers / room)) / bitRate;
    return sig;
}

uint64_t
EdgeLlmBackhaulTransport::AutoBufferBytes(const EdgeLlmPeer& peer) const
{
    const double bdp = peer.LoneFlowBitRate(m_bs->PathPlanning(), true) *
                       peer.RttSeconds(m_bs->PathPlanning()) / 8;
    const double bytes = std::ceil(BDP_HEADROOM * bdp);
    if (bytes >= static_cast<double>(MAX_AUTO_BUFFER))
    {
        return MAX_AUTO_BUFFER;
    }
    return std::max(MIN_AUTO_BUFFER, static_cast<uint64_t>(bytes));
}

uint64_t
EdgeLlmBackhaulTransport::BackhaulBufferBytes() const
{
    if (m_backhaulBuffer != 0)
    {
        return m_backhaulBuffer;
    }
    uint64_t buffer = MIN_AUTO_BUFFER;
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        buffer = std::max(buffer, AutoBufferBytes(peer));
    }
    return buffer;
}

void
EdgeLlmBackhaulTransport::SizeBackhaulBuffers()
{
    m_bufferInUse = static_cast<uint32_t>(BackhaulBufferBytes());
    // One connection carries at most a buffer per RTT: say so where that is below the
    // link rate the planner assumes (an explicit buffer, or 1 GiB on a huge link).
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        const double rtt = peer.RttSeconds(m_bs->PathPlanning());
        const double rate = peer.LoneFlowBitRate(m_bs->PathPlanning(), true);
        const double reachable = 8.0 * static_cast<double>(m_bufferInUse) / rtt;
        if (reachable < rate)
        {
            std::cerr << "warning: cell " << m_node->GetCellId()
                      << ": ns3::EdgeLlmBackhaulTransport::BackhaulBuffer "
                      << (m_backhaulBuffer == 0 ? "(automatic, at its 1 GiB limit) " : "") << "= "
                      << m_bufferInUse << " bytes caps the backhaul to cell " << id << " at "
                      << reachable / 1e9 << " Gbit/s (buffer x 8 / RTT, RTT " << rtt * 1e6
                      << " us), below its link rate of " << rate / 1e9
                      << " Gbit/s that the planner assumes; it needs >= "
                      << static_cast<uint64_t>(std::ceil(rate * rtt / 8)) << " bytes"
                      << (m_backhaulBuffer == 0 ? "" : " (0 = automatic)") << std::endl;
        }
    }
}

void
EdgeLlmBackhaulTransport::StartDatagramStreams(uint16_t port, bool control)
{
    // One UDP socket per local backhaul address (peers on a shared link share it); each
    // peer's KvDatagramSocket sends through it, and HandleBackhaulDatagram hands it what
    // that peer sent.
    std::map<Ipv4Address, Ptr<Socket>> byLocal;
    for (auto& [id, peer] : m_bs->GetPeers())
    {
        Ptr<Socket>& udp = byLocal[peer.local];
        if (!udp)
        {
            udp = Socket::CreateSocket(m_node->GetNode(), UdpSocketFactory::GetTypeId());
            NS_ABORT_MSG_IF(udp->Bind(InetSocketAddress(peer.local, port)) != 0,
                            "EdgeLlmBackhaulTransport: cannot bind UDP port " << port << " on "
                                                                              << peer.local);
            udp->SetRecvCallback(
                MakeCallback(&EdgeLlmBackhaulTransport::HandleBackhaulDatagram, this)
                    .Bind(control));
            m_udpSockets.push_back(udp);
        }
        const uint32_t mtu = peer.Mtu(); // >= MIN_BACKHAUL_MTU: checked at start
        Ptr<KvDatagramSocket> stream = CreateObject<KvDatagramSocket>();
        stream->SetNode(m_node->GetNode());
        // Paced at what the flow gets alone (above the FIFO rate on a fair queue).
        SetPacing(stream, peer.LoneFlowBitRate(m_bs->PathPlanning(), true));
        stream->SetAttribute("DatagramPayload",
                             UintegerValue(mtu - UDP_IP_OVERHEAD - KvDatagramHeader::DATA_SIZE));
        stream->SetAttribute("SndBufSize", UintegerValue(m_bufferInUse));
        stream->SetAttribute("RcvBufSize", UintegerValue(m_bufferInUse));
        stream->SetUdpSocket(udp, InetSocketAddress(peer.remote, port));
        if (control)
        {
            // Control messages only: no KV job, so no scheduler and no KV callbacks.
            peer.controlStream = stream;
            peer.control = CreateObject<KvTransferConnection>();
            peer.control->SetMessageCallback(compat::Bind(m_bs->GetMessageHandler(), id, true));
            peer.control->SetSocket(stream, true);
        }
        else
        {
            peer.datagram = stream;
            peer.connection->SetSocket(stream, true);
        }
    }
}

void
EdgeLlmBackhaulTransport::SetPacing(Ptr<KvDatagramSocket> stream, double bitRate)
{
    stream->SetAttribute("PacingRate",
                         DataRateValue(DataRate(static_cast<uint64_t>(std::floor(bitRate)))));
}

void
EdgeLlmBackhaulTransport::HandleBackhaulDatagram(bool control, Ptr<Socket> socket)
{
    Address from;
    Ptr<Packet> packet;
    while ((packet = socket->RecvFrom(from)))
    {
        const Ipv4Address addr = InetSocketAddress::ConvertFrom(from).GetIpv4();
        Ptr<KvDatagramSocket> target;
        for (auto& [id, peer] : m_bs->GetPeers())
        {
            if (peer.remote == addr)
            {
                target = control ? peer.controlStream : peer.datagram;
                break;
            }
        }
        if (!target)
        {
            NS_LOG_WARN("cell " << m_node->GetCellId() << ": backhaul datagram from unknown "
                                << addr << " dropped");
            continue;
        }
        target->ReceiveDatagram(packet);
    }
}

bool
EdgeLlmBackhaulTransport::HandleAccept(Ptr<Socket> /* socket */, const Address& /* from */)
{
    return true;
}

void
EdgeLlmBackhaulTransport::HandleNewConnection(Ptr<Socket> socket, const Address& from)
{
    const Ipv4Address addr = InetSocketAddress::ConvertFrom(from).GetIpv4();
    for (auto& [id, peer] : m_bs->GetPeers())
    {
        if (peer.remote == addr)
        {
            NS_LOG_INFO("cell " << m_node->GetCellId() << ": backhaul connection from cell " << id);
            peer.connection->SetReceiveSocket(socket);
            return;
        }
    }
    NS_LOG_WARN("cell " << m_node->GetCellId() << ": backhaul connection from unknown " << addr
                        << " closed");
    socket->Close();
}

} // namespace ns3
