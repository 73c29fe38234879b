/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef KV_PRE_TRANSFER_STORE_H
#define KV_PRE_TRANSFER_STORE_H

#include <cstdint>
#include <list>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief A target BS's bounded memory for KV caches sent ahead of a handover (proactive
 *        pre-transfer, beyond both papers; doc/edge-llm-design.rst, "Proactive KV pre-transfer").
 *
 * A pre-transfer reserves room for the whole prefix it will send when it starts (as a
 * KV block allocator admits a request), so the memory never overflows while bytes
 * arrive. A reservation that does not fit evicts the entries reserved longest ago, one
 * by one, until it fits; an entry never evicts itself. A source that stops early gives
 * back the room it will not fill (Shrink); the handover takes the entry (Release), or the
 * target drops it after its hold time (Release).
 *
 * Pure C++: no simulator state; sizes are (virtual) bytes; keys are the caller's
 * (a pre-transfer's identifier).
 */
class KvPreTransferStore
{
  public:
    /**
     * \param capacityBytes the memory for pre-sent KV caches, bytes, >= 1
     * \throws std::invalid_argument "kvMemoryCapacity must be >= 1 byte, got 0"
     */
    explicit KvPreTransferStore(uint64_t capacityBytes);

    /**
     * \brief Reserve room for a new entry, evicting the oldest entries until it fits.
     * \param key the entry (not held yet)
     * \param bytes the room, bytes, in [0, capacity]
     * \return the keys evicted, oldest first (their room is free again)
     * \throws std::invalid_argument for a key already held or bytes above the capacity
     */
    std::vector<uint64_t> Reserve(uint64_t key, uint64_t bytes);

    /**
     * \brief Enlarge an entry's room to \p bytes (its source follows the decoding),
     *        evicting the oldest other entries until it fits.
     * \param key a held entry
     * \param bytes the new room, bytes, in [its room, capacity]
     * \return the keys evicted, oldest first
     * \throws std::invalid_argument for a key not held, a smaller room or one above the
     *         capacity
     */
    std::vector<uint64_t> Grow(uint64_t key, uint64_t bytes);

    /**
     * \brief Reduce an entry's room to \p bytes (its source stopped early).
     * \param key a held entry
     * \param bytes the new room, bytes, <= the current one
     * \throws std::invalid_argument for a key not held or a larger room
     */
    void Shrink(uint64_t key, uint64_t bytes);

    /**
     * \brief Free an entry (used by its handover or dropped).
     * \param key a held entry
     * \return its room, bytes
     * \throws std::invalid_argument for a key not held
     */
    uint64_t Release(uint64_t key);

    /// \return whether \p key is held
    bool Holds(uint64_t key) const;
    /// \return the room reserved by every entry, bytes
    uint64_t GetReserved() const;
    /// \return the capacity, bytes
    uint64_t GetCapacity() const;
    /// \return the entries held, oldest first
    std::vector<uint64_t> GetKeys() const;

  private:
    uint64_t m_capacity;                 //!< Bytes
    uint64_t m_reserved{0};              //!< Sum of the entries' room, bytes
    std::list<uint64_t> m_order;         //!< Keys, oldest reservation first
    std::map<uint64_t, uint64_t> m_room; //!< Key -> room, bytes
};

} // namespace ns3

#endif /* KV_PRE_TRANSFER_STORE_H */
