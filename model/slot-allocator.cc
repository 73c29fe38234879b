/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "slot-allocator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ns3
{

std::string
SlotAllocation::RegimeName() const
{
    switch (regime)
    {
    case WATER_FILLING:
        return "water-filling";
    case FALLBACK:
        return "fallback";
    case BASELINE:
        return "baseline";
    }
    return "baseline";
}

SlotAllocator::Fallback
SlotAllocator::ParseFallback(const std::string& name)
{
    if (name == "eb")
    {
        return EQUALIZED_BYTES;
    }
    if (name == "wta")
    {
        return CASCADING_WTA;
    }
    if (name == "none")
    {
        return NO_ADMISSION;
    }
    throw std::invalid_argument("unknown fallback '" + name + "'; valid: eb, wta, none");
}

void
SlotAllocator::Check(const std::vector<SlotUser>& users, double budgetBits)
{
    if (!(budgetBits >= 0) || !std::isfinite(budgetBits))
    {
        throw std::invalid_argument("slot budget must be a finite number >= 0 bits");
    }
    for (const auto& u : users)
    {
        if (!(u.cacheBits > 0) || !std::isfinite(u.cacheBits))
        {
            throw std::invalid_argument("user " + std::to_string(u.userId) +
                                        ": cache size must be a finite number > 0 bits");
        }
        if (!(u.received >= 0 && u.received <= 1))
        {
            throw std::invalid_argument("user " + std::to_string(u.userId) +
                                        ": received fraction must be in [0, 1]");
        }
        u.utility.Validate();
    }
}

double
SlotAllocator::TotalAccuracy(const std::vector<SlotUser>& users, const std::vector<double>& target)
{
    double sum = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        sum += users[i].utility.Value(target[i]);
    }
    return sum;
}

namespace
{

SlotAllocation
Start(const std::vector<SlotUser>& users, double budgetBits)
{
    SlotAllocation a;
    a.budgetBits = budgetBits;
    a.target.resize(users.size());
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        a.target[i] = users[i].received;
    }
    return a;
}

double
Used(const std::vector<SlotUser>& users, const std::vector<double>& target)
{
    double bits = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        bits += users[i].cacheBits * (target[i] - users[i].received);
    }
    return bits;
}

/// Records the bits used; a rounding overshoot (a few ulps) is scaled back into budget.
void
Finish(const std::vector<SlotUser>& users, SlotAllocation& a)
{
    a.usedBits = Used(users, a.target);
    for (int attempt = 0; attempt < 8 && a.usedBits > a.budgetBits; ++attempt)
    {
        const double factor = a.budgetBits / a.usedBits * (1 - 1e-12);
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            const double x = users[i].received;
            a.target[i] = std::max(x, x + (a.target[i] - x) * factor);
        }
        a.usedBits = Used(users, a.target);
    }
}

constexpr double PI = 3.14159265358979323846;

/**
 * One user's concave branch, precomputed once per slot so that each step of the price
 * search costs a comparison per user and, for a user strictly between its bounds, one
 * square root and one division (no exp, pow or log per user for the algebraic, erf and
 * arctan families). At price lambda = e^s the branch point is y = tau + U / k with
 * (doc/edge-llm-design.rst, ImpactHO slot allocation):
 *
 *   algebraic: U^2 = v = a e^{-2s/3} - 1,  a = (M k / (2 L))^{2/3}
 *   arctan:    U^2 = v = a e^{-s} - 1,     a = M k / (pi L)
 *   erf:       U^2 = v = -s - a,           a = ln(L sqrt(pi) / (M k))
 *   logistic:  U   = v = 2 ln(1 + r) - a - s,  r = sqrt(1 - 4 c e^s),  c = L / (M k),
 *              a = ln(4 c)  (U = 0 once 4 c e^s >= 1)
 *
 * each being (A')^{-1}(lambda L) of AccuracyUtility::InverseDerivative in another
 * variable. The user sits at its lower bound `lo` while v <= vLo and is full once
 * v >= vHi.
 */
struct Branch
{
    double a;         //!< Family constant (above)
    double c;         //!< Logistic: L / (M k)
    double vLo;       //!< v at y = lo
    double vHi;       //!< v at y = 1
    double w;         //!< L / k, bits per unit of U
    double base;      //!< L (tau - x), bits at U = 0
    double floorBits; //!< L (lo - x)
    double fullBits;  //!< L (1 - x)
};

/// A price e^s and the powers of it the branches need, computed once per step.
struct Price
{
    double s;      //!< ln lambda
    double lambda; //!< e^s
    double e23;    //!< e^{-2s/3}
    double e1;     //!< e^{-s}

    explicit Price(double logLambda)
        : s(logLambda),
          lambda(std::exp(logLambda)),
          e23(std::exp(-2.0 / 3.0 * logLambda)),
          e1(std::exp(-logLambda))
    {
    }
};

/// What only the final pass needs.
struct Cold
{
    double tau;        //!< tau
    double invK;       //!< 1 / k
    std::size_t index; //!< Position in the caller's users
};

/// The slot's users split by family (each loop then has no branch on the family).
struct Branches
{
    std::vector<Branch> of[4];                               //!< Per AccuracyUtility::Family
    std::vector<Cold> cold[4];                               //!< Same order
    const std::vector<double>* lower{nullptr};               //!< lo_i, in the caller's order
    double sFloor{-std::numeric_limits<double>::infinity()}; //!< Above: all at lo
    double sFull{std::numeric_limits<double>::infinity()};   //!< Below: all full
    double floorBits{0};                                     //!< sum_i L_i (lo_i - x_i)
    double fullBits{0};                                      //!< sum_i L_i (1 - x_i)
};

/**
 * Builds into b (a workspace whose capacity is kept between slots: no allocation, no
 * page faults) the branches of every user with lower bound lower[i] >= tau_i, and the
 * prices sFloor (every user at its lower bound from there up) and sFull (every user
 * full from there down), from closed forms (no search). b refers to lower.
 */
void
MakeBranches(const std::vector<SlotUser>& users, const std::vector<double>& lower, Branches& b)
{
    b.lower = &lower;
    b.sFloor = -std::numeric_limits<double>::infinity();
    b.sFull = std::numeric_limits<double>::infinity();
    b.floorBits = 0;
    b.fullBits = 0;
    std::size_t count[4] = {0, 0, 0, 0};
    for (const auto& u : users)
    {
        ++count[u.utility.family];
    }
    for (int f = 0; f < 4; ++f)
    {
        b.of[f].clear();
        b.cold[f].clear();
        b.of[f].reserve(count[f]);
        b.cold[f].reserve(count[f]);
    }
    double algFloor = std::numeric_limits<double>::infinity(); // min (1 + vLo) / a
    double algFull = 0;                                        // max (1 + vHi) / a
    double atanFloor = std::numeric_limits<double>::infinity();
    double atanFull = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const SlotUser& u = users[i];
        const AccuracyUtility& f = u.utility;
        const double l = u.cacheBits;
        const double m = f.asymptote;
        const double k = f.sharpness;
        const double tau = f.inflection;
        const double lo = lower[i];
        Branch br;
        br.c = 0;
        br.w = l / k;
        br.base = l * (tau - u.received);
        br.floorBits = l * (lo - u.received);
        br.fullBits = l * (1 - u.received);
        b.floorBits += br.floorBits;
        b.fullBits += br.fullBits;
        const double uLo = k * (lo - tau);
        const double uHi = k * (1 - tau);
        switch (f.family)
        {
        case AccuracyUtility::ALGEBRAIC: {
            const double r = std::cbrt(m * k / (2 * l));
            br.a = r * r;
            br.vLo = uLo * uLo;
            br.vHi = uHi * uHi;
            algFloor = std::min(algFloor, (1 + br.vLo) / br.a);
            algFull = std::max(algFull, (1 + br.vHi) / br.a);
            break;
        }
        case AccuracyUtility::ARCTAN:
            br.a = m * k / (PI * l);
            br.vLo = uLo * uLo;
            br.vHi = uHi * uHi;
            atanFloor = std::min(atanFloor, (1 + br.vLo) / br.a);
            atanFull = std::max(atanFull, (1 + br.vHi) / br.a);
            break;
        case AccuracyUtility::ERF:
            br.a = std::log(l * std::sqrt(PI) / (m * k));
            br.vLo = uLo * uLo;
            br.vHi = uHi * uHi;
            b.sFloor = std::max(b.sFloor, -br.a - br.vLo);
            b.sFull = std::min(b.sFull, -br.a - br.vHi);
            break;
        case AccuracyUtility::LOGISTIC: {
            br.c = l / (m * k);
            br.a = std::log(4 * br.c);
            br.vLo = uLo;
            br.vHi = uHi;
            // ln(A'(tau + U/k) / L) = -ln c - U - 2 ln(1 + e^{-U}), U >= 0
            auto logSlope = [&](double uu) {
                return -std::log(br.c) - uu - 2 * std::log1p(std::exp(-uu));
            };
            b.sFloor = std::max(b.sFloor, logSlope(uLo));
            b.sFull = std::min(b.sFull, logSlope(uHi));
            break;
        }
        }
        b.of[f.family].push_back(br);
        b.cold[f.family].push_back({tau, 1 / k, i});
    }
    if (!b.of[AccuracyUtility::ALGEBRAIC].empty())
    {
        b.sFloor = std::max(b.sFloor, -1.5 * std::log(algFloor));
        b.sFull = std::min(b.sFull, -1.5 * std::log(algFull));
    }
    if (!b.of[AccuracyUtility::ARCTAN].empty())
    {
        b.sFloor = std::max(b.sFloor, -std::log(atanFloor));
        b.sFull = std::min(b.sFull, -std::log(atanFull));
    }
}

/**
 * One family's share of Demand(): `var(br, r)` is the branch variable v (and r for the
 * logistic), `inner(br, v, r, d)` returns U of an interior user and adds dU/ds L/k to d.
 */
template <typename Var, typename Inner>
void
DemandOf(const Branches& b,
         int f,
         Var var,
         Inner inner,
         double& bits,
         double& d,
         std::vector<double>* target)
{
    const std::vector<Branch>& of = b.of[f];
    const std::size_t count = of.size();
    if (!target)
    {
        for (std::size_t n = 0; n < count; ++n)
        {
            const Branch& br = of[n];
            double r = 1;
            const double v = var(br, r);
            if (v <= br.vLo)
            {
                bits += br.floorBits;
            }
            else if (v >= br.vHi)
            {
                bits += br.fullBits;
            }
            else
            {
                bits += br.base + br.w * inner(br, v, r, d);
            }
        }
        return;
    }
    for (std::size_t n = 0; n < count; ++n)
    {
        const Branch& br = of[n];
        const Cold& cold = b.cold[f][n];
        double r = 1;
        const double v = var(br, r);
        double y = 1;
        if (v <= br.vLo)
        {
            bits += br.floorBits;
            y = (*b.lower)[cold.index];
        }
        else if (v >= br.vHi)
        {
            bits += br.fullBits;
        }
        else
        {
            const double u = inner(br, v, r, d);
            bits += br.base + br.w * u;
            y = cold.tau + u * cold.invK;
        }
        (*target)[cold.index] = std::clamp(y, (*b.lower)[cold.index], 1.0);
    }
}

/**
 * Bits the users ask for at price p, sum_i L_i (y_i - x_i), and its derivative in
 * s = ln lambda (<= 0) in *slope; with a target, also y_i.
 */
double
Demand(const Branches& b, const Price& p, double* slope, std::vector<double>* target)
{
    double bits = 0;
    double d = 0;
    DemandOf(
        b,
        AccuracyUtility::ALGEBRAIC,
        [&p](const Branch& br, double&) { return br.a * p.e23 - 1; },
        [](const Branch& br, double v, double, double& dd) {
            const double u = std::sqrt(v);
            dd -= br.w * (v + 1) / (3 * u); // dv/ds = -(2/3)(v + 1)
            return u;
        },
        bits,
        d,
        target);
    DemandOf(
        b,
        AccuracyUtility::ARCTAN,
        [&p](const Branch& br, double&) { return br.a * p.e1 - 1; },
        [](const Branch& br, double v, double, double& dd) {
            const double u = std::sqrt(v);
            dd -= br.w * (v + 1) / (2 * u); // dv/ds = -(v + 1)
            return u;
        },
        bits,
        d,
        target);
    DemandOf(
        b,
        AccuracyUtility::ERF,
        [&p](const Branch& br, double&) { return -p.s - br.a; },
        [](const Branch& br, double v, double, double& dd) {
            const double u = std::sqrt(v);
            dd -= br.w / (2 * u); // dv/ds = -1
            return u;
        },
        bits,
        d,
        target);
    DemandOf(
        b,
        AccuracyUtility::LOGISTIC,
        [&p](const Branch& br, double& r) {
            const double q = br.c * p.lambda;
            if (!(q < 0.25))
            {
                return 0.0;
            }
            r = std::sqrt(1 - 4 * q);
            return 2 * std::log1p(r) - br.a - p.s;
        },
        [](const Branch& br, double v, double r, double& dd) {
            dd -= br.w / r; // dU/ds = -1/r
            return v;
        },
        bits,
        d,
        target);
    if (slope)
    {
        *slope = d;
    }
    return bits;
}

/**
 * Weighted water-filling over users with lower bounds lower[i] >= tau_i whose floors fit
 * (sum_i L_i (lo_i - x_i) <= budget): the price e^s with Demand = budget, found by Newton
 * steps on R = e^{-s/3} (in which an algebraic user's demand is nearly linear) kept
 * inside a bracket on s, bisecting whenever a step leaves it. Stops when the demand is
 * within 1e-13 of the budget or the bracket is 1e-13 wide (relative); the end within
 * budget is taken. Sets a.target and a.price.
 */
void
SolvePrice(const std::vector<SlotUser>& users,
           const std::vector<double>& lower,
           double budgetBits,
           SlotAllocation& a)
{
    // One workspace per thread, reused by every slot (SolvePrice does not nest).
    thread_local Branches b;
    MakeBranches(users, lower, b);
    if (b.fullBits <= budgetBits)
    {
        // lambda = 0: everything fits.
        std::fill(a.target.begin(), a.target.end(), 1.0);
        a.price = 0;
        return;
    }
    // Bracket: demand <= budget from sFloor up (everyone at the floor), > budget below
    // sFull (everyone full). Prices below the smallest double are not searched: users
    // whose slopes underflow there keep their floor.
    // Every user is at its floor from sFloor up and full from sFull down, so the demand
    // at the ends is known; a margin of 1e-9 covers rounding in the closed forms.
    double sR = b.sFloor + 1e-9 * std::max(1.0, std::abs(b.sFloor));
    double sL = b.sFull - 1e-9 * std::max(1.0, std::abs(b.sFull));
    double gR = b.floorBits;
    double gL = b.fullBits;
    if (!std::isfinite(sR) || !std::isfinite(sL) || !(sL < sR))
    {
        // Degenerate constants (an overflow in a closed form): search a wide bracket.
        sR = std::isfinite(sR) ? sR : 0;
        sL = sR - 2000;
        gR = Demand(b, Price(sR), nullptr, nullptr);
        gL = Demand(b, Price(sL), nullptr, nullptr);
    }
    double s = sR;
    if (gL <= budgetBits)
    {
        s = sL; // degenerate constants: the budget does not bind in the bracket
    }
    else if (gR <= budgetBits)
    {
        // Newton on R = e^{-alpha s}, alpha = 1/3 for algebraic users (U ~ e^{-s/3}),
        // 1/2 for arctan (U ~ e^{-s/2}), 0 (Newton on s) for erf and logistic (U ~ -s):
        // R' = R (1 - alpha (budget - g) / g'(s)), s' = s - ln(R' / R) / alpha.
        const double total = static_cast<double>(users.size());
        const double alpha = (b.of[AccuracyUtility::ALGEBRAIC].size() / 3.0 +
                              b.of[AccuracyUtility::ARCTAN].size() / 2.0) /
                             total;
        auto newton = [alpha](double at, double miss, double slope) {
            if (!(slope < 0))
            {
                return std::numeric_limits<double>::quiet_NaN();
            }
            if (alpha < 1e-3)
            {
                return at + miss / slope;
            }
            const double ratio = 1 - alpha * miss / slope;
            return ratio > 0 ? at - std::log(ratio) / alpha
                             : std::numeric_limits<double>::quiet_NaN();
        };
        // First point: the secant between the bracket ends in R.
        double next = 0.5 * (sL + sR);
        if (alpha >= 1e-3)
        {
            const double rL = std::exp(-alpha * (sL - sR)); // R scaled by e^{alpha sR}
            const double r0 = 1 + (budgetBits - gR) * (rL - 1) / (gL - gR);
            next = sR - std::log(r0) / alpha;
        }
        else
        {
            next = sR + (budgetBits - gR) * (sL - sR) / (gL - gR);
        }
        const double tol = 1e-13;
        double lastMiss = std::numeric_limits<double>::infinity();
        for (int step = 0; step < 300; ++step)
        {
            if (!(next > sL && next < sR))
            {
                next = 0.5 * (sL + sR);
            }
            double slope = 0;
            const double g = Demand(b, Price(next), &slope, nullptr);
            const double miss = budgetBits - g;
            if (miss >= 0 && miss <= tol * budgetBits)
            {
                s = next; // within budget and within tolerance of it
                break;
            }
            (g > budgetBits ? sL : sR) = next;
            if (sR - sL <= tol * std::max(1.0, std::abs(sR)))
            {
                s = sR; // the end within budget
                break;
            }
            if (miss < 0 && -miss <= tol * budgetBits && slope < 0)
            {
                // A hair over: step twice the Newton distance, to as far within budget.
                next = next + 2 * miss / slope;
                continue;
            }
            // Newton while it at least halves the miss, else bisection.
            const bool progress = std::abs(miss) <= 0.5 * lastMiss;
            next = progress ? newton(next, miss, slope) : 0.5 * (sL + sR);
            lastMiss = progress ? std::abs(miss) : std::numeric_limits<double>::infinity();
        }
    }
    // The targets' own sum can round a few ulps over where the demand did not: raise the
    // price by a hair rather than let Finish() scale full users below 1.
    Demand(b, Price(s), nullptr, &a.target);
    for (int nudge = 0; nudge < 4 && Used(users, a.target) > budgetBits; ++nudge)
    {
        s += 1e-14 * std::max(1.0, std::abs(s)) * (1 << (3 * nudge));
        Demand(b, Price(s), nullptr, &a.target);
    }
    a.price = std::exp(s);
}

/**
 * \brief No admission's jump prices: a user below its inflection tau stays at x_i until the
 *        price falls to its marginal accuracy there, ln(A_i'(x_i) / L_i); at or above tau it
 *        has none (infinity).
 * \param users the slot's users
 * \param lower filled: per user, w_i (the concave branch's point with the slope A_i'(x_i))
 *        below tau, else x_i
 * \param jump filled: per user, its ln jump price (infinity: none; -infinity: a slope that
 *        underflows, never on)
 * \return the distinct finite ln jump prices, ascending
 */
std::vector<double>
JumpPrices(const std::vector<SlotUser>& users,
           std::vector<double>& lower,
           std::vector<double>& jump)
{
    std::vector<double> jumps;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const SlotUser& u = users[i];
        if (u.received >= u.utility.inflection)
        {
            lower[i] = u.received;
            continue;
        }
        // A slope that underflows gives -infinity: never on (only a remainder reaches it).
        const double slope = u.utility.Derivative(u.received);
        lower[i] = std::min(1.0, u.utility.InverseDerivative(slope));
        jump[i] = std::log(slope) - std::log(u.cacheBits);
        if (std::isfinite(jump[i]))
        {
            jumps.push_back(jump[i]);
        }
    }
    std::sort(jumps.begin(), jumps.end());
    jumps.erase(std::unique(jumps.begin(), jumps.end()), jumps.end());
    return jumps;
}

/**
 * \brief What a slot's targets leave of its budget (rounding, or slopes that underflow)
 *        tops up the first users with room, in the caller's order.
 * \param users the slot's users
 * \param budgetBits the slot's budget, bits
 * \param target the users' targets y_i, raised in place (at most 1)
 */
void
TopUp(const std::vector<SlotUser>& users, double budgetBits, std::vector<double>& target)
{
    double left = budgetBits - Used(users, target);
    for (std::size_t i = 0; i < users.size() && left > 0; ++i)
    {
        const double room = users[i].cacheBits * (1 - target[i]);
        if (room > 0)
        {
            const double bits = std::min(left, room);
            target[i] = bits >= room ? 1.0 : target[i] + bits / users[i].cacheBits;
            left -= bits;
        }
    }
}

/**
 * No admission (SlotAllocator::NO_ADMISSION, an infeasible slot): plain water-filling on
 * the users' utilities, with no tau floor (doc/edge-llm-design.rst, ImpactHO slot allocation).
 * At price lambda every user takes a first-order (KKT) point of A_i(y) - lambda L_i y on
 * [x_i, 1]: a user below tau stays at x_i while its marginal accuracy there is below the
 * price, A_i'(x_i) <= lambda L_i (its jump price), and below that price takes
 * y_i = clip((A_i')^{-1}(lambda L_i), w_i, 1) on its concave branch, w_i = the point of
 * that branch with the slope A_i'(x_i); a user at or above tau follows its branch from
 * x_i. The price is the largest jump price at which the users on fit, or the root of the
 * continuous demand between two jump prices; the users whose jump price it is (the
 * marginal ones) then take what the others leave one after the other, in the caller's
 * order, each up to w_i. A rounding remainder tops up the first users with room.
 */
void
NoAdmission(const std::vector<SlotUser>& users, double budgetBits, SlotAllocation& a)
{
    const std::size_t n = users.size();
    std::vector<double> lower(n);
    std::vector<double> jump(n, std::numeric_limits<double>::infinity()); // ln price
    const std::vector<double> jumps = JumpPrices(users, lower, jump);

    // The users on just above (strict) or at (inclusive) ln price s.
    auto onSet = [&](double s, bool inclusive) {
        std::vector<std::size_t> on;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (jump[i] > s || (inclusive && jump[i] == s))
            {
                on.push_back(i);
            }
        }
        return on;
    };
    auto sub = [&](const std::vector<std::size_t>& on) {
        std::vector<SlotUser> us;
        std::vector<double> lo;
        us.reserve(on.size());
        lo.reserve(on.size());
        for (std::size_t i : on)
        {
            us.push_back(users[i]);
            lo.push_back(lower[i]);
        }
        return std::make_pair(us, lo);
    };
    // Demand at ln price s of the users on; with a target, also their y_i.
    auto demand = [&](double s, bool inclusive, std::vector<double>* target) {
        const auto on = onSet(s, inclusive);
        const auto [us, lo] = sub(on);
        Branches b;
        MakeBranches(us, lo, b);
        std::vector<double> y(on.size());
        const double bits = Demand(b, Price(s), nullptr, target ? &y : nullptr);
        if (target)
        {
            for (std::size_t m = 0; m < on.size(); ++m)
            {
                (*target)[on[m]] = y[m];
            }
        }
        return bits;
    };
    // Smallest jump price with the users still on within budget (demand falls with s).
    std::size_t lo = 0;
    std::size_t hi = jumps.size();
    while (lo < hi)
    {
        const std::size_t mid = (lo + hi) / 2;
        if (demand(jumps[mid], false, nullptr) <= budgetBits)
        {
            hi = mid;
        }
        else
        {
            lo = mid + 1;
        }
    }
    if (lo < jumps.size() && demand(jumps[lo], true, nullptr) >= budgetBits)
    {
        // The budget falls in a jump: the price is this jump price, and the marginal users
        // share what the others leave, one after the other, each up to w_i.
        const double s = jumps[lo];
        a.price = std::exp(s);
        demand(s, false, &a.target);
        double left = budgetBits - Used(users, a.target);
        for (std::size_t i = 0; i < n && left > 0; ++i)
        {
            if (jump[i] == s)
            {
                const double room = users[i].cacheBits * (lower[i] - users[i].received);
                const double bits = std::min(left, room);
                a.target[i] = bits >= room ? lower[i] : a.target[i] + bits / users[i].cacheBits;
                left -= bits;
            }
        }
    }
    else
    {
        // A root between two jump prices (or above the largest): the users on there are
        // fixed and their demand is continuous, as in a feasible slot.
        const double s = lo < jumps.size() ? jumps[lo] : std::numeric_limits<double>::infinity();
        const auto on = onSet(s, true);
        const auto [us, lw] = sub(on);
        SlotAllocation part = Start(us, budgetBits);
        SolvePrice(us, lw, budgetBits, part);
        for (std::size_t m = 0; m < on.size(); ++m)
        {
            a.target[on[m]] = part.target[m];
        }
        a.price = part.price;
    }
    TopUp(users, budgetBits, a.target);
}

} // namespace

void
SlotAllocator::ShareEqually(const std::vector<SlotUser>& users,
                            const std::vector<std::size_t>& who,
                            double budgetBits,
                            std::vector<double>& target)
{
    // Progressive filling: equal shares; a user capped by its remaining cache frees the
    // rest of its share for the others. Sorting by room makes it one pass.
    std::vector<std::size_t> order = who;
    auto room = [&](std::size_t i) { return users[i].cacheBits * (1.0 - target[i]); };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return room(a) < room(b);
    });
    double left = budgetBits;
    for (std::size_t n = 0; n < order.size(); ++n)
    {
        const std::size_t i = order[n];
        const double share = left / static_cast<double>(order.size() - n);
        const double give = std::min(share, room(i));
        target[i] = give >= room(i) ? 1.0 : target[i] + give / users[i].cacheBits;
        left -= give;
    }
}

void
SlotAllocator::GiveToBestGain(const std::vector<SlotUser>& users,
                              const std::vector<std::size_t>& who,
                              double budgetBits,
                              std::vector<double>& target)
{
    std::vector<std::size_t> open = who;
    double left = budgetBits;
    while (left > 0 && !open.empty())
    {
        // The largest accuracy gain from giving this user everything that is left.
        std::size_t best = 0;
        double bestGain = -1;
        for (std::size_t n = 0; n < open.size(); ++n)
        {
            const SlotUser& u = users[open[n]];
            const double y = std::min(1.0, target[open[n]] + left / u.cacheBits);
            const double gain = u.utility.Value(y) - u.utility.Value(target[open[n]]);
            if (gain > bestGain)
            {
                bestGain = gain;
                best = n;
            }
        }
        const std::size_t i = open[best];
        const double room = users[i].cacheBits * (1.0 - target[i]);
        const double give = std::min(left, room);
        target[i] = give >= room ? 1.0 : target[i] + give / users[i].cacheBits;
        left -= give;
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(best));
    }
}

SlotAllocation
SlotAllocator::WaterFilling(const std::vector<SlotUser>& users,
                            double budgetBits,
                            Fallback fallback)
{
    Check(users, budgetBits);
    SlotAllocation a = Start(users, budgetBits);
    a.regime = SlotAllocation::WATER_FILLING;
    // B_min dt: what lifts every user to its concavity anchor.
    double minBits = 0;
    std::vector<std::size_t> subTau;
    std::vector<double> lower(users.size());
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const SlotUser& u = users[i];
        lower[i] = std::max(u.received, u.utility.inflection);
        if (u.received < u.utility.inflection)
        {
            minBits += u.cacheBits * (u.utility.inflection - u.received);
            subTau.push_back(i);
        }
    }
    if (users.empty())
    {
        return a;
    }
    if (budgetBits < minBits)
    {
        a.regime = SlotAllocation::FALLBACK;
        if (fallback == EQUALIZED_BYTES)
        {
            ShareEqually(users, subTau, budgetBits, a.target);
            Finish(users, a);
            return a;
        }
        if (fallback == CASCADING_WTA)
        {
            GiveToBestGain(users, subTau, budgetBits, a.target);
            Finish(users, a);
            return a;
        }
        NoAdmission(users, budgetBits, a);
        Finish(users, a);
        return a;
    }
    // Feasible: lambda = 0 if everything fits, else the root of the demand.
    SolvePrice(users, lower, budgetBits, a);
    Finish(users, a);
    return a;
}

SlotAllocation
SlotAllocator::EqualAllocation(const std::vector<SlotUser>& users, double budgetBits)
{
    Check(users, budgetBits);
    SlotAllocation a = Start(users, budgetBits);
    std::vector<std::size_t> all(users.size());
    std::iota(all.begin(), all.end(), 0);
    ShareEqually(users, all, budgetBits, a.target);
    Finish(users, a);
    return a;
}

SlotAllocation
SlotAllocator::CascadingWta(const std::vector<SlotUser>& users, double budgetBits)
{
    Check(users, budgetBits);
    SlotAllocation a = Start(users, budgetBits);
    std::vector<std::size_t> all(users.size());
    std::iota(all.begin(), all.end(), 0);
    GiveToBestGain(users, all, budgetBits, a.target);
    Finish(users, a);
    return a;
}

SlotAllocation
SlotAllocator::ProportionalFair(const std::vector<SlotUser>& users, double budgetBits)
{
    Check(users, budgetBits);
    SlotAllocation a = Start(users, budgetBits);
    if (users.empty())
    {
        return a;
    }

    // Usage(W) = sum_i clip(W - L_i x_i, 0, L_i (1 - x_i)) is piecewise linear in W with
    // breakpoints at L_i x_i (a user starts) and L_i (it is full). Walk them in order.
    struct Event
    {
        double level;
        int slope;
    };

    std::vector<Event> events;
    double total = 0;
    for (const auto& u : users)
    {
        events.push_back({u.cacheBits * u.received, +1});
        events.push_back({u.cacheBits, -1});
        total += u.cacheBits * (1 - u.received);
    }
    double level = 0;
    if (total <= budgetBits)
    {
        level = std::numeric_limits<double>::infinity();
    }
    else
    {
        std::sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
            return x.level < y.level || (x.level == y.level && x.slope > y.slope);
        });
        double used = 0;
        int slope = 0;
        double at = events.front().level;
        level = std::numeric_limits<double>::infinity(); // unless the walk stops first:
        // the budget is a few ulps below the total room (rounding), so everyone fills
        for (const auto& e : events)
        {
            const double next = used + slope * (e.level - at);
            if (slope > 0 && next >= budgetBits)
            {
                level = at + (budgetBits - used) / slope;
                break;
            }
            used = next;
            at = e.level;
            slope += e.slope;
        }
    }
    a.price = level;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const SlotUser& u = users[i];
        const double bits = std::clamp(level, u.cacheBits * u.received, u.cacheBits);
        a.target[i] = std::clamp(bits / u.cacheBits, u.received, 1.0); // no rounding below x
    }
    Finish(users, a);
    return a;
}

} // namespace ns3
