/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup edge-llm-tests
 * Drives EdgeLlmNode into its fatal-error paths, one per --case, so that a ctest
 * (test/cli/bad-input-test.sh) can check that a program given bad configuration
 * directly through the API (not through a CLI that validates first) stops with a
 * message naming the field instead of simulating garbage. Every case must abort;
 * reaching the end of main is itself a failure (exit 3).
 */

#include "ns3/core-module.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-source-role.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/impactho-scheduler.h"
#include "ns3/internet-module.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/point-to-point-helper.h"

#include <iostream>
#include <string>

using namespace ns3;

namespace
{
/**
 * Set one attribute of a node's part through the helper, install one BS and print the
 * value its part then holds (a valid value: exit 3, "did not abort", as every case).
 * \param spec PART:NAME=VALUE
 * \return 3 (the helper should have aborted on a bad name or value), or 2 (bad spec)
 */
int
SetPartAttribute(const std::string& spec)
{
    const auto colon = spec.find(':');
    const auto equals = spec.find('=');
    if (colon == std::string::npos || equals == std::string::npos || equals < colon)
    {
        std::cerr << "--case: part-attribute=PART:NAME=VALUE, got '" << spec << "'\n";
        return 2;
    }
    const std::string part = spec.substr(0, colon);
    const std::string name = spec.substr(colon + 1, equals - colon - 1);
    const StringValue value(spec.substr(equals + 1));
    EdgeLlmHelper edge;
    if (part == "SourceRole")
    {
        edge.SetSourceRoleAttribute(name, value);
    }
    else if (part == "TargetRole")
    {
        edge.SetTargetRoleAttribute(name, value);
    }
    else if (part == "PreTransferRole")
    {
        edge.SetPreTransferRoleAttribute(name, value);
    }
    else if (part == "BackhaulTransport")
    {
        edge.SetBackhaulTransportAttribute(name, value);
    }
    else
    {
        std::cerr << "--case: unknown part '" << part << "'\n";
        return 2;
    }
    NodeContainer bs(1);
    Ptr<EdgeLlmNode> app =
        DynamicCast<EdgeLlmNode>(edge.InstallBs(bs, std::vector<uint16_t>{1}).Get(0));
    PointerValue object;
    app->GetAttribute(part, object);
    StringValue held;
    object.Get<Object>()->GetAttribute(name, held);
    std::cerr << part << "/" << name << " = " << held.Get() << "\n";
    std::cerr << "case 'part-attribute=" << spec << "' did not abort\n";
    return 3;
}

/**
 * A script's own LTE (two eNBs 300 m apart, X2, one UE between them handed over by request
 * at 1 s) with edge LLMs (pre-ctho: proactive pre-transfer) added step by step, without
 * SetRan (the helper's LTE fallback), but for the call \p forget: AddEpcRoutes (refused at
 * time 0), ConnectHandoverTrace (refused at the handover), or none (runs to 2 s and prints
 * the UE's tokens and the source's handovers).
 * \return 3 (did not abort), or 2 (unknown call)
 */
int
ForgetOneCall(const std::string& forget)
{
    if (forget != "AddEpcRoutes" && forget != "ConnectHandoverTrace" && forget != "none")
    {
        std::cerr << "--case: forget=AddEpcRoutes|ConnectHandoverTrace|none, got '" << forget
                  << "'\n";
        return 2;
    }
    Ptr<LteHelper> lte = CreateObject<LteHelper>();
    Ptr<PointToPointEpcHelper> epc = CreateObject<PointToPointEpcHelper>();
    lte->SetEpcHelper(epc);
    lte->SetHandoverAlgorithmType("ns3::NoOpHandoverAlgorithm");
    NodeContainer enbs(2);
    NodeContainer ues(1);
    Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator>();
    for (const double x : {0.0, 300.0, 140.0})
    {
        at->Add(Vector(x, 0, 0));
    }
    MobilityHelper mobility;
    mobility.SetPositionAllocator(at);
    mobility.Install(enbs);
    mobility.Install(ues);
    const NetDeviceContainer enbDevs = lte->InstallEnbDevice(enbs);
    const NetDeviceContainer ueDevs = lte->InstallUeDevice(ues);
    InternetStackHelper().Install(ues);
    epc->AssignUeIpv4Address(ueDevs);
    Ipv4StaticRoutingHelper()
        .GetStaticRouting(ues.Get(0)->GetObject<Ipv4>())
        ->SetDefaultRoute(epc->GetUeDefaultGatewayAddress(), 1);
    lte->Attach(ueDevs, enbDevs.Get(0));
    lte->AddX2Interface(enbs);

    EdgeLlmHelper edge; // no SetRan: LTE
    // Pre-transfer: its A3 trigger looks up each eNB's device on its node.
    edge.SetScheduler(HandoverSchemeRegistry::GetFactory("pre-ctho"));
    const ApplicationContainer bs = edge.InstallOnEnbs(enbDevs);
    edge.ConnectBackhaul(bs);
    if (forget != "ConnectHandoverTrace")
    {
        edge.ConnectHandoverTrace(bs);
    }
    if (forget != "AddEpcRoutes")
    {
        EdgeLlmHelper::AddEpcRoutes(epc->GetSgwNode(), epc->GetPgwNode(), enbs);
    }
    const ApplicationContainer ue = edge.InstallUe(ues, ueDevs, bs); // the EPC found from bs
    uint32_t handovers = 0;
    DynamicCast<EdgeLlmNode>(bs.Get(0))->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverStarted",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [&handovers](uint64_t, uint16_t, uint64_t) { ++handovers; }));
    lte->HandoverRequest(Seconds(1), ueDevs.Get(0), enbDevs.Get(0), enbDevs.Get(1));
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    std::cerr << "tokens " << DynamicCast<EdgeLlmUeApp>(ue.Get(0))->GetTokensReceived()
              << ", handovers started at the source " << handovers << "\n";
    Simulator::Destroy();
    std::cerr << "case 'forget=" << forget << "' did not abort\n";
    return 3;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string which;
    CommandLine cmd(__FILE__);
    cmd.AddValue("case",
                 "unknown-model | zero-backhaul-rate | own-cell-peer | no-scheduler | "
                 "shared-slot-scheduler | ue-without-epc | foreign-bs-device | "
                 "scheduler-type=NAME (EdgeLlmHelper::SetSchedulerType(NAME)) | "
                 "part-attribute=PART:NAME=VALUE (EdgeLlmHelper::Set<PART>Attribute(NAME, "
                 "VALUE), PART one of SourceRole, TargetRole, PreTransferRole, "
                 "BackhaulTransport; installed on one BS whose part is read back) | "
                 "forget=AddEpcRoutes|ConnectHandoverTrace|none (an LTE script's edge LLMs "
                 "added step by step without that call)",
                 which);
    cmd.Parse(argc, argv);
    if (which.rfind("part-attribute=", 0) == 0)
    {
        return SetPartAttribute(which.substr(15));
    }
    if (which.rfind("forget=", 0) == 0)
    {
        return ForgetOneCall(which.substr(7));
    }
    if (which.rfind("scheduler-type=", 0) == 0)
    {
        EdgeLlmHelper().SetSchedulerType(which.substr(15));
        std::cerr << "case '" << which << "' did not abort\n";
        return 3;
    }

    if (which == "foreign-bs-device")
    {
        // BS devices of a RAT the helper was not told about (no SetRan: it reads LTE); a
        // point-to-point device stands for, e.g., an NrGnbNetDevice.
        NodeContainer pair(2);
        EdgeLlmHelper().InstallOnEnbs(PointToPointHelper().Install(pair));
        std::cerr << "case '" << which << "' did not abort\n";
        return 3;
    }
    if (which == "ue-without-epc")
    {
        // InstallUe(nodes, devices, bsApps) with no RAN set: no EPC to address the BSs by.
        EdgeLlmHelper().InstallUe(NodeContainer(), NetDeviceContainer(), ApplicationContainer());
        std::cerr << "case '" << which << "' did not abort\n";
        return 3;
    }
    if (which == "shared-slot-scheduler")
    {
        // Two BSs given one ImpactHO scheduler: its per-session state is one BS's.
        Ptr<ImpactHoScheduler> shared = CreateObject<ImpactHoScheduler>();
        for (uint16_t cell : {1, 2})
        {
            Ptr<Node> bs = CreateObject<Node>();
            InternetStackHelper().Install(bs);
            Ptr<EdgeLlmNode> a = CreateObject<EdgeLlmNode>();
            a->SetAttribute("CellId", UintegerValue(cell));
            a->SetAttribute("Scheduler", PointerValue(shared));
            bs->AddApplication(a);
            a->SetStartTime(Seconds(0));
        }
        Simulator::Stop(Seconds(0.1));
        Simulator::Run();
        Simulator::Destroy();
        std::cerr << "case '" << which << "' did not abort\n";
        return 3;
    }

    Ptr<Node> node = CreateObject<Node>();
    InternetStackHelper().Install(node);
    Ptr<EdgeLlmNode> app = CreateObject<EdgeLlmNode>();
    app->SetAttribute("CellId", UintegerValue(1));
    if (which != "no-scheduler")
    {
        app->SetAttribute("Scheduler", PointerValue(CreateObject<CtHoScheduler>()));
    }
    node->AddApplication(app);

    if (which == "unknown-model")
    {
        app->SetAttribute("Model", StringValue("gpt-17"));
    }
    else if (which == "zero-backhaul-rate")
    {
        app->AddPeer(2, Ipv4Address("10.1.0.1"), Ipv4Address("10.1.0.2"), DataRate(0));
    }
    else if (which == "own-cell-peer")
    {
        app->AddPeer(1, Ipv4Address("10.1.0.1"), Ipv4Address("10.1.0.2"), DataRate("10Gbps"));
    }
    else if (which != "no-scheduler")
    {
        std::cerr << "--case: unknown case '" << which << "'\n";
        return 2;
    }
    app->SetStartTime(Seconds(0));
    Simulator::Stop(Seconds(0.1));
    Simulator::Run();
    Simulator::Destroy();
    std::cerr << "case '" << which << "' did not abort\n";
    return 3;
}
