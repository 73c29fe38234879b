/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Many users on the 7-site hexagon at flow level (doc/edge-llm-design.rst, "Serving many
 * users"): a request trace (a file, e.g. the shipped Azure excerpt, or the seeded
 * generator) on UEs that drive straight across the sites (or an ns-2 mobility trace), a
 * continuous-batching GPU per BS, and each handover policy for the requests a handover
 * catches. Prints per scheme and load the SLO attainment and the per-request stall, and
 * writes per-request CSVs, a summary and figures (SLO attainment against load, the stall's
 * CDF, GPU utilization over time).
 */
#include "../common/program-options.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/mobility-trace.h"
#include "../studies/multi-cell-scenario.h"

#include "ns3/core-module.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/fluid-serving-engine.h"
#include "ns3/handover-scheduler.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-request-trace.h"
#include "ns3/mobility-module.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// RNG streams of the UEs' drives (the generator and the mapping use 0..4).
constexpr int64_t STREAM_DRIVES = 100;
/// The UEs drive this long after the last arrival, s: at flow level (no cost)
constexpr double FLOW_DRIVE_TAIL = 300;
/// ... and at packet level, the same drives cut (the run lasts at least as long as they do)
constexpr double PACKET_DRIVE_TAIL = 2;

/// The program's options.
struct Options
{
    std::string requestTrace;        //!< Request trace file ("": the generator)
    std::string lengthsFrom;         //!< Generator: draw (prompt, output) pairs of this trace file
    double traceStart{0};            //!< Window start, s of trace time
    double traceDuration{60};        //!< Window length, s of trace time
    std::string loads{"1,10"};       //!< Rate scales swept
    std::string mapping{"uniform"};  //!< uniform or per-ue
    uint32_t turns{1};               //!< Turns per conversation
    std::string arrivals{"poisson"}; //!< Generator: poisson or gamma
    double rate{5};                  //!< Generator: requests/s at load 1
    double cv{1};                    //!< Generator: gamma gaps' cv
    uint32_t numUes{70};             //!< UEs
    double speed{15};                //!< UEs' speed, m/s
    double interSiteDistance{500};   //!< d, m
    std::string schemes{"ctho,tho,cho"};                     //!< Handover policies
    std::string gpuPreset{"ctho-a100"};                      //!< GpuIterationModel preset
    std::string idlePolicy{"move-on-next-turn"};             //!< Idle caches at a handover
    double backhaulGbps{4.5};                                //!< R
    double uplinkDelayMs{10};                                //!< Radio uplink of a prompt
    double downlinkDelayMs{10};                              //!< Radio delivery of a token
    double ttftSloMs{2000};                                  //!< SLO on TTFT
    double tpotSloMs{200};                                   //!< SLO on TPOT
    std::string outputDir{"results/edge-llm-serving-study"}; //!< Where files go
    std::string level{"flow"};                               //!< flow or packet
};

/// \return \p text's comma-separated items; throws naming \p field for an empty one
std::vector<std::string>
SplitList(const std::string& field, const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        out.push_back(item);
    }
    if (out.empty() || text.back() == ',' ||
        std::any_of(out.begin(), out.end(), [](const std::string& s) { return s.empty(); }))
    {
        throw std::invalid_argument("--" + field +
                                    " must be a comma-separated list without "
                                    "empty items, got '" +
                                    text + "'");
    }
    return out;
}

/// \return the loads of --loads, each in (0, 1000], none twice
std::vector<double>
ParseLoads(const std::string& text)
{
    std::vector<double> out;
    for (const auto& item : SplitList("loads", text))
    {
        double v = 0;
        if (!EdgeLlmParseDouble(item, v) || !(v > 0 && v <= RequestTraceOptions::MAX_RATE_SCALE))
        {
            throw std::invalid_argument("--loads must list rate scales in (0, 1000], got '" + item +
                                        "'");
        }
        if (std::find(out.begin(), out.end(), v) != out.end())
        {
            throw std::invalid_argument("--loads: " + item + " is listed twice");
        }
        out.push_back(v);
    }
    return out;
}

/// The UEs' cells over time.
struct Mobility
{
    std::vector<uint16_t> initialCell;      //!< Per UE
    std::vector<ServingHandover> handovers; //!< Nearest-site changes
    std::string ns2;                        //!< The drives as an ns-2 trace (the packet level's)
};

/**
 * \brief Each UE drives at --speed from waypoint to waypoint (random waypoint without
 *        pauses), its start and every waypoint drawn uniformly in a disc of radius 1.5 d
 *        around the centre site (ns-3's UniformDiscPositionAllocator, RNG stream
 *        STREAM_DRIVES), until \p horizon (a last leg cut short), as an ns-2 trace read by
 *        MobilityTrace, cut at \p cut (the same drives, shorter: the packet level's); it is
 *        served by its nearest site (equal powers: the strongest), a change lasting less than
 *        150 ms being no handover.
 */
Mobility
DriveUes(const Options& o, double horizon, double cut)
{
    const std::vector<Vector> sites =
        MultiCellScenario::SitePositions("hex", 7, o.interSiteDistance);
    auto disc = CreateObject<UniformDiscPositionAllocator>();
    disc->SetRho(1.5 * o.interSiteDistance);
    disc->AssignStreams(STREAM_DRIVES);
    std::ostringstream ns2;
    ns2 << std::setprecision(12);
    for (uint32_t u = 0; u < o.numUes; ++u)
    {
        Vector p = disc->GetNext();
        ns2 << "$node_(" << u << ") set X_ " << p.x << "\n$node_(" << u << ") set Y_ " << p.y
            << "\n";
        for (double t = 0; t < horizon;)
        {
            Vector next = disc->GetNext();
            const double length = CalculateDistance(p, next);
            const double left = (horizon - t) * o.speed;
            if (length > left) // the last leg, cut at the horizon
            {
                next = Vector(p.x + (next.x - p.x) * left / length,
                              p.y + (next.y - p.y) * left / length,
                              0);
            }
            const double leg = std::min(length, left);
            const double room = (cut - t) * o.speed; // what the trace shows of it
            if (room > 0)
            {
                const double shown = leg > room ? room / leg : 1;
                ns2 << "$ns_ at " << t << " \"$node_(" << u << ") setdest "
                    << p.x + (next.x - p.x) * shown << ' ' << p.y + (next.y - p.y) * shown << ' '
                    << o.speed << "\"\n";
            }
            t += leg / o.speed;
            p = next;
            if (length >= left)
            {
                break;
            }
        }
    }
    std::istringstream in(ns2.str());
    MobilityTrace trace = MobilityTrace::Parse(in, "drives", nullptr, "");
    auto rx = [&sites](uint32_t site, const Vector& at) {
        return -CalculateDistance(Vector(at.x, at.y, 0), Vector(sites[site].x, sites[site].y, 0));
    };
    Mobility m;
    m.ns2 = ns2.str();
    for (uint32_t u = 0; u < o.numUes; ++u)
    {
        uint32_t serving = 0;
        auto changes = trace.StrongestCellChanges(u, rx, sites.size(), 0.1, 0.15, serving);
        m.initialCell.push_back(static_cast<uint16_t>(serving + 1));
        for (const auto& c : changes)
        {
            m.handovers.push_back(ServingHandover{u, c.at, static_cast<uint16_t>(c.to + 1)});
        }
    }
    return m;
}

/// \return the requests at load \p scale
std::vector<LlmRequest>
BuildRequests(const Options& o, double scale)
{
    if (!o.requestTrace.empty())
    {
        RequestTraceOptions t;
        t.start = o.traceStart;
        t.duration = o.traceDuration;
        t.rateScale = scale;
        t.numUes = o.numUes;
        t.mapping =
            o.mapping == "per-ue" ? RequestUeMapping::PER_UE_STREAMS : RequestUeMapping::UNIFORM;
        t.turnsPerConversation = o.turns;
        return LlmRequestTrace::Read(o.requestTrace, t);
    }
    RequestGeneratorConfig g;
    g.arrivals =
        o.arrivals == "gamma" ? RequestGeneratorConfig::GAMMA : RequestGeneratorConfig::POISSON;
    g.rate = o.rate * scale;
    g.cv = o.cv;
    g.duration = o.traceDuration;
    g.numUes = o.numUes;
    g.turnsPerConversation = o.turns;
    if (!o.lengthsFrom.empty())
    {
        g.lengths = RequestGeneratorConfig::EMPIRICAL;
        g.empirical = LlmRequestTrace::ReadLengths(o.lengthsFrom);
    }
    return LlmRequestTrace::Generate(g);
}

/// Nearest-rank percentile \p p (0..100) of \p v; NaN for none.
double
Percentile(std::vector<double> v, double p)
{
    if (v.empty())
    {
        return std::nan("");
    }
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * v.size()));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

/// The mean of \p v; NaN for none.
double
Mean(const std::vector<double>& v)
{
    return v.empty() ? std::nan("") : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

/// Everything the figures and the summary need.
struct Outputs
{
    std::ostringstream summary;           //!< serving-summary.csv
    std::ostringstream requests;          //!< serving-requests.csv
    std::vector<FigurePoint> slo;         //!< SLO attainment against load
    std::vector<FigurePoint> stallCdf;    //!< Stall CDF at the highest load
    std::vector<FigurePoint> utilization; //!< Mean GPU utilization at the highest load
    std::ostringstream sloCsv;            //!< serving-slo.csv
    std::ostringstream stallCsv;          //!< serving-stall-cdf.csv
    std::ostringstream gpuCsv;            //!< serving-gpu.csv
};

/// Adds one run's rows and points.
void
Record(const FluidServingResult& r, double load, bool highest, Outputs& out)
{
    std::vector<double> ttft;
    std::vector<double> tpot;
    std::vector<double> stall;
    std::vector<double> received; // slot policies: the fraction each resumed on
    std::vector<double> accuracy; // ... and its accuracy
    uint32_t served = 0;
    uint32_t handedOver = 0;
    for (const auto& q : r.requests)
    {
        out.requests << r.scheme << ',' << load << ',' << q.ue << ',' << q.conversation << ','
                     << q.turn << ',' << EdgeLlmCsvField(q.arrival) << ','
                     << EdgeLlmCsvField(q.sent) << ',' << q.promptTokens << ',' << q.outputTokens
                     << ',' << q.contextTokens << ',' << q.cachedTokens << ',' << q.prefillTokens
                     << ',' << q.transferTokens << ',' << q.handovers << ',' << q.stalls << ','
                     << EdgeLlmCsvField(q.ttft) << ',' << EdgeLlmCsvField(q.tpot) << ','
                     << EdgeLlmCsvField(q.e2e) << ',' << EdgeLlmCsvField(q.stall) << ','
                     << EdgeLlmCsvField(q.worstStall) << ',' << (q.served ? 1 : 0) << ','
                     << (q.sloMet ? 1 : 0) << ',' << EdgeLlmCsvField(q.received) << ','
                     << EdgeLlmCsvField(q.accuracy) << ',' << q.preSentTokens << '\n';
        if (!std::isnan(q.received))
        {
            received.push_back(q.received);
            accuracy.push_back(q.accuracy);
        }
        served += q.served ? 1 : 0;
        if (q.served)
        {
            ttft.push_back(q.ttft);
            if (q.outputTokens > 1)
            {
                tpot.push_back(q.tpot);
            }
        }
        handedOver += q.handovers > 0 ? 1 : 0;
        if (q.stalls > 0)
        {
            stall.push_back(q.stall);
        }
    }
    double p50 = Percentile(stall, 50);
    double p99 = Percentile(stall, 99);
    out.summary << r.scheme << ',' << load << ',' << r.requests.size() << ',' << served << ','
                << EdgeLlmCsvField(r.sloAttainment) << ',' << EdgeLlmCsvField(Percentile(ttft, 50))
                << ',' << EdgeLlmCsvField(Percentile(ttft, 99)) << ','
                << EdgeLlmCsvField(Percentile(tpot, 50)) << ',' << handedOver << ',' << stall.size()
                << ',' << EdgeLlmCsvField(p50) << ',' << EdgeLlmCsvField(p99) << ',' << r.restores
                << ',' << r.evictions << ',' << r.idleMoves << ',' << r.idleFetches << ','
                << r.idleDrops << ',' << r.overContext << ','
                << EdgeLlmCsvField(r.backhaulBytes / 1e9) << ',' << EdgeLlmCsvField(r.end) << ','
                << EdgeLlmCsvField(Mean(received)) << ',' << EdgeLlmCsvField(Mean(accuracy)) << ','
                << EdgeLlmCsvField(r.preSentBytes / 1e9) << ','
                << EdgeLlmCsvField(r.preWastedBytes / 1e9) << '\n';
    std::cout << "  " << std::left << std::setw(6) << r.scheme << std::right << " load "
              << std::setw(5) << load << ": " << std::setw(6) << r.requests.size()
              << " requests, SLO attainment " << std::fixed << std::setprecision(3)
              << r.sloAttainment << ", stall p50/p99 " << std::setprecision(4);
    if (stall.empty())
    {
        std::cout << "- / -";
    }
    else
    {
        std::cout << p50 << " / " << p99;
    }
    std::cout << " s over " << stall.size() << " stalled requests (" << handedOver
              << " handed over), " << r.evictions << " evictions\n";
    std::cout.unsetf(std::ios::fixed);
    out.slo.push_back(FigurePoint{load, r.scheme, r.sloAttainment, 0, false});
    out.sloCsv << r.scheme << ',' << load << ',' << EdgeLlmCsvField(r.sloAttainment) << '\n';
    if (!highest)
    {
        return;
    }
    std::sort(stall.begin(), stall.end());
    for (std::size_t i = 0; i < stall.size(); ++i)
    {
        const double cdf = (i + 1.0) / stall.size();
        out.stallCdf.push_back(FigurePoint{stall[i], r.scheme, cdf, 0, false});
        out.stallCsv << r.scheme << ',' << EdgeLlmCsvField(stall[i]) << ',' << EdgeLlmCsvField(cdf)
                     << '\n';
    }
    for (std::size_t i = 0; i < r.series.size();)
    {
        double t = r.series[i].time;
        double sum = 0;
        uint64_t running = 0;
        uint64_t waiting = 0;
        uint32_t n = 0;
        for (; i < r.series.size() && r.series[i].time == t; ++i, ++n)
        {
            sum += r.series[i].utilization;
            running += r.series[i].running;
            waiting += r.series[i].waiting;
        }
        out.utilization.push_back(FigurePoint{t, r.scheme, sum / n, 0, false});
        out.gpuCsv << r.scheme << ',' << EdgeLlmCsvField(t) << ',' << EdgeLlmCsvField(sum / n)
                   << ',' << EdgeLlmCsvField(static_cast<double>(running) / n) << ','
                   << EdgeLlmCsvField(static_cast<double>(waiting) / n) << '\n';
    }
}

/// \return the engine's knobs from the options (validated by the engine)
FluidServingConfig
ServingConfig(const Options& o)
{
    FluidServingConfig c;
    c.gpu = GpuIterationModel::FromPreset(o.gpuPreset);
    c.model = c.gpu.llm; // the preset's constants assume its LLM's KV size
    c.backhaulGbps = o.backhaulGbps;
    c.uplinkDelay = o.uplinkDelayMs / 1e3;
    c.downlinkDelay = o.downlinkDelayMs / 1e3;
    c.idlePolicy = IdleCachePolicyFromName(o.idlePolicy);
    c.ttftSlo = o.ttftSloMs / 1e3;
    c.tpotSlo = o.tpotSloMs / 1e3;
    return c;
}

/// edgellm::CheckRange for the option --\p option.
void
Range(const std::string& option,
      double value,
      double lo,
      double hi,
      bool openLo,
      const std::string& unit)
{
    edgellm::CheckRange("--" + option, value, lo, hi, openLo, unit);
}

/// Every option's own range, before anything runs; \p schemes: --schemes' entries.
void
CheckOptions(const Options& o,
             const std::vector<double>& loads,
             std::vector<HandoverScheme>& schemes)
{
    try
    {
        schemes = HandoverSchemeRegistry::ParseList(o.schemes, FluidServingEngine::Models);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("--schemes: ") + e.what());
    }
    const double maxLoad = *std::max_element(loads.begin(), loads.end());
    Range("traceStart", o.traceStart, 0, MobilityTrace::MAX_SECONDS * 1e3, false, " s");
    Range("traceDuration", o.traceDuration, 0, RequestGeneratorConfig::MAX_DURATION, true, " s");
    Range("turns", o.turns, 1, RequestTraceOptions::MAX_TURNS, false, "");
    Range("numUes", o.numUes, 1, RequestTraceOptions::MAX_UES, false, "");
    Range("rate",
          o.rate,
          0,
          RequestGeneratorConfig::MAX_RATE / maxLoad,
          true,
          " requests/s (1e6 at the highest --loads)");
    Range("cv", o.cv, 0.01, 100, false, "");
    Range("speed", o.speed, 0, 100, true, " m/s");
    Range("interSiteDistance", o.interSiteDistance, 10, 10000, false, " m");
    Range("backhaulGbps", o.backhaulGbps, 0, 1e4, true, " Gbit/s");
    Range("uplinkDelayMs", o.uplinkDelayMs, 0, 1e4, false, " ms");
    Range("downlinkDelayMs", o.downlinkDelayMs, 0, 1e4, false, " ms");
    Range("ttftSloMs", o.ttftSloMs, 0, 3.6e6, true, " ms");
    Range("tpotSloMs", o.tpotSloMs, 0, 3.6e6, true, " ms");
    if (o.level != "flow" && o.level != "packet")
    {
        throw std::invalid_argument("--level must be flow or packet, got '" + o.level + "'");
    }
    if (o.level == "packet" && o.numUes > MultiCellConfig::MAX_UES_PER_SITE)
    {
        throw std::invalid_argument("--numUes must be in [1, " +
                                    std::to_string(MultiCellConfig::MAX_UES_PER_SITE) +
                                    "] with --level=packet (the scenario engine's vehicles), got " +
                                    std::to_string(o.numUes));
    }
    if (o.mapping != "uniform" && o.mapping != "per-ue")
    {
        throw std::invalid_argument("--mapping must be uniform or per-ue, got '" + o.mapping + "'");
    }
    if (o.arrivals != "poisson" && o.arrivals != "gamma")
    {
        throw std::invalid_argument("--arrivals must be poisson or gamma, got '" + o.arrivals +
                                    "'");
    }
    try
    {
        IdleCachePolicyFromName(o.idlePolicy);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::invalid_argument(std::string("--") + e.what());
    }
    const auto presets = GpuIterationModel::PresetNames();
    if (std::find(presets.begin(), presets.end(), o.gpuPreset) == presets.end())
    {
        std::string list;
        for (const auto& n : presets)
        {
            list += (list.empty() ? "" : ", ") + n;
        }
        throw std::invalid_argument("--gpuPreset must be one of " + list + ", got '" + o.gpuPreset +
                                    "'");
    }
}

/// The generator's options without a trace, the trace's with one: never both; --cv only
/// with Gamma arrivals, --idlePolicy only with conversations.
void
CheckSources(int argc, char* argv[], const Options& o)
{
    if (OptionGiven(argc, argv, "cv") && o.arrivals != "gamma")
    {
        throw std::invalid_argument("--cv is the Gamma arrivals' knob: it needs --arrivals=gamma");
    }
    if (OptionGiven(argc, argv, "idlePolicy") && o.turns < 2)
    {
        throw std::invalid_argument("--idlePolicy needs --turns >= 2: without conversations no "
                                    "cache is ever idle");
    }
    const std::vector<std::string> traceOnly{"traceStart", "mapping"};
    const std::vector<std::string> generatorOnly{"arrivals", "rate", "cv", "lengthsFrom"};
    const auto& refused = o.requestTrace.empty() ? traceOnly : generatorOnly;
    for (const auto& name : refused)
    {
        if (OptionGiven(argc, argv, name))
        {
            throw std::invalid_argument(
                "--" + name +
                (o.requestTrace.empty()
                     ? " needs --requestTrace (the generator has no such knob)"
                     : " is the generator's: it means nothing with --requestTrace"));
        }
    }
}

/**
 * \brief Parse and check the command line into \p o, \p loads (--loads) and \p schemes
 *        (--schemes' registry entries).
 * \return 0 to run, 2 after printing the error
 */
int
ParseOptions(int argc,
             char* argv[],
             Options& o,
             std::vector<double>& loads,
             std::vector<HandoverScheme>& schemes)
{
    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("Many users on the 7-site hexagon, at flow level or (--level=packet) on ns-3's "
              "LTE: a request trace, a continuous-batching GPU per BS, and each handover "
              "policy; SLO attainment and per-request stall per scheme and load.");
    options.AddValue("requestTrace",
                     "Request trace CSV (Azure 2023 or processed form); \"\": the generator",
                     o.requestTrace);
    options.AddValue("traceStart", "Trace window start, s of trace time, >= 0", o.traceStart);
    options.AddValue("traceDuration",
                     "Trace window length (the generator's duration), s, > 0",
                     o.traceDuration);
    options.AddValue("loads",
                     "Rate scales swept, comma-separated, each in (0, 1000] (the window's "
                     "arrivals come this many times faster)",
                     o.loads);
    options.AddValue("mapping",
                     "Requests to UEs: uniform (each to a UE drawn uniformly) or per-ue (UE u "
                     "replays the u-th consecutive window: the trace must hold numUes x "
                     "traceDuration s after traceStart)",
                     o.mapping);
    options.AddValue("turns",
                     "Turns per conversation, [1, 1000] (a turn is sent once the previous "
                     "one's answer arrived: closed loop)",
                     o.turns);
    options.AddValue("arrivals", "Generator: poisson or gamma", o.arrivals);
    options.AddValue("lengthsFrom",
                     "Generator: draw each request's (prompt, output) tokens from the rows of "
                     "this trace file (e.g. the Azure excerpt); \"\": lognormal lengths",
                     o.lengthsFrom);
    options.AddValue("rate", "Generator: requests/s at load 1, (0, 1e6]", o.rate);
    options.AddValue("cv",
                     "Generator, with --arrivals=gamma: the gaps' coefficient of variation, "
                     "[0.01, 100]",
                     o.cv);
    options.AddValue("numUes", "UEs, [1, 100000]", o.numUes);
    options.AddValue("speed", "UEs' speed, m/s, (0, 100]", o.speed);
    options.AddValue("interSiteDistance", "d, m, [10, 10000]", o.interSiteDistance);
    options.AddValue("schemes",
                     "Handover policies, comma-separated: " +
                         HandoverSchemeRegistry::Names(", ", FluidServingEngine::Models),
                     o.schemes);
    std::string presets;
    for (const auto& name : GpuIterationModel::PresetNames())
    {
        presets += (presets.empty() ? "" : ", ") + name + " (" +
                   GpuIterationModel::FromPreset(name).llm + ")";
    }
    options.AddValue("gpuPreset", "GPU iteration model preset: " + presets, o.gpuPreset);
    std::string policies;
    for (const auto& name : IdleCachePolicyNames())
    {
        policies += (policies.empty() ? "" : ", ") + name;
    }
    options.AddValue("idlePolicy",
                     "An idle conversation's cache at a handover, with --turns > 1: one of " +
                         policies,
                     o.idlePolicy);
    options.AddValue("backhaulGbps", "R, Gbit/s, (0, 1e4]", o.backhaulGbps);
    options.AddValue("uplinkDelayMs", "A prompt's radio uplink, ms, [0, 10000]", o.uplinkDelayMs);
    options.AddValue("downlinkDelayMs",
                     "A token's radio delivery, ms, [0, 10000]",
                     o.downlinkDelayMs);
    options.AddValue("ttftSloMs", "SLO: time to first token, ms, (0, 3.6e6]", o.ttftSloMs);
    options.AddValue("tpotSloMs", "SLO: time per output token, ms, (0, 3.6e6]", o.tpotSloMs);
    options.AddValue("outputDir", "Where the CSV, gnuplot and PNG files go", o.outputDir);
    options.AddValue(
        "level",
        "flow (FluidServingEngine: an hour of trace in seconds) or packet (the same "
        "requests and drives on ns-3's LTE, an X2 link per BS pair at backhaulGbps "
        "and a ServingGpu per BS: MultiCellScenario; the UEs stop moving 2 s after the last "
        "arrival; the radio's own delays replace --uplinkDelayMs and --downlinkDelayMs)",
        o.level);
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);
    try
    {
        loads = ParseLoads(o.loads);
        CheckOptions(o, loads, schemes);
        CheckSources(argc, argv, o);
        ServingConfig(o).Validate();
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    // Flow level: the schemes' schedulers only; packet level: the engine sets the rest.
    TypesUnused unused = FlowLevelTypesUnused(
        o.level == "flow" ? "edge-llm-serving-study runs at flow level: no BS, UE, link "
                            "or GPU of this module is built"
                          : "edge-llm-serving-study sets its BSs' and UEs' attributes "
                            "itself (--gpuPreset, --backhaulGbps)");
    unused.merge(HandoverSchemeRegistry::TypesUnused(schemes));
    if (!CheckAttributeArguments(argc, argv, {}, std::cerr, unused))
    {
        return 2;
    }
    return 0;
}

/// A temporary file holding a text, removed with the object.
class TempFile
{
  public:
    /// \param text the file's contents (throws std::runtime_error if it cannot be written)
    explicit TempFile(const std::string& text)
    {
        static uint32_t count = 0;
        m_path = (std::filesystem::temp_directory_path() /
                  ("edge-llm-serving-" + std::to_string(::getpid()) + "-" +
                   std::to_string(count++) + ".ns2"))
                     .string();
        std::ofstream out(m_path);
        out << text;
        if (!out.good())
        {
            throw std::runtime_error("cannot write the UEs' drives to " + m_path);
        }
    }

    ~TempFile()
    {
        std::remove(m_path.c_str());
    }

    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    /// \return its path
    const std::string& GetPath() const
    {
        return m_path;
    }

  private:
    std::string m_path; //!< Its path
};

/// One load's requests and the UEs' drives.
struct Work
{
    double load{1};                   //!< Its rate scale
    std::vector<LlmRequest> requests; //!< Its requests
    Mobility mobility;                //!< The UEs' cells over time
    double horizon{0};                //!< The drives' end, s
    /// The packet level's: the drives' ns-2 file, written once per load
    std::shared_ptr<const TempFile> drives;
};

/**
 * \brief The packet level's engine for the study: the 7 hexagonal sites, the drives as a
 *        mobility trace (handover script at its strongest-cell changes, 150 ms dwell), no
 *        UE session but the requests, an X2 link per BS pair at --backhaulGbps, a ServingGpu
 *        per BS, no cross traffic.
 * \param o the options
 * \param drives the drives' ns-2 trace file
 * \return the engine's config
 */
MultiCellConfig
PacketConfig(const Options& o, const std::string& drives)
{
    MultiCellConfig c;
    c.layout = "hex";
    c.numSites = 7;
    c.interSiteDistance = o.interSiteDistance;
    c.backhaul = "x2";
    c.backhaulGbps = o.backhaulGbps;
    c.mobility = "trace";
    c.mobilityTrace = drives;
    c.handover = "script";
    c.traceMinDwell = MilliSeconds(150);
    c.ownSessions = false;
    c.servingGpu = o.gpuPreset;
    c.idleCachePolicy = o.idlePolicy;
    if (o.turns > 1)
    {
        // A conversation's later turns go long after their arrivals: the run waits for them
        // as long as the flow level's drives last after the cut (it stops once all are done).
        c.tailTime = Seconds(FLOW_DRIVE_TAIL - PACKET_DRIVE_TAIL);
    }
    c.crossTrafficLoad = 0;
    c.monitorInterval = Seconds(0);
    return c;
}

/**
 * \brief Every load's requests and drives, before any file is written.
 * \return false after printing why (a bad trace, an empty window, arrivals after the
 *         drives can last)
 */
bool
BuildWork(const Options& o, const std::vector<double>& loads, std::vector<Work>& work)
{
    try
    {
        for (double load : loads)
        {
            Work w;
            w.load = load;
            try
            {
                w.requests = BuildRequests(o, load);
            }
            catch (const std::invalid_argument& e)
            {
                throw std::invalid_argument((o.requestTrace.empty()
                                                 ? ""
                                                 : "--requestTrace with --traceStart, "
                                                   "--traceDuration, --mapping, --numUes: ") +
                                            std::string(e.what()));
            }
            if (w.requests.empty())
            {
                throw std::invalid_argument("load " + EdgeLlmCsvField(load) +
                                            ": the window holds no request (--traceStart, "
                                            "--traceDuration, --loads)");
            }
            const double last = w.requests.back().arrival;
            // The drives are an ns-2 trace (MobilityTrace: at most 3600 s): the UEs move until
            // 300 s after the last arrival.
            const double limit = MobilityTrace::MAX_SECONDS - 1;
            if (last > limit)
            {
                throw std::invalid_argument(
                    "load " + EdgeLlmCsvField(load) + ": requests arrive until " +
                    EdgeLlmCsvField(last) + " s, after the UEs' drives can end (" +
                    EdgeLlmCsvField(limit) + " s): shorten --traceDuration or raise --loads");
            }
            // The same drives at both levels, the packet level's cut shorter (its run lasts as
            // long as they do).
            const double drawn = std::min(limit, last + FLOW_DRIVE_TAIL);
            w.horizon = o.level == "flow" ? drawn : std::min(drawn, last + PACKET_DRIVE_TAIL);
            w.mobility = DriveUes(o, drawn, w.horizon);
            if (o.level == "packet")
            {
                // The packet level's engine checks its config before anything is written.
                w.drives = std::make_shared<const TempFile>(w.mobility.ns2);
                PacketConfig(o, w.drives->GetPath()).Validate();
            }
            work.push_back(std::move(w));
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return false;
    }
    return true;
}

/**
 * \brief The study's attributes of \p scheme, at both levels: the registry's, and a
 *        pre-transfer's trigger the predicted crossing (LeadTime before each handover: the
 *        drives are known ahead; the flow level has no RSRP for an A3 event).
 * \return the attributes, in the order set
 */
std::vector<HandoverScheme::Attribute>
StudyAttributes(const HandoverScheme& scheme)
{
    std::vector<HandoverScheme::Attribute> attributes = scheme.attributes;
    if (scheme.wrapsInner)
    {
        attributes.emplace_back("Trigger", "PredictedCrossing");
    }
    return attributes;
}

/**
 * \brief The packet level's requests as the flow level's rows (one result collector): times
 *        from the UE applications; handovers: the drives' cell changes of its UE between its
 *        send and its last token; stalls: its stream's changes of cell.
 * \return the run as Record() takes it
 */
FluidServingResult
FromPacket(const Options& o, const std::string& scheme, const Work& w, const MultiCellResult& r)
{
    const FluidServingConfig slo = ServingConfig(o);
    FluidServingResult f;
    f.scheme = scheme;
    f.end = 0; // when the last request ended (as at flow level), not the run's stop
    f.backhaulBytes = static_cast<double>(r.kvBytesSent);
    f.preSentBytes = static_cast<double>(r.preTransfer.sentBytes);
    f.preWastedBytes = static_cast<double>(r.preTransfer.wastedBytes);
    f.evictions = r.idleEvictions;
    f.idleDrops = r.idleDrops;
    f.idleMoves = r.idleMoves;
    f.idleFetches = r.idleFetches;
    std::map<uint64_t, uint64_t> context; // per conversation: its ended turns' tokens
    for (std::size_t i = 0; i < w.requests.size() && i < r.requests.size(); ++i)
    {
        const LlmRequest& q = w.requests[i];
        const EdgeLlmRequestResult& p = r.requests[i];
        ServingRequestResult s = ServingRequestResult::Of(q);
        s.sent = p.sent;
        s.contextTokens = context[q.conversation] + q.promptTokens;
        context[q.conversation] = s.contextTokens + q.outputTokens;
        s.cachedTokens = p.cachedTokens;
        s.decodedTokens = p.tokensReceived + p.tokensMissing;
        // Its context on the GPU (the idle cache's part held), and its restores' prefills
        s.prefillTokens = s.contextTokens - s.cachedTokens + p.restorePrefillTokens;
        s.transferTokens = p.transferTokens;
        s.received = p.received;
        s.accuracy = p.accuracy;
        f.restores += p.restores;
        for (const ServingHandover& h : w.mobility.handovers)
        {
            s.handovers += h.ue == q.ue && h.time >= p.sent && h.time <= p.lastToken ? 1 : 0;
        }
        s.stalls = p.stalls;
        s.ttft = p.firstToken - p.sent;
        s.e2e = p.lastToken - p.sent;
        s.tpot = q.outputTokens > 1 ? (p.lastToken - p.firstToken) / (q.outputTokens - 1.0)
                                    : std::nan("");
        s.stall = p.stall;
        s.worstStall = p.worstStall;
        s.served = s.decodedTokens == q.outputTokens;
        f.end = std::isnan(p.lastToken) ? f.end : std::max(f.end, p.lastToken);
        s.sloMet = slo.MeetsSlo(s);
        f.requests.push_back(s);
    }
    f.sloAttainment = FluidServingResult::SloAttainmentOf(f.requests);
    return f;
}

/**
 * \brief One scheme on one load at packet level.
 * \param[out] cpu the run's CPU time, s
 * \return its rows
 */
FluidServingResult
RunPacket(const Options& o, const HandoverScheme& scheme, const Work& w, double& cpu)
{
    MultiCellConfig cfg = PacketConfig(o, w.drives->GetPath());
    cfg.schedulerAttributes = StudyAttributes(scheme); // set on each BS's scheduler
    const std::clock_t start = std::clock();
    MultiCellScenario s(cfg);
    s.BuildSites();
    s.BuildUes();
    s.BuildRan();
    s.BuildBackhaul();
    s.InstallApps(scheme.typeId);
    s.InstallRequests(w.requests, Seconds(0));
    s.ScheduleHandovers();
    s.ConnectOutputs();
    const MultiCellResult r = s.Simulate();
    cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    return FromPacket(o, scheme.name, w, r);
}

/// Every load and scheme.
void
RunAll(const std::vector<HandoverScheme>& schemes,
       const Options& o,
       const std::vector<Work>& work,
       Outputs& out)
{
    out.summary
        << "scheme,load,requests,served,slo_attainment,ttft_p50_s,ttft_p99_s,tpot_p50_s,"
           "handed_over_requests,stalled_requests,stall_p50_s,stall_p99_s,restores,evictions,"
           "idle_moves,"
           "idle_fetches,idle_drops,over_context,backhaul_gb,end_s,received_mean,accuracy_mean,"
           "pre_sent_gb,pre_wasted_gb\n";
    out.requests << "scheme,load,ue,conversation,turn,arrival_s,sent_s,prompt_tokens,"
                    "output_tokens,context_tokens,cached_tokens,prefill_tokens,transfer_tokens,"
                    "handovers,stalls,ttft_s,tpot_s,e2e_s,stall_s,worst_stall_s,served,slo_met,"
                    "received,accuracy,pre_sent_tokens\n";
    out.sloCsv << "scheme,load,slo_attainment\n";
    out.stallCsv << "scheme,stall_s,cdf\n";
    out.gpuCsv << "scheme,time_s,mean_utilization,mean_running,mean_waiting\n";
    const FluidServingConfig config = ServingConfig(o);
    for (const Work& w : work)
    {
        std::cout << "load " << w.load << ": " << w.requests.size() << " requests; "
                  << w.mobility.handovers.size() << " handovers of " << o.numUes
                  << " UEs over their " << EdgeLlmCsvField(w.horizon) << " s drives\n";
        for (const HandoverScheme& scheme : schemes)
        {
            if (o.level == "packet")
            {
                double cpu = 0;
                const FluidServingResult r = RunPacket(o, scheme, w, cpu);
                Record(r, w.load, &w == &work.back(), out);
                std::cout << "    packet level: " << EdgeLlmCsvField(cpu) << " s of CPU for "
                          << EdgeLlmCsvField(r.end) << " simulated s\n";
                continue;
            }
            ObjectFactory factory(scheme.typeId);
            HandoverSchemeRegistry::SetAttributes(factory, StudyAttributes(scheme));
            FluidServingEngine engine(config,
                                      factory.Create<HandoverScheduler>(),
                                      7,
                                      w.mobility.initialCell,
                                      w.mobility.handovers,
                                      w.requests);
            const FluidServingResult r = engine.Run();
            Record(r, w.load, &w == &work.back(), out);
            if (r.end > w.horizon)
            {
                std::cout << "    note: the UEs stop at " << w.horizon << " s, the run ends at "
                          << r.end << " s: no handover catches what is served after\n";
            }
        }
    }
}

/// Writes every file; the exit status (1: a file could not be written).
int
WriteOutputs(const Options& o, const Outputs& out)
{
    const std::string dir = o.outputDir + "/";
    const std::vector<std::string> unit{"set yrange [0:1.05]", "set xrange [0:*]"};
    // One load: a range around it (gnuplot warns of an empty x range otherwise).
    std::vector<std::string> sloExtra = unit;
    if (o.loads.find(',') == std::string::npos)
    {
        sloExtra.push_back("set xrange [0:" + o.loads + " * 2]");
    }
    // A figure with no point (no stalled request; the packet level's GPU series) is not
    // drawn: an empty plot says nothing.
    std::string figures;
    auto figure = [&](const std::string& name,
                      const std::ostringstream& csv,
                      const std::string& title,
                      const std::string& x,
                      const std::string& y,
                      const std::vector<FigurePoint>& points,
                      const std::vector<std::string>& extra) {
        if (points.empty())
        {
            return true;
        }
        figures += (figures.empty() ? "" : ",") + name;
        return WriteFigure(dir + "serving-" + name, csv.str(), title, x, y, points, extra);
    };
    const bool ok = WriteFileAtomically(dir + "serving-summary.csv", out.summary.str()) &&
                    WriteFileAtomically(dir + "serving-requests.csv", out.requests.str()) &&
                    figure("slo",
                           out.sloCsv,
                           "SLO attainment against load",
                           "load (rate scale)",
                           "SLO attainment",
                           out.slo,
                           sloExtra) &&
                    figure("stall-cdf",
                           out.stallCsv,
                           "Per-request handover stall, highest load",
                           "stall (s)",
                           "CDF",
                           out.stallCdf,
                           unit) &&
                    figure("gpu",
                           out.gpuCsv,
                           "Mean GPU utilization over the BSs, highest load",
                           "time (s)",
                           "utilization",
                           out.utilization,
                           unit);
    if (ok)
    {
        std::cout << "wrote " << dir << "serving-{summary,requests}.csv"
                  << (figures.empty() ? ""
                                      : " and " + dir + "serving-{" + figures + "}.{csv,plt,png}")
                  << std::endl;
    }
    return ok ? 0 : 1;
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    std::vector<double> loads;
    std::vector<HandoverScheme> schemes;
    if (const int status = ParseOptions(argc, argv, o, loads, schemes); status != 0)
    {
        return status;
    }
    std::vector<Work> work;
    if (!BuildWork(o, loads, work))
    {
        return 2;
    }
    try
    {
        CheckOutputDirectory("--outputDir", o.outputDir);
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    Outputs out;
    RunAll(schemes, o, work, out);
    return WriteOutputs(o, out);
}
