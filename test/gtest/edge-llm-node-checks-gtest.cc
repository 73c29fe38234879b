/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EdgeLlmNode's own knob checks, which every config that sets the node's attributes calls
 * (each knob checked once, where it is owned): values at the range's edges and just past.
 */
#include "ns3/double.h"
#include "ns3/edge-llm-node.h"

#include <gtest/gtest.h>
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
