/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-session.h"

#include "ns3/abort.h"

namespace ns3
{

EdgeLlmSession::EdgeLlmSession(uint64_t sessionId,
                               uint16_t cellId,
                               const StateTrace* trace,
                               State initial)
    : id(sessionId),
      m_state(initial),
      m_cellId(cellId),
      m_trace(trace)
{
}

std::string
EdgeLlmSession::ToString(State state)
{
    switch (state)
    {
    case PREFILLING:
        return "PREFILLING";
    case DECODING:
        return "DECODING";
    case FINISHED:
        return "FINISHED";
    case HANDED_OVER:
        return "HANDED_OVER";
    case RESTORING:
        return "RESTORING";
    case CANCELLED:
        return "CANCELLED";
    case REFUSED:
        return "REFUSED";
    case REDIRECTING:
        return "REDIRECTING";
    case LOST:
        return "LOST";
    }
    return "UNKNOWN";
}

EdgeLlmSession::State
EdgeLlmSession::GetState() const
{
    return m_state;
}

void
EdgeLlmSession::SwitchToState(State state)
{
    const State old = m_state;
    if (old == state)
    {
        return;
    }
    NS_ABORT_MSG_IF(old == REFUSED || old == LOST,
                    "EdgeLlmSession::SwitchToState: cell "
                        << m_cellId << ", session " << id << " is " << ToString(old)
                        << " (final), cannot become " << ToString(state));
    m_state = state;
    if (m_trace)
    {
        (*m_trace)(id, m_cellId, old, state);
    }
}

bool
EdgeLlmSession::PrefillDone() const
{
    return !batchPending && reprefillTokens == 0 && !reprefillRunning;
}

uint64_t
EdgeLlmSession::ReceivedKvBytes() const
{
    return entryBytes == 0
               ? receivedKvBytes
               : KvTransferConnection::EntryKvBytes(receivedKvBytes, entryBytes) + preSentKvBytes;
}

} // namespace ns3
