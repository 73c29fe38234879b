/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nr-edge-llm-ran.h"

#include "edge-llm-backhaul-helper.h"

#include "ns3/antenna-model.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/ideal-beamforming-algorithm.h"
#include "ns3/ideal-beamforming-helper.h"
#include "ns3/isotropic-antenna-model.h"
#include "ns3/log.h"
#include "ns3/nr-channel-helper.h"
#include "ns3/nr-epc-x2.h"
#include "ns3/nr-gnb-net-device.h"
#include "ns3/nr-gnb-phy.h"
#include "ns3/nr-gnb-rrc.h"
#include "ns3/nr-handover-algorithm.h"
#include "ns3/nr-helper.h"
#include "ns3/nr-point-to-point-epc-helper.h"
#include "ns3/nr-spectrum-phy.h"
#include "ns3/nr-ue-net-device.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/uniform-planar-array.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NrEdgeLlmRan");
NS_OBJECT_ENSURE_REGISTERED(NrEdgeLlmRan);

namespace
{
/// UE transmit power, dBm (3GPP power class 3).
constexpr double UE_TX_POWER_DBM = 23;
/// DL MCS (fixed: see Configure), the most robust one; a token is tens of bytes.
constexpr uint32_t DL_MCS = 0;
} // namespace

TypeId
NrEdgeLlmRan::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NrEdgeLlmRan")
                            .SetParent<EdgeLlmRan>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<NrEdgeLlmRan>();
    return tid;
}

NrEdgeLlmRan::NrEdgeLlmRan() = default;

NrEdgeLlmRan::~NrEdgeLlmRan() = default;

Ptr<NrEdgeLlmRan>
NrEdgeLlmRan::Wrap(Ptr<NrHelper> nr,
                   Ptr<NrPointToPointEpcHelper> epc,
                   NetDeviceContainer gnbDevices,
                   NetDeviceContainer ueDevices)
{
    NS_ABORT_MSG_IF(!nr || !epc, "NrEdgeLlmRan::Wrap: the NrHelper or EPC helper is null");
    Ptr<NrEdgeLlmRan> ran = CreateObject<NrEdgeLlmRan>();
    ran->Adopt(epc->GetSgwNode(), epc->GetPgwNode(), gnbDevices, ueDevices);
    ran->m_nr = nr;
    ran->m_epc = epc;
    return ran;
}

std::string
NrEdgeLlmRan::GetRatName() const
{
    return "nr";
}

void
NrEdgeLlmRan::Configure(const EdgeLlmRanConfig& cfg)
{
    NS_ABORT_MSG_IF(m_nr, "NrEdgeLlmRan::Configure: already configured");
    const std::string algorithm = EdgeLlmRan::NrHandoverAlgorithmName(cfg.handoverAlgorithm);
    m_config = cfg;
    m_epc = CreateObject<NrPointToPointEpcHelper>();
    ConfigureEpc(m_epc, m_epc->GetSgwNode(), m_epc->GetPgwNode(), cfg);
    Ptr<IdealBeamformingHelper> beamforming = CreateObject<IdealBeamformingHelper>();
    beamforming->SetAttribute("BeamformingMethod", TypeIdValue(DirectPathBeamforming::GetTypeId()));
    m_nr = CreateObject<NrHelper>();
    m_nr->SetBeamformingHelper(beamforming);
    m_nr->SetEpcHelper(m_epc);
    m_algorithm = algorithm; // installed on each gNB's RRC by Install() (see there)
    // Single-element isotropic antennas: the road's geometry, not beam patterns, decides
    // the signal, and each slot costs little to simulate.
    for (const auto& [attribute, value] :
         {std::pair<std::string, uint32_t>{"NumRows", 1}, {"NumColumns", 1}})
    {
        m_nr->SetGnbAntennaAttribute(attribute, UintegerValue(value));
        m_nr->SetUeAntennaAttribute(attribute, UintegerValue(value));
    }
    m_nr->SetGnbAntennaAttribute("AntennaElement",
                                 PointerValue(CreateObject<IsotropicAntennaModel>()));
    m_nr->SetUeAntennaAttribute("AntennaElement",
                                PointerValue(CreateObject<IsotropicAntennaModel>()));
    m_nr->SetGnbPhyAttribute("TxPower", DoubleValue(cfg.bsTxPowerDbm));
    m_nr->SetGnbPhyAttribute("Numerology", UintegerValue(cfg.nrNumerology));
    m_nr->SetUePhyAttribute("TxPower", DoubleValue(UE_TX_POWER_DBM));
    m_nr->SetUePhyAttribute("EnableUplinkPowerControl", BooleanValue(false));
    // DL link adaptation off (fixed MCS). In nr v4.1.1 a UE that hands over between two
    // cells of one band sends the target a DL CQI report still queued in its PHY's control
    // pipeline, with the RNTI of the source cell; unless that RNTI happens to exist at the
    // target, NrMacSchedulerNs3 asserts (or, without asserts, reads a missing UE). A fixed
    // DL MCS makes the scheduler ignore CQI reports. The token stream needs no more than
    // the most robust MCS.
    m_nr->SetSchedulerAttribute("FixedMcsDl", BooleanValue(true));
    m_nr->SetSchedulerAttribute("StartingMcsDl", UintegerValue(DL_MCS));

    // One band, one CC, one BWP, shared by both gNBs (intra-frequency handovers).
    Ptr<NrChannelHelper> channel = CreateObject<NrChannelHelper>();
    channel->ConfigureFactories(cfg.nrScenario, cfg.nrChannelCondition, "ThreeGpp");
    channel->SetPathlossAttribute("ShadowingEnabled", BooleanValue(false));
    if (cfg.nrChannelCondition == "Default")
    {
        channel->SetChannelConditionModelAttribute("UpdatePeriod", TimeValue(Seconds(0)));
    }
    CcBwpCreator creator;
    m_band = std::make_unique<OperationBandInfo>(creator.CreateOperationBandContiguousCc(
        CcBwpCreator::SimpleOperationBandConf(cfg.nrFrequencyHz, cfg.nrBandwidthHz, 1)));
    channel->AssignChannelsToBands({*m_band});
}

void
NrEdgeLlmRan::Install(NodeContainer bsNodes, NodeContainer ueNodes)
{
    NS_ABORT_MSG_IF(!m_nr, "NrEdgeLlmRan::Install: call Configure() first");
    NS_ABORT_MSG_IF(m_bsDevices.GetN() > 0,
                    "NrEdgeLlmRan::Install: the RAN has its devices already (Install or Wrap)");
    const BandwidthPartInfoPtrVector bwps = CcBwpCreator::GetAllBwps({*m_band});
    // RACH knobs (0: nr's default), as for LTE: NrGnbRrc reads the MAC's RACH settings
    // while the device is installed.
    WithUintegerDefaults(
        {{"ns3::NrGnbMac::NumberOfRaPreambles", m_config.raPreambles},
         {"ns3::NrGnbMac::PreambleTransMax", m_config.preambleTransMax}},
        [this, &bsNodes, &bwps] { m_bsDevices = m_nr->InstallGnbDevice(bsNodes, bwps); });
    m_ueDevices = m_nr->InstallUeDevice(ueNodes, bwps);
    // nr v4.1.1's NrHelper keeps a handover algorithm factory (SetHandoverAlgorithmType)
    // but never installs the algorithm on a gNB: the RRC gets none and measured
    // handovers never happen. Install it here, as LteHelper does for an eNB: one instance
    // per gNB, wired to its RRC through the handover management SAPs, and initialized now,
    // before any UE connects, so that its measurement configuration (A3 or A2/A4) is sent
    // to every UE at connection.
    ObjectFactory algorithms(m_algorithm);
    for (uint32_t i = 0; i < m_bsDevices.GetN(); ++i)
    {
        Ptr<NrGnbRrc> rrc = DynamicCast<NrGnbNetDevice>(m_bsDevices.Get(i))->GetRrc();
        Ptr<NrHandoverAlgorithm> handover = algorithms.Create<NrHandoverAlgorithm>();
        handover->SetNrHandoverManagementSapUser(rrc->GetNrHandoverManagementSapUser());
        rrc->SetNrHandoverManagementSapProvider(handover->GetNrHandoverManagementSapProvider());
        handover->Initialize();
        m_handoverAlgorithms.push_back(handover);
    }
    std::vector<Ptr<SpectrumChannel>> channels;
    for (const auto& bwp : bwps)
    {
        channels.push_back(bwp.get()->GetChannel());
    }
    SetMaxLossDb(channels, m_config.maxLossDb);
    m_nr->AssignStreams(m_bsDevices, m_config.stream);
    m_nr->AssignStreams(m_ueDevices, m_config.stream + 1000);
    InstallUeInternet(ueNodes, [this] {
        m_epc->AssignUeIpv4Address(m_ueDevices);
        return m_epc->GetUeDefaultGatewayAddress();
    });
    if (GetBackhaul())
    {
        GetBackhaul()->Install(bsNodes, this); // its topology, not the mesh
        return;
    }
    AddMeshX2(bsNodes);
    PrioritiseX2Signalling(bsNodes); // handover signalling before KV bytes
}

void
NrEdgeLlmRan::AddMeshX2(NodeContainer bsNodes)
{
    m_nr->AddX2Interface(bsNodes);
}

void
NrEdgeLlmRan::AddX2Interface(Ptr<NetDevice> bsA,
                             Ipv4Address addressA,
                             Ptr<NetDevice> bsB,
                             Ipv4Address addressB)
{
    Ptr<NrGnbNetDevice> a = DeviceAs<NrGnbNetDevice>(bsA, "NrGnbNetDevice");
    Ptr<NrGnbNetDevice> b = DeviceAs<NrGnbNetDevice>(bsB, "NrGnbNetDevice");
    Ptr<NrEpcX2> xnA = a->GetNode()->GetObject<NrEpcX2>();
    Ptr<NrEpcX2> xnB = b->GetNode()->GetObject<NrEpcX2>();
    NS_ABORT_MSG_IF(!xnA || !xnB, "NrEdgeLlmRan::AddX2Interface: a gNB has no NrEpcX2");
    // What NrNoBackhaulEpcHelper does for its own cables: each Xn entity learns the
    // other's address and cells (one UDP socket per neighbour, bound to the local
    // address), each RRC adds the other cell to its neighbour list.
    xnA->AddX2Interface(a->GetCellId(), addressA, b->GetCellIds(), addressB);
    xnB->AddX2Interface(b->GetCellId(), addressB, a->GetCellIds(), addressA);
    a->GetRrc()->AddX2Neighbour(b->GetCellId());
    b->GetRrc()->AddX2Neighbour(a->GetCellId());
}

void
NrEdgeLlmRan::Attach(NetDeviceContainer ueDevices, Ptr<NetDevice> bsDevice)
{
    for (uint32_t i = 0; i < ueDevices.GetN(); ++i)
    {
        m_nr->AttachToGnb(ueDevices.Get(i), bsDevice);
    }
}

void
NrEdgeLlmRan::HandoverRequest(Time at,
                              Ptr<NetDevice> ueDevice,
                              Ptr<NetDevice> sourceBsDevice,
                              Ptr<NetDevice> targetBsDevice)
{
    m_nr->HandoverRequest(at, ueDevice, sourceBsDevice, targetBsDevice);
}

uint16_t
NrEdgeLlmRan::GetCellId(Ptr<NetDevice> bsDevice) const
{
    return DeviceAs<NrGnbNetDevice>(bsDevice, "NrGnbNetDevice")->GetCellId();
}

uint64_t
NrEdgeLlmRan::GetImsi(Ptr<NetDevice> ueDevice) const
{
    return DeviceAs<NrUeNetDevice>(ueDevice, "NrUeNetDevice")->GetImsi();
}

void
NrEdgeLlmRan::SetBsTxPower(Ptr<NetDevice> bsDevice, double dbm) const
{
    Ptr<NrGnbNetDevice> bs = DeviceAs<NrGnbNetDevice>(bsDevice, "NrGnbNetDevice");
    for (uint32_t i = 0; i < bs->GetCcMapSize(); ++i)
    {
        bs->GetPhy(static_cast<uint8_t>(i))->SetTxPower(dbm);
    }
}

void
NrEdgeLlmRan::SetBsAntenna(Ptr<NetDevice> bsDevice, const EdgeLlmSectorAntenna& antenna) const
{
    Ptr<NrGnbNetDevice> bs = DeviceAs<NrGnbNetDevice>(bsDevice, "NrGnbNetDevice");
    // The array's bearing in [-pi, pi] (its attribute's range), the element unturned: the
    // array evaluates the element in its own coordinates (TR 38.901 7.1-7, 7.1-8).
    antenna.Validate();
    const double pi = std::acos(-1.0);
    const double bearing = std::remainder(antenna.azimuthDeg * pi / 180, 2 * pi); // [-pi, pi]
    for (uint32_t i = 0; i < bs->GetCcMapSize(); ++i)
    {
        Ptr<UniformPlanarArray> array = bs->GetPhy(static_cast<uint8_t>(i))
                                            ->GetSpectrumPhy()
                                            ->GetAntenna()
                                            ->GetObject<UniformPlanarArray>();
        NS_ABORT_MSG_IF(!array,
                        "NrEdgeLlmRan::SetBsAntenna: the gNB's antenna is no UniformPlanarArray");
        array->SetAttribute("AntennaElement", PointerValue(antenna.CreateModel(false)));
        array->SetAttribute("BearingAngle", DoubleValue(bearing));
    }
}

std::string
NrEdgeLlmRan::GetUeRrcName() const
{
    return "NrUeRrc";
}

std::string
NrEdgeLlmRan::GetRrcName() const
{
    return "NrGnbRrc";
}

double
NrEdgeLlmRan::GetBsHeight() const
{
    // 3GPP TR 38.901 Table 7.4.1-1 (the V2V scenarios put both ends on vehicles, 1.6 m).
    const std::string& s = m_config.nrScenario;
    if (s == "UMa")
    {
        return 25;
    }
    if (s == "UMi")
    {
        return 10;
    }
    if (s == "RMa")
    {
        return 35;
    }
    if (s.rfind("V2V", 0) == 0)
    {
        return 1.6;
    }
    return 3; // InH: ceiling
}

double
NrEdgeLlmRan::GetUeHeight() const
{
    const std::string& s = m_config.nrScenario;
    if (s.rfind("V2V", 0) == 0)
    {
        return 1.6;
    }
    return s.rfind("InH", 0) == 0 ? 1 : 1.5;
}

Ptr<NrHelper>
NrEdgeLlmRan::GetNrHelper() const
{
    return m_nr;
}

void
NrEdgeLlmRan::DoDispose()
{
    for (auto& handover : m_handoverAlgorithms)
    {
        handover->Dispose();
    }
    m_handoverAlgorithms.clear();
    m_nr = nullptr;
    m_epc = nullptr;
    EdgeLlmRan::DoDispose();
}

void
NrEdgeLlmRan::AddPreTransferTrigger(Ptr<Node> bsNode,
                                    double offsetDb,
                                    Time timeToTrigger,
                                    LikelyHandoverCallback likely)
{
    Ptr<NrGnbNetDevice> bs = DeviceAs<NrGnbNetDevice>(BsDeviceOf(bsNode), "NrGnbNetDevice");
    ConnectA3Trigger<NrRrcSap>(bs->GetRrc(), offsetDb, timeToTrigger, likely);
}

} // namespace ns3
