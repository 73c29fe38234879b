/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-backhaul-helper.h"

#include "edge-llm-backhaul-routing-helper.h"
#include "edge-llm-helper.h"
#include "edge-llm-ran.h"

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/channel.h"
#include "ns3/cobalt-queue-disc.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mobility-model.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/pie-queue-disc.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/red-queue-disc.h"
#include "ns3/string.h"
#include "ns3/topology-reader-helper.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmBackhaul");
NS_OBJECT_ENSURE_REGISTERED(EdgeLlmBackhaul);

namespace
{

/// UDP port of the cross traffic's sinks.
constexpr uint16_t CROSS_TRAFFIC_PORT = 9;
/// TCP port of the BulkSend cross traffic's sinks.
constexpr uint16_t CROSS_TRAFFIC_TCP_PORT = 10;
/// UDP + IPv4 + PPP header bytes of a cross-traffic packet.
constexpr uint32_t CROSS_HEADER_BYTES = 30;
/// RedForLink: ARED's lower bound on the automatic MinTh, packets (RED's own rule)
constexpr double RED_MIN_THRESHOLD_PACKETS = 5;

/**
 * \return whether attribute \p name of \p tid still has ns-3's initial value (no
 *         Config::SetDefault or command-line value replaced it)
 */
bool
IsNs3Default(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info),
                        tid.GetName() << " has no attribute " << name);
    return info.initialValue->SerializeToString(info.checker) ==
           info.originalInitialValue->SerializeToString(info.checker);
}

/// The Ipv4 interface of \p device on its node.
uint32_t
InterfaceOf(Ptr<NetDevice> device)
{
    Ptr<Ipv4> ipv4 = device->GetNode()->GetObject<Ipv4>();
    const int32_t itf = ipv4->GetInterfaceForDevice(device);
    NS_ABORT_MSG_IF(itf < 0, "EdgeLlmBackhaul: device without an IPv4 interface");
    return static_cast<uint32_t>(itf);
}

} // namespace

TypeId
EdgeLlmBackhaul::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmBackhaul")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmBackhaul>()
            .AddAttribute(
                "Topology",
                "Mesh (a cable between every two sites: the RAT's own X2 links), "
                "Star (every site to one aggregation router), Ring, or File "
                "(TopologyFile in TopologyFormat)",
                EnumValue(EdgeLlmBackhaul::TOPOLOGY_MESH),
                compat::MakeEnumAccessor<EdgeLlmBackhaul::Topology>(&EdgeLlmBackhaul::m_topology),
                MakeEnumChecker(EdgeLlmBackhaul::TOPOLOGY_MESH,
                                "Mesh",
                                EdgeLlmBackhaul::TOPOLOGY_STAR,
                                "Star",
                                EdgeLlmBackhaul::TOPOLOGY_RING,
                                "Ring",
                                EdgeLlmBackhaul::TOPOLOGY_FILE,
                                "File"))
            .AddAttribute("LinkDataRate",
                          "Rate of every Star/Ring/File link (SetLinkDataRate overrides one; "
                          "Mesh uses the RAN config's backhaulGbps, or this without a RAN)",
                          DataRateValue(DataRate("1Gbps")),
                          MakeDataRateAccessor(&EdgeLlmBackhaul::m_linkRate),
                          MakeDataRateChecker())
            .AddAttribute("AggregationDataRate",
                          "Star: rate of the sites' links to the aggregation router "
                          "(0: LinkDataRate)",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&EdgeLlmBackhaul::m_aggregationRate),
                          MakeDataRateChecker())
            .AddAttribute("LinkDelay",
                          "One-way propagation delay of every Star/Ring/File link",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&EdgeLlmBackhaul::m_linkDelay),
                          MakeTimeChecker())
            .AddAttribute("LinkMtu",
                          "MTU of every Star/Ring/File link, bytes, >= 576",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&EdgeLlmBackhaul::m_linkMtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("QueueDisc",
                          "QueueDisc TypeId on every backhaul device (sites' and routers'): "
                          "the KV band's child of the X2 priority queue disc, or the root "
                          "without X2 signalling priority. \"\": FIFO band (root: ns-3's "
                          "default)",
                          StringValue(""),
                          MakeStringAccessor(&EdgeLlmBackhaul::m_queueDisc),
                          MakeStringChecker())
            .AddAttribute("TopologyFile",
                          "File: the topology file (ns-3 topology-read)",
                          StringValue(""),
                          MakeStringAccessor(&EdgeLlmBackhaul::m_topologyFile),
                          MakeStringChecker())
            .AddAttribute("TopologyFormat",
                          "File: Inet, Orbis or Rocketfuel",
                          EnumValue(EdgeLlmBackhaul::FORMAT_INET),
                          compat::MakeEnumAccessor<EdgeLlmBackhaul::TopologyFormat>(
                              &EdgeLlmBackhaul::m_topologyFormat),
                          MakeEnumChecker(EdgeLlmBackhaul::FORMAT_INET,
                                          "Inet",
                                          EdgeLlmBackhaul::FORMAT_ORBIS,
                                          "Orbis",
                                          EdgeLlmBackhaul::FORMAT_ROCKETFUEL,
                                          "Rocketfuel"))
            .AddAttribute("RouterRouting",
                          "Routing on the backhaul's routers (Star's aggregation router, "
                          "File's routers): EdgeLlm (EdgeLlmBackhaulRouting: host routes and "
                          "link ends in hash tables, O(1) a packet, ns-3's static routing as "
                          "its fallback) or Static (ns-3's list of static routing: every "
                          "interface and route scanned a packet); the same routes either "
                          "way",
                          EnumValue(EdgeLlmBackhaul::ROUTING_EDGE_LLM),
                          compat::MakeEnumAccessor<EdgeLlmBackhaul::RouterRouting>(
                              &EdgeLlmBackhaul::m_routerRouting),
                          MakeEnumChecker(EdgeLlmBackhaul::ROUTING_EDGE_LLM,
                                          "EdgeLlm",
                                          EdgeLlmBackhaul::ROUTING_STATIC,
                                          "Static"))
            .AddAttribute("CrossTraffic",
                          "What InstallCrossTraffic puts on each link, each way: OnOff (UDP "
                          "at a constant rate, load x R on the wire; the planner subtracts "
                          "it) or BulkSend (TCP sending the same bytes as fast as it can; "
                          "not subtracted)",
                          EnumValue(EdgeLlmBackhaul::CROSS_ON_OFF),
                          compat::MakeEnumAccessor<EdgeLlmBackhaul::CrossTraffic>(
                              &EdgeLlmBackhaul::m_crossTraffic),
                          MakeEnumChecker(EdgeLlmBackhaul::CROSS_ON_OFF,
                                          "OnOff",
                                          EdgeLlmBackhaul::CROSS_BULK_SEND,
                                          "BulkSend"))
            .AddAttribute("PeerRange",
                          "Star, Ring, File: only site pairs at most this far apart (the "
                          "sites' positions), m, get a path, addresses, routes, an X2/Xn "
                          "interface and a KV connection; 0: every pair. Every pair costs "
                          "routes and sockets that grow as sites^2.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&EdgeLlmBackhaul::m_peerRange),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("SignallingPriority",
                          "Without a RAN: the X2 priority queue disc on every device (with "
                          "a RAN, its X2SignallingPriority decides)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmBackhaul::m_signallingPriority),
                          MakeBooleanChecker())
            .AddAttribute("RedForLink",
                          "true: a RedQueueDisc (QueueDisc) takes its link's rate "
                          "(LinkBandwidth), one-way delay (LinkDelay) and MTU (MeanPktSize), "
                          "ARED's automatic thresholds (MinTh = MaxTh = 0: MinTh = max(5, "
                          "TargetDelay x packets per second / 2), MaxTh = 3 MinTh) and a "
                          "limit (MaxSize) of 2 MaxTh packets, each only where ns-3's default "
                          "is in place (a value set with Config::SetDefault or on the command "
                          "line wins). false: RED as its defaults are",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmBackhaul::m_redForLink),
                          MakeBooleanChecker());
    return tid;
}

EdgeLlmBackhaul::EdgeLlmBackhaul() = default;

EdgeLlmBackhaul::~EdgeLlmBackhaul() = default;

void
EdgeLlmBackhaul::DoDispose()
{
    m_links.clear();
    m_crossSinks = ApplicationContainer();
    m_sites = NodeContainer();
    m_routers = NodeContainer();
    Object::DoDispose();
}

void
EdgeLlmBackhaul::Validate() const
{
    if (m_linkRate.GetBitRate() == 0)
    {
        throw std::invalid_argument("LinkDataRate must be > 0 bit/s");
    }
    if (m_linkDelay.IsStrictlyNegative())
    {
        throw std::invalid_argument("LinkDelay must be >= 0");
    }
    if (m_linkMtu < 576)
    {
        throw std::invalid_argument("LinkMtu must be in [576, 65535] bytes");
    }
    if (!(std::isfinite(m_peerRange) && m_peerRange >= 0))
    {
        throw std::invalid_argument("PeerRange must be 0 (every pair) or a finite distance > 0 m");
    }
    if (m_peerRange > 0 && m_topology == TOPOLOGY_MESH)
    {
        throw std::invalid_argument("PeerRange needs Topology Star, Ring or File (Mesh is a "
                                    "cable between every two sites); got Mesh");
    }
    if (m_topology == TOPOLOGY_FILE)
    {
        std::ifstream file(m_topologyFile);
        if (m_topologyFile.empty() || !file)
        {
            throw std::invalid_argument("TopologyFile: cannot read '" + m_topologyFile + "'");
        }
    }
    for (const auto& [index, rate] : m_rateOverride)
    {
        if (rate.GetBitRate() == 0)
        {
            throw std::invalid_argument("SetLinkDataRate: link " + std::to_string(index) +
                                        " must be > 0 bit/s");
        }
    }
}

void
EdgeLlmBackhaul::SetLinkDataRate(uint32_t index, DataRate rate)
{
    NS_ABORT_MSG_IF(m_installed, "EdgeLlmBackhaul::SetLinkDataRate: call it before Install()");
    m_rateOverride[index] = rate;
}

void
EdgeLlmBackhaul::AddLink(Ptr<Node> a, Ptr<Node> b, DataRate rate)
{
    const uint32_t index = static_cast<uint32_t>(m_links.size());
    if (m_rateOverride.count(index))
    {
        rate = m_rateOverride.at(index);
    }
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(m_linkMtu));
    p2p.SetChannelAttribute("Delay", TimeValue(m_linkDelay));
    Link link;
    link.a = a;
    link.b = b;
    link.devices = p2p.Install(a, b);
    link.rate = rate;
    link.delay = m_linkDelay;
    link.mtu = m_linkMtu;
    m_links.push_back(link);
}

void
EdgeLlmBackhaul::BuildLinks(NodeContainer bsNodes)
{
    const uint32_t n = bsNodes.GetN();
    if (m_topology == TOPOLOGY_MESH)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = i + 1; j < n; ++j)
            {
                AddLink(bsNodes.Get(i), bsNodes.Get(j), m_linkRate);
            }
        }
    }
    else if (m_topology == TOPOLOGY_STAR)
    {
        m_routers.Create(1);
        const DataRate rate = m_aggregationRate.GetBitRate() != 0 ? m_aggregationRate : m_linkRate;
        for (uint32_t i = 0; i < n; ++i)
        {
            AddLink(bsNodes.Get(i), m_routers.Get(0), rate);
        }
    }
    else if (m_topology == TOPOLOGY_RING)
    {
        if (n < 3)
        {
            throw std::invalid_argument("Topology Ring needs >= 3 sites, got " + std::to_string(n));
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            AddLink(bsNodes.Get(i), bsNodes.Get((i + 1) % n), m_linkRate);
        }
    }
    else
    {
        BuildFileLinks(bsNodes);
    }
    for (const auto& [index, rate] : m_rateOverride)
    {
        if (index >= m_links.size())
        {
            throw std::invalid_argument("SetLinkDataRate: link " + std::to_string(index) +
                                        " does not exist (" + std::to_string(m_links.size()) +
                                        " links)");
        }
    }
    InstallStacksAndAddresses(bsNodes);
}

void
EdgeLlmBackhaul::BuildFileLinks(NodeContainer bsNodes)
{
    const uint32_t n = bsNodes.GetN();
    TopologyReaderHelper reader;
    reader.SetFileName(m_topologyFile);
    reader.SetFileType(m_topologyFormat == FORMAT_INET    ? "Inet"
                       : m_topologyFormat == FORMAT_ORBIS ? "Orbis"
                                                          : "Rocketfuel");
    Ptr<TopologyReader> topology = reader.GetTopologyReader();
    NodeContainer fileNodes = topology->Read();
    if (fileNodes.GetN() < n)
    {
        throw std::invalid_argument("TopologyFile '" + m_topologyFile + "' has " +
                                    std::to_string(fileNodes.GetN()) + " nodes, fewer than " +
                                    std::to_string(n) + " sites");
    }
    // The file's nodes by name, in order (numerically if every name is a number):
    // the first n are the sites, the others routers (the reader's own nodes, which
    // get an Internet stack here).
    std::map<std::string, Ptr<Node>> byName;
    for (auto it = topology->LinksBegin(); it != topology->LinksEnd(); ++it)
    {
        byName[it->GetFromNodeName()] = it->GetFromNode();
        byName[it->GetToNodeName()] = it->GetToNode();
    }
    std::vector<std::string> names;
    bool numeric = true;
    for (const auto& [name, node] : byName)
    {
        names.push_back(name);
        numeric = numeric && !name.empty() &&
                  name.find_first_not_of("0123456789") == std::string::npos && name.size() < 10;
    }
    if (numeric)
    {
        std::sort(names.begin(), names.end(), [](const std::string& x, const std::string& y) {
            return std::stoul(x) < std::stoul(y);
        });
    }
    if (names.size() < n)
    {
        throw std::invalid_argument("TopologyFile '" + m_topologyFile + "' links " +
                                    std::to_string(names.size()) + " nodes, fewer than " +
                                    std::to_string(n) + " sites");
    }
    std::map<uint32_t, Ptr<Node>> mapped; // reader's node id -> site or router
    for (uint32_t k = 0; k < names.size(); ++k)
    {
        Ptr<Node> fileNode = byName.at(names[k]);
        mapped[fileNode->GetId()] = k < n ? bsNodes.Get(k) : fileNode;
        if (k >= n)
        {
            m_routers.Add(fileNode);
        }
    }
    for (auto it = topology->LinksBegin(); it != topology->LinksEnd(); ++it)
    {
        AddLink(mapped.at(it->GetFromNode()->GetId()),
                mapped.at(it->GetToNode()->GetId()),
                m_linkRate);
    }
}

void
EdgeLlmBackhaul::InstallStacksAndAddresses(NodeContainer bsNodes)
{
    const uint32_t n = bsNodes.GetN();
    InternetStackHelper routerStack;
    if (m_routerRouting == ROUTING_EDGE_LLM)
    {
        routerStack.SetRoutingHelper(EdgeLlmBackhaulRoutingHelper());
    }
    for (uint32_t r = 0; r < m_routers.GetN(); ++r)
    {
        routerStack.Install(m_routers.Get(r));
    }
    InternetStackHelper internet;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!bsNodes.Get(i)->GetObject<Ipv4>())
        {
            internet.Install(bsNodes.Get(i));
        }
    }
    Ipv4AddressHelper addresses("20.0.0.0", "255.255.255.252");
    for (Link& link : m_links)
    {
        const Ipv4InterfaceContainer itf = addresses.Assign(link.devices);
        addresses.NewNetwork();
        link.addressA = itf.GetAddress(0);
        link.addressB = itf.GetAddress(1);
    }
}

void
EdgeLlmBackhaul::AdoptMeshLinks()
{
    // The RAT's cables: every point-to-point device of a site whose other end is a site.
    std::map<uint32_t, uint32_t> site;
    for (uint32_t i = 0; i < m_sites.GetN(); ++i)
    {
        site[m_sites.Get(i)->GetId()] = i;
    }
    for (uint32_t i = 0; i < m_sites.GetN(); ++i)
    {
        Ptr<Node> node = m_sites.Get(i);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (!dev || !dev->GetChannel() || dev->GetChannel()->GetNDevices() != 2)
            {
                continue;
            }
            Ptr<NetDevice> other = dev->GetChannel()->GetDevice(0) == dev
                                       ? dev->GetChannel()->GetDevice(1)
                                       : dev->GetChannel()->GetDevice(0);
            const auto peer = site.find(other->GetNode()->GetId());
            if (peer == site.end() || peer->second < i)
            {
                continue; // not X2, or adopted from the other end
            }
            Link link;
            link.a = node;
            link.b = other->GetNode();
            link.devices.Add(dev);
            link.devices.Add(other);
            DataRateValue rate;
            dev->GetAttribute("DataRate", rate);
            link.rate = rate.Get();
            TimeValue delay;
            dev->GetChannel()->GetAttribute("Delay", delay);
            link.delay = delay.Get();
            link.mtu = dev->GetMtu();
            Ptr<Ipv4> ia = node->GetObject<Ipv4>();
            Ptr<Ipv4> ib = link.b->GetObject<Ipv4>();
            link.addressA = ia->GetAddress(InterfaceOf(dev), 0).GetLocal();
            link.addressB = ib->GetAddress(InterfaceOf(other), 0).GetLocal();
            m_links.push_back(link);
        }
    }
}

void
EdgeLlmBackhaul::ComputePaths()
{
    // Adjacency in link order; breadth-first from each site: fewest hops, ties to the
    // neighbour reached through the earlier link.
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> adjacent; // node -> (node, link)
    for (uint32_t l = 0; l < m_links.size(); ++l)
    {
        adjacent[m_links[l].a->GetId()].emplace_back(m_links[l].b->GetId(), l);
        adjacent[m_links[l].b->GetId()].emplace_back(m_links[l].a->GetId(), l);
    }
    const uint32_t n = m_sites.GetN();
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t start = m_sites.Get(i)->GetId();
        std::map<uint32_t, std::pair<uint32_t, uint32_t>> parent; // node -> (prev, link)
        std::deque<uint32_t> queue{start};
        parent[start] = {start, std::numeric_limits<uint32_t>::max()};
        while (!queue.empty())
        {
            const uint32_t u = queue.front();
            queue.pop_front();
            for (const auto& [v, l] : adjacent[u])
            {
                if (!parent.count(v))
                {
                    parent[v] = {u, l};
                    queue.push_back(v);
                }
            }
        }
        for (uint32_t j = i + 1; j < n; ++j)
        {
            if (!InRange(i, j))
            {
                continue;
            }
            const uint32_t goal = m_sites.Get(j)->GetId();
            if (!parent.count(goal))
            {
                throw std::invalid_argument("Topology " + GetTopology() + ": sites " +
                                            std::to_string(i) + " and " + std::to_string(j) +
                                            " are not connected");
            }
            Path forward;
            for (uint32_t v = goal; v != start; v = parent[v].first)
            {
                forward.links.insert(forward.links.begin(), parent[v].second);
            }
            forward.bottleneck = DataRate(std::numeric_limits<uint64_t>::max());
            forward.mtu = std::numeric_limits<uint16_t>::max();
            for (uint32_t l : forward.links)
            {
                forward.delay += m_links[l].delay;
                forward.mtu = std::min(forward.mtu, m_links[l].mtu);
            }
            Path backward = forward;
            std::reverse(backward.links.begin(), backward.links.end());
            m_paths[{i, j}] = forward;
            m_paths[{j, i}] = backward;
        }
    }
}

void
EdgeLlmBackhaul::AddAddressesAndRoutes()
{
    const uint32_t n = m_sites.GetN();
    Ipv4StaticRoutingHelper routing;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (i == j || !HasPath(i, j))
            {
                continue;
            }
            Path& path = m_paths.at({i, j});
            if (m_topology == TOPOLOGY_MESH)
            {
                const Link& link = m_links[path.links.front()];
                const bool aIsI = link.a == m_sites.Get(i);
                path.local = aIsI ? link.addressA : link.addressB;
                path.remote = aIsI ? link.addressB : link.addressA;
                continue;
            }
            // The pair's own /30, 21.0.0.0 + 4 (N min(i, j) + max(i, j)): the lower site
            // has .1, the other .2, each on its first hop's interface. Sharing the /30
            // makes ns-3's source address selection pick this address toward the peer
            // (TCP takes its source from the route, whatever the socket was bound to).
            const uint32_t pair = 4 * (n * std::min(i, j) + std::max(i, j));
            const uint32_t base = (21U << 24) + pair;
            path.local = Ipv4Address(base + (i < j ? 1 : 2));
            path.remote = Ipv4Address(base + (i < j ? 2 : 1));
            const Link& first = m_links[path.links.front()];
            Ptr<NetDevice> dev =
                first.a == m_sites.Get(i) ? first.devices.Get(0) : first.devices.Get(1);
            Ptr<Ipv4> ipv4 = m_sites.Get(i)->GetObject<Ipv4>();
            ipv4->AddAddress(InterfaceOf(dev),
                             Ipv4InterfaceAddress(path.local, Ipv4Mask("255.255.255.252")));
        }
    }
    if (m_topology == TOPOLOGY_MESH)
    {
        return;
    }
    // Host routes toward each site's addresses along the path to it: every node on the
    // path from i to j sends j's address for i to the next hop.
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (i == j || !HasPath(i, j))
            {
                continue;
            }
            const Path& path = m_paths.at({i, j});
            Ptr<Node> at = m_sites.Get(i);
            for (uint32_t l : path.links)
            {
                const Link& link = m_links[l];
                const bool fromA = link.a == at;
                Ptr<NetDevice> out = fromA ? link.devices.Get(0) : link.devices.Get(1);
                const Ipv4Address next = fromA ? link.addressB : link.addressA;
                Ptr<Ipv4> ipv4 = at->GetObject<Ipv4>();
                if (Ptr<EdgeLlmBackhaulRouting> fast = EdgeLlmBackhaulRoutingHelper::Get(ipv4))
                {
                    fast->AddHostRoute(path.remote, next, InterfaceOf(out));
                }
                else
                {
                    routing.GetStaticRouting(ipv4)->AddHostRouteTo(path.remote,
                                                                   next,
                                                                   InterfaceOf(out));
                }
                at = fromA ? link.b : link.a;
            }
        }
    }
}

void
EdgeLlmBackhaul::CheckSignallingRate(const std::string& rat) const
{
    // EdgeLlmRan::MinBackhaulBitRate bounds one link: X2-C waits behind two frames and
    // must beat the RRC's timers with the link's delay. Over h hops it waits at each hop:
    // every link of the path at h times the one-link minimum (with the path's whole
    // delay) keeps the sum of the h waits within the same budget.
    for (const auto& [pair, path] : m_paths)
    {
        const double hops = static_cast<double>(path.links.size());
        for (uint32_t l : path.links)
        {
            const Link& link = m_links[l];
            const double minimum = hops * EdgeLlmRan::MinBackhaulBitRate(rat, link.mtu, path.delay);
            if (!(static_cast<double>(link.rate.GetBitRate()) >= minimum))
            {
                std::ostringstream why;
                why.precision(10);
                why << "LinkDataRate (or AggregationDataRate, SetLinkDataRate): link " << l
                    << " at " << link.rate.GetBitRate() << " bit/s is too slow for X2 on the "
                    << hops << "-hop path between sites " << pair.first << " and " << pair.second
                    << ": it must be >= " << std::ceil(minimum) << " bit/s (" << hops
                    << " x the one-link minimum of EdgeLlmRan::MinBackhaulBitRate at MTU "
                    << link.mtu << " and the path's delay " << path.delay.As(Time::MS)
                    << "), else the RRC's handover timers expire while X2 messages wait";
                throw std::invalid_argument(why.str());
            }
        }
    }
}

void
EdgeLlmBackhaul::RegisterX2(Ptr<EdgeLlmRan> ran)
{
    const NetDeviceContainer bs = ran->GetBsDevices();
    for (uint32_t i = 0; i < m_sites.GetN(); ++i)
    {
        for (uint32_t j = i + 1; j < m_sites.GetN(); ++j)
        {
            if (!HasPath(i, j))
            {
                continue;
            }
            const Path& path = m_paths.at({i, j});
            ran->AddX2Interface(bs.Get(i), path.local, bs.Get(j), path.remote);
        }
    }
}

std::function<std::string(const std::string&)>
EdgeLlmBackhaul::QueueDiscRefusal(bool kvBand)
{
    return [kvBand](const std::string& name) -> std::string {
        if (name == "ns3::MqQueueDisc")
        {
            return "cannot serve a backhaul link: it spreads a multi-queue device's root over "
                   "its queues, and a point-to-point device has one queue";
        }
        if (kvBand && name == "ns3::TbfQueueDisc")
        {
            return "cannot be the KV band (a child of the X2 priority queue disc): its "
                   "token-bucket wake-up would run the child alone, which has no device to "
                   "send to (it serves as the root, with X2SignallingPriority false)";
        }
        return "";
    };
}

void
EdgeLlmBackhaul::CheckQueueDisc(const std::string& field, const std::string& typeName, bool kvBand)
{
    if (!typeName.empty())
    {
        RequireTypeId(field, typeName, "ns3::QueueDisc", QueueDiscRefusal(kvBand));
    }
}

int64_t
EdgeLlmBackhaul::AssignStreams(int64_t stream)
{
    NS_ABORT_MSG_IF(!m_installed, "EdgeLlmBackhaul::AssignStreams: call Install() first");
    int64_t used = 0;
    for (const Link& link : m_links)
    {
        for (const Ptr<QueueDisc>& disc : link.kvQueueDisc)
        {
            if (Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(disc))
            {
                used += red->AssignStreams(stream + used);
            }
            else if (Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(disc))
            {
                used += pie->AssignStreams(stream + used);
            }
            else if (Ptr<CobaltQueueDisc> cobalt = DynamicCast<CobaltQueueDisc>(disc))
            {
                used += cobalt->AssignStreams(stream + used);
            }
        }
    }
    return used;
}

void
EdgeLlmBackhaul::InstallQueueDiscs(bool signallingPriority)
{
    for (Link& link : m_links)
    {
        for (uint32_t e = 0; e < 2; ++e)
        {
            Ptr<PointToPointNetDevice> dev =
                DynamicCast<PointToPointNetDevice>(link.devices.Get(e));
            Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
            if (signallingPriority)
            {
                const std::string kv = m_queueDisc.empty() ? "ns3::FifoQueueDisc" : m_queueDisc;
                link.rootQueueDisc[e] = EdgeLlmRan::InstallX2QueueDisc(dev, kv);
                link.kvQueueDisc[e] = link.rootQueueDisc[e]
                                          ->GetQueueDiscClass(EdgeLlmX2PacketFilter::BAND_BULK)
                                          ->GetQueueDisc();
                SetRedForLink(link.kvQueueDisc[e], link);
                continue;
            }
            if (!m_queueDisc.empty())
            {
                if (tc->GetRootQueueDiscOnDevice(dev))
                {
                    tc->DeleteRootQueueDiscOnDevice(dev);
                }
                TrafficControlHelper helper;
                helper.SetRootQueueDisc(m_queueDisc);
                helper.Install(dev);
            }
            link.rootQueueDisc[e] = tc->GetRootQueueDiscOnDevice(dev);
            link.kvQueueDisc[e] = link.rootQueueDisc[e];
            SetRedForLink(link.kvQueueDisc[e], link);
        }
    }
}

void
EdgeLlmBackhaul::SetRedForLink(Ptr<QueueDisc> kvQueueDisc, const Link& link) const
{
    Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(kvQueueDisc);
    if (!m_redForLink || !red)
    {
        return;
    }
    // ns-3's RED defaults describe a 1.5 Mbit/s link with 20 ms delay, a 25-packet limit and
    // thresholds of 5 and 15 packets: on a multi-Gbit/s backhaul that limit is a fraction
    // of a millisecond and RED drops a KV flow's own window. The disc reads these at its
    // initialization, so setting them here (before the simulation starts) takes effect.
    const TypeId tid = RedQueueDisc::GetTypeId();
    if (IsNs3Default(tid, "LinkBandwidth"))
    {
        red->SetAttribute("LinkBandwidth", DataRateValue(link.rate));
    }
    if (IsNs3Default(tid, "LinkDelay"))
    {
        red->SetAttribute("LinkDelay", TimeValue(link.delay));
    }
    if (IsNs3Default(tid, "MeanPktSize"))
    {
        red->SetAttribute("MeanPktSize", UintegerValue(link.mtu));
    }
    const bool automatic = IsNs3Default(tid, "MinTh") && IsNs3Default(tid, "MaxTh");
    if (automatic)
    {
        red->SetAttribute("MinTh", DoubleValue(0));
        red->SetAttribute("MaxTh", DoubleValue(0));
    }
    if (IsNs3Default(tid, "MaxSize"))
    {
        // The upper threshold RED will use, in packets: ARED's rule when automatic.
        DoubleValue maxTh;
        red->GetAttribute("MaxTh", maxTh);
        double upper = maxTh.Get();
        if (automatic)
        {
            TimeValue target;
            red->GetAttribute("TargetDelay", target);
            UintegerValue meanPacket;
            red->GetAttribute("MeanPktSize", meanPacket);
            DataRateValue bandwidth;
            red->GetAttribute("LinkBandwidth", bandwidth);
            const double packetsPerSecond = static_cast<double>(bandwidth.Get().GetBitRate()) /
                                            (8.0 * static_cast<double>(meanPacket.Get()));
            upper = 3 * std::max(RED_MIN_THRESHOLD_PACKETS,
                                 target.Get().GetSeconds() * packetsPerSecond / 2);
        }
        red->SetAttribute("MaxSize",
                          QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS,
                                                   static_cast<uint32_t>(std::ceil(2 * upper)))));
    }
}

void
EdgeLlmBackhaul::Install(NodeContainer bsNodes, Ptr<EdgeLlmRan> ran)
{
    NS_ABORT_MSG_IF(m_installed, "EdgeLlmBackhaul::Install: already installed");
    Validate();
    CheckQueueDisc("QueueDisc",
                   m_queueDisc,
                   ran ? ran->GetX2SignallingPriority() : m_signallingPriority);
    if (bsNodes.GetN() < 2 || bsNodes.GetN() > 254)
    {
        throw std::invalid_argument("EdgeLlmBackhaul: the sites must number 2 ... 254, got " +
                                    std::to_string(bsNodes.GetN()));
    }
    m_installed = true;
    m_sites = bsNodes;
    if (ran && m_topology == TOPOLOGY_MESH)
    {
        if (!m_rateOverride.empty())
        {
            throw std::invalid_argument("SetLinkDataRate: Topology Mesh with a RAN uses the "
                                        "RAN's cables (backhaulGbps); use Star, Ring or File");
        }
        ran->AddMeshX2(bsNodes);
        AdoptMeshLinks();
    }
    else
    {
        BuildLinks(bsNodes);
    }
    ComputePaths();
    if (ran && m_topology != TOPOLOGY_MESH)
    {
        CheckSignallingRate(ran->GetRatName());
    }
    AddAddressesAndRoutes();
    if (ran && m_topology != TOPOLOGY_MESH)
    {
        RegisterX2(ran);
    }
    InstallQueueDiscs(ran ? ran->GetX2SignallingPriority() : m_signallingPriority);
}

ApplicationContainer
EdgeLlmBackhaul::InstallCrossTraffic(double load, Time start, Time stop)
{
    NS_ABORT_MSG_IF(!m_installed, "EdgeLlmBackhaul::InstallCrossTraffic: call Install() first");
    if (!(load >= 0 && load < 1))
    {
        std::ostringstream got;
        got << load;
        throw std::invalid_argument("load (cross traffic) must be in [0, 1), got " + got.str());
    }
    NS_ABORT_MSG_IF(
        m_crossTrafficInstalled,
        "EdgeLlmBackhaul::InstallCrossTraffic: call it once (its sinks hold the ports)");
    m_crossTrafficInstalled = true;
    ApplicationContainer apps;
    if (load == 0)
    {
        return apps;
    }
    const bool bulk = m_crossTraffic == CROSS_BULK_SEND;
    std::set<uint32_t> sinks;
    for (Link& link : m_links)
    {
        const double rate = static_cast<double>(link.rate.GetBitRate());
        const double payload = link.mtu - 28.0;
        const double appRate = load * rate * payload / (payload + CROSS_HEADER_BYTES);
        // Only CBR is known to the planner; BulkSend's TCP takes what it can.
        link.crossBitRate = bulk ? 0 : load * rate;
        for (const auto& [from, to, address] : {std::make_tuple(link.a, link.b, link.addressB),
                                                std::make_tuple(link.b, link.a, link.addressA)})
        {
            ApplicationContainer app;
            if (bulk)
            {
                // The bytes the CBR flow would carry over [start, stop), as fast as TCP
                // can send them.
                BulkSendHelper sender("ns3::TcpSocketFactory",
                                      InetSocketAddress(address, CROSS_TRAFFIC_TCP_PORT));
                sender.SetAttribute("MaxBytes",
                                    UintegerValue(static_cast<uint64_t>(
                                        std::llround(appRate * (stop - start).GetSeconds() / 8))));
                app = sender.Install(from);
            }
            else
            {
                OnOffHelper onoff("ns3::UdpSocketFactory",
                                  InetSocketAddress(address, CROSS_TRAFFIC_PORT));
                onoff.SetConstantRate(DataRate(static_cast<uint64_t>(std::llround(appRate))),
                                      static_cast<uint32_t>(payload));
                app = onoff.Install(from);
            }
            app.Start(start);
            app.Stop(stop);
            apps.Add(app);
            if (sinks.insert(to->GetId()).second)
            {
                PacketSinkHelper sink(
                    bulk ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory",
                    InetSocketAddress(Ipv4Address::GetAny(),
                                      bulk ? CROSS_TRAFFIC_TCP_PORT : CROSS_TRAFFIC_PORT));
                ApplicationContainer sinkApp = sink.Install(to);
                sinkApp.Start(Seconds(0));
                m_crossSinks.Add(sinkApp);
            }
        }
    }
    return apps;
}

ApplicationContainer
EdgeLlmBackhaul::GetCrossTrafficSinks() const
{
    return m_crossSinks;
}

const std::vector<EdgeLlmBackhaul::Link>&
EdgeLlmBackhaul::GetLinks() const
{
    return m_links;
}

bool
EdgeLlmBackhaul::HasPath(uint32_t from, uint32_t to) const
{
    return m_paths.count({from, to}) > 0;
}

bool
EdgeLlmBackhaul::InRange(uint32_t i, uint32_t j) const
{
    return WithinPeerRange(m_sites.Get(i), m_sites.Get(j), m_peerRange);
}

bool
EdgeLlmBackhaul::WithinPeerRange(Ptr<Node> a, Ptr<Node> b, double range)
{
    if (range == 0)
    {
        return true;
    }
    Ptr<MobilityModel> pa = a->GetObject<MobilityModel>();
    Ptr<MobilityModel> pb = b->GetObject<MobilityModel>();
    if (!pa || !pb)
    {
        throw std::invalid_argument("PeerRange needs every site's position (a MobilityModel "
                                    "on node " +
                                    std::to_string((pa ? b : a)->GetId()) + ")");
    }
    return pa->GetDistanceFrom(pb) <= range;
}

bool
EdgeLlmBackhaul::IsFairQueue(Ptr<QueueDisc> queueDisc)
{
    if (!queueDisc)
    {
        return false;
    }
    const std::string name = queueDisc->GetInstanceTypeId().GetName();
    return name == "ns3::FqCoDelQueueDisc" || name == "ns3::FqCobaltQueueDisc" ||
           name == "ns3::FqPieQueueDisc";
}

EdgeLlmBackhaul::Path
EdgeLlmBackhaul::GetPath(uint32_t from, uint32_t to) const
{
    const auto it = m_paths.find({from, to});
    NS_ABORT_MSG_IF(it == m_paths.end(),
                    "EdgeLlmBackhaul::GetPath: no path from site " << from << " to site " << to);
    Path path = it->second;
    double bottleneck = std::numeric_limits<double>::infinity();
    for (uint32_t l : path.links)
    {
        const Link& link = m_links[l];
        bottleneck =
            std::min(bottleneck, static_cast<double>(link.rate.GetBitRate()) - link.crossBitRate);
    }
    path.bottleneck = DataRate(static_cast<uint64_t>(std::llround(bottleneck)));
    return path;
}

int32_t
EdgeLlmBackhaul::GetSiteIndex(Ptr<Node> node) const
{
    for (uint32_t i = 0; i < m_sites.GetN(); ++i)
    {
        if (m_sites.Get(i) == node)
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

NodeContainer
EdgeLlmBackhaul::GetSites() const
{
    return m_sites;
}

NodeContainer
EdgeLlmBackhaul::GetRouters() const
{
    return m_routers;
}

Ptr<Node>
EdgeLlmBackhaul::GetAggregationRouter() const
{
    return m_topology == TOPOLOGY_STAR && m_routers.GetN() == 1 ? m_routers.Get(0) : nullptr;
}

std::string
EdgeLlmBackhaul::GetTopology() const
{
    switch (m_topology)
    {
    case TOPOLOGY_STAR:
        return "Star";
    case TOPOLOGY_RING:
        return "Ring";
    case TOPOLOGY_FILE:
        return "File";
    default:
        return "Mesh";
    }
}

} // namespace ns3
