/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-plan: plan one batch of edge-LLM handovers with ctHO, tHO or cHO and
 * print the plan as JSON. See doc/edge-llm-user.rst ("edge-llm-plan") or run with --help.
 *
 *   edge-llm-plan --scheme=ctho --ues=ues.csv --backhaulGbps=4.5
 */
#include "edge-llm-plan-cli.h"

#include <iostream>

int
main(int argc, char* argv[])
{
    return ns3::EdgeLlmPlanCliMain(argc, argv, std::cout, std::cerr);
}
