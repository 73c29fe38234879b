/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-backhaul-routing.h"

#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"

#include <iterator>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmBackhaulRouting");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmBackhaulRouting);

namespace
{

/// \return the key of m_localOn for an address on an interface
uint64_t
LocalKey(uint32_t interface, Ipv4Address address)
{
    return (static_cast<uint64_t>(interface) << 32) | address.Get();
}

} // namespace

TypeId
EdgeLlmBackhaulRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EdgeLlmBackhaulRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<EdgeLlmBackhaulRouting>();
    return tid;
}

EdgeLlmBackhaulRouting::EdgeLlmBackhaulRouting() = default;

EdgeLlmBackhaulRouting::~EdgeLlmBackhaulRouting() = default;

void
EdgeLlmBackhaulRouting::DoDispose()
{
    if (m_fallback)
    {
        m_fallback->Dispose();
    }
    m_fallback = nullptr;
    m_ipv4 = nullptr;
    m_routes.clear();
    m_interfaceOf.clear();
    Ipv4RoutingProtocol::DoDispose();
}

void
EdgeLlmBackhaulRouting::SetFallback(Ptr<Ipv4RoutingProtocol> fallback)
{
    NS_ABORT_MSG_IF(!fallback, "EdgeLlmBackhaulRouting::SetFallback: null protocol");
    NS_ABORT_MSG_IF(m_ipv4, "EdgeLlmBackhaulRouting::SetFallback: call it before SetIpv4");
    m_fallback = fallback;
}

Ptr<Ipv4RoutingProtocol>
EdgeLlmBackhaulRouting::GetFallback() const
{
    return m_fallback;
}

void
EdgeLlmBackhaulRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    NS_ASSERT(ipv4);
    m_ipv4 = ipv4;
    if (m_fallback)
    {
        m_fallback->SetIpv4(ipv4);
    }
    Rebuild();
}

void
EdgeLlmBackhaulRouting::AddHostRoute(Ipv4Address dest, Ipv4Address nextHop, uint32_t interface)
{
    if (!m_ipv4 || interface >= m_ipv4->GetNInterfaces())
    {
        throw std::invalid_argument("EdgeLlmBackhaulRouting::AddHostRoute: interface " +
                                    std::to_string(interface) + " does not exist (the node has " +
                                    std::to_string(m_ipv4 ? m_ipv4->GetNInterfaces() : 0) +
                                    " interfaces)");
    }
    if (dest.IsMulticast() || dest.IsBroadcast() || dest == Ipv4Address::GetAny())
    {
        std::ostringstream got;
        got << dest;
        throw std::invalid_argument("EdgeLlmBackhaulRouting::AddHostRoute: dest must be a "
                                    "unicast address, got " +
                                    got.str());
    }
    m_hosts[dest.Get()] = HostRoute{nextHop, interface};
    if (m_ipv4->IsUp(interface) && !m_locals.count(dest.Get()))
    {
        m_routes[dest.Get()] = MakeRoute(dest, nextHop, interface); // over an on-link end
    }
}

uint32_t
EdgeLlmBackhaulRouting::GetNHostRoutes() const
{
    return static_cast<uint32_t>(m_hosts.size());
}

void
EdgeLlmBackhaulRouting::Rebuild()
{
    m_locals.clear();
    m_localOn.clear();
    m_interfaceOf.clear();
    m_onLink.clear();
    if (!m_ipv4)
    {
        return;
    }
    for (uint32_t i = 0; i < m_ipv4->GetNInterfaces(); ++i)
    {
        m_interfaceOf[PeekPointer(m_ipv4->GetNetDevice(i))] = i;
        for (uint32_t a = 0; a < m_ipv4->GetNAddresses(i); ++a)
        {
            const Ipv4InterfaceAddress address = m_ipv4->GetAddress(i, a);
            for (Ipv4Address own : {address.GetLocal(), address.GetBroadcast()})
            {
                m_locals.insert(own.Get());
                m_localOn.insert(LocalKey(i, own));
            }
        }
    }
    // The far ends of the up interfaces' /30, /31 and /32 subnets (the subnet's other
    // hosts; a /30's network and broadcast addresses are not hosts). The first interface
    // listing an end keeps it, as the first of two equal routes does in static routing.
    for (uint32_t i = 0; i < m_ipv4->GetNInterfaces(); ++i)
    {
        if (!m_ipv4->IsUp(i))
        {
            continue;
        }
        for (uint32_t a = 0; a < m_ipv4->GetNAddresses(i); ++a)
        {
            const Ipv4InterfaceAddress address = m_ipv4->GetAddress(i, a);
            const uint16_t prefix = address.GetMask().GetPrefixLength();
            if (prefix < 30)
            {
                continue;
            }
            const uint32_t network = address.GetLocal().Get() & address.GetMask().Get();
            const uint32_t size = 1U << (32 - prefix);
            for (uint32_t k = 0; k < size; ++k)
            {
                const uint32_t host = network + k;
                const bool notHost = prefix == 30 && (k == 0 || k == size - 1);
                if (host != address.GetLocal().Get() && !notHost && !m_locals.count(host))
                {
                    m_onLink.emplace(host, i);
                }
            }
        }
    }
    RebuildRoutes();
}

void
EdgeLlmBackhaulRouting::RebuildRoutes()
{
    m_routes.clear();
    if (!m_ipv4)
    {
        return;
    }
    for (const auto& [dest, interface] : m_onLink)
    {
        m_routes[dest] = MakeRoute(Ipv4Address(dest), Ipv4Address::GetZero(), interface);
    }
    for (const auto& [dest, host] : m_hosts)
    {
        if (m_ipv4->IsUp(host.interface) && !m_locals.count(dest))
        {
            m_routes[dest] = MakeRoute(Ipv4Address(dest), host.nextHop, host.interface);
        }
    }
}

Ptr<Ipv4Route>
EdgeLlmBackhaulRouting::MakeRoute(Ipv4Address dest, Ipv4Address gateway, uint32_t interface) const
{
    Ptr<Ipv4Route> route = Create<Ipv4Route>();
    route->SetDestination(dest);
    route->SetGateway(gateway);
    route->SetSource(m_ipv4->SourceAddressSelection(interface, dest));
    route->SetOutputDevice(m_ipv4->GetNetDevice(interface));
    return route;
}

Ptr<Ipv4Route>
EdgeLlmBackhaulRouting::Lookup(Ipv4Address dest) const
{
    const auto it = m_routes.find(dest.Get());
    return it == m_routes.end() ? nullptr : it->second;
}

Ptr<Ipv4Route>
EdgeLlmBackhaulRouting::RouteOutput(Ptr<Packet> p,
                                    const Ipv4Header& header,
                                    Ptr<NetDevice> oif,
                                    Socket::SocketErrno& sockerr)
{
    NS_LOG_FUNCTION(this << p << header.GetDestination() << oif);
    if (!oif)
    {
        Ptr<Ipv4Route> route = Lookup(header.GetDestination());
        if (route)
        {
            sockerr = Socket::ERROR_NOTERROR;
            return route;
        }
    }
    if (m_fallback)
    {
        return m_fallback->RouteOutput(p, header, oif, sockerr);
    }
    sockerr = Socket::ERROR_NOROUTETOHOST;
    return nullptr;
}

bool
EdgeLlmBackhaulRouting::RouteInput(Ptr<const Packet> p,
                                   const Ipv4Header& header,
                                   Ptr<const NetDevice> idev,
                                   EDGE_LLM_ROUTE_INPUT_CB(UnicastForwardCallback) ucb,
                                   EDGE_LLM_ROUTE_INPUT_CB(MulticastForwardCallback) mcb,
                                   EDGE_LLM_ROUTE_INPUT_CB(LocalDeliverCallback) lcb,
                                   EDGE_LLM_ROUTE_INPUT_CB(ErrorCallback) ecb)
{
    NS_LOG_FUNCTION(this << p << header.GetDestination() << idev);
    const Ipv4Address dest = header.GetDestination();
    const auto in = m_interfaceOf.find(PeekPointer(idev));
    if (in != m_interfaceOf.end() && !dest.IsMulticast() && !dest.IsBroadcast())
    {
        // Ipv4ListRouting's order: local delivery, the input's forwarding flag, a route.
        const uint32_t iif = in->second;
        if (m_localOn.count(LocalKey(iif, dest)) ||
            (m_locals.count(dest.Get()) && m_ipv4->IsDestinationAddress(dest, iif)))
        {
            lcb(p, header, iif);
            return true;
        }
        if (!m_ipv4->IsForwarding(iif))
        {
            ecb(p, header, Socket::ERROR_NOROUTETOHOST);
            return true;
        }
        Ptr<Ipv4Route> route = Lookup(dest);
        if (route)
        {
            ucb(route, p, header);
            return true;
        }
    }
    return m_fallback && m_fallback->RouteInput(p, header, idev, ucb, mcb, lcb, ecb);
}

void
EdgeLlmBackhaulRouting::NotifyInterfaceUp(uint32_t interface)
{
    if (m_fallback)
    {
        m_fallback->NotifyInterfaceUp(interface);
    }
    Rebuild();
}

void
EdgeLlmBackhaulRouting::NotifyInterfaceDown(uint32_t interface)
{
    if (m_fallback)
    {
        m_fallback->NotifyInterfaceDown(interface);
    }
    // As Ipv4StaticRouting: the host routes through a downed interface are removed.
    for (auto it = m_hosts.begin(); it != m_hosts.end();)
    {
        it = it->second.interface == interface ? m_hosts.erase(it) : std::next(it);
    }
    Rebuild();
}

void
EdgeLlmBackhaulRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    if (m_fallback)
    {
        m_fallback->NotifyAddAddress(interface, address);
    }
    Rebuild();
}

void
EdgeLlmBackhaulRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    if (m_fallback)
    {
        m_fallback->NotifyRemoveAddress(interface, address);
    }
    Rebuild();
}

void
EdgeLlmBackhaulRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();
    os << "Node: " << (m_ipv4 ? m_ipv4->GetObject<Node>()->GetId() : 0)
       << ", EdgeLlmBackhaulRouting: " << m_hosts.size() << " host routes, " << m_onLink.size()
       << " on-link ends\nDestination\tGateway\t\tIface\n";
    std::map<uint32_t, Ptr<Ipv4Route>> sorted(m_routes.begin(), m_routes.end());
    for (const auto& [dest, route] : sorted)
    {
        os << route->GetDestination() << "\t" << route->GetGateway() << "\t"
           << m_ipv4->GetInterfaceForDevice(route->GetOutputDevice()) << "\n";
    }
    if (m_fallback)
    {
        os << "Fallback:\n";
        m_fallback->PrintRoutingTable(stream, unit);
    }
}

} // namespace ns3
