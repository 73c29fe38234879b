/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROAD_HANDOVER_EXAMPLE_H
#define ROAD_HANDOVER_EXAMPLE_H

#include <string>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The body of the road-scenario examples, one per RAT: edge-llm-lte-handover
 *        (LTE, src/lte) and edge-llm-nr-handover (NR, 5G-LENA). Both take the same
 *        options, print the same table (per UE: delays and what bounded them; per
 *        scheme: every batch's L; a closing comparison of the schemes) and write the same
 *        handover-delays.csv columns and handover-delays.png beside it;
 *        only the RAN differs (RoadHandoverConfig::ran), so the two cannot drift.
 *
 * Options (every knob of RoadHandoverConfig a study changes, --PrintHelp lists them):
 * schemes, numUes, bsDistance, boundary, startMin, startMax, speed, contextMin,
 * contextMax, model, kvBits, backhaulGbps, backhaulDelayUs, backhaulMtu, prefillA/B/C,
 * batchPeriodMs, decodeRate, tokensAfterHandover, handoverAlgorithm, lookaheadMs,
 * predictArrivals, predictedHandoverX, outputDir, pcap; and ns-3 attribute defaults
 * (--ns3::EdgeLlmBackhaulTransport::Transport=Udp, ...).
 *
 * \param argc argument count, as main() got it
 * \param argv arguments, as main() got them
 * \param programFile the example's source file (__FILE__): CommandLine's program
 *        name, the banner's name and the default output directory results/<name>
 * \param ran "lte" or "nr" (RoadHandoverConfig::ran)
 * \return the process exit code: 0 when every run completed, 1 when a run left a UE
 *         that never resumed or the CSV or the plot could not be written, 2 for bad
 *         options (bad ns-3 attribute defaults and global values included:
 *         CheckAttributeArguments)
 */
int RunRoadHandoverExample(int argc,
                           char* argv[],
                           const std::string& programFile,
                           const std::string& ran);

} // namespace ns3

#endif /* ROAD_HANDOVER_EXAMPLE_H */
