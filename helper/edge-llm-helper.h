/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_HELPER_H
#define EDGE_LLM_HELPER_H

#include "edge-llm-ran.h"

#include "ns3/application-container.h"
#include "ns3/command-line.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-ue-app.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ns3
{

class EdgeLlmBackhaul;

/**
 * \ingroup edge-llm
 * \brief Installs and wires the edge-LLM applications, the way ns-3's helpers do.
 *
 * Typical use (helper/road-handover-scenario.cc); the RAT (LTE or NR) is the RAN's
 * business, this API is the same for both:
 * \code
 *   Ptr<EdgeLlmRan> ran = EdgeLlmRan::Create("lte", ranConfig);  // or "nr"
 *   // ... nodes, mobility, ran->Install(bsNodes, ueNodes), ran->Attach(...) ...
 *   EdgeLlmHelper edge;
 *   edge.SetRan(ran);                                         // cell ids, IMSIs, RRC
 *   edge.SetSchedulerType("ns3::CtHoScheduler");
 *   edge.SetNodeAttribute("DecodeRate", DoubleValue(100));
 *   ApplicationContainer bs = edge.InstallOnEnbs(ran->GetBsDevices()); // one per eNB/gNB
 *   edge.ConnectBackhaul(bs);                                 // X2/Xn links become peers
 *   edge.ConnectHandoverTrace(bs);                            // RRC HandoverStart
 *   EdgeLlmHelper::AddEpcRoutes(ran->GetSgwNode(), ran->GetPgwNode(), bsNodes);
 *   ApplicationContainer ue = edge.InstallUe(ueNodes, ran->GetUeDevices(), bs.Get(0),
 *       EdgeLlmHelper::GetUeFacingAddress(bsNodes.Get(0), ran->GetSgwNode()));
 * \endcode
 * Without SetRan() the helper reads LTE devices (LteEdgeLlmRan), as before NR existed.
 */
class EdgeLlmHelper
{
  public:
    EdgeLlmHelper();

    /**
     * \brief The scheduler type and attributes each EdgeLlmNode gets its own instance of.
     * \param type a HandoverScheduler subclass, e.g. "ns3::CtHoScheduler"
     * \param args name/value attribute pairs
     */
    template <typename... Args>
    void SetSchedulerType(const std::string& type, Args&&... args);

    /**
     * \brief The RAN whose devices InstallOnEnbs() and InstallUe() read (cell ids, IMSIs)
     *        and whose RRC ConnectHandoverTrace() hooks.
     * \param ran an LteEdgeLlmRan or NrEdgeLlmRan (EdgeLlmRan::Create); null: LTE
     */
    void SetRan(Ptr<EdgeLlmRan> ran);

    /// Set an attribute of every EdgeLlmNode installed afterwards.
    void SetNodeAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every EdgeLlmUeApp installed afterwards.
    void SetUeAttribute(const std::string& name, const AttributeValue& value);
    /// Set an attribute of every PrefillEngine (GPU) installed afterwards.
    void SetPrefillEngineAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief One EdgeLlmNode per node, with the given cell ids.
     * \param nodes BS nodes
     * \param cellIds one cell id per node (the RRC's)
     * \return the applications, in node order
     */
    ApplicationContainer InstallBs(NodeContainer nodes, const std::vector<uint16_t>& cellIds) const;

    /**
     * \brief One EdgeLlmNode on each BS device's node (eNB or gNB), cell id from the
     *        device through the RAN (SetRan(); default LTE).
     * \param enbDevices LteEnbNetDevices, or NrGnbNetDevices with an NR RAN; aborts naming
     *        the device if one is not the RAN's BS device
     * \return the applications, in device order
     */
    ApplicationContainer InstallOnEnbs(NetDeviceContainer enbDevices) const;

    /**
     * \brief Make every pair of BSs joined by a direct point-to-point link (such as
     *        the LTE X2 link) backhaul peers; the link's DataRate is the backhaul R.
     *
     * However the links were made (EdgeLlmRan::Install, or LteHelper::AddX2Interface in a
     * script of one's own), each link between two BSs of the RAN (nodes with a device of
     * its RRC, EdgeLlmRan::GetRrcName()) gets what EdgeLlmRan::Install gives its X2 links: the X2
     * priority queue disc (EdgeLlmRan::InstallX2QueueDisc, unless the RAN's
     * X2SignallingPriority is false or the link has it already) and the minimum-rate check.
     * \param bsApps EdgeLlmNode applications
     * \throws std::invalid_argument if no two of \p bsApps are linked (it was called before
     *         the X2 links were made: the message names the order of calls), or a link is
     *         slower than EdgeLlmRan::MinBackhaulBitRate(RAT, its MTU, its delay) (the
     *         message names the link, its rate and the minimum)
     */
    void ConnectBackhaul(ApplicationContainer bsApps) const;

    /**
     * \brief Make every two BSs of \p bsApps peers over \p backhaul's path between them
     *        (EdgeLlmBackhaul::GetPath): addresses are the sites' ends of the path, the
     *        planning rate its bottleneck minus CBR cross traffic (call
     *        EdgeLlmBackhaul::InstallCrossTraffic first), the delay the sum over its
     *        links, the MTU their minimum.
     * \param bsApps EdgeLlmNode applications on the backhaul's sites
     * \param backhaul an installed backhaul
     * Aborts naming the node if a BS is not one of the backhaul's sites.
     */
    void ConnectBackhaul(ApplicationContainer bsApps, Ptr<EdgeLlmBackhaul> backhaul) const;

    /**
     * \brief Refuse an invalid configuration before the simulation runs: each
     *        EdgeLlmNode's CheckConfiguration (attributes against each other and against
     *        its backhaul peers), which StartApplication would otherwise abort on.
     * \param bsApps EdgeLlmNode applications, after ConnectBackhaul
     * \throws std::invalid_argument with the first error, naming the attribute and its
     *         valid range
     */
    static void CheckConfiguration(ApplicationContainer bsApps);

    /**
     * \brief Connect each BS's RRC HandoverStart trace to its EdgeLlmNode, and its handover
     *        failure traces (HandoverFailureNoPreamble, ...MaxRach, ...Leaving, ...Joining)
     *        where the RRC has them, to every EdgeLlmNode of \p bsApps (the source learns a
     *        failure the target's RRC detects, e.g. no dedicated preamble left, before the
     *        handover started: EdgeLlmNode::NotifyHandoverFailure).
     * \param bsApps EdgeLlmNode applications
     * \param rrcName the RRC attribute of the BS's net device: "LteEnbRrc" (LTE) or
     *        "NrGnbRrc" (NR; the same trace names and signatures); "": the RAN's
     *        (EdgeLlmRan::GetRrcName(), LTE without SetRan())
     */
    void ConnectHandoverTrace(ApplicationContainer bsApps, const std::string& rrcName = "") const;

    /**
     * \brief One EdgeLlmUeApp per UE, session id = IMSI, served by \p server.
     * \param ueNodes UE nodes
     * \param ueDevices their UE devices, of the RAN (SetRan(); default LTE), for the IMSI
     * \param server the serving BS's EdgeLlmNode (for its UePort)
     * \param serverAddress the address by which the UEs reach it (for an eNB behind an
     *        EPC: GetUeFacingAddress())
     * \return the applications
     */
    ApplicationContainer InstallUe(NodeContainer ueNodes,
                                   NetDeviceContainer ueDevices,
                                   Ptr<Application> server,
                                   Ipv4Address serverAddress) const;

    /**
     * \brief One EdgeLlmUeApp per UE, session id = IMSI, each served by the EdgeLlmNode of
     *        the cell its RRC attaches to (one call for UEs of any number of cells).
     *
     * Each UE's prompt waits for its RRC's ConnectionEstablished trace (from the UE device's
     * "LteUeRrc"; a RAT without that trace sends at the app's start time), and goes to the
     * EdgeLlmNode of that cell, at its UE-facing address (GetUeFacingAddress() toward the
     * RAN's SGW), UePort and DecodeRate. The other overload also waits for the attach.
     * \param ueNodes UE nodes
     * \param ueDevices their UE devices, of the RAN (SetRan(); default LTE)
     * \param bsApps the EdgeLlmNode of every cell a UE may attach to
     * \return the applications
     * Aborts (at the attach) if a UE attaches to a cell none of \p bsApps serves.
     */
    ApplicationContainer InstallUe(NodeContainer ueNodes,
                                   NetDeviceContainer ueDevices,
                                   ApplicationContainer bsApps) const;

    /**
     * \brief The three static routes that let applications on eNB nodes reach UEs
     *        through the EPC: eNB 7.0.0.0/8 via the SGW's S1-U address, SGW 7.0.0.0/8 via
     *        the PGW's S5 address, PGW 10.0.0.0/8 via the SGW's S5 address.
     *        (Global routing cannot be used in an EPC scenario.)
     * \param sgw the SGW node
     * \param pgw the PGW node
     * \param enbNodes the eNB nodes
     */
    static void AddEpcRoutes(Ptr<Node> sgw, Ptr<Node> pgw, NodeContainer enbNodes);

    /**
     * \brief The addresses of a direct point-to-point link between two nodes.
     * \return (address on a, address on b)
     * \throws nothing; aborts with a message if there is no such link
     */
    static std::pair<Ipv4Address, Ipv4Address> GetLinkAddresses(Ptr<Node> a, Ptr<Node> b);

    /**
     * \return the address by which UEs reach the EdgeLlmNode on \p enbNode (its S1-U
     *         address toward \p sgw)
     */
    static Ipv4Address GetUeFacingAddress(Ptr<Node> enbNode, Ptr<Node> sgw);

  private:
    /**
     * \brief Abort (NS_FATAL_ERROR) unless \p type names a creatable HandoverScheduler
     *        subclass; the message names SetSchedulerType, the bad name and every valid one.
     * \param type the name given to SetSchedulerType
     */
    static void CheckSchedulerType(const std::string& type);

    /// \return the RAN set, or an unconfigured LteEdgeLlmRan (its device lookups)
    Ptr<EdgeLlmRan> GetRan() const;

    /**
     * \brief Make \p app's prompt wait for its UE's attach (the UE RRC's
     *        ConnectionEstablished trace), if the device has that trace.
     * \param app the UE's application
     * \param ueDevice its UE device
     * \param ueRrcName the UE device's RRC attribute (EdgeLlmRan::GetUeRrcName())
     * \param resolver the server by cell (empty: the app's own ServerAddress)
     */
    static void WaitForAttach(Ptr<EdgeLlmUeApp> app,
                              Ptr<NetDevice> ueDevice,
                              const std::string& ueRrcName,
                              EdgeLlmUeApp::ServerResolver resolver);

    Ptr<EdgeLlmRan> m_ran;            //!< SetRan(); null: LTE
    ObjectFactory m_nodeFactory;      //!< EdgeLlmNode
    ObjectFactory m_ueFactory;        //!< EdgeLlmUeApp
    ObjectFactory m_schedulerFactory; //!< HandoverScheduler subclass
    ObjectFactory m_gpuFactory;       //!< PrefillEngine
};

template <typename... Args>
void
EdgeLlmHelper::SetSchedulerType(const std::string& type, Args&&... args)
{
    CheckSchedulerType(type);
    m_schedulerFactory.SetTypeId(type);
    m_schedulerFactory.Set(std::forward<Args>(args)...);
}

/**
 * \ingroup edge-llm
 * \brief Why a registered TypeId (by name) cannot serve somewhere: "" if it can.
 */
using TypeIdRefusal = std::function<std::string(const std::string& name)>;

/**
 * \ingroup edge-llm
 * \param base a base class's TypeId name, e.g. "ns3::QueueDisc"
 * \param refusal why a subclass cannot serve ("" if it can); empty: none refused
 * \return every registered creatable subclass of \p base that \p refusal accepts, by
 *         name, comma-separated ("" if \p base is not registered)
 */
std::string ValidTypeIds(const std::string& base, const TypeIdRefusal& refusal = TypeIdRefusal());

/**
 * \ingroup edge-llm
 * \brief Refuse a TypeId name that is not registered, not a subclass of \p base, not
 *        creatable (abstract, no constructor), or refused by \p refusal.
 * \param field the option's or knob's name, for the message
 * \param name the TypeId name given
 * \param base the base class it must derive from, e.g. "ns3::LteHandoverAlgorithm"
 * \param refusal why a subclass cannot serve here ("" if it can); empty: none refused
 * \throws std::invalid_argument "<field>: '<name>' is no <base>; valid: <every registered
 *         creatable subclass of base that refusal accepts, by name>", or for a refused
 *         subclass "<field>: <name> <why>; valid: ..."
 */
void RequireTypeId(const std::string& field,
                   const std::string& name,
                   const std::string& base,
                   const TypeIdRefusal& refusal = TypeIdRefusal());

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
 * (\p setByProgram), which would overwrite the default without a word. A global value is
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
 * \return true if every such argument is valid; false after writing the message (the
 *         program then exits with code 2)
 */
bool CheckAttributeArguments(int argc,
                             char* argv[],
                             const std::map<std::string, std::string>& setByProgram,
                             std::ostream& err);

/**
 * \brief Whether \p name is one of ns-3 CommandLine's own options (--PrintHelp, --help,
 *        --PrintGlobals, --PrintGroups, --PrintGroup, --PrintTypeIds, --PrintAttributes,
 *        --PrintVersion, --version), which a program's option check leaves to it.
 * \param name option name, without dashes or value
 * \return true for those names
 */
bool IsCommandLineBuiltin(const std::string& name);

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
 * outside its type's range; a double that is not a whole finite number (nan, inf, 1e999,
 * "3x"); a bool other than 1, 0, true, false (or no value: true); an empty string. The
 * arguments left to ns-3 are `--ns3::Type::Attribute=value` (CheckAttributeArguments),
 * global values (`--RngRun=3`) and the Print options (`--PrintHelp`, ...).
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
     * \return "" if \p v is an integer in [lo, hi] (a sign only if \p isSigned), else
     *         what it must be
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

} // namespace ns3

#endif /* EDGE_LLM_HELPER_H */
