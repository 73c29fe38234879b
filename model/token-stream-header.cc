/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "token-stream-header.h"

#include <ostream>
#include <stdexcept>
#include <string>

namespace ns3
{

uint64_t
EdgeLlmSessionId::Make(uint64_t imsi, uint32_t request)
{
    if (imsi < 1 || imsi > MAX_IMSI)
    {
        throw std::invalid_argument("imsi must be in [1, " + std::to_string(MAX_IMSI) + "], got " +
                                    std::to_string(imsi));
    }
    if (request > MAX_REQUEST)
    {
        throw std::invalid_argument("request must be in [0, " + std::to_string(MAX_REQUEST) +
                                    "], got " + std::to_string(request));
    }
    return (uint64_t{request} << 32) | imsi;
}

uint64_t
EdgeLlmSessionId::UeOf(uint64_t sessionId)
{
    return sessionId & MAX_IMSI;
}

uint32_t
EdgeLlmSessionId::RequestOf(uint64_t sessionId)
{
    return static_cast<uint32_t>((sessionId >> 32) & MAX_REQUEST);
}

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmPromptHeader);
NS_OBJECT_ENSURE_REGISTERED(EdgeLlmTokenHeader);

TypeId
EdgeLlmPromptHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EdgeLlmPromptHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<EdgeLlmPromptHeader>();
    return tid;
}

TypeId
EdgeLlmPromptHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
EdgeLlmPromptHeader::SizeFromFirstByte(uint8_t firstByte)
{
    return (firstByte & 0x80) != 0 ? TURN_SIZE : SIZE;
}

uint32_t
EdgeLlmPromptHeader::GetSerializedSize() const
{
    return conversation != 0 ? TURN_SIZE : SIZE;
}

void
EdgeLlmPromptHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(conversation != 0 ? sessionId | TURN_BIT : sessionId);
    start.WriteHtonU32(promptTokens);
    start.WriteHtonU32(maxNewTokens);
    start.WriteHtonU16(replyPort);
    if (conversation != 0)
    {
        start.WriteHtonU64(conversation);
        start.WriteHtonU32(earlierTokens);
        start.WriteU8(moreTurns ? 1 : 0);
        start.WriteHtonU16(previousCell);
    }
}

uint32_t
EdgeLlmPromptHeader::Deserialize(Buffer::Iterator start)
{
    const uint64_t field = start.ReadNtohU64();
    sessionId = field & ~TURN_BIT;
    promptTokens = start.ReadNtohU32();
    maxNewTokens = start.ReadNtohU32();
    replyPort = start.ReadNtohU16();
    conversation = 0;
    earlierTokens = 0;
    moreTurns = false;
    previousCell = 0;
    if ((field & TURN_BIT) == 0)
    {
        return SIZE;
    }
    conversation = start.ReadNtohU64();
    earlierTokens = start.ReadNtohU32();
    moreTurns = start.ReadU8() != 0;
    previousCell = start.ReadNtohU16();
    return TURN_SIZE;
}

void
EdgeLlmPromptHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " prompt=" << promptTokens << " maxNew=" << maxNewTokens
       << " replyPort=" << replyPort;
    if (conversation != 0)
    {
        os << " conversation=" << conversation << " earlier=" << earlierTokens
           << " moreTurns=" << moreTurns << " previousCell=" << previousCell;
    }
}

TypeId
EdgeLlmTokenHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EdgeLlmTokenHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<EdgeLlmTokenHeader>();
    return tid;
}

TypeId
EdgeLlmTokenHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
EdgeLlmTokenHeader::GetSerializedSize() const
{
    return SIZE;
}

void
EdgeLlmTokenHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU32(tokenIndex);
    start.WriteHtonU16(cellId);
}

uint32_t
EdgeLlmTokenHeader::Deserialize(Buffer::Iterator start)
{
    sessionId = start.ReadNtohU64();
    tokenIndex = start.ReadNtohU32();
    cellId = start.ReadNtohU16();
    return SIZE;
}

void
EdgeLlmTokenHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " token=" << tokenIndex << " cell=" << cellId;
}

} // namespace ns3
