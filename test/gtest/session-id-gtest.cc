/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EdgeLlmSessionId: how a session id names its UE and request (a UE's single session is
 * its IMSI; request k of a UE that sends several is (k << 32) | IMSI), with both sides of
 * every bound.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/kv-transfer-header.h"
#include "ns3/packet.h"
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

/// \return \p h serialized into a packet, and read back into \p out from its bytes
template <typename H>
uint32_t
RoundTrip(const H& h, H& out)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    const uint32_t size = p->GetSize();
    p->RemoveHeader(out);
    return size;
}

TEST(EdgeLlmPromptHeader, OneSessionKeepsEighteenBytes)
{
    EdgeLlmPromptHeader h;
    h.sessionId = EdgeLlmSessionId::Make(5, 3);
    h.promptTokens = 300;
    h.maxNewTokens = 20;
    h.replyPort = 9005;
    EdgeLlmPromptHeader back;
    EXPECT_EQ(RoundTrip(h, back), 18u);
    EXPECT_EQ(back.sessionId, h.sessionId);
    EXPECT_EQ(back.conversation, 0u);
    EXPECT_EQ(EdgeLlmPromptHeader::SizeFromFirstByte(0x00), 18u);
    EXPECT_EQ(EdgeLlmPromptHeader::SizeFromFirstByte(0x7F), 18u); // bit 63 clear
}

TEST(EdgeLlmPromptHeader, ATurnAddsFifteenBytes)
{
    EdgeLlmPromptHeader h;
    h.sessionId = EdgeLlmSessionId::Make(5, 4);
    h.promptTokens = 200;
    h.maxNewTokens = 20;
    h.replyPort = 9006;
    h.conversation = EdgeLlmSessionId::Make(5, 3);
    h.earlierTokens = 320;
    h.moreTurns = true;
    h.previousCell = 7;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    // 18 + conversation 8 + earlierTokens 4 + moreTurns 1 + previousCell 2
    ASSERT_EQ(p->GetSize(), 33u);
    uint8_t first = 0;
    p->CopyData(&first, 1);
    EXPECT_EQ(first, 0x80); // bit 63 set on the wire, the session id's high bits clear
    EXPECT_EQ(EdgeLlmPromptHeader::SizeFromFirstByte(first), 33u);
    EdgeLlmPromptHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.sessionId, h.sessionId); // the flag is not part of the id
    EXPECT_EQ(back.conversation, h.conversation);
    EXPECT_EQ(back.earlierTokens, 320u);
    EXPECT_TRUE(back.moreTurns);
    EXPECT_EQ(back.previousCell, 7);
    EXPECT_EQ(back.promptTokens, 200u);
    EXPECT_EQ(back.replyPort, 9006);
}

TEST(KvTransferRequestHeader, MoreTurnsCarriesTheConversation)
{
    KvTransferRequestHeader h;
    h.sessionId = EdgeLlmSessionId::Make(2, 1);
    h.contextTokens = 700;
    KvTransferRequestHeader back;
    EXPECT_EQ(RoundTrip(h, back), 68u);
    EXPECT_EQ(back.conversation, 0u);
    h.flags = KvTransferRequestHeader::MORE_TURNS | KvTransferRequestHeader::IMPORTANCE_ORDERED;
    h.conversation = EdgeLlmSessionId::Make(2, 1);
    EXPECT_EQ(RoundTrip(h, back), 76u);
    EXPECT_TRUE(back.IsValid());
    EXPECT_EQ(back.conversation, h.conversation);
    EXPECT_EQ(back.contextTokens, 700u);
}

TEST(KvTransferRequestHeader, MoreTurnsShortOfItsConversationIsInvalid)
{
    KvTransferRequestHeader h;
    h.flags = KvTransferRequestHeader::MORE_TURNS;
    h.conversation = 9;
    Buffer full;
    full.AddAtStart(76);
    h.Serialize(full.Begin());
    for (const uint32_t given : {75u, 76u})
    {
        Buffer b;
        b.AddAtStart(given);
        Buffer::Iterator w = b.Begin();
        Buffer::Iterator r = full.Begin();
        for (uint32_t i = 0; i < given; ++i)
        {
            w.WriteU8(r.ReadU8());
        }
        KvTransferRequestHeader back;
        back.Deserialize(b.Begin());
        EXPECT_EQ(back.IsValid(), given == 76u) << given << " bytes";
        EXPECT_EQ(back.conversation, given == 76u ? 9u : 0u) << given << " bytes";
    }
    // The frame's length: 68 and 76 for a TRANSFER_REQUEST, nothing between.
    KvFrameHeader frame;
    frame.type = KvFrameHeader::TRANSFER_REQUEST;
    for (const uint16_t length : {67, 68, 69, 75, 76, 77})
    {
        frame.messageLength = length;
        EXPECT_EQ(frame.IsValid(), length == 68 || length == 76) << length;
    }
}

} // namespace
