/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * libFuzzer target: any byte string fed to the KV transfer protocol's stream parser
 * (KvTransferConnection::ReceiveBytes), split into two chunks at a point the input
 * chooses, either yields valid messages, which are then deserialized by type as
 * EdgeLlmNode does, or stops at a malformed frame; it never crashes or reads out of
 * range (built with AddressSanitizer and UndefinedBehaviorSanitizer by scripts/fuzz.sh).
 * The same bytes are also parsed as a UDP-transport datagram header (KvDatagramHeader):
 * it is valid or not, never a crash, and a valid one serializes back to the bytes it
 * was read from.
 */
#include "ns3/kv-datagram-header.h"
#include "ns3/kv-transfer-connection.h"
#include "ns3/kv-transfer-header.h"
#include "ns3/packet.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

using namespace ns3;

namespace
{
/// Read a \p H from the first bytes of \p data; trap if it claims more than it had.
template <typename H>
void
ParseDirectly(const uint8_t* data, size_t size)
{
    Ptr<Packet> p = Create<Packet>(data, static_cast<uint32_t>(size));
    H h;
    const uint32_t read = p->RemoveHeader(h);
    const bool whole = size >= H::SIZE;
    if (read > size || (whole && read != H::SIZE) || (!whole && (read != 0 || !h.truncated)))
    {
        __builtin_trap(); // a header must read all of its bytes or none, and say which
    }
}

/// A header whose size its own bytes say (TRANSFER_REQUEST: 68, or 76 with MORE_TURNS;
/// PLAN_REQUEST: its member count): all of the bytes it claims, or none.
template <typename H>
void
ParseAllOrNone(const uint8_t* data, size_t size)
{
    Ptr<Packet> p = Create<Packet>(data, static_cast<uint32_t>(size));
    H h;
    const uint32_t read = p->RemoveHeader(h);
    const bool ok = h.truncated ? read == 0 : read == h.GetSerializedSize() && read <= size;
    if (!ok)
    {
        __builtin_trap();
    }
}
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
    {
        return 0;
    }
    Ptr<KvTransferConnection> c = CreateObject<KvTransferConnection>();
    uint64_t kvBytes = 0;
    c->SetKvBytesCallback(
        KvTransferConnection::KvBytesCallback([&kvBytes](uint64_t, uint64_t n) { kvBytes += n; }));
    c->SetMessageCallback(
        KvTransferConnection::MessageCallback([](const KvFrameHeader& frame, Ptr<Packet> message) {
            switch (frame.type)
            {
            case KvFrameHeader::TRANSFER_REQUEST: {
                KvTransferRequestHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::KV_SEGMENT: {
                KvSegmentHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::TRANSFER_COMPLETE:
            case KvFrameHeader::TRANSFER_TRUNCATE:
            case KvFrameHeader::TRANSFER_CANCEL:
            case KvFrameHeader::TRANSFER_STOP:
            case KvFrameHeader::PRE_TRANSFER_START:
            case KvFrameHeader::PRE_TRANSFER_COMMIT:
            case KvFrameHeader::PRE_TRANSFER_END:
            case KvFrameHeader::PRE_TRANSFER_EVICTED:
            case KvFrameHeader::PRE_TRANSFER_PAUSE:
            case KvFrameHeader::IDLE_CACHE:
            case KvFrameHeader::IDLE_CACHE_FETCH: {
                KvTransferCompleteHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::TRANSFER_REDIRECT:
            case KvFrameHeader::TRANSFER_REDIRECT_REFUSED: {
                KvRedirectHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::TRANSFER_RESPONSE: {
                KvTransferResponseHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::TRANSFER_STATUS: {
                KvTransferStatusHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::BATCH_CLOSE: {
                KvBatchCloseHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::PLAN_REQUEST: {
                KvPlanRequestHeader h;
                message->RemoveHeader(h);
                break;
            }
            case KvFrameHeader::PLAN: {
                KvPlanHeader h;
                message->RemoveHeader(h);
                break;
            }
            default:
                __builtin_trap(); // the parser let an invalid type through
            }
        }));
    const size_t cut = 1 + data[0] % size; // the first byte picks the chunk boundary
    c->ReceiveBytes(Create<Packet>(data + 1, static_cast<uint32_t>(cut - 1)));
    c->ReceiveBytes(Create<Packet>(data + cut, static_cast<uint32_t>(size - cut)));
    c->Dispose();

    // Every header type read straight from the bytes (as a user of the headers might):
    // a short string must leave it invalid, never read past the end.
    ParseDirectly<KvFrameHeader>(data, size);
    ParseAllOrNone<KvTransferRequestHeader>(data, size);
    ParseDirectly<KvSegmentHeader>(data, size);
    ParseDirectly<KvTransferCompleteHeader>(data, size);
    ParseDirectly<KvBatchCloseHeader>(data, size);
    ParseDirectly<KvRedirectHeader>(data, size);
    ParseDirectly<KvTransferResponseHeader>(data, size);
    ParseDirectly<KvTransferStatusHeader>(data, size);
    ParseAllOrNone<KvPlanRequestHeader>(data, size);
    ParseDirectly<KvPlanHeader>(data, size);

    Ptr<Packet> datagram = Create<Packet>(data, static_cast<uint32_t>(size));
    KvDatagramHeader h;
    const uint32_t read = datagram->RemoveHeader(h);
    if (!h.IsValid() && read != 0)
    {
        __builtin_trap(); // an invalid datagram header reads nothing
    }
    if (h.IsValid())
    {
        if (read != h.GetSerializedSize() || read > size)
        {
            __builtin_trap(); // a valid header must say how many bytes it took
        }
        Ptr<Packet> again = Create<Packet>();
        again->AddHeader(h);
        std::vector<uint8_t> bytes(again->GetSize());
        again->CopyData(bytes.data(), bytes.size());
        if (std::memcmp(bytes.data(), data, bytes.size()) != 0)
        {
            __builtin_trap(); // a valid header round-trips to the bytes it came from
        }
    }
    return 0;
}
