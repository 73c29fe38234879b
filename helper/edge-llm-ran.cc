/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-ran.h"

#include "edge-llm-helper.h"

#include "ns3/abort.h"
#include "ns3/application.h"
#include "ns3/boolean.h"
#include "ns3/channel.h"
#include "ns3/config.h"
#include "ns3/cosine-antenna-model.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/fq-cobalt-queue-disc.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/fq-pie-queue-disc.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/spectrum-channel.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmRan");

namespace
{

/**
 * Give \p disc the quantum \p mtu if it is a \p Fq (a flow-queue disc: FqCoDel, FqCobalt,
 * FqPie; none has the quantum as an attribute) whose quantum is still unset (0).
 */
template <typename Fq>
void
SetQuantumIfUnset(Ptr<QueueDisc> disc, uint32_t mtu)
{
    Ptr<Fq> fq = DynamicCast<Fq>(disc);
    if (fq && fq->GetQuantum() == 0)
    {
        fq->SetQuantum(mtu);
    }
}

} // namespace

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmRan);
NS_OBJECT_ENSURE_REGISTERED(EdgeLlmX2PacketFilter);

namespace
{

/// The TypeId that implements \p rat ("" for an unknown RAT).
std::string
RanTypeName(const std::string& rat)
{
    if (rat == "lte")
    {
        return "ns3::LteEdgeLlmRan";
    }
    if (rat == "nr")
    {
        return "ns3::NrEdgeLlmRan";
    }
    return "";
}

/**
 * \brief One of the RRC's handover timers, as its TypeId's attribute default now says.
 * \param rat "lte" or "nr"
 * \param attribute e.g. "HandoverJoiningTimeoutDuration"
 * \return the timer's duration
 * \throws std::invalid_argument if this ns-3 has no such RRC or attribute
 */
Time
RrcTimer(const std::string& rat, const std::string& attribute)
{
    const std::string rrc = rat == "nr" ? "ns3::NrGnbRrc" : "ns3::LteEnbRrc";
    TypeId tid;
    TypeId::AttributeInformation info;
    if ((rat != "lte" && rat != "nr") || !TypeId::LookupByNameFailSafe(rrc, &tid) ||
        !tid.LookupAttributeByName(attribute, &info))
    {
        throw std::invalid_argument("ran '" + rat + "': this ns-3 has no " + rrc +
                                    "::" + attribute);
    }
    Ptr<const TimeValue> value = DynamicCast<const TimeValue>(info.initialValue);
    NS_ABORT_MSG_IF(!value, rrc << "::" << attribute << " is not a Time");
    return value->Get();
}

} // namespace

void
EdgeLlmSectorAntenna::Validate() const
{
    const double a = MAX_AZIMUTH_DEG;
    if (!(std::isfinite(azimuthDeg) && azimuthDeg >= -a && azimuthDeg <= a))
    {
        throw std::invalid_argument("azimuth must be in [-" + edgellm::FormatNumber(a) + ", " +
                                    edgellm::FormatNumber(a) + "] degrees, got " +
                                    edgellm::FormatValue(azimuthDeg));
    }
    if (!(std::isfinite(beamwidthDeg) && beamwidthDeg > 0 && beamwidthDeg <= MAX_BEAMWIDTH_DEG))
    {
        throw std::invalid_argument("beamwidth must be in (0, " +
                                    edgellm::FormatNumber(MAX_BEAMWIDTH_DEG) + "] degrees, got " +
                                    edgellm::FormatValue(beamwidthDeg));
    }
}

Ptr<AntennaModel>
EdgeLlmSectorAntenna::CreateModel(bool oriented) const
{
    Validate();
    Ptr<CosineAntennaModel> model = CreateObject<CosineAntennaModel>();
    model->SetAttribute("HorizontalBeamwidth", DoubleValue(beamwidthDeg));
    model->SetAttribute("Orientation", DoubleValue(oriented ? azimuthDeg : 0.0));
    return model;
}

void
EdgeLlmRanConfig::Validate(const std::string& rat) const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    require(rat == "lte" || rat == "nr", "ran must be lte or nr, got '" + rat + "'");
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    require(!backhaulDelay.IsStrictlyNegative(), "backhaulDelay must be >= 0");
    edgellm::CheckBackhaulMtu("backhaulMtu", backhaulMtu);
    if (rat == "lte" || EdgeLlmRan::IsAvailable("nr"))
    {
        // A backhaul too slow (or too long) for the RRC's handover timers crashes ns-3's
        // RRC on the late X2 message: refuse it, with the computed minimum.
        const double minRate = EdgeLlmRan::MinBackhaulBitRate(rat, backhaulMtu, backhaulDelay);
        std::ostringstream why;
        why << " for a handover's X2 signalling (HANDOVER REQUEST ACK, UE CONTEXT RELEASE) "
               "to beat the RRC's HandoverJoiningTimeoutDuration and "
               "HandoverLeavingTimeoutDuration behind two KV frames of backhaulMtu + 2 = "
            << backhaulMtu + 2 << " bytes, with backhaulDelay = " << backhaulDelay.As(Time::MS)
            << " and " << EdgeLlmRan::HANDOVER_RADIO_ALLOWANCE_MS << " ms for the radio part";
        if (!std::isfinite(minRate))
        {
            // No rate is enough once the delay alone uses up the shorter timer's budget.
            const Time limit = std::min(RrcTimer(rat, "HandoverJoiningTimeoutDuration"),
                                        RrcTimer(rat, "HandoverLeavingTimeoutDuration")) -
                               MilliSeconds(EdgeLlmRan::HANDOVER_RADIO_ALLOWANCE_MS);
            require(false,
                    "backhaulDelay must be below " +
                        edgellm::FormatNumber(limit.GetMicroSeconds()) +
                        " us here (the shorter RRC handover timer minus " +
                        std::to_string(EdgeLlmRan::HANDOVER_RADIO_ALLOWANCE_MS) +
                        " ms for the radio part), got " +
                        edgellm::FormatValue(backhaulDelay.GetMicroSeconds()) +
                        " us: no backhaul rate is enough" + why.str());
        }
        // Rounded up to a whole bit/s, so the number printed is itself accepted.
        const double shown = std::ceil(minRate);
        std::ostringstream minimum;
        minimum.precision(10);
        minimum << shown / 1e9 << " Gbit/s (" << static_cast<uint64_t>(shown) << " bit/s)";
        std::ostringstream got;
        got << backhaulGbps;
        require(backhaulGbps * 1e9 >= minRate,
                "backhaulGbps must be >= " + minimum.str() + why.str() + "; got " + got.str());
    }
    require(std::isfinite(bsTxPowerDbm) && bsTxPowerDbm >= -30 && bsTxPowerDbm <= 60,
            "bsTxPowerDbm must be in [-30, 60] dBm");
    require(maxLossDb == 0 || (std::isfinite(maxLossDb) && maxLossDb >= 50 && maxLossDb <= 300),
            "maxLossDb (ns3::SpectrumChannel::MaxLossDb) must be 0 (no cut-off) or in [50, 300] "
            "dB (below 50 dB a UE would not hear its own cell), got " +
                edgellm::FormatValue(maxLossDb));
    // The RRC (LteEnbRrc, NrGnbRrc) encodes these in SIB2: only 3GPP's values.
    require(raPreambles == 0 || (raPreambles % 4 == 0 && raPreambles >= 4 && raPreambles <= 60),
            "raPreambles (ns3::LteEnbMac::NumberOfRaPreambles; NR: ns3::NrGnbMac's) must be 0 "
            "(ns-3's 52) or a multiple of 4 in [4, 60] (64 preambles per cell, at least 4 "
            "dedicated to handovers); got " +
                std::to_string(raPreambles));
    const std::vector<uint32_t> transMax{0, 3, 4, 5, 6, 7, 8, 10, 20, 50, 100, 200};
    require(std::find(transMax.begin(), transMax.end(), preambleTransMax) != transMax.end(),
            "preambleTransMax (ns3::LteEnbMac::PreambleTransMax) must be 0 (ns-3's 50) or one "
            "of 3, 4, 5, 6, 7, 8, 10, 20, 50, 100, 200 (NR: ns3::NrGnbMac's); got " +
                std::to_string(preambleTransMax));
    if (rat == "lte")
    {
        require(bandwidthRbs == 6 || bandwidthRbs == 15 || bandwidthRbs == 25 ||
                    bandwidthRbs == 50 || bandwidthRbs == 75 || bandwidthRbs == 100,
                "bandwidthRbs must be 6, 15, 25, 50, 75 or 100");
        if (!handoverAlgorithm.empty())
        {
            RequireTypeId("handoverAlgorithm", handoverAlgorithm, "ns3::LteHandoverAlgorithm");
        }
        if (!pathlossModel.empty())
        {
            RequireTypeId("pathlossModel", pathlossModel, "ns3::PropagationLossModel");
        }
        // LteEnbRrc encodes it in the SRS configuration: only 3GPP's values.
        const std::vector<uint32_t> srs{0, 2, 5, 10, 20, 40, 80, 160, 320};
        require(std::find(srs.begin(), srs.end(), srsPeriodicity) != srs.end(),
                "srsPeriodicity (ns3::LteEnbRrc::SrsPeriodicity) must be 0 (ns-3's 40) or one "
                "of 2, 5, 10, 20, 40, 80, 160, 320 ms; got " +
                    std::to_string(srsPeriodicity));
        require(amcModel.empty() || amcModel == "MiErrorModel" || amcModel == "PiroEW2010",
                "amcModel (ns3::LteAmc::AmcModel) must be \"\" (ns-3's default), "
                "\"MiErrorModel\" or \"PiroEW2010\"; got \"" +
                    amcModel + "\"");
        return;
    }
    require(amcModel.empty(),
            "amcModel is LTE's knob (ns3::LteAmc::AmcModel); NR's AMC is not configured here");
    require(pathlossModel.empty(),
            "pathlossModel is LTE's knob; NR's propagation follows nrScenario (3GPP TR 38.901)");
    require(std::isfinite(nrFrequencyHz) && nrFrequencyHz >= 0.5e9 && nrFrequencyHz <= 100e9,
            "nrFrequencyHz must be in [0.5e9, 100e9] Hz (3GPP TR 38.901's range)");
    require(std::isfinite(nrBandwidthHz) && nrBandwidthHz >= 5e6 && nrBandwidthHz <= 400e6,
            "nrBandwidthHz must be in [5e6, 400e6] Hz");
    require(nrNumerology <= 4, "nrNumerology must be in [0, 4]");
    require(nrScenario == "RMa" || nrScenario == "UMa" || nrScenario == "UMi" ||
                nrScenario == "InH" || nrScenario == "InH-OfficeMixed" ||
                nrScenario == "InH-OfficeOpen" || nrScenario == "V2V-Highway" ||
                nrScenario == "V2V-Urban",
            "nrScenario must be RMa, UMa, UMi, InH, InH-OfficeMixed, InH-OfficeOpen, "
            "V2V-Highway or V2V-Urban, got '" +
                nrScenario + "'");
    (void)EdgeLlmRan::NrHandoverAlgorithmName(handoverAlgorithm); // throws naming the field
    require(nrChannelCondition == "LOS" || nrChannelCondition == "NLOS" ||
                nrChannelCondition == "Default",
            "nrChannelCondition must be LOS, NLOS or Default, got '" + nrChannelCondition + "'");
}

TypeId
EdgeLlmX2PacketFilter::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmX2PacketFilter")
            .SetParent<Ipv4PacketFilter>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmX2PacketFilter>()
            .AddAttribute("AckPriority",
                          "true: TCP acknowledgements without payload (not SYN, FIN or "
                          "RST) go in band 1 with X2-U, ahead of the KV bytes, so that a "
                          "site's outbound KV queue does not delay its inbound transfers' "
                          "acknowledgements (safe for connections that carry data one way, "
                          "as the KV transfer's do). false: they wait in band 2 with the KV "
                          "bytes",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmX2PacketFilter::m_ackPriority),
                          MakeBooleanChecker());
    return tid;
}

EdgeLlmX2PacketFilter::EdgeLlmX2PacketFilter() = default;

int32_t
EdgeLlmX2PacketFilter::DoClassify(Ptr<QueueDiscItem> item) const
{
    Ptr<Ipv4QueueDiscItem> ipv4 = DynamicCast<Ipv4QueueDiscItem>(item);
    const Ipv4Header& header = ipv4->GetHeader();
    if (m_ackPriority && header.GetProtocol() == TcpL4Protocol::PROT_NUMBER &&
        header.GetFragmentOffset() == 0)
    {
        // The queue disc item's packet starts at the TCP header (the IPv4 header is kept
        // apart); a segment whose packet is its header alone carries no payload. SYN, FIN
        // and RST stay in order with their connection's data. An acknowledgement must not
        // overtake a data segment of its own connection: ns-3's TCP drops the data of a
        // segment whose acknowledgement number is below one already received. The module's
        // TCP connections carry data one way only (EdgeLlmNode), so theirs never do.
        TcpHeader tcp;
        if (item->GetPacket()->GetSize() >= MIN_TCP_HEADER_BYTES &&
            item->GetPacket()->PeekHeader(tcp) != 0 &&
            item->GetPacket()->GetSize() == tcp.GetSerializedSize() &&
            (tcp.GetFlags() & (TcpHeader::SYN | TcpHeader::FIN | TcpHeader::RST)) == 0)
        {
            return BAND_X2U;
        }
    }
    UdpHeader udp;
    if (header.GetProtocol() != UdpL4Protocol::PROT_NUMBER || header.GetFragmentOffset() != 0 ||
        item->GetPacket()->GetSize() < udp.GetSerializedSize())
    {
        return BAND_BULK;
    }
    item->GetPacket()->PeekHeader(udp);
    if (udp.GetDestinationPort() == X2C_PORT)
    {
        return BAND_X2C;
    }
    if (udp.GetDestinationPort() == X2U_PORT)
    {
        return BAND_X2U;
    }
    return BAND_BULK;
}

TypeId
EdgeLlmRan::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmRan")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("X2SignallingPriority",
                          "true: every X2/Xn device gets a priority queue disc that sends "
                          "X2-C (handover signalling) before X2-U before KV bytes, and a "
                          "one-packet device queue (see EdgeLlmX2PacketFilter). false: "
                          "ns-3's defaults (one FIFO order: X2-C waits behind queued KV "
                          "bytes; on a slow backhaul the RRC's timers expire first). The minimum "
                          "backhaul rate (MinBackhaulBitRate) assumes true.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&EdgeLlmRan::m_x2SignallingPriority),
                          MakeBooleanChecker());
    return tid;
}

double
EdgeLlmRan::MinBackhaulBitRate(const std::string& rat, uint16_t mtu, Time delay)
{
    const Time joining = RrcTimer(rat, "HandoverJoiningTimeoutDuration");
    const Time leaving = RrcTimer(rat, "HandoverLeavingTimeoutDuration");
    const double ahead = 2.0 * (mtu + 2.0); // bytes: the frame on the wire + the queued one
    double rate = 0;
    for (const auto& [timer, bytes] :
         {std::make_pair(joining, X2C_ACK_BYTES), std::make_pair(leaving, X2C_RELEASE_BYTES)})
    {
        // In Time's integer ticks: 200 ms - 180 ms - 20 ms is exactly 0.
        const Time budget = timer - delay - MilliSeconds(HANDOVER_RADIO_ALLOWANCE_MS);
        if (!budget.IsStrictlyPositive())
        {
            return std::numeric_limits<double>::infinity();
        }
        rate = std::max(rate, 8.0 * (ahead + bytes) / budget.GetSeconds());
    }
    return rate;
}

std::string
EdgeLlmRan::NrHandoverAlgorithmName(const std::string& name)
{
    static const std::map<std::string, std::string> fromLte{
        {"", "ns3::NrNoOpHandoverAlgorithm"},
        {"ns3::NoOpHandoverAlgorithm", "ns3::NrNoOpHandoverAlgorithm"},
        {"ns3::A3RsrpHandoverAlgorithm", "ns3::NrA3RsrpHandoverAlgorithm"},
        {"ns3::A2A4RsrqHandoverAlgorithm", "ns3::NrA2A4RsrqHandoverAlgorithm"},
    };
    const auto mapped = fromLte.find(name);
    const std::string nrName = mapped != fromLte.end() ? mapped->second : name;
    TypeId base;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe("ns3::NrHandoverAlgorithm", &base) ||
        !TypeId::LookupByNameFailSafe(nrName, &tid) || !tid.IsChildOf(base))
    {
        throw std::invalid_argument(
            "handoverAlgorithm: '" + name +
            "' is no nr handover algorithm; valid: '' (none), ns3::NrA3RsrpHandoverAlgorithm, "
            "ns3::NrA2A4RsrqHandoverAlgorithm, ns3::NrNoOpHandoverAlgorithm (or the LTE "
            "names of these)");
    }
    return nrName;
}

bool
EdgeLlmRan::IsAvailable(const std::string& rat)
{
    const std::string name = RanTypeName(rat);
    TypeId tid;
    return !name.empty() && TypeId::LookupByNameFailSafe(name, &tid);
}

Ptr<EdgeLlmRan>
EdgeLlmRan::Create(const std::string& rat, const EdgeLlmRanConfig& config)
{
    if (RanTypeName(rat).empty())
    {
        throw std::invalid_argument("ran must be lte or nr, got '" + rat + "'");
    }
    if (!IsAvailable(rat))
    {
        throw std::invalid_argument("ran '" + rat +
                                    "' needs ns-3's nr module (5G-LENA), which this build of "
                                    "edge-llm does not have; valid here: lte");
    }
    config.Validate(rat);
    ObjectFactory factory(RanTypeName(rat));
    Ptr<EdgeLlmRan> ran = factory.Create<EdgeLlmRan>();
    ran->Configure(config);
    return ran;
}

double
EdgeLlmRan::GetBsHeight() const
{
    return 0;
}

double
EdgeLlmRan::GetUeHeight() const
{
    return 0;
}

NetDeviceContainer
EdgeLlmRan::GetBsDevices() const
{
    return m_bsDevices;
}

NetDeviceContainer
EdgeLlmRan::GetUeDevices() const
{
    return m_ueDevices;
}

void
EdgeLlmRan::ConfigureEpc(Ptr<Object> epc,
                         Ptr<Node> sgw,
                         Ptr<Node> pgw,
                         const EdgeLlmRanConfig& config)
{
    epc->SetAttribute("X2LinkDataRate", DataRateValue(DataRate(config.backhaulGbps * 1e9)));
    epc->SetAttribute("X2LinkDelay", TimeValue(config.backhaulDelay));
    epc->SetAttribute("X2LinkMtu", UintegerValue(config.backhaulMtu));
    m_sgwNode = sgw;
    m_pgwNode = pgw;
}

Ptr<Node>
EdgeLlmRan::GetSgwNode() const
{
    NS_ABORT_MSG_IF(!m_sgwNode,
                    RanLabel() << ": no EPC: make the RAN with EdgeLlmRan::Create (its own EPC) "
                                  "or wrap a script's with "
                               << (GetRatName() == "nr" ? "NrEdgeLlmRan" : "LteEdgeLlmRan")
                               << "::Wrap");
    return m_sgwNode;
}

Ptr<Node>
EdgeLlmRan::GetPgwNode() const
{
    GetSgwNode(); // the same message: both come from Configure() or Adopt()
    NS_ABORT_MSG_IF(!m_pgwNode, RanLabel() << ": no PGW node");
    return m_pgwNode;
}

bool
EdgeLlmRan::IsBsDevice(Ptr<NetDevice> device) const
{
    TypeId::AttributeInformation info;
    return device && device->GetInstanceTypeId().LookupAttributeByName(GetRrcName(), &info);
}

Ptr<NetDevice>
EdgeLlmRan::BsDeviceOf(Ptr<Node> bsNode) const
{
    // The node's own devices, not m_bsDevices: a script's eNBs (LteHelper::InstallEnbDevice)
    // are this RAT's BSs as much as the ones Install() made.
    for (uint32_t i = 0; i < bsNode->GetNDevices(); ++i)
    {
        if (IsBsDevice(bsNode->GetDevice(i)))
        {
            return bsNode->GetDevice(i);
        }
    }
    NS_ABORT_MSG(RanLabel() << ": node " << bsNode->GetId() << " has no BS device of this RAT (no "
                            << GetRrcName() << ")");
    return nullptr;
}

namespace
{

/// The node across one of \p node's point-to-point links that runs an application whose
/// TypeId name ends with \p appName (null if none).
Ptr<Node>
NeighbourRunning(Ptr<Node> node, const std::string& appName)
{
    for (uint32_t d = 0; node && d < node->GetNDevices(); ++d)
    {
        Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
        Ptr<Channel> channel = dev ? dev->GetChannel() : nullptr;
        for (std::size_t k = 0; channel && k < channel->GetNDevices(); ++k)
        {
            Ptr<Node> other = channel->GetDevice(k)->GetNode();
            for (uint32_t a = 0; other != node && a < other->GetNApplications(); ++a)
            {
                const std::string name = other->GetApplication(a)->GetInstanceTypeId().GetName();
                if (name.size() >= appName.size() &&
                    name.compare(name.size() - appName.size(), appName.size(), appName) == 0)
                {
                    return other;
                }
            }
        }
    }
    return nullptr;
}

} // namespace

std::pair<Ptr<Node>, Ptr<Node>>
EdgeLlmRan::FindEpcGateways(Ptr<Node> bsNode)
{
    Ptr<Node> sgw = NeighbourRunning(bsNode, "EpcSgwApplication");
    Ptr<Node> pgw = NeighbourRunning(sgw, "EpcPgwApplication");
    return {sgw, pgw};
}

void
EdgeLlmRan::Adopt(Ptr<Node> sgw,
                  Ptr<Node> pgw,
                  NetDeviceContainer bsDevices,
                  NetDeviceContainer ueDevices)
{
    NS_ABORT_MSG_IF(m_sgwNode || m_bsDevices.GetN() > 0,
                    RanLabel() << "::Wrap: this RAN already has an EPC or devices");
    NS_ABORT_MSG_IF(!sgw || !pgw, RanLabel() << "::Wrap: the EPC helper has no SGW or PGW node");
    NS_ABORT_MSG_IF(bsDevices.GetN() == 0, RanLabel() << "::Wrap: no BS devices");
    for (uint32_t i = 0; i < bsDevices.GetN(); ++i)
    {
        GetCellId(bsDevices.Get(i)); // aborts, naming the device, for another RAT's
    }
    for (uint32_t i = 0; i < ueDevices.GetN(); ++i)
    {
        GetImsi(ueDevices.Get(i));
    }
    m_sgwNode = sgw;
    m_pgwNode = pgw;
    m_bsDevices = bsDevices;
    m_ueDevices = ueDevices;
}

std::string
EdgeLlmRan::RanLabel() const
{
    std::string label = GetRatName();
    std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) {
        return static_cast<char>(std::toupper(c));
    });
    return label + " RAN";
}

void
EdgeLlmRan::DoDispose()
{
    m_bsDevices = NetDeviceContainer();
    m_ueDevices = NetDeviceContainer();
    m_backhaul = nullptr;
    m_sgwNode = nullptr;
    m_pgwNode = nullptr;
    Object::DoDispose();
}

void
EdgeLlmRan::PrioritiseX2Signalling(NodeContainer bsNodes) const
{
    if (!m_x2SignallingPriority)
    {
        return;
    }
    std::set<uint32_t> bsIds;
    for (uint32_t n = 0; n < bsNodes.GetN(); ++n)
    {
        bsIds.insert(bsNodes.Get(n)->GetId());
    }
    for (uint32_t n = 0; n < bsNodes.GetN(); ++n)
    {
        Ptr<Node> node = bsNodes.Get(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            if (!dev || !dev->GetChannel() || dev->GetChannel()->GetNDevices() != 2)
            {
                continue;
            }
            bool x2 = true;
            for (std::size_t e = 0; e < dev->GetChannel()->GetNDevices(); ++e)
            {
                x2 = x2 && bsIds.count(dev->GetChannel()->GetDevice(e)->GetNode()->GetId()) > 0;
            }
            if (!x2)
            {
                continue; // S1-U, or a link to anything but a BS
            }
            InstallX2QueueDisc(dev, "ns3::FifoQueueDisc");
            NS_LOG_INFO("X2/Xn device " << dev->GetIfIndex() << " of node " << node->GetId()
                                        << ": X2-C first, then X2-U, then KV");
        }
    }
}

Ptr<QueueDisc>
EdgeLlmRan::InstallX2QueueDisc(Ptr<PointToPointNetDevice> dev, const std::string& kvQueueDisc)
{
    Ptr<Node> node = dev->GetNode();
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    NS_ABORT_MSG_IF(!tc, "EdgeLlmRan: node " << node->GetId() << " has no traffic control");
    if (tc->GetRootQueueDiscOnDevice(dev))
    {
        tc->DeleteRootQueueDiscOnDevice(dev);
    }
    dev->GetQueue()->SetMaxSize(QueueSize("1p"));
    TrafficControlHelper prio;
    const uint16_t handle = prio.SetRootQueueDisc("ns3::PrioQueueDisc");
    prio.AddPacketFilter(handle, "ns3::EdgeLlmX2PacketFilter");
    const auto classes = prio.AddQueueDiscClasses(handle, 3, "ns3::QueueDiscClass");
    prio.AddChildQueueDisc(handle, classes[0], "ns3::FifoQueueDisc");
    prio.AddChildQueueDisc(handle, classes[1], "ns3::FifoQueueDisc");
    prio.AddChildQueueDisc(handle, classes[2], kvQueueDisc);
    Ptr<QueueDisc> root = prio.Install(dev).Get(0);
    // The flow-queue discs (FqCoDel, FqCobalt, FqPie) take their DRR quantum from the
    // device's MTU only as a root. As a child it stays 0: their CheckConfig refuses that
    // with an NS_ASSERT, which a release build of ns-3 (Debian's) compiles out, and then no
    // flow ever earns credit and their dequeue spins for ever. Give them the MTU.
    Ptr<QueueDisc> kv = root->GetQueueDiscClass(EdgeLlmX2PacketFilter::BAND_BULK)->GetQueueDisc();
    SetQuantumIfUnset<FqCoDelQueueDisc>(kv, dev->GetMtu());
    SetQuantumIfUnset<FqCobaltQueueDisc>(kv, dev->GetMtu());
    SetQuantumIfUnset<FqPieQueueDisc>(kv, dev->GetMtu());
    return root;
}

bool
EdgeLlmRan::HasX2QueueDisc(Ptr<PointToPointNetDevice> dev)
{
    Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
    Ptr<QueueDisc> root = tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr;
    return root && root->GetNPacketFilters() > 0 &&
           DynamicCast<EdgeLlmX2PacketFilter>(root->GetPacketFilter(0));
}

void
EdgeLlmRan::SetBackhaul(Ptr<EdgeLlmBackhaul> backhaul)
{
    m_backhaul = backhaul;
}

Ptr<EdgeLlmBackhaul>
EdgeLlmRan::GetBackhaul() const
{
    return m_backhaul;
}

bool
EdgeLlmRan::DefaultX2SignallingPriority()
{
    TypeId::AttributeInformation info;
    const bool found = GetTypeId().LookupAttributeByName("X2SignallingPriority", &info);
    NS_ABORT_MSG_UNLESS(found, "EdgeLlmRan has no X2SignallingPriority attribute");
    const auto value = DynamicCast<const BooleanValue>(info.initialValue);
    NS_ABORT_MSG_UNLESS(value, "X2SignallingPriority's initial value is no BooleanValue");
    return value->Get();
}

bool
EdgeLlmRan::GetX2SignallingPriority() const
{
    return m_x2SignallingPriority;
}

void
EdgeLlmRan::WithUintegerDefaults(const std::vector<std::pair<std::string, uint32_t>>& knobs,
                                 const std::function<void()>& during)
{
    std::vector<std::pair<std::string, std::string>> saved;
    for (const auto& [name, value] : knobs)
    {
        if (value == 0)
        {
            continue;
        }
        const auto split = name.rfind("::");
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_UNLESS(TypeId::LookupByName(name.substr(0, split))
                                .LookupAttributeByName(name.substr(split + 2), &info),
                            "EdgeLlmRan: no attribute " << name);
        saved.emplace_back(name, info.initialValue->SerializeToString(info.checker));
        Config::SetDefault(name, UintegerValue(value));
    }
    during();
    for (const auto& [name, value] : saved)
    {
        Config::SetDefault(name, StringValue(value));
    }
}

void
EdgeLlmRan::SetMaxLossDb(const std::vector<Ptr<SpectrumChannel>>& channels, double maxLossDb)
{
    if (maxLossDb == 0)
    {
        return;
    }
    for (const auto& channel : channels)
    {
        NS_ABORT_MSG_IF(!channel, "EdgeLlmRan::SetMaxLossDb: the RAT has no spectrum channel");
        channel->SetAttribute("MaxLossDb", DoubleValue(maxLossDb));
    }
}

void
EdgeLlmRan::InstallUeInternet(NodeContainer ueNodes,
                              const std::function<Ipv4Address()>& assignAddresses)
{
    InternetStackHelper internet;
    internet.Install(ueNodes);
    const Ipv4Address gateway = assignAddresses();
    Ipv4StaticRoutingHelper routing;
    for (uint32_t i = 0; i < ueNodes.GetN(); ++i)
    {
        routing.GetStaticRouting(ueNodes.Get(i)->GetObject<Ipv4>())->SetDefaultRoute(gateway, 1);
    }
}

} // namespace ns3
