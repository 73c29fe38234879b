/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/impactho-bound-scenario.h"
#include "../examples/studies/impactho-fluid-scenario.h"

#include "ns3/clairvoyant-bound.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/llm-model-profile.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Qwen3-8B at q = 16: bits per token.
double
BitsPerToken()
{
    return static_cast<double>(LlmModelProfile::FromPreset("qwen3-8b", 16).BitsPerToken());
}

/// A user of the brute force: cache, utility, the slots of its window (all shares 1).
struct BruteUser
{
    double cacheBits;
    AccuracyUtility utility;
    std::set<uint64_t> slots;
};

/**
 * Brute force of the clairvoyant problem when every share is 1: y feasible iff
 * y_i <= 1 and, for every subset S of users, sum_{i in S} L_i y_i <= B dt |U_{i in S} W_i|
 * (Hall's condition of the transportation problem: users' demands, slots' budgets). The
 * first n - 1 users scan a grid of step h; the last one takes the largest feasible y
 * (A increasing). Returns the best mean accuracy; \p gridError is how much the true
 * optimum can exceed it: rounding y_i down to the grid loses at most A_i'(tau_i) h each.
 */
double
BruteForce(const std::vector<BruteUser>& users, double budget, double h, double& gridError)
{
    const std::size_t n = users.size();
    const std::size_t subsets = std::size_t{1} << n;
    std::vector<double> capacity(subsets, 0);
    for (std::size_t s = 1; s < subsets; ++s)
    {
        std::set<uint64_t> slots;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (s & (std::size_t{1} << i))
            {
                slots.insert(users[i].slots.begin(), users[i].slots.end());
            }
        }
        capacity[s] = budget * static_cast<double>(slots.size());
    }
    gridError = 0;
    for (std::size_t i = 0; i + 1 < n; ++i)
    {
        const AccuracyUtility& a = users[i].utility;
        gridError += a.asymptote * a.sharpness / 2 * h / static_cast<double>(n); // A'(tau) h
    }
    const std::size_t last = n - 1;
    const auto steps = static_cast<std::size_t>(std::llround(1 / h));
    std::vector<double> y(n, 0);
    double best = -1;
    std::function<void(std::size_t)> scan = [&](std::size_t i) {
        if (i == last)
        {
            double yl = 1;
            for (std::size_t s = 1; s < subsets; ++s)
            {
                double load = 0;
                for (std::size_t j = 0; j < last; ++j)
                {
                    load += (s & (std::size_t{1} << j)) ? users[j].cacheBits * y[j] : 0;
                }
                if (s & (std::size_t{1} << last))
                {
                    yl = std::min(yl, (capacity[s] - load) / users[last].cacheBits);
                }
                else if (load > capacity[s] * (1 + 1e-12))
                {
                    return;
                }
            }
            if (yl < 0)
            {
                return;
            }
            y[last] = yl;
            double acc = 0;
            for (std::size_t j = 0; j < n; ++j)
            {
                acc += users[j].utility.Value(y[j]) / static_cast<double>(n);
            }
            best = std::max(best, acc);
            return;
        }
        for (std::size_t k = 0; k <= steps; ++k)
        {
            y[i] = static_cast<double>(k) / static_cast<double>(steps);
            scan(i + 1);
        }
    };
    scan(0);
    return best;
}

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief The envelope and the interpolation error against independent computations: the
 *        concave envelope at y as the largest chord value over a 2001-point grid of pairs
 *        (a <= y <= b), and max (A - P) of the interpolant on a 10^6-point scan.
 */
class BoundPiecesTestCase : public TestCase
{
  public:
    BoundPiecesTestCase()
        : TestCase("Clairvoyant bound: envelope and interpolation error vs brute force")
    {
    }

  private:
    void DoRun() override
    {
        for (uint64_t c : {4096, 16384})
        {
            const AccuracyUtility a = AccuracyUtility::Preset(c);
            constexpr int G = 2000;
            std::vector<double> v(G + 1);
            for (int j = 0; j <= G; ++j)
            {
                v[j] = a.Value(static_cast<double>(j) / G);
            }
            for (int yi : {0, 20, 50, 100, 130, 200, 400, 1000, 2000})
            {
                const double y = static_cast<double>(yi) / G;
                double env = v[yi];
                for (int l = 0; l <= yi; ++l)
                {
                    for (int r = yi + 1; r <= G; ++r)
                    {
                        env = std::max(env, v[l] + (v[r] - v[l]) * (yi - l) / (r - l));
                    }
                }
                // The grid envelope lies below the true one by at most the grid's own
                // chord error (~ A'(tau) / G).
                NS_TEST_ASSERT_MSG_EQ_TOL(ImpactHoClairvoyantBound::Envelope(a, y),
                                          env,
                                          2e-4,
                                          "envelope at y = " << y << ", C = " << c);
                NS_TEST_ASSERT_MSG_GT_OR_EQ(ImpactHoClairvoyantBound::Envelope(a, y) + 1e-12,
                                            a.Value(y),
                                            "envelope >= A");
            }
            const double ys = ImpactHoClairvoyantBound::EnvelopeTangency(a);
            NS_TEST_ASSERT_MSG_GT(ys, a.inflection, "tangency beyond tau");
            // Tangency: the line from (0, A(0)) touches A at y* with slope A'(y*).
            NS_TEST_ASSERT_MSG_EQ_TOL((a.Value(ys) - a.Value(0)) / ys,
                                      a.Derivative(ys),
                                      1e-9,
                                      "tangent at y*");

            for (uint32_t segments : {4, 24, 96})
            {
                const std::vector<double> g = ImpactHoClairvoyantBound::Breakpoints(a, segments);
                NS_TEST_ASSERT_MSG_EQ(g.front(), 0.0, "grid starts at 0");
                NS_TEST_ASSERT_MSG_EQ(g.back(), 1.0, "grid ends at 1");
                NS_TEST_ASSERT_MSG_LT_OR_EQ(g.size() - 1, segments, "at most the segments");
                double dense = 0;
                std::size_t s = 0;
                constexpr int N = 1000000;
                for (int j = 0; j <= N; ++j)
                {
                    const double y = static_cast<double>(j) / N;
                    while (s + 2 < g.size() && y > g[s + 1])
                    {
                        ++s;
                    }
                    const double p = a.Value(g[s]) + (a.Value(g[s + 1]) - a.Value(g[s])) /
                                                         (g[s + 1] - g[s]) * (y - g[s]);
                    dense = std::max(dense, a.Value(y) - p);
                }
                const double e = ImpactHoClairvoyantBound::InterpolationError(a, g);
                NS_TEST_ASSERT_MSG_GT_OR_EQ(e, dense, "validated error >= a dense scan's");
                NS_TEST_ASSERT_MSG_LT(e, dense + 1e-6, "and hardly above it");
            }
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Hand calculation of the slot shares and of a one-user optimum: a = 0.03 s,
 *        dt = 0.1 s, T_max = 0.25 s: slots 1 (share 1) and 2 (share (0.28 - 0.2) / 0.1 =
 *        0.8); with B dt = 0.3 L the user ends at y = 0.3 + 0.8 * 0.3 = 0.54, so every
 *        bound is A(0.54) (up to its PWL / tangent error) and the MILP allocation is 0.54.
 */
class BoundHandTestCase : public TestCase
{
  public:
    BoundHandTestCase()
        : TestCase("Clairvoyant bound: one user, window closing mid-slot (hand calculation)")
    {
    }

  private:
    void DoRun() override
    {
        ClairvoyantInstance inst;
        inst.slot = 0.1;
        inst.window = 0.25;
        const AccuracyUtility a = AccuracyUtility::Preset(8192);
        inst.users.push_back({0.03, 1e9, a});
        inst.budgetBits = 0.3e9;
        const auto slots = inst.Slots(0);
        NS_TEST_ASSERT_MSG_EQ(slots.size(), 2, "two slots");
        NS_TEST_ASSERT_MSG_EQ(slots[0].first, 1, "first slot starts at 0.1 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(slots[0].second, 1.0, 1e-12, "whole first slot");
        NS_TEST_ASSERT_MSG_EQ(slots[1].first, 2, "second slot starts at 0.2 s");
        NS_TEST_ASSERT_MSG_EQ_TOL(slots[1].second, 0.8, 1e-12, "80 % of the second slot");

        Ptr<ImpactHoClairvoyantBound> bound = CreateObject<ImpactHoClairvoyantBound>();
        const ClairvoyantBoundResult r = bound->SolveMilp(inst);
        const double opt = a.Value(0.54);
        NS_TEST_ASSERT_MSG_EQ_TOL(r.received[0], 0.54, 1e-7, "MILP sends the whole budget");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.lower, opt, 1e-7, "MILP allocation on A");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.upper, opt, "bound >= optimum");
        NS_TEST_ASSERT_MSG_LT(r.upper - opt, 1e-3, "bound within 0.1 pp");
        NS_TEST_ASSERT_MSG_EQ(r.provenOptimal, true, "solved");
        const EnvelopeBoundResult e = bound->SolveEnvelope(inst);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(e.upper, opt - 1e-9, "envelope >= optimum");
        NS_TEST_ASSERT_MSG_LT(e.upper - opt, 1e-4, "y = 0.54 is past y*: envelope = A");

        inst.budgetBits = 2e9; // more than the cache: y = 1
        NS_TEST_ASSERT_MSG_EQ_TOL(bound->SolveMilp(inst).lower, a.Value(1), 1e-9, "full cache");
        inst.budgetBits = 0; // nothing: A(0)
        NS_TEST_ASSERT_MSG_EQ_TOL(bound->SolveMilp(inst).lower, a.Value(0), 1e-12, "no budget");

        bool threw = false;
        try
        {
            inst.budgetBits = -1;
            bound->SolveMilp(inst);
        }
        catch (const std::invalid_argument& err)
        {
            threw = std::string(err.what()).find("budgetBits") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "a negative budget is refused by name");
        threw = false;
        try
        {
            inst.budgetBits = 1e9;
            inst.users[0].cacheBits = 0;
            bound->SolveMilp(inst);
        }
        catch (const std::invalid_argument& err)
        {
            threw = std::string(err.what()).find("cacheBits") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "an empty cache is refused by name");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Small instances (2-3 users over 3-6 slots of 125 ms, every share 1) against the
 *        brute force above: brute <= true optimum <= MILP bound and envelope bound; the
 *        MILP's allocation (a feasible point) <= brute + grid error; MILP PWL objective <=
 *        envelope; and the bound within 0.5 pp of the brute force. Budgets from
 *        starving (one user past tau at most) to plenty.
 */
class BoundBruteForceTestCase : public TestCase
{
  public:
    BoundBruteForceTestCase()
        : TestCase("Clairvoyant bound: MILP and envelope vs exhaustive search")
    {
    }

  private:
    void Check(const std::vector<BruteUser>& users,
               const std::vector<double>& arrivals,
               double window,
               double budget,
               double h)
    {
        ClairvoyantInstance inst;
        inst.slot = 0.125; // exact in binary: slot starts and windows are exact
        inst.window = window;
        inst.budgetBits = budget;
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            inst.users.push_back({arrivals[i], users[i].cacheBits, users[i].utility});
            std::set<uint64_t> slots;
            for (const auto& [m, share] : inst.Slots(i))
            {
                NS_TEST_ASSERT_MSG_EQ(share, 1.0, "brute force needs whole slots");
                slots.insert(m);
            }
            NS_TEST_ASSERT_MSG_EQ((slots == users[i].slots), true, "window slots as planned");
        }
        double gridError = 0;
        const double brute = BruteForce(users, budget, h, gridError);
        Ptr<ImpactHoClairvoyantBound> bound = CreateObject<ImpactHoClairvoyantBound>();
        const ClairvoyantBoundResult m = bound->SolveMilp(inst);
        const EnvelopeBoundResult e = bound->SolveEnvelope(inst);
        const std::string at = "budget " + std::to_string(budget);
        NS_TEST_ASSERT_MSG_EQ(m.provenOptimal, true, at);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(m.upper, brute, "MILP bound >= brute force, " << at);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(e.upper, brute, "envelope >= brute force, " << at);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(e.upper + 1e-9,
                                    m.milpObjective,
                                    "envelope >= PWL optimum, " << at);
        NS_TEST_ASSERT_MSG_LT_OR_EQ(m.lower,
                                    brute + gridError + 1e-9,
                                    "MILP allocation <= optimum, " << at);
        NS_TEST_ASSERT_MSG_LT(m.upper - brute, 0.005, "bound within 0.5 pp, " << at);
        NS_TEST_ASSERT_MSG_GT(m.lower, brute - 0.005, "allocation within 0.5 pp, " << at);
    }

    void DoRun() override
    {
        const double b = BitsPerToken();
        const AccuracyUtility a4 = AccuracyUtility::Preset(4096);
        const AccuracyUtility a8 = AccuracyUtility::Preset(8192);
        const AccuracyUtility a16 = AccuracyUtility::Preset(16384);
        // Three users, T_max = 250 ms: windows {0, 1}, {1, 2}, {0, 1}.
        const std::vector<BruteUser> three{{16384 * b, a16, {0, 1}},
                                           {8192 * b, a8, {1, 2}},
                                           {4096 * b, a4, {0, 1}}};
        for (double budget : {0.3e9, 0.8e9, 2e9, 6e9})
        {
            Check(three, {0, 0.125, 0}, 0.25, budget, 1.0 / 3000);
        }
        // Two users, T_max = 500 ms: windows {0..3} and {2..5}.
        const std::vector<BruteUser> two{{16384 * b, a16, {0, 1, 2, 3}},
                                         {16384 * b, a16, {2, 3, 4, 5}}};
        for (double budget : {0.2e9, 1e9, 4e9})
        {
            Check(two, {0, 0.25}, 0.5, budget, 1.0 / 200000);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The online allocator (ImpactHoFluidScenario, any policy) never beats the bound on
 *        its own trace, with windows that close mid-slot (T_max = 450 ms). And when no two
 *        users overlap, the online allocator is optimal: the MILP's allocation equals it
 *        (to 1e-6), which fails if the bound's windows or shares differ from the fluid
 *        scenario's.
 */
class BoundOnlineTestCase : public TestCase
{
  public:
    BoundOnlineTestCase()
        : TestCase("Clairvoyant bound: online <= bound; alone, online = clairvoyant")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<ImpactHoClairvoyantBound> bound = CreateObject<ImpactHoClairvoyantBound>();
        for (const std::string policy : {"WaterFilling", "Equal", "Wta"})
        {
            for (double rho : {2.0, 8.0})
            {
                ImpactHoFluidConfig c;
                c.simTime = Seconds(3);
                c.window = MilliSeconds(450);
                c.arrivalRate = rho;
                c.policy = policy;
                const ImpactHoBoundSample s = ImpactHoBoundScenario::Run(c, 1, bound);
                const std::string at = policy + ", rho " + std::to_string(rho);
                NS_TEST_ASSERT_MSG_GT(s.users, 0, at);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(s.online, s.milp.upper, "online <= MILP bound, " << at);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(s.online,
                                            s.envelope.upper,
                                            "online <= envelope, " << at);
                NS_TEST_ASSERT_MSG_LT_OR_EQ(s.milp.lower, s.milp.upper, "lower <= upper, " << at);
            }
        }
        // A time limit that stops CBC early: the bound may only get looser, and the
        // allocation stays feasible (below the bound, no better than the full solve's).
        {
            ImpactHoFluidConfig c;
            c.simTime = Seconds(3);
            c.arrivalRate = 8;
            const ImpactHoBoundSample full = ImpactHoBoundScenario::Run(c, 2, bound);
            Ptr<ImpactHoClairvoyantBound> hasty = CreateObject<ImpactHoClairvoyantBound>();
            hasty->SetAttribute("TimeLimit", TimeValue(MilliSeconds(1)));
            const ImpactHoBoundSample early = ImpactHoBoundScenario::Run(c, 2, hasty);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(early.milp.upper + 1e-9,
                                        full.milp.upper,
                                        "a time-limited bound is not below the optimal one");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(early.online, early.milp.upper, "online <= bound");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(early.milp.lower,
                                        full.milp.upper,
                                        "the early allocation is feasible");
            NS_TEST_ASSERT_MSG_GT(early.milp.lower, 0.5, "and a real allocation");
        }
        // Sparse arrivals: find runs whose users never share a slot.
        uint32_t isolated = 0;
        for (uint64_t run = 1; run <= 200 && isolated < 3; ++run)
        {
            ImpactHoFluidConfig c;
            c.arrivalRate = 0.4;
            c.simTime = Seconds(8);
            const auto h = ImpactHoFluidScenario::DrawHandovers(c, run);
            bool apart = h.size() >= 2;
            for (std::size_t i = 1; i < h.size(); ++i)
            {
                apart = apart && h[i].first - h[i - 1].first > 0.7; // T_max + dt + margin
            }
            if (!apart)
            {
                continue;
            }
            ++isolated;
            const ImpactHoBoundSample s = ImpactHoBoundScenario::Run(c, run, bound);
            NS_TEST_ASSERT_MSG_EQ_TOL(s.milp.lower, s.online, 1e-6, "alone: online is optimal");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(s.online, s.milp.upper, "online <= bound (alone)");
        }
        NS_TEST_ASSERT_MSG_EQ(isolated, 3, "three isolated runs found");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Clairvoyant upper bound of ImpactHO (Sec. VI-E).
 */
class EdgeLlmBoundTestSuite : public TestSuite
{
  public:
    EdgeLlmBoundTestSuite()
        : TestSuite("edge-llm-bound", EDGE_LLM_TEST_UNIT)
    {
        AddTestCase(new BoundPiecesTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new BoundHandTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new BoundBruteForceTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new BoundOnlineTestCase, EDGE_LLM_TEST_QUICK);
    }
};

/// Static instance.
static EdgeLlmBoundTestSuite g_edgeLlmBoundTestSuite;
