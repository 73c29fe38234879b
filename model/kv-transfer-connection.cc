/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "kv-transfer-connection.h"

#include "kv-datagram-socket.h"

#include "ns3/log.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("KvTransferConnection");

NS_OBJECT_ENSURE_REGISTERED(KvTransferConnection);

TypeId
KvTransferConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::KvTransferConnection")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<KvTransferConnection>()
            .AddAttribute("SegmentBytes",
                          "Largest KV payload of one KV_SEGMENT frame, bytes, in [1024, 16 MiB]. "
                          "Smaller segments let the scheduler switch sessions more finely. "
                          "Any size works with any send buffer (frames are streamed into the "
                          "socket in pieces); a control message may wait behind the rest of "
                          "one segment.",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&KvTransferConnection::m_segmentBytes),
                          MakeUintegerChecker<uint32_t>(1024, 16 * 1024 * 1024))
            .AddTraceSource("KvSegmentSent",
                            "A KV segment was handed to the transport.",
                            MakeTraceSourceAccessor(&KvTransferConnection::m_kvSegmentSentTrace),
                            "ns3::KvTransferConnection::KvSegmentTracedCallback");
    return tid;
}

KvTransferConnection::KvTransferConnection()
    : m_segmentBytes(65536)
{
    NS_LOG_FUNCTION(this);
}

KvTransferConnection::~KvTransferConnection()
{
    NS_LOG_FUNCTION(this);
}

void
KvTransferConnection::DoDispose()
{
    // No Close() here (see Close()): the socket goes with its node's TCP layer.
    ReleaseSocket();
    m_scheduler = nullptr;
    m_control.clear();
    m_pending = nullptr;
    m_pendingOffset = 0;
    m_jobs.clear();
    m_messageCallback = MessageCallback();
    m_kvBytesCallback = KvBytesCallback();
    m_transferSentCallback = TransferSentCallback();
    Object::DoDispose();
}

void
KvTransferConnection::Close()
{
    NS_LOG_FUNCTION(this);
    Ptr<Socket> socket = m_socket;
    Ptr<Socket> receive = m_receiveSocket;
    ReleaseSocket();
    if (socket)
    {
        socket->Close();
    }
    if (receive)
    {
        receive->Close();
    }
}

void
KvTransferConnection::ReleaseSocket()
{
    if (m_socket)
    {
        m_socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        m_socket = nullptr;
    }
    if (m_receiveSocket)
    {
        m_receiveSocket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_receiveSocket = nullptr;
    }
}

void
KvTransferConnection::SetSocket(Ptr<Socket> socket, bool connected)
{
    NS_LOG_FUNCTION(this << socket << connected);
    m_socket = socket;
    m_connected = connected;
    m_socket->SetConnectCallback(MakeCallback(&KvTransferConnection::HandleConnected, this),
                                 MakeCallback(&KvTransferConnection::HandleConnectFailed, this));
    m_socket->SetSendCallback(MakeCallback(&KvTransferConnection::HandleSend, this));
    m_socket->SetRecvCallback(MakeCallback(&KvTransferConnection::HandleRead, this));
    TrySend();
}

void
KvTransferConnection::SetReceiveSocket(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    m_receiveSocket = socket;
    m_receiveSocket->SetRecvCallback(MakeCallback(&KvTransferConnection::HandleRead, this));
}

void
KvTransferConnection::SetScheduler(Ptr<HandoverScheduler> scheduler)
{
    m_scheduler = scheduler;
}

void
KvTransferConnection::SetMessageCallback(MessageCallback cb)
{
    m_messageCallback = cb;
}

void
KvTransferConnection::SetKvBytesCallback(KvBytesCallback cb)
{
    m_kvBytesCallback = cb;
}

void
KvTransferConnection::SetTransferSentCallback(TransferSentCallback cb)
{
    m_transferSentCallback = cb;
}

uint64_t
KvTransferConnection::GetKvBytesSent() const
{
    return m_kvBytesSent;
}

uint64_t
KvTransferConnection::GetSocketBufferedBytes() const
{
    UintegerValue size;
    if (m_socket && m_socket->GetAttributeFailSafe("SndBufSize", size))
    {
        return size.Get() - std::min<uint64_t>(size.Get(), m_socket->GetTxAvailable());
    }
    return 0;
}

uint64_t
KvTransferConnection::GetSocketUnsentBytes() const
{
    // The send buffer also holds the bytes sent and not yet acknowledged: not ahead.
    if (Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(m_socket))
    {
        Ptr<TcpTxBuffer> buffer = tcp->GetTxBuffer();
        return buffer->Size() - std::min(buffer->Size(), buffer->BytesInFlight());
    }
    if (Ptr<KvDatagramSocket> datagram = DynamicCast<KvDatagramSocket>(m_socket))
    {
        return datagram->GetTxQueuedBytes();
    }
    return GetSocketBufferedBytes();
}

bool
KvTransferConnection::HasKvBacklog() const
{
    for (const auto& j : m_jobs)
    {
        if (j.job.remainingBytes > 0 && !j.job.background)
        {
            return true;
        }
    }
    // The socket holds the bytes written but not yet acknowledged: if they reach back
    // past the end of the last KV frame, some of its KV bytes are still there.
    return (m_pending && m_pendingIsKv) || m_written < m_kvWrittenEnd + GetSocketBufferedBytes();
}

bool
KvTransferConnection::HasHandoverJobs() const
{
    return std::any_of(m_jobs.begin(), m_jobs.end(), [](const Job& j) {
        return j.job.remainingBytes > 0 && !j.job.background;
    });
}

uint64_t
KvTransferConnection::GetBacklogBytes() const
{
    uint64_t bytes = GetSocketBufferedBytes();
    for (const auto& j : m_jobs)
    {
        bytes += j.job.background ? 0 : j.job.remainingBytes; // background yields
    }
    if (m_pending)
    {
        bytes += m_pending->GetSize() - m_pendingOffset;
    }
    return bytes;
}

uint32_t
KvTransferConnection::GetSegmentBytes() const
{
    return m_segmentBytes;
}

uint64_t
KvTransferConnection::GetBytesAheadOfControl() const
{
    uint64_t bytes = GetSocketUnsentBytes();
    for (const auto& frame : m_control)
    {
        bytes += frame->GetSize();
    }
    if (m_pending)
    {
        bytes += m_pending->GetSize() - m_pendingOffset;
    }
    return bytes;
}

uint64_t
KvTransferConnection::GetKvBytesReceived() const
{
    return m_kvBytesReceived;
}

uint64_t
KvTransferConnection::GetBackgroundBytesSent() const
{
    return m_backgroundBytesSent;
}

uint64_t
KvTransferConnection::GetBackgroundBytesReceived() const
{
    return m_backgroundBytesReceived;
}

uint32_t
KvTransferConnection::GetProtocolErrors() const
{
    return m_protocolErrors;
}

Ptr<Packet>
KvTransferConnection::MakeFrame(KvFrameHeader::MessageType type,
                                const Header& message,
                                uint32_t payloadBytes)
{
    Ptr<Packet> p = Create<Packet>(payloadBytes); // virtual bytes: no allocation
    p->AddHeader(message);
    KvFrameHeader frame;
    frame.type = type;
    frame.messageLength = static_cast<uint16_t>(message.GetSerializedSize());
    frame.payloadLength = payloadBytes;
    p->AddHeader(frame);
    return p;
}

void
KvTransferConnection::SendMessage(KvFrameHeader::MessageType type,
                                  const Header& message,
                                  uint32_t payloadBytes)
{
    NS_LOG_FUNCTION(this << +type << payloadBytes);
    m_control.push_back(MakeFrame(type, message, payloadBytes));
    TrySend();
}

void
KvTransferConnection::AddTransfer(const KvTransferJob& job)
{
    NS_LOG_FUNCTION(this << job.sessionId << job.remainingBytes);
    m_jobs.push_back({job, 0});
    TrySend();
}

void
KvTransferConnection::HandleConnected(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    m_connected = true;
    TrySend();
}

void
KvTransferConnection::HandleConnectFailed(Ptr<Socket> /* socket */)
{
    NS_LOG_ERROR("KV transfer connection could not be established");
    m_connected = false;
}

void
KvTransferConnection::HandleSend(Ptr<Socket> /* socket */, uint32_t /* available */)
{
    TrySend();
}

bool
KvTransferConnection::WritePending()
{
    while (m_pending)
    {
        const uint32_t left = m_pending->GetSize() - m_pendingOffset;
        const uint32_t n = std::min(left, m_socket->GetTxAvailable());
        if (n == 0)
        {
            return false;
        }
        Ptr<Packet> piece = (m_pendingOffset == 0 && n == left)
                                ? m_pending
                                : m_pending->CreateFragment(m_pendingOffset, n);
        const int sent = m_socket->Send(piece);
        NS_ABORT_MSG_IF(sent != static_cast<int>(n),
                        "socket accepted " << sent << " of " << n << " bytes it had room for");
        m_pendingOffset += n;
        m_written += n;
        if (m_pendingIsKv && !m_pendingIsBackground)
        {
            m_kvWrittenEnd = m_written;
        }
        if (m_pendingOffset == m_pending->GetSize())
        {
            m_pending = nullptr;
            m_pendingOffset = 0;
            m_pendingIsKv = false;
        }
    }
    return true;
}

void
KvTransferConnection::TrySend()
{
    if (!m_socket || !m_connected)
    {
        return;
    }
    // Frames of any size are streamed into the socket in pieces, in order, as the send
    // buffer frees: none waits for room for all of it, so none can deadlock (a frame
    // larger than the buffer) or degrade to stop-and-wait (a frame nearly as large).
    while (WritePending())
    {
        if (!m_control.empty())
        {
            m_pending = m_control.front();
            m_pendingIsKv = false;
            m_control.pop_front();
            continue;
        }
        // Jobs that may send now: bytes left and slot budget left (or done: complete); a
        // background job only when no other job may.
        std::vector<std::size_t> eligible;
        for (bool background : {false, true})
        {
            if (!eligible.empty())
            {
                break;
            }
            for (std::size_t i = 0; i < m_jobs.size(); ++i)
            {
                const KvTransferJob& j = m_jobs[i].job;
                if (j.background == background &&
                    (j.remainingBytes == 0 || j.slotBudget >= std::max<uint64_t>(j.entryBytes, 1)))
                {
                    eligible.push_back(i);
                }
            }
        }
        if (eligible.empty())
        {
            return;
        }
        std::size_t pick = eligible.front();
        if (eligible.size() > 1)
        {
            std::vector<KvTransferJob> view;
            view.reserve(eligible.size());
            for (std::size_t i : eligible)
            {
                view.push_back(m_jobs[i].job);
            }
            pick = eligible[m_scheduler ? m_scheduler->SelectNextTransfer(view) : 0];
        }
        Job& job = m_jobs[pick];
        uint64_t kvBytes =
            std::min<uint64_t>({job.job.remainingBytes, m_segmentBytes, job.job.slotBudget});
        uint64_t wireBytes = kvBytes;
        if (job.job.entryBytes > 0 && kvBytes < job.job.remainingBytes)
        {
            // Whole entries only, each with its 3-byte coordinate.
            const uint64_t entries = kvBytes / job.job.entryBytes;
            kvBytes = entries * job.job.entryBytes;
        }
        if (job.job.entryBytes > 0)
        {
            const uint64_t entries = (kvBytes + job.job.entryBytes - 1) / job.job.entryBytes;
            wireBytes = kvBytes + ENTRY_COORDINATE_BYTES * entries;
        }
        if (kvBytes > 0)
        {
            KvSegmentHeader seg;
            seg.sessionId = job.job.sessionId;
            seg.byteOffset = job.offset;
            m_pending = MakeFrame(KvFrameHeader::KV_SEGMENT, seg, static_cast<uint32_t>(wireBytes));
            m_pendingIsKv = true;
            m_pendingIsBackground = job.job.background;
            job.offset += kvBytes;
            job.job.remainingBytes -= kvBytes;
            if (job.job.slotBudget != UINT64_MAX)
            {
                job.job.slotBudget -= std::min(job.job.slotBudget, kvBytes);
            }
            m_kvBytesSent += wireBytes; // as the receiver counts: coordinates included
            m_backgroundBytesSent += job.job.background ? wireBytes : 0;
            m_kvSegmentSentTrace(seg.sessionId, static_cast<uint32_t>(kvBytes));
        }
        if (job.job.remainingBytes == 0)
        {
            Finish(pick, false);
        }
        else if (kvBytes == 0)
        {
            job.job.slotBudget = 0; // less than one entry left in this slot
        }
    }
}

void
KvTransferConnection::Finish(std::size_t index, bool truncated)
{
    KvTransferCompleteHeader done;
    done.sessionId = m_jobs[index].job.sessionId;
    done.totalBytes = m_jobs[index].offset;
    if (!m_jobs[index].job.background) // the receiver knows a background job's size
    {
        m_control.push_back(MakeFrame(truncated ? KvFrameHeader::TRANSFER_TRUNCATE
                                                : KvFrameHeader::TRANSFER_COMPLETE,
                                      done,
                                      0));
    }
    const uint64_t session = done.sessionId;
    m_jobs.erase(m_jobs.begin() + static_cast<std::ptrdiff_t>(index));
    if (!m_transferSentCallback.IsNull())
    {
        m_transferSentCallback(session);
    }
}

bool
KvTransferConnection::Extend(uint64_t sessionId, uint64_t bytes)
{
    for (auto& j : m_jobs)
    {
        if (j.job.sessionId == sessionId)
        {
            j.job.remainingBytes += bytes;
            TrySend();
            return true;
        }
    }
    return false;
}

void
KvTransferConnection::SetSlotBudget(uint64_t sessionId, uint64_t bytes)
{
    for (auto& j : m_jobs)
    {
        if (j.job.sessionId == sessionId)
        {
            j.job.slotBudget = bytes;
        }
    }
    TrySend();
}

uint64_t
KvTransferConnection::Truncate(uint64_t sessionId)
{
    for (std::size_t i = 0; i < m_jobs.size(); ++i)
    {
        if (m_jobs[i].job.sessionId == sessionId)
        {
            const uint64_t sent = m_jobs[i].offset;
            Finish(i, true); // TRANSFER_TRUNCATE carries what was sent: the target keeps it
            TrySend();
            return sent;
        }
    }
    return 0;
}

uint64_t
KvTransferConnection::Cancel(uint64_t sessionId)
{
    for (std::size_t i = 0; i < m_jobs.size(); ++i)
    {
        if (m_jobs[i].job.sessionId == sessionId)
        {
            const uint64_t sent = m_jobs[i].offset;
            m_jobs.erase(m_jobs.begin() + static_cast<std::ptrdiff_t>(i));
            return sent;
        }
    }
    return 0;
}

uint64_t
KvTransferConnection::GetBytesQueued(uint64_t sessionId) const
{
    for (const auto& j : m_jobs)
    {
        if (j.job.sessionId == sessionId)
        {
            return j.offset;
        }
    }
    return 0;
}

void
KvTransferConnection::ReceiveBytes(Ptr<Packet> bytes)
{
    Consume(bytes);
}

void
KvTransferConnection::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while ((packet = socket->Recv()))
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        Consume(packet);
    }
}

void
KvTransferConnection::Consume(Ptr<Packet> packet)
{
    const uint32_t size = packet->GetSize();
    uint32_t offset = 0;
    while (offset < size && m_rxState != RX_BROKEN)
    {
        if (m_rxState == RX_PAYLOAD)
        {
            const uint32_t n = std::min(size - offset, m_rxPayloadLeft);
            offset += n;
            m_rxPayloadLeft -= n;
            if (m_rxFrame.type == KvFrameHeader::KV_SEGMENT && n > 0)
            {
                m_kvBytesReceived += n;
                m_backgroundBytesReceived +=
                    (m_rxSession & KvFrameHeader::PRE_TRANSFER_BIT) ? n : 0;
                if (!m_kvBytesCallback.IsNull())
                {
                    m_kvBytesCallback(m_rxSession, n);
                }
            }
            if (m_rxPayloadLeft == 0)
            {
                FinishFrame();
            }
            continue;
        }
        // Collect header bytes (frame header, then message header) into m_rxHeader.
        const uint32_t want = m_rxState == RX_FRAME ? KvFrameHeader::SIZE : m_rxFrame.messageLength;
        const uint32_t n =
            std::min<uint32_t>(size - offset, want - static_cast<uint32_t>(m_rxHeader.size()));
        const std::size_t old = m_rxHeader.size();
        m_rxHeader.resize(old + n);
        packet->CreateFragment(offset, n)->CopyData(m_rxHeader.data() + old, n);
        offset += n;
        if (m_rxHeader.size() < want)
        {
            continue;
        }
        Ptr<Packet> bytes = Create<Packet>(m_rxHeader.data(), want);
        m_rxHeader.clear();
        if (m_rxState == RX_FRAME)
        {
            bytes->RemoveHeader(m_rxFrame);
            if (!m_rxFrame.IsValid())
            {
                NS_LOG_ERROR("malformed KV frame header: " << m_rxFrame);
                ++m_protocolErrors;
                m_rxState = RX_BROKEN;
                return;
            }
            m_rxState = RX_MESSAGE;
            continue;
        }
        m_rxMessage = bytes;
        if (m_rxFrame.type == KvFrameHeader::KV_SEGMENT)
        {
            KvSegmentHeader seg;
            bytes->PeekHeader(seg);
            m_rxSession = seg.sessionId;
        }
        m_rxPayloadLeft = m_rxFrame.payloadLength;
        m_rxState = RX_PAYLOAD;
        if (m_rxPayloadLeft == 0)
        {
            FinishFrame();
        }
    }
}

void
KvTransferConnection::FinishFrame()
{
    m_rxState = RX_FRAME;
    Ptr<Packet> message = m_rxMessage;
    m_rxMessage = nullptr;
    if (!m_messageCallback.IsNull())
    {
        m_messageCallback(m_rxFrame, message);
    }
}

} // namespace ns3
