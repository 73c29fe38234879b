/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NR_EDGE_LLM_RAN_H
#define NR_EDGE_LLM_RAN_H

#include "edge-llm-ran.h"

#include "ns3/cc-bwp-helper.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class NrHandoverAlgorithm;
class NrHelper;
class NrPointToPointEpcHelper;

/**
 * \ingroup edge-llm
 * \brief The NR RAN setup (5G-LENA, the nr module, v4.x): NrHelper with an
 *        NrPointToPointEpcHelper whose X2 links (X2LinkDataRate, X2LinkDelay, X2LinkMtu)
 *        carry the KV transfer as Xn would, gNBs whose NrGnbRrc fires HandoverStart,
 *        HandoverEndOk and the HandoverFailure* traces, and NrHelper's HandoverRequest.
 *
 * Built only when ns-3 has the nr module (EDGE_LLM_HAVE_NR).
 *
 * Radio: one operation band with one component carrier and one bandwidth part
 * (nrFrequencyHz, nrBandwidthHz, numerology nrNumerology, the same band on every gNB, so
 * handovers are intra-frequency and A3 can compare the cells), 3GPP TR 38.901 channel of
 * nrScenario with the channel condition nrChannelCondition, shadowing off and channel
 * condition never updated (the road's geometry alone decides where a measured handover
 * happens), single-element isotropic antennas on both ends with ideal direct-path
 * beamforming, gNB power bsTxPowerDbm, UE power 23 dBm (power class 3) without uplink power
 * control, DL at a fixed MCS 0 (nr v4.1.1 forwards a stale DL CQI report with the source
 * cell's RNTI to the target of an intra-frequency handover, on which its scheduler
 * asserts; a fixed DL MCS makes it ignore CQI reports). Heights (TR 38.901 Table 7.4.1-1): BS 25 m
 * (UMa), 10 m (UMi), 35 m (RMa), 3 m (InH), 1.6 m (V2V); UE 1.5 m (InH 1 m, V2V 1.6 m). Handover
 * algorithm: config.handoverAlgorithm (LTE names mapped to nr's: ns3::A3RsrpHandoverAlgorithm ->
 * ns3::NrA3RsrpHandoverAlgorithm, ...), or ns3::NrNoOpHandoverAlgorithm when none is named;
 * Install() puts one on each gNB's RRC itself, because nr v4.1.1's NrHelper stores the
 * algorithm type but never installs it.
 */
class NrEdgeLlmRan : public EdgeLlmRan
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    NrEdgeLlmRan();
    ~NrEdgeLlmRan() override;

    /**
     * \brief The RAN of a script that built its own NR (e.g. nr's cttc-* examples): its
     *        NrHelper and EPC helper, its gNB and UE devices, as they are (no Configure(),
     *        no Install(): nothing is created or reconfigured; in particular no handover
     *        algorithm is installed on the gNBs, which nr v4.1.1's NrHelper itself never
     *        does). Give it to EdgeLlmHelper::Install, which adds the edge LLMs in one call.
     *
     * The script keeps its radio and Xn links (NrHelper::AddX2Interface, before
     * EdgeLlmHelper::Install). HandoverRequest and Attach use \p nr. GetBsHeight() and
     * GetUeHeight() answer for the default scenario (UMa), not the script's.
     * \param nr the script's NrHelper (non-null)
     * \param epc the EPC helper it was given (SetEpcHelper): its SGW and PGW nodes
     * \param gnbDevices the gNB devices (NrHelper::InstallGnbDevice), >= 1; aborts naming a
     *        device that is no NrGnbNetDevice
     * \param ueDevices the UE devices (NrHelper::InstallUeDevice) that get an edge-LLM
     *        application; aborts naming a device that is no NrUeNetDevice
     * \return the RAN (GetBsDevices() and GetUeDevices() are the given devices)
     */
    static Ptr<NrEdgeLlmRan> Wrap(Ptr<NrHelper> nr,
                                  Ptr<NrPointToPointEpcHelper> epc,
                                  NetDeviceContainer gnbDevices,
                                  NetDeviceContainer ueDevices);

    std::string GetRatName() const override;
    void Configure(const EdgeLlmRanConfig& config) override;
    void Install(NodeContainer bsNodes, NodeContainer ueNodes) override;
    void AddMeshX2(NodeContainer bsNodes) override;
    void AddX2Interface(Ptr<NetDevice> bsA,
                        Ipv4Address addressA,
                        Ptr<NetDevice> bsB,
                        Ipv4Address addressB) override;
    void Attach(NetDeviceContainer ueDevices, Ptr<NetDevice> bsDevice) override;
    void HandoverRequest(Time at,
                         Ptr<NetDevice> ueDevice,
                         Ptr<NetDevice> sourceBsDevice,
                         Ptr<NetDevice> targetBsDevice) override;
    uint16_t GetCellId(Ptr<NetDevice> bsDevice) const override;
    uint64_t GetImsi(Ptr<NetDevice> ueDevice) const override;
    void SetBsTxPower(Ptr<NetDevice> bsDevice, double dbm) const override;
    void SetBsAntenna(Ptr<NetDevice> bsDevice, const EdgeLlmSectorAntenna& antenna) const override;
    std::string GetRrcName() const override;
    std::string GetUeRrcName() const override;
    void AddPreTransferTrigger(Ptr<Node> bsNode,
                               double offsetDb,
                               Time timeToTrigger,
                               LikelyHandoverCallback likely) override;
    double GetBsHeight() const override;
    double GetUeHeight() const override;

    /// \return the NrHelper (after Configure()), for what the seam does not cover
    Ptr<NrHelper> GetNrHelper() const;

  protected:
    void DoDispose() override;

  private:
    EdgeLlmRanConfig m_config;                 //!< From Configure()
    Ptr<NrHelper> m_nr;                        //!< The RAT helper
    Ptr<NrPointToPointEpcHelper> m_epc;        //!< EPC with the X2 (Xn) links
    std::unique_ptr<OperationBandInfo> m_band; //!< The one band (owns the BWP the devices use)
    std::string m_algorithm;                   //!< nr handover algorithm TypeId
    std::vector<Ptr<NrHandoverAlgorithm>> m_handoverAlgorithms; //!< One per gNB (Install())
};

} // namespace ns3

#endif /* NR_EDGE_LLM_RAN_H */
