/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_BACKHAUL_HELPER_H
#define EDGE_LLM_BACKHAUL_HELPER_H

#include "ns3/application-container.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class EdgeLlmRan;

/**
 * \ingroup edge-llm
 * \brief Builds the backhaul between the BS sites: which point-to-point links exist, their
 *        rate, delay and MTU, the routes of X2 signalling and KV flows over them, the queue
 *        discs on every backhaul device, and optional CBR cross traffic.
 *
 * Topology (attribute):
 * - **Mesh** (default): one cable between every two sites, the RAT's own X2 links
 *   (EdgeLlmRan without a backhaul builds exactly this).
 * - **Star**: every site has one link to an aggregation router (GetAggregationRouter());
 *   X2 and KV between two sites cross two hops.
 * - **Ring**: site k is linked to sites k - 1 and k + 1 (mod N); a pair's path is the
 *   shorter way round, a tie going through the lower-numbered neighbour.
 * - **File**: an ns-3 topology-read file (TopologyFormat: Inet, Orbis or Rocketfuel);
 *   the file's nodes sorted by name (numerically when every name is a number): the
 *   first N are the sites, the others routers. ns-3's Inet reader also registers each
 *   node name in ns3::Names, so a process reads one Inet file once (Names::Clear()
 *   before another).
 *
 * Paths are the fewest hops (breadth-first, neighbours in link order); both directions
 * of a pair use the same links. Except for Mesh, every pair of sites gets its own /30
 * of 21.0.0.0/8 (the lower site .1, the other .2), each address on the interface of the
 * path's first hop, with host routes on every node of the path: ns-3's X2 entity binds
 * one UDP socket per neighbour to its local address, so two neighbours cannot share one
 * address, and ns-3's TCP takes its source address from the route (the address on the
 * peer's /30), not from the socket's bind. The X2/Xn interface (the X2 entity, EpcX2 or
 * NrEpcX2, and the RRC's neighbour list) is registered over these addresses
 * (EdgeLlmRan::AddX2Interface), for LTE and NR alike.
 *
 * PeerRange (attribute, Star, Ring, File) limits all of that to the site pairs at most
 * that far apart (the sites' MobilityModel positions): the others get no path, no
 * addresses or routes, no X2/Xn interface (the RRC refuses a handover between them) and
 * no KV connection (HasPath()). Every pair costs a host route on each router of its path
 * (ns-3's static routing scans its routes for every packet) and UDP and TCP sockets at
 * both sites (each received datagram scans a node's endpoints): with every pair both grow
 * as sites^2; with a range that holds a fixed number of neighbours they grow as the sites.
 *
 * The routers (Star's aggregation router, File's routers) route with
 * EdgeLlmBackhaulRouting (RouterRouting = EdgeLlm, the default): the host routes and the
 * far ends of their links in hash tables, O(1) a packet however many links the router
 * has; ns-3's list of static routing (RouterRouting = Static) looks at every interface
 * and every route for each packet. Sites keep the node's own routing (the RAN's
 * static routing, with the host routes added to it).
 *
 * Usage:
 * \code
 *   Ptr<EdgeLlmBackhaul> backhaul = CreateObject<EdgeLlmBackhaul>();
 *   backhaul->SetAttribute("Topology", StringValue("Star"));
 *   ran->SetBackhaul(backhaul);        // ran->Install() then builds this, not the mesh
 *   ran->Install(bsNodes, ueNodes);
 *   backhaul->InstallCrossTraffic(0.3, Seconds(0.1), Seconds(3));
 *   edge.ConnectBackhaul(bsApps, backhaul); // peers plan with the path's rate
 * \endcode
 */
class EdgeLlmBackhaul : public Object
{
  public:
    /// Topology attribute: how the sites are cabled (names Mesh, Star, Ring, File).
    enum Topology
    {
        TOPOLOGY_MESH, //!< A cable between every two sites (the RAT's own X2 links)
        TOPOLOGY_STAR, //!< Every site to one aggregation router
        TOPOLOGY_RING, //!< Site k to k - 1 and k + 1
        TOPOLOGY_FILE, //!< TopologyFile in TopologyFormat
    };

    /// TopologyFormat attribute: ns-3's topology-read formats (names Inet, Orbis, Rocketfuel).
    enum TopologyFormat
    {
        FORMAT_INET,       //!< Inet
        FORMAT_ORBIS,      //!< Orbis
        FORMAT_ROCKETFUEL, //!< Rocketfuel
    };

    /// CrossTraffic attribute (names OnOff, BulkSend).
    enum CrossTraffic
    {
        CROSS_ON_OFF,    //!< UDP at a constant rate
        CROSS_BULK_SEND, //!< TCP as fast as it can
    };

    /// RouterRouting attribute (names EdgeLlm, Static).
    enum RouterRouting
    {
        ROUTING_EDGE_LLM, //!< EdgeLlmBackhaulRouting, O(1) a packet
        ROUTING_STATIC,   //!< ns-3's list of static routing
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EdgeLlmBackhaul();
    ~EdgeLlmBackhaul() override;

    /// One point-to-point backhaul link.
    struct Link
    {
        Ptr<Node> a;                     //!< One end (a site or a router)
        Ptr<Node> b;                     //!< The other end
        NetDeviceContainer devices;      //!< Device on a, device on b
        Ipv4Address addressA;            //!< a's address on the link
        Ipv4Address addressB;            //!< b's address on the link
        DataRate rate;                   //!< Link rate
        Time delay;                      //!< One-way propagation delay
        uint16_t mtu{0};                 //!< MTU, bytes
        Ptr<QueueDisc> rootQueueDisc[2]; //!< Root queue disc of devices[0], devices[1]
        /// The queue disc the KV (and cross traffic) packets wait in, per device: the KV
        /// band's child with X2 signalling priority, else the root
        Ptr<QueueDisc> kvQueueDisc[2];
        double crossBitRate{0}; //!< CBR cross traffic each way, bit/s on the wire
    };

    /// The path between two sites.
    struct Path
    {
        Ipv4Address local;           //!< The source site's address for this peer
        Ipv4Address remote;          //!< The peer site's address for the source
        std::vector<uint32_t> links; //!< Link indices (GetLinks()), source to peer
        DataRate bottleneck;         //!< min over the links of (rate - CBR cross traffic)
        Time delay;                  //!< Sum of the links' one-way delays
        uint16_t mtu{0};             //!< min over the links' MTUs
    };

    /**
     * \brief Check the attributes (Install() calls it).
     * \throws std::invalid_argument naming the attribute and its valid values
     */
    void Validate() const;

    /**
     * \brief Check a queue disc for the backhaul's devices: a registered ns3::QueueDisc
     *        subclass that can serve there. Refused by name: MqQueueDisc (it only spreads a
     *        multi-queue device's root over its queues, and a point-to-point device has one
     *        queue); in the KV band (the child of the X2 priority root, \p kvBand),
     *        TbfQueueDisc (a child's token-bucket wake-up runs the child alone, which has no
     *        device to send to; as the root it shapes the link and works). Every other
     *        queue disc of ns-3 (FIFO, pfifo_fast, RED/ARED, CoDel, CoBALT, PIE, FqCoDel,
     *        FqCobalt, FqPie, Prio) serves, as root and as the KV band.
     * \param field the option or attribute that holds it, for the message
     * \param typeName the QueueDisc TypeId name; "" (the default disc) passes
     * \param kvBand true if it becomes the KV band's child of the X2 priority root, false
     *        if the device's root
     * \throws std::invalid_argument naming \p field, the type, why, and the valid types
     */
    static void CheckQueueDisc(const std::string& field, const std::string& typeName, bool kvBand);

    /**
     * \param kvBand as for CheckQueueDisc()
     * \return why a queue disc (by TypeId name) cannot serve there, "" if it can: the
     *         refusals CheckQueueDisc() applies, for RequireTypeId() and ValidTypeIds()
     */
    static std::function<std::string(const std::string&)> QueueDiscRefusal(bool kvBand);

    /**
     * \brief Build the backhaul between \p bsNodes (the sites, which must have an Internet
     *        stack unless \p ran is null, when one is installed if missing).
     * \param bsNodes the sites, >= 2 (>= 3 for Ring), at most 254
     * \param ran the RAN whose X2 interfaces run over it (its BS devices made already), or
     *        null for sites without a RAN (the backhaul alone)
     * \throws std::invalid_argument for a bad attribute, an unreadable or disconnected
     *         topology file, a Topology the RAN's RAT cannot register X2 over, or (with a
     *         RAN) a link slower than h x EdgeLlmRan::MinBackhaulBitRate(rat, its MTU, the
     *         path's delay) on an h-hop path
     */
    void Install(NodeContainer bsNodes, Ptr<EdgeLlmRan> ran);

    /**
     * \brief Override the rate of one link before Install() (Star, Ring, File).
     * \param index the link's index in GetLinks() order: Star: site k's link is k;
     *        Ring: link k joins sites k and k + 1 (mod N); File: the file's link order
     * \param rate its rate
     */
    void SetLinkDataRate(uint32_t index, DataRate rate);

    /**
     * \brief Cross traffic on every link, both ways (CrossTraffic = OnOff, the default:
     *        CBR; BulkSend: a TCP flow of the bytes the CBR flow would carry over
     *        [start, stop), as fast as TCP goes, port 10, which the planner does not
     *        subtract): a UDP OnOff flow (always on) from
     *        each end to the other at \p load times the link's rate on the wire (the
     *        application rate is load x R x P / (P + 30), P = MTU - 28 payload bytes per
     *        packet, 30 = UDP + IPv4 + PPP headers), received by a PacketSink on port 9.
     *        Call it before EdgeLlmHelper::ConnectBackhaul: paths then plan with
     *        (1 - load) R on each link.
     * \param load fraction of each link's rate, [0, 1)
     * \param start when the flows start
     * \param stop when they stop
     * \return the OnOff applications
     * \throws std::invalid_argument naming load if it is outside [0, 1)
     * Aborts if called twice (the sinks hold their ports).
     */
    ApplicationContainer InstallCrossTraffic(double load, Time start, Time stop);

    /**
     * \brief Fix the random streams of the links' KV queue discs that draw random
     *        numbers (RedQueueDisc, PieQueueDisc, CobaltQueueDisc: one stream each), in
     *        link order, end 0 then end 1, so their drops do not depend on how many
     *        random variables the process made before (e.g. earlier runs of a study).
     *        Flow-queue discs make their per-flow children as flows come; those keep
     *        ns-3's automatic streams.
     * \param stream the first stream index
     * \return the number of streams used
     * Aborts before Install().
     */
    int64_t AssignStreams(int64_t stream);

    /// \return the cross traffic's PacketSinks (one per node that receives it)
    ApplicationContainer GetCrossTrafficSinks() const;

    /// \return the links (after Install())
    const std::vector<Link>& GetLinks() const;

    /**
     * \param queueDisc a queue disc (null: none)
     * \return true if it serves flows in turn, each an equal share (ns-3's flow-queue
     *         discs: FqCoDelQueueDisc, FqCobaltQueueDisc, FqPieQueueDisc)
     */
    static bool IsFairQueue(Ptr<QueueDisc> queueDisc);

    /**
     * \return the path from site \p from to site \p to (indices into Install()'s bsNodes)
     * Aborts if either index is out of range or they are equal.
     */
    Path GetPath(uint32_t from, uint32_t to) const;

    /**
     * \brief The PeerRange rule, the one place it is decided (this backhaul's InRange; the
     *        scenario engine's handover checks): two sites are peers if their nodes' 3-D
     *        distance (MobilityModel::GetDistanceFrom) is at most \p range.
     * \param a one site's node
     * \param b the other's
     * \param range the peer range, m; 0: every pair is
     * \return whether they are peers
     * \throws std::invalid_argument naming the node if one has no MobilityModel (with
     *         range > 0)
     */
    static bool WithinPeerRange(Ptr<Node> a, Ptr<Node> b, double range);

    /**
     * \return whether sites \p from and \p to have a path (every pair unless PeerRange
     *         leaves them out)
     */
    bool HasPath(uint32_t from, uint32_t to) const;

    /// \return the index of \p node among the sites, or -1
    int32_t GetSiteIndex(Ptr<Node> node) const;

    /// \return the sites given to Install()
    NodeContainer GetSites() const;

    /// \return the routers (Star: the aggregation router; File: the extra nodes)
    NodeContainer GetRouters() const;

    /// \return Star's aggregation router (null for other topologies)
    Ptr<Node> GetAggregationRouter() const;

    /// \return the Topology attribute
    std::string GetTopology() const;

  protected:
    void DoDispose() override;

  private:
    void BuildLinks(NodeContainer bsNodes);
    /**
     * \brief BuildLinks' step for Topology File: read TopologyFile (its TopologyFormat);
     *        its first nodes (by name, numerically if every name is a number) are the
     *        sites, the others routers; a link per line of the file.
     * \param bsNodes the sites
     * \throws std::invalid_argument if the file has or links fewer nodes than sites
     */
    void BuildFileLinks(NodeContainer bsNodes);
    /**
     * \brief BuildLinks' last step: the routers' Internet stack (EdgeLlmBackhaulRouting
     *        unless RouterRouting says otherwise), the sites' (where missing), and a /30
     *        from 20.0.0.0 on each link.
     * \param bsNodes the sites
     */
    void InstallStacksAndAddresses(NodeContainer bsNodes);
    void AddLink(Ptr<Node> a, Ptr<Node> b, DataRate rate);
    void ComputePaths();
    void AddAddressesAndRoutes();
    void RegisterX2(Ptr<EdgeLlmRan> ran);
    /// Refuse links too slow for the RRC timers (see EdgeLlmRan::MinBackhaulBitRate).
    void CheckSignallingRate(const std::string& rat) const;
    void InstallQueueDiscs(bool signallingPriority);
    /// RedForLink: give a RED KV disc its link's rate, delay and MTU, ARED's automatic
    /// thresholds and a limit of twice the upper one, where ns-3's default is in place.
    void SetRedForLink(Ptr<QueueDisc> kvQueueDisc, const Link& link) const;
    void AdoptMeshLinks();
    /// \return whether sites i and j are within PeerRange (true when it is 0)
    bool InRange(uint32_t i, uint32_t j) const;

    // Attributes
    Topology m_topology{TOPOLOGY_MESH};              //!< How the sites are cabled
    DataRate m_linkRate;                             //!< Every link's rate (unless overridden)
    DataRate m_aggregationRate;                      //!< Star's site links (0: m_linkRate)
    Time m_linkDelay;                                //!< Every link's one-way delay
    uint16_t m_linkMtu;                              //!< Every link's MTU
    std::string m_queueDisc;                         //!< KV band (or root) queue disc TypeId
    std::string m_topologyFile;                      //!< File: path
    TopologyFormat m_topologyFormat{FORMAT_INET};    //!< File: its format
    bool m_signallingPriority;                       //!< Without a RAN: the X2 priority queue disc
    bool m_redForLink{true};                         //!< RED KV discs set for their link
    CrossTraffic m_crossTraffic{CROSS_ON_OFF};       //!< What InstallCrossTraffic installs
    RouterRouting m_routerRouting{ROUTING_EDGE_LLM}; //!< The routers' protocol
    double m_peerRange{0}; //!< Pairs at most this far apart, m (0: every pair)

    NodeContainer m_sites;                                 //!< From Install()
    NodeContainer m_routers;                               //!< Star / File
    std::vector<Link> m_links;                             //!< Built
    std::map<uint32_t, DataRate> m_rateOverride;           //!< SetLinkDataRate
    std::map<std::pair<uint32_t, uint32_t>, Path> m_paths; //!< (from, to) sites
    bool m_installed{false};                               //!< Install() ran
    bool m_crossTrafficInstalled{false};                   //!< InstallCrossTraffic() ran
    ApplicationContainer m_crossSinks;                     //!< Cross traffic's sinks
};

} // namespace ns3

#endif /* EDGE_LLM_BACKHAUL_HELPER_H */
