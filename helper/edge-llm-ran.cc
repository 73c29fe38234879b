/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-ran.h"

#include "edge-llm-helper.h"

#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <cmath>
#include <map>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmRan");
NS_OBJECT_ENSURE_REGISTERED(EdgeLlmRan);

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

} // namespace

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
    require(backhaulGbps > 0 && backhaulGbps <= 1000, "backhaulGbps must be in (0, 1000]");
    require(!backhaulDelay.IsStrictlyNegative(), "backhaulDelay must be >= 0");
    require(backhaulMtu >= 576, "backhaulMtu must be >= 576 bytes");
    require(std::isfinite(bsTxPowerDbm) && bsTxPowerDbm >= -30 && bsTxPowerDbm <= 60,
            "bsTxPowerDbm must be in [-30, 60] dBm");
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
        return;
    }
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
EdgeLlmRan::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EdgeLlmRan").SetParent<Object>().SetGroupName("EdgeLlm");
    return tid;
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
EdgeLlmRan::DoDispose()
{
    m_bsDevices = NetDeviceContainer();
    m_ueDevices = NetDeviceContainer();
    Object::DoDispose();
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
