/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SOURCE_ROLE_H
#define EDGE_LLM_SOURCE_ROLE_H

#include "edge-llm-bs-state.h"
#include "edge-llm-node.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The source side of an edge-LLM handover at one BS (EdgeLlmNode owns one, as
 *        LteEnbRrc owns its UeManagers): it moves a session's context to the target.
 *
 * Paper steps, in order: the handover starts (BeginHandover; ctHO Sec. III: decoding
 * stops at tau_i); the session joins a batch to its target and the batch is planned once
 * (HandoverBatcher and the Scheduler: ctHO's prefill length L with Prop. 2's transfer
 * delay D_tx*(L) and its earliest-deadline order; online bursts gathered for GatherTime);
 * the TRANSFER_REQUEST carries the n_pf forwarded tokens and the n_tx tokens' KV bytes
 * are queued on the backhaul (StartTransfer). ImpactHO instead sends the whole cache in
 * importance order with per-slot shares (StartSlotTransfer, OnSlot: ImpactHO
 * Theorem 1, Eq. (9), Algorithm 1; utility Eq. (6)) and truncates at the window's end.
 * The target's answers end the transfer here: refused (OnTransferResponse), restored or
 * lost (OnTransferStatus), stopped after a timeout (OnTransferStop), redirected to the
 * UE's next cell (OnTransferRedirect), or cancelled when the handover fails
 * (OnTransferCancel, OnHandoverFailure), after which this BS serves the session again.
 *
 * Its attributes are what the source plans with (PlanningRate, PlanningFairQueue,
 * PlanningCrossTraffic), how it gathers and sends (GatherTime, LayerwiseStreaming) and
 * ImpactHO's accuracy utility (ImportanceOrder, KvAccuracyLoss, UtilityCalibration): set
 * them with EdgeLlmHelper::SetSourceRoleAttribute, Config::SetDefault
 * ("ns3::EdgeLlmSourceRole::...") or the path ".../$ns3::EdgeLlmNode/SourceRole/...". Its
 * trace sources are the handover's events at the source (HandoverStarted,
 * HandoverAfterDecoding, HandoverWithoutSession, HandoverPlanned, BackhaulPlanned,
 * ImpactHoSlot, ImpactHoSlotBudget, TransferStatus, HandoverFailed, SessionReleased). The
 * sessions and peers stay the node's.
 */
class EdgeLlmSourceRole : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Create the source role of \p node.
     * \param node the BS (owns this role and outlives it)
     */
    EdgeLlmSourceRole(EdgeLlmNode* node, EdgeLlmBsState* state);

    /**
     * \brief This role's attributes against the node's (KvAccuracyLoss must be 0 at
     *        KvBits 16), as EdgeLlmNode::CheckConfiguration asks them.
     * \return empty, or the error naming the attribute and its valid range
     */
    std::string CheckConfiguration() const;

    /// \return how the peers' paths are planned (PlanningRate, PlanningFairQueue,
    ///         PlanningCrossTraffic, with the node's Transport and BackhaulSegmentSize)
    EdgeLlmPathPlanning PathPlanning() const;

    /// \return the PlanningCrossTraffic attribute
    EdgeLlmNode::PlanningCrossTraffic GetPlanningCrossTraffic() const;

    /**
     * \return the batcher of announced and online handovers (ctHO batching), created on
     *         first use; aborts if the node's Scheduler is not set
     */
    HandoverBatcher& GetBatcher();

    /**
     * \brief Where online batches get predicted arrivals (EdgeLlmNode::SetArrivalPredictor).
     * \param predictor the predictor
     */
    void SetArrivalPredictor(HandoverBatcher::ArrivalPredictor predictor);

    /**
     * \brief Hand session \p sessionId over to \p targetCellId (ctHO Sec. III: decoding
     *        stops at tau_i = \p handoverTime and the context moves). A session not
     *        servable here is ignored; without a backhaul link to the target it is lost.
     * \param sessionId the session
     * \param targetCellId the target BS
     * \param handoverTime tau_i, the time the plan and the target count from
     */
    void BeginHandover(uint64_t sessionId, uint16_t targetCellId, Time handoverTime);

    /**
     * \brief The UE's handover failed (EdgeLlmNode::NotifyHandoverFailure, source side):
     *        handed over, TRANSFER_CANCEL to the target and decoding resumes here; announced
     *        but not started, the batch goes on without it (HandoverBatcher::Withdraw).
     * \param s the session
     */
    void OnHandoverFailure(EdgeLlmSession& s);

    /**
     * \brief TRANSFER_CANCEL from the target (the UE came back, or its handover failed):
     *        stop sending and serve the session again from this BS's cache.
     * \param peerCellId the target
     * \param cancel the message
     */
    void OnTransferCancel(uint16_t peerCellId, const KvTransferCompleteHeader& cancel);

    /**
     * \brief TRANSFER_REDIRECT from the target (the UE moved on to a third cell): hand the
     *        session over there from here, or answer TRANSFER_REDIRECT_REFUSED without a
     *        link to that cell (the target then relays it).
     * \param peerCellId the target
     * \param redirect the message
     */
    void OnTransferRedirect(uint16_t peerCellId, const KvRedirectHeader& redirect);

    /**
     * \brief TRANSFER_STOP from the target (its TransferTimeout expired; it re-prefills
     *        what is missing): stop sending the session's KV bytes.
     * \param peerCellId the target
     * \param stop the message
     */
    void OnTransferStop(uint16_t peerCellId, const KvTransferCompleteHeader& stop);

    /**
     * \brief TRANSFER_RESPONSE from the target: refused (another KV format), the transfer
     *        stops and the session is lost here (SessionLost, KV_FORMAT_REFUSED).
     * \param peerCellId the target
     * \param response the message
     */
    void OnTransferResponse(uint16_t peerCellId, const KvTransferResponseHeader& response);

    /**
     * \brief TRANSFER_STATUS from the target: PROGRESS traced, RESTORED releases this BS's
     *        copy (SessionReleased), LOST forgets it.
     * \param peerCellId the target
     * \param status the message
     */
    void OnTransferStatus(uint16_t peerCellId, const KvTransferStatusHeader& status);

    /**
     * \brief The backhaul sent a session's last KV byte (KvTransferConnection callback):
     *        its ImpactHO transfer leaves the slot allocation.
     * \param sessionId the session
     */
    void OnTransferSent(uint64_t sessionId);

    /**
     * \brief Target-coordinated ctHO (Scheduler's PlanLead > 0): a handover to
     *        \p target was announced for \p when; the batch's PLAN_REQUEST goes PlanLead
     *        before its first announced handover (AnnounceBatch).
     * \param target the target cell
     * \param when the announced handover time
     */
    void ScheduleAnnouncement(uint16_t target, Time when);

    /**
     * \brief The target's coordinated plan for one of this source's PLAN_REQUESTs: the
     *        batch formed at the members' first handover follows it (StartTransfer).
     * \param peerCellId the target
     * \param plan the PLAN
     */
    void OnPlan(uint16_t peerCellId, const KvPlanHeader& plan);

  private:
    /// Process the online handovers gathered for GatherTime as one plan per target.
    void ProcessPendingHandovers();

    /**
     * \brief Send \p target the announced handovers to it not yet requested or in a batch
     *        (PLAN_REQUEST: times, contexts predicted at them, this path's planning rate).
     * \param target the target cell
     */
    void AnnounceBatch(uint16_t target);

    /**
     * \brief Take \p sessionId out of its batch (its handover will not happen) and out of
     *        its coordinated plan (ResolvePlanMember).
     * \param sessionId the session
     * \return its announced or batch target (0: none)
     */
    uint16_t Withdraw(uint64_t sessionId);

    /**
     * \brief \p sessionId's part in its PLAN_REQUEST is settled: its request joined the
     *        coordinated batch (\p joined: it stays counted), or it will not join
     *        (withdrawn, planned alone, or handed over to another target): the target is
     *        then told how many of that request's members it still counts (BATCH_CLOSE,
     *        batchId = the request id with KvPlanHeader::GROUP_BIT set). No-op for a
     *        session in no request.
     * \param sessionId the session
     * \param joined true if its request joined the coordinated batch
     */
    void ResolvePlanMember(uint64_t sessionId, bool joined);

    /**
     * \brief Plan the session in its batch (ctHO: L, n_pf, n_tx, deadline tau_i + g(L) at
     *        the rate of the path, split among targets sharing its busiest link), send its
     *        TRANSFER_REQUEST and queue its n_tx tokens' KV bytes.
     * \param sessionId the session
     * \param targetCellId the target
     * \param context its context at the handover, tokens
     * \param handoverTime tau_i
     */
    void StartTransfer(uint64_t sessionId,
                       uint16_t targetCellId,
                       uint64_t context,
                       Time handoverTime);

    /**
     * \brief A batch has every member handed over: BATCH_CLOSE to the target (online
     *        batches) and HandoverPlanned with each UE's delay at the batch's L (ctHO Eq. 2).
     * \param batchId the batch
     * \param target the target
     * \param size members
     * \param online true for an online (unannounced) batch
     * \param plan the plan on the actual times and contexts
     */
    void OnBatchComplete(uint32_t batchId,
                         uint16_t target,
                         uint16_t size,
                         bool online,
                         const CtHoPlan& plan);

    /**
     * \brief A slot policy (ImpactHO): send the whole cache in importance order, limited
     *        per slot, within the transfer window (ImpactHO Sec. III, utility Eq. (6));
     *        the policy keeps the transfer's state (HandoverScheduler::AddSlotTransfer).
     *        A pre-transfer's committed bytes are the first of the importance order: the
     *        rest is sent, the policy counts them as sent (PreTransferScheduler::
     *        SetBytesSentAhead); nothing left: the request and TRANSFER_COMPLETE alone.
     * \param sessionId the session
     * \param targetCellId the target
     * \param context the context, tokens
     * \param aheadBytes KV bytes its pre-transfer committed to this target (0: none)
     */
    void StartSlotTransfer(uint64_t sessionId,
                           uint16_t targetCellId,
                           uint64_t context,
                           uint64_t aheadBytes);

    /**
     * \brief Send \p req to \p peer: on its control connection with \p tokenIdBytes of
     *        forwarded token ids, and with ControlChannel=Separate also (without them)
     *        into its KV connection, ahead of the session's KV bytes.
     */
    static void SendTransferRequest(const EdgeLlmPeer& peer,
                                    const KvTransferRequestHeader& req,
                                    uint32_t tokenIdBytes);

    /// A slot: the policy shares each target's slot budget among its active users
    /// (HandoverScheduler::ShareSlot; ImpactHO: water-filling, Theorem 1, Eq. (9),
    /// Algorithm 1); each user's transport may send its grant.
    void OnSlot();

    /**
     * \brief A slot transfer's window ended; send TRANSFER_TRUNCATE.
     * \param sessionId the session
     */
    void TruncateSlotTransfer(uint64_t sessionId);

    /**
     * \return the targets whose transfers overlap one to \p target of \p bytes starting
     *         at \p from: \p target, those with KV bytes queued still then, those planned
     *         in the same gathering, and those announced whose transfer (alone, of the
     *         context predicted at its handover, from its handover or now if later)
     *         overlaps [from, from + this one's time alone)
     * \param target the target
     * \param bytes the transfer's bytes
     * \param from when it starts (a PLAN_REQUEST asks ahead of its batch's first handover)
     */
    std::set<uint16_t> ConcurrentTargets(uint16_t target, uint64_t bytes, Time from);

    using Session = EdgeLlmSession; //!< A session at the node
    using Peer = EdgeLlmPeer;       //!< A backhaul peer of the node

    /// Flag \p req MORE_TURNS with \p s's conversation if it has turns after it
    static void SetConversation(const Session& s, KvTransferRequestHeader& req);
    /**
     * \brief The TRANSFER_REQUEST of a handover as planned (StartTransfer).
     * \param s the session
     * \param context its context at the handover, tokens
     * \param now the handover time tau
     * \param d the batch's decision for it (split, batch, deadline)
     * \return the request, without the COORDINATED flag (set by the caller)
     */
    KvTransferRequestHeader MakeRequest(const Session& s,
                                        uint64_t context,
                                        Time now,
                                        const HandoverBatcher::Decision& d) const;
    /**
     * \brief Members of a coordinated plan to \p targetCellId that a batch planned alone
     *        took leave the plan (it is not used for them); an emptied plan is dropped.
     * \param targetCellId the target
     */
    void LeaveUnusedPlan(uint16_t targetCellId);

    EdgeLlmNode* m_node; //!< The BS (owner)

    EdgeLlmBsState* m_bs; //!< What the BS's parts share (owned by the BS)
    TracedCallback<uint64_t, uint16_t, uint64_t> m_afterDecodingTrace;   //!< HandoverAfterDecoding
    TracedCallback<uint64_t, uint16_t, uint64_t> m_noSessionTrace;       //!< HandoverWithoutSession
    TracedCallback<uint64_t, uint16_t, uint64_t> m_handoverStartedTrace; //!< HandoverStarted
    TracedCallback<uint64_t, uint64_t, uint64_t, Time> m_plannedTrace;   //!< HandoverPlanned
    TracedCallback<uint16_t, double, uint32_t> m_backhaulPlannedTrace;   //!< BackhaulPlanned
    TracedCallback<uint16_t, uint32_t, bool> m_slotTrace;                //!< ImpactHoSlot
    TracedCallback<uint16_t, uint32_t, double> m_slotBudgetTrace;        //!< ImpactHoSlotBudget
    TracedCallback<uint64_t, uint16_t, uint64_t> m_failedTrace;          //!< HandoverFailed
    TracedCallback<uint64_t, uint16_t, uint64_t> m_statusTrace;          //!< TransferStatus
    TracedCallback<uint64_t, uint16_t, uint64_t> m_releasedTrace;        //!< SessionReleased
    EdgeLlmNode::PlanningRate m_planningRate{EdgeLlmNode::PAYLOAD};      //!< PlanningRate
    bool m_planningFairQueue{true};                                      //!< PlanningFairQueue
    /// PlanningCrossTraffic
    EdgeLlmNode::PlanningCrossTraffic m_planningCross{EdgeLlmNode::INSTALLED};
    bool m_layerwise{false};      //!< LayerwiseStreaming
    Time m_gatherTime;            //!< GatherTime: online burst gathering window
    bool m_importanceOrder{true}; //!< ImportanceOrder: utility preset choice
    double m_kvAccuracyLoss{0};   //!< KvAccuracyLoss: share of M lost at KvBits < 16
    /// UtilityCalibration: the presets' fit
    AccuracyUtility::Calibration m_utilityCalibration{AccuracyUtility::HEADLINE};
    HandoverBatcher::ArrivalPredictor m_predictor; //!< Online arrivals
    /// Online handovers gathered for one plan: (session, tau, context)
    std::vector<CtHoUe> m_pending;
    std::vector<uint16_t> m_pendingTarget; //!< Target of each m_pending entry
    EventId m_pendingEvent; //!< Processes m_pending once this instant's triggers are in
    std::unique_ptr<HandoverBatcher> m_batcher; //!< Source-side batching (ctHO)
    std::set<uint16_t> m_gatheredTargets;       //!< Targets of one gathering's batches
    EventId m_slotEvent;                        //!< Next slot of a slot policy
    /// Target-coordinated: the next PLAN_REQUEST to each target
    std::map<uint16_t, EventId> m_announceEvents;

    /// A PLAN_REQUEST sent, while some of its members have neither joined nor left
    struct PlanRequest
    {
        uint16_t target{0};         //!< Its target
        std::set<uint64_t> pending; //!< Members not yet handed over nor withdrawn
        uint32_t joined{0};         //!< Members whose request joined the target's batch
    };

    /// Target-coordinated: the PLAN_REQUESTs with members pending, by request id
    std::map<uint32_t, PlanRequest> m_planRequests;
    std::map<uint64_t, uint32_t> m_requestOf; //!< Pending member -> its request id
    uint32_t m_nextPlanRequest{1};            //!< Next PLAN_REQUEST id
    /// Target-coordinated: each target's PLAN not yet used by a batch
    std::map<uint16_t, HandoverBatcher::Coordination> m_coordination;
};

} // namespace ns3

#endif /* EDGE_LLM_SOURCE_ROLE_H */
