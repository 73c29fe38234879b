/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_TARGET_ROLE_H
#define EDGE_LLM_TARGET_ROLE_H

#include "edge-llm-bs-state.h"
#include "edge-llm-node.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The target side of an edge-LLM handover at one BS (EdgeLlmNode owns one, as
 *        LteEnbRrc owns its UeManagers): it rebuilds a session's context and resumes it.
 *
 * Paper steps, in order: the TRANSFER_REQUEST opens the restore (OnTransferRequest:
 * accepted, or refused for another KV format); the first n_pf tokens are prefilled in the
 * batch's prefill of length L on the GPU (ctHO Sec. III: prefill and transfer run in
 * parallel, Prop. 2 balances them); the KV bytes of the n_tx tokens are counted as they
 * arrive (OnKvBytes; layer by layer with LayerwiseStreaming); after TransferTimeout the
 * missing tokens are re-prefilled (OnTransferTimeout); decoding resumes once both are
 * done (MaybeResume: the handover delay D_i of ctHO Eq. 2); an ImpactHO session resumes
 * on the prefix that arrived within its window (OnTransferComplete). PROGRESS and
 * RESTORED statuses go back to the source. When the UE moves on mid-restore
 * (OnUeMovesOn) the source is asked to redirect; if it cannot, this BS finishes the
 * restore and relays the session (OnRedirectRefused, RelaySession).
 *
 * Its attributes are the restore's timers (TransferTimeout, WindowGrace, the loss-aware
 * replanning knobs, StatusInterval): set them with EdgeLlmHelper::SetTargetRoleAttribute,
 * Config::SetDefault("ns3::EdgeLlmTargetRole::...") or the path
 * ".../$ns3::EdgeLlmNode/TargetRole/...". Its trace sources are the restore's events
 * (TransferRequestReceived, KvTransferReceived, KvLayerReceived, PartialRestored,
 * TransferTimedOut, TransferWindowClosed, TransferReplanned, CoordinatedBatchPlanned,
 * SessionRestored). The sessions and peers stay the node's.
 */
class EdgeLlmTargetRole : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Create the target role of \p node.
     * \param node the BS (owns this role and outlives it)
     */
    EdgeLlmTargetRole(EdgeLlmNode* node, EdgeLlmBsState* state);

    /**
     * \brief This role's attributes against each other (StatusInterval's gap between 0
     *        and 1 ms), as EdgeLlmNode::CheckConfiguration asks them.
     * \return empty, or the error naming the attribute and its valid range
     */
    std::string CheckConfiguration() const;

    /**
     * \brief TRANSFER_REQUEST from a source: answer it (TRANSFER_RESPONSE) and, accepted,
     *        start the restore: join the batch prefill of n_pf tokens, arm the
     *        StatusInterval and TransferTimeout timers. With ControlChannel=Separate a
     *        request comes twice (on the control channel, and ahead of its KV bytes in the
     *        KV stream): the first copy acts, the second is dropped.
     * \param peerCellId the source
     * \param req the request
     * \param controlCopy the copy came on the separate control channel
     */
    void OnTransferRequest(uint16_t peerCellId,
                           const KvTransferRequestHeader& req,
                           bool controlCopy);

    /**
     * \brief KV bytes of a session arrived (KvTransferConnection callback): count them,
     *        complete layers (layer-major), and resume when the cache is in place.
     * \param sessionId the session
     * \param bytes payload bytes
     */
    void OnKvBytes(uint64_t sessionId, uint64_t bytes);

    /**
     * \brief TRANSFER_COMPLETE or TRANSFER_TRUNCATE from the source: an ImpactHO session
     *        resumes on the prefix it has (PartialRestored, ImpactHO's anytime inference);
     *        otherwise the byte count is checked.
     * \param done the message
     */
    void OnTransferComplete(const KvTransferCompleteHeader& done);

    /**
     * \brief TRANSFER_CANCEL from the source while restoring (its UE's handover failed):
     *        drop the restore.
     * \param peerCellId the source
     * \param cancel the message
     * \return true if the session was restoring or redirecting here (handled), false if
     *         the source role should handle the message
     */
    bool OnTransferCancel(uint16_t peerCellId, const KvTransferCompleteHeader& cancel);

    /**
     * \brief BATCH_CLOSE from the source: the online batch has all its members, its
     *        prefill may start.
     * \param peerCellId the source
     * \param close the message
     */
    void OnBatchClose(uint16_t peerCellId, const KvBatchCloseHeader& close);

    /**
     * \brief PLAN_REQUEST (target-coordinated ctHO): a source's announced handovers join
     *        the open coordination group, which is planned (CloseGroup) at the earliest
     *        reply-by time of its requests.
     * \param peerCellId the source
     * \param request the message
     */
    void OnPlanRequest(uint16_t peerCellId, const KvPlanRequestHeader& request);

    /**
     * \brief The UE of a session restoring here hands over again: back to the source
     *        (ping-pong: TRANSFER_CANCEL) or on to a third cell (TRANSFER_REDIRECT).
     * \param sessionId the session
     * \param targetCellId the UE's new cell
     * \return true if the session was restoring here (handled), false if this BS is the
     *         source of the handover
     */
    bool OnUeMovesOn(uint64_t sessionId, uint16_t targetCellId);

    /**
     * \brief The UE's handover failed while restoring here (EdgeLlmNode::
     *        NotifyHandoverFailure, target side): TRANSFER_CANCEL to the source.
     * \param s the session
     * \return true if handled here, false if the source role should handle it
     */
    bool OnHandoverFailure(EdgeLlmSession& s);

    /**
     * \brief TRANSFER_REDIRECT_REFUSED from the source (no link to the UE's new cell):
     *        finish the restore here and relay the session, or lose it if this BS has no
     *        link either.
     * \param peerCellId the source
     * \param redirect the message
     */
    void OnRedirectRefused(uint16_t peerCellId, const KvRedirectHeader& redirect);

    /**
     * \brief Send TRANSFER_STATUS for a session to its source (none if the source is no
     *        peer).
     * \param sessionId the session
     * \param state KvTransferStatusHeader state (PROGRESS, RESTORED, LOST)
     */
    void SendStatus(uint64_t sessionId, uint8_t state);

    /**
     * \brief The last committed byte of \p sessionId's pre-transfer arrived
     *        (EdgeLlmPreTransferRole): resume it if its prefill and KV bytes are in too.
     * \param sessionId the session (ignored if not restoring here)
     */
    void ResumeIfRestored(uint64_t sessionId);

  private:
    using Session = EdgeLlmSession; //!< A session at the node

    /**
     * \brief With ControlChannel=Separate every request comes twice (control channel and
     *        KV stream): whether this copy is the first, which acts.
     * \param peerCellId the source
     * \param req the request
     * \param controlCopy it came on the control channel
     * \return true for the first copy (always true with a shared channel)
     */

    bool IsFirstCopy(uint16_t peerCellId, const KvTransferRequestHeader& req, bool controlCopy);

    /**
     * \brief An accepted request's n_pf tokens join their GPU batch (the source's batch, or a
     *        coordinated group's at this target).
     * \param s the new session
     * \param peerCellId the source
     * \param req its request
     */
    void JoinRestorePrefill(Session& s, uint16_t peerCellId, const KvTransferRequestHeader& req);

    /**
     * \brief An accepted request's timers: PROGRESS reports (StatusInterval), the
     *        TransferTimeout, loss-aware replanning's check and ImpactHO's window end
     *        (WindowGrace); a cache already complete is traced as received.
     * \param s the new session
     * \param peerCellId the source
     * \param req its request
     */
    void ScheduleRestoreTimers(Session& s, uint16_t peerCellId, const KvTransferRequestHeader& req);

    /**
     * \brief TransferTimeout expired: stop the source and re-prefill the missing tokens.
     * \param sessionId the session
     * \param generation the restore it was armed for (a stale one is ignored)
     */
    void OnTransferTimeout(uint64_t sessionId, uint32_t generation);

    /**
     * \brief ImpactHO: WindowGrace after the transfer window's end, the source's
     *        TRANSFER_COMPLETE or TRUNCATE has not come: resume on the KV bytes in (the
     *        committed pre-sent entries only as far as they arrived).
     * \param sessionId the session
     * \param generation its restore's generation (a later restore ignores this one)
     */
    void OnWindowEnd(uint64_t sessionId, uint32_t generation);

    /**
     * \brief ImpactHO: close a session's transfer on \p kv KV bytes (PartialRestored with
     *        kv / the expected bytes) and resume once the rest of the restore is done.
     * \param s the session, RESTORING
     * \param kv the KV bytes it resumes on
     */
    void ResumePartial(Session& s, uint64_t kv);

    /**
     * \brief Loss-aware replanning's check (LossAwareReplanning): if the session's KV
     *        bytes are still missing and its batch prefill is done, re-prefill the missing
     *        tokens when that ends sooner than receiving them at the rate measured since
     *        the last check (StopTransfer; TransferReplanned), else check again one
     *        ReplanInterval later.
     * \param sessionId the session
     * \param generation the restore it was armed for (a stale one is ignored)
     */
    void OnReplanCheck(uint64_t sessionId, uint32_t generation);

    /**
     * \brief Stop the source's transfer of \p s (TRANSFER_STOP) and re-prefill the
     *        tokens whose KV cache has not arrived (all of the transferred ones if
     *        layer-major), after its batch prefill if that is still pending.
     * \param s the session (RESTORING, KV bytes missing)
     * \return the tokens to re-prefill
     */
    uint64_t StopTransfer(Session& s);

    /**
     * \param s a session with KV bytes missing
     * \return the tokens StopTransfer would re-prefill
     */
    uint64_t MissingTokens(const Session& s) const;

    /**
     * \brief Re-prefill a timed-out session's missing tokens, a GPU batch of its own.
     * \param s the session
     */
    void StartReprefill(Session& s);

    /**
     * \brief A prefill of the restore ended (the batch's n_pf, or a re-prefill).
     * \param sessionId the session
     * \param generation the restore it belongs to
     * \param reprefill true for a re-prefill
     */
    void OnRestorePrefillDone(uint64_t sessionId, uint32_t generation, bool reprefill);

    /**
     * \brief Resume decoding when prefill and KV bytes are both done (SessionRestored with
     *        D_i, RESTORED to the source), or relay the session on.
     * \param s the session
     */
    void MaybeResume(Session& s);

    /**
     * \brief StatusInterval elapsed: TRANSFER_STATUS PROGRESS, and the next timer.
     * \param sessionId the session
     * \param generation the restore it was armed for
     */
    void OnStatusTimer(uint64_t sessionId, uint32_t generation);

    /**
     * \brief Hand a restored session on to the UE's current cell (store-and-forward).
     * \param s the session
     */
    void RelaySession(Session& s);

    /**
     * \brief Plan a coordination group: one L for every source's announced handovers
     *        (CoordinatedPlanner, with this BS's GPU busy until its last batch ends), a
     *        PLAN to each request, CoordinatedBatchPlanned.
     * \param groupId the group
     */
    void CloseGroup(uint32_t groupId);

    /**
     * \brief A group's members changed: one joined its GPU batch (PrefillEngine::Join
     *        started the batch if it was the last), one came planned alone, or a source
     *        closed its part (the batch then starts once the members left have joined);
     *        a group whose members have all joined is forgotten.
     * \param groupId the group
     * \param joinedNow a member has just joined (its Join sized the batch)
     */
    void UpdateGroup(uint32_t groupId, bool joinedNow);

    /// Forget a group and its requests (its batch started, or it has none).
    /// \param groupId the group
    void EraseGroup(uint32_t groupId);

    /// A coordination group: the handovers of several sources planned as one GPU batch.
    struct Group
    {
        /// The PLAN_REQUESTs gathered, until planned: (source, request)
        std::vector<std::pair<uint16_t, KvPlanRequestHeader>> requests;
        /// Per request (source, request id): its members that joined or will, as its
        /// source last said (the request's size, then each BATCH_CLOSE naming it)
        std::map<std::pair<uint16_t, uint32_t>, uint32_t> parts;
        uint32_t joined{0};  //!< Members whose request joined the GPU batch
        uint32_t refused{0}; //!< Members whose request this BS refused
        bool planned{false}; //!< CloseGroup ran
        Time closeAt;        //!< When CloseGroup runs
        EventId closeEvent;  //!< CloseGroup
        /// \return the members over every part, less those refused
        uint32_t Size() const;
    };

    EdgeLlmNode* m_node; //!< The BS (owner)

    EdgeLlmBsState* m_bs; //!< What the BS's parts share (owned by the BS)
    /// CoordinatedBatchPlanned
    TracedCallback<uint32_t, uint32_t, uint32_t, uint64_t, Time> m_coordinatedTrace;
    TracedCallback<uint64_t, uint16_t, uint64_t>
        m_requestReceivedTrace;                                     //!< TransferRequestReceived
    TracedCallback<uint64_t, uint16_t, uint64_t> m_kvReceivedTrace; //!< KvTransferReceived
    TracedCallback<uint64_t, uint16_t, double> m_partialTrace;      //!< PartialRestored
    TracedCallback<uint64_t, uint16_t, uint64_t> m_timeoutTrace;    //!< TransferTimedOut
    TracedCallback<uint64_t, uint16_t, uint64_t> m_windowTrace;     //!< TransferWindowClosed
    /// TransferReplanned
    TracedCallback<uint64_t, uint16_t, uint64_t, Time, Time> m_replannedTrace;
    TracedCallback<uint64_t, uint16_t, uint64_t> m_layerTrace; //!< KvLayerReceived
    TracedCallback<uint64_t, uint16_t, Time> m_restoredTrace;  //!< SessionRestored
    Time m_statusInterval;                                     //!< StatusInterval (0: no PROGRESS)
    Time m_transferTimeout;                                    //!< TransferTimeout (0: none)
    Time m_windowGrace;                                        //!< WindowGrace
    bool m_lossAwareReplanning{true};                          //!< LossAwareReplanning
    Time m_replanMargin;                                       //!< ReplanMargin
    Time m_replanInterval;                                     //!< ReplanInterval
    uint32_t m_restoreCounter{0}; //!< Numbers restores, so a stale timeout is ignored
    /// ControlChannel=Separate: requests (source cell, session, tau in ns) whose one copy
    /// has come and acted, the other not yet
    std::set<std::tuple<uint16_t, uint64_t, int64_t>> m_halfReceived;
    std::map<uint32_t, Group> m_groups; //!< Coordination groups by id
    uint32_t m_openGroup{0};            //!< The group requests join (0: none open)
    uint32_t m_groupCounter{0};         //!< Numbers the groups
    /// The group of each PLAN_REQUEST, (source, request id), while its group lasts
    std::map<std::pair<uint16_t, uint32_t>, uint32_t> m_requestGroup;
};

} // namespace ns3

#endif /* EDGE_LLM_TARGET_ROLE_H */
