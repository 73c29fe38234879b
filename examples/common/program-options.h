/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What every program of the module does with its command line before CommandLine::Parse:
 * the programs' own options checked strictly (ProgramOptions) and the ns-3 attribute and
 * global-value arguments checked against their checkers (CheckAttributeArguments). Shared
 * by the programs of examples/ (a program's part, not the module's API).
 */
#ifndef EDGE_LLM_PROGRAM_OPTIONS_H
#define EDGE_LLM_PROGRAM_OPTIONS_H

#include "ns3/command-line.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/nstime.h"

#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Refuse, before anything runs, the PreTransferScheduler settings (as the command
 *        line left its defaults) a packet-level run cannot use: YieldToHandovers false
 *        (flow level only) and Trigger PredictedCrossing without scripted handovers (the
 *        only predicted crossings there are).
 *        Each scheme's own scheduler (HandoverSchemeRegistry::Create) is asked for its
 *        pre-transfer (HandoverScheduler::GetPreTransfer()); a scheme without one is not
 *        checked.
 * \param schemes the schemes the program runs
 * \param scripted the handovers are scripted
 * \param err where the one-line "error: ..." goes
 * \return false after writing it
 */
bool CheckPacketPreTransfer(const std::vector<HandoverScheme>& schemes,
                            bool scripted,
                            std::ostream& err);

/**
 * \ingroup edge-llm
 * \brief This module's types (TypeId group "EdgeLlm") a program or config never builds,
 *        each with why: the TypeId's name ("ns3::EdgeLlmBackhaul") -> the reason ("the
 *        road's backhaul is the RAN's own X2 link; ..."). An attribute default of such a
 *        type would be accepted and change nothing, so CheckAttributeArguments refuses it.
 *        The owner of the choice says what it builds: MultiCellScenario::GetTypesUnused
 *        (the engine's config), HandoverSchemeRegistry::TypesUnused (the schemes run),
 *        FlowLevelTypesUnused (a flow-level run).
 */
using TypesUnused = std::map<std::string, std::string>;

/**
 * \ingroup edge-llm
 * \brief The types a flow-level run never builds: every type of this module (TypeId group
 *        "EdgeLlm") with attributes but the HandoverScheduler family (a flow-level engine
 *        creates its schemes' schedulers, whose attribute defaults it reads) and \p used.
 * \param why the reason each gets (e.g. "ctho-figures runs at flow level without
 *        --packetLevel=1: no BS, UE, link or GPU of this module is built")
 * \param used other types the run does build (e.g. "ns3::ImpactHoClairvoyantBound")
 * \return TypeId name -> \p why
 */
TypesUnused FlowLevelTypesUnused(const std::string& why, const std::set<std::string>& used = {});

/**
 * \ingroup edge-llm
 * \brief What every program of the module does with its arguments before
 *        CommandLine::Parse: check each ns-3 attribute default (`--ns3::Type::Attribute=value`)
 *        and global value (`--RngRun=3`, `--SimulatorImplementationType=...`) it carries, so a
 *        bad one is refused with a message that names it and its valid range, instead of
 *        CommandLine's "Invalid command-line argument" (exit 1) or an abort later.
 *
 * An attribute argument is refused when its TypeId is not registered, when the attribute is
 * not the TypeId's own (ns-3 sets defaults only on the TypeId that declares the attribute:
 * the message names that parent), when the value does not parse or fails the attribute's
 * checker (the message quotes AttributeChecker::GetUnderlyingTypeInformation(), e.g.
 * "uint32_t 1024:16777216" or "Tcp|Udp"), or when the program sets that attribute itself
 * (\p setByProgram), which would overwrite the default without a word, or when the program
 * never builds the TypeId named (\p unused: "not used: <why>", after the value's own check;
 * it takes the place of \p setByProgram's message). A global value is
 * refused when its value fails its checker; SimulatorImplementationType and SchedulerType
 * must name a registered ns3::SimulatorImpl / ns3::Scheduler subclass (RequireTypeId).
 * Other arguments (the program's own options, --PrintHelp, ...) are left to CommandLine.
 *
 * \param argc argument count, as main() got it
 * \param argv arguments, as main() got them
 * \param setByProgram full attribute names ("ns3::EdgeLlmNode::DecodeRate") the program
 *        sets itself, each with the advice printed when one is given (e.g. "use
 *        --decodeRate")
 * \param err where the one-line "error: --<argument>: ..." message goes
 * \param unused the types of this module the program never builds (a program whose choice
 *        depends on its options calls this again after CommandLine::Parse with them: that
 *        call finds nothing else to refuse, as the first passed)
 * \return true if every such argument is valid; false after writing the message (the
 *         program then exits with code 2)
 */
bool CheckAttributeArguments(int argc,
                             char* argv[],
                             const std::map<std::string, std::string>& setByProgram,
                             std::ostream& err,
                             const TypesUnused& unused = {});

/**
 * \brief Whether \p name is one of ns-3 CommandLine's own options (--PrintHelp, --help,
 *        --PrintGlobals, --PrintGroups, --PrintGroup, --PrintTypeIds, --PrintAttributes,
 *        --PrintVersion, --version), which a program's option check leaves to it.
 * \param name option name, without dashes or value
 * \return true for those names
 */
bool IsCommandLineBuiltin(const std::string& name);

/// The programs whose options set scenario config knobs (ProgramKnobOptions).
enum class ScenarioProgram
{
    ROAD,         //!< edge-llm-lte-handover, edge-llm-nr-handover (RoadHandoverConfig)
    STUDY,        //!< edge-llm-backhaul-study (MultiCellConfig)
    CTHO_FIGURES, //!< ctho-figures (RoadHandoverConfig, RoadUeDraw)
    PRE_TRANSFER, //!< edge-llm-pre-transfer (its road draw, RoadUeDraw)
};

/**
 * \ingroup edge-llm
 * \brief The one table of the programs' options for the scenario configs' knobs
 *        (ScenarioCommonConfig, MultiCellConfig; a road knob by the engine knob it sets:
 *        the road's handoverAlgorithm is the engine's handover; the road's draw and
 *        geometry, RoadHandoverConfig and RoadUeDraw, by their own names), for
 *        MultiCellScenario::GetAttributesSet and OptionMessage: e.g. knob backhaulGbps is
 *        --backhaulGbps on the road and --aggregationGbps in the study, batchPeriod is
 *        --batchPeriodMs, numUes is --numUes on the road and in ctho-figures.
 * \param program the program
 * \return knob -> the program's option (without dashes), for the knobs it exposes
 */
std::map<std::string, std::string> ProgramKnobOptions(ScenarioProgram program);

/**
 * \ingroup edge-llm
 * \brief A config's message as the program's user reads it: the library's messages name
 *        the config knob ("backhaulGbps must be >= ..."); in one that starts with a knob
 *        the program has an option for (ProgramKnobOptions) the option takes its place,
 *        with the knob beside it where their names differ ("--backhaulGbps must be >= ...",
 *        "--aggregationGbps (backhaulGbps) must be >= ..."); any other is kept as it is.
 * \param message the library's message (std::invalid_argument::what())
 * \param program the program
 * \return the message naming the option
 */
std::string OptionMessage(const std::string& message, ScenarioProgram program);

/**
 * \ingroup edge-llm
 * \brief The programs' --backhaulDelayUs and --batchPeriodMs, checked before they become an
 *        ns-3 Time (an int64 of ns, which 1e300 would wrap): the delay in [0, 1e6] us, the
 *        batching period in its one range (edgellm::CheckBatchPeriodMs).
 * \param backhaulDelayUs --backhaulDelayUs
 * \param batchPeriodMs --batchPeriodMs
 * \param err where the one-line "error: ..." goes
 * \return false after writing it
 */
bool CheckTimeOptions(double backhaulDelayUs, double batchPeriodMs, std::ostream& err);

/**
 * \ingroup edge-llm
 * \brief A program's own options, declared once for ns-3's CommandLine and checked
 *        strictly before CommandLine::Parse, so that bad input exits 2 naming the option.
 *
 * ns-3's CommandLine reads a number with operator>>: "1e300" or "2.5" for an integer
 * keeps the leading "1" or "2", "-1" wraps around for an unsigned option, and a value it
 * cannot read, or an unknown option, ends the program with exit code 1 after the whole
 * help. Check() refuses, with one line naming the option: an unknown option (listing the
 * valid ones); an integer that is not all digits (with a sign only for a signed type) or
 * outside its type's range (AddRangedValue: the option's own range is stated); a double that is not
 * a whole finite number (nan, inf, 1e999, "3x"); a bool other than 1, 0, true, false (or no value:
 * true); an empty string. The arguments left to ns-3 are `--ns3::Type::Attribute=value`
 * (CheckAttributeArguments), global values (`--RngRun=3`) and the Print options (`--PrintHelp`,
 * ...).
 *
 * Usage: `ProgramOptions options(cmd); options.AddValue("numUes", "K", k); ...;
 * if (!options.Check(argc, argv, std::cerr)) return 2; cmd.Parse(argc, argv);`
 */
class ProgramOptions
{
  public:
    /// \param cmd the program's CommandLine (kept by reference: it must outlive this)
    explicit ProgramOptions(CommandLine& cmd);

    /**
     * \brief CommandLine::AddValue, and remember how to check the option's value.
     * \tparam T the option's type (integral, double, bool, std::string, ...)
     * \param name option name, without dashes
     * \param help help text
     * \param value the variable it sets
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value)
    {
        if constexpr (std::is_same_v<T, std::string>)
        {
            compat::AddStringValue(m_cmd, name, help, value);
        }
        else
        {
            m_cmd.AddValue(name, help, value);
        }
        m_checks[name] = Checker<T>();
    }

    /// \return "" if a value is valid, else what it must be (the message's tail)
    using ValueCheck = std::function<std::string(const std::string&)>;

    /**
     * \brief As AddValue(name, help, value), then \p extra on a value its type's check
     *        accepted, or instead of the check for an empty string (an option that can
     *        list its valid values says so there).
     * \param name option name, without dashes
     * \param help help text
     * \param value the variable it sets
     * \param extra the option's own check
     */
    template <typename T>
    void AddValue(const std::string& name, const std::string& help, T& value, ValueCheck extra)
    {
        AddValue(name, help, value);
        const Check_t typeCheck = m_checks[name];
        m_checks[name] = [typeCheck, extra](const std::string& v) {
            const std::string why = typeCheck(v);
            if (why.empty() || (std::is_same_v<T, std::string> && v.empty()))
            {
                return extra(v).empty() ? why : extra(v);
            }
            return why;
        };
    }

    /**
     * \brief As AddValue(name, help, value), for an option whose owner states its valid
     *        range: a value that does not even parse as T is refused with that range ("must
     *        be an integer in [576, 65535] bytes"), not with T's; a value that parses is
     *        left to the owner's check (e.g. edgellm::CheckBackhaulMtu), which states the
     *        same range.
     * \param name option name, without dashes
     * \param help help text
     * \param value the variable it sets
     * \param validRange the owner's range text (edgellm::BackhaulMtuRange(), ...)
     */
    template <typename T>
    void AddRangedValue(const std::string& name,
                        const std::string& help,
                        T& value,
                        const std::string& validRange)
    {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "a number option");
        AddValue(name, help, value);
        const Check_t typeCheck = m_checks[name];
        const std::string kind = std::is_integral_v<T> ? "an integer" : "a number";
        m_checks[name] = [typeCheck, kind, validRange](const std::string& v) {
            return typeCheck(v).empty() ? std::string() : "must be " + kind + " in " + validRange;
        };
    }

    /**
     * \brief Check every argument that names one of this program's options.
     * \param argc argument count, as main() got it
     * \param argv arguments, as main() got them
     * \param err where the one-line "error: --<option>=<value>: ..." message goes
     * \return true if all are valid; false after writing the message (exit 2)
     */
    bool Check(int argc, char* argv[], std::ostream& err) const;

    /**
     * \brief Whether the command line names an option (as --name, --name=..., -name or
     *        -name=...), so that a mode can refuse an option it does not read instead of
     *        ignoring it.
     * \param argc argument count, as main() got it
     * \param argv arguments, as main() got them
     * \param name option name, without dashes
     * \return true if any argument names it
     */
    static bool Given(int argc, char* argv[], const std::string& name);

  private:
    /// \return "" if the value is valid, else what it must be
    using Check_t = std::function<std::string(const std::string&)>;

    /// \return the check of an option of type T
    template <typename T>
    static Check_t Checker()
    {
        if constexpr (std::is_same_v<T, bool>)
        {
            return &CheckBool;
        }
        else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
        {
            return [](const std::string& v) {
                return CheckInteger(v,
                                    true,
                                    static_cast<long double>(std::numeric_limits<T>::min()),
                                    static_cast<long double>(std::numeric_limits<T>::max()));
            };
        }
        else if constexpr (std::is_integral_v<T>)
        {
            return [](const std::string& v) {
                return CheckInteger(v,
                                    false,
                                    0,
                                    static_cast<long double>(std::numeric_limits<T>::max()));
            };
        }
        else if constexpr (std::is_floating_point_v<T>)
        {
            return &CheckReal;
        }
        else
        {
            // ns-3's CommandLine refuses an empty value (exit 1): say so here.
            return [](const std::string& v) {
                return v.empty() ? std::string("must not be empty (leave the option out for "
                                               "its default)")
                                 : std::string();
            };
        }
    }

    /// \return "" if \p v is a bool CommandLine reads, else what it must be
    static std::string CheckBool(const std::string& v);
    /**
     * \return "" if \p v is an integer in [lo, hi] (T's range; a sign only if \p
     *         isSigned), else what it must be: the message states T's limit only for a
     *         value beyond it, as the option's own range may be narrower (AddRangedValue)
     */
    static std::string CheckInteger(const std::string& v,
                                    bool isSigned,
                                    long double lo,
                                    long double hi);
    /// \return "" if \p v is a whole finite number, else what it must be
    static std::string CheckReal(const std::string& v);

    CommandLine& m_cmd;                      //!< The program's CommandLine
    std::map<std::string, Check_t> m_checks; //!< Option name -> its value check
};

/**
 * \ingroup edge-llm
 * \param argc the command line's argument count
 * \param argv the command line
 * \param name an option's name, without dashes
 * \return whether the command line gives it (--name or --name=value)
 */
bool OptionGiven(int argc, char* argv[], const std::string& name);

/**
 * \ingroup edge-llm
 * \brief The mobility-trace options of the programs that take one (the road's main jobs,
 *        the backhaul study), declared and checked once: --mobilityTrace (an ns-2 trace as
 *        SUMO's traceExporter.py writes it), --mobilityActivity (its activity file) and
 *        --traceMinDwellMs, [0, 60000] ms. The program moves them into its config's knobs of
 *        the same names (ScenarioCommonConfig) after Check().
 */
struct TraceOptions
{
    std::string trace;                 //!< --mobilityTrace ("": none)
    std::string activity;              //!< --mobilityActivity ("": none)
    double minDwellMs{500};            //!< --traceMinDwellMs, ms
    std::vector<std::string> replaced; //!< The options the trace replaces, without dashes

    /**
     * \brief Register the three options.
     * \param options the program's options
     * \param replacedOptions the program's options that the trace replaces, without dashes
     *        (the help names them; Check() refuses them with a trace)
     */
    void Add(ProgramOptions& options, const std::vector<std::string>& replacedOptions);

    /**
     * \brief Refuse, with one line naming the option: any option the trace replaces given
     *        with --mobilityTrace (it would mean nothing); --mobilityActivity or
     *        --traceMinDwellMs without it; a dwell outside [0, 60000] ms.
     * \param argc the command line's argument count
     * \param argv the command line
     * \param err where the one-line "error: ..." goes
     * \return false after writing it
     */
    bool Check(int argc, char* argv[], std::ostream& err) const;

    /// \return --traceMinDwellMs as a Time (after Check(): in range)
    Time MinDwell() const;
};

} // namespace ns3

#endif /* EDGE_LLM_PROGRAM_OPTIONS_H */
