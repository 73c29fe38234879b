/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-helper.h"

#include "lte-edge-llm-ran.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/uinteger.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmHelper");

namespace
{

/// The p2p device of \p a whose channel's other end is on \p b (null if none).
Ptr<PointToPointNetDevice>
FindLink(Ptr<Node> a, Ptr<Node> b)
{
    for (uint32_t i = 0; i < a->GetNDevices(); ++i)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(a->GetDevice(i));
        if (!dev)
        {
            continue;
        }
        Ptr<Channel> ch = dev->GetChannel();
        for (std::size_t k = 0; ch && k < ch->GetNDevices(); ++k)
        {
            if (ch->GetDevice(k) != dev && ch->GetDevice(k)->GetNode() == b)
            {
                return dev;
            }
        }
    }
    return nullptr;
}

Ipv4Address
AddressOf(Ptr<NetDevice> dev)
{
    Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
    const int32_t itf = ipv4->GetInterfaceForDevice(dev);
    NS_ABORT_MSG_IF(itf < 0 || ipv4->GetNAddresses(itf) == 0,
                    "node " << dev->GetNode()->GetId() << ": link device has no IPv4 address");
    return ipv4->GetAddress(itf, 0).GetLocal();
}

} // namespace

EdgeLlmHelper::EdgeLlmHelper()
{
    m_nodeFactory.SetTypeId("ns3::EdgeLlmNode");
    m_ueFactory.SetTypeId("ns3::EdgeLlmUeApp");
    m_schedulerFactory.SetTypeId("ns3::CtHoScheduler");
    m_gpuFactory.SetTypeId("ns3::PrefillEngine");
}

void
EdgeLlmHelper::SetRan(Ptr<EdgeLlmRan> ran)
{
    m_ran = ran;
}

Ptr<EdgeLlmRan>
EdgeLlmHelper::GetRan() const
{
    return m_ran ? m_ran : Ptr<EdgeLlmRan>(CreateObject<LteEdgeLlmRan>());
}

void
EdgeLlmHelper::SetNodeAttribute(const std::string& name, const AttributeValue& value)
{
    m_nodeFactory.Set(name, value);
}

void
EdgeLlmHelper::SetUeAttribute(const std::string& name, const AttributeValue& value)
{
    m_ueFactory.Set(name, value);
}

void
EdgeLlmHelper::SetPrefillEngineAttribute(const std::string& name, const AttributeValue& value)
{
    m_gpuFactory.Set(name, value);
}

ApplicationContainer
EdgeLlmHelper::InstallBs(NodeContainer nodes, const std::vector<uint16_t>& cellIds) const
{
    NS_ABORT_MSG_IF(nodes.GetN() != cellIds.size(),
                    "EdgeLlmHelper::InstallBs: " << nodes.GetN() << " nodes but " << cellIds.size()
                                                 << " cell ids");
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> app = m_nodeFactory.Create<EdgeLlmNode>();
        app->SetAttribute("CellId", UintegerValue(cellIds[i]));
        app->SetAttribute("Scheduler",
                          PointerValue(m_schedulerFactory.Create<HandoverScheduler>()));
        app->SetAttribute("PrefillEngine", PointerValue(m_gpuFactory.Create<PrefillEngine>()));
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

ApplicationContainer
EdgeLlmHelper::InstallOnEnbs(NetDeviceContainer enbDevices) const
{
    const Ptr<EdgeLlmRan> ran = GetRan();
    NodeContainer nodes;
    std::vector<uint16_t> cellIds;
    for (uint32_t i = 0; i < enbDevices.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!enbDevices.Get(i),
                        "EdgeLlmHelper::InstallOnEnbs: device " << i << " is null");
        cellIds.push_back(ran->GetCellId(enbDevices.Get(i))); // aborts for a foreign device
        nodes.Add(enbDevices.Get(i)->GetNode());
    }
    return InstallBs(nodes, cellIds);
}

void
EdgeLlmHelper::ConnectBackhaul(ApplicationContainer bsApps) const
{
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        for (uint32_t j = 0; j < bsApps.GetN(); ++j)
        {
            if (i == j)
            {
                continue;
            }
            Ptr<EdgeLlmNode> a = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
            Ptr<EdgeLlmNode> b = DynamicCast<EdgeLlmNode>(bsApps.Get(j));
            NS_ABORT_MSG_IF(!a || !b, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
            Ptr<PointToPointNetDevice> dev = FindLink(a->GetNode(), b->GetNode());
            if (!dev)
            {
                continue;
            }
            DataRateValue rate;
            dev->GetAttribute("DataRate", rate);
            const auto [local, remote] = GetLinkAddresses(a->GetNode(), b->GetNode());
            a->AddPeer(b->GetCellId(), local, remote, rate.Get());
        }
    }
}

void
EdgeLlmHelper::ConnectHandoverTrace(ApplicationContainer bsApps, const std::string& rrcArg) const
{
    const std::string rrcName = rrcArg.empty() ? GetRan()->GetRrcName() : rrcArg;
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> app = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        std::ostringstream path;
        path << "/NodeList/" << app->GetNode()->GetId() << "/DeviceList/*/" << rrcName
             << "/HandoverStart";
        const bool ok = Config::ConnectWithoutContextFailSafe(
            path.str(),
            MakeCallback(&EdgeLlmNode::RrcHandoverStart, app));
        NS_ABORT_MSG_IF(!ok, "EdgeLlmHelper::ConnectHandoverTrace: no trace at " << path.str());
#if EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES
        // Handover failures, where the RRC reports them (LteEnbRrc does since ns-3.37;
        // before, LTE models no handover failure and there is nothing to connect).
        for (const char* failure : {"HandoverFailureNoPreamble",
                                    "HandoverFailureMaxRach",
                                    "HandoverFailureLeaving",
                                    "HandoverFailureJoining"})
        {
            std::ostringstream fp;
            fp << "/NodeList/" << app->GetNode()->GetId() << "/DeviceList/*/" << rrcName << "/"
               << failure;
            Config::ConnectWithoutContextFailSafe(
                fp.str(),
                MakeCallback(&EdgeLlmNode::RrcHandoverFailure, app));
        }
#endif
    }
}

ApplicationContainer
EdgeLlmHelper::InstallUe(NodeContainer ueNodes,
                         NetDeviceContainer ueDevices,
                         Ptr<Application> server,
                         Ipv4Address serverAddress) const
{
    NS_ABORT_MSG_IF(ueNodes.GetN() != ueDevices.GetN(),
                    "EdgeLlmHelper::InstallUe: " << ueNodes.GetN() << " nodes but "
                                                 << ueDevices.GetN() << " devices");
    const Ptr<EdgeLlmRan> ran = GetRan();
    ApplicationContainer apps;
    for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!ueDevices.Get(i), "EdgeLlmHelper::InstallUe: device " << i << " is null");
        Ptr<EdgeLlmUeApp> app = m_ueFactory.Create<EdgeLlmUeApp>();
        // The IMSI: aborts naming the device if it is not the RAN's UE device.
        app->SetAttribute("SessionId", UintegerValue(ran->GetImsi(ueDevices.Get(i))));
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(server);
        NS_ABORT_MSG_IF(!bs, "EdgeLlmHelper::InstallUe: the server is not an EdgeLlmNode");
        UintegerValue port;
        bs->GetAttribute("UePort", port);
        DoubleValue rate;
        bs->GetAttribute("DecodeRate", rate);
        app->SetAttribute("DecodeInterval", TimeValue(Seconds(1.0 / rate.Get())));
        app->SetAttribute("ServerPort", port);
        app->SetAttribute("ServerAddress", Ipv4AddressValue(serverAddress));
        ueNodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

std::pair<Ipv4Address, Ipv4Address>
EdgeLlmHelper::GetLinkAddresses(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<PointToPointNetDevice> devA = FindLink(a, b);
    Ptr<PointToPointNetDevice> devB = FindLink(b, a);
    NS_ABORT_MSG_IF(!devA || !devB,
                    "no point-to-point link between nodes " << a->GetId() << " and " << b->GetId());
    return {AddressOf(devA), AddressOf(devB)};
}

Ipv4Address
EdgeLlmHelper::GetUeFacingAddress(Ptr<Node> enbNode, Ptr<Node> sgw)
{
    return GetLinkAddresses(enbNode, sgw).first;
}

void
EdgeLlmHelper::AddEpcRoutes(Ptr<Node> sgw, Ptr<Node> pgw, NodeContainer enbNodes)
{
    Ipv4StaticRoutingHelper routing;
    const Ipv4Address ueNet("7.0.0.0");
    const Ipv4Mask ueMask("255.0.0.0");
    const auto [sgwS5, pgwS5] = GetLinkAddresses(sgw, pgw);
    for (uint32_t i = 0; i < enbNodes.GetN(); ++i)
    {
        Ptr<Node> enb = enbNodes.Get(i);
        const auto [enbS1u, sgwS1u] = GetLinkAddresses(enb, sgw);
        Ptr<Ipv4> ipv4 = enb->GetObject<Ipv4>();
        routing.GetStaticRouting(ipv4)->AddNetworkRouteTo(ueNet,
                                                          ueMask,
                                                          sgwS1u,
                                                          ipv4->GetInterfaceForAddress(enbS1u));
    }
    Ptr<Ipv4> sgwIp = sgw->GetObject<Ipv4>();
    routing.GetStaticRouting(sgwIp)->AddNetworkRouteTo(ueNet,
                                                       ueMask,
                                                       pgwS5,
                                                       sgwIp->GetInterfaceForAddress(sgwS5));
    Ptr<Ipv4> pgwIp = pgw->GetObject<Ipv4>();
    routing.GetStaticRouting(pgwIp)->AddNetworkRouteTo(Ipv4Address("10.0.0.0"),
                                                       Ipv4Mask("255.0.0.0"),
                                                       sgwS5,
                                                       pgwIp->GetInterfaceForAddress(pgwS5));
}

} // namespace ns3
