/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "handover-batcher.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HandoverBatcher");

HandoverBatcher::HandoverBatcher(Ptr<HandoverScheduler> scheduler)
    : m_scheduler(scheduler)
{
    NS_ABORT_MSG_IF(!scheduler, "HandoverBatcher needs a HandoverScheduler");
}

Ptr<HandoverScheduler>
HandoverBatcher::GetScheduler() const
{
    return m_scheduler;
}

void
HandoverBatcher::Expect(uint64_t sessionId, uint16_t target, Time when)
{
    m_expected.push_back({sessionId, target, when});
}

uint32_t
HandoverBatcher::Form(uint64_t sessionId,
                      uint16_t target,
                      uint64_t context,
                      Time now,
                      const PlanInputs& inputs,
                      const ContextPredictor& predict)
{
    Batch batch;
    batch.target = target;
    batch.inputs = inputs;
    std::vector<CtHoUe> planned{{sessionId, now.GetSeconds(), context}};
    batch.members.insert(sessionId);
    for (auto it = m_expected.begin(); it != m_expected.end();)
    {
        if (it->target != target)
        {
            ++it;
            continue;
        }
        if (it->sessionId != sessionId && !m_memberOf.count(it->sessionId) &&
            !batch.members.count(it->sessionId))
        {
            const Time when = std::max(it->when, now);
            const uint64_t c = predict(it->sessionId, when);
            if (c > 0)
            {
                planned.push_back({it->sessionId, when.GetSeconds(), c});
                batch.members.insert(it->sessionId);
            }
        }
        it = m_expected.erase(it);
    }
    const CtHoPlan plan = m_scheduler->PlanBatch(planned,
                                                 inputs.backhaulTokensPerSecond,
                                                 inputs.prefill,
                                                 inputs.batchPeriod);
    batch.prefillLength = plan.prefillLength;
    batch.transferBound = plan.transferDelay;
    const uint32_t id = m_nextBatchId++;
    for (uint64_t member : batch.members)
    {
        m_memberOf[member] = id;
    }
    NS_LOG_INFO(m_scheduler->GetSchemeName()
                << ": batch " << id << " to cell " << target << ", " << planned.size()
                << " UEs, L = " << plan.prefillLength);
    m_batches.emplace(id, batch);
    return id;
}

HandoverBatcher::Decision
HandoverBatcher::Start(uint64_t sessionId,
                       uint16_t target,
                       uint64_t context,
                       Time now,
                       const PlanInputs& inputs,
                       const ContextPredictor& predict,
                       std::optional<CtHoPlan>& completed)
{
    completed.reset();
    auto member = m_memberOf.find(sessionId);
    const uint32_t id = member == m_memberOf.end()
                            ? Form(sessionId, target, context, now, inputs, predict)
                            : member->second;
    m_memberOf.erase(sessionId);
    Batch& batch = m_batches.at(id);
    NS_ABORT_MSG_IF(batch.target != target,
                    "session " << sessionId << " was announced to cell " << batch.target
                               << " but hands over to cell " << target);
    Decision d;
    d.batchId = id;
    d.batchSize = static_cast<uint16_t>(batch.members.size());
    d.prefillLength = batch.prefillLength;
    d.prefillTokens = std::min(context, batch.prefillLength);
    d.transferTokens = context - d.prefillTokens;
    d.deadline = now + Seconds(batch.transferBound);
    batch.arrived.push_back({sessionId, now.GetSeconds(), context});
    if (batch.arrived.size() == batch.members.size())
    {
        const CtHoPlanner planner(batch.inputs.backhaulTokensPerSecond,
                                  batch.inputs.prefill,
                                  batch.inputs.batchPeriod);
        completed = planner.PlanWithPrefillLength(batch.arrived, batch.prefillLength);
        m_batches.erase(id);
    }
    return d;
}

} // namespace ns3
