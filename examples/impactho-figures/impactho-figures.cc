/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * impactho-figures: ImpactHO's Figs. 3-5 and Table II (Kim et al., 2026) at flow level,
 * Monte-Carlo with 95 % confidence intervals.
 *
 *   impactho-figures --figure=3a|3b|4a|4b|5a|5b|table2|calibrate [--runs=50] [--simTime=100]
 *                    [--calibration=headline|joint] [--fit=0|1]
 *                    [--outputDir=results/impactho-figures]
 *   impactho-figures --figure=bound [--runs=10] [--simTime=20]
 *
 * Figures write DIR/fig<id>.csv (x,scheme,mean_accuracy,ci95,starvation_rate,runs) and
 * DIR/fig<id>.png; table2 writes DIR/table2.csv
 * (context_tokens,scheme,latency_ms,ci95_ms,paper_ms,samples) and DIR/table2.png;
 * calibrate prints the paper's targets, ours and the residuals of both utility
 * calibrations (and, with --fit=1, fits a new one) and writes DIR/calibrate.csv; bound
 * writes DIR/figbound.csv (rho,series,mean,ci95,runs) and DIR/figbound.png.
 * Progress goes to stderr.
 */
#include "../common/program-options.h"
#include "../studies/edge-llm-figure-writer.h"
#include "../studies/impactho-bound-scenario.h"
#include "../studies/impactho-calibration.h"
#include "../studies/impactho-fluid-scenario.h"
#include "../studies/impactho-packet-scenario.h"

#include "ns3/core-module.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-stats.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// One curve: its name and how it sets up a run at sweep value x.
struct Curve
{
    std::string name;
    std::function<void(ImpactHoFluidConfig&, double)> set;
};

void
SetPolicy(ImpactHoFluidConfig& c, const std::string& policy)
{
    c.policy = policy;
}

/**
 * \param scheme an ImpactHoScheduler scheme of the registry
 * \return the ImpactHoScheduler Policy it sets (the flow level's ImpactHoFluidConfig::policy)
 */
std::string
PolicyOf(const HandoverScheme& scheme)
{
    for (const auto& [name, value] : scheme.attributes)
    {
        if (name == "Policy")
        {
            return value;
        }
    }
    NS_ABORT_MSG(scheme.name << " sets no ImpactHoScheduler Policy");
    return "";
}

/// A number without trailing zeros (4, 0.5, 20).
std::string
Num(double v)
{
    std::ostringstream o;
    o << v;
    return o.str();
}

/**
 * The parameters a figure holds fixed, for its title: every knob of \p c except the one
 * the figure sweeps (\p swept: "rho", "B", "dt" or "T_max").
 */
std::string
FixedParameters(const ImpactHoFluidConfig& c, const std::string& swept)
{
    std::vector<std::string> parts;
    if (swept != "rho")
    {
        parts.push_back("rho = " + Num(c.arrivalRate) + " users/s");
    }
    if (swept != "B")
    {
        parts.push_back("B = " + Num(c.backhaulGbps) + " Gbit/s");
    }
    if (swept != "dt")
    {
        parts.push_back("dt = " + Num(c.slot.GetMilliSeconds()) + " ms");
    }
    if (swept != "T_max")
    {
        parts.push_back(c.window >= Seconds(1e5)
                            ? std::string("T_{max} = inf")
                            : "T_{max} = " + Num(c.window.GetMilliSeconds()) + " ms");
    }
    std::string contexts;
    for (uint64_t t : c.contexts)
    {
        contexts += (contexts.empty() ? "" : "/") + Num(t / 1024.0) + "K";
    }
    parts.push_back(c.model + " q = " + std::to_string(c.kvBits));
    parts.push_back("contexts " + contexts);
    parts.push_back(AccuracyUtility::CalibrationName(c.calibration) + " utility");
    // Two title lines: the system knobs, then the model and utility (gnuplot's "\\n").
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
    {
        out += (i == 0 ? "" : (i == parts.size() - 3 ? "\\n" : ", ")) + parts[i];
    }
    return out;
}

/// One row of the calibration table.
void
PrintTargets(std::ostream& out,
             std::ostringstream& csv,
             const std::string& label,
             const std::vector<ImpactHoCalibrationTarget>& targets)
{
    out << std::fixed;
    for (const auto& t : targets)
    {
        const int digits = t.unit == "ms" ? 1 : 2;
        out << "  " << std::left << std::setw(22) << t.name << std::right << " paper "
            << std::setw(7) << std::setprecision(digits) << t.paper << " " << t.unit << "  ours "
            << std::setw(7) << t.ours << " +- " << std::setprecision(digits) << t.ci95 << " "
            << t.unit << "  residual " << std::showpos << std::setprecision(2) << t.residual
            << std::noshowpos << " x " << std::setprecision(digits) << t.scale << " " << t.unit
            << (t.fitted ? "" : " (not fitted)") << "\n";
        csv << label << "," << t.name << "," << t.unit << "," << std::setprecision(6) << t.paper
            << "," << t.ours << "," << t.ci95 << "," << t.scale << "," << t.residual << ","
            << (t.fitted ? 1 : 0) << "\n";
    }
    out << "  objective (sum of squared fitted residuals): " << std::setprecision(3)
        << ImpactHoCalibration::Objective(targets) << "\n";
}

/// The anchors as one line per length.
void
PrintAnchors(std::ostream& out, const AccuracyUtility::Anchors& a)
{
    const char* names[3] = {"4K", "8K", "16K"};
    out << std::fixed;
    for (std::size_t j = 0; j < 3; ++j)
    {
        out << "  " << std::setw(3) << names[j] << ": M = " << std::setprecision(4)
            << a.asymptote[j] << ", k = " << std::setprecision(3) << a.sharpness[j]
            << ", tau = " << std::setprecision(5) << a.inflection[j] << "\n";
    }
}

/// The program's options, as given (ParseOptions checks them).
struct Options
{
    std::string figure; //!< 3a | 3b | 4a | 4b | 5a | 5b | table2 | calibrate | bound
    uint32_t runs{50};  //!< Monte-Carlo runs per point
    std::string calibration{"headline"};               //!< Utility presets: headline | joint
    bool fit{false};                                   //!< calibrate: also fit per-length k, tau
    double simTime{100};                               //!< Simulated arrival time per run, s
    std::string outputDir{"results/impactho-figures"}; //!< Where the CSV and PNG go
    bool packetLevel{false};                           //!< Add packet-level points of ours
    uint32_t packetRuns{2};                            //!< Runs per packet-level point
    double packetSimTime{10}; //!< Simulated arrival time per packet-level run, s
};

/// A swept figure (Figs. 3-5): its x values and label, its curves, the knob it sweeps (the
/// title lists the others) and what its curves compare.
struct SweptFigure
{
    std::vector<double> xs;    //!< Sweep values
    std::string xLabel;        //!< x axis label
    std::vector<Curve> curves; //!< One per scheme or variant
    std::string swept;         //!< The swept knob's name (FixedParameters leaves it out)
    std::string what;          //!< What the curves compare (title)
};

/**
 * \brief ImpactHO's swept figures: Figs. 3a-4b (ours vs EA, WTA, PF over rho, B, dt and
 *        T_max), 5a (importance vs random order) and 5b (admission fallbacks).
 * \return each figure by its id
 */
std::map<std::string, SweptFigure>
SweptFigures()
{
    // Sweep, x label and curves of each figure (defaults: rho = 4, B = 20 Gbit/s,
    // dt = 100 ms, T_max = 500 ms, Qwen3-8B, contexts 4K/8K/16K).
    auto rho = [](ImpactHoFluidConfig& c, double x) { c.arrivalRate = x; };
    auto bw = [](ImpactHoFluidConfig& c, double x) { c.backhaulGbps = x; };
    auto dt = [](ImpactHoFluidConfig& c, double x) { c.slot = MilliSeconds(x); };
    auto tmax = [](ImpactHoFluidConfig& c, double x) { c.window = MilliSeconds(x); };
    // Ours and its baselines: every slot policy of the registry on its own, by its legend.
    auto baselines = [](std::function<void(ImpactHoFluidConfig&, double)> sweep) {
        std::vector<Curve> curves;
        for (const HandoverScheme& s : HandoverSchemeRegistry::Select(
                 [](const HandoverScheme& e) { return e.slotPolicy && !e.wrapsInner; }))
        {
            const std::string policy = PolicyOf(s);
            curves.push_back({s.GetLabel(), [sweep, policy](ImpactHoFluidConfig& c, double x) {
                                  sweep(c, x);
                                  SetPolicy(c, policy);
                              }});
        }
        return curves;
    };
    std::map<std::string, std::tuple<std::vector<double>, std::string, std::vector<Curve>>> figs;
    // The knob each figure sweeps (the title lists the others) and what its curves are.
    const std::map<std::string, std::pair<std::string, std::string>> sweeps{
        {"3a", {"rho", "ours vs EA, WTA, PF"}},
        {"3b", {"B", "ours vs EA, WTA, PF"}},
        {"4a", {"dt", "ours vs EA, WTA, PF"}},
        {"4b", {"T_max", "ours vs EA, WTA, PF"}},
        {"5a", {"rho", "importance vs random order"}},
        {"5b", {"rho", "admission fallbacks"}}};
    figs["3a"] = {{1, 2, 3, 4, 5, 6, 7, 8}, "Handover arrival rate rho (users/s)", baselines(rho)};
    figs["3b"] = {{10, 15, 20, 25, 30}, "Backhaul bandwidth B (Gbit/s)", baselines(bw)};
    figs["4a"] = {{20, 40, 60, 80, 100}, "Slot length dt (ms)", baselines(dt)};
    figs["4b"] = {{200, 400, 600, 800, 1000}, "Transfer window T_{max} (ms)", baselines(tmax)};
    figs["5a"] = {{1, 2, 3, 4, 5, 6, 7, 8},
                  "Handover arrival rate rho (users/s)",
                  {{"ours", rho}, {"random-order", [rho](ImpactHoFluidConfig& c, double x) {
                                       rho(c, x);
                                       c.importanceOrder = false;
                                   }}}};
    figs["5b"] = {{4, 6, 8, 10, 12},
                  "Handover arrival rate rho (users/s)",
                  {{"ours", rho},
                   {"ours-wta",
                    [rho](ImpactHoFluidConfig& c, double x) {
                        rho(c, x);
                        c.fallback = "CascadingWta";
                    }},
                   {"no-admission", [rho](ImpactHoFluidConfig& c, double x) {
                        rho(c, x);
                        c.fallback = "None";
                    }}}};
    std::map<std::string, SweptFigure> result;
    for (const auto& [id, fig] : figs)
    {
        const auto& [xs, xLabel, curves] = fig;
        result[id] = {xs, xLabel, curves, sweeps.at(id).first, sweeps.at(id).second};
    }
    return result;
}

/**
 * \brief ParseOptions' step: refuse the options the chosen mode does not read, and set
 *        bound's and table2's own defaults of --runs and --simTime when not given.
 * \param argc the command line's argument count
 * \param argv the command line
 * \param o the options (parsed); runs and simTime may be set
 * \throws std::invalid_argument naming the option refused
 */
void
ApplyModeOptions(int argc, char* argv[], Options& o)
{
    // Options a mode does not read are refused, not ignored.
    const auto given = [argc, argv](const std::string& name) {
        return ProgramOptions::Given(argc, argv, name);
    };
    if (o.figure == "calibrate")
    {
        for (const char* name :
             {"runs", "simTime", "calibration", "packetLevel", "packetRuns", "packetSimTime"})
        {
            if (given(name))
            {
                throw std::invalid_argument(
                    std::string("--") + name +
                    " does not apply to --figure=calibrate (it uses the paper's runs: "
                    "Table II 1000 x 1 s, headline 100 x 100 s, and evaluates both "
                    "calibrations)");
            }
        }
    }
    else if (given("fit"))
    {
        throw std::invalid_argument("--fit applies to --figure=calibrate only");
    }
    if (o.figure == "bound")
    {
        for (const char* name : {"packetLevel", "packetRuns", "packetSimTime"})
        {
            if (given(name))
            {
                throw std::invalid_argument(std::string("--") + name +
                                            " does not apply to --figure=bound (flow level)");
            }
        }
        // The clairvoyant MILP grows with the arrivals: its own defaults, 10 runs of 20 s.
        o.runs = given("runs") ? o.runs : 10;
        o.simTime = given("simTime") ? o.simTime : 20;
        if (!(o.simTime > 0 && o.simTime <= 60))
        {
            throw std::invalid_argument(
                "--simTime must be in (0, 60] s for --figure=bound (the MILP grows with it)");
        }
    }
    if (o.figure == "table2")
    {
        for (const char* name : {"simTime", "packetLevel", "packetRuns", "packetSimTime"})
        {
            if (given(name))
            {
                throw std::invalid_argument(std::string("--") + name +
                                            " does not apply to --figure=table2 (1 s of "
                                            "arrivals per run, flow level)");
            }
        }
        if (!given("runs"))
        {
            o.runs = 1000; // the paper's
        }
    }
}

/**
 * \brief ParseOptions' step: --runs, --simTime and (with --packetLevel) --packetRuns and
 *        --packetSimTime in their ranges.
 * \param o the options (after ApplyModeOptions)
 * \throws std::invalid_argument naming the option out of range and its range
 */
void
CheckRanges(const Options& o)
{
    if (o.runs < 2 || o.runs > 100000)
    {
        throw std::invalid_argument("--runs must be in [2, 100000], got " + std::to_string(o.runs));
    }
    if (!(o.simTime > 0 && o.simTime <= 1e5))
    {
        throw std::invalid_argument("--simTime must be in (0, 1e5] s, got " +
                                    edgellm::FormatValue(o.simTime));
    }
    if (o.packetLevel && (o.packetRuns < 1 || o.packetRuns > 1000))
    {
        throw std::invalid_argument("--packetRuns must be in [1, 1000], got " +
                                    std::to_string(o.packetRuns));
    }
    if (o.packetLevel && !(o.packetSimTime > 0 && o.packetSimTime <= 1000))
    {
        throw std::invalid_argument("--packetSimTime must be in (0, 1000] s");
    }
}

/**
 * \brief The types of this module impactho-figures never builds for \p o: every figure
 *        runs the slot policies' ImpactHoScheduler (the flow level's engine reads its
 *        defaults) and no other scheduler; the packet-level points (--packetLevel=1) add
 *        two BSs (EdgeLlmNode, its parts, EdgeLlmSessionStats) on one point-to-point link,
 *        with no RAN, UE application, EdgeLlmBackhaul or monitor; --figure=bound alone
 *        builds ImpactHoClairvoyantBound.
 * \param o the options (parsed)
 * \return TypeId name -> why
 */
TypesUnused
TypesUnusedFor(const Options& o)
{
    std::set<std::string> used;
    if (o.figure == "bound")
    {
        used.insert("ns3::ImpactHoClairvoyantBound");
    }
    if (o.packetLevel)
    {
        for (const char* type : {"ns3::EdgeLlmNode",
                                 "ns3::EdgeLlmSourceRole",
                                 "ns3::EdgeLlmTargetRole",
                                 "ns3::EdgeLlmPreTransferRole",
                                 "ns3::PrefillEngine",
                                 "ns3::EdgeLlmBackhaulTransport",
                                 "ns3::KvTransferConnection",
                                 "ns3::KvDatagramSocket",
                                 "ns3::EdgeLlmSessionStats"})
        {
            used.insert(type);
        }
    }
    TypesUnused unused = FlowLevelTypesUnused(
        o.packetLevel ? "impactho-figures' packet-level points run two BSs over one "
                        "point-to-point link (no RAN, UE application, EdgeLlmBackhaul or "
                        "monitor)"
                      : "impactho-figures runs at flow level (--figure=" + o.figure +
                            (o.figure == "bound" ? "" : ", without --packetLevel=1") +
                            "): no BS, UE, link or GPU of this module is built",
        used);
    if (o.figure != "bound")
    {
        unused["ns3::ImpactHoClairvoyantBound"] = "only --figure=bound runs the clairvoyant bound";
    }
    unused.merge(HandoverSchemeRegistry::TypesUnused(HandoverSchemeRegistry::Select(
        [](const HandoverScheme& s) { return s.slotPolicy && !s.wrapsInner; })));
    return unused;
}

/**
 * \brief Parse and check the command line: a bad option, attribute or combination is
 *        refused naming it and its valid range.
 * \param argc the command line's argument count
 * \param argv the command line
 * \param figures the swept figures (valid --figure values beside table2, calibrate, bound)
 * \param o the options, filled
 * \return 0 to run, 2 (after printing the error) to exit with it
 */
int
ParseOptions(int argc, char* argv[], const std::map<std::string, SweptFigure>& figures, Options& o)
{
    CommandLine cmd(__FILE__);
    ProgramOptions options(cmd);
    cmd.Usage("ImpactHO's Figs. 3-5 and Table II at flow level.");
    options.AddValue("figure",
                     "3a | 3b | 4a | 4b | 5a | 5b | table2 | calibrate | bound",
                     o.figure);
    options.AddValue(
        "runs",
        "Monte-Carlo runs per point (>= 2; table2 default 1000, the paper's; bound 10)",
        o.runs);
    options.AddValue("calibration",
                     "Utility presets: headline (k = 45, tau = 0.065 at every length) | joint "
                     "(per-length fit to Table II and the headline)",
                     o.calibration);
    options.AddValue("fit",
                     "calibrate: also fit per-length k, tau (Nelder-Mead, about 4 CPU minutes)",
                     o.fit);
    options.AddValue("simTime", "Simulated arrival time per run, s", o.simTime);
    options.AddValue("outputDir", "Where the CSV and PNG go", o.outputDir);
    options.AddValue("packetLevel",
                     "Add packet-level points of ours (backhaul transport: "
                     "--ns3::EdgeLlmBackhaulTransport::Transport, Tcp by default) at two x values",
                     o.packetLevel);
    options.AddValue("packetRuns", "Runs per packet-level point", o.packetRuns);
    options.AddValue("packetSimTime",
                     "Simulated arrival time per packet-level run, s",
                     o.packetSimTime);
    // Attribute defaults first: a bad one, or one the packet-level scenario sets per curve
    // (ImpactHoPacketScenario), is refused naming it and its valid range (exit 2).
    const std::string perCurve = "the figure sets it per curve and point";
    if (!options.Check(argc, argv, std::cerr))
    {
        return 2;
    }
    if (!CheckAttributeArguments(
            argc,
            argv,
            {{"ns3::EdgeLlmNode::Model", perCurve},
             {"ns3::EdgeLlmNode::KvBits", perCurve},
             {"ns3::EdgeLlmSourceRole::ImportanceOrder", perCurve},
             {"ns3::EdgeLlmSourceRole::KvAccuracyLoss", perCurve},
             {"ns3::EdgeLlmSourceRole::UtilityCalibration", "use --calibration"},
             {"ns3::ImpactHoScheduler::Policy", perCurve},
             {"ns3::ImpactHoScheduler::Fallback", perCurve},
             {"ns3::ImpactHoScheduler::SlotLength", perCurve},
             {"ns3::ImpactHoScheduler::TransferWindow", perCurve}},
            std::cerr))
    {
        return 2;
    }
    cmd.Parse(argc, argv);

    try
    {
        if (o.figure != "table2" && o.figure != "calibrate" && o.figure != "bound" &&
            !figures.count(o.figure))
        {
            throw std::invalid_argument(
                "--figure must be 3a, 3b, 4a, 4b, 5a, 5b, table2, calibrate or bound, got '" +
                o.figure + "'");
        }
        try
        {
            (void)AccuracyUtility::ParseCalibration(o.calibration);
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(std::string("--calibration: ") + e.what());
        }
        ApplyModeOptions(argc, argv, o);
        CheckRanges(o);
        CheckOutputDirectory("--outputDir", o.outputDir);
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    // Now that the figure and the level are known: an attribute of a type of this module
    // the program never builds for them.
    if (!CheckAttributeArguments(argc, argv, {}, std::cerr, TypesUnusedFor(o)))
    {
        return 2;
    }
    return 0;
}

/**
 * \brief --figure=calibrate: the paper's targets (Table II and Sec. VI-B) under each utility
 *        calibration, and with --fit a new per-length fit; writes DIR/calibrate.csv.
 * \param o the options
 * \return the exit status
 */
int
RunCalibrate(const Options& o)
{
    // The paper's targets under each calibration, and (--fit) a new joint fit.
    ImpactHoCalibration::Settings settings;
    std::ostringstream csv;
    csv << "calibration,target,unit,paper,ours,ci95,scale,residual,fitted\n";
    std::cout << "ImpactHO utility calibration: targets of [ImpactHO] Table II (rho = 4 on "
                 "[0, 1] s, T_max = inf, "
              << settings.table2Runs
              << " runs) and Sec. VI-B (rho = 4, B = 20 Gbit/s, dt = 100 ms, T_max = "
                 "500 ms, "
              << settings.headlineRuns << " runs of " << settings.headlineSimTime
              << " s); residual = (ours - paper) / scale\n";
    for (auto c : {AccuracyUtility::HEADLINE, AccuracyUtility::JOINT})
    {
        ImpactHoFluidConfig cfg;
        cfg.calibration = c;
        std::cout << "calibration " << AccuracyUtility::CalibrationName(c)
                  << (c == AccuracyUtility::HEADLINE ? " (default)" : "") << ":\n";
        PrintAnchors(std::cout, AccuracyUtility::CalibrationAnchors(c));
        PrintTargets(std::cout,
                     csv,
                     AccuracyUtility::CalibrationName(c),
                     ImpactHoCalibration::Evaluate(cfg, settings));
    }
    if (o.fit)
    {
        std::cerr << "[calibrate] fitting k, tau per length from the headline preset..."
                  << std::endl;
        const auto t0 = std::chrono::steady_clock::now();
        const ImpactHoCalibration::FitResult r =
            ImpactHoCalibration::Fit(AccuracyUtility::CalibrationAnchors(AccuracyUtility::HEADLINE),
                                     settings);
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "fit (GSL nmsimplex2 from the headline preset; " << r.iterations
                  << " iterations, " << r.evaluations << " evaluations, "
                  << (r.converged ? "converged" : "stopped at the iteration limit") << ", "
                  << std::setprecision(0) << elapsed << " s):\n";
        PrintAnchors(std::cout, r.anchors);
        PrintTargets(std::cout, csv, "fit", r.targets);
        bool all = true;
        for (const auto& t : r.targets)
        {
            all = all && (!t.fitted || std::abs(t.residual) <= 1);
        }
        std::cout << (all ? "every fitted target is within its scale\n"
                          : "no parameters within tau in [0.064, 0.067] fit every target "
                            "within its scale: the fit above is the best trade-off\n");
    }
    if (!WriteFileAtomically(o.outputDir + "/calibrate.csv", csv.str()))
    {
        return 1;
    }
    std::cout << "wrote " << o.outputDir << "/calibrate.csv" << std::endl;
    return 0;
}

/**
 * \brief --figure=table2: ImpactHO Table II, the per-user latency of re-prefill, hybrid and
 *        ImpactHO beside the paper's; writes DIR/table2.csv and .png.
 * \param o the options
 * \param cal the utility calibration
 * \return the exit status
 */
int
RunTable2(const Options& o, AccuracyUtility::Calibration cal)
{
    // ImpactHO Table II: rho = 4 on t in [0, 1] s, T_max = inf, per-user latency:
    // re-prefill (own GPU), hybrid (ctHO split for one user, FCFS backhaul), ImpactHO
    // until 99 % of full accuracy. The paper's values beside ours.
    const std::map<std::string, std::map<uint64_t, double>> paper{
        {"re-prefill", {{4096, 300}, {8192, 676}, {16384, 1566}}},
        {"hybrid", {{4096, 211}, {8192, 396}, {16384, 694}}},
        {"impactho", {{4096, 229}, {8192, 353}, {16384, 590}}}};
    ImpactHoFluidConfig base;
    base.calibration = cal;
    const auto lat = ImpactHoCalibration::Table2(base, o.runs);
    const auto console = [](std::string t) {
        for (std::size_t i; (i = t.find("\\n")) != std::string::npos;)
        {
            t.replace(i, 2, ", ");
        }
        return t;
    };
    std::ostringstream csv;
    csv << "context_tokens,scheme,latency_ms,ci95_ms,paper_ms,samples\n";
    std::vector<FigurePoint> points;
    ImpactHoFluidConfig shown = base;
    shown.window = Seconds(1e6);
    std::cout << "Table II (per-user latency, ms, mean +- 95 % CI; " << o.runs
              << " runs of 1 s of arrivals; " << console(FixedParameters(shown, "")) << ")\n"
              << "  context  scheme          ours                 paper    ours/paper\n";
    for (const std::string scheme : {"re-prefill", "hybrid", "impactho"})
    {
        for (const auto& [c, schemes] : lat)
        {
            const auto v = schemes.find(scheme);
            if (v == schemes.end())
            {
                continue;
            }
            const SampleSummary s = SummarizeSamples(v->second);
            const auto p = paper.at(scheme).find(c);
            const bool hasPaper = p != paper.at(scheme).end();
            csv << c << "," << scheme << "," << std::fixed << std::setprecision(1) << 1000 * s.mean
                << "," << 1000 * s.ci95 << "," << (hasPaper ? Num(p->second) : std::string()) << ","
                << s.n << "\n";
            std::cout << std::fixed << std::setprecision(1) << "  " << std::setw(7) << c << "  "
                      << std::left << std::setw(10) << scheme << std::right << std::setw(9)
                      << 1000 * s.mean << " +- " << std::setw(5) << 1000 * s.ci95 << " ms";
            if (hasPaper)
            {
                std::cout << std::setw(9) << std::setprecision(0) << p->second << " ms"
                          << std::setw(10) << std::setprecision(3) << s.mean * 1000 / p->second;
            }
            std::cout << "\n";
            points.push_back({static_cast<double>(c) / 1024,
                              scheme + " (ours)",
                              1000 * s.mean,
                              1000 * s.ci95,
                              false});
            if (hasPaper)
            {
                points.push_back(
                    {static_cast<double>(c) / 1024, scheme + " (paper)", p->second, 0, true});
            }
        }
    }
    const std::string stem = o.outputDir + "/table2";
    if (!WriteFigure(stem,
                     csv.str(),
                     "ImpactHO Table II: per-user latency (ImpactHO: to 99 % of full "
                     "accuracy)\\n" +
                         FixedParameters(shown, "") + "\\n" + std::to_string(o.runs) +
                         " runs of 1 s of arrivals, 95% CI",
                     "Context length (K tokens)",
                     "Per-user latency (ms)",
                     points,
                     {"set logscale x 2", "set xtics (4, 8, 16)", "set xrange [3.3:19.5]"}))
    {
        return 1;
    }
    std::cout << "wrote " << stem << ".csv, " << stem << ".png" << std::endl;
    return 0;
}

/**
 * \brief A swept figure (3a, 3b, 4a, 4b, 5a, 5b): every curve at every x, --runs runs each,
 *        and with --packetLevel the packet-level points of the first curve at two x values;
 *        writes DIR/fig<id>.csv and .png.
 * \param o the options
 * \param cal the utility calibration
 * \param fig the figure
 * \return the exit status
 */
int
RunSweptFigure(const Options& o, AccuracyUtility::Calibration cal, const SweptFigure& fig)
{
    const std::vector<double>& xs = fig.xs;
    const std::vector<Curve>& curves = fig.curves;
    std::ostringstream csv;
    csv << "x,scheme,mean_accuracy,ci95,starvation_rate,runs\n" << std::setprecision(9);
    std::vector<FigurePoint> points;
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t total = xs.size() * curves.size() * o.runs;
    uint64_t done = 0;
    for (std::size_t p = 0; p < xs.size(); ++p)
    {
        std::vector<double> ceiling;
        for (const auto& curve : curves)
        {
            std::vector<double> acc;
            std::vector<double> starved;
            for (uint32_t r = 1; r <= o.runs; ++r)
            {
                ImpactHoFluidConfig c;
                c.simTime = Seconds(o.simTime);
                c.calibration = cal;
                curve.set(c, xs[p]);
                const ImpactHoFluidResult res = ImpactHoFluidScenario::Run(c, r);
                acc.push_back(res.meanAccuracy);
                starved.push_back(res.starvationRate);
                if (curve.name == "ours")
                {
                    ceiling.push_back(res.meanFullAccuracy);
                }
            }
            done += o.runs;
            const SampleSummary s = SummarizeSamples(acc);
            const SampleSummary st = SummarizeSamples(starved);
            csv << xs[p] << "," << curve.name << "," << s.mean << "," << s.ci95 << "," << st.mean
                << "," << s.n << "\n";
            points.push_back({xs[p], curve.name, 100 * s.mean, 100 * s.ci95, false});
        }
        if (!ceiling.empty() && o.figure != "5b" && o.figure != "5a")
        {
            const SampleSummary s = SummarizeSamples(ceiling);
            csv << xs[p] << ",full-cache," << s.mean << "," << s.ci95 << ",0," << s.n << "\n";
            points.push_back({xs[p], "full-cache", 100 * s.mean, 100 * s.ci95, false});
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cerr << "[fig" << o.figure << "] point " << p + 1 << "/" << xs.size() << ", runs "
                  << done << "/" << total << ", " << std::fixed << std::setprecision(1) << elapsed
                  << " s elapsed, ~" << elapsed * (total - done) / std::max<uint64_t>(done, 1)
                  << " s left" << std::endl;
    }
    if (o.packetLevel)
    {
        // Packet-level points of the first curve (ours) on the same runs' handovers.
        for (double x : {xs[1], xs[xs.size() / 2]})
        {
            std::vector<double> packet;
            std::vector<double> fluid;
            std::vector<double> starved;
            for (uint32_t r = 1; r <= o.packetRuns; ++r)
            {
                ImpactHoFluidConfig c;
                c.simTime = Seconds(o.packetSimTime);
                c.calibration = cal;
                curves.front().set(c, x);
                ImpactHoFluidResult pr;
                try
                {
                    pr = ImpactHoPacketScenario::Run(c, r);
                }
                catch (const std::invalid_argument& e)
                {
                    // Refused before simulating (e.g. an --ns3::EdgeLlmNode attribute that
                    // does not fit the backhaul); nothing has been written yet.
                    std::cerr << "error: " << e.what() << std::endl;
                    return 2;
                }
                packet.push_back(pr.meanAccuracy);
                starved.push_back(pr.starvationRate);
                fluid.push_back(ImpactHoFluidScenario::Run(c, r).meanAccuracy);
            }
            const SampleSummary ps = SummarizeSamples(packet);
            const SampleSummary fs = SummarizeSamples(fluid);
            // One run has no confidence interval: the ci95 field is left empty.
            csv << x << "," << curves.front().name << "-packet," << ps.mean << ","
                << (ps.n >= 2 ? std::to_string(ps.ci95) : std::string()) << ","
                << SummarizeSamples(starved).mean << "," << ps.n << "\n";
            points.push_back(
                {x, curves.front().name + "-packet", 100 * ps.mean, 100 * ps.ci95, true});
            std::cout << std::fixed << std::setprecision(2) << "packet level, x = " << x << ": "
                      << 100 * ps.mean << " % vs flow level " << 100 * fs.mean << " % on the same "
                      << o.packetRuns << " runs (" << std::showpos << 100 * (ps.mean - fs.mean)
                      << std::noshowpos << " pp)" << std::endl;
        }
    }
    const std::string stem = o.outputDir + "/fig" + o.figure;
    ImpactHoFluidConfig fixed;
    fixed.calibration = cal;
    if (!WriteFigure(stem,
                     csv.str(),
                     "ImpactHO Fig. " + o.figure + ": " + fig.what + "\\n" +
                         FixedParameters(fixed, fig.swept) + "\\n" + std::to_string(o.runs) +
                         " runs x " + Num(o.simTime) + " s per point" +
                         (o.packetLevel ? ", packet level " + std::to_string(o.packetRuns) +
                                              " runs x " + Num(o.packetSimTime) + " s"
                                        : "") +
                         ", 95% CI",
                     fig.xLabel,
                     "Average accuracy (%)",
                     points))
    {
        return 1;
    }
    std::cout << csv.str() << "wrote " << stem << ".csv, " << stem << ".png" << std::endl;
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    const std::map<std::string, SweptFigure> figures = SweptFigures();
    Options o;
    if (const int status = ParseOptions(argc, argv, figures, o); status != 0)
    {
        return status;
    }
    const AccuracyUtility::Calibration cal = AccuracyUtility::ParseCalibration(o.calibration);
    if (o.figure == "bound")
    {
        // ImpactHO Sec. VI-E: the online allocator against the clairvoyant bound.
        try
        {
            return ImpactHoBoundScenario::Figure(o.runs, o.simTime, o.outputDir, cal);
        }
        catch (const std::exception& e)
        {
            std::cerr << "error: " << e.what() << std::endl;
            return 1;
        }
    }
    if (o.figure == "calibrate")
    {
        return RunCalibrate(o);
    }
    if (o.figure == "table2")
    {
        return RunTable2(o, cal);
    }
    return RunSweptFigure(o, cal, figures.at(o.figure));
}
