/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef KV_DATAGRAM_SOCKET_H
#define KV_DATAGRAM_SOCKET_H

#include "kv-datagram-header.h"

#include "ns3/address.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <set>

namespace ns3
{

class Node;

/**
 * \ingroup edge-llm
 * \brief A reliable, in-order byte stream over UDP, paced at a known rate, with
 *        selective-repeat ARQ: the KV-cache transfer's RDMA/RoCE-like alternative to
 *        TCP on a dedicated backhaul (doc/edge-llm-design.rst, "KV transfer protocol").
 *
 * The user sees a stream socket (NS3_SOCK_STREAM): Send() appends bytes to the send
 * buffer, Recv() returns the bytes in order, each exactly once; Connect() succeeds at
 * once. There is no handshake and no congestion control: the sender knows the
 * backhaul's rate and owns it.
 *
 * The socket does not own its UDP socket: the owner binds one (several
 * KvDatagramSockets may share it), passes it with SetUdpSocket() together with the
 * peer's address, reads it, and hands every datagram that came from that peer to
 * ReceiveDatagram().
 *
 * Sending: the stream is cut into DATA datagrams (KvDatagramHeader) of at most
 * DatagramPayload bytes, numbered from 0. A datagram of n payload bytes is followed by
 * a gap of (n + KvDatagramHeader::DATA_SIZE + Overhead) x 8 / PacingRate, so a sender
 * paced at the link rate never queues at its own device. Retransmissions go before
 * new data and are paced alike. Bytes stay in the send buffer (SndBufSize) until they
 * are cumulatively acknowledged: the send buffer is the window.
 *
 * Receiving: datagrams beyond a gap are held (at most RcvBufSize bytes; more are
 * dropped and counted) until the gap fills, then delivered in order. An ACK goes out
 * every AckEvery in-order datagrams, at once when a datagram arrives out of order,
 * fills a gap or is a duplicate, and AckDelay after an unacknowledged datagram
 * otherwise. It carries the cumulative ack and up to 4 SACK blocks: the run holding
 * the datagram just received first, then the highest others.
 *
 * Loss recovery: a datagram is retransmitted (fast retransmit) once a datagram
 * DupThreshold or more positions beyond it has been SACKed, at most once per RTO per
 * datagram. The retransmission timer expires RTO after the last transmission of the
 * oldest datagram neither acknowledged nor SACKed; it then retransmits that datagram
 * and every other unacknowledged one last sent at least one RTO ago (after an outage:
 * the whole window), and doubles the RTO (exponential backoff, reset by the next ACK
 * that acknowledges anything new). RTO = min(MaxRto, backoff x max(MinRto, srtt +
 * max(4 rttvar, G) + AckDelay)), InitialRto x backoff before the first RTT sample:
 * RFC 6298 from samples of datagrams sent once only (Karn), with the peer's ack delay
 * (taken as our AckDelay) added as in QUIC's PTO (RFC 9002), and a floor G under the
 * variance term of DupThreshold + 1 full datagrams' pacing gaps, so that on a link
 * whose RTT hardly varies (rttvar -> 0) the timer does not pre-empt fast retransmit.
 *
 * Limits: ACKs are not paced; when both ends send, each end's ACKs share the link
 * with the other's paced DATA (about 0.2 % of a 9000-byte MTU link at AckEvery 2), so
 * an owner pacing at exactly the link rate builds a small device queue. In-order bytes
 * waiting for Recv() are not bounded by RcvBufSize and there is no advertised window:
 * the receiving application is expected to read as data arrives.
 *
 * Cost: O(log n) per datagram in the window (std::map / std::set keyed by sequence
 * number) and at most one pacing event per datagram; payload bytes stay virtual
 * (fragments of the user's packets).
 */
class KvDatagramSocket : public Socket
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    KvDatagramSocket();
    ~KvDatagramSocket() override;

    /**
     * \brief TracedCallback signature for a datagram sent or received.
     * \param [in] payload the datagram's payload (stream bytes; empty for an ACK)
     * \param [in] header its KvDatagramHeader
     */
    typedef void (*DatagramTracedCallback)(Ptr<const Packet> payload,
                                           const KvDatagramHeader& header);

    /**
     * \brief TracedCallback signature for a retransmission.
     * \param [in] sequence the DATA datagram's sequence number
     */
    typedef void (*RetransmitTracedCallback)(uint32_t sequence);

    /**
     * \brief Send through \p udp to \p peer; sending of queued bytes starts now.
     *        Aborts if PacingRate is 0 or MinRto > MaxRto.
     * \param udp a bound UDP socket (the owner keeps reading it)
     * \param peer the peer's InetSocketAddress (its UDP socket's address and port)
     */
    void SetUdpSocket(Ptr<Socket> udp, const Address& peer);

    /**
     * \brief Take a datagram the owner read from the UDP socket, sent by the peer.
     *        Malformed datagrams (KvDatagramHeader::IsValid() false, a DATA datagram
     *        without payload, an ACK for datagrams never sent) are dropped and counted
     *        in GetMalformed(); nothing is read out of range.
     * \param datagram header and payload as received
     */
    void ReceiveDatagram(Ptr<Packet> datagram);

    /// \param node the node this socket lives on (GetNode() returns it)
    void SetNode(Ptr<Node> node);

    /// \return DATA datagrams retransmitted so far (fast and timeout)
    uint64_t GetRetransmissions() const;
    /// \return retransmission-timer expiries so far
    uint64_t GetTimeouts() const;
    /// \return DATA datagrams received that had already arrived (dropped and re-acked)
    uint64_t GetDuplicates() const;
    /// \return out-of-order DATA datagrams dropped because RcvBufSize bytes were held
    uint64_t GetRcvBufDrops() const;
    /// \return datagrams dropped as malformed
    uint64_t GetMalformed() const;
    /// \return stream bytes cumulatively acknowledged by the peer
    uint64_t GetBytesAcked() const;
    /// \return bytes queued and not yet sent (the part of the send buffer ahead of new
    ///         bytes; the rest is in flight)
    uint64_t GetTxQueuedBytes() const;
    /// \return stream bytes delivered in order to the receive buffer
    uint64_t GetBytesReceived() const;
    /// \return the smoothed RTT, zero before the first sample
    Time GetSrtt() const;
    /// \return the retransmission timeout now in force, backoff included
    Time GetRto() const;

    // Socket interface; the convenience overloads of Socket stay visible.
    using Socket::Recv;
    using Socket::RecvFrom;
    using Socket::Send;

    SocketErrno GetErrno() const override;
    /// \return NS3_SOCK_STREAM
    SocketType GetSocketType() const override;
    Ptr<Node> GetNode() const override;
    /// \return -1, ERROR_OPNOTSUPP: the owner binds the UDP socket
    int Bind(const Address& address) override;
    /// \return -1, ERROR_OPNOTSUPP
    int Bind() override;
    /// \return -1, ERROR_OPNOTSUPP
    int Bind6() override;
    /// \brief Stop every timer and drop both buffers; further calls fail (ERROR_BADF).
    /// \return 0
    int Close() override;
    /// \brief No more Send(); queued bytes are still delivered. \return 0
    int ShutdownSend() override;
    /// \brief No more Recv(). \return 0
    int ShutdownRecv() override;
    /**
     * \brief Succeeds at once (NotifyConnectionSucceeded is scheduled now): there is no
     *        handshake. If no peer is set yet and \p address is an InetSocketAddress,
     *        it becomes the peer.
     * \return 0, or -1 (ERROR_BADF) after Close()
     */
    int Connect(const Address& address) override;
    /// \return -1, ERROR_OPNOTSUPP: both ends are set up by their owners
    int Listen() override;
    /// \return bytes Send() accepts now: SndBufSize - queued unsent - in flight unacked
    uint32_t GetTxAvailable() const override;
    /**
     * \brief Append \p p's bytes to the stream.
     * \return p->GetSize(), or -1 with ERROR_MSGSIZE if it exceeds GetTxAvailable(),
     *         ERROR_SHUTDOWN after ShutdownSend(), ERROR_BADF after Close()
     */
    int Send(Ptr<Packet> p, uint32_t flags) override;
    /// \brief As Send(); \p toAddress is ignored (the stream has one peer).
    int SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress) override;
    /// \return in-order bytes ready for Recv()
    uint32_t GetRxAvailable() const override;
    /**
     * \brief Take up to \p maxSize in-order bytes.
     * \return the bytes (fragments of the received datagrams), or nullptr with
     *         ERROR_AGAIN if none are ready (ERROR_SHUTDOWN after ShutdownRecv())
     */
    Ptr<Packet> Recv(uint32_t maxSize, uint32_t flags) override;
    /// \brief As Recv(); \p fromAddress is set to the peer.
    Ptr<Packet> RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress) override;
    /// \brief The UDP socket's address. \return 0, or -1 (ERROR_NOTCONN) before SetUdpSocket
    int GetSockName(Address& address) const override;
    /// \brief The peer's address. \return 0, or -1 (ERROR_NOTCONN) before a peer is set
    int GetPeerName(Address& address) const override;
    /// \return true only for \p allowBroadcast false (no broadcast on a stream)
    bool SetAllowBroadcast(bool allowBroadcast) override;
    /// \return false
    bool GetAllowBroadcast() const override;

  protected:
    void DoDispose() override;

  private:
    /// A DATA datagram sent and not yet cumulatively acknowledged.
    struct TxRecord
    {
        Ptr<Packet> payload;       //!< Its stream bytes (a fragment, virtual)
        Time lastSent;             //!< Time of its last transmission
        bool retransmitted{false}; //!< Sent more than once (no RTT sample: Karn)
        bool sacked{false};        //!< The peer holds it
    };

    /// Schedule the next paced transmission if there is something to send.
    void ScheduleSend();
    /// Pacing event: send one datagram (a retransmission first), schedule the next.
    void SendNext();
    /// Put one DATA datagram on the wire.
    void Transmit(uint32_t seq, Ptr<Packet> payload);
    /// Cut the next new datagram's payload off the send buffer.
    Ptr<Packet> TakeNewPayload();
    /// Process an ACK from the peer.
    void HandleAck(const KvDatagramHeader& ack);
    /// Process a DATA datagram from the peer.
    void HandleData(uint32_t seq, Ptr<Packet> payload);
    /// Send an ACK now (cancels the delayed ACK).
    void SendAck();
    /// Feed one RTT sample to srtt / rttvar (RFC 6298).
    void UpdateRtt(Time sample);
    /// (Re)arm the retransmission timer for the oldest unacknowledged datagram.
    void ArmRto();
    /// Retransmission timer event.
    void OnRto();
    /// \return last transmission time of the oldest unacknowledged, un-SACKed datagram
    Time OldestSendTime() const;
    /// \return true if there is a DATA datagram to send now
    bool HasDataToSend() const;

    // Configuration (attributes).
    uint32_t m_sndBufSize;   //!< Send buffer, bytes
    uint32_t m_rcvBufSize;   //!< Out-of-order holding limit, bytes
    uint32_t m_payloadSize;  //!< Largest DATA payload, bytes
    DataRate m_pacingRate;   //!< Pacing rate
    uint32_t m_overhead;     //!< Bytes below UDP counted by pacing
    uint32_t m_ackEvery;     //!< In-order datagrams per ACK
    Time m_ackDelay;         //!< Delayed-ACK timeout
    uint32_t m_dupThreshold; //!< SACKed positions beyond a hole that trigger a retransmit
    Time m_minRto;           //!< Lower bound of the RTO
    Time m_initialRto;       //!< RTO before the first RTT sample
    Time m_maxRto;           //!< Upper bound of the RTO, backoff included

    // Plumbing.
    Ptr<Node> m_node;                            //!< Node
    Ptr<Socket> m_udp;                           //!< Shared UDP socket (not owned)
    Address m_peer;                              //!< Peer's InetSocketAddress
    bool m_hasPeer{false};                       //!< m_peer set?
    bool m_closed{false};                        //!< Close() called
    bool m_shutdownSend{false};                  //!< ShutdownSend() called
    bool m_shutdownRecv{false};                  //!< ShutdownRecv() called
    mutable SocketErrno m_errno{ERROR_NOTERROR}; //!< Last error

    // Send side.
    std::deque<Ptr<Packet>> m_txQueue;       //!< User bytes not yet sent, in order
    uint32_t m_txQueueOffset{0};             //!< Bytes of m_txQueue.front() already sent
    uint64_t m_txQueuedBytes{0};             //!< Bytes in m_txQueue not yet sent
    uint64_t m_inflightBytes{0};             //!< Bytes sent, not cumulatively acked
    uint32_t m_txNextSeq{0};                 //!< Sequence number of the next new datagram
    std::map<uint32_t, TxRecord> m_inflight; //!< Sent, not cumulatively acked
    std::set<uint32_t> m_unsacked;           //!< Keys of m_inflight not SACKed
    std::set<uint32_t> m_retxQueue;          //!< Awaiting retransmission, lowest first
    uint32_t m_sackHigh{0};                  //!< One past the highest SACKed datagram
    EventId m_sendEvent;                     //!< Pacing event
    Time m_nextSendTime;                     //!< Earliest time of the next datagram
    EventId m_rtoEvent;                      //!< Retransmission timer
    Time m_srtt;                             //!< Smoothed RTT
    Time m_rttvar;                           //!< RTT variation
    bool m_hasRttSample{false};              //!< srtt valid?
    uint32_t m_backoff{1};                   //!< RTO multiplier (consecutive timeouts)

    // Receive side.
    uint32_t m_rxNext{0};                     //!< Next in-order datagram expected
    std::map<uint32_t, Ptr<Packet>> m_rxHeld; //!< Out-of-order datagrams held
    std::map<uint32_t, uint32_t> m_rxRuns;    //!< Runs [start, end) of m_rxHeld
    uint64_t m_rxHeldBytes{0};                //!< Bytes in m_rxHeld
    uint32_t m_rxLatest{0};                   //!< Latest out-of-order datagram received
    std::deque<Ptr<Packet>> m_rxBuffer;       //!< In-order bytes awaiting Recv()
    uint64_t m_rxAvailable{0};                //!< Bytes in m_rxBuffer
    uint32_t m_unackedInOrder{0};             //!< In-order datagrams since the last ACK
    EventId m_ackEvent;                       //!< Delayed ACK

    // Counters.
    uint64_t m_retransmissions{0}; //!< DATA datagrams retransmitted
    uint64_t m_timeouts{0};        //!< Timer expiries
    uint64_t m_duplicates{0};      //!< Duplicate DATA datagrams received
    uint64_t m_rcvBufDrops{0};     //!< DATA datagrams dropped: RcvBufSize
    uint64_t m_malformed{0};       //!< Malformed datagrams dropped
    uint64_t m_bytesAcked{0};      //!< Stream bytes cumulatively acked
    uint64_t m_bytesReceived{0};   //!< Stream bytes delivered in order

    TracedCallback<Ptr<const Packet>, const KvDatagramHeader&> m_txTrace; //!< Tx
    TracedCallback<Ptr<const Packet>, const KvDatagramHeader&> m_rxTrace; //!< Rx
    TracedCallback<uint32_t> m_retransmitTrace;                           //!< Retransmit
};

} // namespace ns3

#endif /* KV_DATAGRAM_SOCKET_H */
