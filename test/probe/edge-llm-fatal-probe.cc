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
#include "ns3/impactho-scheduler.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

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
} // namespace

int
main(int argc, char* argv[])
{
    std::string which;
    CommandLine cmd(__FILE__);
    cmd.AddValue("case",
                 "unknown-model | zero-backhaul-rate | own-cell-peer | no-scheduler | "
                 "shared-slot-scheduler | ue-without-epc | "
                 "scheduler-type=NAME (EdgeLlmHelper::SetSchedulerType(NAME)) | "
                 "part-attribute=PART:NAME=VALUE (EdgeLlmHelper::Set<PART>Attribute(NAME, "
                 "VALUE), PART one of SourceRole, TargetRole, PreTransferRole, "
                 "BackhaulTransport; installed on one BS whose part is read back)",
                 which);
    cmd.Parse(argc, argv);
    if (which.rfind("part-attribute=", 0) == 0)
    {
        return SetPartAttribute(which.substr(15));
    }
    if (which.rfind("scheduler-type=", 0) == 0)
    {
        EdgeLlmHelper().SetSchedulerType(which.substr(15));
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
