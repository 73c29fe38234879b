/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IMPACTHO_FLUID_SCENARIO_H
#define IMPACTHO_FLUID_SCENARIO_H

#include "ns3/accuracy-utility.h"
#include "ns3/nstime.h"
#include "ns3/pre-transfer-scheduler.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Knobs of ImpactHO's evaluation (ImpactHO Sec. VI-A; doc/edge-llm-design.rst, ImpactHO
 *        evaluation).
 */
struct ImpactHoFluidConfig
{
    std::string policy{"WaterFilling"};     //!< ImpactHoScheduler Policy
    std::string fallback{"EqualizedBytes"}; //!< ImpactHoScheduler Fallback
    std::string model{"qwen3-8b"};          //!< LLM preset
    uint32_t kvBits{16};                    //!< q
    double backhaulGbps{20};                //!< B, Gbit/s
    Time slot{MilliSeconds(100)};           //!< dt
    Time window{MilliSeconds(500)};         //!< T_max (a very long one: no truncation)
    double arrivalRate{4};                  //!< rho, handovers/s (Poisson)
    Time simTime{Seconds(100)};             //!< Arrivals in [0, simTime)
    bool importanceOrder{true};             //!< Fast KVzip order (false: random order)
    double kvAccuracyLoss{0}; //!< Share of M lost at kvBits < 16 (a quantizer's measured
                              //!< loss), in [0, 1); 0 at kvBits = 16
    std::vector<uint64_t> contexts{4096, 8192, 16384}; //!< Uniform choice per user
    /// Which utility presets (AccuracyUtility::Preset; EdgeLlmSourceRole::UtilityCalibration at
    /// packet level)
    AccuracyUtility::Calibration calibration{AccuracyUtility::HEADLINE};
    /// Explicit importance-order anchors instead of the calibration's (flow level only:
    /// the calibration fit evaluates its candidates this way)
    std::optional<AccuracyUtility::Anchors> anchors;
    /// Proactive pre-transfer (null: none): a PreTransferScheduler with Trigger
    /// PredictedCrossing. Each user's cache is sent in importance order from its LeadTime
    /// before its arrival, in the slots before it, with the part of each slot's budget the
    /// active users leave, at most its RateShare, shared equally; it arrives holding that
    /// share of its cache (doc/edge-llm-design.rst, "Proactive KV pre-transfer")
    Ptr<PreTransferScheduler> preTransfer;

    /**
     * \brief The utility of a user with \p contextTokens under these knobs (the
     *        calibration or the explicit anchors, the order, the KV accuracy loss).
     */
    AccuracyUtility Utility(uint64_t contextTokens) const;

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief One user of an ImpactHO run.
 */
struct ImpactHoUserResult
{
    double arrival{0};         //!< Handover time, s
    uint64_t contextTokens{0}; //!< C_i
    double received{0};        //!< Final fraction x_i
    double accuracy{0};        //!< A_i(x_i)
    double fullAccuracy{0};    //!< M_i, the full-cache ceiling
    bool starved{false};       //!< x_i never reached tau_i within T_max
    /// Time from arrival to 99 % of full accuracy, s (NaN: never)
    double latency99{std::numeric_limits<double>::quiet_NaN()};
    double cacheBits{0};     //!< L_i, bits (flow level; 0 at packet level)
    double preSent{0};       //!< Share of the cache sent ahead (pre-transfer; 0: none)
    AccuracyUtility utility; //!< A_i the run used (flow level; the preset at packet level)
};

/**
 * \ingroup edge-llm
 * \brief What one ImpactHO run gives.
 */
struct ImpactHoFluidResult
{
    std::vector<ImpactHoUserResult> users; //!< In arrival order
    double meanAccuracy{0};                //!< Average final accuracy
    double meanFullAccuracy{0};            //!< Average ceiling (the full-cache curve)
    double starvationRate{0};              //!< Share of starved users
    uint64_t fallbackSlots{0};             //!< Slots decided by the admission fallback
    uint64_t slots{0};                     //!< Slots with active users
    double preSentBits{0};                 //!< Bits sent ahead (pre-transfer), all used
};

/**
 * \ingroup edge-llm
 * \brief Flow-level ImpactHO: Poisson handovers, each cache sent in importance order,
 *        every slot's budget B dt shared by an ImpactHoScheduler (the same object the
 *        packet level uses), truncation after T_max.
 *
 * A handover that arrives inside a slot waits for the next slot. In a slot a user's
 * share is delivered at a constant rate; a window that ends mid-slot truncates it
 * pro rata. The final accuracy is the utility of the received fraction (anytime
 * inference); a user is starved if it never reached its tau.
 */
class ImpactHoFluidScenario
{
  public:
    /**
     * \param config the knobs (validated)
     * \param run the run number: the arrivals and contexts of (seed, run)
     * \throws std::invalid_argument for a bad config
     */
    static ImpactHoFluidResult Run(const ImpactHoFluidConfig& config, uint64_t run);

    /**
     * \brief The handovers of (seed, run): Poisson times in [0, simTime) at arrivalRate
     *        and a uniform choice of context, from fixed streams (the packet level draws
     *        the same ones).
     * \return (handover time in s, context in tokens), in time order
     */
    static std::vector<std::pair<double, uint64_t>> DrawHandovers(const ImpactHoFluidConfig& config,
                                                                  uint64_t run);

    /**
     * \brief Table II's compute baselines for one user arriving at \p arrival with
     *        \p context tokens: re-prefill on its own GPU (ImpactHO's quadratic p) and
     *        hybrid (ctHO-style split for that user alone on a FCFS backhaul that is busy
     *        until \p backhaulFreeAt), latency in s.
     */
    static double RePrefillLatency(uint64_t context);
    static double HybridLatency(uint64_t context,
                                double arrival,
                                double& backhaulFreeAt,
                                double backhaulTokensPerSecond);
};

} // namespace ns3

#endif /* IMPACTHO_FLUID_SCENARIO_H */
