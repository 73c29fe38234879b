/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-slot-share.h"

#include "handover-scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

FluidSlotShare
ShareFluidSlot(const HandoverScheduler& policy,
               const std::vector<SlotUser>& users,
               const std::vector<double>& windowEnds,
               double start,
               double dt,
               double budgetBits)
{
    if (windowEnds.size() != users.size())
    {
        throw std::invalid_argument("windowEnds must have one entry per user (" +
                                    std::to_string(users.size()) + "), got " +
                                    std::to_string(windowEnds.size()));
    }
    FluidSlotShare s;
    s.allocation = policy.AllocateSlot(users, budgetBits);
    s.reached.resize(users.size());
    for (std::size_t n = 0; n < users.size(); ++n)
    {
        const double x = users[n].received;
        // Sent at a constant rate over the slot; the window may cut it short.
        const double share = std::clamp((windowEnds[n] - start) / dt, 0.0, 1.0);
        const double y = x + (s.allocation.target[n] - x) * share;
        s.reached[n] = std::min(1.0, y);
        s.usedBits += (s.reached[n] - x) * users[n].cacheBits;
    }
    return s;
}

uint64_t
FirstSlotAtOrAfter(double time, double dt)
{
    auto k = static_cast<uint64_t>(std::max(0.0, std::ceil(time / dt)));
    // time / dt may round across an integer: settle on the engines' k dt.
    while (k > 0 && static_cast<double>(k - 1) * dt >= time)
    {
        --k;
    }
    while (static_cast<double>(k) * dt < time)
    {
        ++k;
    }
    return k;
}

} // namespace ns3
