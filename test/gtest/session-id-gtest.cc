/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EdgeLlmSessionId: how a session id names its UE and request (a UE's single session is
 * its IMSI; request k of a UE that sends several is (k << 32) | IMSI), with both sides of
 * every bound.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/kv-transfer-header.h"
#include "ns3/token-stream-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

TEST(EdgeLlmSessionId, SingleSessionIsTheImsi)
{
    EXPECT_EQ(EdgeLlmSessionId::Make(1, 0), 1u);
    EXPECT_EQ(EdgeLlmSessionId::Make(4294967295ULL, 0), 4294967295ULL);
    EXPECT_EQ(EdgeLlmSessionId::UeOf(7), 7u);
    EXPECT_EQ(EdgeLlmSessionId::RequestOf(7), 0u);
}

TEST(EdgeLlmSessionId, RequestsByHand)
{
    // 3 << 32 = 12884901888; + IMSI 5.
    EXPECT_EQ(EdgeLlmSessionId::Make(5, 3), 12884901893ULL);
    EXPECT_EQ(EdgeLlmSessionId::UeOf(12884901893ULL), 5u);
    EXPECT_EQ(EdgeLlmSessionId::RequestOf(12884901893ULL), 3u);
    // The largest: (2^30 - 1) << 32 | (2^32 - 1) = 2^62 - 1, below the KV protocol's flags.
    const uint64_t largest = EdgeLlmSessionId::Make(4294967295ULL, 1073741823u);
    EXPECT_EQ(largest, (uint64_t{1} << 62) - 1);
    EXPECT_EQ(largest & KvFrameHeader::PRE_TRANSFER_BIT, 0u);
    EXPECT_EQ(largest & KvFrameHeader::PRE_TRANSFER_ENTRIES_BIT, 0u);
    EXPECT_EQ(EdgeLlmSessionId::UeOf(largest), 4294967295ULL);
    EXPECT_EQ(EdgeLlmSessionId::RequestOf(largest), 1073741823u);
}

TEST(EdgeLlmSessionId, BoundsBothSides)
{
    EXPECT_EQ(edgellmtest::ErrorOf<std::invalid_argument>([] { EdgeLlmSessionId::Make(0, 1); }),
              "imsi must be in [1, 4294967295], got 0");
    EXPECT_EQ(edgellmtest::ErrorOf<std::invalid_argument>(
                  [] { EdgeLlmSessionId::Make(4294967296ULL, 1); }),
              "imsi must be in [1, 4294967295], got 4294967296");
    EXPECT_EQ(
        edgellmtest::ErrorOf<std::invalid_argument>([] { EdgeLlmSessionId::Make(1, 1073741824u); }),
        "request must be in [0, 1073741823], got 1073741824");
    EXPECT_NO_THROW(EdgeLlmSessionId::Make(1, 1073741823u));
}

} // namespace
