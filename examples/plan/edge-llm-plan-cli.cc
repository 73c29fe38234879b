/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-plan-cli.h"

#include "../common/program-options.h"

#include "ns3/accuracy-utility.h"
#include "ns3/command-line.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/enum.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/llm-model-profile.h"
#include "ns3/object-factory.h"
#include "ns3/prefill-time-model.h"
#include "ns3/slot-allocator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <limits>
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

/// \return whether --scheme=<name> plans a batch of \p s (a batch policy on its own)
bool
PlansBatch(const HandoverScheme& s)
{
    return s.batchPlan && !s.wrapsInner && !s.targetCoordinated;
}

/// \return whether --scheme=<name>-slot shares one slot by \p s (a slot policy on its own)
bool
SharesSlot(const HandoverScheme& s)
{
    return s.slotPolicy && !s.wrapsInner;
}

/// \return the --scheme name of \p s: a batch policy's name, a slot policy's with "-slot"
std::string
CliName(const HandoverScheme& s)
{
    return s.name + (SharesSlot(s) ? "-slot" : "");
}

/**
 * \param filter the schemes wanted (PlansBatch, SharesSlot or a narrower one)
 * \param separator what goes between two names
 * \param describe add each one's description in parentheses
 * \return their --scheme names (CliName())
 */
std::string
CliNames(const HandoverSchemeRegistry::Filter& filter,
         const std::string& separator = ", ",
         bool describe = false)
{
    std::string names;
    for (const HandoverScheme& s : HandoverSchemeRegistry::Select(filter))
    {
        names += (names.empty() ? "" : separator) + CliName(s) +
                 (describe ? " (" + s.description + ")" : std::string());
    }
    return names;
}

/// \return whether the CLI offers \p s at all
bool
OnTheCli(const HandoverScheme& s)
{
    return PlansBatch(s) || SharesSlot(s);
}

/**
 * \param cliName a --scheme value
 * \return the registry's scheme it names
 * \throws OptionError for a missing or unknown name, listing the valid ones
 */
const HandoverScheme&
FindCliScheme(const std::string& cliName)
{
    for (const HandoverScheme& s : HandoverSchemeRegistry::GetAll())
    {
        if (OnTheCli(s) && cliName == CliName(s))
        {
            return s;
        }
    }
    const std::string valid = "valid schemes: " + CliNames(OnTheCli);
    throw OptionError("scheme",
                      cliName.empty() ? "missing; " + valid
                                      : "unknown scheme '" + cliName + "'; " + valid);
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
    // Whether q is one of the KV precisions is the profile's to check (FromPreset).
    uint64_t q = 0;
    if (!EdgeLlmParseUnsigned(kvBits, q) || q > std::numeric_limits<uint32_t>::max())
    {
        throw OptionError("kvBits",
                          "must be in " + LlmModelProfile::KvBitsRange() + ", got '" + kvBits +
                              "'");
    }
    try
    {
        return LlmModelProfile::FromPreset(model, static_cast<uint32_t>(q));
    }
    catch (const std::invalid_argument& e)
    {
        // The profile names its field ("kvBits must be ...", "model must be one of ..."):
        // "--kvBits: must be ...".
        const std::string what = e.what();
        for (const std::string knob : {"kvBits", "model"})
        {
            if (what.rfind(knob + " ", 0) == 0)
            {
                throw OptionError(knob, what.substr(knob.size() + 1));
            }
        }
        throw OptionError("model", what);
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

/**
 * \param value --allowBeyondContextWindow's value
 * \return whether it allows contexts beyond the model's window
 * \throws OptionError unless it is 0 or 1
 */
bool
AllowBeyondOption(const std::string& value)
{
    if (value != "0" && value != "1")
    {
        throw OptionError("allowBeyondContextWindow", "must be 0 or 1, got '" + value + "'");
    }
    return value == "1";
}

/**
 * \brief Refuse row \p r's context beyond the model's window (LlmModelProfile::CheckContext).
 * \param table the file
 * \param r the row
 * \param profile the model
 * \param context the row's context_tokens
 * \param allowBeyond --allowBeyondContextWindow
 * \throws std::invalid_argument "FILE:LINE: context_tokens = ... exceeds ..."
 */
void
CheckRowContext(const EdgeLlmCsvTable& table,
                std::size_t r,
                const LlmModelProfile& profile,
                uint64_t context,
                bool allowBeyond)
{
    try
    {
        profile.CheckContext("context_tokens", context, allowBeyond);
    }
    catch (const std::invalid_argument& e)
    {
        table.Fail(r, e.what());
    }
}

/// Add LlmModelProfile::BeyondContextNote(\p longest) to \p j as "note", if any.
void
AddContextNote(nlohmann::ordered_json& j, const LlmModelProfile& profile, uint64_t longest)
{
    const std::string note = profile.BeyondContextNote(longest);
    if (!note.empty())
    {
        j["note"] = note;
    }
}

/// --scheme=*-slot: one ImpactHO backhaul slot (doc/edge-llm-design.rst, ImpactHO slot allocation).
int
SlotCli(const std::string& scheme,
        const std::string& usersFile,
        const std::string& model,
        const std::string& kvBits,
        const std::string& backhaulGbps,
        const std::string& slot,
        const std::string& fallback,
        const std::string& calibration,
        bool allowBeyond,
        std::ostream& out)
{
    const LlmModelProfile profile = ProfileOption(model, kvBits);
    uint64_t longest = 0;
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
        CheckRowContext(table, r, profile, context, allowBeyond);
        longest = std::max(longest, context);
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
    // The scheme's policy (HandoverSchemeRegistry, with the scheme's attributes) shares the
    // slot, asked through the base class.
    const HandoverScheme& slotScheme = FindCliScheme(scheme);
    ObjectFactory factory(slotScheme.typeId);
    HandoverSchemeRegistry::SetAttributes(factory, slotScheme.attributes);
    Ptr<HandoverScheduler> policy = factory.Create<HandoverScheduler>();
    NS_ABORT_MSG_UNLESS(policy->AllocatesSlots(), scheme << ": a slot scheme shares slots");
    policy->SetAttribute("Fallback", EnumValue(fb));
    const SlotAllocation a = policy->AllocateSlot(users, budget);
    nlohmann::ordered_json j;
    j["scheme"] = scheme;
    j["regime"] = a.regime == SlotAllocation::FALLBACK ? "fallback" : "water-filling";
    if (a.regime == SlotAllocation::BASELINE)
    {
        j["regime"] = "baseline";
    }
    j["price"] = std::isfinite(a.price) ? a.price : 0.0;
    j["budget_bits"] = a.budgetBits;
    AddContextNote(j, profile, longest);
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

/// The command's options, each a string checked where it is read (a file name may hold a
/// blank, so each is taken whole).
struct PlanOptions
{
    std::string scheme;                        //!< --scheme
    std::string uesFile;                       //!< --ues
    std::string usersFile;                     //!< --users
    std::string fitFile;                       //!< --fit
    std::string family;                        //!< --family (--fit only; default algebraic)
    std::string slot{"0.1"};                   //!< --slot
    std::string fallback{"eb"};                //!< --fallback
    std::string calibration;                   //!< --calibration (slot schemes)
    std::string model;                         //!< --model (default per scheme)
    std::string kvBits{"16"};                  //!< --kvBits
    std::string backhaulGbps;                  //!< --backhaulGbps (default per scheme)
    std::string prefillA{"9.4267e-5"};         //!< --prefillA
    std::string prefillB{"2.4e-3"};            //!< --prefillB
    std::string prefillC{"0"};                 //!< --prefillC
    std::string batchPeriod{"0.01"};           //!< --batchPeriod
    std::string allowBeyondContextWindow{"0"}; //!< --allowBeyondContextWindow (0 or 1)
};

/**
 * \brief Parse the command line into the options (unchecked values).
 * \param argc as for main()
 * \param argv as for main()
 * \param o the options, filled
 * \throws OptionError for an unknown option
 */
void
ParseOptions(int argc, char** argv, PlanOptions& o)
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
                      "batchPeriod",
                      "allowBeyondContextWindow"});
    CommandLine cmd("edge-llm-plan");
    const auto addValue =
        [&cmd](const std::string& name, const std::string& help, std::string& value) {
            compat::AddStringValue(cmd, name, help, value);
        };
    cmd.Usage("Plans a batch of edge-LLM handovers (" + CliNames(PlansBatch) +
              "), one ImpactHO backhaul slot (" + CliNames(SharesSlot) +
              "), or fits an accuracy sigmoid (--fit), and prints JSON.");
    addValue("scheme", CliNames(OnTheCli, " | ") + "; " + CliNames(OnTheCli, "; ", true), o.scheme);
    addValue("ues", "ctHO: CSV file ue_id,handover_time_s,context_tokens", o.uesFile);
    addValue("users",
             "ImpactHO slot: CSV file user_id,context_tokens,received_fraction,M,k,tau",
             o.usersFile);
    addValue("slot", "ImpactHO slot length, s, in (0, 60]", o.slot);
    addValue("fallback", "ImpactHO admission fallback: eb | wta | none", o.fallback);
    addValue("calibration",
             "ImpactHO slot: take each user's utility from the Fast KVzip preset of its "
             "context (headline | joint); the users file then has no M,k,tau",
             o.calibration);
    addValue("fit", "Fit a sigmoid to a CSV file fraction,accuracy", o.fitFile);
    addValue("family", "Sigmoid family for --fit: algebraic | logistic | erf | arctan", o.family);
    addValue("model",
             "LLM preset (KV geometry); default qwen2.5-7b-instruct for ctHO, qwen3-8b "
             "for ImpactHO",
             o.model);
    addValue("kvBits", "KV precision q in bits: 16, 8 or 4", o.kvBits);
    addValue("backhaulGbps",
             "Backhaul rate, Gbit/s (1e9 bit/s), in (0, 1000]; default 4.5 (ctHO), 20 "
             "(ImpactHO)",
             o.backhaulGbps);
    addValue("prefillA", "Prefill slope a, s/token, >= 0", o.prefillA);
    addValue("prefillB",
             "Prefill constant b, s, in [-3600, 3600] (p(L) is floored at 0)",
             o.prefillB);
    addValue("prefillC", "Prefill quadratic coefficient c, s/token^2, >= 0", o.prefillC);
    addValue("batchPeriod", "Batching period T_c, s, in [0, 1]", o.batchPeriod);
    addValue("allowBeyondContextWindow",
             "1: accept contexts beyond the model's context window (the JSON's note says so); "
             "0 (default): refuse them",
             o.allowBeyondContextWindow);
    cmd.Parse(argc, argv);
}

/**
 * \brief Refuse an option that does not apply to the chosen scheme (given, it would be
 *        ignored without a word). --fit's own pair (--fit with --scheme, --family without
 *        --fit) is checked before.
 * \param argc as for main()
 * \param argv as for main()
 * \param o the options
 * \throws OptionError naming the option and the schemes it is for
 */
void
CheckSchemeOptions(int argc, char** argv, const PlanOptions& o)
{
    const HandoverScheme& scheme = FindCliScheme(o.scheme);
    const bool slotScheme = SharesSlot(scheme);
    const std::string batchNames = CliNames(PlansBatch);
    if (slotScheme && !o.uesFile.empty())
    {
        throw OptionError("ues", "is for " + batchNames + "; slot schemes take --users");
    }
    if (!slotScheme && !o.usersFile.empty())
    {
        throw OptionError("users", "is for the slot schemes; " + batchNames + " take --ues");
    }
    const auto given = [argc, argv](const std::string& name) {
        return ProgramOptions::Given(argc, argv, name);
    };
    for (const char* name : {"slot", "fallback", "calibration"})
    {
        if (!slotScheme && given(name))
        {
            throw OptionError(name, "is for the slot schemes only (" + CliNames(SharesSlot) + ")");
        }
    }
    if (slotScheme && !scheme.admissionFallback && given("fallback"))
    {
        throw OptionError("fallback",
                          "is ImpactHO's admission fallback; for " +
                              CliNames([](const HandoverScheme& s) {
                                  return SharesSlot(s) && s.admissionFallback;
                              }) +
                              " only (" + o.scheme + " has no admission)");
    }
    for (const char* name : {"prefillA", "prefillB", "prefillC", "batchPeriod"})
    {
        if (slotScheme && given(name))
        {
            throw OptionError(name, "is for " + batchNames + " only (a slot plans no prefill)");
        }
    }
}

/**
 * \brief Read the --ues file: one handover per row, ue_id unique, each context within the
 *        model's window (LlmModelProfile::CheckContext) unless allowed.
 * \param file the CSV file (ue_id,handover_time_s,context_tokens)
 * \param profile the model
 * \param allowBeyond --allowBeyondContextWindow
 * \return the UEs in the file's order
 * \throws std::invalid_argument "FILE:LINE: what and the valid range"
 */
std::vector<CtHoUe>
ReadUes(const std::string& file, const LlmModelProfile& profile, bool allowBeyond)
{
    const EdgeLlmCsvTable table(file, {"ue_id", "handover_time_s", "context_tokens"});
    std::vector<CtHoUe> ues;
    std::unordered_set<uint64_t> ids;
    for (std::size_t r = 0; r < table.GetRowCount(); ++r)
    {
        CtHoUe ue;
        ue.ueId = table.GetUnsigned(r, "ue_id", 0, UINT64_MAX);
        ue.handoverTime = table.GetDouble(r, "handover_time_s", 0, 1e9);
        ue.contextTokens = table.GetUnsigned(r, "context_tokens", 1, edgellm::MAX_CONTEXT_TOKENS);
        CheckRowContext(table, r, profile, ue.contextTokens, allowBeyond);
        if (!ids.insert(ue.ueId).second)
        {
            table.Fail(r, "ue_id " + std::to_string(ue.ueId) + " appears twice");
        }
        ues.push_back(ue);
    }
    return ues;
}

/**
 * \brief The batch mode (ctho, tho, cho): check the model and link options, read the UEs,
 *        plan the batch and print it as JSON.
 * \param o the options (model and backhaulGbps defaulted)
 * \param out where the JSON goes
 * \return 0
 * \throws OptionError, std::invalid_argument or std::runtime_error for bad input
 */
int
BatchCli(const PlanOptions& o, std::ostream& out)
{
    Ptr<HandoverScheduler> scheduler = HandoverSchemeRegistry::Create(FindCliScheme(o.scheme).name);
    const LlmModelProfile profile = ProfileOption(o.model, o.kvBits);
    // Ranges far beyond practice, so every result is finite (PrefillTimeModel's).
    const double gbps =
        OptionDouble("backhaulGbps", o.backhaulGbps, 0, true, edgellm::MAX_BACKHAUL_GBPS);
    const double a = OptionDouble("prefillA", o.prefillA, 0, false, 1);
    const double b = OptionDouble("prefillB", o.prefillB, -3600, false, 3600);
    const double c = OptionDouble("prefillC", o.prefillC, 0, false, 1e-3);
    const double tc =
        OptionDouble("batchPeriod", o.batchPeriod, 0, false, edgellm::MAX_BATCH_PERIOD_S);
    if (o.uesFile.empty())
    {
        throw OptionError("ues", "missing; a CSV file with ue_id,handover_time_s,context_tokens");
    }
    const bool allowBeyond = AllowBeyondOption(o.allowBeyondContextWindow);
    const std::vector<CtHoUe> ues = ReadUes(o.uesFile, profile, allowBeyond);
    uint64_t longest = 0;
    for (const CtHoUe& ue : ues)
    {
        longest = std::max(longest, ue.contextTokens);
    }

    const double rate = gbps * 1e9 / static_cast<double>(profile.BitsPerToken());
    const CtHoPlan plan = scheduler->PlanBatch(ues, rate, PrefillTimeModel(a, b, c), tc);
    if (!std::isfinite(plan.worstDelay))
    {
        throw std::runtime_error("the plan's delay is not a finite number; check the ranges");
    }
    nlohmann::ordered_json j;
    j["scheme"] = o.scheme;
    j["prefill_length"] = plan.prefillLength;
    j["worst_delay_s"] = plan.worstDelay;
    j["backhaul_tokens_per_s"] = plan.backhaulTokensPerSecond;
    AddContextNote(j, profile, longest);
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

} // namespace

int
EdgeLlmPlanCliMain(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    try
    {
        PlanOptions o;
        ParseOptions(argc, argv, o);
        // An option that does not apply to the chosen mode is an error, not ignored.
        if (!o.fitFile.empty() && !o.scheme.empty())
        {
            throw OptionError("fit", "fits a sigmoid on its own; drop --scheme");
        }
        if (!o.family.empty() && o.fitFile.empty())
        {
            throw OptionError("family", "applies to --fit only (slot users are algebraic)");
        }
        if (!o.fitFile.empty())
        {
            return FitCli(o.fitFile, o.family.empty() ? "algebraic" : o.family, out);
        }
        CheckSchemeOptions(argc, argv, o);
        const bool slotScheme = SharesSlot(FindCliScheme(o.scheme));
        if (o.model.empty())
        {
            o.model = slotScheme ? "qwen3-8b" : "qwen2.5-7b-instruct";
        }
        if (o.backhaulGbps.empty())
        {
            o.backhaulGbps = slotScheme ? "20" : "4.5";
        }
        if (slotScheme)
        {
            return SlotCli(o.scheme,
                           o.usersFile,
                           o.model,
                           o.kvBits,
                           o.backhaulGbps,
                           o.slot,
                           o.fallback,
                           o.calibration,
                           AllowBeyondOption(o.allowBeyondContextWindow),
                           out);
        }
        return BatchCli(o, out);
    }
    catch (const std::exception& e)
    {
        err << "error: " << e.what() << std::endl;
        return 2;
    }
}

} // namespace ns3
