/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The module's main job: the ctHO paper's road scenario at packet level.
 *
 * Two eNBs (x = 0 m source, x = 300 m target) joined by an X2 point-to-point link
 * that is the backhaul; 4 UEs start at x ~ Unif[120, 130] m and drive at 20 m/s;
 * each hands over (a real LTE X2 handover) when it crosses x = 150 m while its LLM
 * token stream is live. The target BS rebuilds each UE's KV cache by ctHO, tHO or
 * cHO; the same seed gives every scheme the same UEs. Per UE it prints the context,
 * the split (prefill / transfer tokens), the planner's predicted handover delay and
 * the stall measured at the UE, and writes them to <outputDir>/handover-delays.csv.
 *
 *   edge-llm-lte-handover [--backhaulGbps=4.5] [--numUes=4] [--contextMax=4096] ...
 *   edge-llm-lte-handover --PrintHelp
 */
#include "road-handover-example.h"

#include "ns3/log.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("EdgeLlmLteHandover");

int
main(int argc, char* argv[])
{
    // The body is shared with edge-llm-nr-handover (road-handover-example.cc):
    // the same options, printout and CSV; only the RAN differs.
    return RunRoadHandoverExample(argc, argv, __FILE__, "lte");
}
