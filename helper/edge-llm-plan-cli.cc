/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-plan-cli.h"

#include "edge-llm-csv.h"

#include "ns3/command-line.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/llm-model-profile.h"
#include "ns3/prefill-time-model.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_set>

namespace ns3
{

namespace
{

/// A bad command-line option: "--option: what and the valid range".
class OptionError : public std::runtime_error
{
  public:
    OptionError(const std::string& option, const std::string& what)
        : std::runtime_error("--" + option + ": " + what)
    {
    }
};

/// A real option value in (min, max] (minOpen) or [min, max].
double
OptionDouble(const std::string& name, const std::string& text, double min, bool minOpen, double max)
{
    double v = 0;
    std::ostringstream range;
    range << (minOpen ? "(" : "[") << min << ", " << max << "]";
    if (!EdgeLlmParseDouble(text, v) || (minOpen ? v <= min : v < min) || v > max)
    {
        throw OptionError(name, "must be a number in " + range.str() + ", got '" + text + "'");
    }
    return v;
}

Ptr<HandoverScheduler>
MakeScheduler(const std::string& scheme)
{
    if (scheme == "ctho")
    {
        return CreateObject<CtHoScheduler>();
    }
    if (scheme == "tho")
    {
        return CreateObject<ThoScheduler>();
    }
    if (scheme == "cho")
    {
        return CreateObject<ChoScheduler>();
    }
    throw OptionError("scheme",
                      scheme.empty()
                          ? "missing; valid schemes: ctho, tho, cho"
                          : "unknown scheme '" + scheme + "'; valid schemes: ctho, tho, cho");
}

/// Reject options CommandLine does not know, before it exits with its own code.
void
CheckOptionNames(int argc, char** argv, const std::set<std::string>& known)
{
    static const std::set<std::string> builtin = {"help",
                                                  "PrintHelp",
                                                  "PrintGlobals",
                                                  "PrintGroups",
                                                  "PrintGroup",
                                                  "PrintTypeIds",
                                                  "PrintAttributes",
                                                  "PrintVersion",
                                                  "version"};
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0)
        {
            throw std::runtime_error("unexpected argument '" + arg +
                                     "'; options are --name=value (see --help)");
        }
        const auto eq = arg.find('=');
        const std::string name = arg.substr(2, eq == std::string::npos ? eq : eq - 2);
        if (known.count(name) && (eq == std::string::npos || eq + 1 == arg.size()))
        {
            throw OptionError(name, "missing value; write --" + name + "=VALUE");
        }
        if (!known.count(name) && !builtin.count(name))
        {
            std::string list;
            for (const auto& k : known)
            {
                list += " --" + k;
            }
            throw OptionError(name, "unknown option; valid options:" + list);
        }
    }
}

} // namespace

int
EdgeLlmPlanCliMain(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    std::string scheme;
    std::string uesFile;
    std::string model = "qwen2.5-7b-instruct";
    std::string kvBits = "16";
    std::string backhaulGbps = "4.5";
    std::string prefillA = "9.4267e-5";
    std::string prefillB = "2.4e-3";
    std::string prefillC = "0";
    std::string batchPeriod = "0.01";
    try
    {
        CheckOptionNames(argc,
                         argv,
                         {"scheme",
                          "ues",
                          "model",
                          "kvBits",
                          "backhaulGbps",
                          "prefillA",
                          "prefillB",
                          "prefillC",
                          "batchPeriod"});
        CommandLine cmd("edge-llm-plan");
        cmd.Usage("Plans a batch of edge-LLM handovers (ctHO, tHO or cHO) and prints JSON.");
        cmd.AddValue("scheme", "ctho | tho | cho", scheme);
        cmd.AddValue("ues", "CSV file: ue_id,handover_time_s,context_tokens", uesFile);
        cmd.AddValue("model", "LLM preset (KV geometry)", model);
        cmd.AddValue("kvBits", "KV precision q in bits: 16, 8 or 4", kvBits);
        cmd.AddValue("backhaulGbps", "Backhaul rate, Gbit/s (1e9 bit/s), > 0", backhaulGbps);
        cmd.AddValue("prefillA", "Prefill slope a, s/token, >= 0", prefillA);
        cmd.AddValue("prefillB",
                     "Prefill constant b, s, in [-3600, 3600] (p(L) is floored at 0)",
                     prefillB);
        cmd.AddValue("prefillC", "Prefill quadratic coefficient c, s/token^2, >= 0", prefillC);
        cmd.AddValue("batchPeriod", "Batching period T_c, s, >= 0", batchPeriod);
        cmd.Parse(argc, argv);

        Ptr<HandoverScheduler> scheduler = MakeScheduler(scheme);
        uint64_t q = 0;
        if (!EdgeLlmParseUnsigned(kvBits, q) || (q != 16 && q != 8 && q != 4))
        {
            throw OptionError("kvBits", "must be 16, 8 or 4, got '" + kvBits + "'");
        }
        LlmModelProfile profile;
        try
        {
            profile = LlmModelProfile::FromPreset(model, static_cast<uint32_t>(q));
        }
        catch (const std::invalid_argument& e)
        {
            throw OptionError("model", e.what());
        }
        // Ranges far beyond practice, so every result is finite (PrefillTimeModel's).
        const double gbps = OptionDouble("backhaulGbps", backhaulGbps, 0, true, 1e6);
        const double a = OptionDouble("prefillA", prefillA, 0, false, 1);
        const double b = OptionDouble("prefillB", prefillB, -3600, false, 3600);
        const double c = OptionDouble("prefillC", prefillC, 0, false, 1e-3);
        const double tc = OptionDouble("batchPeriod", batchPeriod, 0, false, 3600);
        if (uesFile.empty())
        {
            throw OptionError("ues",
                              "missing; a CSV file with ue_id,handover_time_s,context_tokens");
        }

        const EdgeLlmCsvTable table(uesFile, {"ue_id", "handover_time_s", "context_tokens"});
        std::vector<CtHoUe> ues;
        std::unordered_set<uint64_t> ids;
        for (std::size_t r = 0; r < table.GetRowCount(); ++r)
        {
            CtHoUe ue;
            ue.ueId = table.GetUnsigned(r, "ue_id", 0, UINT64_MAX);
            ue.handoverTime = table.GetDouble(r, "handover_time_s", 0, 1e9);
            ue.contextTokens = table.GetUnsigned(r, "context_tokens", 1, 100000000);
            if (!ids.insert(ue.ueId).second)
            {
                table.Fail(r, "ue_id " + std::to_string(ue.ueId) + " appears twice");
            }
            ues.push_back(ue);
        }

        const double rate = gbps * 1e9 / static_cast<double>(profile.BitsPerToken());
        const CtHoPlan plan = scheduler->PlanBatch(ues, rate, PrefillTimeModel(a, b, c), tc);
        if (!std::isfinite(plan.worstDelay))
        {
            throw std::runtime_error("the plan's delay is not a finite number; check the ranges");
        }

        nlohmann::ordered_json j;
        j["scheme"] = scheme;
        j["prefill_length"] = plan.prefillLength;
        j["worst_delay_s"] = plan.worstDelay;
        j["backhaul_tokens_per_s"] = plan.backhaulTokensPerSecond;
        j["ues"] = nlohmann::ordered_json::array();
        for (const auto& ue : plan.ues)
        {
            nlohmann::ordered_json u;
            u["ue_id"] = ue.ueId;
            u["handover_time_s"] = ue.handoverTime;
            u["context_tokens"] = ue.contextTokens;
            u["prefill_tokens"] = ue.prefillTokens;
            u["transfer_tokens"] = ue.transferTokens;
            u["prefill_done_s"] = ue.prefillDone;
            u["transfer_done_s"] = ue.transferDone;
            u["delay_s"] = ue.delay;
            j["ues"].push_back(u);
        }
        out << j.dump(2) << std::endl;
        return 0;
    }
    catch (const std::exception& e)
    {
        err << "error: " << e.what() << std::endl;
        return 2;
    }
}

} // namespace ns3
