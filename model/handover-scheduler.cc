/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "handover-scheduler.h"

#include "slot-allocator.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HandoverScheduler");

NS_OBJECT_ENSURE_REGISTERED(HandoverScheduler);

TypeId
HandoverScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HandoverScheduler")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("Lookahead",
                          "Online batches (handover times not announced): how far ahead the "
                          "first handover of a batch looks for predicted arrivals to plan with "
                          "and wait for. 0: plan with the arrived UE alone.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&HandoverScheduler::m_lookahead),
                          MakeTimeChecker(Seconds(0), Seconds(3600)));
    return tid;
}

Time
HandoverScheduler::GetLookahead() const
{
    return m_lookahead;
}

HandoverScheduler::HandoverScheduler() = default;

HandoverScheduler::~HandoverScheduler() = default;

bool
HandoverScheduler::AllocatesSlots() const
{
    return false;
}

Time
HandoverScheduler::GetSlotLength() const
{
    return Time(0);
}

Time
HandoverScheduler::GetTransferWindow() const
{
    return Time(0);
}

void
HandoverScheduler::AddSlotTransfer(uint64_t sessionId,
                                   uint16_t /* target */,
                                   Time /* arrival */,
                                   uint64_t /* bytes */,
                                   const AccuracyUtility& /* utility */)
{
    NS_FATAL_ERROR(GetSchemeName() << " allocates no backhaul slots (AllocatesSlots() is false): "
                                   << "session " << sessionId << " must be planned by PlanBatch");
}

uint16_t
HandoverScheduler::RemoveSlotTransfer(uint64_t /* sessionId */)
{
    return 0;
}

Time
HandoverScheduler::GetPlanLead() const
{
    return Time(0);
}

bool
HandoverScheduler::HasSlotTransfers() const
{
    return false;
}

void
HandoverScheduler::BindToBs(uint32_t nodeId)
{
    NS_ABORT_MSG_IF(AllocatesSlots() && m_bsNodeId != std::numeric_limits<uint32_t>::max() &&
                        m_bsNodeId != nodeId,
                    "ns3::EdgeLlmNode::Scheduler: this "
                        << GetInstanceTypeId().GetName() << " (a slot policy, which keeps its "
                        << "transfers' state) already serves node " << m_bsNodeId << "; node "
                        << nodeId << " needs its own (EdgeLlmHelper creates one per BS)");
    m_bsNodeId = nodeId;
}

std::vector<HandoverScheduler::SlotShare>
HandoverScheduler::ShareSlot(Time /* now */,
                             const SentBytes& /* sent */,
                             const SlotBudget& /* budget */) const
{
    return {};
}

std::optional<PreTransferSettings>
HandoverScheduler::GetPreTransfer() const
{
    return std::nullopt;
}

void
HandoverScheduler::SetBytesSentAhead(uint64_t sessionId, uint64_t bytes)
{
    NS_FATAL_ERROR(GetSchemeName()
                   << " sends nothing ahead (GetPreTransfer() is empty): " << bytes
                   << " bytes of session " << sessionId << " cannot have been sent ahead");
}

uint64_t
HandoverScheduler::ChoosePrefillLength(const CtHoPlanner& /* planner */,
                                       const std::vector<CtHoUe>& /* batch */) const
{
    throw std::logic_error(GetSchemeName() +
                           " plans no batch: it shares the backhaul per slot "
                           "(AllocatesSlots() is true; use AddSlotTransfer and ShareSlot)");
}

SlotAllocation
HandoverScheduler::AllocateSlot(const std::vector<SlotUser>& /* users */,
                                double /* budgetBits */) const
{
    throw std::logic_error(GetSchemeName() +
                           " shares no slot: it plans batches (AllocatesSlots() is false; use "
                           "PlanBatch)");
}

CtHoPlan
HandoverScheduler::PlanBatch(const std::vector<CtHoUe>& batch,
                             double backhaulTokensPerSecond,
                             const PrefillTimeModel& prefill,
                             double batchPeriod,
                             double backhaulFreeAt,
                             const CtHoSignalling& signalling,
                             std::optional<uint64_t> prefillLength) const
{
    CtHoPlanner planner(backhaulTokensPerSecond, prefill, batchPeriod);
    planner.SetBackhaulFreeAt(backhaulFreeAt);
    planner.SetSignalling(signalling);
    const uint64_t l = prefillLength ? *prefillLength : ChoosePrefillLength(planner, batch);
    CtHoPlan plan = planner.PlanWithPrefillLength(batch, l);
    NS_LOG_INFO(GetSchemeName() << ": batch of " << batch.size() << " UEs, L = " << l
                                << ", predicted worst delay " << plan.worstDelay << " s");
    return plan;
}

std::size_t
HandoverScheduler::SelectNextTransfer(const std::vector<KvTransferJob>& jobs) const
{
    NS_ASSERT_MSG(!jobs.empty(), "SelectNextTransfer needs at least one job");
    auto key = [](const KvTransferJob& j) {
        return std::make_tuple(j.deadline, j.handoverTime, j.sessionId);
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < jobs.size(); ++i)
    {
        if (key(jobs[i]) < key(jobs[best]))
        {
            best = i;
        }
    }
    return best;
}

} // namespace ns3
