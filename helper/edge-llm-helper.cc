/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-helper.h"

#include "cross-traffic-meter.h"
#include "edge-llm-backhaul-helper.h"
#include "lte-edge-llm-ran.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-serving-gpu.h"
#include "ns3/global-value.h"
#include "ns3/gpu-iteration-model.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/token-stream-header.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmHelper");

namespace
{

/// The nodes \p apps run on, in order.
NodeContainer
NodesOf(ApplicationContainer apps)
{
    NodeContainer nodes;
    for (uint32_t i = 0; i < apps.GetN(); ++i)
    {
        nodes.Add(apps.Get(i)->GetNode());
    }
    return nodes;
}

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

/// \return whether \p node has a BS device of \p ran (EdgeLlmRan::IsBsDevice)
bool
IsRanBs(Ptr<Node> node, const EdgeLlmRan& ran)
{
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        if (ran.IsBsDevice(node->GetDevice(i)))
        {
            return true;
        }
    }
    return false;
}

/// \return whether \p node's IPv4 routing has a route to \p destination
bool
HasRoute(Ptr<Node> node, Ipv4Address destination)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    if (!ipv4 || !ipv4->GetRoutingProtocol())
    {
        return false;
    }
    Ipv4Header header;
    header.SetDestination(destination);
    Socket::SocketErrno error;
    return ipv4->GetRoutingProtocol()->RouteOutput(Create<Packet>(), header, nullptr, error) !=
           nullptr;
}

/// \return the first IPv4 address of one of \p ueDevices (the EPC's, AssignUeIpv4Address),
///         or 0.0.0.0 if none has one yet
Ipv4Address
FirstUeAddress(const NetDeviceContainer& ueDevices)
{
    for (uint32_t i = 0; i < ueDevices.GetN(); ++i)
    {
        Ptr<Ipv4> ipv4 = ueDevices.Get(i)->GetNode()->GetObject<Ipv4>();
        const int32_t itf = ipv4 ? ipv4->GetInterfaceForDevice(ueDevices.Get(i)) : -1;
        if (itf >= 0 && ipv4->GetNAddresses(itf) > 0)
        {
            return ipv4->GetAddress(itf, 0).GetLocal();
        }
    }
    return Ipv4Address::GetAny();
}

/// The refusal of a missing EPC route (AddEpcRoutes forgotten), naming \p where.
void
RefuseMissingRoute(const std::string& where, Ipv4Address to)
{
    NS_FATAL_ERROR("EdgeLlmHelper: " << where << " has no route to " << to
                                     << " through the EPC, so no prompt or token would arrive: "
                                        "call EdgeLlmHelper::AddEpcRoutes(epcHelper->GetSgwNode(), "
                                        "epcHelper->GetPgwNode(), bsNodes) before Simulator::Run "
                                        "(EdgeLlmHelper::Install(ran) does it)");
}

/**
 * Refuse an X2/Xn link from cell \p from to cell \p to slower than
 * EdgeLlmRan::MinBackhaulBitRate for its MTU and delay: below it the RRC's handover timers
 * expire while X2 messages are on the way (ns-3 then dereferences a removed UE context).
 */
void
CheckX2Link(const EdgeLlmRan& ran, Ptr<PointToPointNetDevice> dev, uint16_t from, uint16_t to)
{
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    TimeValue delay;
    dev->GetChannel()->GetAttribute("Delay", delay);
    const double minimum =
        EdgeLlmRan::MinBackhaulBitRate(ran.GetRatName(), dev->GetMtu(), delay.Get());
    const auto bitRate = static_cast<double>(rate.Get().GetBitRate());
    if (bitRate < minimum)
    {
        std::ostringstream what;
        what << "EdgeLlmHelper::ConnectBackhaul: the X2/Xn link from cell " << from << " to cell "
             << to << " carries " << bitRate << " bit/s; it must carry at least "
             << std::ceil(minimum) << " bit/s (EdgeLlmRan::MinBackhaulBitRate at MTU "
             << dev->GetMtu() << " B and delay " << delay.Get().As(Time::US)
             << ") for the X2 signalling to meet the RRC's handover timers: raise the EPC "
                "helper's X2LinkDataRate";
        throw std::invalid_argument(what.str());
    }
}

} // namespace

std::string
ValidTypeIds(const std::string& base, const TypeIdRefusal& refusal)
{
    TypeId baseTid;
    std::string valid;
    if (!TypeId::LookupByNameFailSafe(base, &baseTid))
    {
        return valid;
    }
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId t = TypeId::GetRegistered(i);
        if (t != baseTid && t.IsChildOf(baseTid) && t.HasConstructor() &&
            (!refusal || refusal(t.GetName()).empty()))
        {
            valid += (valid.empty() ? "" : ", ") + t.GetName();
        }
    }
    return valid;
}

void
RequireTypeId(const std::string& field,
              const std::string& name,
              const std::string& base,
              const TypeIdRefusal& refusal)
{
    TypeId baseTid;
    if (!TypeId::LookupByNameFailSafe(base, &baseTid))
    {
        throw std::invalid_argument(field + ": this ns-3 has no " + base);
    }
    TypeId tid;
    const bool known = TypeId::LookupByNameFailSafe(name, &tid) && tid != baseTid &&
                       tid.IsChildOf(baseTid) && tid.HasConstructor();
    const std::string why = known && refusal ? refusal(tid.GetName()) : "";
    if (known && why.empty())
    {
        return;
    }
    throw std::invalid_argument(
        field + ": " + (known ? tid.GetName() + " " + why : "'" + name + "' is no " + base) +
        "; valid: " + ValidTypeIds(base, refusal));
}

EdgeLlmHelper::EdgeLlmHelper()
    : m_wiring(std::make_shared<Wiring>())
{
    m_nodeFactory.SetTypeId("ns3::EdgeLlmNode");
    m_ueFactory.SetTypeId("ns3::EdgeLlmUeApp");
    m_schedulerFactory.SetTypeId("ns3::CtHoScheduler");
    m_gpuFactory.SetTypeId("ns3::PrefillEngine");
}

void
EdgeLlmHelper::SetScheduler(const ObjectFactory& factory)
{
    CheckSchedulerType(factory.GetTypeId().GetName());
    m_schedulerFactory = factory;
}

void
EdgeLlmHelper::CheckSchedulerType(const std::string& type)
{
    std::string problem;
    try
    {
        RequireTypeId("EdgeLlmHelper::SetSchedulerType", type, "ns3::HandoverScheduler");
    }
    catch (const std::invalid_argument& e)
    {
        problem = e.what();
    }
    NS_ABORT_MSG_IF(!problem.empty(), problem);
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

void
EdgeLlmHelper::EnableServingGpu(const std::string& preset)
{
    if (!preset.empty())
    {
        GpuIterationModel::FromPreset(preset); // an unknown name: its list of valid ones
    }
    m_serving = true;
    m_servingPreset = preset;
}

void
EdgeLlmHelper::SetServingGpuAttribute(const std::string& name, const AttributeValue& value)
{
    m_servingAttributes.emplace_back(name, value.Copy());
}

void
EdgeLlmHelper::SetSourceRoleAttribute(const std::string& name, const AttributeValue& value)
{
    AddPartAttribute("SourceRole", name, value);
}

void
EdgeLlmHelper::SetTargetRoleAttribute(const std::string& name, const AttributeValue& value)
{
    AddPartAttribute("TargetRole", name, value);
}

void
EdgeLlmHelper::SetPreTransferRoleAttribute(const std::string& name, const AttributeValue& value)
{
    AddPartAttribute("PreTransferRole", name, value);
}

void
EdgeLlmHelper::SetIdleCacheRoleAttribute(const std::string& name, const AttributeValue& value)
{
    AddPartAttribute("IdleCacheRole", name, value);
}

void
EdgeLlmHelper::SetBackhaulTransportAttribute(const std::string& name, const AttributeValue& value)
{
    AddPartAttribute("BackhaulTransport", name, value);
}

void
EdgeLlmHelper::AddPartAttribute(const std::string& part,
                                const std::string& name,
                                const AttributeValue& value)
{
    const TypeId partType = EdgeLlmNode::GetParts().at(part);
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(partType.LookupAttributeByName(name, &info),
                        "EdgeLlmHelper::Set" << part << "Attribute: " << partType.GetName()
                                             << " has no attribute " << name);
    Ptr<AttributeValue> checked = compat::CreateValidValue(info.checker, value);
    NS_ABORT_MSG_UNLESS(checked,
                        "EdgeLlmHelper::Set" << part << "Attribute: invalid value '"
                                             << value.SerializeToString(info.checker) << "' for "
                                             << partType.GetName() << "::" << name << "; valid: "
                                             << info.checker->GetUnderlyingTypeInformation());
    m_partAttributes.emplace_back(part, name, checked);
}

EdgeLlmHelper::Installed
EdgeLlmHelper::Install(Ptr<EdgeLlmRan> ran)
{
    NS_ABORT_MSG_IF(!ran || ran->GetBsDevices().GetN() == 0,
                    "EdgeLlmHelper::Install: the RAN has no BS devices: give it a script's own "
                    "(LteEdgeLlmRan::Wrap, NrEdgeLlmRan::Wrap) or install the module's "
                    "(EdgeLlmRan::Create, then EdgeLlmRan::Install)");
    SetRan(ran);
    Installed installed;
    installed.bsApps = InstallOnEnbs(ran->GetBsDevices());
    if (ran->GetBackhaul())
    {
        ConnectBackhaul(installed.bsApps, ran->GetBackhaul());
    }
    else
    {
        ConnectBackhaul(installed.bsApps);
    }
    ConnectHandoverTrace(installed.bsApps);
    NodeContainer bsNodes;
    for (uint32_t i = 0; i < ran->GetBsDevices().GetN(); ++i)
    {
        bsNodes.Add(ran->GetBsDevices().Get(i)->GetNode());
    }
    AddEpcRoutes(ran->GetSgwNode(), ran->GetPgwNode(), bsNodes);
    NodeContainer ueNodes;
    for (uint32_t i = 0; i < ran->GetUeDevices().GetN(); ++i)
    {
        ueNodes.Add(ran->GetUeDevices().Get(i)->GetNode());
    }
    installed.ueApps = InstallUe(ueNodes, ran->GetUeDevices(), installed.bsApps, ran->GetSgwNode());
    return installed;
}

ApplicationContainer
EdgeLlmHelper::InstallBs(NodeContainer nodes, const std::vector<uint16_t>& cellIds) const
{
    NS_ABORT_MSG_IF(nodes.GetN() != cellIds.size(),
                    "EdgeLlmHelper::InstallBs: " << nodes.GetN() << " nodes but " << cellIds.size()
                                                 << " cell ids");
    const Ptr<EdgeLlmRan> ran = GetRan();
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> app = m_nodeFactory.Create<EdgeLlmNode>();
        app->SetAttribute("CellId", UintegerValue(cellIds[i]));
        app->SetAttribute("Scheduler",
                          PointerValue(m_schedulerFactory.Create<HandoverScheduler>()));
        app->SetAttribute("PrefillEngine", PointerValue(m_gpuFactory.Create<PrefillEngine>()));
        if (m_serving)
        {
            Ptr<EdgeLlmServingGpu> gpu = CreateObject<EdgeLlmServingGpu>();
            if (!m_servingPreset.empty())
            {
                gpu->SetPreset(m_servingPreset);
            }
            for (const auto& [name, value] : m_servingAttributes)
            {
                gpu->SetAttribute(name, *value);
            }
            app->SetAttribute("ServingGpu", PointerValue(gpu));
        }
        for (const auto& [part, name, value] : m_partAttributes)
        {
            PointerValue object;
            app->GetAttribute(part, object);
            object.Get<Object>()->SetAttribute(name, *value);
        }
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
        if (IsRanBs(nodes.Get(i), *ran))
        {
            WatchHandoverTrace(app, ran->GetRrcName());
        }
    }
    return apps;
}

void
EdgeLlmHelper::WatchHandoverTrace(Ptr<EdgeLlmNode> app, const std::string& rrcName) const
{
    std::ostringstream path;
    path << "/NodeList/" << app->GetNode()->GetId() << "/DeviceList/*/" << rrcName
         << "/HandoverStart";
    const std::shared_ptr<const Wiring> wiring = m_wiring;
    const Application* bs = PeekPointer(app); // the app outlives its node's RRC traces
    const uint32_t node = app->GetNode()->GetId();
    Config::ConnectWithoutContextFailSafe(
        path.str(),
        compat::MakeCallback<void, uint64_t, uint16_t, uint16_t, uint16_t>(
            [wiring, bs, node](uint64_t imsi, uint16_t cellId, uint16_t, uint16_t targetCellId) {
                NS_ABORT_MSG_IF(wiring->handoverTraced.count(bs) == 0 &&
                                    wiring->ues.count(imsi) > 0,
                                "EdgeLlmHelper: UE " << imsi << " hands over from cell " << cellId
                                                     << " to cell " << targetCellId
                                                     << " (its RRC's HandoverStart), but the "
                                                        "EdgeLlmNode on node "
                                                     << node
                                                     << " does not hear it, so the session "
                                                        "would stay at the source: call "
                                                        "EdgeLlmHelper::ConnectHandoverTrace("
                                                        "bsApps) before Simulator::Run "
                                                        "(EdgeLlmHelper::Install(ran) does it)");
            }));
}

void
EdgeLlmHelper::CheckEpcRoutesAtStart(NodeContainer bsNodes,
                                     Ptr<Node> sgw,
                                     NetDeviceContainer ueDevices)
{
    if (!sgw || bsNodes.GetN() == 0)
    {
        return; // no EPC between the BSs and their UEs
    }
    compat::Schedule(Seconds(0), [bsNodes, sgw, ueDevices]() {
        const Ipv4Address ue = FirstUeAddress(ueDevices);
        if (ue == Ipv4Address::GetAny())
        {
            return; // no UE address: nothing the routes could lead to
        }
        Ptr<Node> pgw = EdgeLlmRan::FindEpcGateways(bsNodes.Get(0)).second;
        for (uint32_t i = 0; i < bsNodes.GetN(); ++i)
        {
            if (!HasRoute(bsNodes.Get(i), ue))
            {
                RefuseMissingRoute("the edge-LLM BS on node " +
                                       std::to_string(bsNodes.Get(i)->GetId()),
                                   ue);
            }
        }
        if (!HasRoute(sgw, ue))
        {
            RefuseMissingRoute("the SGW (node " + std::to_string(sgw->GetId()) + ")", ue);
        }
        for (uint32_t i = 0; pgw && i < bsNodes.GetN(); ++i)
        {
            const Ipv4Address bs = GetUeFacingAddress(bsNodes.Get(i), sgw);
            if (!HasRoute(pgw, bs))
            {
                RefuseMissingRoute("the PGW (node " + std::to_string(pgw->GetId()) + ")", bs);
            }
        }
    });
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
    Ptr<EdgeLlmRan> ran = GetRan();
    uint32_t links = 0;
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
            ++links;
            DataRateValue rate;
            dev->GetAttribute("DataRate", rate);
            if (IsRanBs(a->GetNode(), *ran) && IsRanBs(b->GetNode(), *ran))
            {
                // An X2/Xn link, however it was made (LteHelper::AddX2Interface in a script
                // of one's own): what EdgeLlmRan::Install gives its links.
                CheckX2Link(*ran, dev, a->GetCellId(), b->GetCellId());
                if (ran->GetX2SignallingPriority() && !EdgeLlmRan::HasX2QueueDisc(dev))
                {
                    EdgeLlmRan::InstallX2QueueDisc(dev, "ns3::FifoQueueDisc");
                }
            }
            const auto [local, remote] = GetLinkAddresses(a->GetNode(), b->GetNode());
            a->AddPeer(b->GetCellId(), local, remote, rate.Get());
        }
    }
    if (bsApps.GetN() >= 2 && links == 0)
    {
        throw std::invalid_argument(
            "EdgeLlmHelper::ConnectBackhaul: no two of the " + std::to_string(bsApps.GetN()) +
            " BSs are joined by a point-to-point link, so no session could be handed over. "
            "Call it after the X2/Xn links exist: LteHelper::AddX2Interface (or "
            "EpcHelper::AddX2Interface, EdgeLlmRan::Install), then InstallOnEnbs, then "
            "ConnectBackhaul; or pass an installed EdgeLlmBackhaul");
    }
}

void
EdgeLlmHelper::ConnectBackhaul(ApplicationContainer bsApps, Ptr<EdgeLlmBackhaul> backhaul) const
{
    NS_ABORT_MSG_IF(!backhaul, "EdgeLlmHelper::ConnectBackhaul: null backhaul");
    // PlanningCrossTraffic=Measured: one CrossTrafficMeter per sending device, shared by
    // the paths through it.
    std::map<Ptr<NetDevice>, Ptr<CrossTrafficMeter>> meters;
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> a = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        NS_ABORT_MSG_IF(!a, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
        const int32_t from = backhaul->GetSiteIndex(a->GetNode());
        NS_ABORT_MSG_IF(from < 0,
                        "EdgeLlmHelper::ConnectBackhaul: node " << a->GetNode()->GetId()
                                                                << " is no site of the backhaul");
        for (uint32_t j = 0; j < bsApps.GetN(); ++j)
        {
            Ptr<EdgeLlmNode> b = DynamicCast<EdgeLlmNode>(bsApps.Get(j));
            NS_ABORT_MSG_IF(!b, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
            const int32_t to = backhaul->GetSiteIndex(b->GetNode());
            NS_ABORT_MSG_IF(to < 0,
                            "EdgeLlmHelper::ConnectBackhaul: node "
                                << b->GetNode()->GetId() << " is no site of the backhaul");
            if (i == j || !backhaul->HasPath(from, to))
            {
                continue; // PeerRange left the pair out: no X2/Xn, no KV connection
            }
            const EdgeLlmBackhaul::Path path = backhaul->GetPath(from, to);
            EdgeLlmNode::PeerPath peer;
            peer.local = path.local;
            peer.remote = path.remote;
            peer.rate = path.bottleneck;
            peer.delay = path.delay;
            peer.mtu = path.mtu;
            peer.links = path.links;
            Ptr<Node> at = a->GetNode(); // the sending end of the next hop
            for (uint32_t l : path.links)
            {
                const EdgeLlmBackhaul::Link& link = backhaul->GetLinks().at(l);
                EdgeLlmNode::PathHop hop;
                hop.rate = link.rate;
                hop.crossBitRate = link.crossBitRate;
                hop.fairQueue = EdgeLlmBackhaul::IsFairQueue(link.kvQueueDisc[0]);
                const uint32_t end = link.a == at ? 0 : 1;
                at = end == 0 ? link.b : link.a;
                if (a->GetPlanningCrossTraffic() == EdgeLlmNode::MEASURED)
                {
                    Ptr<NetDevice> device = link.devices.Get(end);
                    Ptr<CrossTrafficMeter>& meter = meters[device];
                    if (!meter)
                    {
                        UintegerValue port;
                        UintegerValue controlPort;
                        a->GetBackhaulTransport()->GetAttribute("BackhaulPort", port);
                        a->GetBackhaulTransport()->GetAttribute("ControlPort", controlPort);
                        meter = CreateObject<CrossTrafficMeter>();
                        meter->Install(DynamicCast<PointToPointNetDevice>(device),
                                       static_cast<uint16_t>(port.Get()),
                                       static_cast<uint16_t>(controlPort.Get()));
                    }
                    hop.measuredCrossBitRate = MakeCallback(&CrossTrafficMeter::GetBitRate, meter);
                }
                peer.hops.push_back(hop);
            }
            a->AddPeer(b->GetCellId(), peer);
        }
    }
}

namespace
{

/// (sending, receiving) ends of every BS pair's KV connection.
using ConnectionPairs = std::vector<EdgeLlmHelper::ConnectionPair>;

/// StopWhenDrained's check: stop \p grace from now if every pair has drained, else again
/// in 1 ms.
void
StopIfDrained(std::shared_ptr<const ConnectionPairs> pairs, Time grace)
{
    for (const auto& [sending, receiving] : *pairs)
    {
        if (receiving->GetKvBytesReceived() < sending->GetKvBytesSent())
        {
            Simulator::Schedule(MilliSeconds(1), &StopIfDrained, pairs, grace);
            return;
        }
    }
    Simulator::Stop(grace);
}

} // namespace

std::vector<EdgeLlmHelper::ConnectionPair>
EdgeLlmHelper::GetConnectionPairs(ApplicationContainer bsApps)
{
    std::vector<ConnectionPair> pairs;
    for (uint32_t a = 0; a < bsApps.GetN(); ++a)
    {
        Ptr<EdgeLlmNode> from = DynamicCast<EdgeLlmNode>(bsApps.Get(a));
        NS_ABORT_MSG_IF(!from, "EdgeLlmHelper::GetConnectionPairs: not an EdgeLlmNode");
        for (uint32_t b = 0; b < bsApps.GetN(); ++b)
        {
            Ptr<EdgeLlmNode> to = DynamicCast<EdgeLlmNode>(bsApps.Get(b));
            if (a != b && from->GetConnection(to->GetCellId()) &&
                to->GetConnection(from->GetCellId()))
            {
                pairs.emplace_back(from->GetConnection(to->GetCellId()),
                                   to->GetConnection(from->GetCellId()));
            }
        }
    }
    return pairs;
}

void
EdgeLlmHelper::StopWhenDrained(ApplicationContainer bsApps, Time grace)
{
    StopIfDrained(std::make_shared<const ConnectionPairs>(GetConnectionPairs(bsApps)), grace);
}

void
EdgeLlmHelper::CheckConfiguration(ApplicationContainer bsApps)
{
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        NS_ABORT_MSG_IF(!bs, "EdgeLlmHelper::CheckConfiguration: not an EdgeLlmNode");
        const std::string error = bs->CheckConfiguration();
        if (!error.empty())
        {
            throw std::invalid_argument(error);
        }
    }
}

void
EdgeLlmHelper::CheckNodeDefaults(const std::string& model, uint32_t kvBits)
{
    Ptr<EdgeLlmNode> node = CreateObject<EdgeLlmNode>();
    node->SetAttribute("Model", StringValue(model));
    node->SetAttribute("KvBits", UintegerValue(kvBits));
    node->SetAttribute("Scheduler", PointerValue(CreateObject<CtHoScheduler>()));
    std::string error = node->CheckConfiguration(); // no peer: the peer-free checks
    node->Dispose();
    if (!error.empty())
    {
        // The messages name the BS by its cell; this one stands for every BS.
        for (const auto& [cell, every] :
             {std::pair<std::string, std::string>{" (cell 0)", " (every BS)"}, {", cell 0)", ")"}})
        {
            for (auto at = error.find(cell); at != std::string::npos; at = error.find(cell))
            {
                error.replace(at, cell.size(), every);
            }
        }
        throw std::invalid_argument(error);
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
        m_wiring->handoverTraced.insert(PeekPointer(app));
        // Proactive pre-transfer: the RRC's own A3 event for the policy's trigger.
        const std::optional<PreTransferSettings> pre =
            app->GetScheduler() ? app->GetScheduler()->GetPreTransfer() : std::nullopt;
        if (pre && pre->trigger == PreTransferSettings::A3_ENTERING)
        {
            EdgeLlmNode* bs = PeekPointer(app); // the app outlives its node's RRC traces
            GetRan()->AddPreTransferTrigger(
                app->GetNode(),
                pre->a3OffsetDb,
                pre->timeToTrigger,
                [bs](uint64_t imsi, uint16_t cellId) { bs->UeHandoverLikely(imsi, cellId); });
        }
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
            // Every BS hears it: the session's source when the target's RRC refused the
            // UE before the source started the handover (HandoverFailureNoPreamble).
            for (uint32_t j = 0; j < bsApps.GetN(); ++j)
            {
                Config::ConnectWithoutContextFailSafe(
                    fp.str(),
                    MakeCallback(&EdgeLlmNode::RrcHandoverFailure,
                                 DynamicCast<EdgeLlmNode>(bsApps.Get(j))));
            }
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
        m_wiring->ues.insert(app->GetSessionId());
        WaitForAttach(app, ueDevices.Get(i), ran->GetUeRrcName(), nullptr);
    }
    if (server)
    {
        CheckEpcRoutesAtStart(NodeContainer(server->GetNode()),
                              EdgeLlmRan::FindEpcGateways(server->GetNode()).first,
                              ueDevices);
    }
    return apps;
}

void
EdgeLlmHelper::WaitForAttach(Ptr<EdgeLlmUeApp> app,
                             Ptr<NetDevice> ueDevice,
                             const std::string& ueRrcName,
                             EdgeLlmUeApp::ServerResolver resolver)
{
    std::ostringstream path;
    path << "/NodeList/" << ueDevice->GetNode()->GetId() << "/DeviceList/" << ueDevice->GetIfIndex()
         << "/" << ueRrcName << "/";
    // The attach: ConnectionEstablished names the cell; the data bearer (without which the
    // UE's RRC drops the prompt) comes with the RRC reconfiguration after it.
    if (Config::ConnectWithoutContextFailSafe(path.str() + "ConnectionEstablished",
                                              MakeCallback(&EdgeLlmUeApp::NotifyAttached, app)) &&
        Config::ConnectWithoutContextFailSafe(path.str() + "ConnectionReconfiguration",
                                              MakeCallback(&EdgeLlmUeApp::NotifyBearerReady, app)))
    {
        app->WaitForAttach(resolver);
        // The serving cell after each handover: where a later prompt goes.
        Config::ConnectWithoutContextFailSafe(
            path.str() + "HandoverStart",
            MakeCallback(&EdgeLlmUeApp::NotifyHandoverStart, app));
        Config::ConnectWithoutContextFailSafe(path.str() + "HandoverEndOk",
                                              MakeCallback(&EdgeLlmUeApp::NotifyHandoverEnd, app));
        Config::ConnectWithoutContextFailSafe(
            path.str() + "HandoverEndError",
            MakeCallback(&EdgeLlmUeApp::NotifyHandoverFailed, app));
    }
    else
    {
        NS_ABORT_MSG_IF(resolver,
                        "EdgeLlmHelper::InstallUe: no " << path.str()
                                                        << "ConnectionEstablished trace to "
                                                           "learn the UE's cell from");
    }
}

Ptr<Node>
EdgeLlmHelper::SgwFor(ApplicationContainer bsApps) const
{
    if (m_ran)
    {
        return m_ran->GetSgwNode();
    }
    // LTE without SetRan: a script's own EPC, found from the first BS's S1-U link.
    Ptr<Node> sgw =
        bsApps.GetN() > 0 ? EdgeLlmRan::FindEpcGateways(bsApps.Get(0)->GetNode()).first : nullptr;
    NS_ABORT_MSG_IF(!sgw,
                    "EdgeLlmHelper::InstallUe(ueNodes, ueDevices, bsApps): no EPC: no RAN was "
                    "set and no BS is linked to an SGW, so the BSs' UE-facing addresses are "
                    "unknown; give the helper the RAN (SetRan, or Install(LteEdgeLlmRan::Wrap"
                    "(lteHelper, epcHelper, enbDevs, ueDevs))) or pass the SGW: "
                    "InstallUe(ueNodes, ueDevices, bsApps, epcHelper->GetSgwNode())");
    return sgw;
}

ApplicationContainer
EdgeLlmHelper::InstallUe(NodeContainer ueNodes,
                         NetDeviceContainer ueDevices,
                         ApplicationContainer bsApps) const
{
    return InstallUe(ueNodes, ueDevices, bsApps, SgwFor(bsApps));
}

EdgeLlmUeApp::ServerResolver
EdgeLlmHelper::ServersOf(ApplicationContainer bsApps, Ptr<Node> sgwNode)
{
    struct Server
    {
        Ipv4Address address;
        uint16_t port{0};
        Time decodeInterval;
    };

    std::map<uint16_t, Server> servers; // by cell id
    for (uint32_t b = 0; b < bsApps.GetN(); ++b)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(bsApps.Get(b));
        NS_ABORT_MSG_IF(!bs,
                        "EdgeLlmHelper::InstallUe: application " << b << " is not an EdgeLlmNode");
        UintegerValue port;
        bs->GetAttribute("UePort", port);
        DoubleValue rate;
        bs->GetAttribute("DecodeRate", rate);
        servers[bs->GetCellId()] = {GetUeFacingAddress(bs->GetNode(), sgwNode),
                                    static_cast<uint16_t>(port.Get()),
                                    Seconds(1.0 / rate.Get())};
    }
    return [servers](uint16_t cell, Ipv4Address& address, uint16_t& port, Time& dt) {
        const auto it = servers.find(cell);
        if (it == servers.end())
        {
            return false;
        }
        address = it->second.address;
        port = it->second.port;
        dt = it->second.decodeInterval;
        return true;
    };
}

ApplicationContainer
EdgeLlmHelper::InstallUe(NodeContainer ueNodes,
                         NetDeviceContainer ueDevices,
                         ApplicationContainer bsApps,
                         Ptr<Node> sgwNode) const
{
    NS_ABORT_MSG_IF(!sgwNode, "EdgeLlmHelper::InstallUe: the SGW node is null");
    NS_ABORT_MSG_IF(ueNodes.GetN() != ueDevices.GetN(),
                    "EdgeLlmHelper::InstallUe: " << ueNodes.GetN() << " nodes but "
                                                 << ueDevices.GetN() << " devices");
    const Ptr<EdgeLlmRan> ran = GetRan();
    const EdgeLlmUeApp::ServerResolver servers = ServersOf(bsApps, sgwNode);
    ApplicationContainer apps;
    for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!ueDevices.Get(i), "EdgeLlmHelper::InstallUe: device " << i << " is null");
        Ptr<EdgeLlmUeApp> app = m_ueFactory.Create<EdgeLlmUeApp>();
        app->SetAttribute("SessionId", UintegerValue(ran->GetImsi(ueDevices.Get(i))));
        ueNodes.Get(i)->AddApplication(app);
        apps.Add(app);
        m_wiring->ues.insert(app->GetSessionId());
        WaitForAttach(app, ueDevices.Get(i), ran->GetUeRrcName(), servers);
    }
    CheckEpcRoutesAtStart(NodesOf(bsApps), sgwNode, ueDevices);
    return apps;
}

void
EdgeLlmHelper::ChainTurn(const std::string& who,
                         const LlmRequest& q,
                         uint32_t lastTurn,
                         uint64_t sessionId,
                         Ptr<EdgeLlmUeApp> app,
                         std::map<uint64_t, Turn>& turns)
{
    constexpr uint64_t maxTokens = std::numeric_limits<uint32_t>::max();
    if (lastTurn == 0)
    {
        return; // a request alone (its conversation has no other turn here): nothing to chain
    }
    const auto previous = turns.find(q.conversation);
    if (q.turn > 0)
    {
        const bool found = previous != turns.end();
        NS_ABORT_MSG_IF(
            !found || previous->second.turn + 1 != q.turn,
            who << "turn " << q.turn << " of conversation " << q.conversation << " needs its turn "
                << q.turn - 1 << " earlier in the same requests, got "
                << (found ? "turn " + std::to_string(previous->second.turn) : std::string("none")));
        NS_ABORT_MSG_IF(previous->second.ue != q.ue,
                        who << "ue must be " << previous->second.ue << " (conversation "
                            << q.conversation << "'s earlier turns), got " << q.ue);
    }
    else
    {
        NS_ABORT_MSG_IF(previous != turns.end(),
                        who << "conversation " << q.conversation << " has a turn 0 already");
    }
    Turn t = q.turn > 0 ? previous->second : Turn{};
    if (q.turn == 0)
    {
        t.conversation = sessionId;
        t.ue = q.ue;
    }
    NS_ABORT_MSG_IF(t.earlierTokens + q.promptTokens > maxTokens,
                    who << "the context (earlier turns' " << t.earlierTokens
                        << " tokens + promptTokens " << q.promptTokens << ") must be at most "
                        << maxTokens);
    app->SetAttribute("Conversation", UintegerValue(t.conversation));
    app->SetAttribute("EarlierTokens", UintegerValue(t.earlierTokens));
    app->SetAttribute("MoreTurns", BooleanValue(q.turn < lastTurn));
    if (q.turn > 0)
    {
        app->SetPreviousTurn(t.app);
    }
    t.turn = q.turn;
    t.app = app;
    t.earlierTokens += q.promptTokens + q.outputTokens;
    NS_ABORT_MSG_IF(q.turn < lastTurn && t.earlierTokens > maxTokens,
                    who << "the context after it (" << t.earlierTokens
                        << " tokens) must be at most " << maxTokens << " for its next turn");
    turns[q.conversation] = t;
}

ApplicationContainer
EdgeLlmHelper::InstallUeRequests(NodeContainer ueNodes,
                                 NetDeviceContainer ueDevices,
                                 ApplicationContainer bsApps,
                                 const std::vector<LlmRequest>& requests,
                                 Time start) const
{
    NS_ABORT_MSG_IF(ueNodes.GetN() != ueDevices.GetN(),
                    "EdgeLlmHelper::InstallUeRequests: " << ueNodes.GetN() << " nodes but "
                                                         << ueDevices.GetN() << " devices");
    NS_ABORT_MSG_IF(start.IsStrictlyNegative(),
                    "EdgeLlmHelper::InstallUeRequests: start must be >= 0 s, got "
                        << start.GetSeconds() << " s");
    const Ptr<EdgeLlmRan> ran = GetRan();
    const Ptr<Node> sgw = SgwFor(bsApps);
    const EdgeLlmUeApp::ServerResolver servers = ServersOf(bsApps, sgw);
    constexpr uint64_t maxTokens = std::numeric_limits<uint32_t>::max();
    std::map<uint64_t, uint32_t> lastTurn; // per conversation, of this call
    for (const LlmRequest& q : requests)
    {
        lastTurn[q.conversation] = std::max(lastTurn[q.conversation], q.turn);
    }
    std::map<uint64_t, Turn> turns; // per conversation: its latest turn installed
    ApplicationContainer apps;
    for (std::size_t r = 0; r < requests.size(); ++r)
    {
        const LlmRequest& q = requests[r];
        std::ostringstream who;
        who << "EdgeLlmHelper::InstallUeRequests: request " << r << ": ";
        NS_ABORT_MSG_IF(q.ue >= ueNodes.GetN(),
                        who.str() << "ue must be in [0, " << ueNodes.GetN() << "), got " << q.ue);
        NS_ABORT_MSG_IF(q.promptTokens < 1 || q.promptTokens > maxTokens,
                        who.str() << "promptTokens must be in [1, " << maxTokens << "], got "
                                  << q.promptTokens);
        NS_ABORT_MSG_IF(q.outputTokens < 1 || q.outputTokens > maxTokens,
                        who.str() << "outputTokens must be in [1, " << maxTokens << "], got "
                                  << q.outputTokens);
        NS_ABORT_MSG_IF(!(q.arrival >= 0 && q.arrival <= 1e9),
                        who.str() << "arrival must be in [0, 1e9] s, got " << q.arrival);
        Ptr<EdgeLlmUeApp> app = m_ueFactory.Create<EdgeLlmUeApp>();
        UintegerValue base;
        app->GetAttribute("LocalPort", base);
        const uint64_t imsi = ran->GetImsi(ueDevices.Get(q.ue));
        const uint32_t k = ++m_wiring->requests[imsi];
        NS_ABORT_MSG_IF(base.Get() + k > 65535,
                        who.str() << "UE " << q.ue << "'s request " << k << " would need LocalPort "
                                  << base.Get() + k << ": at most " << 65535 - base.Get()
                                  << " requests per UE with LocalPort " << base.Get());
        NS_ABORT_MSG_IF(imsi < 1 || imsi > EdgeLlmSessionId::MAX_IMSI,
                        who.str() << "UE " << q.ue << "'s IMSI must be in [1, "
                                  << EdgeLlmSessionId::MAX_IMSI << "] for request sessions, got "
                                  << imsi);
        const uint64_t sessionId = EdgeLlmSessionId::Make(imsi, k);
        app->SetAttribute("SessionId", UintegerValue(sessionId));
        app->SetAttribute("LocalPort", UintegerValue(base.Get() + k));
        app->SetAttribute("PromptTokens", UintegerValue(q.promptTokens));
        app->SetAttribute("MaxNewTokens", UintegerValue(q.outputTokens));
        ChainTurn(who.str(), q, lastTurn.at(q.conversation), sessionId, app, turns);
        app->SetStartTime(start + Seconds(q.arrival));
        ueNodes.Get(q.ue)->AddApplication(app);
        apps.Add(app);
        m_wiring->ues.insert(imsi);
        WaitForAttach(app, ueDevices.Get(q.ue), ran->GetUeRrcName(), servers);
    }
    CheckEpcRoutesAtStart(NodesOf(bsApps), sgw, ueDevices);
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
