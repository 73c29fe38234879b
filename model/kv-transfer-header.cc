/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "kv-transfer-header.h"

#include "ns3/abort.h"

#include <cstring>
#include <ostream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(KvFrameHeader);
NS_OBJECT_ENSURE_REGISTERED(KvTransferRequestHeader);
NS_OBJECT_ENSURE_REGISTERED(KvSegmentHeader);
NS_OBJECT_ENSURE_REGISTERED(KvTransferCompleteHeader);
NS_OBJECT_ENSURE_REGISTERED(KvBatchCloseHeader);
NS_OBJECT_ENSURE_REGISTERED(KvRedirectHeader);
NS_OBJECT_ENSURE_REGISTERED(KvTransferResponseHeader);
NS_OBJECT_ENSURE_REGISTERED(KvTransferStatusHeader);
NS_OBJECT_ENSURE_REGISTERED(KvPlanRequestHeader);
NS_OBJECT_ENSURE_REGISTERED(KvPlanHeader);

// ---------------------------------------------------------------------------

TypeId
KvFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvFrameHeader>();
    return tid;
}

TypeId
KvFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvFrameHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvFrameHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(version);
    start.WriteU8(type);
    start.WriteHtonU16(messageLength);
    start.WriteHtonU32(payloadLength);
}

uint32_t
KvFrameHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    version = start.ReadU8();
    type = start.ReadU8();
    messageLength = start.ReadNtohU16();
    payloadLength = start.ReadNtohU32();
    return SIZE;
}

bool
KvFrameHeader::IsValid() const
{
    if (truncated || version != VERSION)
    {
        return false;
    }
    switch (type)
    {
    case TRANSFER_REQUEST:
        return messageLength == KvTransferRequestHeader::SIZE ||
               messageLength == KvTransferRequestHeader::CONVERSATION_SIZE;
    case KV_SEGMENT:
        return messageLength == KvSegmentHeader::SIZE;
    case TRANSFER_COMPLETE:
    case TRANSFER_TRUNCATE:
    case TRANSFER_CANCEL:
    case TRANSFER_STOP:
    case PRE_TRANSFER_START:
    case PRE_TRANSFER_COMMIT:
    case PRE_TRANSFER_END:
    case PRE_TRANSFER_EVICTED:
    case PRE_TRANSFER_PAUSE:
    case IDLE_CACHE:
    case IDLE_CACHE_FETCH:
        return messageLength == KvTransferCompleteHeader::SIZE && payloadLength == 0;
    case BATCH_CLOSE:
        return messageLength == KvBatchCloseHeader::SIZE && payloadLength == 0;
    case TRANSFER_REDIRECT:
    case TRANSFER_REDIRECT_REFUSED:
        return messageLength == KvRedirectHeader::SIZE && payloadLength == 0;
    case TRANSFER_RESPONSE:
        return messageLength == KvTransferResponseHeader::SIZE && payloadLength == 0;
    case TRANSFER_STATUS:
        return messageLength == KvTransferStatusHeader::SIZE && payloadLength == 0;
    case PLAN_REQUEST:
        return messageLength >= KvPlanRequestHeader::FIXED_SIZE &&
               (messageLength - KvPlanRequestHeader::FIXED_SIZE) %
                       KvPlanRequestHeader::MEMBER_SIZE ==
                   0 &&
               payloadLength == 0;
    case PLAN:
        return messageLength == KvPlanHeader::SIZE && payloadLength == 0;
    default:
        return false;
    }
}

void
KvFrameHeader::Print(std::ostream& os) const
{
    os << "version=" << +version << " type=" << +type << " messageLength=" << messageLength
       << " payloadLength=" << payloadLength;
}

// ---------------------------------------------------------------------------

TypeId
KvTransferRequestHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvTransferRequestHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvTransferRequestHeader>();
    return tid;
}

TypeId
KvTransferRequestHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvTransferRequestHeader::GetSerializedSize() const
{
    return (flags & MORE_TURNS) != 0 ? CONVERSATION_SIZE : SIZE;
}

void
KvTransferRequestHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU32(ueAddress);
    start.WriteHtonU16(uePort);
    start.WriteHtonU16(sourceCellId);
    start.WriteHtonU64(static_cast<uint64_t>(handoverTimeNs));
    start.WriteHtonU32(contextTokens);
    start.WriteHtonU32(prefillLength);
    start.WriteHtonU32(prefillTokens);
    start.WriteHtonU32(transferTokens);
    start.WriteHtonU32(batchId);
    start.WriteHtonU16(batchSize);
    start.WriteHtonU32(bytesPerToken);
    start.WriteHtonU32(tokensGenerated);
    start.WriteHtonU32(maxNewTokens);
    start.WriteHtonU16(flags);
    start.WriteHtonU64(static_cast<uint64_t>(kvDeadlineNs));
    if ((flags & MORE_TURNS) != 0)
    {
        start.WriteHtonU64(conversation);
    }
}

uint32_t
KvTransferRequestHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string (68 bytes, 76 with MORE_TURNS) leaves
    // the header invalid, and nothing is read.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    Buffer::Iterator atFlags = start;
    atFlags.Next(58); // sessionId .. maxNewTokens
    if ((atFlags.ReadNtohU16() & MORE_TURNS) != 0 && start.GetRemainingSize() < CONVERSATION_SIZE)
    {
        truncated = true;
        return 0;
    }
    sessionId = start.ReadNtohU64();
    ueAddress = start.ReadNtohU32();
    uePort = start.ReadNtohU16();
    sourceCellId = start.ReadNtohU16();
    handoverTimeNs = static_cast<int64_t>(start.ReadNtohU64());
    contextTokens = start.ReadNtohU32();
    prefillLength = start.ReadNtohU32();
    prefillTokens = start.ReadNtohU32();
    transferTokens = start.ReadNtohU32();
    batchId = start.ReadNtohU32();
    batchSize = start.ReadNtohU16();
    bytesPerToken = start.ReadNtohU32();
    tokensGenerated = start.ReadNtohU32();
    maxNewTokens = start.ReadNtohU32();
    flags = start.ReadNtohU16();
    kvDeadlineNs = static_cast<int64_t>(start.ReadNtohU64());
    conversation = (flags & MORE_TURNS) != 0 ? start.ReadNtohU64() : 0;
    return GetSerializedSize();
}

bool
KvTransferRequestHeader::IsValid() const
{
    return !truncated;
}

void
KvTransferRequestHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " sourceCell=" << sourceCellId
       << " handoverTimeNs=" << handoverTimeNs << " C=" << contextTokens << " L=" << prefillLength
       << " n_pf=" << prefillTokens << " n_tx=" << transferTokens << " batch=" << batchId << "/"
       << batchSize << " kvDeadlineNs=" << kvDeadlineNs;
    if ((flags & MORE_TURNS) != 0)
    {
        os << " conversation=" << conversation;
    }
}

// ---------------------------------------------------------------------------

TypeId
KvSegmentHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvSegmentHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvSegmentHeader>();
    return tid;
}

TypeId
KvSegmentHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvSegmentHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvSegmentHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU64(byteOffset);
}

uint32_t
KvSegmentHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    sessionId = start.ReadNtohU64();
    byteOffset = start.ReadNtohU64();
    return SIZE;
}

bool
KvSegmentHeader::IsValid() const
{
    return !truncated;
}

void
KvSegmentHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " offset=" << byteOffset;
}

// ---------------------------------------------------------------------------

TypeId
KvTransferCompleteHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvTransferCompleteHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvTransferCompleteHeader>();
    return tid;
}

TypeId
KvTransferCompleteHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvTransferCompleteHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvTransferCompleteHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU64(totalBytes);
}

uint32_t
KvTransferCompleteHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    sessionId = start.ReadNtohU64();
    totalBytes = start.ReadNtohU64();
    return SIZE;
}

bool
KvTransferCompleteHeader::IsValid() const
{
    return !truncated;
}

void
KvTransferCompleteHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " totalBytes=" << totalBytes;
}

// ---------------------------------------------------------------------------

TypeId
KvBatchCloseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvBatchCloseHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvBatchCloseHeader>();
    return tid;
}

TypeId
KvBatchCloseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvBatchCloseHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvBatchCloseHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(batchId);
    start.WriteHtonU16(batchSize);
    start.WriteHtonU16(0);
}

uint32_t
KvBatchCloseHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    batchId = start.ReadNtohU32();
    batchSize = start.ReadNtohU16();
    start.ReadNtohU16();
    return SIZE;
}

bool
KvBatchCloseHeader::IsValid() const
{
    return !truncated;
}

void
KvBatchCloseHeader::Print(std::ostream& os) const
{
    os << "batch=" << batchId << " size=" << batchSize;
}

// ---------------------------------------------------------------------------

TypeId
KvRedirectHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvRedirectHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvRedirectHeader>();
    return tid;
}

TypeId
KvRedirectHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvRedirectHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvRedirectHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU16(newTargetCellId);
    start.WriteHtonU16(0);
}

uint32_t
KvRedirectHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    sessionId = start.ReadNtohU64();
    newTargetCellId = start.ReadNtohU16();
    start.ReadNtohU16();
    return SIZE;
}

bool
KvRedirectHeader::IsValid() const
{
    return !truncated;
}

void
KvRedirectHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " newTarget=" << newTargetCellId;
}

// ---------------------------------------------------------------------------

TypeId
KvTransferResponseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvTransferResponseHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvTransferResponseHeader>();
    return tid;
}

TypeId
KvTransferResponseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvTransferResponseHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvTransferResponseHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU32(bytesPerToken);
    start.WriteU8(result);
    start.WriteU8(0);
    start.WriteHtonU16(0);
}

uint32_t
KvTransferResponseHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    sessionId = start.ReadNtohU64();
    bytesPerToken = start.ReadNtohU32();
    result = start.ReadU8();
    start.ReadU8();
    start.ReadNtohU16();
    return SIZE;
}

bool
KvTransferResponseHeader::IsValid() const
{
    return !truncated;
}

void
KvTransferResponseHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " bytesPerToken=" << bytesPerToken << " result=" << +result;
}

// ---------------------------------------------------------------------------

TypeId
KvTransferStatusHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvTransferStatusHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvTransferStatusHeader>();
    return tid;
}

TypeId
KvTransferStatusHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvTransferStatusHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvTransferStatusHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU64(sessionId);
    start.WriteHtonU64(receivedBytes);
    start.WriteU8(state);
    start.WriteU8(0);
    start.WriteHtonU16(0);
}

uint32_t
KvTransferStatusHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    sessionId = start.ReadNtohU64();
    receivedBytes = start.ReadNtohU64();
    state = start.ReadU8();
    start.ReadU8();
    start.ReadNtohU16();
    return SIZE;
}

bool
KvTransferStatusHeader::IsValid() const
{
    return !truncated;
}

void
KvTransferStatusHeader::Print(std::ostream& os) const
{
    os << "session=" << sessionId << " receivedBytes=" << receivedBytes << " state=" << +state;
}

// ---------------------------------------------------------------------------

TypeId
KvPlanRequestHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvPlanRequestHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvPlanRequestHeader>();
    return tid;
}

TypeId
KvPlanRequestHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvPlanRequestHeader::GetSerializedSize() const
{
    return FIXED_SIZE + MEMBER_SIZE * static_cast<uint32_t>(members.size());
}

void
KvPlanRequestHeader::Serialize(Buffer::Iterator start) const
{
    NS_ABORT_MSG_IF(members.size() > MAX_MEMBERS,
                    "KvPlanRequestHeader: " << members.size() << " members; valid: at most "
                                            << MAX_MEMBERS);
    start.WriteHtonU32(requestId);
    start.WriteHtonU16(static_cast<uint16_t>(members.size()));
    start.WriteHtonU16(0);
    start.WriteHtonU64(static_cast<uint64_t>(replyByNs));
    start.WriteHtonU64(planningBitRate);
    start.WriteHtonU64(static_cast<uint64_t>(backhaulFreeAtNs));
    start.WriteHtonU32(bytesPerToken);
    start.WriteHtonU32(0);
    for (double value : {pathDelay, requestTime, idTimePerToken, closeAhead})
    {
        uint64_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        start.WriteHtonU64(bits);
    }
    for (const Member& m : members)
    {
        start.WriteHtonU64(m.sessionId);
        start.WriteHtonU64(static_cast<uint64_t>(m.handoverTimeNs));
        start.WriteHtonU32(m.contextTokens);
    }
}

uint32_t
KvPlanRequestHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    const uint32_t available = start.GetRemainingSize();
    truncated = available < FIXED_SIZE;
    if (truncated)
    {
        return 0;
    }
    Buffer::Iterator count = start;
    count.ReadNtohU32();
    const uint32_t n = count.ReadNtohU16();
    truncated = available < FIXED_SIZE + MEMBER_SIZE * n;
    if (truncated)
    {
        return 0;
    }
    requestId = start.ReadNtohU32();
    start.ReadNtohU16();
    start.ReadNtohU16();
    replyByNs = static_cast<int64_t>(start.ReadNtohU64());
    planningBitRate = start.ReadNtohU64();
    backhaulFreeAtNs = static_cast<int64_t>(start.ReadNtohU64());
    bytesPerToken = start.ReadNtohU32();
    start.ReadNtohU32();
    for (double* value : {&pathDelay, &requestTime, &idTimePerToken, &closeAhead})
    {
        const uint64_t bits = start.ReadNtohU64();
        std::memcpy(value, &bits, sizeof bits);
    }
    members.assign(n, Member());
    for (Member& m : members)
    {
        m.sessionId = start.ReadNtohU64();
        m.handoverTimeNs = static_cast<int64_t>(start.ReadNtohU64());
        m.contextTokens = start.ReadNtohU32();
    }
    return GetSerializedSize();
}

bool
KvPlanRequestHeader::IsValid() const
{
    return !truncated;
}

void
KvPlanRequestHeader::Print(std::ostream& os) const
{
    os << "request=" << requestId << " members=" << members.size() << " replyByNs=" << replyByNs
       << " planningBitRate=" << planningBitRate << " backhaulFreeAtNs=" << backhaulFreeAtNs
       << " bytesPerToken=" << bytesPerToken;
}

// ---------------------------------------------------------------------------

TypeId
KvPlanHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvPlanHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvPlanHeader>();
    return tid;
}

TypeId
KvPlanHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvPlanHeader::GetSerializedSize() const
{
    return SIZE;
}

void
KvPlanHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(requestId);
    start.WriteHtonU32(groupId);
    start.WriteHtonU16(groupSize);
    start.WriteHtonU16(sources);
    start.WriteHtonU32(prefillLength);
    start.WriteHtonU32(0);
    start.WriteHtonU64(static_cast<uint64_t>(batchStartNs));
    start.WriteHtonU64(planningBitRate);
}

uint32_t
KvPlanHeader::Deserialize(Buffer::Iterator start)
{
    // Never read past the bytes given: a short string leaves the header invalid.
    truncated = start.GetRemainingSize() < SIZE;
    if (truncated)
    {
        return 0;
    }
    requestId = start.ReadNtohU32();
    groupId = start.ReadNtohU32();
    groupSize = start.ReadNtohU16();
    sources = start.ReadNtohU16();
    prefillLength = start.ReadNtohU32();
    start.ReadNtohU32();
    batchStartNs = static_cast<int64_t>(start.ReadNtohU64());
    planningBitRate = start.ReadNtohU64();
    return SIZE;
}

bool
KvPlanHeader::IsValid() const
{
    return !truncated;
}

void
KvPlanHeader::Print(std::ostream& os) const
{
    os << "request=" << requestId << " group=" << groupId << " size=" << groupSize
       << " sources=" << sources << " L=" << prefillLength << " batchStartNs=" << batchStartNs
       << " rate=" << planningBitRate;
}

} // namespace ns3
