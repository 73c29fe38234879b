/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-node.h"

#include "edge-llm-compat.h"
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
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmNode");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmNode);

namespace
{
/// Bytes of one forwarded token id (TRANSFER_REQUEST payload).
constexpr uint32_t FORWARDED_TOKEN_BYTES = 4;
/// IPv4 + TCP (with timestamps) header bytes: MSS = MTU - 52.
constexpr uint32_t TCP_IP_OVERHEAD = 52;
/// IPv4 (20) + UDP (8) header bytes.
constexpr uint32_t UDP_IP_OVERHEAD = 28;
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
                          MakeDoubleChecker<double>(1e-3, 1e6))
            .AddAttribute("TokenBytes",
                          "Radio payload bytes per streamed token (after the 14-byte header).",
                          UintegerValue(4),
                          MakeUintegerAccessor(&EdgeLlmNode::m_tokenBytes),
                          MakeUintegerChecker<uint32_t>(0, 1400))
            .AddAttribute("UePort",
                          "UDP port on which prompts arrive and tokens leave.",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&EdgeLlmNode::m_uePort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("BackhaulPort",
                          "TCP or UDP port of the KV transfer protocol (not X2's 4444 or 2152).",
                          UintegerValue(9001),
                          MakeUintegerAccessor(&EdgeLlmNode::m_backhaulPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Transport",
                          "Backhaul transport of the KV transfer protocol: Tcp (one TCP "
                          "connection per BS pair, ns-3's default TCP variant) or Udp "
                          "(KvDatagramSocket: paced at the link rate, selective-repeat "
                          "retransmission; an RDMA-like transfer without congestion control).",
                          EnumValue(EdgeLlmNode::TCP),
                          compat::MakeEnumAccessor<Transport>(&EdgeLlmNode::m_transport),
                          MakeEnumChecker(EdgeLlmNode::TCP, "Tcp", EdgeLlmNode::UDP, "Udp"))
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
            .AddAttribute("TransferTimeout",
                          "Target: if a session's KV bytes have not all arrived this long after "
                          "its handover, the source is told to stop (TRANSFER_STOP) and the "
                          "missing tokens are re-prefilled here. 0: wait for ever. ctHO, tHO "
                          "and cHO only: ImpactHO's transfer window is its deadline.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmNode::m_transferTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("StatusInterval",
                          "Target: while a session restores, send the source a TRANSFER_STATUS "
                          "(PROGRESS, KV bytes received) this often: 0 (none; RESTORED is "
                          "always sent once the session resumes) or >= 1 ms (checked when "
                          "the application starts).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmNode::m_statusInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute(
                "PlanningRate",
                "The backhaul rate the schedulers plan with (ctHO's R, ImpactHO's "
                "slot budget B dt): Nominal (the link's bit rate, as the papers do) "
                "or Payload (that rate times the share of each point-to-point packet "
                "that is KV payload: MSS / (MSS + 54) for TCP, (MTU - 34) / (MTU + 2) "
                "for UDP; 0.6 % less at MTU 9000, 4.5 % at 1500).",
                EnumValue(EdgeLlmNode::NOMINAL),
                compat::MakeEnumAccessor<PlanningRate>(&EdgeLlmNode::m_planningRate),
                MakeEnumChecker(EdgeLlmNode::NOMINAL, "Nominal", EdgeLlmNode::PAYLOAD, "Payload"))
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
            .AddAttribute("LayerwiseStreaming",
                          "Source: send each session's KV cache layer-major (layer 0 of all "
                          "n_tx tokens, then layer 1, ...) and flag it in TRANSFER_REQUEST; the "
                          "target then runs the first decode step after the handover layer by "
                          "layer as each KV layer completes. On a TransferTimeout a layer-major "
                          "transfer keeps nothing: every transferred token is re-prefilled. "
                          "ImpactHO transfers keep their importance order.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EdgeLlmNode::m_layerwise),
                          MakeBooleanChecker())
            .AddAttribute("GatherTime",
                          "Online batches: unannounced handovers that start within this time "
                          "of the first one are planned together (an RRC starts handovers in "
                          "bursts). 0: plan each at its own start.",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&EdgeLlmNode::m_gatherTime),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("KvAccuracyLoss",
                          "ImpactHO: the share of the full-cache accuracy M lost by storing the "
                          "KV cache at KvBits < 16 (a quantizer's measured loss), in [0, 1); the "
                          "utility's asymptote becomes M (1 - loss). Must be 0 at KvBits 16 "
                          "(checked when the application starts).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&EdgeLlmNode::m_kvAccuracyLoss),
                          MakeDoubleChecker<double>(0.0, 0.999999))
            .AddAttribute("ImportanceOrder",
                          "ImpactHO: caches are sent in Fast KVzip importance order (true) or "
                          "in random order (false); selects the accuracy utility preset.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmNode::m_importanceOrder),
                          MakeBooleanChecker())
            .AddAttribute("Scheduler",
                          "The handover policy (ns3::CtHoScheduler, ns3::ThoScheduler, "
                          "ns3::ChoScheduler, ...).",
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_scheduler),
                          MakePointerChecker<HandoverScheduler>())
            .AddAttribute("PrefillEngine",
                          "The GPU that runs prompt and handover prefill batches.",
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_gpu),
                          MakePointerChecker<PrefillEngine>())
            .AddTraceSource("SessionStarted",
                            "A prompt opened a session (sessionId, cellId, promptTokens).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_sessionStartedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverStarted",
                            "Source: a session hands over (sessionId, targetCellId, context).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_handoverStartedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverPlanned",
                            "Source: a batch is complete; each member's n_pf, n_tx and the "
                            "planner's predicted delay for the actual times and contexts.",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_plannedTrace),
                            "ns3::EdgeLlmNode::PlannedTracedCallback")
            .AddTraceSource("BackhaulPlanned",
                            "Source: the backhaul rate a batch is planned with (targetCellId, "
                            "bit/s, sharers): the path's rate divided by the number of "
                            "targets planned at once that share its busiest link.",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_backhaulPlannedTrace),
                            "ns3::EdgeLlmNode::BackhaulPlannedTracedCallback")
            .AddTraceSource("KvTransferReceived",
                            "Target: every KV byte of a session arrived (sessionId, "
                            "sourceCellId, bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_kvReceivedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PartialRestored",
                            "Target, ImpactHO: a session resumes on the importance-ordered "
                            "prefix it received (sessionId, sourceCellId, fraction in [0, 1]).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_partialTrace),
                            "ns3::EdgeLlmNode::PartialTracedCallback")
            .AddTraceSource("ImpactHoSlot",
                            "Source, ImpactHO: a slot was shared (targetCellId, active users, "
                            "true if the admission fallback decided it).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_slotTrace),
                            "ns3::EdgeLlmNode::SlotTracedCallback")
            .AddTraceSource("TransferTimedOut",
                            "Target: the KV transfer exceeded TransferTimeout; the missing "
                            "tokens are re-prefilled here (sessionId, sourceCellId, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_timeoutTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverFailed",
                            "Source: the RRC aborted the handover of a session served here "
                            "(any HandoverFailure* trace of either BS), which this BS serves "
                            "again from its own cache (sessionId, target cell, KV bytes the "
                            "target had been sent).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_failedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferCancelled",
                            "A transfer was cancelled because the UE came back (ping-pong): at "
                            "the target when it sends TRANSFER_CANCEL, at the source when it "
                            "resumes from its own cache (sessionId, other cell, KV bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_cancelledTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("KvLayerReceived",
                            "Target, layer-wise streaming: every KV byte of one layer of a "
                            "session arrived (sessionId, sourceCellId, layer index from 0).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_layerTrace),
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
            .AddTraceSource("TransferStatus",
                            "Source: a TRANSFER_STATUS PROGRESS report arrived (sessionId, "
                            "targetCellId, KV bytes the target has received).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_statusTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("SessionReleased",
                            "Source: the target restored the session (TRANSFER_STATUS RESTORED) "
                            "and this BS forgot it (sessionId, targetCellId, KV bytes the "
                            "target received).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_releasedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("SessionRestored",
                            "Target: the session resumes decoding (sessionId, sourceCellId, "
                            "handover delay).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_restoredTrace),
                            "ns3::EdgeLlmNode::RestoredTracedCallback")
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
      m_backhaulPort(9001),
      m_backhaulBuffer(0),
      m_backhaulSegmentSize(0),
      m_gatherTime(MilliSeconds(2))
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

Ptr<KvTransferConnection>
EdgeLlmNode::GetConnection(uint16_t peerCellId) const
{
    auto it = m_peers.find(peerCellId);
    return it == m_peers.end() ? nullptr : it->second.connection;
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
    peer.connection = CreateObject<KvTransferConnection>();
    peer.connection->SetMessageCallback(
        MakeCallback(&EdgeLlmNode::OnBackhaulMessage, this).Bind(peerCellId));
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
    AddPeer(peerCellId, path.local, path.remote, path.rate);
    Peer& peer = m_peers.at(peerCellId);
    peer.hasPath = true;
    peer.pathDelay = path.delay;
    peer.pathMtu = path.mtu;
    peer.links = path.links;
}

double
EdgeLlmNode::GetPlanningBitRate(uint16_t peerCellId) const
{
    const auto it = m_peers.find(peerCellId);
    NS_ABORT_MSG_IF(it == m_peers.end(), "EdgeLlmNode::GetPlanningBitRate: no peer " << peerCellId);
    return PlanningBitRate(it->second);
}

uint32_t
EdgeLlmNode::Sharers(uint16_t target, const std::set<uint16_t>& concurrent) const
{
    uint32_t most = 1;
    for (uint32_t link : m_peers.at(target).links)
    {
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
        most = std::max(most, users);
    }
    return most;
}

std::set<uint16_t>
EdgeLlmNode::ConcurrentTargets(uint16_t target, uint64_t bytes)
{
    std::set<uint16_t> concurrent = m_gatheredTargets;
    concurrent.insert(target);
    for (const auto& [id, peer] : m_peers)
    {
        if (peer.connection->GetBacklogBytes() > 0)
        {
            concurrent.insert(id);
        }
    }
    const Time alone = Simulator::Now() + Seconds(8.0 * static_cast<double>(bytes) /
                                                  PlanningBitRate(m_peers.at(target)));
    for (const auto& [other, when] : GetBatcher().GetAnnounced())
    {
        if (when < alone)
        {
            concurrent.insert(other);
        }
    }
    return concurrent;
}

void
EdgeLlmNode::ExpectHandover(uint64_t sessionId, uint16_t targetCellId, Time when)
{
    NS_LOG_FUNCTION(this << sessionId << targetCellId << when);
    GetBatcher().Expect(sessionId, targetCellId, when);
}

double
EdgeLlmNode::BackhaulTokensPerSecond(const Peer& peer) const
{
    return PlanningBitRate(peer) / static_cast<double>(m_profile.BitsPerToken());
}

double
EdgeLlmNode::PlanningBitRate(const Peer& peer) const
{
    const double nominal = static_cast<double>(peer.rate.GetBitRate());
    if (m_planningRate == NOMINAL)
    {
        return nominal;
    }
    // The payload share of each packet on a point-to-point link (PPP: 2 B per frame).
    const double mtu = PeerMtu(peer);
    constexpr double PPP_BYTES = 2;
    if (m_transport == UDP)
    {
        return nominal * (mtu - UDP_IP_OVERHEAD - KvDatagramHeader::DATA_SIZE) / (mtu + PPP_BYTES);
    }
    const double mss = m_backhaulSegmentSize != 0 ? m_backhaulSegmentSize : mtu - TCP_IP_OVERHEAD;
    return nominal * mss / (mss + TCP_IP_OVERHEAD + PPP_BYTES);
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
        mtu = std::min(mtu, PeerMtu(peer));
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
    // A dedicated link of known rate: start with a window of one bandwidth-delay product
    // (at most MAX_SEGMENTS_IN_FLIGHT segments, never below TCP's own initial window),
    // so that the first transfer is not held back by slow start.
    uint64_t bdp = 0;
    for (const auto& [id, peer] : m_peers)
    {
        bdp = std::max(bdp,
                       static_cast<uint64_t>(std::ceil(static_cast<double>(peer.rate.GetBitRate()) *
                                                       PeerRttSeconds(peer) / 8)));
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
    if (m_kvBits == 16 && m_kvAccuracyLoss > 0)
    {
        error << "ns3::EdgeLlmNode::KvAccuracyLoss is " << m_kvAccuracyLoss
              << "; it must be 0 at KvBits 16 (it is the loss of a lower precision)";
        return error.str();
    }
    // ns-3's EPC binds UDP 4444 (X2-C) and 2152 (X2-U, S1-U GTP-U) on the BS's node: a
    // UDP socket of ours there cannot bind, and a TCP one would share X2's numbers.
    for (const auto& [name, port] :
         {std::make_pair("UePort", m_uePort), std::make_pair("BackhaulPort", m_backhaulPort)})
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
    if (m_statusInterval.IsStrictlyPositive() && m_statusInterval < MilliSeconds(1))
    {
        error << "ns3::EdgeLlmNode::StatusInterval is " << m_statusInterval.As(Time::US)
              << "; it must be 0 (no PROGRESS reports) or >= 1 ms (cell " << m_cellId << ")";
        return error.str();
    }
    for (const auto& [id, peer] : m_peers)
    {
        const uint32_t mtu = PeerMtu(peer);
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
        StartUdpBackhaul();
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
        if (m_transport == TCP && m_cellId < peer.cellId) // the lower cell id opens it
        {
            Ptr<Socket> socket = MakeBackhaulSocket();
            socket->Bind(InetSocketAddress(peer.local, 0));
            socket->Connect(InetSocketAddress(peer.remote, m_backhaulPort));
            peer.connection->SetSocket(socket, false);
        }
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
    }
    for (const auto& udp : m_udpSockets)
    {
        udp->Close();
        udp->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

uint32_t
EdgeLlmNode::PeerMtu(const Peer& peer) const
{
    if (peer.hasPath)
    {
        return peer.pathMtu;
    }
    Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
    const int32_t itf = ipv4->GetInterfaceForAddress(peer.local);
    NS_ABORT_MSG_IF(itf < 0, "EdgeLlmNode: no interface has backhaul address " << peer.local);
    return ipv4->GetMtu(itf);
}

double
EdgeLlmNode::PeerRttSeconds(const Peer& peer) const
{
    Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
    const int32_t itf = ipv4->GetInterfaceForAddress(peer.local);
    NS_ABORT_MSG_IF(itf < 0, "EdgeLlmNode: no interface has backhaul address " << peer.local);
    double delay = 0; // a channel without a Delay attribute: serialisation only
    Ptr<NetDevice> device = ipv4->GetNetDevice(itf);
    if (peer.hasPath)
    {
        delay = peer.pathDelay.GetSeconds(); // the sum over the path's links
    }
    else if (device && device->GetChannel())
    {
        TimeValue d;
        if (device->GetChannel()->GetAttributeFailSafe("Delay", d))
        {
            delay = d.Get().GetSeconds();
        }
    }
    // Propagation both ways plus four full frames (PPP: MTU + 2 bytes) at the link rate:
    // the segment itself, the one a delayed ACK waits for, and the ACK's slot.
    constexpr double PPP_BYTES = 2;
    const double rate = static_cast<double>(peer.rate.GetBitRate());
    return 2 * delay + 4 * (PeerMtu(peer) + PPP_BYTES) * 8 / rate;
}

uint64_t
EdgeLlmNode::AutoBufferBytes(const Peer& peer) const
{
    const double bdp = static_cast<double>(peer.rate.GetBitRate()) * PeerRttSeconds(peer) / 8;
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
        const double rtt = PeerRttSeconds(peer);
        const double rate = static_cast<double>(peer.rate.GetBitRate());
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
EdgeLlmNode::StartUdpBackhaul()
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
            NS_ABORT_MSG_IF(udp->Bind(InetSocketAddress(peer.local, m_backhaulPort)) != 0,
                            "EdgeLlmNode: cannot bind UDP port " << m_backhaulPort << " on "
                                                                 << peer.local);
            udp->SetRecvCallback(MakeCallback(&EdgeLlmNode::HandleBackhaulDatagram, this));
            m_udpSockets.push_back(udp);
        }
        const uint32_t mtu = PeerMtu(peer); // >= MIN_BACKHAUL_MTU: checked at start
        peer.datagram = CreateObject<KvDatagramSocket>();
        peer.datagram->SetNode(GetNode());
        peer.datagram->SetAttribute("PacingRate", DataRateValue(peer.rate));
        peer.datagram->SetAttribute(
            "DatagramPayload",
            UintegerValue(mtu - UDP_IP_OVERHEAD - KvDatagramHeader::DATA_SIZE));
        peer.datagram->SetAttribute("SndBufSize", UintegerValue(m_bufferInUse));
        peer.datagram->SetAttribute("RcvBufSize", UintegerValue(m_bufferInUse));
        peer.datagram->SetUdpSocket(udp, InetSocketAddress(peer.remote, m_backhaulPort));
        peer.connection->SetSocket(peer.datagram, true);
    }
}

void
EdgeLlmNode::HandleBackhaulDatagram(Ptr<Socket> socket)
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
                target = peer.datagram;
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
            peer.connection->SetSocket(socket, true);
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
        Session s;
        s.id = prompt.sessionId;
        s.ueAddress = InetSocketAddress::ConvertFrom(from).GetIpv4();
        s.uePort = prompt.replyPort;
        s.promptTokens = prompt.promptTokens;
        s.maxNewTokens = prompt.maxNewTokens;
        s.state = PREFILLING;
        m_sessions[s.id] = s;
        m_sessionStartedTrace(s.id, m_cellId, s.promptTokens);
        if (!m_promptsOnGpu)
        {
            // Warm-up shortcut: the context exists now, without GPU time.
            StartDecoding(m_sessions[s.id],
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
    if (it == m_sessions.end() || it->second.state != PREFILLING)
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
        session.state = FINISHED;
        return;
    }
    session.state = DECODING;
    session.nextToken = firstToken;
    session.decodeEvent = Simulator::Schedule(session.nextToken - Simulator::Now(),
                                              &EdgeLlmNode::DecodeToken,
                                              this,
                                              session.id);
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
        s.state = FINISHED;
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
    if (s.state == HANDED_OVER || s.state == RESTORING || s.state == REDIRECTING || s.state == LOST)
    {
        return 0; // not servable here: cannot join a batch from this BS
    }
    uint64_t more = 0;
    if (s.state == DECODING && t >= s.nextToken)
    {
        const int64_t step = Seconds(1.0 / m_decodeRate).GetTimeStep();
        more = static_cast<uint64_t>((t - s.nextToken).GetTimeStep() / step) + 1;
        more = std::min<uint64_t>(more, s.maxNewTokens - s.generated);
    }
    return s.promptTokens + s.generated + more;
}

// ---------------------------------------------------------------------------
// Source role

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
    Session& s = it->second;
    if (s.state == RESTORING && m_peers.count(s.sourceCellId))
    {
        // Target: the UE never arrived. The source still holds the cache and serves it.
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = s.ReceivedKvBytes();
        m_peers.at(s.sourceCellId)
            .connection->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_cancelledTrace(sessionId, s.sourceCellId, s.ReceivedKvBytes());
        s.state = CANCELLED;
    }
    else if (s.state == HANDED_OVER && m_peers.count(s.targetCellId))
    {
        // Source: the UE did not complete the handover; tell the target to drop the
        // restore and serve the session again from this BS's own cache.
        Peer& peer = m_peers.at(s.targetCellId);
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = peer.connection->GetBytesQueued(sessionId);
        peer.connection->Cancel(sessionId);
        peer.connection->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_impactHo.erase(sessionId);
        m_cancelledTrace(sessionId, s.targetCellId, cancel.totalBytes);
        m_failedTrace(sessionId, s.targetCellId, cancel.totalBytes);
        StartDecoding(s, Simulator::Now() + Seconds(1.0 / m_decodeRate));
    }
    else if ((s.state == DECODING || s.state == PREFILLING || s.state == FINISHED) && m_batcher)
    {
        // Source, before the handover started (the target's RRC refused the UE): the UE
        // stays here, and no batch may wait for it.
        const uint16_t target = m_batcher->Withdraw(sessionId);
        if (target != 0)
        {
            m_failedTrace(sessionId, target, 0);
        }
    }
}

void
EdgeLlmNode::RrcHandoverStart(uint64_t imsi, uint16_t cellId, uint16_t rnti, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << imsi << cellId << rnti << targetCellId);
    NotifyHandoverStart(imsi, targetCellId);
}

HandoverBatcher&
EdgeLlmNode::GetBatcher()
{
    if (!m_batcher)
    {
        NS_ABORT_MSG_IF(!m_scheduler,
                        "ns3::EdgeLlmNode::Scheduler is not set (cell " << m_cellId << ")");
        m_batcher = std::make_unique<HandoverBatcher>(m_scheduler);
        m_batcher->SetArrivalPredictor(m_predictor);
        m_batcher->SetBatchCompleteCallback(
            [this](uint32_t id, uint16_t target, uint16_t size, bool online, const CtHoPlan& p) {
                OnBatchComplete(id, target, size, online, p);
            });
    }
    return *m_batcher;
}

void
EdgeLlmNode::SetArrivalPredictor(HandoverBatcher::ArrivalPredictor predictor)
{
    m_predictor = predictor;
    if (m_batcher)
    {
        m_batcher->SetArrivalPredictor(predictor);
    }
}

void
EdgeLlmNode::OnBatchComplete(uint32_t batchId,
                             uint16_t target,
                             uint16_t size,
                             bool online,
                             const CtHoPlan& plan)
{
    if (online && plan.prefillLength > 0)
    {
        // The target waits for this before it starts the batch's prefill.
        KvBatchCloseHeader close;
        close.batchId = batchId;
        close.batchSize = size;
        m_peers.at(target).connection->SendMessage(KvFrameHeader::BATCH_CLOSE, close, 0);
    }
    // The plan at the batch's L on the actual times and contexts.
    for (const auto& ue : plan.ues)
    {
        m_plannedTrace(ue.ueId, ue.prefillTokens, ue.transferTokens, Seconds(ue.delay));
    }
}

void
EdgeLlmNode::NotifyHandoverStart(uint64_t sessionId, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << sessionId << targetCellId);
    auto sit = m_sessions.find(sessionId);
    if (sit != m_sessions.end() && sit->second.state == RESTORING &&
        targetCellId == sit->second.sourceCellId)
    {
        // Ping-pong: the UE goes back before its state is rebuilt here. The source still
        // holds the cache: cancel the transfer and let the source serve it again.
        Session& s = sit->second;
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = s.ReceivedKvBytes();
        m_peers.at(targetCellId).connection->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_cancelledTrace(sessionId, targetCellId, s.ReceivedKvBytes());
        s.state = CANCELLED;
        return;
    }
    if (sit != m_sessions.end() && sit->second.state == RESTORING &&
        m_peers.count(sit->second.sourceCellId))
    {
        // The UE moves on to a third BS before its state is rebuilt here: the source
        // still holds the whole cache, so it hands the session over there instead. If the
        // source has no link to that BS it answers TRANSFER_REDIRECT_REFUSED, and this BS
        // finishes the restore and relays the session (OnRedirectRefused); until the
        // answer comes it keeps counting the KV bytes and running the prefill.
        Session& s = sit->second;
        KvRedirectHeader redirect;
        redirect.sessionId = sessionId;
        redirect.newTargetCellId = targetCellId;
        m_peers.at(s.sourceCellId)
            .connection->SendMessage(KvFrameHeader::TRANSFER_REDIRECT, redirect, 0);
        m_cancelledTrace(sessionId, s.sourceCellId, s.ReceivedKvBytes());
        s.state = REDIRECTING;
        s.relayTarget = targetCellId;
        s.relayTime = Simulator::Now();
        s.kvDoneAtRedirect = s.ReceivedKvBytes() >= s.expectedKvBytes;
        return;
    }
    BeginHandover(sessionId, targetCellId, Simulator::Now());
}

void
EdgeLlmNode::BeginHandover(uint64_t sessionId, uint16_t targetCellId, Time handoverTime)
{
    auto sit = m_sessions.find(sessionId);
    if (sit == m_sessions.end() || sit->second.state == HANDED_OVER ||
        sit->second.state == RESTORING || sit->second.state == CANCELLED ||
        sit->second.state == REDIRECTING || sit->second.state == LOST)
    {
        NS_LOG_INFO("cell " << m_cellId << ": handover of session " << sessionId
                            << " with no servable LLM session here; nothing to move");
        return;
    }
    Session& s = sit->second;
    s.decodeEvent.Cancel();
    if (!m_peers.count(targetCellId))
    {
        // No backhaul link to the UE's new cell: the session cannot follow the UE.
        LoseSession(s, targetCellId, NO_BACKHAUL_PATH);
        return;
    }
    s.state = HANDED_OVER;
    s.targetCellId = targetCellId;
    const uint64_t context = s.promptTokens + s.generated;
    m_handoverStartedTrace(sessionId, targetCellId, context);
    if (Ptr<ImpactHoScheduler> impact = DynamicCast<ImpactHoScheduler>(m_scheduler))
    {
        StartImpactHo(impact, sessionId, targetCellId, context);
        return;
    }
    if (GetBatcher().IsAnnounced(sessionId, targetCellId) || m_gatherTime.IsZero())
    {
        StartTransfer(sessionId, targetCellId, context, handoverTime);
        return;
    }
    // Online: the RRC starts handovers in bursts (one measurement report period, X2
    // acks microseconds apart); those within GatherTime of the first are planned together.
    m_pending.push_back({sessionId, handoverTime.GetSeconds(), context});
    m_pendingTarget.push_back(targetCellId);
    if (!compat::IsPending(m_pendingEvent))
    {
        m_pendingEvent =
            Simulator::Schedule(m_gatherTime, &EdgeLlmNode::ProcessPendingHandovers, this);
    }
}

void
EdgeLlmNode::ProcessPendingHandovers()
{
    std::map<uint16_t, std::vector<CtHoUe>> byTarget;
    for (std::size_t i = 0; i < m_pending.size(); ++i)
    {
        byTarget[m_pendingTarget[i]].push_back(m_pending[i]);
    }
    m_pending.clear();
    m_pendingTarget.clear();
    for (const auto& [target, arrivals] : byTarget)
    {
        m_gatheredTargets.insert(target); // planned at once: they share links
    }
    for (const auto& [target, arrivals] : byTarget)
    {
        GetBatcher().SetSimultaneous(target, arrivals);
        for (const auto& ue : arrivals)
        {
            StartTransfer(ue.ueId, target, ue.contextTokens, Seconds(ue.handoverTime));
        }
    }
    m_gatheredTargets.clear();
}

void
EdgeLlmNode::StartTransfer(uint64_t sessionId,
                           uint16_t targetCellId,
                           uint64_t context,
                           Time handoverTime)
{
    Session& s = m_sessions.at(sessionId);
    const Time now = handoverTime; // tau: the plan and the target count from it
    Peer& peer = m_peers.at(targetCellId);
    // Targets whose paths share a link with this one and whose transfers overlap it
    // split that link's rate equally (1 on dedicated links: the rate as before).
    const uint32_t sharers =
        Sharers(targetCellId, ConcurrentTargets(targetCellId, context * m_profile.BytesPerToken()));
    const double planned = PlanningBitRate(peer) / sharers;
    HandoverBatcher::PlanInputs inputs;
    inputs.backhaulTokensPerSecond = planned / static_cast<double>(m_profile.BitsPerToken());
    inputs.prefill = m_gpu->GetModel();
    inputs.batchPeriod = m_gpu->GetBatchPeriod().GetSeconds();
    inputs.backhaulFreeAt = Simulator::Now().GetSeconds() +
                            8.0 * static_cast<double>(peer.connection->GetBacklogBytes()) / planned;
    m_backhaulPlannedTrace(targetCellId, planned, sharers);
    const HandoverBatcher::Decision d =
        GetBatcher().Start(sessionId,
                           targetCellId,
                           context,
                           now,
                           inputs,
                           [this](uint64_t id, Time when) { return PredictContextAt(id, when); });

    KvTransferRequestHeader req;
    req.sessionId = sessionId;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_cellId;
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.prefillLength = static_cast<uint32_t>(d.prefillLength);
    req.prefillTokens = static_cast<uint32_t>(d.prefillTokens);
    req.transferTokens = static_cast<uint32_t>(d.transferTokens);
    req.batchId = d.batchId;
    req.batchSize = d.batchSize;
    req.bytesPerToken = static_cast<uint32_t>(m_profile.BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    if (m_layerwise)
    {
        req.flags |= KvTransferRequestHeader::LAYER_MAJOR;
    }
    peer.connection->SendMessage(KvFrameHeader::TRANSFER_REQUEST,
                                 req,
                                 static_cast<uint32_t>(d.prefillTokens * FORWARDED_TOKEN_BYTES));
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = d.deadline;
    job.remainingBytes = d.transferTokens * m_profile.BytesPerToken();
    peer.connection->AddTransfer(job);
}

void
EdgeLlmNode::OpenSession(uint64_t sessionId, uint64_t contextTokens, uint32_t newTokens)
{
    NS_ABORT_MSG_IF(contextTokens < 1 || contextTokens > UINT32_MAX,
                    "EdgeLlmNode::OpenSession: context must be in [1, 2^32 - 1] tokens");
    Session s;
    s.id = sessionId;
    s.promptTokens = static_cast<uint32_t>(contextTokens);
    s.maxNewTokens = newTokens; // decoded after a handover (none generated here)
    s.state = FINISHED;         // its context is built; no UE stream attached
    m_sessions[sessionId] = s;
}

void
EdgeLlmNode::StartImpactHo(Ptr<ImpactHoScheduler> scheduler,
                           uint64_t sessionId,
                           uint16_t targetCellId,
                           uint64_t context)
{
    const Time now = Simulator::Now();
    Session& s = m_sessions.at(sessionId);
    Peer& peer = m_peers.at(targetCellId);
    KvTransferRequestHeader req;
    req.sessionId = sessionId;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_cellId;
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.transferTokens = static_cast<uint32_t>(context);
    req.bytesPerToken = static_cast<uint32_t>(m_profile.BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    req.flags = KvTransferRequestHeader::IMPORTANCE_ORDERED;
    peer.connection->SendMessage(KvFrameHeader::TRANSFER_REQUEST, req, 0);
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = now + scheduler->GetTransferWindow();
    job.remainingBytes = context * m_profile.BytesPerToken();
    job.slotBudget = 0; // it waits for the next slot
    job.entryBytes = static_cast<uint32_t>(m_profile.BitsPerEntry() / 8);
    peer.connection->AddTransfer(job);

    ImpactHoTransfer t;
    t.target = targetCellId;
    t.arrival = now;
    t.bytes = job.remainingBytes;
    t.utility = AccuracyUtility::Preset(context, m_importanceOrder, m_kvAccuracyLoss);
    m_impactHo[sessionId] = t;
    Simulator::Schedule(scheduler->GetTransferWindow(),
                        &EdgeLlmNode::TruncateImpactHo,
                        this,
                        sessionId);
    if (!compat::IsPending(m_slotEvent))
    {
        // Slots fall on multiples of dt; a handover inside a slot waits for the next.
        const int64_t dt = scheduler->GetSlotLength().GetTimeStep();
        const int64_t next = ((now.GetTimeStep() + dt - 1) / dt) * dt;
        m_slotEvent = Simulator::Schedule(TimeStep(next) - now, &EdgeLlmNode::OnImpactHoSlot, this);
    }
}

void
EdgeLlmNode::OnImpactHoSlot()
{
    Ptr<ImpactHoScheduler> scheduler = DynamicCast<ImpactHoScheduler>(m_scheduler);
    const Time now = Simulator::Now();
    const Time dt = scheduler->GetSlotLength();
    std::map<uint16_t, std::vector<SlotUser>> active;
    for (const auto& [id, t] : m_impactHo)
    {
        if (t.arrival <= now && now < t.arrival + scheduler->GetTransferWindow())
        {
            const double sent =
                static_cast<double>(m_peers.at(t.target).connection->GetBytesQueued(id));
            SlotUser u;
            u.userId = id;
            u.cacheBits = 8.0 * static_cast<double>(t.bytes);
            u.received = std::min(1.0, sent / static_cast<double>(t.bytes));
            u.utility = t.utility;
            active[t.target].push_back(u);
        }
    }
    for (const auto& [target, users] : active)
    {
        Peer& peer = m_peers.at(target);
        // Targets active in this slot whose paths share a link split it equally.
        std::set<uint16_t> concurrent;
        for (const auto& [other, otherUsers] : active)
        {
            concurrent.insert(other);
        }
        const double budget = PlanningBitRate(peer) / Sharers(target, concurrent) * dt.GetSeconds();
        const SlotAllocation a = scheduler->AllocateSlot(users, budget);
        m_slotTrace(target,
                    static_cast<uint32_t>(users.size()),
                    a.regime == SlotAllocation::FALLBACK);
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            const double bits = (a.target[i] - users[i].received) * users[i].cacheBits;
            uint64_t bytes = static_cast<uint64_t>(std::max(0.0, bits / 8.0));
            if (a.target[i] >= 1.0 - 1e-9)
            {
                // The whole rest: a rounding shortfall of a few bytes would hold back the
                // last entry and keep the user active for another slot.
                const ImpactHoTransfer& t = m_impactHo.at(users[i].userId);
                bytes = std::max(bytes, t.bytes - peer.connection->GetBytesQueued(users[i].userId));
            }
            peer.connection->SetSlotBudget(users[i].userId, bytes);
        }
    }
    if (!m_impactHo.empty())
    {
        m_slotEvent = Simulator::Schedule(dt, &EdgeLlmNode::OnImpactHoSlot, this);
    }
}

void
EdgeLlmNode::TruncateImpactHo(uint64_t sessionId)
{
    auto it = m_impactHo.find(sessionId);
    if (it == m_impactHo.end())
    {
        return; // already complete
    }
    const uint16_t target = it->second.target;
    m_impactHo.erase(it); // before Truncate(): its completion callback erases too
    m_peers.at(target).connection->Truncate(sessionId);
}

void
EdgeLlmNode::OnTransferSent(uint64_t sessionId)
{
    m_impactHo.erase(sessionId);
}

// ---------------------------------------------------------------------------
// Target role

void
EdgeLlmNode::OnBackhaulMessage(uint16_t peerCellId, const KvFrameHeader& frame, Ptr<Packet> message)
{
    switch (frame.type)
    {
    case KvFrameHeader::TRANSFER_REQUEST: {
        KvTransferRequestHeader req;
        message->RemoveHeader(req);
        OnTransferRequest(peerCellId, req);
        break;
    }
    case KvFrameHeader::TRANSFER_COMPLETE:
    case KvFrameHeader::TRANSFER_TRUNCATE: {
        KvTransferCompleteHeader done;
        message->RemoveHeader(done);
        auto it = m_sessions.find(done.sessionId);
        if (it == m_sessions.end())
        {
            break;
        }
        Session& t = it->second;
        if (t.entryBytes > 0 && t.state == RESTORING)
        {
            // ImpactHO: complete or truncated, the target resumes on the prefix it has
            // (anytime inference); the fraction counts the entries that arrived.
            const uint64_t kv = t.ReceivedKvBytes();
            m_partialTrace(t.id,
                           t.sourceCellId,
                           t.expectedKvBytes > 0
                               ? static_cast<double>(kv) / static_cast<double>(t.expectedKvBytes)
                               : 1.0);
            t.expectedKvBytes = kv;
            MaybeResume(t);
        }
        else if (t.entryBytes > 0 && t.state == REDIRECTING)
        {
            t.expectedKvBytes = t.ReceivedKvBytes(); // the prefix to relay if refused
        }
        else if (t.ReceivedKvBytes() != done.totalBytes)
        {
            NS_LOG_ERROR("cell " << m_cellId << ": session " << done.sessionId << " got "
                                 << t.ReceivedKvBytes() << " KV bytes, source sent "
                                 << done.totalBytes);
        }
        break;
    }
    case KvFrameHeader::TRANSFER_CANCEL: {
        // Source: the UE came back before the target rebuilt its state. Stop sending and
        // serve it again from this BS's own cache.
        KvTransferCompleteHeader cancel;
        message->RemoveHeader(cancel);
        auto it = m_sessions.find(cancel.sessionId);
        if (it != m_sessions.end() && it->second.state == RESTORING)
        {
            // Target: the source reports the handover failed; drop the restore.
            m_cancelledTrace(cancel.sessionId, peerCellId, it->second.ReceivedKvBytes());
            it->second.state = CANCELLED;
            break;
        }
        if (it != m_sessions.end() && it->second.state == REDIRECTING)
        {
            // The source serves the session again (its handover failed): nothing to relay.
            // TransferCancelled was traced when the redirect left.
            it->second.state = CANCELLED;
            break;
        }
        if (it == m_sessions.end() || it->second.state != HANDED_OVER)
        {
            break;
        }
        m_peers.at(peerCellId).connection->Cancel(cancel.sessionId);
        m_impactHo.erase(cancel.sessionId);
        m_cancelledTrace(cancel.sessionId, peerCellId, cancel.totalBytes);
        StartDecoding(it->second, Simulator::Now() + Seconds(1.0 / m_decodeRate));
        break;
    }
    case KvFrameHeader::TRANSFER_REDIRECT: {
        // Source: the UE went on from that target to a third BS; hand the session over
        // to it from here, where the whole cache still is.
        KvRedirectHeader redirect;
        message->RemoveHeader(redirect);
        auto it = m_sessions.find(redirect.sessionId);
        if (it == m_sessions.end() || it->second.state != HANDED_OVER)
        {
            NS_LOG_WARN("cell " << m_cellId << ": redirect of session " << redirect.sessionId
                                << " to cell " << redirect.newTargetCellId << " ignored");
            break;
        }
        if (!m_peers.count(redirect.newTargetCellId))
        {
            // No link from here to the new cell: the target keeps what it is receiving,
            // finishes the restore and relays the session (or declares it lost).
            NS_LOG_INFO("cell " << m_cellId << ": no backhaul link to cell "
                                << redirect.newTargetCellId << "; cell " << peerCellId
                                << " relays session " << redirect.sessionId);
            m_peers.at(peerCellId)
                .connection->SendMessage(KvFrameHeader::TRANSFER_REDIRECT_REFUSED, redirect, 0);
            break;
        }
        m_peers.at(peerCellId).connection->Cancel(redirect.sessionId);
        m_impactHo.erase(redirect.sessionId);
        it->second.state = FINISHED; // servable again, decoding stays stopped
        NotifyHandoverStart(redirect.sessionId, redirect.newTargetCellId);
        break;
    }
    case KvFrameHeader::TRANSFER_REDIRECT_REFUSED: {
        KvRedirectHeader redirect;
        message->RemoveHeader(redirect);
        OnRedirectRefused(peerCellId, redirect);
        break;
    }
    case KvFrameHeader::TRANSFER_STOP: {
        // Source: the target timed out and re-prefills what is missing; stop sending.
        KvTransferCompleteHeader stop;
        message->RemoveHeader(stop);
        m_peers.at(peerCellId).connection->Cancel(stop.sessionId);
        m_impactHo.erase(stop.sessionId);
        break;
    }
    case KvFrameHeader::TRANSFER_RESPONSE: {
        KvTransferResponseHeader response;
        message->RemoveHeader(response);
        OnTransferResponse(peerCellId, response);
        break;
    }
    case KvFrameHeader::TRANSFER_STATUS: {
        KvTransferStatusHeader status;
        message->RemoveHeader(status);
        OnTransferStatus(peerCellId, status);
        break;
    }
    case KvFrameHeader::BATCH_CLOSE: {
        KvBatchCloseHeader close;
        message->RemoveHeader(close);
        m_gpu->Close((uint64_t{peerCellId} << 32) | close.batchId, close.batchSize);
        break;
    }
    default:
        break; // KV_SEGMENT payload is counted in OnKvBytes
    }
}

void
EdgeLlmNode::OnTransferRequest(uint16_t peerCellId, const KvTransferRequestHeader& req)
{
    NS_LOG_FUNCTION(this << peerCellId << req.sessionId);
    // Every request is answered; a KV format this BS's model cannot use is refused.
    const bool accepted = req.bytesPerToken == m_profile.BytesPerToken();
    KvTransferResponseHeader response;
    response.sessionId = req.sessionId;
    response.bytesPerToken = static_cast<uint32_t>(m_profile.BytesPerToken());
    response.result =
        accepted ? KvTransferResponseHeader::ACCEPTED : KvTransferResponseHeader::REFUSED_KV_FORMAT;
    m_peers.at(peerCellId).connection->SendMessage(KvFrameHeader::TRANSFER_RESPONSE, response, 0);
    Session& s = m_sessions[req.sessionId];
    s = Session();
    s.id = req.sessionId;
    s.sourceCellId = peerCellId;
    if (!accepted)
    {
        NS_LOG_ERROR("cell " << m_cellId << ": session " << req.sessionId << " from cell "
                             << peerCellId << " has " << req.bytesPerToken
                             << " KV bytes/token, this BS's model has " << m_profile.BytesPerToken()
                             << "; request refused");
        s.state = REFUSED; // its KV bytes still in flight are counted and dropped
        m_refusedTrace(req.sessionId, peerCellId, 0);
        return;
    }
    s.ueAddress = Ipv4Address(req.ueAddress);
    s.uePort = req.uePort;
    s.promptTokens = req.contextTokens - req.tokensGenerated;
    s.generated = req.tokensGenerated;
    s.maxNewTokens = req.maxNewTokens;
    s.state = RESTORING;
    s.handoverTime = NanoSeconds(req.handoverTimeNs);
    s.expectedKvBytes = uint64_t{req.transferTokens} * req.bytesPerToken;
    if (req.flags & KvTransferRequestHeader::IMPORTANCE_ORDERED)
    {
        s.entryBytes = static_cast<uint32_t>(m_profile.BitsPerEntry() / 8);
    }
    s.layerMajor = (req.flags & KvTransferRequestHeader::LAYER_MAJOR) && s.entryBytes == 0 &&
                   s.expectedKvBytes > 0;
    s.restoreGeneration = ++m_restoreCounter;
    s.batchPending = req.prefillTokens > 0;
    if (s.batchPending)
    {
        const uint64_t key = (uint64_t{peerCellId} << 32) | req.batchId;
        m_gpu->Join(key,
                    req.batchSize,
                    req.prefillLength,
                    s.handoverTime,
                    compat::Bind(MakeCallback(&EdgeLlmNode::OnRestorePrefillDone, this),
                                 req.sessionId,
                                 s.restoreGeneration,
                                 false));
    }
    if (m_statusInterval.IsStrictlyPositive())
    {
        s.statusEvent = Simulator::Schedule(m_statusInterval,
                                            &EdgeLlmNode::OnStatusTimer,
                                            this,
                                            s.id,
                                            s.restoreGeneration);
    }
    if (s.expectedKvBytes == 0)
    {
        m_kvReceivedTrace(s.id, s.sourceCellId, 0);
    }
    else if (m_transferTimeout.IsStrictlyPositive() && s.entryBytes == 0)
    {
        const Time at = std::max(s.handoverTime + m_transferTimeout, Simulator::Now());
        Simulator::Schedule(at - Simulator::Now(),
                            &EdgeLlmNode::OnTransferTimeout,
                            this,
                            s.id,
                            s.restoreGeneration);
    }
    MaybeResume(s);
}

void
EdgeLlmNode::OnKvBytes(uint64_t sessionId, uint64_t bytes)
{
    auto it = m_sessions.find(sessionId);
    if (it != m_sessions.end() && it->second.state == REDIRECTING)
    {
        // Kept: relayed from here if the source cannot reach the UE's new cell.
        it->second.receivedKvBytes += bytes;
        return;
    }
    if (it == m_sessions.end() || it->second.state != RESTORING)
    {
        if (it == m_sessions.end() || (it->second.state != CANCELLED &&
                                       it->second.state != REFUSED && it->second.state != LOST))
        {
            NS_LOG_WARN("cell " << m_cellId << ": " << bytes << " KV bytes for session "
                                << sessionId << " that is not being restored here");
        }
        if (it != m_sessions.end())
        {
            it->second.receivedKvBytes += bytes; // counted, then discarded (cancelled)
        }
        return;
    }
    Session& s = it->second;
    s.receivedKvBytes += bytes;
    if (s.layerMajor)
    {
        // Layer l is bytes [l E / N, (l + 1) E / N) of the E expected (E / N = n_tx times
        // the bytes of one token's layer, a whole number).
        const uint64_t layers = m_profile.numLayers;
        const uint64_t perLayer = s.expectedKvBytes / layers;
        while (s.layerReady.size() < layers &&
               s.receivedKvBytes >= (s.layerReady.size() + 1) * perLayer)
        {
            s.layerReady.push_back(Simulator::Now());
            m_layerTrace(s.id, s.sourceCellId, s.layerReady.size() - 1);
        }
    }
    if (s.ReceivedKvBytes() == s.expectedKvBytes)
    {
        m_kvReceivedTrace(s.id, s.sourceCellId, s.ReceivedKvBytes());
        if (s.entryBytes == 0)
        {
            MaybeResume(s); // ImpactHO sessions resume on their TRANSFER_COMPLETE
        }
    }
}

void
EdgeLlmNode::OnTransferTimeout(uint64_t sessionId, uint32_t generation)
{
    auto it = m_sessions.find(sessionId);
    if (it != m_sessions.end() && it->second.state == REDIRECTING &&
        it->second.restoreGeneration == generation)
    {
        it->second.timeoutSkipped = true; // applied if the redirect is refused
        return;
    }
    if (it == m_sessions.end() || it->second.state != RESTORING ||
        it->second.restoreGeneration != generation ||
        it->second.ReceivedKvBytes() >= it->second.expectedKvBytes)
    {
        return; // restored, cancelled, or a later handover of the same session
    }
    Session& s = it->second;
    // Token-major, tokens arrive in order: the whole ones received are kept, the rest is
    // re-prefilled here (p(missing), the prefix's KV being in place) and the source stops
    // sending. Layer-major, no token is complete: the complete layers alone cannot seed a
    // prefill (a layer's input is the previous layer's hidden state, which is not sent),
    // so every transferred token is re-prefilled.
    const uint64_t bytesPerToken = m_profile.BytesPerToken();
    const uint64_t missing =
        s.layerMajor
            ? s.expectedKvBytes / bytesPerToken
            : (s.expectedKvBytes - s.ReceivedKvBytes() + bytesPerToken - 1) / bytesPerToken;
    s.layerMajor = false; // the re-prefill rebuilds every layer before decoding resumes
    KvTransferCompleteHeader stop;
    stop.sessionId = sessionId;
    stop.totalBytes = s.ReceivedKvBytes();
    m_peers.at(s.sourceCellId).connection->SendMessage(KvFrameHeader::TRANSFER_STOP, stop, 0);
    m_timeoutTrace(sessionId, s.sourceCellId, missing);
    s.expectedKvBytes = s.ReceivedKvBytes(); // nothing more is awaited
    s.reprefillTokens = missing;
    if (!s.batchPending)
    {
        StartReprefill(s);
    }
    // else: the missing tokens attend to the prefix, so they wait for its batch prefill
}

void
EdgeLlmNode::StartReprefill(Session& s)
{
    s.reprefillRunning = true;
    const uint64_t key = (uint64_t{1} << 62) | s.id; // a batch of its own
    m_gpu->Join(key,
                1,
                s.reprefillTokens,
                Simulator::Now(),
                compat::Bind(MakeCallback(&EdgeLlmNode::OnRestorePrefillDone, this),
                             s.id,
                             s.restoreGeneration,
                             true));
}

void
EdgeLlmNode::OnRestorePrefillDone(uint64_t sessionId, uint32_t generation, bool reprefill)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end() ||
        (it->second.state != RESTORING && it->second.state != REDIRECTING) ||
        it->second.restoreGeneration != generation)
    {
        return; // cancelled, refused, or a later restore of the same session
    }
    Session& s = it->second;
    s.prefillDoneAt = Simulator::Now();
    if (reprefill)
    {
        s.reprefillRunning = false;
        s.reprefillTokens = 0;
    }
    else
    {
        s.batchPending = false;
        // Redirecting: a pending re-prefill waits for the source's answer.
        if (s.state == RESTORING && s.reprefillTokens > 0 && !s.reprefillRunning)
        {
            StartReprefill(s); // the transfer timed out while the batch was pending
        }
    }
    MaybeResume(s);
}

void
EdgeLlmNode::MaybeResume(Session& s)
{
    if (s.state != RESTORING || !s.PrefillDone() || s.ReceivedKvBytes() < s.expectedKvBytes)
    {
        return;
    }
    if (s.relayTarget != 0)
    {
        RelaySession(s);
        return;
    }
    m_restoredTrace(s.id, s.sourceCellId, Simulator::Now() - s.handoverTime);
    SendStatus(s.id, KvTransferStatusHeader::RESTORED);
    Time firstToken = Simulator::Now() + Seconds(1.0 / m_decodeRate);
    if (s.layerMajor && s.layerReady.size() == m_profile.numLayers)
    {
        // The first decode step, layer by layer: layer l runs once its KV layer and the
        // batch prefill are in place and layer l - 1 is done, for 1 / (DecodeRate N).
        const double perLayer = 1.0 / (m_decodeRate * m_profile.numLayers);
        double done = 0;
        for (const Time& ready : s.layerReady)
        {
            done = std::max({done, ready.GetSeconds(), s.prefillDoneAt.GetSeconds()}) + perLayer;
        }
        firstToken = Seconds(done);
    }
    StartDecoding(s, firstToken);
}

void
EdgeLlmNode::SendStatus(uint64_t sessionId, uint8_t state)
{
    const Session& s = m_sessions.at(sessionId);
    auto peer = m_peers.find(s.sourceCellId);
    if (peer == m_peers.end())
    {
        return; // restored from a source that is no peer (not over this protocol)
    }
    KvTransferStatusHeader status;
    status.sessionId = sessionId;
    status.receivedBytes = s.ReceivedKvBytes();
    status.state = state;
    peer->second.connection->SendMessage(KvFrameHeader::TRANSFER_STATUS, status, 0);
}

void
EdgeLlmNode::OnStatusTimer(uint64_t sessionId, uint32_t generation)
{
    auto it = m_sessions.find(sessionId);
    if (it == m_sessions.end() || it->second.state != RESTORING ||
        it->second.restoreGeneration != generation)
    {
        return; // restored (RESTORED was sent), cancelled, or restored again later
    }
    SendStatus(sessionId, KvTransferStatusHeader::PROGRESS);
    it->second.statusEvent = Simulator::Schedule(m_statusInterval,
                                                 &EdgeLlmNode::OnStatusTimer,
                                                 this,
                                                 sessionId,
                                                 generation);
}

void
EdgeLlmNode::OnTransferResponse(uint16_t peerCellId, const KvTransferResponseHeader& response)
{
    if (response.result == KvTransferResponseHeader::ACCEPTED)
    {
        return;
    }
    // Source: the target cannot use this cache. Stop sending it; the session ends here.
    auto it = m_sessions.find(response.sessionId);
    if (it == m_sessions.end() || it->second.state != HANDED_OVER ||
        it->second.targetCellId != peerCellId)
    {
        return;
    }
    NS_LOG_ERROR("cell " << m_cellId << ": cell " << peerCellId << " refused session "
                         << response.sessionId << " (result " << +response.result
                         << "): its model has " << response.bytesPerToken
                         << " KV bytes/token, this BS's " << m_profile.BytesPerToken());
    const uint64_t sent = m_peers.at(peerCellId).connection->Cancel(response.sessionId);
    m_impactHo.erase(response.sessionId);
    it->second.state = REFUSED;
    m_refusedTrace(response.sessionId, peerCellId, sent);
    // No other BS holds the session now: it ends here, lost, counted once (the target
    // only traces TransferRefused).
    ++m_lostSessions;
    m_lostTrace(response.sessionId, peerCellId, KV_FORMAT_REFUSED);
}

void
EdgeLlmNode::OnTransferStatus(uint16_t peerCellId, const KvTransferStatusHeader& status)
{
    auto it = m_sessions.find(status.sessionId);
    if (it == m_sessions.end() || it->second.state != HANDED_OVER ||
        it->second.targetCellId != peerCellId)
    {
        return; // e.g. the session came back here meanwhile
    }
    if (status.state == KvTransferStatusHeader::PROGRESS)
    {
        m_statusTrace(status.sessionId, peerCellId, status.receivedBytes);
    }
    else if (status.state == KvTransferStatusHeader::RESTORED)
    {
        // Restored at the target: this BS's copy is no longer needed.
        m_impactHo.erase(status.sessionId);
        m_sessions.erase(it);
        m_releasedTrace(status.sessionId, peerCellId, status.receivedBytes);
    }
    else if (status.state == KvTransferStatusHeader::LOST)
    {
        // The target gave the session up (and traced it): stop sending, forget it.
        m_peers.at(peerCellId).connection->Cancel(status.sessionId);
        m_impactHo.erase(status.sessionId);
        m_sessions.erase(it);
    }
}

void
EdgeLlmNode::OnRedirectRefused(uint16_t peerCellId, const KvRedirectHeader& redirect)
{
    auto it = m_sessions.find(redirect.sessionId);
    if (it == m_sessions.end() || it->second.state != REDIRECTING ||
        it->second.sourceCellId != peerCellId)
    {
        return; // e.g. cancelled meanwhile
    }
    Session& s = it->second;
    if (!m_peers.count(s.relayTarget))
    {
        // Neither the source nor this BS has a link to the UE's new cell.
        LoseSession(s, s.relayTarget, NO_BACKHAUL_PATH);
        return;
    }
    // Relay: finish the restore here (the source keeps sending), then hand the session
    // on to the UE's cell, from the time the UE got there.
    NS_LOG_INFO("cell " << m_cellId << ": relays session " << s.id << " from cell " << peerCellId
                        << " to cell " << s.relayTarget);
    s.state = RESTORING;
    if (!s.kvDoneAtRedirect && s.entryBytes == 0 && s.ReceivedKvBytes() == s.expectedKvBytes)
    {
        m_kvReceivedTrace(s.id, s.sourceCellId, s.ReceivedKvBytes()); // completed meanwhile
    }
    if (m_statusInterval.IsStrictlyPositive() && !compat::IsPending(s.statusEvent))
    {
        s.statusEvent = Simulator::Schedule(m_statusInterval,
                                            &EdgeLlmNode::OnStatusTimer,
                                            this,
                                            s.id,
                                            s.restoreGeneration);
    }
    if (s.timeoutSkipped)
    {
        s.timeoutSkipped = false;
        OnTransferTimeout(s.id, s.restoreGeneration); // starts the re-prefill if it can
    }
    else if (!s.batchPending && s.reprefillTokens > 0 && !s.reprefillRunning)
    {
        StartReprefill(s); // the timeout came before the redirect, its batch after
    }
    MaybeResume(s);
}

void
EdgeLlmNode::RelaySession(Session& s)
{
    // This BS now holds the session's whole state: the source may release its copy.
    SendStatus(s.id, KvTransferStatusHeader::RESTORED);
    const uint16_t target = s.relayTarget;
    s.relayTarget = 0;
    s.state = FINISHED; // servable from here; decoding stays stopped
    BeginHandover(s.id, target, s.relayTime);
}

void
EdgeLlmNode::LoseSession(Session& s, uint16_t cellId, LossReason reason)
{
    NS_LOG_WARN("cell " << m_cellId << ": session " << s.id << " lost: no backhaul path to cell "
                        << cellId << " (reason " << +reason << ")");
    s.decodeEvent.Cancel();
    if (s.state == REDIRECTING || s.state == RESTORING)
    {
        SendStatus(s.id, KvTransferStatusHeader::LOST); // the source forgets its copy
    }
    s.state = LOST;
    ++m_lostSessions;
    m_lostTrace(s.id, cellId, reason);
}

} // namespace ns3
