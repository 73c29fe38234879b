/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IMPACTHO_SCHEDULER_H
#define IMPACTHO_SCHEDULER_H

#include "handover-scheduler.h"
#include "slot-allocator.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief ImpactHO (Kim et al., 2026; doc/edge-llm-design.rst, ImpactHO slot allocation): no
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

    /// \return the policy's scheme name: impactho (WaterFilling), ea, wta or pf
    std::string GetSchemeName() const override;

    /**
     * \brief Share one slot's budget among the active users (the Policy's allocator).
     * \param users active users (received fraction below 1, window open)
     * \param budgetBits B dt, bits
     * \return per-user targets and the regime
     */
    SlotAllocation AllocateSlot(const std::vector<SlotUser>& users,
                                double budgetBits) const override;

    /// \return true: ImpactHO shares the backhaul per slot and plans no batch
    bool AllocatesSlots() const override;
    /// \return dt, the slot length (SlotLength)
    Time GetSlotLength() const override;
    /// \return T_max, the transfer window from the handover (TransferWindow)
    Time GetTransferWindow() const override;

    void AddSlotTransfer(uint64_t sessionId,
                         uint16_t target,
                         Time arrival,
                         uint64_t bytes,
                         const AccuracyUtility& utility) override;
    uint16_t RemoveSlotTransfer(uint64_t sessionId) override;
    bool HasSlotTransfers() const override;

    /**
     * \brief One slot (ImpactHO Sec. IV, Algorithm 1): per target, its active users'
     *        received fractions x_i = sent / (L_i / 8), the Policy's allocation
     *        (AllocateSlot) of the target's budget, and each user's bytes: (x_i' - x_i)
     *        L_i / 8 rounded down, or the whole rest when x_i' reaches 1 (a rounding
     *        shortfall would hold back the last entry for another slot).
     * \param now the slot's start
     * \param sent each session's bytes taken by the transport so far
     * \param budget each target's slot budget, bits, given the targets active in it
     * \return one share per target with active users, in target order
     */
    std::vector<SlotShare> ShareSlot(Time now,
                                     const SentBytes& sent,
                                     const SlotBudget& budget) const override;

  private:
    /// A transfer in progress: ImpactHO's per-session state.
    struct Transfer
    {
        uint16_t target{0};      //!< Target cell
        Time arrival;            //!< Handover time
        uint64_t bytes{0};       //!< L_i / 8
        AccuracyUtility utility; //!< A_i
    };

    std::map<uint64_t, Transfer> m_transfers; //!< By session
    Policy m_policy;                          //!< Slot sharing
    SlotAllocator::Fallback m_fallback;       //!< Admission fallback (WATER_FILLING only)
    Time m_slot;                              //!< dt
    Time m_window;                            //!< T_max
};

} // namespace ns3

#endif /* IMPACTHO_SCHEDULER_H */
