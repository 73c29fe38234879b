/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRE_TRANSFER_FLUID_SCENARIO_H
#define PRE_TRANSFER_FLUID_SCENARIO_H

#include "road-ue-draw.h"

#include "ns3/fluid-handover-engine.h"
#include "ns3/handover-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/prefill-time-model.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

class PreTransferScheduler;

/// Knobs of the flow-level pre-transfer engine: the core's (doc/edge-llm-design.rst, "Proactive KV
/// pre-transfer").
using PreTransferFluidConfig = FluidEngineConfig;

/// One handover episode of a UE: a trigger towards a predicted target, and the handover
/// that follows (the core's episode).
using PreTransferUe = FluidHandoverEpisode;

/// What happened to one episode (the core's).
using PreTransferUeResult = FluidEpisodeResult;

/// The outcome of one flow-level pre-transfer run (the core's).
using PreTransferFluidResult = FluidEngineResult;

/**
 * \ingroup edge-llm
 * \brief Proactive pre-transfer at flow level: a preset of the flow-level core
 *        (FluidHandoverEngine, whose class comment describes the model), and the paper's
 *        road as episodes (RoadEpisodes). The same core runs a plain batch policy (ctHO,
 *        tHO, cHO: triggers ignored) on the same episodes.
 */
class PreTransferFluidScenario
{
  public:
    /**
     * \param config the knobs (validated)
     * \param scheduler a PreTransferScheduler, or a batch policy (no pre-transfer)
     * \param ues the episodes (validated)
     * \return per episode and totals
     * \throws std::invalid_argument naming the field for a bad config, episode or policy
     *         (a slot policy; YieldToHandovers false with RateShare 1)
     */
    static PreTransferFluidResult Run(const PreTransferFluidConfig& config,
                                      Ptr<HandoverScheduler> scheduler,
                                      const std::vector<PreTransferUe>& ues);

    /**
     * \brief The paper's road (RoadUeDraw of run \p run: source cell 1 at x = 0, target 2
     *        at x = bsDistance) as episodes for \p policy's trigger
     *        (PreTransferScheduler::RoadTriggerTime). A UE decodes decodeRate tokens/s, so
     *        its prefix at the trigger is C - ceil(decodeRate (tau - trigger)) (at least 0).
     *        A drawn share of the UEs, stopShare, ends its session at x ~ Unif[x(0),
     *        boundary) and never hands over (triggerEnd then; fixed random stream 13).
     * \param road the draw
     * \param run the run number
     * \param policy the trigger's owner
     * \param bsDistance D, m, > boundary
     * \param pathlossExponent n, > 0
     * \param decodeRate tokens/s, > 0
     * \param stopShare in [0, 1]
     * \return one episode per UE, by UE id
     * \throws std::invalid_argument naming the field
     */
    static std::vector<PreTransferUe> RoadEpisodes(const RoadUeDraw& road,
                                                   uint64_t run,
                                                   const PreTransferScheduler& policy,
                                                   double bsDistance,
                                                   double pathlossExponent,
                                                   double decodeRate,
                                                   double stopShare);
};

} // namespace ns3

#endif /* PRE_TRANSFER_FLUID_SCENARIO_H */
