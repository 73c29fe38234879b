/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-node.h"

#include "edge-llm-backhaul-transport.h"
#include "edge-llm-bs-state.h"
#include "edge-llm-compat.h"
#include "edge-llm-idle-cache-role.h"
#include "edge-llm-limits.h"
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
#include <functional>
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
            .AddAttribute("ServingGpu",
                          "A GPU that serves many users (continuous batching): the node's prompts, "
                          "decoding and handover restore prefills run on it and share its "
                          "iterations. Null (the default): the papers' single-session mode, each "
                          "session decoding at DecodeRate and prefills on PrefillEngine's p(L).",
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_serving),
                          MakePointerChecker<EdgeLlmServingGpu>())
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
            .AddAttribute("BackhaulTransport",
                          "The sockets of the KV transfer protocol "
                          "(ns3::EdgeLlmBackhaulTransport: Transport, ControlChannel, ports, "
                          "buffers, segment size).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_backhaul),
                          MakePointerChecker<EdgeLlmBackhaulTransport>())
            .AddAttribute("PreTransferRole",
                          "KV caches sent ahead of a handover, both sides "
                          "(ns3::EdgeLlmPreTransferRole: the target's KV memory).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_preTransfer),
                          MakePointerChecker<EdgeLlmPreTransferRole>())
            .AddAttribute("IdleCacheRole",
                          "Idle conversation caches kept between turns on the ServingGpu "
                          "(ns3::EdgeLlmIdleCacheRole: Policy at a UE's handover, "
                          "FetchTimeout).",
                          TypeId::ATTR_GET,
                          PointerValue(),
                          MakePointerAccessor(&EdgeLlmNode::m_idleCache),
                          MakePointerChecker<EdgeLlmIdleCacheRole>())
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
            .AddTraceSource("TurnStarted",
                            "A conversation's turn opened a session (sessionId, cellId of this "
                            "BS, tokens of its conversation's idle cache held here: not "
                            "prefilled).",
                            MakeTraceSourceAccessor(&EdgeLlmNode::m_turnStartedTrace),
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
      m_state(std::make_unique<EdgeLlmBsState>(this, &m_stateTrace)),
      m_source(CreateObject<EdgeLlmSourceRole>(this, m_state.get())),
      m_target(CreateObject<EdgeLlmTargetRole>(this, m_state.get())),
      m_preTransfer(CreateObject<EdgeLlmPreTransferRole>(this, m_state.get())),
      m_idleCache(CreateObject<EdgeLlmIdleCacheRole>(this, m_state.get())),
      m_backhaul(CreateObject<EdgeLlmBackhaulTransport>(this, m_state.get()))
{
    NS_LOG_FUNCTION(this);
    m_gpu = CreateObject<PrefillEngine>();
    m_state->SetParts(PeekPointer(m_source),
                      PeekPointer(m_target),
                      PeekPointer(m_preTransfer),
                      PeekPointer(m_backhaul));
    EdgeLlmBsState::Actions actions;
    actions.startDecoding = [this](Session& s, Time first) { StartDecoding(s, first); };
    actions.lose = [this](Session& s, uint16_t cellId, LossReason reason) {
        LoseSession(s, cellId, reason);
    };
    actions.backhaulMessage = MakeCallback(&EdgeLlmNode::OnBackhaulMessage, this);
    m_state->SetNode(actions, {&m_cancelledTrace, &m_refusedTrace, &m_lostTrace});
}

EdgeLlmNode::~EdgeLlmNode()
{
    NS_LOG_FUNCTION(this);
}

void
EdgeLlmNode::DoDispose()
{
    for (auto& [id, peer] : m_state->GetPeers())
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
    m_state->ClearPeers();
    m_backhaul->Dispose();
    m_idleCache->Dispose();
    m_state->ClearSessions();
    m_scheduler = nullptr;
    m_gpu = nullptr;
    m_serving = nullptr;
    m_ueSocket = nullptr;
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
    return m_state->GetLostSessions();
}

uint64_t
EdgeLlmNode::GetPreTransferHeldBytes() const
{
    return m_preTransfer ? m_preTransfer->GetHeldBytes() : 0;
}

uint64_t
EdgeLlmNode::GetPreTransferBytesSent() const
{
    return SumOverConnections(m_state->GetPeers(), &KvTransferConnection::GetBackgroundBytesSent);
}

uint64_t
EdgeLlmNode::GetPreTransferBytesReceived() const
{
    return SumOverConnections(m_state->GetPeers(),
                              &KvTransferConnection::GetBackgroundBytesReceived);
}

LlmModelProfile
EdgeLlmNode::GetModelProfile() const
{
    return LlmModelProfile::FromPreset(m_modelName, m_kvBits);
}

uint32_t
EdgeLlmNode::GetKvBits() const
{
    return m_kvBits;
}

double
EdgeLlmNode::GetDecodeRate() const
{
    return m_decodeRate;
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

Ptr<EdgeLlmServingGpu>
EdgeLlmNode::GetServingGpu() const
{
    return m_serving;
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

Ptr<Object>
EdgeLlmNode::GetIdleCacheRole() const
{
    return m_idleCache;
}

Ptr<Object>
EdgeLlmNode::GetBackhaulTransport() const
{
    return m_backhaul;
}

std::map<std::string, TypeId>
EdgeLlmNode::GetParts()
{
    std::map<std::string, TypeId> parts;
    const TypeId tid = GetTypeId();
    for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        const auto pointer = DynamicCast<const PointerChecker>(info.checker);
        if (pointer && info.flags == TypeId::ATTR_GET)
        {
            parts[info.name] = pointer->GetPointeeTypeId();
        }
    }
    return parts;
}

Ptr<KvTransferConnection>
EdgeLlmNode::GetConnection(uint16_t peerCellId) const
{
    const Peer* peer = m_state->FindPeer(peerCellId);
    return peer ? peer->connection : nullptr;
}

Ptr<KvTransferConnection>
EdgeLlmNode::GetControlConnection(uint16_t peerCellId) const
{
    const Peer* peer = m_state->FindPeer(peerCellId);
    return peer ? peer->Control() : nullptr;
}

Ptr<KvDatagramSocket>
EdgeLlmNode::GetDatagramSocket(uint16_t peerCellId) const
{
    const Peer* peer = m_state->FindPeer(peerCellId);
    return peer ? peer->datagram : nullptr;
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
    m_state->AddPeer(peerCellId) = peer;
}

void
EdgeLlmNode::AddPeer(uint16_t peerCellId, const PeerPath& path)
{
    NS_ABORT_MSG_IF(path.mtu < edgellm::MIN_BACKHAUL_MTU || path.mtu > edgellm::MAX_BACKHAUL_MTU,
                    "EdgeLlmNode::AddPeer: path MTU to cell "
                        << peerCellId << " must be in " << edgellm::BackhaulMtuRange() << ", got "
                        << path.mtu);
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
    Peer& peer = m_state->GetPeer(peerCellId);
    peer.hasPath = true;
    peer.pathDelay = path.delay;
    peer.pathMtu = path.mtu;
    peer.links = path.links;
    peer.hops = path.hops;
}

double
EdgeLlmNode::GetPlanningBitRate(uint16_t peerCellId) const
{
    return m_state->GetPeer(peerCellId).PlanningBitRate(m_state->PathPlanning());
}

EdgeLlmNode::PlanningCrossTraffic
EdgeLlmNode::GetPlanningCrossTraffic() const
{
    return m_source->GetPlanningCrossTraffic();
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

double
EdgeLlmNode::KvFlowBitRate(uint16_t peerCellId,
                           const std::function<uint32_t(uint32_t)>& flowsOn) const
{
    return m_state->GetPeer(peerCellId).KvFlowBitRate(flowsOn, m_state->PathPlanning());
}

std::string
EdgeLlmNode::CheckConfiguration() const
{
    // The node's own knobs, then each part's (the transport's, the roles') by its owner,
    // in that order and no further than the first error: a part's check may rely on the
    // node's (the buffer's size on the peers' paths, checked first).
    const std::function<std::string()> checks[] = {
        [this]() { return CheckModelAndPolicy(); },
        [this]() { return CheckPeers(); },
        [this]() { return m_backhaul->CheckConfiguration(m_uePort); },
        [this]() { return m_source->CheckConfiguration(); },
        [this]() { return m_target->CheckConfiguration(); },
    };
    for (const auto& check : checks)
    {
        if (std::string error = check(); !error.empty())
        {
            return error;
        }
    }
    return "";
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
EdgeLlmNode::CheckPeers() const
{
    std::ostringstream error;
    for (const auto& [id, peer] : m_state->GetPeers())
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
                   "EdgeLlmBackhaul: e.g. the RAN's own X2 cables, as on the road and with "
                   "MultiCellConfig::backhaul \"x2\"); use Installed there, or connect the "
                   "BSs through an EdgeLlmBackhaul (EdgeLlmHelper::ConnectBackhaul(apps, "
                   "backhaul), after setting it)";
            return error.str();
        }
        const uint32_t mtu = peer.Mtu();
        if (mtu < edgellm::MIN_BACKHAUL_MTU || mtu > edgellm::MAX_BACKHAUL_MTU)
        {
            error << "EdgeLlmNode (cell " << m_cellId << "): the backhaul link to cell " << id
                  << " has MTU " << mtu << "; it must be in " << edgellm::BackhaulMtuRange();
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
    m_state->SetProfile(LlmModelProfile::FromPreset(m_modelName, m_kvBits));
    if (m_serving)
    {
        m_serving->SetBytesPerToken(m_state->GetProfile().BytesPerToken());
        m_gpu->SetServingGpu(m_serving); // restore prefills share its iterations
    }
    m_backhaul->SizeBuffers();
    m_ueSocket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_ueSocket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_uePort)) != 0,
                    "EdgeLlmNode: cannot bind UDP port " << m_uePort);
    m_ueSocket->SetRecvCallback(MakeCallback(&EdgeLlmNode::HandleUeRead, this));
    m_backhaul->Start();
}

void
EdgeLlmNode::StopApplication()
{
    NS_LOG_FUNCTION(this);
    for (auto& [id, s] : m_state->GetSessions())
    {
        StopDecoding(s);
    }
    m_idleCache->Stop();
    if (m_ueSocket)
    {
        m_ueSocket->Close();
        m_ueSocket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_backhaul->Stop();
}

uint32_t
EdgeLlmNode::GetBackhaulBufferInUse() const
{
    return m_backhaul->GetBufferInUse();
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
        uint8_t first = 0;
        const uint32_t size = packet->CopyData(&first, 1) == 1
                                  ? EdgeLlmPromptHeader::SizeFromFirstByte(first)
                                  : EdgeLlmPromptHeader::SIZE;
        if (packet->GetSize() < size)
        {
            NS_LOG_WARN("cell " << m_cellId << ": runt prompt of " << packet->GetSize() << " B");
            continue;
        }
        EdgeLlmPromptHeader prompt;
        packet->RemoveHeader(prompt);
        if (size == EdgeLlmPromptHeader::TURN_SIZE &&
            (prompt.conversation == 0 || EdgeLlmSessionId::UeOf(prompt.conversation) !=
                                             EdgeLlmSessionId::UeOf(prompt.sessionId)))
        {
            NS_LOG_WARN("cell " << m_cellId << ": a turn's prompt whose conversation "
                                << prompt.conversation << " is not its UE's ignored");
            continue;
        }
        if (!OpenPromptSession(prompt, from))
        {
            continue;
        }
        Session& s = m_state->GetSession(prompt.sessionId);
        if (m_serving)
        {
            // Many users: prefill and decoding share the GPU's iterations, once its
            // conversation's idle cache is found (held, on its way, fetched, or none).
            const uint64_t id = s.id;
            m_idleCache->StartTurn(s, prompt.earlierTokens, prompt.previousCell, [this, id]() {
                ServePrompt(id);
            });
            continue;
        }
        if (!m_promptsOnGpu)
        {
            // Warm-up shortcut: the context exists now, without GPU time.
            StartDecoding(s,
                          std::max(Simulator::Now(), m_warmDecodeStart) +
                              Seconds(1.0 / m_decodeRate));
            continue;
        }
        // The prompt (a turn: its whole context, no KV memory kept) is prefilled alone, on
        // this BS's GPU.
        const uint64_t key = (uint64_t{1} << 63) | s.id;
        m_gpu->Join(key,
                    1,
                    s.promptTokens,
                    Simulator::Now(),
                    MakeCallback(&EdgeLlmNode::OnPromptPrefilled, this).Bind(s.id));
    }
}

bool
EdgeLlmNode::OpenPromptSession(const EdgeLlmPromptHeader& prompt, const Address& from)
{
    const uint64_t context = uint64_t{prompt.earlierTokens} + prompt.promptTokens;
    if (prompt.promptTokens == 0 || prompt.maxNewTokens == 0 ||
        context > std::numeric_limits<uint32_t>::max())
    {
        NS_LOG_WARN("cell " << m_cellId << ": prompt with zero tokens or a context of " << context
                            << " tokens ignored");
        return false;
    }
    if (m_state->FindSession(prompt.sessionId) || !m_state->NotePrompted(prompt.sessionId))
    {
        // A UE's PromptRetry: the first copy opened the session already (it may have
        // handed over since: a late copy must not open it again), or the session is here
        // by a handover (a copy resent to the UE's new cell).
        NS_LOG_INFO("cell " << m_cellId << ": prompt of session " << prompt.sessionId
                            << " again, ignored");
        return false;
    }
    Session& s = m_state->CreateSession(prompt.sessionId, PREFILLING);
    s.ueAddress = InetSocketAddress::ConvertFrom(from).GetIpv4();
    s.uePort = prompt.replyPort;
    s.promptTokens = static_cast<uint32_t>(context);
    s.maxNewTokens = prompt.maxNewTokens;
    s.conversation = prompt.conversation;
    s.moreTurns = prompt.moreTurns;
    m_sessionStartedTrace(s.id, m_cellId, s.promptTokens);
    const auto likely = m_ueLikely.find(EdgeLlmSessionId::UeOf(s.id));
    if (EdgeLlmSessionId::RequestOf(s.id) != 0 && likely != m_ueLikely.end())
    {
        // A request opened while its UE's handover is likely: it goes ahead too, once
        // it decodes (the UE's single session waits for its prompt in the role).
        NotifyHandoverLikely(s.id, likely->second);
    }
    return true;
}

void
EdgeLlmNode::ServePrompt(uint64_t sessionId)
{
    Session* s = m_state->FindSession(sessionId);
    if (!s || s->GetState() != PREFILLING || s->servingHandle != 0)
    {
        return; // no longer starting here (lost, or opened again since)
    }
    if (s->conversation != 0)
    {
        m_turnStartedTrace(s->id, m_cellId, s->cachedTokens);
    }
    // Warm-up (PrefillPromptsOnGpu false): the context exists now, only the decoding runs.
    ServeOnGpu(*s, m_promptsOnGpu);
}

void
EdgeLlmNode::OnPromptPrefilled(uint64_t sessionId)
{
    Session* s = m_state->FindSession(sessionId);
    if (!s || s->GetState() != PREFILLING)
    {
        return; // handed over meanwhile
    }
    StartDecoding(*s, Simulator::Now() + Seconds(1.0 / m_decodeRate));
}

void
EdgeLlmNode::StartDecoding(Session& session, Time firstToken)
{
    if (session.generated >= session.maxNewTokens)
    {
        session.SwitchToState(FINISHED);
        return;
    }
    if (m_serving)
    {
        ServeOnGpu(session, false); // the GPU's iterations decide when its tokens come
        return;
    }
    session.nextToken = firstToken;
    session.decodeEvent = Simulator::Schedule(session.nextToken - Simulator::Now(),
                                              &EdgeLlmNode::DecodeToken,
                                              this,
                                              session.id);
    Decoding(session);
}

void
EdgeLlmNode::Decoding(Session& session)
{
    session.SwitchToState(DECODING);
    m_preTransfer->OnSessionReady(session.id); // a likely handover noted before
}

void
EdgeLlmNode::DecodeToken(uint64_t sessionId)
{
    Session& s = m_state->GetSession(sessionId);
    if (!EmitToken(s))
    {
        return;
    }
    s.nextToken += Seconds(1.0 / m_decodeRate);
    s.decodeEvent =
        Simulator::Schedule(s.nextToken - Simulator::Now(), &EdgeLlmNode::DecodeToken, this, s.id);
}

bool
EdgeLlmNode::EmitToken(Session& s)
{
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
        return false;
    }
    return true;
}

void
EdgeLlmNode::ServeOnGpu(Session& s, bool prefill)
{
    GpuSequenceSpec spec;
    spec.cachedTokens = prefill ? s.cachedTokens : s.promptTokens + s.generated;
    spec.prefillTokens = prefill ? s.promptTokens - s.cachedTokens : 0;
    spec.decodeTokens = s.maxNewTokens - s.generated;
    spec.priority = !prefill; // a session going on (restored, or back at its source)
    const uint64_t handle =
        m_serving->Add(spec, compat::Bind(MakeCallback(&EdgeLlmNode::OnServingEvent, this), s.id));
    NS_ABORT_MSG_IF(handle == 0,
                    "EdgeLlmNode (cell "
                        << m_cellId << "): session " << s.id << " needs "
                        << spec.cachedTokens + spec.prefillTokens + spec.decodeTokens
                        << " tokens of KV memory, more than the ServingGpu's "
                           "KvMemory");
    s.servingHandle = handle;
    if (!prefill)
    {
        Decoding(s);
    }
}

void
EdgeLlmNode::OnServingEvent(uint64_t sessionId, const GpuEvent& event)
{
    Session* s = m_state->FindSession(sessionId);
    if (!s || s->servingHandle != event.id)
    {
        return; // a stale sequence (the session left and came back)
    }
    if (event.kind == GpuEvent::FINISHED)
    {
        s->servingHandle = 0;
        m_idleCache->OnTurnEnded(*s); // its KV kept for its conversation's next turn
        return;
    }
    if (event.kind != GpuEvent::TOKEN)
    {
        return;
    }
    if (s->GetState() == PREFILLING)
    {
        Decoding(*s);
    }
    EmitToken(*s);
}

void
EdgeLlmNode::StopDecoding(Session& s)
{
    s.decodeEvent.Cancel();
    if (m_serving && s.servingHandle != 0)
    {
        m_serving->Remove(s.servingHandle);
        s.servingHandle = 0;
    }
}

uint64_t
EdgeLlmNode::PredictContextAt(uint64_t sessionId, Time t) const
{
    const Session* found = m_state->FindSession(sessionId);
    if (!found)
    {
        return 0;
    }
    const Session& s = *found;
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

std::vector<uint64_t>
EdgeLlmNode::UeSessionsToNotify(uint64_t imsi) const
{
    // The UE's single session (its IMSI) always, as when it was the only one: its handover
    // before its prompt arrived is noted (BeginHandover); then its requests held here, but
    // not those that decoded every token (nothing to move, nothing to record again).
    std::vector<uint64_t> ids{imsi};
    for (const uint64_t id : m_state->GetUeSessions(imsi))
    {
        const Session* s = m_state->FindSession(id);
        // A turn waiting for its conversation's cache is not on the GPU: it stays, to start
        // here when the cache lands (its tokens reach the UE through the core).
        if (id != imsi && !(s->GetState() == FINISHED && s->generated >= s->maxNewTokens) &&
            !m_idleCache->IsWaiting(id))
        {
            ids.push_back(id);
        }
    }
    return ids;
}

void
EdgeLlmNode::RrcHandoverFailure(uint64_t imsi, uint16_t /* cellId */, uint16_t /* rnti */)
{
    m_ueLikely.erase(imsi);
    for (const uint64_t id : UeSessionsToNotify(imsi))
    {
        NotifyHandoverFailure(id);
    }
}

void
EdgeLlmNode::NotifyHandoverFailure(uint64_t sessionId)
{
    NS_LOG_FUNCTION(this << sessionId);
    Session* s = m_state->FindSession(sessionId);
    if (!s)
    {
        return;
    }
    if (!m_target->OnHandoverFailure(*s))
    {
        m_source->OnHandoverFailure(*s);
    }
}

void
EdgeLlmNode::RrcHandoverStart(uint64_t imsi, uint16_t cellId, uint16_t rnti, uint16_t targetCellId)
{
    NS_LOG_FUNCTION(this << imsi << cellId << rnti << targetCellId);
    m_ueLikely.erase(imsi);
    m_idleCache->OnUeHandover(imsi, targetCellId); // its idle caches held here
    for (const uint64_t id : UeSessionsToNotify(imsi))
    {
        NotifyHandoverStart(id, targetCellId);
    }
}

void
EdgeLlmNode::UeHandoverLikely(uint64_t imsi, uint16_t targetCellId)
{
    m_ueLikely[imsi] = targetCellId;
    for (const uint64_t id : UeSessionsToNotify(imsi))
    {
        NotifyHandoverLikely(id, targetCellId);
    }
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
    if (sessionId & KvFrameHeader::IDLE_CACHE_BIT)
    {
        m_idleCache->OnKvBytes(sessionId & ~KvFrameHeader::IDLE_CACHE_BIT, bytes);
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
    if (sessionId & KvFrameHeader::IDLE_CACHE_BIT)
    {
        return; // an idle cache's last byte: the receiver parks it when all are in
    }
    m_source->OnTransferSent(sessionId);
}

void
EdgeLlmNode::OpenSession(uint64_t sessionId, uint64_t contextTokens, uint32_t newTokens)
{
    NS_ABORT_MSG_IF(contextTokens < 1 || contextTokens > UINT32_MAX,
                    "EdgeLlmNode::OpenSession: context must be in [1, 2^32 - 1] tokens");
    Session& s = m_state->CreateSession(sessionId, FINISHED); // its context is built; no UE stream
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
        if (!req.IsValid() || req.GetSerializedSize() != frame.messageLength)
        {
            NS_LOG_WARN("cell " << m_cellId << ": malformed TRANSFER_REQUEST from cell "
                                << peerCellId << " (" << frame.messageLength << " bytes, flags "
                                << req.flags << "); ignored");
            break;
        }
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
    case KvFrameHeader::IDLE_CACHE:
    case KvFrameHeader::IDLE_CACHE_FETCH: {
        KvTransferCompleteHeader m;
        message->RemoveHeader(m);
        if (frame.type == KvFrameHeader::IDLE_CACHE)
        {
            m_idleCache->OnIdleCache(peerCellId, m);
        }
        else
        {
            m_idleCache->OnFetch(peerCellId, m);
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

void
EdgeLlmNode::LoseSession(Session& s, uint16_t cellId, LossReason reason)
{
    NS_LOG_WARN("cell " << m_cellId << ": session " << s.id << " lost: no backhaul path to cell "
                        << cellId << " (reason " << +reason << ")");
    StopDecoding(s);
    if (s.GetState() == REDIRECTING || s.GetState() == RESTORING)
    {
        m_target->SendStatus(s.id, KvTransferStatusHeader::LOST); // the source forgets its copy
    }
    s.SwitchToState(LOST);
    m_state->TraceLost(s.id, cellId, reason);
}

} // namespace ns3
