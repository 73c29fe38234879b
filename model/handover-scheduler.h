/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HANDOVER_SCHEDULER_H
#define HANDOVER_SCHEDULER_H

#include "ctho-planner.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class AccuracyUtility;
struct SlotAllocation;
struct SlotUser;

/**
 * \ingroup edge-llm
 * \brief One KV-cache transfer waiting for the backhaul of a BS pair.
 */
struct KvTransferJob
{
    uint64_t sessionId{0};      //!< Session (UE) identifier
    Time handoverTime;          //!< tau_i, when the UE handed over
    Time deadline;              //!< d_i = tau_i + g(L) for ctHO (ctHO Sec. III-B)
    uint64_t remainingBytes{0}; //!< KV bytes not yet handed to the transport
    /// KV bytes the job may still send in the current slot (ImpactHO's per-slot share;
    /// UINT64_MAX: no limit, as for ctHO)
    uint64_t slotBudget{UINT64_MAX};
    /// 0: plain KV bytes; else the job sends importance-ordered entries of this many KV
    /// bytes, each with its 3-byte (layer, head, token) coordinate (ImpactHO Sec. VI-E)
    uint32_t entryBytes{0};
    /// A background job (a proactive pre-transfer, PreTransferScheduler) sends only when no
    /// other job may: it is not counted in the backlog ahead of a new transfer
    /// (KvTransferConnection::GetBacklogBytes, HasKvBacklog), and its end sends no
    /// TRANSFER_COMPLETE (its receiver was told its size)
    bool background{false};
};

/**
 * \ingroup edge-llm
 * \brief What a proactive pre-transfer adds to a handover policy (PreTransferScheduler's
 *        attributes; doc/edge-llm-design.rst, "Proactive KV pre-transfer"), read by the engines
 *        through HandoverScheduler::GetPreTransfer() without knowing the policy's class.
 */
struct PreTransferSettings
{
    /// What makes a handover likely (PreTransferScheduler's Trigger attribute).
    enum Trigger
    {
        A3_ENTERING,        //!< RSRP_target - RSRP_source > A3Offset for TimeToTrigger
        PREDICTED_CROSSING, //!< LeadTime before the handover predicted from position, speed
    };

    Trigger trigger{A3_ENTERING}; //!< Trigger
    double a3OffsetDb{-3.0};      //!< A3Entering: the trigger's offset, dB, in [-15, 15]
    Time timeToTrigger;           //!< A3Entering: how long the condition must hold
    Time leadTime;                //!< PredictedCrossing: how long before the handover
    double rateShare{0.5};        //!< Most of a link's rate the pre-transfers use, in [0, 1]
    bool yieldToHandovers{true};  //!< Pause while a planned handover batch uses the link
    Time holdTime;                //!< How long a cell keeps bytes for a UE that did not come
    Time pingPongTime;            //!< No pre-transfer back to the cell left within this time
    bool followDecoding{false};   //!< The tokens decoded after the trigger follow
    Time pacingInterval;          //!< Packet level: how often the budgets are refilled
};

/**
 * \ingroup edge-llm
 * \brief Base of every edge-LLM handover policy: decides how many tokens the target
 *        prefills for a batch of handovers and which session the backhaul serves next.
 *
 * Like 5G-LENA's NrMacSchedulerNs3 family, the loop lives in the callers
 * (EdgeLlmNode at packet level, the flow-level engine) and a policy overrides hooks:
 * ChoosePrefillLength() (ctHO, tHO, cHO differ only there) and SelectNextTransfer()
 * (earliest deadline first by default, ctHO Sec. III-B).
 *
 * Two kinds of policy share this base, and a caller asks which one it has, never casts
 * (as TcpSocketBase asks TcpCongestionOps::HasCongControl()): a batch policy (ctHO, tHO,
 * cHO: AllocatesSlots() false) plans batches through PlanBatch(); a slot policy
 * (ImpactHO and its baselines: AllocatesSlots() true) keeps each partial transfer's
 * state itself (AddSlotTransfer(), RemoveSlotTransfer()) and shares the backhaul one
 * slot at a time (ShareSlot()). A slot policy plans no batch: PlanBatch() refuses.
 * A slot policy's state belongs to one source BS: give each EdgeLlmNode its own
 * scheduler (EdgeLlmHelper creates one per BS).
 */
class HandoverScheduler : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    HandoverScheduler();
    ~HandoverScheduler() override;

    /**
     * \brief Plan a batch of handovers to one target BS (ctHO Sec. II-III).
     * \param batch the UEs of the batch (handover times in s, contexts in tokens)
     * \param backhaulTokensPerSecond R = backhaul bit/s / s_KV, > 0
     * \param prefill the target GPU's prefill time model
     * \param batchPeriod T_c, s, >= 0
     * \param backhaulFreeAt when earlier transfers leave the backhaul, s (0: idle)
     * \param signalling packet level: request, token-id and close wire times and the path
     *        delay (CtHoSignalling; the default, all zero, is the papers' fluid model)
     * \param prefillLength a prefill length chosen elsewhere, tokens (a target-coordinated
     *        plan's L, CoordinatedPlanner); empty: ChoosePrefillLength() chooses it
     * \return the plan at that prefill length: EDF transfers of the rest
     * \throws std::invalid_argument for an empty batch or invalid values
     */
    CtHoPlan PlanBatch(const std::vector<CtHoUe>& batch,
                       double backhaulTokensPerSecond,
                       const PrefillTimeModel& prefill,
                       double batchPeriod,
                       double backhaulFreeAt = 0,
                       const CtHoSignalling& signalling = CtHoSignalling(),
                       std::optional<uint64_t> prefillLength = std::nullopt) const;

    /**
     * \brief Which job the backhaul serves next (one at a time, at full rate).
     *
     * Default: earliest deadline first, ties by handover time, then session id,
     * which for ctHO's common bound is FIFO by handover time (ctHO Sec. III-B).
     * \param jobs at least one job
     * \return the index into jobs
     */
    virtual std::size_t SelectNextTransfer(const std::vector<KvTransferJob>& jobs) const;

    /**
     * \return the short scheme name used in outputs ("ctho", "tho", "cho", ...)
     */
    virtual std::string GetSchemeName() const = 0;

    /**
     * \return how far ahead an online batch looks for predicted arrivals (Lookahead
     *         attribute; 0: plan with the arrived UE alone)
     */
    Time GetLookahead() const;

    /**
     * \return true for a slot policy (partial transfers sharing the backhaul per slot,
     *         ImpactHO Sec. III-IV), false for a batch policy (PlanBatch); default false
     */
    virtual bool AllocatesSlots() const;

    /// \return a slot policy's slot length dt (ImpactHO Sec. III); 0 for a batch policy
    virtual Time GetSlotLength() const;

    /**
     * \return for a target-coordinated policy (CoordinatedCtHoScheduler), how long before
     *         a batch's first announced handover its source asks the target to plan it
     *         together with other sources' (PLAN_REQUEST); zero (the default): the
     *         source plans its batches alone
     */
    virtual Time GetPlanLead() const;

    /// \return a slot policy's transfer window T_max from the handover, after which a
    ///         transfer is truncated (ImpactHO Sec. III); 0 for a batch policy
    virtual Time GetTransferWindow() const;

    /**
     * \brief A slot policy's new transfer: the whole cache of a session, in importance
     *        order, from \p arrival until arrival + GetTransferWindow().
     * \param sessionId the session (unique among this policy's transfers)
     * \param target the target BS's cell id
     * \param arrival the handover time
     * \param bytes the cache, bytes (L_i / 8), > 0
     * \param utility the accuracy utility A_i of the session's context (ImpactHO Eq. (6))
     * Aborts (NS_FATAL_ERROR, naming the scheme) on a batch policy, a session already
     * transferring, or no bytes.
     */
    virtual void AddSlotTransfer(uint64_t sessionId,
                                 uint16_t target,
                                 Time arrival,
                                 uint64_t bytes,
                                 const AccuracyUtility& utility);

    /**
     * \brief Forget a slot transfer (sent, truncated, cancelled, refused, restored).
     * \param sessionId the session
     * \return its target's cell id, or 0 if this policy had no transfer of it (always 0
     *         for a batch policy)
     */
    virtual uint16_t RemoveSlotTransfer(uint64_t sessionId);

    /// \return whether a slot policy has transfers left (false for a batch policy)
    virtual bool HasSlotTransfers() const;

    /**
     * \brief Bind this scheduler to the BS that uses it (EdgeLlmNode, when it starts).
     * \param nodeId the BS's node id
     * Aborts (NS_ABORT_MSG) when a slot policy is bound to a second BS: its transfers'
     * state is one BS's (a batch policy keeps none and may serve several).
     */
    void BindToBs(uint32_t nodeId);

    /// KV bytes a session's transport has taken so far: (target, session) -> bytes.
    using SentBytes = std::function<uint64_t(uint16_t target, uint64_t sessionId)>;
    /// One slot's budget, bits, of the path to a target while the given targets (itself
    /// included) are active in the slot.
    using SlotBudget =
        std::function<double(uint16_t target, const std::set<uint16_t>& activeTargets)>;

    /// What one slot gives the users of one target.
    struct SlotShare
    {
        uint16_t target{0};   //!< The target's cell id
        uint32_t users{0};    //!< Users active in the slot (ImpactHoSlot's count)
        bool fallback{false}; //!< The admission fallback served the slot
        /// (session, KV bytes it may send in this slot), in session order
        std::vector<std::pair<uint64_t, uint64_t>> grants;
    };

    /**
     * \brief A slot policy's slot at \p now: per target, the active users (arrival <= now
     *        < arrival + T_max) and each one's bytes for this slot.
     * \param now the slot's start
     * \param sent each session's bytes taken by the transport so far
     * \param budget each target's slot budget, bits
     * \return one share per target with active users, in target order (empty for a
     *         batch policy)
     */
    virtual std::vector<SlotShare> ShareSlot(Time now,
                                             const SentBytes& sent,
                                             const SlotBudget& budget) const;

    /**
     * \brief A slot policy's allocation of one slot's budget among its active users, as
     *        received fractions (ImpactHO Sec. IV; the flow level's fluid fractions,
     *        ShareSlot() rounds them to bytes). A policy that wraps another, as
     *        PreTransferScheduler, asks the inner one.
     * \param users the active users (received fraction below 1, window open), each with
     *        its cache size L_i (bits), fraction x_i and utility A_i
     * \param budgetBits the slot's budget B dt, bits, > 0
     * \return per user (input order) its fraction at the slot's end, and the regime
     * \throws std::logic_error (default, a batch policy: it shares no slot)
     */
    virtual SlotAllocation AllocateSlot(const std::vector<SlotUser>& users,
                                        double budgetBits) const;

    /**
     * \brief A batch policy's hook: the batch prefill length L (PlanBatch() calls it; a
     *        policy that wraps another, as PreTransferScheduler, asks the inner one).
     * \param planner a planner for this batch's R, p and T_c
     * \param batch the batch's UEs (non-empty, validated)
     * \return L in tokens, 0 <= L <= C_max
     * \throws std::logic_error (default, a slot policy: it plans no batch)
     */
    virtual uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                         const std::vector<CtHoUe>& batch) const;

    /**
     * \brief Whether this policy sends caches ahead of their handovers, and how (as
     *        TcpSocketBase asks TcpCongestionOps::HasCongControl(): engines ask, never cast).
     * \return the pre-transfer settings of a policy that sends ahead (PreTransferScheduler);
     *         empty (the default) for one that does not
     */
    virtual std::optional<PreTransferSettings> GetPreTransfer() const;

    /**
     * \brief With a slot policy inside a pre-transfer: the first \p bytes of \p sessionId's
     *        cache in importance order are at its target already; ShareSlot() counts them as
     *        sent. Call before AddSlotTransfer(); forgotten by RemoveSlotTransfer().
     * \param sessionId the session
     * \param bytes KV bytes (coordinates not counted), <= the cache's bytes
     * Aborts (NS_FATAL_ERROR, naming the scheme) on a policy without GetPreTransfer().
     */
    virtual void SetBytesSentAhead(uint64_t sessionId, uint64_t bytes);

  protected:
    Time m_lookahead; //!< Online look-ahead for predicted arrivals
    /// The BS bound by BindToBs (UINT32_MAX: none yet)
    uint32_t m_bsNodeId{std::numeric_limits<uint32_t>::max()};
};

} // namespace ns3

#endif /* HANDOVER_SCHEDULER_H */
