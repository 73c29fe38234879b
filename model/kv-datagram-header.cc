/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "kv-datagram-header.h"

#include "ns3/assert.h"

#include <ostream>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(KvDatagramHeader);

TypeId
KvDatagramHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::KvDatagramHeader")
                            .SetParent<Header>()
                            .SetGroupName("EdgeLlm")
                            .AddConstructor<KvDatagramHeader>();
    return tid;
}

TypeId
KvDatagramHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
KvDatagramHeader::GetSerializedSize() const
{
    switch (type)
    {
    case DATA:
        return DATA_SIZE;
    case ACK:
        return ACK_BASE_SIZE + SACK_BLOCK_SIZE * static_cast<uint32_t>(sackBlocks.size());
    default:
        return 2;
    }
}

void
KvDatagramHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(version);
    start.WriteU8(type);
    if (type == DATA)
    {
        start.WriteHtonU32(sequence);
    }
    else if (type == ACK)
    {
        NS_ASSERT_MSG(sackBlocks.size() <= MAX_SACK_BLOCKS,
                      "an ACK carries at most " << +MAX_SACK_BLOCKS << " SACK blocks");
        start.WriteHtonU32(nextExpected);
        start.WriteU8(static_cast<uint8_t>(sackBlocks.size()));
        for (const SackBlock& b : sackBlocks)
        {
            start.WriteHtonU32(b.start);
            start.WriteHtonU32(b.end);
        }
    }
}

uint32_t
KvDatagramHeader::Deserialize(Buffer::Iterator start)
{
    // Every read is preceded by a check of the bytes left: a short or malformed byte
    // string leaves the header invalid, nothing is read out of range, and 0 is returned
    // (all or nothing, like the frame headers).
    const uint32_t available = start.GetRemainingSize();
    sackBlocks.clear();
    sequence = 0;
    nextExpected = 0;
    m_truncated = true;
    if (available < 2)
    {
        version = 0;
        type = 0;
        return 0;
    }
    version = start.ReadU8();
    type = start.ReadU8();
    if (version != VERSION)
    {
        return 0;
    }
    if (type == DATA)
    {
        if (available < DATA_SIZE)
        {
            return 0;
        }
        sequence = start.ReadNtohU32();
        m_truncated = false;
        return DATA_SIZE;
    }
    if (type != ACK || available < ACK_BASE_SIZE)
    {
        return 0;
    }
    nextExpected = start.ReadNtohU32();
    const uint8_t count = start.ReadU8();
    if (count > MAX_SACK_BLOCKS || available < ACK_BASE_SIZE + SACK_BLOCK_SIZE * count)
    {
        return 0;
    }
    sackBlocks.resize(count);
    for (SackBlock& b : sackBlocks)
    {
        b.start = start.ReadNtohU32();
        b.end = start.ReadNtohU32();
    }
    m_truncated = false;
    return IsValid() ? ACK_BASE_SIZE + SACK_BLOCK_SIZE * count : 0; // all or nothing
}

bool
KvDatagramHeader::IsValid() const
{
    if (m_truncated || version != VERSION)
    {
        return false;
    }
    switch (type)
    {
    case DATA:
        return true;
    case ACK:
        if (sackBlocks.size() > MAX_SACK_BLOCKS)
        {
            return false;
        }
        for (const SackBlock& b : sackBlocks)
        {
            if (b.start <= nextExpected || b.end <= b.start)
            {
                return false;
            }
        }
        return true;
    default:
        return false;
    }
}

void
KvDatagramHeader::Print(std::ostream& os) const
{
    os << "version=" << +version << " type=" << +type;
    if (type == DATA)
    {
        os << " seq=" << sequence;
    }
    else if (type == ACK)
    {
        os << " nextExpected=" << nextExpected << " sack=";
        for (const SackBlock& b : sackBlocks)
        {
            os << "[" << b.start << "," << b.end << ")";
        }
    }
}

} // namespace ns3
