/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * LlmRequestTrace (request traces: the Azure LLM inference trace 2023, the processed form,
 * the seeded generator): timestamps, windows, rate scale, both UE mappings and conversations
 * by hand; the write-read round trip; every refusal with its line, on both sides of each
 * rule; the shipped Azure excerpts against a separate simple reading; the generator's laws by
 * Kolmogorov-Smirnov distances against closed-form CDFs (Boost.Math), its frequencies and its
 * determinism under ns-3's seed and run.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/llm-request-trace.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const std::string DATA = std::string(EDGE_LLM_SOURCE_DIR) + "/test/data/requests/";

/// Requests from CSV text named "t.csv".
std::vector<LlmRequest>
FromText(const std::string& text, const RequestTraceOptions& options = RequestTraceOptions())
{
    std::istringstream in(text);
    return LlmRequestTrace::Parse(in, "t.csv", options);
}

/// The error FromText throws ("" if none).
std::string
TextError(const std::string& text, const RequestTraceOptions& options = RequestTraceOptions())
{
    return edgellmtest::ErrorOf([&] { FromText(text, options); });
}

const std::string AZURE = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string PROCESSED = "arrived_at,num_prefill_tokens,num_decode_tokens\n";

/// Lines 2-11: rows at t = 0, 1, ..., 9 s, prompt t + 1, output 10 (t + 1).
std::string
TenRows()
{
    std::string s = PROCESSED;
    for (int i = 0; i < 10; ++i)
    {
        s += std::to_string(i) + "," + std::to_string(i + 1) + "," + std::to_string(10 * (i + 1)) +
             "\n";
    }
    return s;
}

std::vector<double>
Arrivals(const std::vector<LlmRequest>& r)
{
    std::vector<double> a;
    for (const auto& x : r)
    {
        a.push_back(x.arrival);
    }
    return a;
}

std::vector<uint64_t>
Prompts(const std::vector<LlmRequest>& r)
{
    std::vector<uint64_t> p;
    for (const auto& x : r)
    {
        p.push_back(x.promptTokens);
    }
    return p;
}

std::vector<uint32_t>
Ues(const std::vector<LlmRequest>& r)
{
    std::vector<uint32_t> u;
    for (const auto& x : r)
    {
        u.push_back(x.ue);
    }
    return u;
}

/// Kolmogorov-Smirnov distance of the sample \p x against the continuous CDF \p F.
double
KsContinuous(std::vector<double> x, const std::function<double(double)>& F)
{
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());
    double d = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        const double f = F(x[i]);
        d = std::max({d, (i + 1) / n - f, f - i / n});
    }
    return d;
}

/// Kolmogorov-Smirnov distance of the integer sample \p x (values in [1, max]) against the CDF
/// \p F of a law on the integers 1..max: both are step functions jumping at integers only.
double
KsInteger(const std::vector<uint64_t>& x, uint64_t max, const std::function<double(uint64_t)>& F)
{
    std::vector<double> count(max + 1, 0);
    for (uint64_t v : x)
    {
        count.at(v) += 1;
    }
    double d = 0;
    double cumulative = 0;
    for (uint64_t m = 1; m <= max; ++m)
    {
        cumulative += count[m];
        d = std::max(d, std::abs(cumulative / x.size() - F(m)));
    }
    return d;
}

/// The 1 % critical value of the one-sample KS test for n samples.
double
KsCritical(std::size_t n)
{
    return 1.63 / std::sqrt(static_cast<double>(n));
}

/// Gaps between consecutive arrivals, the first from 0.
std::vector<double>
Gaps(const std::vector<LlmRequest>& r)
{
    std::vector<double> g;
    double previous = 0;
    for (const auto& x : r)
    {
        g.push_back(x.arrival - previous);
        previous = x.arrival;
    }
    return g;
}

/// Sets seed and run for one test and restores 1, 1 afterwards.
class SeedRun
{
  public:
    SeedRun(uint32_t seed, uint64_t run)
    {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(run);
    }

    ~SeedRun()
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
    }
};

// ---------------------------------------------------------------------------------------------
// Formats

TEST(LlmRequestTrace, AzureTimestampsByHandAcrossDayMonthAndYear)
{
    // From 2023-11-30 23:59:59.9: +0.5 s; +1.1 s; Dec has 31 days, so 2023-12-31
    // 23:59:59.123456789 is 0.1 + 30 * 86400 + 86399.123456789 s; 2024-01-01 00:00:00.1 is
    // 0.1 + 31 * 86400 + 0.1 s.
    const auto r = FromText(AZURE + "2023-11-30 23:59:59.9000000,10,20\n"
                                    "2023-12-01 00:00:00.4,11,21\n"
                                    "2023-12-01T00:00:01,12,22\n"
                                    "2023-12-31 23:59:59.123456789,13,23\n"
                                    "2024-01-01 00:00:00.1000000,14,24\n");
    ASSERT_EQ(r.size(), 5U);
    EXPECT_EQ(r[0].arrival, 0.0);
    EXPECT_NEAR(r[1].arrival, 0.5, 1e-9);
    EXPECT_NEAR(r[2].arrival, 1.1, 1e-9);
    EXPECT_NEAR(r[3].arrival, 2592000.0 + 86399.223456789, 1e-9);
    EXPECT_NEAR(r[4].arrival, 2678400.2, 1e-9);
    for (uint64_t i = 0; i < 5; ++i)
    {
        EXPECT_EQ(r[i].promptTokens, 10 + i);
        EXPECT_EQ(r[i].outputTokens, 20 + i);
        EXPECT_EQ(r[i].ue, 0U);
        EXPECT_EQ(r[i].conversation, i);
        EXPECT_EQ(r[i].turn, 0U);
    }
}

TEST(LlmRequestTrace, AzureLeapYearsByHand)
{
    auto span = [](const std::string& a, const std::string& b) {
        return FromText(AZURE + a + ",1,1\n" + b + ",1,1\n").at(1).arrival;
    };
    // 2024 is a leap year: Feb 28 23:00 -> Feb 29 23:00 -> Mar 1 01:00 is 26 h; 2023: 2 h.
    EXPECT_EQ(span("2024-02-28 23:00:00", "2024-03-01 01:00:00"), 26 * 3600.0);
    EXPECT_EQ(span("2023-02-28 23:00:00", "2023-03-01 01:00:00"), 2 * 3600.0);
    // 2000 (divisible by 400) is leap, 1900 (by 100 only) is not.
    EXPECT_EQ(span("2000-02-28 00:00:00", "2000-03-01 00:00:00"), 2 * 86400.0);
    EXPECT_EQ(span("1900-02-28 00:00:00", "1900-03-01 00:00:00"), 86400.0);
    EXPECT_EQ(TextError(AZURE + "2024-02-29 12:00:00,1,1\n"), "");
    EXPECT_EQ(TextError(AZURE + "2023-02-29 12:00:00,1,1\n"),
              "t.csv:2: TIMESTAMP day must be in [1, 28], got 29 in '2023-02-29 12:00:00'");
    EXPECT_EQ(TextError(AZURE + "2000-02-29 12:00:00,1,1\n"), "");
    EXPECT_EQ(TextError(AZURE + "1900-02-29 12:00:00,1,1\n"),
              "t.csv:2: TIMESTAMP day must be in [1, 28], got 29 in '1900-02-29 12:00:00'");
    // 1970-01-01 to 2023-11-16: 53 years with 13 leap days (1972 .. 2020) and 319 days of 2023.
    EXPECT_EQ(span("1970-01-01 00:00:00", "2023-11-16 00:00:00"), (53 * 365 + 13 + 319) * 86400.0);
}

TEST(LlmRequestTrace, AzureTimestampFieldsOnBothSidesOfTheirRanges)
{
    const std::string form = "TIMESTAMP must be 'YYYY-MM-DD HH:MM:SS' with an optional '.' and 1 "
                             "to 9 fraction digits (UTC, no timezone), got '";
    auto one = [](const std::string& ts) { return TextError(AZURE + ts + ",1,1\n"); };
    EXPECT_EQ(one("2023-12-31 23:59:59"), "");
    EXPECT_EQ(one("2023-13-01 00:00:00"),
              "t.csv:2: TIMESTAMP month must be in [1, 12], got 13 in '2023-13-01 00:00:00'");
    EXPECT_EQ(one("2023-00-01 00:00:00"),
              "t.csv:2: TIMESTAMP month must be in [1, 12], got 0 in '2023-00-01 00:00:00'");
    EXPECT_EQ(one("2023-11-30 00:00:00"), "");
    EXPECT_EQ(one("2023-11-31 00:00:00"),
              "t.csv:2: TIMESTAMP day must be in [1, 30], got 31 in '2023-11-31 00:00:00'");
    EXPECT_EQ(one("2023-11-00 00:00:00"),
              "t.csv:2: TIMESTAMP day must be in [1, 30], got 0 in '2023-11-00 00:00:00'");
    EXPECT_EQ(one("2023-11-16 24:00:00"),
              "t.csv:2: TIMESTAMP hour must be in [0, 23], got 24 in '2023-11-16 24:00:00'");
    EXPECT_EQ(one("2023-11-16 23:60:00"),
              "t.csv:2: TIMESTAMP minute must be in [0, 59], got 60 in '2023-11-16 23:60:00'");
    EXPECT_EQ(one("2023-11-16 23:59:60"),
              "t.csv:2: TIMESTAMP second must be in [0, 59], got 60 in '2023-11-16 23:59:60'");
    // Fraction: 1 to 9 digits, or none at all.
    EXPECT_EQ(one("2023-11-16 18:15:46.123456789"), "");
    EXPECT_EQ(one("2023-11-16 18:15:46.1234567890"),
              "t.csv:2: " + form + "2023-11-16 18:15:46.1234567890'");
    EXPECT_EQ(one("2023-11-16 18:15:46."), "t.csv:2: " + form + "2023-11-16 18:15:46.'");
    EXPECT_EQ(one("2023-11-16 18:15:46Z"), "t.csv:2: " + form + "2023-11-16 18:15:46Z'");
    EXPECT_EQ(one("2023-11-16 18:15:46.5+01:00"),
              "t.csv:2: " + form + "2023-11-16 18:15:46.5+01:00'");
    EXPECT_EQ(one("2023-11-16 18:15"), "t.csv:2: " + form + "2023-11-16 18:15'");
    EXPECT_EQ(one("2023/11/16 18:15:46"), "t.csv:2: " + form + "2023/11/16 18:15:46'");
    EXPECT_EQ(one("2023-11-16_18:15:46"), "t.csv:2: " + form + "2023-11-16_18:15:46'");
    EXPECT_EQ(one("23-11-16 18:15:46.5"), "t.csv:2: " + form + "23-11-16 18:15:46.5'");
    EXPECT_EQ(one(""), "t.csv:2: " + form + "'");
    // 9 digits are nanoseconds: 46.000000001 - 46 = 1 ns, exactly representable enough.
    const auto r = FromText(AZURE + "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:46.000000001,1,1\n");
    EXPECT_NEAR(r.at(1).arrival, 1e-9, 1e-18);
}

TEST(LlmRequestTrace, ProcessedColumnsByNameCommentsBlankLinesAndCrlf)
{
    const auto r = FromText("# a comment before the header\r\n"
                            "\r\n"
                            "num_decode_tokens, extra ,arrived_at,num_prefill_tokens\r\n"
                            "5,x,10.5,100\r\n"
                            "   \r\n"
                            "6,y,10.75,200\r\n"
                            "  # an indented comment\n"
                            "7,,12,300"); // no final newline
    ASSERT_EQ(r.size(), 3U);
    EXPECT_EQ(Arrivals(r), (std::vector<double>{0, 0.25, 1.5}));
    EXPECT_EQ(Prompts(r), (std::vector<uint64_t>{100, 200, 300}));
    EXPECT_EQ(r[0].outputTokens, 5U);
    EXPECT_EQ(r[1].outputTokens, 6U);
    EXPECT_EQ(r[2].outputTokens, 7U);
    // Azure columns in another order, an extra one, a byte-order mark.
    const auto a = FromText("\xEF\xBB\xBFGeneratedTokens,Model,ContextTokens,TIMESTAMP\n"
                            "3,m,4,2023-11-16 18:15:46.6805900\n"
                            "5,m,6,2023-11-16 18:15:50.9951690\n");
    ASSERT_EQ(a.size(), 2U);
    EXPECT_EQ(a[0].promptTokens, 4U);
    EXPECT_EQ(a[0].outputTokens, 3U);
    EXPECT_NEAR(a[1].arrival, 50.9951690 - 46.6805900, 1e-9);
    // A header alone: no requests.
    EXPECT_TRUE(FromText(PROCESSED).empty());
    EXPECT_TRUE(FromText(AZURE + "# only a comment\n").empty());
}

// ---------------------------------------------------------------------------------------------
// Window, rate scale, mappings, conversations

TEST(LlmRequestTrace, WindowAndRateScaleByHand)
{
    RequestTraceOptions o;
    o.start = 2;
    o.duration = 5; // t in [2, 7): rows 2..6, row 7 (= start + duration) left out
    o.rateScale = 2;
    auto r = FromText(TenRows(), o);
    EXPECT_EQ(Arrivals(r), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
    EXPECT_EQ(Prompts(r), (std::vector<uint64_t>{3, 4, 5, 6, 7}));
    EXPECT_EQ(r[0].outputTokens, 30U);
    o.duration = std::numeric_limits<double>::infinity(); // to the end: rows 2..9
    o.rateScale = 0.5;
    r = FromText(TenRows(), o);
    EXPECT_EQ(Arrivals(r), (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14}));
    o.start = 9; // the last row only
    EXPECT_EQ(Arrivals(FromText(TenRows(), o)), (std::vector<double>{0}));
    o.start = 9.5; // after the last row: none
    EXPECT_TRUE(FromText(TenRows(), o).empty());
    o.start = 0;
    o.duration = 1e-300; // the first row only
    EXPECT_EQ(Prompts(FromText(TenRows(), o)), (std::vector<uint64_t>{1}));
}

TEST(LlmRequestTrace, UniformMappingIsNs3UniformIntegerOnTheStream)
{
    SeedRun seedRun(3, 5);
    RequestTraceOptions o;
    o.numUes = 4;
    o.stream = 7;
    const auto r = FromText(TenRows(), o);
    // The same draws, made here: an integer in [0, 3] per row, in trace order, on stream 7.
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(7);
    std::vector<std::pair<double, uint32_t>> expected;
    for (int i = 0; i < 10; ++i)
    {
        expected.emplace_back(i, u->GetInteger(0, 3));
    }
    ASSERT_EQ(r.size(), 10U);
    for (std::size_t i = 0; i < 10; ++i)
    {
        EXPECT_EQ(r[i].arrival, expected[i].first);
        EXPECT_EQ(r[i].ue, expected[i].second);
    }
    // Same seed and run: same UEs; another run: other UEs (10 draws of 4 values).
    EXPECT_EQ(Ues(FromText(TenRows(), o)), Ues(r));
    RngSeedManager::SetRun(6);
    EXPECT_NE(Ues(FromText(TenRows(), o)), Ues(r));
}

TEST(LlmRequestTrace, PerUeStreamsByHand)
{
    RequestTraceOptions o;
    o.mapping = RequestUeMapping::PER_UE_STREAMS;
    o.numUes = 3;
    o.start = 1;
    o.duration = 2.5;
    // UE 0: t in [1, 3.5): 1, 2, 3 -> 0, 1, 2; UE 1: [3.5, 6): 4, 5 -> 0.5, 1.5;
    // UE 2: [6, 8.5): 6, 7, 8 -> 0, 1, 2. Sorted by arrival then UE.
    auto r = FromText(TenRows(), o);
    EXPECT_EQ(Arrivals(r), (std::vector<double>{0, 0, 0.5, 1, 1, 1.5, 2, 2}));
    EXPECT_EQ(Ues(r), (std::vector<uint32_t>{0, 2, 1, 0, 2, 1, 0, 2}));
    EXPECT_EQ(Prompts(r), (std::vector<uint64_t>{2, 7, 5, 3, 8, 6, 4, 9}));
    o.rateScale = 4;
    r = FromText(TenRows(), o);
    EXPECT_EQ(Arrivals(r), (std::vector<double>{0, 0, 0.125, 0.25, 0.25, 0.375, 0.5, 0.5}));
    // The trace must reach start + numUes * duration: 0 + 3 * 3 = 9 = its last row: accepted
    // (rows 0..8 used); 3 * 3.5 = 10.5 > 9: refused at the last row's line (11).
    o.rateScale = 1;
    o.start = 0;
    o.duration = 3;
    r = FromText(TenRows(), o);
    EXPECT_EQ(r.size(), 9U);
    EXPECT_EQ(Ues(r), (std::vector<uint32_t>{0, 1, 2, 0, 1, 2, 0, 1, 2}));
    o.duration = 3.5;
    EXPECT_EQ(TextError(TenRows(), o),
              "t.csv:11: PER_UE_STREAMS needs the trace to last to start + numUes * duration = "
              "0 + 3 * 3.5 = 10.5 s after its first row, but it ends at 9 s (its last row)");
    o.duration = 1;
    EXPECT_EQ(TextError(PROCESSED + "# nothing\n", o),
              "t.csv:2: PER_UE_STREAMS needs the trace to last to start + numUes * duration = "
              "0 + 3 * 1 = 3 s after its first row, but it has no rows");
    // An infinite duration has no per-UE windows.
    o.duration = std::numeric_limits<double>::infinity();
    EXPECT_EQ(TextError(TenRows(), o),
              "duration must be in (0, inf) s (finite) with mapping PER_UE_STREAMS, got inf");
}

TEST(LlmRequestTrace, ConversationsByHand)
{
    // One UE, 7 requests, 3 turns: conversations 0,0,0,1,1,1,2, turns 0,1,2,0,1,2,0.
    RequestTraceOptions o;
    o.turnsPerConversation = 3;
    o.duration = 7;
    auto r = FromText(TenRows(), o);
    ASSERT_EQ(r.size(), 7U);
    const uint64_t conv[] = {0, 0, 0, 1, 1, 1, 2};
    const uint32_t turn[] = {0, 1, 2, 0, 1, 2, 0};
    for (std::size_t i = 0; i < 7; ++i)
    {
        EXPECT_EQ(r[i].conversation, conv[i]) << i;
        EXPECT_EQ(r[i].turn, turn[i]) << i;
    }
    // PerUeStreamsByHand's order (arrival, UE): (0,0) (0,2) (0.5,1) (1,0) (1,2) (1.5,1) (2,0)
    // (2,2). Two turns: UE 0 has requests 0, 3 | 6; UE 2: 1, 4 | 7; UE 1: 2, 5. First turns
    // in order: request 0 (conv 0), 1 (conv 1), 2 (conv 2), 6 (conv 3), 7 (conv 4).
    o.mapping = RequestUeMapping::PER_UE_STREAMS;
    o.numUes = 3;
    o.start = 1;
    o.duration = 2.5;
    o.turnsPerConversation = 2;
    r = FromText(TenRows(), o);
    ASSERT_EQ(r.size(), 8U);
    const uint64_t conv2[] = {0, 1, 2, 0, 1, 2, 3, 4};
    const uint32_t turn2[] = {0, 0, 0, 1, 1, 1, 0, 0};
    for (std::size_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(r[i].conversation, conv2[i]) << i;
        EXPECT_EQ(r[i].turn, turn2[i]) << i;
    }
    // Ties in time on one UE keep the trace's order.
    const auto t = FromText(PROCESSED + "0,1,1\n0,2,1\n0,3,1\n");
    EXPECT_EQ(Prompts(t), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(LlmRequestTrace, WriteThenParseGivesTheSameRequests)
{
    std::vector<LlmRequest> in;
    const double arrivals[] = {0, 0.1, 1.0 / 3, 2.0 / 3 + 1e-12, 12345.678901234567, 1e5};
    for (int i = 0; i < 6; ++i)
    {
        LlmRequest r;
        r.arrival = arrivals[i];
        r.promptTokens = 1000000 - i;
        r.outputTokens = 1 + 7 * i;
        r.ue = 5 - i;
        r.conversation = 100 + i;
        r.turn = 2 * i;
        in.push_back(r);
    }
    std::ostringstream text;
    LlmRequestTrace::Write(in, text);
    // Its header and one line by hand.
    std::istringstream lines(text.str());
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "arrived_at,num_prefill_tokens,num_decode_tokens,ue,conversation,turn");
    std::getline(lines, line);
    EXPECT_EQ(line, "0,1000000,1,5,100,0");
    std::getline(lines, line);
    EXPECT_EQ(line, "0.10000000000000001,999999,8,4,101,2");
    const auto out = FromText(text.str());
    ASSERT_EQ(out.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
    {
        EXPECT_EQ(out[i].arrival, in[i].arrival) << i; // bit for bit
        EXPECT_EQ(out[i].promptTokens, in[i].promptTokens);
        EXPECT_EQ(out[i].outputTokens, in[i].outputTokens);
    }
    // The generator's requests start after 0: they come back less the first arrival.
    RequestGeneratorConfig c;
    c.rate = 50;
    c.duration = 10;
    c.numUes = 3;
    const auto g = LlmRequestTrace::Generate(c);
    std::ostringstream gText;
    LlmRequestTrace::Write(g, gText);
    const auto back = FromText(gText.str());
    ASSERT_EQ(back.size(), g.size());
    ASSERT_GT(g.size(), 100U);
    for (std::size_t i = 0; i < g.size(); ++i)
    {
        EXPECT_EQ(back[i].arrival, g[i].arrival - g[0].arrival) << i;
        EXPECT_EQ(back[i].promptTokens, g[i].promptTokens);
        EXPECT_EQ(back[i].outputTokens, g[i].outputTokens);
    }
}

// ---------------------------------------------------------------------------------------------
// Refusals

TEST(LlmRequestTrace, TokenCountsOnBothSidesOfTheirRange)
{
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46,1,1\n"), "");
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:47,0,1\n"),
              "t.csv:3: ContextTokens must be an integer in [1, 1000000], got '0'");
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46,1,0\n"),
              "t.csv:2: GeneratedTokens must be an integer in [1, 1000000], got '0'");
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46,1000000,1000000\n"), "");
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46,1000001,1\n"),
              "t.csv:2: ContextTokens must be an integer in [1, 1000000], got '1000001'");
    EXPECT_EQ(TextError(PROCESSED + "0,1,1000001\n"),
              "t.csv:2: num_decode_tokens must be an integer in [1, 1000000], got '1000001'");
    const std::string bad[] = {"-1", "1.0", "1e3", "12a", "", "+5", "99999999999999999999999"};
    for (const auto& b : bad)
    {
        EXPECT_EQ(TextError(PROCESSED + "# c\n0," + b + ",1\n"),
                  "t.csv:3: num_prefill_tokens must be an integer in [1, 1000000], got '" + b +
                      "'");
    }
    EXPECT_EQ(TextError(PROCESSED + "0, 7 ,1\n"), ""); // spaces around a field are trimmed
}

TEST(LlmRequestTrace, TimeGoingBackIsRefusedEqualIsNot)
{
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46.5,1,1\n2023-11-16 18:15:46.5000000,1,1\n"),
              "");
    EXPECT_EQ(TextError(AZURE + "2023-11-16 18:15:46.5,1,1\n2023-11-16 18:15:46.499999999,1,1\n"),
              "t.csv:3: time goes back: TIMESTAMP '2023-11-16 18:15:46.499999999' is before the "
              "previous row's '2023-11-16 18:15:46.5' (rows must be in non-decreasing time)");
    // 1 ns back, three years after the first row, where a double of s steps by 15 ns.
    EXPECT_EQ(TextError(AZURE + "2023-01-01 00:00:00,1,1\n2026-01-01 00:00:00.000000002,1,1\n"
                                "2026-01-01 00:00:00.000000001,1,1\n"),
              "t.csv:4: time goes back: TIMESTAMP '2026-01-01 00:00:00.000000001' is before the "
              "previous row's '2026-01-01 00:00:00.000000002' (rows must be in non-decreasing "
              "time)");
    // Across midnight backwards: the date counts.
    EXPECT_EQ(TextError(AZURE + "2023-11-17 00:00:01,1,1\n2023-11-16 23:59:59,1,1\n"),
              "t.csv:3: time goes back: TIMESTAMP '2023-11-16 23:59:59' is before the previous "
              "row's '2023-11-17 00:00:01' (rows must be in non-decreasing time)");
    EXPECT_EQ(TextError(PROCESSED + "1.5,1,1\n1.5,1,1\n2,1,1\n"), "");
    EXPECT_EQ(TextError(PROCESSED + "1.5,1,1\n\n2,1,1\n1.9999,1,1\n"),
              "t.csv:5: time goes back: arrived_at '1.9999' is before the previous row's '2' "
              "(rows must be in non-decreasing time)");
    // A negative first time is fine: times count from the first row.
    EXPECT_EQ(Arrivals(FromText(PROCESSED + "-2,1,1\n-1,1,1\n")), (std::vector<double>{0, 1}));
}

TEST(LlmRequestTrace, BadNumbersHeadersAndFiles)
{
    const std::string sec = "t.csv:2: arrived_at must be a finite number of s, got '";
    const std::string bad[] = {"", "abc", "1.5s", "nan", "inf", "1e400", "1,5"};
    for (const auto& b : bad)
    {
        const std::string err = TextError(PROCESSED + b + ",1,1\n");
        if (b == "1,5")
        {
            EXPECT_EQ(err, "t.csv:2: 4 fields, the header has 3");
        }
        else
        {
            EXPECT_EQ(err, sec + b + "'") << b;
        }
    }
    EXPECT_EQ(TextError(PROCESSED + "1e2,1,1\n"), "");
    EXPECT_EQ(TextError(PROCESSED + "1,1\n"), "t.csv:2: 2 fields, the header has 3");
    // Headers.
    const std::string known = "expected the columns TIMESTAMP,ContextTokens,GeneratedTokens "
                              "(Azure LLM inference trace 2023) or arrived_at,"
                              "num_prefill_tokens,num_decode_tokens (processed)";
    EXPECT_EQ(TextError("time,prompt,output\n0,1,1\n"),
              "t.csv:1: unknown header: " + known + ", got 'time,prompt,output'");
    EXPECT_EQ(TextError("# c\ntimestamp,ContextTokens,GeneratedTokens\n"),
              "t.csv:2: unknown header: " + known +
                  ", got 'timestamp,ContextTokens,GeneratedTokens'");
    EXPECT_EQ(TextError("TIMESTAMP,ContextTokens\n"),
              "t.csv:1: missing column GeneratedTokens (the Azure 2023 header is "
              "TIMESTAMP,ContextTokens,GeneratedTokens)");
    EXPECT_EQ(TextError("arrived_at,num_decode_tokens\n"),
              "t.csv:1: missing column num_prefill_tokens (the processed header is "
              "arrived_at,num_prefill_tokens,num_decode_tokens)");
    EXPECT_EQ(TextError("TIMESTAMP,ContextTokens,GeneratedTokens,arrived_at\n"),
              "t.csv:1: the header has both TIMESTAMP (Azure 2023) and arrived_at (processed): "
              "which format is meant is unclear");
    EXPECT_EQ(TextError("arrived_at,num_prefill_tokens,num_decode_tokens,num_prefill_tokens\n"),
              "t.csv:1: column num_prefill_tokens appears more than once");
    EXPECT_EQ(TextError("arrived_at,num_prefill_tokens,num_decode_tokens,x,x\n0,1,1,2,3\n"), "");
    EXPECT_EQ(TextError(""),
              "t.csv:0: no header line: expected TIMESTAMP,ContextTokens,GeneratedTokens (Azure "
              "LLM inference trace 2023) or arrived_at,num_prefill_tokens,num_decode_tokens "
              "(processed)");
    EXPECT_EQ(TextError("# a\n\n# b\n").substr(0, 24), "t.csv:3: no header line:");
    // Files.
    RequestTraceOptions o;
    EXPECT_EQ(edgellmtest::ErrorOf([&] { LlmRequestTrace::Read(DATA + "no-such.csv", o); }),
              DATA + "no-such.csv:0: cannot open the file for reading");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { LlmRequestTrace::ReadLengths(DATA + "no-such.csv"); }),
              DATA + "no-such.csv:0: cannot open the file for reading");
}

TEST(LlmRequestTrace, OptionsOnBothSidesOfEveryRange)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto check = [](const std::function<void(RequestTraceOptions&)>& set) {
        RequestTraceOptions o;
        set(o);
        return edgellmtest::ErrorOf([&] { o.Validate(); });
    };
    EXPECT_EQ(check([](auto&) {}), "");
    EXPECT_EQ(check([](auto& o) { o.start = 0; }), "");
    EXPECT_EQ(check([](auto& o) { o.start = -1e-300; }),
              "start must be in [0, inf) s, got -1e-300");
    EXPECT_EQ(check([&](auto& o) { o.start = nan; }), "start must be in [0, inf) s, got nan");
    EXPECT_EQ(check([&](auto& o) { o.start = inf; }), "start must be in [0, inf) s, got inf");
    EXPECT_EQ(check([](auto& o) { o.duration = 1e-300; }), "");
    EXPECT_EQ(check([](auto& o) { o.duration = 0; }), "duration must be in (0, inf] s, got 0");
    EXPECT_EQ(check([&](auto& o) { o.duration = nan; }), "duration must be in (0, inf] s, got nan");
    EXPECT_EQ(check([](auto& o) { o.rateScale = 1e-300; }), "");
    EXPECT_EQ(check([](auto& o) { o.rateScale = 0; }), "rateScale must be in (0, 1000], got 0");
    EXPECT_EQ(check([](auto& o) { o.rateScale = -1; }), "rateScale must be in (0, 1000], got -1");
    EXPECT_EQ(check([](auto& o) { o.rateScale = 1000; }), "");
    EXPECT_EQ(check([](auto& o) { o.rateScale = 1000.0001; }),
              "rateScale must be in (0, 1000], got 1000.0001");
    EXPECT_EQ(check([&](auto& o) { o.rateScale = nan; }),
              "rateScale must be in (0, 1000], got nan");
    EXPECT_EQ(check([](auto& o) { o.numUes = 0; }), "numUes must be in [1, 100000], got 0");
    EXPECT_EQ(check([](auto& o) { o.numUes = 100000; }), "");
    EXPECT_EQ(check([](auto& o) { o.numUes = 100001; }),
              "numUes must be in [1, 100000], got 100001");
    EXPECT_EQ(check([](auto& o) { o.turnsPerConversation = 0; }),
              "turnsPerConversation must be in [1, 1000], got 0");
    EXPECT_EQ(check([](auto& o) { o.turnsPerConversation = 1000; }), "");
    EXPECT_EQ(check([](auto& o) { o.turnsPerConversation = 1001; }),
              "turnsPerConversation must be in [1, 1000], got 1001");
    EXPECT_EQ(check([](auto& o) { o.stream = -1; }), "stream must be in [0, 2^63 - 1], got -1");
    EXPECT_EQ(check([](auto& o) { o.stream = std::numeric_limits<int64_t>::max(); }), "");
    EXPECT_EQ(check([](auto& o) { o.mapping = static_cast<RequestUeMapping>(2); }),
              "mapping must be in {UNIFORM, PER_UE_STREAMS}, got 2");
    EXPECT_EQ(check([](auto& o) {
                  o.mapping = RequestUeMapping::PER_UE_STREAMS;
                  o.duration = 1e300;
              }),
              "");
    EXPECT_EQ(check([](auto& o) {
                  o.mapping = RequestUeMapping::PER_UE_STREAMS;
                  o.duration = 1e305;
                  o.numUes = 100000;
              }),
              "start + numUes * duration must be in [0, inf) s (finite) with mapping "
              "PER_UE_STREAMS, got inf");
    // A bad option is refused before the file is read, by Parse and Read alike.
    RequestTraceOptions o;
    o.rateScale = 0;
    EXPECT_EQ(TextError("not a trace", o), "rateScale must be in (0, 1000], got 0");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { LlmRequestTrace::Read(DATA + "no-such.csv", o); }),
              "rateScale must be in (0, 1000], got 0");
}

TEST(LlmRequestTrace, GeneratorConfigOnBothSidesOfEveryRange)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto check = [](const std::function<void(RequestGeneratorConfig&)>& set) {
        RequestGeneratorConfig c;
        set(c);
        return edgellmtest::ErrorOf([&] { c.Validate(); });
    };
    EXPECT_EQ(check([](auto&) {}), "");
    EXPECT_EQ(check([](auto& c) { c.rate = 1e6; }), "");
    EXPECT_EQ(check([](auto& c) { c.rate = 1.000001e6; }),
              "rate must be in (0, 1000000] requests/s, got 1000001");
    EXPECT_EQ(check([](auto& c) { c.rate = 1e-300; }), "");
    EXPECT_EQ(check([](auto& c) { c.rate = 0; }), "rate must be in (0, 1000000] requests/s, got 0");
    EXPECT_EQ(check([&](auto& c) { c.rate = nan; }),
              "rate must be in (0, 1000000] requests/s, got nan");
    EXPECT_EQ(check([](auto& c) { c.cv = 0.01; }), "");
    EXPECT_EQ(check([](auto& c) { c.cv = 0.0099; }), "cv must be in [0.01, 100], got 0.0099");
    EXPECT_EQ(check([](auto& c) { c.cv = 100; }), "");
    EXPECT_EQ(check([](auto& c) { c.cv = 100.01; }), "cv must be in [0.01, 100], got 100.01");
    EXPECT_EQ(check([&](auto& c) { c.cv = nan; }), "cv must be in [0.01, 100], got nan");
    EXPECT_EQ(check([](auto& c) { c.duration = 86400; }), "");
    EXPECT_EQ(check([](auto& c) { c.duration = 86400.001; }),
              "duration must be in (0, 86400] s, got 86400.001");
    EXPECT_EQ(check([](auto& c) { c.duration = 0; }), "duration must be in (0, 86400] s, got 0");
    EXPECT_EQ(check([&](auto& c) { c.duration = nan; }),
              "duration must be in (0, 86400] s, got nan");
    EXPECT_EQ(check([](auto& c) { c.promptMu = 0; }), "");
    EXPECT_EQ(check([](auto& c) { c.promptMu = -0.001; }),
              "promptMu must be in [0, 14], got -0.001");
    EXPECT_EQ(check([](auto& c) { c.outputMu = 14.001; }),
              "outputMu must be in [0, 14], got 14.001");
    EXPECT_EQ(check([&](auto& c) { c.outputMu = nan; }), "outputMu must be in [0, 14], got nan");
    EXPECT_EQ(check([](auto& c) { c.promptSigma = 5; }), "");
    EXPECT_EQ(check([](auto& c) { c.promptSigma = 5.001; }),
              "promptSigma must be in [0, 5], got 5.001");
    EXPECT_EQ(check([](auto& c) { c.outputSigma = -0.001; }),
              "outputSigma must be in [0, 5], got -0.001");
    EXPECT_EQ(check([](auto& c) { c.maxTokens = 1000000; }), "");
    EXPECT_EQ(check([](auto& c) { c.maxTokens = 1000001; }),
              "maxTokens must be in [1, 1000000], got 1000001");
    EXPECT_EQ(check([](auto& c) { c.maxTokens = 0; }), "maxTokens must be in [1, 1000000], got 0");
    EXPECT_EQ(check([](auto& c) { c.numUes = 0; }), "numUes must be in [1, 100000], got 0");
    EXPECT_EQ(check([](auto& c) { c.numUes = 100001; }),
              "numUes must be in [1, 100000], got 100001");
    EXPECT_EQ(check([](auto& c) { c.turnsPerConversation = 1001; }),
              "turnsPerConversation must be in [1, 1000], got 1001");
    EXPECT_EQ(check([](auto& c) { c.turnsPerConversation = 0; }),
              "turnsPerConversation must be in [1, 1000], got 0");
    EXPECT_EQ(check([](auto& c) { c.stream = std::numeric_limits<int64_t>::max() - 3; }), "");
    EXPECT_EQ(check([](auto& c) { c.stream = std::numeric_limits<int64_t>::max() - 2; }),
              "stream must be in [0, 2^63 - 4] (uses stream .. stream + 3), got "
              "9223372036854775805");
    EXPECT_EQ(check([](auto& c) { c.stream = -1; }),
              "stream must be in [0, 2^63 - 4] (uses stream .. stream + 3), got -1");
    EXPECT_EQ(check([](auto& c) { c.arrivals = static_cast<RequestGeneratorConfig::Arrivals>(2); }),
              "arrivals must be in {POISSON, GAMMA}, got 2");
    EXPECT_EQ(check([](auto& c) { c.lengths = static_cast<RequestGeneratorConfig::Lengths>(2); }),
              "lengths must be in {LOGNORMAL, EMPIRICAL}, got 2");
    // EMPIRICAL needs at least one pair, each count in [1, 1e6].
    EXPECT_EQ(check([](auto& c) { c.lengths = RequestGeneratorConfig::EMPIRICAL; }),
              "the number of empirical pairs must be in [1, 2^32 - 1] with lengths EMPIRICAL, "
              "got 0");
    EXPECT_EQ(check([](auto& c) {
                  c.lengths = RequestGeneratorConfig::EMPIRICAL;
                  c.empirical = {{1, 1}, {1000000, 1000000}};
              }),
              "");
    EXPECT_EQ(check([](auto& c) {
                  c.lengths = RequestGeneratorConfig::EMPIRICAL;
                  c.empirical = {{1, 1}, {5, 0}};
              }),
              "empirical[1].second (output) must be in [1, 1000000], got 0");
    EXPECT_EQ(check([](auto& c) {
                  c.lengths = RequestGeneratorConfig::EMPIRICAL;
                  c.empirical = {{1000001, 1}};
              }),
              "empirical[0].first (prompt) must be in [1, 1000000], got 1000001");
    // LOGNORMAL laws that (almost) never round into [1, maxTokens]: with sigma = 0 every draw
    // is exp(mu); maxTokens = 1 takes [0.5, 1.5), ln 1.5 = 0.405465.
    EXPECT_EQ(check([](auto& c) {
                  c.promptSigma = 0;
                  c.promptMu = 0.405;
                  c.maxTokens = 1;
                  c.outputSigma = 5; // share Phi(ln 1.5 / 5 - 1) - Phi(ln 0.5 / 5 - 1) >> 1e-3
              }),
              "");
    EXPECT_EQ(check([](auto& c) {
                  c.promptSigma = 0;
                  c.promptMu = 0.406;
                  c.maxTokens = 1;
                  c.outputSigma = 5;
              }),
              "the share of prompt lengths exp(N(0.406, 0^2)) that round into [1, maxTokens = "
              "1] must be in [0.001, 1], got 0 (each length is redrawn until it falls there)");
    // ln(1e6 + 0.5) = 13.8155: exp(13.8) = 984609 fits, exp(14) = 1.2e6 does not.
    EXPECT_EQ(check([](auto& c) {
                  c.outputMu = 13.8;
                  c.outputSigma = 0;
                  c.maxTokens = 1000000;
              }),
              "");
    EXPECT_NE(check([](auto& c) {
                  c.outputMu = 14;
                  c.outputSigma = 0;
                  c.maxTokens = 1000000;
              }).find("the share of output lengths exp(N(14, 0^2))"),
              std::string::npos);
    // With sigma = 0.1 around ln 1.5 + 0.31: the share is Phi(-3.1) - Phi(...) = 0.00097 < 1e-3;
    // at + 0.30: Phi(-3.0) = 0.00135 >= 1e-3 (normal tables).
    EXPECT_EQ(check([](auto& c) {
                  c.promptSigma = 0.1;
                  c.promptMu = std::log(1.5) + 0.30;
                  c.maxTokens = 1;
                  c.outputSigma = 5;
              }),
              "");
    EXPECT_NE(check([](auto& c) {
                  c.promptSigma = 0.1;
                  c.promptMu = std::log(1.5) + 0.31;
                  c.maxTokens = 1;
                  c.outputSigma = 5;
              }),
              "");
    // Generate validates.
    RequestGeneratorConfig c;
    c.rate = 0;
    EXPECT_EQ(edgellmtest::ErrorOf([&] { LlmRequestTrace::Generate(c); }),
              "rate must be in (0, 1000000] requests/s, got 0");
}

// ---------------------------------------------------------------------------------------------
// The shipped Azure excerpts

/// A separate simple reading of an excerpt: s of each row after the first, from the clock
/// time only (every row is of 2023-11-16), and the two counts.
struct Simple
{
    std::vector<double> t;
    std::vector<std::pair<uint64_t, uint64_t>> lengths;
};

Simple
ReadSimply(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "TIMESTAMP,ContextTokens,GeneratedTokens\r");
    Simple s;
    double first = -1;
    while (std::getline(in, line))
    {
        EXPECT_EQ(line.substr(0, 11), "2023-11-16 ");
        const double clock = std::stod(line.substr(11, 2)) * 3600 +
                             std::stod(line.substr(14, 2)) * 60 + std::stod(line.substr(17, 10));
        if (first < 0)
        {
            first = clock;
        }
        s.t.push_back(clock - first);
        const auto c1 = line.find(',');
        const auto c2 = line.find(',', c1 + 1);
        s.lengths.emplace_back(std::stoull(line.substr(c1 + 1, c2 - c1 - 1)),
                               std::stoull(line.substr(c2 + 1)));
    }
    return s;
}

TEST(LlmRequestTrace, AzureExcerptsWindowsMatchASimpleReading)
{
    const std::string files[] = {"azure-conv-2023-excerpt.csv", "azure-code-2023-excerpt.csv"};
    const std::size_t rows[] = {1445, 781}; // data rows kept (test/data/requests/README.md)
    for (int f = 0; f < 2; ++f)
    {
        const std::string path = DATA + files[f];
        const Simple s = ReadSimply(path);
        ASSERT_EQ(s.t.size(), rows[f]);
        EXPECT_LT(s.t.back(), 300.0); // the first 5 minutes
        EXPECT_GT(s.t.back(), 299.0);
        EXPECT_EQ(LlmRequestTrace::Read(path, RequestTraceOptions()).size(), rows[f]);
        EXPECT_EQ(LlmRequestTrace::ReadLengths(path), s.lengths);
        // A 60 s window from 190 s, twice as fast (the code trace has no rows from 39.3 s to
        // 183.1 s).
        RequestTraceOptions o;
        o.start = 190;
        o.duration = 60;
        o.rateScale = 2;
        const auto r = LlmRequestTrace::Read(path, o);
        std::vector<double> expected;
        for (double t : s.t)
        {
            if (t >= 190 && t < 250)
            {
                expected.push_back((t - 190) / 2);
            }
        }
        ASSERT_EQ(r.size(), expected.size()) << path;
        EXPECT_GT(r.size(), 50U);
        for (std::size_t i = 0; i < r.size(); ++i)
        {
            EXPECT_NEAR(r[i].arrival, expected[i], 1e-9);
        }
        // Four UEs of 70 s each fit in the trace; five do not (350 s > its ~299.9 s).
        o = RequestTraceOptions();
        o.mapping = RequestUeMapping::PER_UE_STREAMS;
        o.numUes = 4;
        o.duration = 70;
        std::size_t inFour = 0;
        for (double t : s.t)
        {
            inFour += t < 280 ? 1 : 0;
        }
        EXPECT_EQ(LlmRequestTrace::Read(path, o).size(), inFour);
        o.numUes = 5;
        EXPECT_NE(edgellmtest::ErrorOf([&] { LlmRequestTrace::Read(path, o); })
                      .find(path + ":" + std::to_string(rows[f] + 1) +
                            ": PER_UE_STREAMS needs the trace to last to start + numUes * "
                            "duration = 0 + 5 * 70 = 350 s"),
                  std::string::npos);
    }
    // The conversation trace's second row, by hand: 18:15:50.9951690 - 18:15:46.6805900
    // = 4.314579 s (Vidur's processed splitwise_conv.csv has the same 4.314579).
    const auto conv = LlmRequestTrace::Read(DATA + files[0], RequestTraceOptions());
    EXPECT_NEAR(conv.at(1).arrival, 4.314579, 1e-9);
    EXPECT_EQ(conv.at(1).promptTokens, 396U);
    EXPECT_EQ(conv.at(1).outputTokens, 109U);
}

// ---------------------------------------------------------------------------------------------
// The generator

TEST(LlmRequestTrace, PoissonGapsAreExponential)
{
    SeedRun seedRun(1, 1);
    RequestGeneratorConfig c;
    c.rate = 100;
    c.duration = 230; // about 23000 arrivals: the first n = 20000 gaps are tested
    const auto r = LlmRequestTrace::Generate(c);
    // Count: Poisson(23000), sd 152: within 3 % (4.5 sd).
    EXPECT_NEAR(r.size() / c.duration, 100.0, 3.0);
    ASSERT_GE(r.size(), 20000U);
    std::vector<double> gaps = Gaps(r);
    gaps.resize(20000);
    const double d = KsContinuous(gaps, [](double x) { return 1 - std::exp(-100 * x); });
    EXPECT_LT(d, KsCritical(20000)); // 0.01153
    // The test has power: against rate 90 the distance is about 0.039 (max of
    // exp(-90 x) - exp(-100 x), at x = ln(10 / 9) / 10), 3.4 times the critical value.
    EXPECT_GT(KsContinuous(gaps, [](double x) { return 1 - std::exp(-90 * x); }),
              2 * KsCritical(20000));
    for (std::size_t i = 0; i < r.size(); ++i)
    {
        EXPECT_GE(r[i].arrival, i == 0 ? 0.0 : r[i - 1].arrival);
        EXPECT_LT(r[i].arrival, c.duration);
    }
}

TEST(LlmRequestTrace, GammaGapsHaveShapeOneOverCvSquared)
{
    SeedRun seedRun(1, 1);
    for (double cv : {2.0, 0.5})
    {
        RequestGeneratorConfig c;
        c.arrivals = RequestGeneratorConfig::GAMMA;
        c.cv = cv;
        c.rate = 100;
        c.duration = 230;
        const auto r = LlmRequestTrace::Generate(c);
        // Renewal count: sd about sqrt(23000) cv = 303 (cv 2), 76 (cv 0.5): 5 % and 2 %.
        EXPECT_NEAR(r.size() / c.duration, 100.0, cv > 1 ? 5.0 : 2.0) << cv;
        ASSERT_GE(r.size(), 20000U);
        std::vector<double> gaps = Gaps(r);
        gaps.resize(20000);
        const double k = 1 / (cv * cv);
        const double scale = 1 / (100 * k);
        auto gammaCdf = [&](double shape, double theta) {
            return [=](double x) { return x <= 0 ? 0.0 : boost::math::gamma_p(shape, x / theta); };
        };
        EXPECT_LT(KsContinuous(gaps, gammaCdf(k, scale)), KsCritical(20000)) << cv;
        // Against the exponential of the same mean: far above.
        EXPECT_GT(KsContinuous(gaps, gammaCdf(1, 0.01)), 3 * KsCritical(20000)) << cv;
        // The sample cv: within 10 %.
        double sum = 0;
        double sum2 = 0;
        for (double g : gaps)
        {
            sum += g;
            sum2 += g * g;
        }
        const double mean = sum / gaps.size();
        const double sd = std::sqrt(sum2 / gaps.size() - mean * mean);
        EXPECT_NEAR(sd / mean, cv, 0.1 * cv);
    }
}

TEST(LlmRequestTrace, LognormalLengthsAreRoundedAndTruncated)
{
    SeedRun seedRun(2, 1);
    RequestGeneratorConfig c;
    c.rate = 100;
    c.duration = 200;
    c.maxTokens = 20;
    // Prompt: 11.7 % of draws below 0.5 redrawn, 0.6 % above 20.5; output: 26 % above 20.5.
    c.promptMu = 0.5;
    c.promptSigma = 1;
    c.outputMu = 2.5;
    c.outputSigma = 0.8;
    const auto r = LlmRequestTrace::Generate(c);
    ASSERT_GT(r.size(), 19000U);
    ASSERT_LT(r.size(), 21000U);
    std::vector<uint64_t> prompts;
    std::vector<uint64_t> outputs;
    for (const auto& x : r)
    {
        ASSERT_GE(x.promptTokens, 1U);
        ASSERT_LE(x.promptTokens, 20U);
        ASSERT_GE(x.outputTokens, 1U);
        ASSERT_LE(x.outputTokens, 20U);
        prompts.push_back(x.promptTokens);
        outputs.push_back(x.outputTokens);
    }

    // The law: P(round(X) <= m | 1 <= round(X) <= 20) for X = exp(N(mu, sigma^2)), as
    // round(X) <= m iff X < m + 0.5. The alternatives show the test's power: draws below 0.5
    // clamped to 1 instead of redrawn, or no redraw above 20.5 (the CDF then stays below 1).
    enum Variant
    {
        REDRAWN,
        CLAMPED_BELOW,
        UNTRUNCATED_ABOVE,
    };

    auto law = [](double mu, double sigma, Variant v) {
        const boost::math::normal n(mu, sigma);
        return [=](uint64_t m) {
            const double up = cdf(n, std::log(m + 0.5));
            const double low = cdf(n, std::log(0.5));
            const double top = cdf(n, std::log(20.5));
            switch (v)
            {
            case CLAMPED_BELOW:
                return up / top;
            case UNTRUNCATED_ABOVE:
                return (up - low) / (1 - low);
            default:
                return (up - low) / (top - low);
            }
        };
    };
    const double crit = KsCritical(r.size()); // about 0.0115
    EXPECT_LT(KsInteger(prompts, 20, law(0.5, 1, REDRAWN)), crit);
    EXPECT_LT(KsInteger(outputs, 20, law(2.5, 0.8, REDRAWN)), crit);
    // At m = 1 the clamped law has 0.465 against 0.394; the untruncated output law reaches
    // only 0.74 at m = 20.
    EXPECT_GT(KsInteger(prompts, 20, law(0.5, 1, CLAMPED_BELOW)), 3 * crit);
    EXPECT_GT(KsInteger(outputs, 20, law(2.5, 0.8, UNTRUNCATED_ABOVE)), 3 * crit);
}

TEST(LlmRequestTrace, EmpiricalPairsAndUesAreUniform)
{
    SeedRun seedRun(4, 2);
    RequestGeneratorConfig c;
    c.rate = 100;
    c.duration = 200;
    c.lengths = RequestGeneratorConfig::EMPIRICAL;
    c.empirical = {{10, 1}, {20, 2}, {30, 3}, {40, 4}};
    c.numUes = 5;
    const auto r = LlmRequestTrace::Generate(c);
    ASSERT_GT(r.size(), 19000U);
    std::map<uint64_t, double> pairs;
    std::map<uint32_t, double> ues;
    for (const auto& x : r)
    {
        ASSERT_EQ(x.promptTokens, 10 * x.outputTokens); // drawn jointly
        pairs[x.outputTokens] += 1.0 / r.size();
        ues[x.ue] += 1.0 / r.size();
    }
    // Frequency sd: sqrt(0.25 * 0.75 / 20000) = 0.0031 and sqrt(0.2 * 0.8 / 20000) = 0.0028;
    // 0.015 is about 5 sd.
    ASSERT_EQ(pairs.size(), 4U);
    for (const auto& [k, f] : pairs)
    {
        EXPECT_NEAR(f, 0.25, 0.015) << k;
    }
    ASSERT_EQ(ues.size(), 5U);
    for (const auto& [u, f] : ues)
    {
        EXPECT_LT(u, 5U);
        EXPECT_NEAR(f, 0.2, 0.015) << u;
    }
    // One pair only: every request has it.
    c.empirical = {{7, 9}};
    for (const auto& x : LlmRequestTrace::Generate(c))
    {
        ASSERT_EQ(x.promptTokens, 7U);
        ASSERT_EQ(x.outputTokens, 9U);
    }
}

TEST(LlmRequestTrace, GeneratedConversationsGroupEachUesTurns)
{
    SeedRun seedRun(1, 3);
    RequestGeneratorConfig c;
    c.rate = 20;
    c.duration = 100;
    c.numUes = 7;
    c.turnsPerConversation = 3;
    const auto r = LlmRequestTrace::Generate(c);
    ASSERT_GT(r.size(), 1500U);
    // Brute force: each UE's requests in order, in chunks of 3; the chunks' first requests in
    // order get 0, 1, 2, ...
    std::map<uint32_t, std::vector<std::size_t>> byUe;
    for (std::size_t i = 0; i < r.size(); ++i)
    {
        byUe[r[i].ue].push_back(i);
    }
    std::vector<std::pair<std::size_t, std::vector<std::size_t>>> chunks; // (first index, all)
    for (const auto& [ue, idx] : byUe)
    {
        for (std::size_t j = 0; j < idx.size(); j += 3)
        {
            std::vector<std::size_t> chunk(idx.begin() + j,
                                           idx.begin() + std::min(j + 3, idx.size()));
            chunks.emplace_back(chunk[0], chunk);
        }
    }
    std::sort(chunks.begin(), chunks.end());
    for (std::size_t n = 0; n < chunks.size(); ++n)
    {
        for (std::size_t t = 0; t < chunks[n].second.size(); ++t)
        {
            const auto& x = r[chunks[n].second[t]];
            EXPECT_EQ(x.conversation, n);
            EXPECT_EQ(x.turn, t);
        }
    }
}

TEST(LlmRequestTrace, GeneratorIsDeterministicUnderSeedAndRun)
{
    RequestGeneratorConfig c;
    c.rate = 10;
    c.duration = 50;
    c.numUes = 4;
    auto same = [](const std::vector<LlmRequest>& a, const std::vector<LlmRequest>& b) {
        if (a.size() != b.size())
        {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            if (a[i].arrival != b[i].arrival || a[i].promptTokens != b[i].promptTokens ||
                a[i].outputTokens != b[i].outputTokens || a[i].ue != b[i].ue ||
                a[i].conversation != b[i].conversation || a[i].turn != b[i].turn)
            {
                return false;
            }
        }
        return true;
    };
    SeedRun seedRun(5, 1);
    const auto a = LlmRequestTrace::Generate(c);
    ASSERT_GT(a.size(), 300U);
    EXPECT_TRUE(same(LlmRequestTrace::Generate(c), a));
    RngSeedManager::SetRun(2);
    const auto b = LlmRequestTrace::Generate(c);
    EXPECT_FALSE(same(b, a));
    EXPECT_NE(a[0].arrival, b[0].arrival);
    RngSeedManager::SetRun(1);
    EXPECT_TRUE(same(LlmRequestTrace::Generate(c), a));
    c.stream = 10; // other streams: other draws
    EXPECT_FALSE(same(LlmRequestTrace::Generate(c), a));
    RngSeedManager::SetSeed(6);
    c.stream = 0;
    EXPECT_FALSE(same(LlmRequestTrace::Generate(c), a));
}

} // namespace
