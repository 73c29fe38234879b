/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-target-role.h"

#include "coordinated-planner.h"
#include "edge-llm-backhaul-transport.h"
#include "edge-llm-compat.h"
#include "edge-llm-pre-transfer-role.h"
#include "edge-llm-source-role.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmTargetRole");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmTargetRole);

TypeId
EdgeLlmTargetRole::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmTargetRole")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("TransferTimeout",
                          "Target: if a session's KV bytes have not all arrived this long after "
                          "its handover, the source is told to stop (TRANSFER_STOP) and the "
                          "missing tokens are re-prefilled here. 0: wait for ever. ctHO, tHO "
                          "and cHO only: ImpactHO's transfer window is its deadline.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmTargetRole::m_transferTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WindowGrace",
                          "Target, ImpactHO: the source closes a transfer at its handover "
                          "time + the transfer window (TRANSFER_TRUNCATE); if that message "
                          "has not come this long after it (a loss holds the stream for a "
                          "retransmission timeout), the session resumes on the KV bytes in "
                          "(TransferWindowClosed), in [0, 3600] s.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&EdgeLlmTargetRole::m_windowGrace),
                          MakeTimeChecker(Seconds(0), Seconds(3600)))
            .AddAttribute("LossAwareReplanning",
                          "Target, ctHO, tHO and cHO: when a session's KV bytes are not all in "
                          "ReplanMargin after the plan's deadline (tau + g(L), carried by the "
                          "request), check then and every ReplanInterval whether re-prefilling "
                          "the missing tokens (on the GPU's next batch boundary once it is "
                          "free, plus p(missing)) ends sooner than receiving the bytes still "
                          "due from that source up to this session at the source's arrival "
                          "rate since the request came; if so, stop the source "
                          "(TRANSFER_STOP) and re-prefill them here (TransferReplanned). "
                          "false: wait for every byte (the papers).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmTargetRole::m_lossAwareReplanning),
                          MakeBooleanChecker())
            .AddAttribute("ReplanMargin",
                          "Loss-aware replanning: the first check is this long after the "
                          "plan's KV deadline (>= 0).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&EdgeLlmTargetRole::m_replanMargin),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("ReplanInterval",
                          "Loss-aware replanning: after the first check, check again this "
                          "often while the KV bytes are missing (>= 100 us).",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&EdgeLlmTargetRole::m_replanInterval),
                          MakeTimeChecker(MicroSeconds(100)))
            .AddAttribute("StatusInterval",
                          "Target: while a session restores, send the source a TRANSFER_STATUS "
                          "(PROGRESS, KV bytes received) this often: 0 (none; RESTORED is "
                          "always sent once the session resumes) or >= 1 ms (checked when "
                          "the application starts).",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmTargetRole::m_statusInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("CoordinatedBatchPlanned",
                            "Target (target-coordinated ctHO): it planned the handovers that "
                            "PLAN_REQUESTs of several sources announced as one GPU batch "
                            "(groupId, sources, members, prefill length L in tokens, planned "
                            "batch start t_s).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_coordinatedTrace),
                            "ns3::EdgeLlmNode::CoordinatedTracedCallback")
            .AddTraceSource("TransferRequestReceived",
                            "Target: a TRANSFER_REQUEST opened a restore, or was refused "
                            "(sessionId, sourceCellId, tokens to transfer n_tx); with "
                            "ControlChannel=Separate once, for the first of its two copies.",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_requestReceivedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("KvTransferReceived",
                            "Target: every KV byte of a session arrived (sessionId, "
                            "sourceCellId, bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_kvReceivedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PartialRestored",
                            "Target, ImpactHO: a session resumes on the importance-ordered "
                            "prefix it received (sessionId, sourceCellId, fraction in [0, 1]).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_partialTrace),
                            "ns3::EdgeLlmNode::PartialTracedCallback")
            .AddTraceSource("TransferTimedOut",
                            "Target: the KV transfer exceeded TransferTimeout; the missing "
                            "tokens are re-prefilled here (sessionId, sourceCellId, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_timeoutTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferWindowClosed",
                            "Target, ImpactHO: the source's TRANSFER_COMPLETE or TRUNCATE had "
                            "not come WindowGrace after the transfer window's end; the session "
                            "resumes on the KV bytes in (sessionId, sourceCellId, bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_windowTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferReplanned",
                            "Target: a KV transfer fell behind its plan and re-prefilling "
                            "the rest is sooner (LossAwareReplanning): the source is stopped, "
                            "the missing tokens re-prefilled here (sessionId, sourceCellId, "
                            "missing tokens, time the rest would take at the measured rate, "
                            "time the re-prefill takes).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_replannedTrace),
                            "ns3::EdgeLlmNode::ReplannedTracedCallback")
            .AddTraceSource("KvLayerReceived",
                            "Target, layer-wise streaming: every KV byte of one layer of a "
                            "session arrived (sessionId, sourceCellId, layer index from 0).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_layerTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("SessionRestored",
                            "Target: the session resumes decoding (sessionId, sourceCellId, "
                            "handover delay).",
                            MakeTraceSourceAccessor(&EdgeLlmTargetRole::m_restoredTrace),
                            "ns3::EdgeLlmNode::RestoredTracedCallback");
    return tid;
}

EdgeLlmTargetRole::EdgeLlmTargetRole(EdgeLlmNode* node, EdgeLlmBsState* state)
    : m_node(node),
      m_bs(state)
{
}

std::string
EdgeLlmTargetRole::CheckConfiguration() const
{
    std::ostringstream error;
    if (m_statusInterval.IsStrictlyPositive() && m_statusInterval < MilliSeconds(1))
    {
        error << "ns3::EdgeLlmTargetRole::StatusInterval is " << m_statusInterval.As(Time::US)
              << "; it must be 0 (no PROGRESS reports) or >= 1 ms (cell " << m_node->GetCellId()
              << ")";
    }
    return error.str();
}

bool
EdgeLlmTargetRole::OnUeMovesOn(uint64_t sessionId, uint16_t targetCellId)
{
    EdgeLlmSession* sit = m_bs->FindSession(sessionId);
    if (sit && sit->GetState() == EdgeLlmNode::RESTORING && targetCellId == sit->sourceCellId)
    {
        // Ping-pong: the UE goes back before its state is rebuilt here. The source still
        // holds the cache: cancel the transfer and let the source serve it again.
        Session& s = *sit;
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = s.ReceivedKvBytes();
        m_bs->GetPeer(targetCellId)
            .Control()
            ->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_bs->TraceCancelled(sessionId, targetCellId, s.ReceivedKvBytes());
        s.SwitchToState(EdgeLlmNode::CANCELLED);
        return true;
    }
    if (sit && sit->GetState() == EdgeLlmNode::RESTORING && m_bs->HasPeer(sit->sourceCellId))
    {
        // The UE moves on to a third BS before its state is rebuilt here: the source
        // still holds the whole cache, so it hands the session over there instead. If the
        // source has no link to that BS it answers TRANSFER_REDIRECT_REFUSED, and this BS
        // finishes the restore and relays the session (OnRedirectRefused); until the
        // answer comes it keeps counting the KV bytes and running the prefill.
        Session& s = *sit;
        KvRedirectHeader redirect;
        redirect.sessionId = sessionId;
        redirect.newTargetCellId = targetCellId;
        m_bs->GetPeer(s.sourceCellId)
            .Control()
            ->SendMessage(KvFrameHeader::TRANSFER_REDIRECT, redirect, 0);
        m_bs->TraceCancelled(sessionId, s.sourceCellId, s.ReceivedKvBytes());
        s.SwitchToState(EdgeLlmNode::REDIRECTING);
        s.relayTarget = targetCellId;
        s.relayTime = Simulator::Now();
        s.kvDoneAtRedirect = s.ReceivedKvBytes() >= s.expectedKvBytes;
        return true;
    }
    return false;
}

bool
EdgeLlmTargetRole::OnHandoverFailure(Session& s)
{
    if (s.GetState() != EdgeLlmNode::RESTORING || !m_bs->HasPeer(s.sourceCellId))
    {
        return false;
    }
    // Target: the UE never arrived. The source still holds the cache and serves it.
    KvTransferCompleteHeader cancel;
    cancel.sessionId = s.id;
    cancel.totalBytes = s.ReceivedKvBytes();
    m_bs->GetPeer(s.sourceCellId).Control()->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
    m_bs->TraceCancelled(s.id, s.sourceCellId, s.ReceivedKvBytes());
    s.SwitchToState(EdgeLlmNode::CANCELLED);
    return true;
}

void
EdgeLlmTargetRole::OnTransferComplete(const KvTransferCompleteHeader& done)
{
    EdgeLlmSession* it = m_bs->FindSession(done.sessionId);
    if (!it)
    {
        return;
    }
    Session& t = *it;
    if (t.closedAtWindowEnd)
    {
        return; // late: the target closed the window itself (WindowGrace)
    }
    if (t.entryBytes > 0 && t.GetState() == EdgeLlmNode::RESTORING)
    {
        // ImpactHO: complete or truncated, the target resumes on the prefix it has
        // (anytime inference); the fraction counts the entries that arrived.
        ResumePartial(t, t.ReceivedKvBytes());
    }
    else if (t.entryBytes > 0 && t.GetState() == EdgeLlmNode::REDIRECTING)
    {
        t.expectedKvBytes = t.ReceivedKvBytes(); // the prefix to relay if refused
        t.transferClosed = true;
    }
    else if (t.ReceivedKvBytes() != done.totalBytes)
    {
        NS_LOG_ERROR("cell " << m_node->GetCellId() << ": session " << done.sessionId << " got "
                             << t.ReceivedKvBytes() << " KV bytes, source sent "
                             << done.totalBytes);
    }
}

bool
EdgeLlmTargetRole::OnTransferCancel(uint16_t peerCellId, const KvTransferCompleteHeader& cancel)
{
    EdgeLlmSession* it = m_bs->FindSession(cancel.sessionId);
    if (it && it->GetState() == EdgeLlmNode::RESTORING)
    {
        // The source reports the handover failed; drop the restore.
        m_bs->TraceCancelled(cancel.sessionId, peerCellId, it->ReceivedKvBytes());
        it->SwitchToState(EdgeLlmNode::CANCELLED);
        return true;
    }
    if (it && it->GetState() == EdgeLlmNode::REDIRECTING)
    {
        // The source serves the session again (its handover failed): nothing to relay.
        // TransferCancelled was traced when the redirect left.
        it->SwitchToState(EdgeLlmNode::CANCELLED);
        return true;
    }
    return false;
}

void
EdgeLlmTargetRole::OnBatchClose(uint16_t peerCellId, const KvBatchCloseHeader& close)
{
    if (close.batchId & KvPlanHeader::GROUP_BIT)
    {
        // A PLAN_REQUEST's part of a coordinated batch: its members that joined or will.
        const std::pair<uint16_t, uint32_t> request{peerCellId,
                                                    close.batchId & ~KvPlanHeader::GROUP_BIT};
        const auto group = m_requestGroup.find(request);
        if (group != m_requestGroup.end())
        {
            const uint32_t groupId = group->second;
            m_groups.at(groupId).parts[request] = close.batchSize;
            UpdateGroup(groupId, false);
        }
        return;
    }
    m_node->GetPrefillEngine()->Close((uint64_t{peerCellId} << 32) | close.batchId,
                                      close.batchSize);
}

uint32_t
EdgeLlmTargetRole::Group::Size() const
{
    uint32_t n = 0;
    for (const auto& [request, members] : parts)
    {
        n += members;
    }
    return n - std::min(n, refused);
}

void
EdgeLlmTargetRole::OnPlanRequest(uint16_t peerCellId, const KvPlanRequestHeader& request)
{
    NS_LOG_FUNCTION(this << peerCellId << request.requestId);
    if (request.members.empty())
    {
        return;
    }
    if (m_openGroup == 0)
    {
        m_openGroup = KvPlanHeader::GROUP_BIT | ++m_groupCounter;
        m_groups[m_openGroup].closeAt = Time::Max();
    }
    Group& g = m_groups[m_openGroup];
    g.requests.emplace_back(peerCellId, request);
    const std::pair<uint16_t, uint32_t> key{peerCellId, request.requestId};
    g.parts[key] = static_cast<uint32_t>(request.members.size());
    m_requestGroup[key] = m_openGroup;
    // Planned when the first reply is due, so that every PLAN leaves in time.
    const Time closeAt =
        std::max(Simulator::Now(), std::min(g.closeAt, NanoSeconds(request.replyByNs)));
    if (closeAt < g.closeAt)
    {
        g.closeAt = closeAt;
        g.closeEvent.Cancel();
        g.closeEvent = Simulator::Schedule(closeAt - Simulator::Now(),
                                           &EdgeLlmTargetRole::CloseGroup,
                                           this,
                                           m_openGroup);
    }
}

void
EdgeLlmTargetRole::CloseGroup(uint32_t groupId)
{
    if (m_openGroup == groupId)
    {
        m_openGroup = 0; // later requests open the next group
    }
    Group& g = m_groups.at(groupId);
    g.planned = true;
    // One planner source per BS (its requests share its path).
    std::map<uint16_t, CoordinatedSource> bySource;
    std::map<uint16_t, std::pair<double, uint32_t>> requested; // bit/s, bytes per token
    // A request whose members all left before the plan (withdrawn) sends nothing.
    auto left = [&g](uint16_t source, const KvPlanRequestHeader& req) {
        const auto part = g.parts.find({source, req.requestId});
        return part != g.parts.end() && part->second == 0;
    };
    for (const auto& [source, req] : g.requests)
    {
        if (left(source, req))
        {
            continue;
        }
        CoordinatedSource& src = bySource[source];
        src.sourceCellId = source;
        // Several requests of one source share its path: the smallest rate holds for all.
        const double rate = static_cast<double>(req.planningBitRate);
        const auto seen = requested.find(source);
        requested[source] = {seen == requested.end() ? rate : std::min(seen->second.first, rate),
                             std::max<uint32_t>(1, req.bytesPerToken)};
        src.backhaulFreeAt = std::max(0.0, NanoSeconds(req.backhaulFreeAtNs).GetSeconds());
        src.signalling.pathDelay = req.pathDelay;
        src.signalling.requestTime = req.requestTime;
        src.signalling.idTimePerToken = req.idTimePerToken;
        src.signalling.closeAhead = req.closeAhead;
        for (const KvPlanRequestHeader::Member& m : req.members)
        {
            src.ues.push_back({m.sessionId,
                               std::max(0.0, NanoSeconds(m.handoverTimeNs).GetSeconds()),
                               std::max<uint64_t>(1, m.contextTokens)});
        }
    }
    // The sources' flows into this BS share the links their paths have in common (on a
    // star, this BS's own): each is planned at most at its share of them.
    std::set<uint16_t> inbound;
    for (const auto& [source, src] : bySource)
    {
        inbound.insert(source);
    }
    std::map<uint16_t, double> planningBitRate; // per source, bit/s of KV payload
    std::vector<CoordinatedSource> sources;
    for (auto& [source, src] : bySource)
    {
        auto [rate, bytesPerToken] = requested.at(source);
        EdgeLlmPeer* peer = m_bs->FindPeer(source);
        if (peer)
        {
            rate = std::min(rate,
                            m_bs->ShareOfPath(source, inbound).wireBitRate *
                                peer->PayloadShare(m_bs->PathPlanning()));
        }
        planningBitRate[source] = rate;
        src.backhaulTokensPerSecond = rate / (8.0 * bytesPerToken);
        sources.push_back(std::move(src));
    }
    if (sources.empty())
    {
        EraseGroup(groupId); // every member left before the plan
        return;
    }
    CoordinatedPlanner planner(m_node->GetPrefillEngine()->GetModel(),
                               m_node->GetPrefillEngine()->GetBatchPeriod().GetSeconds());
    planner.SetGpuFreeAt(m_node->GetPrefillEngine()->GetBusyUntil().GetSeconds());
    CoordinatedPlan plan;
    try
    {
        plan = planner.PlanOptimal(sources);
    }
    catch (const std::invalid_argument& e)
    {
        // A source's rate of 0 (it knows no capacity to this BS): no coordinated plan;
        // every source plans alone.
        NS_LOG_WARN("cell " << m_node->GetCellId() << ": group " << groupId
                            << " not planned: " << e.what());
        EraseGroup(groupId);
        return;
    }
    const uint32_t size = g.Size();
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": group " << groupId << " of " << size
                        << " handovers from " << sources.size() << " sources, L = "
                        << plan.prefillLength << ", batch start " << plan.batchStart << " s");
    m_coordinatedTrace(groupId,
                       static_cast<uint32_t>(sources.size()),
                       size,
                       plan.prefillLength,
                       Seconds(plan.batchStart));
    for (const auto& [source, req] : g.requests)
    {
        if (left(source, req))
        {
            continue;
        }
        KvPlanHeader reply;
        reply.requestId = req.requestId;
        reply.groupId = groupId;
        reply.groupSize = static_cast<uint16_t>(std::min<uint32_t>(size, UINT16_MAX));
        reply.sources = static_cast<uint16_t>(sources.size());
        reply.prefillLength = static_cast<uint32_t>(plan.prefillLength);
        reply.batchStartNs = Seconds(plan.batchStart).GetNanoSeconds();
        reply.planningBitRate = static_cast<uint64_t>(std::llround(planningBitRate.at(source)));
        m_bs->GetPeer(source).Control()->SendMessage(KvFrameHeader::PLAN, reply, 0);
    }
    g.requests.clear();
    if (plan.prefillLength == 0 || size == 0)
    {
        EraseGroup(groupId); // no prefill (or no member left): no GPU batch to count
    }
}

void
EdgeLlmTargetRole::UpdateGroup(uint32_t groupId, bool joinedNow)
{
    auto it = m_groups.find(groupId);
    if (it == m_groups.end())
    {
        return;
    }
    const uint32_t size = it->second.Size();
    const uint32_t joined = it->second.joined;
    if (!joinedNow && joined > 0 && size > 0)
    {
        // The GPU batch is waiting for the members that joined and the rest.
        m_node->GetPrefillEngine()->Close((uint64_t{m_node->GetCellId()} << 32) | groupId,
                                          std::max(size, joined));
    }
    if (it->second.planned && joined >= size)
    {
        EraseGroup(groupId); // started (or empty): nothing more to count
    }
}

void
EdgeLlmTargetRole::EraseGroup(uint32_t groupId)
{
    const auto it = m_groups.find(groupId);
    if (it == m_groups.end())
    {
        return;
    }
    for (const auto& [request, members] : it->second.parts)
    {
        m_requestGroup.erase(request);
    }
    it->second.closeEvent.Cancel();
    if (m_openGroup == groupId)
    {
        m_openGroup = 0;
    }
    m_groups.erase(it);
}

void
EdgeLlmTargetRole::OnTransferRequest(uint16_t peerCellId,
                                     const KvTransferRequestHeader& req,
                                     bool controlCopy)
{
    NS_LOG_FUNCTION(this << peerCellId << req.sessionId << controlCopy);
    if (!IsFirstCopy(peerCellId, req, controlCopy))
    {
        return;
    }
    // Every request is answered; a KV format this BS's model cannot use is refused.
    const bool accepted = req.bytesPerToken == m_bs->GetProfile().BytesPerToken();
    m_requestReceivedTrace(req.sessionId, peerCellId, req.transferTokens);
    KvTransferResponseHeader response;
    response.sessionId = req.sessionId;
    response.bytesPerToken = static_cast<uint32_t>(m_bs->GetProfile().BytesPerToken());
    response.result =
        accepted ? KvTransferResponseHeader::ACCEPTED : KvTransferResponseHeader::REFUSED_KV_FORMAT;
    m_bs->GetPeer(peerCellId).Control()->SendMessage(KvFrameHeader::TRANSFER_RESPONSE, response, 0);
    // A new session here, created in its first state (a stale one of the same id, e.g.
    // from an earlier visit of the UE, is replaced).
    Session& s = m_bs->CreateSession(req.sessionId,
                                     accepted ? EdgeLlmNode::RESTORING : EdgeLlmNode::REFUSED);
    s.sourceCellId = peerCellId;
    // A pre-transfer's COMMIT came first on the control stream (its bytes may be on the way).
    const uint64_t committed = m_bs->PreTransfer().TakeCommittedBytes(req.sessionId);
    if (!accepted)
    {
        NS_LOG_ERROR("cell " << m_node->GetCellId() << ": session " << req.sessionId
                             << " from cell " << peerCellId << " has " << req.bytesPerToken
                             << " KV bytes/token, this BS's model has "
                             << m_bs->GetProfile().BytesPerToken() << "; request refused");
        // REFUSED: its KV bytes still in flight are counted and dropped.
        m_bs->TraceRefused(req.sessionId, peerCellId, 0);
        const auto group = (req.flags & KvTransferRequestHeader::COORDINATED)
                               ? m_groups.find(req.batchId)
                               : m_groups.end();
        if (group != m_groups.end() && req.prefillTokens > 0)
        {
            ++group->second.refused; // counted by its source, it never joins
            UpdateGroup(group->first, false);
        }
        return;
    }
    s.ueAddress = Ipv4Address(req.ueAddress);
    s.uePort = req.uePort;
    s.promptTokens = req.contextTokens - req.tokensGenerated;
    s.generated = req.tokensGenerated;
    s.maxNewTokens = req.maxNewTokens;
    s.moreTurns = (req.flags & KvTransferRequestHeader::MORE_TURNS) != 0;
    s.conversation = s.moreTurns ? req.conversation : 0;
    s.handoverTime = NanoSeconds(req.handoverTimeNs);
    s.expectedKvBytes = uint64_t{req.transferTokens} * req.bytesPerToken;
    if (req.flags & KvTransferRequestHeader::IMPORTANCE_ORDERED)
    {
        s.entryBytes = static_cast<uint32_t>(m_bs->GetProfile().BytesPerEntry());
        // The first entries of the importance order were sent ahead: received (the restore
        // waits until they are all in, EdgeLlmPreTransferRole::IsPending).
        s.preSentKvBytes = std::min(committed, s.expectedKvBytes);
    }
    s.layerMajor = (req.flags & KvTransferRequestHeader::LAYER_MAJOR) && s.entryBytes == 0 &&
                   s.expectedKvBytes > 0;
    s.restoreGeneration = ++m_restoreCounter;
    JoinRestorePrefill(s, peerCellId, req);
    ScheduleRestoreTimers(s, peerCellId, req);
    m_bs->PreTransfer().OnInboundTransfer(); // other sources' pre-transfers to me pause
    MaybeResume(s);
}

bool
EdgeLlmTargetRole::IsFirstCopy(uint16_t peerCellId,
                               const KvTransferRequestHeader& req,
                               bool controlCopy)
{
    if (!m_bs->Backhaul().IsControlSeparate())
    {
        return true;
    }
    // Two copies of every request: the first acts (normally the control channel's; the KV
    // stream's when the control copy was lost and is being retransmitted).
    const std::tuple<uint16_t, uint64_t, int64_t> key{peerCellId,
                                                      req.sessionId,
                                                      req.handoverTimeNs};
    if (m_halfReceived.erase(key) > 0)
    {
        return false;
    }
    m_halfReceived.insert(key);
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": request of session " << req.sessionId
                        << " came first on the " << (controlCopy ? "control" : "KV") << " channel");
    return true;
}

void
EdgeLlmTargetRole::JoinRestorePrefill(Session& s,
                                      uint16_t peerCellId,
                                      const KvTransferRequestHeader& req)
{
    s.batchPending = req.prefillTokens > 0;
    const bool coordinated = req.flags & KvTransferRequestHeader::COORDINATED;
    uint32_t batchSize = req.batchSize;
    const auto group = coordinated ? m_groups.find(req.batchId) : m_groups.end();
    if (group != m_groups.end() && s.batchPending)
    {
        ++group->second.joined;
        batchSize = group->second.Size(); // the members that joined or will, now
    }
    else if (coordinated && s.batchPending)
    {
        batchSize = 1; // its group is gone (never planned here): it prefills alone
    }
    if (s.batchPending)
    {
        const uint64_t key = coordinated ? (uint64_t{m_node->GetCellId()} << 32) | req.batchId
                                         : (uint64_t{peerCellId} << 32) | req.batchId;
        m_node->GetPrefillEngine()->Join(
            key,
            batchSize,
            req.prefillLength,
            s.handoverTime,
            compat::Bind(MakeCallback(&EdgeLlmTargetRole::OnRestorePrefillDone, this),
                         req.sessionId,
                         s.restoreGeneration,
                         false));
    }
    if (group != m_groups.end())
    {
        UpdateGroup(group->first, s.batchPending);
    }
}

void
EdgeLlmTargetRole::ScheduleRestoreTimers(Session& s,
                                         uint16_t peerCellId,
                                         const KvTransferRequestHeader& req)
{
    if (m_statusInterval.IsStrictlyPositive())
    {
        s.statusEvent = Simulator::Schedule(m_statusInterval,
                                            &EdgeLlmTargetRole::OnStatusTimer,
                                            this,
                                            s.id,
                                            s.restoreGeneration);
    }
    if (s.expectedKvBytes == 0 || (s.entryBytes > 0 && s.ReceivedKvBytes() == s.expectedKvBytes))
    {
        m_kvReceivedTrace(s.id, s.sourceCellId, s.ReceivedKvBytes());
    }
    else if (s.entryBytes == 0)
    {
        if (m_transferTimeout.IsStrictlyPositive())
        {
            const Time at = std::max(s.handoverTime + m_transferTimeout, Simulator::Now());
            Simulator::Schedule(at - Simulator::Now(),
                                &EdgeLlmTargetRole::OnTransferTimeout,
                                this,
                                s.id,
                                s.restoreGeneration);
        }
        if (m_lossAwareReplanning && req.kvDeadlineNs > 0)
        {
            s.kvDeadline = NanoSeconds(req.kvDeadlineNs);
            s.requestArrivedAt = Simulator::Now(); // the arrival rate is measured from here
            s.sourceBytesAtRequest = m_bs->GetPeer(peerCellId).connection->GetKvBytesReceived();
            const Time at = std::max(s.kvDeadline + m_replanMargin, Simulator::Now());
            Simulator::Schedule(at - Simulator::Now(),
                                &EdgeLlmTargetRole::OnReplanCheck,
                                this,
                                s.id,
                                s.restoreGeneration);
        }
    }
    const Time window = m_node->GetScheduler()->GetTransferWindow();
    if (s.entryBytes > 0 && window.IsStrictlyPositive())
    {
        const Time at = std::max(s.handoverTime + window + m_windowGrace, Simulator::Now());
        Simulator::Schedule(at - Simulator::Now(),
                            &EdgeLlmTargetRole::OnWindowEnd,
                            this,
                            s.id,
                            s.restoreGeneration);
    }
}

void
EdgeLlmTargetRole::OnKvBytes(uint64_t sessionId, uint64_t bytes)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (it && it->GetState() == EdgeLlmNode::REDIRECTING)
    {
        // Kept: relayed from here if the source cannot reach the UE's new cell.
        it->receivedKvBytes += bytes;
        return;
    }
    if (!it || it->GetState() != EdgeLlmNode::RESTORING)
    {
        if (!it ||
            (it->GetState() != EdgeLlmNode::CANCELLED && it->GetState() != EdgeLlmNode::REFUSED &&
             it->GetState() != EdgeLlmNode::LOST && !it->closedAtWindowEnd))
        {
            NS_LOG_WARN("cell " << m_node->GetCellId() << ": " << bytes << " KV bytes for session "
                                << sessionId << " that is not being restored here");
        }
        if (it)
        {
            it->receivedKvBytes += bytes; // counted, then discarded (cancelled)
        }
        return;
    }
    Session& s = *it;
    s.receivedKvBytes += bytes;
    if (s.layerMajor)
    {
        // Layer l is bytes [l E / N, (l + 1) E / N) of the E expected (E / N = n_tx times
        // the bytes of one token's layer, a whole number).
        const uint64_t layers = m_bs->GetProfile().numLayers;
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
EdgeLlmTargetRole::OnTransferTimeout(uint64_t sessionId, uint32_t generation)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (it && it->GetState() == EdgeLlmNode::REDIRECTING && it->restoreGeneration == generation)
    {
        it->timeoutSkipped = true; // applied if the redirect is refused
        return;
    }
    if (!it || it->GetState() != EdgeLlmNode::RESTORING || it->restoreGeneration != generation ||
        it->ReceivedKvBytes() >= it->expectedKvBytes)
    {
        return; // restored, cancelled, or a later handover of the same session
    }
    Session& s = *it;
    if (s.reprefillTokens > 0 || s.reprefillRunning)
    {
        return; // replanned already: its missing tokens are being re-prefilled
    }
    const uint64_t missing = StopTransfer(s);
    m_timeoutTrace(sessionId, s.sourceCellId, missing);
}

void
EdgeLlmTargetRole::OnWindowEnd(uint64_t sessionId, uint32_t generation)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (!it || it->GetState() != EdgeLlmNode::RESTORING || it->restoreGeneration != generation ||
        it->transferClosed)
    {
        return; // closed by the source, resumed, cancelled, or a later restore
    }
    Session& s = *it;
    // Committed entries still on the way are not in; neither is the rest in flight.
    const uint64_t missing = m_bs->PreTransfer().GetPendingKvBytes(s.id);
    const uint64_t kv = s.ReceivedKvBytes() > missing ? s.ReceivedKvBytes() - missing : 0;
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": session " << s.id << " from cell "
                        << s.sourceCellId << ": no TRANSFER_COMPLETE/TRUNCATE by the window's "
                        << "end + WindowGrace; resumes on " << kv << " KV bytes");
    m_windowTrace(s.id, s.sourceCellId, kv);
    s.closedAtWindowEnd = true;
    ResumePartial(s, kv);
}

void
EdgeLlmTargetRole::ResumePartial(Session& s, uint64_t kv)
{
    m_partialTrace(s.id,
                   s.sourceCellId,
                   s.expectedKvBytes > 0
                       ? static_cast<double>(kv) / static_cast<double>(s.expectedKvBytes)
                       : 1.0);
    s.expectedKvBytes = kv;
    s.transferClosed = true;
    MaybeResume(s);
}

uint64_t
EdgeLlmTargetRole::MissingTokens(const Session& s) const
{
    // Token-major, tokens arrive in order: the whole ones received are kept, the rest is
    // re-prefilled (p(missing), the prefix's KV being in place). Layer-major, no token is
    // complete: the complete layers alone cannot seed a prefill (a layer's input is the
    // previous layer's hidden state, which is not sent), so every transferred token is.
    const uint64_t bytesPerToken = m_bs->GetProfile().BytesPerToken();
    return s.layerMajor
               ? s.expectedKvBytes / bytesPerToken
               : (s.expectedKvBytes - s.ReceivedKvBytes() + bytesPerToken - 1) / bytesPerToken;
}

uint64_t
EdgeLlmTargetRole::StopTransfer(Session& s)
{
    const uint64_t missing = MissingTokens(s);
    s.layerMajor = false; // the re-prefill rebuilds every layer before decoding resumes
    KvTransferCompleteHeader stop;
    stop.sessionId = s.id;
    stop.totalBytes = s.ReceivedKvBytes();
    m_bs->GetPeer(s.sourceCellId).Control()->SendMessage(KvFrameHeader::TRANSFER_STOP, stop, 0);
    s.expectedKvBytes = s.ReceivedKvBytes(); // nothing more is awaited
    s.reprefillTokens = missing;
    if (!s.batchPending)
    {
        StartReprefill(s);
    }
    // else: the missing tokens attend to the prefix, so they wait for its batch prefill
    return missing;
}

void
EdgeLlmTargetRole::OnReplanCheck(uint64_t sessionId, uint32_t generation)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (!it || it->GetState() != EdgeLlmNode::RESTORING || it->restoreGeneration != generation ||
        it->ReceivedKvBytes() >= it->expectedKvBytes || it->reprefillTokens > 0 ||
        it->reprefillRunning)
    {
        return; // restored, cancelled, redirecting, timed out, or a later restore
    }
    Session& s = *it;
    const Time now = Simulator::Now();
    if (!s.batchPending)
    {
        // The source's sessions share one connection, sent in EDF order: the rate is the
        // connection's, and the bytes still due ahead of this session's rest count too.
        // Over the whole time since the request came (TCP's and a fair queue's bursts make
        // short windows misleading).
        const uint64_t sourceBytes = m_bs->GetPeer(s.sourceCellId).connection->GetKvBytesReceived();
        const double window = (now - s.requestArrivedAt).GetSeconds();
        const double bytesPerSecond =
            window > 0 ? static_cast<double>(sourceBytes - s.sourceBytesAtRequest) / window : 0;
        // Behind the plan: wait for the rest at the measured rate, or re-prefill it now
        // (after whatever the GPU runs first)?
        double rest = static_cast<double>(s.expectedKvBytes - s.ReceivedKvBytes());
        for (const auto& [id, other] : m_bs->GetSessions())
        {
            if (id != s.id && other.sourceCellId == s.sourceCellId &&
                other.GetState() == EdgeLlmNode::RESTORING && other.entryBytes == 0 &&
                other.kvDeadline.IsStrictlyPositive() && other.kvDeadline <= s.kvDeadline &&
                other.ReceivedKvBytes() < other.expectedKvBytes)
            {
                rest += static_cast<double>(other.expectedKvBytes - other.ReceivedKvBytes());
            }
        }
        const Time wait = bytesPerSecond > 0 ? Seconds(rest / bytesPerSecond) : Time::Max();
        const uint64_t missing = MissingTokens(s);
        // A batch of its own: on the GPU's next T_c boundary once it is free.
        const Time reprefill = m_node->GetPrefillEngine()->GetStartFor(now) - now +
                               Seconds(m_node->GetPrefillEngine()->GetModel().Evaluate(missing));
        if (reprefill < wait)
        {
            NS_LOG_INFO("cell " << m_node->GetCellId() << ": session " << s.id << " KV " << rest
                                << " B behind its plan (deadline " << s.kvDeadline.As(Time::S)
                                << "); re-prefilling " << missing << " tokens ("
                                << reprefill.As(Time::MS) << ") instead of waiting ("
                                << (wait == Time::Max() ? std::string("nothing arrived")
                                                        : std::to_string(wait.GetSeconds()) + " s")
                                << ")");
            StopTransfer(s);
            m_replannedTrace(sessionId, s.sourceCellId, missing, wait, reprefill);
            return;
        }
    }
    Simulator::Schedule(m_replanInterval,
                        &EdgeLlmTargetRole::OnReplanCheck,
                        this,
                        sessionId,
                        generation);
}

void
EdgeLlmTargetRole::StartReprefill(Session& s)
{
    s.reprefillRunning = true;
    const uint64_t key = (uint64_t{1} << 62) | s.id; // a batch of its own
    m_node->GetPrefillEngine()->Join(
        key,
        1,
        s.reprefillTokens,
        Simulator::Now(),
        compat::Bind(MakeCallback(&EdgeLlmTargetRole::OnRestorePrefillDone, this),
                     s.id,
                     s.restoreGeneration,
                     true));
}

void
EdgeLlmTargetRole::OnRestorePrefillDone(uint64_t sessionId, uint32_t generation, bool reprefill)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (!it ||
        (it->GetState() != EdgeLlmNode::RESTORING && it->GetState() != EdgeLlmNode::REDIRECTING) ||
        it->restoreGeneration != generation)
    {
        return; // cancelled, refused, or a later restore of the same session
    }
    Session& s = *it;
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
        if (s.GetState() == EdgeLlmNode::RESTORING && s.reprefillTokens > 0 && !s.reprefillRunning)
        {
            StartReprefill(s); // the transfer timed out while the batch was pending
        }
    }
    MaybeResume(s);
}

void
EdgeLlmTargetRole::ResumeIfRestored(uint64_t sessionId)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (it)
    {
        MaybeResume(*it);
    }
}

void
EdgeLlmTargetRole::MaybeResume(Session& s)
{
    if (s.GetState() != EdgeLlmNode::RESTORING || !s.PrefillDone() ||
        s.ReceivedKvBytes() < s.expectedKvBytes ||
        (m_bs->PreTransfer().IsPending(s.id) && !s.closedAtWindowEnd) ||
        (s.entryBytes > 0 && !s.transferClosed))
    {
        // (A pre-transfer's committed bytes still on the way count too; ImpactHO sessions
        // resume on their TRANSFER_COMPLETE or TRUNCATE, on what they have then.)
        return;
    }
    if (s.relayTarget != 0)
    {
        RelaySession(s);
        return;
    }
    m_restoredTrace(s.id, s.sourceCellId, Simulator::Now() - s.handoverTime);
    SendStatus(s.id, KvTransferStatusHeader::RESTORED);
    Time firstToken = Simulator::Now() + Seconds(1.0 / m_node->GetDecodeRate());
    if (s.layerMajor && s.layerReady.size() == m_bs->GetProfile().numLayers)
    {
        // The first decode step, layer by layer: layer l runs once its KV layer and the
        // batch prefill are in place and layer l - 1 is done, for 1 / (DecodeRate N).
        const double perLayer = 1.0 / (m_node->GetDecodeRate() * m_bs->GetProfile().numLayers);
        double done = 0;
        for (const Time& ready : s.layerReady)
        {
            done = std::max({done, ready.GetSeconds(), s.prefillDoneAt.GetSeconds()}) + perLayer;
        }
        firstToken = Seconds(done);
    }
    m_bs->StartDecoding(s, firstToken);
}

void
EdgeLlmTargetRole::SendStatus(uint64_t sessionId, uint8_t state)
{
    const Session& s = m_bs->GetSession(sessionId);
    EdgeLlmPeer* peer = m_bs->FindPeer(s.sourceCellId);
    if (!peer)
    {
        return; // restored from a source that is no peer (not over this protocol)
    }
    KvTransferStatusHeader status;
    status.sessionId = sessionId;
    status.receivedBytes = s.ReceivedKvBytes();
    status.state = state;
    peer->Control()->SendMessage(KvFrameHeader::TRANSFER_STATUS, status, 0);
}

void
EdgeLlmTargetRole::OnStatusTimer(uint64_t sessionId, uint32_t generation)
{
    EdgeLlmSession* it = m_bs->FindSession(sessionId);
    if (!it || it->GetState() != EdgeLlmNode::RESTORING || it->restoreGeneration != generation)
    {
        return; // restored (RESTORED was sent), cancelled, or restored again later
    }
    SendStatus(sessionId, KvTransferStatusHeader::PROGRESS);
    it->statusEvent = Simulator::Schedule(m_statusInterval,
                                          &EdgeLlmTargetRole::OnStatusTimer,
                                          this,
                                          sessionId,
                                          generation);
}

void
EdgeLlmTargetRole::OnRedirectRefused(uint16_t peerCellId, const KvRedirectHeader& redirect)
{
    EdgeLlmSession* it = m_bs->FindSession(redirect.sessionId);
    if (!it || it->GetState() != EdgeLlmNode::REDIRECTING || it->sourceCellId != peerCellId)
    {
        return; // e.g. cancelled meanwhile
    }
    Session& s = *it;
    if (!m_bs->HasPeer(s.relayTarget))
    {
        // Neither the source nor this BS has a link to the UE's new cell.
        m_bs->LoseSession(s, s.relayTarget, EdgeLlmNode::NO_BACKHAUL_PATH);
        return;
    }
    // Relay: finish the restore here (the source keeps sending), then hand the session
    // on to the UE's cell, from the time the UE got there.
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": relays session " << s.id << " from cell "
                        << peerCellId << " to cell " << s.relayTarget);
    s.SwitchToState(EdgeLlmNode::RESTORING);
    if (!s.kvDoneAtRedirect && s.entryBytes == 0 && s.ReceivedKvBytes() == s.expectedKvBytes)
    {
        m_kvReceivedTrace(s.id, s.sourceCellId, s.ReceivedKvBytes()); // completed meanwhile
    }
    if (m_statusInterval.IsStrictlyPositive() && !compat::IsPending(s.statusEvent))
    {
        s.statusEvent = Simulator::Schedule(m_statusInterval,
                                            &EdgeLlmTargetRole::OnStatusTimer,
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
EdgeLlmTargetRole::RelaySession(Session& s)
{
    // This BS now holds the session's whole state: the source may release its copy.
    SendStatus(s.id, KvTransferStatusHeader::RESTORED);
    const uint16_t target = s.relayTarget;
    s.relayTarget = 0;
    s.SwitchToState(EdgeLlmNode::FINISHED); // servable from here; decoding stays stopped
    m_bs->Source().BeginHandover(s.id, target, s.relayTime);
}

} // namespace ns3
