/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LTE_EDGE_LLM_RAN_H
#define LTE_EDGE_LLM_RAN_H

#include "edge-llm-ran.h"

#include <cstdint>
#include <string>

namespace ns3
{

class LteHelper;
class PointToPointEpcHelper;

/**
 * \ingroup edge-llm
 * \brief The LTE RAN setup (ns-3's src/lte): LteHelper with a PointToPointEpcHelper whose
 *        X2 links are the KV backhaul (X2LinkDataRate, X2LinkDelay, X2LinkMtu), eNBs whose
 *        LteEnbRrc fires HandoverStart, and LteHelper's X2 HandoverRequest.
 *
 * Configure(): LteHelper, then the EPC (its SGW, PGW and MME nodes), the handover
 * algorithm (ns3::NoOpHandoverAlgorithm when the config names none), the path-loss model
 * and the DL/UL bandwidth. Install(): eNB and UE devices, the eNBs' transmit power, random
 * streams (config.stream for the eNBs, config.stream + 1000 for the UEs), UE addresses and
 * default routes, then X2 between every two eNBs.
 */
class LteEdgeLlmRan : public EdgeLlmRan
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LteEdgeLlmRan();
    ~LteEdgeLlmRan() override;

    /**
     * \brief The RAN of a script that built its own LTE (e.g. ns-3's lena-* examples):
     *        its LteHelper and EPC helper, its eNB and UE devices, as they are (no
     *        Configure(), no Install(): nothing is created or reconfigured). Give it to
     *        EdgeLlmHelper::Install, which adds the edge LLMs in one call.
     *
     * The script keeps its radio, handover algorithm and X2 links (LteHelper::AddX2Interface,
     * before EdgeLlmHelper::Install). HandoverRequest and Attach use \p lte.
     * \param lte the script's LteHelper (non-null)
     * \param epc the EPC helper it was given (SetEpcHelper): its SGW and PGW nodes
     * \param enbDevices the eNB devices (LteHelper::InstallEnbDevice), >= 1; aborts naming a
     *        device that is no LteEnbNetDevice
     * \param ueDevices the UE devices (LteHelper::InstallUeDevice) that get an edge-LLM
     *        application; aborts naming a device that is no LteUeNetDevice
     * \return the RAN (GetBsDevices() and GetUeDevices() are the given devices)
     */
    static Ptr<LteEdgeLlmRan> Wrap(Ptr<LteHelper> lte,
                                   Ptr<PointToPointEpcHelper> epc,
                                   NetDeviceContainer enbDevices,
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

    /// \return the LteHelper (after Configure()), for what the seam does not cover
    Ptr<LteHelper> GetLteHelper() const;

  protected:
    void DoDispose() override;

  private:
    EdgeLlmRanConfig m_config;        //!< From Configure()
    Ptr<LteHelper> m_lte;             //!< The RAT helper
    Ptr<PointToPointEpcHelper> m_epc; //!< EPC with the X2 links
};

} // namespace ns3

#endif /* LTE_EDGE_LLM_RAN_H */
