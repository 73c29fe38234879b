/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BACKHAUL_MONITOR_H
#define BACKHAUL_MONITOR_H

#include "ns3/data-rate.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

class Packet;
class PointToPointNetDevice;
class QueueDisc;
class QueueDiscItem;

/**
 * \ingroup edge-llm
 * \brief Per-link time series of a packet-level backhaul: utilization, KV bytes, queue
 *        occupancy, drops and queueing delay, for each direction of each point-to-point
 *        link it is installed on; CSV and PNG (ns-3's Gnuplot).
 *
 * \code
 *   Ptr<BackhaulMonitor> monitor = CreateObject<BackhaulMonitor>();
 *   monitor->SetAttribute("Interval", TimeValue(MilliSeconds(10)));
 *   monitor->Install(backhaulDevices);   // after the queue discs are installed
 *   Simulator::Run();
 *   monitor->WriteCsv("backhaul.csv");   // before Simulator::Destroy
 *   monitor->WriteTotalsCsv("backhaul-totals.csv");
 *   monitor->WritePlots("backhaul");     // backhaul-utilization.png, backhaul-queue.png
 * \endcode
 *
 * A direction is one PointToPointNetDevice (what it transmits onto its channel). Time is
 * cut into intervals [k I, (k + 1) I), I the Interval attribute, from simulation time 0;
 * the monitor schedules no event (it only listens to traces), so it neither changes nor
 * prolongs the run. Per direction and interval:
 *
 * - utilization: the time the device spent transmitting in the interval over I, i.e.
 *   bits / (rate x I) (each packet's transmission time, size x 8 / rate, split over the
 *   intervals it overlaps; the PPP header counts, the interframe gap does not);
 * - bytes and packets that began transmission in it (PhyTxBegin, PPP header included), and
 *   of those the KV payload bytes: the TCP or UDP payload of packets whose source or
 *   destination port is KvPort (EdgeLlmNode's BackhaulPort) or, UDP, ControlPort (its
 *   separate control channel's, ControlChannel=Separate), and the later fragments of
 *   such a packet; X2-C (UDP port 4444), X2-U (GTP-U, UDP port 2152) and everything else
 *   (e.g. cross traffic) are counted apart in the totals;
 * - the root queue disc's time-average and largest occupancy in packets and bytes
 *   (traces PacketsInQueue, BytesInQueue), its drops (trace Drop, before enqueue and after
 *   dequeue: the same count as QueueDisc::GetStats().nTotalDroppedPackets), the device
 *   queue's drops (Queue trace Drop), and the mean and largest queueing delay of the
 *   packets dequeued in it (trace SojournTime: time from enqueue to dequeue in the queue
 *   disc).
 *
 * The last interval ends at the end of the run (Simulator::Now() when the output is
 * written): utilization and averages of that partial interval are over its actual length.
 * Memory: about 150 bytes per interval per direction.
 */
class BackhaulMonitor : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    BackhaulMonitor();
    ~BackhaulMonitor() override;

    /**
     * \brief Monitor the transmit direction of each device.
     *
     * Install after the devices' queue discs are in place (TrafficControlHelper::Install,
     * EdgeLlmRan::Install): the root queue disc found now is the one monitored (a device
     * without one has no queue columns). A device already monitored is skipped.
     * \param devices PointToPointNetDevices, each on a channel with two devices; anything
     *        else aborts (NS_FATAL_ERROR naming the device)
     */
    void Install(NetDeviceContainer devices);

    /**
     * \brief Monitor every PointToPointNetDevice of \p nodes (both directions of a link
     *        whose two ends are in \p nodes). Other devices are ignored.
     * \param nodes the nodes
     */
    void Install(NodeContainer nodes);

    /// What one direction carried in one interval.
    struct Interval
    {
        int64_t busy{0};            //!< Transmission time inside the interval, time steps
        uint64_t txPackets{0};      //!< Packets that began transmission in it
        uint64_t txBytes{0};        //!< Their bytes (PPP header included)
        uint64_t kvBytes{0};        //!< Their KV payload bytes
        double packetSeconds{0};    //!< Integral of queue disc packets over time, packet s
        double byteSeconds{0};      //!< Integral of queue disc bytes over time, byte s
        uint32_t maxPackets{0};     //!< Largest queue disc occupancy, packets
        uint32_t maxBytes{0};       //!< Largest queue disc occupancy, bytes
        uint64_t qdiscDrops{0};     //!< Queue disc drops
        uint64_t qdiscDropBytes{0}; //!< Their bytes
        uint64_t deviceDrops{0};    //!< Device queue drops
        uint64_t kvDropBytes{0};    //!< KV payload bytes of the dropped packets (both queues)
        double sojournSum{0};       //!< Sum of queue disc sojourn times, s
        uint64_t sojournCount{0};   //!< Packets dequeued from the queue disc
        double sojournMax{0};       //!< Largest sojourn time, s
    };

    /// Whole-run totals of one direction.
    struct Totals
    {
        std::string link;           //!< "n<a>-n<b>": node ids of the channel's two devices
        uint32_t fromNode{0};       //!< Node id of the transmitting device
        uint32_t toNode{0};         //!< Node id of the peer device
        double rateBps{0};          //!< Device DataRate, bit/s
        bool hasQueueDisc{false};   //!< A root queue disc was found at Install
        uint64_t txPackets{0};      //!< Packets transmitted
        uint64_t txBytes{0};        //!< Bytes transmitted (PPP header included)
        uint64_t kvBytes{0};        //!< KV payload bytes
        uint64_t kvWireBytes{0};    //!< Bytes of KV packets (PPP header included)
        uint64_t x2cBytes{0};       //!< Bytes of X2-C packets
        uint64_t x2uBytes{0};       //!< Bytes of X2-U packets
        uint64_t otherBytes{0};     //!< Bytes of everything else
        uint64_t qdiscDrops{0};     //!< Queue disc drops
        uint64_t qdiscDropBytes{0}; //!< Their bytes
        uint64_t deviceDrops{0};    //!< Device queue drops
        uint64_t kvDropBytes{0};    //!< KV payload bytes of the dropped packets (both queues)
        uint64_t sojournCount{0};   //!< Sojourn samples
        double sojournMean{0};      //!< Mean sojourn time, s (NaN: no sample)
        double sojournP95{0};       //!< Nearest-rank 95th percentile, s (NaN: no sample)
        double sojournMax{0};       //!< Largest, s (NaN: no sample)
        double utilization{0};      //!< Busy time over the run's length
    };

    /// \return the monitored directions
    uint32_t GetNDirections() const;
    /**
     * \param direction index, in install order
     * \return its totals up to now
     */
    Totals GetTotals(uint32_t direction) const;
    /**
     * \param direction index, in install order
     * \return its intervals up to now (index k: [k I, (k + 1) I)), every direction the
     *         same count
     */
    std::vector<Interval> GetIntervals(uint32_t direction) const;
    /**
     * \param k interval index
     * \return the length of interval \p k as written (I, or less for the last)
     */
    double GetIntervalSeconds(uint32_t k) const;

    /// \return the time series CSV (one line per interval per direction)
    std::string GetCsv() const;
    /// \return the totals CSV (one line per direction)
    std::string GetTotalsCsv() const;

    /**
     * \brief Write GetCsv() whole or not at all.
     * \throws std::runtime_error naming the path and the reason; no file left behind
     */
    void WriteCsv(const std::string& path) const;
    /**
     * \brief Write GetTotalsCsv() whole or not at all.
     * \throws std::runtime_error naming the path and the reason; no file left behind
     */
    void WriteTotalsCsv(const std::string& path) const;
    /**
     * \brief Write stem-utilization.plt and stem-queue.plt (ns-3 Gnuplot: utilization,
     *        and queue disc time-average packets, vs time, one curve per direction that
     *        carried or queued anything) and their PNGs if gnuplot is installed.
     * \throws std::runtime_error if a file cannot be written or gnuplot fails
     */
    void WritePlots(const std::string& stem) const;

    /**
     * \brief A second title line for WritePlots()'s figures, saying what the run was (e.g.
     *        "LTE, star backhaul, KV band ns3::RedQueueDisc, load 0.5, ctho").
     * \param subtitle the line ("": none, the default)
     */
    void SetPlotSubtitle(const std::string& subtitle);

    /// Traffic classes of a transmitted packet.
    enum TrafficClass
    {
        KV,    //!< Source or destination port KvPort (TCP or UDP), or ControlPort (UDP)
        X2C,   //!< UDP port 4444
        X2U,   //!< UDP port 2152
        OTHER, //!< Everything else
    };

    /**
     * \brief Classify a packet as it leaves a point-to-point device (PPP header first).
     * \param packet the packet
     * \param kvPort the KV transfer's port
     * \param controlPort the UDP port of its separate control channel
     * \param[out] payload its TCP/UDP payload bytes (IP payload for a later fragment)
     * \return the class (later fragments: OTHER; Install's monitor tracks them itself)
     */
    static TrafficClass Classify(Ptr<const Packet> packet,
                                 uint16_t kvPort,
                                 uint16_t controlPort,
                                 uint64_t& payload);

  protected:
    void DoDispose() override;

  private:
    /// One monitored direction.
    struct Direction
    {
        /// The transmitting device, for identity only: no reference is held (the device's
        /// traces hold this monitor, so a Ptr back would be a cycle that is never freed)
        const void* device{nullptr};
        std::string queueDiscType; //!< Its root queue disc's TypeId name ("": none)
        /// The disc that queues the KV bytes: the root's, or under EdgeLlmRan's X2
        /// signalling priority (a PrioQueueDisc root) its bulk band's child ("": none)
        std::string kvQueueDiscType;
        DataRate rate;                   //!< Its DataRate
        Totals totals;                   //!< Counters
        std::vector<Interval> intervals; //!< Grows with time
        std::vector<double> sojourns;    //!< Every sojourn sample, s
        uint32_t curPackets{0};          //!< Queue disc packets now
        uint32_t curBytes{0};            //!< Queue disc bytes now
        int64_t lastChange{0};           //!< Time step of the last occupancy change
        /// Fragmented KV datagrams in flight on it: (source, destination, IP id)
        std::map<std::tuple<uint32_t, uint32_t, uint16_t>, bool> kvFragments;
    };

    void Add(Ptr<PointToPointNetDevice> device);
    /// \return interval k of \p dir, growing its series as needed
    static Interval& Slot(Direction& dir, int64_t k);
    /// \return interval k of direction d
    Interval& At(std::size_t d, int64_t k);
    /// Integrate \p dir's queue occupancy up to time step \p now (intervals of \p step).
    static void Integrate(Direction& dir, int64_t now, int64_t step);
    /// Integrate direction d's occupancy up to time step \p now.
    void Advance(std::size_t d, int64_t now);
    void OnTx(std::size_t d, Ptr<const Packet> packet);
    void OnPackets(std::size_t d, uint32_t value);
    void OnBytes(std::size_t d, uint32_t value);
    void OnQdiscDrop(std::size_t d, Ptr<const QueueDiscItem> item);
    void OnDeviceDrop(std::size_t d, Ptr<const Packet> packet);
    void OnSojourn(std::size_t d, Time sojourn);
    /// \return the end of the series: max(now, last event), time steps
    int64_t End() const;
    /// \return the intervals every series has at the end: ceil(End() / I) or more
    std::size_t CountIntervals() const;
    /// \return a copy of direction d's intervals integrated up to End()
    std::vector<Interval> Closed(std::size_t d) const;

    Time m_interval;               //!< Interval attribute
    uint16_t m_kvPort;             //!< KvPort attribute
    uint16_t m_controlPort;        //!< ControlPort attribute
    std::vector<Direction> m_dirs; //!< In install order
    std::string m_plotSubtitle;    //!< SetPlotSubtitle()
    int64_t m_lastEvent{0};        //!< Latest trace time seen, time steps
};

} // namespace ns3

#endif /* BACKHAUL_MONITOR_H */
