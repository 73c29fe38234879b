/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The main job over NR (5G-LENA): the ctHO paper's road scenario at packet level with
 * gNBs instead of eNBs.
 *
 * Two gNBs (x = 0 m source, x = 300 m target) joined by nr's X2 point-to-point link
 * (NrPointToPointEpcHelper's X2LinkDataRate/Delay/Mtu), which carries the KV transfer
 * as Xn would; 4 UEs start at x ~ Unif[120, 130] m and drive at 20 m/s; each hands over
 * (a real NR X2 handover, NrGnbRrc's HandoverStart) when it crosses x = 150 m while its
 * LLM token stream is live over the NR radio. The target gNB rebuilds each UE's KV cache
 * by ctHO, tHO or cHO; the same seed gives every scheme the same UEs. The options, the
 * printout and <outputDir>/handover-delays.csv are edge-llm-lte-handover's (one body,
 * road-handover-example.cc beside it); only the RAN differs (doc/edge-llm-design.rst, "NR
 * (5G-LENA)").
 *
 *   edge-llm-nr-handover [--backhaulGbps=4.5] [--numUes=4] [--contextMax=4096] ...
 *   edge-llm-nr-handover --handoverAlgorithm=ns3::NrA3RsrpHandoverAlgorithm   # online ctHO
 *   edge-llm-nr-handover --PrintHelp
 *
 * Built only in an ns-3 tree with the nr module.
 */
#include "road-handover-example.h"

#include "ns3/log.h"

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("EdgeLlmNrHandover");

int
main(int argc, char* argv[])
{
    return RunRoadHandoverExample(argc, argv, __FILE__, "nr");
}
