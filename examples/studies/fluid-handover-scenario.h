/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_HANDOVER_SCENARIO_H
#define FLUID_HANDOVER_SCENARIO_H

#include "road-ue-draw.h"

#include "ns3/ctho-planner.h"
#include "ns3/llm-model-profile.h"
#include "ns3/nstime.h"
#include "ns3/prefill-time-model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Knobs of one flow-level batch (ctHO Sec. IV-A defaults).
 */
struct FluidHandoverConfig
{
    std::string schedulerType{"ns3::CtHoScheduler"}; //!< HandoverScheduler subclass
    std::string model{"qwen2.5-7b-instruct"};        //!< LLM preset
    uint32_t kvBits{16};                             //!< q
    double backhaulGbps{4.5};                        //!< R in Gbit/s (1e9 bit/s), > 0
    PrefillTimeModel prefill;                        //!< Target GPU's p(L)
    Time batchPeriod{MilliSeconds(10)};              //!< T_c
    bool knownHandoverTimes{true};                   //!< ctHO's setting; false: online batches
    Time lookahead{Seconds(0)}; //!< Online: predicted arrivals within this (perfect
                                //!< foresight of the road's times and contexts)
    /// Online: handovers within this time of the first are planned together (as
    /// EdgeLlmSourceRole's GatherTime does at packet level), [0, 1] s
    Time gatherTime{MilliSeconds(2)};
    /// Attributes of the scheduler, name and value, set on it after Lookahead (a
    /// scheme's, HandoverScheme::attributes); Run refuses one the type does not have
    std::vector<std::pair<std::string, std::string>> schedulerAttributes;
};

/**
 * \ingroup edge-llm
 * \brief The outcome of one flow-level batch.
 */
struct FluidHandoverResult
{
    uint64_t prefillLength{0};   //!< L chosen by the scheduler
    std::vector<CtHoUePlan> ues; //!< Per UE, input order: split, completion times, D_i
    double worstDelay{0};        //!< max_i D_i, s
};

/**
 * \ingroup edge-llm
 * \brief ctHO's flow level: a preset of the flow-level core (FluidHandoverEngine) with
 *        one source and one target BS and no pre-transfer; the handovers form one batch
 *        (known times) or online batches (HandoverBatcher, as at packet level).
 */
class FluidHandoverScenario
{
  public:
    /**
     * \brief One run (the ns-3 simulator is not used).
     * \param config scheme, model, backhaul, GPU
     * \param ues handover times (s, >= 0) and contexts (tokens, >= 1)
     * \return per-UE delays
     * \throws std::invalid_argument for a bad config or UE
     */
    static FluidHandoverResult Run(const FluidHandoverConfig& config,
                                   const std::vector<CtHoUe>& ues);
};

} // namespace ns3

#endif /* FLUID_HANDOVER_SCENARIO_H */
