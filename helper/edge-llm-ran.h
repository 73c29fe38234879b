/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_RAN_H
#define EDGE_LLM_RAN_H

#include "edge-llm-backhaul-helper.h"

#include "ns3/abort.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-packet-filter.h"
#include "ns3/net-device-container.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class AntennaModel;
class SpectrumChannel;

class PointToPointNetDevice;

/**
 * \ingroup edge-llm
 * \brief A BS's sector antenna (a site file's azimuth and beamwidth): ns-3's
 *        CosineAntennaModel, shaped in the horizontal plane only.
 *
 * Its power gain toward a direction at azimuth phi (from the +x axis, counter-clockwise),
 * as CosineAntennaModel::GetGainDb computes it: G = 20 n log10 cos((phi - azimuth) / 2) dB,
 * the angle difference taken in (-180, 180] degrees, with n = -3 / (20 log10 cos(beamwidth
 * / 4)): 0 dB on the boresight, -3 dB at beamwidth / 2 either side, the least toward the
 * back; beamwidth 360 is n = 0, 0 dB everywhere (omnidirectional). MaxGain 0 dB, the
 * vertical beamwidth 360 degrees (no gain in elevation).
 */
struct EdgeLlmSectorAntenna
{
    /// The largest |azimuth|, degrees (CosineAntennaModel Orientation's range)
    static constexpr double MAX_AZIMUTH_DEG = 360;
    /// The widest beamwidth, degrees (omnidirectional)
    static constexpr double MAX_BEAMWIDTH_DEG = 360;

    double azimuthDeg{0}; //!< Boresight, degrees from the +x axis counter-clockwise, [-360, 360]
    double beamwidthDeg{360}; //!< -3 dB horizontal beamwidth, degrees, (0, 360]

    /// \throws std::invalid_argument naming azimuth or beamwidth and its valid range
    void Validate() const;

    /**
     * \param oriented true: pointed at azimuthDeg (Orientation); false: at 0 degrees, as the
     *        element of an array that its own bearing turns (NR)
     * \return a new ns3::CosineAntennaModel with HorizontalBeamwidth beamwidthDeg
     * \throws std::invalid_argument as Validate()
     */
    Ptr<AntennaModel> CreateModel(bool oriented) const;
};

/**
 * \ingroup edge-llm
 * \brief What a RAN setup builds: the base stations' radio, the EPC with its X2/Xn
 *        point-to-point links (the KV backhaul) and the handover algorithm.
 *
 * One struct for both RATs; a field marked LTE or NR is read by that RAT only.
 */
struct EdgeLlmRanConfig
{
    double backhaulGbps{4.5};              //!< X2/Xn link rate, Gbit/s (1e9 bit/s), (0, 1000]
    Time backhaulDelay{MicroSeconds(100)}; //!< X2/Xn link propagation delay, >= 0
    uint16_t backhaulMtu{9000};            //!< X2/Xn link MTU, bytes, >= 576
    /// "": no automatic handover (requested with EdgeLlmRan::HandoverRequest); else the
    /// RAT's handover algorithm TypeId. LTE: ns3::A3RsrpHandoverAlgorithm,
    /// ns3::A2A4RsrqHandoverAlgorithm, ...; NR: ns3::NrA3RsrpHandoverAlgorithm,
    /// ns3::NrA2A4RsrqHandoverAlgorithm (NR also takes the LTE names of these two)
    std::string handoverAlgorithm;
    double bsTxPowerDbm{30};       //!< BS transmit power, dBm, [-30, 60]
    std::string pathlossModel;     //!< LTE: path-loss model TypeId ("": LTE's default, Friis)
    double pathlossExponent{3.0};  //!< LTE: its "Exponent" attribute, if it has one
    uint16_t bandwidthRbs{25};     //!< LTE: DL and UL bandwidth, resource blocks (6 ... 100)
    double nrFrequencyHz{3.5e9};   //!< NR: central frequency, Hz, [0.5e9, 100e9]
    double nrBandwidthHz{20e6};    //!< NR: channel bandwidth (one CC, one BWP), Hz, [5e6, 400e6]
    uint16_t nrNumerology{0};      //!< NR: numerology mu (slot = 1 ms / 2^mu), [0, 4]
    std::string nrScenario{"UMa"}; //!< NR: 3GPP TR 38.901 scenario: RMa, UMa, UMi, InH, ...
    std::string nrChannelCondition{"LOS"}; //!< NR: LOS, NLOS or Default (the scenario's
                                           //!< LOS probability, drawn per link)
    int64_t stream{100}; //!< First random stream of the RAN's models (BS; UE +1000)
    /// LteEnbMac (NR: NrGnbMac) NumberOfRaPreambles, the contention-based RA preambles (a
    /// multiple of 4 in [4, 60]); the other 64 - it are the dedicated preambles a target
    /// gives each incoming handover, each held PreambleTransMax x (RaResponseWindowSize + 5)
    /// ms. 0: the RAT's default (52)
    uint32_t raPreambles{0};
    /// LteEnbMac (NR: NrGnbMac) PreambleTransMax, the UE's RA attempts before it gives up,
    /// one of 3GPP's 3, 4, 5, 6, 7, 8, 10, 20, 50, 100, 200. 0: the RAT's default (50)
    uint32_t preambleTransMax{0};
    /// LTE: LteEnbRrc SrsPeriodicity, ms = the SRS slots of a cell (one per UE context,
    /// temporary ones of an attach included), one of 2, 5, 10, 20, 40, 80, 160, 320.
    /// 0: ns-3's default (40)
    uint32_t srsPeriodicity{0};
    /// LTE: LteAmc AmcModel, how each UE turns its SINR into CQI reports:
    /// "MiErrorModel" (ns-3's default, attribute value "Vienna": per resource-block group
    /// of each report the UE evaluates the mutual-information TB error rate of MCS 0, 1,
    /// ... until it exceeds 10 %, up to 29 evaluations) or "PiroEW2010" (closed form:
    /// spectral efficiency log2(1 + SINR / (-ln(5 BER) / 1.5)), BER 5e-5, per resource
    /// block; more conservative: a 7.4 dB SNR gap). "": ns-3's default, untouched. The
    /// schedulers' LteAmc objects, created with the eNBs, get the same value.
    std::string amcModel;
    /// The spectrum channels' cut-off (ns3::SpectrumChannel MaxLossDb, both RATs): a
    /// transmission reaches a PHY only if the path loss between them is at most this, dB,
    /// so a PHY processes its nearby cells (or UEs) only (the channel still computes the
    /// loss of every pair). 0: none (ns-3's default: every PHY hears every transmitter);
    /// else [50, 300] dB
    double maxLossDb{0};

    /**
     * \brief Check every field the RAT \p rat reads, the backhaul against
     *        EdgeLlmRan::MinBackhaulBitRate() too.
     * \param rat "lte" or "nr"
     * \throws std::invalid_argument naming the field and its valid range (for a backhaul
     *         too slow for a handover to complete: the computed minimum rate)
     */
    void Validate(const std::string& rat) const;
};

/**
 * \ingroup edge-llm
 * \brief Sorts the packets of an X2/Xn link into the bands of a PrioQueueDisc, so that
 *        handover signalling never waits behind KV bytes.
 *
 * Band 0: X2-C (X2AP over UDP port 4444: handover request, ack, SN status, UE context
 * release); band 1: X2-U (GTP-U, UDP port 2152: the UE's forwarded user data) and, with
 * AckPriority (default true), every TCP acknowledgement without payload (not SYN, FIN or
 * RST); band 2: everything else (the KV transfer, TCP or the
 * module's UDP transport, and non-first IPv4 fragments, which carry no UDP header).
 * Installed by EdgeLlmRan on every X2/Xn device and by EdgeLlmBackhaul on every backhaul
 * device.
 *
 * Why acknowledgements go first: a site sends its own KV transfers on the same link its
 * inbound transfers' acknowledgements leave by. In one FIFO band those acknowledgements
 * wait behind the outbound queue, the inbound connection's round trip grows by that
 * queue, and a window-bound TCP flow then gets less than the rate its plan counts on (on
 * a star at cross-traffic load 0.4, 2.3 of 2.7 Gbit/s with a 512 KiB send buffer).
 *
 * Caveat: an acknowledgement that overtakes a data segment of its own connection makes
 * ns-3's TCP drop that segment's data (an acknowledgement number below one already
 * received: the segment is ignored whole), which then waits for a retransmission. The
 * module's KV transfer uses one TCP connection per direction, so its acknowledgements
 * overtake no data; a TCP flow that sends data both ways over such a link (the user's
 * own) should set AckPriority false.
 */
class EdgeLlmX2PacketFilter : public Ipv4PacketFilter
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    static constexpr uint16_t X2C_PORT = 4444; //!< X2-C UDP port (ns-3's EpcX2, nr's NrEpcX2)
    static constexpr uint16_t X2U_PORT = 2152; //!< X2-U GTP-U UDP port
    static constexpr int32_t BAND_X2C = 0;     //!< Band of X2-C packets (served first)
    static constexpr int32_t BAND_X2U = 1;     //!< Band of X2-U packets
    static constexpr int32_t BAND_BULK = 2;    //!< Band of everything else (KV bytes)
    static constexpr uint32_t MIN_TCP_HEADER_BYTES = 20; //!< A TCP header without options

    EdgeLlmX2PacketFilter();

  private:
    int32_t DoClassify(Ptr<QueueDiscItem> item) const override;

    bool m_ackPriority{true}; //!< TCP segments without payload in band 1
};

/**
 * \ingroup edge-llm
 * \brief The seam between the edge-LLM applications and a RAT (LTE of src/lte, or NR of
 *        5G-LENA): everything that differs between them, and nothing else.
 *
 * Which devices are BSs and their cell ids, the UEs' IMSIs, which RRC trace carries
 * HandoverStart (the attribute name of the BS device's RRC), which EPC helper builds the
 * X2/Xn links and the routes to the UEs (its SGW and PGW), and how a handover is requested.
 * EdgeLlmNode, the KV transfer protocol and the schedulers never see a RAT header.
 *
 * A script switches LTE for NR by swapping the RAN setup only:
 * \code
 *   Ptr<EdgeLlmRan> ran = EdgeLlmRan::Create("nr", ranConfig);   // or "lte"; makes the EPC
 *   NodeContainer bsNodes, ueNodes; bsNodes.Create(2); ueNodes.Create(4);
 *   // ... mobility on both ...
 *   ran->Install(bsNodes, ueNodes);          // devices, UE addresses, X2/Xn links
 *   ran->Attach(ran->GetUeDevices(), ran->GetBsDevices().Get(0));
 *   EdgeLlmHelper edge;
 *   edge.SetRan(ran);                        // cell ids, IMSIs, RRC name from the RAN
 *   ApplicationContainer bs = edge.InstallOnEnbs(ran->GetBsDevices());
 *   edge.ConnectBackhaul(bs);
 *   edge.ConnectHandoverTrace(bs);
 *   EdgeLlmHelper::AddEpcRoutes(ran->GetSgwNode(), ran->GetPgwNode(), bsNodes);
 * \endcode
 * (EdgeLlmHelper::Install(ran) makes the five edge calls at once.) A script that built its
 * own LTE or NR gets its RAN from LteEdgeLlmRan::Wrap or NrEdgeLlmRan::Wrap instead of
 * Create, Install and Attach.
 *
 * Subclasses: LteEdgeLlmRan (always built) and NrEdgeLlmRan (built when ns-3 has the nr
 * module; EDGE_LLM_HAVE_NR is then defined).
 */
class EdgeLlmRan : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief A RAN setup of the given RAT, configured: its EPC (SGW, PGW, MME nodes) exists
     *        once this returns, so call it before creating the scenario's own nodes if node
     *        ids matter.
     * \param rat "lte" or "nr"
     * \param config radio, backhaul and handover algorithm (validated)
     * \return the RAN, ready for Install()
     * \throws std::invalid_argument for an unknown RAT, for "nr" in a build without the
     *         nr module, or for a bad config
     */
    static Ptr<EdgeLlmRan> Create(const std::string& rat, const EdgeLlmRanConfig& config);

    /**
     * \param rat "lte" or "nr"
     * \return true if this build has the RAT ("lte": always; "nr": with the nr module)
     */
    static bool IsAvailable(const std::string& rat);

    /**
     * \brief nr's handover algorithm TypeId for a name given in either RAT's terms (a
     *        TypeId lookup: no nr header needed).
     * \param name "" (none: ns3::NrNoOpHandoverAlgorithm), an NrHandoverAlgorithm TypeId,
     *        or LTE's ns3::A3RsrpHandoverAlgorithm / ns3::A2A4RsrqHandoverAlgorithm /
     *        ns3::NoOpHandoverAlgorithm (mapped to nr's algorithm of the same name)
     * \return the nr TypeId name
     * \throws std::invalid_argument naming handoverAlgorithm if it is no nr handover
     *         algorithm (or the build has no nr module)
     */
    static std::string NrHandoverAlgorithmName(const std::string& name);

    /**
     * \brief The slowest X2/Xn link on which every handover's X2 signalling meets the RRC's
     *        handover timers, whatever KV traffic shares the link.
     *
     * With X2-C in the top band of the link's priority queue (X2SignallingPriority), an
     * X2-C message waits behind at most two frames of MTU + 2 bytes (PPP): the one on the
     * wire (a link does not pre-empt) and the one in the device's one-packet queue. The
     * target's HandoverJoiningTimeoutDuration T_j (RRC attribute; LTE default 200 ms)
     * must cover the HANDOVER REQUEST ACK's trip back (X2C_ACK_BYTES on the wire) plus
     * HANDOVER_RADIO_ALLOWANCE_MS (the handover command to the UE, non-contention random
     * access, RRC reconfiguration complete); the source's HandoverLeavingTimeoutDuration
     * T_l (500 ms) must cover the radio part and the UE CONTEXT RELEASE's trip
     * (X2C_RELEASE_BYTES). With s = 2 (MTU + 2):
     * R_min = max(8 (s + 63) / (T_j - d - 20 ms), 8 (s + 41) / (T_l - d - 20 ms)) bit/s.
     * Below it ns-3's RRC removes the UE's context while X2 messages for it are still on
     * the way, and the late message dereferences the missing context (a crash).
     *
     * \param rat "lte" or "nr" (whose RRC TypeId's timer defaults are read: ns3::LteEnbRrc,
     *        ns3::NrGnbRrc; Config::SetDefault changes them)
     * \param mtu the X2/Xn link MTU, bytes
     * \param delay the X2/Xn link's one-way delay
     * \return the minimum rate, bit/s; +infinity if the delay alone exceeds a timer's
     *         budget (d >= T - 20 ms): no rate is enough
     * \throws std::invalid_argument for an unknown RAT or one this build lacks
     */
    static double MinBackhaulBitRate(const std::string& rat, uint16_t mtu, Time delay);

    /// The radio part of a handover's execution that the RRC timers also cover, allowed
    /// for in MinBackhaulBitRate() (LTE measures ~4 ms; 20 ms covers RACH retries).
    static constexpr int64_t HANDOVER_RADIO_ALLOWANCE_MS = 20;
    /// HANDOVER REQUEST ACK on the wire: 33 bytes of X2AP (one bearer, the handover
    /// command of the ideal RRC) + 8 UDP + 20 IPv4 + 2 PPP
    static constexpr uint32_t X2C_ACK_BYTES = 63;
    /// UE CONTEXT RELEASE on the wire: 11 bytes of X2AP + 8 UDP + 20 IPv4 + 2 PPP
    static constexpr uint32_t X2C_RELEASE_BYTES = 41;

    /// \return "lte" or "nr"
    virtual std::string GetRatName() const = 0;

    /**
     * \brief Make the EPC and the RAT helper from \p config (Create() calls this).
     * \param config the RAN's knobs, already validated
     */
    virtual void Configure(const EdgeLlmRanConfig& config) = 0;

    /**
     * \brief BS devices on \p bsNodes, UE devices on \p ueNodes (both with mobility
     *        already), the Internet stack and EPC addresses on the UEs with their default
     *        route to the EPC gateway, and an X2/Xn point-to-point link between every two BSs.
     * \param bsNodes the BS nodes, >= 1
     * \param ueNodes the UE nodes
     */
    virtual void Install(NodeContainer bsNodes, NodeContainer ueNodes) = 0;

    /**
     * \brief Attach UEs to a BS (after Install()).
     * \param ueDevices UE devices of this RAN
     * \param bsDevice the serving BS device
     */
    virtual void Attach(NetDeviceContainer ueDevices, Ptr<NetDevice> bsDevice) = 0;

    /**
     * \brief Request an X2/Xn handover of \p ueDevice at \p at (as the RAT helper's
     *        HandoverRequest: source RRC, handover preparation over X2/Xn, then
     *        HandoverStart at the source).
     */
    virtual void HandoverRequest(Time at,
                                 Ptr<NetDevice> ueDevice,
                                 Ptr<NetDevice> sourceBsDevice,
                                 Ptr<NetDevice> targetBsDevice) = 0;

    /**
     * \param bsDevice a BS device of this RAT (any, not only this setup's)
     * \return its cell id (the RRC's)
     * Aborts with a message naming the device if it is not this RAT's BS device.
     */
    virtual uint16_t GetCellId(Ptr<NetDevice> bsDevice) const = 0;

    /**
     * \param ueDevice a UE device of this RAT
     * \return its IMSI (the session id of its EdgeLlmUeApp)
     * Aborts with a message naming the device if it is not this RAT's UE device.
     */
    virtual uint64_t GetImsi(Ptr<NetDevice> ueDevice) const = 0;

    /**
     * \brief Set one BS's transmit power (after Install, which gives every BS
     *        EdgeLlmRanConfig::bsTxPowerDbm): a site list's own power per site.
     * \param bsDevice a BS device of this RAN
     * \param dbm dBm, [-30, 60] (the caller checks it)
     */
    virtual void SetBsTxPower(Ptr<NetDevice> bsDevice, double dbm) const = 0;

    /**
     * \brief Give one BS a sector antenna (after Install, which leaves every BS
     *        omnidirectional): a site file's azimuth and beamwidth per cell. LTE: a
     *        CosineAntennaModel pointed at the azimuth on the eNB's downlink and uplink
     *        spectrum PHYs; NR: on each of the gNB's PHYs, the uniform planar array turned to
     *        the azimuth (BearingAngle) with a CosineAntennaModel as its element.
     * \param bsDevice a BS device of this RAN
     * \param antenna its azimuth and beamwidth
     * \throws std::invalid_argument as EdgeLlmSectorAntenna::Validate
     */
    virtual void SetBsAntenna(Ptr<NetDevice> bsDevice,
                              const EdgeLlmSectorAntenna& antenna) const = 0;

    /**
     * \return the attribute of the BS device that holds its RRC, whose trace sources
     *         HandoverStart (imsi, cellId, rnti, targetCellId), HandoverEndOk and
     *         HandoverFailure* EdgeLlmHelper connects: "LteEnbRrc" or "NrGnbRrc"
     */
    virtual std::string GetRrcName() const = 0;

    /**
     * \return the attribute of the UE device that holds its RRC, whose trace sources
     *         ConnectionEstablished and ConnectionReconfiguration (imsi, cellId, rnti)
     *         EdgeLlmHelper::InstallUe connects to send the prompt after the attach:
     *         "LteUeRrc" or "NrUeRrc"
     */
    virtual std::string GetUeRrcName() const = 0;

    /// Called with (IMSI, neighbour cell id) when a pre-transfer trigger fires.
    using LikelyHandoverCallback = std::function<void(uint64_t imsi, uint16_t cellId)>;

    /**
     * \brief Proactive pre-transfer's A3 trigger (PreTransferScheduler A3Entering): the RRC
     *        of \p bsNode's BS device measures its UEs with an A3 event of its own (offset
     *        \p offsetDb in 0.5 dB steps, no hysteresis, \p timeToTrigger, RSRP, reports
     *        every 240 ms while it holds), and each such report calls \p likely with the UE's
     *        IMSI and the reported neighbour with the best RSRP. Before the simulation starts.
     * \param bsNode a BS node of this RAN (after Install())
     * \param offsetDb the A3 offset, dB, in [-15, 15]
     * \param timeToTrigger the time-to-trigger, in [0, 65535] ms
     * \param likely the BS's sink (EdgeLlmNode::NotifyHandoverLikely)
     */
    virtual void AddPreTransferTrigger(Ptr<Node> bsNode,
                                       double offsetDb,
                                       Time timeToTrigger,
                                       LikelyHandoverCallback likely) = 0;

    /// \return the EPC's SGW node (after Configure() or the RAT's Wrap(); aborts before,
    ///         naming both)
    Ptr<Node> GetSgwNode() const;
    /// \return the EPC's PGW node (after Configure() or the RAT's Wrap(); aborts before)
    Ptr<Node> GetPgwNode() const;

    /**
     * \param device any net device
     * \return whether it is a BS device of this RAT (its TypeId has the RRC attribute
     *         GetRrcName()), whoever installed it: this RAN, the RAT helper of a script
     */
    bool IsBsDevice(Ptr<NetDevice> device) const;

    /**
     * \brief The EPC gateways a BS node is wired to, found from the topology (for a script
     *        whose EPC helper the RAN never saw): the SGW is the node across one of the
     *        BS's point-to-point links that runs an SGW application (TypeId name ending in
     *        EpcSgwApplication: LTE's, nr's NrEpcSgwApplication), the PGW the node across
     *        one of the SGW's links that runs a PGW application (...EpcPgwApplication).
     * \param bsNode a BS node behind an EPC (PointToPointEpcHelper::AddEnb or nr's own)
     * \return (SGW, PGW); a null SGW if \p bsNode has no S1-U link, a null PGW if the SGW
     *         has no S5 link (the PGW and SGW on one node: the SGW then)
     */
    static std::pair<Ptr<Node>, Ptr<Node>> FindEpcGateways(Ptr<Node> bsNode);

    /**
     * \return the BS antenna height the RAT's propagation model expects, m (the z of a
     *         BS position); LTE: 0 (its Friis default has no notion of height), NR: the
     *         height of nrScenario's BSs in 3GPP TR 38.901 Table 7.4.1-1 (UMa 25 m)
     */
    virtual double GetBsHeight() const;

    /// \return the UE antenna height the RAT's propagation model expects, m (LTE 0, NR 1.5)
    virtual double GetUeHeight() const;

    /**
     * \brief Use \p backhaul's topology instead of the mesh of X2/Xn cables: Install()
     *        then calls backhaul->Install(bsNodes, this) after the BS devices exist.
     * \param backhaul the builder (null: the mesh, the default)
     */
    void SetBackhaul(Ptr<EdgeLlmBackhaul> backhaul);

    /// \return the builder given to SetBackhaul(), or null (the mesh)
    Ptr<EdgeLlmBackhaul> GetBackhaul() const;

    /**
     * \brief The RAT's own full mesh of X2/Xn cables between \p bsNodes (the EPC helper's
     *        AddX2Interface: X2LinkDataRate, X2LinkDelay, X2LinkMtu of the config), without
     *        queue discs.
     * \param bsNodes the BS nodes
     */
    virtual void AddMeshX2(NodeContainer bsNodes) = 0;

    /**
     * \brief Register an X2 interface between two BSs over addresses the caller routes
     *        (the two X2 entities and the RRCs' neighbour lists), as the EPC helper does
     *        for its own cables.
     * \param bsA a BS device of this RAN
     * \param addressA its X2 address toward \p bsB (one address per neighbour)
     * \param bsB the other BS device
     * \param addressB its X2 address toward \p bsA
     */
    virtual void AddX2Interface(Ptr<NetDevice> bsA,
                                Ipv4Address addressA,
                                Ptr<NetDevice> bsB,
                                Ipv4Address addressB) = 0;

    /// \return the X2SignallingPriority attribute
    bool GetX2SignallingPriority() const;

    /**
     * \return X2SignallingPriority's default as set now (Config::SetDefault, the
     *         command line's --ns3::EdgeLlmRan::X2SignallingPriority): what a RAN created
     *         now takes, for checks made before it exists
     */
    static bool DefaultX2SignallingPriority();

    /**
     * \brief Replace the root queue disc of a backhaul device by a PrioQueueDisc with three
     *        bands sorted by EdgeLlmX2PacketFilter (X2-C, X2-U, the rest), FIFO in the two
     *        signalling bands and \p kvQueueDisc in the third, and shrink the device's own
     *        queue to one packet (see PrioritiseX2Signalling).
     * \param device a point-to-point device with an Internet stack
     * \param kvQueueDisc the third band's QueueDisc TypeId (e.g. ns3::FifoQueueDisc)
     * \return the root queue disc
     */
    static Ptr<QueueDisc> InstallX2QueueDisc(Ptr<PointToPointNetDevice> device,
                                             const std::string& kvQueueDisc);

    /**
     * \param device a point-to-point device
     * \return whether its root queue disc is the X2 priority queue disc InstallX2QueueDisc
     *         makes (a PrioQueueDisc classifying by EdgeLlmX2PacketFilter)
     */
    static bool HasX2QueueDisc(Ptr<PointToPointNetDevice> device);

    /// \return the BS devices Install() made, in node order
    NetDeviceContainer GetBsDevices() const;
    /// \return the UE devices Install() made, in node order
    NetDeviceContainer GetUeDevices() const;

  protected:
    void DoDispose() override;

    /**
     * \brief The part of Install() that every RAT does alike: the Internet stack on the
     *        UEs, their EPC addresses, and each UE's default route to the EPC gateway.
     * \param ueNodes the UE nodes (their devices in m_ueDevices)
     * \param assignAddresses assigns the EPC's addresses to m_ueDevices (after the stack is
     *        installed) and returns the UEs' default gateway
     */
    void InstallUeInternet(NodeContainer ueNodes,
                           const std::function<Ipv4Address()>& assignAddresses);

    /**
     * \brief Give handover signalling priority over KV bytes on every X2/Xn link between
     *        two of \p bsNodes (a point-to-point device whose channel's other end is also
     *        a BS), if X2SignallingPriority is true; call it after the RAT's
     *        AddX2Interface.
     *
     * Each such device gets a PrioQueueDisc with three FIFO bands sorted by
     * EdgeLlmX2PacketFilter (replacing the default root queue disc), and its own transmit
     * queue shrinks to one packet (else up to 100 KV packets would sit below the queue
     * disc, ahead of any X2-C message; the device stops the queue disc when full).
     * \param bsNodes the BS nodes
     */
    void PrioritiseX2Signalling(NodeContainer bsNodes) const;

    /**
     * \brief What every RAT's Configure() does with its EPC helper, just created: the X2/Xn
     *        cables' rate, delay and MTU from \p config (the EPC helpers' X2LinkDataRate,
     *        X2LinkDelay and X2LinkMtu attributes, alike in LTE and nr), and its SGW and PGW
     *        nodes kept for GetSgwNode() and GetPgwNode().
     * \param epc the RAT's EPC helper (PointToPointEpcHelper, NrPointToPointEpcHelper: an
     *        object without those three attributes aborts in SetAttribute)
     * \param sgw its SGW node
     * \param pgw its PGW node
     * \param config the RAN's config
     */
    void ConfigureEpc(Ptr<Object> epc,
                      Ptr<Node> sgw,
                      Ptr<Node> pgw,
                      const EdgeLlmRanConfig& config);

    /**
     * \brief A device of this RAN as the RAT's device type; aborts, naming the device, its
     *        node and \p typeName, if it is not one.
     * \tparam T the RAT's device type (LteEnbNetDevice, NrUeNetDevice, ...)
     * \param device the device
     * \param typeName T's name, for the message
     * \return the device as T
     */
    template <class T>
    Ptr<T> DeviceAs(Ptr<NetDevice> device, const std::string& typeName) const
    {
        Ptr<T> typed = DynamicCast<T>(device);
        NS_ABORT_MSG_IF(!typed,
                        RanLabel() << ": device " << (device ? device->GetIfIndex() : 0)
                                   << " of node " << (device ? device->GetNode()->GetId() : 0)
                                   << " is not an " << typeName
                                   << " (devices of another RAT: give EdgeLlmHelper their RAN, "
                                      "SetRan or Install(LteEdgeLlmRan::Wrap / "
                                      "NrEdgeLlmRan::Wrap(...)))");
        return typed;
    }

    /// \return "LTE RAN" or "NR RAN" (the RAT's name in capitals), for messages
    std::string RanLabel() const;

    /**
     * \param bsNode a node
     * \return its first BS device of this RAT (IsBsDevice: made by Install(), a Wrap()ped
     *         script or any RAT helper); aborts, naming the node and the RRC, if it has none
     */
    Ptr<NetDevice> BsDeviceOf(Ptr<Node> bsNode) const;

    /**
     * \brief A RAT's Wrap(): adopt a script's own EPC and devices instead of Configure()
     *        and Install().
     * \param sgw the EPC helper's SGW node
     * \param pgw its PGW node
     * \param bsDevices the script's BS devices (each checked with IsBsDevice)
     * \param ueDevices the script's UE devices (each checked with GetImsi)
     */
    void Adopt(Ptr<Node> sgw,
               Ptr<Node> pgw,
               NetDeviceContainer bsDevices,
               NetDeviceContainer ueDevices);

    /**
     * \brief AddPreTransferTrigger for either RAT: LTE's LteEnbRrc and LteRrcSap, NR's
     *        NrGnbRrc and NrRrcSap share the A3 report configuration and the
     *        RecvMeasurementReport trace (imsi, cellId, rnti, report).
     * \tparam Sap LteRrcSap or NrRrcSap
     * \tparam Rrc LteEnbRrc or NrGnbRrc
     */
    template <class Sap, class Rrc>
    static void ConnectA3Trigger(Ptr<Rrc> rrc,
                                 double offsetDb,
                                 Time timeToTrigger,
                                 LikelyHandoverCallback likely)
    {
        NS_ABORT_MSG_IF(!(offsetDb >= -15 && offsetDb <= 15),
                        "pre-transfer A3 offset must be in [-15, 15] dB, got " << offsetDb);
        NS_ABORT_MSG_IF(timeToTrigger.IsStrictlyNegative() || timeToTrigger > MilliSeconds(65535),
                        "pre-transfer time-to-trigger must be in [0, 65535] ms");
        typename Sap::ReportConfigEutra config;
        config.eventId = Sap::ReportConfigEutra::EVENT_A3;
        config.a3Offset = static_cast<int8_t>(std::lround(2 * offsetDb));
        config.hysteresis = 0;
        config.timeToTrigger = static_cast<uint16_t>(timeToTrigger.GetMilliSeconds());
        config.reportOnLeave = false;
        config.triggerQuantity = Sap::ReportConfigEutra::RSRP;
        config.reportInterval = Sap::ReportConfigEutra::MS240;
        const std::vector<uint8_t> ids = MeasIds(rrc->AddUeMeasReportConfig(config));
        auto sink = [ids, likely](uint64_t imsi,
                                  uint16_t /* cellId */,
                                  uint16_t /* rnti */,
                                  typename Sap::MeasurementReport report) {
            const auto& results = report.measResults;
            if (std::find(ids.begin(), ids.end(), results.measId) == ids.end() ||
                !results.haveMeasResultNeighCells)
            {
                return;
            }
            uint16_t best = 0;
            int bestRsrp = -1;
            for (const auto& cell : results.measResultListEutra)
            {
                if (cell.haveRsrpResult && cell.rsrpResult > bestRsrp)
                {
                    bestRsrp = cell.rsrpResult;
                    best = cell.physCellId;
                }
            }
            if (best != 0)
            {
                likely(imsi, best); // the physical cell id is the cell id in ns-3
            }
        };
        rrc->TraceConnectWithoutContext(
            "RecvMeasurementReport",
            compat::
                MakeCallback<void, uint64_t, uint16_t, uint16_t, typename Sap::MeasurementReport>(
                    sink));
    }

    /// \return AddUeMeasReportConfig's measIds (one before ns-3.36, a list after)
    static std::vector<uint8_t> MeasIds(uint8_t id)
    {
        return {id};
    }

    /// \copydoc MeasIds(uint8_t)
    static std::vector<uint8_t> MeasIds(const std::vector<uint8_t>& ids)
    {
        return ids;
    }

    /**
     * \brief Run \p during with integer attribute defaults set, each restored to its value
     *        before afterwards (a later scenario in the same process sees ns-3's values
     *        again): the RACH and SRS knobs that the RRC reads while a BS device is
     *        installed.
     * \param knobs full attribute names (e.g. "ns3::LteEnbMac::NumberOfRaPreambles") with
     *        their values; a value 0 leaves that attribute alone (ns-3's default)
     * \param during what to run with them set
     */
    static void WithUintegerDefaults(const std::vector<std::pair<std::string, uint32_t>>& knobs,
                                     const std::function<void()>& during);

    /**
     * \brief Set the config's spectrum cut-off on the RAT's channels (EdgeLlmRanConfig
     *        maxLossDb; 0 leaves them at ns-3's default).
     * \param channels the spectrum channels its devices use (after they are installed)
     * \param maxLossDb the cut-off, dB, or 0
     */
    static void SetMaxLossDb(const std::vector<Ptr<SpectrumChannel>>& channels, double maxLossDb);

    NetDeviceContainer m_bsDevices;    //!< Made by Install()
    NetDeviceContainer m_ueDevices;    //!< Made by Install()
    bool m_x2SignallingPriority{true}; //!< Attribute X2SignallingPriority
    Ptr<EdgeLlmBackhaul> m_backhaul;   //!< SetBackhaul(); null: the mesh
    Ptr<Node> m_sgwNode;               //!< The EPC's SGW (ConfigureEpc())
    Ptr<Node> m_pgwNode;               //!< The EPC's PGW (ConfigureEpc())
};

} // namespace ns3

#endif /* EDGE_LLM_RAN_H */
