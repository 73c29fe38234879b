/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../examples/studies/multi-cell-scenario.h"
#include "edge-llm-study-checks.h"

#include "ns3/accuracy-utility.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/constant-position-mobility-model.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-node.h"
#include "ns3/lte-helper.h"
#include "ns3/lte-hex-grid-enb-topology-helper.h"
#include "ns3/mobility-helper.h"
#include "ns3/node-list.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;
using edgellmtest::SmallStudy;
using edgellmtest::SmallStudyTestCase;

/**
 * \file
 * \ingroup edge-llm-tests
 * The multi-cell scenario builder and the backhaul study (issue 11, items 1 and 5):
 * the site layouts against ns-3's LteHexGridEnbTopologyHelper and hexagon geometry,
 * every knob's boundary, the delay summary by hand, and packet-level runs that check the
 * KV byte account (every byte sent is received, and the TCP payload the backhaul queues
 * dropped was sent again), that the delay grows with the cross-traffic load, and that
 * ctHO's worst delay is at most tHO's and cHO's at each load.
 */

namespace
{

/// Results of the small study by (load, scheme), shared by the cases that compare them.
std::map<std::pair<double, std::string>, MultiCellResult>&
SmallResults()
{
    static std::map<std::pair<double, std::string>, MultiCellResult> results;
    return results;
}

} // namespace

/**
 * \ingroup edge-llm-tests
 * \brief The 7-site layout is the site centres of ns-3's LteHexGridEnbTopologyHelper
 *        (GridWidth 2: rows of 2, 3, 2 sites) moved to the origin; the 19-site layout is a
 *        hexagon of radius 2: 19 sites, 42 neighbour pairs at d, none closer.
 */
class HexLayoutTestCase : public TestCase
{
  public:
    HexLayoutTestCase()
        : TestCase("hex layouts: ns-3's hex grid helper (7 sites), hexagon geometry (19)")
    {
    }

  private:
    void DoRun() override
    {
        const double d = 500;
        // ns-3's helper places 3 sectors per site; with SectorOffset 0 each sector's node
        // is at its site's centre. Its rows: 2 sites, then 3 shifted by -d/2, then 2.
        Ptr<LteHelper> lte = CreateObject<LteHelper>();
        Ptr<LteHexGridEnbTopologyHelper> hex = CreateObject<LteHexGridEnbTopologyHelper>();
        lte->SetEnbAntennaModelType("ns3::CosineAntennaModel"); // the helper orients it
        hex->SetLteHelper(lte);
        hex->SetAttribute("InterSiteDistance", DoubleValue(d));
        hex->SetAttribute("SectorOffset", DoubleValue(0));
        hex->SetAttribute("GridWidth", UintegerValue(2));
        NodeContainer nodes;
        nodes.Create(21);
        MobilityHelper mobility;
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        mobility.Install(nodes);
        hex->SetPositionAndInstallEnbDevice(nodes);
        std::vector<Vector> helper;
        for (uint32_t n = 0; n < 21; n += 3)
        {
            helper.push_back(nodes.Get(n)->GetObject<MobilityModel>()->GetPosition());
        }
        Simulator::Destroy();
        // The helper's centre site: row 1, column 1.
        const Vector centre = helper[3];
        const std::vector<Vector> ours = MultiCellScenario::SitePositions("hex", 7, d);
        NS_TEST_ASSERT_MSG_EQ(ours.size(), 7, "7 sites");
        for (const auto& h : helper)
        {
            bool found = false;
            for (const auto& o : ours)
            {
                found = found || (std::abs(h.x - centre.x - o.x) < 1e-3 &&
                                  std::abs(h.y - centre.y - o.y) < 1e-3);
            }
            NS_TEST_ASSERT_MSG_EQ(found,
                                  true,
                                  "helper site (" << h.x - centre.x << ", " << h.y - centre.y
                                                  << ") missing from the hex layout");
        }
        // 19 sites: a hexagon of radius 2 has 19 cells and 3 x 2 x (3 x 2 + 1) = 42
        // neighbour pairs; 7 sites: 12.
        for (const auto& [n, pairs] : std::map<uint32_t, uint32_t>{{7, 12}, {19, 42}})
        {
            const std::vector<Vector> sites = MultiCellScenario::SitePositions("hex", n, d);
            NS_TEST_ASSERT_MSG_EQ(sites.size(), n, "site count");
            uint32_t neighbours = 0;
            for (uint32_t a = 0; a < n; ++a)
            {
                for (uint32_t b = a + 1; b < n; ++b)
                {
                    const double dist = CalculateDistance(sites[a], sites[b]);
                    NS_TEST_ASSERT_MSG_GT_OR_EQ(dist, d - 1e-3, "sites " << a << ", " << b);
                    neighbours += std::abs(dist - d) < 1e-3 ? 1 : 0;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(neighbours, pairs, n << " sites: neighbour pairs");
            // Every road leads to a neighbour.
            const std::vector<uint32_t> targets = MultiCellScenario::RoadTargets(sites, d);
            for (uint32_t s = 0; s < n; ++s)
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(CalculateDistance(sites[s], sites[targets[s]]),
                                          d,
                                          1e-3,
                                          "road of site " << s);
            }
        }
        // Road: sites on a line, d apart; the last site's road leads back.
        const std::vector<Vector> road = MultiCellScenario::SitePositions("road", 3, d);
        NS_TEST_ASSERT_MSG_EQ_TOL(road[2].x, 2 * d, 1e-9, "third road site");
        NS_TEST_ASSERT_MSG_EQ(MultiCellScenario::RoadTargets(road, d)[2], 1, "last road");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Every knob on both sides of its boundary: the value at the boundary is accepted,
 *        the one past it refused with a message naming the knob.
 */
class ValidateTestCase : public TestCase
{
  public:
    ValidateTestCase()
        : TestCase("config: each knob accepted at its boundary, refused past it, by name")
    {
    }

  private:
    /// Expect \p cfg to be accepted (\p ok) or refused naming \p knob.
    void Check(const MultiCellConfig& cfg, bool ok, const std::string& knob)
    {
        std::string error;
        try
        {
            cfg.Validate();
        }
        catch (const std::invalid_argument& e)
        {
            error = e.what();
        }
        if (ok)
        {
            NS_TEST_EXPECT_MSG_EQ(error, "", knob << ": refused at its boundary");
        }
        else
        {
            NS_TEST_EXPECT_MSG_NE(error.find(knob),
                                  std::string::npos,
                                  knob << ": not refused by name past its boundary: '" << error
                                       << "'");
        }
    }

    void DoRun() override
    {
        using C = MultiCellConfig;
        auto with = [](const std::function<void(C&)>& f) {
            C c;
            f(c);
            return c;
        };
        Check(C(), true, "default");
        Check(with([](C& c) { c.numSites = 19; }), true, "numSites");
        Check(with([](C& c) { c.numSites = 6; }), false, "numSites");
        Check(with([](C& c) { c.numSites = 8; }), false, "numSites");
        Check(with([](C& c) { c.numSites = 20; }), false, "numSites");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 2;
              }),
              true,
              "numSites");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 57;
              }),
              true,
              "numSites");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 1;
              }),
              false,
              "numSites");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 58;
              }),
              false,
              "numSites");
        Check(with([](C& c) { c.layout = "grid"; }), false, "layout");
        Check(with([](C& c) { c.interSiteDistance = 50000; }), true, "interSiteDistance");
        Check(with([](C& c) { c.interSiteDistance = 50000.001; }), false, "interSiteDistance");
        Check(with([](C& c) { c.interSiteDistance = 0; }), false, "interSiteDistance");
        Check(with([](C& c) { c.crossTrafficLoad = 0.9; }), true, "crossTrafficLoad");
        Check(with([](C& c) { c.crossTrafficLoad = 0.9000001; }), false, "crossTrafficLoad");
        Check(with([](C& c) { c.crossTrafficLoad = -1e-9; }), false, "crossTrafficLoad");
        Check(with([](C& c) { c.uesPerSite = 100; }), true, "uesPerSite");
        Check(with([](C& c) { c.uesPerSite = 101; }), false, "uesPerSite");
        Check(with([](C& c) { c.uesPerSite = 0; }), false, "uesPerSite");
        Check(with([](C& c) { c.speed = 0.1; }), true, "speed");
        Check(with([](C& c) { c.speed = 0.0999; }), false, "speed");
        Check(with([](C& c) { c.speed = 500 / 3.6 + 1e-6; }), false, "speed");
        Check(with([](C& c) { c.boundaryFraction = 0.5; }), true, "boundaryFraction");
        Check(with([](C& c) { c.boundaryFraction = 0.5000001; }), false, "boundaryFraction");
        Check(with([](C& c) { c.boundaryFraction = 0; }), false, "boundaryFraction");
        Check(with([](C& c) { c.mobility = "random-waypoint"; }), false, "handover script");
        Check(with([](C& c) {
                  c.mobility = "random-waypoint";
                  c.handover = "A3-RSRP";
              }),
              true,
              "mobility");
        Check(with([](C& c) {
                  c.mobility = "gauss-markov";
                  c.handover = "A2-A4-RSRQ";
              }),
              true,
              "mobility");
        Check(with([](C& c) { c.mobility = "brownian"; }), false, "mobility");
        Check(with([](C& c) { c.roads = "random"; }), true, "roads");
        Check(with([](C& c) { c.roads = "Random"; }), false, "roads");
        Check(with([](C& c) { c.roads = ""; }), false, "roads");
        Check(with([](C& c) {
                  c.roads = "random";
                  c.mobility = "random-waypoint";
                  c.handover = "A3-RSRP";
              }),
              false,
              "roads random needs mobility road");
        Check(with([](C& c) { c.handover = "A4"; }), false, "handover");
        Check(with([](C& c) { c.backhaul = "star"; }), true, "backhaul");
        Check(with([](C& c) { c.backhaul = "ring"; }), true, "backhaul");
        Check(with([](C& c) { c.backhaul = "bus"; }), false, "backhaul");
        const std::string topologyFile =
            edgellmtest::RepoFile("examples/backhaul-study/metro-7-sites.inet");
        Check(with([&topologyFile](C& c) {
                  c.backhaul = "file";
                  c.backhaulFile = topologyFile;
              }),
              true,
              "backhaul file");
        Check(with([](C& c) { c.backhaul = "file"; }), false, "needs backhaulFile");
        Check(with([&topologyFile](C& c) { c.backhaulFile = topologyFile; }),
              false,
              "backhaulFile and backhaulFileFormat are read with backhaul file only");
        Check(with([](C& c) {
                  c.backhaul = "file";
                  c.backhaulFile = "/no/such.inet";
              }),
              false,
              "needs backhaulFile, a readable topology file, got '/no/such.inet'");
        Check(with([&topologyFile](C& c) {
                  c.backhaul = "file";
                  c.backhaulFile = topologyFile;
                  c.backhaulFileFormat = "Gml";
              }),
              false,
              "backhaulFileFormat must be Inet, Orbis or Rocketfuel");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 3;
                  c.backhaul = "ring";
              }),
              true,
              "backhaul");
        Check(with([](C& c) {
                  c.layout = "road";
                  c.numSites = 2;
                  c.backhaul = "ring";
              }),
              false,
              "backhaul ring needs numSites >= 3");
        Check(with([](C& c) { c.queueDisc = "ns3::FqCoDelQueueDisc"; }), true, "queueDisc");
        Check(with([](C& c) { c.queueDisc = "ns3::Node"; }), false, "queueDisc");
        // TBF shapes a root but cannot be the KV band: the check follows X2SignallingPriority.
        Check(with([](C& c) { c.queueDisc = "ns3::TbfQueueDisc"; }), false, "queueDisc");
        Config::SetDefault("ns3::EdgeLlmRan::X2SignallingPriority", BooleanValue(false));
        // As the root it shapes the link: its Rate at the link's (4.5 Gbit/s) or above.
        const Ptr<AttributeValue> tbfRate = [] {
            TypeId::AttributeInformation info;
            TypeId::LookupByName("ns3::TbfQueueDisc").LookupAttributeByName("Rate", &info);
            return info.initialValue->Copy();
        }();
        Check(with([](C& c) { c.queueDisc = "ns3::TbfQueueDisc"; }), false, "TbfQueueDisc::Rate");
        Config::SetDefault("ns3::TbfQueueDisc::Rate", DataRateValue(DataRate(4499999999)));
        Check(with([](C& c) { c.queueDisc = "ns3::TbfQueueDisc"; }), false, "TbfQueueDisc::Rate");
        Config::SetDefault("ns3::TbfQueueDisc::Rate", DataRateValue(DataRate(4500000000)));
        Check(with([](C& c) { c.queueDisc = "ns3::TbfQueueDisc"; }), true, "queueDisc");
        Config::SetDefault("ns3::TbfQueueDisc::Rate", *tbfRate);
        Check(with([](C& c) { c.queueDisc = "ns3::MqQueueDisc"; }), false, "queueDisc");
        Config::SetDefault("ns3::EdgeLlmRan::X2SignallingPriority", BooleanValue(true));
        Check(with([](C& c) { c.backhaulGbps = 1000; }), true, "backhaulGbps");
        Check(with([](C& c) { c.backhaulGbps = 1000.001; }), false, "backhaulGbps");
        Check(with([](C& c) { c.promptMin = 0; }), false, "promptMin");
        Check(with([](C& c) {
                  c.promptMin = 1000;
                  c.promptMax = 999;
              }),
              false,
              "promptMax");
        // The model's context window (131072 tokens), then the knob's own range (1e6),
        // which allowBeyondContextWindow does not widen.
        Check(with([](C& c) { c.promptMax = 131072; }), true, "promptMax");
        Check(with([](C& c) { c.promptMax = 131073; }),
              false,
              "promptMax = 131073 tokens exceeds the context window of qwen2.5-7b-instruct "
              "(131072 tokens)");
        Check(with([](C& c) {
                  c.promptMax = 1000000;
                  c.allowBeyondContextWindow = true;
              }),
              true,
              "promptMax");
        Check(with([](C& c) {
                  c.promptMax = 1000001;
                  c.allowBeyondContextWindow = true;
              }),
              false,
              "promptMax must be in [1, 1000000]");
        Check(with([](C& c) { c.platoonSpread = Seconds(60); }), true, "platoonSpread");
        Check(with([](C& c) { c.platoonSpread = Seconds(60) + NanoSeconds(1); }),
              false,
              "platoonSpread");
        Check(with([](C& c) { c.handoverLead = Seconds(60); }), true, "handoverLead");
        Check(with([](C& c) { c.handoverLead = Seconds(60) + NanoSeconds(1); }),
              false,
              "handoverLead");
        Check(with([](C& c) { c.handoverLead = NanoSeconds(-1); }), false, "handoverLead");
        Check(with([](C& c) { c.peerRange = 0; }), true, "peerRange");
        Check(with([](C& c) { c.peerRange = 1; }), true, "peerRange");
        Check(with([](C& c) { c.peerRange = 0.999; }), false, "peerRange");
        Check(with([](C& c) { c.peerRange = 1000; }), true, "peerRange");
        Check(with([](C& c) { c.peerRange = 1000.001; }), false, "peerRange");
        Check(with([](C& c) { c.peerRange = std::nan(""); }), false, "peerRange");
        Check(with([](C& c) { c.promptRetry = Seconds(0); }), true, "promptRetry");
        Check(with([](C& c) { c.promptRetry = Seconds(10); }), true, "promptRetry");
        Check(with([](C& c) { c.promptRetry = Seconds(10) + NanoSeconds(1); }),
              false,
              "promptRetry");
        Check(with([](C& c) { c.promptRetry = NanoSeconds(-1); }), false, "promptRetry");
        Check(with([](C& c) { c.handoverStartTimeout = NanoSeconds(1); }),
              true,
              "handoverStartTimeout");
        Check(with([](C& c) { c.handoverStartTimeout = Seconds(0); }),
              false,
              "handoverStartTimeout");
        Check(with([](C& c) { c.handoverStartTimeout = Seconds(60); }),
              true,
              "handoverStartTimeout");
        Check(with([](C& c) { c.handoverStartTimeout = Seconds(60) + NanoSeconds(1); }),
              false,
              "handoverStartTimeout");
        Check(with([](C& c) { c.kvBits = 2; }), false, "kvBits");
        Check(with([](C& c) { c.ran = "wifi"; }), false, "ran");
        // The RAN's own cables: no queue disc and no cross traffic to put on them.
        Check(with([](C& c) { c.backhaul = "x2"; }), true, "backhaul");
        Check(with([](C& c) {
                  c.backhaul = "x2";
                  c.queueDisc = "ns3::FqCoDelQueueDisc";
              }),
              false,
              "backhaul x2");
        Check(with([](C& c) {
                  c.backhaul = "x2";
                  c.crossTrafficLoad = 1e-9;
              }),
              false,
              "backhaul x2");
        // The knobs the road brought to the engine.
        Check(with([](C& c) { c.tokenBytes = 1400; }), true, "tokenBytes");
        Check(with([](C& c) { c.tokenBytes = 1401; }), false, "tokenBytes");
        Check(with([](C& c) { c.drainGrace = Seconds(1); }), true, "drainGrace");
        Check(with([](C& c) { c.drainGrace = Seconds(1) + NanoSeconds(1); }), false, "drainGrace");
        Check(with([](C& c) { c.drainGrace = NanoSeconds(-1); }), false, "drainGrace");
        Check(with([](C& c) { c.maxSimTime = NanoSeconds(-1); }), false, "maxSimTime");
        Check(with([](C& c) { c.lookahead = NanoSeconds(-1); }), false, "lookahead");
        Check(with([](C& c) { c.warmDecodeStart = NanoSeconds(-1); }), false, "warmDecodeStart");
        Check(with([](C& c) { c.predictedHandoverDistance = 500; }),
              true,
              "predictedHandoverDistance");
        Check(with([](C& c) { c.predictedHandoverDistance = 500.001; }),
              false,
              "predictedHandoverDistance");
        Check(with([](C& c) { c.predictedHandoverDistance = -0.001; }),
              false,
              "predictedHandoverDistance");
        Check(with([](C& c) { c.pathlossReferenceDb = std::nan(""); }),
              true,
              "pathlossReferenceDb");
        Check(with([](C& c) { c.pathlossReferenceDb = 100; }), true, "pathlossReferenceDb");
        Check(with([](C& c) { c.pathlossReferenceDb = 100.001; }), false, "pathlossReferenceDb");
        Check(with([](C& c) { c.handover = "ns3::A3RsrpHandoverAlgorithm"; }), true, "handover");
        Check(with([](C& c) { c.handover = "ns3::Node"; }), false, "handoverAlgorithm");
        Check(with([](C& c) { c.batchPeriod = Seconds(1); }), true, "batchPeriod");
        Check(with([](C& c) { c.batchPeriod = Seconds(1) + NanoSeconds(1); }),
              false,
              "batchPeriod");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief MultiCellScenario::BuildUes with a preset's own UEs (as the papers' road gives
 *        them): every field refused by name past its range, nothing built on a refusal,
 *        and the list at the boundaries accepted (one node per UE where it says, at its
 *        velocity).
 */
class PresetUesTestCase : public TestCase
{
  public:
    PresetUesTestCase()
        : TestCase("BuildUes(ues): each UE field refused by name past its range, accepted at it")
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg;
        cfg.layout = "road";
        cfg.numSites = 2;
        cfg.backhaul = "x2";
        cfg.uesPerSite = MultiCellConfig::MAX_UES_PER_SITE;
        MultiCellScenario scenario(cfg);
        scenario.BuildSites();
        ScenarioUe good;
        good.homeSite = 0;
        good.targetSite = 1;
        good.position = Vector(10, 10, 0);
        good.velocity = Vector(20, 0, 0);
        good.promptTokens = 1;
        good.maxNewTokens = 1;
        good.promptAt = Seconds(0);
        good.handoverAt = Seconds(0);
        auto refused = [&](std::vector<ScenarioUe> ues, const std::string& field) {
            std::string error;
            try
            {
                scenario.BuildUes(ues);
            }
            catch (const std::invalid_argument& e)
            {
                error = e.what();
            }
            NS_TEST_EXPECT_MSG_NE(error.find(field),
                                  std::string::npos,
                                  field << ": not refused by name: '" << error << "'");
        };
        auto one = [&](const std::function<void(ScenarioUe&)>& f) {
            std::vector<ScenarioUe> ues(2, good);
            f(ues[1]);
            return ues;
        };
        refused({}, "ues must have at least one UE");
        refused(one([](ScenarioUe& u) { u.homeSite = 2; }), "ues[1].homeSite");
        refused(one([](ScenarioUe& u) { u.targetSite = 2; }), "ues[1].targetSite");
        refused(one([](ScenarioUe& u) { u.targetSite = 0; }), "ues[1].targetSite");
        refused(one([](ScenarioUe& u) { u.position.x = std::nan(""); }), "ues[1].position.x");
        refused(one([](ScenarioUe& u) { u.velocity.y = INFINITY; }),
                "ues[1].velocity.y must be finite, got inf");
        refused(one([](ScenarioUe& u) { u.velocity.z = std::nan(""); }), "ues[1].velocity.z");
        refused(one([](ScenarioUe& u) { u.position.z = -INFINITY; }), "ues[1].position.z");
        refused(one([](ScenarioUe& u) { u.promptTokens = 0; }), "ues[1].promptTokens");
        refused(one([](ScenarioUe& u) { u.promptTokens = 131073; }),
                "BuildUes: ues[1].promptTokens = 131073 tokens exceeds the context window of "
                "qwen2.5-7b-instruct (131072 tokens)");
        refused(one([](ScenarioUe& u) { u.maxNewTokens = 0; }), "ues[1].maxNewTokens");
        refused(one([](ScenarioUe& u) { u.promptAt = NanoSeconds(-1); }), "ues[1].promptAt");
        refused(one([](ScenarioUe& u) { u.handoverAt = NanoSeconds(-1); }), "ues[1].handoverAt");
        refused(std::vector<ScenarioUe>(MultiCellConfig::MAX_UES_PER_SITE + 1, good),
                "ues[100].homeSite: at most uesPerSite = 100 UEs per site");
        NS_TEST_ASSERT_MSG_EQ(scenario.GetUes().size(), 0, "a refused list builds nothing");
        // At the boundaries: 100 UEs on site 0 (uesPerSite), one on site 1 without a
        // handover (its targetSite is then not looked at).
        std::vector<ScenarioUe> ues(MultiCellConfig::MAX_UES_PER_SITE, good);
        ScenarioUe stay = good;
        stay.homeSite = 1;
        stay.targetSite = 1;
        stay.handoverAt = Time::Max();
        stay.position = Vector(600, -10, 0);
        stay.velocity = Vector(0, -3, 0);
        stay.promptTokens = 131072; // the model's context window
        ues.push_back(stay);
        scenario.BuildUes(ues);
        NS_TEST_ASSERT_MSG_EQ(scenario.GetUes().size(), 101, "UEs built");
        Ptr<MobilityModel> last =
            NodeList::GetNode(NodeList::GetNNodes() - 1)->GetObject<MobilityModel>();
        NS_TEST_ASSERT_MSG_NE(last, nullptr, "the last UE node has its mobility");
        NS_TEST_EXPECT_MSG_EQ_TOL(last->GetPosition().x, 600, 1e-9, "start x");
        NS_TEST_EXPECT_MSG_EQ_TOL(last->GetVelocity().y, -3, 1e-9, "velocity y");
        Simulator::Destroy();

        // With arrival prediction every UE's target is read (the predictor projects its
        // road toward it): one without a handover needs a valid target too.
        cfg.handover = "A3-RSRP";
        cfg.predictArrivals = true;
        cfg.uesPerSite = 1;
        MultiCellScenario predicted(cfg);
        predicted.BuildSites();
        std::string error;
        try
        {
            predicted.BuildUes({stay});
        }
        catch (const std::invalid_argument& e)
        {
            error = e.what();
        }
        NS_TEST_EXPECT_MSG_NE(error.find("ues[0].targetSite must be a site in [0, 1] other than "
                                         "homeSite 1"),
                              std::string::npos,
                              "a predicted UE's target refused: '" << error << "'");
        stay.targetSite = 0;
        predicted.BuildUes({stay});
        NS_TEST_EXPECT_MSG_EQ(predicted.GetUes().size(), 1, "accepted with a target");
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Roads "random" against "cycle" on the 7-site hexagon x 15 UEs: the neighbours by
 *        hand (the centre has all six ring sites; ring site k has the centre and k +- 1 in
 *        the ring), every UE's target a neighbour of its home and its road toward it, the
 *        same prompts and handover instants as "cycle", and targets reached from several
 *        sources (with "cycle" each target has exactly one).
 */
class RoadsTestCase : public TestCase
{
  public:
    RoadsTestCase()
        : TestCase("roads random: each UE to a neighbour, same draws as cycle, several sources "
                   "per target")
    {
    }

  private:
    void DoRun() override
    {
        const double d = 500;
        const std::vector<std::vector<uint32_t>> neighbours =
            MultiCellScenario::Neighbours(MultiCellScenario::SitePositions("hex", 7, d), d);
        NS_TEST_ASSERT_MSG_EQ(neighbours.size(), 7, "one list per site");
        NS_TEST_EXPECT_MSG_EQ((neighbours[0] == std::vector<uint32_t>{1, 2, 3, 4, 5, 6}),
                              true,
                              "centre's neighbours");
        for (uint32_t k = 1; k <= 6; ++k)
        {
            // The ring is cyclic: 6 follows 1's predecessor, 1 follows 6.
            std::vector<uint32_t> expected{0, k == 1 ? 6 : k - 1, k == 6 ? 1 : k + 1};
            std::sort(expected.begin(), expected.end());
            NS_TEST_EXPECT_MSG_EQ((neighbours[k] == expected), true, "ring site " << k);
        }
        const std::vector<std::vector<uint32_t>> road =
            MultiCellScenario::Neighbours(MultiCellScenario::SitePositions("road", 3, d), d);
        NS_TEST_EXPECT_MSG_EQ((road == std::vector<std::vector<uint32_t>>{{1}, {0, 2}, {1}}),
                              true,
                              "road neighbours");

        auto draw = [](const std::string& roads) {
            MultiCellConfig cfg;
            cfg.uesPerSite = 15;
            cfg.roads = roads;
            MultiCellScenario scenario(cfg);
            scenario.BuildSites();
            scenario.BuildUes();
            std::vector<ScenarioUe> ues = scenario.GetUes();
            Simulator::Destroy();
            return ues;
        };
        const std::vector<ScenarioUe> cycle = draw("cycle");
        const std::vector<ScenarioUe> random = draw("random");
        NS_TEST_ASSERT_MSG_EQ(random.size(), 105, "UEs");
        NS_TEST_ASSERT_MSG_EQ(cycle.size(), 105, "UEs");
        std::map<uint32_t, std::set<uint32_t>> sourcesOf[2];
        for (std::size_t i = 0; i < random.size(); ++i)
        {
            const ScenarioUe& u = random[i];
            const std::vector<uint32_t>& near = neighbours[u.homeSite];
            NS_TEST_EXPECT_MSG_EQ(std::count(near.begin(), near.end(), u.targetSite),
                                  1,
                                  "UE " << i << ": target " << u.targetSite
                                        << " not a neighbour of " << u.homeSite);
            NS_TEST_EXPECT_MSG_EQ(u.handoverAt, cycle[i].handoverAt, "UE " << i << ": instant");
            NS_TEST_EXPECT_MSG_EQ(u.promptTokens, cycle[i].promptTokens, "UE " << i);
            // It drives from its home toward its target.
            const Vector a = MultiCellScenario::SitePositions("hex", 7, d)[u.homeSite];
            const Vector b = MultiCellScenario::SitePositions("hex", 7, d)[u.targetSite];
            const double speed = std::hypot(u.velocity.x, u.velocity.y);
            const double cosine =
                (u.velocity.x * (b.x - a.x) + u.velocity.y * (b.y - a.y)) / (speed * d);
            NS_TEST_EXPECT_MSG_EQ_TOL(cosine, 1, 1e-9, "UE " << i << ": road direction");
            sourcesOf[0][cycle[i].targetSite].insert(cycle[i].homeSite);
            sourcesOf[1][u.targetSite].insert(u.homeSite);
        }
        std::size_t most[2] = {0, 0};
        for (int k = 0; k < 2; ++k)
        {
            for (const auto& [target, sources] : sourcesOf[k])
            {
                most[k] = std::max(most[k], sources.size());
            }
        }
        NS_TEST_EXPECT_MSG_EQ(most[0], 1, "cycle: one source per target");
        NS_TEST_EXPECT_MSG_GT(most[1], 1, "random: some target has several sources");
        NS_TEST_EXPECT_MSG_EQ(sourcesOf[1].size(), 7, "random: every site is some UE's target");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The first scripted handover by hand (7 hex sites x 10 UEs, platoonSpread 0, so
 *        every UE hands over then; T_c = 10 ms; prompts at 250 ms, 20 ms of uplink, 100 ms
 *        of decoding): with the GPU warm-up 0.25 + 0.02 + 10 x (0.01 + 0.0024 + 1500 x
 *        9.4267e-5) + 0.1 = 1.908 s, on the next T_c: 1.91 s; without it 0.25 + 0.02 +
 *        10 x 0.02 + 0.1 = 0.57 s; handoverLead 2 s: 0.25 + 2 = 2.25 s; a lead below the
 *        warm-up's own (0.3 s) changes nothing.
 */
class WarmupTestCase : public TestCase
{
  public:
    WarmupTestCase()
        : TestCase("warm-up: the first handover by hand, with and without the GPU, handoverLead")
    {
    }

  private:
    void DoRun() override
    {
        auto first = [](bool gpu, Time lead) {
            MultiCellConfig cfg;
            cfg.uesPerSite = 10;
            cfg.platoonSpread = Seconds(0);
            cfg.prefillPromptsOnGpu = gpu;
            cfg.handoverLead = lead;
            MultiCellScenario scenario(cfg);
            scenario.BuildSites();
            scenario.BuildUes();
            Time earliest = Time::Max();
            Time latest = Time::Min();
            for (const ScenarioUe& ue : scenario.GetUes())
            {
                earliest = std::min(earliest, ue.handoverAt);
                latest = std::max(latest, ue.handoverAt);
            }
            Simulator::Destroy();
            NS_ABORT_MSG_UNLESS(earliest == latest, "platoonSpread 0: one instant");
            return earliest.GetSeconds();
        };
        NS_TEST_EXPECT_MSG_EQ_TOL(first(true, Seconds(0)), 1.91, 1e-9, "GPU warm-up");
        NS_TEST_EXPECT_MSG_EQ_TOL(first(false, Seconds(0)), 0.57, 1e-9, "prompts on arrival");
        NS_TEST_EXPECT_MSG_EQ_TOL(first(false, Seconds(2)), 2.25, 1e-9, "handoverLead 2 s");
        NS_TEST_EXPECT_MSG_EQ_TOL(first(false, Seconds(0.3)), 0.57, 1e-9, "a shorter lead");
        NS_TEST_EXPECT_MSG_EQ_TOL(first(true, Seconds(2)), 2.25, 1e-9, "lead over the GPU's");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Without the GPU warm-up at 50 UEs per cell (2 road sites x 50 UEs, load 0, ctHO):
 *        the UEs start near the cell edge, where the prompts take a few hundred ms and one
 *        of this seed's is lost on the radio; with the handover lead (20 ms per UE) and the
 *        UEs' PromptRetry every session opens before its handover, is restored, and every
 *        KV byte arrives.
 */
class NoGpuWarmupTestCase : public TestCase
{
  public:
    NoGpuWarmupTestCase()
        : TestCase("warm-up without the GPU, 2 road sites x 50 UEs: every session restored")
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg;
        cfg.layout = "road";
        cfg.numSites = 2;
        cfg.uesPerSite = 50;
        cfg.crossTrafficLoad = 0;
        cfg.monitorInterval = Seconds(0);
        cfg.maxLossDb = 120;
        cfg.prefillPromptsOnGpu = false;
        const MultiCellResult r = MultiCellScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_EXPECT_MSG_EQ(r.handovers, 100, "every session handed over");
        NS_TEST_EXPECT_MSG_EQ(r.restoredSessions, 100, "every session restored");
        NS_TEST_EXPECT_MSG_EQ(r.complete, true, "complete");
        NS_TEST_EXPECT_MSG_EQ(r.kvBytesSent, r.kvBytesReceived, "bytes conserved");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.handoverStart, 0.25 + 0.02 + 50 * 0.02 + 0.1, 1e-9, "start");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief A scripted handover the target refuses (LteEnbRrc AdmitHandoverRequest false:
 *        HANDOVER PREPARATION FAILURE, which ns-3's RRC takes back to CONNECTED_NORMALLY
 *        without a trace) is given up handoverStartTimeout (0.5 s) after its request: 2
 *        road sites x 3 UEs, load 0, ctHO. With admission every UE hands over and is
 *        restored; without it none starts, every one of them is counted in
 *        handoversNotStarted and flagged handoverFailed, no KV byte moves, and the run ends
 *        once the last was given up (its last request + 0.5 s + the drain grace), not at
 *        its stop time (last request + tailTime 8 s). Before, the stop rule waited for
 *        them to its stop time and nothing said why.
 */
class HandoverNotStartedTestCase : public TestCase
{
  public:
    HandoverNotStartedTestCase()
        : TestCase("handovers the target refuses are given up after handoverStartTimeout")
    {
    }

  private:
    void DoRun() override
    {
        auto run = [](bool admit) {
            Config::SetDefault("ns3::LteEnbRrc::AdmitHandoverRequest", BooleanValue(admit));
            MultiCellConfig cfg;
            cfg.layout = "road";
            cfg.numSites = 2;
            cfg.uesPerSite = 3;
            cfg.crossTrafficLoad = 0;
            cfg.monitorInterval = Seconds(0);
            cfg.handoverStartTimeout = MilliSeconds(500);
            MultiCellScenario scenario(cfg);
            scenario.BuildSites();
            scenario.BuildUes();
            Time last = Time::Min();
            uint32_t scripted = 0;
            for (const ScenarioUe& ue : scenario.GetUes())
            {
                if (ue.handoverAt != Time::Max())
                {
                    last = std::max(last, ue.handoverAt);
                    ++scripted;
                }
            }
            scenario.BuildRan();
            scenario.BuildBackhaul();
            scenario.InstallApps("ns3::CtHoScheduler");
            scenario.ScheduleHandovers();
            scenario.ConnectOutputs();
            const MultiCellResult r = scenario.Simulate();
            Config::Reset();
            return std::make_tuple(r, last, scripted);
        };
        const auto [admitted, lastA, scriptedA] = run(true);
        NS_TEST_ASSERT_MSG_EQ(scriptedA, 6u, "every UE of a 2-site road hands over");
        NS_TEST_EXPECT_MSG_EQ(admitted.handovers, 6u, "admitted: all started");
        NS_TEST_EXPECT_MSG_EQ(admitted.restoredSessions, 6u, "and restored");
        NS_TEST_EXPECT_MSG_EQ(admitted.handoversNotStarted, 0u, "none given up");
        const auto [refused, last, scripted] = run(false);
        NS_TEST_EXPECT_MSG_EQ(refused.handovers, 0u, "refused: none started");
        NS_TEST_EXPECT_MSG_EQ(refused.handoversNotStarted, scripted, "every one given up");
        NS_TEST_EXPECT_MSG_EQ(refused.complete, false, "incomplete");
        NS_TEST_EXPECT_MSG_EQ(refused.kvBytesSent, 0u, "no KV byte moved");
        uint32_t flagged = 0;
        for (const EdgeLlmUeResult& ue : refused.ues)
        {
            flagged += ue.handoverFailed ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(flagged, scripted, "each UE flagged handoverFailed");
        NS_TEST_EXPECT_MSG_LT(refused.simulatedSeconds,
                              last.GetSeconds() + 0.5 + 1.0,
                              "ended once the last was given up, not at the stop time");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(refused.simulatedSeconds,
                                    last.GetSeconds() + 0.5,
                                    "not before the timeout");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief EdgeLlmDelaySummary::OfKnown (the study's summaries) by hand: the mean, the
 *        nearest-rank 95th percentile (ceil(0.95 n)-th smallest) and the maximum; NaN
 *        values left out.
 */
class DelaySummaryTestCase : public TestCase
{
  public:
    DelaySummaryTestCase()
        : TestCase("delay summary: mean, nearest-rank p95, max, NaN left out")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<double> v;
        for (int i = 20; i >= 1; --i)
        {
            v.push_back(i); // 20, 19, ..., 1
        }
        v.push_back(std::nan(""));
        const EdgeLlmDelaySummary s = EdgeLlmDelaySummary::OfKnown(v);
        NS_TEST_ASSERT_MSG_EQ(s.count, 20, "NaN left out");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.mean, 10.5, 1e-12, "(1 + 20) / 2");
        NS_TEST_ASSERT_MSG_EQ(s.p95, 19, "ceil(0.95 x 20) = 19th smallest");
        NS_TEST_ASSERT_MSG_EQ(s.worst, 20, "max");
        NS_TEST_ASSERT_MSG_EQ(s.median, 10, "ceil(20 / 2) = 10th smallest");
        NS_TEST_ASSERT_MSG_EQ(EdgeLlmDelaySummary::Of({3, 1, 2}).median, 2, "odd n: the middle");
        const EdgeLlmDelaySummary one = EdgeLlmDelaySummary::OfKnown({0.25});
        NS_TEST_ASSERT_MSG_EQ(one.p95, 0.25, "one value: itself");
        NS_TEST_ASSERT_MSG_EQ(std::isnan(EdgeLlmDelaySummary::OfKnown({}).mean),
                              true,
                              "empty: NaN");
        NS_TEST_ASSERT_MSG_EQ(EdgeLlmDelaySummary::OfKnown({std::nan("")}).count,
                              0,
                              "all unknown: none");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief EdgeLlmPredictionError by hand: pairs with a NaN left out; |e| summarized
 *        (median, p95, worst); the latest signed e; the worst |e| / predicted; a pair is
 *        outside when |e| > 5 % x predicted + 2 ms: 0.100 s planned, restored 0.107 s
 *        (limit 0.007) is inside, 0.1071 s outside, 0.0929 s (early) outside too.
 */
class PredictionErrorTestCase : public TestCase
{
  public:
    PredictionErrorTestCase()
        : TestCase("prediction error: restored minus planned, tolerance 5 % + 2 ms")
    {
    }

  private:
    void DoRun() override
    {
        const double nan = std::nan("");
        const EdgeLlmPredictionError e =
            EdgeLlmPredictionError::Of({0.100, 0.100, 0.200, nan, 0.300, 0.100},
                                       {0.107, 0.1071, 0.190, 0.5, nan, 0.0929});
        NS_TEST_ASSERT_MSG_EQ(e.absolute.count, 4u, "two pairs have a NaN");
        NS_TEST_EXPECT_MSG_EQ(e.outside, 2u, "0.1071 late and 0.0929 early are outside");
        NS_TEST_EXPECT_MSG_EQ_TOL(e.worstLate, 0.0071, 1e-12, "latest: +7.1 ms");
        NS_TEST_EXPECT_MSG_EQ_TOL(e.worstRelative, 0.071, 1e-9, "7.1 ms of 100 ms");
        // |e| = 7, 7.1, 10, 7.1 ms: sorted 7, 7.1, 7.1, 10; median the 2nd, worst 10.
        NS_TEST_EXPECT_MSG_EQ_TOL(e.absolute.median, 0.0071, 1e-12, "median |e|");
        NS_TEST_EXPECT_MSG_EQ_TOL(e.absolute.worst, 0.010, 1e-12, "worst |e|");
        NS_TEST_EXPECT_MSG_EQ(EdgeLlmPredictionError::Of({0.2}, {0.21}).outside,
                              0u,
                              "10 ms of 200 ms: the limit 12 ms");
        NS_TEST_EXPECT_MSG_EQ(EdgeLlmPredictionError::Of({nan}, {0.1}).absolute.count,
                              0u,
                              "no pair");
        bool threw = false;
        try
        {
            EdgeLlmPredictionError::Of({0.1}, {});
        }
        catch (const std::invalid_argument&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "lengths differ: refused");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief One run of the small study (one load, one scheme): every session restored; the
 *        KV account balances: application bytes sent = received = the sum of each UE's
 *        n_tx x s_KV; on every link the TCP payload offered to the queue = dropped +
 *        received; and what the links carried covers every application byte plus every
 *        dropped byte again (drops were retransmitted).
 *
 * \p smallQueues shrinks the backhaul queues (FifoQueueDisc MaxSize 10 packets, below
 * TCP's window) so that the load drops KV segments and the retransmission account is
 * exercised: the case then requires drops (ctHO and cHO; tHO sends no KV bytes).
 */
class StudyRunTestCase : public SmallStudyTestCase
{
  public:
    /**
     * \param load cross-traffic load
     * \param scheme ctho, tho or cho
     * \param smallQueues 10-packet backhaul queues (forces drops)
     */
    StudyRunTestCase(double load, const std::string& scheme, bool smallQueues)
        : SmallStudyTestCase("7 sites x 2 UEs, load " + std::to_string(load).substr(0, 3) + ", " +
                             scheme + (smallQueues ? ", 10-packet queues" : "") +
                             ": every session restored, KV bytes conserved"),
          m_load(load),
          m_scheme(scheme),
          m_smallQueues(smallQueues)
    {
    }

  private:
    void DoRun() override
    {
        const std::map<std::string, std::string> types = {{"ctho", "ns3::CtHoScheduler"},
                                                          {"tho", "ns3::ThoScheduler"},
                                                          {"cho", "ns3::ChoScheduler"}};
        if (m_smallQueues)
        {
            Config::SetDefault("ns3::FifoQueueDisc::MaxSize", StringValue("10p"));
        }
        const MultiCellResult r = MultiCellScenario::Run(SmallStudy(m_load), types.at(m_scheme));
        if (m_smallQueues)
        {
            Config::SetDefault("ns3::FifoQueueDisc::MaxSize", StringValue("1000p"));
        }
        CheckRestoredAndConserved(r);
        uint64_t expected = 0;
        uint64_t stopped = 0;
        for (const auto& ue : r.ues)
        {
            expected += ue.kvBytesExpected; // each UE's own: CheckRestoredAndConserved
            stopped +=
                ue.replanned ? ue.reprefillTokens * (ue.kvBytesExpected / ue.transferTokens) : 0;
        }
        // Every planned byte is sent, but what replanned transfers left to the GPU.
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.kvBytesSent, expected, "at most the sum of n_tx x s_KV");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.kvBytesSent + stopped, expected, "less only by the replans");
        // EdgeLlmSessionStats, installed by the scenario, saw the same 14 handovers.
        NS_TEST_ASSERT_MSG_EQ(r.ueDelay.count, 14, "EdgeLlmSessionStats: UE-side delays");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ueDelay.worst,
                                  r.measured.worst,
                                  1e-9,
                                  "EdgeLlmSessionStats: the same worst UE-side delay");
        uint64_t offered = 0;
        uint64_t dropped = 0;
        for (const auto& link : r.links)
        {
            offered += link.offeredBytes;
            dropped += link.droppedBytes;
        }
        // Each application byte crosses a link at least once (with its frame header), and
        // each dropped byte was sent again.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(offered,
                                    r.kvBytesSent + dropped,
                                    "dropped bytes retransmitted");
        if (m_smallQueues && m_scheme != "tho")
        {
            NS_TEST_ASSERT_MSG_GT(dropped, 0, "10-packet queues must drop KV segments");
        }
        if (!m_smallQueues)
        {
            SmallResults()[{m_load, m_scheme}] = r;
        }
    }

    double m_load;        //!< Cross-traffic load
    std::string m_scheme; //!< ctho, tho or cho
    bool m_smallQueues;   //!< 10-packet queues
};

/**
 * \ingroup edge-llm-tests
 * \brief ImpactHO's family over the small study's shared star backhaul: every session
 *        resumes within the transfer window on the share received, KV bytes are conserved
 *        per link and in all, and each UE's accuracy and starvation are those of the
 *        headline utility (k = 45, tau = 0.065, ImpactHO Eq. (6)) at its share, computed
 *        here from the sigmoid's formula; the run's means and starved count are theirs.
 */
class ImpactHoStudyTestCase : public SmallStudyTestCase
{
  public:
    /**
     * \param load cross-traffic load
     * \param policy ImpactHoScheduler Policy: WaterFilling (ImpactHO), Equal (EA), Wta, Pf
     */
    ImpactHoStudyTestCase(double load, const std::string& policy)
        : SmallStudyTestCase(
              "7 sites x 2 UEs, load " + std::to_string(load).substr(0, 3) + ", ImpactHO policy " +
              policy + ": every session resumed on its share, bytes conserved, accuracy by hand"),
          m_load(load),
          m_policy(policy)
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::ImpactHoScheduler::Policy", StringValue(m_policy));
        const MultiCellResult r =
            MultiCellScenario::Run(SmallStudy(m_load), "ns3::ImpactHoScheduler");
        Config::SetDefault("ns3::ImpactHoScheduler::Policy", StringValue("WaterFilling"));
        CheckRestoredAndConserved(r);
        NS_TEST_ASSERT_MSG_EQ(r.ues.size(), 14, "UEs");
        double shareSum = 0;
        double accuracySum = 0;
        uint32_t starved = 0;
        for (const auto& ue : r.ues)
        {
            const double y = ue.receivedFraction;
            NS_TEST_ASSERT_MSG_EQ((y >= 0 && y <= 1), true, "UE " << ue.ueId << " share " << y);
            // Resumed at the window's end (truncated) or when the whole cache arrived.
            NS_TEST_ASSERT_MSG_EQ((ue.bound == "window" || ue.bound == "transfer"),
                                  true,
                                  "UE " << ue.ueId << " bound " << ue.bound);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(ue.restoredDelay,
                                        0.5 + 1e-3,
                                        "UE " << ue.ueId << " resumed within the 500 ms window");
            // The headline utility: A(y) = M/2 (1 + u / sqrt(1 + u^2)), u = k (y - tau).
            const AccuracyUtility preset = AccuracyUtility::Preset(ue.contextTokens, true, 0);
            NS_TEST_ASSERT_MSG_EQ_TOL(preset.sharpness, 45, 1e-12, "headline k");
            NS_TEST_ASSERT_MSG_EQ_TOL(preset.inflection, 0.065, 1e-12, "headline tau");
            const double u = 45 * (y - 0.065);
            const double accuracy = preset.asymptote / 2 * (1 + u / std::sqrt(1 + u * u));
            NS_TEST_ASSERT_MSG_EQ_TOL(ue.accuracy,
                                      accuracy,
                                      1e-12,
                                      "UE " << ue.ueId << " accuracy");
            NS_TEST_ASSERT_MSG_EQ(ue.starved, (y < 0.065), "UE " << ue.ueId << " starved");
            shareSum += y;
            accuracySum += accuracy;
            starved += y < 0.065 ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(r.accuracyUes, 14, "UEs with a share");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.meanReceivedShare, shareSum / 14, 1e-12, "mean share");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.meanAccuracy, accuracySum / 14, 1e-12, "mean accuracy");
        NS_TEST_ASSERT_MSG_EQ(r.starved, starved, "starved UEs");
    }

    double m_load;        //!< Cross-traffic load
    std::string m_policy; //!< ImpactHoScheduler Policy
};

/**
 * \ingroup edge-llm-tests
 * \brief The small study over a backhaul read from a topology file
 *        (examples/backhaul-study/metro-7-sites.inet: sites 0-3 on one aggregation router,
 *        4-6 on another, both on a core router that site 0 also reaches directly), load 0.3,
 *        ctHO: every session restored, KV bytes conserved in all, per session and per link,
 *        and the links are the file's 10.
 */
class FileBackhaulTestCase : public SmallStudyTestCase
{
  public:
    FileBackhaulTestCase()
        : SmallStudyTestCase("7 sites x 2 UEs on a file backhaul (two aggregation routers and "
                             "a core), load 0.3, ctHO: restored, bytes conserved")
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg = SmallStudy(0.3);
        cfg.backhaul = "file";
        cfg.backhaulFile = edgellmtest::RepoFile("examples/backhaul-study/metro-7-sites.inet");
        const MultiCellResult r = MultiCellScenario::Run(cfg, "ns3::CtHoScheduler");
        CheckRestoredAndConserved(r);
        // Each of the file's 10 links counted in both directions.
        NS_TEST_ASSERT_MSG_EQ(r.links.size(), 20, "the file's links, both ways");
        uint64_t received = 0;
        for (const auto& link : r.links)
        {
            received += link.receivedBytes;
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(received, r.kvBytesReceived, "KV bytes crossed the links");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief ImpactHO's split of a shared link, by hand: 3 road sites on a star of 1 Gbit/s
 *        links; two UEs of the middle site hand over at once, one to each neighbour, so
 *        both transfers leave over the middle site's one link to the aggregation router.
 *        In the slot both are active each target's budget is R / 2 x dt x eta = 1e9 / 2 x
 *        0.1 / 8 x 8948 / 9002 = 6.2125 MB (sharers 2; the default Payload planning rate,
 *        TCP at MTU 9000: eta = MSS / (MSS + 54); load 0). The short UE's cache (a prompt of
 *        10 tokens: under 2.3 MB) is sent in that slot, so from the next slot on the long
 *        UE's target has the link alone: 12.425 MB per slot (sharers 1). The long
 *        UE (a 3,000-token prompt: over 170 MB) is cut at its window's end, having
 *        received at most the sum of its target's budgets.
 */
class ImpactHoSharedLinkTestCase : public TestCase
{
  public:
    ImpactHoSharedLinkTestCase()
        : TestCase("ImpactHO over a shared star link: each active target's slot budget is R over "
                   "its sharers x dt, by hand")
    {
    }

  private:
    /// One ImpactHoSlotBudget event of the middle site.
    struct Budget
    {
        Time at;          //!< The slot's start
        uint16_t target;  //!< Target cell
        uint32_t sharers; //!< Targets sharing its busiest link
        double bytes;     //!< The slot's budget toward it
    };

    void DoRun() override
    {
        MultiCellConfig cfg;
        cfg.layout = "road";
        cfg.numSites = 3;
        cfg.uesPerSite = 2;
        cfg.backhaul = "star";
        cfg.backhaulGbps = 1;
        cfg.tailTime = Seconds(3);
        // Two UEs of the middle site (x = 500 m), at its cell's edges, driving apart; both
        // handovers requested at 0.55 s, at the boundaries (x = 250 and 750 m), inside the
        // slot [0.5, 0.6) s: both wait for the slot at 0.6 s.
        ScenarioUe shortUe;
        shortUe.homeSite = 1;
        shortUe.targetSite = 0;
        shortUe.position = Vector(261, 5, 0);
        shortUe.velocity = Vector(-20, 0, 0);
        shortUe.promptTokens = 10;
        shortUe.maxNewTokens = 100;
        shortUe.promptAt = Seconds(0.2);
        shortUe.handoverAt = Seconds(0.55);
        ScenarioUe longUe = shortUe;
        longUe.targetSite = 2;
        longUe.position = Vector(739, 5, 0);
        longUe.velocity = Vector(20, 0, 0);
        longUe.promptTokens = 3000;
        MultiCellScenario s(cfg);
        s.BuildSites();
        s.BuildUes({shortUe, longUe});
        s.BuildRan();
        s.BuildBackhaul();
        s.InstallApps("ns3::ImpactHoScheduler");
        s.ScheduleHandovers();
        s.ConnectOutputs();
        std::vector<Budget> budgets;
        DynamicCast<EdgeLlmNode>(s.GetBsApps().Get(1))
            ->GetSourceRole()
            ->TraceConnectWithoutContext(
                "ImpactHoSlotBudget",
                MakeCallback(+[](std::vector<Budget>* out,
                                 uint16_t target,
                                 uint32_t sharers,
                                 double bytes) {
                    out->push_back({Simulator::Now(), target, sharers, bytes});
                }).Bind(&budgets));
        const MultiCellResult r = s.Simulate("");
        NS_TEST_ASSERT_MSG_EQ(r.restoredSessions,
                              2,
                              "both sessions resumed; simulated "
                                  << r.simulatedSeconds << " s, handovers " << r.handovers
                                  << ", lost " << r.lostSessions << ", RRC failures "
                                  << r.rrcFailures);
        const auto& shortR = r.ues[0].promptTokens == 10 ? r.ues[0] : r.ues[1];
        const auto& longR = r.ues[0].promptTokens == 10 ? r.ues[1] : r.ues[0];
        // Hand calculation: 57,344 B per token (2 x 28 layers x 4 KV heads x 128 x 2 B).
        NS_TEST_ASSERT_MSG_EQ(shortR.kvBytesExpected, shortR.contextTokens * 57344, "short cache");
        const double half = 1e9 / 2 * 0.1 / 8 * 8948 / 9002;
        NS_TEST_ASSERT_MSG_LT(static_cast<double>(shortR.kvBytesExpected),
                              half,
                              "the short cache fits in one shared slot");
        NS_TEST_ASSERT_MSG_GT(static_cast<double>(longR.kvBytesExpected),
                              10 * half,
                              "the long cache outlasts the window");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(budgets.size(), 3, "slot budgets traced");
        // The first slot: both targets, 2 sharers, R / 2 x dt each.
        NS_TEST_ASSERT_MSG_EQ(budgets[0].at, Seconds(0.6), "first slot at 0.6 s");
        NS_TEST_ASSERT_MSG_EQ(budgets[1].at, Seconds(0.6), "both targets in the first slot");
        NS_TEST_ASSERT_MSG_EQ((std::set<uint16_t>{budgets[0].target, budgets[1].target} ==
                               std::set<uint16_t>{shortR.targetCellId, longR.targetCellId}),
                              true,
                              "the two targets");
        double longBudgets = 0;
        for (std::size_t i = 0; i < budgets.size(); ++i)
        {
            const Budget& b = budgets[i];
            const bool first = i < 2;
            NS_TEST_ASSERT_MSG_EQ(b.sharers, (first ? 2u : 1u), "slot at " << b.at.As(Time::S));
            NS_TEST_ASSERT_MSG_EQ_TOL(b.bytes,
                                      (first ? half : 2 * half),
                                      1e-6,
                                      "budget of the slot at " << b.at.As(Time::S));
            if (!first)
            {
                NS_TEST_ASSERT_MSG_EQ(b.target, longR.targetCellId, "only the long UE's target");
                NS_TEST_ASSERT_MSG_EQ((b.at - budgets[i - 1].at),
                                      Seconds(0.1),
                                      "one slot after the other");
            }
            if (b.target == longR.targetCellId)
            {
                longBudgets += b.bytes;
            }
        }
        // Slots 0.6, ..., 1.0 s start within the window [0.55, 1.05) s.
        NS_TEST_ASSERT_MSG_EQ(budgets.size(), 6, "5 slots: 2 budgets, then 4");
        NS_TEST_ASSERT_MSG_EQ(shortR.kvBytesReceived, shortR.kvBytesExpected, "short: whole");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(static_cast<double>(longR.kvBytesReceived),
                                    longBudgets,
                                    "long: at most its target's budgets");
        // It is cut 50 ms into its fifth slot: 4 slots' budgets at least, less one
        // window's worth of KV entries in flight.
        NS_TEST_ASSERT_MSG_GT(static_cast<double>(longR.kvBytesReceived),
                              0.95 * (half + 3 * 2 * half),
                              "long: the budgets of its first four slots; its share "
                                  << longR.receivedFraction << " of " << longR.kvBytesExpected
                                  << " B, " << longR.bound);
        Simulator::Destroy();
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief At one load of the runs before: ctHO's worst (and mean) UE-side delay is at most
 *        tHO's and cHO's.
 */
class SchemeOrderTestCase : public TestCase
{
  public:
    /// \param load the load whose three runs to compare
    explicit SchemeOrderTestCase(double load)
        : TestCase("load " + std::to_string(load).substr(0, 3) +
                   ": ctHO's worst delay <= tHO's and cHO's"),
          m_load(load)
    {
    }

  private:
    void DoRun() override
    {
        auto& r = SmallResults();
        const std::pair<double, std::string> ctho{m_load, "ctho"};
        const std::pair<double, std::string> tho{m_load, "tho"};
        const std::pair<double, std::string> cho{m_load, "cho"};
        NS_TEST_ASSERT_MSG_EQ(r.count(ctho) + r.count(tho) + r.count(cho), 3, "runs first");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r[ctho].measured.worst, r[tho].measured.worst, "ctHO <= tHO");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r[ctho].measured.worst, r[cho].measured.worst, "ctHO <= cHO");
    }

    double m_load; //!< Cross-traffic load
};

/**
 * \ingroup edge-llm-tests
 * \brief The delay grows with the load (the two loads of the cases before): cHO, whose
 *        every token crosses the backhaul, at least doubles from load 0 to 0.8 (its
 *        transfer rate falls to 1 - 0.8 = 20 %, so the transfer time is 5 times longer);
 *        ctHO's worst delay does not fall; the backhaul queues' mean delay grows.
 */
class DelayGrowsTestCase : public TestCase
{
  public:
    DelayGrowsTestCase()
        : TestCase("delay grows with the cross-traffic load (0 vs 0.8)")
    {
    }

  private:
    void DoRun() override
    {
        auto& r = SmallResults();
        const std::pair<double, std::string> cho0{0.0, "cho"};
        const std::pair<double, std::string> cho8{0.8, "cho"};
        const std::pair<double, std::string> ctho0{0.0, "ctho"};
        const std::pair<double, std::string> ctho8{0.8, "ctho"};
        NS_TEST_ASSERT_MSG_EQ(r.count(cho0) + r.count(cho8), 2, "the load cases ran first");
        NS_TEST_ASSERT_MSG_GT(r[cho8].measured.worst,
                              2 * r[cho0].measured.worst,
                              "cHO worst delay at load 0.8 vs 0");
        NS_TEST_ASSERT_MSG_GT(r[cho8].measured.mean,
                              2 * r[cho0].measured.mean,
                              "cHO mean delay at load 0.8 vs 0");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r[ctho8].measured.worst,
                                    r[ctho0].measured.worst,
                                    "ctHO worst delay at load 0.8 vs 0");
        NS_TEST_ASSERT_MSG_GT(r[cho8].queueDelay.mean,
                              r[cho0].queueDelay.mean,
                              "backhaul queue delay at load 0.8 vs 0");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief Handovers the RRC decides (no script): every handover a source starts ends in a
 *        restored session, none lost. Road mobility with A3-RSRP on a 3-site road (each
 *        UE drives past the midpoint, so A3's 3 dB offset is met and every UE hands over
 *        once), and Gauss-Markov with A2-A4-RSRQ on the 7-site hexagon (whatever
 *        handovers the random motion brings).
 */
class RrcHandoverTestCase : public TestCase
{
  public:
    /**
     * \param mobility road or gauss-markov
     * \param handover A3-RSRP or A2-A4-RSRQ
     */
    RrcHandoverTestCase(const std::string& mobility, const std::string& handover)
        : TestCase(mobility + " with " + handover +
                   ": every handover the RRC starts ends restored"),
          m_mobility(mobility),
          m_handover(handover)
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg;
        cfg.mobility = m_mobility;
        cfg.handover = m_handover;
        cfg.promptMin = 100;
        cfg.promptMax = 200;
        cfg.tokensAfterHandover = 50;
        cfg.tailTime = Seconds(5);
        if (m_mobility == "road")
        {
            cfg.layout = "road";
            cfg.numSites = 3;
            cfg.uesPerSite = 2;
        }
        else
        {
            cfg.uesPerSite = 1;
            cfg.speed = 30;
        }
        const MultiCellResult r = MultiCellScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.lostSessions, 0, "sessions lost");
        NS_TEST_ASSERT_MSG_EQ(r.rrcFailures, 0, "RRC handover failures");
        NS_TEST_ASSERT_MSG_EQ(r.restoredSessions, r.handovers, "every handover restored");
        NS_TEST_ASSERT_MSG_EQ(r.kvBytesSent, r.kvBytesReceived, "KV bytes");
        if (m_mobility == "road")
        {
            NS_TEST_ASSERT_MSG_EQ(r.handovers, 6, "every road UE hands over once");
        }
    }

    std::string m_mobility; //!< Mobility knob
    std::string m_handover; //!< Handover knob
};

/**
 * \ingroup edge-llm-tests
 * \brief The 19-site hexagon with cross traffic, where several roads end at one site
 *        (whose cross-traffic sink is then shared): every session restored, bytes
 *        conserved.
 */
class NineteenSitesTestCase : public TestCase
{
  public:
    NineteenSitesTestCase()
        : TestCase("19 hex sites x 1 UE, load 0.3: every session restored, bytes conserved")
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg = SmallStudy(0.3);
        cfg.numSites = 19;
        cfg.uesPerSite = 1;
        const std::vector<uint32_t> targets = MultiCellScenario::RoadTargets(
            MultiCellScenario::SitePositions("hex", 19, cfg.interSiteDistance),
            cfg.interSiteDistance);
        std::map<uint32_t, uint32_t> roadsInto;
        for (uint32_t t : targets)
        {
            ++roadsInto[t];
        }
        uint32_t most = 0;
        for (const auto& [site, roads] : roadsInto)
        {
            most = std::max(most, roads);
        }
        NS_TEST_ASSERT_MSG_GT(most, 1, "some site is the target of several roads");
        const MultiCellResult r = MultiCellScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.restoredSessions, 19, "every session restored");
        NS_TEST_ASSERT_MSG_EQ(r.kvBytesSent, r.kvBytesReceived, "bytes conserved");
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The full study at one load (EXTENSIVE): 7 hex sites x 15 UEs (105 UEs), a star
 *        backhaul, the example's defaults, ctHO: every session restored, bytes conserved.
 */
class FullStudyTestCase : public TestCase
{
  public:
    FullStudyTestCase()
        : TestCase("105 UEs on 7 hex sites, load 0.5, ctHO: every session restored, bytes "
                   "conserved")
    {
    }

  private:
    void DoRun() override
    {
        MultiCellConfig cfg;
        cfg.uesPerSite = 15;
        cfg.backhaul = "star";
        cfg.crossTrafficLoad = 0.5;
        const MultiCellResult r = MultiCellScenario::Run(cfg, "ns3::CtHoScheduler");
        NS_TEST_ASSERT_MSG_EQ(r.ues.size(), 105, "UEs");
        NS_TEST_ASSERT_MSG_EQ(r.restoredSessions, 105, "every session restored");
        NS_TEST_ASSERT_MSG_EQ(r.lostSessions, 0, "no session lost");
        NS_TEST_ASSERT_MSG_EQ(r.rrcFailures, 0, "no RRC handover failure");
        NS_TEST_ASSERT_MSG_EQ(r.kvBytesSent, r.kvBytesReceived, "app bytes conserved");
        for (const auto& link : r.links)
        {
            NS_TEST_ASSERT_MSG_EQ(link.offeredBytes,
                                  link.droppedBytes + link.receivedBytes,
                                  "link " << link.fromCellId << " -> " << link.toCellId);
        }
    }
};

/**
 * \ingroup edge-llm-tests
 * \brief The backhaul-study test suite.
 */
class EdgeLlmBackhaulStudyTestSuite : public TestSuite
{
  public:
    EdgeLlmBackhaulStudyTestSuite()
        : TestSuite("edge-llm-backhaul-study", EDGE_LLM_TEST_SYSTEM)
    {
        AddTestCase(new HexLayoutTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new ValidateTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new RoadsTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PresetUesTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new PredictionErrorTestCase, EDGE_LLM_TEST_QUICK);
        AddTestCase(new DelaySummaryTestCase(), EDGE_LLM_TEST_QUICK);
        for (double load : {0.0, 0.8})
        {
            for (const char* scheme : {"ctho", "tho", "cho"})
            {
                AddTestCase(new StudyRunTestCase(load, scheme, false), EDGE_LLM_TEST_QUICK);
            }
            AddTestCase(new SchemeOrderTestCase(load), EDGE_LLM_TEST_QUICK);
        }
        AddTestCase(new DelayGrowsTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new ImpactHoStudyTestCase(0.0, "WaterFilling"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new ImpactHoStudyTestCase(0.5, "Equal"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new ImpactHoSharedLinkTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new FileBackhaulTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new StudyRunTestCase(0.0, "ctho", true), EDGE_LLM_TEST_QUICK);
        AddTestCase(new StudyRunTestCase(0.0, "cho", true), EDGE_LLM_TEST_QUICK);
        AddTestCase(new RrcHandoverTestCase("road", "A3-RSRP"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new RrcHandoverTestCase("gauss-markov", "A2-A4-RSRQ"), EDGE_LLM_TEST_QUICK);
        AddTestCase(new NineteenSitesTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new WarmupTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new NoGpuWarmupTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new HandoverNotStartedTestCase(), EDGE_LLM_TEST_QUICK);
        AddTestCase(new FullStudyTestCase(), EDGE_LLM_TEST_EXTENSIVE);
    }
};

/// Static variable for test initialization
static EdgeLlmBackhaulStudyTestSuite g_edgeLlmBackhaulStudyTestSuite;
