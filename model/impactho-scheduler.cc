/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "impactho-scheduler.h"

#include "edge-llm-compat.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cstdint>
#include <set>
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
        return "impactho"; // the paper's figures call it "ours"
    case EQUAL:
        return "ea";
    case WTA:
        return "wta";
    case PF:
        return "pf";
    }
    return "impactho";
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

bool
ImpactHoScheduler::AllocatesSlots() const
{
    return true;
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

void
ImpactHoScheduler::AddSlotTransfer(uint64_t sessionId,
                                   uint16_t target,
                                   Time arrival,
                                   uint64_t bytes,
                                   const AccuracyUtility& utility)
{
    NS_ABORT_MSG_IF(bytes == 0,
                    "ImpactHoScheduler::AddSlotTransfer: session " << sessionId
                                                                   << " has no KV bytes (> 0)");
    const bool added =
        m_transfers.emplace(sessionId, Transfer{target, arrival, bytes, utility}).second;
    NS_ABORT_MSG_IF(!added,
                    "ImpactHoScheduler::AddSlotTransfer: session "
                        << sessionId << " is already transferring (one scheduler per BS)");
}

uint16_t
ImpactHoScheduler::RemoveSlotTransfer(uint64_t sessionId)
{
    const auto it = m_transfers.find(sessionId);
    if (it == m_transfers.end())
    {
        return 0;
    }
    const uint16_t target = it->second.target;
    m_transfers.erase(it);
    return target;
}

bool
ImpactHoScheduler::HasSlotTransfers() const
{
    return !m_transfers.empty();
}

std::vector<HandoverScheduler::SlotShare>
ImpactHoScheduler::ShareSlot(Time now, const SentBytes& sent, const SlotBudget& budget) const
{
    std::map<uint16_t, std::vector<SlotUser>> active;
    std::map<uint64_t, uint64_t> sentBytes;
    for (const auto& [id, t] : m_transfers)
    {
        if (t.arrival <= now && now < t.arrival + m_window)
        {
            sentBytes[id] = sent(t.target, id);
            SlotUser u;
            u.userId = id;
            u.cacheBits = 8.0 * static_cast<double>(t.bytes);
            u.received =
                std::min(1.0, static_cast<double>(sentBytes[id]) / static_cast<double>(t.bytes));
            u.utility = t.utility;
            active[t.target].push_back(u);
        }
    }
    // Targets active in this slot: those whose paths share a link split it (the budget).
    std::set<uint16_t> activeTargets;
    for (const auto& [target, users] : active)
    {
        activeTargets.insert(target);
    }
    std::vector<SlotShare> shares;
    for (const auto& [target, users] : active)
    {
        const SlotAllocation a = AllocateSlot(users, budget(target, activeTargets));
        SlotShare share;
        share.target = target;
        share.users = static_cast<uint32_t>(users.size());
        share.fallback = a.regime == SlotAllocation::FALLBACK;
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            const double bits = (a.target[i] - users[i].received) * users[i].cacheBits;
            uint64_t bytes = static_cast<uint64_t>(std::max(0.0, bits / 8.0));
            if (a.target[i] >= 1.0 - 1e-9)
            {
                const uint64_t id = users[i].userId;
                const uint64_t total = m_transfers.at(id).bytes;
                bytes = std::max(bytes, total - std::min(total, sentBytes.at(id)));
            }
            share.grants.emplace_back(users[i].userId, bytes);
        }
        shares.push_back(std::move(share));
    }
    return shares;
}

} // namespace ns3
