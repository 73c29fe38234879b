/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef KV_DATAGRAM_HEADER_H
#define KV_DATAGRAM_HEADER_H

#include "ns3/header.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Header of every UDP datagram of the paced KV transport (KvDatagramSocket):
 *        a DATA datagram carries a run of the byte stream, an ACK the receiver's state.
 *
 * DATA (6 bytes, the stream bytes follow as the payload, virtual):
 *
 * | bytes | field    | meaning                                                  |
 * |-------|----------|----------------------------------------------------------|
 * | 1     | version  | VERSION (1)                                              |
 * | 1     | type     | DATA (1)                                                 |
 * | 4     | sequence | datagram index in the stream, from 0                     |
 *
 * ACK (7 + 8 n bytes, no payload):
 *
 * | bytes | field        | meaning                                              |
 * |-------|--------------|------------------------------------------------------|
 * | 1     | version      | VERSION (1)                                          |
 * | 1     | type         | ACK (2)                                              |
 * | 4     | nextExpected | cumulative ack: every datagram below it has arrived  |
 * | 1     | count        | n, SACK blocks that follow, 0 .. MAX_SACK_BLOCKS (4) |
 * | 4     | start (x n)  | first datagram of a run held out of order            |
 * | 4     | end (x n)    | one past the run's last datagram (exclusive)         |
 *
 * Fields are big-endian (network order). Deserialize() accepts any byte string: it
 * never reads past the bytes it is given and stops at the first bad field (unknown
 * version or type, count > 4, too few bytes); IsValid() then returns false. A valid
 * ACK also has start < end and nextExpected < start for every block.
 */
class KvDatagramHeader : public Header
{
  public:
    /// Protocol version carried by every datagram.
    static constexpr uint8_t VERSION = 1;
    /// Serialized size of a DATA header, bytes.
    static constexpr uint32_t DATA_SIZE = 6;
    /// Serialized size of an ACK header without SACK blocks, bytes.
    static constexpr uint32_t ACK_BASE_SIZE = 7;
    /// Serialized size of one SACK block, bytes.
    static constexpr uint32_t SACK_BLOCK_SIZE = 8;
    /// Largest number of SACK blocks an ACK carries.
    static constexpr uint8_t MAX_SACK_BLOCKS = 4;

    /// Datagram types.
    enum DatagramType : uint8_t
    {
        DATA = 1, //!< Sender -> receiver: stream bytes of datagram `sequence`
        ACK = 2,  //!< Receiver -> sender: cumulative ack and SACK blocks
    };

    /// A run [start, end) of datagrams the receiver holds beyond nextExpected.
    struct SackBlock
    {
        uint32_t start{0}; //!< First datagram of the run
        uint32_t end{0};   //!< One past the last datagram of the run
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    /// \return DATA_SIZE, ACK_BASE_SIZE + 8 x blocks, or 2 for an unknown type (bytes)
    uint32_t GetSerializedSize() const override;
    /**
     * \brief Write the header; an ACK must hold at most MAX_SACK_BLOCKS blocks
     *        (asserted).
     * \param start where to write
     */
    void Serialize(Buffer::Iterator start) const override;
    /**
     * \brief Read the header from any byte string, never past its end. Check IsValid()
     *        afterwards.
     * \param start where to read; start.GetRemainingSize() bytes are available
     * \return the header's size if it is valid, 0 if it is not (all or nothing)
     */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /**
     * \return true if the last Deserialize() read a whole header and the fields are
     *         consistent: version VERSION, a known type, at most MAX_SACK_BLOCKS
     *         blocks, each with nextExpected < start < end
     */
    bool IsValid() const;

    uint8_t version{VERSION};          //!< Protocol version
    uint8_t type{DATA};                //!< DatagramType
    uint32_t sequence{0};              //!< DATA: datagram index
    uint32_t nextExpected{0};          //!< ACK: lowest datagram not yet received
    std::vector<SackBlock> sackBlocks; //!< ACK: runs held out of order, most recent first

  private:
    bool m_truncated{false}; //!< The last Deserialize() stopped early
};

} // namespace ns3

#endif /* KV_DATAGRAM_HEADER_H */
