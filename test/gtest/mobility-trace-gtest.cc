/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * MobilityTrace (ns-2 mobility traces as SUMO's traceExporter writes them) and SiteRecord
 * (site files): positions, entries and leaves, strongest-cell changes computed by hand,
 * the motion against ns-3's own Ns2MobilityHelper, and every refusal with its line, on
 * both sides of each rule.
 */
#include "../../examples/studies/mobility-trace.h"
#include "../../examples/studies/site-list.h"
#include "edge-llm-gtest-util.h"

#include "ns3/angles.h"
#include "ns3/antenna-model.h"
#include "ns3/mobility-model.h"
#include "ns3/node-container.h"
#include "ns3/ns2-mobility-helper.h"
#include "ns3/simulator.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const std::string DATA = std::string(EDGE_LLM_SOURCE_DIR) + "/test/data/trace/";

/// A trace from text (no activity file unless \p activity is non-empty).
MobilityTrace
FromText(const std::string& mobility, const std::string& activity = "")
{
    std::istringstream m(mobility);
    std::istringstream a(activity);
    return MobilityTrace::Parse(m, "m.ns2", activity.empty() ? nullptr : &a, "a.act");
}

/// Lines 1-5: two vehicles, the second driving from time 0.
const std::string TWO_NODES = "$node_(0) set X_ 0\n$node_(0) set Y_ 0\n"
                              "$node_(1) set X_ 10\n$node_(1) set Y_ 0\n"
                              "$ns_ at 0 \"$node_(1) setdest 20 0 1\"\n";

/// Three sites at x = 0, 300, 600 m on the line y = 0; the nearer the stronger.
double
NearestIsStrongest(uint32_t site, const Vector& p)
{
    return -std::hypot(p.x - 300.0 * site, p.y);
}

TEST(MobilityTrace, PositionsEntriesAndLeavesByHand)
{
    const MobilityTrace t =
        MobilityTrace::Read(DATA + "two-vehicles.ns2", DATA + "two-vehicles.activity");
    ASSERT_EQ(t.GetN(), 2U);
    EXPECT_DOUBLE_EQ(t.Get(0).enter, 0.5);
    EXPECT_DOUBLE_EQ(t.Get(0).leave, 9.7);
    EXPECT_DOUBLE_EQ(t.Get(1).enter, 2.0);
    EXPECT_DOUBLE_EQ(t.Get(1).leave, 6.0);
    EXPECT_EQ(t.Get(0).label, "east0");
    EXPECT_EQ(t.Get(1).label, "west1");
    EXPECT_DOUBLE_EQ(t.GetEnd(), 9.7);
    // x0(t) = 100 + 50 (t - 0.5) until 560 m at 9.7 s; x1(t) = 500 - 50 (t - 2).
    EXPECT_DOUBLE_EQ(t.GetPosition(0, 0).x, 100);
    EXPECT_DOUBLE_EQ(t.GetPosition(0, 1.5).x, 150);
    EXPECT_DOUBLE_EQ(t.GetPosition(0, 1.5).y, 5);
    EXPECT_NEAR(t.GetPosition(0, 9.7).x, 560, 1e-9);
    EXPECT_NEAR(t.GetPosition(0, 20).x, 560, 1e-9);
    EXPECT_DOUBLE_EQ(t.GetPosition(1, 1.9).x, 500);
    EXPECT_DOUBLE_EQ(t.GetPosition(1, 6).x, 300);
    // Without the activity file: from the first setdest until it arrives (vehicle 1: 300 m
    // at 50 m/s from 2 s).
    const MobilityTrace bare = MobilityTrace::Read(DATA + "two-vehicles.ns2", "");
    EXPECT_DOUBLE_EQ(bare.Get(1).enter, 2.0);
    EXPECT_DOUBLE_EQ(bare.Get(1).leave, 8.0);
}

TEST(MobilityTrace, StrongestCellChangesByHand)
{
    const MobilityTrace t =
        MobilityTrace::Read(DATA + "two-vehicles.ns2", DATA + "two-vehicles.activity");
    uint32_t home = 99;
    // Vehicle 0 crosses x = 150 m at 1.5 s and x = 450 m at 7.5 s.
    const auto c0 = t.StrongestCellChanges(0, NearestIsStrongest, 3, 0.1, 0.5, home);
    EXPECT_EQ(home, 0U);
    ASSERT_EQ(c0.size(), 2U);
    EXPECT_DOUBLE_EQ(c0[0].at, 1.5);
    EXPECT_EQ(c0[0].from, 0U);
    EXPECT_EQ(c0[0].to, 1U);
    EXPECT_DOUBLE_EQ(c0[1].at, 7.5);
    EXPECT_EQ(c0[1].from, 1U);
    EXPECT_EQ(c0[1].to, 2U);
    // Vehicle 1 enters at x = 500 m (east is nearest) and crosses x = 450 m at 3 s.
    const auto c1 = t.StrongestCellChanges(1, NearestIsStrongest, 3, 0.1, 0.5, home);
    EXPECT_EQ(home, 2U);
    ASSERT_EQ(c1.size(), 1U);
    EXPECT_DOUBLE_EQ(c1[0].at, 3.0);
    EXPECT_EQ(c1[0].to, 1U);
}

TEST(MobilityTrace, MinDwellBothSides)
{
    // Over x = 150 m at 1 s (from 140 m at 10 m/s), turning at 154 m at 1.4 s, back over
    // 150 m at 1.8 s: 0.8 s in the middle cell, then west until it leaves at 3 s.
    const MobilityTrace t = FromText("$node_(0) set X_ 140\n$node_(0) set Y_ 0\n"
                                     "$ns_ at 0 \"$node_(0) setdest 154 0 10\"\n"
                                     "$ns_ at 1.4 \"$node_(0) setdest 100 0 10\"\n"
                                     "$ns_ at 3 \"$node_(0) setdest 100 0 10\"\n");
    uint32_t home = 99;
    EXPECT_TRUE(t.StrongestCellChanges(0, NearestIsStrongest, 3, 0.05, 1.0, home).empty());
    EXPECT_EQ(home, 0U);
    const auto quick = t.StrongestCellChanges(0, NearestIsStrongest, 3, 0.05, 0.6, home);
    ASSERT_EQ(quick.size(), 2U);
    EXPECT_DOUBLE_EQ(quick[0].at, 1.0);
    EXPECT_EQ(quick[0].to, 1U);
    // Back over 150 m: at 1.4 s it is at 154 m, then 10 m/s west: 150 m at 1.8 s.
    EXPECT_DOUBLE_EQ(quick[1].at, 1.8);
    EXPECT_EQ(quick[1].to, 0U);
}

TEST(MobilityTrace, InstallMatchesNs2MobilityHelper)
{
    const std::string file = DATA + "two-vehicles.ns2";
    const MobilityTrace t = MobilityTrace::Read(file, "");
    NodeContainer ours;
    ours.Create(2);
    t.Install(ours, 1.5);
    NodeContainer ns3s;
    ns3s.Create(2);
    Ns2MobilityHelper(file).Install(ns3s.Begin(), ns3s.End());
    std::vector<std::string> mismatches;
    for (double at : {0.0, 0.5, 1.0, 2.0, 3.3, 6.1, 9.7, 11.0})
    {
        Simulator::Schedule(Seconds(at), [&ours, &ns3s, &mismatches, at]() {
            for (uint32_t i = 0; i < 2; ++i)
            {
                const Vector a = ours.Get(i)->GetObject<MobilityModel>()->GetPosition();
                const Vector b = ns3s.Get(i)->GetObject<MobilityModel>()->GetPosition();
                if (std::abs(a.x - b.x) > 1e-6 || std::abs(a.y - b.y) > 1e-6 || a.z != 1.5)
                {
                    std::ostringstream m;
                    m << "node " << i << " at " << at << " s: " << a << " vs " << b;
                    mismatches.push_back(m.str());
                }
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_TRUE(mismatches.empty()) << mismatches.front();
}

TEST(MobilityTrace, RefusedWithTheirLine)
{
    // Time going backwards for one node: refused; the same time twice: accepted.
    const std::string twice = TWO_NODES + "$ns_ at 2 \"$node_(0) setdest 5 5 1\"\n"
                                          "$ns_ at 2 \"$node_(0) setdest 6 6 1\"\n";
    EXPECT_EQ(edgellmtest::ErrorOf([&] { FromText(twice); }), "");
    EXPECT_EQ(edgellmtest::ErrorOf([&] {
                  FromText(TWO_NODES + "$ns_ at 2 \"$node_(0) setdest 5 5 1\"\n"
                                       "$ns_ at 1.5 \"$node_(0) setdest 6 6 1\"\n");
              }),
              "m.ns2:7: time goes backwards for $node_(0): 1.5 s after 2 s");
    // Another node's earlier time is fine (each node's own order).
    EXPECT_EQ(edgellmtest::ErrorOf([&] {
                  FromText(TWO_NODES + "$ns_ at 2 \"$node_(0) setdest 5 5 1\"\n"
                                       "$ns_ at 1.5 \"$node_(1) setdest 6 6 1\"\n");
              }),
              "");
    // Unknown node: a setdest before its X_ and Y_.
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 1 \"$node_(2) setdest 5 5 1\"\n"); }),
              "m.ns2:6: unknown node $node_(2): its initial X_ and Y_ must be set before its "
              "first setdest");
    EXPECT_NE(edgellmtest::ErrorOf([&] {
                  FromText("$node_(0) set X_ 1\n$ns_ at 1 \"$node_(0) setdest 5 5 "
                           "1\"\n");
              }).find("m.ns2:2: unknown node $node_(0)"),
              std::string::npos);
    // A bad line, a bad number, a negative speed or time (0 is valid).
    EXPECT_NE(edgellmtest::ErrorOf([&] {
                  FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) goto 5 5\"\n");
              }).find("m.ns2:6: expected"),
              std::string::npos);
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 5x 5 1\"\n"); }),
              "m.ns2:6: x must be a finite number, got '5x'");
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 5 5 -1\"\n"); }),
              "m.ns2:6: speed must be >= 0 m/s, got -1");
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 0 \"$node_(0) setdest 5 5 0\"\n"); }),
              "");
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at -1 \"$node_(0) setdest 5 5 0\"\n"); }),
              "m.ns2:6: time must be in [0, 3600] s, got -1");
    // Coordinates within 1e6 m, arrivals by 3600 s: both sides.
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 1e6 0 1e4\"\n"); }),
              "");
    EXPECT_EQ(edgellmtest::ErrorOf(
                  [&] { FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 1.1e6 0 1e4\"\n"); }),
              "m.ns2:6: x must be in [-1e+06, 1e+06] m, got 1.1e6");
    EXPECT_NE(edgellmtest::ErrorOf([&] {
                  FromText(TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 1e6 0 1\"\n");
              }).find("m.ns2:6: $node_(0) would arrive at 1000001 s"),
              std::string::npos);
    // Node numbers 0..n-1 without a gap.
    EXPECT_NE(edgellmtest::ErrorOf([&] {
                  FromText("$node_(1) set X_ 1\n$node_(1) set Y_ 1\n");
              }).find("$node_(0) has no initial position"),
              std::string::npos);
}

TEST(MobilityTrace, ActivityRefusedWithTheirLine)
{
    const std::string moves = TWO_NODES + "$ns_ at 1 \"$node_(0) setdest 5 5 1\"\n"
                                          "$ns_ at 1 \"$node_(1) setdest 5 5 1\"\n";
    const std::string both = "$ns_ at 1 \"$g(0) start\"\n$ns_ at 1 \"$g(1) start\"\n";
    EXPECT_EQ(edgellmtest::ErrorOf([&] { FromText(moves, both + "$ns_ at 4 \"$g(1) stop\"\n"); }),
              "");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { FromText(moves, both + "$ns_ at 4 \"$g(2) stop\"\n"); }),
              "a.act:3: unknown node $g(2): the mobility file has no vehicle 2");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { FromText(moves, both + "$ns_ at 0.5 \"$g(1) stop\"\n"); }),
              "a.act:3: $g(1) stops at 0.5 s, before it starts at 1 s");
    EXPECT_EQ(edgellmtest::ErrorOf([&] { FromText(moves, both + "$ns_ at 1 \"$g(1) start\"\n"); }),
              "a.act:3: $g(1) starts twice");
    EXPECT_NE(edgellmtest::ErrorOf([&] {
                  FromText(moves, "$ns_ at 1 \"$g(0) start\"\n");
              }).find("$node_(1) never enters"),
              std::string::npos);
    // A "stop" at 0 (SUMO's for a vehicle still driving at the end) and no stop: present
    // until it arrives (vehicle 0: (0, 0) to (5, 5) at 1 m/s from 1 s; vehicle 1 from (11, 0)
    // at 1 s).
    const MobilityTrace t = FromText(moves,
                                     "$ns_ at 0.5 \"$g(0) start\"\n$ns_ at 0 \"$g(0) "
                                     "stop\"\n$ns_ at 1 \"$g(1) start\"\n");
    EXPECT_DOUBLE_EQ(t.Get(0).leave, 1 + std::sqrt(50.0));
    EXPECT_DOUBLE_EQ(t.Get(1).leave, 1 + std::sqrt(61.0));
}

/// A site file with \p rows after the header.
std::string
SiteFile(const std::string& rows, const std::string& header = "id,x,y,height,txPowerDbm")
{
    static int n = 0;
    const std::string path = ::testing::TempDir() + "/sites-" + std::to_string(++n) + ".csv";
    std::ofstream(path) << header << "\n" << rows;
    return path;
}

TEST(SiteRecord, ReadsAndRefusesBothSides)
{
    const std::vector<SiteRecord> s = SiteRecord::Read(DATA + "three-sites.csv");
    ASSERT_EQ(s.size(), 3U);
    EXPECT_EQ(s[1].id, "middle");
    EXPECT_DOUBLE_EQ(s[1].x, 300);
    EXPECT_DOUBLE_EQ(s[2].txPowerDbm, 43);
    // Height [0, 300] m, power [-30, 60] dBm: the bounds pass, just outside is refused.
    EXPECT_EQ(
        edgellmtest::ErrorOf([] { SiteRecord::Read(SiteFile("a,0,0,300,60\nb,1,0,0,-30\n")); }),
        "");
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,300.5,43\nb,1,0,0,43\n"));
              }).find(".csv:2: height must be in [0, 300], got 300.5"),
              std::string::npos)
        << edgellmtest::ErrorOf([] { SiteRecord::Read(SiteFile("a,0,0,300.5,43\nb,1,0,0,43\n")); });
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43\nb,1,0,0,60.5\n"));
              }).find(".csv:3: txPowerDbm must be in [-30, 60], got 60.5"),
              std::string::npos);
    // Two sites at least; one id and one position each.
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43\n"));
              }).find("a site file has 2 to 57 sites, got 1"),
              std::string::npos);
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43\na,1,0,0,43\n"));
              }).find(":3: id must be non-empty and unique"),
              std::string::npos);
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43\nb,0,0,10,43\n"));
              }).find(":3: site 'b' is at the position of an earlier site"),
              std::string::npos);
    // The header: in order.
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(
                      SiteFile("a,0,0,30,43\nb,1,0,0,43\n", "id,y,x,height,txPowerDbm"));
              })
                  .find(":1: the header must be id,x,y,height,txPowerDbm (omnidirectional "
                        "cells) or id,x,y,height,txPowerDbm,azimuth,beamwidth (sectors)"),
              std::string::npos);
    EXPECT_EQ(edgellmtest::ErrorOf([] {
                  SiteRecord::Read("/nonexistent/sites.csv");
              }).rfind("siteFile: ", 0),
              0U);
}

/// The header of a file with sectors.
const std::string SECTORS = "id,x,y,height,txPowerDbm,azimuth,beamwidth";

/// Read() of \p rows under SECTORS: its error, "" if none.
std::string
SectorError(const std::string& rows)
{
    return edgellmtest::ErrorOf([&rows] { SiteRecord::Read(SiteFile(rows, SECTORS)); });
}

TEST(SiteRecord, SectorsAtTheirBoundsAndPastThem)
{
    // Azimuth [-360, 360] and beamwidth (0, 360]: the bounds pass; two sectors at (0, 0),
    // an omnidirectional cell (360) alone at (500, 0).
    const std::vector<SiteRecord> s = SiteRecord::Read(
        SiteFile("a,0,0,30,43,-360,0.001\nb,0,0,30,40,90,359.999\nc,500,0,30,43,360,360\n",
                 SECTORS));
    ASSERT_EQ(s.size(), 3U);
    EXPECT_TRUE(SiteRecord::AreSectors(s));
    EXPECT_TRUE(s[0].sector);
    EXPECT_DOUBLE_EQ(s[0].antenna.azimuthDeg, -360);
    EXPECT_DOUBLE_EQ(s[0].antenna.beamwidthDeg, 0.001);
    EXPECT_DOUBLE_EQ(s[1].antenna.azimuthDeg, 90);
    EXPECT_DOUBLE_EQ(s[1].txPowerDbm, 40);
    EXPECT_DOUBLE_EQ(s[2].antenna.beamwidthDeg, 360);
    EXPECT_FALSE(SiteRecord::AreSectors(SiteRecord::Read(DATA + "three-sites.csv")));
    // Just past each bound, with the line and the range.
    EXPECT_NE(SectorError("a,0,0,30,43,-360.5,65\nb,1,0,30,43,0,65\n")
                  .find(".csv:2: azimuth must be in [-360, 360], got -360.5"),
              std::string::npos);
    EXPECT_NE(SectorError("a,0,0,30,43,0,65\nb,1,0,30,43,360.5,65\n")
                  .find(".csv:3: azimuth must be in [-360, 360], got 360.5"),
              std::string::npos);
    EXPECT_NE(SectorError("a,0,0,30,43,0,0\nb,1,0,30,43,0,65\n")
                  .find(".csv:2: beamwidth must be in (0, 360], got 0"),
              std::string::npos);
    EXPECT_NE(SectorError("a,0,0,30,43,0,65\nb,1,0,30,43,0,360.5\n")
                  .find(".csv:3: beamwidth must be in (0, 360], got 360.5"),
              std::string::npos);
    // Every record gives both: an empty cell is no number.
    EXPECT_NE(SectorError("a,0,0,30,43,,65\nb,1,0,30,43,0,65\n")
                  .find(".csv:2: azimuth must be a number in [-360, 360], got ''"),
              std::string::npos);
}

TEST(SiteRecord, SectorColumnsBothOrNeither)
{
    const std::string rows = "a,0,0,30,43,0\nb,1,0,30,43,0\n";
    EXPECT_NE(edgellmtest::ErrorOf([&rows] {
                  SiteRecord::Read(SiteFile(rows, "id,x,y,height,txPowerDbm,azimuth"));
              }).find(".csv:1: the header has azimuth but no beamwidth"),
              std::string::npos);
    EXPECT_NE(edgellmtest::ErrorOf([&rows] {
                  SiteRecord::Read(SiteFile(rows, "id,x,y,height,txPowerDbm,beamwidth"));
              }).find(".csv:1: the header has beamwidth but no azimuth"),
              std::string::npos);
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43,65,0\nb,1,0,30,43,65,0\n",
                                            "id,x,y,height,txPowerDbm,beamwidth,azimuth"));
              }).find(".csv:1: the header must be"),
              std::string::npos);
}

TEST(SiteRecord, SectorsOfOneSite)
{
    // Azimuths differing by 0.5 degree are two sectors; equal modulo 360 are refused.
    EXPECT_EQ(SectorError("a,0,0,30,43,0,65\nb,0,0,30,43,0.5,65\nc,9,0,30,43,0,360\n"), "");
    EXPECT_NE(SectorError("a,0,0,30,43,0,65\nb,0,0,30,43,360,65\nc,9,0,30,43,0,360\n")
                  .find(".csv:3: site 'b' points where site 'a' at its position does (azimuth "
                        "360 and 0, equal modulo 360)"),
              std::string::npos);
    EXPECT_NE(SectorError("a,0,0,30,43,-90,65\nb,5,5,30,43,0,65\nc,0,0,30,43,270,65\n")
                  .find(".csv:4: site 'c' points where site 'a'"),
              std::string::npos);
    // A shared position takes sectors only: 360 degrees (omnidirectional) there is refused,
    // whether it comes first or later; 359.999 passes.
    EXPECT_NE(SectorError("a,0,0,30,43,0,360\nb,0,0,30,43,180,65\nc,9,0,30,43,0,65\n")
                  .find(".csv:3: site 'b' shares its position with site 'a': cells at one "
                        "position are the sectors of a site, each with a beamwidth in (0, 360) "
                        "degrees; 'a' has 360"),
              std::string::npos);
    EXPECT_NE(SectorError("a,0,0,30,43,0,65\nb,0,0,30,43,180,360\nc,9,0,30,43,0,65\n")
                  .find(".csv:3: site 'b' shares its position with site 'a'"),
              std::string::npos);
    EXPECT_EQ(SectorError("a,0,0,30,43,0,65\nb,0,0,30,43,180,359.999\nc,9,0,30,43,0,65\n"), "");
    // Two positions at least: the third sector elsewhere passes (above), all at one are
    // refused for the file as a whole.
    EXPECT_NE(SectorError("a,0,0,30,43,0,65\nb,0,0,30,43,120,65\nc,0,0,30,43,240,65\n")
                  .find(".csv: every sector stands at one position: the cells must stand at 2 "
                        "positions at least"),
              std::string::npos);
    // An omnidirectional file still refuses a shared position.
    EXPECT_NE(edgellmtest::ErrorOf([] {
                  SiteRecord::Read(SiteFile("a,0,0,30,43\nb,0,0,10,43\n"));
              }).find("one omnidirectional cell per position"),
              std::string::npos);
}

TEST(SiteRecord, SectorAntennaRangesAndModel)
{
    // EdgeLlmSectorAntenna, which the RAN and the engine build from: the same ranges.
    EXPECT_EQ(edgellmtest::ErrorOf([] { EdgeLlmSectorAntenna{-360, 360}.Validate(); }), "");
    EXPECT_EQ(edgellmtest::ErrorOf([] { EdgeLlmSectorAntenna{360, 1e-9}.Validate(); }), "");
    EXPECT_EQ(edgellmtest::ErrorOf([] {
                  EdgeLlmSectorAntenna{360.001, 65}.Validate();
              }),
              "azimuth must be in [-360, 360] degrees, got 360.001");
    EXPECT_EQ(edgellmtest::ErrorOf([] {
                  EdgeLlmSectorAntenna{0, 0}.Validate();
              }),
              "beamwidth must be in (0, 360] degrees, got 0");
    EXPECT_EQ(edgellmtest::ErrorOf([] {
                  EdgeLlmSectorAntenna{0, 360.001}.Validate();
              }),
              "beamwidth must be in (0, 360] degrees, got 360.001");
    // The cosine pattern by hand (ns-3's CosineAntennaModel documentation): beamwidth 90,
    // pointed at 180 degrees: 0 dB toward 180, -3 dB toward 135 and -135, and toward 90
    // 20 n log10 cos(45 deg) with n = -3 / (20 log10 cos(22.5 deg)).
    const EdgeLlmSectorAntenna sector{180, 90};
    Ptr<AntennaModel> west = sector.CreateModel(true);
    const double pi = std::acos(-1.0);
    auto degrees = [pi](double d) { return Angles(d * pi / 180, pi / 2); };
    const double n = -3 / (20 * std::log10(std::cos(pi / 8)));
    EXPECT_NEAR(west->GetGainDb(degrees(180)), 0, 1e-9);
    EXPECT_NEAR(west->GetGainDb(degrees(135)), -3, 1e-9);
    EXPECT_NEAR(west->GetGainDb(degrees(-135)), -3, 1e-9);
    EXPECT_NEAR(west->GetGainDb(degrees(90)), 20 * n * std::log10(std::cos(pi / 4)), 1e-9);
    // Unoriented (an NR array element): the boresight is the +x axis.
    const EdgeLlmSectorAntenna element{180, 90};
    EXPECT_NEAR(element.CreateModel(false)->GetGainDb(degrees(45)), -3, 1e-9);
    // 360 degrees: 0 dB everywhere.
    const EdgeLlmSectorAntenna omni{0, 360};
    EXPECT_EQ(omni.CreateModel(true)->GetGainDb(degrees(180)), 0);
}

} // namespace
