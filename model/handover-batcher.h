/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HANDOVER_BATCHER_H
#define HANDOVER_BATCHER_H

#include "handover-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Groups the handovers of one source BS into ctHO batches and plans each once;
 *        shared by the packet level (EdgeLlmNode) and the flow level
 *        (FluidHandoverEngine, on its own clock: SetClock), so both apply the same policy.
 *
 * **Known handover times** (ctHO's setting): handovers announced with Expect() to the
 * same target and still pending when one of them starts form one batch, planned at
 * that first start from the announced times and the contexts the caller predicts. The
 * batch is complete when its last member has started.
 *
 * **Unknown handover times** (online ctHO, doc/edge-llm-design.rst, "Online ctHO"): an unannounced
 * handover opens a batch to its target, planned at once from what is known then: itself, plus the
 * arrivals the caller's ArrivalPredictor expects within the scheduler's Lookahead (e.g. from UE
 * positions and speeds). The batch's GPU start is the first T_c boundary at or after the last
 * planned handover; every handover to that target that starts before then joins it (predicted or
 * not) with the same L, and the batch closes then with whoever joined (a predicted UE that has not
 * arrived is left for a later batch).
 *
 * Each member's split is `n_pf = min(C, L)`, `n_tx = C - n_pf`, with EDF deadline
 * `tau + g(L)`. On completion (or close) the plan is evaluated at the batch's L on the
 * actual times and contexts and handed to the BatchCompleteCallback.
 */
class HandoverBatcher
{
  public:
    /// A handover announced with Expect().
    struct Expected
    {
        uint64_t sessionId{0}; //!< Session
        uint16_t target{0};    //!< Target cell
        Time when;             //!< Announced time
    };

    /**
     * \brief Predicts a session's context at a future time.
     * \return tokens, or 0 if the session cannot hand over (unknown, already moved)
     */
    using ContextPredictor = std::function<uint64_t(uint64_t sessionId, Time when)>;

    /**
     * \brief Predicts which sessions hand over to \p target within (now, now + horizon]:
     *        (session id, predicted handover time in s, predicted context in tokens).
     */
    using ArrivalPredictor =
        std::function<std::vector<CtHoUe>(uint16_t target, Time now, Time horizon)>;

    /**
     * \brief A batch is complete (known times) or closed (online).
     * Arguments: batch id (the target's group id for a coordinated batch), target cell,
     * members, true if online (the target needs a
     * BATCH_CLOSE: an online batch, or a known-times batch that lost a member to Withdraw()),
     * the plan at its L on the actual times and contexts.
     */
    using BatchCompleteCallback =
        std::function<void(uint32_t, uint16_t, uint16_t, bool, const CtHoPlan&)>;

    /// What the planner needs besides the UEs.
    /**
     * \brief A target's coordinated plan (KvPlanHeader) for announced handovers of this
     *        source (target-coordinated ctHO): the batch formed at the first of them
     *        takes only these members, at the target's L, starting no earlier than t_s.
     */
    struct Coordination
    {
        uint32_t groupId{0};        //!< The target's GPU batch (0: none, plan alone)
        uint16_t groupSize{0};      //!< Its members over every source
        uint64_t prefillLength{0};  //!< L, tokens, the target's choice
        double batchStart{0};       //!< Its planned start t_s, s
        double planningBitRate{0};  //!< The rate the target planned this source with, bit/s
        std::set<uint64_t> members; //!< This source's sessions in it, still expected
    };

    struct PlanInputs
    {
        double backhaulTokensPerSecond{0}; //!< R, tokens/s, > 0
        PrefillTimeModel prefill;          //!< Target GPU's p(L)
        /// The target's GPU prefills each member's L tokens in turn (a ServingGpu: its
        /// iterations take tokens, not sequences): p's slope is multiplied by the members
        /// planned (at most PrefillTimeModel's 1 s/token); false: p(L) is the whole batch's
        bool prefillPerMember{false};
        double batchPeriod{0.01}; //!< T_c, s
        double backhaulFreeAt{0}; //!< Earlier transfers end at, s (0: idle)
        /// Packet level: request, id and close wire times, path delay (zero: fluid).
        /// closeSentAt is the batcher's: it sets it for online and short batches.
        CtHoSignalling signalling;
        /// Packet level: drain time of the bytes ahead of a control message sent now, s
        /// (the close's closeAhead when the batch closes); empty: signalling.closeAhead
        std::function<double()> closeAheadNow;
        /// The target's coordinated plan for an announced batch (groupId 0: none)
        Coordination coordination;
    };

    /// One member's part of its batch.
    struct Decision
    {
        uint32_t batchId{0};        //!< Batch identifier (unique per batcher), or the
                                    //!< target's group id when coordinated
        uint16_t batchSize{0};      //!< Members in the batch (the target's group when
                                    //!< coordinated); 0 for an online batch
        bool coordinated{false};    //!< The batch follows a target's coordinated plan
        uint64_t prefillLength{0};  //!< L of the batch, tokens
        uint64_t prefillTokens{0};  //!< n_pf = min(C, L)
        uint64_t transferTokens{0}; //!< n_tx = C - n_pf
        Time deadline;              //!< tau + g(L): the EDF deadline of its transfer
    };

    /**
     * \param scheduler the policy that chooses L (ctHO, tHO, cHO, ...) and its Lookahead
     */
    explicit HandoverBatcher(Ptr<HandoverScheduler> scheduler);
    ~HandoverBatcher();

    /// \param cb called when a batch is complete or closed
    void SetBatchCompleteCallback(BatchCompleteCallback cb);

    /**
     * \brief The batcher's time: its current time and a timer for online batches' closes.
     *        Empty (the default): ns-3's simulator (Simulator::Now, Simulator::Schedule).
     *        The flow-level engine, which runs its own event loop, gives its own.
     */
    struct Clock
    {
        std::function<Time()> now;                                       //!< The current time
        std::function<void(Time at, std::function<void()> action)> call; //!< Run action at `at`
    };

    /// \param clock the time source and timer to use (both set) instead of the simulator's
    void SetClock(Clock clock);

    /// \param predictor expected arrivals, for online batches (none by default)
    void SetArrivalPredictor(ArrivalPredictor predictor);

    /**
     * \brief Announce a handover of \p sessionId to \p target at \p when.
     */
    void Expect(uint64_t sessionId, uint16_t target, Time when);

    /**
     * \brief Handovers that start at this same instant, before Start() is called for
     *        each: an online batch formed now plans with all of them, not only with the
     *        first (LTE's handover decisions come in bursts at measurement reports).
     * \param target target cell
     * \param arrivals (session, now, context) of each
     */
    void SetSimultaneous(uint16_t target, const std::vector<CtHoUe>& arrivals);

    /// \return true if \p sessionId was announced (Expect()) to \p target, or is in a
    ///         known-times batch
    bool IsAnnounced(uint64_t sessionId, uint16_t target) const;

    /// \return the handovers announced to \p target (Expect()) that are in no batch and
    ///         have not started: (session, announced time), in announcement order
    std::vector<std::pair<uint64_t, Time>> GetExpected(uint16_t target) const;

    /// \return true if \p sessionId has started its handover or is in a batch
    bool IsInBatch(uint64_t sessionId) const;

    /// \return the target's plan of the batch \p sessionId waits in, if that batch is
    ///         coordinated (nullptr: no batch, or one this source planned alone)
    const Coordination* GetCoordination(uint64_t sessionId) const;

    /// \return the handovers announced with Expect() that have not started (session,
    ///         target, announced time)
    const std::vector<Expected>& GetAnnounced() const;

    /**
     * \brief A handover starts now.
     * \param sessionId the session
     * \param target target cell
     * \param context the session's context now, tokens, >= 1
     * \param now the current time (its handover time tau)
     * \param inputs R, p and T_c toward this target
     * \param predict contexts of announced members at their announced times
     * \return this member's split and batch
     */
    Decision Start(uint64_t sessionId,
                   uint16_t target,
                   uint64_t context,
                   Time now,
                   const PlanInputs& inputs,
                   const ContextPredictor& predict);

    /**
     * \brief The RRC aborted \p sessionId's announced handover before it started (e.g. the
     *        target had no dedicated preamble left): no batch waits for it any longer.
     *
     * Announced but not yet in a batch: forgotten, so the batch that forms later is planned
     * without it. In a known-times batch: the batch no longer waits for it and completes
     * once every other member has started, at the L it was planned with (the members that
     * started already have their split); its target is told the smaller size (the
     * BatchCompleteCallback's "needs BATCH_CLOSE" flag is then true).
     * \param sessionId the session
     * \return the target it was announced to, 0 if it was not announced (or had started)
     */
    uint16_t Withdraw(uint64_t sessionId);

    /// \return the policy
    Ptr<HandoverScheduler> GetScheduler() const;

  private:
    /// A batch being filled.
    struct Batch
    {
        uint16_t target{0};          //!< Target cell
        bool online{false};          //!< Unknown times: closes at closeTime
        Time closeTime;              //!< Online: the planned GPU start
        EventId closeEvent;          //!< Online: the close (on the simulator's clock)
        uint64_t prefillLength{0};   //!< L
        double transferBound{0};     //!< g(L) of the plan, s
        std::set<uint64_t> members;  //!< Known times: the sessions to wait for
        std::size_t announced{0};    //!< Known times: members when planned (coordinated:
                                     //!< this source's members in the target's group)
        std::vector<CtHoUe> arrived; //!< Actual (tau, C) so far
        PlanInputs inputs;           //!< As planned
    };

    uint32_t FormKnown(uint64_t sessionId,
                       uint16_t target,
                       uint64_t context,
                       Time now,
                       const PlanInputs& inputs,
                       const ContextPredictor& predict);
    uint32_t FormOnline(uint64_t sessionId,
                        uint16_t target,
                        uint64_t context,
                        Time now,
                        const PlanInputs& inputs);
    void Complete(uint32_t batchId);
    /// Plans \p planned with the batch's inputs; sets its L and g(L).
    CtHoPlan Plan(Batch& batch, const std::vector<CtHoUe>& planned) const;
    /// \return the current time (the clock's, else the simulator's)
    Time Now() const;

    Clock m_clock; //!< Empty: the simulator

    Ptr<HandoverScheduler> m_scheduler;        //!< Policy
    std::vector<Expected> m_expected;          //!< Announced, not yet batched
    std::map<uint32_t, Batch> m_batches;       //!< Open batches
    std::map<uint64_t, uint32_t> m_memberOf;   //!< Session -> open known-times batch
    std::map<uint16_t, uint32_t> m_openOnline; //!< Target -> open online batch
    std::map<uint16_t, double> m_gpuBusyUntil; //!< Target -> its GPU ends our batches at, s
    std::set<uint64_t> m_started;              //!< Sessions that have started
    std::map<uint16_t, std::vector<CtHoUe>> m_simultaneous; //!< Same-instant arrivals
    uint32_t m_nextBatchId{1};                              //!< Next id
    BatchCompleteCallback m_complete;                       //!< Completion callback
    ArrivalPredictor m_predictor;                           //!< Online look-ahead
};

} // namespace ns3

#endif /* HANDOVER_BATCHER_H */
