/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COORDINATED_PLANNER_H
#define COORDINATED_PLANNER_H

#include "ctho-planner.h"
#include "prefill-time-model.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The handovers one source sends into the coordinating target within one batch
 *        period, over its own inbound path.
 */
struct CoordinatedSource
{
    uint16_t sourceCellId{0};          //!< The source BS (echoed in the plan)
    double backhaulTokensPerSecond{0}; //!< R_s of its path to the target, tokens/s, > 0
    double backhaulFreeAt{0};          //!< When its path is free of earlier transfers, s
    /// Packet level: its path's request, id wire times and delay (CtHoSignalling; all
    /// zero, the default: the papers' fluid model). gpuFreeAt is the planner's
    /// (SetGpuFreeAt) and the last handover's; closeSentAt is ignored (no close message:
    /// every member is announced).
    CtHoSignalling signalling;
    std::vector<CtHoUe> ues; //!< Its UEs, >= 1; handover times >= 0, contexts >= 1
};

/**
 * \ingroup edge-llm
 * \brief A target-coordinated plan: one prefill length for the target's GPU and, per
 *        inbound path, the EDF transfer schedule of the rest (CtHoPlan).
 */
struct CoordinatedPlan
{
    uint64_t prefillLength{0};     //!< L, tokens, in {0, ..., C_max over every source}
    double batchStart{0};          //!< t_s: first T_c boundary >= the last handover, s
    double prefillDone{0};         //!< t_s + p(L) (t_s when L = 0), s
    double worstDelay{0};          //!< max over every UE of D_i, s
    std::vector<CtHoPlan> sources; //!< Per source, in input order, at L
};

/**
 * \ingroup edge-llm
 * \brief Target-coordinated ctHO (beyond both papers; doc/edge-llm-design.rst, "Target-coordinated
 *        planning"): the target plans together every handover that arrives from several
 *        sources within a batch period. Its GPU runs one batch: UE i prefills
 *        n_pf_i = min(C_i, L) tokens in a batch that starts on the first T_c boundary at
 *        or after the last handover over all sources and ends at T_pf(L) = t_s + p(L);
 *        each source s sends the other (C_i - L)^+ tokens over its own path of R_s
 *        tokens/s, in EDF (FIFO) order, independently of the other paths. The delay of UE
 *        i is D_i = max(T_pf(L) if n_pf_i > 0, T_tx_i) - tau_i, and L minimizes
 *        V(L) = max_i D_i.
 *
 * Pure math. V(L) = max(F(L), G(L)) where F(L) = max_s f_s(L) = T_pf(L) - min_i tau_i
 * (L > 0) is non-decreasing and G(L) = max_s g_s(L), the largest of the paths' ctHO
 * transfer bounds, non-increasing; so, as for one source (CtHoPlanner), the smallest L
 * with F >= G and its predecessor, plus 0 and C_max, contain an argmin: O(S K log C_max)
 * with S sources and K UEs. At packet level a source's f may not be monotone where a
 * request waits behind a part of its KV that varies with L (CtHoPlanner::IrregularSpans):
 * there every L is evaluated and the crossing is sought in each piece between. Among
 * equal minima the smallest L is returned. With one source it is
 * CtHoPlanner::PlanOptimal.
 */
class CoordinatedPlanner
{
  public:
    /**
     * \param prefill the target GPU's batch prefill time p(L)
     * \param batchPeriod T_c, s, in [0, 3600] (0: the batch starts at the last handover)
     * \throws std::invalid_argument naming the parameter and its range
     */
    CoordinatedPlanner(PrefillTimeModel prefill, double batchPeriod);

    /**
     * \brief The plan at L* = argmin V(L).
     * \param sources >= 1, each with R_s finite and > 0, >= 1 UE and signalling as
     *        CtHoPlanner::SetSignalling() takes it
     * \throws std::invalid_argument naming the source and the field
     */
    CoordinatedPlan PlanOptimal(const std::vector<CoordinatedSource>& sources) const;

    /**
     * \brief The plan at a given L (L = C_max: every source prefills everything, tHO;
     *        L = 0: cHO).
     * \param sources as for PlanOptimal()
     * \param prefillLength L >= 0
     * \throws std::invalid_argument as for PlanOptimal()
     */
    CoordinatedPlan PlanWithPrefillLength(const std::vector<CoordinatedSource>& sources,
                                          uint64_t prefillLength) const;

    /**
     * \brief The target's GPU is busy with earlier batches until \p t: the batch starts on
     *        the first T_c boundary at or after max(t, the last handover) (issue: the
     *        target's GPU in the plan).
     * \param t s, finite (default 0: idle)
     * \throws std::invalid_argument if not finite
     */
    void SetGpuFreeAt(double t);

  private:
    /// Checks \p sources; \return the last handover time over all of them
    double Check(const std::vector<CoordinatedSource>& sources) const;
    /// \return source \p src's own ctHO planner, its batch held until \p lastHandover
    ///         (the last over every source) and the GPU is free
    CtHoPlanner SourcePlanner(const CoordinatedSource& src, double lastHandover) const;

    PrefillTimeModel m_prefill; //!< p(L)
    double m_batchPeriod;       //!< T_c, s
    double m_gpuFreeAt{0};      //!< When the target's GPU is free, s
};

} // namespace ns3

#endif /* COORDINATED_PLANNER_H */
