/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Independent reference for the ctHO planner tests: evaluates V(L) straight from
 * doc/edge-llm.rst, ctHO delay (the O(K^2) double maximum over j <= k for g, no recursion) and
 * scans every integer L. Shared by the ns-3 TestSuite and the GoogleTest suite.
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
    std::vector<CtHoUe> ues;  //!< any order
    double rate{1000};        //!< R, tokens/s
    double a{1e-4};           //!< prefill slope, s/token
    double b{2e-3};           //!< prefill constant, s
    double c{0};              //!< prefill quadratic, s/token^2
    double batchPeriod{0.01}; //!< T_c, s
};

/// V(L) by definition: f(L) and the double-max g(L) over UEs sorted by tau.
inline double
BruteForceValue(const CtHoInstance& inst, uint64_t l)
{
    std::vector<CtHoUe> s = inst.ues;
    std::stable_sort(s.begin(), s.end(), [](const CtHoUe& x, const CtHoUe& y) {
        return x.handoverTime < y.handoverTime;
    });
    const double tauK = s.back().handoverTime;
    double ts = tauK;
    if (inst.batchPeriod > 0)
    {
        ts = std::ceil(tauK / inst.batchPeriod - 1e-9) * inst.batchPeriod;
    }
    double f = 0;
    if (l > 0)
    {
        const double ld = static_cast<double>(l);
        const double p = std::max(0.0, inst.c * ld * ld + inst.a * ld + inst.b);
        f = ts + p - s.front().handoverTime;
    }
    double g = 0;
    for (std::size_t j = 0; j < s.size(); ++j)
    {
        double sum = 0;
        for (std::size_t k = j; k < s.size(); ++k)
        {
            sum += s[k].contextTokens > l ? static_cast<double>(s[k].contextTokens - l) : 0.0;
            g = std::max(g, sum / inst.rate - (s[k].handoverTime - s[j].handoverTime));
        }
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

} // namespace edgellmtest
} // namespace ns3

#endif /* CTHO_BRUTE_FORCE_H */
