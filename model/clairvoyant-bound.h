/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CLAIRVOYANT_BOUND_H
#define CLAIRVOYANT_BOUND_H

#include "accuracy-utility.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One user of a clairvoyant instance: its handover time, cache and utility.
 */
struct ClairvoyantUser
{
    double arrival{0};       //!< a_i, handover time, s, >= 0
    double cacheBits{0};     //!< L_i, bits, > 0
    AccuracyUtility utility; //!< A_i
};

/**
 * \ingroup edge-llm
 * \brief A whole ImpactHO arrival trace known in advance (ImpactHO Sec. VI-E), in the
 *        slotted process of ImpactHoFluidScenario: user i may receive bits in the slot
 *        starting at t = m dt (m = 0, 1, ...) if a_i <= t < a_i + T_max; bits are sent at
 *        a constant rate within a slot, so a slot whose window closes after a fraction s of
 *        it delivers that fraction of the bits sent in it (s = clip((a_i + T_max - t) / dt,
 *        0, 1)); no more than L_i bits are ever sent.
 */
struct ClairvoyantInstance
{
    std::vector<ClairvoyantUser> users; //!< Any order
    double slot{0.1};                   //!< dt, s, > 0
    double window{0.5};                 //!< T_max, s, > 0
    double budgetBits{2e9};             //!< B dt, bits per slot, >= 0

    /**
     * \brief Check every field (and every user's utility).
     * \throws std::invalid_argument naming the field and its valid range
     */
    void Validate() const;

    /**
     * \brief The slots user \p i may use, computed exactly as ImpactHoFluidScenario does
     *        (t = m * dt in double precision, active if a_i <= t and a_i + T_max > t).
     * \return (m, s) pairs: slot index and the delivered share s in (0, 1], in order
     */
    std::vector<std::pair<uint64_t, double>> Slots(std::size_t i) const;
};

/**
 * \ingroup edge-llm
 * \brief What the piecewise-linear MILP gives (all accuracies are means over users).
 */
struct ClairvoyantBoundResult
{
    double upper{0};              //!< Validated upper bound: milpBound + correction
    double milpBound{0};          //!< Solver's proven bound on the PWL optimum
    double milpObjective{0};      //!< PWL objective of the best allocation found
    double correction{0};         //!< Mean over users of max_y (A_i(y) - P_i(y)) (validated)
    double lower{0};              //!< Best allocation found, on the true A_i: a feasible value
    bool provenOptimal{false};    //!< The solver closed the gap (else a limit hit)
    double seconds{0};            //!< Wall time of the solve, s
    uint32_t columns{0};          //!< Variables
    uint32_t rows{0};             //!< Constraints
    uint32_t binaries{0};         //!< Binary variables
    uint32_t segments{0};         //!< Largest segment count of a user's PWL utility
    uint64_t nodes{0};            //!< Branch-and-bound nodes
    std::vector<double> received; //!< y_i of the best allocation, per user (instance order)
};

/**
 * \ingroup edge-llm
 * \brief What the concave-envelope LP gives (means over users).
 */
struct EnvelopeBoundResult
{
    double upper{0};              //!< Validated upper bound: the LP optimum
    double lower{0};              //!< The LP's allocation on the true A_i: a feasible value
    double seconds{0};            //!< Wall time of the solve, s
    std::vector<double> received; //!< y_i of the LP's allocation, per user
};

/**
 * \ingroup edge-llm
 * \brief ImpactHO's clairvoyant upper bound (ImpactHO Sec. VI-E; doc/edge-llm-design.rst,
 *        ImpactHO clairvoyant bound): the best mean final accuracy any allocation could
 *        reach on a trace known in advance, without the per-slot view and without the
 *        concave-region restriction, solved by COIN-OR CBC.
 *
 * Variables: f_{i,m} >= 0, the fraction of L_i sent in slot m of user i's window.
 * Constraints: sum_i L_i f_{i,m} <= B dt per slot; sum_m f_{i,m} <= 1 (no more sent than
 * the cache: the online allocator's y_i <= 1 per slot); received y_i = sum_m s_{i,m} f_{i,m}.
 * Objective: (1/N) sum_i A_i(y_i), the fluid scenario's mean final accuracy.
 *
 * * SolveMilp(): A_i replaced by its interpolant P_i on at most Segments breakpoints
 *   (placed to equalize |A_i - P_i|), incremental formulation with one binary per
 *   segment of the convex part. P_i <= A_i + e_i with e_i = max_y (A_i(y) - P_i(y)),
 *   computed on a grid with the curvature term |A''| h^2 / 8, so that
 *   upper = solver bound + mean e_i never underestimates the true continuous optimum.
 * * SolveEnvelope(): A_i replaced by its concave envelope (the tangent from (0, A_i(0))
 *   to the concave branch, then A_i), written as the minimum of Tangents tangent lines:
 *   an LP whose optimum is an upper bound too, cheap at any size.
 */
class ImpactHoClairvoyantBound : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ImpactHoClairvoyantBound();

    /**
     * \brief The piecewise-linear MILP (certified with CBC's best bound).
     * \param instance the trace (validated)
     * \return the bound, its PWL parts and a feasible allocation
     * \throws std::invalid_argument for a bad instance
     * \throws std::runtime_error if CBC fails (infeasible, no bound within TimeLimit, or a
     *         bound below a feasible point's value)
     */
    ClairvoyantBoundResult SolveMilp(const ClairvoyantInstance& instance) const;

    /**
     * \brief The concave-envelope LP relaxation.
     * \param instance the trace (validated)
     * \throws std::invalid_argument for a bad instance
     * \throws std::runtime_error if CBC's LP solver fails
     */
    EnvelopeBoundResult SolveEnvelope(const ClairvoyantInstance& instance) const;

    /**
     * \brief Breakpoints 0 = g_0 < ... < g_n = 1 (n <= segments) that roughly equalize
     *        max |A - chord| over the segments.
     * \param a the utility
     * \param segments n_max, >= 2
     */
    static std::vector<double> Breakpoints(const AccuracyUtility& a, uint32_t segments);

    /**
     * \brief Validated max_{y in [0, 1]} (A(y) - P(y)) of the interpolant P of \p a on
     *        \p grid: the largest sampled difference plus C h^2 / 8 on each segment
     *        (h: sample spacing; C = M k^2 / 2 >= |A''| for all four families).
     * \return the error, >= 0
     */
    static double InterpolationError(const AccuracyUtility& a, const std::vector<double>& grid);

    /**
     * \brief The tangency point y* of the concave envelope of A on [0, 1]: the y > tau with
     *        A(y) - A(0) = A'(y) y, or 1 if the chord to (1, A(1)) lies above A.
     */
    static double EnvelopeTangency(const AccuracyUtility& a);

    /// \return the concave envelope of A on [0, 1] at y
    static double Envelope(const AccuracyUtility& a, double y);

  private:
    uint32_t m_segments; //!< Largest number of PWL segments per utility
    uint32_t m_tangents; //!< Tangent lines of the envelope LP per utility
    Time m_timeLimit;    //!< CBC's time limit
    double m_gap;        //!< CBC's relative gap tolerance
};

} // namespace ns3

#endif /* CLAIRVOYANT_BOUND_H */
