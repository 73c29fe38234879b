/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-pre-transfer-role.h"

#include "edge-llm-compat.h"
#include "edge-llm-target-role.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <optional>
#include <set>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmPreTransferRole");

bool
EdgeLlmPreTransferRole::Servable(const EdgeLlmSession& s)
{
    return s.GetState() == EdgeLlmNode::DECODING ||
           (s.GetState() == EdgeLlmNode::FINISHED && s.ueAddress == Ipv4Address());
}

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmPreTransferRole);

TypeId
EdgeLlmPreTransferRole::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmPreTransferRole")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddAttribute("KvMemoryCapacity",
                          "Target: memory for KV caches sent ahead of a handover "
                          "(PreTransferScheduler), bytes; a full memory evicts the oldest.",
                          UintegerValue(edgellm::DEFAULT_KV_MEMORY_CAPACITY),
                          MakeUintegerAccessor(&EdgeLlmPreTransferRole::m_kvMemoryCapacity),
                          // At most 1 PB: a larger value is a typo, or a negative one
                          // wrapped by the unsigned parser (-1 reads as 2^64 - 1).
                          MakeUintegerChecker<uint64_t>(1, edgellm::MAX_KV_MEMORY_CAPACITY))
            .AddTraceSource("PreTransferStarted",
                            "Source: a pre-transfer of a session's KV cache to the cell its "
                            "handover is likely to (sessionId, target cell, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmPreTransferRole::m_preStartedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PreTransferUsed",
                            "Target: the UE handed over here; tokens of its cache sent ahead "
                            "are used (sessionId, source cell, tokens).",
                            MakeTraceSourceAccessor(&EdgeLlmPreTransferRole::m_preUsedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PreTransferWasted",
                            "Target: bytes sent ahead that serve nothing: dropped after the hold "
                            "time, evicted, arriving after either, or a partial token "
                            "(sessionId, source cell or 0, bytes).",
                            MakeTraceSourceAccessor(&EdgeLlmPreTransferRole::m_preWastedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PreTransferEvicted",
                            "Target: a pre-transfer's room was taken by a newer one (or it "
                            "exceeds the whole KvMemoryCapacity: 0 bytes) (sessionId, source "
                            "cell, bytes that had arrived).",
                            MakeTraceSourceAccessor(&EdgeLlmPreTransferRole::m_preEvictedTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback")
            .AddTraceSource("PreTransferLost",
                            "Target: a PRE_TRANSFER_COMMIT for bytes evicted before it came "
                            "(sessionId, source cell, bytes committed).",
                            MakeTraceSourceAccessor(&EdgeLlmPreTransferRole::m_preLostTrace),
                            "ns3::EdgeLlmNode::SessionTracedCallback");
    return tid;
}

EdgeLlmPreTransferRole::EdgeLlmPreTransferRole(EdgeLlmNode* node, EdgeLlmBsState* state)
    : m_node(node),
      m_bs(state)
{
}

std::optional<PreTransferSettings>
EdgeLlmPreTransferRole::GetSettings() const
{
    return m_node->GetScheduler() ? m_node->GetScheduler()->GetPreTransfer() : std::nullopt;
}

KvPreTransferStore&
EdgeLlmPreTransferRole::Store()
{
    if (!m_store)
    {
        m_store = std::make_unique<KvPreTransferStore>(m_kvMemoryCapacity);
    }
    return *m_store;
}

uint64_t
EdgeLlmPreTransferRole::GetReservedBytes() const
{
    return m_store ? m_store->GetReserved() : 0;
}

uint64_t
EdgeLlmPreTransferRole::GetHeldBytes() const
{
    uint64_t held = 0;
    for (const auto& [id, in] : m_in)
    {
        held += in.arrived;
    }
    return held;
}

Time
EdgeLlmPreTransferRole::Interval() const
{
    const std::optional<PreTransferSettings> policy = GetSettings();
    return policy ? policy->pacingInterval : MilliSeconds(10);
}

bool
EdgeLlmPreTransferRole::SharesLink(uint16_t a, uint16_t b) const
{
    EdgeLlmPeer* pa = m_bs->FindPeer(a);
    EdgeLlmPeer* pb = m_bs->FindPeer(b);
    if (!pa || !pb)
    {
        return false;
    }
    for (uint32_t link : pa->links)
    {
        if (std::find(pb->links.begin(), pb->links.end(), link) != pb->links.end())
        {
            return true;
        }
    }
    return false;
}

bool
EdgeLlmPreTransferRole::Paused(uint16_t target) const
{
    const auto until = m_pausedUntil.find(target);
    if (until != m_pausedUntil.end() && until->second > Simulator::Now())
    {
        return true; // its target asked
    }
    // This BS's own handover transfers on paths sharing a link (on the same path the
    // connection already sends the background job last).
    for (const auto& [cell, peer] : m_bs->GetPeers())
    {
        if (cell != target && peer.connection && peer.connection->HasHandoverJobs() &&
            SharesLink(cell, target))
        {
            return true;
        }
    }
    return false;
}

void
EdgeLlmPreTransferRole::Gate()
{
    for (const auto& [id, o] : m_out)
    {
        if (!o.sent && Paused(o.target))
        {
            m_bs->GetPeer(o.target).connection->SetSlotBudget(JobId(id), 0);
        }
    }
}

void
EdgeLlmPreTransferRole::OnHandoverTransfer()
{
    Gate();
}

void
EdgeLlmPreTransferRole::OnPause(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    const Time until =
        Simulator::Now() +
        NanoSeconds(static_cast<int64_t>(std::min<uint64_t>(m.totalBytes, INT64_MAX / 2)));
    Time& current = m_pausedUntil[peerCellId];
    current = std::max(current, until);
    Gate();
}

void
EdgeLlmPreTransferRole::OnInboundTransfer()
{
    if (!m_in.empty() && !compat::IsPending(m_guard))
    {
        Guard();
    }
}

void
EdgeLlmPreTransferRole::Guard()
{
    // Sources of handover transfers into this BS with KV bytes still to come.
    std::set<uint16_t> inbound;
    for (const auto& [id, s] : m_bs->GetSessions())
    {
        if (s.GetState() == EdgeLlmNode::RESTORING && s.ReceivedKvBytes() < s.expectedKvBytes)
        {
            inbound.insert(s.sourceCellId);
        }
    }
    // Sources still sending ahead to this BS (their caches not committed).
    std::set<uint16_t> ahead;
    for (const auto& [id, in] : m_in)
    {
        if (!in.committed)
        {
            ahead.insert(in.source);
        }
    }
    if (inbound.empty() || ahead.empty())
    {
        return; // the next inbound transfer or pre-transfer starts the rounds again
    }
    const Time interval = Interval();
    for (uint16_t source : ahead)
    {
        for (uint16_t other : inbound)
        {
            if (other != source && SharesLink(source, other))
            {
                // Two intervals: one lost or late PAUSE does not let the bytes through.
                Send(source,
                     KvFrameHeader::PRE_TRANSFER_PAUSE,
                     0,
                     static_cast<uint64_t>((2 * interval).GetNanoSeconds()));
                break;
            }
        }
    }
    m_guard = Simulator::Schedule(interval, &EdgeLlmPreTransferRole::Guard, this);
}

uint64_t
EdgeLlmPreTransferRole::JobId(uint64_t sessionId) const
{
    const std::optional<PreTransferSettings> policy = GetSettings();
    const bool entries = policy && m_node->GetScheduler()->AllocatesSlots();
    return sessionId | KvFrameHeader::PRE_TRANSFER_BIT |
           (entries ? KvFrameHeader::PRE_TRANSFER_ENTRIES_BIT : 0);
}

uint64_t
EdgeLlmPreTransferRole::KvBytes(const Incoming& in) const
{
    if (!in.entries)
    {
        return in.arrived;
    }
    return KvTransferConnection::EntryKvBytes(in.arrived, m_bs->GetProfile().BytesPerEntry());
}

void
EdgeLlmPreTransferRole::Send(uint16_t peerCellId,
                             KvFrameHeader::MessageType type,
                             uint64_t sessionId,
                             uint64_t bytes)
{
    EdgeLlmPeer* peer = m_bs->FindPeer(peerCellId);
    if (!peer)
    {
        return;
    }
    KvTransferCompleteHeader m;
    m.sessionId = sessionId;
    m.totalBytes = bytes;
    peer->Control()->SendMessage(type, m, 0);
}

// ---------------------------------------------------------------------------
// Source

void
EdgeLlmPreTransferRole::OnHandoverLikely(uint64_t sessionId, uint16_t targetCellId)
{
    const std::optional<PreTransferSettings> policy = GetSettings();
    if (!policy || policy->rateShare <= 0)
    {
        return;
    }
    NS_ABORT_MSG_IF(!policy->yieldToHandovers,
                    "ns3::PreTransferScheduler::YieldToHandovers false is modelled at flow level "
                    "only (PreTransferFluidScenario); at packet level a pre-transfer uses idle "
                    "capacity (true)");
    if (targetCellId == m_node->GetCellId() || !m_bs->HasPeer(targetCellId))
    {
        return;
    }
    EdgeLlmSession* sit = m_bs->FindSession(sessionId);
    if (!sit || sit->GetState() == EdgeLlmNode::PREFILLING)
    {
        // Its prompt has not reached this BS yet, or is being prefilled: once it decodes.
        m_waiting[sessionId] = targetCellId;
        return;
    }
    if (!Servable(*sit))
    {
        return;
    }
    if (sit->sourceCellId == targetCellId &&
        Simulator::Now() < sit->handoverTime + policy->pingPongTime)
    {
        // Back to the cell it just left (PingPongTime): an A3 trigger with a negative
        // offset holds there right after the handover; a later report starts it.
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": no pre-transfer of session " << sessionId
                            << " back to cell " << targetCellId << " within PingPongTime");
        return;
    }
    auto out = m_out.find(sessionId);
    if (out != m_out.end() && out->second.target == targetCellId)
    {
        return; // the trigger repeats while its condition holds
    }
    auto refused = m_refused.find(sessionId);
    if (refused != m_refused.end() && refused->second == targetCellId)
    {
        return; // that cell evicted or refused it: the handover moves the whole cache
    }
    if (out != m_out.end())
    {
        End(sessionId); // the likely target changed
    }
    const EdgeLlmSession& s = *sit;
    Outgoing o;
    o.target = targetCellId;
    o.tokens = uint64_t{s.promptTokens} + s.generated;
    o.bytes = o.tokens * m_bs->GetProfile().BytesPerToken();
    if (o.bytes == 0)
    {
        return;
    }
    m_out[sessionId] = o;
    Send(targetCellId, KvFrameHeader::PRE_TRANSFER_START, sessionId, o.bytes);
    Queue(sessionId, targetCellId, o.bytes);
    m_preStartedTrace(sessionId, targetCellId, o.tokens);
    NS_LOG_INFO("cell " << m_node->GetCellId() << ": pre-transfer of session " << sessionId << " ("
                        << o.tokens << " tokens) to cell " << targetCellId);
    m_pacing.Cancel();
    Pace();
}

void
EdgeLlmPreTransferRole::Pace()
{
    const std::optional<PreTransferSettings> policy = GetSettings();
    // A session that ended here without a handover (all decoded, lost) ends its pre-transfer.
    std::vector<uint64_t> gone;
    for (const auto& [id, o] : m_out)
    {
        EdgeLlmSession* sit = m_bs->FindSession(id);
        if (!sit || !Servable(*sit))
        {
            gone.push_back(id);
        }
    }
    for (uint64_t id : gone)
    {
        End(id);
    }
    if (policy->followDecoding)
    {
        // The tokens decoded since follow: the target grows the room (a START of the new
        // size), the job grows (or a new one starts if every byte had gone).
        for (auto& [id, o] : m_out)
        {
            const EdgeLlmSession& s = m_bs->GetSession(id);
            const uint64_t tokens = uint64_t{s.promptTokens} + s.generated;
            if (tokens <= o.tokens)
            {
                continue;
            }
            const uint64_t more = (tokens - o.tokens) * m_bs->GetProfile().BytesPerToken();
            o.tokens = tokens;
            o.bytes += more;
            o.sent = false;
            Send(o.target, KvFrameHeader::PRE_TRANSFER_START, id, o.bytes);
            Queue(id, o.target, more);
        }
    }
    std::map<uint16_t, uint32_t> sending;
    for (const auto& [id, o] : m_out)
    {
        sending[o.target] += o.sent ? 0 : 1;
    }
    const Time interval = policy->pacingInterval;
    for (const auto& [id, o] : m_out)
    {
        if (o.sent)
        {
            continue;
        }
        const double bytes = policy->rateShare * m_node->GetPlanningBitRate(o.target) / 8.0 *
                             interval.GetSeconds() / sending[o.target];
        m_bs->GetPeer(o.target).connection->SetSlotBudget(
            JobId(id),
            Paused(o.target) ? 0 : static_cast<uint64_t>(std::max(1.0, bytes)));
    }
    if (!m_out.empty())
    {
        // Also while every byte has gone: the decoding to follow, or a session that ends
        // here without a handover (its pre-transfer then ends).
        m_pacing = Simulator::Schedule(interval, &EdgeLlmPreTransferRole::Pace, this);
    }
}

void
EdgeLlmPreTransferRole::Queue(uint64_t sessionId, uint16_t targetCellId, uint64_t bytes)
{
    Ptr<KvTransferConnection> connection = m_bs->GetPeer(targetCellId).connection;
    const uint64_t id = JobId(sessionId);
    if (connection->Extend(id, bytes))
    {
        return;
    }
    KvTransferJob job;
    job.sessionId = id;
    job.handoverTime = Simulator::Now();
    job.deadline = Time::Max();
    job.remainingBytes = bytes;
    job.slotBudget = 0; // Pace() gives the budget
    job.background = true;
    if (id & KvFrameHeader::PRE_TRANSFER_ENTRIES_BIT)
    {
        // Importance order, as the slot policy inside sends the rest (ImpactHO Sec. VI-E).
        job.entryBytes = static_cast<uint32_t>(m_bs->GetProfile().BytesPerEntry());
    }
    connection->AddTransfer(job);
}

uint64_t
EdgeLlmPreTransferRole::Stop(uint64_t sessionId)
{
    const Outgoing& o = m_out.at(sessionId);
    if (o.sent)
    {
        return o.bytes;
    }
    // The queued job holds the bytes announced since the last time every byte was sent.
    return o.sentBefore + m_bs->GetPeer(o.target).connection->Cancel(JobId(sessionId));
}

void
EdgeLlmPreTransferRole::End(uint64_t sessionId)
{
    const uint16_t target = m_out.at(sessionId).target;
    const uint64_t sent = Stop(sessionId);
    m_out.erase(sessionId);
    Send(target, KvFrameHeader::PRE_TRANSFER_END, sessionId, sent);
}

uint64_t
EdgeLlmPreTransferRole::OnHandover(const EdgeLlmSession& s, uint16_t targetCellId)
{
    m_refused.erase(s.id); // a later likely handover may try again
    m_waiting.erase(s.id); // noticed, but it handed over before decoding here
    auto out = m_out.find(s.id);
    if (out == m_out.end())
    {
        return 0;
    }
    if (out->second.target != targetCellId)
    {
        End(s.id); // a wrong prediction: the target drops the bytes after its hold time
        return 0;
    }
    const uint64_t sent = Stop(s.id);
    m_out.erase(out);
    // Ahead of the TRANSFER_REQUEST on the same control stream.
    Send(targetCellId, KvFrameHeader::PRE_TRANSFER_COMMIT, s.id, sent);
    return sent;
}

void
EdgeLlmPreTransferRole::OnSessionReady(uint64_t sessionId)
{
    auto w = m_waiting.find(sessionId);
    if (w == m_waiting.end())
    {
        return;
    }
    const uint16_t target = w->second;
    m_waiting.erase(w);
    OnHandoverLikely(sessionId, target);
}

void
EdgeLlmPreTransferRole::OnSent(uint64_t sessionId)
{
    auto out = m_out.find(sessionId);
    if (out != m_out.end())
    {
        out->second.sent = true;
        out->second.sentBefore = out->second.bytes;
    }
}

void
EdgeLlmPreTransferRole::OnEvicted(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    auto out = m_out.find(m.sessionId);
    if (out == m_out.end() || out->second.target != peerCellId)
    {
        return; // ended or handed over meanwhile
    }
    Stop(m.sessionId);
    m_out.erase(out);
    // Not again to that cell before this handover: its memory has no room for it.
    m_refused[m.sessionId] = peerCellId;
}

// ---------------------------------------------------------------------------
// Target

void
EdgeLlmPreTransferRole::OnStart(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    auto grow = m_in.find(m.sessionId);
    if (grow != m_in.end() && grow->second.source == peerCellId && !grow->second.committed &&
        Store().Holds(m.sessionId))
    {
        // The same pre-transfer following the decoding: more room, or none if it no longer
        // fits the whole memory.
        if (m.totalBytes > Store().GetCapacity())
        {
            const uint64_t arrived = grow->second.arrived;
            Drop(m.sessionId);
            m_preEvictedTrace(m.sessionId, peerCellId, arrived);
            Send(peerCellId, KvFrameHeader::PRE_TRANSFER_EVICTED, m.sessionId, arrived);
            return;
        }
        Evict(Store().Grow(m.sessionId, m.totalBytes));
        return;
    }
    if (m_in.count(m.sessionId))
    {
        Drop(m.sessionId); // an older one of the same session (another source)
    }
    if (m.totalBytes > Store().GetCapacity())
    {
        // Larger than the whole memory: refused, as an eviction.
        NS_LOG_INFO("cell " << m_node->GetCellId() << ": pre-transfer of session " << m.sessionId
                            << " (" << m.totalBytes << " B) exceeds KvMemoryCapacity");
        Send(peerCellId, KvFrameHeader::PRE_TRANSFER_EVICTED, m.sessionId, 0);
        m_preEvictedTrace(m.sessionId, peerCellId, 0);
        return;
    }
    Evict(Store().Reserve(m.sessionId, m.totalBytes));
    Incoming in;
    in.source = peerCellId;
    m_in[m.sessionId] = in;
    OnInboundTransfer(); // handover transfers into this BS may be running already
}

void
EdgeLlmPreTransferRole::Evict(const std::vector<uint64_t>& evicted)
{
    for (uint64_t key : evicted)
    {
        auto it = m_in.find(key);
        const uint64_t arrived = it->second.arrived;
        const uint16_t source = it->second.source;
        it->second.hold.Cancel();
        m_in.erase(it);
        m_preEvictedTrace(key, source, arrived);
        m_preWastedTrace(key, source, arrived);
        Send(source, KvFrameHeader::PRE_TRANSFER_EVICTED, key, arrived);
    }
}

void
EdgeLlmPreTransferRole::OnKvBytes(uint64_t sessionId, uint64_t bytes, bool entries)
{
    auto it = m_in.find(sessionId);
    if (it == m_in.end())
    {
        // Evicted or dropped: what still arrives is waste too.
        m_preWastedTrace(sessionId, 0, bytes);
        return;
    }
    it->second.arrived += bytes;
    it->second.entries = entries;
    if (it->second.committed && KvBytes(it->second) >= it->second.committedBytes)
    {
        Use(sessionId);
    }
}

void
EdgeLlmPreTransferRole::OnCommit(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    auto it = m_in.find(m.sessionId);
    if (it == m_in.end() || it->second.source != peerCellId)
    {
        // Evicted while the commit was on its way: the source counted tokens this BS no
        // longer holds. The restore cannot be completed from them; traced, not hidden.
        NS_LOG_WARN("cell " << m_node->GetCellId() << ": PRE_TRANSFER_COMMIT of session "
                            << m.sessionId << " from cell " << peerCellId
                            << " for bytes no longer held");
        m_preLostTrace(m.sessionId, peerCellId, m.totalBytes);
        return;
    }
    it->second.committed = true;
    it->second.committedBytes = m.totalBytes;
    it->second.hold.Cancel();
    m_committed[m.sessionId] = m.totalBytes;
    Store().Release(m.sessionId); // the session's cache now, not a pre-sent one
    if (KvBytes(it->second) >= m.totalBytes)
    {
        Use(m.sessionId);
    }
}

void
EdgeLlmPreTransferRole::Use(uint64_t sessionId)
{
    const Incoming in = m_in.at(sessionId);
    m_in.erase(sessionId);
    const uint64_t perToken = m_bs->GetProfile().BytesPerToken();
    const uint64_t tokens = in.committedBytes / perToken;
    m_preUsedTrace(sessionId, in.source, tokens);
    // Entries: every one is used (the importance order goes on after them).
    const uint64_t waste = in.entries ? 0 : in.arrived - tokens * perToken;
    if (waste > 0)
    {
        m_preWastedTrace(sessionId, in.source, waste); // a partial token
    }
    m_bs->Target().ResumeIfRestored(sessionId);
}

uint64_t
EdgeLlmPreTransferRole::TakeCommittedBytes(uint64_t sessionId)
{
    auto it = m_committed.find(sessionId);
    if (it == m_committed.end())
    {
        return 0;
    }
    const uint64_t bytes = it->second;
    m_committed.erase(it);
    return bytes;
}

bool
EdgeLlmPreTransferRole::IsPending(uint64_t sessionId) const
{
    auto it = m_in.find(sessionId);
    return it != m_in.end() && it->second.committed;
}

uint64_t
EdgeLlmPreTransferRole::GetPendingKvBytes(uint64_t sessionId) const
{
    auto it = m_in.find(sessionId);
    if (it == m_in.end() || !it->second.committed)
    {
        return 0;
    }
    const uint64_t in = KvBytes(it->second);
    return it->second.committedBytes > in ? it->second.committedBytes - in : 0;
}

void
EdgeLlmPreTransferRole::OnEnd(uint16_t peerCellId, const KvTransferCompleteHeader& m)
{
    auto it = m_in.find(m.sessionId);
    if (it == m_in.end() || it->second.source != peerCellId || it->second.committed)
    {
        return;
    }
    const std::optional<PreTransferSettings> policy = GetSettings();
    const Time hold = policy ? policy->holdTime : Seconds(0);
    it->second.hold = Simulator::Schedule(hold, &EdgeLlmPreTransferRole::Drop, this, m.sessionId);
}

void
EdgeLlmPreTransferRole::Drop(uint64_t sessionId)
{
    auto it = m_in.find(sessionId);
    if (it == m_in.end() || it->second.committed)
    {
        return;
    }
    const Incoming in = it->second;
    m_in.erase(it);
    Store().Release(sessionId);
    m_preWastedTrace(sessionId, in.source, in.arrived);
}

} // namespace ns3
