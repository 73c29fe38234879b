/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ctho-planner.h"

#include "edge-llm-limits.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
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
    edgellm::CheckBatchPeriod("batch period T_c", batchPeriod);
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

void
CtHoPlanner::SetSignalling(const CtHoSignalling& signalling)
{
    auto require = [](double value, const char* field, bool ok, const std::string& range) {
        if (!std::isfinite(value) || !ok)
        {
            throw std::invalid_argument(std::string("signalling ") + field + " must be " + range +
                                        ", got " + std::to_string(value));
        }
    };
    const CtHoSignalling& g = signalling;
    require(g.pathDelay, "pathDelay", g.pathDelay >= 0, "a finite number >= 0 s");
    require(g.controlFreeAt, "controlFreeAt", g.controlFreeAt >= 0, "a finite number >= 0 s");
    require(g.requestTime, "requestTime", g.requestTime >= 0, "a finite number >= 0 s");
    require(g.closeTime, "closeTime", g.closeTime >= 0, "a finite number >= 0 s");
    require(g.closeAhead, "closeAhead", g.closeAhead >= 0, "a finite number >= 0 s");
    require(g.closeMargin, "closeMargin", g.closeMargin >= 0, "a finite number >= 0 s");
    require(g.gpuFreeAt, "gpuFreeAt", g.gpuFreeAt >= 0, "a finite number >= 0 s");
    require(g.closeSentAt, "closeSentAt", true, "a finite number (< 0: no close message)");
    require(g.idTimePerToken,
            "idTimePerToken",
            g.idTimePerToken >= 0 && g.idTimePerToken * m_rate < 1,
            "in [0, 1/R) s = [0, " + std::to_string(1 / m_rate) + ") s");
    m_signalling = signalling;
}

double
CtHoPlanner::GetBackhaulTokensPerSecond() const
{
    return m_rate;
}

double
CtHoPlanner::BatchStart(double lastHandoverTime) const
{
    return BatchStart(lastHandoverTime, m_batchPeriod);
}

double
CtHoPlanner::BatchStart(double lastHandoverTime, double batchPeriod)
{
    if (batchPeriod == 0)
    {
        return lastHandoverTime;
    }
    // A handover within 1e-9 T_c after a boundary counts as on it (floating-point
    // noise); the batch never starts before the handover itself.
    const double periods = std::ceil(lastHandoverTime / batchPeriod - 1e-9);
    return std::max(std::max(periods, 0.0) * batchPeriod, lastHandoverTime);
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
    return batch;
}

double
CtHoPlanner::RequestTime(const CtHoUe& ue, uint64_t prefillLength) const
{
    const double ids = static_cast<double>(std::min(ue.contextTokens, prefillLength));
    return m_signalling.requestTime + m_signalling.idTimePerToken * ids;
}

double
CtHoPlanner::BatchStartAt(const Batch& batch, uint64_t prefillLength) const
{
    // The requests leave in handover order ahead of queued KV bytes, behind the bytes
    // already in the transport; the close message (online) follows them.
    const CtHoSignalling& sig = m_signalling;
    // A request also waits for the KV bytes of the UEs before it that are already in the
    // transport: at most the send buffer's drain time (closeAhead), none once they have
    // left.
    double ready = std::max(batch.sorted.back().handoverTime, sig.gpuFreeAt);
    double sent = sig.controlFreeAt;
    double busy = m_backhaulFreeAt;
    for (const auto& ue : batch.sorted)
    {
        const double ahead = std::min(sig.closeAhead, std::max(0.0, busy - ue.handoverTime));
        sent = std::max(sent, ue.handoverTime + ahead) + RequestTime(ue, prefillLength);
        ready = std::max(ready, sent + sig.pathDelay);
        busy = LinkDone(busy, ue, prefillLength);
    }
    if (sig.closeSentAt >= 0)
    {
        // Behind the close: the transport's queued bytes, at most closeAhead, and none
        // once the planned KV bytes have left.
        const double ahead =
            std::min(sig.closeAhead,
                     std::max(0.0, BusyEnd(batch, prefillLength) - sig.closeSentAt));
        sent = std::max(sent, sig.closeSentAt + ahead) + sig.closeTime;
        ready = std::max(ready, sent + sig.pathDelay);
    }
    return BatchStart(ready);
}

double
CtHoPlanner::LinkDone(double busy, const CtHoUe& ue, uint64_t prefillLength) const
{
    // The UE's request (with its ids) and then its n_tx tokens' KV, FIFO behind the rest.
    const uint64_t ntx = ue.contextTokens > prefillLength ? ue.contextTokens - prefillLength : 0;
    const double work = RequestTime(ue, prefillLength) + static_cast<double>(ntx) / m_rate;
    return work > 0 ? std::max(busy, ue.handoverTime) + work : busy;
}

double
CtHoPlanner::BusyEnd(const Batch& batch, uint64_t prefillLength) const
{
    return BusyAfter(batch, prefillLength, batch.sorted.size());
}

double
CtHoPlanner::BusyAfter(const Batch& batch, uint64_t prefillLength, std::size_t count) const
{
    double busy = m_backhaulFreeAt;
    for (std::size_t k = 0; k < count; ++k)
    {
        busy = LinkDone(busy, batch.sorted[k], prefillLength);
    }
    return busy;
}

double
CtHoPlanner::PrefillDelay(const Batch& batch, uint64_t prefillLength) const
{
    if (prefillLength == 0)
    {
        return 0.0;
    }
    return BatchStartAt(batch, prefillLength) + m_prefill.Evaluate(prefillLength) -
           batch.sorted.front().handoverTime;
}

double
CtHoPlanner::TransferDelay(const Batch& batch, uint64_t prefillLength) const
{
    // FIFO fluid recursion: T_k = max_{j<=k} (tau_j + (S_k - S_{j-1}) / R), so
    // max_k (T_k - tau_k)^+ is the full g(L) of doc/edge-llm-design.rst, ctHO delay. At packet
    // level each UE's request precedes its KV bytes and the KV arrives a path delay later.
    double busy = m_backhaulFreeAt;
    double worst = 0;
    for (const auto& ue : batch.sorted)
    {
        busy = LinkDone(busy, ue, prefillLength);
        if (ue.contextTokens > prefillLength) // n_tx > 0 (else done at tau_i, delay 0)
        {
            worst = std::max(worst, busy + m_signalling.pathDelay - ue.handoverTime);
        }
    }
    return worst;
}

CtHoPlan
CtHoPlanner::Evaluate(const Batch& batch, uint64_t prefillLength) const
{
    CtHoPlan plan;
    plan.prefillLength = prefillLength;
    plan.batchStart = BatchStartAt(batch, prefillLength);
    plan.prefillDone = plan.batchStart + m_prefill.Evaluate(prefillLength);
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
        busy = LinkDone(busy, ue, prefillLength);
        if (out.transferTokens > 0)
        {
            out.transferDone = busy + m_signalling.pathDelay;
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

uint64_t
CtHoPlanner::SmallestL(uint64_t lo, uint64_t hi, const std::function<bool(uint64_t)>& holds)
{
    while (lo < hi)
    {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (holds(mid))
        {
            hi = mid;
        }
        else
        {
            lo = mid + 1;
        }
    }
    return lo;
}

std::vector<std::pair<uint64_t, uint64_t>>
CtHoPlanner::IrregularSpans(const std::vector<CtHoUe>& ues) const
{
    const Batch batch = Prepare(ues);
    const uint64_t cmax = batch.maxContext;
    // A request (and an online close) waits behind min(closeAhead, KV still queued when
    // it is sent): the queued KV, B(L), is non-increasing in L, so the wait is the full
    // closeAhead for L < l1, none for L >= l0, and f is monotone wherever no wait varies;
    // where one does (a few tokens' worth of KV time, closeAhead x R, each), every L is
    // evaluated.
    const CtHoSignalling& sig = m_signalling;
    std::vector<std::pair<uint64_t, uint64_t>> spans; // [lo, hi): every L evaluated
    auto span = [&](double sentAt, std::size_t count) {
        auto queued = [&](uint64_t m) { return BusyAfter(batch, m, count); };
        const uint64_t l1 =
            SmallestL(1, cmax + 1, [&](uint64_t m) { return queued(m) < sentAt + sig.closeAhead; });
        const uint64_t l0 =
            SmallestL(l1, cmax + 1, [&](uint64_t m) { return queued(m) <= sentAt; });
        // Past the largest context among the first count UEs, B(L) no longer moves.
        uint64_t moves = 0;
        for (std::size_t k = 0; k < count; ++k)
        {
            moves = std::max(moves, batch.sorted[k].contextTokens);
        }
        const uint64_t hi = std::min(l0, moves + 1);
        if (l1 < hi)
        {
            spans.emplace_back(l1, hi);
        }
    };
    if (sig.closeAhead > 0)
    {
        for (std::size_t k = 1; k < batch.sorted.size(); ++k)
        {
            span(batch.sorted[k].handoverTime, k);
        }
        if (sig.closeSentAt >= 0)
        {
            span(sig.closeSentAt, batch.sorted.size());
        }
    }
    std::sort(spans.begin(), spans.end());
    // Disjoint: a span overlapping the one before extends it.
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& [lo, hi] : spans)
    {
        if (!merged.empty() && lo <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, hi);
        }
        else
        {
            merged.emplace_back(lo, hi);
        }
    }
    return merged;
}

std::vector<uint64_t>
CtHoPlanner::CandidateLengths(uint64_t cmax,
                              const std::vector<std::pair<uint64_t, uint64_t>>& spans,
                              const std::function<bool(uint64_t)>& prefillAtLeastTransfer)
{
    std::vector<uint64_t> candidates{0, cmax};
    // f is non-decreasing and g non-increasing on [lo, hi): the minimum of max(f, g) there
    // is at their crossing (the smallest L with f >= g), just left of it, or at hi - 1.
    auto crossing = [&](uint64_t lo, uint64_t hi) {
        if (lo >= hi)
        {
            return;
        }
        const uint64_t l = SmallestL(lo, hi, prefillAtLeastTransfer);
        if (l < hi)
        {
            candidates.push_back(l);
        }
        if (l > lo)
        {
            candidates.push_back(l - 1);
        }
        candidates.push_back(hi - 1);
    };
    uint64_t from = 1; // the next L not yet covered
    for (const auto& [lo, hi] : spans)
    {
        if (hi <= from)
        {
            continue;
        }
        crossing(from, std::max(from, lo));
        for (uint64_t l = std::max(from, lo); l < hi; ++l)
        {
            candidates.push_back(l);
        }
        from = hi;
    }
    crossing(from, cmax + 1);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    return candidates;
}

CtHoPlan
CtHoPlanner::PlanOptimal(const std::vector<CtHoUe>& ues) const
{
    const Batch batch = Prepare(ues);
    auto value = [&](uint64_t l) {
        return std::max(PrefillDelay(batch, l), TransferDelay(batch, l));
    };
    const std::vector<uint64_t> candidates =
        CandidateLengths(batch.maxContext, IrregularSpans(ues), [&](uint64_t m) {
            return PrefillDelay(batch, m) >= TransferDelay(batch, m);
        });
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
