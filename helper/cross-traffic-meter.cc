/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cross-traffic-meter.h"

#include "backhaul-monitor.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CrossTrafficMeter");
NS_OBJECT_ENSURE_REGISTERED(CrossTrafficMeter);

ExponentialRateEstimator::ExponentialRateEstimator(Time timeConstant)
    : m_tau(timeConstant.GetSeconds())
{
    NS_ABORT_MSG_IF(!timeConstant.IsStrictlyPositive(),
                    "ExponentialRateEstimator: time constant " << timeConstant.As(Time::S)
                                                               << " must be > 0");
}

void
ExponentialRateEstimator::Add(Time now, double bits)
{
    m_value = Get(now) + bits / m_tau;
    m_last = now;
}

double
ExponentialRateEstimator::Get(Time now) const
{
    NS_ABORT_MSG_IF(now < m_last,
                    "ExponentialRateEstimator: read at " << now.As(Time::S)
                                                         << ", before the last arrival at "
                                                         << m_last.As(Time::S));
    return m_value * std::exp(-(now - m_last).GetSeconds() / m_tau);
}

TypeId
CrossTrafficMeter::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CrossTrafficMeter")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<CrossTrafficMeter>()
            .AddAttribute("TimeConstant",
                          "T of the exponentially weighted estimate: each packet's bits b "
                          "count as (b / T) exp(-age / T); a step in the cross traffic shows "
                          "63 % after T, 95 % after 3 T; a constant rate ripples by about "
                          "its packet period / T; right after the cross traffic starts the "
                          "estimate is 1 - exp(-t / T) of its rate. In [1 ms, 60 s] (checked "
                          "when set).",
                          TimeValue(MilliSeconds(50)),
                          MakeTimeAccessor(&CrossTrafficMeter::m_timeConstant),
                          MakeTimeChecker(MilliSeconds(1), Seconds(60)));
    return tid;
}

CrossTrafficMeter::CrossTrafficMeter()
    : m_estimator(MilliSeconds(50))
{
}

CrossTrafficMeter::~CrossTrafficMeter() = default;

void
CrossTrafficMeter::Install(Ptr<PointToPointNetDevice> device, uint16_t kvPort, uint16_t controlPort)
{
    NS_ABORT_MSG_IF(m_installed, "CrossTrafficMeter::Install: already installed");
    NS_ABORT_MSG_IF(!device, "CrossTrafficMeter::Install: no device");
    m_installed = true;
    m_kvPort = kvPort;
    m_controlPort = controlPort;
    m_estimator = ExponentialRateEstimator(m_timeConstant);
    device->TraceConnectWithoutContext("PhyTxBegin",
                                       MakeCallback(&CrossTrafficMeter::OnTxBegin, this));
}

double
CrossTrafficMeter::GetBitRate() const
{
    return m_estimator.Get(Simulator::Now());
}

void
CrossTrafficMeter::OnTxBegin(Ptr<const Packet> packet)
{
    uint64_t payload = 0;
    if (BackhaulMonitor::Classify(packet, m_kvPort, m_controlPort, payload) != BackhaulMonitor::KV)
    {
        m_estimator.Add(Simulator::Now(), 8.0 * packet->GetSize());
    }
}

} // namespace ns3
