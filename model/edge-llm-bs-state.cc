/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-bs-state.h"

#include "edge-llm-source-role.h"
#include "token-stream-header.h"

#include "ns3/abort.h"

#include <algorithm>
#include <utility>

namespace ns3
{

EdgeLlmBsState::EdgeLlmBsState(const EdgeLlmNode* node, const Session::StateTrace* stateTrace)
    : m_node(node),
      m_stateTrace(stateTrace)
{
}

void
EdgeLlmBsState::SetProfile(const LlmModelProfile& profile)
{
    m_profile = profile;
}

const LlmModelProfile&
EdgeLlmBsState::GetProfile() const
{
    return m_profile;
}

EdgeLlmBsState::Session&
EdgeLlmBsState::CreateSession(uint64_t sessionId, Session::State initial)
{
    auto [it, added] = m_sessions.insert_or_assign(
        sessionId,
        EdgeLlmSession(sessionId, m_node->GetCellId(), m_stateTrace, initial));
    return it->second;
}

EdgeLlmBsState::Session*
EdgeLlmBsState::FindSession(uint64_t sessionId)
{
    // The const lookup, once: this object is not const, so neither is its session.
    return const_cast<Session*>(std::as_const(*this).FindSession(sessionId));
}

const EdgeLlmBsState::Session*
EdgeLlmBsState::FindSession(uint64_t sessionId) const
{
    const auto it = m_sessions.find(sessionId);
    return it == m_sessions.end() ? nullptr : &it->second;
}

EdgeLlmBsState::Session&
EdgeLlmBsState::GetSession(uint64_t sessionId)
{
    Session* s = FindSession(sessionId);
    NS_ABORT_MSG_IF(!s,
                    "EdgeLlmNode (cell " << m_node->GetCellId() << "): no session " << sessionId);
    return *s;
}

void
EdgeLlmBsState::EraseSession(uint64_t sessionId)
{
    m_sessions.erase(sessionId);
}

std::map<uint64_t, EdgeLlmBsState::Session>&
EdgeLlmBsState::GetSessions()
{
    return m_sessions;
}

const std::map<uint64_t, EdgeLlmBsState::Session>&
EdgeLlmBsState::GetSessions() const
{
    return m_sessions;
}

std::vector<uint64_t>
EdgeLlmBsState::GetUeSessions(uint64_t imsi) const
{
    std::vector<uint64_t> ids;
    for (const auto& [id, session] : m_sessions)
    {
        if (EdgeLlmSessionId::UeOf(id) == imsi)
        {
            ids.push_back(id);
        }
    }
    return ids;
}

bool
EdgeLlmBsState::NotePrompted(uint64_t sessionId)
{
    return m_prompted.insert(sessionId).second;
}

EdgeLlmBsState::Peer&
EdgeLlmBsState::AddPeer(uint16_t cellId)
{
    return m_peers[cellId];
}

EdgeLlmBsState::Peer*
EdgeLlmBsState::FindPeer(uint16_t cellId)
{
    return const_cast<Peer*>(std::as_const(*this).FindPeer(cellId));
}

const EdgeLlmBsState::Peer*
EdgeLlmBsState::FindPeer(uint16_t cellId) const
{
    const auto it = m_peers.find(cellId);
    return it == m_peers.end() ? nullptr : &it->second;
}

EdgeLlmBsState::Peer&
EdgeLlmBsState::GetPeer(uint16_t cellId)
{
    return const_cast<Peer&>(std::as_const(*this).GetPeer(cellId));
}

const EdgeLlmBsState::Peer&
EdgeLlmBsState::GetPeer(uint16_t cellId) const
{
    const Peer* p = FindPeer(cellId);
    NS_ABORT_MSG_IF(!p,
                    "EdgeLlmNode (cell " << m_node->GetCellId() << "): cell " << cellId
                                         << " is not a backhaul peer");
    return *p;
}

bool
EdgeLlmBsState::HasPeer(uint16_t cellId) const
{
    return m_peers.count(cellId) > 0;
}

std::map<uint16_t, EdgeLlmBsState::Peer>&
EdgeLlmBsState::GetPeers()
{
    return m_peers;
}

const std::map<uint16_t, EdgeLlmBsState::Peer>&
EdgeLlmBsState::GetPeers() const
{
    return m_peers;
}

EdgeLlmPathPlanning
EdgeLlmBsState::PathPlanning() const
{
    return m_source->PathPlanning();
}

EdgeLlmBsState::PathShare
EdgeLlmBsState::ShareOfPath(uint16_t peerCellId, const std::set<uint16_t>& concurrent) const
{
    // The KV flows on a link: the concurrent peers with it on their path.
    auto flowsOn = [this, &concurrent](uint32_t link) {
        uint32_t users = 0;
        for (uint16_t other : concurrent)
        {
            const Peer* p = FindPeer(other);
            if (p && std::find(p->links.begin(), p->links.end(), link) != p->links.end())
            {
                ++users;
            }
        }
        return users;
    };
    const Peer& peer = GetPeer(peerCellId);
    PathShare share;
    share.sharers = peer.BusiestLinkFlows(flowsOn);
    share.wireBitRate = peer.KvFlowBitRate(flowsOn, PathPlanning());
    return share;
}

void
EdgeLlmBsState::SetParts(EdgeLlmSourceRole* source,
                         EdgeLlmTargetRole* target,
                         EdgeLlmPreTransferRole* preTransfer,
                         EdgeLlmBackhaulTransport* backhaul)
{
    m_source = source;
    m_target = target;
    m_preTransfer = preTransfer;
    m_backhaul = backhaul;
}

EdgeLlmSourceRole&
EdgeLlmBsState::Source() const
{
    return *m_source;
}

EdgeLlmTargetRole&
EdgeLlmBsState::Target() const
{
    return *m_target;
}

EdgeLlmPreTransferRole&
EdgeLlmBsState::PreTransfer() const
{
    return *m_preTransfer;
}

EdgeLlmBackhaulTransport&
EdgeLlmBsState::Backhaul() const
{
    return *m_backhaul;
}

void
EdgeLlmBsState::SetNode(const Actions& actions, const Traces& traces)
{
    m_actions = actions;
    m_traces = traces;
}

Callback<void, uint16_t, bool, const KvFrameHeader&, Ptr<Packet>>
EdgeLlmBsState::GetMessageHandler() const
{
    return m_actions.backhaulMessage;
}

void
EdgeLlmBsState::StartDecoding(Session& session, Time firstToken) const
{
    m_actions.startDecoding(session, firstToken);
}

void
EdgeLlmBsState::LoseSession(Session& session, uint16_t cellId, EdgeLlmNode::LossReason reason) const
{
    m_actions.lose(session, cellId, reason);
}

void
EdgeLlmBsState::TraceLost(uint64_t sessionId, uint16_t cellId, EdgeLlmNode::LossReason reason)
{
    ++m_lostSessions;
    (*m_traces.lost)(sessionId, cellId, reason);
}

uint64_t
EdgeLlmBsState::GetLostSessions() const
{
    return m_lostSessions;
}

void
EdgeLlmBsState::TraceCancelled(uint64_t sessionId, uint16_t peerCellId, uint64_t bytes) const
{
    (*m_traces.cancelled)(sessionId, peerCellId, bytes);
}

void
EdgeLlmBsState::TraceRefused(uint64_t sessionId, uint16_t peerCellId, uint64_t bytes) const
{
    (*m_traces.refused)(sessionId, peerCellId, bytes);
}

void
EdgeLlmBsState::ClearSessions()
{
    for (auto& [id, s] : m_sessions)
    {
        s.decodeEvent.Cancel();
    }
    m_sessions.clear();
}

void
EdgeLlmBsState::ClearPeers()
{
    m_peers.clear();
}

} // namespace ns3
