/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "token-stream-header.h"

#include <ostream>

namespace ns3
{

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
EdgeLlmPromptHeader::GetSerializedSize() const
{
    return SIZE;
}

void
EdgeLlmPromptHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU32(promptTokens);
    start.WriteHtonU32(maxNewTokens);
    start.WriteHtonU16(replyPort);
}

uint32_t
EdgeLlmPromptHeader::Deserialize(Buffer::Iterator start)
{
    sessionId = start.ReadNtohU64();
    promptTokens = start.ReadNtohU32();
    maxNewTokens = start.ReadNtohU32();
    replyPort = start.ReadNtohU16();
    return SIZE;
}

void
EdgeLlmPromptHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " prompt=" << promptTokens << " maxNew=" << maxNewTokens
       << " replyPort=" << replyPort;
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
