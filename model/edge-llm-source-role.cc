/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-source-role.h"

#include "edge-llm-backhaul-transport.h"
#include "edge-llm-compat.h"
#include "edge-llm-pre-transfer-role.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmSourceRole");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmSourceRole);

TypeId
EdgeLlmSourceRole::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmSourceRole")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute(
                "PlanningRate",
                "The backhaul rate the schedulers plan with (ctHO's R, ImpactHO's "
                "slot budget B dt): Nominal (the link's bit rate, as the papers do) "
                "or Payload (that rate times the share of each point-to-point packet "
                "that is KV payload: MSS / (MSS + 54) for TCP, (MTU - 34) / (MTU + 2) "
                "for UDP; 0.6 % less at MTU 9000, 4.5 % at 1500). Default Payload: the "
                "rate the KV flow really gets (the flow level keeps the papers' Nominal).",
                EnumValue(EdgeLlmNode::PAYLOAD),
                compat::MakeEnumAccessor<EdgeLlmNode::PlanningRate>(
                    &EdgeLlmSourceRole::m_planningRate),
                MakeEnumChecker(EdgeLlmNode::NOMINAL, "Nominal", EdgeLlmNode::PAYLOAD, "Payload"))
            .AddAttribute("PlanningFairQueue",
                          "true: where a flow-fair queue disc (FqCoDel, FqCobalt, FqPie) serves "
                          "a backhaul link's KV band, plan each KV flow with its max-min fair "
                          "share of the link among the source's k KV flows on it and the CBR "
                          "cross traffic (R / (k + 1) when the cross traffic exceeds that, "
                          "else (R - x) / k); UDP paces at the lone flow's share. false: "
                          "(R - x) / k on every link, as on a FIFO.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmSourceRole::m_planningFairQueue),
                          MakeBooleanChecker())
            .AddAttribute(
                "PlanningCrossTraffic",
                "The cross traffic on each backhaul hop the schedulers plan with: "
                "Installed (the CBR the backhaul installed, EdgeLlmBackhaul's "
                "InstallCrossTraffic before ConnectBackhaul; 0 for traffic it does not "
                "know) or Measured (what a CrossTrafficMeter on the hop's sending device "
                "measures when the plan is made: an exponentially weighted rate of the "
                "non-KV bits, time constant ns3::CrossTrafficMeter::TimeConstant; needs "
                "EdgeLlmHelper::ConnectBackhaul with an EdgeLlmBackhaul, checked when the "
                "application starts). With Transport=Udp and Measured, each transfer "
                "paces at the lone flow's share measured when it is planned. Buffers, "
                "TCP's initial window and the RTT estimate are sized at start with the "
                "installed cross traffic either way.",
                EnumValue(EdgeLlmNode::INSTALLED),
                compat::MakeEnumAccessor<EdgeLlmNode::PlanningCrossTraffic>(
                    &EdgeLlmSourceRole::m_planningCross),
                MakeEnumChecker(EdgeLlmNode::INSTALLED,
                                "Installed",
                                EdgeLlmNode::MEASURED,
                                "Measured"))
            .AddAttribute("LayerwiseStreaming",
                          "Source: send each session's KV cache layer-major (layer 0 of all "
                          "n_tx tokens, then layer 1, ...) and flag it in TRANSFER_REQUEST; the "
                          "target then runs the first decode step after the handover layer by "
                          "layer as each KV layer completes. On a TransferTimeout a layer-major "
                          "transfer keeps nothing: every transferred token is re-prefilled. "
                          "ImpactHO transfers keep their importance order.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EdgeLlmSourceRole::m_layerwise),
                          MakeBooleanChecker())
            .AddAttribute("GatherTime",
                          "Online batches: unannounced handovers that start within this time "
                          "of the first one are planned together (an RRC starts handovers in "
                          "bursts). 0: plan each at its own start.",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&EdgeLlmSourceRole::m_gatherTime),
                          MakeTimeChecker(Seconds(0), Seconds(1)))
            .AddAttribute("KvAccuracyLoss",
                          "ImpactHO: the share of the full-cache accuracy M lost by storing the "
                          "KV cache at KvBits < 16 (a quantizer's measured loss), in [0, 1); the "
                          "utility's asymptote becomes M (1 - loss). Must be 0 at KvBits 16 "
                          "(checked when the application starts).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&EdgeLlmSourceRole::m_kvAccuracyLoss),
                          MakeDoubleChecker<double>(0.0, 0.999999))
            .AddAttribute("ImportanceOrder",
                          "ImpactHO: caches are sent in Fast KVzip importance order (true) or "
                          "in random order (false); selects the accuracy utility preset.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmSourceRole::m_importanceOrder),
                          MakeBooleanChecker())
            .AddAttribute(
                "UtilityCalibration",
                "ImpactHO: which fit of the importance-order accuracy utility presets "
                "(AccuracyUtility::Preset): Headline (k = 45, tau = 0.065 at every context "
                "length; fits the paper's 93.7 % headline) or Joint (M, k, tau per context "
                "length, fitted jointly to the paper's Table II latencies and headline).",
                EnumValue(AccuracyUtility::HEADLINE),
                compat::MakeEnumAccessor<AccuracyUtility::Calibration>(
                    &EdgeLlmSourceRole::m_utilityCalibration),
                MakeEnumChecker(AccuracyUtility::HEADLINE,
                                "Headline",
                                AccuracyUtility::JOINT,
                                "Joint"))
            .AddTraceSource("HandoverAfterDecoding",
                            "Source: a UE handed over after its session had decoded every "
                            "token it asked for (its prompt's maxNewTokens): nothing is left "
                            "to restore, no KV byte moves and the session ends here "
                            "(sessionId, target cell, tokens decoded).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_afterDecodingTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverWithoutSession",
                            "Source: a UE handed over before its prompt had opened a session "
                            "here (its prompt still on the radio, or lost): nothing to move, "
                            "and a copy of the prompt arriving later is ignored (sessionId, "
                            "target cell, 0).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_noSessionTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverStarted",
                            "Source: a session hands over (sessionId, targetCellId, context).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_handoverStartedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("HandoverPlanned",
                            "Source: a batch is complete; each member's n_pf, n_tx and the "
                            "planner's predicted delay for the actual times and contexts.",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_plannedTrace),
                            "ns3::EdgeLlmNode::PlannedTracedCallback")
            .AddTraceSource("BackhaulPlanned",
                            "Source: the backhaul rate a batch is planned with (targetCellId, "
                            "bit/s, sharers): the share of the path one KV flow gets "
                            "(KvFlowBitRate) with PlanningRate's packet overhead; sharers: "
                            "the targets planned at once that share its busiest link.",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_backhaulPlannedTrace),
                            "ns3::EdgeLlmNode::BackhaulPlannedTracedCallback")
            .AddTraceSource("ImpactHoSlot",
                            "Source, ImpactHO: a slot was shared (targetCellId, active users, "
                            "true if the admission fallback decided it).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_slotTrace),
                            "ns3::EdgeLlmNode::SlotTracedCallback")
            .AddTraceSource("ImpactHoSlotBudget",
                            "Source, ImpactHO: one target's byte budget for a slot "
                            "(targetCellId, sharers, bytes): the share of the path one KV "
                            "flow gets among the targets active in the slot (KvFlowBitRate, "
                            "with PlanningRate's packet overhead) times the slot length; "
                            "sharers: those on its busiest link.",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_slotBudgetTrace),
                            "ns3::EdgeLlmNode::SlotBudgetTracedCallback")
            .AddTraceSource("HandoverFailed",
                            "Source: the RRC aborted the handover of a session served here "
                            "(any HandoverFailure* trace of either BS), which this BS serves "
                            "again from its own cache (sessionId, target cell, KV bytes the "
                            "target had been sent).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_failedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("TransferStatus",
                            "Source: a TRANSFER_STATUS PROGRESS report arrived (sessionId, "
                            "targetCellId, KV bytes the target has received).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_statusTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("SessionReleased",
                            "Source: the target restored the session (TRANSFER_STATUS RESTORED) "
                            "and this BS forgot it (sessionId, targetCellId, KV bytes the "
                            "target received).",
                            MakeTraceSourceAccessor(&EdgeLlmSourceRole::m_releasedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback");
    return tid;
}

EdgeLlmSourceRole::EdgeLlmSourceRole(EdgeLlmNode* node, EdgeLlmBsState* state)
    : m_node(node),
      m_bs(state)
{
}

std::string
EdgeLlmSourceRole::CheckConfiguration() const
{
    std::ostringstream error;
    if (m_node->GetKvBits() == 16 && m_kvAccuracyLoss > 0)
    {
        error << "ns3::EdgeLlmSourceRole::KvAccuracyLoss is " << m_kvAccuracyLoss
              << "; it must be 0 at ns3::EdgeLlmNode::KvBits 16 (it is the loss of a lower "
                 "precision)";
    }
    return error.str();
}

EdgeLlmPathPlanning
EdgeLlmSourceRole::PathPlanning() const
{
    EdgeLlmPathPlanning planning;
    planning.payloadRate = m_planningRate == EdgeLlmNode::PAYLOAD;
    planning.udp = m_bs->Backhaul().GetTransport() == EdgeLlmNode::UDP;
    planning.segmentSize = m_bs->Backhaul().GetSegmentSizeAttribute();
    planning.fairQueue = m_planningFairQueue;
    planning.measuredCross = m_planningCross == EdgeLlmNode::MEASURED;
    return planning;
}

EdgeLlmNode::PlanningCrossTraffic
EdgeLlmSourceRole::GetPlanningCrossTraffic() const
{
    return m_planningCross;
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
    if (s.GetState() == EdgeLlmNode::HANDED_OVER && m_bs->HasPeer(s.targetCellId))
    {
        // Source: the UE did not complete the handover; tell the target to drop the
        // restore and serve the session again from this BS's own cache.
        Peer& peer = m_bs->GetPeer(s.targetCellId);
        KvTransferCompleteHeader cancel;
        cancel.sessionId = sessionId;
        cancel.totalBytes = peer.connection->GetBytesQueued(sessionId);
        peer.connection->Cancel(sessionId);
        peer.Control()->SendMessage(KvFrameHeader::TRANSFER_CANCEL, cancel, 0);
        m_node->GetScheduler()->RemoveSlotTransfer(sessionId);
        m_bs->TraceCancelled(sessionId, s.targetCellId, cancel.totalBytes);
        m_failedTrace(sessionId, s.targetCellId, cancel.totalBytes);
        m_bs->StartDecoding(s, Simulator::Now() + Seconds(1.0 / m_node->GetDecodeRate()));
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
            m_failedTrace(sessionId, target, 0);
        }
    }
}

void
EdgeLlmSourceRole::OnTransferCancel(uint16_t peerCellId, const KvTransferCompleteHeader& cancel)
{
    // The UE came back before the target rebuilt its state, or its handover failed. Stop
    // sending and serve it again from this BS's own cache.
    EdgeLlmSession* it = m_bs->FindSession(cancel.sessionId);
    if (!it || it->GetState() != EdgeLlmNode::HANDED_OVER)
    {
        return;
    }
    m_bs->GetPeer(peerCellId).connection->Cancel(cancel.sessionId);
    m_node->GetScheduler()->RemoveSlotTransfer(cancel.sessionId);
    m_bs->TraceCancelled(cancel.sessionId, peerCellId, cancel.totalBytes);
    m_bs->StartDecoding(*it, Simulator::Now() + Seconds(1.0 / m_node->GetDecodeRate()));
}

void
EdgeLlmSourceRole::OnTransferRedirect(uint16_t peerCellId, const KvRedirectHeader& redirect)
{
    // The UE went on from that target to a third BS; hand the session over to it from
    // here, where the whole cache still is.
    EdgeLlmSession* it = m_bs->FindSession(redirect.sessionId);
    if (!it || it->GetState() != EdgeLlmNode::HANDED_OVER)
    {
        NS_LOG_WARN("cell " << m_node->GetCellId() << ": redirect of session " << redirect.sessionId
                            << " to cell " << redirect.newTargetCellId << " ignored");
        return;
    }
    if (!m_bs->HasPeer(redirect.newTargetCellId))
    {
        // No link from here to the new cell: the target keeps what it is receiving,
        // finishes the restore and relays the session (or declares it lost).
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": no backhaul link to cell "
                            << redirect.newTargetCellId << "; cell " << peerCellId
                            << " relays session " << redirect.sessionId);
        m_bs->GetPeer(peerCellId)
            .Control()
            ->SendMessage(KvFrameHeader::TRANSFER_REDIRECT_REFUSED, redirect, 0);
        return;
    }
    m_bs->GetPeer(peerCellId).connection->Cancel(redirect.sessionId);
    m_node->GetScheduler()->RemoveSlotTransfer(redirect.sessionId);
    it->SwitchToState(EdgeLlmNode::FINISHED); // servable again, decoding stays stopped
    m_node->NotifyHandoverStart(redirect.sessionId, redirect.newTargetCellId);
}

void
EdgeLlmSourceRole::OnTransferStop(uint16_t peerCellId, const KvTransferCompleteHeader& stop)
{
    // The target timed out and re-prefills what is missing; stop sending.
    m_bs->GetPeer(peerCellId).connection->Cancel(stop.sessionId);
    m_node->GetScheduler()->RemoveSlotTransfer(stop.sessionId);
}

std::set<uint16_t>
EdgeLlmSourceRole::ConcurrentTargets(uint16_t target, uint64_t bytes, Time from)
{
    const Time now = Simulator::Now();
    std::set<uint16_t> concurrent = m_gatheredTargets;
    concurrent.insert(target);
    for (const auto& [id, peer] : m_bs->GetPeers())
    {
        // Control messages share no KV flow's link; a backlog that clears before the
        // transfer starts shares nothing either.
        if (peer.connection->HasKvBacklog() &&
            (from <= now ||
             peer.BacklogClearsAt(peer.PlanningBitRate(m_bs->PathPlanning())) > from.GetSeconds()))
        {
            concurrent.insert(id);
        }
    }
    auto aloneFor = [this](uint16_t cell, uint64_t b) {
        return Seconds(8.0 * static_cast<double>(b) /
                       m_bs->GetPeer(cell).PlanningBitRate(m_bs->PathPlanning()));
    };
    const Time end = from + aloneFor(target, bytes);
    for (const HandoverBatcher::Expected& e : GetBatcher().GetAnnounced())
    {
        const Time start = std::max(e.when, now);
        if (start >= end || !m_bs->HasPeer(e.target))
        {
            continue;
        }
        const uint64_t context = m_node->PredictContextAt(e.sessionId, e.when);
        if (start + aloneFor(e.target, context * m_bs->GetProfile().BytesPerToken()) > from)
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
        NS_ABORT_MSG_IF(!m_node->GetScheduler(),
                        "ns3::EdgeLlmNode::Scheduler is not set (cell " << m_node->GetCellId()
                                                                        << ")");
        m_batcher = std::make_unique<HandoverBatcher>(m_node->GetScheduler());
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
        m_bs->GetPeer(target).Control()->SendMessage(KvFrameHeader::BATCH_CLOSE, close, 0);
    }
    // The plan at the batch's L on the actual times and contexts.
    for (const auto& ue : plan.ues)
    {
        m_plannedTrace(ue.ueId, ue.prefillTokens, ue.transferTokens, Seconds(ue.delay));
    }
}

void
EdgeLlmSourceRole::BeginHandover(uint64_t sessionId, uint16_t targetCellId, Time handoverTime)
{
    EdgeLlmSession* sit = m_bs->FindSession(sessionId);
    if (!sit && m_bs->NotePrompted(sessionId))
    {
        // The UE leaves before its prompt came: a late copy must not open a session here
        // for a UE that is gone.
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": session " << sessionId
                            << " handed over before its prompt arrived");
        m_noSessionTrace(sessionId, targetCellId, 0);
        Withdraw(sessionId);
        return;
    }
    if (!sit || sit->GetState() == EdgeLlmNode::HANDED_OVER ||
        sit->GetState() == EdgeLlmNode::RESTORING || sit->GetState() == EdgeLlmNode::CANCELLED ||
        sit->GetState() == EdgeLlmNode::REDIRECTING || sit->GetState() == EdgeLlmNode::LOST ||
        sit->GetState() == EdgeLlmNode::REFUSED)
    {
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": handover of session " << sessionId
                            << " with no servable LLM session here; nothing to move");
        return;
    }
    Session& s = *sit;
    if (s.GetState() == EdgeLlmNode::FINISHED && s.ueAddress != Ipv4Address() &&
        s.generated >= s.maxNewTokens)
    {
        // The UE's stream is complete: its KV cache serves nothing at the target.
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": session " << sessionId
                            << " decoded all its " << s.maxNewTokens
                            << " tokens before the handover; nothing to restore");
        m_afterDecodingTrace(sessionId, targetCellId, s.generated);
        Withdraw(sessionId); // no announced batch may wait for it
        return;
    }
    m_node->StopDecoding(s);
    if (!m_bs->HasPeer(targetCellId))
    {
        // No backhaul link to the UE's new cell: the session cannot follow the UE.
        m_bs->LoseSession(s, targetCellId, EdgeLlmNode::NO_BACKHAUL_PATH);
        return;
    }
    s.SwitchToState(EdgeLlmNode::HANDED_OVER);
    s.targetCellId = targetCellId;
    const uint64_t context = s.promptTokens + s.generated;
    m_handoverStartedTrace(sessionId, targetCellId, context);
    // What a pre-transfer already put at the target: the plan is of the rest.
    const uint64_t ahead = m_bs->PreTransfer().OnHandover(s, targetCellId);
    s.preSentTokens = ahead / m_bs->GetProfile().BytesPerToken();
    if (m_node->GetScheduler()->AllocatesSlots())
    {
        StartSlotTransfer(sessionId, targetCellId, context, ahead);
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
            Simulator::Schedule(m_gatherTime, &EdgeLlmSourceRole::ProcessPendingHandovers, this);
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
        m_bs->GetPeer(r.target).Control()->SendMessage(KvFrameHeader::BATCH_CLOSE, close, 0);
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
    const Time at = std::max(Simulator::Now(), when - m_node->GetScheduler()->GetPlanLead());
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
    EdgeLlmPeer* peer = m_bs->FindPeer(target);
    if (!peer)
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
    const Peer& p = *peer;
    // The share of the path this batch's flow will get from its first handover: the
    // targets whose transfers overlap it split the links they share with it.
    uint64_t bytes = 0;
    for (const KvPlanRequestHeader::Member& m : req.members)
    {
        bytes += uint64_t{m.contextTokens} * m_bs->GetProfile().BytesPerToken();
    }
    const double planned =
        m_bs->ShareOfPath(target, ConcurrentTargets(target, bytes, first)).wireBitRate *
        p.PayloadShare(m_bs->PathPlanning());
    req.requestId = m_nextPlanRequest++;
    req.replyByNs = (first - m_node->GetScheduler()->GetPlanLead() / 2).GetNanoSeconds();
    req.planningBitRate = static_cast<uint64_t>(std::llround(planned));
    req.backhaulFreeAtNs = Seconds(p.BacklogClearsAt(planned)).GetNanoSeconds();
    req.bytesPerToken = static_cast<uint32_t>(m_bs->GetProfile().BytesPerToken());
    // The path's signalling as this source will plan with it (ctHO at packet level).
    const CtHoSignalling sig =
        m_bs->Backhaul().Signalling(p, p.LoneFlowBitRate(m_bs->PathPlanning()));
    req.pathDelay = sig.pathDelay;
    req.requestTime = sig.requestTime;
    req.idTimePerToken = sig.idTimePerToken;
    req.closeAhead = sig.closeAhead;
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": PLAN_REQUEST " << req.requestId << " to cell "
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
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": PLAN " << plan.requestId << " from cell "
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
    Session& s = m_bs->GetSession(sessionId);
    const Time now = handoverTime; // tau: the plan and the target count from it
    Peer& peer = m_bs->GetPeer(targetCellId);
    // The target holds the first preSentTokens already (a pre-transfer): plan the rest.
    const uint64_t rest = context - std::min(context, s.preSentTokens);
    // Targets whose paths share a link with this one and whose transfers overlap it
    // split that link (KvFlowBitRate: equally on a FIFO, max-min fair with the cross
    // traffic on a fair queue; the lone rate on dedicated links).
    const std::set<uint16_t> concurrent =
        ConcurrentTargets(targetCellId,
                          rest * m_bs->GetProfile().BytesPerToken(),
                          Simulator::Now());
    const EdgeLlmBsState::PathShare share = m_bs->ShareOfPath(targetCellId, concurrent);
    const double bitRate = share.wireBitRate;
    if (peer.datagram && m_planningCross == EdgeLlmNode::MEASURED)
    {
        // Pace at the lone flow's share of the cross traffic measured now.
        EdgeLlmBackhaulTransport::SetPacing(peer.datagram,
                                            peer.LoneFlowBitRate(m_bs->PathPlanning()));
    }
    double planned = bitRate * peer.PayloadShare(m_bs->PathPlanning());
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
        wireRate = planned / peer.PayloadShare(m_bs->PathPlanning());
    }
    HandoverBatcher::PlanInputs inputs;
    inputs.backhaulTokensPerSecond =
        planned / static_cast<double>(m_bs->GetProfile().BitsPerToken());
    inputs.prefill = m_node->GetPrefillEngine()->GetModel();
    inputs.prefillPerMember = m_node->GetServingGpu() != nullptr;
    inputs.batchPeriod = m_node->GetPrefillEngine()->GetBatchPeriod().GetSeconds();
    inputs.backhaulFreeAt = peer.BacklogClearsAt(planned);
    inputs.signalling = m_bs->Backhaul().Signalling(peer, wireRate);
    Ptr<KvTransferConnection> connection = peer.Control();
    inputs.closeAheadNow = [connection, wireRate]() {
        return 8.0 * static_cast<double>(connection->GetBytesAheadOfControl()) / wireRate;
    };
    m_backhaulPlannedTrace(targetCellId, planned, share.sharers);
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
        m_plannedTrace(sessionId,
                       0,
                       0,
                       Seconds(requestAt - now.GetSeconds() + inputs.signalling.requestTime +
                               inputs.signalling.pathDelay));
    }
    else
    {
        d = GetBatcher()
                .Start(sessionId, targetCellId, rest, now, inputs, [this](uint64_t id, Time when) {
                    return m_node->PredictContextAt(id, when);
                });
    }

    KvTransferRequestHeader req = MakeRequest(s, context, now, d);
    if (d.coordinated)
    {
        req.flags |= KvTransferRequestHeader::COORDINATED;
        ResolvePlanMember(sessionId, true);
    }
    else
    {
        ResolvePlanMember(sessionId, false); // planned alone (or elsewhere): not in the group
    }
    LeaveUnusedPlan(targetCellId);
    SendTransferRequest(
        peer,
        req,
        static_cast<uint32_t>(d.prefillTokens * KvTransferRequestHeader::TOKEN_ID_BYTES));
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = d.deadline;
    job.remainingBytes = d.transferTokens * m_bs->GetProfile().BytesPerToken();
    peer.connection->AddTransfer(job);
    m_bs->PreTransfer().OnHandoverTransfer(); // pre-transfers on shared links pause
}

KvTransferRequestHeader
EdgeLlmSourceRole::MakeRequest(const Session& s,
                               uint64_t context,
                               Time now,
                               const HandoverBatcher::Decision& d) const
{
    KvTransferRequestHeader req;
    req.sessionId = s.id;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_node->GetCellId();
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.prefillLength = static_cast<uint32_t>(d.prefillLength);
    req.prefillTokens = static_cast<uint32_t>(d.prefillTokens);
    req.transferTokens = static_cast<uint32_t>(d.transferTokens);
    req.batchId = d.batchId;
    req.batchSize = d.batchSize;
    req.bytesPerToken = static_cast<uint32_t>(m_bs->GetProfile().BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    req.kvDeadlineNs = d.deadline.GetNanoSeconds(); // tau + g(L): the plan's KV bound
    if (m_layerwise)
    {
        req.flags |= KvTransferRequestHeader::LAYER_MAJOR;
    }
    SetConversation(s, req);
    return req;
}

void
EdgeLlmSourceRole::SetConversation(const Session& s, KvTransferRequestHeader& req)
{
    if (s.moreTurns && s.conversation != 0)
    {
        req.flags |= KvTransferRequestHeader::MORE_TURNS; // the target keeps its cache
        req.conversation = s.conversation;
    }
}

void
EdgeLlmSourceRole::LeaveUnusedPlan(uint16_t targetCellId)
{
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
}

void
EdgeLlmSourceRole::SendTransferRequest(const EdgeLlmPeer& peer,
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
    Ptr<HandoverScheduler> scheduler = m_node->GetScheduler();
    const Time now = Simulator::Now();
    Session& s = m_bs->GetSession(sessionId);
    Peer& peer = m_bs->GetPeer(targetCellId);
    KvTransferRequestHeader req;
    req.sessionId = sessionId;
    req.ueAddress = s.ueAddress.Get();
    req.uePort = s.uePort;
    req.sourceCellId = m_node->GetCellId();
    req.handoverTimeNs = now.GetNanoSeconds();
    req.contextTokens = static_cast<uint32_t>(context);
    req.transferTokens = static_cast<uint32_t>(context);
    req.bytesPerToken = static_cast<uint32_t>(m_bs->GetProfile().BytesPerToken());
    req.tokensGenerated = s.generated;
    req.maxNewTokens = s.maxNewTokens;
    req.flags = KvTransferRequestHeader::IMPORTANCE_ORDERED;
    SetConversation(s, req);
    SendTransferRequest(peer, req, 0);
    const uint64_t cacheBytes = context * m_bs->GetProfile().BytesPerToken();
    // The first entries of the importance order went ahead (a pre-transfer): the rest.
    aheadBytes = std::min(aheadBytes, cacheBytes);
    KvTransferJob job;
    job.sessionId = sessionId;
    job.handoverTime = now;
    job.deadline = now + scheduler->GetTransferWindow();
    job.remainingBytes = cacheBytes - aheadBytes;
    job.slotBudget = 0; // it waits for the next slot
    job.entryBytes = static_cast<uint32_t>(m_bs->GetProfile().BytesPerEntry());
    peer.connection->AddTransfer(job); // nothing left: its TRANSFER_COMPLETE at once
    if (job.remainingBytes == 0)
    {
        return;
    }
    m_bs->PreTransfer().OnHandoverTransfer(); // pre-transfers on shared links pause
    if (aheadBytes > 0)
    {
        scheduler->SetBytesSentAhead(sessionId, aheadBytes);
    }

    scheduler->AddSlotTransfer(sessionId,
                               targetCellId,
                               now,
                               cacheBytes,
                               AccuracyUtility::Preset(context,
                                                       m_importanceOrder,
                                                       m_kvAccuracyLoss,
                                                       m_utilityCalibration));
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
    Ptr<HandoverScheduler> scheduler = m_node->GetScheduler();
    const Time dt = scheduler->GetSlotLength();
    auto sent = [this](uint16_t target, uint64_t sessionId) {
        return m_bs->GetPeer(target).connection->GetBytesQueued(sessionId);
    };
    auto budget = [this, dt](uint16_t target, const std::set<uint16_t>& activeTargets) {
        // Targets active in this slot whose paths share a link split it (KvFlowBitRate).
        const EdgeLlmBsState::PathShare share = m_bs->ShareOfPath(target, activeTargets);
        const double bits = share.wireBitRate *
                            m_bs->GetPeer(target).PayloadShare(m_bs->PathPlanning()) *
                            dt.GetSeconds();
        m_slotBudgetTrace(target, share.sharers, bits / 8);
        return bits;
    };
    for (const auto& share : scheduler->ShareSlot(Simulator::Now(), sent, budget))
    {
        m_slotTrace(share.target, share.users, share.fallback);
        Peer& peer = m_bs->GetPeer(share.target);
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
    const uint16_t target = m_node->GetScheduler()->RemoveSlotTransfer(sessionId);
    if (target == 0)
    {
        return; // already complete
    }
    m_bs->GetPeer(target).connection->Truncate(sessionId);
}

void
EdgeLlmSourceRole::OnTransferSent(uint64_t sessionId)
{
    m_node->GetScheduler()->RemoveSlotTransfer(sessionId);
}

void
EdgeLlmSourceRole::OnTransferResponse(uint16_t peerCellId, const KvTransferResponseHeader& response)
{
    if (response.result == KvTransferResponseHeader::ACCEPTED)
    {
        return;
    }
    // Source: the target cannot use this cache. Stop sending it; the session ends here.
    EdgeLlmSession* it = m_bs->FindSession(response.sessionId);
    if (!it || it->GetState() != EdgeLlmNode::HANDED_OVER || it->targetCellId != peerCellId)
    {
        return;
    }
    NS_LOG_ERROR("cell " << m_node->GetCellId() << ": cell " << peerCellId << " refused session "
                         << response.sessionId << " (result " << +response.result
                         << "): its model has " << response.bytesPerToken
                         << " KV bytes/token, this BS's " << m_bs->GetProfile().BytesPerToken());
    const uint64_t sent = m_bs->GetPeer(peerCellId).connection->Cancel(response.sessionId);
    m_node->GetScheduler()->RemoveSlotTransfer(response.sessionId);
    it->SwitchToState(EdgeLlmNode::REFUSED);
    m_bs->TraceRefused(response.sessionId, peerCellId, sent);
    // No other BS holds the session now: it ends here, lost, counted once (the target
    // only traces TransferRefused).
    m_bs->TraceLost(response.sessionId, peerCellId, EdgeLlmNode::KV_FORMAT_REFUSED);
}

void
EdgeLlmSourceRole::OnTransferStatus(uint16_t peerCellId, const KvTransferStatusHeader& status)
{
    EdgeLlmSession* it = m_bs->FindSession(status.sessionId);
    if (!it || it->GetState() != EdgeLlmNode::HANDED_OVER || it->targetCellId != peerCellId)
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
        m_node->GetScheduler()->RemoveSlotTransfer(status.sessionId);
        m_bs->EraseSession(status.sessionId);
        m_releasedTrace(status.sessionId, peerCellId, status.receivedBytes);
    }
    else if (status.state == KvTransferStatusHeader::LOST)
    {
        // The target gave the session up (and traced it): stop sending, forget it.
        m_bs->GetPeer(peerCellId).connection->Cancel(status.sessionId);
        m_node->GetScheduler()->RemoveSlotTransfer(status.sessionId);
        m_bs->EraseSession(status.sessionId);
    }
}

} // namespace ns3
