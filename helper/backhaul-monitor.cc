/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "backhaul-monitor.h"

#include "edge-llm-csv.h"
#include "edge-llm-ran.h"
#include "edge-llm-session-stats.h"

#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-node.h"
#include "ns3/gnuplot.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/prio-queue-disc.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BackhaulMonitor");
NS_OBJECT_ENSURE_REGISTERED(BackhaulMonitor);

namespace
{
constexpr uint16_t X2C_PORT = 4444;   //!< X2-C (X2AP) UDP port
constexpr uint16_t X2U_PORT = 2152;   //!< X2-U (GTP-U) UDP port
constexpr uint16_t PPP_IPV4 = 0x0021; //!< PPP protocol number of IPv4
constexpr uint8_t IP_TCP = 6;         //!< IPv4 protocol number of TCP
constexpr uint8_t IP_UDP = 17;        //!< IPv4 protocol number of UDP

/// What the headers of a transmitted packet say.
struct PacketInfo
{
    bool ipv4{false};                                          //!< It is an IPv4 packet
    Ipv4Header ip;                                             //!< Its IPv4 header
    BackhaulMonitor::TrafficClass cls{BackhaulMonitor::OTHER}; //!< Class
    uint64_t payload{0}; //!< TCP/UDP payload (IP payload if no L4 header)
};

/// Classify by the L4 header of \p rest, the packet after \p info's IPv4 header.
void
InspectL4(PacketInfo& info, Ptr<Packet> rest, uint16_t kvPort, uint16_t controlPort)
{
    info.ipv4 = true;
    info.payload = rest->GetSize();
    if (info.ip.GetFragmentOffset() != 0)
    {
        return; // a later fragment: no L4 header
    }
    uint16_t src = 0;
    uint16_t dst = 0;
    if (info.ip.GetProtocol() == IP_UDP && rest->GetSize() >= 8)
    {
        UdpHeader udp;
        rest->RemoveHeader(udp);
        src = udp.GetSourcePort();
        dst = udp.GetDestinationPort();
        if (dst == X2C_PORT || src == X2C_PORT)
        {
            info.cls = BackhaulMonitor::X2C;
        }
        else if (dst == X2U_PORT || src == X2U_PORT)
        {
            info.cls = BackhaulMonitor::X2U;
        }
    }
    else if (info.ip.GetProtocol() == IP_TCP && rest->GetSize() >= 20)
    {
        TcpHeader tcp;
        rest->RemoveHeader(tcp);
        src = tcp.GetSourcePort();
        dst = tcp.GetDestinationPort();
    }
    else
    {
        return;
    }
    info.payload = rest->GetSize();
    if (info.cls == BackhaulMonitor::OTHER &&
        (src == kvPort || dst == kvPort ||
         (info.ip.GetProtocol() == IP_UDP && (src == controlPort || dst == controlPort))))
    {
        info.cls = BackhaulMonitor::KV;
    }
}

/// Classify a packet as a point-to-point device sends it (PPP header first).
PacketInfo
Inspect(Ptr<const Packet> packet, uint16_t kvPort, uint16_t controlPort)
{
    PacketInfo info;
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    if (copy->GetSize() < ppp.GetSerializedSize())
    {
        return info;
    }
    copy->RemoveHeader(ppp);
    if (ppp.GetProtocol() != PPP_IPV4 || copy->GetSize() < 20)
    {
        return info;
    }
    copy->RemoveHeader(info.ip);
    InspectL4(info, copy, kvPort, controlPort);
    return info;
}

/// Classify a queue disc item (an IPv4 one; anything else is other).
PacketInfo
Inspect(Ptr<const QueueDiscItem> item, uint16_t kvPort, uint16_t controlPort)
{
    PacketInfo info;
    Ptr<const Ipv4QueueDiscItem> ipv4 = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (ipv4)
    {
        info.ip = ipv4->GetHeader();
        InspectL4(info, ipv4->GetPacket()->Copy(), kvPort, controlPort);
    }
    return info;
}

/// Fragments of KV datagrams in flight: (source, destination, IP id).
using FragmentMap = std::map<std::tuple<uint32_t, uint32_t, uint16_t>, bool>;

/**
 * The class of \p info, following fragments: a first fragment of a KV datagram is
 * remembered, its later fragments (no L4 header) are KV too, the last one forgets it.
 */
BackhaulMonitor::TrafficClass
Track(FragmentMap& fragments, const PacketInfo& info)
{
    if (!info.ipv4)
    {
        return info.cls;
    }
    const auto key = std::make_tuple(info.ip.GetSource().Get(),
                                     info.ip.GetDestination().Get(),
                                     info.ip.GetIdentification());
    if (info.ip.GetFragmentOffset() == 0)
    {
        if (!info.ip.IsLastFragment() && info.cls == BackhaulMonitor::KV)
        {
            fragments[key] = true;
        }
        return info.cls;
    }
    auto it = fragments.find(key);
    if (it == fragments.end())
    {
        return info.cls;
    }
    if (info.ip.IsLastFragment())
    {
        fragments.erase(it);
    }
    return BackhaulMonitor::KV;
}

} // namespace

TypeId
BackhaulMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BackhaulMonitor")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<BackhaulMonitor>()
            .AddAttribute("Interval",
                          "Length of the time-series intervals, > 0 (a shorter one resolves "
                          "bursts better and costs memory: about 150 bytes per interval and "
                          "direction).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&BackhaulMonitor::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("KvPort",
                          "TCP/UDP port of the KV transfer (EdgeLlmNode's BackhaulPort): a "
                          "packet from or to it counts as KV bytes.",
                          UintegerValue(EdgeLlmNode::DEFAULT_BACKHAUL_PORT),
                          MakeUintegerAccessor(&BackhaulMonitor::m_kvPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("ControlPort",
                          "UDP port of the transfer protocol's separate control channel "
                          "(EdgeLlmNode's ControlPort, with ControlChannel=Separate): a UDP "
                          "packet from or to it counts as KV bytes too.",
                          UintegerValue(EdgeLlmNode::DEFAULT_CONTROL_PORT),
                          MakeUintegerAccessor(&BackhaulMonitor::m_controlPort),
                          MakeUintegerChecker<uint16_t>(1));
    return tid;
}

BackhaulMonitor::BackhaulMonitor()
    : m_interval(MilliSeconds(10)),
      m_kvPort(EdgeLlmNode::DEFAULT_BACKHAUL_PORT),
      m_controlPort(EdgeLlmNode::DEFAULT_CONTROL_PORT)
{
}

BackhaulMonitor::~BackhaulMonitor() = default;

void
BackhaulMonitor::DoDispose()
{
    m_dirs.clear();
    Object::DoDispose();
}

BackhaulMonitor::TrafficClass
BackhaulMonitor::Classify(Ptr<const Packet> packet,
                          uint16_t kvPort,
                          uint16_t controlPort,
                          uint64_t& payload)
{
    const PacketInfo info = Inspect(packet, kvPort, controlPort);
    payload = info.payload;
    return info.cls;
}

void
BackhaulMonitor::Install(NetDeviceContainer devices)
{
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(devices.Get(i));
        if (!dev)
        {
            NS_FATAL_ERROR("BackhaulMonitor::Install: device "
                           << i << " (" << devices.Get(i)->GetInstanceTypeId().GetName()
                           << ") is not an ns3::PointToPointNetDevice");
        }
        Add(dev);
    }
}

void
BackhaulMonitor::Install(NodeContainer nodes)
{
    for (uint32_t n = 0; n < nodes.GetN(); ++n)
    {
        for (uint32_t d = 0; d < nodes.Get(n)->GetNDevices(); ++d)
        {
            if (Ptr<PointToPointNetDevice> dev =
                    DynamicCast<PointToPointNetDevice>(nodes.Get(n)->GetDevice(d)))
            {
                Add(dev);
            }
        }
    }
}

void
BackhaulMonitor::Add(Ptr<PointToPointNetDevice> dev)
{
    NS_ABORT_MSG_IF(!m_interval.IsStrictlyPositive(),
                    "BackhaulMonitor: Interval must be > 0, got " << m_interval);
    for (const auto& d : m_dirs)
    {
        if (d.device == PeekPointer(dev))
        {
            return;
        }
    }
    Ptr<Channel> channel = dev->GetChannel();
    if (!channel || channel->GetNDevices() != 2)
    {
        NS_FATAL_ERROR("BackhaulMonitor::Install: point-to-point device "
                       << dev->GetIfIndex() << " of node " << dev->GetNode()->GetId()
                       << " is not attached to a channel with two devices");
    }
    const std::size_t index = m_dirs.size();
    Direction dir;
    dir.device = PeekPointer(dev);
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    dir.rate = rate.Get();
    const uint32_t a = channel->GetDevice(0)->GetNode()->GetId();
    const uint32_t b = channel->GetDevice(1)->GetNode()->GetId();
    dir.totals.link = "n" + std::to_string(a) + "-n" + std::to_string(b);
    dir.totals.fromNode = dev->GetNode()->GetId();
    dir.totals.toNode = channel->GetDevice(0) == dev ? b : a;
    dir.totals.rateBps = static_cast<double>(dir.rate.GetBitRate());
    Ptr<QueueDisc> queueDisc;
    if (Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>())
    {
        queueDisc = tc->GetRootQueueDiscOnDevice(dev);
    }
    dir.totals.hasQueueDisc = queueDisc != nullptr;
    dir.lastChange = Simulator::Now().GetTimeStep();
    if (queueDisc)
    {
        dir.queueDiscType = queueDisc->GetInstanceTypeId().GetName();
        dir.kvQueueDiscType = dir.queueDiscType;
        // EdgeLlmRan's X2 signalling priority: a PrioQueueDisc root whose bulk band holds
        // the KV bytes (EdgeLlmX2PacketFilter).
        if (DynamicCast<PrioQueueDisc>(queueDisc) &&
            queueDisc->GetNQueueDiscClasses() > EdgeLlmX2PacketFilter::BAND_BULK)
        {
            dir.kvQueueDiscType = queueDisc->GetQueueDiscClass(EdgeLlmX2PacketFilter::BAND_BULK)
                                      ->GetQueueDisc()
                                      ->GetInstanceTypeId()
                                      .GetName();
        }
        dir.curPackets = queueDisc->GetNPackets();
        dir.curBytes = queueDisc->GetNBytes();
    }
    m_dirs.push_back(dir);
    m_lastEvent = std::max(m_lastEvent, Simulator::Now().GetTimeStep());

    Ptr<BackhaulMonitor> self = this;
    dev->TraceConnectWithoutContext(
        "PhyTxBegin",
        compat::MakeCallback<void, Ptr<const Packet>>(
            [self, index](Ptr<const Packet> p) { self->OnTx(index, p); }));
    dev->GetQueue()->TraceConnectWithoutContext(
        "Drop",
        compat::MakeCallback<void, Ptr<const Packet>>(
            [self, index](Ptr<const Packet> p) { self->OnDeviceDrop(index, p); }));
    if (Ptr<QueueDisc> q = queueDisc)
    {
        q->TraceConnectWithoutContext(
            "PacketsInQueue",
            compat::MakeCallback<void, uint32_t, uint32_t>(
                [self, index](uint32_t, uint32_t v) { self->OnPackets(index, v); }));
        q->TraceConnectWithoutContext(
            "BytesInQueue",
            compat::MakeCallback<void, uint32_t, uint32_t>(
                [self, index](uint32_t, uint32_t v) { self->OnBytes(index, v); }));
        q->TraceConnectWithoutContext(
            "Drop",
            compat::MakeCallback<void, Ptr<const QueueDiscItem>>(
                [self, index](Ptr<const QueueDiscItem> item) { self->OnQdiscDrop(index, item); }));
        q->TraceConnectWithoutContext(
            "SojournTime",
            compat::MakeCallback<void, Time>([self, index](Time t) { self->OnSojourn(index, t); }));
    }
}

BackhaulMonitor::Interval&
BackhaulMonitor::Slot(Direction& dir, int64_t k)
{
    const std::size_t need = static_cast<std::size_t>(k) + 1;
    if (dir.intervals.size() < need)
    {
        dir.intervals.resize(need);
    }
    return dir.intervals[k];
}

BackhaulMonitor::Interval&
BackhaulMonitor::At(std::size_t d, int64_t k)
{
    return Slot(m_dirs[d], k);
}

void
BackhaulMonitor::Integrate(Direction& dir, int64_t now, int64_t step)
{
    int64_t t = dir.lastChange;
    while (t < now)
    {
        const int64_t k = t / step;
        const int64_t until = std::min(now, (k + 1) * step);
        const double seconds = TimeStep(until - t).GetSeconds();
        Interval& in = Slot(dir, k);
        in.packetSeconds += dir.curPackets * seconds;
        in.byteSeconds += dir.curBytes * seconds;
        in.maxPackets = std::max(in.maxPackets, dir.curPackets);
        in.maxBytes = std::max(in.maxBytes, dir.curBytes);
        t = until;
    }
    dir.lastChange = std::max(dir.lastChange, now);
}

void
BackhaulMonitor::Advance(std::size_t d, int64_t now)
{
    Integrate(m_dirs[d], now, m_interval.GetTimeStep());
    m_lastEvent = std::max(m_lastEvent, now);
}

void
BackhaulMonitor::OnTx(std::size_t d, Ptr<const Packet> packet)
{
    Direction& dir = m_dirs[d];
    const int64_t now = Simulator::Now().GetTimeStep();
    const int64_t step = m_interval.GetTimeStep();
    const uint32_t size = packet->GetSize();
    // The device is busy for size x 8 / rate from now (PointToPointNetDevice's own formula).
    const int64_t end = now + dir.rate.CalculateBytesTxTime(size).GetTimeStep();
    Interval& first = At(d, now / step);
    first.txPackets += 1;
    first.txBytes += size;
    for (int64_t t = now; t < end;)
    {
        const int64_t k = t / step;
        const int64_t until = std::min(end, (k + 1) * step);
        At(d, k).busy += until - t;
        t = until;
    }
    m_lastEvent = std::max(m_lastEvent, end);

    const PacketInfo info = Inspect(packet, m_kvPort, m_controlPort);
    const TrafficClass cls = Track(dir.kvFragments, info);
    Totals& tot = dir.totals;
    tot.txPackets += 1;
    tot.txBytes += size;
    switch (cls)
    {
    case KV:
        At(d, now / step).kvBytes += info.payload;
        tot.kvBytes += info.payload;
        tot.kvWireBytes += size;
        break;
    case X2C:
        tot.x2cBytes += size;
        break;
    case X2U:
        tot.x2uBytes += size;
        break;
    case OTHER:
        tot.otherBytes += size;
        break;
    }
}

void
BackhaulMonitor::OnPackets(std::size_t d, uint32_t value)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    Advance(d, now);
    m_dirs[d].curPackets = value;
    Interval& in = At(d, now / m_interval.GetTimeStep());
    in.maxPackets = std::max(in.maxPackets, value);
}

void
BackhaulMonitor::OnBytes(std::size_t d, uint32_t value)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    Advance(d, now);
    m_dirs[d].curBytes = value;
    Interval& in = At(d, now / m_interval.GetTimeStep());
    in.maxBytes = std::max(in.maxBytes, value);
}

void
BackhaulMonitor::OnQdiscDrop(std::size_t d, Ptr<const QueueDiscItem> item)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    m_lastEvent = std::max(m_lastEvent, now);
    Interval& in = At(d, now / m_interval.GetTimeStep());
    in.qdiscDrops += 1;
    in.qdiscDropBytes += item->GetSize();
    Direction& dir = m_dirs[d];
    dir.totals.qdiscDrops += 1;
    dir.totals.qdiscDropBytes += item->GetSize();
    const PacketInfo info = Inspect(item, m_kvPort, m_controlPort);
    if (Track(dir.kvFragments, info) == KV)
    {
        in.kvDropBytes += info.payload;
        dir.totals.kvDropBytes += info.payload;
    }
}

void
BackhaulMonitor::OnDeviceDrop(std::size_t d, Ptr<const Packet> packet)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    m_lastEvent = std::max(m_lastEvent, now);
    Interval& in = At(d, now / m_interval.GetTimeStep());
    in.deviceDrops += 1;
    Direction& dir = m_dirs[d];
    dir.totals.deviceDrops += 1;
    // The device queue holds packets with their PPP header, as they are sent.
    const PacketInfo info = Inspect(packet, m_kvPort, m_controlPort);
    if (Track(dir.kvFragments, info) == KV)
    {
        in.kvDropBytes += info.payload;
        dir.totals.kvDropBytes += info.payload;
    }
}

void
BackhaulMonitor::OnSojourn(std::size_t d, Time sojourn)
{
    const int64_t now = Simulator::Now().GetTimeStep();
    m_lastEvent = std::max(m_lastEvent, now);
    Interval& in = At(d, now / m_interval.GetTimeStep());
    const double s = sojourn.GetSeconds();
    in.sojournSum += s;
    in.sojournCount += 1;
    in.sojournMax = std::max(in.sojournMax, s);
    m_dirs[d].sojourns.push_back(s);
}

int64_t
BackhaulMonitor::End() const
{
    return std::max(m_lastEvent, Simulator::Now().GetTimeStep());
}

std::size_t
BackhaulMonitor::CountIntervals() const
{
    const int64_t step = m_interval.GetTimeStep();
    std::size_t n = static_cast<std::size_t>((End() + step - 1) / step);
    for (const auto& dir : m_dirs)
    {
        n = std::max(n, dir.intervals.size());
    }
    return n;
}

std::vector<BackhaulMonitor::Interval>
BackhaulMonitor::Closed(std::size_t d) const
{
    // Integrate the occupancy up to the end on a copy (output must not change the state).
    Direction copy = m_dirs[d];
    Integrate(copy, End(), m_interval.GetTimeStep());
    copy.intervals.resize(CountIntervals());
    return copy.intervals;
}

uint32_t
BackhaulMonitor::GetNDirections() const
{
    return static_cast<uint32_t>(m_dirs.size());
}

double
BackhaulMonitor::GetIntervalSeconds(uint32_t k) const
{
    const int64_t step = m_interval.GetTimeStep();
    const int64_t start = static_cast<int64_t>(k) * step;
    const int64_t stop = std::min<int64_t>(start + step, std::max(End(), start + 1));
    return TimeStep(std::max<int64_t>(stop - start, 1)).GetSeconds();
}

std::vector<BackhaulMonitor::Interval>
BackhaulMonitor::GetIntervals(uint32_t direction) const
{
    NS_ABORT_MSG_IF(direction >= m_dirs.size(),
                    "BackhaulMonitor: direction " << direction << " not in [0, " << m_dirs.size()
                                                  << ")");
    return Closed(direction);
}

BackhaulMonitor::Totals
BackhaulMonitor::GetTotals(uint32_t direction) const
{
    NS_ABORT_MSG_IF(direction >= m_dirs.size(),
                    "BackhaulMonitor: direction " << direction << " not in [0, " << m_dirs.size()
                                                  << ")");
    const Direction& dir = m_dirs[direction];
    Totals t = dir.totals;
    std::vector<double> s = dir.sojourns;
    t.sojournCount = s.size();
    const EdgeLlmDelaySummary summary = EdgeLlmDelaySummary::Of(s);
    t.sojournMean = summary.mean;
    t.sojournP95 = summary.p95;
    t.sojournMax = summary.worst;
    int64_t busy = 0;
    for (const auto& in : dir.intervals)
    {
        busy += in.busy;
    }
    const int64_t end = End();
    t.utilization = end > 0 ? static_cast<double>(busy) / static_cast<double>(end) : 0;
    return t;
}

std::string
BackhaulMonitor::GetCsv() const
{
    std::ostringstream csv;
    csv << std::setprecision(9);
    csv << "time_s,link,from_node,to_node,utilization,tx_packets,tx_bytes,kv_bytes,"
           "qdisc_packets_avg,qdisc_bytes_avg,qdisc_packets_max,qdisc_bytes_max,qdisc_drops,"
           "qdisc_drop_bytes,device_drops,kv_drop_bytes,sojourn_mean_s,sojourn_max_s\n";
    std::vector<std::vector<Interval>> series;
    for (std::size_t d = 0; d < m_dirs.size(); ++d)
    {
        series.push_back(Closed(d));
    }
    const std::size_t n = CountIntervals();
    for (std::size_t k = 0; k < n; ++k)
    {
        const double length = GetIntervalSeconds(static_cast<uint32_t>(k));
        for (std::size_t d = 0; d < m_dirs.size(); ++d)
        {
            const Direction& dir = m_dirs[d];
            const Interval in = k < series[d].size() ? series[d][k] : Interval();
            const bool q = dir.totals.hasQueueDisc;
            const double nan = std::numeric_limits<double>::quiet_NaN();
            csv << EdgeLlmCsvField(static_cast<double>(k) * m_interval.GetSeconds()) << ','
                << dir.totals.link << ',' << dir.totals.fromNode << ',' << dir.totals.toNode << ','
                << EdgeLlmCsvField(TimeStep(in.busy).GetSeconds() / length) << ',' << in.txPackets
                << ',' << in.txBytes << ',' << in.kvBytes << ','
                << EdgeLlmCsvField(q ? in.packetSeconds / length : nan) << ','
                << EdgeLlmCsvField(q ? in.byteSeconds / length : nan) << ','
                << (q ? std::to_string(in.maxPackets) : "") << ','
                << (q ? std::to_string(in.maxBytes) : "") << ','
                << (q ? std::to_string(in.qdiscDrops) : "") << ','
                << (q ? std::to_string(in.qdiscDropBytes) : "") << ',' << in.deviceDrops << ','
                << in.kvDropBytes << ','
                << EdgeLlmCsvField(in.sojournCount > 0 ? in.sojournSum / in.sojournCount : nan)
                << ',' << EdgeLlmCsvField(in.sojournCount > 0 ? in.sojournMax : nan) << '\n';
        }
    }
    return csv.str();
}

std::string
BackhaulMonitor::GetTotalsCsv() const
{
    std::ostringstream csv;
    csv << std::setprecision(9);
    csv << "link,from_node,to_node,rate_bps,utilization,tx_packets,tx_bytes,kv_bytes,"
           "kv_wire_bytes,x2c_bytes,x2u_bytes,other_bytes,queue_disc,kv_queue_disc,qdisc_drops,"
           "qdisc_drop_bytes,device_drops,kv_drop_bytes,sojourn_samples,sojourn_mean_s,"
           "sojourn_p95_s,sojourn_max_s\n";
    for (uint32_t d = 0; d < m_dirs.size(); ++d)
    {
        const Totals t = GetTotals(d);
        const Direction& dir = m_dirs[d];
        csv << t.link << ',' << t.fromNode << ',' << t.toNode << ',' << EdgeLlmCsvField(t.rateBps)
            << ',' << EdgeLlmCsvField(t.utilization) << ',' << t.txPackets << ',' << t.txBytes
            << ',' << t.kvBytes << ',' << t.kvWireBytes << ',' << t.x2cBytes << ',' << t.x2uBytes
            << ',' << t.otherBytes << ',' << dir.queueDiscType << ',' << dir.kvQueueDiscType << ','
            << (t.hasQueueDisc ? std::to_string(t.qdiscDrops) : "") << ','
            << (t.hasQueueDisc ? std::to_string(t.qdiscDropBytes) : "") << ',' << t.deviceDrops
            << ',' << t.kvDropBytes << ',' << t.sojournCount << ','
            << EdgeLlmCsvField(t.sojournMean) << ',' << EdgeLlmCsvField(t.sojournP95) << ','
            << EdgeLlmCsvField(t.sojournMax) << '\n';
    }
    return csv.str();
}

void
BackhaulMonitor::WriteCsv(const std::string& path) const
{
    EdgeLlmWriteFileWhole(path, GetCsv());
}

void
BackhaulMonitor::WriteTotalsCsv(const std::string& path) const
{
    EdgeLlmWriteFileWhole(path, GetTotalsCsv());
}

void
BackhaulMonitor::SetPlotSubtitle(const std::string& subtitle)
{
    m_plotSubtitle = subtitle;
}

void
BackhaulMonitor::WritePlots(const std::string& stem) const
{
    struct Figure
    {
        std::string suffix; //!< File name suffix
        std::string title;  //!< Plot title
        std::string yLabel; //!< Y axis label
        bool queue;         //!< Queue occupancy (else utilization)
    };

    const std::vector<Figure> figures = {
        {"-utilization", "Backhaul utilization per link direction", "utilization", false},
        {"-queue", "Root queue disc occupancy per link direction (time average)", "packets", true},
    };
    std::vector<std::vector<Interval>> series;
    for (std::size_t d = 0; d < m_dirs.size(); ++d)
    {
        series.push_back(Closed(d));
    }
    std::vector<std::string> scripts;
    for (const auto& fig : figures)
    {
        Gnuplot plot(stem + fig.suffix + ".png");
        plot.SetTerminal("png size 900,560");
        plot.SetTitle(m_plotSubtitle.empty() ? fig.title : fig.title + "\\n" + m_plotSubtitle);
        plot.SetLegend("time (s)", fig.yLabel);
        plot.AppendExtra("set key outside right top");
        plot.AppendExtra("set grid");
        for (std::size_t d = 0; d < m_dirs.size(); ++d)
        {
            const Direction& dir = m_dirs[d];
            bool any = false;
            for (const auto& in : series[d])
            {
                any = any || (fig.queue ? in.maxPackets > 0 : in.busy > 0);
            }
            if (!any || (fig.queue && !dir.totals.hasQueueDisc))
            {
                continue; // idle, or nothing to show
            }
            Gnuplot2dDataset data(dir.totals.link + " " + std::to_string(dir.totals.fromNode) +
                                  ">" + std::to_string(dir.totals.toNode));
            data.SetStyle(Gnuplot2dDataset::LINES);
            for (std::size_t k = 0; k < series[d].size(); ++k)
            {
                const double length = GetIntervalSeconds(static_cast<uint32_t>(k));
                const double mid = static_cast<double>(k) * m_interval.GetSeconds() + length / 2;
                const Interval& in = series[d][k];
                data.Add(mid,
                         fig.queue ? in.packetSeconds / length
                                   : TimeStep(in.busy).GetSeconds() / length);
            }
            plot.AddDataset(data);
        }
        std::ostringstream plt;
        plot.GenerateOutput(plt);
        EdgeLlmWriteFileWhole(stem + fig.suffix + ".plt", plt.str());
        scripts.push_back(stem + fig.suffix + ".plt");
    }
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        NS_LOG_WARN("gnuplot not found: run gnuplot on " << stem << "-*.plt for the PNGs");
        return;
    }
    for (const auto& script : scripts)
    {
        const std::string command = "gnuplot '" + script + "'";
        if (std::system(command.c_str()) != 0)
        {
            throw std::runtime_error("cannot write the PNG of '" + script + "': " + command +
                                     " failed");
        }
    }
}

} // namespace ns3
