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

int
main(int argc, char* argv[])
{
    std::string which;
    CommandLine cmd(__FILE__);
    cmd.AddValue("case",
                 "unknown-model | zero-backhaul-rate | own-cell-peer | no-scheduler | "
                 "shared-slot-scheduler | "
                 "scheduler-type=NAME (EdgeLlmHelper::SetSchedulerType(NAME))",
                 which);
    cmd.Parse(argc, argv);
    if (which.rfind("scheduler-type=", 0) == 0)
    {
        EdgeLlmHelper().SetSchedulerType(which.substr(15));
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
