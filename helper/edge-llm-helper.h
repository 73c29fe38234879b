/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_HELPER_H
#define EDGE_LLM_HELPER_H

#include "edge-llm-ran.h"

#include "ns3/application-container.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-ue-app.h"
#include "ns3/ipv4-address.h"
#include "ns3/llm-request-trace.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{

class EdgeLlmBackhaul;

/**
 * \ingroup edge-llm
 * \brief Installs and wires the edge-LLM applications, the way ns-3's helpers do.
 *
 * Typical use (examples/studies/road-handover-scenario.cc); the RAT (LTE or NR) is the RAN's
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
 * Without SetRan() the helper reads LTE devices (LteEdgeLlmRan), as before NR existed: a
 * script's own LTE eNBs and UEs serve as they are, its EPC gateways found from the eNBs'
 * links (EdgeLlmRan::FindEpcGateways).
 *
 * A script that built its own RAN adds the edge LLMs in one call instead (all of the above
 * but the scheduler and attributes):
 * \code
 *   EdgeLlmHelper edge;
 *   EdgeLlmHelper::Installed apps =
 *       edge.Install(LteEdgeLlmRan::Wrap(lteHelper, epcHelper, enbDevs, ueDevs)); // or Nr...
 * \endcode
 *
 * A call the step-by-step path needs and a script forgot is refused while the simulation
 * runs (NS_FATAL_ERROR naming the call), before it can yield empty results:
 * AddEpcRoutes at time 0 (an EdgeLlmNode behind an EPC with no route to its UEs, or the
 * PGW none back to it), ConnectHandoverTrace at the first RRC HandoverStart of a UE of
 * this helper at a BS whose EdgeLlmNode is not connected to it.
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
     * \brief The scheduler each EdgeLlmNode gets its own instance of, as a factory with its
     *        attributes (e.g. HandoverSchemeRegistry::GetFactory(), a scheme's).
     * \param factory a factory of a HandoverScheduler subclass; aborts as SetSchedulerType
     *        for another type
     */
    void SetScheduler(const ObjectFactory& factory);

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
     * \brief Give every EdgeLlmNode installed afterwards a GPU that serves many users
     *        (EdgeLlmServingGpu, its ServingGpu attribute): prompts, decoding and restore
     *        prefills share its iterations.
     * \param preset a GpuIterationModel preset applied to each GPU before the attributes of
     *        SetServingGpuAttribute ("": the attributes' defaults, which Config and the
     *        command line can set)
     */
    void EnableServingGpu(const std::string& preset = "");
    /// Set an attribute of every EdgeLlmServingGpu installed afterwards (after its preset).
    void SetServingGpuAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the source role (ns3::EdgeLlmSourceRole: PlanningRate,
     *        PlanningFairQueue, PlanningCrossTraffic, GatherTime, LayerwiseStreaming,
     *        ImportanceOrder, KvAccuracyLoss, UtilityCalibration) of every EdgeLlmNode
     *        installed afterwards.
     * \param name the attribute; aborts naming it if the role has none of that name or
     *        \p value is out of its range
     * \param value its value
     */
    void SetSourceRoleAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the target role (ns3::EdgeLlmTargetRole: TransferTimeout,
     *        WindowGrace, LossAwareReplanning, ReplanMargin, ReplanInterval, StatusInterval)
     *        of every EdgeLlmNode installed afterwards.
     * \param name the attribute; aborts as SetSourceRoleAttribute
     * \param value its value
     */
    void SetTargetRoleAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the pre-transfer role (ns3::EdgeLlmPreTransferRole:
     *        KvMemoryCapacity) of every EdgeLlmNode installed afterwards.
     * \param name the attribute; aborts as SetSourceRoleAttribute
     * \param value its value
     */
    void SetPreTransferRoleAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the idle-cache role (ns3::EdgeLlmIdleCacheRole: Policy,
     *        FetchTimeout) of every EdgeLlmNode installed afterwards.
     * \param name the attribute; aborts as SetSourceRoleAttribute
     * \param value its value
     */
    void SetIdleCacheRoleAttribute(const std::string& name, const AttributeValue& value);
    /**
     * \brief Set an attribute of the backhaul transport (ns3::EdgeLlmBackhaulTransport:
     *        Transport, ControlChannel, BackhaulPort, ControlPort, BackhaulBuffer,
     *        BackhaulSegmentSize) of every EdgeLlmNode installed afterwards.
     * \param name the attribute; aborts as SetSourceRoleAttribute
     * \param value its value
     */
    void SetBackhaulTransportAttribute(const std::string& name, const AttributeValue& value);

    /// What Install(ran) made.
    struct Installed
    {
        ApplicationContainer bsApps; //!< One EdgeLlmNode per BS device, in device order
        ApplicationContainer ueApps; //!< One EdgeLlmUeApp per UE device, in device order
    };

    /**
     * \brief Everything that puts edge LLMs on a RAN, in one call: SetRan(\p ran),
     *        InstallOnEnbs(its BS devices), ConnectBackhaul (over its X2/Xn links),
     *        ConnectHandoverTrace, AddEpcRoutes (its SGW and PGW) and InstallUe(its UE
     *        devices' nodes, its UE devices, the BS applications): each UE's prompt goes,
     *        after its attach, to the EdgeLlmNode of the cell it attached to.
     *
     * For a script's own RAN: LteEdgeLlmRan::Wrap (LteHelper + PointToPointEpcHelper) or
     * NrEdgeLlmRan::Wrap (NrHelper + NrPointToPointEpcHelper), called after the script has
     * installed its devices and X2/Xn links; for the module's: EdgeLlmRan::Create, then
     * Install and Attach. The scheduler and attributes are those set before.
     * \param ran the RAN, with BS devices (aborts otherwise, naming Wrap)
     * \return the BS and UE applications
     * \throws std::invalid_argument as ConnectBackhaul (no X2/Xn links yet; a link too slow)
     */
    Installed Install(Ptr<EdgeLlmRan> ran);

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
     *        (EdgeLlmBackhaul::GetPath; pairs without a path, left out by its PeerRange,
     *        are no peers): addresses are the sites' ends of the path, the
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
     * \brief Refuse, before anything is built, a node configuration that is wrong whatever
     *        the backhaul: a node made from the attribute defaults as they stand
     *        (Config::SetDefault, --ns3:: arguments), with \p model and \p kvBits, checked
     *        as CheckConfiguration does, less what needs a peer (segment size against a
     *        link's MTU, PlanningCrossTraffic's meters): its ports, buffer, StatusInterval,
     *        KvAccuracyLoss at 16 bits.
     * \param model the LLM preset the scenario sets (EdgeLlmNode::Model)
     * \param kvBits the KV precision the scenario sets (EdgeLlmNode::KvBits)
     * \throws std::invalid_argument with the first error, naming the attribute and its
     *         valid range
     */
    static void CheckNodeDefaults(const std::string& model, uint32_t kvBits);

    /**
     * \brief The scenarios' stop rule, once every UE is done: stop the simulation \p grace
     *        after every backhaul connection has delivered every KV byte its peer sent (a
     *        transfer stopped by a timeout still drains), checked now and then every 1 ms.
     * \param bsApps EdgeLlmNode applications, after ConnectBackhaul (every pair of BSs
     *        connected both ways is checked)
     * \param grace how long after the drain the simulation stops, >= 0
     */
    static void StopWhenDrained(ApplicationContainer bsApps, Time grace);

    /// (sending, receiving) ends of one BS pair's KV connection, one direction.
    using ConnectionPair = std::pair<Ptr<KvTransferConnection>, Ptr<KvTransferConnection>>;

    /**
     * \param bsApps EdgeLlmNode applications, after ConnectBackhaul
     * \return every ordered pair of BSs connected both ways: the sending end at the first,
     *         the receiving end at the second, in application order
     */
    static std::vector<ConnectionPair> GetConnectionPairs(ApplicationContainer bsApps);

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
     * Aborts (at the attach) if a UE attaches to a cell none of \p bsApps serves. The BSs'
     * UE-facing addresses are toward the RAN's SGW (SetRan()); without SetRan() (LTE),
     * toward the SGW the first BS is linked to (EdgeLlmRan::FindEpcGateways); if it has
     * none (no EPC) it aborts, naming SetRan, Install(ran) and the overload that takes the
     * SGW node.
     */
    ApplicationContainer InstallUe(NodeContainer ueNodes,
                                   NetDeviceContainer ueDevices,
                                   ApplicationContainer bsApps) const;

    /**
     * \brief As InstallUe(ueNodes, ueDevices, bsApps), for a script that built its own EPC
     *        (e.g. ns-3's LTE examples: PointToPointEpcHelper): each BS's UE-facing
     *        address is GetUeFacingAddress() toward \p sgwNode.
     * \param ueNodes UE nodes
     * \param ueDevices their UE devices, of the RAN (SetRan(); default LTE)
     * \param bsApps the EdgeLlmNode of every cell a UE may attach to
     * \param sgwNode the EPC's SGW (EpcHelper::GetSgwNode())
     * \return the applications
     */
    ApplicationContainer InstallUe(NodeContainer ueNodes,
                                   NetDeviceContainer ueDevices,
                                   ApplicationContainer bsApps,
                                   Ptr<Node> sgwNode) const;

    /**
     * \brief One EdgeLlmUeApp per request of a request trace (LlmRequestTrace), each its own
     *        session, served as InstallUe(ueNodes, ueDevices, bsApps) serves a UE's one
     *        prompt: by the EdgeLlmNode of the cell the UE is served by when it is sent.
     *
     * The k-th request of UE u (k = 1, 2, ... in the order given, continued by a later call
     * of this helper or its copies) has session id
     * EdgeLlmSessionId::Make(IMSI of u, k), LocalPort the UE factory's LocalPort + k,
     * PromptTokens its promptTokens, MaxNewTokens its outputTokens, and starts at
     * \p start + its arrival (a prompt due while its UE is between cells waits for the
     * handover's end). The BSs hand each session over with its UE (the RRC's HandoverStart
     * names the IMSI: EdgeLlmNode::RrcHandoverStart). The turns of a conversation of more
     * than one turn are chained (EdgeLlmUeApp::SetPreviousTurn: turn t + 1 goes at its
     * arrival or at turn t's final token, whichever is later) and name the conversation
     * (Conversation: its turn 0's session id), their EarlierTokens and MoreTurns.
     * \param ueNodes UE nodes
     * \param ueDevices their UE devices, of the RAN (SetRan(); default LTE)
     * \param bsApps the EdgeLlmNode of every cell a UE may be served by
     * \param requests the requests: ue < ueNodes.GetN(), promptTokens and outputTokens at most
     *        2^32 - 1, arrival in [0, 1e9] s, at most (65535 - LocalPort) per UE (the UEs
     *        attached after the call: each prompt waits for its UE's attach); a
     *        conversation's turn t > 0 after its turn t - 1, on the same UE, its context
     *        (the earlier turns' prompts and outputs plus its prompt) at most 2^32 - 1
     * \param start the simulation time of the trace's time 0, >= 0
     * \return the applications, in the order of \p requests
     * Aborts naming the request and the field for a request out of those ranges, and as
     * InstallUe does without an EPC.
     */
    ApplicationContainer InstallUeRequests(NodeContainer ueNodes,
                                           NetDeviceContainer ueDevices,
                                           ApplicationContainer bsApps,
                                           const std::vector<LlmRequest>& requests,
                                           Time start = Seconds(0)) const;

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

    /// A conversation's latest turn InstallUeRequests installed.
    struct Turn
    {
        uint64_t conversation{0};  //!< Its Conversation attribute (0: a one-turn conversation)
        uint32_t ue{0};            //!< Its UE's index
        uint32_t turn{0};          //!< Its turn
        uint64_t earlierTokens{0}; //!< The context its next turn starts from
        Ptr<EdgeLlmUeApp> app;     //!< Its application
    };

    /**
     * \brief Check \p q's place in its conversation, set \p app's conversation attributes
     *        and chain it after the conversation's previous turn.
     * \param who the abort messages' prefix (names the request)
     * \param q the request
     * \param lastTurn the last turn of its conversation among the call's requests
     * \param sessionId its session id
     * \param app its application
     * \param turns per conversation, its latest turn so far (updated)
     * Aborts naming the field for a turn out of order, on another UE, or a context beyond
     * 2^32 - 1 tokens.
     */
    static void ChainTurn(const std::string& who,
                          const LlmRequest& q,
                          uint32_t lastTurn,
                          uint64_t sessionId,
                          Ptr<EdgeLlmUeApp> app,
                          std::map<uint64_t, Turn>& turns);

    /// \return the RAN set, or an unconfigured LteEdgeLlmRan (its device lookups)
    Ptr<EdgeLlmRan> GetRan() const;

    /// What the step-by-step calls have wired, shared with the refusals that run with the
    /// simulation (the helper may be gone by then).
    struct Wiring
    {
        std::set<const Application*> handoverTraced; //!< BS apps ConnectHandoverTrace wired
        std::set<uint64_t> ues; //!< IMSIs of the UEs InstallUe and InstallUeRequests served
        std::map<uint64_t, uint32_t> requests; //!< Requests InstallUeRequests gave each IMSI
    };

    /**
     * \brief Refuse, at the RRC's HandoverStart of a UE of this helper, a BS whose
     *        EdgeLlmNode ConnectHandoverTrace never connected (the session would stay at
     *        the source, unrecorded).
     * \param app the EdgeLlmNode on a node with a BS device of the RAN
     * \param rrcName the RAN's RRC attribute
     */
    void WatchHandoverTrace(Ptr<EdgeLlmNode> app, const std::string& rrcName) const;

    /**
     * \brief Refuse at time 0 (when the simulation starts) a UE the BSs cannot reach through
     *        the EPC: a BS node with no route to \p ueDevices' addresses, the SGW with none,
     *        or the PGW with none back to a BS's UE-facing address (AddEpcRoutes forgotten).
     * \param bsNodes the serving BS nodes
     * \param sgw the EPC's SGW (null: no EPC, nothing to check)
     * \param ueDevices the UE devices
     */
    static void CheckEpcRoutesAtStart(NodeContainer bsNodes,
                                      Ptr<Node> sgw,
                                      NetDeviceContainer ueDevices);

    /**
     * \brief The server of each cell \p bsApps serve, for EdgeLlmUeApp::WaitForAttach.
     * \param bsApps the EdgeLlmNodes (aborts naming one that is not)
     * \param sgwNode the EPC's SGW (their UE-facing addresses are toward it)
     * \return the resolver
     */
    static EdgeLlmUeApp::ServerResolver ServersOf(ApplicationContainer bsApps, Ptr<Node> sgwNode);

    /// \return the SGW InstallUe(ueNodes, ueDevices, bsApps) uses (aborts without an EPC)
    Ptr<Node> SgwFor(ApplicationContainer bsApps) const;

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
    std::shared_ptr<Wiring> m_wiring; //!< What the calls wired (copies share it)
    ObjectFactory m_nodeFactory;      //!< EdgeLlmNode
    ObjectFactory m_ueFactory;        //!< EdgeLlmUeApp
    ObjectFactory m_schedulerFactory; //!< HandoverScheduler subclass
    ObjectFactory m_gpuFactory;       //!< PrefillEngine
    bool m_serving{false};            //!< EnableServingGpu was called
    std::string m_servingPreset;      //!< Its preset ("": none)
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_servingAttributes; //!< After it
    /// Part attributes, in the order set: (the node's part attribute, name, value)
    std::vector<std::tuple<std::string, std::string, Ptr<AttributeValue>>> m_partAttributes;

    /**
     * \brief Keep \p name = \p value for the part \p part of every node installed
     *        afterwards, after checking it against the part's TypeId (EdgeLlmNode::GetParts).
     * \param part the node's attribute holding the part ("SourceRole", "BackhaulTransport",
     *        ...)
     * \param name the attribute
     * \param value its value
     */
    void AddPartAttribute(const std::string& part,
                          const std::string& name,
                          const AttributeValue& value);
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

} // namespace ns3

#endif /* EDGE_LLM_HELPER_H */
