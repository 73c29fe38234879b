/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IMPACTHO_BOUND_SCENARIO_H
#define IMPACTHO_BOUND_SCENARIO_H

#include "impactho-fluid-scenario.h"

#include "ns3/clairvoyant-bound.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One run of the online allocator and its clairvoyant bounds (means over users).
 */
struct ImpactHoBoundSample
{
    uint32_t users{0};            //!< Handovers in the run
    double online{0};             //!< Online allocator's mean final accuracy
    ClairvoyantBoundResult milp;  //!< The PWL MILP bound
    EnvelopeBoundResult envelope; //!< The concave-envelope LP bound
};

/**
 * \ingroup edge-llm
 * \brief ImpactHO's clairvoyant bound on the flow-level runs of ImpactHoFluidScenario
 *        (doc/edge-llm-design.rst, ImpactHO clairvoyant bound).
 */
class ImpactHoBoundScenario
{
  public:
    /**
     * \brief The clairvoyant instance of a flow-level run: its users (arrival, L_i, A_i as
     *        the run used them), dt, T_max and B dt exactly as ImpactHoFluidScenario::Run
     *        computes them.
     * \param config the run's knobs
     * \param online the run's result (flow level)
     */
    static ClairvoyantInstance Instance(const ImpactHoFluidConfig& config,
                                        const ImpactHoFluidResult& online);

    /**
     * \brief Run the online allocator (config's policy) on (seed, run), then both bounds on
     *        the same trace.
     * \param config the knobs (validated)
     * \param run the run number
     * \param bound the solver (its attributes: segments, tangents, limits)
     * \throws std::invalid_argument for a bad config; std::runtime_error if CBC fails
     */
    static ImpactHoBoundSample Run(const ImpactHoFluidConfig& config,
                                   uint64_t run,
                                   Ptr<ImpactHoClairvoyantBound> bound);

    /**
     * \brief `impactho-figures --figure=bound`: for rho = 1..8 users/s, the online allocator
     *        (ImpactHO, EB fallback) as a share of the MILP bound and of the envelope bound,
     *        mean and 95 % CI over runs 1..runs; writes DIR/figbound.csv
     *        (rho,series,mean,ci95,runs) and DIR/figbound.png, prints a table on stdout and
     *        progress on stderr. Runs without handovers are left out (counted in `runs`).
     * \param runs runs per rho, >= 2
     * \param simTime arrivals in [0, simTime) s per run (the MILP grows with it)
     * \param outputDir an existing writable directory
     * \param calibration the utility presets the users draw (doc: "Calibrations")
     * \return the exit code: 0, or 1 if a file could not be written
     */
    static int Figure(uint32_t runs,
                      double simTime,
                      const std::string& outputDir,
                      AccuracyUtility::Calibration calibration = AccuracyUtility::HEADLINE);
};

} // namespace ns3

#endif /* IMPACTHO_BOUND_SCENARIO_H */
