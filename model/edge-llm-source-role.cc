/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-source-role.h"

#include "edge-llm-compat.h"
#include "edge-llm-pre-transfer-role.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmSourceRole");

EdgeLlmSourceRole::EdgeLlmSourceRole(EdgeLlmNode* node)
    : m_node(node)
{
}

void
EdgeLlmSourceRole::SetArrivalPredictor(HandoverBatcher::ArrivalPredictor predictor)
{
    m_predictor = predictor;
    if (m_batcher)
    {
        m_batcher->SetArrivalPredictor(predictor);
    }
}

void
EdgeLlmSourceRole::OnHandoverFailure(Session& s)
{
    NS_LOG_FUNCTION(this << s.id);
    const uint64_t sessionId = s.id;
    if (s.GetState() == EdgeLlmNode::HANDED_OVER && m_node->m_peers.count(s.targetCellId))
    {
        // Source: the UE did not complete the handover; tell the target to drop the
        // restore and serve the session again from this BS's own cache.
        Peer& peer = m_node->m_peers.at(s.targetCellId);
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = peer.connection->GetBytesQueued(sessionId);
        peer.connection->Cancel(sessionId);
        peer.Control()->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_node->m_scheduler->RemoveSlotTransfer(sessionId);
        m_node->m_cancelledTrace(sessionId, s.targetCellId, cancel.totalBytes);
        m_node->m_failedTrace(sessionId, s.targetCellId, cancel.totalBytes);
        m_node->StartDecoding(s, Simulator::Now() + Seconds(1.0 / m_node->m_decodeRate));
    }
    else if ((s.GetState() == EdgeLlmNode::DECODING || s.GetState() == EdgeLlmNode::PREFILLING ||
              s.GetState() == EdgeLlmNode::FINISHED) &&
             m_batcher)
    {
        // Source, before the handover started (the target's RRC refused the UE): the UE
        // stays here, and no batch may wait for it.
        const uint16_t target = Withdraw(sessionId);
        if (target != 0)
        {
            m_node->m_failedTrace(sessionId, target, 0);
        }
    }
}

void
EdgeLlmSourceRole::OnTransferCancel(uint16_t peerCellId, const KvTransferCompleteHeader& cancel)
{
    // The UE came back before the target rebuilt its state, or its handover failed. Stop
    // sending and serve it again from this BS's own cache.
    auto it = m_node->m_sessions.find(cancel.sessionId);
    if (it == m_node->m_sessions.end() || it->second.GetState() != EdgeLlmNode::HANDED_OVER)
    {
        return;
    }
    m_node->m_peers.at(peerCellId).connection->Cancel(cancel.sessionId);
    m_node->m_scheduler->RemoveSlotTransfer(cancel.sessionId);
    m_node->m_cancelledTrace(cancel.sessionId, peerCellId, cancel.totalBytes);
    m_node->StartDecoding(it->second, Simulator::Now() + Seconds(1.0 / m_node->m_decodeRate));
}

void
EdgeLlmSourceRole::OnTransferRedirect(uint16_t peerCellId, const KvRedirectHeader& redirect)
{
    // The UE went on from that target to a third BS; hand the session over to it from
    // here, where the whole cache still is.
    auto it = m_node->m_sessions.find(redirect.sessionId);
    if (it == m_node->m_sessions.end() || it->second.GetState() != EdgeLlmNode::HANDED_OVER)
    {
        NS_LOG_WARN("cell " << m_node->m_cellId << ": redirect of session " << redirect.sessionId
                            << " to cell " << redirect.newTargetCellId << " ignored");
        return;
    }
    if (!m_node->m_peers.count(redirect.newTargetCellId))
    {
        // No link from here to the new cell: the target keeps what it is receiving,
        // finishes the restore and relays the session (or declares it lost).
        NS_LOG_INFO("cell " << m_node->m_cellId << ": no backhaul link to cell "
                            << redirect.newTargetCellId << "; cell " << peerCellId
                            << " relays session " << redirect.sessionId);
        m_node->m_peers.at(peerCellId)
            .Control()
            ->SendMessage(KvFrameHeader::TRANSFER_REDIRECT_REFUSED, redirect, 0);
        return;
    }
    m_node->m_peers.at(peerCellId).connection->Cancel(redirect.sessionId);
    m_node->m_scheduler->RemoveSlotTransfer(redirect.sessionId);
    it->second.SwitchToState(EdgeLlmNode::FINISHED); // servable again, decoding stays stopped
    m_node->NotifyHandoverStart(redirect.sessionId, redirect.newTargetCellId);
}

void
EdgeLlmSourceRole::OnTransferStop(uint16_t peerCellId, const KvTransferCompleteHeader& stop)
{
    // The target timed out and re-prefills what is missing; stop sending.
    m_node->m_peers.at(peerCellId).connection->Cancel(stop.sessionId);
    m_node->m_scheduler->RemoveSlotTransfer(stop.sessionId);
}

std::set<uint16_t>
EdgeLlmSourceRole::ConcurrentTargets(uint16_t target, uint64_t bytes, Time from)
{
    const Time now = Simulator::Now();
    std::set<uint16_t> concurrent = m_gatheredTargets;
    concurrent.insert(target);
    for (const auto& [id, peer] : m_node->m_peers)
    {
        // Control messages share no KV flow's link; a backlog that clears before the
        // transfer starts shares nothing either.
        if (peer.connection->HasKvBacklog() &&
            (from <= now ||
             m_node->BacklogClearsAt(peer, m_node->PlanningBitRate(peer)) > from.GetSeconds()))
        {
            concurrent.insert(id);
        }
    }
    auto aloneFor = [this](uint16_t cell, uint64_t b) {
        return Seconds(8.0 * static_cast<double>(b) /
                       m_node->PlanningBitRate(m_node->m_peers.at(cell)));
    };
    const Time end = from + aloneFor(target, bytes);
    for (const HandoverBatcher::Expected& e : GetBatcher().GetAnnounced())
    {
        const Time start = std::max(e.when, now);
        if (start >= end || !m_node->m_peers.count(e.target))
        {
            continue;
        }
        const uint64_t context = m_node->PredictContextAt(e.sessionId, e.when);
        if (start + aloneFor(e.target, context * m_node->m_profile.BytesPerToken()) > from)
        {
            concurrent.insert(e.target);
        }
    }
    return concurrent;
}

HandoverBatcher&
EdgeLlmSourceRole::GetBatcher()
{
    if (!m_batcher)
    {
        NS_ABORT_MSG_IF(!m_node->m_scheduler,
                        "ns3::EdgeLlmNode::Scheduler is not set (cell " << m_node->m_cellId << ")");
        m_batcher = std::make_unique<HandoverBatcher>(m_node->m_scheduler);
        m_batcher->SetArrivalPredictor(m_predictor);
        m_batcher->SetBatchCompleteCallback(
            [this](uint32_t id, uint16_t target, uint16_t size, bool online, const CtHoPlan& p) {
                OnBatchComplete(id, target, size, online, p);
            });
    }
    return *m_batcher;
}

void
EdgeLlmSourceRole::OnBatchComplete(uint32_t batchId,
                                   uint16_t target,
                                   uint16_t size,
                                   bool online,
                                   const CtHoPlan& plan)
{
    // A coordinated batch's members that did not come left its plan one by one
    // (ResolvePlanMember): the target needs no close for it.
    if (online && plan.prefillLength > 0 && !(batchId & KvPlanHeader::GROUP_BIT))
    {
        // The target waits for this before it starts the batch's prefill.
        KvBatchCloseHeader close;
        close.batchId = batchId;
        close.batchSize = size;
        m_node->m_peers.at(target).Control()->SendMessage(KvFrameHeader::BATCH_CLOSE, close, 0);
    }
    // The plan at the batch's L on the actual times and contexts.
    for (const auto& ue : plan.ues)
    {
        m_node->m_plannedTrace(ue.ueId, ue.prefillTokens, ue.transferTokens, Seconds(ue.delay));
    }
}

void
EdgeLlmSourceRole::BeginHandover(uint64_t sessionId, uint16_t targetCellId, Time handoverTime)
{
    auto sit = m_node->m_sessions.find(sessionId);
    if (sit == m_node->m_sessions.end() && m_node->m_prompted.insert(sessionId).second)
    {
        // The UE leaves before its prompt came: a late copy must not open a session here
        // for a UE that is gone.
        NS_LOG_INFO("cell " << m_node->m_cellId << ": session " << sessionId
                            << " handed over before its prompt arrived");
        m_node->m_noSessionTrace(sessionId, targetCellId, 0);
        Withdraw(sessionId);
        return;
    }
    if (sit == m_node->m_sessions.end() || sit->second.GetState() == EdgeLlmNode::HANDED_OVER ||
        sit->second.GetState() == EdgeLlmNode::RESTORING ||
        sit->second.GetState() == EdgeLlmNode::CANCELLED ||
        sit->second.GetState() == EdgeLlmNode::REDIRECTING ||
        sit->second.GetState() == EdgeLlmNode::LOST ||
        sit->second.GetState() == EdgeLlmNode::REFUSED)
    {
        NS_LOG_INFO("cell " << m_node->m_cellId << ": handover of session " << sessionId
                            << " with no servable LLM session here; nothing to move");
        return;
    }
    Session& s = sit->second;
    if (s.GetState() == EdgeLlmNode::FINISHED && s.ueAddress != Ipv4Address() &&
        s.generated >= s.maxNewTokens)
    {
        // The UE's stream is complete: its KV cache serves nothing at the target.
        NS_LOG_INFO("cell " << m_node->m_cellId << ": session " << sessionId << " decoded all its "
                            << s.maxNewTokens << " tokens before the handover; nothing to restore");
        m_node->m_afterDecodingTrace(sessionId, targetCellId, s.generated);
        Withdraw(sessionId); // no announced batch may wait for it
        return;
    }
    s.decodeEvent.Cancel();
    if (!m_node->m_peers.count(targetCellId))
    {
        // No backhaul link to the UE's new cell: the session cannot follow the UE.
        m_node->LoseSession(s, targetCellId, EdgeLlmNode::NO_BACKHAUL_PATH);
        return;
    }
    s.SwitchToState(EdgeLlmNode::HANDED_OVER);
    s.targetCellId = targetCellId;
    const uint64_t context = s.promptTokens + s.generated;
    m_node->m_handoverStartedTrace(sessionId, targetCellId, context);
    // What a pre-transfer already put at the target: the plan is of the rest.
    const uint64_t ahead = m_node->m_preTransfer->OnHandover(s, targetCellId);
    s.preSentTokens = ahead / m_node->m_profile.BytesPerToken();
    if (m_node->m_scheduler->AllocatesSlots())
    {
        StartSlotTransfer(sessionId, targetCellId, context, ahead);
        return;
    }
    if (GetBatcher().IsAnnounced(sessionId, targetCellId) || m_node->m_gatherTime.IsZero())
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
        m_pendingEvent = Simulator::Schedule(m_node->m_gatherTime,
                                             &EdgeLlmSourceRole::ProcessPendingHandovers,
                                             this);
    }
}

void
EdgeLlmSourceRole::ProcessPendingHandovers()
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

uint16_t
EdgeLlmSourceRole::Withdraw(uint64_t sessionId)
{
    ResolvePlanMember(sessionId, false); // a coordinated target no longer counts it
    return m_batcher ? m_batcher->Withdraw(sessionId) : 0;
}

void
EdgeLlmSourceRole::ResolvePlanMember(uint64_t sessionId, bool joined)
{
    const auto of = m_requestOf.find(sessionId);
    if (of == m_requestOf.end())
    {
        return;
    }
    const uint32_t id = of->second;
    m_requestOf.erase(of);
    PlanRequest& r = m_planRequests.at(id);
    r.pending.erase(sessionId);
    if (joined)
    {
        ++r.joined; // it stays counted
    }
    else
    {
        // The target counts this request's members that joined or will: one fewer now.
        KvBatchCloseHeader close;
        close.batchId = KvPlanHeader::GROUP_BIT | id;
        close.batchSize = static_cast<uint16_t>(r.joined + r.pending.size());
        m_node->m_peers.at(r.target).Control()->SendMessage(KvFrameHeader::BATCH_CLOSE, close, 0);
        const auto stored = m_coordination.find(r.target);
        if (stored != m_coordination.end())
        {
            stored->second.members.erase(sessionId);
            if (stored->second.members.empty())
            {
                m_coordination.erase(stored);
            }
        }
    }
    if (r.pending.empty())
    {
        m_planRequests.erase(id);
    }
}

void
EdgeLlmSourceRole::ScheduleAnnouncement(uint16_t target, Time when)
{
    const Time at = std::max(Simulator::Now(), when - m_node->m_scheduler->GetPlanLead());
    EventId& event = m_announceEvents[target];
    if (compat::IsPending(event) && Simulator::GetDelayLeft(event) + Simulator::Now() <= at)
    {
        return; // an earlier request to this target takes this handover too
    }
    event.Cancel();
    event =
        Simulator::Schedule(at - Simulator::Now(), &EdgeLlmSourceRole::AnnounceBatch, this, target);
}

void
EdgeLlmSourceRole::AnnounceBatch(uint16_t target)
{
    const auto peer = m_node->m_peers.find(target);
    if (peer == m_node->m_peers.end())
    {
        return; // no path: the handover loses the session (NO_BACKHAUL_PATH)
    }
    KvPlanRequestHeader req;
    std::set<uint64_t> members;
    Time first = Time::Max();
    for (const auto& [sessionId, when] : GetBatcher().GetExpected(target))
    {
        if (m_requestOf.count(sessionId))
        {
            continue; // in an earlier request
        }
        const uint64_t context = m_node->PredictContextAt(sessionId, when);
        if (context == 0 || req.members.size() == KvPlanRequestHeader::MAX_MEMBERS)
        {
            continue; // no session yet, or the request is full: planned alone, as ctHO
        }
        req.members.push_back({sessionId, when.GetNanoSeconds(), static_cast<uint32_t>(context)});
        members.insert(sessionId);
        first = std::min(first, when);
    }
    if (members.empty())
    {
        return;
    }
    const Peer& p = peer->second;
    // The share of the path this batch's flow will get from its first handover: the
    // targets whose transfers overlap it split the links they share with it.
    uint64_t bytes = 0;
    for (const KvPlanRequestHeader::Member& m : req.members)
    {
        bytes += uint64_t{m.contextTokens} * m_node->m_profile.BytesPerToken();
    }
    const double planned =
        m_node->ShareOfPath(target, ConcurrentTargets(target, bytes, first)).wireBitRate *
        m_node->PayloadShare(p);
    req.requestId = m_nextPlanRequest++;
    req.replyByNs = (first - m_node->m_scheduler->GetPlanLead() / 2).GetNanoSeconds();
    req.planningBitRate = static_cast<uint64_t>(std::llround(planned));
    req.backhaulFreeAtNs = Seconds(m_node->BacklogClearsAt(p, planned)).GetNanoSeconds();
    req.bytesPerToken = static_cast<uint32_t>(m_node->m_profile.BytesPerToken());
    // The path's signalling as this source will plan with it (ctHO at packet level).
    const CtHoSignalling sig = m_node->Signalling(p, m_node->LoneFlowBitRate(p));
    req.pathDelay = sig.pathDelay;
    req.requestTime = sig.requestTime;
    req.idTimePerToken = sig.idTimePerToken;
    req.closeAhead = sig.closeAhead;
    NS_LOG_INFO("cell " << m_node->m_cellId << ": PLAN_REQUEST " << req.requestId << " to cell "
                        << target << ", " << members.size() << " handovers from "
                        << first.As(Time::S));
    p.Control()->SendMessage(KvFrameHeader::PLAN_REQUEST, req, 0);
    for (uint64_t member : members)
    {
        m_requestOf[member] = req.requestId;
    }
    m_planRequests[req.requestId] = {target, members, 0};
}

void
EdgeLlmSourceRole::OnPlan(uint16_t peerCellId, const KvPlanHeader& plan)
{
    const auto request = m_planRequests.find(plan.requestId);
    if (request == m_planRequests.end() || request->second.target != peerCellId)
    {
        return; // every member joined or left already: nothing to plan
    }
    HandoverBatcher::Coordination co;
    co.groupId = plan.groupId;
    co.groupSize = plan.groupSize;
    co.prefillLength = plan.prefillLength;
    co.batchStart = NanoSeconds(plan.batchStartNs).GetSeconds();
    co.planningBitRate = static_cast<double>(plan.planningBitRate);
    // The members still to hand over (those withdrawn since left the plan, ResolvePlanMember).
    bool late = false;
    for (uint64_t member : request->second.pending)
    {
        // A member already in a batch was planned alone (the PLAN came late): it left
        // the plan with its request, or leaves it with its own.
        late = late || GetBatcher().IsInBatch(member);
        co.members.insert(member);
    }
    if (late || co.members.empty())
    {
        NS_LOG_INFO("cell " << m_node->m_cellId << ": PLAN " << plan.requestId << " from cell "
                            << peerCellId << " came after its batch formed; not used");
        return;
    }
    // The next batch to this target follows it; the members of a plan it replaces hand
    // over planned alone and leave their plan then.
    m_coordination[peerCellId] = co;
}

void
EdgeLlmSourceRole::StartTransfer(uint64_t sessionId,
                                 uint16_t targetCellId,
                                 uint64_t context,
                                 Time handoverTime)
{
    Session& s = m_node->m_sessions.at(sessionId);
    const Time now = handoverTime; // tau: the plan and the target count from it
    Peer& peer = m_node->m_peers.at(targetCellId);
    // The target holds the first preSentTokens already (a pre-transfer): plan the rest.
    const uint64_t rest = context - std::min(context, s.preSentTokens);
    // Targets whose paths share a link with this one and whose transfers overlap it
    // split that link (KvFlowBitRate: equally on a FIFO, max-min fair with the cross
    // traffic on a fair queue; the lone rate on dedicated links).
    const std::set<uint16_t> concurrent =
        ConcurrentTargets(targetCellId, rest * m_node->m_profile.BytesPerToken(), Simulator::Now());
    const EdgeLlmNode::PathShare share = m_node->ShareOfPath(targetCellId, concurrent);
    const double bitRate = share.wireBitRate;
    if (peer.datagram && m_node->m_planningCross == EdgeLlmNode::MEASURED)
    {
        // Pace at the lone flow's share of the cross traffic measured now.
        EdgeLlmNode::SetPacing(peer.datagram, m_node->LoneFlowBitRate(peer));
    }
    double planned = bitRate * m_node->PayloadShare(peer);
    double wireRate = bitRate;
    const auto coordination = m_coordination.find(targetCellId);
    const bool coordinated = coordination != m_coordination.end() &&
                             coordination->second.members.count(sessionId) &&
                             !GetBatcher().IsInBatch(sessionId);
    // A coordinated batch's members (its first, and those already in it): at most the rate
    // the target planned the batch with (paths sharing its link), signalling included.
    const HandoverBatcher::Coordination* co =
        coordinated ? &coordination->second : GetBatcher().GetCoordination(sessionId);
    if (co && co->planningBitRate > 0 && co->planningBitRate < planned)
    {
        planned = co->planningBitRate;
        wireRate = planned / m_node->PayloadShare(peer);
    }
    HandoverBatcher::PlanInputs inputs;
    inputs.backhaulTokensPerSecond =
        planned / static_cast<double>(m_node->m_profile.BitsPerToken());
    inputs.prefill = m_node->m_gpu->GetModel();
    inputs.batchPeriod = m_node->m_gpu->GetBatchPeriod().GetSeconds();
    inputs.backhaulFreeAt = m_node->BacklogClearsAt(peer, planned);
    inputs.signalling = m_node->Signalling(peer, wireRate);
    Ptr<KvTransferConnection> connection = peer.Control();
    inputs.closeAheadNow = [connection, wireRate]() {
        return 8.0 * static_cast<double>(connection->GetBytesAheadOfControl()) / wireRate;
    };
    m_node->m_backhaulPlannedTrace(targetCellId, planned, share.sharers);
    if (coordinated)
    {
        // The first handover of a coordinated batch: the batch follows the target's plan.
        inputs.coordination = coordination->second;
        m_coordination.erase(coordination);
    }
    HandoverBatcher::Decision d;
    if (rest == 0)
    {
        // A pre-transfer put the whole cache at the target: no batch, no KV bytes; the
        // request alone (and the committed bytes before it) restores the session.
        Withdraw(sessionId); // an announced batch must not wait for it
        d.deadline = now;
        const double requestAt = std::max(now.GetSeconds(), inputs.signalling.controlFreeAt);
        m_node->m_plannedTrace(sessionId,
                               0,
                               0,
                               Seconds(requestAt - now.GetSeconds() +
                                       inputs.signalling.requestTime +
                                       inputs.signalling.pathDelay));
    }
    else
    {
        d = GetBatcher()
                .Start(sessionId, targetCellId, rest, now, inputs, [this](uint64_t id, Time when) {
                    return m_node->PredictContextAt(id, when);
                });
    }

    KvTransferRequestHeader req;
    req.sessionId = sessionId;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_node->m_cellId;
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.prefillLength = static_cast<uint32_t>(d.prefillLength);
    req.prefillTokens = static_cast<uint32_t>(d.prefillTokens);
    req.transferTokens = static_cast<uint32_t>(d.transferTokens);
    req.batchId = d.batchId;
    req.batchSize = d.batchSize;
    req.bytesPerToken = static_cast<uint32_t>(m_node->m_profile.BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    req.kvDeadlineNs = d.deadline.GetNanoSeconds(); // tau + g(L): the plan's KV bound
    if (m_node->m_layerwise)
    {
        req.flags |= KvTransferRequestHeader::LAYER_MAJOR;
    }
    if (d.coordinated)
    {
        req.flags |= KvTransferRequestHeader::COORDINATED;
        ResolvePlanMember(sessionId, true);
    }
    else
    {
        ResolvePlanMember(sessionId, false); // planned alone (or elsewhere): not in the group
    }
    const auto unused = m_coordination.find(targetCellId);
    if (unused != m_coordination.end())
    {
        // A batch planned alone took members of an unused plan: they leave it as they
        // hand over; the plan is not used for them.
        for (auto m = unused->second.members.begin(); m != unused->second.members.end();)
        {
            m = GetBatcher().IsInBatch(*m) ? unused->second.members.erase(m) : std::next(m);
        }
        if (unused->second.members.empty())
        {
            m_coordination.erase(unused);
        }
    }
    SendTransferRequest(
        peer,
        req,
        static_cast<uint32_t>(d.prefillTokens * KvTransferRequestHeader::TOKEN_ID_BYTES));
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = d.deadline;
    job.remainingBytes = d.transferTokens * m_node->m_profile.BytesPerToken();
    peer.connection->AddTransfer(job);
    m_node->m_preTransfer->OnHandoverTransfer(); // pre-transfers on shared links pause
}

void
EdgeLlmSourceRole::SendTransferRequest(const EdgeLlmNode::Peer& peer,
                                       const KvTransferRequestHeader& req,
                                       uint32_t tokenIdBytes)
{
    peer.Control()->SendMessage(KvFrameHeader::TRANSFER_REQUEST, req, tokenIdBytes);
    if (peer.control)
    {
        peer.connection->SendMessage(KvFrameHeader::TRANSFER_REQUEST, req, 0); // KV's marker
    }
}

void
EdgeLlmSourceRole::StartSlotTransfer(uint64_t sessionId,
                                     uint16_t targetCellId,
                                     uint64_t context,
                                     uint64_t aheadBytes)
{
    Ptr<HandoverScheduler> scheduler = m_node->m_scheduler;
    const Time now = Simulator::Now();
    Session& s = m_node->m_sessions.at(sessionId);
    Peer& peer = m_node->m_peers.at(targetCellId);
    KvTransferRequestHeader req;
    req.sessionId = sessionId;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_node->m_cellId;
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.transferTokens = static_cast<uint32_t>(context);
    req.bytesPerToken = static_cast<uint32_t>(m_node->m_profile.BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    req.flags = KvTransferRequestHeader::IMPORTANCE_ORDERED;
    SendTransferRequest(peer, req, 0);
    const uint64_t cacheBytes = context * m_node->m_profile.BytesPerToken();
    // The first entries of the importance order went ahead (a pre-transfer): the rest.
    aheadBytes = std::min(aheadBytes, cacheBytes);
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = now + scheduler->GetTransferWindow();
    job.remainingBytes = cacheBytes - aheadBytes;
    job.slotBudget = 0; // it waits for the next slot
    job.entryBytes = static_cast<uint32_t>(m_node->m_profile.BytesPerEntry());
    peer.connection->AddTransfer(job); // nothing left: its TRANSFER_COMPLETE at once
    if (job.remainingBytes == 0)
    {
        return;
    }
    m_node->m_preTransfer->OnHandoverTransfer(); // pre-transfers on shared links pause
    if (aheadBytes > 0)
    {
        scheduler->SetBytesSentAhead(sessionId, aheadBytes);
    }

    scheduler->AddSlotTransfer(sessionId,
                               targetCellId,
                               now,
                               cacheBytes,
                               AccuracyUtility::Preset(context,
                                                       m_node->m_importanceOrder,
                                                       m_node->m_kvAccuracyLoss,
                                                       m_node->m_utilityCalibration));
    Simulator::Schedule(scheduler->GetTransferWindow(),
                        &EdgeLlmSourceRole::TruncateSlotTransfer,
                        this,
                        sessionId);
    if (!compat::IsPending(m_slotEvent))
    {
        // Slots fall on multiples of dt; a handover inside a slot waits for the next.
        const int64_t dt = scheduler->GetSlotLength().GetTimeStep();
        const int64_t next = ((now.GetTimeStep() + dt - 1) / dt) * dt;
        m_slotEvent = Simulator::Schedule(TimeStep(next) - now, &EdgeLlmSourceRole::OnSlot, this);
    }
}

void
EdgeLlmSourceRole::OnSlot()
{
    Ptr<HandoverScheduler> scheduler = m_node->m_scheduler;
    const Time dt = scheduler->GetSlotLength();
    auto sent = [this](uint16_t target, uint64_t sessionId) {
        return m_node->m_peers.at(target).connection->GetBytesQueued(sessionId);
    };
    auto budget = [this, dt](uint16_t target, const std::set<uint16_t>& activeTargets) {
        // Targets active in this slot whose paths share a link split it (KvFlowBitRate).
        const EdgeLlmNode::PathShare share = m_node->ShareOfPath(target, activeTargets);
        const double bits =
            share.wireBitRate * m_node->PayloadShare(m_node->m_peers.at(target)) * dt.GetSeconds();
        m_node->m_slotBudgetTrace(target, share.sharers, bits / 8);
        return bits;
    };
    for (const auto& share : scheduler->ShareSlot(Simulator::Now(), sent, budget))
    {
        m_node->m_slotTrace(share.target, share.users, share.fallback);
        Peer& peer = m_node->m_peers.at(share.target);
        for (const auto& [sessionId, bytes] : share.grants)
        {
            peer.connection->SetSlotBudget(sessionId, bytes);
        }
    }
    if (scheduler->HasSlotTransfers())
    {
        m_slotEvent = Simulator::Schedule(dt, &EdgeLlmSourceRole::OnSlot, this);
    }
}

void
EdgeLlmSourceRole::TruncateSlotTransfer(uint64_t sessionId)
{
    // Forgotten before Truncate(): its completion callback (OnTransferSent) forgets too.
    const uint16_t target = m_node->m_scheduler->RemoveSlotTransfer(sessionId);
    if (target == 0)
    {
        return; // already complete
    }
    m_node->m_peers.at(target).connection->Truncate(sessionId);
}

void
EdgeLlmSourceRole::OnTransferSent(uint64_t sessionId)
{
    m_node->m_scheduler->RemoveSlotTransfer(sessionId);
}

void
EdgeLlmSourceRole::OnTransferResponse(uint16_t peerCellId, const KvTransferResponseHeader& response)
{
    if (response.result == KvTransferResponseHeader::ACCEPTED)
    {
        return;
    }
    // Source: the target cannot use this cache. Stop sending it; the session ends here.
    auto it = m_node->m_sessions.find(response.sessionId);
    if (it == m_node->m_sessions.end() || it->second.GetState() != EdgeLlmNode::HANDED_OVER ||
        it->second.targetCellId != peerCellId)
    {
        return;
    }
    NS_LOG_ERROR("cell " << m_node->m_cellId << ": cell " << peerCellId << " refused session "
                         << response.sessionId << " (result " << +response.result
                         << "): its model has " << response.bytesPerToken
                         << " KV bytes/token, this BS's " << m_node->m_profile.BytesPerToken());
    const uint64_t sent = m_node->m_peers.at(peerCellId).connection->Cancel(response.sessionId);
    m_node->m_scheduler->RemoveSlotTransfer(response.sessionId);
    it->second.SwitchToState(EdgeLlmNode::REFUSED);
    m_node->m_refusedTrace(response.sessionId, peerCellId, sent);
    // No other BS holds the session now: it ends here, lost, counted once (the target
    // only traces TransferRefused).
    ++m_node->m_lostSessions;
    m_node->m_lostTrace(response.sessionId, peerCellId, EdgeLlmNode::KV_FORMAT_REFUSED);
}

void
EdgeLlmSourceRole::OnTransferStatus(uint16_t peerCellId, const KvTransferStatusHeader& status)
{
    auto it = m_node->m_sessions.find(status.sessionId);
    if (it == m_node->m_sessions.end() || it->second.GetState() != EdgeLlmNode::HANDED_OVER ||
        it->second.targetCellId != peerCellId)
    {
        return; // e.g. the session came back here meanwhile
    }
    if (status.state == KvTransferStatusHeader::PROGRESS)
    {
        m_node->m_statusTrace(status.sessionId, peerCellId, status.receivedBytes);
    }
    else if (status.state == KvTransferStatusHeader::RESTORED)
    {
        // Restored at the target: this BS's copy is no longer needed.
        m_node->m_scheduler->RemoveSlotTransfer(status.sessionId);
        m_node->m_sessions.erase(it);
        m_node->m_releasedTrace(status.sessionId, peerCellId, status.receivedBytes);
    }
    else if (status.state == KvTransferStatusHeader::LOST)
    {
        // The target gave the session up (and traced it): stop sending, forget it.
        m_node->m_peers.at(peerCellId).connection->Cancel(status.sessionId);
        m_node->m_scheduler->RemoveSlotTransfer(status.sessionId);
        m_node->m_sessions.erase(it);
    }
}

} // namespace ns3
