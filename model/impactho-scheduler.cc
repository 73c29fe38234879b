/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "impactho-scheduler.h"

#include "edge-llm-compat.h"

#include "ns3/enum.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ImpactHoScheduler);

TypeId
ImpactHoScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ImpactHoScheduler")
            .SetParent<HandoverScheduler>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<ImpactHoScheduler>()
            .AddAttribute("Policy",
                          "How a slot's budget is shared: WaterFilling (ImpactHO), Equal (EA), "
                          "Wta (cascading winner-takes-all), Pf (proportional fair).",
                          EnumValue(WATER_FILLING),
                          compat::MakeEnumAccessor<Policy>(&ImpactHoScheduler::m_policy),
                          MakeEnumChecker(WATER_FILLING,
                                          "WaterFilling",
                                          EQUAL,
                                          "Equal",
                                          WTA,
                                          "Wta",
                                          PF,
                                          "Pf"))
            .AddAttribute(
                "Fallback",
                "Admission fallback when a slot cannot lift every user to its "
                "concavity anchor: EqualizedBytes, CascadingWta or None.",
                EnumValue(SlotAllocator::EQUALIZED_BYTES),
                compat::MakeEnumAccessor<SlotAllocator::Fallback>(&ImpactHoScheduler::m_fallback),
                MakeEnumChecker(SlotAllocator::EQUALIZED_BYTES,
                                "EqualizedBytes",
                                SlotAllocator::CASCADING_WTA,
                                "CascadingWta",
                                SlotAllocator::NO_ADMISSION,
                                "None"))
            .AddAttribute("SlotLength",
                          "Slot length dt (ImpactHO default 100 ms).",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&ImpactHoScheduler::m_slot),
                          MakeTimeChecker(MicroSeconds(1), Seconds(60)))
            .AddAttribute("TransferWindow",
                          "Transfer window T_max from the handover, after which the transfer "
                          "is truncated (ImpactHO default 500 ms).",
                          TimeValue(MilliSeconds(500)),
                          MakeTimeAccessor(&ImpactHoScheduler::m_window),
                          MakeTimeChecker(MicroSeconds(1)));
    return tid;
}

ImpactHoScheduler::ImpactHoScheduler()
    : m_policy(WATER_FILLING),
      m_fallback(SlotAllocator::EQUALIZED_BYTES),
      m_slot(MilliSeconds(100)),
      m_window(MilliSeconds(500))
{
}

std::string
ImpactHoScheduler::GetSchemeName() const
{
    switch (m_policy)
    {
    case WATER_FILLING:
        return "ours";
    case EQUAL:
        return "ea";
    case WTA:
        return "wta";
    case PF:
        return "pf";
    }
    return "ours";
}

SlotAllocation
ImpactHoScheduler::AllocateSlot(const std::vector<SlotUser>& users, double budgetBits) const
{
    switch (m_policy)
    {
    case EQUAL:
        return SlotAllocator::EqualAllocation(users, budgetBits);
    case WTA:
        return SlotAllocator::CascadingWta(users, budgetBits);
    case PF:
        return SlotAllocator::ProportionalFair(users, budgetBits);
    case WATER_FILLING:
        break;
    }
    return SlotAllocator::WaterFilling(users, budgetBits, m_fallback);
}

Time
ImpactHoScheduler::GetSlotLength() const
{
    return m_slot;
}

Time
ImpactHoScheduler::GetTransferWindow() const
{
    return m_window;
}

uint64_t
ImpactHoScheduler::ChoosePrefillLength(const CtHoPlanner& /* planner */,
                                       const std::vector<CtHoUe>& /* batch */) const
{
    return 0;
}

} // namespace ns3
