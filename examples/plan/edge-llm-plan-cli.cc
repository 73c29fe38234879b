/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-plan-cli.h"

#include "../common/program-options.h"

#include "ns3/accuracy-utility.h"
#include "ns3/command-line.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/llm-model-profile.h"
#include "ns3/prefill-time-model.h"
#include "ns3/slot-allocator.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

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
    const std::string valid =
        "valid schemes: ctho, tho, cho, impactho-slot, ea-slot, wta-slot, pf-slot";
    throw OptionError("scheme",
                      scheme.empty() ? "missing; " + valid
                                     : "unknown scheme '" + scheme + "'; " + valid);
}

/// Reject options CommandLine does not know, before it exits with its own code.
void
CheckOptionNames(int argc, char** argv, const std::set<std::string>& known)
{
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
        if (!known.count(name) && !IsCommandLineBuiltin(name))
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

LlmModelProfile
ProfileOption(const std::string& model, const std::string& kvBits)
{
    uint64_t q = 0;
    if (!EdgeLlmParseUnsigned(kvBits, q) || (q != 16 && q != 8 && q != 4))
    {
        throw OptionError("kvBits", "must be 16, 8 or 4, got '" + kvBits + "'");
    }
    try
    {
        return LlmModelProfile::FromPreset(model, static_cast<uint32_t>(q));
    }
    catch (const std::invalid_argument& e)
    {
        throw OptionError("model", e.what());
    }
}

/// --fit=FILE: least-squares sigmoid through fraction,accuracy points.
int
FitCli(const std::string& file, const std::string& family, std::ostream& out)
{
    AccuracyUtility::Family f;
    try
    {
        f = AccuracyUtility::ParseFamily(family);
    }
    catch (const std::invalid_argument& e)
    {
        throw OptionError("family", e.what());
    }
    const EdgeLlmCsvTable table(file, {"fraction", "accuracy"});
    std::vector<std::pair<double, double>> points;
    for (std::size_t r = 0; r < table.GetRowCount(); ++r)
    {
        points.emplace_back(table.GetDouble(r, "fraction", 0, 1),
                            table.GetDouble(r, "accuracy", 0, 1));
    }
    // A sigmoid needs the data to vary: at least three distinct fractions and more
    // than one accuracy.
    std::set<double> fractions;
    std::set<double> accuracies;
    for (const auto& [y, acc] : points)
    {
        fractions.insert(y);
        accuracies.insert(acc);
    }
    if (fractions.size() < 3 || accuracies.size() < 2)
    {
        throw EdgeLlmInputError(file,
                                0,
                                "the data do not determine a sigmoid: need at least 3 distinct "
                                "fractions and 2 distinct accuracies");
    }
    AccuracyUtility::FitResult fit;
    try
    {
        fit = AccuracyUtility::Fit(points, f);
    }
    catch (const std::invalid_argument& e)
    {
        throw EdgeLlmInputError(file,
                                0,
                                std::string("the data do not determine a valid sigmoid (") +
                                    e.what() + ")");
    }
    nlohmann::ordered_json j;
    j["family"] = family;
    j["M"] = fit.asymptote;
    j["k"] = fit.sharpness;
    j["tau"] = fit.inflection;
    j["r_squared"] = fit.rSquared;
    j["points"] = points.size();
    out << j.dump(2) << std::endl;
    return 0;
}

/// --scheme=*-slot: one ImpactHO backhaul slot (doc/edge-llm.rst, ImpactHO slot allocation).
int
SlotCli(const std::string& scheme,
        const std::string& usersFile,
        const std::string& model,
        const std::string& kvBits,
        const std::string& backhaulGbps,
        const std::string& slot,
        const std::string& fallback,
        const std::string& calibration,
        std::ostream& out)
{
    const LlmModelProfile profile = ProfileOption(model, kvBits);
    // --calibration: the users' utilities are the presets of their context lengths, so
    // the file has no M, k, tau.
    const bool presets = !calibration.empty();
    AccuracyUtility::Calibration cal = AccuracyUtility::HEADLINE;
    if (presets)
    {
        try
        {
            cal = AccuracyUtility::ParseCalibration(calibration);
        }
        catch (const std::invalid_argument& e)
        {
            throw OptionError("calibration", e.what());
        }
    }
    const double gbps =
        OptionDouble("backhaulGbps", backhaulGbps, 0, true, edgellm::MAX_BACKHAUL_GBPS);
    const double dt = OptionDouble("slot", slot, 0, true, 60);
    SlotAllocator::Fallback fb;
    try
    {
        fb = SlotAllocator::ParseFallback(fallback);
    }
    catch (const std::invalid_argument& e)
    {
        throw OptionError("fallback", e.what());
    }
    if (usersFile.empty())
    {
        throw OptionError("users",
                          "missing; a CSV file with user_id,context_tokens,received_fraction,"
                          "M,k,tau (without M,k,tau with --calibration)");
    }
    const EdgeLlmCsvTable table(
        usersFile,
        presets ? std::vector<std::string>{"user_id", "context_tokens", "received_fraction"}
                : std::vector<std::string>{"user_id",
                                           "context_tokens",
                                           "received_fraction",
                                           "M",
                                           "k",
                                           "tau"});
    std::vector<SlotUser> users;
    std::unordered_set<uint64_t> ids;
    for (std::size_t r = 0; r < table.GetRowCount(); ++r)
    {
        SlotUser u;
        u.userId = table.GetUnsigned(r, "user_id", 0, UINT64_MAX);
        if (!ids.insert(u.userId).second)
        {
            table.Fail(r, "user_id " + std::to_string(u.userId) + " appears twice");
        }
        const uint64_t context =
            table.GetUnsigned(r, "context_tokens", 1, edgellm::MAX_CONTEXT_TOKENS);
        u.cacheBits = static_cast<double>(context) * static_cast<double>(profile.BitsPerToken());
        u.received = table.GetDouble(r, "received_fraction", 0, 1);
        if (presets)
        {
            u.utility = AccuracyUtility::Preset(context, true, 0, cal);
        }
        else
        {
            u.utility.asymptote = table.GetDouble(r, "M", 0, 1, true);
            u.utility.sharpness = table.GetDouble(r, "k", 0, 1e4, true);
            u.utility.inflection = table.GetDouble(r, "tau", 0, 1, true, true);
        }
        users.push_back(u);
    }
    const double budget = gbps * 1e9 * dt;
    SlotAllocation a;
    if (scheme == "impactho-slot")
    {
        a = SlotAllocator::WaterFilling(users, budget, fb);
    }
    else if (scheme == "ea-slot")
    {
        a = SlotAllocator::EqualAllocation(users, budget);
    }
    else if (scheme == "wta-slot")
    {
        a = SlotAllocator::CascadingWta(users, budget);
    }
    else
    {
        a = SlotAllocator::ProportionalFair(users, budget);
    }
    nlohmann::ordered_json j;
    j["scheme"] = scheme;
    j["regime"] = a.regime == SlotAllocation::FALLBACK ? "fallback" : "water-filling";
    if (a.regime == SlotAllocation::BASELINE)
    {
        j["regime"] = "baseline";
    }
    j["price"] = std::isfinite(a.price) ? a.price : 0.0;
    j["budget_bits"] = a.budgetBits;
    j["users"] = nlohmann::ordered_json::array();
    double total = 0;
    for (std::size_t i = 0; i < users.size(); ++i)
    {
        nlohmann::ordered_json u;
        u["user_id"] = users[i].userId;
        u["received_fraction"] = users[i].received;
        u["target_fraction"] = a.target[i];
        u["accuracy"] = users[i].utility.Value(a.target[i]);
        total += users[i].utility.Value(a.target[i]);
        j["users"].push_back(u);
    }
    j["total_accuracy"] = total;
    out << j.dump(2) << std::endl;
    return 0;
}

} // namespace

int
EdgeLlmPlanCliMain(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    std::string scheme;
    std::string uesFile;
    std::string usersFile;
    std::string fitFile;
    std::string family; // --fit only; default algebraic
    std::string slot = "0.1";
    std::string fallback = "eb";
    std::string calibration; // slot schemes: utilities from the presets instead of M,k,tau
    std::string model;       // per scheme: qwen2.5-7b-instruct (ctHO), qwen3-8b (ImpactHO)
    std::string kvBits = "16";
    std::string backhaulGbps; // per scheme: 4.5 (ctHO), 20 (ImpactHO)
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
                          "users",
                          "fit",
                          "family",
                          "slot",
                          "fallback",
                          "calibration",
                          "model",
                          "kvBits",
                          "backhaulGbps",
                          "prefillA",
                          "prefillB",
                          "prefillC",
                          "batchPeriod"});
        CommandLine cmd("edge-llm-plan");
        // Every option is a string, checked below, and taken whole (a file name may
        // hold a blank).
        const auto addValue =
            [&cmd](const std::string& name, const std::string& help, std::string& value) {
                compat::AddStringValue(cmd, name, help, value);
            };
        cmd.Usage("Plans a batch of edge-LLM handovers (ctHO, tHO, cHO), one ImpactHO backhaul "
                  "slot (impactho-slot, ea-slot, wta-slot, pf-slot), or fits an accuracy "
                  "sigmoid (--fit), and prints JSON.");
        addValue("scheme",
                 "ctho | tho | cho | impactho-slot | ea-slot | wta-slot | pf-slot",
                 scheme);
        addValue("ues", "ctHO: CSV file ue_id,handover_time_s,context_tokens", uesFile);
        addValue("users",
                 "ImpactHO slot: CSV file user_id,context_tokens,received_fraction,M,k,tau",
                 usersFile);
        addValue("slot", "ImpactHO slot length, s, in (0, 60]", slot);
        addValue("fallback", "ImpactHO admission fallback: eb | wta | none", fallback);
        addValue("calibration",
                 "ImpactHO slot: take each user's utility from the Fast KVzip preset of its "
                 "context (headline | joint); the users file then has no M,k,tau",
                 calibration);
        addValue("fit", "Fit a sigmoid to a CSV file fraction,accuracy", fitFile);
        addValue("family", "Sigmoid family for --fit: algebraic | logistic | erf | arctan", family);
        addValue("model",
                 "LLM preset (KV geometry); default qwen2.5-7b-instruct for ctHO, qwen3-8b "
                 "for ImpactHO",
                 model);
        addValue("kvBits", "KV precision q in bits: 16, 8 or 4", kvBits);
        addValue("backhaulGbps",
                 "Backhaul rate, Gbit/s (1e9 bit/s), in (0, 1000]; default 4.5 (ctHO), 20 "
                 "(ImpactHO)",
                 backhaulGbps);
        addValue("prefillA", "Prefill slope a, s/token, >= 0", prefillA);
        addValue("prefillB",
                 "Prefill constant b, s, in [-3600, 3600] (p(L) is floored at 0)",
                 prefillB);
        addValue("prefillC", "Prefill quadratic coefficient c, s/token^2, >= 0", prefillC);
        addValue("batchPeriod", "Batching period T_c, s, >= 0", batchPeriod);
        cmd.Parse(argc, argv);

        const bool slotScheme = scheme == "impactho-slot" || scheme == "ea-slot" ||
                                scheme == "wta-slot" || scheme == "pf-slot";
        // An option that does not apply to the chosen mode is an error, not ignored.
        if (!fitFile.empty() && !scheme.empty())
        {
            throw OptionError("fit", "fits a sigmoid on its own; drop --scheme");
        }
        if (!family.empty() && fitFile.empty())
        {
            throw OptionError("family", "applies to --fit only (slot users are algebraic)");
        }
        if (!fitFile.empty())
        {
            return FitCli(fitFile, family.empty() ? "algebraic" : family, out);
        }
        if (slotScheme && !uesFile.empty())
        {
            throw OptionError("ues", "is for ctho, tho, cho; slot schemes take --users");
        }
        if (!slotScheme && !usersFile.empty())
        {
            throw OptionError("users", "is for the slot schemes; ctho, tho, cho take --ues");
        }
        // Options with a default that the chosen scheme does not read: given, they would
        // be ignored without a word.
        const auto given = [argc, argv](const std::string& name) {
            return ProgramOptions::Given(argc, argv, name);
        };
        for (const char* name : {"slot", "fallback", "calibration"})
        {
            if (!slotScheme && given(name))
            {
                throw OptionError(name,
                                  "is for the slot schemes only (impactho-slot, ea-slot, "
                                  "wta-slot, pf-slot)");
            }
        }
        if (slotScheme && scheme != "impactho-slot" && given("fallback"))
        {
            throw OptionError("fallback",
                              "is ImpactHO's admission fallback; for impactho-slot only (" +
                                  scheme + " has no admission)");
        }
        for (const char* name : {"prefillA", "prefillB", "prefillC", "batchPeriod"})
        {
            if (slotScheme && given(name))
            {
                throw OptionError(name, "is for ctho, tho, cho only (a slot plans no prefill)");
            }
        }
        if (model.empty())
        {
            model = slotScheme ? "qwen3-8b" : "qwen2.5-7b-instruct";
        }
        if (backhaulGbps.empty())
        {
            backhaulGbps = slotScheme ? "20" : "4.5";
        }
        if (slotScheme)
        {
            return SlotCli(scheme,
                           usersFile,
                           model,
                           kvBits,
                           backhaulGbps,
                           slot,
                           fallback,
                           calibration,
                           out);
        }
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
        const double gbps =
            OptionDouble("backhaulGbps", backhaulGbps, 0, true, edgellm::MAX_BACKHAUL_GBPS);
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
            ue.contextTokens =
                table.GetUnsigned(r, "context_tokens", 1, edgellm::MAX_CONTEXT_TOKENS);
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
