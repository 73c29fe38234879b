/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "prefill-time-model.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

PrefillTimeModel::PrefillTimeModel(double a, double b, double c)
    : m_a(a),
      m_b(b),
      m_c(c)
{
    CheckCoefficients(a, b, c);
}

void
PrefillTimeModel::CheckCoefficients(double a,
                                    double b,
                                    double c,
                                    const std::string& aName,
                                    const std::string& bName,
                                    const std::string& cName)
{
    // Bounds far beyond any GPU keep every p(L) of a 1e8-token context finite.
    auto refuse = [](const std::string& name, const std::string& range, double value) {
        std::ostringstream what;
        what.precision(15); // 1.0000001 must not print as 1
        what << name << " must be in " << range << ", got " << value;
        throw std::invalid_argument(what.str());
    };
    if (!std::isfinite(a) || a < 0 || a > 1)
    {
        refuse(aName, "[0, 1] s/token", a);
    }
    if (!std::isfinite(b) || std::abs(b) > 3600)
    {
        refuse(bName, "[-3600, 3600] s", b);
    }
    if (!std::isfinite(c) || c < 0 || c > 1e-3)
    {
        refuse(cName, "[0, 1e-3] s/token^2", c);
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
PrefillTimeModel::InTurn(std::size_t members) const
{
    const double n = static_cast<double>(std::max<std::size_t>(members, 1));
    return PrefillTimeModel(std::min(m_a * n, 1.0), m_b, std::min(m_c * n, 1e-3));
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
