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

} // namespace ns3
