/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IMPACTHO_SCHEDULER_H
#define IMPACTHO_SCHEDULER_H

#include "handover-scheduler.h"
#include "slot-allocator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief ImpactHO (Kim et al., 2026; doc/edge-llm.rst, ImpactHO slot allocation): no
 *        prefill; each cache is sent in importance order, and every slot of SlotLength
 *        the backhaul budget is shared by the Policy (weighted water-filling with an
 *        admission Fallback, or a baseline); a transfer is truncated TransferWindow after
 *        its handover and the target resumes on the prefix it has.
 */
class ImpactHoScheduler : public HandoverScheduler
{
  public:
    /// Who shares a slot.
    enum Policy
    {
        WATER_FILLING, //!< ImpactHO Theorem 1, Eq. (9), with the admission Fallback
        EQUAL,         //!< EA baseline
        WTA,           //!< Cascading winner-takes-all baseline
        PF,            //!< Proportional-fair baseline
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    ImpactHoScheduler();

    std::string GetSchemeName() const override;

    /**
     * \brief Share one slot's budget among the active users (the Policy's allocator).
     * \param users active users (received fraction below 1, window open)
     * \param budgetBits B dt, bits
     * \return per-user targets and the regime
     */
    SlotAllocation AllocateSlot(const std::vector<SlotUser>& users, double budgetBits) const;

    /// \return dt, the slot length
    Time GetSlotLength() const;
    /// \return T_max, the transfer window from the handover
    Time GetTransferWindow() const;

  protected:
    /// ImpactHO prefills nothing: the whole cache is the transfer (prefix by importance).
    uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                 const std::vector<CtHoUe>& batch) const override;

  private:
    Policy m_policy;                    //!< Slot sharing
    SlotAllocator::Fallback m_fallback; //!< Admission fallback (WATER_FILLING only)
    Time m_slot;                        //!< dt
    Time m_window;                      //!< T_max
};

} // namespace ns3

#endif /* IMPACTHO_SCHEDULER_H */
