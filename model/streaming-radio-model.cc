/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "streaming-radio-model.h"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace ns3
{

double
StreamingRadioModel::Rate(double distance) const
{
    const double d = std::max(distance, refDistance);
    const double gamma =
        std::pow(10.0, snrRefDb / 10.0) * std::pow(refDistance / d, pathLossExponent);
    return bandwidthHz * std::log2(1.0 + gamma);
}

double
StreamingRadioModel::StreamTime(double bits, double x0, double speed, double bsX) const
{
    if (!(bits > 0) || !(bandwidthHz > 0) || !(refDistance > 0) || !(pathLossExponent > 0))
    {
        throw std::invalid_argument(
            "StreamTime needs bits > 0, bandwidthHz > 0, refDistance > 0, pathLossExponent > 0");
    }
    auto rate = [&](double t) { return Rate(std::abs(x0 + speed * t - bsX)); };
    auto delivered = [&](double t) {
        // Split at the pass-by point so the integrand is smooth on each piece.
        const double pass = speed != 0 ? (bsX - x0) / speed : -1;
        using GK = boost::math::quadrature::gauss_kronrod<double, 31>;
        if (pass > 0 && pass < t)
        {
            return GK::integrate(rate, 0.0, pass, 10, 1e-12) +
                   GK::integrate(rate, pass, t, 10, 1e-12);
        }
        return GK::integrate(rate, 0.0, t, 10, 1e-12);
    };
    double hi = bits / rate(0.0);
    while (delivered(hi) < bits)
    {
        hi *= 2;
        if (hi > 1e9)
        {
            throw std::invalid_argument("StreamTime: the rate is too low to ever deliver the bits");
        }
    }
    std::uintmax_t iterations = 100;
    const auto root =
        boost::math::tools::toms748_solve([&](double t) { return delivered(t) - bits; },
                                          0.0,
                                          hi,
                                          -bits,
                                          delivered(hi) - bits,
                                          boost::math::tools::eps_tolerance<double>(30),
                                          iterations);
    return 0.5 * (root.first + root.second);
}

} // namespace ns3
