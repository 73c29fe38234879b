/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CROSS_TRAFFIC_METER_H
#define CROSS_TRAFFIC_METER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class Packet;
class PointToPointNetDevice;

/**
 * \ingroup edge-llm
 * \brief A continuous-time exponentially weighted rate estimate of a stream of bits.
 *
 * Each arrival of b bits at time t_i adds (b / T) exp(-(t - t_i) / T) to the estimate at
 * t >= t_i, T the time constant:
 *
 *   r(t) = sum over t_i <= t of (b_i / T) exp(-(t - t_i) / T)   [bit/s]
 *
 * so a constant bit rate x, from long enough ago, averages to exactly x over each packet
 * period and ripples by about period / T around it; after a step from 0 to x at t0 it is
 * x (1 - exp(-(t - t0) / T)) on average. O(1) per arrival and per read; no event.
 */
class ExponentialRateEstimator
{
  public:
    /**
     * \param timeConstant T, > 0 (NS_ABORT_MSG otherwise, naming it)
     */
    explicit ExponentialRateEstimator(Time timeConstant);

    /**
     * \brief Count \p bits arriving at \p now.
     * \param now the arrival time, >= the previous arrival's (NS_ABORT_MSG otherwise)
     * \param bits the bits
     */
    void Add(Time now, double bits);

    /**
     * \param now the time to read at, >= the last arrival's (NS_ABORT_MSG otherwise)
     * \return r(now), bit/s (0 before any arrival)
     */
    double Get(Time now) const;

  private:
    double m_tau;      //!< T, s
    double m_value{0}; //!< r at m_last, bit/s
    Time m_last;       //!< The last arrival
};

/**
 * \ingroup edge-llm
 * \brief The cross traffic one direction of a point-to-point backhaul link carries now,
 *        measured: an ExponentialRateEstimator (attribute TimeConstant) of the wire bits of
 *        every packet the device begins to transmit that is not KV transfer traffic.
 *
 * KV traffic is what BackhaulMonitor::Classify calls KV: a TCP or UDP packet whose source
 * or destination port is the KV port (EdgeLlmNode's BackhaulPort), or a UDP packet of the
 * separate control channel (its ControlPort), of any source BS. The
 * rest (cross traffic, X2-C, X2-U, S1-U) counts, PPP header included. EdgeLlmHelper's
 * ConnectBackhaul installs one meter per transmitting device of each KV path's links when
 * the source's PlanningCrossTraffic is Measured; the planner reads GetBitRate() when it
 * plans (EdgeLlmNode::KvFlowBitRate).
 *
 * \code
 *   Ptr<CrossTrafficMeter> meter = CreateObject<CrossTrafficMeter>();
 *   meter->Install(device, 9001, 36422); // the device sending towards the target
 *   ...
 *   double x = meter->GetBitRate();  // bit/s, now
 * \endcode
 */
class CrossTrafficMeter : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    CrossTrafficMeter();
    ~CrossTrafficMeter() override;

    /**
     * \brief Listen to \p device's PhyTxBegin (once; a second Install aborts).
     * \param device the transmitting device
     * \param kvPort the KV transfer's port: its packets do not count
     * \param controlPort the UDP port of the separate control channel: nor do its
     */
    void Install(Ptr<PointToPointNetDevice> device, uint16_t kvPort, uint16_t controlPort);

    /// \return the measured cross traffic now, bit/s on the wire (>= 0)
    double GetBitRate() const;

  private:
    /// PhyTxBegin: count \p packet unless it is KV traffic.
    void OnTxBegin(Ptr<const Packet> packet);

    Time m_timeConstant;                  //!< TimeConstant attribute
    ExponentialRateEstimator m_estimator; //!< Made at Install with m_timeConstant
    uint16_t m_kvPort{0};                 //!< Packets to or from it are KV
    uint16_t m_controlPort{0};            //!< UDP packets to or from it are KV signalling
    bool m_installed{false};              //!< Install was called
};

} // namespace ns3

#endif // CROSS_TRAFFIC_METER_H
