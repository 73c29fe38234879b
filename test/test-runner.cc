/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Standalone test-runner for the edge-llm TestSuites (out-of-tree builds only;
 * inside an ns-3 source tree ns-3's own test-runner and test.py run them).
 * Same options as ns-3's: --list, --suite=NAME, --fullness=QUICK|EXTENSIVE|TAKES_FOREVER.
 */
#include "ns3/test.h"

int
main(int argc, char* argv[])
{
    return ns3::TestRunner::Run(argc, argv);
}
