/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup edge-llm
 * Edge LLMs added to an existing LTE script. The script is a user's own, written the way
 * ns-3's lena-x2-handover-measures example builds its network: an LteHelper with a
 * PointToPointEpcHelper, a row of eNBs, UEs driving along the row, the A3 RSRP handover
 * algorithm and the X2 interface between the eNBs. The lines marked "edge-llm" (the include,
 * the --scheme knob, and the blocks after AddX2Interface and after Simulator::Run) are all
 * that adds an EdgeLlmNode (LLM server with a GPU) to every eNB and an EdgeLlmUeApp (an
 * LLM session streaming tokens) to every UE, with the KV cache of each session handed over
 * X2 whenever the RRC hands its UE over; the rest of the script is untouched.
 *
 * Output: each UE's handovers as the RRC reports them, then the edge-LLM session records
 * (EdgeLlmSessionStats CSV: one row per handover) and each UE's token count.
 *
 *   ./edge-llm-lena-x2-handover --numberOfUes=4 --scheme=pre-ctho
 */

#include "ns3/core-module.h"
#include "ns3/edge-llm-module.h" // edge-llm
#include "ns3/internet-module.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <iostream>
#include <string>

using namespace ns3;

namespace
{

/// The UE RRC's HandoverEndOk: the handover the user sees.
void
UeHandoverDone(std::string /* context */, uint64_t imsi, uint16_t cellId, uint16_t /* rnti */)
{
    std::cout << Simulator::Now().As(Time::S) << " UE IMSI " << imsi << ": handover to cell "
              << cellId << " done\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    uint16_t numberOfUes = 4;
    uint16_t numberOfEnbs = 2;
    double distance = 500;       // m between neighbouring eNBs
    double speed = 20;           // m/s, every UE along +x
    double simTime = 8;          // s
    double enbTxPowerDbm = 46;   // dBm
    std::string scheme = "ctho"; // edge-llm
    CommandLine cmd(__FILE__);
    cmd.AddValue("numberOfUes", "UEs, 25 m apart, the first 25 m before the midpoint", numberOfUes);
    cmd.AddValue("numberOfEnbs", "eNBs on a row, distance apart", numberOfEnbs);
    cmd.AddValue("distance", "distance between neighbouring eNBs, m", distance);
    cmd.AddValue("speed", "the UEs' speed, m/s", speed);
    cmd.AddValue("simTime", "simulated time, s", simTime);
    cmd.AddValue("enbTxPowerDbm", "eNB transmit power, dBm", enbTxPowerDbm);
    cmd.AddValue("scheme",
                 HandoverSchemeRegistry::Describe(&HandoverScheme::HasScheduler),
                 scheme); // edge-llm
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::LteHelper::UseIdealRrc", BooleanValue(true));
    Ptr<LteHelper> lteHelper = CreateObject<LteHelper>();
    Ptr<PointToPointEpcHelper> epcHelper = CreateObject<PointToPointEpcHelper>();
    lteHelper->SetEpcHelper(epcHelper);
    lteHelper->SetHandoverAlgorithmType("ns3::A3RsrpHandoverAlgorithm");
    lteHelper->SetHandoverAlgorithmAttribute("Hysteresis", DoubleValue(3.0));
    lteHelper->SetHandoverAlgorithmAttribute("TimeToTrigger", TimeValue(MilliSeconds(256)));

    // eNBs at (distance, distance), (2 distance, distance), ...; UEs on the same row,
    // 25 m apart, driving toward the next eNB, the first 25 m before the midpoint.
    NodeContainer enbNodes;
    enbNodes.Create(numberOfEnbs);
    NodeContainer ueNodes;
    ueNodes.Create(numberOfUes);
    Ptr<ListPositionAllocator> enbPositions = CreateObject<ListPositionAllocator>();
    for (uint16_t i = 0; i < numberOfEnbs; ++i)
    {
        enbPositions->Add(Vector(distance * (i + 1), distance, 0));
    }
    MobilityHelper enbMobility;
    enbMobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    enbMobility.SetPositionAllocator(enbPositions);
    enbMobility.Install(enbNodes);
    MobilityHelper ueMobility;
    ueMobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    ueMobility.Install(ueNodes);
    for (uint16_t u = 0; u < numberOfUes; ++u)
    {
        Ptr<Node> ue = ueNodes.Get(u);
        ue->GetObject<MobilityModel>()->SetPosition(
            Vector(1.5 * distance - 25 * (u + 1), distance, 0));
        ue->GetObject<ConstantVelocityMobilityModel>()->SetVelocity(Vector(speed, 0, 0));
    }

    Config::SetDefault("ns3::LteEnbPhy::TxPower", DoubleValue(enbTxPowerDbm));
    NetDeviceContainer enbLteDevs = lteHelper->InstallEnbDevice(enbNodes);
    NetDeviceContainer ueLteDevs = lteHelper->InstallUeDevice(ueNodes);
    InternetStackHelper internet;
    internet.Install(ueNodes);
    epcHelper->AssignUeIpv4Address(ueLteDevs);
    Ipv4StaticRoutingHelper routing;
    for (uint16_t u = 0; u < numberOfUes; ++u)
    {
        routing.GetStaticRouting(ueNodes.Get(u)->GetObject<Ipv4>())
            ->SetDefaultRoute(epcHelper->GetUeDefaultGatewayAddress(), 1);
    }
    lteHelper->Attach(ueLteDevs, enbLteDevs.Get(0));
    lteHelper->AddX2Interface(enbNodes);
    Config::Connect("/NodeList/*/DeviceList/*/LteUeRrc/HandoverEndOk",
                    MakeCallback(&UeHandoverDone));

    // edge-llm: an EdgeLlmNode on every eNB, an LLM session on every UE, wired in one call
    EdgeLlmHelper edgeLlm;
    edgeLlm.SetScheduler(HandoverSchemeRegistry::GetFactory(scheme));
    auto llm = edgeLlm.Install(LteEdgeLlmRan::Wrap(lteHelper, epcHelper, enbLteDevs, ueLteDevs));
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(llm.bsApps, llm.ueApps);

    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    std::cout << stats->GetCsv(); // edge-llm: one row per handover, then each UE's tokens
    for (uint32_t u = 0; u < llm.ueApps.GetN(); ++u)
    {
        Ptr<EdgeLlmUeApp> app = DynamicCast<EdgeLlmUeApp>(llm.ueApps.Get(u));
        std::cout << "UE IMSI " << app->GetSessionId() << ": " << app->GetTokensReceived()
                  << " tokens\n";
    }
    Simulator::Destroy();
    return 0;
}
