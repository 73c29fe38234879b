/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "impactho-packet-scenario.h"

#include "ns3/accuracy-utility.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-session-stats.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-generator.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace ns3
{

ImpactHoFluidResult
ImpactHoPacketScenario::Run(const ImpactHoFluidConfig& cfg,
                            uint64_t run,
                            Time backhaulDelay,
                            uint16_t mtu)
{
    cfg.Validate();
    if (cfg.anchors)
    {
        throw std::invalid_argument("ImpactHoFluidConfig::anchors: explicit utility anchors are "
                                    "for the flow level only; at packet level choose a "
                                    "calibration (EdgeLlmSourceRole::UtilityCalibration)");
    }
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(cfg.backhaulGbps * 1e9)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(backhaulDelay));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.252");
    addresses.Assign(devs);

    EdgeLlmHelper edge;
    edge.SetSchedulerType("ns3::ImpactHoScheduler",
                          "Policy",
                          StringValue(cfg.policy),
                          "Fallback",
                          StringValue(cfg.fallback),
                          "SlotLength",
                          TimeValue(cfg.slot),
                          "TransferWindow",
                          TimeValue(cfg.window));
    edge.SetNodeAttribute("Model", StringValue(cfg.model));
    edge.SetNodeAttribute("KvBits", UintegerValue(cfg.kvBits));
    edge.SetSourceRoleAttribute("ImportanceOrder", BooleanValue(cfg.importanceOrder));
    edge.SetSourceRoleAttribute("KvAccuracyLoss", DoubleValue(cfg.kvAccuracyLoss));
    edge.SetSourceRoleAttribute(
        "UtilityCalibration",
        StringValue(cfg.calibration == AccuracyUtility::JOINT ? "Joint" : "Headline"));
    ApplicationContainer apps = edge.InstallBs(nodes, {1, 2});
    edge.ConnectBackhaul(apps);
    try
    {
        EdgeLlmHelper::CheckConfiguration(apps);
    }
    catch (const std::invalid_argument&)
    {
        Simulator::Destroy(); // nothing ran: leave the simulator as it was
        throw;
    }
    Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(apps.Get(0));
    Ptr<EdgeLlmNode> target = DynamicCast<EdgeLlmNode>(apps.Get(1));

    const auto handovers = ImpactHoFluidScenario::DrawHandovers(cfg, run);
    double last = 0;
    for (std::size_t i = 0; i < handovers.size(); ++i)
    {
        source->OpenSession(i + 1, handovers[i].second);
        Simulator::Schedule(Seconds(handovers[i].first),
                            &EdgeLlmNode::NotifyHandoverStart,
                            source,
                            i + 1,
                            2);
        last = handovers[i].first;
    }
    // The share of each cache received comes from the session records (the one collector).
    Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
    stats->Install(apps, ApplicationContainer());
    apps.Start(Seconds(0));
    Simulator::Stop(Seconds(last) + cfg.window + cfg.slot + Seconds(1));
    Simulator::Run();
    std::map<uint64_t, double> fraction;
    for (const EdgeLlmHandoverRecord& rec : stats->GetRecords())
    {
        if (!std::isnan(rec.receivedFraction))
        {
            fraction[rec.sessionId] = rec.receivedFraction;
        }
    }
    Simulator::Destroy();

    ImpactHoFluidResult result;
    double acc = 0;
    double full = 0;
    uint32_t starved = 0;
    for (std::size_t i = 0; i < handovers.size(); ++i)
    {
        const AccuracyUtility u = cfg.Utility(handovers[i].second);
        ImpactHoUserResult r;
        r.arrival = handovers[i].first;
        r.contextTokens = handovers[i].second;
        r.received = fraction.count(i + 1) ? fraction[i + 1] : 0.0;
        r.accuracy = u.Value(r.received);
        r.fullAccuracy = u.asymptote;
        r.starved = r.received < u.inflection;
        r.utility = u;
        acc += r.accuracy;
        full += r.fullAccuracy;
        starved += r.starved ? 1 : 0;
        result.users.push_back(r);
    }
    if (!handovers.empty())
    {
        const double n = static_cast<double>(handovers.size());
        result.meanAccuracy = acc / n;
        result.meanFullAccuracy = full / n;
        result.starvationRate = starved / n;
    }
    return result;
}

} // namespace ns3
