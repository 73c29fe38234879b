/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-planner.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ns3
{

CtHoPlanner::CtHoPlanner(double backhaulTokensPerSecond,
                         PrefillTimeModel prefill,
                         double batchPeriod)
    : m_rate(backhaulTokensPerSecond),
      m_prefill(prefill),
      m_batchPeriod(batchPeriod)
{
    if (!std::isfinite(backhaulTokensPerSecond) || backhaulTokensPerSecond <= 0)
    {
        throw std::invalid_argument("backhaul rate must be a finite number > 0 tokens/s, got " +
                                    std::to_string(backhaulTokensPerSecond));
    }
    if (!std::isfinite(batchPeriod) || batchPeriod < 0 || batchPeriod > 3600)
    {
        throw std::invalid_argument("batch period T_c must be in [0, 3600] s, got " +
                                    std::to_string(batchPeriod));
    }
}

void
CtHoPlanner::SetBackhaulFreeAt(double time)
{
    if (!std::isfinite(time) || time < 0)
    {
        throw std::invalid_argument("backhaul free time must be a finite number >= 0 s");
    }
    m_backhaulFreeAt = time;
}

double
CtHoPlanner::GetBackhaulTokensPerSecond() const
{
    return m_rate;
}

double
CtHoPlanner::BatchStart(double lastHandoverTime) const
{
    if (m_batchPeriod == 0)
    {
        return lastHandoverTime;
    }
    // A handover within 1e-9 T_c after a boundary counts as on it (floating-point
    // noise); the batch never starts before the handover itself.
    const double periods = std::ceil(lastHandoverTime / m_batchPeriod - 1e-9);
    return std::max(std::max(periods, 0.0) * m_batchPeriod, lastHandoverTime);
}

CtHoPlanner::Batch
CtHoPlanner::Prepare(const std::vector<CtHoUe>& ues) const
{
    if (ues.empty())
    {
        throw std::invalid_argument("a ctHO batch needs at least one UE");
    }
    Batch batch;
    batch.inputIndex.resize(ues.size());
    std::iota(batch.inputIndex.begin(), batch.inputIndex.end(), 0);
    for (const auto& ue : ues)
    {
        if (!std::isfinite(ue.handoverTime) || ue.handoverTime < 0)
        {
            throw std::invalid_argument("UE " + std::to_string(ue.ueId) +
                                        ": handover time must be a finite number >= 0 s");
        }
        if (ue.contextTokens < 1)
        {
            throw std::invalid_argument("UE " + std::to_string(ue.ueId) +
                                        ": context length must be >= 1 token");
        }
        batch.maxContext = std::max(batch.maxContext, ue.contextTokens);
    }
    std::stable_sort(
        batch.inputIndex.begin(),
        batch.inputIndex.end(),
        [&ues](std::size_t x, std::size_t y) { return ues[x].handoverTime < ues[y].handoverTime; });
    batch.sorted.reserve(ues.size());
    for (std::size_t idx : batch.inputIndex)
    {
        batch.sorted.push_back(ues[idx]);
    }
    batch.batchStart = BatchStart(batch.sorted.back().handoverTime);
    return batch;
}

double
CtHoPlanner::PrefillDelay(const Batch& batch, uint64_t prefillLength) const
{
    if (prefillLength == 0)
    {
        return 0.0;
    }
    return batch.batchStart + m_prefill.Evaluate(prefillLength) - batch.sorted.front().handoverTime;
}

double
CtHoPlanner::TransferDelay(const Batch& batch, uint64_t prefillLength) const
{
    // FIFO fluid recursion: T_k = max_{j<=k} (tau_j + (S_k - S_{j-1}) / R), so
    // max_k (T_k - tau_k)^+ is the full g(L) of doc/edge-llm.rst, ctHO delay.
    double busy = m_backhaulFreeAt;
    double worst = 0;
    for (const auto& ue : batch.sorted)
    {
        if (ue.contextTokens <= prefillLength)
        {
            continue; // n_tx = 0: done at tau_i, delay 0
        }
        const double tx = static_cast<double>(ue.contextTokens - prefillLength);
        busy = std::max(busy, ue.handoverTime) + tx / m_rate;
        worst = std::max(worst, busy - ue.handoverTime);
    }
    return worst;
}

CtHoPlan
CtHoPlanner::Evaluate(const Batch& batch, uint64_t prefillLength) const
{
    CtHoPlan plan;
    plan.prefillLength = prefillLength;
    plan.batchStart = batch.batchStart;
    plan.prefillDone = batch.batchStart + m_prefill.Evaluate(prefillLength);
    plan.prefillDelay = PrefillDelay(batch, prefillLength);
    plan.backhaulTokensPerSecond = m_rate;
    plan.ues.resize(batch.sorted.size());

    double busy = m_backhaulFreeAt;
    double worst = 0;
    double transferWorst = 0;
    for (std::size_t k = 0; k < batch.sorted.size(); ++k)
    {
        const CtHoUe& ue = batch.sorted[k];
        CtHoUePlan& out = plan.ues[batch.inputIndex[k]];
        out.ueId = ue.ueId;
        out.handoverTime = ue.handoverTime;
        out.contextTokens = ue.contextTokens;
        out.prefillTokens = std::min(ue.contextTokens, prefillLength);
        out.transferTokens = ue.contextTokens - out.prefillTokens;
        out.prefillDone = out.prefillTokens > 0 ? plan.prefillDone : ue.handoverTime;
        if (out.transferTokens > 0)
        {
            busy =
                std::max(busy, ue.handoverTime) + static_cast<double>(out.transferTokens) / m_rate;
            out.transferDone = busy;
        }
        else
        {
            out.transferDone = ue.handoverTime;
        }
        out.delay = std::max(out.prefillDone, out.transferDone) - ue.handoverTime;
        worst = std::max(worst, out.delay);
        transferWorst = std::max(transferWorst, out.transferDone - ue.handoverTime);
    }
    plan.transferDelay = transferWorst;
    plan.worstDelay = worst;
    return plan;
}

CtHoPlan
CtHoPlanner::PlanWithPrefillLength(const std::vector<CtHoUe>& ues, uint64_t prefillLength) const
{
    return Evaluate(Prepare(ues), prefillLength);
}

CtHoPlan
CtHoPlanner::PlanOptimal(const std::vector<CtHoUe>& ues) const
{
    const Batch batch = Prepare(ues);
    const uint64_t cmax = batch.maxContext;
    auto value = [&](uint64_t l) {
        return std::max(PrefillDelay(batch, l), TransferDelay(batch, l));
    };

    // Smallest L in [1, C_max] with f(L) >= g(L) (ctHO Sec. III-A, the proposition after
    // Prop. 2: the f = g crossing).
    uint64_t lo = 1;
    uint64_t hi = cmax + 1; // hi = C_max + 1 means "no crossing in [1, C_max]"
    while (lo < hi)
    {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (PrefillDelay(batch, mid) >= TransferDelay(batch, mid))
        {
            hi = mid;
        }
        else
        {
            lo = mid + 1;
        }
    }
    // V = g left of the crossing (non-increasing), V = f from it on (non-decreasing):
    // the minimum is at 0, just left of the crossing, or at it (C_max if none).
    std::vector<uint64_t> candidates{0};
    if (lo <= cmax)
    {
        if (lo > 1)
        {
            candidates.push_back(lo - 1);
        }
        candidates.push_back(lo);
    }
    else
    {
        candidates.push_back(cmax);
    }
    uint64_t best = candidates.front();
    double bestValue = value(best);
    for (uint64_t l : candidates)
    {
        const double v = value(l);
        if (v < bestValue)
        {
            best = l;
            bestValue = v;
        }
    }
    return Evaluate(batch, best);
}

} // namespace ns3
