/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A user's own program on the edge-llm module, built outside the module: either against
 * an installed module (test/install/CMakeLists.txt, find_package(edge-llm)) or as an ns-3
 * scratch/ program in an ns-3 source tree (copy it to scratch/, then `./ns3 run
 * edge-llm-user-program`).
 *
 * It plans one ctHO batch of two UEs with the public planner API, prints the prefill length
 * L, each UE's split and delay and the worst delay of ctHO, tHO and cHO, and checks them
 * against the hand calculation below. Exit status 0 if every value matches, 1 otherwise.
 *
 * The batch (times in s, lengths in tokens):
 *   UE 1: handover tau_1 = 1.02, context C_1 = 1000
 *   UE 2: handover tau_2 = 1.05, context C_2 = 2000
 *   backhaul R = 10000 tokens/s, prefill p(L) = 1e-4 L + 0.01, batch period T_c = 0.1.
 * By hand (ctHO Sec. II-III, as the planner's header states them):
 *   t_s = ceil(1.05 / 0.1) 0.1 = 1.1, so T_pf(L) = 1.1 + 1e-4 L + 0.01 and the prefill
 *   delay is f(L) = T_pf(L) - tau_1 = 0.09 + 1e-4 L for L > 0.
 *   For L <= 1000 the transfer bound is the larger of the window terms
 *     UE 2 alone:  (2000 - L) / R            = 0.2  - 1e-4 L
 *     UEs 1..2:    (3000 - 2L) / R - 0.03     = 0.27 - 2e-4 L   (the larger one for L < 700)
 *   so f = g where 0.09 + 1e-4 L = 0.27 - 2e-4 L: L* = 600 and V(L*) = 0.15 s.
 *   Neighbours: V(599) = g = 0.1502 s, V(601) = f = 0.1501 s, both above 0.15 s.
 *   At L = 600: UE 1 transfers 400 tokens, done at 1.02 + 0.04 = 1.06; UE 2 transfers 1400,
 *   done at max(1.06, 1.05) + 0.14 = 1.20; T_pf = 1.17. Delays: UE 1 max(1.17, 1.06) -
 *   1.02 = 0.15 s, UE 2 max(1.17, 1.20) - 1.05 = 0.15 s.
 *   tHO (L = C_max = 2000): V = 1.1 + 0.2 + 0.01 - 1.02 = 0.29 s.
 *   cHO (L = 0): V = g(0) = 3000 / R - 0.03 = 0.27 s.
 */
#include "ns3/command-line.h"
#include "ns3/ctho-planner.h"
#include "ns3/prefill-time-model.h"
#include "ns3/type-id.h"

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Number of values that differ from the hand calculation.
int g_mismatches = 0;

/**
 * Print one computed value next to its hand-calculated one and count a mismatch.
 * \param what the quantity's name and unit
 * \param computed the planner's value
 * \param expected the hand calculation of this file's header
 * \param tolerance the largest accepted |computed - expected|, in the value's unit
 */
void
Check(const std::string& what, double computed, double expected, double tolerance)
{
    const bool ok = std::fabs(computed - expected) <= tolerance;
    std::cout << "check " << what << ": planner " << computed << ", by hand " << expected
              << (ok ? "  ok" : "  MISMATCH") << "\n";
    if (!ok)
    {
        ++g_mismatches;
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    CommandLine cmd(__FILE__);
    cmd.Parse(argc, argv);

    const double tokensPerSecond = 10000;            // R
    const PrefillTimeModel prefill(1e-4, 0.01, 0.0); // p(L) = 1e-4 L + 0.01 s
    const double batchPeriod = 0.1;                  // T_c, s
    const std::vector<CtHoUe> ues{{1, 1.02, 1000}, {2, 1.05, 2000}};

    const CtHoPlanner planner(tokensPerSecond, prefill, batchPeriod);
    const CtHoPlan ctho = planner.PlanOptimal(ues);
    const CtHoPlan tho = planner.PlanWithPrefillLength(ues, 2000);
    const CtHoPlan cho = planner.PlanWithPrefillLength(ues, 0);

    std::cout << "edge-llm user program: ctHO batch of " << ues.size()
              << " UEs, R = " << tokensPerSecond << " tokens/s, batch period " << batchPeriod
              << " s\n";
    std::cout << "ctHO prefill length L = " << ctho.prefillLength << " tokens\n";
    for (const auto& ue : ctho.ues)
    {
        std::cout << "  UE " << ue.ueId << ": context " << ue.contextTokens << ", prefill "
                  << ue.prefillTokens << ", transfer " << ue.transferTokens << ", delay "
                  << ue.delay << " s\n";
    }
    std::cout << "worst delay: ctHO " << ctho.worstDelay << " s, tHO " << tho.worstDelay
              << " s, cHO " << cho.worstDelay << " s\n";

    Check("L (tokens)", ctho.prefillLength, 600, 0);
    Check("ctHO worst delay (s)", ctho.worstDelay, 0.15, 1e-9);
    Check("UE 1 delay (s)", ctho.ues[0].delay, 0.15, 1e-9);
    Check("UE 2 delay (s)", ctho.ues[1].delay, 0.15, 1e-9);
    Check("UE 2 transfer (tokens)", ctho.ues[1].transferTokens, 1400, 0);
    Check("tHO worst delay (s)", tho.worstDelay, 0.29, 1e-9);
    Check("cHO worst delay (s)", cho.worstDelay, 0.27, 1e-9);

    // The module's ns-3 objects are registered with ns-3's TypeId system once the library
    // is loaded, as for any ns-3 module.
    TypeId tid;
    const bool registered = TypeId::LookupByNameFailSafe("ns3::CtHoScheduler", &tid);
    std::cout << "check ns3::CtHoScheduler TypeId: " << (registered ? "registered  ok" : "MISSING")
              << "\n";
    if (!registered)
    {
        ++g_mismatches;
    }

    std::cout << (g_mismatches == 0 ? "PASS" : "FAIL") << ": " << g_mismatches
              << " value(s) differ from the hand calculation\n";
    return g_mismatches == 0 ? 0 : 1;
}
