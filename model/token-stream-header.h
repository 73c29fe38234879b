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
 * \brief UE -> BS over the radio bearer (UDP): open an LLM session.
 *
 * Fields (bytes): sessionId (8, the UE's IMSI in LTE scenarios), promptTokens (4),
 * maxNewTokens (4), replyPort (2): 18 bytes. The prompt's token ids follow as a
 * virtual payload of 4 bytes per token, capped at one datagram (the prompt length,
 * not its content, drives the model).
 */
class EdgeLlmPromptHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 18;

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

    uint64_t sessionId{0};    //!< Session (UE) identifier
    uint32_t promptTokens{0}; //!< Prompt length, tokens, >= 1
    uint32_t maxNewTokens{0}; //!< Tokens to decode, >= 1
    uint16_t replyPort{0};    //!< UE UDP port the token stream goes to
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
