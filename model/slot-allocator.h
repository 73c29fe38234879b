/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SLOT_ALLOCATOR_H
#define SLOT_ALLOCATOR_H

#include "accuracy-utility.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One user in a backhaul slot (ImpactHO Sec. III-V).
 */
struct SlotUser
{
    uint64_t userId{0};      //!< Caller's identifier
    double cacheBits{0};     //!< L_i = C_i s_KV, bits, > 0
    double received{0};      //!< x_i, fraction of the cache already delivered, in [0, 1]
    AccuracyUtility utility; //!< A_i
};

/**
 * \ingroup edge-llm
 * \brief What a slot allocator decided.
 */
struct SlotAllocation
{
    /// Which regime produced it.
    enum Regime
    {
        WATER_FILLING, //!< Feasible: every served user reaches its concavity anchor
        FALLBACK,      //!< Infeasible (B dt < B_min dt): the admission fallback
        BASELINE,      //!< A baseline policy (EA, WTA, PF): no regimes
    };

    std::vector<double> target; //!< y_i, fraction each user holds after the slot
    Regime regime{BASELINE};    //!< Regime
    double price{0}; //!< lambda (water filling; 0 below the smallest double), or PF's level in bits
    double budgetBits{0}; //!< B dt
    double usedBits{0};   //!< sum_i L_i (y_i - x_i) <= budgetBits

    /// \return "water-filling", "fallback" or "baseline"
    std::string RegimeName() const;
};

/**
 * \ingroup edge-llm
 * \brief Per-slot backhaul allocators of ImpactHO and its baselines (doc/edge-llm-design.rst,
 *        Model Description, ImpactHO slot allocation).
 *        Pure math. Water-filling costs O(N) per Newton step (5-9 steps at N = 10,000
 *        users with distinct parameters; within 1.3x of EA, BENCHMARKS.md), no admission
 *        O(N log N) (a binary search over sorted jump prices, O(N) a step), EA and PF
 *        O(N log N);
 *        cascading WTA O(N) per winner, O(N^2) when every winner is capped by its cache
 *        (296 ms at N = 10,000).
 *
 * Every allocator returns targets with `x_i <= y_i <= 1` and
 * `sum_i L_i (y_i - x_i) <= B dt` (never over budget; tested).
 */
class SlotAllocator
{
  public:
    /// ImpactHO's admission fallback when the slot cannot lift everyone to tau.
    enum Fallback
    {
        EQUALIZED_BYTES, //!< EB: equal bytes to the sub-tau users (default)
        CASCADING_WTA,   //!< Cascading winner-takes-all over the sub-tau users
        NO_ADMISSION,    //!< No floor, no admission: first-order water-filling on all users
    };

    /**
     * \brief ImpactHO: weighted water-filling (ImpactHO Theorem 1, Eq. (9); Algorithm 1).
     *
     * Feasible when `B dt >= sum_i L_i [tau_i - x_i]^+`: maximize `sum_i A_i(y_i)` over
     * `max(x_i, tau_i) <= y_i <= 1` within the budget. KKT: one price lambda >= 0 with
     * `y_i = clip((A_i')^{-1}(lambda L_i), max(x_i, tau_i), 1)`; lambda = 0 if everything
     * fits, else the root of `sum_i L_i (y_i(lambda) - x_i) = B dt`, found on
     * s = ln(lambda) (the root can lie hundreds of decades below the steepest slope for
     * steep logistic or erf curves) by safeguarded Newton steps from a closed-form
     * bracket, to within 1e-13 of the budget or a 1e-13-wide bracket, taking the end
     * within budget. Otherwise the fallback decides; NO_ADMISSION (no tau floor, no
     * admission) is water-filling on the utilities by their first-order conditions: a
     * user below tau stays put while A_i'(x_i) <= lambda L_i and jumps onto its concave
     * branch below that price; marginal users take the remainder in order, so it spends
     * min(B dt, sum_i L_i (1 - x_i)) (doc/edge-llm-design.rst, ImpactHO slot allocation).
     * \param users the active users (any count, >= 0)
     * \param budgetBits B dt, bits, >= 0
     * \param fallback what to do when infeasible
     * \throws std::invalid_argument for a user field out of range or a negative budget
     */
    static SlotAllocation WaterFilling(const std::vector<SlotUser>& users,
                                       double budgetBits,
                                       Fallback fallback = EQUALIZED_BYTES);

    /**
     * \brief EA: B dt / N bits each, capped at the user's remaining cache; what a
     *        capped user leaves is shared equally by the others (progressive filling).
     */
    static SlotAllocation EqualAllocation(const std::vector<SlotUser>& users, double budgetBits);

    /**
     * \brief Cascading WTA: the whole budget to the user with the largest one-slot
     *        accuracy gain; what it cannot use rolls to the next largest gain.
     */
    static SlotAllocation CascadingWta(const std::vector<SlotUser>& users, double budgetBits);

    /**
     * \brief PF: maximize `sum_i log(L_i y_i)`: one common water level W on the
     *        received bits, `L_i y_i = clip(W, L_i x_i, L_i)` (classical water-filling,
     *        solved exactly by sorting the breakpoints).
     */
    static SlotAllocation ProportionalFair(const std::vector<SlotUser>& users, double budgetBits);

    /// \return sum_i A_i(y_i) of an allocation
    static double TotalAccuracy(const std::vector<SlotUser>& users,
                                const std::vector<double>& target);

    /**
     * \param name "eb", "wta" or "none"
     * \throws std::invalid_argument for another name
     */
    static Fallback ParseFallback(const std::string& name);

  private:
    static void Check(const std::vector<SlotUser>& users, double budgetBits);
    static void ShareEqually(const std::vector<SlotUser>& users,
                             const std::vector<std::size_t>& who,
                             double budgetBits,
                             std::vector<double>& target);
    static void GiveToBestGain(const std::vector<SlotUser>& users,
                               const std::vector<std::size_t>& who,
                               double budgetBits,
                               std::vector<double>& target);
};

} // namespace ns3

#endif /* SLOT_ALLOCATOR_H */
