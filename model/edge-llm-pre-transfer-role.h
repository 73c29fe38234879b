/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_PRE_TRANSFER_ROLE_H
#define EDGE_LLM_PRE_TRANSFER_ROLE_H

#include "edge-llm-bs-state.h"
#include "edge-llm-limits.h"
#include "edge-llm-node.h"
#include "handover-scheduler.h"
#include "kv-pre-transfer-store.h"

#include "ns3/event-id.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Proactive KV pre-transfer at one BS, both sides (EdgeLlmNode owns one, beside its
 *        source and target roles; doc/edge-llm-design.rst, "Proactive KV pre-transfer").
 *
 * Source (the node's Scheduler is a PreTransferScheduler): a likely handover of a decoding
 * session (EdgeLlmNode::NotifyHandoverLikely) sends PRE_TRANSFER_START with the size of the
 * session's KV cache so far, then the cache as a background job on the backhaul connection
 * (session id | KvFrameHeader::PRE_TRANSFER_BIT): it sends only when no handover transfer
 * may, at most RateShare of the path's planning rate, refilled every PacingInterval and
 * shared by the pre-transfers on that path. It yields to handover transfers on every link
 * of its path, not only on its own connection: it pauses while this BS has a handover
 * transfer on a path sharing a link with it (OnHandoverTransfer, and at each refill), and
 * while its target asks (PRE_TRANSFER_PAUSE: the target sends it, every PacingInterval,
 * to each source whose path shares a link with a path that other sources' handover
 * transfers into it are using; OnInboundTransfer). With a slot policy inside the
 * PreTransferScheduler (ImpactHO's family) the cache goes in importance order, as entries
 * with their 3-byte coordinates (KvFrameHeader::PRE_TRANSFER_ENTRIES_BIT). At the handover
 * (OnHandover) the job stops: to the predicted cell, PRE_TRANSFER_COMMIT with the KV bytes
 * sent, whose whole tokens the plan of the rest leaves out (a slot policy: the importance
 * order goes on after them); to another cell (or when the session ends first),
 * PRE_TRANSFER_END.
 *
 * Target: PRE_TRANSFER_START reserves room in the BS's KV memory (KvMemoryCapacity,
 * KvPreTransferStore: the oldest entries are evicted, PRE_TRANSFER_EVICTED tells their
 * sources; a cache larger than the whole memory is refused the same way); the bytes are
 * counted as they arrive; a COMMIT hands them to the session the TRANSFER_REQUEST then
 * creates (its restore waits until every committed byte is in); an END drops them after
 * the local PreTransferScheduler's HoldTime. Bytes sent ahead and not used are waste
 * (PreTransferWasted). The target counts bytes as they crossed the backhaul (entries'
 * coordinates included: arrivals, evictions, waste); START, COMMIT and END carry KV bytes.
 * Its trace sources: PreTransferStarted, PreTransferUsed, PreTransferWasted,
 * PreTransferEvicted, PreTransferLost (".../$ns3::EdgeLlmNode/PreTransferRole/...").
 */
class EdgeLlmPreTransferRole : public Object
{
  public:
    /**
     * \brief Get the type ID (attribute KvMemoryCapacity: set it with
     *        EdgeLlmHelper::SetPreTransferRoleAttribute, Config::SetDefault
     *        ("ns3::EdgeLlmPreTransferRole::KvMemoryCapacity") or the path
     *        ".../$ns3::EdgeLlmNode/PreTransferRole/KvMemoryCapacity").
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \param node the BS (owns this role and outlives it)
     */
    EdgeLlmPreTransferRole(EdgeLlmNode* node, EdgeLlmBsState* state);

    /// \return the node's scheduler's pre-transfer settings (empty: it sends nothing ahead)
    std::optional<PreTransferSettings> GetSettings() const;

    /**
     * \brief Source: a handover of \p sessionId to \p targetCellId is likely (the policy's
     *        trigger fired): start sending its KV cache there. Ignored without a
     *        PreTransferScheduler, with RateShare 0, for a target without a backhaul link,
     *        or a pre-transfer to that target already on (one to another target ends
     *        first); for a session not decoding here yet (unknown, or prefilling its
     *        prompt) it waits until the session decodes (OnSessionReady).
     * Aborts (NS_ABORT_MSG) for YieldToHandovers false (flow level only).
     */
    void OnHandoverLikely(uint64_t sessionId, uint16_t targetCellId);

    /**
     * \brief Source: \p s hands over to \p targetCellId now; its pre-transfer stops.
     * \return the KV bytes of its cache the target holds from it (committed: a batch
     *         policy's plan leaves out their whole tokens, a slot policy counts them as
     *         sent), 0 if none or another target
     */
    uint64_t OnHandover(const EdgeLlmSession& s, uint16_t targetCellId);

    /// Source: a pre-transfer's last byte went to the transport (KvTransferConnection).
    void OnSent(uint64_t sessionId);

    /**
     * \brief Source: \p sessionId's cache can be sent from here now (it started decoding,
     *        EdgeLlmNode::StartDecoding, or OpenSession built it). A likely handover
     *        noticed before (the session unknown or still prefilling its prompt: a
     *        predicted crossing fires once, at max(0, tau - LeadTime)) starts its
     *        pre-transfer now.
     */
    void OnSessionReady(uint64_t sessionId);

    /// \param peerCellId the target \param m PRE_TRANSFER_EVICTED
    void OnEvicted(uint16_t peerCellId, const KvTransferCompleteHeader& m);
    /// \param peerCellId the target \param m PRE_TRANSFER_PAUSE (totalBytes: ns)
    void OnPause(uint16_t peerCellId, const KvTransferCompleteHeader& m);

    /// Source: a handover transfer was queued: pre-transfers whose paths share a link with
    /// its path stop sending now (until no handover transfer is left on such a path).
    void OnHandoverTransfer();

    /// Target: a handover transfer into this BS began: while such transfers run, sources
    /// of pre-transfers to this BS over a shared link are told to pause.
    void OnInboundTransfer();
    /// \param peerCellId the source \param m PRE_TRANSFER_START
    void OnStart(uint16_t peerCellId, const KvTransferCompleteHeader& m);
    /// \param peerCellId the source \param m PRE_TRANSFER_COMMIT
    void OnCommit(uint16_t peerCellId, const KvTransferCompleteHeader& m);
    /// \param peerCellId the source \param m PRE_TRANSFER_END
    void OnEnd(uint16_t peerCellId, const KvTransferCompleteHeader& m);

    /**
     * \brief Target: bytes of \p sessionId's pre-transfer arrived.
     * \param sessionId the session
     * \param bytes bytes of its KV_SEGMENTs
     * \param entries they are importance-ordered entries with 3-byte coordinates
     *        (PRE_TRANSFER_ENTRIES_BIT)
     */
    void OnKvBytes(uint64_t sessionId, uint64_t bytes, bool entries);

    /**
     * \brief Target: the KV bytes a PRE_TRANSFER_COMMIT of \p sessionId committed, once (the
     *        TRANSFER_REQUEST that follows it takes them: an importance-ordered restore
     *        counts them as received).
     * \return the bytes, 0 if no commit of it is waiting
     */
    uint64_t TakeCommittedBytes(uint64_t sessionId);

    /// \return true while committed pre-sent bytes of \p sessionId are still on the way
    bool IsPending(uint64_t sessionId) const;

    /// \return the KV bytes of \p sessionId committed and not arrived yet (0: none)
    uint64_t GetPendingKvBytes(uint64_t sessionId) const;

    /// \return the bytes of this node's memory reserved by pre-transfers
    uint64_t GetReservedBytes() const;

    /// \return bytes sent ahead to this BS that arrived and are neither used by a handover
    ///         nor dropped yet (as on the wire)
    uint64_t GetHeldBytes() const;

  private:
    /// A pre-transfer this BS sends.
    struct Outgoing
    {
        uint16_t target{0};     //!< Predicted target
        uint64_t tokens{0};     //!< Tokens of the prefix
        uint64_t bytes{0};      //!< Its bytes
        bool sent{false};       //!< Every byte went to the transport
        uint64_t sentBefore{0}; //!< Bytes sent when the last job finished (FollowDecoding)
    };

    /// A pre-transfer this BS receives.
    struct Incoming
    {
        uint16_t source{0};         //!< Its source
        uint64_t arrived{0};        //!< Bytes so far, as on the wire
        bool entries{false};        //!< Importance-ordered entries with coordinates
        bool committed{false};      //!< The UE handed over here
        uint64_t committedBytes{0}; //!< Bytes the source sent (COMMIT)
        EventId hold;               //!< Drops it (END)
    };

    /// \return whether \p s is served here and its cache may be sent ahead: decoding, or a
    /// context opened without a UE stream (EdgeLlmNode::OpenSession)
    static bool Servable(const EdgeLlmSession& s);
    /// Source: queue \p bytes more of \p sessionId's cache to \p targetCellId (a new
    /// background job, or the queued one grows)
    void Queue(uint64_t sessionId, uint16_t targetCellId, uint64_t bytes);
    /// Target: the entries a reservation evicted: traced, waste, their sources told
    void Evict(const std::vector<uint64_t>& evicted);
    /// Source: stop sending \p sessionId's prefix; \return the bytes it sent
    uint64_t Stop(uint64_t sessionId);
    /// Source: END to the target of \p sessionId's pre-transfer
    void End(uint64_t sessionId);
    /// Source: the budgets of the next PacingInterval, and ends for sessions gone
    void Pace();
    /// Target: drop \p sessionId's bytes (waste: the hold time after an END, or a newer
    /// pre-transfer of the session)
    void Drop(uint64_t sessionId);
    /// Target: every committed byte of \p sessionId is in: the restore may go on
    void Use(uint64_t sessionId);
    /// \return whether this BS's paths to cells \p a and \p b share a backhaul link (their
    ///         PeerPath links; false without paths)
    bool SharesLink(uint16_t a, uint16_t b) const;
    /// Source: whether the pre-transfer to \p target must not send now
    bool Paused(uint16_t target) const;
    /// Source: zero the budgets of paused pre-transfers
    void Gate();
    /// Target: PRE_TRANSFER_PAUSE to the sources that must yield, again each interval
    void Guard();
    /// \return the local policy's PacingInterval (10 ms without one)
    Time Interval() const;
    /// Source: the background job id of \p sessionId's pre-transfer (PRE_TRANSFER_BIT, and
    /// PRE_TRANSFER_ENTRIES_BIT with a slot policy inside)
    uint64_t JobId(uint64_t sessionId) const;
    /// Target: the KV bytes of \p in's arrivals (its coordinates not counted)
    uint64_t KvBytes(const Incoming& in) const;
    /// Target: send \p type for \p sessionId to \p peerCellId
    void Send(uint16_t peerCellId,
              KvFrameHeader::MessageType type,
              uint64_t sessionId,
              uint64_t bytes);
    /// \return the node's KV memory, created on first use
    KvPreTransferStore& Store();

    EdgeLlmNode* m_node; //!< The BS (owner)

    EdgeLlmBsState* m_bs; //!< What the BS's parts share (owned by the BS)
    TracedCallback<uint64_t, uint16_t, uint64_t> m_preStartedTrace;   //!< PreTransferStarted
    TracedCallback<uint64_t, uint16_t, uint64_t> m_preUsedTrace;      //!< PreTransferUsed
    TracedCallback<uint64_t, uint16_t, uint64_t> m_preWastedTrace;    //!< PreTransferWasted
    TracedCallback<uint64_t, uint16_t, uint64_t> m_preEvictedTrace;   //!< PreTransferEvicted
    TracedCallback<uint64_t, uint16_t, uint64_t> m_preLostTrace;      //!< PreTransferLost
    uint64_t m_kvMemoryCapacity{edgellm::DEFAULT_KV_MEMORY_CAPACITY}; //!< KvMemoryCapacity, bytes
    std::map<uint64_t, Outgoing> m_out;                               //!< By session
    std::map<uint64_t, Incoming> m_in;                                //!< By session
    /// Session -> the cell that evicted (or refused) its pre-transfer: not sent there again
    /// before the session's next handover
    std::map<uint64_t, uint16_t> m_refused;
    /// Source: session -> the likely target noticed before it decoded here
    std::map<uint64_t, uint16_t> m_waiting;
    /// Target: session -> KV bytes committed, until its TRANSFER_REQUEST takes them
    std::map<uint64_t, uint64_t> m_committed;
    std::unique_ptr<KvPreTransferStore> m_store; //!< KV memory for pre-sent caches
    EventId m_pacing;                            //!< Next budget refill
    std::map<uint16_t, Time> m_pausedUntil;      //!< Source: target -> its pause's end
    EventId m_guard;                             //!< Target: next PRE_TRANSFER_PAUSE round
};

} // namespace ns3

#endif /* EDGE_LLM_PRE_TRANSFER_ROLE_H */
