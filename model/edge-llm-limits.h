/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_LIMITS_H
#define EDGE_LLM_LIMITS_H

#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The ranges every program, scenario config and CSV input of the module shares
 *        (doc/edge-llm-design.rst, Scope and Limitations, "Shared option ranges"): one value and
 * one message per knob.
 */
namespace edgellm
{

/// Largest backhaul rate accepted anywhere (a link, an aggregation link, the planner's
/// R_bh), Gbit/s; the range is (0, MAX_BACKHAUL_GBPS]
constexpr double MAX_BACKHAUL_GBPS = 1000;

/// Largest context length accepted anywhere (a draw's bounds, a CSV's context_tokens,
/// tokens decoded after a handover), tokens; the range is [1, MAX_CONTEXT_TOKENS]
constexpr uint64_t MAX_CONTEXT_TOKENS = 10000000;

/**
 * \brief A bound or a value as every range message prints it (ostream's default, %g-like:
 *        138.889, 50000, 0.001, 1e+06).
 * \param value the number
 * \return its text
 */
inline std::string
FormatNumber(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

/// \return "(0, 1000] Gbit/s", the backhaul rate range as every message states it
inline std::string
BackhaulGbpsRange()
{
    std::ostringstream out;
    out << "(0, " << MAX_BACKHAUL_GBPS << "] Gbit/s";
    return out.str();
}

/// \return "[1, 10000000] tokens", the context range as every message states it
inline std::string
ContextTokensRange()
{
    return "[1, " + std::to_string(MAX_CONTEXT_TOKENS) + "] tokens";
}

/**
 * \brief Check a backhaul rate.
 * \param field the knob's name as the user wrote it (e.g. "--backhaulGbps")
 * \param gbps the value, Gbit/s
 * \throws std::invalid_argument "<field> must be in (0, 1000] Gbit/s, got <gbps>" unless
 *         finite and in that range
 */
inline void
CheckBackhaulGbps(const std::string& field, double gbps)
{
    if (!(std::isfinite(gbps) && gbps > 0 && gbps <= MAX_BACKHAUL_GBPS))
    {
        std::ostringstream what;
        what.precision(15); // 1000.0000001 must not print as 1000
        what << field << " must be in " << BackhaulGbpsRange() << ", got " << gbps;
        throw std::invalid_argument(what.str());
    }
}

/**
 * \brief Check a context length.
 * \param field the knob's name as the user wrote it (e.g. "contextMax")
 * \param tokens the value, tokens
 * \throws std::invalid_argument "<field> must be in [1, 10000000] tokens, got <tokens>"
 *         unless in that range
 */
inline void
CheckContextTokens(const std::string& field, double tokens)
{
    if (!(std::isfinite(tokens) && tokens >= 1 &&
          tokens <= static_cast<double>(MAX_CONTEXT_TOKENS)))
    {
        std::ostringstream what;
        what.precision(15); // 10000001 must not print as 1e+07
        what << field << " must be in " << ContextTokensRange() << ", got " << tokens;
        throw std::invalid_argument(what.str());
    }
}

} // namespace edgellm
} // namespace ns3

#endif /* EDGE_LLM_LIMITS_H */
