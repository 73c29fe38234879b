/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "slot-allocator.h"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
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

/// Targets at price lambda: clip((A')^{-1}(lambda L), lower, 1) and the bits they use.
double
AtPrice(const std::vector<SlotUser>& users,
        const std::vector<double>& lower,
        double lambda,
        std::vector<double>* target)
{
    double bits = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        const SlotUser& u = users[i];
        double y = u.utility.InverseDerivative(lambda * u.cacheBits);
        y = std::clamp(y, lower[i], 1.0);
        bits += u.cacheBits * (y - u.received);
        if (target)
        {
            (*target)[i] = y;
        }
    }
    return bits;
}

/**
 * No admission: a user's KKT point on its concave branch at price lambda, or no service
 * when even its steepest slope A'(tau) is below the price (no KKT point exists), or when
 * the point lies below what it already has.
 */
double
NoAdmissionTarget(const SlotUser& u, double lambda)
{
    const double p = lambda * u.cacheBits;
    if (p > u.utility.Derivative(u.utility.inflection))
    {
        return u.received;
    }
    const double y = u.utility.InverseDerivative(p);
    return y <= u.received ? u.received : std::min(y, 1.0);
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
        // No admission: the same price search with no tau floor. Usage then jumps (a
        // user is lifted onto its concave branch or not at all), so bisect for the
        // smallest price within budget.
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            lower[i] = users[i].received;
        }
        auto usage = [&](double lambda) {
            double bits = 0;
            for (std::size_t i = 0; i < users.size(); ++i)
            {
                const double y = NoAdmissionTarget(users[i], lambda);
                bits += users[i].cacheBits * (y - users[i].received);
            }
            return bits;
        };
        // Above max_i A_i'(tau_i) / L_i nobody is served: usage 0 <= budget.
        double hi = 0;
        for (const auto& u : users)
        {
            hi = std::max(hi, 2 * u.utility.Derivative(u.utility.inflection) / u.cacheBits);
        }
        double lo = hi / 2;
        while (lo > 1e-300 && usage(lo) <= budgetBits)
        {
            lo /= 2;
        }
        for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it)
        {
            const double mid = 0.5 * (lo + hi);
            (usage(mid) <= budgetBits ? hi : lo) = mid;
        }
        for (std::size_t i = 0; i < users.size(); ++i)
        {
            a.target[i] = NoAdmissionTarget(users[i], hi);
        }
        a.price = hi;
        Finish(users, a);
        return a;
    }
    // Feasible: lambda = 0 if everything fits.
    if (AtPrice(users, lower, 0.0, nullptr) <= budgetBits)
    {
        AtPrice(users, lower, 0.0, &a.target);
        Finish(users, a);
        return a;
    }
    // Usage falls from above the budget at lambda = 0 to sum L (lower - x) <= budget at
    // lambda_max, where every user sits at its lower bound. The root can lie many
    // decades below lambda_max (steep logistic or erf curves), so search log(lambda).
    double lambdaMax = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        lambdaMax = std::max(lambdaMax, users[i].utility.Derivative(lower[i]) / users[i].cacheBits);
    }
    if (!(lambdaMax > 0))
    {
        // Every slope underflowed at the floor: any positive price keeps all users there.
        lambdaMax = std::numeric_limits<double>::min();
    }
    auto f = [&](double logLambda) {
        return AtPrice(users, lower, std::exp(logLambda), nullptr) - budgetBits;
    };
    const double tHi = std::log(lambdaMax) + 1e-9;
    const double tLo = std::max(tHi - 1400.0, std::log(std::numeric_limits<double>::denorm_min()));
    double price = std::exp(tHi);
    const double fLo = f(tLo);
    if (fLo <= 0)
    {
        // The budget is not binding above the smallest representable price: the users
        // whose marginal accuracy is below it (flat tails) stay where they are.
        price = std::exp(tLo);
    }
    else if (f(tHi) < 0)
    {
        std::uintmax_t iterations = 300;
        const auto root = boost::math::tools::toms748_solve(
            f,
            tLo,
            tHi,
            fLo,
            f(tHi),
            [](double a, double b) {
                return std::abs(b - a) <= 1e-13 * std::max(1.0, std::abs(b));
            },
            iterations);
        price = std::exp(root.second); // the end within budget
    }
    a.price = price;
    AtPrice(users, lower, price, &a.target);
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
