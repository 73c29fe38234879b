/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "llm-request-trace.h"

#include "ns3/double.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

namespace ns3
{

namespace
{

/// Largest stream a config may name: Generate uses stream .. stream + 3.
constexpr int64_t MAX_GENERATOR_STREAM = std::numeric_limits<int64_t>::max() - 3;

/// Below this share of lognormal draws landing in [1, maxTokens] the redraw loop would take
/// too long (on average 1 / share draws per length): Validate refuses the config.
constexpr double MIN_LOGNORMAL_ACCEPTANCE = 1e-3;

/// A number as errors print it: 15 significant digits (1.0000001 does not print as 1).
std::string
Num(double v)
{
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s.precision(15);
    s << v;
    return s.str();
}

[[noreturn]] void
Refuse(const std::string& field, const std::string& range, const std::string& value)
{
    throw std::invalid_argument(field + " must be in " + range + ", got " + value);
}

[[noreturn]] void
FileError(const std::string& name, uint64_t line, const std::string& what)
{
    throw std::invalid_argument(name + ":" + std::to_string(line) + ": " + what);
}

/// \p s without leading and trailing spaces and tabs.
std::string
Trim(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos)
    {
        return "";
    }
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

/// The comma-separated fields of a line, each trimmed (no quoting: the traces have none).
std::vector<std::string>
Split(const std::string& line)
{
    std::vector<std::string> fields;
    std::string::size_type from = 0;
    while (true)
    {
        const auto comma = line.find(',', from);
        fields.push_back(Trim(line.substr(from, comma - from)));
        if (comma == std::string::npos)
        {
            return fields;
        }
        from = comma + 1;
    }
}

/// The standard normal CDF.
double
Phi(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

/**
 * Share of draws exp(N(mu, sigma^2)) that round to an integer in [1, maxTokens], i.e. lie in
 * [0.5, maxTokens + 0.5).
 */
double
LognormalAcceptance(double mu, double sigma, uint64_t maxTokens)
{
    const double lo = std::log(0.5);
    const double hi = std::log(static_cast<double>(maxTokens) + 0.5);
    if (sigma == 0)
    {
        return (mu >= lo && mu < hi) ? 1.0 : 0.0;
    }
    return Phi((hi - mu) / sigma) - Phi((lo - mu) / sigma);
}

/// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
int64_t
DaysFromCivil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2 ? 1 : 0;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);                // [0, 399]
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; // [0, 365]
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
    return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool
IsLeap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/// A trace time: whole seconds and nanoseconds (the Azure timestamps have 100 ns steps, which
/// a double of seconds since 1970 cannot hold).
struct TraceTime
{
    int64_t seconds{0};
    int64_t nanos{0}; //!< [0, 1e9)
};

/// Seconds from \p origin to \p t.
double
Since(const TraceTime& t, const TraceTime& origin)
{
    return static_cast<double>(t.seconds - origin.seconds) +
           static_cast<double>(t.nanos - origin.nanos) * 1e-9;
}

/// Whether \p s[from, from + n) are all digits; their value in \p out.
bool
Digits(const std::string& s, std::size_t from, std::size_t n, int64_t& out)
{
    if (from + n > s.size())
    {
        return false;
    }
    out = 0;
    for (std::size_t i = from; i < from + n; ++i)
    {
        if (s[i] < '0' || s[i] > '9')
        {
            return false;
        }
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

/// An Azure TIMESTAMP "YYYY-MM-DD HH:MM:SS[.f...]" (' ' or 'T' between date and time, 0 to 9
/// fraction digits, no timezone: UTC).
TraceTime
ParseTimestamp(const std::string& s, const std::string& name, uint64_t line)
{
    const std::string form = "TIMESTAMP must be 'YYYY-MM-DD HH:MM:SS' with an optional '.' and 1 "
                             "to 9 fraction digits (UTC, no timezone), got '" +
                             s + "'";
    int64_t y;
    int64_t mo;
    int64_t d;
    int64_t h;
    int64_t mi;
    int64_t sec;
    if (s.size() < 19 || !Digits(s, 0, 4, y) || s[4] != '-' || !Digits(s, 5, 2, mo) ||
        s[7] != '-' || !Digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') ||
        !Digits(s, 11, 2, h) || s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' ||
        !Digits(s, 17, 2, sec))
    {
        FileError(name, line, form);
    }
    int64_t nanos = 0;
    if (s.size() > 19)
    {
        const std::size_t digits = s.size() - 20;
        int64_t fraction;
        if (s[19] != '.' || digits < 1 || digits > 9 || !Digits(s, 20, digits, fraction))
        {
            FileError(name, line, form);
        }
        nanos = fraction;
        for (std::size_t i = digits; i < 9; ++i)
        {
            nanos *= 10;
        }
    }
    auto range = [&](const std::string& what, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi)
        {
            FileError(name,
                      line,
                      "TIMESTAMP " + what + " must be in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got " + std::to_string(v) + " in '" + s + "'");
        }
    };
    static const int64_t monthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    range("month", mo, 1, 12);
    range("day", d, 1, monthDays[mo - 1] + (mo == 2 && IsLeap(y) ? 1 : 0));
    range("hour", h, 0, 23);
    range("minute", mi, 0, 59);
    range("second", sec, 0, 59);
    TraceTime t;
    t.seconds = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                h * 3600 + mi * 60 + sec;
    t.nanos = nanos;
    return t;
}

/// A token count: an integer in [1, MAX_TOKENS].
uint64_t
ParseTokens(const std::string& s, const std::string& column, const std::string& name, uint64_t line)
{
    const uint64_t max = RequestGeneratorConfig::MAX_TOKENS;
    uint64_t v = 0;
    bool ok = !s.empty() && s.size() <= 19;
    for (char c : s)
    {
        ok = ok && c >= '0' && c <= '9';
        if (ok)
        {
            v = v * 10 + static_cast<uint64_t>(c - '0');
        }
    }
    if (!ok || v < 1 || v > max)
    {
        FileError(name,
                  line,
                  column + " must be an integer in [1, " + std::to_string(max) + "], got '" + s +
                      "'");
    }
    return v;
}

/// A processed trace's arrived_at: a finite number of s.
double
ParseSeconds(const std::string& s, const std::string& name, uint64_t line)
{
    double v = 0;
    const char* end = s.data() + s.size();
    const auto [ptr, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    {
        FileError(name, line, "arrived_at must be a finite number of s, got '" + s + "'");
    }
    return v;
}

/// One data row of a trace.
struct Row
{
    double t;        //!< s after the first row
    uint64_t prompt; //!< prompt (context) tokens
    uint64_t output; //!< output (generated) tokens
    uint64_t line;   //!< its line in the file
};

/// A whole trace: its rows in file order.
struct Rows
{
    std::vector<Row> rows;
    uint64_t lines{0}; //!< lines read
};

/// Every row of a trace in either format, times relative to the first row.
Rows
ParseRows(std::istream& in, const std::string& name)
{
    const std::string azure = "TIMESTAMP,ContextTokens,GeneratedTokens";
    const std::string processed = "arrived_at,num_prefill_tokens,num_decode_tokens";
    Rows out;
    bool haveHeader = false;
    bool isAzure = false;
    std::size_t nColumns = 0;
    std::size_t timeCol = 0;
    std::size_t promptCol = 0;
    std::size_t outputCol = 0;
    std::string promptName;
    std::string outputName;
    bool haveFirst = false;
    TraceTime firstAzure;
    TraceTime previousAzure;
    double firstProcessed = 0;
    std::string previousTime;
    std::string line;
    while (std::getline(in, line))
    {
        ++out.lines;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (out.lines == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) // UTF-8 byte-order mark
        {
            line.erase(0, 3);
        }
        const std::string trimmed = Trim(line);
        if (trimmed.empty() || trimmed[0] == '#')
        {
            continue;
        }
        const std::vector<std::string> fields = Split(line);
        if (!haveHeader)
        {
            std::map<std::string, std::vector<std::size_t>> where;
            for (std::size_t i = 0; i < fields.size(); ++i)
            {
                where[fields[i]].push_back(i);
            }
            const bool a = where.count("TIMESTAMP") > 0;
            const bool p = where.count("arrived_at") > 0;
            if (a && p)
            {
                FileError(name,
                          out.lines,
                          "the header has both TIMESTAMP (Azure 2023) and arrived_at (processed): "
                          "which format is meant is unclear");
            }
            if (!a && !p)
            {
                FileError(name,
                          out.lines,
                          "unknown header: expected the columns " + azure +
                              " (Azure LLM inference trace 2023) or " + processed +
                              " (processed), got '" + trimmed + "'");
            }
            isAzure = a;
            const std::string timeName = a ? "TIMESTAMP" : "arrived_at";
            promptName = a ? "ContextTokens" : "num_prefill_tokens";
            outputName = a ? "GeneratedTokens" : "num_decode_tokens";
            auto column = [&](const std::string& col) {
                const auto it = where.find(col);
                if (it == where.end())
                {
                    FileError(name,
                              out.lines,
                              "missing column " + col + " (the " +
                                  (a ? "Azure 2023 header is " + azure
                                     : "processed header is " + processed) +
                                  ")");
                }
                if (it->second.size() > 1)
                {
                    FileError(name, out.lines, "column " + col + " appears more than once");
                }
                return it->second[0];
            };
            timeCol = column(timeName);
            promptCol = column(promptName);
            outputCol = column(outputName);
            nColumns = fields.size();
            haveHeader = true;
            continue;
        }
        if (fields.size() != nColumns)
        {
            FileError(name,
                      out.lines,
                      std::to_string(fields.size()) + " fields, the header has " +
                          std::to_string(nColumns));
        }
        Row row;
        row.line = out.lines;
        bool back = false;
        if (isAzure)
        {
            const TraceTime t = ParseTimestamp(fields[timeCol], name, out.lines);
            if (!haveFirst)
            {
                firstAzure = t;
            }
            // Compared exactly: far from the first row, a double of s loses nanoseconds.
            back = haveFirst &&
                   (t.seconds < previousAzure.seconds ||
                    (t.seconds == previousAzure.seconds && t.nanos < previousAzure.nanos));
            previousAzure = t;
            row.t = Since(t, firstAzure);
        }
        else
        {
            const double t = ParseSeconds(fields[timeCol], name, out.lines);
            if (!haveFirst)
            {
                firstProcessed = t;
            }
            row.t = t - firstProcessed;
            back = haveFirst && row.t < out.rows.back().t;
        }
        if (back)
        {
            FileError(name,
                      out.lines,
                      "time goes back: " + std::string(isAzure ? "TIMESTAMP" : "arrived_at") +
                          " '" + fields[timeCol] + "' is before the previous row's '" +
                          previousTime + "' (rows must be in non-decreasing time)");
        }
        haveFirst = true;
        previousTime = fields[timeCol];
        row.prompt = ParseTokens(fields[promptCol], promptName, name, out.lines);
        row.output = ParseTokens(fields[outputCol], outputName, name, out.lines);
        out.rows.push_back(row);
    }
    if (in.bad())
    {
        FileError(name, out.lines, "read error");
    }
    if (!haveHeader)
    {
        FileError(name,
                  out.lines,
                  "no header line: expected " + azure + " (Azure LLM inference trace 2023) or " +
                      processed + " (processed)");
    }
    return out;
}

/**
 * Sort by arrival then UE (stable: equal keys keep their order) and number the conversations:
 * each UE's requests, in that order, form conversations of \p turns consecutive turns (the last
 * one possibly shorter), numbered 0, 1, ... in order of their first turn.
 */
void
SortAndGroup(std::vector<LlmRequest>& requests, uint32_t numUes, uint32_t turns)
{
    std::stable_sort(requests.begin(),
                     requests.end(),
                     [](const LlmRequest& a, const LlmRequest& b) {
                         return a.arrival < b.arrival || (a.arrival == b.arrival && a.ue < b.ue);
                     });
    std::vector<uint64_t> count(numUes, 0);
    std::vector<uint64_t> current(numUes, 0);
    uint64_t next = 0;
    for (auto& r : requests)
    {
        const uint64_t k = count[r.ue]++;
        if (k % turns == 0)
        {
            current[r.ue] = next++;
        }
        r.conversation = current[r.ue];
        r.turn = static_cast<uint32_t>(k % turns);
    }
}

/// A ns-3 random variable of type T on \p stream (seed and run from RngSeedManager).
template <typename T>
Ptr<T>
OnStream(int64_t stream)
{
    Ptr<T> v = CreateObject<T>();
    v->SetStream(stream);
    return v;
}

/// A lognormal length: exp(N(mu, sigma^2)) rounded to the nearest integer, redrawn until in
/// [1, maxTokens].
uint64_t
DrawLength(const Ptr<LogNormalRandomVariable>& v, uint64_t maxTokens)
{
    const double hi = static_cast<double>(maxTokens) + 0.5;
    while (true)
    {
        const double x = v->GetValue();
        if (x >= 0.5 && x < hi)
        {
            return static_cast<uint64_t>(std::llround(x));
        }
    }
}

} // namespace

void
RequestTraceOptions::Validate() const
{
    if (!(start >= 0) || !std::isfinite(start))
    {
        Refuse("start", "[0, inf) s", Num(start));
    }
    if (!(duration > 0))
    {
        Refuse("duration", "(0, inf] s", Num(duration));
    }
    if (!(rateScale > 0 && rateScale <= MAX_RATE_SCALE))
    {
        Refuse("rateScale", "(0, " + Num(MAX_RATE_SCALE) + "]", Num(rateScale));
    }
    if (numUes < 1 || numUes > MAX_UES)
    {
        Refuse("numUes", "[1, " + std::to_string(MAX_UES) + "]", std::to_string(numUes));
    }
    if (mapping != RequestUeMapping::UNIFORM && mapping != RequestUeMapping::PER_UE_STREAMS)
    {
        Refuse("mapping", "{UNIFORM, PER_UE_STREAMS}", std::to_string(static_cast<int>(mapping)));
    }
    if (turnsPerConversation < 1 || turnsPerConversation > MAX_TURNS)
    {
        Refuse("turnsPerConversation",
               "[1, " + std::to_string(MAX_TURNS) + "]",
               std::to_string(turnsPerConversation));
    }
    if (stream < 0)
    {
        Refuse("stream", "[0, 2^63 - 1]", std::to_string(stream));
    }
    if (mapping == RequestUeMapping::PER_UE_STREAMS)
    {
        if (!std::isfinite(duration))
        {
            Refuse("duration", "(0, inf) s (finite) with mapping PER_UE_STREAMS", Num(duration));
        }
        const double end = start + numUes * duration;
        if (!std::isfinite(end))
        {
            Refuse("start + numUes * duration",
                   "[0, inf) s (finite) with mapping PER_UE_STREAMS",
                   Num(end));
        }
    }
}

void
RequestGeneratorConfig::Validate() const
{
    if (arrivals != POISSON && arrivals != GAMMA)
    {
        Refuse("arrivals", "{POISSON, GAMMA}", std::to_string(static_cast<int>(arrivals)));
    }
    if (!(rate > 0 && rate <= MAX_RATE))
    {
        Refuse("rate", "(0, " + Num(MAX_RATE) + "] requests/s", Num(rate));
    }
    if (!(cv >= 0.01 && cv <= 100))
    {
        Refuse("cv", "[0.01, 100]", Num(cv));
    }
    if (!(duration > 0 && duration <= MAX_DURATION))
    {
        Refuse("duration", "(0, " + Num(MAX_DURATION) + "] s", Num(duration));
    }
    if (lengths != LOGNORMAL && lengths != EMPIRICAL)
    {
        Refuse("lengths", "{LOGNORMAL, EMPIRICAL}", std::to_string(static_cast<int>(lengths)));
    }
    const std::pair<const char*, double> mus[] = {{"promptMu", promptMu}, {"outputMu", outputMu}};
    for (const auto& [field, v] : mus)
    {
        if (!(v >= 0 && v <= 14))
        {
            Refuse(field, "[0, 14]", Num(v));
        }
    }
    const std::pair<const char*, double> sigmas[] = {{"promptSigma", promptSigma},
                                                     {"outputSigma", outputSigma}};
    for (const auto& [field, v] : sigmas)
    {
        if (!(v >= 0 && v <= 5))
        {
            Refuse(field, "[0, 5]", Num(v));
        }
    }
    if (maxTokens < 1 || maxTokens > MAX_TOKENS)
    {
        Refuse("maxTokens", "[1, " + std::to_string(MAX_TOKENS) + "]", std::to_string(maxTokens));
    }
    if (numUes < 1 || numUes > RequestTraceOptions::MAX_UES)
    {
        Refuse("numUes",
               "[1, " + std::to_string(RequestTraceOptions::MAX_UES) + "]",
               std::to_string(numUes));
    }
    if (turnsPerConversation < 1 || turnsPerConversation > RequestTraceOptions::MAX_TURNS)
    {
        Refuse("turnsPerConversation",
               "[1, " + std::to_string(RequestTraceOptions::MAX_TURNS) + "]",
               std::to_string(turnsPerConversation));
    }
    if (stream < 0 || stream > MAX_GENERATOR_STREAM)
    {
        Refuse("stream", "[0, 2^63 - 4] (uses stream .. stream + 3)", std::to_string(stream));
    }
    if (lengths == LOGNORMAL)
    {
        const std::tuple<const char*, double, double> laws[] = {{"prompt", promptMu, promptSigma},
                                                                {"output", outputMu, outputSigma}};
        for (const auto& [what, mu, sigma] : laws)
        {
            const double p = LognormalAcceptance(mu, sigma, maxTokens);
            if (p < MIN_LOGNORMAL_ACCEPTANCE)
            {
                std::ostringstream s;
                s.imbue(std::locale::classic());
                s.precision(3);
                s << "the share of " << what << " lengths exp(N(" << Num(mu) << ", " << Num(sigma)
                  << "^2)) that round into [1, maxTokens = " << maxTokens << "] must be in ["
                  << MIN_LOGNORMAL_ACCEPTANCE << ", 1], got " << p
                  << " (each length is redrawn until it falls there)";
                throw std::invalid_argument(s.str());
            }
        }
    }
    else
    {
        if (empirical.empty() || empirical.size() > std::numeric_limits<uint32_t>::max())
        {
            Refuse("the number of empirical pairs",
                   "[1, 2^32 - 1] with lengths EMPIRICAL",
                   std::to_string(empirical.size()));
        }
        for (std::size_t i = 0; i < empirical.size(); ++i)
        {
            const auto& [prompt, output] = empirical[i];
            for (const auto& [field, v] : {std::make_pair(".first (prompt)", prompt),
                                           std::make_pair(".second (output)", output)})
            {
                if (v < 1 || v > MAX_TOKENS)
                {
                    Refuse("empirical[" + std::to_string(i) + "]" + field,
                           "[1, " + std::to_string(MAX_TOKENS) + "]",
                           std::to_string(v));
                }
            }
        }
    }
}

std::vector<LlmRequest>
LlmRequestTrace::Read(const std::string& path, const RequestTraceOptions& options)
{
    options.Validate();
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        FileError(path, 0, "cannot open the file for reading");
    }
    return Parse(in, path, options);
}

std::vector<LlmRequest>
LlmRequestTrace::Parse(std::istream& in, const std::string& name, const RequestTraceOptions& o)
{
    o.Validate();
    const Rows trace = ParseRows(in, name);
    const std::vector<Row>& rows = trace.rows;
    std::vector<LlmRequest> out;
    auto add = [&](const Row& row, double windowStart, uint32_t ue) {
        LlmRequest r;
        r.arrival = (row.t - windowStart) / o.rateScale;
        r.promptTokens = row.prompt;
        r.outputTokens = row.output;
        r.ue = ue;
        out.push_back(r);
    };
    // The first row at or after trace time t.
    auto firstFrom = [&](double t) {
        return std::lower_bound(rows.begin(), rows.end(), t, [](const Row& row, double v) {
            return row.t < v;
        });
    };
    if (o.mapping == RequestUeMapping::UNIFORM)
    {
        const Ptr<UniformRandomVariable> pick = OnStream<UniformRandomVariable>(o.stream);
        const double end = o.start + o.duration;
        for (auto it = firstFrom(o.start); it != rows.end() && it->t < end; ++it)
        {
            add(*it, o.start, pick->GetInteger(0, o.numUes - 1));
        }
    }
    else
    {
        const double end = o.start + o.numUes * o.duration;
        if (rows.empty() || rows.back().t < end)
        {
            std::ostringstream what;
            what << "PER_UE_STREAMS needs the trace to last to start + numUes * duration = "
                 << Num(o.start) << " + " << o.numUes << " * " << Num(o.duration) << " = "
                 << Num(end) << " s after its first row, but ";
            if (rows.empty())
            {
                what << "it has no rows";
            }
            else
            {
                what << "it ends at " << Num(rows.back().t) << " s (its last row)";
            }
            FileError(name, rows.empty() ? trace.lines : rows.back().line, what.str());
        }
        for (uint32_t u = 0; u < o.numUes; ++u)
        {
            // Adjacent windows share the bound's expression: every row lands in at most one.
            const double lo = o.start + u * o.duration;
            const double hi = o.start + (u + 1.0) * o.duration;
            for (auto it = firstFrom(lo); it != rows.end() && it->t < hi; ++it)
            {
                add(*it, lo, u);
            }
        }
    }
    SortAndGroup(out, o.numUes, o.turnsPerConversation);
    return out;
}

std::vector<std::pair<uint64_t, uint64_t>>
LlmRequestTrace::ReadLengths(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        FileError(path, 0, "cannot open the file for reading");
    }
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const Row& row : ParseRows(in, path).rows)
    {
        out.emplace_back(row.prompt, row.output);
    }
    return out;
}

std::vector<LlmRequest>
LlmRequestTrace::Generate(const RequestGeneratorConfig& c)
{
    c.Validate();
    Ptr<RandomVariableStream> gaps;
    if (c.arrivals == RequestGeneratorConfig::POISSON)
    {
        Ptr<ExponentialRandomVariable> e = OnStream<ExponentialRandomVariable>(c.stream);
        e->SetAttribute("Mean", DoubleValue(1.0 / c.rate));
        e->SetAttribute("Bound", DoubleValue(0.0)); // unbounded
        gaps = e;
    }
    else
    {
        const double k = 1.0 / (c.cv * c.cv);
        Ptr<GammaRandomVariable> g = OnStream<GammaRandomVariable>(c.stream);
        g->SetAttribute("Alpha", DoubleValue(k));
        g->SetAttribute("Beta", DoubleValue(1.0 / (c.rate * k)));
        gaps = g;
    }
    std::vector<LlmRequest> out;
    double t = gaps->GetValue();
    while (t < c.duration)
    {
        LlmRequest r;
        r.arrival = t;
        out.push_back(r);
        t += gaps->GetValue();
    }
    if (c.lengths == RequestGeneratorConfig::LOGNORMAL)
    {
        const Ptr<LogNormalRandomVariable> prompt = OnStream<LogNormalRandomVariable>(c.stream + 1);
        prompt->SetAttribute("Mu", DoubleValue(c.promptMu));
        prompt->SetAttribute("Sigma", DoubleValue(c.promptSigma));
        const Ptr<LogNormalRandomVariable> output = OnStream<LogNormalRandomVariable>(c.stream + 2);
        output->SetAttribute("Mu", DoubleValue(c.outputMu));
        output->SetAttribute("Sigma", DoubleValue(c.outputSigma));
        for (auto& r : out)
        {
            r.promptTokens = DrawLength(prompt, c.maxTokens);
            r.outputTokens = DrawLength(output, c.maxTokens);
        }
    }
    else
    {
        const Ptr<UniformRandomVariable> index = OnStream<UniformRandomVariable>(c.stream + 1);
        const auto last = static_cast<uint32_t>(c.empirical.size() - 1);
        for (auto& r : out)
        {
            const auto& pair = c.empirical[index->GetInteger(0, last)];
            r.promptTokens = pair.first;
            r.outputTokens = pair.second;
        }
    }
    const Ptr<UniformRandomVariable> ue = OnStream<UniformRandomVariable>(c.stream + 3);
    for (auto& r : out)
    {
        r.ue = ue->GetInteger(0, c.numUes - 1);
    }
    SortAndGroup(out, c.numUes, c.turnsPerConversation);
    return out;
}

void
LlmRequestTrace::Write(const std::vector<LlmRequest>& requests, std::ostream& out)
{
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s.precision(std::numeric_limits<double>::max_digits10); // reads back to the same double
    s << "arrived_at,num_prefill_tokens,num_decode_tokens,ue,conversation,turn\n";
    for (const auto& r : requests)
    {
        s << r.arrival << ',' << r.promptTokens << ',' << r.outputTokens << ',' << r.ue << ','
          << r.conversation << ',' << r.turn << '\n';
    }
    out << s.str();
}

} // namespace ns3
