/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Independent reference for the ctHO planner tests: evaluates V(L) straight from
 * doc/edge-llm-design.rst, ctHO delay (the O(K^2) double maximum over j <= k for g, no recursion)
 * and scans every integer L. Shared by the ns-3 TestSuite and the GoogleTest suite.
 */
#ifndef CTHO_BRUTE_FORCE_H
#define CTHO_BRUTE_FORCE_H

#include "ns3/ctho-planner.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace ns3
{
namespace edgellmtest
{

/// A ctHO instance: UEs plus R, p, T_c.
struct CtHoInstance
{
    std::vector<CtHoUe> ues;   //!< any order
    double rate{1000};         //!< R, tokens/s
    double a{1e-4};            //!< prefill slope, s/token
    double b{2e-3};            //!< prefill constant, s
    double c{0};               //!< prefill quadratic, s/token^2
    double batchPeriod{0.01};  //!< T_c, s
    double backhaulFreeAt{0};  //!< the link is busy with earlier transfers until then, s
    CtHoSignalling signalling; //!< packet-level additions (all zero: the papers' model)
};

/**
 * V(L) by definition: f(L) and the double-max g(L) over UEs sorted by tau. With
 * signalling: UE i's link work is w_i = r_i + n_tx_i / R with r_i = requestTime +
 * idTimePerToken n_pf_i; its KV arrives at max_{j<=i} (tau_j + sum_{j..i} w) + d; its
 * request leaves at max(controlFreeAt + sum_{1..i} r, max_{j<=i} (tau_j + a_j +
 * sum_{j..i} r)), a_j = min(closeAhead, (B_{j-1} - tau_j)^+) the KV bytes already in the
 * transport, B_{j-1} = max(0, max_{m<j} (tau_m + sum_{m..j-1} w)) when the link has sent
 * the UEs before j;
 * an online close leaves at max(last request, closeSentAt + min(closeAhead, (KV end -
 * closeSentAt)^+)) + closeTime; the batch starts on the first T_c boundary at or after
 * tau_K and every arrival.
 */
inline double
BruteForceValue(const CtHoInstance& inst, uint64_t l)
{
    std::vector<CtHoUe> s = inst.ues;
    std::stable_sort(s.begin(), s.end(), [](const CtHoUe& x, const CtHoUe& y) {
        return x.handoverTime < y.handoverTime;
    });
    const CtHoSignalling& sig = inst.signalling;
    auto npf = [l](const CtHoUe& ue) { return static_cast<double>(std::min(ue.contextTokens, l)); };
    auto ntx = [l](const CtHoUe& ue) {
        return ue.contextTokens > l ? static_cast<double>(ue.contextTokens - l) : 0.0;
    };
    auto request = [&](const CtHoUe& ue) { return sig.requestTime + sig.idTimePerToken * npf(ue); };
    double ready = std::max(s.back().handoverTime, sig.gpuFreeAt);
    double lastLeft = 0;
    double fromFree = sig.controlFreeAt;
    // a_j: what UE j's request waits behind in the transport.
    std::vector<double> a(s.size(), 0.0);
    for (std::size_t j = 0; j < s.size(); ++j)
    {
        double linkFree = 0; // B_{j-1}
        double sum = 0;
        for (std::size_t m = j; m-- > 0;)
        {
            sum += request(s[m]) + ntx(s[m]) / inst.rate;
            linkFree = std::max(linkFree, s[m].handoverTime + sum);
        }
        a[j] = std::min(sig.closeAhead, std::max(0.0, linkFree - s[j].handoverTime));
    }
    for (std::size_t k = 0; k < s.size(); ++k)
    {
        fromFree += request(s[k]);
        double left = fromFree;
        double sum = 0;
        for (std::size_t j = k + 1; j-- > 0;)
        {
            sum += request(s[j]);
            left = std::max(left, s[j].handoverTime + a[j] + sum);
        }
        ready = std::max(ready, left + sig.pathDelay);
        lastLeft = left;
    }
    if (sig.closeSentAt >= 0)
    {
        double busy = 0; // the KV FIFO's end: the last byte of the batch leaves
        for (const auto& ue : s)
        {
            const double work = request(ue) + ntx(ue) / inst.rate;
            busy = work > 0 ? std::max(busy, ue.handoverTime) + work : busy;
        }
        const double ahead = std::min(sig.closeAhead, std::max(0.0, busy - sig.closeSentAt));
        ready =
            std::max(ready,
                     std::max(lastLeft, sig.closeSentAt + ahead) + sig.closeTime + sig.pathDelay);
    }
    double ts = ready;
    if (inst.batchPeriod > 0)
    {
        ts = std::max(ready, std::ceil(ready / inst.batchPeriod - 1e-9) * inst.batchPeriod);
    }
    double f = 0;
    if (l > 0)
    {
        const double ld = static_cast<double>(l);
        const double p = std::max(0.0, inst.c * ld * ld + inst.a * ld + inst.b);
        f = ts + p - s.front().handoverTime;
    }
    double g = 0;
    for (std::size_t k = 0; k < s.size(); ++k)
    {
        if (ntx(s[k]) == 0)
        {
            continue;
        }
        double sum = 0;
        for (std::size_t j = k + 1; j-- > 0;)
        {
            sum += request(s[j]) + ntx(s[j]) / inst.rate;
            g = std::max(g, sum + sig.pathDelay - (s[k].handoverTime - s[j].handoverTime));
        }
        // Behind earlier transfers: the FIFO starts at backhaulFreeAt at the earliest.
        g = std::max(g, inst.backhaulFreeAt + sum + sig.pathDelay - s[k].handoverTime);
    }
    return std::max(f, g);
}

/// min over every L in {0, ..., C_max} of V(L).
inline double
BruteForceMinimum(const CtHoInstance& inst, uint64_t* argmin = nullptr)
{
    uint64_t cmax = 0;
    for (const auto& ue : inst.ues)
    {
        cmax = std::max(cmax, ue.contextTokens);
    }
    double best = BruteForceValue(inst, 0);
    uint64_t bestL = 0;
    for (uint64_t l = 1; l <= cmax; ++l)
    {
        const double v = BruteForceValue(inst, l);
        if (v < best)
        {
            best = v;
            bestL = l;
        }
    }
    if (argmin)
    {
        *argmin = bestL;
    }
    return best;
}

/**
 * A random instance of one of several kinds (kind = seed % 5): paper-like,
 * idle gaps between handovers, all handovers at one time (ties), K = 1, all
 * contexts equal.
 */
inline CtHoInstance
RandomInstance(uint32_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    CtHoInstance inst;
    const uint32_t kind = seed % 5;
    const std::size_t k = kind == 3 ? 1 : 1 + static_cast<std::size_t>(u01(rng) * 8);
    inst.rate = 200 + u01(rng) * 20000;
    inst.a = 1e-5 + u01(rng) * 2e-4;
    inst.b = u01(rng) * 5e-3;
    inst.c = (seed % 2) ? u01(rng) * 1e-8 : 0.0;
    inst.batchPeriod = (seed % 7 == 0) ? 0.0 : 0.01;
    const uint64_t equalContext = 1 + static_cast<uint64_t>(u01(rng) * 3000);
    for (std::size_t i = 0; i < k; ++i)
    {
        CtHoUe ue;
        ue.ueId = i;
        switch (kind)
        {
        case 1: // idle gaps: handovers far apart relative to transfer times
            ue.handoverTime = static_cast<double>(i) * (0.2 + u01(rng) * 2.0);
            break;
        case 2: // ties
            ue.handoverTime = 1.0;
            break;
        default:
            ue.handoverTime = 1.0 + u01(rng) * 0.5;
        }
        ue.contextTokens = kind == 4 ? equalContext : 1 + static_cast<uint64_t>(u01(rng) * 3000);
        inst.ues.push_back(ue);
    }
    return inst;
}

/**
 * Packet-level signalling for a random instance (seed): path delay up to 1 ms, request
 * up to 100 us, ids up to half a KV token's wire time, a control backlog up to 1.2 s
 * (before, among or after the handovers) and, for odd seeds, an online close message
 * sent while the KV may still be queued, behind up to 50 ms of bytes.
 */
inline CtHoSignalling
RandomSignalling(uint32_t seed, const CtHoInstance& inst)
{
    std::mt19937_64 rng(seed * 7919 + 1);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    CtHoSignalling sig;
    sig.pathDelay = u01(rng) * 1e-3;
    sig.requestTime = u01(rng) * 1e-4;
    sig.idTimePerToken = u01(rng) * 0.5 / inst.rate;
    sig.closeTime = u01(rng) * 1e-5;
    sig.controlFreeAt = u01(rng) * 1.2;
    sig.gpuFreeAt = (seed % 3 == 0) ? u01(rng) * 1.6 : 0;
    double last = 0;
    for (const auto& ue : inst.ues)
    {
        last = std::max(last, ue.handoverTime);
    }
    double work = 0; // the batch's whole KV at L = 0, s: the close lands anywhere in it
    for (const auto& ue : inst.ues)
    {
        work += static_cast<double>(ue.contextTokens) / inst.rate;
    }
    sig.closeSentAt = (seed % 2) ? last + u01(rng) * work : -1;
    sig.closeAhead = u01(rng) * 0.05; // up to 50 ms of bytes: many L in between
    return sig;
}

} // namespace edgellmtest
} // namespace ns3

#endif /* CTHO_BRUTE_FORCE_H */
