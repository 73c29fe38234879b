/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_STATS_H
#define EDGE_LLM_STATS_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Mean of Monte-Carlo samples with a two-sided 95 % confidence interval.
 */
struct SampleSummary
{
    double mean{0}; //!< Sample mean
    double ci95{0}; //!< Half-width: t_{0.975, n-1} s / sqrt(n) (0 for n < 2)
    uint32_t n{0};  //!< Samples
};

/**
 * \ingroup edge-llm
 * \brief Mean (ns-3's MinMaxAvgTotalCalculator) and the Student-t 95 % confidence
 *        half-width (Boost.Math's students_t quantile) of \p samples.
 * \param samples any count; empty gives n = 0
 * \return the summary
 */
SampleSummary SummarizeSamples(const std::vector<double>& samples);

} // namespace ns3

#endif /* EDGE_LLM_STATS_H */
