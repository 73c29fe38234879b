/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Backhaul study: how the handover delay of edge-LLM sessions grows with cross traffic on
 * a shared backhaul, for ctHO, tHO and cHO, and for ImpactHO and its baselines EA, WTA and PF
 * with the accuracy they reach (doc/edge-llm-design.rst, "Multi-cell scenarios and the backhaul
 * study").
 *
 * 7 hexagonal sites (one LTE cell each, 500 m apart), 15 UEs per site (105 UEs), a star
 * backhaul (every site linked to one aggregation router, X2 over two hops). Each
 * site's UEs drive as a platoon toward a neighbour site and hand over to it (X2 handovers
 * requested at the boundary and announced to the source, ctHO's setting) within 0.5 s;
 * every platoon crosses in the same window, so every backhaul link carries a batch of KV
 * caches at once. Cross traffic (constant-rate UDP) loads every backhaul link, both
 * ways, to a share of its rate. Per load and scheme it prints the UE-side handover delay (mean,
 * p95, worst), the backhaul queues' delay and the KV byte account, and writes
 * <outputDir>/backhaul-study.{csv,png} (delay vs load per scheme),
 * <outputDir>/queue-delay.{csv,png} and <outputDir>/ue-delays.csv; per load and scheme
 * handovers-load<L>-<scheme>.csv (EdgeLlmSessionStats) and, with the monitor on (default
 * 10 ms), backhaul-load<L>-<scheme>.csv, -totals.csv, -utilization.png, -queue.png
 * (BackhaulMonitor).
 *
 *   edge-llm-backhaul-study [--loads=0.5] [--aggregationGbps=4.5] [--schemes=ctho,tho,cho]
 *   edge-llm-backhaul-study --loads=0,0.3,0.6,0.9
 *   edge-llm-backhaul-study --schemes=ctho,tho,cho,impactho,ea
 */
#include "../common/program-options.h"
#include "../common/table-cell.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/multi-cell-scenario.h"

#include "ns3/core-module.h"
#include "ns3/edge-llm-backhaul-helper.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("EdgeLlmBackhaulStudy");

namespace
{

/// \return whether the study offers \p scheme: every scheme with a scheduler
bool
InTheStudy(const HandoverScheme& scheme)
{
    return scheme.HasScheduler();
}

/// The study's options as parsed and checked (ParseOptions).
struct StudyOptions
{
    MultiCellConfig cfg;                 //!< The scenario (crossTrafficLoad set per load)
    std::vector<double> loads;           //!< Cross-traffic loads, in the order given
    std::vector<HandoverScheme> schemes; //!< In the order given (HandoverSchemeRegistry)
    std::string outputDir;               //!< Where the files go
};

/// The options read as numbers and strings before they go into the config (ParseOptions).
struct StudyRawOptions
{
    std::string loads = "0.5";                                 //!< --loads, as given
    std::string schemes = "ctho,tho,cho";                      //!< --schemes, as given
    std::string outputDir = "results/edge-llm-backhaul-study"; //!< --outputDir
    double backhaulDelayUs = 0;                                //!< --backhaulDelayUs, us
    uint32_t backhaulMtu = 0;                                  //!< --backhaulMtu, bytes
    double batchPeriodMs = 0;                                  //!< --batchPeriodMs, ms
    double platoonSpreadMs = 0;                                //!< --platoonSpreadMs, ms
    double promptTimeMs = 0;                                   //!< --promptTimeMs, ms
    double handoverLeadMs = 0;                                 //!< --handoverLeadMs, ms
    double monitorIntervalMs = 10;                             //!< --monitorIntervalMs, ms
    TraceOptions trace; //!< --mobilityTrace, --mobilityActivity, --traceMinDwellMs
};

/**
 * \brief ParseOptions' step: the options of the run list, the backhaul and the radio
 *        (--loads to --amcModel, in --help's order).
 * \param options where they are added
 * \param cfg the scenario, whose fields the options set
 * \param raw the options kept as given
 */
void
AddNetworkOptions(ProgramOptions& options, MultiCellConfig& cfg, StudyRawOptions& raw)
{
    options.AddValue("loads",
                     "Cross-traffic loads, comma-separated shares of the backhaul rate in [0, "
                     "0.9], e.g. 0,0.3,0.6,0.9",
                     raw.loads);
    options.AddValue("schemes",
                     "Comma-separated: " + HandoverSchemeRegistry::Describe(InTheStudy),
                     raw.schemes);
    options.AddRangedValue(
        "aggregationGbps",
        "Backhaul rate, Gbit/s: each site's link to the aggregation router (star; "
        "mesh, ring: every link)",
        cfg.backhaulGbps,
        edgellm::BackhaulGbpsRange());
    options.AddValue("backhaul",
                     "Backhaul topology: star, mesh, ring, file (--backhaulFile), or x2 (the "
                     "RAN's own X2 cables: no queue disc, --loads=0 only)",
                     cfg.backhaul);
    options.AddValue("backhaulFile",
                     "With --backhaul=file: the topology file (ns-3's topology-read; its first "
                     "numSites nodes are the sites, the others routers), e.g. the module's "
                     "examples/backhaul-study/metro-7-sites.inet",
                     cfg.backhaulFile);
    options.AddValue("backhaulFileFormat",
                     "With --backhaul=file: Inet, Orbis or Rocketfuel",
                     cfg.backhaulFileFormat);
    options.AddValue("queueDisc",
                     "QueueDisc TypeId of the backhaul's KV band (the links' root with "
                     "--ns3::EdgeLlmRan::X2SignallingPriority=false), e.g. "
                     "ns3::FqCoDelQueueDisc (default: FIFO)",
                     cfg.queueDisc,
                     [](const std::string& v) {
                         // Every other value is checked with the config, after the
                         // attributes (X2SignallingPriority) are read.
                         return v.empty()
                                    ? "must name a queue disc (leave the option out for the "
                                      "FIFO default); valid as the KV band: " +
                                          ValidTypeIds("ns3::QueueDisc",
                                                       EdgeLlmBackhaul::QueueDiscRefusal(true)) +
                                          "; also ns3::TbfQueueDisc as the root, with "
                                          "--ns3::EdgeLlmRan::X2SignallingPriority=false"
                                    : std::string();
                     });
    options.AddValue("backhaulDelayUs", "Backhaul link delay, us", raw.backhaulDelayUs);
    options.AddRangedValue("backhaulMtu",
                           "Backhaul link MTU, bytes",
                           raw.backhaulMtu,
                           edgellm::BackhaulMtuRange());
    options.AddValue("ran",
                     "Radio access: lte (eNBs, X2) or nr (5G-LENA gNBs, Xn; a build with ns-3's "
                     "nr module)",
                     cfg.ran);
    options.AddValue("handover",
                     "Who decides the handovers: script (requested at the boundary and "
                     "announced to the source, ctHO's setting), A3-RSRP or A2-A4-RSRQ (the "
                     "RRC's algorithm from the UEs' measurements; NR: nr's A3 for A3-RSRP; "
                     "the sources batch them online)",
                     cfg.handover);
    options.AddValue("predictArrivals",
                     "Online handovers: the sources plan with arrivals predicted from each "
                     "UE's position and speed (false: each batch as the handovers come)",
                     cfg.predictArrivals);
    options.AddValue("maxLossDb",
                     "Spectrum cut-off, dB: a PHY hears a transmitter only within this path "
                     "loss (ns3::SpectrumChannel::MaxLossDb): less radio work per PHY with "
                     "many sites; 0: none (every PHY hears every cell), else [50, 300]",
                     cfg.maxLossDb);
    options.AddValue("amcModel",
                     "LTE's CQI model: MiErrorModel (ns-3's default) or PiroEW2010 (cheaper "
                     "per UE)",
                     cfg.amcModel);
}

/**
 * \brief ParseOptions' step: the options of the layout, the UEs, the LLM and the outputs
 *        (--numSites to --outputDir, in --help's order).
 * \param options where they are added
 * \param cfg the scenario, whose fields the options set
 * \param raw the options kept as given
 */
void
AddWorkloadOptions(ProgramOptions& options, MultiCellConfig& cfg, StudyRawOptions& raw)
{
    options.AddRangedValue("numSites",
                           "Sites: 7 or 19 (hex), 2 to 57 (road)",
                           cfg.numSites,
                           MultiCellConfig::NumSitesRange());
    options.AddValue("layout", "hex, road, or file (--siteFile)", cfg.layout);
    options.AddValue("siteFile",
                     "Sites from a CSV file with the header id,x,y,height,txPowerDbm and "
                     "optionally ,azimuth,beamwidth (sectors; with --mobilityTrace) (sets "
                     "--layout=file; the file's rows replace --numSites and --interSiteDistance)",
                     cfg.siteFile);
    raw.trace.Add(options, {"uesPerSite", "speed", "roads", "platoonSpreadMs"});
    options.AddValue("interSiteDistance",
                     "Distance between neighbour sites, m",
                     cfg.interSiteDistance);
    options.AddRangedValue("uesPerSite",
                           "UEs per site",
                           cfg.uesPerSite,
                           MultiCellConfig::UesPerSiteRange());
    options.AddValue("speed", "UE speed, m/s", cfg.speed);
    options.AddValue("roads",
                     "Which neighbour each UE drives to: cycle (every UE of a site to its "
                     "road target; on the 7-site hexagon each target has one source) or "
                     "random (each UE to a neighbour drawn uniformly: several sources per "
                     "target)",
                     cfg.roads);
    options.AddValue("platoonSpreadMs",
                     "Spread of one platoon's handover instants, ms",
                     raw.platoonSpreadMs);
    options.AddValue("promptTimeMs", "When the UEs send their prompts, ms", raw.promptTimeMs);
    options.AddValue("warmupOnGpu",
                     "Each site's GPU prefills its UEs' prompts one after another before the "
                     "handovers (uesPerSite x (T_c + prefill of promptMax)); false: a prompt's "
                     "cache is taken as built on arrival, the handovers start right after the "
                     "prompts (a metro study's shorter run; leave promptTimeMs for the attach)",
                     cfg.prefillPromptsOnGpu);
    options.AddValue("peerRange",
                     "Star, ring, file: only sites at most this many inter-site distances apart "
                     "are peers (X2/Xn, KV connection, routes); 0: every pair (routes and sockets "
                     "grow as sites^2)",
                     cfg.peerRange);
    options.AddValue("handoverLeadMs",
                     "Least time from the prompts to the first handover, ms (0: the warm-up's "
                     "own: the prompts' uplink, the GPU's prefills with warmupOnGpu, 100 ms of "
                     "decoding; without the GPU 20 ms of uplink per UE of a cell)",
                     raw.handoverLeadMs);
    options.AddValue("promptMin", "Shortest prompt, tokens", cfg.promptMin);
    options.AddValue("promptMax", "Longest prompt, tokens", cfg.promptMax);
    options.AddValue("allowBeyondContextWindow",
                     "Accept a promptMax beyond the model's context window (said on the output)",
                     cfg.allowBeyondContextWindow);
    options.AddRangedValue("tokensAfterHandover",
                           "Tokens each session decodes after its handover",
                           cfg.tokensAfterHandover,
                           edgellm::ContextTokensRange());
    options.AddValue("decodeRate", "Decoded tokens/s per session", cfg.decodeRate);
    options.AddValue("servingGpu",
                     "A GPU that serves many users on every BS: a GpuIterationModel preset "
                     "(ctho-a100, impactho-qwen3-8b-a100; continuous batching, decodeRate and "
                     "the prefill model unused); \"\": one session at a time (the papers')",
                     cfg.servingGpu);
    options.AddValue("model", "LLM preset", cfg.model);
    options.AddRangedValue("kvBits",
                           "KV precision q: 16, 8 or 4",
                           cfg.kvBits,
                           LlmModelProfile::KvBitsRange());
    options.AddValue("prefillA", "Prefill slope a, s/token", cfg.prefillA);
    options.AddValue("prefillB", "Prefill constant b, s", cfg.prefillB);
    options.AddValue("prefillC", "Prefill quadratic c, s/token^2", cfg.prefillC);
    options.AddValue("batchPeriodMs", "Batching period T_c, ms", raw.batchPeriodMs);
    options.AddValue("planWithCrossTraffic",
                     "Plan each KV flow at the rate the cross traffic leaves, (1 - load) x "
                     "rate (false: the cross traffic is installed after the BSs are "
                     "connected, so that PlanningCrossTraffic=Installed plans at the link "
                     "rate, blind to the load; Measured still sees it)",
                     cfg.planWithCrossTraffic);
    options.AddValue("monitorIntervalMs",
                     "BackhaulMonitor interval on the sites' links, ms (0: no monitor)",
                     raw.monitorIntervalMs);
    options.AddValue("outputDir", "Where the CSV and PNG files go", raw.outputDir);
}

/**
 * \brief ParseOptions' step: check the times, the backhaul rate and MTU in \p raw against
 *        their ranges and set them in \p cfg.
 * \param raw the options as given
 * \param cfg the scenario, its times and backhaul MTU set
 * \return false (after printing the first option out of range) to exit with status 2
 */
bool
SetTimes(const StudyRawOptions& raw, MultiCellConfig& cfg)
{
    // ns-3's Time is an int64 of ns: check before converting, so 1e300 cannot wrap.
    if (!CheckTimeOptions(raw.backhaulDelayUs, raw.batchPeriodMs, std::cerr))
    {
        return false;
    }
    if (!(raw.platoonSpreadMs >= 0 && raw.platoonSpreadMs <= 6e4))
    {
        std::cerr << "error: --platoonSpreadMs must be in [0, 60000] ms, got "
                  << raw.platoonSpreadMs << std::endl;
        return false;
    }
    try
    {
        edgellm::CheckBackhaulGbps("--aggregationGbps", cfg.backhaulGbps);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return false;
    }
    if (!(raw.promptTimeMs > 0 && raw.promptTimeMs <= 1e4))
    {
        std::cerr << "error: --promptTimeMs must be in (0, 10000] ms, got " << raw.promptTimeMs
                  << std::endl;
        return false;
    }
    cfg.promptTime = NanoSeconds(std::llround(raw.promptTimeMs * 1e6));
    if (!(raw.handoverLeadMs >= 0 && raw.handoverLeadMs <= 6e4))
    {
        std::cerr << "error: --handoverLeadMs must be 0 (the warm-up's own) or in (0, 60000] ms, "
                     "got "
                  << raw.handoverLeadMs << std::endl;
        return false;
    }
    cfg.handoverLead = NanoSeconds(std::llround(raw.handoverLeadMs * 1e6));
    if (!(raw.monitorIntervalMs >= 0 && raw.monitorIntervalMs <= 1e4))
    {
        std::cerr << "error: --monitorIntervalMs must be 0 (no monitor) or in (0, 10000] ms, got "
                  << raw.monitorIntervalMs << std::endl;
        return false;
    }
    cfg.monitorInterval = NanoSeconds(std::llround(raw.monitorIntervalMs * 1e6));
    try
    {
        edgellm::CheckBackhaulMtu("--backhaulMtu", raw.backhaulMtu);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return false;
    }
    cfg.backhaulDelay = NanoSeconds(std::llround(raw.backhaulDelayUs * 1e3));
    cfg.batchPeriod = NanoSeconds(std::llround(raw.batchPeriodMs * 1e6));
    cfg.platoonSpread = NanoSeconds(std::llround(raw.platoonSpreadMs * 1e6));
    cfg.backhaulMtu = static_cast<uint16_t>(raw.backhaulMtu);
    return true;
}

/**
 * \brief ParseOptions' step: the site file and the mobility trace set the layout and the
 *        mobility, and take the place of the options they replace, which are then refused
 *        (they would mean nothing): --numSites and --interSiteDistance with --siteFile;
 *        --uesPerSite, --speed, --roads and --platoonSpreadMs with --mobilityTrace.
 * \param argc the command line's argument count
 * \param argv the command line
 * \param raw the options as given
 * \param cfg the scenario, its layout, mobility and traceMinDwell set
 * \return false (after printing the option refused and why) to exit with status 2
 */
bool
SetFileInputs(int argc, char* argv[], const StudyRawOptions& raw, MultiCellConfig& cfg)
{
    for (const char* option : {"numSites", "interSiteDistance"})
    {
        if (!cfg.siteFile.empty() && OptionGiven(argc, argv, option))
        {
            std::cerr << "error: --" << option
                      << " means nothing with --siteFile, which replaces it; leave it out"
                      << std::endl;
            return false;
        }
    }
    if (!raw.trace.Check(argc, argv, std::cerr))
    {
        return false;
    }
    if (!cfg.siteFile.empty() && !OptionGiven(argc, argv, "layout"))
    {
        cfg.layout = "file";
    }
    cfg.mobilityTrace = raw.trace.trace;
    cfg.mobilityActivity = raw.trace.activity;
    cfg.traceMinDwell = raw.trace.MinDwell();
    if (!cfg.mobilityTrace.empty())
    {
        cfg.mobility = "trace";
    }
    return true;
}

/**
 * \brief A run's map with a mobility trace: the sites, every vehicle's path (sampled each
 *        0.5 s while it is in the trace) and each handover where it happened, coloured by
 *        its UE-side delay (the target's restore delay where the UE measured none).
 * \param stem the files' path without extension
 * \param files the scenario that read the site file and the trace
 * \param r the run's result (its tracePoints)
 * \param title the map's title
 * \return false (after printing why) if a file cannot be written
 */
bool
WriteTraceMap(const std::string& stem,
              const MultiCellScenario& files,
              const MultiCellResult& r,
              const std::string& title)
{
    const MobilityTrace& trace = *files.GetMobilityTrace();
    std::vector<MapSite> sites;
    const std::vector<SiteRecord>& records = files.GetSiteRecords();
    const MultiCellConfig& cfg = files.GetConfig();
    const std::vector<Vector> positions =
        records.empty()
            ? MultiCellScenario::SitePositions(cfg.layout, cfg.numSites, cfg.interSiteDistance)
            : std::vector<Vector>();
    for (std::size_t i = 0; i < std::max(records.size(), positions.size()); ++i)
    {
        sites.push_back(records.empty() ? MapSite{std::to_string(i), positions[i].x, positions[i].y}
                                        : MapSite{records[i].id, records[i].x, records[i].y});
    }
    std::vector<std::vector<std::pair<double, double>>> paths(trace.GetN());
    for (uint32_t v = 0; v < trace.GetN(); ++v)
    {
        const MobilityTrace::Vehicle& veh = trace.Get(v);
        for (double t = veh.enter;; t = std::min(t + 0.5, veh.leave))
        {
            const Vector p = trace.GetPosition(v, t);
            paths[v].emplace_back(p.x, p.y);
            if (t >= veh.leave)
            {
                break;
            }
        }
    }
    std::vector<MapPoint> points;
    for (const TraceHandoverPoint& h : r.tracePoints)
    {
        const double delay = std::isnan(h.measuredDelay) ? h.restoredDelay : h.measuredDelay;
        if (!std::isnan(delay))
        {
            points.push_back({h.x, h.y, delay, "vehicle " + std::to_string(h.vehicle)});
        }
    }
    return WriteMap(stem, title, "handover delay at the UE (s)", sites, paths, points);
}

/**
 * \brief ParseOptions' step: --loads, each a whole finite number in [0, 0.9], none twice.
 * \param loads the option as given
 * \param loadList the loads, in the order given
 * \return false (after printing why) to exit with status 2
 */
bool
ParseLoads(const std::string& loads, std::vector<double>& loadList)
{
    std::istringstream list(loads);
    std::string item;
    while (std::getline(list, item, ','))
    {
        std::istringstream in(item);
        double v = 0;
        std::string rest;
        if (item.empty() || !(in >> v) || (in >> rest) || !std::isfinite(v) || v < 0 ||
            v > MultiCellConfig::MAX_CROSS_LOAD)
        {
            std::cerr << "error: --loads: '" << item
                      << "' must be a number in [0, 0.9] (a share of the backhaul rate)"
                      << std::endl;
            return false;
        }
        for (double seen : loadList)
        {
            if (seen == v)
            {
                std::cerr << "error: --loads: " << item << " is listed twice" << std::endl;
                return false;
            }
        }
        loadList.push_back(v);
    }
    if (loadList.empty() || loads.back() == ',')
    {
        std::cerr << "error: --loads: give one or more numbers in [0, 0.9], comma-separated"
                  << std::endl;
        return false;
    }
    return true;
}

/**
 * \brief ParseOptions' last check: every load with the rest of the config.
 * \param cfg the validated scenario
 * \param loadList the loads
 * \return false (after printing the load refused and why) to exit with status 2
 */
bool
CheckLoads(const MultiCellConfig& cfg, const std::vector<double>& loadList)
{
    // Every load with the rest of the config (e.g. the x2 backhaul takes none), before
    // anything runs.
    for (double load : loadList)
    {
        MultiCellConfig loaded = cfg;
        loaded.crossTrafficLoad = load;
        try
        {
            loaded.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            std::cerr << "error: --loads=" << load << ": "
                      << OptionMessage(e.what(), ScenarioProgram::STUDY) << std::endl;
            return false;
        }
    }
    return true;
}

/**
 * \brief Parse and check the command line (exit status 2 on bad input, with one line naming
 *        the option and its valid range).
 * \param argc the command line's argument count
 * \param argv the command line
 * \param o the options, filled
 * \return 0 to run, 2 (after printing the error) to exit with it
 */
int
ParseOptions(int argc, char* argv[], StudyOptions& o)
{
    MultiCellConfig& cfg = o.cfg;
    cfg.layout = "hex";
    cfg.numSites = 7;
    cfg.uesPerSite = 15;
    cfg.backhaul = "star";
    StudyRawOptions raw;
    raw.backhaulDelayUs = cfg.backhaulDelay.GetMicroSeconds();
    raw.backhaulMtu = cfg.backhaulMtu;
    raw.batchPeriodMs = cfg.batchPeriod.GetMilliSeconds();
    raw.platoonSpreadMs = cfg.platoonSpread.GetMilliSeconds();
    raw.promptTimeMs = cfg.promptTime.GetMilliSeconds();

    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("Backhaul study: handover delay of edge-LLM sessions vs cross-traffic load on "
              "the backhaul, per scheme (7 hexagonal LTE sites, 15 UEs each by default).");
    AddNetworkOptions(options, cfg, raw);
    AddWorkloadOptions(options, cfg, raw);
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    std::map<std::string, std::string> attributesSet =
        MultiCellScenario::GetAttributesSet(ProgramKnobOptions(ScenarioProgram::STUDY));
    attributesSet.merge(HandoverSchemeRegistry::AttributesSet(InTheStudy));
    if (!CheckAttributeArguments(argc, argv, attributesSet, std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    if (!SetTimes(raw, cfg) || !SetFileInputs(argc, argv, raw, cfg))
    {
        return 2;
    }
    std::vector<double> loadList;
    if (!ParseLoads(raw.loads, loadList))
    {
        return 2;
    }
    std::vector<HandoverScheme> runs;
    try
    {
        runs = HandoverSchemeRegistry::ParseList(raw.schemes, InTheStudy);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: --schemes: " << e.what() << std::endl;
        return 2;
    }
    if (!CheckPacketPreTransfer(runs, cfg.handover == "script", std::cerr))
    {
        return 2;
    }
    try
    {
        cfg.Validate();
        EdgeLlmHelper::CheckNodeDefaults(cfg.model, cfg.kvBits);
        CheckOutputDirectory("--outputDir", raw.outputDir);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << OptionMessage(e.what(), ScenarioProgram::STUDY) << std::endl;
        return 2;
    }
    if (!CheckLoads(cfg, loadList))
    {
        return 2;
    }
    // Now that the backhaul, the monitor and the schemes are known: an attribute of a type
    // of this module that none of them builds.
    TypesUnused unused = MultiCellScenario::GetTypesUnused(cfg);
    unused.merge(HandoverSchemeRegistry::TypesUnused(runs));
    if (!CheckAttributeArguments(argc, argv, attributesSet, std::cerr, unused))
    {
        return 2;
    }
    const std::string note =
        LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BeyondContextNote(cfg.promptMax);
    if (!note.empty())
    {
        std::cout << note << std::endl;
    }

    o.loads = loadList;
    o.schemes = runs;
    o.outputDir = raw.outputDir;
    return 0;
}

/// The study's tables: the console rows and the CSVs and figures' points, one run at a time.
class StudyTables
{
  public:
    /**
     * \brief The CSVs' headers.
     * \param cfg the scenario (every row's last columns say which it was)
     * \param tradeoff also write backhaul-tradeoff.{csv,png} (a pre-transfer scheme runs)
     */
    StudyTables(const MultiCellConfig& cfg, bool tradeoff)
        : m_tradeoff(tradeoff)
    {
        std::ostringstream scenario;
        scenario << "," << cfg.ran << "," << cfg.layout << "," << cfg.numSites << ","
                 << cfg.backhaul << "," << cfg.GetKvQueueDisc() << "," << cfg.handover << ","
                 << cfg.roads;
        m_scenario = scenario.str();
        m_csv << "load,scheme,ues,restored,mean_delay_s,p95_delay_s,worst_delay_s,"
                 "restored_worst_s,queue_delay_mean_s,queue_delay_p95_s,queue_delay_max_s,"
                 "kv_bytes_sent,kv_bytes_received,kv_bytes_dropped,packets_dropped,complete,"
                 "received_share_mean,accuracy_mean,starved,plan_error_median_s,"
                 "plan_error_p95_s,plan_error_worst_s,plan_latest_s,plan_outside,ran,layout,"
                 "sites,backhaul,kv_queue_disc,handover,roads\n";
        m_tradeoffCsv << "load,scheme,worst_delay_s,mean_delay_s,kv_bytes_sent,pre_sent_bytes,"
                         "pre_used_bytes,pre_wasted_bytes,pre_held_bytes,pre_in_flight_bytes,"
                         "pre_evictions"
                      << ",ran,layout,sites,backhaul,kv_queue_disc,handover,roads\n";
        m_queueCsv << "load,scheme,queue_delay_mean_s,queue_delay_p95_s,queue_delay_max_s,ran,"
                      "layout,sites,backhaul,kv_queue_disc,handover,roads\n";
        m_ueCsv << "load,scheme,imsi,home_site,source_cell,target_cell,handover_s,prompt_tokens,"
                   "context_tokens,prefill_tokens,transfer_tokens,predicted_delay_s,restored_s,"
                   "stall_s,measured_delay_s,tokens_missing,kv_bytes_expected,kv_bytes_received,"
                   "lost,received_fraction,"
                   "accuracy,starved"
                << (tradeoff ? ",pre_sent_tokens,pre_wasted_bytes" : "")
                << ",ran,layout,sites,backhaul,kv_queue_disc,handover,roads\n";
    }

    /**
     * \brief Add one run: print its console row (and a note if incomplete), append its
     *        CSV rows and plot points.
     * \param load the cross-traffic load
     * \param name the scheme
     * \param r the run's result
     * \param cpuSeconds the run's CPU time, s
     */
    void Add(double load, const std::string& name, const MultiCellResult& r, double cpuSeconds);

    /**
     * \brief Write backhaul-study.{csv,png}, queue-delay.{csv,png} and ue-delays.csv, each
     *        whole or not at all.
     * \param cfg the scenario (the title)
     * \param ues the UEs, for the title ("14 UEs", "12 vehicles from FILE")
     * \param outputDir where they go
     * \return false (after printing why) if a file could not be written
     */
    bool Write(const MultiCellConfig& cfg,
               const std::string& ues,
               const std::string& outputDir) const;

    /// \return whether any run measured the backhaul queues (queue-delay.png is drawn)
    bool HasQueueDelay() const
    {
        return !m_queuePoints.empty();
    }

    /// \return every run complete
    bool IsComplete() const
    {
        return m_complete;
    }

  private:
    /**
     * \brief Add's step: print the run's console row.
     * \param load the cross-traffic load
     * \param name the scheme
     * \param r the run's result
     * \param cpuSeconds the run's CPU time, s
     * \param droppedCell the bytes dropped ("n/a" when the backhaul has no link counters)
     */
    static void PrintRow(double load,
                         const std::string& name,
                         const MultiCellResult& r,
                         double cpuSeconds,
                         const std::string& droppedCell);

    /**
     * \brief Add's step: the run's row in backhaul-study.csv and queue-delay.csv.
     * \param load the cross-traffic load
     * \param name the scheme
     * \param r the run's result
     * \param droppedBytes the bytes dropped ("" when unknown)
     * \param droppedPackets the packets dropped ("" when unknown)
     */
    void AddCsvRows(double load,
                    const std::string& name,
                    const MultiCellResult& r,
                    const std::string& droppedBytes,
                    const std::string& droppedPackets);

    /**
     * \brief Add's step: one ue-delays.csv row per UE of the run.
     * \param load the cross-traffic load
     * \param name the scheme
     * \param r the run's result
     */
    void AddUeRows(double load, const std::string& name, const MultiCellResult& r);

    /**
     * \brief Add's step: the run's plot points (delays, queue delay, trade-off) and its
     *        backhaul-tradeoff.csv row.
     * \param load the cross-traffic load
     * \param name the scheme
     * \param r the run's result
     */
    void AddPoints(double load, const std::string& name, const MultiCellResult& r);

    /**
     * \brief Add's last step: the console notes under the run's row (pre-transfer,
     *        prediction error, accuracy, and why the run is incomplete).
     * \param name the scheme
     * \param r the run's result
     */
    static void PrintNotes(const std::string& name, const MultiCellResult& r);

    std::string m_scenario;                    //!< Every row's last columns
    std::ostringstream m_csv;                  //!< backhaul-study.csv
    std::ostringstream m_queueCsv;             //!< queue-delay.csv
    std::ostringstream m_ueCsv;                //!< ue-delays.csv
    std::vector<FigurePoint> m_delayPoints;    //!< backhaul-study.png
    std::vector<FigurePoint> m_queuePoints;    //!< queue-delay.png
    bool m_tradeoff;                           //!< Write backhaul-tradeoff.{csv,png}
    std::ostringstream m_tradeoffCsv;          //!< backhaul-tradeoff.csv
    std::vector<FigurePoint> m_tradeoffPoints; //!< backhaul-tradeoff.png
    bool m_complete{true};                     //!< Every run complete
};

void
StudyTables::Add(double load, const std::string& name, const MultiCellResult& r, double cpuSeconds)
{
    uint64_t dropped = 0;
    uint64_t droppedPackets = 0;
    for (const auto& link : r.links)
    {
        dropped += link.droppedBytes;
        droppedPackets += link.droppedPackets;
    }
    m_complete = m_complete && r.complete;
    // Without per-link counters (the x2 backhaul: the RAN's own cables) drops are unknown,
    // not 0.
    const bool counted = !r.links.empty();
    std::ostringstream droppedText;
    if (counted)
    {
        droppedText << dropped;
    }
    PrintRow(load, name, r, cpuSeconds, counted ? droppedText.str() : "n/a");
    AddCsvRows(load,
               name,
               r,
               droppedText.str(),
               counted ? std::to_string(droppedPackets) : std::string());
    AddUeRows(load, name, r);
    AddPoints(load, name, r);
    PrintNotes(name, r);
}

void
StudyTables::PrintRow(double load,
                      const std::string& name,
                      const MultiCellResult& r,
                      double cpuSeconds,
                      const std::string& droppedCell)
{
    std::cout << "  " << std::fixed << std::setprecision(2) << std::setw(4) << load << "  "
              << std::setw(6) << name << "  " << std::setw(3) << r.ues.size() << "  "
              << std::setw(8) << r.restoredSessions << "  " << TableCell(r.measured.mean, 7) << "  "
              << TableCell(r.measured.p95, 7) << "  " << TableCell(r.measured.worst, 7) << "  "
              << TableCell(r.queueDelay.mean, 12) << "  " << TableCell(r.queueDelay.p95, 11) << "  "
              << std::setw(12) << r.kvBytesSent << "  " << std::setw(15) << r.kvBytesReceived
              << "  " << std::setw(14) << droppedCell << "  " << std::setprecision(2)
              << std::setw(5) << r.simulatedSeconds << "  " << std::setw(5) << cpuSeconds
              << (r.complete ? "" : "  [INCOMPLETE]") << std::endl; // each row as it comes
    std::cout.unsetf(std::ios::fixed);
}

void
StudyTables::AddCsvRows(double load,
                        const std::string& name,
                        const MultiCellResult& r,
                        const std::string& droppedBytes,
                        const std::string& droppedPackets)
{
    m_csv << load << "," << name << "," << r.ues.size() << "," << r.restoredSessions << ","
          << EdgeLlmCsvField(r.measured.mean) << "," << EdgeLlmCsvField(r.measured.p95) << ","
          << EdgeLlmCsvField(r.measured.worst) << "," << EdgeLlmCsvField(r.restored.worst) << ","
          << EdgeLlmCsvField(r.queueDelay.mean) << "," << EdgeLlmCsvField(r.queueDelay.p95) << ","
          << EdgeLlmCsvField(r.queueDelay.worst) << "," << r.kvBytesSent << "," << r.kvBytesReceived
          << "," << droppedBytes << "," << droppedPackets << "," << (r.complete ? 1 : 0) << ","
          << EdgeLlmCsvField(r.meanReceivedShare) << "," << EdgeLlmCsvField(r.meanAccuracy) << ","
          << (r.accuracyUes > 0 ? std::to_string(r.starved) : std::string()) << ","
          << EdgeLlmCsvField(r.predictionError.absolute.median) << ","
          << EdgeLlmCsvField(r.predictionError.absolute.p95) << ","
          << EdgeLlmCsvField(r.predictionError.absolute.worst) << ","
          << EdgeLlmCsvField(r.predictionError.worstLate) << ","
          << (r.predictionError.absolute.count > 0 ? std::to_string(r.predictionError.outside)
                                                   : std::string())
          << m_scenario << "\n";
    m_queueCsv << load << "," << name << "," << EdgeLlmCsvField(r.queueDelay.mean) << ","
               << EdgeLlmCsvField(r.queueDelay.p95) << "," << EdgeLlmCsvField(r.queueDelay.worst)
               << m_scenario << "\n";
}

void
StudyTables::AddUeRows(double load, const std::string& name, const MultiCellResult& r)
{
    for (const auto& ue : r.ues)
    {
        m_ueCsv << load << "," << name << "," << ue.ueId << "," << ue.homeSite << ","
                << ue.sourceCellId << "," << ue.targetCellId << ","
                << EdgeLlmCsvField(ue.handoverTime) << "," << ue.promptTokens << ","
                << ue.contextTokens << "," << ue.prefillTokens << "," << ue.transferTokens << ","
                << EdgeLlmCsvField(ue.predictedDelay) << "," << EdgeLlmCsvField(ue.restoredDelay)
                << "," << EdgeLlmCsvField(ue.stall) << "," << EdgeLlmCsvField(ue.measuredDelay)
                << "," << ue.tokensMissing << "," << ue.kvBytesExpected << "," << ue.kvBytesReceived
                << "," << (ue.lost ? 1 : 0) << "," << EdgeLlmCsvField(ue.receivedFraction) << ","
                << EdgeLlmCsvField(ue.accuracy) << ","
                << (std::isnan(ue.receivedFraction) ? ""
                    : ue.starved                    ? "1"
                                                    : "0");
        if (m_tradeoff)
        {
            m_ueCsv << "," << ue.preSentTokens << "," << ue.preWastedBytes;
        }
        m_ueCsv << m_scenario << "\n";
    }
}

void
StudyTables::AddPoints(double load, const std::string& name, const MultiCellResult& r)
{
    // A run with nothing measured (no UE restored) has no point to plot.
    if (r.measured.count > 0)
    {
        m_delayPoints.push_back({load, name + " worst", r.measured.worst, 0, false});
        m_delayPoints.push_back({load, name + " p95", r.measured.p95, 0, false});
        m_delayPoints.push_back({load, name + " mean", r.measured.mean, 0, false});
    }
    if (r.queueDelay.count > 0)
    {
        m_queuePoints.push_back({load, name, r.queueDelay.mean * 1e3, 0, false});
    }
    // The delay-vs-backhaul-bytes trade-off: every byte the run put on the backhaul (sent
    // ahead, wasted or not, and at the handovers) against the worst UE-side delay.
    const auto& pre = r.preTransfer;
    m_tradeoffCsv << load << "," << name << "," << EdgeLlmCsvField(r.measured.worst) << ","
                  << EdgeLlmCsvField(r.measured.mean) << "," << r.kvBytesSent << ","
                  << pre.sentBytes << "," << pre.usedBytes << "," << pre.wastedBytes << ","
                  << pre.heldBytes << "," << pre.inFlightBytes << "," << pre.evictions << m_scenario
                  << "\n";
    if (r.measured.count > 0)
    {
        std::ostringstream series;
        series << name << " (load " << load << ")";
        m_tradeoffPoints.push_back(
            {static_cast<double>(r.kvBytesSent) / 1e9, series.str(), r.measured.worst, 0, true});
    }
}

void
StudyTables::PrintNotes(const std::string& name, const MultiCellResult& r)
{
    const auto& pre = r.preTransfer;
    if (pre.sentBytes > 0 || pre.inFlightBytes > 0 || pre.evictions > 0)
    {
        std::cout << "        " << name << " pre-transfer: " << pre.Describe() << "\n";
    }
    if (r.predictionError.absolute.count > 0)
    {
        std::cout << "        " << name << " " << r.predictionError.Describe()
                  << (r.replannedTransfers > 0
                          ? "; " + std::to_string(r.replannedTransfers) +
                                " transfers replanned (re-prefilled behind their plan)"
                          : std::string())
                  << "\n";
    }
    if (const std::string trace = r.DescribeTraceHandovers(); !trace.empty())
    {
        std::cout << "        " << name << " " << trace << "\n";
    }
    if (r.accuracyUes > 0)
    {
        // ImpactHO's family: what the window left of each cache, and its accuracy.
        std::cout << "        " << name << " accuracy: mean share received " << std::fixed
                  << std::setprecision(1) << 100 * r.meanReceivedShare << " %, mean accuracy "
                  << std::setprecision(4) << r.meanAccuracy << ", starved " << r.starved << " of "
                  << r.accuracyUes << " UEs\n";
        std::cout.unsetf(std::ios::fixed);
    }
    if (!r.complete)
    {
        std::cout << "        [INCOMPLETE: " << r.handovers << " handovers started, "
                  << r.restoredSessions << " sessions restored, " << r.lostSessions << " lost, "
                  << r.rrcFailures << " RRC handover failures"
                  << (r.handoversNotStarted == 0
                          ? std::string()
                          : ", " + std::to_string(r.handoversNotStarted) +
                                " scripted handovers the source RRC never started (the target "
                                "refused the preparation, or an X2/Xn answer was lost)")
                  << (r.noSession == 0
                          ? std::string()
                          : ", " + std::to_string(r.noSession) +
                                " UEs handed over before their prompt opened a session (a "
                                "longer --handoverLeadMs gives the prompts their uplink)")
                  << "]\n";
    }
}

bool
StudyTables::Write(const MultiCellConfig& cfg,
                   const std::string& ues,
                   const std::string& outputDir) const
{
    std::ostringstream title;
    // Three short lines: a long one is cut at both ends when the key sits outside the plot.
    title << "edge-llm-backhaul-study: UE-side handover delay vs cross-traffic load\\n"
          << cfg.Describe() << "\\n"
          << ues << ", " << cfg.model << " q = " << cfg.kvBits << ", seed "
          << RngSeedManager::GetSeed() << " run " << RngSeedManager::GetRun();
    if (!WriteFigure(outputDir + "/backhaul-study",
                     m_csv.str(),
                     title.str(),
                     "Cross-traffic load (share of the backhaul rate)",
                     "Handover delay at the UE (s)",
                     m_delayPoints,
                     {"set xrange [-0.05:0.95]", "set yrange [0:*]", "set key outside"}) ||
        // No queue measured (the x2 backhaul has no study queues): the CSV, no empty plot.
        !(m_queuePoints.empty()
              ? WriteFileAtomically(outputDir + "/queue-delay.csv", m_queueCsv.str())
              : WriteFigure(outputDir + "/queue-delay",
                            m_queueCsv.str(),
                            "edge-llm-backhaul-study: mean sojourn time in the backhaul "
                            "queues\\n" +
                                cfg.Describe(),
                            "Cross-traffic load (share of the backhaul rate)",
                            "Mean backhaul queue delay (ms)",
                            m_queuePoints,
                            {"set xrange [-0.05:0.95]", "set yrange [0:*]"})) ||
        !WriteFileAtomically(outputDir + "/ue-delays.csv", m_ueCsv.str()))
    {
        return false;
    }
    return !m_tradeoff ||
           WriteFigure(outputDir + "/backhaul-tradeoff",
                       m_tradeoffCsv.str(),
                       "Worst UE-side delay vs KV bytes on the backhaul\\n" + cfg.Describe(),
                       "KV bytes sent over the backhaul per run (GB)",
                       "Worst handover delay at the UE (s)",
                       m_tradeoffPoints,
                       {"set logscale y", "set key outside"});
}

} // namespace

/**
 * \brief The study's first line: the RAT, the sites (the file's, with one), the UEs (the
 *        trace's vehicles, with one), the backhaul, the LLM, the handovers, the seed.
 * \param cfg the scenario as given
 * \param files the scenario that read the site file and the trace (GetConfig: what they set)
 * \return the UEs for the figures' titles ("14 UEs", "12 vehicles")
 */
std::string
PrintBanner(const MultiCellConfig& cfg, const MultiCellScenario& files)
{
    const MultiCellConfig& derived = files.GetConfig();
    std::ostringstream sites;
    const std::vector<SiteRecord>& records = files.GetSiteRecords();
    if (SiteRecord::AreSectors(records))
    {
        sites << derived.numSites << " cells (sectors) at " << SiteRecord::CountPositions(records)
              << " ";
    }
    else
    {
        sites << derived.numSites << " ";
    }
    sites << (cfg.layout == "file" ? "sites from " + cfg.siteFile : cfg.layout + " sites") << " "
          << derived.interSiteDistance << " m apart" << (cfg.layout == "file" ? " at most" : "");
    std::ostringstream ues;   // the banner's
    std::ostringstream count; // the figure title's
    if (files.GetMobilityTrace())
    {
        ues << files.GetMobilityTrace()->GetN() << " vehicles from " << cfg.mobilityTrace;
        count << files.GetMobilityTrace()->GetN() << " vehicles";
    }
    else
    {
        ues << cfg.uesPerSite << (cfg.uesPerSite == 1 ? " UE" : " UEs") << " per site ("
            << cfg.numSites * cfg.uesPerSite << " UEs)";
        count << cfg.numSites * cfg.uesPerSite << " UEs";
    }
    std::cout << "edge-llm-backhaul-study: " << (cfg.ran == "nr" ? "NR, " : "LTE, ") << sites.str()
              << ", " << ues.str() << ", " << cfg.backhaul << " backhaul " << cfg.backhaulGbps
              << " Gbit/s per link (MTU " << cfg.backhaulMtu << "), " << cfg.model
              << " q = " << cfg.kvBits << ", prompts U[" << cfg.promptMin << ", " << cfg.promptMax
              << "] tokens"
              << (cfg.prefillPromptsOnGpu ? "" : " cached on arrival (no GPU warm-up)")
              << ", handovers " << cfg.handover
              << (files.GetMobilityTrace() ? std::string() : ", roads " + cfg.roads) << ", seed "
              << RngSeedManager::GetSeed() << " run " << RngSeedManager::GetRun() << std::endl;
    return count.str();
}

int
main(int argc, char* argv[])
{
    const auto wallStart = std::chrono::steady_clock::now();
    StudyOptions o;
    if (const int status = ParseOptions(argc, argv, o); status != 0)
    {
        return status;
    }
    MultiCellConfig& cfg = o.cfg;
    const std::string& outputDir = o.outputDir;
    // What the site file and the trace make of the config (numSites, distance, UEs).
    const MultiCellScenario files(cfg);
    const MultiCellConfig& derived = files.GetConfig();
    const std::string count = PrintBanner(cfg, files);
    for (const HandoverScheme& scheme : o.schemes)
    {
        if (scheme.targetCoordinated && cfg.handover != "script")
        {
            std::cerr << "note: " << scheme.name
                      << " coordinates announced handovers; with --handover=" << cfg.handover
                      << " nothing is announced and each source plans its "
                      << "batches alone, as ctho" << std::endl;
        }
    }

    const bool preTransfer = std::any_of(o.schemes.begin(),
                                         o.schemes.end(),
                                         [](const HandoverScheme& s) { return s.wrapsInner; });
    StudyTables tables(derived, preTransfer);
    std::cout << "\n  load  scheme  UEs  restored  mean_s   p95_s    worst_s  queue_mean_s  "
                 "queue_p95_s  KV sent (B)   KV received (B)  KV dropped (B)  sim_s  cpu_s\n";
    for (double load : o.loads)
    {
        cfg.crossTrafficLoad = load;
        for (const HandoverScheme& scheme : o.schemes)
        {
            const std::string& name = scheme.name;
            MultiCellResult r;
            std::ostringstream tagText;
            tagText << "load" << load << "-" << name;
            const std::string tag = tagText.str();
            cfg.schedulerAttributes = scheme.attributes; // set on each BS's scheduler
            const std::clock_t cpuStart = std::clock();
            try
            {
                r = MultiCellScenario::Run(cfg,
                                           scheme.typeId,
                                           cfg.monitorInterval.IsStrictlyPositive()
                                               ? outputDir + "/backhaul-" + tag
                                               : std::string());
            }
            catch (const std::invalid_argument& e)
            {
                std::cerr << "error: " << e.what() << std::endl;
                return 2;
            }
            catch (const std::runtime_error& e)
            {
                std::cerr << "error: " << e.what() << std::endl;
                return 1;
            }
            // Per run: every handover's record (EdgeLlmSessionStats) and the backhaul's
            // series and totals (BackhaulMonitor), each file whole or not at all.
            if (!WriteFileAtomically(outputDir + "/handovers-" + tag + ".csv", r.handoverCsv) ||
                (!r.monitorCsv.empty() &&
                 (!WriteFileAtomically(outputDir + "/backhaul-" + tag + ".csv", r.monitorCsv) ||
                  !WriteFileAtomically(outputDir + "/backhaul-" + tag + "-totals.csv",
                                       r.monitorTotalsCsv))))
            {
                return 1;
            }
            if (files.GetMobilityTrace() &&
                !WriteTraceMap(outputDir + "/map-" + tag,
                               files,
                               r,
                               "edge-llm-backhaul-study: handovers of " + count + ", " + name +
                                   ", load " + std::to_string(load).substr(0, 4)))
            {
                return 1;
            }
            tables.Add(load,
                       name,
                       r,
                       static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC);
        }
    }

    // Every file only after every run, each whole or not at all.
    if (!tables.Write(derived, count, outputDir))
    {
        return 1;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::cout << "\nwrote " << outputDir << "/backhaul-study.{csv,png}, " << outputDir
              << (tables.HasQueueDelay() ? "/queue-delay.{csv,png} and "
                                         : "/queue-delay.csv (no queue measured: no PNG) and ")
              << outputDir << "/ue-delays.csv"
              << (preTransfer ? ", " + outputDir + "/backhaul-tradeoff.{csv,png}" : std::string())
              << "; per run handovers-<run>.csv"
              << (files.GetMobilityTrace() ? ", map-<run>.{csv,png}" : "")
              << (cfg.monitorInterval.IsStrictlyPositive()
                      ? " and backhaul-<run>.csv, -totals.csv, -utilization.png, -queue.png"
                      : "")
              << "\n"
              << "wall time " << std::fixed << std::setprecision(1) << wall << " s" << std::endl;
    return tables.IsComplete() ? 0 : 1;
}
