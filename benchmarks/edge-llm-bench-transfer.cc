/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * edge-llm-bench-transfer: what the KV transfer protocol costs.
 *
 *  1. Goodput of one 2 GB KV-cache transfer (cHO, Qwen2.5-7B) between two EdgeLlmNodes
 *     over a 10 Gbit/s point-to-point link at MTU 9000, against the link's payload
 *     limit R * MSS / (MTU + 2) (IPv4 + TCP with timestamps: 52 B, PPP: 2 B).
 *  2. Wall-clock cost of that simulation against ns-3's BulkSendApplication moving the
 *     same bytes over the same link with the same TCP settings, in this process.
 *  3. Peak resident memory after 100 sessions of 20 MB, then 100 sessions of 2 GB, are
 *     queued and 2 s of each transfer simulated: payload bytes are virtual, so the peak
 *     does not grow with the KV size.
 *
 *  4. The same single transfer over the UDP transport (Transport=Udp, KvDatagramSocket
 *     paced at the link rate), against its payload limit R * (MTU - 34) / (MTU + 2)
 *     (IPv4 + UDP: 28 B, datagram header: 6 B, PPP: 2 B), and its wall-clock cost.
 *
 * The last three lines are goodput_ratio=, sim_cost_ratio=, peak_rss_mb= (TCP, the
 * default transport).
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/ctho-scheduler.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <string>
#include <utility>

using namespace ns3;

namespace
{

constexpr double LINK_BPS = 10e9;
constexpr uint16_t MTU = 9000;
constexpr uint32_t MSS = MTU - 52;
constexpr uint32_t BUFFER = 4 * 1024 * 1024;

/// Two nodes joined by the benchmark's link.
NodeContainer
MakeLink(Ipv4InterfaceContainer& ifs)
{
    Ipv4AddressGenerator::Reset();
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(LINK_BPS))));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(MTU));
    p2p.SetChannelAttribute("Delay", StringValue("100us"));
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1000p"));
    NetDeviceContainer devs = p2p.Install(nodes);
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addr("10.3.0.0", "255.255.255.252");
    ifs = addr.Assign(devs);
    return nodes;
}

/// Peak resident set size of this process, MB (VmHWM).
double
PeakRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            return std::stod(line.substr(6)) / 1024.0;
        }
    }
    return 0;
}

/// Our protocol: sessions of `tokens` each handed over at t = 10 ms from cell 1 to 2.
/// Returns (seconds of simulated transfer of the first session, KV bytes received).
std::pair<double, uint64_t>
RunEdgeLlm(uint32_t sessions, uint64_t tokens, Time stopAt, const std::string& transport = "Tcp")
{
    Ipv4InterfaceContainer ifs;
    NodeContainer nodes = MakeLink(ifs);
    EdgeLlmHelper edge;
    edge.SetSchedulerType("ns3::ChoScheduler");
    edge.SetBackhaulTransportAttribute("BackhaulBuffer", UintegerValue(BUFFER));
    edge.SetSourceRoleAttribute("GatherTime", TimeValue(Seconds(0))); // transfer at once
    edge.SetBackhaulTransportAttribute("Transport", StringValue(transport));
    ApplicationContainer apps = edge.InstallBs(nodes, {1, 2});
    edge.ConnectBackhaul(apps);
    Ptr<EdgeLlmNode> source = DynamicCast<EdgeLlmNode>(apps.Get(0));
    Ptr<EdgeLlmNode> target = DynamicCast<EdgeLlmNode>(apps.Get(1));
    for (uint32_t i = 1; i <= sessions; ++i)
    {
        source->OpenSession(i, tokens);
        Simulator::Schedule(MilliSeconds(10), &EdgeLlmNode::NotifyHandoverStart, source, i, 2);
    }
    double done = -1;
    uint64_t received = 0;
    target->GetTargetRole()->TraceConnectWithoutContext(
        "KvTransferReceived",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [&](uint64_t id, uint16_t, uint64_t bytes) {
                received += bytes;
                if (id == 1)
                {
                    done = Simulator::Now().GetSeconds() - 0.010;
                }
            }));
    apps.Start(Seconds(0));
    Simulator::Stop(stopAt);
    Simulator::Run();
    received = std::max(received, target->GetConnection(1)->GetKvBytesReceived());
    Simulator::Destroy();
    return {done, received};
}

/// ns-3's BulkSendApplication moving `bytes` over the same link and TCP settings.
double
RunBulkSend(uint64_t bytes)
{
    Ipv4InterfaceContainer ifs;
    NodeContainer nodes = MakeLink(ifs);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(MSS));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(BUFFER));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(BUFFER));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), 9));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.SetAttribute("SendSize", UintegerValue(65536));
    ApplicationContainer src = bulk.Install(nodes.Get(0));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer dst = sink.Install(nodes.Get(1));
    src.Start(MilliSeconds(10));
    dst.Start(Seconds(0));
    double done = -1;
    Ptr<PacketSink> ps = DynamicCast<PacketSink>(dst.Get(0));
    ps->TraceConnectWithoutContext("Rx",
                                   compat::MakeCallback<void, Ptr<const Packet>, const Address&>(
                                       [&](Ptr<const Packet>, const Address&) {
                                           if (done < 0 && ps->GetTotalRx() >= bytes)
                                           {
                                               done = Simulator::Now().GetSeconds() - 0.010;
                                           }
                                       }));
    Simulator::Stop(Seconds(30));
    Simulator::Run();
    Simulator::Destroy();
    return done;
}

double
WallSeconds(const std::function<void()>& f)
{
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int
main(int argc, char* argv[])
{
    double gigabytes = 2.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("gigabytes", "Size of the single transfer, GB (1e9 B)", gigabytes);
    cmd.Parse(argc, argv);
    const uint64_t tokens = static_cast<uint64_t>(gigabytes * 1e9 / 57344.0); // Qwen2.5-7B
    const uint64_t bytes = tokens * 57344;

    std::pair<double, uint64_t> ours;
    const double oursWall = WallSeconds([&] { ours = RunEdgeLlm(1, tokens, Seconds(30)); });
    double bulk = 0;
    const double bulkWall = WallSeconds([&] { bulk = RunBulkSend(bytes); });

    const double limit = LINK_BPS * MSS / (MTU + 2.0);
    const double goodput = 8.0 * static_cast<double>(bytes) / ours.first;
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "transfer: " << bytes << " B over " << LINK_BPS / 1e9 << " Gbit/s, MTU " << MTU
              << ": " << ours.first << " s simulated, " << goodput / 1e9
              << " Gbit/s; payload limit " << limit / 1e9 << " Gbit/s\n";
    std::cout << "BulkSendApplication, same bytes and link: " << bulk << " s simulated, "
              << 8.0 * bytes / bulk / 1e9 << " Gbit/s\n";
    std::cout << "wall clock: ours " << oursWall << " s, BulkSend " << bulkWall << " s\n";

    std::pair<double, uint64_t> udp;
    const double udpWall = WallSeconds([&] { udp = RunEdgeLlm(1, tokens, Seconds(30), "Udp"); });
    const double udpLimit = LINK_BPS * (MTU - 34) / (MTU + 2.0);
    const double udpGoodput = 8.0 * static_cast<double>(bytes) / udp.first;
    std::cout << "Transport=Udp: " << udp.first << " s simulated, " << udpGoodput / 1e9
              << " Gbit/s of a " << udpLimit / 1e9 << " Gbit/s payload limit (ratio "
              << udpGoodput / udpLimit << "); wall clock " << udpWall << " s ("
              << udpWall / bulkWall << "x BulkSend)\n";

    // Memory against KV size: 100 sessions of 1/100 the size, then 100 of the full size,
    // queued at once with 2 s of their transfer simulated each. The peak resident size
    // may grow with the first; if payload bytes are virtual it must not grow with the
    // second.
    RunEdgeLlm(100, tokens / 100, Seconds(2));
    const double smallRss = PeakRssMb();
    RunEdgeLlm(100, tokens, Seconds(2));
    std::cout << std::setprecision(2) << "peak RSS after 100 sessions x " << gigabytes / 100
              << " GB: " << std::setprecision(1) << smallRss << " MB; after 100 sessions x "
              << std::setprecision(2) << gigabytes << " GB: " << std::setprecision(1) << PeakRssMb()
              << " MB (2 s simulated each)\n";

    std::cout << std::setprecision(4) << "goodput_ratio=" << goodput / limit << "\n"
              << "sim_cost_ratio=" << oursWall / bulkWall << "\n"
              << std::setprecision(1) << "peak_rss_mb=" << PeakRssMb() << std::endl;
    return 0;
}
