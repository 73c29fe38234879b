/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-helper.h"

#include "edge-llm-backhaul-helper.h"
#include "lte-edge-llm-ran.h"

#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/global-value.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmHelper");

namespace
{

/// The p2p device of \p a whose channel's other end is on \p b (null if none).
Ptr<PointToPointNetDevice>
FindLink(Ptr<Node> a, Ptr<Node> b)
{
    for (uint32_t i = 0; i < a->GetNDevices(); ++i)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(a->GetDevice(i));
        if (!dev)
        {
            continue;
        }
        Ptr<Channel> ch = dev->GetChannel();
        for (std::size_t k = 0; ch && k < ch->GetNDevices(); ++k)
        {
            if (ch->GetDevice(k) != dev && ch->GetDevice(k)->GetNode() == b)
            {
                return dev;
            }
        }
    }
    return nullptr;
}

Ipv4Address
AddressOf(Ptr<NetDevice> dev)
{
    Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
    const int32_t itf = ipv4->GetInterfaceForDevice(dev);
    NS_ABORT_MSG_IF(itf < 0 || ipv4->GetNAddresses(itf) == 0,
                    "node " << dev->GetNode()->GetId() << ": link device has no IPv4 address");
    return ipv4->GetAddress(itf, 0).GetLocal();
}

/// \return whether \p node has a BS device of the RAN (one with the RRC attribute \p rrcName)
bool
IsRanBs(Ptr<Node> node, const std::string& rrcName)
{
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        TypeId::AttributeInformation info;
        if (node->GetDevice(i)->GetInstanceTypeId().LookupAttributeByName(rrcName, &info))
        {
            return true;
        }
    }
    return false;
}

/**
 * Refuse an X2/Xn link from cell \p from to cell \p to slower than
 * EdgeLlmRan::MinBackhaulBitRate for its MTU and delay: below it the RRC's handover timers
 * expire while X2 messages are on the way (ns-3 then dereferences a removed UE context).
 */
void
CheckX2Link(const EdgeLlmRan& ran, Ptr<PointToPointNetDevice> dev, uint16_t from, uint16_t to)
{
    DataRateValue rate;
    dev->GetAttribute("DataRate", rate);
    TimeValue delay;
    dev->GetChannel()->GetAttribute("Delay", delay);
    const double minimum =
        EdgeLlmRan::MinBackhaulBitRate(ran.GetRatName(), dev->GetMtu(), delay.Get());
    const auto bitRate = static_cast<double>(rate.Get().GetBitRate());
    if (bitRate < minimum)
    {
        std::ostringstream what;
        what << "EdgeLlmHelper::ConnectBackhaul: the X2/Xn link from cell " << from << " to cell "
             << to << " carries " << bitRate << " bit/s; it must carry at least "
             << std::ceil(minimum) << " bit/s (EdgeLlmRan::MinBackhaulBitRate at MTU "
             << dev->GetMtu() << " B and delay " << delay.Get().As(Time::US)
             << ") for the X2 signalling to meet the RRC's handover timers: raise the EPC "
                "helper's X2LinkDataRate";
        throw std::invalid_argument(what.str());
    }
}

/// The checker's description of the valid values, e.g. "uint32_t 1024:16777216", "Tcp|Udp".
std::string
ValidValues(Ptr<const AttributeChecker> checker)
{
    const std::string range = checker->GetUnderlyingTypeInformation();
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
                         const std::map<std::string, std::string>& setByProgram)
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
        const auto set = setByProgram.find(name);
        if (set != setByProgram.end())
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
        return "";
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
    std::string valid;
    TypeId::LookupByNameFailSafe(tidName, &tid);
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

} // namespace

std::string
ValidTypeIds(const std::string& base, const TypeIdRefusal& refusal)
{
    TypeId baseTid;
    std::string valid;
    if (!TypeId::LookupByNameFailSafe(base, &baseTid))
    {
        return valid;
    }
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId t = TypeId::GetRegistered(i);
        if (t != baseTid && t.IsChildOf(baseTid) && t.HasConstructor() &&
            (!refusal || refusal(t.GetName()).empty()))
        {
            valid += (valid.empty() ? "" : ", ") + t.GetName();
        }
    }
    return valid;
}

void
RequireTypeId(const std::string& field,
              const std::string& name,
              const std::string& base,
              const TypeIdRefusal& refusal)
{
    TypeId baseTid;
    if (!TypeId::LookupByNameFailSafe(base, &baseTid))
    {
        throw std::invalid_argument(field + ": this ns-3 has no " + base);
    }
    TypeId tid;
    const bool known = TypeId::LookupByNameFailSafe(name, &tid) && tid != baseTid &&
                       tid.IsChildOf(baseTid) && tid.HasConstructor();
    const std::string why = known && refusal ? refusal(tid.GetName()) : "";
    if (known && why.empty())
    {
        return;
    }
    throw std::invalid_argument(
        field + ": " + (known ? tid.GetName() + " " + why : "'" + name + "' is no " + base) +
        "; valid: " + ValidTypeIds(base, refusal));
}

bool
CheckAttributeArguments(int argc,
                        char* argv[],
                        const std::map<std::string, std::string>& setByProgram,
                        std::ostream& err)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string name;
        std::string value;
        if (!SplitArgument(argv[i], name, value))
        {
            continue; // a non-option argument: CommandLine's business
        }
        const std::string problem = name.rfind("ns3::", 0) == 0
                                        ? AttributeArgumentProblem(name, value, setByProgram)
                                        : GlobalArgumentProblem(name, value);
        if (!problem.empty())
        {
            err << "error: " << argv[i] << ": " << problem << std::endl;
            return false;
        }
    }
    return true;
}

EdgeLlmHelper::EdgeLlmHelper()
{
    m_nodeFactory.SetTypeId("ns3::EdgeLlmNode");
    m_ueFactory.SetTypeId("ns3::EdgeLlmUeApp");
    m_schedulerFactory.SetTypeId("ns3::CtHoScheduler");
    m_gpuFactory.SetTypeId("ns3::PrefillEngine");
}

void
EdgeLlmHelper::CheckSchedulerType(const std::string& type)
{
    std::string problem;
    try
    {
        RequireTypeId("EdgeLlmHelper::SetSchedulerType", type, "ns3::HandoverScheduler");
    }
    catch (const std::invalid_argument& e)
    {
        problem = e.what();
    }
    NS_ABORT_MSG_IF(!problem.empty(), problem);
}

void
EdgeLlmHelper::SetRan(Ptr<EdgeLlmRan> ran)
{
    m_ran = ran;
}

Ptr<EdgeLlmRan>
EdgeLlmHelper::GetRan() const
{
    return m_ran ? m_ran : Ptr<EdgeLlmRan>(CreateObject<LteEdgeLlmRan>());
}

void
EdgeLlmHelper::SetNodeAttribute(const std::string& name, const AttributeValue& value)
{
    m_nodeFactory.Set(name, value);
}

void
EdgeLlmHelper::SetUeAttribute(const std::string& name, const AttributeValue& value)
{
    m_ueFactory.Set(name, value);
}

void
EdgeLlmHelper::SetPrefillEngineAttribute(const std::string& name, const AttributeValue& value)
{
    m_gpuFactory.Set(name, value);
}

ApplicationContainer
EdgeLlmHelper::InstallBs(NodeContainer nodes, const std::vector<uint16_t>& cellIds) const
{
    NS_ABORT_MSG_IF(nodes.GetN() != cellIds.size(),
                    "EdgeLlmHelper::InstallBs: " << nodes.GetN() << " nodes but " << cellIds.size()
                                                 << " cell ids");
    ApplicationContainer apps;
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> app = m_nodeFactory.Create<EdgeLlmNode>();
        app->SetAttribute("CellId", UintegerValue(cellIds[i]));
        app->SetAttribute("Scheduler",
                          PointerValue(m_schedulerFactory.Create<HandoverScheduler>()));
        app->SetAttribute("PrefillEngine", PointerValue(m_gpuFactory.Create<PrefillEngine>()));
        nodes.Get(i)->AddApplication(app);
        apps.Add(app);
    }
    return apps;
}

ApplicationContainer
EdgeLlmHelper::InstallOnEnbs(NetDeviceContainer enbDevices) const
{
    const Ptr<EdgeLlmRan> ran = GetRan();
    NodeContainer nodes;
    std::vector<uint16_t> cellIds;
    for (uint32_t i = 0; i < enbDevices.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!enbDevices.Get(i),
                        "EdgeLlmHelper::InstallOnEnbs: device " << i << " is null");
        cellIds.push_back(ran->GetCellId(enbDevices.Get(i))); // aborts for a foreign device
        nodes.Add(enbDevices.Get(i)->GetNode());
    }
    return InstallBs(nodes, cellIds);
}

void
EdgeLlmHelper::ConnectBackhaul(ApplicationContainer bsApps) const
{
    Ptr<EdgeLlmRan> ran = GetRan();
    uint32_t links = 0;
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        for (uint32_t j = 0; j < bsApps.GetN(); ++j)
        {
            if (i == j)
            {
                continue;
            }
            Ptr<EdgeLlmNode> a = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
            Ptr<EdgeLlmNode> b = DynamicCast<EdgeLlmNode>(bsApps.Get(j));
            NS_ABORT_MSG_IF(!a || !b, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
            Ptr<PointToPointNetDevice> dev = FindLink(a->GetNode(), b->GetNode());
            if (!dev)
            {
                continue;
            }
            ++links;
            DataRateValue rate;
            dev->GetAttribute("DataRate", rate);
            if (IsRanBs(a->GetNode(), ran->GetRrcName()) &&
                IsRanBs(b->GetNode(), ran->GetRrcName()))
            {
                // An X2/Xn link, however it was made (LteHelper::AddX2Interface in a script
                // of one's own): what EdgeLlmRan::Install gives its links.
                CheckX2Link(*ran, dev, a->GetCellId(), b->GetCellId());
                if (ran->GetX2SignallingPriority() && !EdgeLlmRan::HasX2QueueDisc(dev))
                {
                    EdgeLlmRan::InstallX2QueueDisc(dev, "ns3::FifoQueueDisc");
                }
            }
            const auto [local, remote] = GetLinkAddresses(a->GetNode(), b->GetNode());
            a->AddPeer(b->GetCellId(), local, remote, rate.Get());
        }
    }
    if (bsApps.GetN() >= 2 && links == 0)
    {
        throw std::invalid_argument(
            "EdgeLlmHelper::ConnectBackhaul: no two of the " + std::to_string(bsApps.GetN()) +
            " BSs are joined by a point-to-point link, so no session could be handed over. "
            "Call it after the X2/Xn links exist: LteHelper::AddX2Interface (or "
            "EpcHelper::AddX2Interface, EdgeLlmRan::Install), then InstallOnEnbs, then "
            "ConnectBackhaul; or pass an installed EdgeLlmBackhaul");
    }
}

void
EdgeLlmHelper::ConnectBackhaul(ApplicationContainer bsApps, Ptr<EdgeLlmBackhaul> backhaul) const
{
    NS_ABORT_MSG_IF(!backhaul, "EdgeLlmHelper::ConnectBackhaul: null backhaul");
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> a = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        NS_ABORT_MSG_IF(!a, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
        const int32_t from = backhaul->GetSiteIndex(a->GetNode());
        NS_ABORT_MSG_IF(from < 0,
                        "EdgeLlmHelper::ConnectBackhaul: node " << a->GetNode()->GetId()
                                                                << " is no site of the backhaul");
        for (uint32_t j = 0; j < bsApps.GetN(); ++j)
        {
            Ptr<EdgeLlmNode> b = DynamicCast<EdgeLlmNode>(bsApps.Get(j));
            NS_ABORT_MSG_IF(!b, "EdgeLlmHelper::ConnectBackhaul: not an EdgeLlmNode");
            const int32_t to = backhaul->GetSiteIndex(b->GetNode());
            NS_ABORT_MSG_IF(to < 0,
                            "EdgeLlmHelper::ConnectBackhaul: node "
                                << b->GetNode()->GetId() << " is no site of the backhaul");
            if (i == j)
            {
                continue;
            }
            const EdgeLlmBackhaul::Path path = backhaul->GetPath(from, to);
            EdgeLlmNode::PeerPath peer;
            peer.local = path.local;
            peer.remote = path.remote;
            peer.rate = path.bottleneck;
            peer.delay = path.delay;
            peer.mtu = path.mtu;
            peer.links = path.links;
            a->AddPeer(b->GetCellId(), peer);
        }
    }
}

void
EdgeLlmHelper::CheckConfiguration(ApplicationContainer bsApps)
{
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        NS_ABORT_MSG_IF(!bs, "EdgeLlmHelper::CheckConfiguration: not an EdgeLlmNode");
        const std::string error = bs->CheckConfiguration();
        if (!error.empty())
        {
            throw std::invalid_argument(error);
        }
    }
}

void
EdgeLlmHelper::ConnectHandoverTrace(ApplicationContainer bsApps, const std::string& rrcArg) const
{
    const std::string rrcName = rrcArg.empty() ? GetRan()->GetRrcName() : rrcArg;
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> app = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        std::ostringstream path;
        path << "/NodeList/" << app->GetNode()->GetId() << "/DeviceList/*/" << rrcName
             << "/HandoverStart";
        const bool ok = Config::ConnectWithoutContextFailSafe(
            path.str(),
            MakeCallback(&EdgeLlmNode::RrcHandoverStart, app));
        NS_ABORT_MSG_IF(!ok, "EdgeLlmHelper::ConnectHandoverTrace: no trace at " << path.str());
#if EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES
        // Handover failures, where the RRC reports them (LteEnbRrc does since ns-3.37;
        // before, LTE models no handover failure and there is nothing to connect).
        for (const char* failure : {"HandoverFailureNoPreamble",
                                    "HandoverFailureMaxRach",
                                    "HandoverFailureLeaving",
                                    "HandoverFailureJoining"})
        {
            std::ostringstream fp;
            fp << "/NodeList/" << app->GetNode()->GetId() << "/DeviceList/*/" << rrcName << "/"
               << failure;
            // Every BS hears it: the session's source when the target's RRC refused the
            // UE before the source started the handover (HandoverFailureNoPreamble).
            for (uint32_t j = 0; j < bsApps.GetN(); ++j)
            {
                Config::ConnectWithoutContextFailSafe(
                    fp.str(),
                    MakeCallback(&EdgeLlmNode::RrcHandoverFailure,
                                 DynamicCast<EdgeLlmNode>(bsApps.Get(j))));
            }
        }
#endif
    }
}

ApplicationContainer
EdgeLlmHelper::InstallUe(NodeContainer ueNodes,
                         NetDeviceContainer ueDevices,
                         Ptr<Application> server,
                         Ipv4Address serverAddress) const
{
    NS_ABORT_MSG_IF(ueNodes.GetN() != ueDevices.GetN(),
                    "EdgeLlmHelper::InstallUe: " << ueNodes.GetN() << " nodes but "
                                                 << ueDevices.GetN() << " devices");
    const Ptr<EdgeLlmRan> ran = GetRan();
    ApplicationContainer apps;
    for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!ueDevices.Get(i), "EdgeLlmHelper::InstallUe: device " << i << " is null");
        Ptr<EdgeLlmUeApp> app = m_ueFactory.Create<EdgeLlmUeApp>();
        // The IMSI: aborts naming the device if it is not the RAN's UE device.
        app->SetAttribute("SessionId", UintegerValue(ran->GetImsi(ueDevices.Get(i))));
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(server);
        NS_ABORT_MSG_IF(!bs, "EdgeLlmHelper::InstallUe: the server is not an EdgeLlmNode");
        UintegerValue port;
        bs->GetAttribute("UePort", port);
        DoubleValue rate;
        bs->GetAttribute("DecodeRate", rate);
        app->SetAttribute("DecodeInterval", TimeValue(Seconds(1.0 / rate.Get())));
        app->SetAttribute("ServerPort", port);
        app->SetAttribute("ServerAddress", Ipv4AddressValue(serverAddress));
        ueNodes.Get(i)->AddApplication(app);
        apps.Add(app);
        WaitForAttach(app, ueDevices.Get(i), ran->GetUeRrcName(), nullptr);
    }
    return apps;
}

void
EdgeLlmHelper::WaitForAttach(Ptr<EdgeLlmUeApp> app,
                             Ptr<NetDevice> ueDevice,
                             const std::string& ueRrcName,
                             EdgeLlmUeApp::ServerResolver resolver)
{
    std::ostringstream path;
    path << "/NodeList/" << ueDevice->GetNode()->GetId() << "/DeviceList/" << ueDevice->GetIfIndex()
         << "/" << ueRrcName << "/";
    // The attach: ConnectionEstablished names the cell; the data bearer (without which the
    // UE's RRC drops the prompt) comes with the RRC reconfiguration after it.
    if (Config::ConnectWithoutContextFailSafe(path.str() + "ConnectionEstablished",
                                              MakeCallback(&EdgeLlmUeApp::NotifyAttached, app)) &&
        Config::ConnectWithoutContextFailSafe(path.str() + "ConnectionReconfiguration",
                                              MakeCallback(&EdgeLlmUeApp::NotifyBearerReady, app)))
    {
        app->WaitForAttach(resolver);
    }
    else
    {
        NS_ABORT_MSG_IF(resolver,
                        "EdgeLlmHelper::InstallUe: no " << path.str()
                                                        << "ConnectionEstablished trace to "
                                                           "learn the UE's cell from");
    }
}

ApplicationContainer
EdgeLlmHelper::InstallUe(NodeContainer ueNodes,
                         NetDeviceContainer ueDevices,
                         ApplicationContainer bsApps) const
{
    NS_ABORT_MSG_IF(ueNodes.GetN() != ueDevices.GetN(),
                    "EdgeLlmHelper::InstallUe: " << ueNodes.GetN() << " nodes but "
                                                 << ueDevices.GetN() << " devices");
    const Ptr<EdgeLlmRan> ran = GetRan();

    struct Server
    {
        Ipv4Address address;
        uint16_t port{0};
        Time decodeInterval;
    };

    std::map<uint16_t, Server> servers; // by cell id
    for (uint32_t b = 0; b < bsApps.GetN(); ++b)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(bsApps.Get(b));
        NS_ABORT_MSG_IF(!bs,
                        "EdgeLlmHelper::InstallUe: application " << b << " is not an EdgeLlmNode");
        UintegerValue port;
        bs->GetAttribute("UePort", port);
        DoubleValue rate;
        bs->GetAttribute("DecodeRate", rate);
        servers[bs->GetCellId()] = {GetUeFacingAddress(bs->GetNode(), ran->GetSgwNode()),
                                    static_cast<uint16_t>(port.Get()),
                                    Seconds(1.0 / rate.Get())};
    }
    ApplicationContainer apps;
    for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
    {
        NS_ABORT_MSG_IF(!ueDevices.Get(i), "EdgeLlmHelper::InstallUe: device " << i << " is null");
        Ptr<EdgeLlmUeApp> app = m_ueFactory.Create<EdgeLlmUeApp>();
        app->SetAttribute("SessionId", UintegerValue(ran->GetImsi(ueDevices.Get(i))));
        ueNodes.Get(i)->AddApplication(app);
        apps.Add(app);
        WaitForAttach(app,
                      ueDevices.Get(i),
                      ran->GetUeRrcName(),
                      [servers](uint16_t cell, Ipv4Address& address, uint16_t& port, Time& dt) {
                          const auto it = servers.find(cell);
                          if (it == servers.end())
                          {
                              return false;
                          }
                          address = it->second.address;
                          port = it->second.port;
                          dt = it->second.decodeInterval;
                          return true;
                      });
    }
    return apps;
}

std::pair<Ipv4Address, Ipv4Address>
EdgeLlmHelper::GetLinkAddresses(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<PointToPointNetDevice> devA = FindLink(a, b);
    Ptr<PointToPointNetDevice> devB = FindLink(b, a);
    NS_ABORT_MSG_IF(!devA || !devB,
                    "no point-to-point link between nodes " << a->GetId() << " and " << b->GetId());
    return {AddressOf(devA), AddressOf(devB)};
}

Ipv4Address
EdgeLlmHelper::GetUeFacingAddress(Ptr<Node> enbNode, Ptr<Node> sgw)
{
    return GetLinkAddresses(enbNode, sgw).first;
}

void
EdgeLlmHelper::AddEpcRoutes(Ptr<Node> sgw, Ptr<Node> pgw, NodeContainer enbNodes)
{
    Ipv4StaticRoutingHelper routing;
    const Ipv4Address ueNet("7.0.0.0");
    const Ipv4Mask ueMask("255.0.0.0");
    const auto [sgwS5, pgwS5] = GetLinkAddresses(sgw, pgw);
    for (uint32_t i = 0; i < enbNodes.GetN(); ++i)
    {
        Ptr<Node> enb = enbNodes.Get(i);
        const auto [enbS1u, sgwS1u] = GetLinkAddresses(enb, sgw);
        Ptr<Ipv4> ipv4 = enb->GetObject<Ipv4>();
        routing.GetStaticRouting(ipv4)->AddNetworkRouteTo(ueNet,
                                                          ueMask,
                                                          sgwS1u,
                                                          ipv4->GetInterfaceForAddress(enbS1u));
    }
    Ptr<Ipv4> sgwIp = sgw->GetObject<Ipv4>();
    routing.GetStaticRouting(sgwIp)->AddNetworkRouteTo(ueNet,
                                                       ueMask,
                                                       pgwS5,
                                                       sgwIp->GetInterfaceForAddress(sgwS5));
    Ptr<Ipv4> pgwIp = pgw->GetObject<Ipv4>();
    routing.GetStaticRouting(pgwIp)->AddNetworkRouteTo(Ipv4Address("10.0.0.0"),
                                                       Ipv4Mask("255.0.0.0"),
                                                       sgwS5,
                                                       pgwIp->GetInterfaceForAddress(pgwS5));
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
    std::ostringstream range;
    range << std::fixed << std::setprecision(0) << "must be an integer in [" << lo << ", " << hi
          << "]";
    std::size_t first = 0;
    if (isSigned && !v.empty() && (v[0] == '-' || v[0] == '+'))
    {
        first = 1;
    }
    if (first == v.size() || v.find_first_not_of("0123456789", first) != std::string::npos)
    {
        return range.str();
    }
    // Compare as long double only past 18 digits: below that the text is exact in it.
    const long double x = std::strtold(v.c_str(), nullptr);
    if (x < lo || x > hi)
    {
        return range.str();
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

} // namespace ns3
