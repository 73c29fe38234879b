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
#include <string>
#include <vector>

namespace ns3
{

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
     * \return the plan at the prefill length chosen by ChoosePrefillLength()
     * \throws std::invalid_argument for an empty batch or invalid values
     */
    CtHoPlan PlanBatch(const std::vector<CtHoUe>& batch,
                       double backhaulTokensPerSecond,
                       const PrefillTimeModel& prefill,
                       double batchPeriod,
                       double backhaulFreeAt = 0,
                       const CtHoSignalling& signalling = CtHoSignalling()) const;

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

  protected:
    Time m_lookahead; //!< Online look-ahead for predicted arrivals

    /**
     * \brief The policy's hook: the batch prefill length L.
     * \param planner a planner for this batch's R, p and T_c
     * \param batch the batch's UEs (non-empty, validated)
     * \return L in tokens, 0 <= L <= C_max
     */
    virtual uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                         const std::vector<CtHoUe>& batch) const = 0;
};

} // namespace ns3

#endif /* HANDOVER_SCHEDULER_H */
