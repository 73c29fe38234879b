/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-backhaul-routing-helper.h"

#include "ns3/ipv4-list-routing-helper.h"
#include "ns3/ipv4-static-routing-helper.h"

namespace ns3
{

EdgeLlmBackhaulRoutingHelper*
EdgeLlmBackhaulRoutingHelper::Copy() const
{
    return new EdgeLlmBackhaulRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
EdgeLlmBackhaulRoutingHelper::Create(Ptr<Node> node) const
{
    Ipv4ListRoutingHelper list;
    list.Add(Ipv4StaticRoutingHelper(), 0);
    Ptr<EdgeLlmBackhaulRouting> routing = CreateObject<EdgeLlmBackhaulRouting>();
    routing->SetFallback(list.Create(node));
    return routing;
}

Ptr<EdgeLlmBackhaulRouting>
EdgeLlmBackhaulRoutingHelper::Get(Ptr<Ipv4> ipv4)
{
    return ipv4 ? DynamicCast<EdgeLlmBackhaulRouting>(ipv4->GetRoutingProtocol()) : nullptr;
}

} // namespace ns3
