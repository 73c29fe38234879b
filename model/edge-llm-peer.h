/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_PEER_H
#define EDGE_LLM_PEER_H

#include "kv-datagram-socket.h"
#include "kv-transfer-connection.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4.h"
#include "ns3/node.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One link of a backhaul path as the planner sees it (EdgeLlmNode::PathHop).
 */
struct EdgeLlmPathHop
{
    DataRate rate;          //!< The link's bit rate (> 0)
    double crossBitRate{0}; //!< CBR cross traffic installed on it, each way, bit/s on the
                            //!< wire, in [0, rate)
    /// A flow-fair queue disc (FqCoDel, FqCobalt, FqPie) serves its KV band: each flow gets
    /// an equal share of the link, the cross traffic being one flow
    bool fairQueue{false};
    /// The cross traffic measured on it now, bit/s on the wire, in the direction towards
    /// the peer (a CrossTrafficMeter; null: not measured). Read instead of crossBitRate
    /// when PlanningCrossTraffic is Measured
    Callback<double> measuredCrossBitRate;
};

/**
 * \ingroup edge-llm
 * \brief A backhaul path to a peer, possibly over several links (EdgeLlmNode::PeerPath,
 *        EdgeLlmBackhaul::Path).
 */
struct EdgeLlmPeerPath
{
    Ipv4Address local;  //!< This BS's address for the peer
    Ipv4Address remote; //!< The peer's address for this BS
    /// What the KV flow can get on a FIFO: the path's bottleneck minus CBR cross traffic
    DataRate rate;
    Time delay;                  //!< One-way propagation delay, sum over the links
    uint32_t mtu{0};             //!< Path MTU (the smallest link MTU), bytes
    std::vector<uint32_t> links; //!< Ids of the path's links (shared-link planning)
    /// Per link of \p links, same order; empty: every link is a FIFO of \p rate
    std::vector<EdgeLlmPathHop> hops;
};

/**
 * \ingroup edge-llm
 * \brief How a BS plans the KV flows on its backhaul paths: EdgeLlmNode's PlanningRate,
 *        Transport, BackhaulSegmentSize, PlanningFairQueue and PlanningCrossTraffic.
 */
struct EdgeLlmPathPlanning
{
    bool payloadRate{true};    //!< PlanningRate Payload (false: Nominal)
    bool udp{false};           //!< Transport Udp (false: Tcp)
    uint32_t segmentSize{0};   //!< BackhaulSegmentSize, bytes (0: MTU - 52)
    bool fairQueue{true};      //!< PlanningFairQueue
    bool measuredCross{false}; //!< PlanningCrossTraffic Measured (false: Installed)
};

/**
 * \ingroup edge-llm
 * \brief A BS's backhaul peer: the path to it, the connections that carry the KV transfer
 *        protocol there, and what one KV flow gets of that path (the rates ctHO plans with
 *        and ImpactHO's slot budgets start from).
 */
class EdgeLlmPeer
{
  public:
    /// IPv4 + TCP (with timestamps) header bytes: MSS = MTU - 52
    static constexpr uint32_t TCP_IP_OVERHEAD = 52;
    /// IPv4 + UDP header bytes
    static constexpr uint32_t UDP_IP_OVERHEAD = 28;
    /// PPP header bytes per frame on a point-to-point link
    static constexpr double PPP_BYTES = 2;
    /// A measured cross traffic is taken as at most this share of its link's rate
    static constexpr double MAX_MEASURED_CROSS_SHARE = 0.999;

    uint16_t cellId{0};                   //!< Peer cell
    Ipv4Address local;                    //!< Our link address
    Ipv4Address remote;                   //!< Peer link address
    DataRate rate;                        //!< Link rate
    bool hasPath{false};                  //!< Added with a PeerPath
    Time pathDelay;                       //!< PeerPath's one-way delay
    uint32_t pathMtu{0};                  //!< PeerPath's MTU
    std::vector<uint32_t> links;          //!< PeerPath's links
    std::vector<EdgeLlmPathHop> hops;     //!< PeerPath's hops (empty: FIFO at rate)
    Ptr<Node> node;                       //!< The BS's node (its link's MTU and delay)
    Ptr<KvTransferConnection> connection; //!< The connection (KV; control if SHARED)
    Ptr<KvDatagramSocket> datagram;       //!< UDP transport's stream to this peer
    Ptr<KvTransferConnection> control;    //!< ControlChannel=Separate: control messages
    Ptr<KvDatagramSocket> controlStream;  //!< ... and the stream under it

    /// \return the connection that carries control messages: control, else connection
    Ptr<KvTransferConnection> Control() const;

    /// \return the path MTU (a PeerPath's, else the MTU of the node's interface with
    ///         address local), bytes; aborts if no interface has that address
    uint32_t Mtu() const;

    /// \return the path's one-way propagation delay (the sum over a PeerPath's links, else
    ///         the link channel's Delay attribute, else 0), s
    double DelaySeconds() const;

    /**
     * \brief The wire rate one KV flow gets when \p flowsOn(link) KV flows of its source
     *        cross each link of the path (at least 1). Per link of rate R with cross
     *        traffic x (installed CBR, or measured now, taken as at most 0.999 R) and k KV
     *        flows: (R - x) / k on a FIFO; with PlanningFairQueue on a flow-fair queue disc,
     *        the max-min fair share of k + 1 flows: (R - x) / k if x <= R / (k + 1), else
     *        R / (k + 1). The path's rate is the smallest over its links; without hops:
     *        the rate divided by the busiest link's k.
     * \param flowsOn KV flows on a link id
     * \param planning the BS's planning settings
     * \param configured true: the installed cross traffic whatever PlanningCrossTraffic says
     * \return bit/s, > 0
     */
    double KvFlowBitRate(const std::function<uint32_t(uint32_t)>& flowsOn,
                         const EdgeLlmPathPlanning& planning,
                         bool configured = false) const;

    /// \return KvFlowBitRate of one flow alone on the path, bit/s (\p configured: with
    ///         the installed cross traffic)
    double LoneFlowBitRate(const EdgeLlmPathPlanning& planning, bool configured = false) const;

    /// \return the rate a lone KV flow is planned with: LoneFlowBitRate x PayloadShare,
    ///         bit/s
    double PlanningBitRate(const EdgeLlmPathPlanning& planning) const;

    /// \return PlanningRate's payload share of the path's packets, in (0, 1] (1: Nominal)
    double PayloadShare(const EdgeLlmPathPlanning& planning) const;

    /// \return the most KV flows (\p flowsOn) on one link of the path, >= 1
    uint32_t BusiestLinkFlows(const std::function<uint32_t(uint32_t)>& flowsOn) const;

    /// \return the round-trip time estimate: 2 d + 4 (MTU + 2) x 8 / R, s (R: the lone
    ///         flow's rate with the installed cross traffic)
    double RttSeconds(const EdgeLlmPathPlanning& planning) const;

    /// \return when the bytes queued now on the connection (GetBacklogBytes) have left at
    ///         \p payloadBitRate (bit/s of payload, > 0): a plan's backhaulFreeAt, s
    double BacklogClearsAt(double payloadBitRate) const;

  private:
    /**
     * \brief The node's interface on this peer's link (a peer added without a path).
     * \param itf set to the interface index of address local
     * \return the node's Ipv4; aborts, naming AddPeer, if the application was on no node
     *         when the peer was added or no interface has that address
     */
    Ptr<Ipv4> LinkInterface(int32_t& itf) const;

    /// \return the cross traffic planned on \p hop, bit/s in [0, rate)
    static double CrossBitRate(const EdgeLlmPathHop& hop,
                               const EdgeLlmPathPlanning& planning,
                               bool configured);
};

} // namespace ns3

#endif /* EDGE_LLM_PEER_H */
