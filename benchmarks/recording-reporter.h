/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Google Benchmark console reporter that also keeps each benchmark's time per
 * iteration, so a benchmark program can print ratios measured in the same run.
 */
#ifndef EDGE_LLM_RECORDING_REPORTER_H
#define EDGE_LLM_RECORDING_REPORTER_H

#include <benchmark/benchmark.h>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

namespace ns3
{

/// Console output (coloured only on a terminal) plus seconds per iteration by name.
class RecordingReporter : public benchmark::ConsoleReporter
{
  public:
    RecordingReporter()
        : benchmark::ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Defaults : OO_Tabular)
    {
    }

    void ReportRuns(const std::vector<Run>& runs) override
    {
        for (const auto& r : runs)
        {
            if (r.run_type == Run::RT_Iteration)
            {
                seconds[r.benchmark_name()] =
                    r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
            }
        }
        ConsoleReporter::ReportRuns(runs);
    }

    std::map<std::string, double> seconds; //!< Seconds per iteration, by benchmark name
};

} // namespace ns3

#endif /* EDGE_LLM_RECORDING_REPORTER_H */
