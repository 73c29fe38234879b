/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "kv-pre-transfer-store.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

namespace ns3
{

KvPreTransferStore::KvPreTransferStore(uint64_t capacityBytes)
    : m_capacity(capacityBytes)
{
    if (capacityBytes < 1)
    {
        throw std::invalid_argument("kvMemoryCapacity must be >= 1 byte, got 0");
    }
}

std::vector<uint64_t>
KvPreTransferStore::Reserve(uint64_t key, uint64_t bytes)
{
    if (m_room.count(key) != 0)
    {
        throw std::invalid_argument("pre-transfer " + std::to_string(key) +
                                    " already holds room in this KV memory");
    }
    if (bytes > m_capacity)
    {
        throw std::invalid_argument("a pre-transfer of " + std::to_string(bytes) +
                                    " bytes exceeds the KV memory capacity of " +
                                    std::to_string(m_capacity) + " bytes");
    }
    std::vector<uint64_t> evicted;
    while (m_capacity - m_reserved < bytes)
    {
        const uint64_t oldest = m_order.front();
        evicted.push_back(oldest);
        Release(oldest);
    }
    m_order.push_back(key);
    m_room[key] = bytes;
    m_reserved += bytes;
    return evicted;
}

std::vector<uint64_t>
KvPreTransferStore::Grow(uint64_t key, uint64_t bytes)
{
    auto it = m_room.find(key);
    if (it == m_room.end() || bytes < it->second || bytes > m_capacity)
    {
        throw std::invalid_argument(
            "Grow needs a held pre-transfer and a room between its own and the capacity");
    }
    std::vector<uint64_t> evicted;
    while (m_capacity - m_reserved < bytes - m_room.at(key))
    {
        const uint64_t oldest =
            m_order.front() == key ? *std::next(m_order.begin()) : m_order.front();
        evicted.push_back(oldest);
        Release(oldest);
    }
    m_reserved += bytes - m_room.at(key);
    m_room.at(key) = bytes;
    return evicted;
}

void
KvPreTransferStore::Shrink(uint64_t key, uint64_t bytes)
{
    auto it = m_room.find(key);
    if (it == m_room.end() || bytes > it->second)
    {
        throw std::invalid_argument("Shrink needs a held pre-transfer and a smaller room");
    }
    m_reserved -= it->second - bytes;
    it->second = bytes;
}

uint64_t
KvPreTransferStore::Release(uint64_t key)
{
    auto it = m_room.find(key);
    if (it == m_room.end())
    {
        throw std::invalid_argument("pre-transfer " + std::to_string(key) +
                                    " holds no room in this KV memory");
    }
    const uint64_t room = it->second;
    m_reserved -= room;
    m_room.erase(it);
    m_order.erase(std::find(m_order.begin(), m_order.end(), key));
    return room;
}

bool
KvPreTransferStore::Holds(uint64_t key) const
{
    return m_room.count(key) != 0;
}

uint64_t
KvPreTransferStore::GetReserved() const
{
    return m_reserved;
}

uint64_t
KvPreTransferStore::GetCapacity() const
{
    return m_capacity;
}

std::vector<uint64_t>
KvPreTransferStore::GetKeys() const
{
    return {m_order.begin(), m_order.end()};
}

} // namespace ns3
