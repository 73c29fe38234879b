/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup edge-llm
 * Edge LLMs added to an existing NR (5G-LENA) script: the NR twin of
 * edge-llm-lena-x2-handover. The script is a user's own, written the way nr v4.1.1's
 * test/nr-test-x2-handover-measures.cc builds its network: an NrHelper with an
 * NrPointToPointEpcHelper and ideal beamforming, one band shared by a row of gNBs, UEs driving
 * along the row, the A3 RSRP handover algorithm and the X2 (Xn) interface between the gNBs.
 * The lines marked "edge-llm" (the include, the --scheme knob, and the blocks after
 * AddX2Interface and after Simulator::Run) are all that adds an EdgeLlmNode (LLM server with
 * a GPU) to every gNB and an EdgeLlmUeApp (an LLM session streaming tokens) to every UE, with
 * the KV cache of each session handed over X2 whenever the RRC hands its UE over.
 *
 * The block marked "check" makes the program a test (test.py runs it): it exits 1 unless
 * some session was restored and, for every UE the RRC handed over, each handover has a
 * session record to the cell the RRC handed the UE to that was restored there with a token
 * from there reaching the UE (its stall measured) or came after the session's last token
 * (nothing to restore).
 *
 * Three settings are the script's own, not the edge LLMs': no shadowing, so that the A3
 * event holds where the geometry says, and two nr v4.1.1 workarounds any NR script with
 * measured handovers needs (doc/edge-llm-design.rst, "Workarounds for nr v4.1.1"): nr's
 * NrHelper stores a handover algorithm type but never installs it, so the script puts one
 * on each gNB's RRC itself (as LteHelper does for an eNB); and a UE that hands over within
 * one band may send the target a DL CQI report with its RNTI of the source cell, on which
 * nr's scheduler asserts, so the DL runs at a fixed MCS.
 *
 * Output: each UE's handovers as the RRC reports them, the edge-LLM session records
 * (EdgeLlmSessionStats CSV: one row per handover) and the check's line. By default two UEs
 * hand over once each within the 5 s (2 to 3 s of wall time on one core).
 *
 *   ./edge-llm-nr-x2-handover --numberOfUes=4 --scheme=pre-ctho
 *
 * Built only in an ns-3 tree with the nr module.
 */

#include "ns3/core-module.h"
#include "ns3/edge-llm-module.h" // edge-llm
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/nr-module.h"
#include "ns3/point-to-point-module.h"

#include <cmath>
#include <iostream>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Per UE (IMSI), the cells the RRC handed it over to, in order.
std::map<uint64_t, std::vector<uint16_t>> g_handovers;
/// Handovers the RRC completed, every UE's.
uint32_t g_handoverCount = 0;

/// The UE RRC's HandoverEndOk: the handover the user sees.
void
UeHandoverDone(std::string /* context */, uint64_t imsi, uint16_t cellId, uint16_t /* rnti */)
{
    std::cout << Simulator::Now().As(Time::S) << " UE IMSI " << imsi << ": handover to cell "
              << cellId << " done\n";
    g_handovers[imsi].push_back(cellId);
    ++g_handoverCount;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint16_t numberOfUes = 2;
    uint16_t numberOfGnbs = 2;
    double distance = 300;       // m between neighbouring gNBs
    double speed = 20;           // m/s, every UE along +x
    double simTime = 5;          // s
    double gnbTxPowerDbm = 30;   // dBm
    std::string scheme = "ctho"; // edge-llm
    CommandLine cmd(__FILE__);
    cmd.AddValue("numberOfUes", "UEs, 25 m apart, the first 25 m before the midpoint", numberOfUes);
    cmd.AddValue("numberOfGnbs", "gNBs on a row, distance apart", numberOfGnbs);
    cmd.AddValue("distance", "distance between neighbouring gNBs, m", distance);
    cmd.AddValue("speed", "the UEs' speed, m/s", speed);
    cmd.AddValue("simTime", "simulated time, s", simTime);
    cmd.AddValue("gnbTxPowerDbm", "gNB transmit power, dBm", gnbTxPowerDbm);
    cmd.AddValue("scheme",
                 HandoverSchemeRegistry::Describe(&HandoverScheme::HasScheduler),
                 scheme); // edge-llm
    cmd.Parse(argc, argv);

    Config::SetDefault("ns3::NrGnbPhy::TxPower", DoubleValue(gnbTxPowerDbm));
    Config::SetDefault("ns3::NrUePhy::TxPower", DoubleValue(23));
    Config::SetDefault("ns3::NrUePhy::EnableUplinkPowerControl", BooleanValue(false));
    // No shadowing: the geometry alone decides where the A3 event holds (with shadowing,
    // neither of the default two UEs handed over within the 5 s).
    Config::SetDefault("ns3::ThreeGppPropagationLossModel::ShadowingEnabled", BooleanValue(false));
    Ptr<NrPointToPointEpcHelper> epcHelper = CreateObject<NrPointToPointEpcHelper>();
    Ptr<IdealBeamformingHelper> beamformingHelper = CreateObject<IdealBeamformingHelper>();
    beamformingHelper->SetAttribute("BeamformingMethod",
                                    TypeIdValue(DirectPathBeamforming::GetTypeId()));
    Ptr<NrHelper> nrHelper = CreateObject<NrHelper>();
    nrHelper->SetBeamformingHelper(beamformingHelper);
    nrHelper->SetEpcHelper(epcHelper);
    nrHelper->SetSchedulerAttribute("FixedMcsDl", BooleanValue(true)); // nr v4.1.1: see top

    // gNBs at (distance, 0, 25), (2 distance, 0, 25), ...; UEs on the same row at 1.5 m,
    // 25 m apart, driving toward the next gNB, the first 25 m before the midpoint.
    NodeContainer gnbNodes;
    gnbNodes.Create(numberOfGnbs);
    NodeContainer ueNodes;
    ueNodes.Create(numberOfUes);
    Ptr<ListPositionAllocator> gnbPositions = CreateObject<ListPositionAllocator>();
    for (uint16_t i = 0; i < numberOfGnbs; ++i)
    {
        gnbPositions->Add(Vector(distance * (i + 1), 0, 25));
    }
    MobilityHelper gnbMobility;
    gnbMobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    gnbMobility.SetPositionAllocator(gnbPositions);
    gnbMobility.Install(gnbNodes);
    MobilityHelper ueMobility;
    ueMobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
    ueMobility.Install(ueNodes);
    for (uint16_t u = 0; u < numberOfUes; ++u)
    {
        Ptr<Node> ue = ueNodes.Get(u);
        ue->GetObject<MobilityModel>()->SetPosition(Vector(1.5 * distance - 25 * (u + 1), 0, 1.5));
        ue->GetObject<ConstantVelocityMobilityModel>()->SetVelocity(Vector(speed, 0, 0));
    }

    // One band (3.5 GHz, 20 MHz, one CC with one BWP) for every gNB: intra-frequency A3.
    auto [totalBandwidth, bwps] = nrHelper->CreateBandwidthParts({{3.5e9, 20e6, 1}}, "UMa", "LOS");
    NetDeviceContainer gnbNrDevs = nrHelper->InstallGnbDevice(gnbNodes, bwps);
    NetDeviceContainer ueNrDevs = nrHelper->InstallUeDevice(ueNodes, bwps);
    int64_t stream = 1;
    stream += nrHelper->AssignStreams(gnbNrDevs, stream);
    stream += nrHelper->AssignStreams(ueNrDevs, stream);

    // A3 RSRP on every gNB's RRC (nr v4.1.1's NrHelper::SetHandoverAlgorithmType would store
    // it and install nothing), before any UE connects: its measurement configuration goes to
    // each UE at connection.
    std::vector<Ptr<NrHandoverAlgorithm>> handoverAlgorithms;
    for (uint32_t i = 0; i < gnbNrDevs.GetN(); ++i)
    {
        Ptr<NrGnbRrc> rrc = DynamicCast<NrGnbNetDevice>(gnbNrDevs.Get(i))->GetRrc();
        Ptr<NrA3RsrpHandoverAlgorithm> a3 = CreateObject<NrA3RsrpHandoverAlgorithm>();
        a3->SetAttribute("Hysteresis", DoubleValue(3.0));
        a3->SetAttribute("TimeToTrigger", TimeValue(MilliSeconds(256)));
        a3->SetNrHandoverManagementSapUser(rrc->GetNrHandoverManagementSapUser());
        rrc->SetNrHandoverManagementSapProvider(a3->GetNrHandoverManagementSapProvider());
        a3->Initialize();
        handoverAlgorithms.push_back(a3);
    }

    InternetStackHelper internet;
    internet.Install(ueNodes);
    epcHelper->AssignUeIpv4Address(ueNrDevs);
    Ipv4StaticRoutingHelper routing;
    for (uint16_t u = 0; u < numberOfUes; ++u)
    {
        routing.GetStaticRouting(ueNodes.Get(u)->GetObject<Ipv4>())
            ->SetDefaultRoute(epcHelper->GetUeDefaultGatewayAddress(), 1);
        nrHelper->AttachToGnb(ueNrDevs.Get(u), gnbNrDevs.Get(0));
    }
    nrHelper->AddX2Interface(gnbNodes);
    Config::Connect("/NodeList/*/DeviceList/*/NrUeRrc/HandoverEndOk",
                    MakeCallback(&UeHandoverDone));

    // edge-llm: an EdgeLlmNode on every gNB, an LLM session on every UE, wired in one call
    EdgeLlmHelper edgeLlm;
    edgeLlm.SetScheduler(HandoverSchemeRegistry::GetFactory(scheme));
    auto llm = edgeLlm.Install(NrEdgeLlmRan::Wrap(nrHelper, epcHelper, gnbNrDevs, ueNrDevs));
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(llm.bsApps, llm.ueApps);

    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    std::cout << stats->GetCsv(); // edge-llm: one row per handover

    // check: per UE, the cells where its session went on: restored there with tokens from
    // there (the UE's stall measured), or handed over after its last token (nothing to move)
    std::map<uint64_t, std::vector<uint16_t>> wentOn;
    for (const EdgeLlmHandoverRecord& r : stats->GetRecords())
    {
        if ((r.outcome == EdgeLlmHandoverRecord::RESTORED && !std::isnan(r.ueStall)) ||
            r.outcome == EdgeLlmHandoverRecord::AFTER_DECODING)
        {
            wentOn[r.sessionId].push_back(r.targetCellId);
        }
    }
    const bool pass =
        stats->CountOutcome(EdgeLlmHandoverRecord::RESTORED) > 0 && wentOn == g_handovers;
    std::cout << "check: the RRC handed over " << g_handovers.size() << " UEs " << g_handoverCount
              << " times; sessions restored: "
              << stats->CountOutcome(EdgeLlmHandoverRecord::RESTORED) << ", handed over after "
              << "their last token: " << stats->CountOutcome(EdgeLlmHandoverRecord::AFTER_DECODING)
              << "; each handover's session went on at its target with tokens from it: "
              << (pass ? "PASS" : "FAIL") << "\n";
    Simulator::Destroy();
    return pass ? 0 : 1; // check
}
