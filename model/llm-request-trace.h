/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LLM_REQUEST_TRACE_H
#define LLM_REQUEST_TRACE_H

#include <cstdint>
#include <istream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One inference request of a UE: one turn of a conversation (doc/edge-llm-design.rst,
 *        "Request traces").
 *
 * A turn's context at the serving BS is the conversation's context so far (every earlier
 * turn's prompt and output) plus its own prompt; it decodes outputTokens tokens.
 */
struct LlmRequest
{
    double arrival{0};        //!< When the UE sends it, s from the window's start, >= 0
    uint64_t promptTokens{1}; //!< New prompt tokens of this turn, >= 1
    uint64_t outputTokens{1}; //!< Tokens to decode (the first token included), >= 1
    uint32_t ue{0};           //!< The UE, < the number of UEs
    uint64_t conversation{0}; //!< Its conversation, unique over the requests
    uint32_t turn{0};         //!< Its turn in the conversation, 0 the first
};

/**
 * \ingroup edge-llm
 * \brief How a trace's requests map to UEs.
 */
enum class RequestUeMapping
{
    /// Every request goes to a UE drawn uniformly (the trace's rate is the cell total)
    UNIFORM,
    /// UE u replays its own window of the trace, the u-th consecutive one (the trace's rate
    /// is each UE's; the total grows with the number of UEs)
    PER_UE_STREAMS,
};

/**
 * \ingroup edge-llm
 * \brief What part of a trace to replay and on how many UEs (doc/edge-llm-design.rst,
 *        "Request traces").
 */
struct RequestTraceOptions
{
    static constexpr double MAX_RATE_SCALE = 1000; //!< Largest rateScale
    static constexpr uint32_t MAX_UES = 100000;    //!< Most UEs
    static constexpr uint32_t MAX_TURNS = 1000;    //!< Most turns per conversation

    /// Window start, s after the trace's first request (trace time, before rate scaling), >= 0
    double start{0};
    /// Window length, s of trace time, > 0 (infinity: to the trace's end)
    double duration{std::numeric_limits<double>::infinity()};
    /// Arrival-rate multiplier: the window's inter-arrival times are divided by it,
    /// (0, MAX_RATE_SCALE]
    double rateScale{1};
    uint32_t numUes{1};                                  //!< UEs, [1, MAX_UES]
    RequestUeMapping mapping{RequestUeMapping::UNIFORM}; //!< How requests map to UEs
    /// A UE's consecutive requests form conversations of this many turns (1: every request
    /// is a conversation of its own), [1, MAX_TURNS]
    uint32_t turnsPerConversation{1};
    /// RNG stream of the uniform mapping (ns-3's RngSeedManager gives seed and run), >= 0
    int64_t stream{0};

    /**
     * \brief Check every field (NaN is refused wherever a number is expected). Besides each
     *        field's range: PER_UE_STREAMS needs a finite duration (and a finite
     *        start + numUes * duration).
     * \throws std::invalid_argument "<field> must be in <range>, got <value>"
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief The seeded request generator used when no trace file is given
 *        (doc/edge-llm-design.rst, "Request traces").
 *
 * Arrivals: a renewal process of rate `rate` per s; POISSON has exponential gaps, GAMMA
 * has Gamma gaps of shape k = 1 / cv^2 and scale 1 / (rate k) (BurstGPT's bursty
 * arrivals: cv > 1). Lengths: prompt and output tokens are drawn either as independent
 * lognormals (ln tokens ~ N(mu, sigma^2), rounded to the nearest integer, redrawn while
 * outside [1, maxTokens]) or jointly as a uniformly drawn (prompt, output) pair of an
 * empirical list (e.g. a shipped trace excerpt's).
 */
struct RequestGeneratorConfig
{
    static constexpr double MAX_RATE = 1e6;         //!< Largest rate, requests/s
    static constexpr double MAX_DURATION = 86400;   //!< Longest duration, s
    static constexpr uint64_t MAX_TOKENS = 1000000; //!< Largest maxTokens

    /// Inter-arrival law
    enum Arrivals
    {
        POISSON, //!< Exponential gaps
        GAMMA,   //!< Gamma gaps with coefficient of variation cv
    };

    /// Length law
    enum Lengths
    {
        LOGNORMAL, //!< Independent lognormal prompt and output lengths
        EMPIRICAL, //!< (prompt, output) pairs drawn from `empirical`
    };

    Arrivals arrivals{POISSON}; //!< Inter-arrival law
    double rate{1};             //!< Requests per s (all UEs together), (0, MAX_RATE]
    double cv{1};               //!< GAMMA: gaps' coefficient of variation, [0.01, 100]
    double duration{60};        //!< Requests arrive in [0, duration), s, (0, MAX_DURATION]
    Lengths lengths{LOGNORMAL}; //!< Length law
    double promptMu{6.5};       //!< LOGNORMAL: mean of ln(prompt tokens), [0, 14]
    double promptSigma{1.0};    //!< LOGNORMAL: sd of ln(prompt tokens), [0, 5]
    double outputMu{5.0};       //!< LOGNORMAL: mean of ln(output tokens), [0, 14]
    double outputSigma{1.0};    //!< LOGNORMAL: sd of ln(output tokens), [0, 5]
    uint64_t maxTokens{32768};  //!< LOGNORMAL: longest prompt or output, [1, MAX_TOKENS]
    /// EMPIRICAL: (prompt, output) token pairs, each >= 1, at least one
    std::vector<std::pair<uint64_t, uint64_t>> empirical;
    uint32_t numUes{1};               //!< UEs the requests go to uniformly, [1, 100000]
    uint32_t turnsPerConversation{1}; //!< As RequestTraceOptions', [1, 1000]
    /// First RNG stream, [0, 2^63 - 4]: gaps on stream, prompt lengths (or the empirical
    /// index) on stream + 1, output lengths on stream + 2, the UE on stream + 3
    int64_t stream{0};

    /**
     * \brief Check every field (NaN refused; every scalar field is checked whatever the
     *        laws). With LOGNORMAL, a law of which fewer than 1 draw in 1000 rounds into
     *        [1, maxTokens] is refused (the redraw loop would hardly end); its share is
     *        Phi((ln(maxTokens + 0.5) - mu) / sigma) - Phi((ln 0.5 - mu) / sigma). With
     *        EMPIRICAL, each pair's counts must be in [1, MAX_TOKENS].
     * \throws std::invalid_argument "<field> must be in <range>, got <value>"
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief Request traces in and out: the public Azure LLM inference traces, the processed
 *        form of the serving simulators, and the seeded generator (doc/edge-llm-design.rst,
 *        "Request traces").
 *
 * File formats (CSV, header line first, columns by name in any order, extra columns
 * ignored, '#' comment lines and blank lines skipped):
 * - Azure LLM inference trace 2023: TIMESTAMP (ISO 8601 "YYYY-MM-DD HH:MM:SS[.ffffff]",
 *   UTC), ContextTokens, GeneratedTokens;
 * - processed (Vidur, Sarathi-Serve): arrived_at (s, float), num_prefill_tokens,
 *   num_decode_tokens.
 * Rows must be in non-decreasing time. A row with 0 tokens in either count is refused.
 *
 * In detail: the first line that is neither blank nor a comment is the header; names are
 * case-sensitive, and a header naming TIMESTAMP is Azure, one naming arrived_at processed
 * (both, or a needed column twice, is refused). Lines may end in CRLF; a UTF-8 byte-order
 * mark before the header is skipped; fields are trimmed of spaces and tabs, with no quoting.
 * Every row has as many fields as the header. TIMESTAMP is "YYYY-MM-DD HH:MM:SS" (' ' or 'T'
 * between date and time) with an optional '.' and 1 to 9 fraction digits (the real files
 * have 7), no timezone (UTC), proleptic Gregorian calendar (leap years checked; no leap
 * second); it is converted with a days-from-civil count (H. Hinnant), with no locale or
 * timegm. arrived_at is any finite number of s. Token counts are integers (digits only) in
 * [1, RequestGeneratorConfig::MAX_TOKENS]. A row's trace time t is s after the first data
 * row (the first row has t = 0).
 *
 * Window and UEs (Parse, Read): with UNIFORM, the rows with t in [start, start + duration)
 * arrive at (t - start) / rateScale, each at a UE drawn by an ns-3 UniformRandomVariable
 * (integer in [0, numUes - 1], stream `stream`) in trace order. With PER_UE_STREAMS, UE u
 * replays the rows with t in [start + u duration, start + (u + 1) duration), arriving at
 * (t - start - u duration) / rateScale; the trace's last row must be at or after
 * start + numUes duration, else the trace is refused.
 *
 * Every result is sorted by arrival, then UE (stable: ties keep trace or draw order);
 * conversations are numbered in order of their first turn; a conversation's turns belong to
 * one UE: each UE's requests in that order form conversations of turnsPerConversation
 * consecutive turns (the last one possibly shorter), turn 0, 1, ... within each.
 *
 * Every file error reads "<name>:<line>: <what>" (line 1 the file's first, 0 for a file that
 * cannot be opened), <what> naming the field and its valid range.
 */
class LlmRequestTrace
{
  public:
    /**
     * \brief Read a trace file and map its window to UEs.
     * \param path the CSV file
     * \param options window, rate scale, UEs, mapping, conversations (validated)
     * \return the window's requests (possibly none)
     * \throws std::invalid_argument "<path>:<line>: <what>" for a bad file (unreadable,
     *         no known header, a bad field, time going back), or a bad option
     */
    static std::vector<LlmRequest> Read(const std::string& path,
                                        const RequestTraceOptions& options);

    /**
     * \brief As Read, from a stream.
     * \param in the CSV text
     * \param name how errors name the source (e.g. the file's path)
     * \param options as Read's
     * \return as Read's
     * \throws std::invalid_argument as Read
     */
    static std::vector<LlmRequest> Parse(std::istream& in,
                                         const std::string& name,
                                         const RequestTraceOptions& options);

    /**
     * \brief The (prompt, output) token pairs of a trace file, all of its rows: an
     *        empirical length distribution for the generator.
     * \param path the CSV file
     * \return the pairs, file order
     * \throws std::invalid_argument as Read
     */
    static std::vector<std::pair<uint64_t, uint64_t>> ReadLengths(const std::string& path);

    /**
     * \brief Draw requests (ns-3 random variables: RngSeedManager's seed and run, the
     *        config's streams).
     *
     * Gaps: ExponentialRandomVariable (Mean 1 / rate, Bound 0) or GammaRandomVariable
     * (Alpha k = 1 / cv^2, Beta 1 / (rate k)) on `stream`; arrivals are the gaps' running sums
     * from 0, those < duration kept. Then, per arrival in order: LOGNORMAL lengths from
     * LogNormalRandomVariable(Mu, Sigma) on stream + 1 (prompt) and stream + 2 (output), each
     * rounded to the nearest integer and redrawn while outside [1, maxTokens]; or EMPIRICAL,
     * the pair at a UniformRandomVariable index on stream + 1. Then the UE, uniform in
     * [0, numUes - 1], on stream + 3; then conversations as Parse's.
     * \param config the generator (validated)
     * \return the requests in [0, duration)
     * \throws std::invalid_argument for a bad config
     */
    static std::vector<LlmRequest> Generate(const RequestGeneratorConfig& config);

    /**
     * \brief Write requests as the processed form plus the UE, conversation and turn
     *        columns (arrived_at,num_prefill_tokens,num_decode_tokens,ue,conversation,turn),
     *        which Parse reads back (extra columns ignored).
     *
     * arrived_at has 17 significant digits (a double reads back to itself), '.' decimal
     * point whatever the locale. Parsed back, the prompts and outputs are the same and the
     * arrivals are the same less the first one (Parse counts from the first row: identical
     * when the first arrival is 0).
     * \param requests the requests
     * \param out where to write
     */
    static void Write(const std::vector<LlmRequest>& requests, std::ostream& out);
};

} // namespace ns3

#endif /* LLM_REQUEST_TRACE_H */
