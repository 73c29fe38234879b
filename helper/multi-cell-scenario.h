/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MULTI_CELL_SCENARIO_H
#define MULTI_CELL_SCENARIO_H

#include "backhaul-monitor.h"
#include "edge-llm-ran.h"
#include "edge-llm-session-stats.h"

#include "ns3/application-container.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/vector.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Knobs of a multi-cell scenario (doc/edge-llm.rst, "Multi-cell scenarios and the
 *        backhaul study"): where the sites are, the RAN, the backhaul, the UEs and how they
 *        move and hand over, and the edge-LLM sessions they run.
 *
 * One cell per site (the hexagonal layouts of 3GPP studies have three sectors per site;
 * here each site is one omnidirectional eNB or gNB). Every UE starts on its home site and
 * is attached to it; with scripted handovers each site's UEs drive, as one platoon, along
 * a straight road from their site toward one neighbour site (its "road target") and hand
 * over to it when they cross the point boundaryFraction x interSiteDistance from the home
 * site, at instants drawn uniformly in [handoverStart, handoverStart + platoonSpread).
 */
struct MultiCellConfig
{
    /// Limits of the knobs (Validate() names them in its messages).
    static constexpr uint32_t MAX_ROAD_SITES = 57;    //!< Most sites of a "road" layout
    static constexpr uint32_t MAX_UES_PER_SITE = 100; //!< Most UEs per site
    static constexpr double MAX_INTER_SITE = 50000;   //!< Longest inter-site distance, m
    static constexpr double MAX_SPEED = 500 / 3.6;    //!< Fastest UE, m/s (500 km/h)
    static constexpr double MIN_SPEED = 0.1;          //!< Slowest UE, m/s
    static constexpr double MAX_CROSS_LOAD = 0.9;     //!< Highest cross-traffic load
    static constexpr uint32_t MAX_PROMPT = 1000000;   //!< Longest prompt, tokens
    static constexpr double MAX_SIM_SECONDS = 3600;   //!< Longest simulation, s

    // Sites
    std::string ran{"lte"};        //!< "lte" or "nr" (EdgeLlmRan::Create)
    std::string layout{"hex"};     //!< "road" (sites on a line) or "hex" (hexagonal rings)
    uint32_t numSites{7};          //!< road: [2, 57]; hex: 7 or 19
    double interSiteDistance{500}; //!< Distance between neighbour sites, m, (0, 50000]
    /// Path-loss model TypeId (LTE only; NR follows its 3GPP scenario); the default makes the cells
    /// interference-limited with a realistic exponent (Friis, LTE's default, lets the six
    /// neighbours of the hexagon's centre drown its cell edge)
    std::string pathlossModel{"ns3::LogDistancePropagationLossModel"};
    double pathlossExponent{3.76}; //!< Its "Exponent" attribute, [1.5, 6]
    /// LogDistance's loss at 1 m, dB, [0, 100]: with exponent 3.76 the 3GPP macro-cell law
    /// L = 128.1 + 37.6 log10(R / 1 km) dB (TR 36.942); ignored by other models
    double pathlossReferenceDb{15.3};
    double bsTxPowerDbm{43}; //!< BS transmit power, dBm, [-30, 60] (a 20 W macro cell;
                             //!< EdgeLlmRanConfig::Validate checks it)
    // Backhaul
    /// "mesh" (an X2/Xn cable between every two sites), "star" (every site to one
    /// aggregation router: X2 and KV over two hops) or "ring" (EdgeLlmBackhaul's Topology)
    std::string backhaul{"mesh"};
    double backhaulGbps{4.5}; //!< Rate of every backhaul link (star: each site's link to the
                              //!< aggregation router), Gbit/s, (0, 1000]
    /// Delay of each backhaul link, >= 0 and short enough for the RAN's handover timers
    /// (EdgeLlmRanConfig::Validate, its owner, checks it)
    Time backhaulDelay{MicroSeconds(100)};
    uint16_t backhaulMtu{9000}; //!< MTU of each backhaul link, bytes, >= 576
    /// QueueDisc TypeId of the KV band on every backhaul device (EdgeLlmBackhaul's
    /// QueueDisc, e.g. ns3::FqCoDelQueueDisc, ns3::RedQueueDisc); "": FIFO
    std::string queueDisc;
    /// Cross traffic (EdgeLlmBackhaul::InstallCrossTraffic): constant-rate UDP on every
    /// backhaul link, both ways, at this share of the link rate on the wire, from
    /// handoverStart - 100 ms to the last handover + tailTime; [0, 0.9]
    double crossTrafficLoad{0};
    /// The schedulers plan each KV flow at its path's bottleneck less the cross traffic
    /// (cross traffic installed before the peers); false: at the bottleneck's rate, blind
    bool planWithCrossTraffic{true};
    // UEs
    uint32_t uesPerSite{2}; //!< UEs starting on each site, [1, 100]
    /// "road" (ConstantVelocity along the site's road), "random-waypoint" (RandomWaypoint
    /// in the layout's bounding box) or "gauss-markov" (GaussMarkov in that box)
    std::string mobility{"road"};
    double speed{20}; //!< UE speed (random-waypoint, gauss-markov: the mean), m/s
    /// "script" (handovers requested at the boundary crossing and announced to the source:
    /// needs mobility "road"), "A3-RSRP" or "A2-A4-RSRQ" (the RRC's algorithm decides)
    std::string handover{"script"};
    double boundaryFraction{0.5}; //!< Where on the road a scripted handover happens, (0, 0.5]
    Time platoonSpread{MilliSeconds(500)}; //!< Spread of one platoon's handovers, [0, 60 s]
    // Applications
    std::string model{"qwen2.5-7b-instruct"}; //!< LLM preset
    uint32_t kvBits{16};                      //!< q: 16, 8 or 4
    double prefillA{9.4267e-5};               //!< s/token, [0, 1]
    double prefillB{2.4e-3};                  //!< s, [-3600, 3600]
    double prefillC{0};                       //!< s/token^2, [0, 1e-3]
    Time batchPeriod{MilliSeconds(10)};       //!< T_c, [0, 1 s]
    double decodeRate{100};                   //!< tokens/s per session, [1e-3, 1e6]
    uint32_t promptMin{500};                  //!< Shortest prompt, tokens, >= 1
    uint32_t promptMax{1500};                 //!< Longest prompt, tokens, [promptMin, 1e6]
    uint32_t tokensAfterHandover{200};        //!< Tokens decoded after the handover, >= 1
    Time promptTime{MilliSeconds(250)};       //!< When the UEs send their prompts, (0, 10 s]
    /// Simulated time allowed after the last scripted handover, (0, 3600 s]
    Time tailTime{Seconds(8)};
    uint32_t seedStream{0}; //!< Offset of the scenario's random streams (UE draws, mobility)
    /// BackhaulMonitor interval on every backhaul device ((0, 10 s]); 0: no monitor
    Time monitorInterval{Seconds(0)};

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief What one UE saw in a multi-cell run.
 */
struct MultiCellUeResult
{
    static constexpr double UNKNOWN = std::numeric_limits<double>::quiet_NaN(); //!< Not measured

    uint64_t imsi{0};               //!< IMSI (the session id)
    uint32_t homeSite{0};           //!< Site the UE started on and attached to
    uint16_t sourceCellId{0};       //!< Cell of its (first) handover's source (0: none)
    uint16_t targetCellId{0};       //!< Cell of its (first) handover's target (0: none)
    uint32_t promptTokens{0};       //!< Its prompt
    double handoverTime{UNKNOWN};   //!< When the source started the handover, s
    uint64_t contextTokens{0};      //!< Context at the handover, tokens
    uint64_t prefillTokens{0};      //!< n_pf
    uint64_t transferTokens{0};     //!< n_tx
    double predictedDelay{UNKNOWN}; //!< Planner's D_i, s
    double restoredDelay{UNKNOWN};  //!< Target: resume time - handover time, s
    double measuredDelay{UNKNOWN};  //!< UE: the stall's excess over the decode cadence, s
    uint64_t kvBytesExpected{0};    //!< n_tx x bytes per token
    uint64_t kvBytesReceived{0};    //!< At the target
    bool lost{false};               //!< A BS reported SessionLost for it
};

/**
 * \ingroup edge-llm
 * \brief KV bytes on one backhaul link direction, counted as TCP payload (the KV
 *        transfer's segments; other TCP traffic does not cross the backhaul).
 */
struct BackhaulLinkCount
{
    uint32_t fromNodeId{0};     //!< Sending node (a site, or a router of the backhaul)
    uint32_t toNodeId{0};       //!< Receiving node
    uint16_t fromCellId{0};     //!< Sending BS's cell (0: a router)
    uint16_t toCellId{0};       //!< Receiving BS's cell (0: a router)
    uint64_t offeredBytes{0};   //!< TCP payload handed to the link's queue disc
    uint64_t droppedBytes{0};   //!< TCP payload its queue disc (or device) dropped
    uint64_t receivedBytes{0};  //!< TCP payload the other end's device received
    uint64_t droppedPackets{0}; //!< Packets (any protocol) the queue disc dropped
};

/**
 * \ingroup edge-llm
 * \brief One multi-cell run for one scheme.
 */
struct MultiCellResult
{
    std::string scheme;                 //!< "ctho", "tho", "cho", ...
    std::vector<MultiCellUeResult> ues; //!< One per UE, by IMSI
    /// UE-side handover delay over the UEs that measured one (EdgeLlmDelaySummary::OfKnown)
    EdgeLlmDelaySummary measured;
    /// Target-side handover delay over the UEs restored (OfKnown)
    EdgeLlmDelaySummary restored;
    EdgeLlmDelaySummary queueDelay;       //!< Sojourn time of every packet dequeued from
                                          //!< a backhaul queue disc (KV, cross, X2), s
    std::vector<BackhaulLinkCount> links; //!< Every backhaul link direction that carried KV
    uint64_t kvBytesSent{0};              //!< Sum over the sources' connections (application bytes)
    uint64_t kvBytesReceived{0};          //!< Sum over the targets' connections
    uint32_t handovers{0};                //!< Handovers the sources started
    uint32_t restoredSessions{0};         //!< Sessions a target restored
    uint64_t lostSessions{0};             //!< SessionLost over every BS
    uint32_t rrcFailures{0};              //!< Handover failures the RRCs reported
    double handoverStart{0};              //!< First scripted handover instant, s
    double simulatedSeconds{0};           //!< Simulated time at the end
    bool complete{false};                 //!< Every UE handed over and its session was restored
    /// EdgeLlmSessionStats::GetCsv(): one record per handover (every BS and UE traced)
    std::string handoverCsv;
    /// EdgeLlmSessionStats::SummarizeUeDelay() (a NaN if a handover has none)
    EdgeLlmDelaySummary ueDelay;
    std::string monitorCsv;       //!< BackhaulMonitor::GetCsv() ("" without a monitor)
    std::string monitorTotalsCsv; //!< BackhaulMonitor::GetTotalsCsv() ("" without one)
};

/**
 * \ingroup edge-llm
 * \brief Builds a multi-cell edge-LLM scenario from parts a script can call one by one:
 *        sites, UEs, RAN, backhaul, applications, handovers, outputs; then runs it.
 *
 * \code
 *   MultiCellConfig cfg;  cfg.layout = "hex"; cfg.numSites = 7; cfg.uesPerSite = 15;
 *   MultiCellScenario s(cfg);            // validates
 *   s.BuildSites();                      // BS nodes at the layout's positions
 *   s.BuildUes();                        // UE nodes and their mobility
 *   s.BuildRan();                        // EdgeLlmRan: devices, EPC, X2/Xn; attach
 *   s.BuildBackhaul();                   // cross traffic, queue-disc counters
 *   s.InstallApps("ns3::CtHoScheduler"); // EdgeLlmHelper on every BS and UE
 *   s.ScheduleHandovers();               // scripted requests, announced to the sources
 *   s.ConnectOutputs();                  // per-UE results
 *   MultiCellResult r = s.Simulate();    // Simulator::Run, then Simulator::Destroy
 * \endcode
 * Run() does all of them. Each part refuses to run out of order (NS_FATAL_ERROR naming
 * the part it needs). The same config and RngRun give byte-identical results.
 */
class MultiCellScenario
{
  public:
    /**
     * \param config the knobs
     * \throws std::invalid_argument for a bad config (MultiCellConfig::Validate)
     */
    explicit MultiCellScenario(const MultiCellConfig& config);
    ~MultiCellScenario();

    /**
     * \brief Every part, in order, and the simulation.
     * \param config the knobs (validated)
     * \param schedulerType e.g. "ns3::CtHoScheduler"
     * \return what happened
     * \throws std::invalid_argument for a bad config or scheduler type
     */
    static MultiCellResult Run(const MultiCellConfig& config,
                               const std::string& schedulerType,
                               const std::string& monitorPlotStem = "");

    /**
     * \brief The sites' positions (z = 0; the RAN's antenna height is added by BuildSites).
     *
     * "road": site i at (i d, 0). "hex": the centre site at (0, 0), then ring 1 (6 sites at
     * distance d, at angles 0, 60, ..., 300 degrees), then for 19 sites ring 2 (12 sites:
     * the corners at 2 d and angles 0, 60, ..., and between each two corners an edge site
     * at sqrt(3) d, at 30, 90, ... degrees), each ring by increasing angle. The 7 sites are
     * the site centres of ns-3's LteHexGridEnbTopologyHelper with GridWidth 2 (rows of 2, 3,
     * 2 sites), moved so that the centre site is at the origin; that helper lays out rows
     * alternating W and W + 1 sites, which cannot make the 19-site hexagon (rows 3, 4, 5,
     * 4, 3), hence the rings here.
     * \param layout "road" or "hex"
     * \param numSites road: [2, 57]; hex: 7 or 19
     * \param interSiteDistance d, m
     * \return one position per site, in site order
     * \throws std::invalid_argument for a layout or count outside those
     */
    static std::vector<Vector> SitePositions(const std::string& layout,
                                             uint32_t numSites,
                                             double interSiteDistance);

    /**
     * \brief The site each site's road leads to: the first of s + 1, s + 2, ... (cyclic)
     *        within 1.01 d of s (a neighbour).
     * \param positions the sites' positions (SitePositions)
     * \param interSiteDistance d, m
     * \return one target site per site
     */
    static std::vector<uint32_t> RoadTargets(const std::vector<Vector>& positions,
                                             double interSiteDistance);

    /**
     * \brief The ns-3 attribute defaults the scenario sets itself (see the doc): LTE's
     *        random-access and SRS settings for many UEs per cell, and what BuildRan and
     *        InstallApps set per node; an attribute argument for one of them would be
     *        overwritten.
     * \return each attribute's full name with the advice for CheckAttributeArguments()
     */
    static std::map<std::string, std::string> GetAttributesSet();

    void BuildSites();    //!< BS nodes at SitePositions (needs nothing)
    void BuildUes();      //!< UE nodes, home sites, prompts, handover times, mobility
    void BuildRan();      //!< EdgeLlmRan::Create, Install, each UE attached to its home
    void BuildBackhaul(); //!< The backhaul's cross traffic and KV/queue counters
    /**
     * \brief EdgeLlmNode on every BS, EdgeLlmUeApp on every UE (served by its home BS).
     * \param schedulerType a HandoverScheduler TypeId, e.g. "ns3::CtHoScheduler"
     * \throws std::invalid_argument for a bad scheduler type or node configuration
     */
    void InstallApps(const std::string& schedulerType);
    void ScheduleHandovers(); //!< Scripted handovers: requested and announced
    void ConnectOutputs();    //!< Trace sinks for the per-UE results
    /**
     * \brief Run until every session is restored and the backhaul has delivered every KV
     *        byte sent (or the time limit), collect the results, Simulator::Destroy().
     * \param monitorPlotStem with a monitor (monitorInterval > 0): write its PNGs
     *        (BackhaulMonitor::WritePlots) to this stem before the simulator goes; "": none
     * \return what happened
     * \throws std::runtime_error if the plots cannot be written
     */
    MultiCellResult Simulate(const std::string& monitorPlotStem = "");

    /// \return the session records (after ConnectOutputs; valid until Simulate returns)
    Ptr<EdgeLlmSessionStats> GetSessionStats() const;
    /// \return the backhaul monitor (after ConnectOutputs, with monitorInterval > 0)
    Ptr<BackhaulMonitor> GetBackhaulMonitor() const;

    NodeContainer GetBsNodes() const;             //!< After BuildSites
    NodeContainer GetUeNodes() const;             //!< After BuildUes
    Ptr<EdgeLlmRan> GetRan() const;               //!< After BuildRan
    ApplicationContainer GetBsApps() const;       //!< After InstallApps
    ApplicationContainer GetUeApps() const;       //!< After InstallApps
    uint32_t GetHomeSite(uint32_t ueIndex) const; //!< After BuildUes

  private:
    /**
     * \brief Count the TCP payload offered to \p qd, dropped by it or by \p out, and
     *        received by \p in, and the sojourn time of every packet \p qd dequeues.
     * \param index the BackhaulLinkCount to fill
     * \param qd the root queue disc of \p out
     * \param out the sending device
     * \param in the device at the link's other end
     */
    void ConnectLinkCounters(std::size_t index,
                             Ptr<QueueDisc> qd,
                             Ptr<PointToPointNetDevice> out,
                             Ptr<PointToPointNetDevice> in);

    /// The backhaul's cross traffic (crossTrafficLoad), from handoverStart - 100 ms.
    void InstallCrossTraffic();

    /// Abort with "MultiCellScenario::<part>: <needs>" unless \p done.
    void RequireDone(bool done, const char* part, const char* needs) const;

    MultiCellConfig m_cfg;                //!< Validated knobs
    std::vector<Vector> m_sites;          //!< Site positions
    std::vector<uint32_t> m_roadTarget;   //!< Road target of each site
    NodeContainer m_bsNodes;              //!< One per site
    NodeContainer m_ueNodes;              //!< uesPerSite per site, in site order
    std::vector<uint32_t> m_home;         //!< Home site per UE
    std::vector<uint32_t> m_prompt;       //!< Prompt per UE, tokens
    std::vector<double> m_tau;            //!< Scripted handover time per UE, s (road)
    double m_handoverStart{0};            //!< Platoons start crossing, s
    Ptr<EdgeLlmRan> m_ran;                //!< The RAN
    ApplicationContainer m_bsApps;        //!< EdgeLlmNode per site
    ApplicationContainer m_ueApps;        //!< EdgeLlmUeApp per UE
    bool m_backhaulBuilt{false};          //!< BuildBackhaul done
    bool m_handoversScheduled{false};     //!< ScheduleHandovers done
    bool m_outputsConnected{false};       //!< ConnectOutputs done
    struct Counters;                      //!< Trace sink state
    std::unique_ptr<Counters> m_counters; //!< Filled by the traces
    Ptr<EdgeLlmSessionStats> m_stats;     //!< Per-handover records
    Ptr<BackhaulMonitor> m_monitor;       //!< Backhaul time series (monitorInterval > 0)
};

} // namespace ns3

#endif /* MULTI_CELL_SCENARIO_H */
