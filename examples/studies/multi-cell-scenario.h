/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MULTI_CELL_SCENARIO_H
#define MULTI_CELL_SCENARIO_H

#include "mobility-trace.h"
#include "site-list.h"

#include "ns3/accuracy-utility.h"
#include "ns3/application-container.h"
#include "ns3/backhaul-monitor.h"
#include "ns3/edge-llm-ran.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/llm-request-trace.h"
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
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PropagationLossModel;

/**
 * \ingroup edge-llm
 * \brief The knobs every packet-level scenario has, with the same meaning in the engine
 *        (MultiCellConfig) and its presets (RoadHandoverConfig, which sets its own defaults
 *        for a few): the RAT and its radio, the backhaul links, the LLM and its sessions,
 *        the planner. Declared once, here; MultiCellConfig::Validate checks each (the RAN's
 *        ones through EdgeLlmRanConfig::Validate, their owner).
 */
struct ScenarioCommonConfig
{
    // The RAN
    /// "lte" (src/lte, eNBs) or "nr" (5G-LENA, gNBs; needs a build with the nr module);
    /// EdgeLlmRan::Create
    std::string ran{"lte"};
    /// Path-loss model TypeId (LTE only; NR follows its 3GPP scenario, and the road refuses
    /// a non-empty one over NR; "": LTE's default, Friis); the default makes hexagonal cells
    /// interference-limited with a realistic exponent (Friis lets the six neighbours of the
    /// hexagon's centre drown its cell edge)
    std::string pathlossModel{"ns3::LogDistancePropagationLossModel"};
    double pathlossExponent{3.76}; //!< Its "Exponent" attribute, if it has one, [1.5, 6]
    double bsTxPowerDbm{43};       //!< BS (eNB; NR: gNB) transmit power, dBm, [-30, 60] (a 20 W
                                   //!< macro cell; EdgeLlmRanConfig::Validate checks it)
    // The RAN's radio (EdgeLlmRanConfig's fields of the same names, which it checks)
    uint16_t bandwidthRbs{25};   //!< LTE: DL and UL bandwidth, resource blocks
    double nrFrequencyHz{3.5e9}; //!< NR: central frequency, Hz
    double nrBandwidthHz{20e6};  //!< NR: channel bandwidth, one BWP, Hz
    uint16_t nrNumerology{0};    //!< NR: numerology mu
    /// LTE: LteAmc AmcModel, the CQI model: "" (ns-3's default, MiErrorModel),
    /// "MiErrorModel" or "PiroEW2010" (cheaper per UE); refused over NR
    std::string amcModel;
    /// Spectrum cut-off, dB: a transmission reaches a PHY only within this path loss
    /// (EdgeLlmRanConfig maxLossDb: ns3::SpectrumChannel::MaxLossDb); 0: none
    double maxLossDb{0};
    /// Where pcap files of the sites' point-to-point devices (X2/Xn with the KV transfer,
    /// S1-U; ns-3's usual names) go; "": none
    std::string pcapPrefix;
    // The backhaul links
    double backhaulGbps{4.5}; //!< Rate of every backhaul link (the road: its X2/Xn link;
                              //!< star: each site's link to the aggregation router),
                              //!< Gbit/s, (0, 1000]
    /// Delay of each backhaul link, >= 0 and short enough for the RAN's handover timers
    /// (EdgeLlmRanConfig::Validate, its owner, checks it)
    Time backhaulDelay{MicroSeconds(100)};
    uint16_t backhaulMtu{9000}; //!< MTU of each backhaul link, bytes, >= 576
    /// Star, ring, file: only sites at most peerRange x interSiteDistance apart are peers
    /// (X2/Xn, KV connection, the pair's addresses and routes: EdgeLlmBackhaul PeerRange);
    /// 0: every pair (whose routes and sockets grow as sites^2), else [1, 1000]. The
    /// default 2.01 keeps the hex layout's first two rings (all of 7 sites) and two
    /// neighbours each way on a road; the road targets are neighbours (1 x).
    double peerRange{2.01};
    // The LLM and its sessions
    std::string model{"qwen2.5-7b-instruct"}; //!< LLM preset
    uint32_t kvBits{16};                      //!< q: 16, 8 or 4
    double prefillA{9.4267e-5};               //!< s/token, [0, 1]
    double prefillB{2.4e-3};                  //!< s, [-3600, 3600]
    double prefillC{0};                       //!< s/token^2, [0, 1e-3]
    Time batchPeriod{MilliSeconds(10)};       //!< T_c, [0, 1 s]
    double decodeRate{100};                   //!< tokens/s per session, [1e-3, 1e6]
    /// A GPU that serves many users on every BS (EdgeLlmServingGpu with this
    /// GpuIterationModel preset: continuous batching, decodeRate and prefillA/B/C unused);
    /// "": the papers' single-session mode
    std::string servingGpu;
    /// With servingGpu: what a BS does with an idle conversation cache when its UE hands
    /// over (EdgeLlmIdleCacheRole Policy: one of IdleCachePolicyNames())
    std::string idleCachePolicy{"move-on-next-turn"};
    uint32_t tokensAfterHandover{200}; //!< Tokens decoded after the handover, >= 1
    uint32_t tokenBytes{4}; //!< Radio payload per streamed token, bytes (EdgeLlmNode TokenBytes)
    /// Accept prompts and contexts longer than the model's context window
    /// (LlmModelProfile::CheckContext; the programs then say so on their output)
    bool allowBeyondContextWindow{false};
    /// Mobility "trace": each vehicle's own session (its one prompt when it enters); false:
    /// none, the UEs send only the requests of MultiCellScenario::InstallRequests
    bool ownSessions{true};
    // The planner
    Time lookahead{Seconds(0)}; //!< HandoverScheduler Lookahead (online batches), >= 0
    /// Attributes of every BS's scheduler, name and value, set on the object after
    /// Lookahead: a scheme's (HandoverScheme::attributes, e.g. ImpactHoScheduler Policy
    /// Equal for "ea"); InstallApps refuses one the scheduler type does not have
    std::vector<std::pair<std::string, std::string>> schedulerAttributes;
    /// Online handovers: the sources plan with arrivals predicted from each UE's position
    /// and velocity along its road (HandoverScheduler Lookahead sets how far ahead)
    bool predictArrivals{false};
    // Vehicles from a mobility trace (the road and the engine: mobility "trace")
    /// An ns-2 mobility trace (MobilityTrace; SUMO's traceExporter.py
    /// --ns2mobility-output); "": none. The engine reads it with mobility "trace"; the road
    /// (RoadHandoverConfig) takes its vehicles instead of its drawn UEs. Each vehicle is a UE
    /// attached to the strongest cell where it enters; it sends its prompt when it enters
    /// (promptTime at the earliest) and its application stops when it leaves; with handover
    /// "script" every change of its strongest cell (MobilityTrace::StrongestCellChanges, with the
    /// RAN's path loss) is requested then and announced to its source; the run lasts until the last
    /// vehicle leaves (maxSimTime overrides)
    std::string mobilityTrace;
    /// Mobility "trace": its activity file (--ns2activity-output: when each vehicle enters
    /// and leaves); "": each vehicle is present from its first setdest to its last
    std::string mobilityActivity;
    /// Mobility "trace": a change of the strongest cell counts as a handover only if the new
    /// cell stays the strongest this long, [0, 60 s]
    Time traceMinDwell{MilliSeconds(500)};
    /// Mobility "trace", handover "script": each handover is announced to its source
    /// (ExpectHandover) this long before it, (0, 60 s]; the handovers of one source to one
    /// target announced when the first of them starts form its batch, so this bounds how far
    /// apart a batch's handovers are (announced all at once, a trace's would form batches
    /// spanning minutes, each member waiting for the last)
    Time traceAnnounceLead{Seconds(1)};
};

/**
 * \ingroup edge-llm
 * \brief Knobs of a multi-cell scenario (doc/edge-llm-design.rst, "Multi-cell scenarios and the
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
struct MultiCellConfig : ScenarioCommonConfig
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

    /// \return numSites' valid values, "{7, 19} (hex) or [2, 57] (road)" (Validate's
    ///         messages and the programs' option parsing quote it)
    static std::string NumSitesRange();
    /// \return uesPerSite's valid range, "[1, 100]" (as NumSitesRange)
    static std::string UesPerSiteRange();

    // Sites
    /// "road" (sites on a line), "hex" (hexagonal rings) or "file" (siteFile: each cell's
    /// position, antenna height, transmit power and optionally its sector antenna)
    std::string layout{"hex"};
    uint32_t numSites{7}; //!< road: [2, 57]; hex: 7 or 19; file: not read (its rows)
    /// Distance between neighbour sites, m, (0, 50000]; layout "file": not read (the largest
    /// distance from a cell to its nearest cell at another position, so that each site has a
    /// neighbour)
    double interSiteDistance{500};
    /// Layout "file": the site file (SiteRecord::Read: CSV id,x,y,height,txPowerDbm, and
    /// optionally azimuth,beamwidth); its heights and powers replace the RAN's BS height and
    /// bsTxPowerDbm, its sectors (EdgeLlmRan::SetBsAntenna) need mobility "trace"
    std::string siteFile;
    /// LogDistance's loss at 1 m, dB, [0, 100]: with exponent 3.76 the 3GPP macro-cell law
    /// L = 128.1 + 37.6 log10(R / 1 km) dB (TR 36.942); ignored by other models
    double pathlossReferenceDb{15.3};
    /// Contention RA preambles per cell (LTE and NR; 28: 36 dedicated preambles for many
    /// handovers at once; doc, "Multi-cell scenarios"); 0: the RAT's default (52)
    uint32_t raPreambles{28};
    /// RA attempts (LTE and NR; 10: a dedicated preamble is held 80 ms); 0: the RAT's
    /// default (50)
    uint32_t preambleTransMax{10};
    /// LTE: SRS slots per cell, ms, >= 2 x uesPerSite (320: 160 UEs per cell); 0: ns-3's
    /// default (40)
    uint32_t srsPeriodicity{320};
    // Backhaul
    /// "mesh" (an X2/Xn cable between every two sites), "star" (every site to one
    /// aggregation router: X2 and KV over two hops), "ring" (EdgeLlmBackhaul's Topology), or
    /// "x2": the RAN's own X2/Xn cables, as EdgeLlmRan builds them without an
    /// EdgeLlmBackhaul (the papers' road; no queue disc, cross traffic or per-link counts),
    /// or "file" (backhaulFile: EdgeLlmBackhaul's File topology)
    std::string backhaul{"mesh"};
    /// backhaul "file": the topology file (ns-3's topology-read; its first numSites nodes
    /// are the sites in order, the others routers), every link at backhaulGbps
    std::string backhaulFile;
    std::string backhaulFileFormat{"Inet"}; //!< backhaul "file": Inet, Orbis or Rocketfuel
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
    /// UEs starting on each site, [1, 100] (BuildUes(ues): the most on one site)
    uint32_t uesPerSite{2};
    /// "road" (ConstantVelocity along the site's road), "random-waypoint" (RandomWaypoint
    /// in the layout's bounding box), "gauss-markov" (GaussMarkov in that box) or "trace"
    /// (mobilityTrace: one UE per vehicle, uesPerSite not read)
    std::string mobility{"road"};
    double speed{20}; //!< UE speed (random-waypoint, gauss-markov: the mean), m/s
    /// "script" (handovers requested at the boundary crossing and announced to the source:
    /// needs mobility "road"), "A3-RSRP" or "A2-A4-RSRQ" (the RRC's algorithm decides), or
    /// the RAT's handover algorithm TypeId (EdgeLlmRanConfig::handoverAlgorithm)
    std::string handover{"script"};
    /// Which road each UE drives (mobility "road"): "cycle" (every UE of site s toward s's
    /// road target, RoadTargets: on the 7-site hexagon each site is the target of one
    /// source) or "random" (each UE toward a neighbour of its home site drawn uniformly:
    /// a target receives handovers from several sources at once)
    std::string roads{"cycle"};
    double boundaryFraction{0.5}; //!< Where on the road a scripted handover happens, (0, 0.5]
    /// Where the arrival predictor expects a handover, m along the road from the home
    /// site, [0, interSiteDistance]; NaN: boundaryFraction x interSiteDistance
    double predictedHandoverDistance{std::numeric_limits<double>::quiet_NaN()};
    Time platoonSpread{MilliSeconds(500)}; //!< Spread of one platoon's handovers, [0, 60 s]
    // Applications
    uint32_t promptMin{500};            //!< Shortest prompt, tokens, >= 1
    uint32_t promptMax{1500};           //!< Longest prompt, tokens, [promptMin, 1e6]
    Time promptTime{MilliSeconds(250)}; //!< When the UEs send their prompts, (0, 10 s]
    /// Least time from promptTime to the first scripted handover, [0, 60 s]; 0: the
    /// warm-up's own (the prompts' uplink, with prefillPromptsOnGpu each site's prefills
    /// in a row, then DECODE_LEAD of decoding). Without the GPU warm-up the uplink is
    /// allowed 20 ms per UE of a cell: the UEs start near the cell edge, where 50 prompts
    /// take a few hundred ms; a prompt still queued in the UE's RLC at its handover is lost.
    Time handoverLead{Seconds(0)};
    /// Without the GPU warm-up, on the UEs BuildUes() draws: each UE resends its prompt
    /// after this long without a token (EdgeLlmUeApp PromptRetry), [0, 10 s]; 0: never.
    /// A prompt the radio lost otherwise leaves its UE without a session (at 50 UEs per
    /// cell near the cell edge about one in a hundred is lost).
    Time promptRetry{MilliSeconds(300)};
    /// A scripted handover whose source RRC has not traced HandoverStart this long after
    /// the request is given up: ns-3's RRCs (LTE and nr) return to CONNECTED_NORMALLY on
    /// a target's HANDOVER PREPARATION FAILURE without a trace, and wait for ever for a
    /// lost answer. The source's batch goes on without the UE (EdgeLlmNode::
    /// NotifyHandoverFailure), MultiCellResult::handoversNotStarted counts it, the stop
    /// rule does not wait for it. (0, 60 s]
    Time handoverStartTimeout{Seconds(1)};
    /// Each site prefills its UEs' prompts on its GPU (EdgeLlmNode PrefillPromptsOnGpu);
    /// false: a prompt's cache is taken as built on arrival
    bool prefillPromptsOnGpu{true};
    /// EdgeLlmNode WarmDecodeStart (without the GPU warm-up: prompts arriving earlier start
    /// decoding at it), >= 0; 0: at each prompt's arrival
    Time warmDecodeStart{Seconds(0)};
    /// Simulated time allowed after the last scripted handover, (0, 3600 s]
    Time tailTime{Seconds(8)};
    /// When the run stops at the latest, >= 0; 0: the last scripted handover + tailTime
    Time maxSimTime{Seconds(0)};
    /// Stop drainGrace after the backhaul has delivered every KV byte sent, once every UE
    /// has resumed (EdgeLlmHelper::StopWhenDrained), [0, 1 s]
    Time drainGrace{MilliSeconds(10)};
    /// G, tokens: > 0: measure each UE's stream after its handover (EdgeLlmSessionStats
    /// StreamTokens: the time from its first handover's start that was not cancelled, or
    /// ScenarioUe::streamFrom, to its G-th token after it: EdgeLlmUeResult::streamDelay), and the
    /// stop rule waits for a UE's G-th token instead of its resume, or for its session's last token
    /// if that comes first (its stream is then unknown: the handover came later than its tokens
    /// allowed for); 0: no stream measured. [0, tokensAfterHandover]
    uint32_t streamTokens{0};
    /// true: the stop rule does not wait for a UE whose handover its home site gave up
    /// (HandoverFailed: the RRC aborted it); false: it waits for the UE's resume (an
    /// online handover algorithm may try again)
    bool failedHandoverDone{false};
    uint32_t seedStream{0}; //!< Offset of the scenario's random streams (UE draws, mobility)
    /// BackhaulMonitor interval on every backhaul device ((0, 10 s]); 0: no monitor
    Time monitorInterval{Seconds(0)};

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;

    /// Validate's part: ran, layout, sites, backhaul (topology, file, queue disc, rate,
    /// cross traffic). \throws std::invalid_argument as Validate
    void ValidateSitesAndBackhaul() const;
    /// Validate's part: UEs, mobility, speed, handovers, roads, platoons, timers.
    /// \throws std::invalid_argument as Validate
    void ValidateUesAndHandovers() const;
    /// Validate's part: the mobility trace's knobs and file (its line-numbered errors).
    /// \throws std::invalid_argument as Validate
    void ValidateTrace() const;
    /// Validate's part: token size, times, the prefill model, batching, decoding, prompts,
    /// the monitor and the path loss. \throws std::invalid_argument as Validate
    void ValidateLlmAndRadio() const;
    /// Validate's part: the RAN's own config, LTE's SRS periods for the UEs of a cell, TBF
    /// as the root against the backhaul rate, the model preset.
    /// \throws std::invalid_argument as Validate
    void ValidateRanCoupling() const;

    /**
     * \brief The RAN's configuration (the one place a scenario builds it): backhaul rate,
     *        delay and MTU, handover algorithm (from handover), radio, RACH and SRS (LTE),
     *        the RAN's random streams.
     * \return the config EdgeLlmRan::Create takes
     */
    EdgeLlmRanConfig GetRanConfig() const;

    /**
     * \brief What the scenario is, in one line for titles: the RAT, the sites, the
     *        backhaul topology and rate and its KV band's queue disc, e.g. "LTE, 7 hex
     *        sites, star backhaul 4.5 Gbit/s, KV band ns3::RedQueueDisc" (GetKvQueueDisc();
     *        the x2 backhaul has no KV band of its own). The monitor's plots add the load and
     *        the scheme.
     * \return the line
     */
    std::string Describe() const;

    /**
     * \brief The TypeId of the disc that queues the KV bytes on the backhaul's links: queueDisc,
     *        ns3::FifoQueueDisc when it is empty (the default), "" for the x2 backhaul (the
     *        RAN's own cables, no KV band of the study's).
     * \return the TypeId name, or ""
     */
    std::string GetKvQueueDisc() const;

    /**
     * \brief Check a UE speed against the packet level's range, [MIN_SPEED, MAX_SPEED]
     *        (Validate's check, for a preset that names its own knob).
     * \param field the knob's name in the message
     * \param speed the value, m/s
     * \throws std::invalid_argument "<field> must be in [0.1, 138.889] m/s (...), got <speed>"
     */
    static void CheckSpeed(const std::string& field, double speed);
};

/**
 * \ingroup edge-llm
 * \brief One UE of a scenario as the engine builds it: where it starts and goes, what it
 *        asks, when it hands over. MultiCellScenario::BuildUes() draws them from its
 *        config; a preset (the papers' road) gives its own.
 */
struct ScenarioUe
{
    uint32_t homeSite{0}; //!< Site it starts on and attaches to, < numSites
    /// Site of its scripted handover, and where predictArrivals expects it (!= homeSite;
    /// < numSites); not read otherwise
    uint32_t targetSite{0};
    Vector position; //!< Start position (x, y), m; z (finite) is replaced by the RAN's UE height
    Vector velocity; //!< Constant velocity (ConstantVelocityMobilityModel), m/s
    uint32_t promptTokens{1}; //!< Its prompt, tokens, >= 1
    uint32_t maxNewTokens{1}; //!< Tokens its session decodes, >= 1
    Time promptAt;            //!< Its application's start (the prompt, once attached), >= 0
    /// Its scripted handover's request instant (announced to the home site), >= 0;
    /// Time::Max(): none
    Time handoverAt{Time::Max()};
    /// Further scripted handovers after the first (handoverAt, homeSite to targetSite), by
    /// time, each from the previous one's target (a vehicle of a mobility trace)
    std::vector<std::pair<Time, uint32_t>> laterHandovers;
    /// When its application stops (a trace's vehicle leaves); Time::Max(): never
    Time leaveAt{Time::Max()};
    /// No handover (the road's no-HO baseline): with streamTokens > 0, measure its stream
    /// from this instant (its home site's context then); Time::Max(): from its handover's start
    Time streamFrom{Time::Max()};
};

/**
 * \ingroup edge-llm
 * \brief What one UE saw in a run of the scenario engine (every study and preset, the
 *        papers' road included): its handover read from its session record
 *        (EdgeLlmSessionStats, the one collector), the radio's and application's side.
 *
 * "Its handover" is the UE's first handover started that was not cancelled (a handover
 * the RRC aborted and then retried gives the retry; if every one was cancelled, the first):
 * a UE that hands over again (back, or on) keeps its first one here; the session records
 * (MultiCellResult::handoverCsv) have every handover.
 */
struct EdgeLlmUeResult
{
    /// Marks a value that was never measured (the UE did not hand over or resume).
    static constexpr double UNKNOWN = std::numeric_limits<double>::quiet_NaN();

    uint64_t ueId{0};                 //!< IMSI (the session id)
    uint32_t homeSite{0};             //!< Site the UE started on and attached to
    uint16_t sourceCellId{0};         //!< Its handover's source cell (0: none)
    uint16_t targetCellId{0};         //!< Its handover's target cell (0: none)
    double startX{0};                 //!< x of its start position, m
    uint64_t drawnContext{0};         //!< C_i a preset drew for it (the road's RoadUeDraw; 0: none)
    uint32_t promptTokens{0};         //!< Its prompt, tokens
    double promptTime{UNKNOWN};       //!< When it sent the prompt, s (after its attach)
    double handoverTime{UNKNOWN};     //!< When the source started the handover, s
    uint64_t contextTokens{0};        //!< C_i at the handover, tokens
    uint64_t prefillTokens{0};        //!< n_pf
    uint64_t transferTokens{0};       //!< n_tx
    double predictedDelay{UNKNOWN};   //!< Planner's D_i for the actual time and context, s
    double restoredDelay{UNKNOWN};    //!< Target: resume time - handover time, s
    double restoredAt{UNKNOWN};       //!< Target: when it resumed the session, s
    double stall{UNKNOWN};            //!< UE: the raw stall, s
    double measuredDelay{UNKNOWN};    //!< UE: the stall's excess over the decode cadence, s
    uint32_t stalls{0};               //!< Stalls the UE measured (1 per handover)
    uint64_t kvBytesExpected{0};      //!< n_tx x bytes per token
    uint64_t kvBytesReceived{0};      //!< Target: all arrived (else 0); ImpactHO: share x cache;
                                      //!< replanned: the whole tokens kept x bytes per token
    bool replanned{false};            //!< The target replanned its transfer (TransferReplanned)
    uint64_t reprefillTokens{0};      //!< Tokens the target re-prefilled (replan or timeout)
    uint32_t tokensMissing{0};        //!< Token indices the UE never received
    uint32_t tokensDuplicated{0};     //!< Tokens received late or twice
    double receivedFraction{UNKNOWN}; //!< ImpactHO: share of the cache received
    double handoverEndTime{UNKNOWN};  //!< When the target's RRC reported HandoverEndOk, s
    uint16_t servingCellId{0};        //!< Cell whose RRC reported HandoverEndOk (0: none)
    /// What finished last and so bounded the delay (EdgeLlmHandoverRecord::bound):
    /// "transfer", "prefill", "window" (ImpactHO), "none" (the session never resumed)
    std::string bound{"none"};
    double transferDone{UNKNOWN}; //!< When the target had every KV byte of it, s
    double batchStart{UNKNOWN};   //!< Prefill-bound: start of the target's batch it waited for
                                  //!< (EdgeLlmHandoverRecord::batchStart), s
    double accuracy{UNKNOWN};     //!< ImpactHO: accuracy reached on the received share
                                  //!< (the target's utility preset for this context)
    bool starved{false};          //!< ImpactHO: the received share stayed below the utility's
                                  //!< concavity anchor tau (ImpactHO's starvation); false otherwise
    bool handoverFailed{false};   //!< The RRC aborted its handover (HandoverFailed at the
                                  //!< source, which serves it again)
    bool lost{false};             //!< A BS reported SessionLost for it
    /// Its stream's start: the handover's (ScenarioUe::streamFrom without one), s
    double streamStart{UNKNOWN};
    double streamDelay{UNKNOWN}; //!< From streamStart to its G-th token after it (streamTokens), s
    /// Tokens of its cache a pre-transfer had put at the target of its handover (the split
    /// n_pf, n_tx is of the rest; 0 without a PreTransferScheduler)
    uint64_t preSentTokens{0};
    /// Bytes sent ahead for it that served nothing (wrong target, evicted, partial token)
    uint64_t preWastedBytes{0};
};

/**
 * \ingroup edge-llm
 * \brief EdgeLlmPredictionError::Of over UEs' planned and restored delays.
 * \param ues per-UE results (those without a plan or a restore are left out)
 * \return the error
 */
EdgeLlmPredictionError EdgeLlmPredictionErrorOf(const std::vector<EdgeLlmUeResult>& ues);

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
 * \brief Where a handover of a mobility trace's vehicle happened, and its delays (the
 *        study's map).
 */
struct TraceHandoverPoint
{
    uint32_t vehicle{0};                            //!< The trace's node number
    double time{0};                                 //!< When its source started it, s
    double x{0};                                    //!< Where the vehicle was, m
    double y{0};                                    //!< m
    double restoredDelay{EdgeLlmUeResult::UNKNOWN}; //!< Target-side delay, s
    double measuredDelay{EdgeLlmUeResult::UNKNOWN}; //!< UE-side delay, s
};

/**
 * \ingroup edge-llm
 * \brief What one request of a request trace saw at packet level
 *        (MultiCellScenario::InstallRequests): its UE application's side. Times are the
 *        simulation's, s; NaN: never happened.
 */
struct EdgeLlmRequestResult
{
    uint64_t sessionId{0}; //!< Its session (EdgeLlmSessionId)
    uint32_t ue{0};        //!< Its UE's index
    double arrival{0};     //!< Its trace arrival: its application's start
    double sent{std::numeric_limits<double>::quiet_NaN()}; //!< Its prompt's send
    uint16_t promptCell{0}; //!< The cell its prompt went to (0: not sent)
    /// A conversation's turn: tokens of its conversation's idle cache held where it
    /// opened (EdgeLlmNode TurnStarted: not prefilled)
    uint64_t cachedTokens{0};
    uint64_t outputTokens{0};   //!< Tokens it asked for
    uint32_t tokensReceived{0}; //!< Tokens that reached the UE
    uint32_t tokensMissing{0};  //!< Indices the stream skipped (lost on the way)
    double firstToken{std::numeric_limits<double>::quiet_NaN()}; //!< First token's arrival
    double lastToken{std::numeric_limits<double>::quiet_NaN()};  //!< Latest token's arrival
    uint32_t stalls{0};   //!< Cell changes of its stream (EdgeLlmUeApp::GetStalls)
    double stall{0};      //!< Their gaps summed (firstAfter - lastBefore), s
    double worstStall{0}; //!< The longest gap, s
    uint32_t restores{0}; //!< Its handovers a target restored (its session records)
    /// Tokens its restores prefilled (n_pf, and any re-prefill after a timeout or replan)
    uint64_t restorePrefillTokens{0};
    uint64_t transferTokens{0}; //!< KV tokens its restores moved over the backhaul (n_tx)
    /// Slot policies: the share of its cache its last restore resumed on (NaN: none)
    double received{std::numeric_limits<double>::quiet_NaN()};
    /// ... and its accuracy by the target's utility (ImpactHO Eq. (6); NaN: none)
    double accuracy{std::numeric_limits<double>::quiet_NaN()};
    double excess{0}; //!< Their time lost summed (EdgeLlmUeApp::Stall::excess), s
};

/**
 * \ingroup edge-llm
 * \brief One multi-cell run for one scheme.
 */
struct MultiCellResult
{
    std::string scheme;               //!< "ctho", "tho", "cho", ...
    std::vector<EdgeLlmUeResult> ues; //!< One per UE, by IMSI
    /// One per request of InstallRequests, in its order (empty without)
    std::vector<EdgeLlmRequestResult> requests;
    /// UE-side handover delay over the UEs that measured one (EdgeLlmDelaySummary::OfKnown)
    EdgeLlmDelaySummary measured;
    /// Target-side handover delay over the UEs restored (OfKnown)
    EdgeLlmDelaySummary restored;
    /// ImpactHO's family: UEs whose target counted a received share (0 for ctHO, tHO, cHO)
    uint32_t accuracyUes{0};
    /// Mean share of the cache received over those UEs, [0, 1] (NaN: none)
    double meanReceivedShare{std::numeric_limits<double>::quiet_NaN()};
    /// Mean accuracy reached over those UEs (NaN: none; ImpactHO Eq. (6), the algebraic sigmoid)
    double meanAccuracy{std::numeric_limits<double>::quiet_NaN()};
    uint32_t starved{0};                  //!< Of those UEs, the starved ones (EdgeLlmUeResult)
    EdgeLlmDelaySummary queueDelay;       //!< Sojourn time of every packet dequeued from
                                          //!< a backhaul queue disc (KV, cross, X2), s
    std::vector<BackhaulLinkCount> links; //!< Every backhaul link direction that carried KV
    uint64_t kvBytesSent{0};              //!< Sum over the sources' connections (application bytes)
    uint64_t kvBytesReceived{0};          //!< Sum over the targets' connections
    uint32_t handovers{0};                //!< Handovers the sources started
    uint32_t restoredSessions{0};         //!< Sessions a target restored
    uint64_t lostSessions{0};             //!< SessionLost over every BS
    uint64_t idleDrops{0};                //!< Idle conversation caches freed at their UE's handover
    uint64_t idleMoves{0};     //!< ... sent to its handover target (idle-cache policy move-now)
    uint64_t idleFetches{0};   //!< ... sent to a next turn's BS that asked (move-on-next-turn)
    uint64_t idleEvictions{0}; //!< Idle caches evicted (or refused) by the ServingGpus
    uint32_t rrcFailures{0};   //!< Handover failures the RRCs reported
    /// UEs that handed over before their prompt had opened a session at the source
    /// (EdgeLlmNode HandoverWithoutSession: the prompt still on the radio, or lost; a
    /// longer handoverLead helps)
    uint32_t noSession{0};
    /// Scripted handovers the source RRC never started (no HandoverStart by the run's end,
    /// given up handoverStartTimeout after the request: refused by the target or lost)
    uint32_t handoversNotStarted{0};
    double handoverStart{0};    //!< First scripted handover instant, s
    double simulatedSeconds{0}; //!< Simulated time at the end
    /// Every UE handed over, its session was restored, and every handover transfer's byte
    /// arrived (pre-transfers may still be sending when the run stops)
    bool complete{false};
    /// EdgeLlmSessionStats::GetCsv(): one record per handover (every BS and UE traced)
    std::string handoverCsv;
    /// EdgeLlmSessionStats::SummarizeUeDelay() (a NaN if a handover has none)
    EdgeLlmDelaySummary ueDelay;
    /// Restored vs planned delay over the UEs that have both (EdgeLlmUeResult's
    /// restoredDelay - predictedDelay; ImpactHO's have no plan)
    EdgeLlmPredictionError predictionError;
    /// Target-side delay over every handover started and not cancelled (OfKnown: count the
    /// restored ones, unknown the others; a UE of a trace hands over several times, the per-UE
    /// summaries above take its first)
    EdgeLlmDelaySummary everyRestored;
    /// Mobility "trace": the handover instants the trace implies (the strongest cell
    /// changes) against the RRC's: per handover started, its start minus the implied instant
    /// of the same UE and target nearest to it, s (OfKnown; empty without a trace)
    EdgeLlmDelaySummary impliedOffset;
    bool fromTrace{false};        //!< The UEs were a mobility trace's vehicles
    uint32_t impliedHandovers{0}; //!< Mobility "trace": strongest-cell changes of every UE
    /// Mobility "trace": scripted handovers not requested as announced (the UE was not at
    /// the announced source: an earlier handover failed or was still pending)
    uint32_t tracePlanMisses{0};
    /// Mobility "trace": every handover started, where its vehicle was
    std::vector<TraceHandoverPoint> tracePoints;
    /// Mobility "trace": handovers started with no implied change of the same UE and target
    uint32_t unimpliedHandovers{0};
    /// Proactive pre-transfers over every BS (all zero without a PreTransferScheduler)
    EdgeLlmSessionStats::PreTransferTotals preTransfer;
    /// Handovers whose target replanned the transfer (EdgeLlmHandoverRecord::replanned)
    uint32_t replannedTransfers{0};
    std::string monitorCsv;       //!< BackhaulMonitor::GetCsv() ("" without a monitor)
    std::string monitorTotalsCsv; //!< BackhaulMonitor::GetTotalsCsv() ("" without one)

    /**
     * \brief Mobility "trace": one line on every handover (a vehicle hands over several
     *        times) and how far the RRC's were from the instants the trace implies.
     * \return "every handover: N started (M implied by the trace[, J implied never
     *         started]), K restored, mean .. s, worst .. s; at the UE mean .. s, worst .. s[
     *         (measured at the UE in I of H)]; RRC start - implied instant: ..." (J: implied
     *         changes no handover started matched; H - I: records whose UE saw no stall); ""
     *         without a trace
     */
    std::string DescribeTraceHandovers() const;
};

/**
 * \ingroup edge-llm
 * \brief Builds a multi-cell edge-LLM scenario from parts a script can call one by one:
 *        sites, UEs, RAN, backhaul, applications, handovers, outputs; then runs it.
 *
 * \code
 *   MultiCellConfig cfg;  cfg.layout = "hex"; cfg.numSites = 7; cfg.uesPerSite = 15;
 *   MultiCellScenario s(cfg);            // validates
 *   s.BuildSites();                      // EdgeLlmRan and its EPC; BS nodes at the layout
 *   s.BuildUes();                        // UE nodes and their mobility (or BuildUes(ues))
 *   s.BuildRan();                        // backhaul topology, devices, X2/Xn; attach
 *   s.BuildBackhaul();                   // cross traffic, queue-disc counters
 *   s.InstallApps("ns3::CtHoScheduler"); // EdgeLlmHelper on every BS and UE
 *   s.ScheduleHandovers();               // scripted requests, announced to the sources
 *   s.ConnectOutputs();                  // per-UE results
 *   MultiCellResult r = s.Simulate();    // Simulator::Run, then Simulator::Destroy
 * \endcode
 * Run() does all of them with the config's own UE draw. With your own UEs
 * (BuildUes(ues), a ScenarioUe each) the draw's knobs (mobility, roads, speed, boundaryFraction,
 * platoonSpread, promptTime, promptMin/promptMax) are not read: each UE moves at its
 * constant velocity, sends its prompt at promptAt and hands over at handoverAt (only with
 * handover "script"; else the RRC's algorithm decides); no warm-up is planned for you, and
 * without scripted handovers the run stops at tailTime unless maxSimTime is set.
 * Each part refuses to run out of order (NS_FATAL_ERROR naming the part it needs). The
 * same config and RngRun give byte-identical results.
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
     * \param monitorPlotStem with a monitor (monitorInterval > 0): write its PNGs to this
     *        stem (Simulate()); "": none
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
     * \brief Each site's neighbours: the other sites within 1.01 d of it.
     * \param positions the sites' positions (SitePositions)
     * \param interSiteDistance d, m
     * \return per site, its neighbours in ascending order (empty for a lone site)
     */
    static std::vector<std::vector<uint32_t>> Neighbours(const std::vector<Vector>& positions,
                                                         double interSiteDistance);

    /**
     * \brief The site each site's road leads to with roads "cycle": the first of s + 1,
     *        s + 2, ... (cyclic) among its Neighbours.
     * \param positions the sites' positions (SitePositions)
     * \param interSiteDistance d, m
     * \return one target site per site
     */
    static std::vector<uint32_t> RoadTargets(const std::vector<Vector>& positions,
                                             double interSiteDistance);

    /**
     * \brief The ns-3 attribute defaults the engine sets itself, for every preset (the
     *        road's too): the RAN's random-access, SRS, bandwidth, power and path-loss
     *        settings, the X2/Xn or EdgeLlmBackhaul links, and what InstallApps sets per
     *        node; an attribute argument for one of them would be overwritten.
     * \param options the program's option for each config knob it exposes, by the knob's
     *        name (ScenarioCommonConfig, MultiCellConfig: {"backhaulGbps",
     *        "aggregationGbps"}, {"batchPeriod", "batchPeriodMs"}, ...; ProgramKnobOptions)
     * \return each attribute's full name ("ns3::EdgeLlmNode::DecodeRate") with the advice
     *         for CheckAttributeArguments(): "use --<option>" when \p options has the knob
     *         that sets it, else what sets it
     */
    static std::map<std::string, std::string> GetAttributesSet(
        const std::map<std::string, std::string>& options);

    /**
     * \brief The types of this module the engine never builds with \p cfg (its schedulers:
     *        HandoverSchemeRegistry::TypesUnused), for CheckAttributeArguments: backhaul
     *        "x2" builds no EdgeLlmBackhaul (nor its routers' EdgeLlmBackhaulRouting or the
     *        CrossTrafficMeter on its links); monitorInterval 0 no BackhaulMonitor; ran "lte"
     *        no NrEdgeLlmRan and "nr" no LteEdgeLlmRan; ImpactHoClairvoyantBound never.
     * \param cfg the config (validated)
     * \return TypeId name -> why it is not built
     */
    static std::map<std::string, std::string> GetTypesUnused(const MultiCellConfig& cfg);

    void BuildSites(); //!< BS nodes at SitePositions (needs nothing)
    /// UE nodes and their mobility, with home sites, prompts and handover times drawn from
    /// the config (uesPerSite per site, in site order)
    void BuildUes();
    /**
     * \brief UE nodes for a preset's own UEs (the papers' road): each on a straight line
     *        at constant velocity (ConstantVelocityMobilityModel), in the given order.
     * \param ues one per UE, at most MAX_UES_PER_SITE per home site
     * \throws std::invalid_argument naming the UE and field out of range
     */
    void BuildUes(const std::vector<ScenarioUe>& ues);
    /// The backhaul topology (EdgeLlmBackhaul, or the RAN's own cables for "x2"), the BS and
    /// UE devices (EdgeLlmRan::Install), each UE attached to its home site's cell
    void BuildRan();
    void BuildBackhaul(); //!< The backhaul's cross traffic and KV/queue counters
    /**
     * \brief EdgeLlmNode on every BS (the config's LLM, GPU, warm-up and scheduler
     *        attributes: the one place a scenario sets them), EdgeLlmUeApp on every UE
     *        (served by the cell it attaches to, its home site's).
     * \param schedulerType a HandoverScheduler TypeId, e.g. "ns3::CtHoScheduler"
     * \throws std::invalid_argument for a bad scheduler type, or a bad node configuration
     *         (EdgeLlmHelper::CheckConfiguration; the simulator is then destroyed, and the
     *         scenario cannot be used further)
     */
    void InstallApps(const std::string& schedulerType);
    /// Scripted handovers (handover "script"): requested and announced to the home site;
    /// online ones (predictArrivals): each source's arrival predictor
    void ScheduleHandovers();
    /**
     * \brief Besides each UE's own session, the requests of a request trace, each a session
     *        of its own (EdgeLlmHelper::InstallUeRequests): sent to the cell the UE is served
     *        by then, handed over with the UE. The run then also waits for every request's
     *        last token (or the time limit, which is at least the last arrival + tailTime);
     *        MultiCellResult::requests has what each saw. Call after InstallApps, before
     *        ConnectOutputs, at most once.
     * \param requests the requests (ue < the number of UEs; a conversation's turns in order;
     *        as InstallUeRequests)
     * \param start the simulation time of the trace's time 0
     */
    void InstallRequests(const std::vector<LlmRequest>& requests, Time start);
    void ConnectOutputs(); //!< Trace sinks for the per-UE results
    /**
     * \brief Run until every UE is done and the backhaul has delivered every KV byte sent,
     *        or the time limit; collect the results; Simulator::Destroy(). A UE is done
     *        once it resumed (with streamTokens: once it received its G-th token after the
     *        handover), left before its prompt opened a session, had a scripted handover
     *        that never started, or (failedHandoverDone) had its handover aborted.
     * \param monitorPlotStem with a monitor (monitorInterval > 0): write its PNGs
     *        (BackhaulMonitor::WritePlots) to this stem before the simulator goes; "": none
     * \return what happened
     * \throws std::runtime_error if the plots cannot be written
     */
    MultiCellResult Simulate(const std::string& monitorPlotStem = "");

    /**
     * \brief Simulate(), with \p beforeDestroy called on the result while the nodes,
     *        applications and session records still exist (a preset reads what it adds).
     * \param monitorPlotStem as Simulate()
     * \param beforeDestroy called once, after the run, before Simulator::Destroy()
     * \return what happened
     */
    MultiCellResult Simulate(const std::string& monitorPlotStem,
                             const std::function<void(const MultiCellResult&)>& beforeDestroy);

    /// The stop rule's end (Simulate calls it once every UE is done): stop drainGrace
    /// after the backhaul has delivered every KV byte sent.
    void Stop();

    /// \return the scenario's UEs (after BuildUes)
    const std::vector<ScenarioUe>& GetUes() const;
    /// \return when the run stops at the latest (after BuildUes)
    Time GetStopTime() const;

    /// \return the session records (after ConnectOutputs; valid until Simulate returns)
    Ptr<EdgeLlmSessionStats> GetSessionStats() const;
    /// \return the backhaul monitor (after ConnectOutputs, with monitorInterval > 0)
    Ptr<BackhaulMonitor> GetBackhaulMonitor() const;

    /// \return the mobility trace (mobility "trace"; else nullptr)
    const MobilityTrace* GetMobilityTrace() const;
    /// \return the site file's sites (layout "file"; else empty)
    const std::vector<SiteRecord>& GetSiteRecords() const;
    /// \return each UE's strongest-cell changes (mobility "trace", after BuildUes; site
    ///         indices), by UE index
    const std::vector<std::vector<MobilityTrace::CellChange>>& GetImpliedHandovers() const;
    /// \return the config with what the files set: numSites and interSiteDistance (layout
    ///         "file"), uesPerSite (mobility "trace": the most UEs of one home site, after
    ///         BuildUes)
    const MultiCellConfig& GetConfig() const;

    NodeContainer GetBsNodes() const;             //!< After BuildSites
    NodeContainer GetUeNodes() const;             //!< After BuildUes
    Ptr<EdgeLlmRan> GetRan() const;               //!< After BuildRan
    ApplicationContainer GetBsApps() const;       //!< After InstallApps
    ApplicationContainer GetUeApps() const;       //!< After InstallApps
    uint32_t GetHomeSite(uint32_t ueIndex) const; //!< After BuildUes

    /**
     * \brief The received power the engine estimates the strongest cell from (a trace's
     *        homes and implied handovers): the cell's transmit power, less the path loss
     *        the RAN's model gives (a copy of it built from the config), plus the gain of
     *        the cell's sector antenna toward the UE (a site file's azimuth and beamwidth:
     *        the same ns3::CosineAntennaModel the RAN gets, GetGainDb at the UE's direction
     *        from the BS; an omnidirectional cell: 0 dB).
     * \param site the cell's index
     * \param position the UE's x and y, m (z: the RAN's UE height)
     * \return dBm (after BuildUes with mobility "trace", which builds the path-loss model)
     */
    double RxPowerDbm(uint32_t site, const Vector& position) const;

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

    /**
     * \brief A UE's handover fields from its session record.
     * \param rec the record of the UE's first handover started
     * \param r the UE's result
     */
    static void FillFromRecord(const EdgeLlmHandoverRecord& rec, EdgeLlmUeResult& r);
    /// A trace's stop rule, from its end: once no handover started is pending, Stop() (with
    /// requests: StopWhenRequestsDone()), else again in 10 ms (GetStopTime bounds it)
    void StopWhenSettled();
    /// With requests (InstallRequests), after the UEs' rule: Stop() once every request has
    /// its last token (received or skipped), else again in 10 ms (GetStopTime bounds it)
    void StopWhenRequestsDone();
    /// Simulate's step: what each request's UE application saw into \p result
    void CollectRequests(MultiCellResult& result) const;
    /// Simulate's first step: the stop rule (every UE resumed, or GetStopTime()), the
    /// progress line, Simulator::Run()
    void RunToStop();
    /// Simulate's step: each UE's handover (its chosen record), its UE app's counts and the
    /// RAN's failures into \p result
    void CollectUes(MultiCellResult& result);
    /// Simulate's step: KV bytes (complete when the handovers' own bytes all arrived), lost
    /// sessions, delay summaries, ImpactHO's accuracy, queue delays, links, replans
    void CollectTotals(MultiCellResult& result) const;
    /// Simulate's step: the collector's CSV and summaries, the monitor's series and plots
    /// (\p monitorPlotStem: "" for none; throws std::runtime_error if a plot fails)
    void CollectOutputs(MultiCellResult& result, const std::string& monitorPlotStem);

    /**
     * \brief ImpactHO's accuracy on the share a restored UE received (its target's utility
     *        preset); a prefill-bound restore's batch start is its record's.
     * \param r the UE's result (after FillFromRecord)
     */
    void AddBoundDetails(EdgeLlmUeResult& r) const;
    /**
     * \brief ImpactHO's accuracy utility of a context restored at a target: the target's
     *        source role's ImportanceOrder, KvAccuracyLoss and UtilityCalibration
     *        (AccuracyUtility::Preset).
     * \param targetCell the target's cell
     * \param contextTokens the context, tokens
     * \return the utility; none if no BS of the scenario has that cell
     */
    std::optional<AccuracyUtility> UtilityAt(uint16_t targetCell, uint64_t contextTokens) const;

    /**
     * \brief BuildUes(ues)' check of a UE's laterHandovers (each after the one before, to a
     *        site other than the one it leaves) and leaveAt (after promptAt).
     * \param ue the UE
     * \param name "BuildUes: ues[i]." for the message
     * \throws std::invalid_argument naming the field
     */
    void CheckLaterHandovers(const ScenarioUe& ue, const std::string& name) const;

    /// UE nodes for m_ues (BuildUes): mobility, then nothing else.
    void CreateUeNodes();

    /// BuildUes for mobility "trace": one UE per vehicle, its home site the strongest cell
    /// where it enters, its scripted handovers the strongest-cell changes (m_implied).
    void BuildTraceUes();
    /// A trace UE's first handover at the earliest (its session under way), s: as DrawUes'
    /// warm-up for one UE after \p promptAt, or handoverLead after it if longer
    double TraceReadyTime(double promptAt) const;
    /// BuildTraceUes' step: UE \p i's implied handovers as its scripted ones (handover
    /// "script"), each between peers. \throws std::invalid_argument for a non-peer pair
    void AddTraceHandovers(uint32_t i);
    /**
     * \brief A trace UE's scripted handover from site \p from to \p to, at its instant:
     *        requested if the UE is at \p from and no handover of it is under way; while
     *        one is, tried again every 10 ms until \p deadline; else (not where the trace put
     *        it) the announced source's batch goes on without it, and it is handed over
     *        from where it is, unannounced (MultiCellResult::tracePlanMisses counts these).
     * \param i the UE's index
     * \param from the announced source site
     * \param to the target site
     * \param deadline the last instant to wait for the previous handover to end
     */
    void RequestTraceHandover(uint32_t i, uint32_t from, uint32_t to, Time deadline);
    /// \return whether sites \p a and \p b have an X2/Xn (and KV) link between them
    bool ArePeers(uint32_t a, uint32_t b) const;
    /// The trace's implied handovers against the RRC's (MultiCellResult::impliedOffset), and
    /// where each handover happened (tracePoints).
    void CollectImplied(MultiCellResult& result) const;
    /// Schedule one scripted handover of UE \p i from site \p from to \p to at \p at,
    /// announced to the source (ScheduleHandovers' step).
    void ScheduleHandover(uint32_t i, Time at, uint32_t from, uint32_t to);

    /// BuildUes' first step: the UEs' home and target sites, prompts, token budgets and
    /// scripted handover times (m_ues, m_home, m_tau), and m_handoverStart, drawn from the
    /// scenario's own streams (the draws of the "random" roads after every instant).
    void DrawUes();

    /// BuildUes' step for mobility "road": each UE's start position and constant velocity
    /// (m/s) on the road from its home site to its target, crossing the boundary at its
    /// handover time.
    void PlaceUesOnRoads();

    /// BuildUes' step for the random mobilities ("random-waypoint", "gauss-markov"): the UE
    /// nodes, their start positions drawn around the home sites, and their mobility models
    /// bounded by the layout's box.
    void InstallRandomMobility();

    /**
     * \brief ConnectOutputs' step for one site: its node's aborted handovers and GPU
     *        batches, its RRC's HandoverStart and HandoverEndOk, into the counters.
     * \param b the site's index in m_bsApps and m_bsNodes
     * \param total the number of UEs (the stop rule's count)
     */
    void ConnectSiteTraces(uint32_t b, uint32_t total);

    /// ConnectOutputs' step: every site RRC's handover failures (when ns-3's LTE has those
    /// traces; else nothing), counted in the counters' rrcFailures.
    void ConnectRrcFailureTraces();

    /**
     * \brief ConnectOutputs' last step: each UE app's stalls (the UEs resumed: the stop
     *        rule) into the counters.
     * \param total the number of UEs (the stop rule's count)
     */
    void ConnectUeTraces(uint32_t total);
    /**
     * \brief UE \p i's stream after its handover (MultiCellConfig::streamTokens, measured
     *        by the session stats): its start without a handover (ScenarioUe::streamFrom,
     *        EdgeLlmSessionStats::StartStream), and its session's last token (the stop rule
     *        then counts it done, its stream unmeasured).
     * \param i the UE's index (BuildUes order)
     * \param total the UEs in the scenario (the stop rule's count)
     */
    void ConnectStream(uint32_t i, uint32_t total);
    /**
     * \brief Each UE's first stream the session stats measured (StreamMeasured) is its
     *        EdgeLlmUeResult::streamDelay; the stop rule then counts it done.
     * \param total the UEs in the scenario (the stop rule's count)
     */
    void ConnectStreamMeasured(uint32_t total);

    /// The online sources' arrival predictor (predictArrivals): a UE is expected where its
    /// road reaches the predicted handover distance.
    void InstallArrivalPredictors();

    /// Abort with "MultiCellScenario::<part>: <needs>" unless \p done.
    void RequireDone(bool done, const char* part, const char* needs) const;

    MultiCellConfig m_cfg;                  //!< Validated knobs
    std::unique_ptr<MobilityTrace> m_trace; //!< Mobility "trace": the vehicles
    std::vector<SiteRecord> m_siteRecords;  //!< Layout "file": the sites
    /// Mobility "trace": each UE's strongest-cell changes
    std::vector<std::vector<MobilityTrace::CellChange>> m_implied;
    Ptr<PropagationLossModel> m_loss;                //!< RxPowerDbm's path-loss model
    std::vector<Ptr<AntennaModel>> m_antennas;       //!< Each cell's sector antenna, or null
    std::vector<Vector> m_sites;                     //!< Site positions
    std::vector<uint32_t> m_roadTarget;              //!< Road target of each site
    std::vector<std::vector<uint32_t>> m_neighbours; //!< Neighbours of each site
    NodeContainer m_bsNodes;                         //!< One per site
    NodeContainer m_ueNodes;                         //!< One per UE, in m_ues' order
    std::vector<ScenarioUe> m_ues;                   //!< The UEs, in node order
    std::vector<uint32_t> m_home;                    //!< Home site per UE
    std::vector<double> m_tau;     //!< The scripted handover times, s (UEs without one left out)
    double m_handoverStart{0};     //!< Platoons start crossing, s
    bool m_drawnUes{false};        //!< BuildUes() drew the UEs (not a preset's)
    Ptr<EdgeLlmRan> m_ran;         //!< The RAN
    ApplicationContainer m_bsApps; //!< EdgeLlmNode per site
    ApplicationContainer m_ueApps; //!< EdgeLlmUeApp per UE
    ApplicationContainer m_requestApps;   //!< EdgeLlmUeApp per request (InstallRequests)
    std::vector<uint32_t> m_requestUe;    //!< Each request's UE index
    Time m_lastRequestAt;                 //!< The last request's start (0: none)
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
