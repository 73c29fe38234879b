/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TOKEN_STREAM_HEADER_H
#define TOKEN_STREAM_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <ostream>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief How a session id names its UE: a UE's single session (the papers' one prompt) has
 *        the UE's IMSI as its id; request k >= 1 of a UE that sends several
 *        (EdgeLlmHelper::InstallUeRequests) has (k << 32) | IMSI. Bits 62 and 63 stay free
 *        for the KV protocol's flags (KvFrameHeader), so k is at most MAX_REQUEST.
 */
struct EdgeLlmSessionId
{
    static constexpr uint64_t MAX_IMSI = 0xFFFFFFFFu;       //!< Largest IMSI, 2^32 - 1
    static constexpr uint32_t MAX_REQUEST = (1u << 30) - 1; //!< Largest request number

    /**
     * \brief The session id of a UE's request.
     * \param imsi the UE's IMSI, [1, MAX_IMSI]
     * \param request 0 (its single session: the id is the IMSI) or its request number,
     *        [1, MAX_REQUEST]
     * \return (request << 32) | imsi
     * \throws std::invalid_argument "imsi must be in [1, 4294967295], got ..." or
     *         "request must be in [0, 1073741823], got ..."
     */
    static uint64_t Make(uint64_t imsi, uint32_t request);
    /**
     * \param sessionId a session id made by Make
     * \return its UE's IMSI (the low 32 bits)
     */
    static uint64_t UeOf(uint64_t sessionId);
    /**
     * \param sessionId a session id made by Make
     * \return its request number (0: the UE's single session)
     */
    static uint32_t RequestOf(uint64_t sessionId);
};

/**
 * \ingroup edge-llm
 * \brief UE -> BS over the radio bearer (UDP): open an LLM session.
 *
 * Fields (bytes): sessionId (8, EdgeLlmSessionId: the UE's IMSI for its single session),
 * promptTokens (4), maxNewTokens (4), replyPort (2): 18 bytes. A turn of a multi-turn
 * conversation (conversation != 0) sets bit 63 of the session id field on the wire and adds
 * conversation (8), earlierTokens (4), moreTurns (1) and previousCell (2): 33 bytes
 * (TURN_SIZE). The prompt's
 * token ids follow as a virtual payload of 4 bytes per token, capped at one datagram (the
 * prompt length, not its content, drives the model).
 */
class EdgeLlmPromptHeader : public Header
{
  public:
    /// Serialized size in bytes of a prompt outside a conversation.
    static constexpr uint32_t SIZE = 18;
    /// Serialized size in bytes of a conversation's turn.
    static constexpr uint32_t TURN_SIZE = 33;
    /// Bit of the session id field that marks a conversation's turn on the wire.
    static constexpr uint64_t TURN_BIT = uint64_t{1} << 63;

    /**
     * \brief The size of the prompt header a packet starts with, from its first byte.
     * \param firstByte the packet's first byte
     * \return SIZE or TURN_SIZE
     */
    static uint32_t SizeFromFirstByte(uint8_t firstByte);

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint64_t sessionId{0};    //!< Session (UE) identifier, bit 63 clear
    uint32_t promptTokens{0}; //!< New prompt length, tokens, >= 1
    uint32_t maxNewTokens{0}; //!< Tokens to decode, >= 1
    uint16_t replyPort{0};    //!< UE UDP port the token stream goes to
    /// The conversation this turn belongs to (the session id of its turn 0; 0: none, the
    /// 18-byte form)
    uint64_t conversation{0};
    /// Tokens of the conversation's earlier turns (their prompts and outputs): this turn's
    /// context is earlierTokens + promptTokens
    uint32_t earlierTokens{0};
    bool moreTurns{false}; //!< The conversation has turns after this one
    /// The cell that decoded the previous turn's final token, where its cache was parked
    /// (0: turn 0)
    uint16_t previousCell{0};
};

/**
 * \ingroup edge-llm
 * \brief BS -> UE over the radio bearer (UDP): one decoded token.
 *
 * Fields (bytes): sessionId (8), tokenIndex (4, 1-based among the decoded tokens),
 * cellId (2, the BS that decoded it): 14 bytes; the token text follows as a virtual
 * payload (EdgeLlmNode::TokenBytes).
 */
class EdgeLlmTokenHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 14;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint64_t sessionId{0};  //!< Session identifier
    uint32_t tokenIndex{0}; //!< 1-based index of the decoded token
    uint16_t cellId{0};     //!< Cell of the BS that decoded it
};

} // namespace ns3

#endif /* TOKEN_STREAM_HEADER_H */
