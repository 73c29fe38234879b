/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "prefill-time-model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

PrefillTimeModel::PrefillTimeModel(double a, double b, double c)
    : m_a(a),
      m_b(b),
      m_c(c)
{
    // Bounds far beyond any GPU keep every p(L) of a 1e8-token context finite.
    if (!std::isfinite(a) || a < 0 || a > 1)
    {
        throw std::invalid_argument("prefill slope a must be in [0, 1] s/token, got " +
                                    std::to_string(a));
    }
    if (!std::isfinite(b) || std::abs(b) > 3600)
    {
        throw std::invalid_argument("prefill constant b must be in [-3600, 3600] s, got " +
                                    std::to_string(b));
    }
    if (!std::isfinite(c) || c < 0 || c > 1e-3)
    {
        throw std::invalid_argument("prefill quadratic coefficient c must be in [0, 1e-3] "
                                    "s/token^2, got " +
                                    std::to_string(c));
    }
}

double
PrefillTimeModel::Evaluate(uint64_t tokens) const
{
    if (tokens == 0)
    {
        return 0.0;
    }
    const double l = static_cast<double>(tokens);
    return std::max(0.0, m_c * l * l + m_a * l + m_b);
}

double
PrefillTimeModel::GetA() const
{
    return m_a;
}

double
PrefillTimeModel::GetB() const
{
    return m_b;
}

double
PrefillTimeModel::GetC() const
{
    return m_c;
}

PrefillTimeModel
PrefillTimeModel::CtHoDefault()
{
    return PrefillTimeModel(9.4267e-5, 2.4e-3, 0.0);
}

PrefillTimeModel
PrefillTimeModel::ImpactHoQwen3_8b()
{
    return PrefillTimeModel(7.50e-5, -0.03, 1.37e-9);
}

} // namespace ns3
