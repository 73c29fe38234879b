/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EdgeLlmNode's own knob checks, which every config that sets the node's attributes calls
 * (each knob checked once, where it is owned): values at the range's edges and just past;
 * and the node's parts (roles, backhaul transport) reached with their attributes.
 */
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/edge-llm-node.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/prefill-engine.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <gtest/gtest.h>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

std::string
DecodeRateError(double rate)
{
    try
    {
        EdgeLlmNode::CheckDecodeRate("decodeRate", rate);
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

// The check and the DecodeRate attribute's checker accept and refuse the same values.
TEST(EdgeLlmNodeChecks, DecodeRateAtBothSides)
{
    const std::string refused =
        "decodeRate must be in [0.001, 1e+06] tokens/s (ns3::EdgeLlmNode::DecodeRate's range), "
        "got ";
    for (double ok : {1e-3, 100.0, 1e6})
    {
        EXPECT_EQ(DecodeRateError(ok), "") << ok;
        EXPECT_TRUE(
            CreateObject<EdgeLlmNode>()->SetAttributeFailSafe("DecodeRate", DoubleValue(ok)))
            << ok;
    }
    const std::vector<std::pair<double, std::string>> bads{{0.00099, "0.00099"},
                                                           {1000000.5, "1000000.5"},
                                                           {0.0, "0"},
                                                           {-1.0, "-1"}};
    for (const auto& [bad, shown] : bads)
    {
        EXPECT_EQ(DecodeRateError(bad), refused + shown) << bad;
        EXPECT_FALSE(
            CreateObject<EdgeLlmNode>()->SetAttributeFailSafe("DecodeRate", DoubleValue(bad)))
            << bad;
    }
}

// A part's attributes are reached the ns-3 ways: its own TypeId's default, a Config path
// through the node's read-only pointer attribute, or GetTargetRole() and its siblings; a
// value outside the attribute's range is refused there (WindowGrace in [0, 3600] s).
TEST(EdgeLlmNodeChecks, PartAttributesByDefaultPathAndPointer)
{
    Config::SetDefault("ns3::EdgeLlmSourceRole::GatherTime", TimeValue(MilliSeconds(7)));
    Ptr<Node> bs = CreateObject<Node>();
    Ptr<EdgeLlmNode> app = CreateObject<EdgeLlmNode>();
    bs->AddApplication(app);
    Config::SetDefault("ns3::EdgeLlmSourceRole::GatherTime", TimeValue(MilliSeconds(2)));
    TimeValue gather;
    app->GetSourceRole()->GetAttribute("GatherTime", gather);
    EXPECT_EQ(gather.Get(), MilliSeconds(7));

    const std::string path = "/NodeList/" + std::to_string(bs->GetId()) +
                             "/ApplicationList/0/$ns3::EdgeLlmNode/TargetRole/TransferTimeout";
    Config::Set(path, TimeValue(MilliSeconds(300)));
    TimeValue timeout;
    app->GetTargetRole()->GetAttribute("TransferTimeout", timeout);
    EXPECT_EQ(timeout.Get(), MilliSeconds(300));

    Config::Set("/NodeList/" + std::to_string(bs->GetId()) +
                    "/ApplicationList/0/$ns3::EdgeLlmNode/BackhaulTransport/Transport",
                StringValue("Udp"));
    StringValue transport;
    app->GetBackhaulTransport()->GetAttribute("Transport", transport);
    EXPECT_EQ(transport.Get(), "Udp");

    Ptr<Object> target = app->GetTargetRole();
    EXPECT_TRUE(target->SetAttributeFailSafe("WindowGrace", TimeValue(Seconds(3600))));
    EXPECT_FALSE(target->SetAttributeFailSafe("WindowGrace", TimeValue(Seconds(3600.001))));
    EXPECT_FALSE(app->SetAttributeFailSafe("TransferTimeout", TimeValue(Seconds(1))))
        << "TransferTimeout is the target role's, no longer the node's";
    PointerValue pointer;
    EXPECT_FALSE(app->SetAttributeFailSafe("TargetRole", pointer)) << "the parts are read-only";
    const std::map<std::string, TypeId> parts = EdgeLlmNode::GetParts();
    const std::map<std::string, std::string> expected{
        {"SourceRole", "ns3::EdgeLlmSourceRole"},
        {"TargetRole", "ns3::EdgeLlmTargetRole"},
        {"PreTransferRole", "ns3::EdgeLlmPreTransferRole"},
        {"IdleCacheRole", "ns3::EdgeLlmIdleCacheRole"},
        {"BackhaulTransport", "ns3::EdgeLlmBackhaulTransport"}};
    ASSERT_EQ(parts.size(), expected.size());
    for (const auto& [attribute, type] : expected)
    {
        EXPECT_EQ(parts.at(attribute).GetName(), type) << attribute;
    }
    Simulator::Destroy();
}

// The batching period's one range, [0, 1] s: edgellm::CheckBatchPeriod (configs, planners)
// and PrefillEngine's BatchPeriod checker accept and refuse the same values.
TEST(EdgeLlmNodeChecks, BatchPeriodOneRange)
{
    for (double ok : {0.0, 0.01, 1.0})
    {
        EXPECT_NO_THROW(edgellm::CheckBatchPeriod("batchPeriod", ok)) << ok;
        EXPECT_TRUE(CreateObject<PrefillEngine>()->SetAttributeFailSafe("BatchPeriod",
                                                                        TimeValue(Seconds(ok))))
            << ok;
    }
    for (double bad : {-1e-9, 1.000001})
    {
        try
        {
            edgellm::CheckBatchPeriod("batchPeriod", bad);
            ADD_FAILURE() << bad << " accepted";
        }
        catch (const std::invalid_argument& e)
        {
            EXPECT_EQ(std::string(e.what()).rfind("batchPeriod must be in [0, 1] s, got ", 0), 0u)
                << e.what();
        }
        EXPECT_FALSE(CreateObject<PrefillEngine>()->SetAttributeFailSafe("BatchPeriod",
                                                                         TimeValue(Seconds(bad))))
            << bad;
    }
}
