/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_BACKHAUL_ROUTING_H
#define EDGE_LLM_BACKHAUL_ROUTING_H

#include "edge-llm-compat.h"

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#if EDGE_LLM_NS3_VERSION >= 3039
/// A RouteInput callback parameter: a const reference from ns-3.39 on, a value before.
#define EDGE_LLM_ROUTE_INPUT_CB(T) const T&
#else
#define EDGE_LLM_ROUTE_INPUT_CB(T) T
#endif

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Constant-time routing for a backhaul router: host routes and the far ends of
 *        its point-to-point links in hash tables, everything else to a fallback
 *        protocol.
 *
 * ns-3's Ipv4ListRouting and Ipv4StaticRouting look at every interface of the node
 * (local delivery, twice per forwarded packet) and every route (longest prefix) for each
 * packet. On the star backhaul's aggregation router both counts grow with the sites, so
 * the router's work per packet did too (11 % of a 57-site study went to those scans).
 * This protocol answers the cases a backhaul router sees in O(1) and with the same
 * result as the list of static routing would give:
 *
 * - a unicast destination that is an address (or subnet broadcast) of the input
 *   interface: delivered locally; one of another interface's: Ipv4::IsDestinationAddress
 *   decides (the end-system model, weak by default);
 * - arriving on an interface that does not forward (Ipv4::IsForwarding): refused
 *   (ERROR_NOROUTETOHOST), as Ipv4ListRouting does;
 * - a destination with a host route (AddHostRoute): to its next hop;
 * - the other address of a link subnet of prefix length 30 or more (a point-to-point
 *   link's far end): on-link on that interface;
 * - anything else (multicast, broadcast, other networks, a route bound to an output
 *   device): the fallback protocol (SetFallback; the helper gives Ipv4ListRouting with
 *   Ipv4StaticRouting, so Ipv4StaticRoutingHelper's routes go through GetFallback()).
 *
 * Host routes win over the on-link ends (longest prefix), both over the fallback.
 * Cost: O(1) per packet (hash lookups); the tables are rebuilt from the node's
 * interfaces on every interface or address notification (set-up only, O(addresses)).
 * Installed on the backhaul's routers by EdgeLlmBackhaul (EdgeLlmBackhaulRoutingHelper).
 */
class EdgeLlmBackhaulRouting : public Ipv4RoutingProtocol
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EdgeLlmBackhaulRouting();
    ~EdgeLlmBackhaulRouting() override;

    /**
     * \brief Set the protocol that answers what this one does not (before SetIpv4).
     * \param fallback the protocol (non-null; it gets SetIpv4 and every notification)
     */
    void SetFallback(Ptr<Ipv4RoutingProtocol> fallback);

    /// \return the fallback protocol (null before SetFallback)
    Ptr<Ipv4RoutingProtocol> GetFallback() const;

    /**
     * \brief Route packets for one address to a next hop, like
     *        Ipv4StaticRouting::AddHostRouteTo.
     * \param dest the destination host address
     * \param nextHop the gateway (on the interface's link)
     * \param interface the output interface index (< Ipv4::GetNInterfaces())
     * \throws std::invalid_argument for an interface that does not exist or a dest that is
     *         not a unicast address
     *
     * A second route to the same destination replaces the first.
     */
    void AddHostRoute(Ipv4Address dest, Ipv4Address nextHop, uint32_t interface);

    /// \return the number of host routes
    uint32_t GetNHostRoutes() const;

    // Ipv4RoutingProtocol
    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    EDGE_LLM_ROUTE_INPUT_CB(UnicastForwardCallback) ucb,
                    EDGE_LLM_ROUTE_INPUT_CB(MulticastForwardCallback) mcb,
                    EDGE_LLM_ROUTE_INPUT_CB(LocalDeliverCallback) lcb,
                    EDGE_LLM_ROUTE_INPUT_CB(ErrorCallback) ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  protected:
    void DoDispose() override;

  private:
    /// A host route as given to AddHostRoute.
    struct HostRoute
    {
        Ipv4Address nextHop; //!< Gateway
        uint32_t interface;  //!< Output interface
    };

    /// Rebuild the local addresses, the device map and the on-link ends from m_ipv4.
    void Rebuild();

    /// Rebuild the route cache (m_routes) from the host routes and the on-link ends
    /// (AddHostRoute adds its own entry only).
    void RebuildRoutes();

    /**
     * \param dest the destination
     * \param gateway the next hop (0.0.0.0: on-link)
     * \param interface the output interface
     * \return the route a lookup of dest hands out (source: the interface's address for dest)
     */
    Ptr<Ipv4Route> MakeRoute(Ipv4Address dest, Ipv4Address gateway, uint32_t interface) const;

    /**
     * \param dest a unicast destination
     * \return the host route or on-link end for it, or null
     */
    Ptr<Ipv4Route> Lookup(Ipv4Address dest) const;

    Ptr<Ipv4> m_ipv4;                       //!< The node's IPv4
    Ptr<Ipv4RoutingProtocol> m_fallback;    //!< Everything else
    std::unordered_set<uint32_t> m_locals;  //!< Every interface's addresses and broadcasts
    std::unordered_set<uint64_t> m_localOn; //!< (interface << 32) | address, the same per interface
    std::unordered_map<const NetDevice*, uint32_t> m_interfaceOf; //!< Device -> interface
    std::unordered_map<uint32_t, uint32_t> m_onLink;       //!< Far end of a /30+ link -> interface
    std::unordered_map<uint32_t, HostRoute> m_hosts;       //!< Host routes
    std::unordered_map<uint32_t, Ptr<Ipv4Route>> m_routes; //!< Destination -> route, both kinds
};

} // namespace ns3

#endif /* EDGE_LLM_BACKHAUL_ROUTING_H */
