/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "coordinated-planner.h"

#include "edge-llm-limits.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

CoordinatedPlanner::CoordinatedPlanner(PrefillTimeModel prefill, double batchPeriod)
    : m_prefill(prefill),
      m_batchPeriod(batchPeriod)
{
    edgellm::CheckBatchPeriod("CoordinatedPlanner: batchPeriod", batchPeriod);
}

void
CoordinatedPlanner::SetGpuFreeAt(double t)
{
    if (!std::isfinite(t))
    {
        throw std::invalid_argument("CoordinatedPlanner: gpuFreeAt = " + std::to_string(t) +
                                    " s; valid: finite");
    }
    m_gpuFreeAt = t;
}

double
CoordinatedPlanner::Check(const std::vector<CoordinatedSource>& sources) const
{
    if (sources.empty())
    {
        throw std::invalid_argument("CoordinatedPlanner: no source; valid: at least one");
    }
    double last = 0;
    for (std::size_t s = 0; s < sources.size(); ++s)
    {
        const CoordinatedSource& src = sources[s];
        const double r = src.backhaulTokensPerSecond;
        if (!(std::isfinite(r) && r > 0))
        {
            throw std::invalid_argument("CoordinatedPlanner: source " + std::to_string(s) +
                                        " (cell " + std::to_string(src.sourceCellId) +
                                        "): backhaulTokensPerSecond = " + std::to_string(r) +
                                        "; valid: finite and > 0");
        }
        if (!std::isfinite(src.backhaulFreeAt))
        {
            throw std::invalid_argument(
                "CoordinatedPlanner: source " + std::to_string(s) + " (cell " +
                std::to_string(src.sourceCellId) +
                "): backhaulFreeAt = " + std::to_string(src.backhaulFreeAt) + "; valid: finite");
        }
        if (src.ues.empty())
        {
            throw std::invalid_argument("CoordinatedPlanner: source " + std::to_string(s) +
                                        " (cell " + std::to_string(src.sourceCellId) +
                                        ") has no UE; valid: at least one");
        }
        for (const CtHoUe& ue : src.ues)
        {
            last = std::max(last, ue.handoverTime); // the UE's own fields: CtHoPlanner checks
        }
    }
    return last;
}

CtHoPlanner
CoordinatedPlanner::SourcePlanner(const CoordinatedSource& src, double lastHandover) const
{
    // One GPU batch for every source: it cannot start before the last handover of any of
    // them (a source's own planner sees that as the GPU being busy until then), nor
    // before the GPU is free.
    CtHoPlanner planner(src.backhaulTokensPerSecond, m_prefill, m_batchPeriod);
    planner.SetBackhaulFreeAt(src.backhaulFreeAt);
    CtHoSignalling shared = src.signalling;
    shared.gpuFreeAt = std::max({lastHandover, m_gpuFreeAt, src.signalling.gpuFreeAt});
    shared.closeSentAt = -1;
    planner.SetSignalling(shared);
    return planner;
}

CoordinatedPlan
CoordinatedPlanner::PlanWithPrefillLength(const std::vector<CoordinatedSource>& sources,
                                          uint64_t prefillLength) const
{
    const double last = Check(sources);
    CoordinatedPlan plan;
    plan.prefillLength = prefillLength;
    for (const CoordinatedSource& src : sources)
    {
        plan.sources.push_back(
            SourcePlanner(src, last).PlanWithPrefillLength(src.ues, prefillLength));
        const CtHoPlan& p = plan.sources.back();
        plan.batchStart = p.batchStart;
        plan.prefillDone = p.prefillDone;
        plan.worstDelay = std::max(plan.worstDelay, p.worstDelay);
    }
    return plan;
}

CoordinatedPlan
CoordinatedPlanner::PlanOptimal(const std::vector<CoordinatedSource>& sources) const
{
    const double last = Check(sources);
    uint64_t cmax = 0;
    // Where some source's f may not be monotone (packet level: a request waiting behind
    // a part of its source's KV that varies with L), every L is evaluated.
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const CoordinatedSource& src : sources)
    {
        for (const CtHoUe& ue : src.ues)
        {
            cmax = std::max(cmax, ue.contextTokens);
        }
        for (const auto& span : SourcePlanner(src, last).IrregularSpans(src.ues))
        {
            spans.push_back(span);
        }
    }
    std::sort(spans.begin(), spans.end());
    // Elsewhere F(L) = max_s f_s(L) is non-decreasing and G(L) = max_s g_s(L)
    // non-increasing, as for one source.
    const std::vector<uint64_t> candidates =
        CtHoPlanner::CandidateLengths(cmax, spans, [&](uint64_t l) {
            const CoordinatedPlan p = PlanWithPrefillLength(sources, l);
            double f = 0;
            double g = 0;
            for (const CtHoPlan& s : p.sources)
            {
                f = std::max(f, s.prefillDelay);
                g = std::max(g, s.transferDelay);
            }
            return f >= g;
        });
    CoordinatedPlan best = PlanWithPrefillLength(sources, candidates.front());
    for (std::size_t i = 1; i < candidates.size(); ++i)
    {
        CoordinatedPlan p = PlanWithPrefillLength(sources, candidates[i]);
        if (p.worstDelay < best.worstDelay)
        {
            best = std::move(p); // ascending L: a tie keeps the smaller
        }
    }
    return best;
}

} // namespace ns3
