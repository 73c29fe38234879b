/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef KV_TRANSFER_CONNECTION_H
#define KV_TRANSFER_CONNECTION_H

#include "handover-scheduler.h"
#include "kv-transfer-header.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One transport connection between two BSs that carries every session's
 *        KV-cache transfer, multiplexed by the HandoverScheduler (ARCHITECTURE.md,
 *        "Wire protocol").
 *
 * Sending: control messages (transfer requests, completions) go first, in order;
 * then KV_SEGMENT frames of at most SegmentBytes, each for the job the scheduler's
 * SelectNextTransfer() picks at that moment, so the scheduler, not TCP's per-flow
 * fairness, decides who gets the backhaul. A job's TRANSFER_COMPLETE follows its
 * last segment. Frames are streamed into the socket in pieces, in order: each write
 * is min(room in the send buffer, bytes left of the current frame). No frame waits
 * for room for all of it, so a frame of any size (a TRANSFER_REQUEST forwarding
 * millions of tokens, a segment of SegmentBytes near or above the send buffer) goes
 * through at the transport's rate. A control message waits behind at most the rest of
 * the frame being written (<= SegmentBytes of KV payload) plus one send buffer.
 * A frame's KV bytes are counted as sent (GetKvBytesSent(), GetBytesQueued(), the
 * KvSegmentSent trace) when its first byte is written.
 *
 * Receiving: a byte-stream parser (frame header, message header, virtual payload)
 * that stores at most one message header, never the payload: KV bytes are counted
 * as they arrive and reported through the KV-bytes callback.
 */
class KvTransferConnection : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Bytes of an importance-ordered entry's (layer, kv-head, token) coordinate, sent
    /// before its KV bytes (ImpactHO Sec. VI-E)
    static constexpr uint64_t ENTRY_COORDINATE_BYTES = 3;

    /**
     * \param wireBytes bytes of importance-ordered KV segments received (each entry's
     *        coordinate before its KV bytes)
     * \param entryBytes KV bytes of one entry, > 0
     * \return the KV bytes of the whole entries among them (coordinates not counted)
     */
    static uint64_t EntryKvBytes(uint64_t wireBytes, uint64_t entryBytes)
    {
        return wireBytes / (entryBytes + ENTRY_COORDINATE_BYTES) * entryBytes;
    }

    KvTransferConnection();
    ~KvTransferConnection() override;

    /**
     * \brief Called when a whole frame (headers and payload) has arrived.
     * The packet holds the message header only (the payload is virtual).
     */
    typedef Callback<void, const KvFrameHeader&, Ptr<Packet>> MessageCallback;

    /// Called as KV_SEGMENT payload arrives: (session id, bytes just received).
    typedef Callback<void, uint64_t, uint64_t> KvBytesCallback;

    /// Called when a job's last KV byte has been handed to the socket: (session id).
    typedef Callback<void, uint64_t> TransferSentCallback;

    /**
     * \brief TracedCallback signature for KV bytes handed to the transport.
     * \param [in] sessionId the session
     * \param [in] bytes payload bytes of the segment
     */
    typedef void (*KvSegmentTracedCallback)(uint64_t sessionId, uint32_t bytes);

    /**
     * \brief Use \p socket (connected, or connecting) for this connection.
     * \param socket a stream socket; its callbacks are taken over
     * \param connected true if the connection is already established
     */
    void SetSocket(Ptr<Socket> socket, bool connected);

    /**
     * \brief Read this connection's incoming frames from \p socket (established): the
     *        stream the peer opened to this end. Nothing is sent on it, so its segments
     *        towards the peer are acknowledgements only (EdgeLlmNode opens one TCP
     *        connection per direction; see EdgeLlmX2PacketFilter's AckPriority).
     *
     * The socket given to SetSocket then carries only this end's frames out; the peer
     * sends nothing on it.
     * \param socket a stream socket; its receive callback is taken over
     */
    void SetReceiveSocket(Ptr<Socket> socket);

    /**
     * \brief Close the transport connection (TCP: a FIN) and stop listening to it.
     *
     * For EdgeLlmNode::StopApplication, while the node's devices still exist. DoDispose()
     * sends nothing: during Simulator::Destroy a node's devices are disposed before its
     * applications, and a FIN must not meet a disposed device.
     */
    void Close();

    /// \param scheduler the policy that picks the next KV segment's session
    void SetScheduler(Ptr<HandoverScheduler> scheduler);

    /// \param cb receive-side message callback
    void SetMessageCallback(MessageCallback cb);

    /// \param cb receive-side KV progress callback
    void SetKvBytesCallback(KvBytesCallback cb);

    /// \param cb send-side job-finished callback
    void SetTransferSentCallback(TransferSentCallback cb);

    /**
     * \brief Queue a control message ahead of any further KV segment.
     * \param type the frame's message type
     * \param message the message header
     * \param payloadBytes virtual payload bytes after it (e.g. forwarded tokens)
     */
    void SendMessage(KvFrameHeader::MessageType type, const Header& message, uint32_t payloadBytes);

    /**
     * \brief Queue a session's KV cache for transfer.
     * \param job session, handover time, deadline and its size in remainingBytes
     *        (0 is allowed: only TRANSFER_COMPLETE is sent)
     */
    void AddTransfer(const KvTransferJob& job);

    /**
     * \brief Add \p bytes to a queued job's (a pre-transfer following the decoding).
     * \return false if no job of \p sessionId is queued (it finished: add a new one)
     */
    bool Extend(uint64_t sessionId, uint64_t bytes);

    /**
     * \brief ImpactHO: how many KV bytes a session may still send in the current slot
     *        (its share of B dt); replaces what was left of the previous slot's.
     */
    void SetSlotBudget(uint64_t sessionId, uint64_t bytes);

    /**
     * \brief Stop a session's transfer now: a TRANSFER_TRUNCATE carries the KV bytes
     *        sent so far and the target keeps that prefix (ImpactHO's truncation at
     *        the transfer window).
     * \return the KV bytes sent (0 if no such job is queued)
     */
    uint64_t Truncate(uint64_t sessionId);

    /**
     * \brief Feed bytes received from the stream to the parser, as the socket's receive
     *        callback does (for tests and the fuzz target). Malformed frames stop the
     *        parsing and count in GetProtocolErrors(); nothing is read out of range.
     */
    void ReceiveBytes(Ptr<Packet> bytes);

    /**
     * \brief Drop a session's queued KV bytes without a completion message (the target
     *        cancelled it). Bytes already in the socket still arrive and are counted.
     * \return the KV bytes that had been sent
     */
    uint64_t Cancel(uint64_t sessionId);

    /// \return KV bytes of \p sessionId handed to the socket so far (0 if finished)
    uint64_t GetBytesQueued(uint64_t sessionId) const;

    /// \return KV segment payload bytes handed to the socket so far (with ImpactHO's entry
    ///         coordinates, as GetKvBytesReceived() counts them at the other end)
    uint64_t GetKvBytesSent() const;
    /**
     * \return bytes still ahead of a new transfer: queued KV bytes not yet framed, the
     *         unwritten rest of the frame being written and the bytes in the socket's
     *         send buffer
     */
    uint64_t GetBacklogBytes() const;

    /**
     * \return true while KV bytes to the peer are queued or in the transport: a job with
     *         bytes left, a KV frame being written, or the socket still holding bytes of
     *         the last KV frame written (control messages alone do not count)
     */
    bool HasKvBacklog() const;

    /// \return true while a handover transfer (a job that is not background) has bytes
    ///         left to hand to the transport
    bool HasHandoverJobs() const;
    /**
     * \return bytes still ahead of a new control message (which passes queued KV
     *         bytes): control frames not yet written, the unwritten rest of the frame
     *         being written and the socket's bytes not yet sent
     */
    uint64_t GetBytesAheadOfControl() const;

    /// \return the SegmentBytes attribute: the most KV payload one frame carries, bytes
    uint32_t GetSegmentBytes() const;
    /// \return KV payload bytes received so far
    uint64_t GetKvBytesReceived() const;
    /// \return the part of GetKvBytesSent() that background jobs sent (proactive
    ///         pre-transfers, KvTransferJob::background)
    uint64_t GetBackgroundBytesSent() const;
    /// \return the part of GetKvBytesReceived() in pre-transfer segments (session id with
    ///         KvFrameHeader::PRE_TRANSFER_BIT)
    uint64_t GetBackgroundBytesReceived() const;
    /// \return frames whose header failed validation (the connection then stops parsing)
    uint32_t GetProtocolErrors() const;

  protected:
    void DoDispose() override;

  private:
    /// Turn the socket's callbacks off and drop it, without closing it.
    void ReleaseSocket();

    /// A queued KV transfer and how far it has been sent.
    struct Job
    {
        KvTransferJob job;  //!< As given, remainingBytes counting down
        uint64_t offset{0}; //!< Next byte offset to send
    };

    /// Receive-parser state.
    enum RxState
    {
        RX_FRAME,   //!< Collecting the 8-byte frame header
        RX_MESSAGE, //!< Collecting the message header
        RX_PAYLOAD, //!< Counting payload bytes
        RX_BROKEN,  //!< A malformed frame: nothing more is parsed
    };

    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);
    void HandleSend(Ptr<Socket> socket, uint32_t available);
    void HandleRead(Ptr<Socket> socket);
    void TrySend();
    /**
     * \brief Write as much of the frame being written as the socket takes.
     * \return true if no frame is left partly written
     */
    bool WritePending();
    void Finish(std::size_t index, bool truncated);
    void Consume(Ptr<Packet> packet);
    void FinishFrame();
    static Ptr<Packet> MakeFrame(KvFrameHeader::MessageType type,
                                 const Header& message,
                                 uint32_t payloadBytes);

    /// \return bytes in the socket's send buffer (0 without a SndBufSize attribute)
    uint64_t GetSocketBufferedBytes() const;
    /// \return bytes in the socket not yet sent (TCP: less those in flight)
    uint64_t GetSocketUnsentBytes() const;

    Ptr<Socket> m_socket;               //!< The transport (this end's frames out)
    Ptr<Socket> m_receiveSocket;        //!< The peer's frames in (null: m_socket's)
    bool m_connected{false};            //!< Established?
    Ptr<HandoverScheduler> m_scheduler; //!< Picks the next KV segment
    uint32_t m_segmentBytes;            //!< Max KV payload per frame
    std::deque<Ptr<Packet>> m_control;  //!< Control frames, FIFO
    std::vector<Job> m_jobs;            //!< KV transfers with bytes left
    Ptr<Packet> m_pending;              //!< Frame being written, or nullptr
    uint32_t m_pendingOffset{0};        //!< Bytes of m_pending already written
    bool m_pendingIsKv{false};          //!< m_pending is a KV_SEGMENT frame
    bool m_pendingIsBackground{false};  //!< ... of a background job
    uint64_t m_written{0};              //!< Bytes handed to the socket so far
    uint64_t m_kvWrittenEnd{0};         //!< m_written after the last KV frame's last byte

    RxState m_rxState{RX_FRAME};     //!< Parser state
    std::vector<uint8_t> m_rxHeader; //!< Bytes of the header being collected
    KvFrameHeader m_rxFrame;         //!< Current frame
    uint64_t m_rxSession{0};         //!< Session of the current KV segment
    uint32_t m_rxPayloadLeft{0};     //!< Payload bytes still to come
    Ptr<Packet> m_rxMessage;         //!< Message header of the current frame

    uint64_t m_kvBytesSent{0};             //!< Counter
    uint64_t m_kvBytesReceived{0};         //!< Counter
    uint64_t m_backgroundBytesSent{0};     //!< Counter (background jobs)
    uint64_t m_backgroundBytesReceived{0}; //!< Counter (pre-transfer segments)
    uint32_t m_protocolErrors{0};          //!< Counter

    MessageCallback m_messageCallback;           //!< Receive side
    KvBytesCallback m_kvBytesCallback;           //!< Receive side
    TransferSentCallback m_transferSentCallback; //!< Send side

    TracedCallback<uint64_t, uint32_t> m_kvSegmentSentTrace; //!< KvSegmentSent
};

} // namespace ns3

#endif /* KV_TRANSFER_CONNECTION_H */
