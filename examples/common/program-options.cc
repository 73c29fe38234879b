/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "program-options.h"

#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{

namespace
{

/**
 * \param tid a TypeId
 * \param attribute an attribute name \p tid does not have
 * \return for ns3::EdgeLlmNode, the TypeId name of its part (EdgeLlmNode::GetParts) that has
 *         \p attribute (the attributes moved there in 0.8.0); "" otherwise
 */
std::string
EdgeLlmNodePartOf(TypeId tid, const std::string& attribute)
{
    if (tid != EdgeLlmNode::GetTypeId())
    {
        return "";
    }
    for (const auto& [name, part] : EdgeLlmNode::GetParts())
    {
        TypeId::AttributeInformation info;
        if (part.LookupAttributeByName(attribute, &info))
        {
            return part.GetName();
        }
    }
    return "";
}

/**
 * \param bound one end of ns-3's Time checker range, e.g. "+3.6e+12ns"
 * \param[out] seconds its value in seconds
 * \return false if it is not a number of ns
 */
bool
NanoSecondsText(const std::string& bound, double& seconds)
{
    const char* begin = bound.c_str();
    char* end = nullptr;
    const double ns = std::strtod(begin, &end);
    if (end == begin || std::string(end) != "ns" || !std::isfinite(ns))
    {
        return false;
    }
    seconds = ns * 1e-9;
    return true;
}

/// The checker's description of the valid values, e.g. "uint32_t 1024:16777216", "Tcp|Udp",
/// "a time in [0, 3600] s".
std::string
ValidValues(Ptr<const AttributeChecker> checker)
{
    if (checker->GetUnderlyingTypeInformation() == "bool")
    {
        return "true or false (or 1 or 0)"; // the text program options say for a bool
    }
    const std::string range = checker->GetUnderlyingTypeInformation();
    // ns-3 states a Time range in ns ("Time +0ns:+3.6e+12ns"): say it in seconds.
    const std::string timePrefix = "Time ";
    const std::string::size_type colon = range.find(':');
    double low = 0;
    double high = 0;
    if (range.rfind(timePrefix, 0) == 0 && colon != std::string::npos &&
        NanoSecondsText(range.substr(timePrefix.size(), colon - timePrefix.size()), low) &&
        NanoSecondsText(range.substr(colon + 1), high))
    {
        std::ostringstream text;
        text << "a time in [" << low << ", " << high << "] s (e.g. 250ms, 1.5s)";
        return text.str();
    }
    return range.empty() ? checker->GetValueTypeName() : range;
}

/**
 * CommandLine's syntax: -name or --name, then =value or nothing ("").
 * \param arg one argument as main() got it
 * \param[out] name the option's name, without dashes
 * \param[out] value its value ("" if none)
 * \return false for a non-option argument (no leading dash)
 */
bool
SplitArgument(const std::string& arg, std::string& name, std::string& value)
{
    const std::size_t dashes = arg.rfind("--", 0) == 0 ? 2 : arg.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes == 0)
    {
        return false;
    }
    const std::string::size_type eq = arg.find('=', dashes);
    name = arg.substr(dashes, eq == std::string::npos ? std::string::npos : eq - dashes);
    value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    return true;
}

/**
 * Whether \p checker accepts \p value. ns-3's value parsers abort on some malformed text
 * (e.g. "abc" for an integer: "Attribute value ... is not properly formatted") instead of
 * failing, so the parse runs in a child process: a child that aborts is a refusal.
 */
bool
AcceptsValue(Ptr<const AttributeChecker> checker, const std::string& value)
{
    if (checker->GetValueTypeName() == "ns3::TimeValue")
    {
        // ns-3's Time is an int64 of nanoseconds: "1e300s" wraps and may then pass the
        // range check. Refuse magnitudes past about 292 years up front.
        static const std::map<std::string, double> unitSeconds = {{"", 1},
                                                                  {"s", 1},
                                                                  {"ms", 1e-3},
                                                                  {"us", 1e-6},
                                                                  {"ns", 1e-9},
                                                                  {"ps", 1e-12},
                                                                  {"fs", 1e-15},
                                                                  {"min", 60},
                                                                  {"h", 3600},
                                                                  {"d", 86400},
                                                                  {"y", 365 * 86400.0}};
        char* end = nullptr;
        const double number = std::strtod(value.c_str(), &end);
        const auto unit = unitSeconds.find(end ? std::string(end) : std::string());
        if (end != value.c_str() && unit != unitSeconds.end() &&
            !(std::isfinite(number) && std::fabs(number * unit->second) <= 9.2e9))
        {
            return false;
        }
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = fork();
    if (child == 0)
    {
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
        {
            dup2(null, STDERR_FILENO);
            dup2(null, STDOUT_FILENO);
        }
        _exit(checker->CreateValidValue(StringValue(value)) ? 0 : 1);
    }
    if (child < 0)
    {
        return static_cast<bool>(checker->CreateValidValue(StringValue(value)));
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
    {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// Why --ns3::Type::Attribute=value would not take effect ("" if it would).
std::string
AttributeArgumentProblem(const std::string& name,
                         const std::string& value,
                         const std::map<std::string, std::string>& setByProgram,
                         const TypesUnused& unused)
{
    const std::string::size_type sep = name.rfind("::");
    const std::string tidName = name.substr(0, sep);
    const std::string attribute = sep == std::string::npos ? "" : name.substr(sep + 2);
    TypeId tid;
    if (sep == std::string::npos || sep == 3 || !TypeId::LookupByNameFailSafe(tidName, &tid))
    {
        return "no TypeId '" + tidName +
               "' in this program (write --ns3::Type::Attribute=value; --PrintTypeIds lists the "
               "types)";
    }
    for (uint32_t j = 0; j < tid.GetAttributeN(); ++j)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(j);
        if (info.name != attribute)
        {
            continue;
        }
        // A type the program never builds: the value is checked, then refused as unused
        // (whether or not the program would set the attribute, were the type built).
        const auto notBuilt = unused.find(tidName);
        const auto set = setByProgram.find(name);
        if (set != setByProgram.end() && notBuilt == unused.end())
        {
            return "this program sets this attribute itself, so the value would be ignored; " +
                   set->second;
        }
        if (!(info.flags & TypeId::ATTR_CONSTRUCT))
        {
            return "attribute " + attribute + " of " + tidName + " has no initial value to set";
        }
        if (!AcceptsValue(info.checker, value))
        {
            return "invalid value '" + value + "'; valid: " + ValidValues(info.checker);
        }
        return notBuilt == unused.end() ? "" : "not used: " + notBuilt->second;
    }
    // Config::SetDefault sets only the TypeId's own attributes: name the parent's.
    for (TypeId parent = tid.GetParent(); parent != tid; tid = parent, parent = tid.GetParent())
    {
        for (uint32_t j = 0; j < parent.GetAttributeN(); ++j)
        {
            if (parent.GetAttribute(j).name == attribute)
            {
                return attribute + " is an attribute of " + parent.GetName() + ", not of " +
                       tidName + "; write --" + parent.GetName() + "::" + attribute + "=...";
            }
        }
    }
    TypeId::LookupByNameFailSafe(tidName, &tid);
    if (const std::string part = EdgeLlmNodePartOf(tid, attribute); !part.empty())
    {
        return tidName + " has no attribute '" + attribute + "': it moved to " + part +
               "; write --" + part + "::" + attribute + "=...";
    }
    std::string valid;
    for (uint32_t j = 0; j < tid.GetAttributeN(); ++j)
    {
        valid += (valid.empty() ? "" : ", ") + tid.GetAttribute(j).name;
    }
    return tidName + " has no attribute '" + attribute +
           "'; its own attributes: " + (valid.empty() ? std::string("none") : valid);
}

/// Why --name=value for a global value would not take effect ("" if it would, or if
/// \p name is no global value).
std::string
GlobalArgumentProblem(const std::string& name, const std::string& value)
{
    for (auto g = GlobalValue::Begin(); g != GlobalValue::End(); ++g)
    {
        if ((*g)->GetName() != name)
        {
            continue;
        }
        Ptr<const AttributeChecker> checker = (*g)->GetChecker();
        if (!AcceptsValue(checker, value))
        {
            return "invalid value '" + value + "'; valid: " + ValidValues(checker);
        }
        try
        {
            if (name == "SimulatorImplementationType")
            {
                RequireTypeId(name, value, "ns3::SimulatorImpl");
            }
            else if (name == "SchedulerType")
            {
                RequireTypeId(name, value, "ns3::Scheduler");
            }
        }
        catch (const std::invalid_argument& e)
        {
            return e.what();
        }
        return "";
    }
    return "";
}

/**
 * \brief CheckPacketPreTransfer() for one policy's pre-transfer settings.
 * \param pre the settings (HandoverScheduler::GetPreTransfer())
 * \param scripted the handovers are scripted
 * \param err where the one-line "error: ..." goes
 * \return false after writing it
 */
bool
CheckPreTransferSettings(const PreTransferSettings& pre, bool scripted, std::ostream& err)
{
    if (!pre.yieldToHandovers)
    {
        err << "error: --ns3::PreTransferScheduler::YieldToHandovers=false is modelled at flow "
               "level only (edge-llm-pre-transfer); at packet level a pre-transfer uses idle "
               "capacity (true)"
            << std::endl;
        return false;
    }
    if (pre.trigger == PreTransferSettings::PREDICTED_CROSSING && !scripted)
    {
        err << "error: --ns3::PreTransferScheduler::Trigger=PredictedCrossing needs scripted "
               "handovers (their crossings are the predicted ones); with an automatic handover "
               "algorithm use A3Entering"
            << std::endl;
        return false;
    }
    return true;
}

} // namespace

TypesUnused
FlowLevelTypesUnused(const std::string& why, const std::set<std::string>& used)
{
    const TypeId scheduler = TypeId::LookupByName("ns3::HandoverScheduler");
    TypesUnused unused;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if (tid.GetGroupName() == "EdgeLlm" && tid.GetAttributeN() > 0 &&
            !tid.IsChildOf(scheduler) && tid != scheduler && !used.count(tid.GetName()))
        {
            unused[tid.GetName()] = why;
        }
    }
    return unused;
}

bool
CheckAttributeArguments(int argc,
                        char* argv[],
                        const std::map<std::string, std::string>& setByProgram,
                        std::ostream& err,
                        const TypesUnused& unused)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (!SplitArgument(argv[i], name, value))
        {
            continue; // a non-option argument: CommandLine's business
        }
        const std::string problem =
            name.rfind("ns3::", 0) == 0
                ? AttributeArgumentProblem(name, value, setByProgram, unused)
                : GlobalArgumentProblem(name, value);
        if (!problem.empty())
        {
            err << "error: " << argv[i] << ": " << problem << std::endl;
            return false;
        }
    }
    return true;
}

bool
CheckPacketPreTransfer(const std::vector<HandoverScheme>& schemes, bool scripted, std::ostream& err)
{
    for (const HandoverScheme& scheme : schemes)
    {
        const std::optional<PreTransferSettings> pre =
            HandoverSchemeRegistry::Create(scheme.name)->GetPreTransfer();
        if (pre && !CheckPreTransferSettings(*pre, scripted, err))
        {
            return false;
        }
    }
    return true;
}

ProgramOptions::ProgramOptions(CommandLine& cmd)
    : m_cmd(cmd)
{
}

std::string
ProgramOptions::CheckBool(const std::string& v)
{
    for (const char* ok : {"", "1", "0", "true", "false"})
    {
        if (v == ok)
        {
            return "";
        }
    }
    return "must be true or false (or 1 or 0)";
}

std::string
ProgramOptions::CheckInteger(const std::string& v, bool isSigned, long double lo, long double hi)
{
    std::size_t first = 0;
    if (isSigned && !v.empty() && (v[0] == '-' || v[0] == '+'))
    {
        first = 1;
    }
    if (first == v.size() || v.find_first_not_of("0123456789", first) != std::string::npos)
    {
        return isSigned ? "must be an integer" : "must be a whole number (digits only)";
    }
    // Compare as long double only past 18 digits: below that the text is exact in it.
    const long double x = std::strtold(v.c_str(), nullptr);
    std::ostringstream beyond;
    beyond << std::fixed << std::setprecision(0);
    if (x < lo)
    {
        beyond << "must be an integer of at least " << lo << " (the option's type)";
        return beyond.str();
    }
    if (x > hi)
    {
        beyond << "must be an integer of at most " << hi << " (the option's type)";
        return beyond.str();
    }
    return "";
}

std::string
ProgramOptions::CheckReal(const std::string& v)
{
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(x))
    {
        return "must be a finite number";
    }
    return "";
}

bool
IsCommandLineBuiltin(const std::string& name)
{
    static const std::set<std::string> builtin = {"PrintHelp",
                                                  "help",
                                                  "PrintGlobals",
                                                  "PrintGroups",
                                                  "PrintGroup",
                                                  "PrintTypeIds",
                                                  "PrintAttributes",
                                                  "PrintVersion",
                                                  "version"};
    return builtin.count(name) > 0;
}

bool
ProgramOptions::Given(int argc, char* argv[], const std::string& name)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        for (const std::string& prefix : {"--" + name, "-" + name})
        {
            if (arg == prefix || arg.rfind(prefix + "=", 0) == 0)
            {
                return true;
            }
        }
    }
    return false;
}

bool
ProgramOptions::Check(int argc, char* argv[], std::ostream& err) const
{
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (!SplitArgument(argv[i], name, value))
        {
            err << "error: '" << argv[i] << "': unexpected argument; options are --name=value"
                << std::endl;
            return false;
        }
        if (name.rfind("ns3::", 0) == 0 || IsCommandLineBuiltin(name))
        {
            continue; // CheckAttributeArguments, or ns-3's own
        }
        StringValue unused;
        if (GlobalValue::GetValueByNameFailSafe(name, unused))
        {
            continue; // a global value, e.g. --RngRun (CheckAttributeArguments)
        }
        const auto check = m_checks.find(name);
        if (check == m_checks.end())
        {
            err << "error: --" << name << ": unknown option; valid:";
            for (const auto& [option, f] : m_checks)
            {
                err << " --" << option;
            }
            err << ", the --Print... options and --ns3::Type::Attribute=value" << std::endl;
            return false;
        }
        const std::string problem = check->second(value);
        if (!problem.empty())
        {
            err << "error: --" << name << "=" << value << ": " << problem << std::endl;
            return false;
        }
    }
    return true;
}

std::map<std::string, std::string>
ProgramKnobOptions(ScenarioProgram program)
{
    struct Row
    {
        const char* knob;    // the engine config's knob
        const char* road;    // its option on the road ("": none)
        const char* study;   // in the backhaul study
        const char* figures; // in ctho-figures (its packet-level points)
        const char* pre;     // in edge-llm-pre-transfer (its road draw)
    };

    static const Row rows[] = {
        {"model", "model", "model", "", ""},
        {"kvBits", "kvBits", "kvBits", "", ""},
        {"decodeRate", "decodeRate", "decodeRate", "", "decodeRate"},
        {"servingGpu", "servingGpu", "servingGpu", "", ""},
        {"prefillA", "prefillA", "prefillA", "prefillA", ""},
        {"prefillB", "prefillB", "prefillB", "", ""},
        {"prefillC", "prefillC", "prefillC", "", ""},
        {"batchPeriod", "batchPeriodMs", "batchPeriodMs", "", ""},
        {"lookahead", "lookaheadMs", "", "", ""},
        {"tokensAfterHandover", "tokensAfterHandover", "tokensAfterHandover", "", ""},
        {"backhaulGbps", "backhaulGbps", "aggregationGbps", "backhaulGbps", "backhaulGbps"},
        {"backhaulDelay", "backhaulDelayUs", "backhaulDelayUs", "", ""},
        {"backhaulMtu", "backhaulMtu", "backhaulMtu", "", ""},
        {"handover", "handoverAlgorithm", "handover", "", ""},
        {"handoverAlgorithm", "handoverAlgorithm", "handover", "", ""}, // EdgeLlmRanConfig's
        {"raPreambles", "raPreambles", "", "", ""},
        {"preambleTransMax", "preambleTransMax", "", "", ""},
        {"srsPeriodicity", "srsPeriodicity", "", "", ""},
        {"amcModel", "amcModel", "amcModel", "", ""},
        {"prefillPromptsOnGpu", "warmupOnGpu", "warmupOnGpu", "", ""},
        {"allowBeyondContextWindow",
         "allowBeyondContextWindow",
         "allowBeyondContextWindow",
         "allowBeyondContextWindow",
         ""},
        {"backhaul", "", "backhaul", "", ""},
        {"backhaulFile", "", "backhaulFile", "", ""},
        {"backhaulFileFormat", "", "backhaulFileFormat", "", ""},
        {"queueDisc", "", "queueDisc", "", ""},
        {"peerRange", "", "peerRange", "", ""},
        // The road's draw and geometry (RoadHandoverConfig, RoadUeDraw) and the study's
        // sites and UEs (MultiCellConfig): named as the options that set them.
        {"numUes", "numUes", "", "numUes", "numUes"},
        {"contextMin", "contextMin", "", "contextMin", ""},
        {"contextMax", "contextMax", "", "contextMax", ""},
        {"bsDistance", "bsDistance", "", "", ""},
        {"boundary", "boundary", "", "", ""},
        {"startMin", "startMin", "", "", "startMin"},
        {"startMax", "startMax", "", "", "startMax"},
        {"speed", "speed", "speed", "", ""},
        {"predictedHandoverX", "predictedHandoverX", "", "", ""},
        {"numSites", "", "numSites", "", ""},
        {"layout", "", "layout", "", ""},
        {"interSiteDistance", "", "interSiteDistance", "", ""},
        {"uesPerSite", "", "uesPerSite", "", ""},
        {"roads", "", "roads", "", ""},
        {"promptMin", "", "promptMin", "", ""},
        {"promptMax", "", "promptMax", "", ""},
        {"maxLossDb", "", "maxLossDb", "", ""},
        {"ran", "", "ran", "", ""},
        {"stopShare", "", "", "", "stopShare"},
    };
    std::map<std::string, std::string> options;
    for (const Row& row : rows)
    {
        const char* option = program == ScenarioProgram::ROAD           ? row.road
                             : program == ScenarioProgram::STUDY        ? row.study
                             : program == ScenarioProgram::CTHO_FIGURES ? row.figures
                                                                        : row.pre;
        if (*option != '\0')
        {
            options[row.knob] = option;
        }
    }
    return options;
}

std::string
OptionMessage(const std::string& message, ScenarioProgram program)
{
    std::string knob;
    std::string option;
    for (const auto& [k, o] : ProgramKnobOptions(program))
    {
        const bool starts = message.compare(0, k.size(), k) == 0 && message.size() > k.size() &&
                            (message[k.size()] == ' ' || message[k.size()] == ':');
        if (starts && k.size() > knob.size())
        {
            knob = k;
            option = o;
        }
    }
    if (knob.empty())
    {
        return message;
    }
    // "backhaulGbps must ..." -> "--backhaulGbps must ..."; another option's name keeps the
    // knob beside it: "--aggregationGbps (backhaulGbps) must ...".
    return "--" + option + (option == knob ? "" : " (" + knob + ")") + message.substr(knob.size());
}

bool
OptionGiven(int argc, char* argv[], const std::string& name)
{
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a == "--" + name || a.rfind("--" + name + "=", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

void
TraceOptions::Add(ProgramOptions& options, const std::vector<std::string>& replacedOptions)
{
    replaced = replacedOptions;
    std::string replaces;
    for (std::size_t i = 0; i < replaced.size(); ++i)
    {
        replaces += (i == 0 ? "--" : i + 1 == replaced.size() ? " and --" : ", --") + replaced[i];
    }
    options.AddValue("mobilityTrace",
                     "Vehicles from an ns-2 mobility trace (SUMO traceExporter.py "
                     "--ns2mobility-output): one UE per vehicle, replacing " +
                         replaces + "; the run lasts as long as the trace",
                     trace);
    options.AddValue("mobilityActivity",
                     "With --mobilityTrace: its activity file (--ns2activity-output: when each "
                     "vehicle enters and leaves)",
                     activity);
    options.AddValue("traceMinDwellMs",
                     "With --mobilityTrace: a change of the strongest cell is a handover only if "
                     "the new cell stays the strongest this long, ms",
                     minDwellMs);
}

bool
TraceOptions::Check(int argc, char* argv[], std::ostream& err) const
{
    for (const std::string& option : replaced)
    {
        if (!trace.empty() && OptionGiven(argc, argv, option))
        {
            err << "error: --" << option
                << " means nothing with --mobilityTrace, which replaces it; leave it out"
                << std::endl;
            return false;
        }
    }
    for (const char* option : {"mobilityActivity", "traceMinDwellMs"})
    {
        if (trace.empty() && OptionGiven(argc, argv, option))
        {
            err << "error: --" << option << " means nothing without --mobilityTrace" << std::endl;
            return false;
        }
    }
    if (!(minDwellMs >= 0 && minDwellMs <= 6e4))
    {
        err << "error: --traceMinDwellMs must be in [0, 60000] ms, got "
            << edgellm::FormatValue(minDwellMs) << std::endl;
        return false;
    }
    return true;
}

Time
TraceOptions::MinDwell() const
{
    return NanoSeconds(std::llround(minDwellMs * 1e6));
}

bool
CheckTimeOptions(double backhaulDelayUs, double batchPeriodMs, std::ostream& err)
{
    if (!(backhaulDelayUs >= 0 && backhaulDelayUs <= 1e6))
    {
        err << "error: --backhaulDelayUs must be in [0, 1e6] us, got "
            << edgellm::FormatValue(backhaulDelayUs) << std::endl;
        return false;
    }
    try
    {
        edgellm::CheckBatchPeriodMs("--batchPeriodMs", batchPeriodMs);
    }
    catch (const std::invalid_argument& e)
    {
        err << "error: " << e.what() << std::endl;
        return false;
    }
    return true;
}

} // namespace ns3
