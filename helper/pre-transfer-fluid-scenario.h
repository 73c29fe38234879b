/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRE_TRANSFER_FLUID_SCENARIO_H
#define PRE_TRANSFER_FLUID_SCENARIO_H

#include "ns3/edge-llm-node.h"
#include "ns3/handover-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/prefill-time-model.h"
#include "ns3/ptr.h"
#include "ns3/road-ue-draw.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

class PreTransferScheduler;

/**
 * \ingroup edge-llm
 * \brief Knobs of the flow-level pre-transfer engine (doc/edge-llm.rst, "Proactive KV
 *        pre-transfer").
 */
struct PreTransferFluidConfig
{
    std::string model{"qwen2.5-7b-instruct"}; //!< LLM preset
    uint32_t kvBits{16};                      //!< q
    double backhaulGbps{4.5}; //!< R of every directed BS-to-BS link, Gbit/s (1e9 bit/s), > 0
    PrefillTimeModel prefill; //!< Every target GPU's p(L)
    Time batchPeriod{MilliSeconds(10)}; //!< T_c
    /// A source's handovers to one target within this many s of the batch's first are
    /// planned together, at the first (infinity: all of them, ctHO's known handover times;
    /// 0: each alone), >= 0
    double batchSpan{std::numeric_limits<double>::infinity()};
    /// Memory for KV caches sent ahead, per target BS, bytes, >= 1 (the packet level's
    /// EdgeLlmNode KvMemoryCapacity, whose default it takes)
    uint64_t kvMemoryCapacity{EdgeLlmNode::DEFAULT_KV_MEMORY_CAPACITY};

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief One handover episode of a UE: a trigger towards a predicted target, and the
 *        handover that follows (to that cell, another one, or none). A UE that hands over
 *        twice (ping-pong) has two episodes.
 */
struct PreTransferUe
{
    uint64_t ueId{0};   //!< The UE (echoed; several episodes may share it)
    uint16_t source{1}; //!< Serving BS's cell id
    /// When the trigger fired, s (NaN: never; a time at or after the handover: no effect)
    double triggerTime{std::numeric_limits<double>::quiet_NaN()};
    uint16_t predictedTarget{2}; //!< The cell the trigger predicts, != source
    /// When the source stops sending ahead without a handover (the UE left the trigger
    /// condition or ended its session), s (NaN: never)
    double triggerEnd{std::numeric_limits<double>::quiet_NaN()};
    /// tau, the handover, s (NaN: none)
    double handoverTime{std::numeric_limits<double>::quiet_NaN()};
    uint16_t target{2};        //!< The cell the UE hands over to, != source
    uint64_t prefixTokens{0};  //!< Tokens decoded by the trigger: the prefix sent ahead
    uint64_t contextTokens{0}; //!< C, tokens decoded by the handover, >= prefixTokens
    /// Tokens decoded per s after the trigger (the PreTransferScheduler's FollowDecoding
    /// sends them ahead too, up to contextTokens), >= 0
    double decodeRate{0};
};

/**
 * \ingroup edge-llm
 * \brief What happened to one episode.
 */
struct PreTransferUeResult
{
    uint64_t ueId{0};           //!< As in the input
    bool handedOver{false};     //!< The episode had a handover
    double handoverTime{0};     //!< tau, s (NaN: none)
    uint16_t target{0};         //!< The cell it handed over to (0: none)
    bool predictedRight{false}; //!< target == predictedTarget
    double preSentBytes{0};     //!< Bytes that reached the predicted target ahead
    uint64_t usedTokens{0};     //!< P: whole tokens of them the target used
    double wastedBytes{0};      //!< preSentBytes - P x bytes per token
    bool evicted{false};        //!< Its pre-sent bytes were evicted (memory full)
    uint64_t prefillTokens{0};  //!< n_pf of the rest, planned at the handover
    uint64_t transferTokens{0}; //!< n_tx of the rest
    double handoverBytes{0};    //!< KV bytes sent at the handover, n_tx x bytes/token
    double delay{std::numeric_limits<double>::quiet_NaN()}; //!< D, s (NaN: no handover)
};

/**
 * \ingroup edge-llm
 * \brief The outcome of one flow-level pre-transfer run.
 */
struct PreTransferFluidResult
{
    std::string scheme;                   //!< The scheduler's name ("pre-ctho", "ctho", ...)
    std::vector<PreTransferUeResult> ues; //!< Input order
    double worstDelay{0};                 //!< max D over handovers, s
    double meanDelay{0};                  //!< mean D over handovers, s (0: none)
    double preSentBytes{0};               //!< Sum of preSentBytes
    double wastedBytes{0};                //!< Sum of wastedBytes
    double handoverBytes{0};              //!< Sum of handoverBytes
    double backhaulBytes{0};              //!< preSentBytes + handoverBytes
    uint32_t evictions{0};                //!< Entries evicted from a full KV memory
};

/**
 * \ingroup edge-llm
 * \brief Flow-level engine of proactive pre-transfer: fluid backhaul links (one per
 *        directed BS pair, rate R), every target's bounded KV memory (KvPreTransferStore),
 *        and the scheduler's PlanBatch for every batch of handovers; the same engine runs a
 *        plain batch policy (ctHO, tHO, cHO: triggers ignored) on the same episodes.
 *
 * Pre-transfer (a PreTransferScheduler): at its trigger an episode reserves room for its
 * prefix at the predicted target (evicting the oldest entries when full; a prefix larger
 * than the whole memory is refused, counted as an eviction) and sends it at its share of
 * RateShare x R (pausing while a planned batch uses the link if YieldToHandovers). A
 * batch is planned at its first handover: every member stops sending ahead; a member
 * whose target holds its entry uses P = floor(arrived bytes / bytes per token) tokens of
 * it, the rest of its cache, C - P tokens, is planned by the inner policy
 * (PlanBatch with the link's backlog and the target GPU's previous batch; R x (1 -
 * RateShare) while other pre-transfers keep their share) and a member with nothing left
 * has D = 0. Bytes a member does not use, or an episode without a handover to its
 * predicted target leaves there, are waste: dropped HoldTime after the source stopped
 * (the handover elsewhere, triggerEnd, or the run's end), or at once when evicted. A
 * trigger towards the cell the UE's last handover (of an earlier episode of the same
 * ueId, at or before the trigger) came from, less than PingPongTime after it, is ignored
 * (as at packet level).
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
