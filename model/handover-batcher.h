/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HANDOVER_BATCHER_H
#define HANDOVER_BATCHER_H

#include "handover-scheduler.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Groups the handovers of one source BS into ctHO batches and plans each once;
 *        shared by the packet level (EdgeLlmNode) and the flow level
 *        (FluidHandoverScenario), so both apply the same policy.
 *
 * Known handover times (ctHO): handovers announced with Expect() to the same target
 * and still pending when one of them starts form one batch. It is planned at that
 * first start with the scheduler, from the announced times and the contexts the
 * caller predicts for them. Each member's actual context then fixes its split
 * `n_pf = min(C, L)`, `n_tx = C - n_pf`. When the last member has started, the plan is
 * evaluated again at the chosen L on the actual times and contexts (the planner's
 * prediction for what really happened). An unannounced handover is a batch of one.
 */
class HandoverBatcher
{
  public:
    /**
     * \brief Predicts a session's context at a future time.
     * \return tokens, or 0 if the session cannot hand over (unknown, already moved)
     */
    using ContextPredictor = std::function<uint64_t(uint64_t sessionId, Time when)>;

    /// What the planner needs besides the UEs.
    struct PlanInputs
    {
        double backhaulTokensPerSecond{0}; //!< R, tokens/s, > 0
        PrefillTimeModel prefill;          //!< Target GPU's p(L)
        double batchPeriod{0.01};          //!< T_c, s
    };

    /// One member's part of its batch.
    struct Decision
    {
        uint32_t batchId{0};        //!< Batch identifier (unique per batcher)
        uint16_t batchSize{0};      //!< Members in the batch
        uint64_t prefillLength{0};  //!< L of the batch, tokens
        uint64_t prefillTokens{0};  //!< n_pf = min(C, L)
        uint64_t transferTokens{0}; //!< n_tx = C - n_pf
        Time deadline;              //!< tau + g(L): the EDF deadline of its transfer
    };

    /**
     * \param scheduler the policy that chooses L (ctHO, tHO, cHO, ...)
     */
    explicit HandoverBatcher(Ptr<HandoverScheduler> scheduler);

    /**
     * \brief Announce a handover of \p sessionId to \p target at \p when.
     */
    void Expect(uint64_t sessionId, uint16_t target, Time when);

    /**
     * \brief A handover starts now.
     * \param sessionId the session
     * \param target target cell
     * \param context the session's context now, tokens, >= 1
     * \param now the current time (its handover time tau)
     * \param inputs R, p and T_c toward this target
     * \param predict contexts of announced members at their announced times
     * \param completed set to the plan on actual values when this start completes
     *        its batch, left empty otherwise
     * \return this member's split and batch
     */
    Decision Start(uint64_t sessionId,
                   uint16_t target,
                   uint64_t context,
                   Time now,
                   const PlanInputs& inputs,
                   const ContextPredictor& predict,
                   std::optional<CtHoPlan>& completed);

    /// \return the policy
    Ptr<HandoverScheduler> GetScheduler() const;

  private:
    /// A handover announced with Expect().
    struct Expected
    {
        uint64_t sessionId{0}; //!< Session
        uint16_t target{0};    //!< Target cell
        Time when;             //!< Announced time
    };

    /// A batch being filled.
    struct Batch
    {
        uint16_t target{0};          //!< Target cell
        uint64_t prefillLength{0};   //!< L
        double transferBound{0};     //!< g(L) of the plan, s
        std::set<uint64_t> members;  //!< Sessions
        std::vector<CtHoUe> arrived; //!< Actual (tau, C) so far
        PlanInputs inputs;           //!< As planned
    };

    uint32_t Form(uint64_t sessionId,
                  uint16_t target,
                  uint64_t context,
                  Time now,
                  const PlanInputs& inputs,
                  const ContextPredictor& predict);

    Ptr<HandoverScheduler> m_scheduler;      //!< Policy
    std::vector<Expected> m_expected;        //!< Announced, not yet batched
    std::map<uint32_t, Batch> m_batches;     //!< Open batches
    std::map<uint64_t, uint32_t> m_memberOf; //!< Session -> open batch
    uint32_t m_nextBatchId{1};               //!< Next id
};

} // namespace ns3

#endif /* HANDOVER_BATCHER_H */
