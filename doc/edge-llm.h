/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_H
#define EDGE_LLM_H

/**
 * \file
 * \ingroup edge-llm
 * Doxygen groups of the edge-llm module (documentation only: no declarations).
 */

/**
 * \defgroup edge-llm Edge-LLM handover
 *
 * This section documents the API of the edge-llm module: KV-cache handover of
 * edge LLMs between base stations, with the ctHO planner (one prefill length and
 * an EDF backhaul schedule that minimize the worst-user handover delay) and the
 * ImpactHO slot allocator (importance-ordered partial transfer, weighted
 * water-filling of accuracy utilities), at flow level and at packet level over
 * LTE's X2 backhaul.
 *
 * Every formula, symbol and default the classes implement, with its source
 * equation, is in the model library chapter (doc/edge-llm.rst and its parts:
 * doc/edge-llm-design.rst, "Model Description"; usage, attributes and traces in
 * doc/edge-llm-user.rst; validation in doc/edge-llm-testing.rst).
 */

/**
 * \ingroup edge-llm
 * \ingroup tests
 * \defgroup edge-llm-tests Edge-LLM module tests
 *
 * The edge-llm TestSuites (edge-llm-planner, -protocol, -transport, -faults,
 * -lte-handover, -fluid, -ctho-figures, -impactho, -mesh, -outputs, -backhaul,
 * -backhaul-study, -scale, -bound, -pre-transfer, and -nr-handover with the nr module)
 * and their helpers; the checks each one makes are listed in doc/edge-llm-testing.rst,
 * "Validation".
 */

#endif /* EDGE_LLM_H */
