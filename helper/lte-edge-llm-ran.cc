/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lte-edge-llm-ran.h"

#include "edge-llm-backhaul-helper.h"

#include "ns3/antenna-model.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/epc-x2.h"
#include "ns3/log.h"
#include "ns3/lte-enb-net-device.h"
#include "ns3/lte-enb-phy.h"
#include "ns3/lte-enb-rrc.h"
#include "ns3/lte-helper.h"
#include "ns3/lte-spectrum-phy.h"
#include "ns3/lte-ue-net-device.h"
#include "ns3/point-to-point-epc-helper.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LteEdgeLlmRan");
NS_OBJECT_ENSURE_REGISTERED(LteEdgeLlmRan);

namespace
{

/// EpcX2::AddX2Interface where it takes the peer's cell ids (ns-3 >= 3.36) ...
template <typename X2>
auto
AddX2Peer(X2& x2, uint16_t cell, Ipv4Address local, uint16_t peerCell, Ipv4Address remote, int)
    -> decltype(x2.AddX2Interface(cell, local, std::vector<uint16_t>{}, remote), void())
{
    x2.AddX2Interface(cell, local, std::vector<uint16_t>{peerCell}, remote);
}

/// ... and where it takes one cell id (ns-3.35).
template <typename X2>
void
AddX2Peer(X2& x2, uint16_t cell, Ipv4Address local, uint16_t peerCell, Ipv4Address remote, long)
{
    x2.AddX2Interface(cell, local, peerCell, remote);
}

} // namespace

TypeId
LteEdgeLlmRan::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LteEdgeLlmRan")
                            .SetParent<EdgeLlmRan>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<LteEdgeLlmRan>();
    return tid;
}

LteEdgeLlmRan::LteEdgeLlmRan() = default;

LteEdgeLlmRan::~LteEdgeLlmRan() = default;

Ptr<LteEdgeLlmRan>
LteEdgeLlmRan::Wrap(Ptr<LteHelper> lte,
                    Ptr<PointToPointEpcHelper> epc,
                    NetDeviceContainer enbDevices,
                    NetDeviceContainer ueDevices)
{
    NS_ABORT_MSG_IF(!lte || !epc, "LteEdgeLlmRan::Wrap: the LteHelper or EPC helper is null");
    Ptr<LteEdgeLlmRan> ran = CreateObject<LteEdgeLlmRan>();
    ran->Adopt(epc->GetSgwNode(), epc->GetPgwNode(), enbDevices, ueDevices);
    ran->m_lte = lte;
    ran->m_epc = epc;
    return ran;
}

std::string
LteEdgeLlmRan::GetRatName() const
{
    return "lte";
}

void
LteEdgeLlmRan::Configure(const EdgeLlmRanConfig& cfg)
{
    NS_ABORT_MSG_IF(m_lte, "LteEdgeLlmRan::Configure: already configured");
    m_config = cfg;
    m_lte = CreateObject<LteHelper>();
    m_epc = CreateObject<PointToPointEpcHelper>();
    ConfigureEpc(m_epc, m_epc->GetSgwNode(), m_epc->GetPgwNode(), cfg);
    m_lte->SetEpcHelper(m_epc);
    // Known handover times: handovers are requested (HandoverRequest) and announced.
    // Otherwise the RRC's algorithm decides (online ctHO).
    m_lte->SetHandoverAlgorithmType(cfg.handoverAlgorithm.empty()
                                        ? std::string("ns3::NoOpHandoverAlgorithm")
                                        : cfg.handoverAlgorithm);
    if (!cfg.pathlossModel.empty())
    {
        m_lte->SetAttribute("PathlossModel", StringValue(cfg.pathlossModel));
        m_lte->SetPathlossModelAttribute("Exponent", DoubleValue(cfg.pathlossExponent));
    }
    m_lte->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(cfg.bandwidthRbs));
    m_lte->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(cfg.bandwidthRbs));
}

void
LteEdgeLlmRan::Install(NodeContainer bsNodes, NodeContainer ueNodes)
{
    NS_ABORT_MSG_IF(!m_lte, "LteEdgeLlmRan::Install: call Configure() first");
    NS_ABORT_MSG_IF(m_bsDevices.GetN() > 0,
                    "LteEdgeLlmRan::Install: the RAN has its devices already (Install or Wrap)");
    // The AMC knob: every LteAmc (each UE PHY's, which computes the CQI reports, and each
    // eNB scheduler's) is created with the devices, so it is an attribute default during
    // both installs only, restored afterwards ("": ns-3's default, untouched).
    std::string savedAmc;
    if (!m_config.amcModel.empty())
    {
        TypeId::AttributeInformation info;
        NS_ABORT_MSG_UNLESS(
            TypeId::LookupByName("ns3::LteAmc").LookupAttributeByName("AmcModel", &info),
            "LteEdgeLlmRan: no attribute ns3::LteAmc::AmcModel");
        savedAmc = info.initialValue->SerializeToString(info.checker);
        // ns-3's attribute calls LteAmc::MiErrorModel "Vienna".
        Config::SetDefault(
            "ns3::LteAmc::AmcModel",
            StringValue(m_config.amcModel == "MiErrorModel" ? "Vienna" : m_config.amcModel));
    }
    // RACH and SRS knobs (0: ns-3's default). LteEnbRrc reads the MAC's RACH settings into
    // SIB2 while the device is installed, so they are attribute defaults during
    // InstallEnbDevice only (EdgeLlmRan::WithUintegerDefaults).
    WithUintegerDefaults({{"ns3::LteEnbMac::NumberOfRaPreambles", m_config.raPreambles},
                          {"ns3::LteEnbMac::PreambleTransMax", m_config.preambleTransMax},
                          {"ns3::LteEnbRrc::SrsPeriodicity", m_config.srsPeriodicity}},
                         [this, &bsNodes] { m_bsDevices = m_lte->InstallEnbDevice(bsNodes); });
    m_ueDevices = m_lte->InstallUeDevice(ueNodes);
    if (!savedAmc.empty())
    {
        Config::SetDefault("ns3::LteAmc::AmcModel", StringValue(savedAmc));
    }
    for (uint32_t i = 0; i < m_bsDevices.GetN(); ++i)
    {
        DynamicCast<LteEnbNetDevice>(m_bsDevices.Get(i))
            ->GetPhy()
            ->SetTxPower(m_config.bsTxPowerDbm);
    }
    SetMaxLossDb({m_lte->GetDownlinkSpectrumChannel(), m_lte->GetUplinkSpectrumChannel()},
                 m_config.maxLossDb);
    m_lte->AssignStreams(m_bsDevices, m_config.stream);
    m_lte->AssignStreams(m_ueDevices, m_config.stream + 1000);
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
LteEdgeLlmRan::AddMeshX2(NodeContainer bsNodes)
{
    m_lte->AddX2Interface(bsNodes);
}

void
LteEdgeLlmRan::AddX2Interface(Ptr<NetDevice> bsA,
                              Ipv4Address addressA,
                              Ptr<NetDevice> bsB,
                              Ipv4Address addressB)
{
    Ptr<LteEnbNetDevice> a = DynamicCast<LteEnbNetDevice>(bsA);
    Ptr<LteEnbNetDevice> b = DynamicCast<LteEnbNetDevice>(bsB);
    NS_ABORT_MSG_IF(!a || !b, "LteEdgeLlmRan::AddX2Interface: not two LteEnbNetDevices");
    Ptr<EpcX2> x2a = a->GetNode()->GetObject<EpcX2>();
    Ptr<EpcX2> x2b = b->GetNode()->GetObject<EpcX2>();
    NS_ABORT_MSG_IF(!x2a || !x2b, "LteEdgeLlmRan::AddX2Interface: an eNB has no EpcX2");
    // What the EPC helper does for its own cables: each X2 entity learns the other's
    // address (one UDP socket per neighbour, bound to the local address), each RRC adds
    // the other cell to its neighbour list.
    AddX2Peer(*x2a, a->GetCellId(), addressA, b->GetCellId(), addressB, 0);
    AddX2Peer(*x2b, b->GetCellId(), addressB, a->GetCellId(), addressA, 0);
    a->GetRrc()->AddX2Neighbour(b->GetCellId());
    b->GetRrc()->AddX2Neighbour(a->GetCellId());
}

void
LteEdgeLlmRan::Attach(NetDeviceContainer ueDevices, Ptr<NetDevice> bsDevice)
{
    for (uint32_t i = 0; i < ueDevices.GetN(); ++i)
    {
        m_lte->Attach(ueDevices.Get(i), bsDevice);
    }
}

void
LteEdgeLlmRan::HandoverRequest(Time at,
                               Ptr<NetDevice> ueDevice,
                               Ptr<NetDevice> sourceBsDevice,
                               Ptr<NetDevice> targetBsDevice)
{
    m_lte->HandoverRequest(at, ueDevice, sourceBsDevice, targetBsDevice);
}

uint16_t
LteEdgeLlmRan::GetCellId(Ptr<NetDevice> bsDevice) const
{
    return DeviceAs<LteEnbNetDevice>(bsDevice, "LteEnbNetDevice")->GetCellId();
}

uint64_t
LteEdgeLlmRan::GetImsi(Ptr<NetDevice> ueDevice) const
{
    return DeviceAs<LteUeNetDevice>(ueDevice, "LteUeNetDevice")->GetImsi();
}

void
LteEdgeLlmRan::SetBsTxPower(Ptr<NetDevice> bsDevice, double dbm) const
{
    DeviceAs<LteEnbNetDevice>(bsDevice, "LteEnbNetDevice")->GetPhy()->SetTxPower(dbm);
}

void
LteEdgeLlmRan::SetBsAntenna(Ptr<NetDevice> bsDevice, const EdgeLlmSectorAntenna& antenna) const
{
    Ptr<LteEnbPhy> phy = DeviceAs<LteEnbNetDevice>(bsDevice, "LteEnbNetDevice")->GetPhy();
    // One model for both directions, as LteHelper gives each eNB its one antenna.
    Ptr<AntennaModel> model = antenna.CreateModel(true);
    phy->GetDownlinkSpectrumPhy()->SetAntenna(model);
    phy->GetUplinkSpectrumPhy()->SetAntenna(model);
}

std::string
LteEdgeLlmRan::GetUeRrcName() const
{
    return "LteUeRrc";
}

std::string
LteEdgeLlmRan::GetRrcName() const
{
    return "LteEnbRrc";
}

Ptr<LteHelper>
LteEdgeLlmRan::GetLteHelper() const
{
    return m_lte;
}

void
LteEdgeLlmRan::DoDispose()
{
    m_lte = nullptr;
    m_epc = nullptr;
    EdgeLlmRan::DoDispose();
}

void
LteEdgeLlmRan::AddPreTransferTrigger(Ptr<Node> bsNode,
                                     double offsetDb,
                                     Time timeToTrigger,
                                     LikelyHandoverCallback likely)
{
    Ptr<LteEnbNetDevice> bs = DeviceAs<LteEnbNetDevice>(BsDeviceOf(bsNode), "LteEnbNetDevice");
    ConnectA3Trigger<LteRrcSap>(bs->GetRrc(), offsetDb, timeToTrigger, likely);
}

} // namespace ns3
