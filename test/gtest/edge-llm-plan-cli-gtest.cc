/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The edge-llm-plan CLI, driven in-process: JSON output of a hand-worked batch,
 * and every bad input it must refuse with exit code 2, FILE:LINE and nothing on stdout.
 */
#include "../../examples/plan/edge-llm-plan-cli.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct CliResult
{
    int code;
    std::string out;
    std::string err;
};

CliResult
RunCli(std::vector<std::string> args)
{
    args.insert(args.begin(), "edge-llm-plan");
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    std::ostringstream out;
    std::ostringstream err;
    const int code = EdgeLlmPlanCliMain(static_cast<int>(argv.size()), argv.data(), out, err);
    return {code, out.str(), err.str()};
}

std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

// The hand-worked batch of the planner test suite (R = 1000 tokens/s), expressed
// through the CLI: backhaulGbps = 1000 tokens/s * 458752 bit/token / 1e9.
// A UTF-8 byte-order mark (as some spreadsheet exports write) is not part of a column name.
TEST(EdgeLlmPlanCli, ByteOrderMarkIsAccepted)
{
    const std::string file =
        WriteFile("bom.csv", "\xEF\xBB\xBFue_id,handover_time_s,context_tokens\n1,0.5,10\n");
    const CliResult r = RunCli({"--scheme=cho", "--ues=" + file});
    EXPECT_EQ(r.code, 0) << r.err;
}

// A directory is refused by name, not as an unreadable file.
TEST(EdgeLlmPlanCli, DirectoryIsRefused)
{
    const CliResult r = RunCli({"--scheme=cho", "--ues=" + ::testing::TempDir()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
}

// ImpactHO slot through the CLI: two identical users above tau share the budget by
// classical water-filling (doc/edge-llm-design.rst, ImpactHO slot allocation): levels 0.2 and 0.4
// meet at W = 0.3 when the budget is 0.1 of one cache (qwen3-8b, 1000 tokens:
// 1.179648e9 bits).
TEST(EdgeLlmPlanCli, ImpactHoSlotAsJson)
{
    const std::string file = WriteFile("users.csv",
                                       "user_id,context_tokens,received_fraction,M,k,tau\n"
                                       "1,1000,0.2,0.94,45,0.065\n2,1000,0.4,0.94,45,0.065\n");
    // budget = 0.3 cache = 0.3 * 1.179648e9 bits = backhaulGbps * 1e9 * slot.
    const CliResult r = RunCli(
        {"--scheme=impactho-slot", "--users=" + file, "--backhaulGbps=0.3538944", "--slot=1"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["regime"], "water-filling");
    EXPECT_NEAR(j["budget_bits"].get<double>(), 0.3 * 1.179648e9, 1);
    EXPECT_NEAR(j["users"][0]["target_fraction"].get<double>(), 0.45, 1e-6);
    EXPECT_NEAR(j["users"][1]["target_fraction"].get<double>(), 0.45, 1e-6);
    for (const std::string scheme : {"ea-slot", "wta-slot", "pf-slot"})
    {
        const CliResult b = RunCli({"--scheme=" + scheme, "--users=" + file});
        EXPECT_EQ(b.code, 0) << scheme << ": " << b.err;
        EXPECT_EQ(nlohmann::json::parse(b.out)["regime"], "baseline");
    }
}

// Issue 12: two 16K-token users below tau (x = 0.01) in the default 2 Gbit slot (20 Gbit/s
// x 100 ms) without admission. Lifting both to tau takes 2 x 1.063 Gbit: infeasible. The
// whole budget goes to one user (the best split, by a scan: doc/edge-llm-design.rst, ImpactHO
// slot allocation): 0.01 + 2e9 / (16384 x 1179648) = 0.113480; before, both got 0 bits.
TEST(EdgeLlmPlanCli, NoAdmissionSpendsTheSlot)
{
    const std::string file =
        WriteFile("two16k.csv",
                  "user_id,context_tokens,received_fraction,M,k,tau\n"
                  "1,16384,0.01,0.9302,45,0.065\n2,16384,0.01,0.9302,45,0.065\n");
    const CliResult r = RunCli({"--scheme=impactho-slot", "--users=" + file, "--fallback=none"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["regime"], "fallback");
    EXPECT_NEAR(j["budget_bits"].get<double>(), 2e9, 1);
    const double y1 = j["users"][0]["target_fraction"].get<double>();
    const double y2 = j["users"][1]["target_fraction"].get<double>();
    EXPECT_NEAR(y1, 0.01 + 2e9 / (16384 * 1179648.0), 1e-9);
    EXPECT_NEAR(y2, 0.01, 1e-12);
}

TEST(EdgeLlmPlanCli, FitsASigmoid)
{
    std::string csv = "fraction,accuracy\n";
    for (int i = 0; i <= 20; ++i)
    {
        const double y = i / 20.0;
        const double u = 30 * (y - 0.2);
        csv += std::to_string(y) + "," + std::to_string(0.9 / 2 * (1 + u / std::sqrt(1 + u * u))) +
               "\n";
    }
    const CliResult r = RunCli({"--fit=" + WriteFile("fit.csv", csv)});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NEAR(j["M"].get<double>(), 0.9, 1e-3);
    EXPECT_NEAR(j["k"].get<double>(), 30, 0.5);
    EXPECT_NEAR(j["tau"].get<double>(), 0.2, 1e-3);
}

TEST(EdgeLlmPlanCli, HandWorkedBatchAsJson)
{
    const std::string file =
        WriteFile("hand.csv",
                  "ue_id,handover_time_s,context_tokens\n1,0,300\r\n2,0.05,200\n3,0.12,100\n\n");
    const CliResult r = RunCli({"--scheme=ctho",
                                "--ues=" + file,
                                "--backhaulGbps=0.458752",
                                "--prefillA=0.001",
                                "--prefillB=0.01",
                                "--batchPeriod=0.1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(r.err.empty());
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["scheme"], "ctho");
    EXPECT_EQ(j["prefill_length"], 80);
    EXPECT_NEAR(j["worst_delay_s"].get<double>(), 0.29, 1e-9);
    EXPECT_NEAR(j["backhaul_tokens_per_s"].get<double>(), 1000.0, 1e-9);
    ASSERT_EQ(j["ues"].size(), 3u);
    EXPECT_EQ(j["ues"][2]["ue_id"], 3);
    EXPECT_EQ(j["ues"][2]["transfer_tokens"], 20);
    EXPECT_NEAR(j["ues"][2]["transfer_done_s"].get<double>(), 0.36, 1e-9);
    EXPECT_NEAR(j["ues"][2]["delay_s"].get<double>(), 0.24, 1e-9);
    const std::vector<std::string> keys = {"ue_id",
                                           "handover_time_s",
                                           "context_tokens",
                                           "prefill_tokens",
                                           "transfer_tokens",
                                           "prefill_done_s",
                                           "transfer_done_s",
                                           "delay_s"};
    for (const auto& k : keys)
    {
        EXPECT_TRUE(j["ues"][0].contains(k)) << k;
    }
    const CliResult tho = RunCli({"--scheme=tho",
                                  "--ues=" + file,
                                  "--backhaulGbps=0.458752",
                                  "--prefillA=0.001",
                                  "--prefillB=0.01",
                                  "--batchPeriod=0.1"});
    ASSERT_EQ(tho.code, 0);
    EXPECT_NEAR(nlohmann::json::parse(tho.out)["worst_delay_s"].get<double>(), 0.51, 1e-9);
}

// The shared ranges' upper edges are accepted: 1000 Gbit/s and 10,000,000 tokens (past
// every model's context window, so with --allowBeyondContextWindow=1, which the JSON notes).
TEST(EdgeLlmPlanCli, RangeEdgesAreAccepted)
{
    const std::string file =
        WriteFile("edges.csv", "ue_id,handover_time_s,context_tokens\n1,0,10000000\n");
    const CliResult r = RunCli(
        {"--scheme=cho", "--ues=" + file, "--backhaulGbps=1000", "--allowBeyondContextWindow=1"});
    ASSERT_EQ(r.code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ues"][0]["transfer_tokens"], 10000000);
    EXPECT_EQ(j["note"],
              "note: contexts up to 10000000 tokens exceed the context window of "
              "qwen2.5-7b-instruct (131072 tokens): allowed by allowBeyondContextWindow");
    const CliResult refused = RunCli({"--scheme=cho", "--ues=" + file, "--backhaulGbps=1000"});
    EXPECT_EQ(refused.code, 2);
    EXPECT_NE(refused.err.find("edges.csv:2: context_tokens = 10000000 tokens exceeds the "
                               "context window of qwen2.5-7b-instruct (131072 tokens)"),
              std::string::npos)
        << refused.err;
}

struct BadCase
{
    std::string name;
    std::string csv;                // file content ("" with noFile: no file at all)
    std::vector<std::string> extra; // options besides --ues
    std::string expect;             // a substring the error line must contain
};

// Name the case in test output instead of dumping its bytes.
void
PrintTo(const BadCase& c, std::ostream* os)
{
    *os << c.name;
}

class EdgeLlmPlanCliBadInput : public ::testing::TestWithParam<BadCase>
{
};

TEST_P(EdgeLlmPlanCliBadInput, RefusedWithExitTwoAndNoStdout)
{
    const BadCase& c = GetParam();
    std::string file = ::testing::TempDir() + "/does-not-exist.csv";
    if (c.name != "missing_file")
    {
        file = WriteFile(c.name + ".csv", c.csv);
    }
    // Slot cases bring their own --users file; the others read --ues.
    const bool slot = std::any_of(c.extra.begin(), c.extra.end(), [](const std::string& e) {
        return e.rfind("--users=", 0) == 0;
    });
    std::vector<std::string> args;
    if (!slot)
    {
        args.push_back("--ues=" + file);
    }
    for (const auto& e : c.extra)
    {
        // "--users=@TEXT": a users file with that content
        const auto at = e.find("=@");
        args.push_back(at == std::string::npos
                           ? e
                           : e.substr(0, at + 1) +
                                 WriteFile(c.name + "-users.csv", e.substr(at + 2)));
    }
    if (std::none_of(args.begin(), args.end(), [](const std::string& a) {
            return a.rfind("--scheme", 0) == 0;
        }))
    {
        args.push_back("--scheme=ctho");
    }
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr: " << r.err;
}

const std::string kHeader = "ue_id,handover_time_s,context_tokens\n";

INSTANTIATE_TEST_SUITE_P(
    Cases,
    EdgeLlmPlanCliBadInput,
    ::testing::Values(
        BadCase{"missing_file", "", {}, "cannot open"},
        BadCase{"empty_file", "", {}, "empty_file.csv:1: empty file"},
        BadCase{"header_only", kHeader, {}, "no records"},
        BadCase{"missing_column",
                "ue_id,handover_time_s\n1,0.5\n",
                {},
                "missing column 'context_tokens'"},
        BadCase{"unknown_column",
                "ue_id,handover_time_s,context_tokens,x\n1,0.5,10,1\n",
                {},
                "unknown column 'x'"},
        BadCase{"non_numeric",
                kHeader + "1,0.5,10\n2,soon,10\n",
                {},
                "non_numeric.csv:3: handover_time_s"},
        BadCase{"negative_time",
                kHeader + "1,-0.5,10\n",
                {},
                "negative_time.csv:2: handover_time_s must be in [0,"},
        BadCase{"zero_context",
                kHeader + "1,0.5,0\n",
                {},
                "zero_context.csv:2: context_tokens must be in [1,"},
        BadCase{"negative_context",
                kHeader + "1,0.5,-4\n",
                {},
                "negative_context.csv:2: context_tokens must be an integer"},
        BadCase{"fractional_context",
                kHeader + "1,0.5,4.5\n",
                {},
                "context_tokens must be an integer"},
        BadCase{"short_row", kHeader + "1,0.5\n", {}, "short_row.csv:2: expected 3"},
        BadCase{"duplicate_ue",
                kHeader + "1,0.5,10\n1,0.6,10\n",
                {},
                "duplicate_ue.csv:3: ue_id 1 appears twice"},
        BadCase{"unknown_model",
                kHeader + "1,0.5,10\n",
                {"--model=gpt-5"},
                "--model: must be one of qwen2.5-7b-instruct"},
        BadCase{"unknown_scheme",
                kHeader + "1,0.5,10\n",
                {"--scheme=best"},
                "--scheme: unknown scheme 'best'"},
        BadCase{"huge_context",
                kHeader + "1,0.5,10000001\n",
                {},
                "huge_context.csv:2: context_tokens must be in [1, 10000000]"},
        BadCase{"backhaul_above_range",
                kHeader + "1,0.5,10\n",
                {"--backhaulGbps=1000.5"},
                "--backhaulGbps: must be a number in (0, 1000]"},
        BadCase{"zero_backhaul",
                kHeader + "1,0.5,10\n",
                {"--backhaulGbps=0"},
                "--backhaulGbps: must be a number in (0, 1000]"},
        BadCase{"text_backhaul", kHeader + "1,0.5,10\n", {"--backhaulGbps=fast"}, "--backhaulGbps"},
        BadCase{"bad_kv_bits",
                kHeader + "1,0.5,10\n",
                {"--kvBits=12"},
                "--kvBits: must be in {16, 8, 4}"},
        // 2^32 + 16 would wrap to 16 as a uint32_t: refused on both sides of 2^32.
        BadCase{"kv_bits_wraps",
                kHeader + "1,0.5,10\n",
                {"--kvBits=4294967312"},
                "--kvBits: must be in {16, 8, 4}, got '4294967312'"},
        BadCase{"kv_bits_uint32_max",
                kHeader + "1,0.5,10\n",
                {"--kvBits=4294967295"},
                "--kvBits: must be in {16, 8, 4}, got 4294967295"},
        BadCase{"negative_slope", kHeader + "1,0.5,10\n", {"--prefillA=-1"}, "--prefillA"},
        BadCase{"empty_value", kHeader + "1,0.5,10\n", {"--model="}, "--model: missing value"},
        BadCase{"hex_time",
                kHeader + "1,0x10,10\n",
                {},
                "hex_time.csv:2: handover_time_s must be a number"},
        BadCase{"huge_batch_period",
                kHeader + "1,0.5,10\n",
                {"--batchPeriod=1e20"},
                "--batchPeriod: must be a number in [0, 1]"},
        BadCase{"huge_slope",
                kHeader + "1,0.5,10\n",
                {"--prefillA=1e301"},
                "--prefillA: must be a number in [0, 1]"},
        BadCase{"slot_fraction",
                "",
                {"--scheme=impactho-slot",
                 "--users=@user_id,context_tokens,received_fraction,M,k,tau\n1,4096,1.5,0.9,45,0."
                 "065\n"},
                "received_fraction must be in [0, 1]"},
        BadCase{
            "slot_tau",
            "",
            {"--scheme=impactho-slot",
             "--users=@user_id,context_tokens,received_fraction,M,k,tau\n1,4096,0.5,0.9,45,1\n"},
            "tau must be in (0, 1)"},
        BadCase{
            "slot_k",
            "",
            {"--scheme=pf-slot",
             "--users=@user_id,context_tokens,received_fraction,M,k,tau\n1,4096,0.5,0.9,0,0.1\n"},
            "k must be in (0, 10000]"},
        BadCase{
            "slot_fallback",
            "",
            {"--scheme=impactho-slot",
             "--fallback=maybe",
             "--users=@user_id,context_tokens,received_fraction,M,k,tau\n1,4096,0.5,0.9,45,0.1\n"},
            "--fallback: unknown fallback 'maybe'"},
        BadCase{"family_without_fit",
                kHeader + "1,0.5,10\n",
                {"--family=erf"},
                "--family: applies to --fit only"},
        BadCase{"users_for_ctho",
                kHeader + "1,0.5,10\n",
                {"--users=x.csv"},
                "--users: is for the slot schemes"},
        BadCase{"slot_for_ctho",
                kHeader + "1,0.5,10\n",
                {"--slot=abc"},
                "--slot: is for the slot schemes only"},
        BadCase{"fallback_for_ctho",
                kHeader + "1,0.5,10\n",
                {"--fallback=none"},
                "--fallback: is for the slot schemes only"},
        BadCase{"unknown_option",
                kHeader + "1,0.5,10\n",
                {"--speed=3"},
                "--speed: unknown option"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

} // namespace
