/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_PLAN_CLI_H
#define EDGE_LLM_PLAN_CLI_H

#include <ostream>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The `edge-llm-plan` command (examples/edge-llm-plan.cc), callable in-process
 *        so tests can drive it.
 *
 * `edge-llm-plan --scheme=ctho|tho|cho --ues=FILE [--model=qwen2.5-7b-instruct]
 * [--kvBits=16] [--backhaulGbps=4.5] [--prefillA=9.4267e-5] [--prefillB=2.4e-3]
 * [--prefillC=0] [--batchPeriod=0.01]`, Gbps = 1e9 bit/s. FILE is CSV with the
 * header `ue_id,handover_time_s,context_tokens`. On success one JSON object goes
 * to \p out (keys in doc/edge-llm-user.rst, "edge-llm-plan") and the result is 0. Any bad
 * input writes one line `error: FILE:LINE: what and the valid range` (or
 * `error: --option: ...`) to \p err, nothing to \p out, and returns 2.
 *
 * \param argc as for main()
 * \param argv as for main()
 * \param out where the JSON goes
 * \param err where an error line goes
 * \return 0 on success, 2 on bad input
 */
int EdgeLlmPlanCliMain(int argc, char** argv, std::ostream& out, std::ostream& err);

} // namespace ns3

#endif /* EDGE_LLM_PLAN_CLI_H */
