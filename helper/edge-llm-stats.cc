/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-stats.h"

#include "ns3/basic-data-calculators.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace ns3
{

SampleSummary
SummarizeSamples(const std::vector<double>& samples)
{
    SampleSummary s;
    s.n = static_cast<uint32_t>(samples.size());
    if (samples.empty())
    {
        return s;
    }
    Ptr<MinMaxAvgTotalCalculator<double>> calc = CreateObject<MinMaxAvgTotalCalculator<double>>();
    for (double x : samples)
    {
        calc->Update(x);
    }
    s.mean = calc->getMean();
    if (s.n >= 2)
    {
        const boost::math::students_t t(static_cast<double>(s.n - 1));
        const double q = boost::math::quantile(boost::math::complement(t, 0.025));
        s.ci95 = q * calc->getStddev() / std::sqrt(static_cast<double>(s.n));
    }
    return s;
}

} // namespace ns3
