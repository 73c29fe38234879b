/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-node.h"

#include "edge-llm-compat.h"
#include "edge-llm-pre-transfer-role.h"
#include "edge-llm-source-role.h"
#include "edge-llm-target-role.h"
#include "token-stream-header.h"

#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmNode");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmNode);

namespace
{
/**
 * \param peers a BS's peers (cell id -> its Peer)
 * \param counter a KvTransferConnection byte counter
 * \return the counter summed over the peers' KV connections
 */
template <class Peers>
uint64_t
SumOverConnections(const Peers& peers, uint64_t (KvTransferConnection::*counter)() const)
{
    uint64_t sum = 0;
    for (const auto& [cell, peer] : peers)
    {
        sum += peer.connection ? ((*peer.connection).*counter)() : 0;
    }
    return sum;
}

/// IPv4 + TCP (with timestamps) header bytes: MSS = MTU - 52.
constexpr uint32_t TCP_IP_OVERHEAD = EdgeLlmPeer::TCP_IP_OVERHEAD;
/// IPv4 (20) + UDP (8) header bytes.
constexpr uint32_t UDP_IP_OVERHEAD = EdgeLlmPeer::UDP_IP_OVERHEAD;
/// Smallest backhaul MTU accepted: IPv4's minimum datagram every host must take.
constexpr uint32_t MIN_BACKHAUL_MTU = 576;
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
EdgeLlmNode::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmNode")
            .SetParent<Application>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmNode>()
            .AddAttribute("CellId",
                          "Cell id of this BS (the RRC's, so HandoverStart's targetCellId "
                          "names a peer).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmNode::m_cellId),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Model",
                          "LLM preset giving the KV geometry: qwen2.5-7b-instruct, qwen3-8b, "
                          "qwen3-14b, llama-3.1-8b-instruct.",
                          StringValue("qwen2.5-7b-instruct"),
                          MakeStringAccessor(&EdgeLlmNode::m_modelName),
                          MakeStringChecker())
            .AddAttribute("KvBits",
                          "KV precision q, bits per element: 16, 8 or 4.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&EdgeLlmNode::m_kvBits),
                          MakeUintegerChecker<uint32_t>(4, 16))
            .AddAttribute("DecodeRate",
                          "Decoded tokens per second per session, > 0.",
                          DoubleValue(100.0),
                          MakeDoubleAccessor(&EdgeLlmNode::m_decodeRate),
                          MakeDoubleChecker<double>(MIN_DECODE_RATE, MAX_DECODE_RATE))
            .AddAttribute("TokenBytes",
                          "Radio payload bytes per streamed token (after the 14-byte header).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&EdgeLlmNode::m_tokenBytes),
                          MakeUintegerChecker<uint32_t>(0, MAX_TOKEN_BYTES))
            .AddAttribute("UePort",
                          "UDP port on which prompts arrive and tokens leave.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&EdgeLlmNode::m_uePort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("BackhaulPort",
                          "TCP or UDP port of the KV transfer protocol (not X2's 4444 or 2152).",
                          UintegerValue(DEFAULT_BACKHAUL_PORT),
                          MakeUintegerAccessor(&EdgeLlmNode::m_backhaulPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Transport",
                          "Backhaul transport of the KV transfer protocol: Tcp (two TCP "
                          "connections per BS pair, one per direction, ns-3's default TCP "
                          "variant) or Udp "
                          "(KvDatagramSocket: paced at the link rate, selective-repeat "
                          "retransmission; an RDMA-like transfer without congestion control).",
                          EnumValue(EdgeLlmNode::TCP),
                          compat::MakeEnumAccessor<Transport>(&EdgeLlmNode::m_transport),
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
                compat::MakeEnumAccessor<ControlChannel>(&EdgeLlmNode::m_controlChannel),
                MakeEnumChecker(EdgeLlmNode::SHARED, "Shared", EdgeLlmNode::SEPARATE, "Separate"))
            .AddAttribute("ControlPort",
                          "UDP port of the control channel with ControlChannel=Separate (not "
                          "X2's 4444 or 2152, not UePort; not BackhaulPort with "
                          "Transport=Udp).",
                          UintegerValue(DEFAULT_CONTROL_PORT),
                          MakeUintegerAccessor(&EdgeLlmNode::m_controlPort),
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
                          MakeUintegerAccessor(&EdgeLlmNode::m_backhaulBuffer),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BackhaulSegmentSize",
                          "TCP segment size on the backhaul, bytes: 0 = link MTU - 52, else "
                          "in [64, link MTU - 52] (checked when the application starts).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmNode::m_backhaulSegmentSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PrefillPromptsOnGpu",
                          "true: a new session's prompt is prefilled on this BS's GPU, alone, "
                          "after the prompts before it. false: its KV cache is taken as built "
                          "when the prompt arrives (no GPU time, no queue), decoding starts "
                          "one decode interval later: a warm-up that puts K sessions in "
                          "progress without K prefills in a row (handover prefills still use "
                          "the GPU).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmNode::m_promptsOnGpu),
                          MakeBooleanChecker())
            .AddAttribute("WarmDecodeStart",
                          "With PrefillPromptsOnGpu false: a prompt that arrives before this "
                          "time starts decoding at it (first token one decode interval "
                          "later), so every session's token count follows one clock whatever "
                          "its prompt's radio latency; a later prompt starts at its arrival. "
                          "0: every prompt at its arrival.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmNode::m_warmDecodeStart),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Scheduler",
                          "The handover policy: a batch policy (ns3::CtHoScheduler, "
                          "ns3::ThoScheduler, ns3::ChoScheduler) or a slot policy "
                          "(ns3::ImpactHoScheduler), one per BS (a slot policy keeps its "
                          "transfers' state).",
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_scheduler),
                          MakePointerChecker<HandoverScheduler>())
            .AddAttribute("PrefillEngine",
                          "The GPU that runs prompt and handover prefill batches.",
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_gpu),
                          MakePointerChecker<PrefillEngine>())
            .AddAttribute("SourceRole",
                          "The source side of this BS's handovers (ns3::EdgeLlmSourceRole: "
                          "planning, gathering and sending knobs).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_source),
                          MakePointerChecker<EdgeLlmSourceRole>())
            .AddAttribute("TargetRole",
                          "The target side of this BS's handovers (ns3::EdgeLlmTargetRole: "
                          "the restore's timers).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_target),
                          MakePointerChecker<EdgeLlmTargetRole>())
            .AddAttribute("PreTransferRole",
                          "KV caches sent ahead of a handover, both sides "
                          "(ns3::EdgeLlmPreTransferRole: the target's KV memory).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_preTransfer),
                          MakePointerChecker<EdgeLlmPreTransferRole>())
            .AddTraceSource("SessionStarted",
                            "A prompt opened a session (sessionId, cellId, promptTokens).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_sessionStartedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferCancelled",
                            "A transfer was cancelled because the UE came back (ping-pong): at "
                            "the target when it sends TRANSFER_CANCEL, at the source when it "
                            "resumes from its own cache (sessionId, other cell, KV bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_cancelledTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TokenDecoded",
                            "A token was decoded (sessionId, cellId of this BS, token index "
                            "from 1 in the session).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_tokenTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferRefused",
                            "The target refused a session's KV cache (TRANSFER_RESPONSE "
                            "REFUSED_KV_FORMAT): at the target when it answers, at the source "
                            "when it stops sending (sessionId, other cell, KV bytes sent).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_refusedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("StateTransition",
                            "A session's state changed at this BS (sessionId, this cell, old "
                            "state, new state; SessionState, EdgeLlmNode::ToString names them).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_stateTrace),
                            "ns3::EdgeLlmNode::StateTransitionTracedCallback")
            .AddTraceSource("SessionLost",
                            "A session ended without being restored anywhere, traced once, at "
                            "the BS that gave it up (sessionId, the cell it could not reach, "
                            "reason: 1 no backhaul path to the UE's new cell, 2 the target "
                            "refused the KV format); GetLostSessions counts them.",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_lostTrace),
                            "ns3::EdgeLlmNode::LostTracedCallback");
    return tid;
}

EdgeLlmNode::EdgeLlmNode()
    : m_cellId(0),
      m_kvBits(16),
      m_decodeRate(100.0),
      m_tokenBytes(4),
      m_uePort(9000),
      m_backhaulPort(DEFAULT_BACKHAUL_PORT),
      m_backhaulBuffer(0),
      m_backhaulSegmentSize(0),
      m_source(CreateObject<EdgeLlmSourceRole>(this)),
      m_target(CreateObject<EdgeLlmTargetRole>(this)),
      m_preTransfer(CreateObject<EdgeLlmPreTransferRole>(this))
{
    NS_LOG_FUNCTION(this);
    m_gpu = CreateObject<PrefillEngine>();
}

EdgeLlmNode::~EdgeLlmNode()
{
    NS_LOG_FUNCTION(this);
}

void
EdgeLlmNode::DoDispose()
{
    for (auto& [id, peer] : m_peers)
    {
        if (peer.connection)
        {
            peer.connection->Dispose();
        }
        if (peer.datagram)
        {
            peer.datagram->Dispose();
        }
        if (peer.control)
        {
            peer.control->Dispose();
        }
        if (peer.controlStream)
        {
            peer.controlStream->Dispose();
        }
    }
    m_peers.clear();
    for (const auto& udp : m_udpSockets)
    {
        udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_udpSockets.clear();
    for (auto& [id, s] : m_sessions)
    {
        s.decodeEvent.Cancel();
    }
    m_sessions.clear();
    m_scheduler = nullptr;
    m_gpu = nullptr;
    m_ueSocket = nullptr;
    m_listenSocket = nullptr;
    Application::DoDispose();
}

uint16_t
EdgeLlmNode::GetCellId() const
{
    return m_cellId;
}

uint64_t
EdgeLlmNode::GetLostSessions() const
{
    return m_lostSessions;
}

uint64_t
EdgeLlmNode::GetPreTransferHeldBytes() const
{
    return m_preTransfer ? m_preTransfer->GetHeldBytes() : 0;
}

uint64_t
EdgeLlmNode::GetPreTransferBytesSent() const
{
    return SumOverConnections(m_peers, &KvTransferConnection::GetBackgroundBytesSent);
}

uint64_t
EdgeLlmNode::GetPreTransferBytesReceived() const
{
    return SumOverConnections(m_peers, &KvTransferConnection::GetBackgroundBytesReceived);
}

LlmModelProfile
EdgeLlmNode::GetModelProfile() const
{
    return LlmModelProfile::FromPreset(m_modelName, m_kvBits);
}

Ptr<HandoverScheduler>
EdgeLlmNode::GetScheduler() const
{
    return m_scheduler;
}

Ptr<PrefillEngine>
EdgeLlmNode::GetPrefillEngine() const
{
    return m_gpu;
}

Ptr<Object>
EdgeLlmNode::GetSourceRole() const
{
    return m_source;
}

Ptr<Object>
EdgeLlmNode::GetTargetRole() const
{
    return m_target;
}

Ptr<Object>
EdgeLlmNode::GetPreTransferRole() const
{
    return m_preTransfer;
}

Ptr<KvTransferConnection>
EdgeLlmNode::GetConnection(uint16_t peerCellId) const
{
    auto it = m_peers.find(peerCellId);
    return it == m_peers.end() ? nullptr : it->second.connection;
}

Ptr<KvTransferConnection>
EdgeLlmNode::GetControlConnection(uint16_t peerCellId) const
{
    auto it = m_peers.find(peerCellId);
    return it == m_peers.end() ? nullptr : it->second.Control();
}

Ptr<KvDatagramSocket>
EdgeLlmNode::GetDatagramSocket(uint16_t peerCellId) const
{
    auto it = m_peers.find(peerCellId);
    return it == m_peers.end() ? nullptr : it->second.datagram;
}

void
EdgeLlmNode::AddPeer(uint16_t peerCellId,
                     Ipv4Address localAddress,
                     Ipv4Address peerAddress,
                     DataRate linkRate)
{
    NS_LOG_FUNCTION(this << peerCellId << localAddress << peerAddress << linkRate);
    NS_ABORT_MSG_IF(peerCellId == m_cellId,
                    "EdgeLlmNode::AddPeer: peer cell id " << peerCellId << " is this BS's own");
    NS_ABORT_MSG_IF(linkRate.GetBitRate() == 0,
                    "EdgeLlmNode::AddPeer: backhaul link rate to cell " << peerCellId
                                                                        << " must be > 0 bit/s");
    Peer peer;
    peer.cellId = peerCellId;
    peer.local = localAddress;
    peer.remote = peerAddress;
    peer.rate = linkRate;
    peer.node = GetNode(); // a peer without a PeerPath reads its link's MTU and delay there
    peer.connection = CreateObject<KvTransferConnection>();
    peer.connection->SetMessageCallback(
        compat::Bind(MakeCallback(&EdgeLlmNode::OnBackhaulMessage, this), peerCellId, false));
    peer.connection->SetKvBytesCallback(MakeCallback(&EdgeLlmNode::OnKvBytes, this));
    peer.connection->SetTransferSentCallback(MakeCallback(&EdgeLlmNode::OnTransferSent, this));
    m_peers[peerCellId] = peer;
}

void
EdgeLlmNode::AddPeer(uint16_t peerCellId, const PeerPath& path)
{
    NS_ABORT_MSG_IF(path.mtu < MIN_BACKHAUL_MTU,
                    "EdgeLlmNode::AddPeer: path MTU to cell "
                        << peerCellId << " must be >= " << MIN_BACKHAUL_MTU << " bytes");
    NS_ABORT_MSG_IF(path.delay.IsStrictlyNegative(),
                    "EdgeLlmNode::AddPeer: path delay to cell " << peerCellId << " must be >= 0");
    NS_ABORT_MSG_IF(!path.hops.empty() && path.hops.size() != path.links.size(),
                    "EdgeLlmNode::AddPeer: path to cell "
                        << peerCellId << " has " << path.hops.size() << " hops for "
                        << path.links.size() << " links (hops: none, or one per link)");
    for (std::size_t i = 0; i < path.hops.size(); ++i)
    {
        const double rate = static_cast<double>(path.hops[i].rate.GetBitRate());
        NS_ABORT_MSG_IF(rate <= 0 || !(path.hops[i].crossBitRate >= 0) ||
                            !(path.hops[i].crossBitRate < rate),
                        "EdgeLlmNode::AddPeer: path to cell "
                            << peerCellId << ", hop " << i << ": rate " << rate
                            << " bit/s must be > 0 and crossBitRate " << path.hops[i].crossBitRate
                            << " in [0, rate) bit/s");
    }
    AddPeer(peerCellId, path.local, path.remote, path.rate);
    Peer& peer = m_peers.at(peerCellId);
    peer.hasPath = true;
    peer.pathDelay = path.delay;
    peer.pathMtu = path.mtu;
    peer.links = path.links;
    peer.hops = path.hops;
}

double
EdgeLlmNode::GetPlanningBitRate(uint16_t peerCellId) const
{
    const auto it = m_peers.find(peerCellId);
    NS_ABORT_MSG_IF(it == m_peers.end(), "EdgeLlmNode::GetPlanningBitRate: no peer " << peerCellId);
    return it->second.PlanningBitRate(PathPlanning());
}

EdgeLlmNode::PlanningCrossTraffic
EdgeLlmNode::GetPlanningCrossTraffic() const
{
    return m_source->GetPlanningCrossTraffic();
}

EdgeLlmPathPlanning
EdgeLlmNode::PathPlanning() const
{
    return m_source->PathPlanning();
}

void
EdgeLlmNode::ExpectHandover(uint64_t sessionId, uint16_t targetCellId, Time when)
{
    NS_LOG_FUNCTION(this << sessionId << targetCellId << when);
    m_source->GetBatcher().Expect(sessionId, targetCellId, when);
    if (m_scheduler->GetPlanLead().IsStrictlyPositive())
    {
        m_source->ScheduleAnnouncement(targetCellId, when); // target-coordinated ctHO
    }
}

EdgeLlmNode::PathShare
EdgeLlmNode::ShareOfPath(uint16_t peerCellId, const std::set<uint16_t>& concurrent) const
{
    // The KV flows on a link: the concurrent peers with it on their path.
    auto flowsOn = [this, &concurrent](uint32_t link) {
        uint32_t users = 0;
        for (uint16_t other : concurrent)
        {
            const auto it = m_peers.find(other);
            if (it != m_peers.end() &&
                std::find(it->second.links.begin(), it->second.links.end(), link) !=
                    it->second.links.end())
            {
                ++users;
            }
        }
        return users;
    };
    const Peer& peer = m_peers.at(peerCellId);
    PathShare share;
    share.sharers = peer.BusiestLinkFlows(flowsOn);
    share.wireBitRate = peer.KvFlowBitRate(flowsOn, PathPlanning());
    return share;
}

double
EdgeLlmNode::KvFlowBitRate(uint16_t peerCellId,
                           const std::function<uint32_t(uint32_t)>& flowsOn) const
{
    const auto it = m_peers.find(peerCellId);
    NS_ABORT_MSG_IF(it == m_peers.end(), "EdgeLlmNode::KvFlowBitRate: no peer " << peerCellId);
    return it->second.KvFlowBitRate(flowsOn, PathPlanning());
}

uint32_t
EdgeLlmNode::BackhaulMss() const
{
    if (m_backhaulSegmentSize != 0)
    {
        return m_backhaulSegmentSize;
    }
    // Link MTU - 52 (IPv4 + TCP with timestamps), over the smallest peer link.
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    for (const auto& [id, peer] : m_peers)
    {
        mtu = std::min(mtu, peer.Mtu());
    }
    return mtu == std::numeric_limits<uint32_t>::max() ? 536 : mtu - TCP_IP_OVERHEAD;
}

Ptr<Socket>
EdgeLlmNode::MakeBackhaulSocket() const
{
    Ptr<Socket> socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    socket->SetAttribute("SndBufSize", UintegerValue(m_bufferInUse));
    socket->SetAttribute("RcvBufSize", UintegerValue(m_bufferInUse));
    const uint32_t mss = BackhaulMss();
    socket->SetAttribute("SegmentSize", UintegerValue(mss));
    socket->SetAttribute("DelAckTimeout", TimeValue(Seconds(BACKHAUL_DELAYED_ACK_S)));
    // A dedicated link of known rate: start with a window of one bandwidth-delay product
    // (at most MAX_SEGMENTS_IN_FLIGHT segments, never below TCP's own initial window),
    // so that the first transfer is not held back by slow start.
    uint64_t bdp = 0;
    for (const auto& [id, peer] : m_peers)
    {
        bdp = std::max(bdp,
                       static_cast<uint64_t>(std::ceil(peer.LoneFlowBitRate(PathPlanning(), true) *
                                                       peer.RttSeconds(PathPlanning()) / 8)));
    }
    UintegerValue initial;
    socket->GetAttribute("InitialCwnd", initial);
    const uint64_t window = std::min<uint64_t>(
        {(std::min<uint64_t>(bdp, m_bufferInUse) + mss - 1) / mss, MAX_SEGMENTS_IN_FLIGHT});
    socket->SetAttribute("InitialCwnd", UintegerValue(std::max<uint64_t>(initial.Get(), window)));
    return socket;
}

std::string
EdgeLlmNode::CheckConfiguration() const
{
    for (auto check : {&EdgeLlmNode::CheckModelAndPolicy,
                       &EdgeLlmNode::CheckPorts,
                       &EdgeLlmNode::CheckPeers,
                       &EdgeLlmNode::CheckBuffers})
    {
        const std::string error = (this->*check)();
        if (!error.empty())
        {
            return error;
        }
    }
    const std::string source = m_source->CheckConfiguration();
    return source.empty() ? m_target->CheckConfiguration() : source;
}

std::string
EdgeLlmNode::CheckModelAndPolicy() const
{
    std::ostringstream error;
    try
    {
        LlmModelProfile::FromPreset(m_modelName, m_kvBits);
    }
    catch (const std::invalid_argument& e)
    {
        error << "ns3::EdgeLlmNode::Model / KvBits: " << e.what();
        return error.str();
    }
    if (!m_scheduler)
    {
        error << "ns3::EdgeLlmNode::Scheduler is not set (cell " << m_cellId
              << "); use EdgeLlmHelper";
        return error.str();
    }
    const std::optional<PreTransferSettings> pre = m_scheduler->GetPreTransfer();
    if (pre && !pre->yieldToHandovers)
    {
        error << "ns3::PreTransferScheduler::YieldToHandovers false is modelled at flow level "
                 "only (PreTransferFluidScenario); at packet level a pre-transfer uses idle "
                 "capacity: set it true";
        return error.str();
    }
    return "";
}

std::string
EdgeLlmNode::CheckPorts() const
{
    std::ostringstream error;
    // ns-3's EPC binds UDP 4444 (X2-C) and 2152 (X2-U, S1-U GTP-U) on the BS's node: a
    // UDP socket of ours there cannot bind, and a TCP one would share X2's numbers.
    std::vector<std::pair<const char*, uint16_t>> ports{{"UePort", m_uePort},
                                                        {"BackhaulPort", m_backhaulPort}};
    if (m_controlChannel == SEPARATE)
    {
        ports.emplace_back("ControlPort", m_controlPort);
    }
    for (const auto& [name, port] : ports)
    {
        if (port == X2_C_PORT || port == GTP_U_PORT)
        {
            error << "ns3::EdgeLlmNode::" << name << " is " << port << "; it must not be "
                  << X2_C_PORT << " (X2-C) or " << GTP_U_PORT
                  << " (X2-U and S1-U GTP-U): ns-3's EPC uses these UDP ports on the BS (cell "
                  << m_cellId << ")";
            return error.str();
        }
    }
    if (m_transport == UDP && m_uePort == m_backhaulPort)
    {
        error << "ns3::EdgeLlmNode::UePort and BackhaulPort are both " << m_uePort
              << "; with Transport=Udp they must differ (both are UDP sockets on the BS, cell "
              << m_cellId << ")";
        return error.str();
    }
    if (m_controlChannel == SEPARATE &&
        (m_controlPort == m_uePort || (m_transport == UDP && m_controlPort == m_backhaulPort)))
    {
        error << "ns3::EdgeLlmNode::ControlPort is " << m_controlPort << ", as "
              << (m_controlPort == m_uePort ? "UePort" : "BackhaulPort with Transport=Udp")
              << "; with ControlChannel=Separate it must differ (both are UDP sockets on the "
                 "BS, cell "
              << m_cellId << ")";
        return error.str();
    }
    return "";
}

std::string
EdgeLlmNode::CheckPeers() const
{
    std::ostringstream error;
    for (const auto& [id, peer] : m_peers)
    {
        if (GetPlanningCrossTraffic() == MEASURED &&
            (peer.hops.empty() ||
             std::any_of(peer.hops.begin(), peer.hops.end(), [](const PathHop& hop) {
                 return hop.measuredCrossBitRate.IsNull();
             })))
        {
            error
                << "ns3::EdgeLlmSourceRole::PlanningCrossTraffic is Measured but the backhaul path "
                   "from cell "
                << m_cellId << " to cell " << id
                << " has no CrossTrafficMeter on every hop (it is not a path of an "
                   "EdgeLlmBackhaul: e.g. the RAN's own X2 cables, as in the main job and "
                   "the backhaul study's --backhaul=x2); use Installed there, or connect the "
                   "BSs through an EdgeLlmBackhaul (EdgeLlmHelper::ConnectBackhaul(apps, "
                   "backhaul), after setting it)";
            return error.str();
        }
        const uint32_t mtu = peer.Mtu();
        if (mtu < MIN_BACKHAUL_MTU)
        {
            error << "EdgeLlmNode (cell " << m_cellId << "): the backhaul link to cell " << id
                  << " has MTU " << mtu << "; it must be >= " << MIN_BACKHAUL_MTU;
            return error.str();
        }
        if (m_transport == TCP && m_backhaulSegmentSize != 0 &&
            (m_backhaulSegmentSize < MIN_SEGMENT_SIZE ||
             m_backhaulSegmentSize > mtu - TCP_IP_OVERHEAD))
        {
            error << "ns3::EdgeLlmNode::BackhaulSegmentSize is " << m_backhaulSegmentSize
                  << "; it must be 0 (link MTU - " << TCP_IP_OVERHEAD << ") or in ["
                  << MIN_SEGMENT_SIZE << ", " << mtu - TCP_IP_OVERHEAD << "] for the link to cell "
                  << id << " (MTU " << mtu << ")";
            return error.str();
        }
    }
    return "";
}

std::string
EdgeLlmNode::CheckBuffers() const
{
    std::ostringstream error;
    if (m_backhaulBuffer > MAX_AUTO_BUFFER)
    {
        error << "ns3::EdgeLlmNode::BackhaulBuffer is " << m_backhaulBuffer
              << " bytes; it must be at most " << MAX_AUTO_BUFFER
              << " (1 GiB, TCP window scaling's limit), or 0 (automatic) (cell " << m_cellId << ")";
        return error.str();
    }
    if (m_backhaulBuffer != 0 && m_backhaulBuffer < MIN_BACKHAUL_BUFFER)
    {
        error << "ns3::EdgeLlmNode::BackhaulBuffer is " << m_backhaulBuffer
              << " bytes; it must be 0 (automatic: from the links' bandwidth-delay product) or "
              << ">= " << MIN_BACKHAUL_BUFFER << " (cell " << m_cellId << ")";
        return error.str();
    }
    if (m_transport == TCP && !m_peers.empty() && m_backhaulSegmentSize != 0)
    {
        // An explicit segment size that makes the window thousands of segments long is
        // refused: the run would take hours.
        const uint64_t buffer = BackhaulBufferBytes();
        const uint32_t mss = BackhaulMss();
        const uint64_t segments = (buffer + mss - 1) / mss;
        const uint64_t smallest = (buffer + MAX_SEGMENTS_IN_FLIGHT - 1) / MAX_SEGMENTS_IN_FLIGHT;
        if (segments > MAX_SEGMENTS_IN_FLIGHT)
        {
            error << "ns3::EdgeLlmNode::BackhaulSegmentSize is " << m_backhaulSegmentSize
                  << ": the " << buffer << "-byte backhaul buffer would hold " << segments
                  << " segments in flight, more than the " << MAX_SEGMENTS_IN_FLIGHT
                  << " that ns-3's TCP simulates in practical time; with this buffer it must "
                  << "be 0 (link MTU - " << TCP_IP_OVERHEAD << ") or >= " << smallest << " (cell "
                  << m_cellId << ")";
            return error.str();
        }
    }
    return "";
}

void
EdgeLlmNode::StartApplication()
{
    NS_LOG_FUNCTION(this);
    const std::string error = CheckConfiguration();
    NS_ABORT_MSG_IF(!error.empty(), error);
    m_scheduler->BindToBs(GetNode()->GetId());
    m_profile = LlmModelProfile::FromPreset(m_modelName, m_kvBits);
    SizeBackhaulBuffers();
    if (m_transport == TCP && !m_peers.empty())
    {
        const uint32_t mss = BackhaulMss();
        const uint64_t segments = (uint64_t{m_bufferInUse} + mss - 1) / mss;
        // Where the link itself needs a window of thousands of segments (automatic
        // segment size, a huge bandwidth-delay product), say what to expect.
        if (segments > MAX_SEGMENTS_IN_FLIGHT)
        {
            std::cerr << "warning: cell " << m_cellId << ": the " << m_bufferInUse
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
    m_ueSocket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_ueSocket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_uePort)) != 0,
                    "EdgeLlmNode: cannot bind UDP port " << m_uePort);
    m_ueSocket->SetRecvCallback(MakeCallback(&EdgeLlmNode::HandleUeRead, this));

    if (m_transport == UDP)
    {
        StartDatagramStreams(m_backhaulPort, false);
    }
    else if (!m_peers.empty())
    {
        m_listenSocket = MakeBackhaulSocket();
        NS_ABORT_MSG_IF(
            m_listenSocket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_backhaulPort)) != 0,
            "EdgeLlmNode: cannot bind TCP port " << m_backhaulPort);
        m_listenSocket->Listen();
        m_listenSocket->SetAcceptCallback(MakeCallback(&EdgeLlmNode::HandleAccept, this),
                                          MakeCallback(&EdgeLlmNode::HandleNewConnection, this));
    }
    for (auto& [id, peer] : m_peers)
    {
        peer.connection->SetScheduler(m_scheduler);
        // One TCP connection per direction: each BS opens the one it sends on and reads
        // the one its peer opened (HandleNewConnection). A connection then carries data
        // one way and acknowledgements only the other, so an acknowledgement sent ahead of
        // queued KV bytes (EdgeLlmX2PacketFilter's AckPriority) never overtakes a data
        // segment of its own connection (ns-3's TCP drops the data of a segment whose
        // acknowledgement number is below the one already received).
        if (m_transport == TCP)
        {
            Ptr<Socket> socket = MakeBackhaulSocket();
            socket->Bind(InetSocketAddress(peer.local, 0));
            socket->Connect(InetSocketAddress(peer.remote, m_backhaulPort));
            peer.connection->SetSocket(socket, false);
        }
    }
    if (m_controlChannel == SEPARATE)
    {
        StartDatagramStreams(m_controlPort, true);
    }
}

void
EdgeLlmNode::StopApplication()
{
    NS_LOG_FUNCTION(this);
    for (auto& [id, s] : m_sessions)
    {
        s.decodeEvent.Cancel();
    }
    if (m_ueSocket)
    {
        m_ueSocket->Close();
        m_ueSocket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    if (m_listenSocket)
    {
        m_listenSocket->Close();
    }
    for (auto& [id, peer] : m_peers)
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

CtHoSignalling
EdgeLlmNode::Signalling(const Peer& peer, double bitRate) const
{
    // Per packet: payload room and header bytes (PPP 2 B on a point-to-point link).
    constexpr double PPP_BYTES = EdgeLlmPeer::PPP_BYTES;
    const double mtu = peer.Mtu();
    double room = 0;
    double headers = 0;
    // The control messages' transport: the KV connection's, or the separate channel's
    // KvDatagramSocket.
    if (m_transport == UDP || m_controlChannel == SEPARATE)
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
    if (m_controlChannel == SEPARATE)
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
EdgeLlmNode::AutoBufferBytes(const Peer& peer) const
{
    const double bdp =
        peer.LoneFlowBitRate(PathPlanning(), true) * peer.RttSeconds(PathPlanning()) / 8;
    const double bytes = std::ceil(BDP_HEADROOM * bdp);
    if (bytes >= static_cast<double>(MAX_AUTO_BUFFER))
    {
        return MAX_AUTO_BUFFER;
    }
    return std::max(MIN_AUTO_BUFFER, static_cast<uint64_t>(bytes));
}

uint64_t
EdgeLlmNode::BackhaulBufferBytes() const
{
    if (m_backhaulBuffer != 0)
    {
        return m_backhaulBuffer;
    }
    uint64_t buffer = MIN_AUTO_BUFFER;
    for (const auto& [id, peer] : m_peers)
    {
        buffer = std::max(buffer, AutoBufferBytes(peer));
    }
    return buffer;
}

void
EdgeLlmNode::SizeBackhaulBuffers()
{
    m_autoBuffer = m_backhaulBuffer == 0;
    m_bufferInUse = static_cast<uint32_t>(BackhaulBufferBytes());
    // One connection carries at most a buffer per RTT: say so where that is below the
    // link rate the planner assumes (an explicit buffer, or 1 GiB on a huge link).
    for (const auto& [id, peer] : m_peers)
    {
        const double rtt = peer.RttSeconds(PathPlanning());
        const double rate = peer.LoneFlowBitRate(PathPlanning(), true);
        const double reachable = 8.0 * static_cast<double>(m_bufferInUse) / rtt;
        if (reachable < rate)
        {
            std::cerr << "warning: cell " << m_cellId << ": ns3::EdgeLlmNode::BackhaulBuffer "
                      << (m_autoBuffer ? "(automatic, at its 1 GiB limit) " : "") << "= "
                      << m_bufferInUse << " bytes caps the backhaul to cell " << id << " at "
                      << reachable / 1e9 << " Gbit/s (buffer x 8 / RTT, RTT " << rtt * 1e6
                      << " us), below its link rate of " << rate / 1e9
                      << " Gbit/s that the planner assumes; it needs >= "
                      << static_cast<uint64_t>(std::ceil(rate * rtt / 8)) << " bytes"
                      << (m_autoBuffer ? "" : " (0 = automatic)") << std::endl;
        }
    }
}

uint32_t
EdgeLlmNode::GetBackhaulBufferInUse() const
{
    return m_bufferInUse;
}

void
EdgeLlmNode::StartDatagramStreams(uint16_t port, bool control)
{
    // One UDP socket per local backhaul address (peers on a shared link share it); each
    // peer's KvDatagramSocket sends through it, and HandleBackhaulDatagram hands it what
    // that peer sent.
    std::map<Ipv4Address, Ptr<Socket>> byLocal;
    for (auto& [id, peer] : m_peers)
    {
        Ptr<Socket>& udp = byLocal[peer.local];
        if (!udp)
        {
            udp = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
            NS_ABORT_MSG_IF(udp->Bind(InetSocketAddress(peer.local, port)) != 0,
                            "EdgeLlmNode: cannot bind UDP port " << port << " on " << peer.local);
            udp->SetRecvCallback(
                MakeCallback(&EdgeLlmNode::HandleBackhaulDatagram, this).Bind(control));
            m_udpSockets.push_back(udp);
        }
        const uint32_t mtu = peer.Mtu(); // >= MIN_BACKHAUL_MTU: checked at start
        Ptr<KvDatagramSocket> stream = CreateObject<KvDatagramSocket>();
        stream->SetNode(GetNode());
        // Paced at what the flow gets alone (above the FIFO rate on a fair queue).
        SetPacing(stream, peer.LoneFlowBitRate(PathPlanning(), true));
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
            peer.control->SetMessageCallback(
                compat::Bind(MakeCallback(&EdgeLlmNode::OnBackhaulMessage, this), id, true));
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
EdgeLlmNode::SetPacing(Ptr<KvDatagramSocket> stream, double bitRate)
{
    stream->SetAttribute("PacingRate",
                         DataRateValue(DataRate(static_cast<uint64_t>(std::floor(bitRate)))));
}

void
EdgeLlmNode::HandleBackhaulDatagram(bool control, Ptr<Socket> socket)
{
    Address from;
    Ptr<Packet> packet;
    while ((packet = socket->RecvFrom(from)))
    {
        const Ipv4Address addr = InetSocketAddress::ConvertFrom(from).GetIpv4();
        Ptr<KvDatagramSocket> target;
        for (auto& [id, peer] : m_peers)
        {
            if (peer.remote == addr)
            {
                target = control ? peer.controlStream : peer.datagram;
                break;
            }
        }
        if (!target)
        {
            NS_LOG_WARN("cell " << m_cellId << ": backhaul datagram from unknown " << addr
                                << " dropped");
            continue;
        }
        target->ReceiveDatagram(packet);
    }
}

bool
EdgeLlmNode::HandleAccept(Ptr<Socket> /* socket */, const Address& /* from */)
{
    return true;
}

void
EdgeLlmNode::HandleNewConnection(Ptr<Socket> socket, const Address& from)
{
    const Ipv4Address addr = InetSocketAddress::ConvertFrom(from).GetIpv4();
    for (auto& [id, peer] : m_peers)
    {
        if (peer.remote == addr)
        {
            NS_LOG_INFO("cell " << m_cellId << ": backhaul connection from cell " << id);
            peer.connection->SetReceiveSocket(socket);
            return;
        }
    }
    NS_LOG_WARN("cell " << m_cellId << ": backhaul connection from unknown " << addr << " closed");
    socket->Close();
}

// ---------------------------------------------------------------------------
// Serving

void
EdgeLlmNode::HandleUeRead(Ptr<Socket> socket)
{
    Address from;
    Ptr<Packet> packet;
    while ((packet = socket->RecvFrom(from)))
    {
        if (packet->GetSize() < EdgeLlmPromptHeader::SIZE)
        {
            NS_LOG_WARN("cell " << m_cellId << ": runt prompt of " << packet->GetSize() << " B");
            continue;
        }
        EdgeLlmPromptHeader prompt;
        packet->RemoveHeader(prompt);
        if (prompt.promptTokens == 0 || prompt.maxNewTokens == 0)
        {
            NS_LOG_WARN("cell " << m_cellId << ": prompt with zero tokens ignored");
            continue;
        }
        if (!m_prompted.insert(prompt.sessionId).second)
        {
            // A UE's PromptRetry: the first copy opened the session already (it may have
            // handed over since: a late copy must not open it again).
            NS_LOG_INFO("cell " << m_cellId << ": prompt of session " << prompt.sessionId
                                << " again, ignored");
            continue;
        }
        Session& s = CreateSession(prompt.sessionId, PREFILLING);
        s.ueAddress = InetSocketAddress::ConvertFrom(from).GetIpv4();
        s.uePort = prompt.replyPort;
        s.promptTokens = prompt.promptTokens;
        s.maxNewTokens = prompt.maxNewTokens;
        m_sessionStartedTrace(s.id, m_cellId, s.promptTokens);
        if (!m_promptsOnGpu)
        {
            // Warm-up shortcut: the context exists now, without GPU time.
            StartDecoding(s,
                          std::max(Simulator::Now(), m_warmDecodeStart) +
                              Seconds(1.0 / m_decodeRate));
            continue;
        }
        // The prompt is prefilled alone, on this BS's GPU.
        const uint64_t key = (uint64_t{1} << 63) | s.id;
        m_gpu->Join(key,
                    1,
                    s.promptTokens,
                    Simulator::Now(),
                    MakeCallback(&EdgeLlmNode::OnPromptPrefilled, this).Bind(s.id));
    }
}

void
EdgeLlmNode::OnPromptPrefilled(uint64_t sessionId)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end() || it->second.GetState() != PREFILLING)
    {
        return; // handed over meanwhile
    }
    StartDecoding(it->second, Simulator::Now() + Seconds(1.0 / m_decodeRate));
}

void
EdgeLlmNode::StartDecoding(Session& session, Time firstToken)
{
    if (session.generated >= session.maxNewTokens)
    {
        session.SwitchToState(FINISHED);
        return;
    }
    session.SwitchToState(DECODING);
    session.nextToken = firstToken;
    session.decodeEvent = Simulator::Schedule(session.nextToken - Simulator::Now(),
                                              &EdgeLlmNode::DecodeToken,
                                              this,
                                              session.id);
    m_preTransfer->OnSessionReady(session.id); // a likely handover noted before
}

void
EdgeLlmNode::DecodeToken(uint64_t sessionId)
{
    Session& s = m_sessions.at(sessionId);
    ++s.generated;
    EdgeLlmTokenHeader token;
    token.sessionId = s.id;
    token.tokenIndex = s.generated;
    token.cellId = m_cellId;
    m_tokenTrace(s.id, m_cellId, s.generated);
    Ptr<Packet> p = Create<Packet>(m_tokenBytes);
    p->AddHeader(token);
    if (s.ueAddress != Ipv4Address())
    {
        m_ueSocket->SendTo(p, 0, InetSocketAddress(s.ueAddress, s.uePort));
    }
    if (s.generated >= s.maxNewTokens)
    {
        s.SwitchToState(FINISHED);
        return;
    }
    s.nextToken += Seconds(1.0 / m_decodeRate);
    s.decodeEvent =
        Simulator::Schedule(s.nextToken - Simulator::Now(), &EdgeLlmNode::DecodeToken, this, s.id);
}

uint64_t
EdgeLlmNode::PredictContextAt(uint64_t sessionId, Time t) const
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
    {
        return 0;
    }
    const Session& s = it->second;
    if (s.GetState() == HANDED_OVER || s.GetState() == RESTORING || s.GetState() == REDIRECTING ||
        s.GetState() == LOST)
    {
        return 0; // not servable here: cannot join a batch from this BS
    }
    uint64_t more = 0;
    if (s.GetState() == DECODING && t >= s.nextToken)
    {
        const int64_t step = Seconds(1.0 / m_decodeRate).GetTimeStep();
        more = static_cast<uint64_t>((t - s.nextToken).GetTimeStep() / step) + 1;
        more = std::min<uint64_t>(more, s.maxNewTokens - s.generated);
    }
    return s.promptTokens + s.generated + more;
}

// ---------------------------------------------------------------------------
// Handover events, handed to the session roles

void
EdgeLlmNode::RrcHandoverFailure(uint64_t imsi, uint16_t /* cellId */, uint16_t /* rnti */)
{
    NotifyHandoverFailure(imsi);
}

void
EdgeLlmNode::NotifyHandoverFailure(uint64_t sessionId)
{
    NS_LOG_FUNCTION(this << sessionId);
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end())
    {
        return;
    }
    if (!m_target->OnHandoverFailure(it->second))
    {
        m_source->OnHandoverFailure(it->second);
    }
}

void
EdgeLlmNode::RrcHandoverStart(uint64_t imsi, uint16_t cellId, uint16_t rnti, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << imsi << cellId << rnti << targetCellId);
    NotifyHandoverStart(imsi, targetCellId);
}

void
EdgeLlmNode::SetArrivalPredictor(HandoverBatcher::ArrivalPredictor predictor)
{
    m_source->SetArrivalPredictor(predictor);
}

void
EdgeLlmNode::NotifyHandoverStart(uint64_t sessionId, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << sessionId << targetCellId);
    if (m_target->OnUeMovesOn(sessionId, targetCellId))
    {
        return; // the UE left this BS while its session was being restored here
    }
    m_source->BeginHandover(sessionId, targetCellId, Simulator::Now());
}

void
EdgeLlmNode::NotifyHandoverLikely(uint64_t sessionId, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << sessionId << targetCellId);
    m_preTransfer->OnHandoverLikely(sessionId, targetCellId);
}

void
EdgeLlmNode::OnKvBytes(uint64_t sessionId, uint64_t bytes)
{
    if (sessionId & KvFrameHeader::PRE_TRANSFER_BIT)
    {
        const bool entries = sessionId & KvFrameHeader::PRE_TRANSFER_ENTRIES_BIT;
        m_preTransfer->OnKvBytes(sessionId & ~KvFrameHeader::PRE_TRANSFER_FLAGS, bytes, entries);
        return;
    }
    m_target->OnKvBytes(sessionId, bytes);
}

void
EdgeLlmNode::OnTransferSent(uint64_t sessionId)
{
    if (sessionId & KvFrameHeader::PRE_TRANSFER_BIT)
    {
        m_preTransfer->OnSent(sessionId & ~KvFrameHeader::PRE_TRANSFER_FLAGS);
        return;
    }
    m_source->OnTransferSent(sessionId);
}

void
EdgeLlmNode::OpenSession(uint64_t sessionId, uint64_t contextTokens, uint32_t newTokens)
{
    NS_ABORT_MSG_IF(contextTokens < 1 || contextTokens > UINT32_MAX,
                    "EdgeLlmNode::OpenSession: context must be in [1, 2^32 - 1] tokens");
    Session& s = CreateSession(sessionId, FINISHED); // its context is built; no UE stream
    s.promptTokens = static_cast<uint32_t>(contextTokens);
    s.maxNewTokens = newTokens;               // decoded after a handover (none generated here)
    m_preTransfer->OnSessionReady(sessionId); // a likely handover noted before
}

// ---------------------------------------------------------------------------
// Backhaul messages, handed to the session roles

void
EdgeLlmNode::OnBackhaulMessage(uint16_t peerCellId,
                               bool controlChannel,
                               const KvFrameHeader& frame,
                               Ptr<Packet> message)
{
    switch (frame.type)
    {
    case KvFrameHeader::TRANSFER_REQUEST: {
        KvTransferRequestHeader req;
        message->RemoveHeader(req);
        m_target->OnTransferRequest(peerCellId, req, controlChannel);
        break;
    }
    case KvFrameHeader::TRANSFER_COMPLETE:
    case KvFrameHeader::TRANSFER_TRUNCATE: {
        KvTransferCompleteHeader done;
        message->RemoveHeader(done);
        m_target->OnTransferComplete(done);
        break;
    }
    case KvFrameHeader::TRANSFER_CANCEL: {
        KvTransferCompleteHeader cancel;
        message->RemoveHeader(cancel);
        if (!m_target->OnTransferCancel(peerCellId, cancel))
        {
            m_source->OnTransferCancel(peerCellId, cancel);
        }
        break;
    }
    case KvFrameHeader::TRANSFER_REDIRECT: {
        KvRedirectHeader redirect;
        message->RemoveHeader(redirect);
        m_source->OnTransferRedirect(peerCellId, redirect);
        break;
    }
    case KvFrameHeader::TRANSFER_REDIRECT_REFUSED: {
        KvRedirectHeader redirect;
        message->RemoveHeader(redirect);
        m_target->OnRedirectRefused(peerCellId, redirect);
        break;
    }
    case KvFrameHeader::TRANSFER_STOP: {
        KvTransferCompleteHeader stop;
        message->RemoveHeader(stop);
        m_source->OnTransferStop(peerCellId, stop);
        break;
    }
    case KvFrameHeader::TRANSFER_RESPONSE: {
        KvTransferResponseHeader response;
        message->RemoveHeader(response);
        m_source->OnTransferResponse(peerCellId, response);
        break;
    }
    case KvFrameHeader::TRANSFER_STATUS: {
        KvTransferStatusHeader status;
        message->RemoveHeader(status);
        m_source->OnTransferStatus(peerCellId, status);
        break;
    }
    case KvFrameHeader::BATCH_CLOSE: {
        KvBatchCloseHeader close;
        message->RemoveHeader(close);
        m_target->OnBatchClose(peerCellId, close);
        break;
    }
    case KvFrameHeader::PLAN_REQUEST: {
        KvPlanRequestHeader request;
        message->RemoveHeader(request);
        if (!request.IsValid() || request.GetSerializedSize() != frame.messageLength)
        {
            // Its member count disagrees with its length: no plan; the source plans alone.
            NS_LOG_WARN("cell " << m_cellId << ": malformed PLAN_REQUEST from cell " << peerCellId
                                << " (" << frame.messageLength << " bytes, member count "
                                << request.members.size() << "); ignored");
            break;
        }
        m_target->OnPlanRequest(peerCellId, request);
        break;
    }
    case KvFrameHeader::PLAN: {
        KvPlanHeader plan;
        message->RemoveHeader(plan);
        m_source->OnPlan(peerCellId, plan);
        break;
    }
    case KvFrameHeader::PRE_TRANSFER_START:
    case KvFrameHeader::PRE_TRANSFER_COMMIT:
    case KvFrameHeader::PRE_TRANSFER_END:
    case KvFrameHeader::PRE_TRANSFER_EVICTED:
    case KvFrameHeader::PRE_TRANSFER_PAUSE: {
        KvTransferCompleteHeader m;
        message->RemoveHeader(m);
        if (frame.type == KvFrameHeader::PRE_TRANSFER_START)
        {
            m_preTransfer->OnStart(peerCellId, m);
        }
        else if (frame.type == KvFrameHeader::PRE_TRANSFER_COMMIT)
        {
            m_preTransfer->OnCommit(peerCellId, m);
        }
        else if (frame.type == KvFrameHeader::PRE_TRANSFER_END)
        {
            m_preTransfer->OnEnd(peerCellId, m);
        }
        else if (frame.type == KvFrameHeader::PRE_TRANSFER_PAUSE)
        {
            m_preTransfer->OnPause(peerCellId, m);
        }
        else
        {
            m_preTransfer->OnEvicted(peerCellId, m);
        }
        break;
    }
    default:
        break; // KV_SEGMENT payload is counted in EdgeLlmTargetRole::OnKvBytes
    }
}

void
EdgeLlmNode::CheckDecodeRate(const std::string& field, double tokensPerSecond)
{
    if (!(std::isfinite(tokensPerSecond) && tokensPerSecond >= MIN_DECODE_RATE &&
          tokensPerSecond <= MAX_DECODE_RATE))
    {
        std::ostringstream what;
        what << field << " must be in [" << MIN_DECODE_RATE << ", " << MAX_DECODE_RATE
             << "] tokens/s (ns3::EdgeLlmNode::DecodeRate's range), got ";
        what.precision(15); // 1000000.5 must not print as 1e+06
        what << tokensPerSecond;
        throw std::invalid_argument(what.str());
    }
}

std::string
EdgeLlmNode::ToString(SessionState state)
{
    return EdgeLlmSession::ToString(state);
}

EdgeLlmNode::Session&
EdgeLlmNode::CreateSession(uint64_t sessionId, SessionState initial)
{
    auto [it, added] =
        m_sessions.insert_or_assign(sessionId,
                                    EdgeLlmSession(sessionId, m_cellId, &m_stateTrace, initial));
    return it->second;
}

void
EdgeLlmNode::LoseSession(Session& s, uint16_t cellId, LossReason reason)
{
    NS_LOG_WARN("cell " << m_cellId << ": session " << s.id << " lost: no backhaul path to cell "
                        << cellId << " (reason " << +reason << ")");
    s.decodeEvent.Cancel();
    if (s.GetState() == REDIRECTING || s.GetState() == RESTORING)
    {
        m_target->SendStatus(s.id, KvTransferStatusHeader::LOST); // the source forgets its copy
    }
    s.SwitchToState(LOST);
    ++m_lostSessions;
    m_lostTrace(s.id, cellId, reason);
}

} // namespace ns3
