/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-figures-study.h"

#include "ns3/edge-llm-stats.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

std::vector<std::string>
CtHoFigures::FigureIds()
{
    return {"3a", "3b", "3c", "3d", "4", "online"};
}

std::vector<double>
CtHoFigures::SweepValues(const std::string& figure)
{
    if (figure == "3a")
    {
        return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; // Gbit/s
    }
    if (figure == "3b")
    {
        return {2e-5, 4e-5, 6e-5, 8e-5, 1e-4, 1.2e-4, 1.4e-4, 1.6e-4, 1.8e-4, 2e-4}; // s/token
    }
    if (figure == "3c")
    {
        return {2048, 4096, 6144, 8192, 10240, 12288, 14336, 16384}; // tokens
    }
    if (figure == "3d")
    {
        return {2, 4, 6, 8, 10, 12, 14, 16}; // UEs
    }
    if (figure == "4")
    {
        // Beyond ~550 m the no-HO rate falls so fast (alpha = 4) that G tokens are never
        // delivered: the sweep stops at the paper's 500 m.
        return {200, 250, 300, 350, 375, 400, 450, 500}; // m
    }
    if (figure == "online")
    {
        return {0, 0.05, 0.1, 0.2, 0.3, 0.5}; // look-ahead, s
    }
    throw std::invalid_argument("--figure must be one of 3a, 3b, 3c, 3d, 4 or online, got '" +
                                figure + "'");
}

std::string
CtHoFigures::XLabel(const std::string& figure)
{
    static const std::map<std::string, std::string> labels = {
        {"3a", "Backhaul rate R_{bh} (Gbit/s)"},
        {"3b", "Prefill slope a (s/token)"},
        {"3c", "Maximum context C_{max} (tokens)"},
        {"3d", "Number of UEs K"},
        {"4", "Distance between BSs D_{bs} (m)"},
        {"online", "Online look-ahead (s)"}};
    return labels.at(figure);
}

std::string
CtHoFigures::Title(const std::string& figure, const CtHoFigureSettings& base, uint32_t packetRuns)
{
    // Every knob the sweep holds fixed (the swept one is the x axis), on two lines that
    // fit the 800-pixel PNG: the workload and backhaul, then the model and geometry.
    std::vector<std::string> load;
    std::ostringstream v;
    auto add = [&v](std::vector<std::string>& line) {
        line.push_back(v.str());
        v.str("");
    };
    if (figure != "3d")
    {
        v << "K = " << base.road.numUes;
        add(load);
    }
    if (figure != "3c")
    {
        v << "C ~ U[" << base.road.contextMin << ", " << base.road.contextMax << "] tokens";
        add(load);
    }
    else
    {
        v << "C ~ U[" << base.road.contextMin << ", C_{max}] tokens";
        add(load);
    }
    if (figure != "3a")
    {
        v << "R_{bh} = " << base.fluid.backhaulGbps << " Gbit/s";
        add(load);
    }
    if (figure != "3b")
    {
        v << "a = " << base.fluid.prefill.GetA() << " s/token";
        add(load);
    }
    std::vector<std::string> setup;
    v << base.fluid.model << " q = " << base.fluid.kvBits;
    add(setup);
    v << "T_c = " << base.fluid.batchPeriod.GetMilliSeconds() << " ms";
    add(setup);
    if (figure == "4")
    {
        v << "G = " << base.streamTokens << " tokens";
        add(setup);
    }
    else
    {
        v << "D_{bs} = 300 m, " << base.road.speed << " m/s";
        add(setup);
    }
    std::ostringstream t;
    t << "ctHO Fig. " << figure << ": " << YLabel(figure);
    for (const auto* line : {&load, &setup})
    {
        for (std::size_t i = 0; i < line->size(); ++i)
        {
            t << (i == 0 ? "\\n" : ", ") << (*line)[i];
        }
    }
    t << "\\n" << base.runs << " runs per point";
    if (packetRuns > 0)
    {
        t << " (packet level: " << packetRuns << ")";
    }
    t << ", 95% CI";
    return t.str();
}

std::string
CtHoFigures::YLabel(const std::string& figure)
{
    return figure == "4" ? "Worst-user total streaming delay (s)"
                         : "Worst-user LLM handover delay (s)";
}

std::vector<std::string>
CtHoFigures::Schemes(const std::string& figure)
{
    if (figure == "4")
    {
        return {"ctho", "tho", "cho", "no-ho"};
    }
    if (figure == "online")
    {
        return {"ctho", "ctho-online"};
    }
    return {"ctho", "tho", "cho"};
}

const HandoverScheme&
CtHoFigures::Scheme(const std::string& curve)
{
    if (curve == "no-ho")
    {
        throw std::invalid_argument("no scheduler for scheme '" + curve + "'");
    }
    return HandoverSchemeRegistry::Find(curve == "ctho-online" ? "ctho" : curve);
}

FluidHandoverConfig
CtHoFigures::FluidConfig(const CtHoFigureSettings& settings, const std::string& curve)
{
    FluidHandoverConfig cfg = settings.fluid;
    const HandoverScheme& scheme = Scheme(curve);
    cfg.schedulerType = scheme.typeId;
    cfg.schedulerAttributes = scheme.attributes;
    return cfg;
}

CtHoFigureSettings
CtHoFigures::AtPoint(const std::string& figure, const CtHoFigureSettings& base, double x)
{
    CtHoFigureSettings s = base;
    if (figure == "3a")
    {
        s.fluid.backhaulGbps = x;
    }
    else if (figure == "3b")
    {
        s.fluid.prefill = PrefillTimeModel(x, base.fluid.prefill.GetB(), base.fluid.prefill.GetC());
    }
    else if (figure == "3c")
    {
        s.road.contextMax = static_cast<uint32_t>(x);
    }
    else if (figure == "3d")
    {
        s.road.numUes = static_cast<uint32_t>(x);
    }
    else if (figure == "online")
    {
        s.fluid.lookahead = Seconds(x);
    }
    else if (figure == "4")
    {
        // The paper's geometry scaled to D_bs: boundary halfway, UEs 20-30 m before it.
        const double offsetMin = base.road.boundary - base.road.startMax;
        const double offsetMax = base.road.boundary - base.road.startMin;
        s.road.boundary = x / 2;
        s.road.startMin = x / 2 - offsetMax;
        s.road.startMax = x / 2 - offsetMin;
    }
    else
    {
        SweepValues(figure); // throws for an unknown figure
    }
    return s;
}

double
CtHoFigures::FlowLevelRun(const std::string& figure,
                          const CtHoFigureSettings& settings,
                          const std::string& scheme,
                          uint64_t run)
{
    const std::vector<CtHoUe> ues = settings.road.Draw(run);
    if (figure != "4")
    {
        FluidHandoverConfig cfg = FluidConfig(settings, scheme);
        // "ctho-online": nobody announces the handovers (online ctHO); "ctho" knows them.
        cfg.knownHandoverTimes = scheme != "ctho-online";
        return FluidHandoverScenario::Run(cfg, ues).worstDelay;
    }
    // Fig. 4: handover delay, then G tokens over the radio; no-HO streams from the
    // source from the handover time on.
    const double bits = settings.streamTokens * settings.tokenBits;
    const double bsDistance = 2 * settings.road.boundary;
    const double v = settings.road.speed;
    double worst = 0;
    if (scheme == "no-ho")
    {
        // Every UE is at the boundary at its handover time and streams from the source.
        return settings.radio.StreamTime(bits, settings.road.boundary, v, 0.0);
    }
    const FluidHandoverConfig cfg = FluidConfig(settings, scheme);
    const FluidHandoverResult r = FluidHandoverScenario::Run(cfg, ues);
    for (const auto& u : r.ues)
    {
        const double x = settings.road.boundary + v * u.delay; // where streaming resumes
        worst = std::max(worst, u.delay + settings.radio.StreamTime(bits, x, v, bsDistance));
    }
    return worst;
}

std::vector<CtHoFigurePoint>
CtHoFigures::RunFlowLevel(const std::string& figure,
                          const CtHoFigureSettings& base,
                          const CtHoFigureProgress& progress)
{
    const std::vector<double> xs = SweepValues(figure);
    const std::vector<std::string> schemes = Schemes(figure);
    const uint64_t totalRuns = static_cast<uint64_t>(xs.size()) * schemes.size() * base.runs;
    uint64_t done = 0;
    std::vector<CtHoFigurePoint> points;
    for (std::size_t p = 0; p < xs.size(); ++p)
    {
        const CtHoFigureSettings s = AtPoint(figure, base, xs[p]);
        for (const auto& scheme : schemes)
        {
            std::vector<double> samples;
            samples.reserve(base.runs);
            for (uint64_t r = 1; r <= base.runs; ++r)
            {
                samples.push_back(FlowLevelRun(figure, s, scheme, r));
                ++done;
                if (progress)
                {
                    // After every run: a sweep of large K can take minutes per point.
                    progress(static_cast<uint32_t>(p), // points done
                             static_cast<uint32_t>(xs.size()),
                             done,
                             totalRuns);
                }
            }
            const SampleSummary sum = SummarizeSamples(samples);
            points.push_back({xs[p], scheme, sum.mean, sum.ci95, sum.n});
        }
        if (progress)
        {
            progress(static_cast<uint32_t>(p + 1),
                     static_cast<uint32_t>(xs.size()),
                     done,
                     totalRuns);
        }
    }
    return points;
}

} // namespace ns3
