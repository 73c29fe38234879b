/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-idle-cache-role.h"

#include "edge-llm-compat.h"
#include "edge-llm-serving-gpu.h"
#include "token-stream-header.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmIdleCacheRole");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmIdleCacheRole);

TypeId
EdgeLlmIdleCacheRole::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmIdleCacheRole")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("Policy",
                          "What this BS does with an idle conversation cache it holds when its "
                          "UE hands over: move-now (send it to the target at once), "
                          "move-on-next-turn (keep it; the next turn's BS fetches it), drop "
                          "(free it; the next turn re-prefills its whole context).",
                          StringValue(IdleCachePolicyNames().at(
                              static_cast<std::size_t>(IdleCachePolicy::MOVE_ON_NEXT_TURN))),
                          MakeStringAccessor(&EdgeLlmIdleCacheRole::SetPolicyName,
                                             &EdgeLlmIdleCacheRole::GetPolicyName),
                          MakeStringChecker())
            .AddAttribute("FetchTimeout",
                          "The longest a turn waits for its conversation's cache on its way "
                          "here (moved, or fetched from the cell of its previous turn); then "
                          "it re-prefills its whole context. > 0.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&EdgeLlmIdleCacheRole::m_fetchTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("IdleCacheDropped",
                            "The UE of an idle cache held here handed over and Policy is drop "
                            "(or its target is no backhaul peer): the cache is freed "
                            "(conversation, cellId of this BS, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmIdleCacheRole::m_droppedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("IdleCacheMoved",
                            "Move-now: an idle cache held here is sent to its UE's handover "
                            "target (conversation, target cell, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmIdleCacheRole::m_movedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("IdleCacheFetched",
                            "A next turn's BS asked for an idle cache held here, and it is sent "
                            "(conversation, requesting cell, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmIdleCacheRole::m_fetchedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("IdleCacheLanded",
                            "A conversation's cache sent here is all in, or its sender held "
                            "none (conversation, sending cell, tokens: 0 for none).",
                            MakeTraceSourceAccessor(&EdgeLlmIdleCacheRole::m_landedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback");
    return tid;
}

EdgeLlmIdleCacheRole::EdgeLlmIdleCacheRole(EdgeLlmNode* node, EdgeLlmBsState* state)
    : m_node(node),
      m_bs(state),
      m_policy(IdleCachePolicy::MOVE_ON_NEXT_TURN),
      m_fetchTimeout(Seconds(1))
{
}

void
EdgeLlmIdleCacheRole::DoDispose()
{
    Stop();
    m_incoming.clear();
    Object::DoDispose();
}

void
EdgeLlmIdleCacheRole::Stop()
{
    for (auto& [id, w] : m_waiters)
    {
        w.timeout.Cancel();
    }
    m_waiters.clear();
}

bool
EdgeLlmIdleCacheRole::IsWaiting(uint64_t sessionId) const
{
    return m_waiters.count(sessionId) > 0;
}

void
EdgeLlmIdleCacheRole::SetPolicyName(std::string name)
{
    try
    {
        m_policy = IdleCachePolicyFromName(name, "ns3::EdgeLlmIdleCacheRole::Policy");
    }
    catch (const std::invalid_argument& e)
    {
        NS_FATAL_ERROR(e.what());
    }
}

std::string
EdgeLlmIdleCacheRole::GetPolicyName() const
{
    return IdleCachePolicyNames().at(static_cast<std::size_t>(m_policy));
}

void
EdgeLlmIdleCacheRole::StartTurn(EdgeLlmSession& s,
                                uint32_t earlierTokens,
                                uint16_t previousCell,
                                Ready ready)
{
    const uint64_t c = s.conversation;
    if (!m_node->GetServingGpu() || c == 0)
    {
        ready(); // no KV memory: the whole context prefills
        return;
    }
    if (m_held.count(c) > 0)
    {
        TakeHeld(s, c, earlierTokens);
        ready();
        return;
    }
    bool wait = m_incoming.count(c) > 0; // moving here
    if (!wait && m_policy != IdleCachePolicy::DROP && previousCell != 0 &&
        previousCell != m_node->GetCellId() && m_bs->HasPeer(previousCell))
    {
        // Held where the previous turn ended (move-on-next-turn), or moving here with its
        // IDLE_CACHE not in yet (move-now: that cell's move answers): ask that cell.
        KvTransferCompleteHeader fetch;
        fetch.sessionId = c;
        m_bs->GetPeer(previousCell)
            .Control()
            ->SendMessage(KvFrameHeader::IDLE_CACHE_FETCH, fetch, 0);
        Incoming& in = m_incoming[c];
        in.fromCell = previousCell;
        in.fetched = true;
        wait = true;
    }
    if (!wait)
    {
        ready(); // none held anywhere this BS can ask
        return;
    }
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": turn " << s.id << " waits for conversation "
                        << c << "'s cache");
    m_incoming[c].waiting.push_back(s.id);
    Waiter& w = m_waiters[s.id];
    w.conversation = c;
    w.earlierTokens = earlierTokens;
    w.ready = std::move(ready);
    w.timeout = Simulator::Schedule(m_fetchTimeout, &EdgeLlmIdleCacheRole::Release, this, s.id);
}

void
EdgeLlmIdleCacheRole::TakeHeld(EdgeLlmSession& s, uint64_t c, uint32_t earlier)
{
    m_held.erase(c);
    const uint64_t tokens = m_node->GetServingGpu()->Unpark(c); // 0: evicted since
    s.cachedTokens = static_cast<uint32_t>(std::min<uint64_t>(tokens, earlier));
}

void
EdgeLlmIdleCacheRole::OnTurnEnded(const EdgeLlmSession& s)
{
    Ptr<EdgeLlmServingGpu> gpu = m_node->GetServingGpu();
    if (gpu && s.moreTurns && s.conversation != 0 && s.generated >= s.maxNewTokens &&
        gpu->Park(s.conversation, uint64_t{s.promptTokens} + s.generated))
    {
        m_held.insert(s.conversation);
        m_movedTo.erase(s.conversation); // held here again: a fetch gets it
    }
}

void
EdgeLlmIdleCacheRole::OnUeHandover(uint64_t imsi, uint16_t targetCellId)
{
    Ptr<EdgeLlmServingGpu> gpu = m_node->GetServingGpu();
    if (!gpu || m_policy == IdleCachePolicy::MOVE_ON_NEXT_TURN)
    {
        return; // kept here for the next turn's fetch
    }
    for (auto c = m_held.begin(); c != m_held.end();)
    {
        if (EdgeLlmSessionId::UeOf(*c) != imsi)
        {
            ++c;
            continue;
        }
        const uint64_t conversation = *c;
        c = m_held.erase(c);
        const uint64_t tokens = gpu->Unpark(conversation); // 0: evicted already
        if (tokens == 0)
        {
            continue;
        }
        if (m_policy == IdleCachePolicy::MOVE_NOW && m_bs->HasPeer(targetCellId))
        {
            m_movedTrace(conversation, targetCellId, tokens);
            SendCache(conversation, tokens, targetCellId);
            m_movedTo[conversation] = targetCellId; // a fetch from there: this move answers
            continue;
        }
        m_droppedTrace(conversation, m_node->GetCellId(), tokens);
    }
}

void
EdgeLlmIdleCacheRole::SendCache(uint64_t c, uint64_t tokens, uint16_t cell)
{
    EdgeLlmPeer& peer = m_bs->GetPeer(cell);
    KvTransferCompleteHeader m;
    m.sessionId = c;
    m.totalBytes = tokens * m_bs->GetProfile().BytesPerToken();
    peer.Control()->SendMessage(KvFrameHeader::IDLE_CACHE, m, 0);
    if (m.totalBytes == 0)
    {
        return;
    }
    KvTransferJob job;
    job.sessionId = c | KvFrameHeader::IDLE_CACHE_BIT;
    job.handoverTime = Simulator::Now();
    job.deadline = Simulator::Now();
    job.remainingBytes = m.totalBytes;
    peer.connection->AddTransfer(job);
}

void
EdgeLlmIdleCacheRole::OnFetch(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    const uint64_t c = m.sessionId;
    const auto moved = m_movedTo.find(c);
    if (moved != m_movedTo.end() && moved->second == peerCellId)
    {
        m_movedTo.erase(moved);
        return; // sent there at its UE's handover (move-now): that is the answer
    }
    if (!m_bs->HasPeer(peerCellId))
    {
        return; // nowhere to send it: kept
    }
    uint64_t tokens = 0;
    Ptr<EdgeLlmServingGpu> gpu = m_node->GetServingGpu();
    if (gpu && m_held.erase(c) > 0)
    {
        tokens = gpu->Unpark(c);
    }
    if (tokens > 0)
    {
        m_fetchedTrace(c, peerCellId, tokens);
    }
    SendCache(c, tokens, peerCellId); // 0 bytes: none held here
}

void
EdgeLlmIdleCacheRole::OnIdleCache(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    Incoming& in = m_incoming[m.sessionId];
    in.announced = true;
    in.fromCell = peerCellId;
    in.bytes = m.totalBytes;
    if (in.received >= in.bytes)
    {
        Land(m.sessionId);
    }
}

void
EdgeLlmIdleCacheRole::OnKvBytes(uint64_t conversation, uint64_t bytes)
{
    Incoming& in = m_incoming[conversation]; // its bytes may overtake its IDLE_CACHE
    in.received += bytes;
    if (in.announced && in.received >= in.bytes)
    {
        Land(conversation);
    }
}

void
EdgeLlmIdleCacheRole::Land(uint64_t c)
{
    const auto found = m_incoming.find(c);
    const Incoming in = std::move(found->second);
    m_incoming.erase(found);
    const uint64_t tokens = in.bytes / m_bs->GetProfile().BytesPerToken();
    Ptr<EdgeLlmServingGpu> gpu = m_node->GetServingGpu();
    // Parked here on arrival, if the memory allows; not when it is stale: a newer cache of
    // the conversation is held here, or it was fetched for a turn that stopped waiting (and
    // re-prefilled: its own cache follows when it ends).
    const bool stale = m_held.count(c) > 0 || (in.fetched && in.waiting.empty());
    if (gpu && tokens > 0 && !stale && gpu->Park(c, tokens))
    {
        m_held.insert(c);
        m_movedTo.erase(c);
    }
    m_landedTrace(c, in.fromCell, tokens);
    for (const uint64_t id : in.waiting)
    {
        Release(id);
    }
}

void
EdgeLlmIdleCacheRole::Release(uint64_t sessionId)
{
    const auto found = m_waiters.find(sessionId);
    if (found == m_waiters.end())
    {
        return;
    }
    Waiter w = std::move(found->second);
    m_waiters.erase(found);
    w.timeout.Cancel();
    const auto in = m_incoming.find(w.conversation);
    if (in != m_incoming.end())
    {
        auto& waiting = in->second.waiting; // timed out: it stops waiting
        waiting.erase(std::remove(waiting.begin(), waiting.end(), sessionId), waiting.end());
        if (waiting.empty() && !in->second.announced)
        {
            m_incoming.erase(in); // nothing came: a later turn asks again
        }
    }
    EdgeLlmSession* s = m_bs->FindSession(sessionId);
    if (s && s->GetState() == EdgeLlmNode::PREFILLING && m_held.count(w.conversation) > 0)
    {
        TakeHeld(*s, w.conversation, w.earlierTokens);
    }
    w.ready();
}

} // namespace ns3
