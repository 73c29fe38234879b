/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-peer.h"

#include "kv-datagram-header.h"

#include "ns3/abort.h"
#include "ns3/channel.h"
#include "ns3/ipv4.h"
#include "ns3/net-device.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

Ptr<KvTransferConnection>
EdgeLlmPeer::Control() const
{
    return control ? control : connection;
}

Ptr<Ipv4>
EdgeLlmPeer::LinkInterface(int32_t& itf) const
{
    NS_ABORT_MSG_IF(!node,
                    "EdgeLlmNode::AddPeer: cell " << cellId
                                                  << " was added without a path before the "
                                                     "application was on a node");
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    itf = ipv4->GetInterfaceForAddress(local);
    NS_ABORT_MSG_IF(itf < 0, "EdgeLlmNode: no interface has backhaul address " << local);
    return ipv4;
}

uint32_t
EdgeLlmPeer::Mtu() const
{
    if (hasPath)
    {
        return pathMtu;
    }
    int32_t itf = 0;
    Ptr<Ipv4> ipv4 = LinkInterface(itf);
    return ipv4->GetMtu(itf);
}

double
EdgeLlmPeer::DelaySeconds() const
{
    if (hasPath)
    {
        return pathDelay.GetSeconds(); // the sum over the path's links
    }
    int32_t itf = 0;
    Ptr<Ipv4> ipv4 = LinkInterface(itf);
    Ptr<NetDevice> device = ipv4->GetNetDevice(itf);
    TimeValue d;
    if (device && device->GetChannel() && device->GetChannel()->GetAttributeFailSafe("Delay", d))
    {
        return d.Get().GetSeconds();
    }
    return 0; // a channel without a Delay attribute: serialisation only
}

double
EdgeLlmPeer::KvFlowBitRate(const std::function<uint32_t(uint32_t)>& flowsOn,
                           const EdgeLlmPathPlanning& planning,
                           bool configured) const
{
    if (hops.empty())
    {
        // The path's rate, split by the busiest link's flows.
        return static_cast<double>(rate.GetBitRate()) / BusiestLinkFlows(flowsOn);
    }
    double wire = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < hops.size(); ++i)
    {
        const EdgeLlmPathHop& hop = hops[i];
        const double k = std::max<uint32_t>(1, flowsOn(links[i]));
        const double link = static_cast<double>(hop.rate.GetBitRate());
        const double fair = link / (k + 1); // max-min share of k KV flows and the cross flow
        const double cross = CrossBitRate(hop, planning, configured);
        const double share =
            planning.fairQueue && hop.fairQueue && cross > fair ? fair : (link - cross) / k;
        wire = std::min(wire, share);
    }
    return wire;
}

double
EdgeLlmPeer::CrossBitRate(const EdgeLlmPathHop& hop,
                          const EdgeLlmPathPlanning& planning,
                          bool configured)
{
    if (configured || !planning.measuredCross)
    {
        return hop.crossBitRate;
    }
    // A measured rate at or above the link's would leave the KV flow nothing: the
    // estimate ripples above a saturated link's rate by about a packet per time constant.
    const double link = static_cast<double>(hop.rate.GetBitRate());
    return std::min(hop.measuredCrossBitRate(), MAX_MEASURED_CROSS_SHARE * link);
}

double
EdgeLlmPeer::LoneFlowBitRate(const EdgeLlmPathPlanning& planning, bool configured) const
{
    return KvFlowBitRate([](uint32_t) { return 1U; }, planning, configured);
}

double
EdgeLlmPeer::PlanningBitRate(const EdgeLlmPathPlanning& planning) const
{
    return LoneFlowBitRate(planning) * PayloadShare(planning);
}

double
EdgeLlmPeer::PayloadShare(const EdgeLlmPathPlanning& planning) const
{
    if (!planning.payloadRate)
    {
        return 1;
    }
    // The payload share of each packet on a point-to-point link.
    const double mtu = Mtu();
    if (planning.udp)
    {
        return (mtu - UDP_IP_OVERHEAD - KvDatagramHeader::DATA_SIZE) / (mtu + PPP_BYTES);
    }
    const double mss = planning.segmentSize != 0 ? planning.segmentSize : mtu - TCP_IP_OVERHEAD;
    return mss / (mss + TCP_IP_OVERHEAD + PPP_BYTES);
}

uint32_t
EdgeLlmPeer::BusiestLinkFlows(const std::function<uint32_t(uint32_t)>& flowsOn) const
{
    uint32_t most = 1;
    for (uint32_t link : links)
    {
        most = std::max(most, flowsOn(link));
    }
    return most;
}

double
EdgeLlmPeer::RttSeconds(const EdgeLlmPathPlanning& planning) const
{
    // Propagation both ways plus four full frames (PPP: MTU + 2 bytes) at the link rate:
    // the segment itself, the one a delayed ACK waits for, and the ACK's slot.
    const double wire = LoneFlowBitRate(planning, true);
    return 2 * DelaySeconds() + 4 * (Mtu() + PPP_BYTES) * 8 / wire;
}

double
EdgeLlmPeer::BacklogClearsAt(double payloadBitRate) const
{
    return Simulator::Now().GetSeconds() +
           8.0 * static_cast<double>(connection->GetBacklogBytes()) / payloadBitRate;
}

} // namespace ns3
