/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_BACKHAUL_TRANSPORT_H
#define EDGE_LLM_BACKHAUL_TRANSPORT_H

#include "edge-llm-bs-state.h"
#include "edge-llm-node.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The backhaul transport of one BS (EdgeLlmNode owns one): the sockets its KV
 *        connections and control channel run on, sized and checked from its attributes.
 *
 * Transport=Tcp: one TCP connection per direction of a BS pair (this BS opens the one it
 * sends on, accepts the one its peer opens), buffers and initial window sized from the
 * peer paths' bandwidth-delay product; Transport=Udp: one KvDatagramSocket stream per peer
 * over one UDP socket per local address, paced at the rate one flow gets alone.
 * ControlChannel=Separate adds a reliable KvDatagramSocket stream per peer for the
 * control messages. It also prices the protocol's own messages for the planner
 * (Signalling: ctHO's plan with packet-level costs).
 *
 * Its attributes (Transport, ControlChannel, BackhaulPort, ControlPort, BackhaulBuffer,
 * BackhaulSegmentSize) are set with EdgeLlmHelper::SetBackhaulTransportAttribute,
 * Config::SetDefault("ns3::EdgeLlmBackhaulTransport::...") or the path
 * ".../$ns3::EdgeLlmNode/BackhaulTransport/...". The peers stay the node's.
 */
class EdgeLlmBackhaulTransport : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Create the backhaul transport of \p node.
     * \param node the BS (owns this transport and outlives it)
     */
    EdgeLlmBackhaulTransport(EdgeLlmNode* node, EdgeLlmBsState* state);

    /// \return the Transport attribute
    EdgeLlmNode::Transport GetTransport() const;
    /// \return true with ControlChannel=Separate
    bool IsControlSeparate() const;
    /// \return the BackhaulSegmentSize attribute, bytes (0: link MTU - 52)
    uint32_t GetSegmentSizeAttribute() const;
    /// \return the send and receive buffer chosen at start (SizeBuffers), bytes
    uint32_t GetBufferInUse() const;

    /**
     * \brief This transport's attributes against each other, the node's UePort and its
     *        peer links: ports (not X2's 4444 or 2152; distinct where both are UDP),
     *        BackhaulSegmentSize per link MTU, BackhaulBuffer and the TCP segments in
     *        flight it implies.
     * \param uePort the node's UePort
     * \return empty, or the first error naming the attribute and its valid range
     */
    std::string CheckConfiguration(uint16_t uePort) const;

    /// Choose the buffer in use (BackhaulBuffer, or from the paths' bandwidth-delay
    /// product) and warn on stderr where it caps a link below its rate or TCP would hold
    /// over 1024 segments in flight.
    void SizeBuffers();
    /// Open the backhaul: the UDP streams or the TCP listener and one connection per peer
    /// (each peer's KvTransferConnection gets its socket), then the control channel.
    void Start();
    /// Close the listener, the peers' connections and the UDP sockets.
    void Stop();

    /**
     * \brief What the packet level adds to the plan toward \p peer (CtHoSignalling).
     * \param peer the target's peer entry
     * \param bitRate the KV flow's wire rate planned toward it (KvFlowBitRate), bit/s
     * \return request, token-id and close-message wire times with the transport's
     *         per-packet headers, the path delay, when the bytes already in the transport
     *         have left, the most a close can wait (send buffer plus one KV frame) and the
     *         close's margin (one full packet), all in s
     */
    CtHoSignalling Signalling(const EdgeLlmPeer& peer, double bitRate) const;

    /// Pace \p stream at \p bitRate (bit/s, > 0), rounded down to a whole bit/s.
    static void SetPacing(Ptr<KvDatagramSocket> stream, double bitRate);

  protected:
    void DoDispose() override;

  private:
    /// CheckConfiguration's part: the ports (\return "" or the first error)
    std::string CheckPorts(uint16_t uePort) const;
    /// CheckConfiguration's part: BackhaulSegmentSize per peer link (\return "" or the error)
    std::string CheckSegmentSize() const;
    /// CheckConfiguration's part: BackhaulBuffer, and TCP's segments in flight with an
    /// explicit BackhaulSegmentSize (\return "" or the first error)
    std::string CheckBuffers() const;
    /// \return a backhaul TCP socket with the buffers, segment size and initial window set
    Ptr<Socket> MakeBackhaulSocket() const;
    /// \return the backhaul TCP segment size: BackhaulSegmentSize, or link MTU - 52
    uint32_t BackhaulMss() const;
    /**
     * \brief Open one KvDatagramSocket stream per peer over UDP \p port (one UDP socket
     *        per local address, shared by the peers on it) and attach it to the peer's
     *        KV connection (\p control false) or to a new control connection (true).
     */
    void StartDatagramStreams(uint16_t port, bool control);
    /// A datagram on a UDP socket of StartDatagramStreams: to the stream of its sender.
    void HandleBackhaulDatagram(bool control, Ptr<Socket> socket);
    /// TCP listener: accept every connection.
    bool HandleAccept(Ptr<Socket> socket, const Address& from);
    /// TCP listener: hand a peer's connection to its KvTransferConnection.
    void HandleNewConnection(Ptr<Socket> socket, const Address& from);
    /// \return the buffer that lets one connection reach the peer link's rate, bytes
    uint64_t AutoBufferBytes(const EdgeLlmPeer& peer) const;
    /// \return BackhaulBuffer if set, else the largest AutoBufferBytes over the peers
    uint64_t BackhaulBufferBytes() const;
    /// Choose m_bufferInUse and warn where it caps a link below its rate.
    void SizeBackhaulBuffers();

    EdgeLlmNode* m_node; //!< The BS (owner)

    EdgeLlmBsState* m_bs; //!< What the BS's parts share (owned by the BS)
    EdgeLlmNode::Transport m_transport{EdgeLlmNode::TCP};              //!< Transport
    EdgeLlmNode::ControlChannel m_controlChannel{EdgeLlmNode::SHARED}; //!< ControlChannel
    uint16_t m_backhaulPort{EdgeLlmNode::DEFAULT_BACKHAUL_PORT};       //!< BackhaulPort
    uint16_t m_controlPort{EdgeLlmNode::DEFAULT_CONTROL_PORT};         //!< ControlPort
    uint32_t m_backhaulBuffer{0};          //!< BackhaulBuffer, bytes (0: automatic)
    uint32_t m_backhaulSegmentSize{0};     //!< BackhaulSegmentSize, bytes (0: link MTU - 52)
    uint32_t m_bufferInUse{0};             //!< The buffer chosen at start, bytes
    Ptr<Socket> m_listenSocket;            //!< TCP listener for the backhaul
    std::vector<Ptr<Socket>> m_udpSockets; //!< UDP transport: one per local address
};

} // namespace ns3

#endif /* EDGE_LLM_BACKHAUL_TRANSPORT_H */
