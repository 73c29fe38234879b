/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROAD_UE_DRAW_H
#define ROAD_UE_DRAW_H

#include "ns3/ctho-planner.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The paper's road UEs (ctHO Sec. IV-A): K UEs at x_i(0) ~ Unif[startMin, startMax]
 *        at constant speed, handover at tau_i = (boundary - x_i(0)) / speed, context
 *        C_i ~ Unif{contextMin..contextMax}.
 */
struct RoadUeDraw
{
    static constexpr uint32_t MAX_UES = 10000; //!< The most UEs of a draw (flow level)

    /// \return numUes' valid range, "[1, 10000]" (Validate's message and the programs'
    ///         option parsing quote it)
    static std::string NumUesRange();

    uint32_t numUes{4};        //!< K, in [1, MAX_UES]
    double boundary{150};      //!< x_b, m
    double startMin{120};      //!< m
    double startMax{130};      //!< m
    double speed{20};          //!< m/s
    uint32_t contextMin{1024}; //!< tokens
    uint32_t contextMax{4096}; //!< C_max, tokens

    /**
     * \brief Check every field.
     * \throws std::invalid_argument naming the field and its valid range
     */
    void Validate() const;

    /**
     * \brief Draw the UEs of run \p run: the same (seed, run) always gives the same UEs,
     *        whatever else the simulation draws (fixed streams).
     * \return UEs with ids 1..K
     */
    std::vector<CtHoUe> Draw(uint64_t run) const;
};

} // namespace ns3

#endif /* ROAD_UE_DRAW_H */
