/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_SLOT_SHARE_H
#define FLUID_SLOT_SHARE_H

#include "slot-allocator.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class HandoverScheduler;

/**
 * \ingroup edge-llm
 * \brief What one link's slot gave its active users at flow level (ShareFluidSlot()).
 */
struct FluidSlotShare
{
    /// The policy's allocation for the whole slot: y_i, the fraction user i would hold at
    /// the slot's end, and the regime
    SlotAllocation allocation;
    /// x_i at the end of what user i sends in the slot: min(1, x_i + (y_i - x_i) s_i) with
    /// s_i = clip((windowEnd_i - start) / dt, 0, 1) (a window that ends mid-slot cuts the
    /// share pro rata), in [x_i, 1]
    std::vector<double> reached;
    double usedBits{0}; //!< sum_i L_i (reached_i - x_i), bits
};

/**
 * \ingroup edge-llm
 * \brief One directed link's slot of a slot policy at flow level, the step both flow-level
 *        engines take (FluidHandoverEngine, FluidServingEngine; doc/edge-llm-design.rst,
 *        "Flow level" and "Serving many users"): the policy's AllocateSlot(), asked through the
 * base class, shares the slot's budget R dt among the active users; each share is sent at a
 * constant rate over the slot [start, start + dt), so a window that closes inside it cuts the share
 * pro rata. \param policy a slot policy (HandoverScheduler::AllocatesSlots(), or a policy that
 * wraps one) \param users the link's active users: cache L_i (bits), fraction x_i, utility A_i
 * \param windowEnds per user (same order), when its transfer window closes, s (> start)
 * \param start the slot's start, s
 * \param dt the slot's length, s, > 0
 * \param budgetBits R dt, bits, > 0
 * \return the allocation, each user's fraction at the end of its sending and the bits used
 * \throws std::invalid_argument when windowEnds and users differ in size; what
 *         AllocateSlot() throws (std::logic_error for a batch policy)
 */
FluidSlotShare ShareFluidSlot(const HandoverScheduler& policy,
                              const std::vector<SlotUser>& users,
                              const std::vector<double>& windowEnds,
                              double start,
                              double dt,
                              double budgetBits);

/**
 * \ingroup edge-llm
 * \brief The first slot a handover at \p time takes part in: slots start at k dt
 *        (k = 0, 1, ...) and a handover joins the first slot that starts at or after it
 *        (slot-granular: one inside a slot waits for the next boundary).
 * \param time the handover, s, >= 0
 * \param dt the slot's length, s, > 0
 * \return the smallest k with k dt >= time (k dt computed as the engines compute it)
 */
uint64_t FirstSlotAtOrAfter(double time, double dt);

} // namespace ns3

#endif /* FLUID_SLOT_SHARE_H */
