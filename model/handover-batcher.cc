/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "handover-batcher.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HandoverBatcher");

HandoverBatcher::HandoverBatcher(Ptr<HandoverScheduler> scheduler)
    : m_scheduler(scheduler)
{
    NS_ABORT_MSG_IF(!scheduler, "HandoverBatcher needs a HandoverScheduler");
}

HandoverBatcher::~HandoverBatcher()
{
    for (auto& [id, batch] : m_batches)
    {
        if (!m_clock.call)
        {
            batch.closeEvent.Cancel(); // the simulator's timer (another clock: its owner's)
        }
    }
}

Ptr<HandoverScheduler>
HandoverBatcher::GetScheduler() const
{
    return m_scheduler;
}

void
HandoverBatcher::SetClock(Clock clock)
{
    NS_ABORT_MSG_IF(!clock.now || !clock.call, "HandoverBatcher::SetClock needs now and call");
    m_clock = std::move(clock);
}

Time
HandoverBatcher::Now() const
{
    return m_clock.now ? m_clock.now() : Simulator::Now();
}

void
HandoverBatcher::SetBatchCompleteCallback(BatchCompleteCallback cb)
{
    m_complete = std::move(cb);
}

void
HandoverBatcher::SetArrivalPredictor(ArrivalPredictor predictor)
{
    m_predictor = std::move(predictor);
}

bool
HandoverBatcher::IsAnnounced(uint64_t sessionId, uint16_t target) const
{
    return m_memberOf.count(sessionId) ||
           std::any_of(m_expected.begin(), m_expected.end(), [&](const Expected& e) {
               return e.sessionId == sessionId && e.target == target;
           });
}

std::vector<std::pair<uint64_t, Time>>
HandoverBatcher::GetExpected(uint16_t target) const
{
    std::vector<std::pair<uint64_t, Time>> expected;
    for (const Expected& e : m_expected)
    {
        if (e.target == target && !IsInBatch(e.sessionId))
        {
            expected.emplace_back(e.sessionId, e.when);
        }
    }
    return expected;
}

bool
HandoverBatcher::IsInBatch(uint64_t sessionId) const
{
    return m_memberOf.count(sessionId) || m_started.count(sessionId);
}

const HandoverBatcher::Coordination*
HandoverBatcher::GetCoordination(uint64_t sessionId) const
{
    const auto member = m_memberOf.find(sessionId);
    if (member == m_memberOf.end())
    {
        return nullptr;
    }
    const Coordination& co = m_batches.at(member->second).inputs.coordination;
    return co.groupId != 0 ? &co : nullptr;
}

const std::vector<HandoverBatcher::Expected>&
HandoverBatcher::GetAnnounced() const
{
    return m_expected;
}

void
HandoverBatcher::SetSimultaneous(uint16_t target, const std::vector<CtHoUe>& arrivals)
{
    m_simultaneous[target] = arrivals;
}

void
HandoverBatcher::Expect(uint64_t sessionId, uint16_t target, Time when)
{
    // A new handover of a session that handed over from here before (a vehicle back in
    // this cell): it may join a batch again.
    m_started.erase(sessionId);
    m_expected.push_back({sessionId, target, when});
}

namespace
{

/// The target GPU's p(L) for \p members (HandoverBatcher::PlanInputs::prefillPerMember).
PrefillTimeModel
BatchPrefill(const HandoverBatcher::PlanInputs& in, std::size_t members)
{
    return in.prefillPerMember ? in.prefill.InTurn(members) : in.prefill;
}

} // namespace

CtHoPlan
HandoverBatcher::Plan(Batch& batch, const std::vector<CtHoUe>& planned) const
{
    // The target's GPU runs this source's earlier batches first.
    const auto busy = m_gpuBusyUntil.find(batch.target);
    if (busy != m_gpuBusyUntil.end())
    {
        batch.inputs.signalling.gpuFreeAt =
            std::max(batch.inputs.signalling.gpuFreeAt, busy->second);
    }
    const Coordination& co = batch.inputs.coordination;
    std::optional<uint64_t> prefillLength;
    if (co.groupId != 0)
    {
        // The target chose L for every source and its batch waits for every source's
        // last handover and its GPU: this source's EDF schedule at that L.
        batch.inputs.signalling.gpuFreeAt =
            std::max(batch.inputs.signalling.gpuFreeAt, co.batchStart);
        prefillLength = co.prefillLength;
    }
    const PlanInputs& in = batch.inputs;
    const CtHoPlan plan = m_scheduler->PlanBatch(planned,
                                                 in.backhaulTokensPerSecond,
                                                 BatchPrefill(in, planned.size()),
                                                 in.batchPeriod,
                                                 in.backhaulFreeAt,
                                                 in.signalling,
                                                 prefillLength);
    batch.prefillLength = plan.prefillLength;
    batch.transferBound = plan.transferDelay;
    return plan;
}

uint32_t
HandoverBatcher::FormKnown(uint64_t sessionId,
                           uint16_t target,
                           uint64_t context,
                           Time now,
                           const PlanInputs& inputs,
                           const ContextPredictor& predict)
{
    Batch batch;
    batch.target = target;
    batch.inputs = inputs;
    batch.inputs.signalling.closeSentAt = -1; // every member announced: no close message
    std::vector<CtHoUe> planned{{sessionId, now.GetSeconds(), context}};
    batch.members.insert(sessionId);
    // A coordinated batch takes the target's group members only; others stay expected.
    const Coordination& co = inputs.coordination;
    for (auto it = m_expected.begin(); it != m_expected.end();)
    {
        if (it->target != target || (co.groupId != 0 && !co.members.count(it->sessionId)))
        {
            ++it;
            continue;
        }
        if (it->sessionId != sessionId && !m_memberOf.count(it->sessionId) &&
            !m_started.count(it->sessionId) && !batch.members.count(it->sessionId))
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
    const CtHoPlan plan = Plan(batch, planned);
    // Coordinated: the target counts every member it was told of; fewer close the batch.
    batch.announced = co.groupId != 0 ? co.members.size() : batch.members.size();
    const uint32_t id = m_nextBatchId++;
    for (uint64_t member : batch.members)
    {
        m_memberOf[member] = id;
    }
    NS_LOG_INFO(m_scheduler->GetSchemeName()
                << ": batch " << id << " to cell " << target << ", " << planned.size()
                << " UEs announced, L = " << plan.prefillLength);
    m_batches.emplace(id, batch);
    return id;
}

uint32_t
HandoverBatcher::FormOnline(uint64_t sessionId,
                            uint16_t target,
                            uint64_t context,
                            Time now,
                            const PlanInputs& inputs)
{
    Batch batch;
    batch.target = target;
    batch.online = true;
    batch.inputs = inputs;
    std::vector<CtHoUe> planned{{sessionId, now.GetSeconds(), context}};
    for (const CtHoUe& ue : m_simultaneous[target])
    {
        if (ue.ueId != sessionId && !m_started.count(ue.ueId))
        {
            planned.push_back(ue);
        }
    }
    m_simultaneous.erase(target);
    const Time lookahead = m_scheduler->GetLookahead();
    if (m_predictor && lookahead.IsStrictlyPositive())
    {
        for (const CtHoUe& ue : m_predictor(target, now, lookahead))
        {
            const bool known = std::any_of(planned.begin(), planned.end(), [&](const CtHoUe& p) {
                return p.ueId == ue.ueId;
            });
            if (!known && !m_started.count(ue.ueId) && ue.contextTokens > 0 &&
                ue.handoverTime >= now.GetSeconds() &&
                ue.handoverTime <= (now + lookahead).GetSeconds())
            {
                planned.push_back(ue);
            }
        }
    }
    // The close message leaves no earlier than the last planned handover; the plan's GPU
    // start t_s is the first T_c boundary at or after it arrives (and every request). It
    // is sent as late as still arrives by t_s (less closeMargin), so that later handovers
    // can join.
    double last = now.GetSeconds();
    for (const auto& ue : planned)
    {
        last = std::max(last, ue.handoverTime);
    }
    batch.inputs.signalling.closeSentAt = last;
    const CtHoPlan plan = Plan(batch, planned);
    const CtHoSignalling& sig = batch.inputs.signalling;
    const double latest =
        plan.batchStart - sig.pathDelay - sig.closeTime - sig.closeAhead - sig.closeMargin;
    // Whole time steps, rounded down (a step within 1e-6 of the value is the value):
    // the close leaves at or before the latest instant.
    const double steps = latest / TimeStep(1).GetSeconds();
    const double nearest = std::round(steps);
    const auto latestStep =
        static_cast<int64_t>(std::abs(steps - nearest) < 1e-6 ? nearest : std::floor(steps));
    Time close = std::max(Seconds(last), TimeStep(latestStep));
    const uint32_t id = m_nextBatchId++;
    close = std::max(close, Now()); // gathered arrivals are planned a little later
    batch.closeTime = close;
    if (m_clock.call)
    {
        m_clock.call(close, [this, id]() { Complete(id); });
    }
    else
    {
        batch.closeEvent =
            Simulator::Schedule(close - Simulator::Now(), &HandoverBatcher::Complete, this, id);
    }
    NS_LOG_INFO(m_scheduler->GetSchemeName()
                << ": online batch " << id << " to cell " << target << ", " << planned.size()
                << " UEs planned (" << planned.size() - 1 << " predicted), L = "
                << plan.prefillLength << ", closes at " << close.As(Time::S));
    m_batches.emplace(id, batch);
    m_openOnline[target] = id;
    return id;
}

HandoverBatcher::Decision
HandoverBatcher::Start(uint64_t sessionId,
                       uint16_t target,
                       uint64_t context,
                       Time now,
                       const PlanInputs& inputs,
                       const ContextPredictor& predict)
{
    uint32_t id = 0;
    auto member = m_memberOf.find(sessionId);
    const bool announced =
        std::any_of(m_expected.begin(), m_expected.end(), [&](const Expected& e) {
            return e.sessionId == sessionId && e.target == target;
        });
    if (member != m_memberOf.end())
    {
        id = member->second;
        m_memberOf.erase(member);
    }
    else if (announced)
    {
        id = FormKnown(sessionId, target, context, now, inputs, predict);
        m_memberOf.erase(sessionId);
    }
    else
    {
        auto open = m_openOnline.find(target);
        id = open != m_openOnline.end() ? open->second
                                        : FormOnline(sessionId, target, context, now, inputs);
    }
    m_started.insert(sessionId);
    Batch& batch = m_batches.at(id);
    NS_ABORT_MSG_IF(batch.target != target,
                    "session " << sessionId << " was announced to cell " << batch.target
                               << " but hands over to cell " << target);
    Decision d;
    d.batchId = id;
    d.batchSize = batch.online ? 0 : static_cast<uint16_t>(batch.members.size());
    if (batch.inputs.coordination.groupId != 0)
    {
        d.batchId = batch.inputs.coordination.groupId;
        d.batchSize = batch.inputs.coordination.groupSize;
        d.coordinated = true;
    }
    d.prefillLength = batch.prefillLength;
    d.prefillTokens = std::min(context, batch.prefillLength);
    d.transferTokens = context - d.prefillTokens;
    d.deadline = now + Seconds(batch.transferBound);
    batch.arrived.push_back({sessionId, now.GetSeconds(), context});
    if (!batch.online && batch.arrived.size() == batch.members.size())
    {
        Complete(id);
    }
    return d;
}

uint16_t
HandoverBatcher::Withdraw(uint64_t sessionId)
{
    uint16_t target = 0;
    for (auto it = m_expected.begin(); it != m_expected.end();)
    {
        if (it->sessionId == sessionId)
        {
            target = it->target;
            it = m_expected.erase(it);
        }
        else
        {
            ++it;
        }
    }
    auto member = m_memberOf.find(sessionId);
    if (member == m_memberOf.end())
    {
        return target;
    }
    const uint32_t id = member->second;
    m_memberOf.erase(member);
    Batch& batch = m_batches.at(id);
    batch.members.erase(sessionId);
    NS_LOG_INFO(m_scheduler->GetSchemeName()
                << ": session " << sessionId << " left batch " << id << " (handover aborted), "
                << batch.members.size() << " members remain");
    target = batch.target;
    if (batch.arrived.size() >= batch.members.size())
    {
        Complete(id);
    }
    return target;
}

void
HandoverBatcher::Complete(uint32_t batchId)
{
    auto it = m_batches.find(batchId);
    if (it == m_batches.end())
    {
        return;
    }
    Batch batch = it->second;
    m_batches.erase(it);
    if (batch.online)
    {
        m_openOnline.erase(batch.target);
    }
    if (batch.arrived.empty())
    {
        return;
    }
    CtHoPlanner planner(batch.inputs.backhaulTokensPerSecond,
                        BatchPrefill(batch.inputs, batch.arrived.size()),
                        batch.inputs.batchPeriod);
    planner.SetBackhaulFreeAt(batch.inputs.backhaulFreeAt);
    // A batch closed by message (online, or short of announced members) starts after the
    // message, sent now, reaches the target.
    const bool closedByMessage = batch.online || batch.arrived.size() < batch.announced;
    CtHoSignalling sig = batch.inputs.signalling;
    sig.closeSentAt = closedByMessage && batch.prefillLength > 0 ? Now().GetSeconds() : -1;
    if (sig.closeSentAt >= 0 && batch.inputs.closeAheadNow)
    {
        sig.closeAhead = batch.inputs.closeAheadNow(); // what is ahead of it now
    }
    planner.SetSignalling(sig);
    const CtHoPlan plan = planner.PlanWithPrefillLength(batch.arrived, batch.prefillLength);
    if (plan.prefillLength > 0)
    {
        double& gpu = m_gpuBusyUntil[batch.target];
        gpu = std::max(gpu, plan.prefillDone);
    }
    if (m_complete)
    {
        const uint32_t groupId = batch.inputs.coordination.groupId;
        m_complete(groupId != 0 ? groupId : batchId,
                   batch.target,
                   static_cast<uint16_t>(batch.arrived.size()),
                   closedByMessage,
                   plan);
    }
}

} // namespace ns3
