/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-scheduler.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(CtHoScheduler);
NS_OBJECT_ENSURE_REGISTERED(ThoScheduler);
NS_OBJECT_ENSURE_REGISTERED(ChoScheduler);
NS_OBJECT_ENSURE_REGISTERED(CoordinatedCtHoScheduler);

TypeId
CtHoScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CtHoScheduler")
                            .SetParent<HandoverScheduler>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<CtHoScheduler>();
    return tid;
}

std::string
CtHoScheduler::GetSchemeName() const
{
    return "ctho";
}

uint64_t
CtHoScheduler::ChoosePrefillLength(const CtHoPlanner& planner,
                                   const std::vector<CtHoUe>& batch) const
{
    return planner.PlanOptimal(batch).prefillLength;
}

TypeId
ThoScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ThoScheduler")
                            .SetParent<HandoverScheduler>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<ThoScheduler>();
    return tid;
}

std::string
ThoScheduler::GetSchemeName() const
{
    return "tho";
}

uint64_t
ThoScheduler::ChoosePrefillLength(const CtHoPlanner& /* planner */,
                                  const std::vector<CtHoUe>& batch) const
{
    uint64_t cmax = 0;
    for (const auto& ue : batch)
    {
        cmax = std::max(cmax, ue.contextTokens);
    }
    return cmax;
}

TypeId
ChoScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ChoScheduler")
                            .SetParent<HandoverScheduler>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<ChoScheduler>();
    return tid;
}

std::string
ChoScheduler::GetSchemeName() const
{
    return "cho";
}

uint64_t
ChoScheduler::ChoosePrefillLength(const CtHoPlanner& /* planner */,
                                  const std::vector<CtHoUe>& /* batch */) const
{
    return 0;
}

TypeId
CoordinatedCtHoScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CoordinatedCtHoScheduler")
            .SetParent<CtHoScheduler>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<CoordinatedCtHoScheduler>()
            .AddAttribute("PlanLead",
                          "How long before a batch's first announced handover its source asks "
                          "the target for a coordinated plan (PLAN_REQUEST); the target must "
                          "answer within half of it. Valid: (0, 3600] s; it must exceed twice "
                          "the one-way backhaul delay for the PLAN to arrive in time.",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&CoordinatedCtHoScheduler::m_planLead),
                          MakeTimeChecker(NanoSeconds(1), Seconds(3600)));
    return tid;
}

std::string
CoordinatedCtHoScheduler::GetSchemeName() const
{
    return "tc-ctho";
}

Time
CoordinatedCtHoScheduler::GetPlanLead() const
{
    return m_planLead;
}

} // namespace ns3
