/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CTHO_SCHEDULER_H
#define CTHO_SCHEDULER_H

#include "handover-scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief ctHO: the prefill length L* = argmin max(f(L), g(L)) of CtHoPlanner
 *        (ctHO Eqs. (15)-(16) and the proposition after Prop. 2), EDF backhaul order
 *        (ctHO Sec. III-B).
 */
class CtHoScheduler : public HandoverScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetSchemeName() const override;
    uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                 const std::vector<CtHoUe>& batch) const override;
};

/**
 * \ingroup edge-llm
 * \brief tHO baseline: the target prefills every token, L = C_max (ctHO Sec. IV-B).
 */
class ThoScheduler : public HandoverScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetSchemeName() const override;
    uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                 const std::vector<CtHoUe>& batch) const override;
};

/**
 * \ingroup edge-llm
 * \brief cHO baseline: the whole KV cache crosses the backhaul, L = 0 (ctHO Sec. IV-B).
 */
class ChoScheduler : public HandoverScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetSchemeName() const override;
    uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                 const std::vector<CtHoUe>& batch) const override;
};

/**
 * \ingroup edge-llm
 * \brief Target-coordinated ctHO (beyond both papers; doc/edge-llm-design.rst, "Target-coordinated
 *        planning"): a source does not choose its batch's prefill length alone. PlanLead
 *        before the batch's first announced handover it sends the batch (handover times,
 *        contexts predicted at them, its path's planning rate) to the target in a
 *        PLAN_REQUEST; the target gathers the requests of every source until the first
 *        one's reply-by time, chooses one L for all of them by CoordinatedPlanner (its
 *        GPU runs them as one batch) and answers each with a PLAN. The source then plans
 *        its batch at that L (ctHO's EDF schedule on its own path). Without a PLAN by the
 *        batch's first handover (late, lost, or an unannounced handover) the source plans
 *        alone, as ctHO.
 */
class CoordinatedCtHoScheduler : public CtHoScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    std::string GetSchemeName() const override;
    Time GetPlanLead() const override;

  private:
    Time m_planLead; //!< PlanLead attribute
};

} // namespace ns3

#endif /* CTHO_SCHEDULER_H */
