/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup edge-llm
 * \brief edge-llm-scale-bench: the packet-level road's cost as the work grows (issue 11
 *        item 6).
 *
 * Each point is one RoadHandoverScenario::Run (LTE, ctHO, 2 sites) in its own child
 * process (fork), so the peak resident size (wait4's ru_maxrss) and the CPU time (user and
 * system) are that point's alone; wall time is measured around the child. Points run one
 * after another, never two at once. Axes:
 *  - UEs K (--ues, default 12,50,100,200), the default KV size and CQI model;
 *  - KV bytes: K = --kvUes with the contexts doubled (contextMin and contextMax x 2);
 *  - the CQI model (ns3::LteAmc::AmcModel, --amcModel knob of the road): PiroEW2010
 *    against ns-3's default MiErrorModel at K = --kvUes and at the largest K that runs,
 *    alternated, each side's least CPU time of its runs.
 * A point the scenario refuses (e.g. K above its UE bound) is listed with the reason.
 * Fits: least squares on log-log of CPU-s per simulated s against K (the exponent), and
 * the linear fit CPU-s = a (K x simulated s) + b.
 * Sites (--sites, default 2, 7, 19, 57): MultiCellScenario with a star backhaul, its other
 * defaults, --uesPerSite UEs on each site, the sites on the --siteLayout (road: a line of
 * sites, any count in [2, 57]; hex: 7 and 19 only, other counts are skipped), each point
 * with --maxLossDb (the spectrum cut-off; 0: none, every PHY hears every cell); the
 * exponent of sites from a log-log fit of CPU-s per simulated s. --siteRouterRouting
 * picks the routers' routing (EdgeLlmBackhaul RouterRouting: EdgeLlm, Static, or both:
 * every site count on each, alternated, each with its exponent, and the ratio of their
 * CPU-s per point). --axes picks the axes to run (ues, kv, amc, sites).
 */

#include "../examples/studies/multi-cell-scenario.h"
#include "../examples/studies/road-handover-scenario.h"

#include "ns3/core-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// One measured point.
struct Point
{
    std::string label;      //!< What varies
    uint32_t ues{0};        //!< K
    double contextScale{1}; //!< Contexts x this
    std::string amc;        //!< amcModel knob ("": ns-3's default)
    uint32_t sites{0};      //!< > 0: MultiCellScenario with this many sites, K per site
    std::string layout;     //!< Its layout: road or hex
    double maxLossDb{0};    //!< Its spectrum cut-off, dB (0: none)
    bool gpuWarmup{true};   //!< Its prompts prefilled on the GPU (prefillPromptsOnGpu)
    std::string routing;    //!< Its routers' RouterRouting ("": the attribute's default)
    bool ok{false};         //!< The child completed
    std::string error;      //!< Why not
    double simSeconds{0};   //!< Simulated time of the run, s
    double kvBytes{0};      //!< KV bytes the source sent
    double restored{0};     //!< Sessions restored at the target
    double wall{0};         //!< Wall time, s
    double user{0};         //!< User CPU, s
    double sys{0};          //!< System CPU, s
    double rssMb{0};        //!< Peak RSS of the child, MB (1e6 B)
};

/// Tokens decoded after each handover (short: the cost of the attach, prompts, handovers
/// and transfers dominates; the stream afterwards is 1 s at 100 tokens/s).
constexpr uint32_t TOKENS_AFTER = 100;

/**
 * \brief The child: run the point, write "simSeconds kvBytes restored" or "error <why>".
 * \param p the point
 * \param fd the pipe's write end
 */
void
RunChild(const Point& p, int fd)
{
    std::ostringstream out;
    try
    {
        if (p.sites > 0)
        {
            MultiCellConfig mc;
            mc.layout = p.layout;
            mc.numSites = p.sites;
            mc.uesPerSite = p.ues;
            mc.backhaul = "star";
            mc.maxLossDb = p.maxLossDb;
            mc.amcModel = p.amc;
            mc.prefillPromptsOnGpu = p.gpuWarmup;
            if (!p.routing.empty())
            {
                Config::SetDefault("ns3::EdgeLlmBackhaul::RouterRouting", StringValue(p.routing));
            }
            const MultiCellResult r = MultiCellScenario::Run(mc, "ns3::CtHoScheduler");
            out << std::setprecision(17) << r.simulatedSeconds << " " << r.kvBytesSent << " " << -1;
            const std::string s = out.str();
            if (write(fd, s.data(), s.size()) < 0)
            {
                _exit(3);
            }
            return;
        }
        RoadHandoverConfig cfg;
        cfg.road.numUes = p.ues;
        cfg.road.contextMin = static_cast<uint32_t>(cfg.road.contextMin * p.contextScale);
        cfg.road.contextMax = static_cast<uint32_t>(cfg.road.contextMax * p.contextScale);
        cfg.tokensAfterHandover = TOKENS_AFTER;
        cfg.amcModel = p.amc;
        const RoadHandoverResult r = RoadHandoverScenario::Run(cfg, "ns3::CtHoScheduler");
        uint32_t restored = 0;
        for (const auto& ue : r.ues)
        {
            restored += std::isfinite(ue.restoredDelay) ? 1 : 0;
        }
        out << std::setprecision(17) << r.simulatedSeconds << " " << r.kvBytesSent << " "
            << restored;
    }
    catch (const std::exception& e)
    {
        out << "error " << e.what();
    }
    const std::string s = out.str();
    if (write(fd, s.data(), s.size()) < 0)
    {
        _exit(3);
    }
}

/**
 * \brief Measure one point in a child process.
 * \param p the point (results filled in)
 */
void
Measure(Point& p)
{
    int fds[2];
    NS_ABORT_MSG_IF(pipe(fds) != 0, "pipe failed");
    std::cout.flush();
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    NS_ABORT_MSG_IF(pid < 0, "fork failed");
    if (pid == 0)
    {
        close(fds[0]);
        RunChild(p, fds[1]);
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0)
    {
        text.append(buf, static_cast<size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    struct rusage ru = {};
    wait4(pid, &status, 0, &ru);
    p.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    p.user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6;
    p.sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    p.rssMb = ru.ru_maxrss * 1024.0 / 1e6; // Linux: KiB
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    {
        p.error = "child exited abnormally (status " + std::to_string(status) + ")";
        return;
    }
    if (text.rfind("error ", 0) == 0)
    {
        p.error = text.substr(6);
        return;
    }
    std::istringstream in(text);
    p.ok = static_cast<bool>(in >> p.simSeconds >> p.kvBytes >> p.restored);
    if (!p.ok)
    {
        p.error = "no result from the child";
    }
}

/**
 * \brief Least squares y = a x + b.
 * \param x abscissae
 * \param y ordinates
 * \return {a, b}
 */
std::pair<double, double>
Fit(const std::vector<double>& x, const std::vector<double>& y)
{
    const double n = static_cast<double>(x.size());
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (size_t i = 0; i < x.size(); ++i)
    {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    const double a = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return {a, (sy - a * sx) / n};
}

/**
 * \brief Print one point's row.
 * \param p the point
 */
void
Print(const Point& p)
{
    std::cout << std::left << std::setw(22) << p.label << std::right << std::setw(5) << p.ues;
    if (!p.ok)
    {
        std::cout << "  not run: " << p.error << std::endl;
        return;
    }
    const double cpu = p.user + p.sys;
    std::cout << std::fixed << std::setprecision(2) << std::setw(8) << p.simSeconds << std::setw(8)
              << p.wall << std::setw(8) << p.user << std::setw(7) << p.sys << std::setw(9)
              << cpu / p.simSeconds << std::setw(9) << p.wall / p.simSeconds << std::setw(10)
              << std::setprecision(4) << cpu / (p.ues * std::max(1u, p.sites) * p.simSeconds)
              << std::setw(8) << std::setprecision(1) << p.rssMb << std::setw(9)
              << std::setprecision(3) << p.kvBytes / 1e9 << std::setw(6) << std::setprecision(0)
              << p.restored << std::endl;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string ues = "12,50,100,200";
    uint32_t kvUes = 50;
    uint32_t uesPerSite = 4;
    std::string sites = "2,7,19,57";
    std::string siteLayout = "road";
    double maxLossDb = 0;
    std::string axes = "ues,kv,amc,sites";
    std::string siteAmc;
    bool siteWarmupOnGpu = true;
    std::string siteRouterRouting = "EdgeLlm";
    CommandLine cmd(__FILE__);
    cmd.AddValue("ues", "Comma-separated UE counts K of the UE axis", ues);
    cmd.AddValue("kvUes", "K of the KV-size and CQI-model points", kvUes);
    cmd.AddValue("uesPerSite", "UEs per site of the sites axis (MultiCellScenario)", uesPerSite);
    cmd.AddValue("sites", "Comma-separated site counts of the sites axis", sites);
    cmd.AddValue("siteLayout",
                 "Layout of the sites axis: road ([2, 57]) or hex (7, 19)",
                 siteLayout);
    cmd.AddValue("maxLossDb",
                 "Spectrum cut-off of the sites axis, dB (MultiCellConfig maxLossDb; 0: none)",
                 maxLossDb);
    cmd.AddValue("siteAmc",
                 "CQI model of the sites axis: MiErrorModel or PiroEW2010 (\"\": ns-3's default)",
                 siteAmc);
    cmd.AddValue("siteWarmupOnGpu",
                 "Sites axis: prefill the prompts on each site's GPU before the handovers "
                 "(false: caches built on arrival, a shorter run, as a metro study)",
                 siteWarmupOnGpu);
    cmd.AddValue("siteRouterRouting",
                 "Sites axis: the routers' routing, EdgeLlm or Static (EdgeLlmBackhaul "
                 "RouterRouting), or both (each site count on each, their ratio)",
                 siteRouterRouting);
    cmd.AddValue("axes", "Comma-separated axes to run: ues, kv, amc, sites", axes);
    cmd.Parse(argc, argv);
    auto parseList =
        [](const std::string& list, const std::string& option, std::vector<uint32_t>& out) {
            std::istringstream in(list);
            std::string item;
            while (std::getline(in, item, ','))
            {
                std::size_t used = 0;
                unsigned long v = 0;
                try
                {
                    v = std::stoul(item, &used);
                }
                catch (const std::exception&)
                {
                    used = 0;
                }
                if (used == 0 || used != item.size() || v < 1 || v > 100000)
                {
                    std::cerr << "error: --" << option
                              << ": each value must be a whole number in [1, "
                              << "100000], got '" << item << "'\n";
                    return false;
                }
                out.push_back(static_cast<uint32_t>(v));
            }
            return true;
        };
    std::vector<uint32_t> siteCounts;
    if (!parseList(sites, "sites", siteCounts))
    {
        return 2;
    }
    if (siteRouterRouting != "EdgeLlm" && siteRouterRouting != "Static" &&
        siteRouterRouting != "both")
    {
        std::cerr << "error: --siteRouterRouting must be EdgeLlm, Static or both, got '"
                  << siteRouterRouting << "'\n";
        return 2;
    }
    if (siteLayout != "road" && siteLayout != "hex")
    {
        std::cerr << "error: --siteLayout must be road or hex, got '" << siteLayout << "'\n";
        return 2;
    }
    auto runs = [&axes](const std::string& axis) {
        return ("," + axes + ",").find("," + axis + ",") != std::string::npos;
    };
    {
        std::istringstream in(axes);
        std::string item;
        while (std::getline(in, item, ','))
        {
            if (item != "ues" && item != "kv" && item != "amc" && item != "sites")
            {
                std::cerr << "error: --axes: unknown axis '" << item
                          << "'; valid: ues, kv, amc, sites\n";
                return 2;
            }
        }
    }
    std::vector<uint32_t> ks;
    if (!parseList(ues, "ues", ks))
    {
        return 2;
    }
    if (ks.empty() || kvUes < 1)
    {
        std::cerr << "--ues must list at least one K and --kvUes must be >= 1\n";
        return 2;
    }

    std::cout << "edge-llm-scale-bench: LTE road, 2 sites, ctHO, " << TOKENS_AFTER
              << " tokens after each handover; one child process per point\n";
    std::cout << std::left << std::setw(22) << "point" << std::right << std::setw(5) << "K"
              << std::setw(8) << "sim s" << std::setw(8) << "wall s" << std::setw(8) << "user s"
              << std::setw(7) << "sys s" << std::setw(9) << "CPU/sim" << std::setw(9) << "wall/sim"
              << std::setw(10) << "CPU/UE-s" << std::setw(8) << "RSS MB" << std::setw(9) << "KV GB"
              << std::setw(6) << "rest" << std::endl;

    std::vector<Point> ueAxis;
    for (uint32_t k : runs("ues") ? ks : std::vector<uint32_t>{})
    {
        Point p;
        p.label = "ues";
        p.ues = k;
        Measure(p);
        Print(p);
        ueAxis.push_back(p);
    }
    Point base;
    for (const auto& p : ueAxis)
    {
        if (p.ok && p.ues == kvUes)
        {
            base = p;
        }
    }
    if (!base.ok && (runs("kv") || runs("amc")))
    {
        base.label = "ues";
        base.ues = kvUes;
        Measure(base);
        Print(base);
    }
    Point kv2;
    if (runs("kv"))
    {
        kv2.label = "kv x2 (contexts x2)";
        kv2.ues = kvUes;
        kv2.contextScale = 2;
        Measure(kv2);
        Print(kv2);
    }

    uint32_t largest = 0;
    Point largestBase;
    for (const auto& p : ueAxis)
    {
        if (p.ok && p.ues > largest)
        {
            largest = p.ues;
            largestBase = p;
        }
    }
    std::vector<std::pair<Point, Point>> amcPairs; // {MiErrorModel (default), PiroEW2010}
    for (const auto& b : runs("amc") ? std::vector<Point>{base, largestBase} : std::vector<Point>{})
    {
        if (!b.ok || (!amcPairs.empty() && b.ues == amcPairs.front().first.ues))
        {
            continue;
        }
        // Alternate the two models twice more and keep each one's least CPU time, so that
        // another process on the machine inflates neither side of the ratio alone.
        Point mi = b;
        Point piro;
        for (int rep = 0; rep < 2; ++rep)
        {
            Point m;
            m.label = "amcModel=MiErrorModel";
            m.ues = b.ues;
            m.amc = "MiErrorModel";
            Measure(m);
            Print(m);
            Point q;
            q.label = "amcModel=PiroEW2010";
            q.ues = b.ues;
            q.amc = "PiroEW2010";
            Measure(q);
            Print(q);
            if (m.ok && m.user + m.sys < mi.user + mi.sys)
            {
                mi = m;
            }
            if (q.ok && (!piro.ok || q.user + q.sys < piro.user + piro.sys))
            {
                piro = q;
            }
        }
        amcPairs.emplace_back(mi, piro);
    }

    // Sites axis: MultiCellScenario on --siteLayout (hex: 7 and 19 only), a star
    // backhaul, --uesPerSite UEs starting on each site, the spectrum cut-off --maxLossDb.
    const std::vector<std::string> routings = siteRouterRouting == "both"
                                                  ? std::vector<std::string>{"EdgeLlm", "Static"}
                                                  : std::vector<std::string>{siteRouterRouting};
    std::map<std::string, std::vector<Point>> siteAxis; // by routing
    for (uint32_t n : runs("sites") ? siteCounts : std::vector<uint32_t>{})
    {
        if (siteLayout == "hex" && n != 7 && n != 19)
        {
            std::cout << "sites=" << n << ": skipped (the hex layout has 7 or 19 sites)\n";
            continue;
        }
        for (const std::string& routing : routings)
        {
            Point p;
            p.label = siteLayout + " sites=" + std::to_string(n) +
                      (routings.size() > 1 ? " " + routing : "");
            p.ues = uesPerSite;
            p.sites = n;
            p.layout = siteLayout;
            p.maxLossDb = maxLossDb;
            p.amc = siteAmc;
            p.gpuWarmup = siteWarmupOnGpu;
            p.routing = routing;
            Measure(p);
            Print(p);
            siteAxis[routing].push_back(p);
        }
        if (routings.size() > 1)
        {
            const Point& fast = siteAxis["EdgeLlm"].back();
            const Point& reference = siteAxis["Static"].back();
            if (fast.ok && reference.ok)
            {
                std::cout << std::setprecision(3) << "sites=" << n
                          << ": CPU-s EdgeLlm / Static routing = "
                          << (fast.user + fast.sys) / (reference.user + reference.sys)
                          << (fast.kvBytes == reference.kvBytes ? " (same KV bytes)"
                                                                : " (KV bytes differ)")
                          << "\n";
            }
        }
    }
    for (const std::string& routing : routings)
    {
        std::vector<double> x;
        std::vector<double> y;
        for (const auto& p : siteAxis[routing])
        {
            if (p.ok)
            {
                x.push_back(std::log(p.sites));
                y.push_back(std::log((p.user + p.sys) / p.simSeconds));
            }
        }
        if (x.size() >= 2)
        {
            const auto [e, c] = Fit(x, y);
            const std::string key = routing == "EdgeLlm" ? "" : "_" + routing;
            std::cout << std::setprecision(3) << "fit: sites, CPU-s per simulated s ~ "
                      << std::exp(c) << " x sites^" << e << " (" << uesPerSite << " UEs per site, "
                      << siteLayout << ", maxLossDb " << maxLossDb << ", CQI "
                      << (siteAmc.empty() ? "default" : siteAmc) << ", GPU warm-up "
                      << (siteWarmupOnGpu ? "on" : "off") << ", router routing " << routing
                      << ")\nfit_site_exponent" << key << "=" << e << "\n";
        }
    }

    // Fits over the UE axis points that ran.
    std::vector<double> lx;
    std::vector<double> ly;
    std::vector<double> ux;
    std::vector<double> uy;
    for (const auto& p : ueAxis)
    {
        if (p.ok)
        {
            const double cpu = p.user + p.sys;
            lx.push_back(std::log(p.ues));
            ly.push_back(std::log(cpu / p.simSeconds));
            ux.push_back(p.ues * p.simSeconds);
            uy.push_back(cpu);
        }
    }
    std::cout << std::setprecision(3);
    if (lx.size() >= 2)
    {
        const auto [e, c] = Fit(lx, ly);
        const auto [a, b] = Fit(ux, uy);
        std::cout << "fit: CPU-s per simulated s ~ " << std::exp(c) << " x K^" << e
                  << " (log-log least squares over " << lx.size() << " points)\n";
        std::cout << "fit: CPU-s = " << std::setprecision(4) << a << " x (K x simulated s) + "
                  << std::setprecision(2) << b << " s\n";
        std::cout << "fit_ue_exponent=" << std::setprecision(3) << e << "\n"
                  << "cpu_s_per_ue_sim_s=" << std::setprecision(4) << a << "\n";
    }
    if (base.ok && kv2.ok)
    {
        const double c1 = base.user + base.sys;
        const double c2 = kv2.user + kv2.sys;
        std::cout << std::setprecision(3) << "kv: K = " << kvUes << ", KV bytes x"
                  << kv2.kvBytes / base.kvBytes << " -> CPU-s x" << c2 / c1
                  << ", CPU-s per simulated s x" << (c2 / kv2.simSeconds) / (c1 / base.simSeconds)
                  << ", simulated s x" << kv2.simSeconds / base.simSeconds << "\n"
                  << "kv_cpu_s_per_gb=" << (c2 - c1) / ((kv2.kvBytes - base.kvBytes) / 1e9) << "\n";
    }
    for (const auto& [mi, piro] : amcPairs)
    {
        if (mi.ok && piro.ok)
        {
            std::cout << std::setprecision(3) << "amc: K = " << mi.ues
                      << ", least CPU-s per simulated s of 2 (MiErrorModel: 3) runs, "
                         "PiroEW2010 / MiErrorModel = "
                      << ((piro.user + piro.sys) / piro.simSeconds) /
                             ((mi.user + mi.sys) / mi.simSeconds)
                      << " (simulated s " << mi.simSeconds << " vs " << piro.simSeconds
                      << ", restored " << mi.restored << " vs " << piro.restored << ")\n";
        }
    }
    return 0;
}
