/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "clairvoyant-bound.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <Cbc_C_Interface.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ImpactHoClairvoyantBound");
NS_OBJECT_ENSURE_REGISTERED(ImpactHoClairvoyantBound);

namespace
{

/// A sparse linear program for CBC, built column by column.
struct LinearModel
{
    std::vector<double> colLower;                        //!< Column lower bounds
    std::vector<double> colUpper;                        //!< Column upper bounds
    std::vector<double> objective;                       //!< Objective coefficients
    std::vector<bool> integer;                           //!< Binary columns
    std::vector<std::vector<std::pair<int, double>>> at; //!< Column entries (row, value)
    std::vector<double> rowLower;                        //!< Row lower bounds
    std::vector<double> rowUpper;                        //!< Row upper bounds

    int AddCol(double lower, double upper, double obj, bool isInteger = false)
    {
        colLower.push_back(lower);
        colUpper.push_back(upper);
        objective.push_back(obj);
        integer.push_back(isInteger);
        at.emplace_back();
        return static_cast<int>(colLower.size()) - 1;
    }

    int AddRow(double lower, double upper)
    {
        rowLower.push_back(lower);
        rowUpper.push_back(upper);
        return static_cast<int>(rowLower.size()) - 1;
    }

    void Set(int row, int col, double value)
    {
        at[col].emplace_back(row, value);
    }
};

/// What CBC returns.
struct Solution
{
    std::vector<double> x; //!< Best solution
    double objective{0};   //!< Its objective
    double bound{0};       //!< Proven bound (maximization: >= objective)
    bool optimal{false};   //!< Gap closed
    bool incumbent{false}; //!< x is integer feasible (else the last LP solution)
    uint64_t nodes{0};     //!< Branch-and-bound nodes
    uint32_t binaries{0};  //!< Integer columns
};

/// Maximize the model with CBC.
Solution
SolveWithCbc(const LinearModel& m, double timeLimit, double gap)
{
    const int cols = static_cast<int>(m.colLower.size());
    const int rows = static_cast<int>(m.rowLower.size());
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value;
    for (const auto& col : m.at)
    {
        for (const auto& [r, v] : col)
        {
            index.push_back(r);
            value.push_back(v);
        }
        start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    std::unique_ptr<Cbc_Model, void (*)(Cbc_Model*)> model(Cbc_newModel(), Cbc_deleteModel);
    Cbc_loadProblem(model.get(),
                    cols,
                    rows,
                    start.data(),
                    index.data(),
                    value.data(),
                    m.colLower.data(),
                    m.colUpper.data(),
                    m.objective.data(),
                    m.rowLower.data(),
                    m.rowUpper.data());
    Solution s;
    for (int c = 0; c < cols; ++c)
    {
        if (m.integer[c])
        {
            Cbc_setInteger(model.get(), c);
            ++s.binaries;
        }
    }
    Cbc_setObjSense(model.get(), -1); // maximize
    Cbc_setLogLevel(model.get(), 0);
    Cbc_setMaximumSeconds(model.get(), timeLimit);
    Cbc_setAllowableFractionGap(model.get(), gap);
    Cbc_setParameter(model.get(), "threads", "1");
    Cbc_solve(model.get());
    if (Cbc_isProvenInfeasible(model.get()))
    {
        throw std::runtime_error("CBC: the clairvoyant problem is infeasible (a model error)");
    }
    // Without an integer solution (a time limit hit early) the last LP solution is
    // returned; the caller repairs it into a feasible allocation.
    const double* x = s.binaries > 0 ? Cbc_bestSolution(model.get()) : nullptr;
    s.incumbent = x != nullptr || s.binaries == 0;
    if (x == nullptr)
    {
        x = Cbc_getColSolution(model.get());
    }
    if (x == nullptr)
    {
        throw std::runtime_error("CBC returned no solution");
    }
    s.x.assign(x, x + cols);
    s.objective =
        s.incumbent ? Cbc_getObjValue(model.get()) : -std::numeric_limits<double>::infinity();
    s.optimal = Cbc_isProvenOptimal(model.get());
    s.nodes = static_cast<uint64_t>(Cbc_getNodeCount(model.get()));
    if (s.binaries > 0)
    {
        s.bound = Cbc_getBestPossibleObjValue(model.get());
    }
    else
    {
        if (!s.optimal)
        {
            throw std::runtime_error("CBC did not solve the LP to optimality");
        }
        s.bound = s.objective; // an LP optimum is its own bound
    }
    if (!std::isfinite(s.bound))
    {
        throw std::runtime_error("CBC proved no bound within its TimeLimit");
    }
    if (!(s.bound >= s.objective - 1e-9))
    {
        throw std::runtime_error("CBC's bound " + std::to_string(s.bound) +
                                 " lies below its objective " + std::to_string(s.objective));
    }
    return s;
}

/// A column f_{i,m}: the fraction of L_i sent in slot m.
struct SentColumn
{
    int col;      //!< Column
    int slotRow;  //!< Budget row of its slot
    double share; //!< s_{i,m}
};

/**
 * The received fractions of a solution, made feasible whatever the solver returned
 * (tolerances, or the LP solution of a search stopped early): f clipped to [0, its
 * bound], each user's sum_m f scaled to <= 1, then each slot's load scaled to <= B dt.
 * Scaling down keeps the earlier constraints.
 */
std::vector<double>
FeasibleReceived(const LinearModel& m,
                 const std::vector<double>& x,
                 const std::vector<std::vector<SentColumn>>& sent,
                 const std::vector<double>& cacheBits,
                 double budgetBits)
{
    std::vector<double> f(x.size(), 0);
    for (const auto& user : sent)
    {
        double total = 0;
        for (const SentColumn& c : user)
        {
            f[c.col] = std::clamp(x[c.col], 0.0, m.colUpper[c.col]);
            total += f[c.col];
        }
        for (const SentColumn& c : user)
        {
            f[c.col] /= std::max(1.0, total);
        }
    }
    std::map<int, double> load;
    for (std::size_t i = 0; i < sent.size(); ++i)
    {
        for (const SentColumn& c : sent[i])
        {
            load[c.slotRow] += cacheBits[i] * f[c.col];
        }
    }
    std::vector<double> y(sent.size(), 0);
    for (std::size_t i = 0; i < sent.size(); ++i)
    {
        for (const SentColumn& c : sent[i])
        {
            y[i] += c.share * f[c.col] / std::max(1.0, load[c.slotRow] / budgetBits);
        }
        y[i] = std::clamp(y[i], 0.0, 1.0);
    }
    return y;
}

/// A utility's identity, for caching its PWL data.
using UtilityKey = std::tuple<int, double, double, double>;

UtilityKey
KeyOf(const AccuracyUtility& a)
{
    return {static_cast<int>(a.family), a.asymptote, a.sharpness, a.inflection};
}

/// max |A - chord| on [lo, hi], sampled (for placing breakpoints only).
double
ChordDeviation(const AccuracyUtility& a, double lo, double hi)
{
    const double alo = a.Value(lo);
    const double slope = (a.Value(hi) - alo) / (hi - lo);
    double worst = 0;
    constexpr int SAMPLES = 32;
    for (int j = 1; j < SAMPLES; ++j)
    {
        const double y = lo + (hi - lo) * j / SAMPLES;
        worst = std::max(worst, std::abs(a.Value(y) - alo - slope * (y - lo)));
    }
    return worst;
}

/// Greedy breakpoints with max |A - chord| <= eps per segment.
std::vector<double>
GreedyGrid(const AccuracyUtility& a, double eps, std::size_t limit)
{
    std::vector<double> g{0.0};
    while (g.back() < 1.0 && g.size() <= limit + 1)
    {
        const double lo = g.back();
        if (ChordDeviation(a, lo, 1.0) <= eps)
        {
            g.push_back(1.0);
            break;
        }
        double ok = lo;
        double bad = 1.0;
        for (int i = 0; i < 50 && bad - ok > 1e-9; ++i)
        {
            const double mid = 0.5 * (ok + bad);
            (ChordDeviation(a, lo, mid) <= eps ? ok : bad) = mid;
        }
        g.push_back(std::max(ok, lo + 1e-9));
    }
    return g;
}

/// The PWL model of one utility.
struct Pwl
{
    std::vector<double> grid;   //!< Breakpoints
    std::vector<double> slopes; //!< Segment slopes
    std::size_t concaveFrom{0}; //!< First segment from which slopes never increase
    double error{0};            //!< Validated max (A - P)
};

/// The envelope's tangent lines of one utility: (intercept, slope).
using Lines = std::vector<std::pair<double, double>>;

double
WallSeconds(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/**
 * The transfer columns of user i, shared by the MILP and the envelope LP (both bound the
 * same feasible set): f_{i,m} in [0, min(1, B dt / L_i)], the fraction of its cache sent in
 * each slot m of its window, entered in that slot's budget row (sum_i L_i f_{i,m} <= B dt,
 * scaled by B dt; added on a slot's first use) and in the user's cache row \p cap
 * (sum_m f_{i,m} <= 1: no more is sent than the cache). None when the budget is 0.
 */
std::vector<SentColumn>
AddTransferColumns(LinearModel& m,
                   std::map<uint64_t, int>& slotRow,
                   const ClairvoyantInstance& inst,
                   std::size_t i,
                   int cap)
{
    std::vector<SentColumn> sent;
    if (!(inst.budgetBits > 0))
    {
        return sent;
    }
    const double bits = inst.users[i].cacheBits;
    for (const auto& [slot, share] : inst.Slots(i))
    {
        auto row = slotRow.find(slot);
        if (row == slotRow.end())
        {
            row = slotRow.emplace(slot, m.AddRow(-1e30, 1.0)).first;
        }
        const int f = m.AddCol(0, std::min(1.0, inst.budgetBits / bits), 0);
        m.Set(row->second, f, bits / inst.budgetBits);
        m.Set(cap, f, 1.0);
        sent.push_back({f, row->second, share});
    }
    return sent;
}

} // namespace

void
ClairvoyantInstance::Validate() const
{
    if (!(slot > 0 && slot <= 60))
    {
        throw std::invalid_argument("slot (dt) must be in (0, 60] s, got " + std::to_string(slot));
    }
    if (!(window > 0 && window <= 1e6))
    {
        throw std::invalid_argument("window (T_max) must be in (0, 1e6] s, got " +
                                    std::to_string(window));
    }
    if (!(budgetBits >= 0 && budgetBits < 1e18))
    {
        throw std::invalid_argument("budgetBits (B dt) must be in [0, 1e18) bits, got " +
                                    std::to_string(budgetBits));
    }
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const ClairvoyantUser& u = users[i];
        const std::string who = "user " + std::to_string(i) + ": ";
        if (!(u.arrival >= 0 && u.arrival <= 1e6))
        {
            throw std::invalid_argument(who + "arrival must be in [0, 1e6] s, got " +
                                        std::to_string(u.arrival));
        }
        if (!(u.cacheBits > 0 && u.cacheBits < 1e18))
        {
            throw std::invalid_argument(who + "cacheBits (L_i) must be in (0, 1e18), got " +
                                        std::to_string(u.cacheBits));
        }
        try
        {
            u.utility.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            throw std::invalid_argument(who + e.what());
        }
    }
}

std::vector<std::pair<uint64_t, double>>
ClairvoyantInstance::Slots(std::size_t i) const
{
    // The same double arithmetic as ImpactHoFluidScenario::Run: t = m * dt, active if
    // a <= t < a + T_max, share clip((a + T_max - t) / dt, 0, 1).
    const double a = users.at(i).arrival;
    auto t = [this](uint64_t m) { return static_cast<double>(m) * slot; };
    uint64_t m = static_cast<uint64_t>(std::max(0.0, std::floor(a / slot)));
    while (m > 0 && t(m - 1) >= a)
    {
        --m;
    }
    while (t(m) < a)
    {
        ++m;
    }
    std::vector<std::pair<uint64_t, double>> slots;
    for (; a + window > t(m); ++m)
    {
        slots.emplace_back(m, std::clamp((a + window - t(m)) / slot, 0.0, 1.0));
    }
    return slots;
}

TypeId
ImpactHoClairvoyantBound::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ImpactHoClairvoyantBound")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<ImpactHoClairvoyantBound>()
            .AddAttribute("Segments",
                          "Largest number of linear segments of each user's piecewise-linear "
                          "utility in the MILP (breakpoints equalize the error; more: tighter "
                          "and slower).",
                          UintegerValue(48),
                          MakeUintegerAccessor(&ImpactHoClairvoyantBound::m_segments),
                          MakeUintegerChecker<uint32_t>(2, 4096))
            .AddAttribute("Tangents",
                          "Tangent lines per utility in the concave-envelope LP (more: tighter).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&ImpactHoClairvoyantBound::m_tangents),
                          MakeUintegerChecker<uint32_t>(2, 100000))
            .AddAttribute("TimeLimit",
                          "CBC's time limit per solve; when it hits, the bound is CBC's best "
                          "proven bound (still valid, looser).",
                          TimeValue(Seconds(60)),
                          MakeTimeAccessor(&ImpactHoClairvoyantBound::m_timeLimit),
                          MakeTimeChecker(MilliSeconds(1), Seconds(1e6)))
            .AddAttribute("RelativeGap",
                          "CBC stops when (bound - best) / best is below this (the bound "
                          "stays valid; it only gets looser).",
                          DoubleValue(1e-6),
                          MakeDoubleAccessor(&ImpactHoClairvoyantBound::m_gap),
                          MakeDoubleChecker<double>(0, 0.1));
    return tid;
}

ImpactHoClairvoyantBound::ImpactHoClairvoyantBound()
    : m_segments(48),
      m_tangents(64),
      m_timeLimit(Seconds(60)),
      m_gap(1e-6)
{
}

std::vector<double>
ImpactHoClairvoyantBound::Breakpoints(const AccuracyUtility& a, uint32_t segments)
{
    a.Validate();
    if (segments < 2)
    {
        throw std::invalid_argument("segments must be >= 2, got " + std::to_string(segments));
    }
    // Smallest eps (bisection on log eps) whose greedy grid has at most `segments` segments.
    double lo = std::log(1e-12);
    double hi = std::log(1.0);
    std::vector<double> best = GreedyGrid(a, 1.0, segments);
    for (int i = 0; i < 40; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        std::vector<double> g = GreedyGrid(a, std::exp(mid), segments);
        if (g.back() >= 1.0 && g.size() - 1 <= segments)
        {
            best = std::move(g);
            hi = mid;
        }
        else
        {
            lo = mid;
        }
    }
    best.back() = 1.0;
    return best;
}

double
ImpactHoClairvoyantBound::InterpolationError(const AccuracyUtility& a,
                                             const std::vector<double>& grid)
{
    // On a segment, g = A - chord has g'' = A'' and |A''| <= C = M k^2 / 2 (the largest
    // |d^2(A/M)/du^2| of the four families is 0.484, erf). Between two samples h apart,
    // g exceeds their linear interpolation by at most C h^2 / 8.
    const double c = 0.5 * a.asymptote * a.sharpness * a.sharpness;
    constexpr double TARGET = 1e-9; // curvature term aimed at per sample gap
    constexpr double MAX_SAMPLES = 1 << 22;
    double worst = 0;
    for (std::size_t s = 0; s + 1 < grid.size(); ++s)
    {
        const double lo = grid[s];
        const double hi = grid[s + 1];
        const double alo = a.Value(lo);
        const double slope = (a.Value(hi) - alo) / (hi - lo);
        const double n =
            std::clamp(std::ceil((hi - lo) / std::sqrt(8 * TARGET / c)), 1.0, MAX_SAMPLES);
        const double h = (hi - lo) / n;
        double segWorst = 0;
        for (double j = 1; j < n; ++j)
        {
            const double y = lo + h * j;
            segWorst = std::max(segWorst, a.Value(y) - alo - slope * (y - lo));
        }
        worst = std::max(worst, segWorst + c * h * h / 8);
    }
    return worst;
}

double
ImpactHoClairvoyantBound::EnvelopeTangency(const AccuracyUtility& a)
{
    a.Validate();
    // h(y) = A'(y) y - (A(y) - A(0)) is > 0 at tau (A convex on [0, tau]) and decreasing
    // on [tau, 1] (h' = A'' y < 0): one root, or none in [tau, 1] (then the chord to 1).
    const double a0 = a.Value(0);
    auto h = [&](double y) { return a.Derivative(y) * y - (a.Value(y) - a0); };
    if (h(1.0) >= 0)
    {
        return 1.0;
    }
    double lo = a.inflection;
    double hi = 1.0;
    for (int i = 0; i < 100 && hi - lo > 1e-15; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        (h(mid) > 0 ? lo : hi) = mid;
    }
    return hi;
}

double
ImpactHoClairvoyantBound::Envelope(const AccuracyUtility& a, double y)
{
    const double ys = EnvelopeTangency(a);
    if (y >= ys)
    {
        return a.Value(y);
    }
    const double a0 = a.Value(0);
    return a0 + (a.Value(ys) - a0) / ys * y;
}

ClairvoyantBoundResult
ImpactHoClairvoyantBound::SolveMilp(const ClairvoyantInstance& inst) const
{
    inst.Validate();
    const auto t0 = std::chrono::steady_clock::now();
    ClairvoyantBoundResult r;
    const std::size_t n = inst.users.size();
    if (n == 0)
    {
        return r;
    }
    const double inv = 1.0 / static_cast<double>(n);

    std::map<UtilityKey, Pwl> pwls;
    LinearModel m;
    std::map<uint64_t, int> slotRow; // slot index -> budget row
    std::vector<std::vector<int>> deltas(n);
    std::vector<std::vector<SentColumn>> sent(n);
    std::vector<double> cacheBits(n);
    std::vector<const Pwl*> pwlOf(n);
    double constant = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        const ClairvoyantUser& u = inst.users[i];
        auto it = pwls.find(KeyOf(u.utility));
        if (it == pwls.end())
        {
            Pwl p;
            p.grid = Breakpoints(u.utility, m_segments);
            for (std::size_t s = 0; s + 1 < p.grid.size(); ++s)
            {
                p.slopes.push_back((u.utility.Value(p.grid[s + 1]) - u.utility.Value(p.grid[s])) /
                                   (p.grid[s + 1] - p.grid[s]));
            }
            p.concaveFrom = p.slopes.size() - 1;
            while (p.concaveFrom > 0 && p.slopes[p.concaveFrom - 1] >= p.slopes[p.concaveFrom])
            {
                --p.concaveFrom;
            }
            p.error = InterpolationError(u.utility, p.grid);
            it = pwls.emplace(KeyOf(u.utility), std::move(p)).first;
        }
        const Pwl& p = it->second;
        pwlOf[i] = &p;
        cacheBits[i] = u.cacheBits;
        r.segments = std::max<uint32_t>(r.segments, static_cast<uint32_t>(p.slopes.size()));
        r.correction += p.error * inv;
        constant += u.utility.Value(0) * inv;

        // y_i = sum_m s_m f_m = sum_s delta_s; sum_m f_m <= 1 (no more sent than the cache)
        const int link = m.AddRow(0, 0);
        const int cap = m.AddRow(-1e30, 1.0);
        sent[i] = AddTransferColumns(m, slotRow, inst, i, cap);
        for (const SentColumn& c : sent[i])
        {
            m.Set(link, c.col, c.share);
        }
        for (std::size_t s = 0; s < p.slopes.size(); ++s)
        {
            const int d = m.AddCol(0, p.grid[s + 1] - p.grid[s], p.slopes[s] * inv);
            m.Set(link, d, -1.0);
            deltas[i].push_back(d);
        }
        // Incremental formulation on the convex part: z_s = 1 iff segment s is full;
        // segment s + 1 (and every segment of the concave part) only after z_s.
        int previous = -1;
        for (std::size_t s = 0; s < p.concaveFrom; ++s)
        {
            const double len = p.grid[s + 1] - p.grid[s];
            const int z = m.AddCol(0, 1, 0, true);
            const int full = m.AddRow(0, 1e30); // delta_s - len z_s >= 0
            m.Set(full, deltas[i][s], 1.0);
            m.Set(full, z, -len);
            previous = z;
            const std::size_t last = s + 1 < p.concaveFrom ? s + 1 : p.slopes.size() - 1;
            for (std::size_t q = s + 1; q <= last; ++q)
            {
                const int gate = m.AddRow(-1e30, 0); // delta_q - len_q z_s <= 0
                m.Set(gate, deltas[i][q], 1.0);
                m.Set(gate, previous, -(p.grid[q + 1] - p.grid[q]));
            }
        }
    }
    r.columns = static_cast<uint32_t>(m.colLower.size());
    r.rows = static_cast<uint32_t>(m.rowLower.size());

    const Solution s = SolveWithCbc(m, m_timeLimit.GetSeconds(), m_gap);
    r.binaries = s.binaries;
    r.nodes = s.nodes;
    r.provenOptimal = s.optimal;
    r.milpObjective =
        s.incumbent ? s.objective + constant : std::numeric_limits<double>::quiet_NaN();
    r.milpBound = s.bound + constant;
    r.upper = r.milpBound + r.correction;
    r.received = FeasibleReceived(m, s.x, sent, cacheBits, inst.budgetBits);
    double pwlValue = 0; // of the feasible allocation: the bound must be above it
    for (std::size_t i = 0; i < n; ++i)
    {
        const double y = r.received[i];
        r.lower += inst.users[i].utility.Value(y) * inv;
        const Pwl& p = *pwlOf[i];
        const std::size_t seg = std::min<std::size_t>(
            std::upper_bound(p.grid.begin(), p.grid.end(), y) - p.grid.begin() - 1,
            p.slopes.size() - 1);
        pwlValue +=
            (inst.users[i].utility.Value(p.grid[seg]) + p.slopes[seg] * (y - p.grid[seg])) * inv;
    }
    if (r.milpBound < pwlValue - 1e-7)
    {
        throw std::runtime_error("CBC's bound " + std::to_string(r.milpBound) +
                                 " lies below a feasible allocation's PWL value " +
                                 std::to_string(pwlValue));
    }
    r.seconds = WallSeconds(t0);
    NS_LOG_INFO("MILP: " << n << " users, " << r.columns << " columns, " << r.binaries
                         << " binaries, bound " << r.upper << " (PWL " << r.milpBound << " + "
                         << r.correction << "), lower " << r.lower << ", " << r.seconds << " s");
    return r;
}

EnvelopeBoundResult
ImpactHoClairvoyantBound::SolveEnvelope(const ClairvoyantInstance& inst) const
{
    inst.Validate();
    const auto t0 = std::chrono::steady_clock::now();
    EnvelopeBoundResult r;
    const std::size_t n = inst.users.size();
    if (n == 0)
    {
        return r;
    }
    const double inv = 1.0 / static_cast<double>(n);
    std::map<UtilityKey, Lines> lines;
    LinearModel m;
    std::map<uint64_t, int> slotRow;
    std::vector<std::vector<SentColumn>> sent(n);
    std::vector<double> cacheBits(n);
    for (std::size_t i = 0; i < n; ++i)
    {
        const ClairvoyantUser& u = inst.users[i];
        cacheBits[i] = u.cacheBits;
        const AccuracyUtility& a = u.utility;
        auto it = lines.find(KeyOf(a));
        if (it == lines.end())
        {
            // E = min of its tangents: the line from (0, A(0)) through (y*, A(y*)), and
            // tangents of A at points of [y*, 1], half equally spaced in slope (dense where
            // A bends), half equally spaced in y. Every tangent of a concave E lies above
            // it, so the minimum is an upper bound of E.
            const double ys = EnvelopeTangency(a);
            const double a0 = a.Value(0);
            Lines l{{a0, (a.Value(ys) - a0) / ys}};
            if (ys < 1.0)
            {
                const uint32_t half = std::max<uint32_t>(1, m_tangents / 2);
                const double s0 = a.Derivative(ys);
                const double s1 = a.Derivative(1.0);
                for (uint32_t j = 1; j <= half; ++j)
                {
                    const double frac = static_cast<double>(j) / half;
                    const double py =
                        std::clamp(a.InverseDerivative(s0 + (s1 - s0) * frac), ys, 1.0);
                    const double qy = ys + (1.0 - ys) * frac;
                    for (double p : {py, qy})
                    {
                        l.emplace_back(a.Value(p) - a.Derivative(p) * p, a.Derivative(p));
                    }
                }
            }
            it = lines.emplace(KeyOf(a), std::move(l)).first;
        }
        // w_i <= c_j + d_j y_i, y_i = sum_m s_m f_m, sum_m f_m <= 1
        const int w = m.AddCol(-1e30, 1e30, inv);
        std::vector<int> tangentRows;
        for (const auto& [c, d] : it->second)
        {
            const int row = m.AddRow(-1e30, c); // w - d y <= c
            m.Set(row, w, 1.0);
            tangentRows.push_back(row);
        }
        const int cap = m.AddRow(-1e30, 1.0); // sent <= cache (so y_i <= 1 too)
        sent[i] = AddTransferColumns(m, slotRow, inst, i, cap);
        for (const SentColumn& c : sent[i])
        {
            for (std::size_t j = 0; j < tangentRows.size(); ++j)
            {
                m.Set(tangentRows[j], c.col, -it->second[j].second * c.share);
            }
        }
    }
    const Solution s = SolveWithCbc(m, m_timeLimit.GetSeconds(), m_gap);
    r.upper = s.bound;
    r.received = FeasibleReceived(m, s.x, sent, cacheBits, inst.budgetBits);
    for (std::size_t i = 0; i < n; ++i)
    {
        r.lower += inst.users[i].utility.Value(r.received[i]) * inv;
    }
    r.seconds = WallSeconds(t0);
    return r;
}

} // namespace ns3
