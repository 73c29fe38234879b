/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef KV_TRANSFER_HEADER_H
#define KV_TRANSFER_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Framing of the X2/Xn-style KV-cache transfer protocol (doc/edge-llm-design.rst,
 *        "KV transfer protocol"). Every message on the backhaul byte stream is
 *
 *     KvFrameHeader (8 B) | message header (messageLength B) | payload (payloadLength B)
 *
 * The payload is virtual: its bytes are counted, never stored (a 2 GB cache is a
 * size). Fields are big-endian (network order).
 *
 * | field          | bytes | meaning                                          |
 * |----------------|-------|--------------------------------------------------|
 * | version        | 1     | protocol version, VERSION                        |
 * | type           | 1     | MessageType                                      |
 * | messageLength  | 2     | bytes of the message header that follows         |
 * | payloadLength  | 4     | virtual payload bytes after the message header   |
 */
class KvFrameHeader : public Header
{
  public:
    /// Protocol version carried by every frame.
    static constexpr uint8_t VERSION = 1;
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 8;

    /// Message types.
    enum MessageType : uint8_t
    {
        TRANSFER_REQUEST = 1,  //!< source -> target: a session moves (KvTransferRequestHeader)
        KV_SEGMENT = 2,        //!< source -> target: KV bytes (KvSegmentHeader)
        TRANSFER_COMPLETE = 3, //!< source -> target: all KV bytes sent (KvTransferCompleteHeader)
        BATCH_CLOSE = 4,     //!< source -> target: an open batch's final size (KvBatchCloseHeader)
        TRANSFER_CANCEL = 6, //!< target -> source: the UE came back (ping-pong); stop
                             //!< sending and serve from your own cache
                             //!< (KvTransferCompleteHeader, totalBytes received)
        TRANSFER_REDIRECT = 8, //!< target -> source: the UE moved on to a third BS before the
                               //!< restore; hand the session there instead (KvRedirectHeader)
        TRANSFER_STOP = 7,     //!< target -> source: the transfer timed out; the target
                               //!< re-prefills what is missing (KvTransferCompleteHeader,
                               //!< totalBytes received)
        TRANSFER_TRUNCATE = 5, //!< source -> target: the window closed; what was sent is all
                               //!< (KvTransferCompleteHeader; ImpactHO)
        TRANSFER_RESPONSE = 9, //!< target -> source: the answer to a TRANSFER_REQUEST
                               //!< (KvTransferResponseHeader)
        TRANSFER_STATUS = 10,  //!< target -> source: progress, or the session is restored
                               //!< and the source may release it (KvTransferStatusHeader)
        TRANSFER_REDIRECT_REFUSED = 11, //!< source -> target: no backhaul link to the
                                        //!< redirect's new target; the target keeps
                                        //!< restoring and relays (KvRedirectHeader)
        PLAN_REQUEST = 12, //!< source -> target: announced handovers to plan together with
                           //!< other sources' (target-coordinated ctHO; KvPlanRequestHeader)
        PLAN = 13,         //!< target -> source: the coordinated plan (KvPlanHeader)
        /// source -> target: a handover of the session to you is likely; totalBytes of its
        /// KV prefix follow as KV_SEGMENTs of session sessionId | PRE_TRANSFER_BIT
        /// (proactive pre-transfer; KvTransferCompleteHeader)
        PRE_TRANSFER_START = 14,
        /// source -> target: the UE hands over to you; the first totalBytes bytes sent ahead
        /// are its cache's prefix (whole tokens of them are used), or, sent as entries
        /// (PRE_TRANSFER_ENTRIES_BIT), the first totalBytes KV bytes of its importance
        /// order (all used; KvTransferCompleteHeader)
        PRE_TRANSFER_COMMIT = 15,
        /// source -> target: no handover to you; totalBytes were sent ahead: drop them after
        /// your hold time (KvTransferCompleteHeader)
        PRE_TRANSFER_END = 16,
        /// target -> source: the bytes sent ahead were evicted (memory full); stop sending
        /// them (KvTransferCompleteHeader, totalBytes received)
        PRE_TRANSFER_EVICTED = 17,
        /// target -> source: handover transfers into me from other sources cross a link of
        /// your path to me: send nothing ahead to me for totalBytes ns (sessionId 0; sent
        /// again every pacing interval while they run; KvTransferCompleteHeader)
        PRE_TRANSFER_PAUSE = 18,
        /// sender -> receiver: conversation sessionId's idle KV cache, totalBytes of it,
        /// follows as KV_SEGMENTs of session sessionId | IDLE_CACHE_BIT (moved at its UE's
        /// handover, or the answer to an IDLE_CACHE_FETCH; totalBytes 0: none held;
        /// KvTransferCompleteHeader)
        IDLE_CACHE = 19,
        /// next turn's BS -> the cell of the previous turn: send me conversation sessionId's
        /// idle cache (KvTransferCompleteHeader, totalBytes 0)
        IDLE_CACHE_FETCH = 20,
    };

    /// Set in the session id of a pre-transfer's KV_SEGMENTs (a session id is below 2^62:
    /// EdgeLlmSessionId)
    static constexpr uint64_t PRE_TRANSFER_BIT = uint64_t{1} << 63;
    /// Set, with PRE_TRANSFER_BIT, in the session id of a pre-transfer's KV_SEGMENTs that
    /// carry importance-ordered entries, each with its 3-byte coordinate (a
    /// PreTransferScheduler with a slot policy inside); the receiver counts their KV bytes
    static constexpr uint64_t PRE_TRANSFER_ENTRIES_BIT = uint64_t{1} << 62;
    /// Both pre-transfer bits: a segment's session id without them is the session's
    static constexpr uint64_t PRE_TRANSFER_FLAGS = PRE_TRANSFER_BIT | PRE_TRANSFER_ENTRIES_BIT;
    /// Set, without PRE_TRANSFER_BIT, in the session id of an idle conversation cache's
    /// KV_SEGMENTs (IDLE_CACHE): the rest is the conversation
    static constexpr uint64_t IDLE_CACHE_BIT = uint64_t{1} << 62;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Read 8 bytes; never reads past them. Check IsValid() afterwards.
     * \param start where to read
     * \return 8, or 0 if fewer than 8 bytes were given (then IsValid() is false)
     */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    /// \return true if 8 bytes were read, the version is VERSION, the type is known and
    ///         the lengths fit it
    bool IsValid() const;

    uint8_t version{VERSION};  //!< Protocol version
    uint8_t type{0};           //!< MessageType
    uint16_t messageLength{0}; //!< Message header bytes that follow
    uint32_t payloadLength{0}; //!< Virtual payload bytes after the message header
};

/**
 * \ingroup edge-llm
 * \brief TRANSFER_REQUEST: the source tells the target a session hands over, how the
 *        target rebuilds it (ctHO: n_pf tokens by batch prefill, n_tx by KV transfer),
 *        and where to resume streaming. Payload: the n_pf forwarded token ids, 4 B each.
 *
 * Fields, in order (bytes): sessionId (8), ueAddress (4, IPv4), uePort (2),
 * sourceCellId (2), handoverTimeNs (8, signed), contextTokens (4), prefillLength (4,
 * the batch's L), prefillTokens (4), transferTokens (4), batchId (4), batchSize (2),
 * bytesPerToken (4), tokensGenerated (4), maxNewTokens (4), flags (2), kvDeadlineNs (8,
 * signed): 68 bytes. Flag
 * bit 0: the KV cache comes as importance-ordered entries, each with a 3-byte
 * coordinate, and may be truncated (ImpactHO). Flag bit 1: the n_tx tokens' KV cache
 * comes layer-major (all tokens of layer 0, then layer 1, ...), so the target can use
 * each layer as it completes (EdgeLlmSourceRole::LayerwiseStreaming); without it, token-major.
 * Flag bit 2: the batch is the target's coordinated one (KvPlanHeader). Flag bit 3: the
 * session is a turn of a conversation with turns after it (the target keeps its cache when
 * it ends): conversation (8) follows, 76 bytes (CONVERSATION_SIZE).
 */
class KvTransferRequestHeader : public Header
{
  public:
    /// Serialized size in bytes (without MORE_TURNS).
    static constexpr uint32_t SIZE = 68;
    /// Serialized size in bytes with MORE_TURNS.
    static constexpr uint32_t CONVERSATION_SIZE = 76;
    /// Bytes of one forwarded token id; the request's payload carries n_pf of them
    static constexpr uint32_t TOKEN_ID_BYTES = 4;
    /// flags bit: importance-ordered entries with coordinates (ImpactHO)
    static constexpr uint16_t IMPORTANCE_ORDERED = 1;
    /// flags bit: the KV bytes come layer-major (layer-wise streaming)
    static constexpr uint16_t LAYER_MAJOR = 2;
    /// flags bit: batchId and batchSize are the target's coordinated GPU batch (a PLAN's
    /// groupId and groupSize), not the source's own batch
    static constexpr uint16_t COORDINATED = 4;
    /// flags bit: a conversation's turn with turns after it; conversation follows
    static constexpr uint16_t MORE_TURNS = 8;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes, or fewer than
    ///         CONVERSATION_SIZE with MORE_TURNS (it read none: it returned 0)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};       //!< Session (UE) identifier, the UE's IMSI in LTE scenarios
    uint32_t ueAddress{0};       //!< UE IPv4 address (host order value)
    uint16_t uePort{0};          //!< UE UDP port for the token stream
    uint16_t sourceCellId{0};    //!< Source BS cell id
    int64_t handoverTimeNs{0};   //!< tau_i, simulation time in ns
    uint32_t contextTokens{0};   //!< C_i, tokens
    uint32_t prefillLength{0};   //!< L of the batch, tokens
    uint32_t prefillTokens{0};   //!< n_pf_i = min(C_i, L)
    uint32_t transferTokens{0};  //!< n_tx_i = C_i - n_pf_i
    uint32_t batchId{0};         //!< Batch identifier, unique per source BS
    uint16_t batchSize{0};       //!< Sessions in the batch (the target waits for all); 0: an
                                 //!< online batch whose size a BATCH_CLOSE gives later
    uint32_t bytesPerToken{0};   //!< s_KV / 8 of the source's model
    uint32_t tokensGenerated{0}; //!< Tokens decoded so far (the stream resumes after them)
    uint32_t maxNewTokens{0};    //!< Tokens the session decodes in total
    uint16_t flags{0};           //!< IMPORTANCE_ORDERED, LAYER_MAJOR, COORDINATED, MORE_TURNS
    /// The plan has every KV byte of the session at the target by then: the batch's EDF
    /// deadline tau + g(L), simulation time in ns (ctHO, tHO, cHO); 0: no such plan
    /// (ImpactHO's window decides). The target's loss-aware replanning starts from it.
    int64_t kvDeadlineNs{0};
    /// With MORE_TURNS: the conversation (its turn 0's session id, EdgeLlmPromptHeader)
    uint64_t conversation{0};
};

/**
 * \ingroup edge-llm
 * \brief KV_SEGMENT: a run of KV-cache bytes of one session. Payload: the bytes.
 *
 * Fields (bytes): sessionId (8), byteOffset (8, offset of the first payload byte in
 * the session's transfer order): 16 bytes.
 */
class KvSegmentHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 16;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};  //!< Session identifier
    uint64_t byteOffset{0}; //!< Offset of the first payload byte
};

/**
 * \ingroup edge-llm
 * \brief TRANSFER_COMPLETE: every KV byte of a session has been sent. No payload.
 *
 * Fields (bytes): sessionId (8), totalBytes (8): 16 bytes.
 */
class KvTransferCompleteHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 16;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};  //!< Session identifier
    uint64_t totalBytes{0}; //!< KV bytes the source sent for the session
};

/**
 * \ingroup edge-llm
 * \brief BATCH_CLOSE: an online batch (announced with batchSize 0 in its requests) is
 *        closed; the target starts its prefill once batchSize members have joined.
 *        No payload.
 *
 * Fields (bytes): batchId (4), batchSize (2), reserved (2): 8 bytes.
 */
class KvBatchCloseHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 8;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint32_t batchId{0};   //!< Batch identifier, as in its TRANSFER_REQUESTs
    uint16_t batchSize{0}; //!< Members that joined it, >= 1 (batchId with
                           //!< KvPlanHeader::GROUP_BIT: a PLAN_REQUEST's id; its members
                           //!< that joined the coordinated batch or will, >= 0)
};

/**
 * \ingroup edge-llm
 * \brief TRANSFER_REDIRECT: the UE handed over again, to a third BS, before the target
 *        rebuilt its state; the source (which still holds the cache) hands the session
 *        over to that BS instead. No payload. The same header is the body of
 *        TRANSFER_REDIRECT_REFUSED, the source's answer when it has no backhaul link to
 *        newTargetCellId: the target then finishes the restore and relays the session.
 *
 * Fields (bytes): sessionId (8), newTargetCellId (2), reserved (2): 12 bytes.
 */
class KvRedirectHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 12;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};       //!< Session
    uint16_t newTargetCellId{0}; //!< The BS the UE is now served by
};

/**
 * \ingroup edge-llm
 * \brief TRANSFER_RESPONSE: the target's answer to every TRANSFER_REQUEST. ACCEPTED: the
 *        target restores the session as requested. REFUSED_KV_FORMAT: the target's model
 *        stores a different number of KV bytes per token (another model or precision q),
 *        so the cache cannot be used there; the source stops sending it and the session
 *        ends, refused, at both BSs. No payload.
 *
 * Fields (bytes): sessionId (8), bytesPerToken (4, the target's s_KV / 8), result (1),
 * reserved (3): 16 bytes. A result other than ACCEPTED or REFUSED_KV_FORMAT is read as
 * a refusal.
 */
class KvTransferResponseHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 16;

    /// The target's answer.
    enum Result : uint8_t
    {
        ACCEPTED = 0,          //!< The target restores the session
        REFUSED_KV_FORMAT = 1, //!< The target's KV bytes per token differ from the source's
    };

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};     //!< Session
    uint32_t bytesPerToken{0}; //!< The target's s_KV / 8
    uint8_t result{ACCEPTED};  //!< Result
};

/**
 * \ingroup edge-llm
 * \brief TRANSFER_STATUS: the target reports a session's restore. PROGRESS, every
 *        EdgeLlmTargetRole::StatusInterval while it restores: the KV bytes received so far.
 *        RESTORED, once, when it resumes decoding there: the source releases its copy of
 *        the session (as X2's UE CONTEXT RELEASE lets the source free its resources).
 *        LOST, once, when the target gave the session up (SessionLost: no backhaul path
 *        to the UE's new cell): the source stops sending and forgets it. No payload.
 *
 * Fields (bytes): sessionId (8), receivedBytes (8, KV bytes received so far), state (1),
 * reserved (3): 20 bytes. Other states are ignored by the source.
 */
class KvTransferStatusHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 20;

    /// What the report says.
    enum State : uint8_t
    {
        PROGRESS = 1, //!< Still restoring; receivedBytes so far
        RESTORED = 2, //!< Decoding here; the source may release the session
        LOST = 3,     //!< No BS can serve the session (no backhaul path to the UE's
                      //!< cell); the source forgets it, the target traced the loss
    };

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint64_t sessionId{0};     //!< Session
    uint64_t receivedBytes{0}; //!< KV bytes received so far
    uint8_t state{PROGRESS};   //!< State
};

/**
 * \ingroup edge-llm
 * \brief PLAN_REQUEST (target-coordinated ctHO; doc/edge-llm-design.rst, "Target-coordinated
 *        planning"): a source announces to the target the handovers it expects there, so
 *        that the target plans them together with other sources' in one GPU batch. No
 *        payload.
 *
 * Fields (bytes): requestId (4), memberCount (2), reserved (2), replyByNs (8, signed: the
 * plan must leave the target by then), planningBitRate (8, bit/s of KV payload the source
 * plans with on its path to the target), backhaulFreeAtNs (8, signed: when that path is
 * free of earlier transfers), bytesPerToken (4, s_KV / 8), reserved (4), then the path's
 * signalling as the source plans it (CtHoSignalling, IEEE 754 doubles in s, 8 each):
 * pathDelay, requestTime, idTimePerToken, closeAhead: FIXED_SIZE = 72 bytes; then
 * memberCount members of MEMBER_SIZE = 20 bytes: sessionId (8), handoverTimeNs (8,
 * signed), contextTokens (4, predicted at the handover).
 */
class KvPlanRequestHeader : public Header
{
  public:
    /// Bytes before the members.
    static constexpr uint32_t FIXED_SIZE = 72;
    /// Bytes per member.
    static constexpr uint32_t MEMBER_SIZE = 20;
    /// Most members one request carries (its message length is a 16-bit field).
    static constexpr uint32_t MAX_MEMBERS = (0xFFFF - FIXED_SIZE) / MEMBER_SIZE;

    /// One announced handover.
    struct Member
    {
        uint64_t sessionId{0};     //!< Session
        int64_t handoverTimeNs{0}; //!< tau_i, ns
        uint32_t contextTokens{0}; //!< C_i predicted at tau_i, tokens
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /// \return FIXED_SIZE + MEMBER_SIZE x members
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Read the fixed part, then memberCount members; never reads past the bytes
     *        given (fewer than it needs: none read, IsValid() false).
     * \param start where to read
     * \return the bytes read
     */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
    /// \return false if Deserialize() was given fewer bytes than the header says
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given too few bytes and read none

    uint32_t requestId{0};       //!< Echoed in the PLAN
    int64_t replyByNs{0};        //!< The plan must leave the target by then, ns
    uint64_t planningBitRate{0}; //!< The source's KV payload rate to the target, bit/s
    int64_t backhaulFreeAtNs{0}; //!< When the source's path is free, ns
    uint32_t bytesPerToken{0};   //!< s_KV / 8
    double pathDelay{0};         //!< One-way delay of the path, s (CtHoSignalling)
    double requestTime{0};       //!< A request's wire time, s (CtHoSignalling)
    double idTimePerToken{0};    //!< A forwarded token id's wire time, s (CtHoSignalling)
    double closeAhead{0};        //!< Most a request waits behind queued bytes, s
    std::vector<Member> members; //!< At most MAX_MEMBERS
};

/**
 * \ingroup edge-llm
 * \brief PLAN (target-coordinated ctHO): the target's answer to a PLAN_REQUEST. Every
 *        member of the request joins the target's GPU batch groupId of groupSize members
 *        over every source and prefills min(C_i, prefillLength) tokens; the batch starts
 *        no earlier than batchStartNs; the target planned this source's transfers at
 *        planningBitRate (the request's, or less where the sources' paths share a link
 *        into the target). No payload.
 *
 * Fields (bytes): requestId (4), groupId (4), groupSize (2), sources (2), prefillLength
 * (4, L), reserved (4), batchStartNs (8, signed), planningBitRate (8): 36 bytes.
 */
class KvPlanHeader : public Header
{
  public:
    /// Serialized size in bytes.
    static constexpr uint32_t SIZE = 36;
    /// Set in every groupId (a source's own batch ids are below it); a BATCH_CLOSE with it
    /// set names a PLAN_REQUEST (its requestId), not a batch
    static constexpr uint32_t GROUP_BIT = 0x80000000U;

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
    /// \return false if Deserialize() was given fewer than SIZE bytes (it read none)
    bool IsValid() const;

    bool truncated{false}; //!< Deserialize() was given fewer than SIZE bytes and read none

    uint32_t requestId{0};     //!< The PLAN_REQUEST's
    uint32_t groupId{0};       //!< The target's GPU batch (its TRANSFER_REQUESTs' batchId)
    uint16_t groupSize{0};     //!< Members of that batch over every source
    uint16_t sources{0};       //!< Sources planned together
    uint32_t prefillLength{0}; //!< L, tokens
    int64_t batchStartNs{0};   //!< The batch's planned start t_s, ns
    /// The rate the target planned this source's transfers with, bit/s of KV payload
    uint64_t planningBitRate{0};
};

} // namespace ns3

#endif /* KV_TRANSFER_HEADER_H */
