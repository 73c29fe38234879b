/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_LIMITS_H
#define EDGE_LLM_LIMITS_H

#include <charconv>
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

/// Smallest backhaul MTU accepted anywhere (a link, a path, a program's option), bytes:
/// IPv4's minimum datagram every host must take; the range is [MIN_BACKHAUL_MTU,
/// MAX_BACKHAUL_MTU]
constexpr uint32_t MIN_BACKHAUL_MTU = 576;

/// Largest backhaul MTU accepted anywhere, bytes: a point-to-point device's (16-bit) limit
constexpr uint32_t MAX_BACKHAUL_MTU = 65535;

/// Longest GPU batching period T_c accepted anywhere (PrefillEngine's BatchPeriod, the
/// planners, the scenarios, the programs), s: longer, a batch waits more than any handover
/// takes; the range is [0, MAX_BATCH_PERIOD_S]
constexpr double MAX_BATCH_PERIOD_S = 1;

/// Default memory a target BS keeps for KV caches sent ahead (EdgeLlmPreTransferRole's
/// KvMemoryCapacity, the flow-level core's kvMemoryCapacity), bytes: 16 GB, what an 80 GB
/// GPU serving an 8B model in 16 bits keeps beside the weights and its own sessions' caches
constexpr uint64_t DEFAULT_KV_MEMORY_CAPACITY = 16000000000ULL;

/// Largest KV memory for caches sent ahead, bytes (1 PB); the range is [1, this]
constexpr uint64_t MAX_KV_MEMORY_CAPACITY = 1000000000000000ULL;

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

/**
 * \brief A refused value as every range message prints it: with every digit it needs to be
 *        read back as the same double (whole numbers below 10^15 in full, 1000000; others in
 *        the shortest such text: 0.1000001, 1e+300),
 *        so a value just outside a range never prints as the range's bound (FormatNumber
 *        would print 1000001 as 1e+06).
 * \param value the number
 * \return its text
 */
inline std::string
FormatValue(double value)
{
    char text[400];
    const bool whole = std::isfinite(value) && std::abs(value) < 1e15 && value == std::trunc(value);
    const auto result =
        whole ? std::to_chars(text, text + sizeof(text), value, std::chars_format::fixed)
              : std::to_chars(text, text + sizeof(text), value);
    return std::string(text, result.ptr);
}

/**
 * \brief Check a number against a range, with the message every range check states.
 * \param field the knob as the user wrote it ("uplinkDelay", "--uplinkDelayMs")
 * \param value the value (NaN is refused)
 * \param lo the lower bound
 * \param hi the upper bound
 * \param openLo whether \p lo itself is refused
 * \param unit after the range (" ms"; "" for none)
 * \throws std::invalid_argument "<field> must be in [lo, hi]<unit>, got <value>" ("(lo" when
 *         \p openLo) unless in range
 */
inline void
CheckRange(const std::string& field,
           double value,
           double lo,
           double hi,
           bool openLo = false,
           const std::string& unit = "")
{
    if (std::isnan(value) || value > hi || (openLo ? value <= lo : value < lo))
    {
        throw std::invalid_argument(field + " must be in " + (openLo ? "(" : "[") +
                                    FormatNumber(lo) + ", " + FormatNumber(hi) + "]" + unit +
                                    ", got " + FormatValue(value));
    }
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

/// \return "[576, 65535] bytes", the backhaul MTU range as every message states it
inline std::string
BackhaulMtuRange()
{
    return "[" + std::to_string(MIN_BACKHAUL_MTU) + ", " + std::to_string(MAX_BACKHAUL_MTU) +
           "] bytes";
}

/**
 * \brief Check a backhaul MTU.
 * \param field the knob's name as the user wrote it (e.g. "--backhaulMtu", "backhaulMtu")
 * \param mtu the value, bytes
 * \throws std::invalid_argument "<field> must be in [576, 65535] bytes, got <mtu>" unless
 *         in that range
 */
inline void
CheckBackhaulMtu(const std::string& field, double mtu)
{
    if (!(mtu >= MIN_BACKHAUL_MTU && mtu <= MAX_BACKHAUL_MTU))
    {
        std::ostringstream what;
        what << field << " must be in " << BackhaulMtuRange() << ", got " << FormatValue(mtu);
        throw std::invalid_argument(what.str());
    }
}

/**
 * \brief Check a batching period T_c given in seconds.
 * \param field the knob's name as the user wrote it (e.g. "batchPeriod")
 * \param seconds the value, s
 * \throws std::invalid_argument "<field> must be in [0, 1] s, got <seconds>" unless in that
 *         range
 */
inline void
CheckBatchPeriod(const std::string& field, double seconds)
{
    if (!(seconds >= 0 && seconds <= MAX_BATCH_PERIOD_S))
    {
        std::ostringstream what;
        what << field << " must be in [0, " << MAX_BATCH_PERIOD_S << "] s, got "
             << FormatValue(seconds);
        throw std::invalid_argument(what.str());
    }
}

/**
 * \brief Check a batching period T_c given in milliseconds (a program's option, checked
 *        before it becomes an ns-3 Time): the same range as CheckBatchPeriod.
 * \param field the option as the user wrote it (e.g. "--batchPeriodMs")
 * \param ms the value, ms
 * \throws std::invalid_argument "<field> must be in [0, 1000] ms, got <ms>" unless in that
 *         range
 */
inline void
CheckBatchPeriodMs(const std::string& field, double ms)
{
    if (!(ms >= 0 && ms <= 1e3 * MAX_BATCH_PERIOD_S))
    {
        std::ostringstream what;
        what << field << " must be in [0, " << 1e3 * MAX_BATCH_PERIOD_S << "] ms, got "
             << FormatValue(ms);
        throw std::invalid_argument(what.str());
    }
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
        what << field << " must be in " << BackhaulGbpsRange() << ", got " << FormatValue(gbps);
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
        what << field << " must be in " << ContextTokensRange() << ", got " << FormatValue(tokens);
        throw std::invalid_argument(what.str());
    }
}

} // namespace edgellm
} // namespace ns3

#endif /* EDGE_LLM_LIMITS_H */
