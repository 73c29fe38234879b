/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A full mesh of BSs over point-to-point links, without a RAN: the backhaul protocol's tests
 * (faults, pre-transfer) build their sessions with EdgeLlmNode::OpenSession on it.
 */
#ifndef EDGE_LLM_MESH_FIXTURE_H
#define EDGE_LLM_MESH_FIXTURE_H

#include "ns3/application-container.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace edgellmtest
{

/**
 * \p n BSs (cells 1..n), every pair joined by a link of \p rate, \p delay, MTU 9000, with
 * \p scheduler (its attributes as Config defaults) over \p transport ("Tcp" or "Udp"),
 * GatherTime 0.
 */
inline ApplicationContainer
MakeMesh(uint32_t n,
         const std::string& scheduler,
         const std::string& rate,
         const std::string& transport,
         const std::string& delay = "100us")
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(n);
    InternetStackHelper internet;
    internet.Install(nodes);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(9000));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    Ipv4AddressHelper addr("10.20.0.0", "255.255.255.252");
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = a + 1; b < n; ++b)
        {
            addr.Assign(p2p.Install(nodes.Get(a), nodes.Get(b)));
            addr.NewNetwork();
        }
    }
    EdgeLlmHelper edge;
    edge.SetSchedulerType(scheduler);
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0)));
    edge.SetBackhaulTransportAttribute("Transport", StringValue(transport));
    std::vector<uint16_t> cells;
    for (uint32_t i = 0; i < n; ++i)
    {
        cells.push_back(static_cast<uint16_t>(i + 1));
    }
    ApplicationContainer apps = edge.InstallBs(nodes, cells);
    edge.ConnectBackhaul(apps);
    return apps;
}

} // namespace edgellmtest
} // namespace ns3

#endif /* EDGE_LLM_MESH_FIXTURE_H */
