/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_BACKHAUL_ROUTING_HELPER_H
#define EDGE_LLM_BACKHAUL_ROUTING_HELPER_H

#include "ns3/edge-llm-backhaul-routing.h"
#include "ns3/ipv4-routing-helper.h"

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Gives a node EdgeLlmBackhaulRouting with ns-3's list of static routing as its
 *        fallback (InternetStackHelper::SetRoutingHelper). EdgeLlmBackhaul installs it on
 *        its routers.
 *
 * Routes through the fallback: `DynamicCast<EdgeLlmBackhaulRouting>(
 * ipv4->GetRoutingProtocol())->GetFallback()` is the Ipv4ListRouting that holds the
 * Ipv4StaticRouting (Ipv4StaticRoutingHelper::GetStaticRouting(ipv4) finds nothing on
 * such a node).
 */
class EdgeLlmBackhaulRoutingHelper : public Ipv4RoutingHelper
{
  public:
    /// \return a copy of this helper (InternetStackHelper keeps one)
    EdgeLlmBackhaulRoutingHelper* Copy() const override;

    /**
     * \param node the node the protocol is for
     * \return a new EdgeLlmBackhaulRouting whose fallback is an Ipv4ListRouting with an
     *         Ipv4StaticRouting at priority 0
     */
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;

    /**
     * \param ipv4 a node's IPv4
     * \return its EdgeLlmBackhaulRouting, or null when it routes otherwise
     */
    static Ptr<EdgeLlmBackhaulRouting> Get(Ptr<Ipv4> ipv4);
};

} // namespace ns3

#endif /* EDGE_LLM_BACKHAUL_ROUTING_HELPER_H */
