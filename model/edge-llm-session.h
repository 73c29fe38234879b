/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SESSION_H
#define EDGE_LLM_SESSION_H

#include "kv-transfer-connection.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One UE's LLM session at one base station (as LTE's UeManager is one UE's RRC
 *        context at an eNB): its one state machine for both sides of a handover, the
 *        StateTransition trace of every change, and what the serving, source, target and
 *        pre-transfer roles of the BS know about it.
 *
 * EdgeLlmNode creates it (EdgeLlmNode::CreateSession) and keeps it by session id. Every
 * change of state goes through SwitchToState(), the one door, which traces it; the roles
 * read the state, never write it.
 *
 * Source: PREFILLING -> DECODING -> FINISHED (all tokens decoded) or HANDED_OVER (the UE
 * left; back to DECODING if its handover fails or it returns, FINISHED after a redirect,
 * REFUSED if the target refuses the cache). Target: created RESTORING (or REFUSED), then
 * DECODING (restored), CANCELLED (the UE went back), REDIRECTING (the UE moved on; back to
 * RESTORING to relay) or LOST. REFUSED and LOST are final.
 */
class EdgeLlmSession
{
  public:
    /// Life of a session at this BS (see the class description).
    enum State
    {
        PREFILLING,  //!< Prompt prefill running
        DECODING,    //!< Streaming tokens
        FINISHED,    //!< All tokens decoded
        HANDED_OVER, //!< Moved to another BS (source side)
        RESTORING,   //!< Waiting for prefill and KV bytes (target side)
        CANCELLED,   //!< The UE went back before the restore (target side, ping-pong)
        REFUSED,     //!< The target cannot use the source's KV cache (both sides; final)
        REDIRECTING, //!< Restoring, the UE moved on: TRANSFER_REDIRECT sent, the source's
                     //!< answer awaited (target side)
        LOST,        //!< No BS can serve it (SessionLost traced here; final)
    };

    /**
     * \param state a session state
     * \return its name as in the enum ("PREFILLING", ...)
     */
    static std::string ToString(State state);

    /// The trace every state change fires: (session id, cell id, old state, new state).
    using StateTrace = TracedCallback<uint64_t, uint16_t, State, State>;

    /**
     * \param id the session id (the UE's IMSI in LTE and NR scenarios)
     * \param cellId the cell of the BS that holds it
     * \param trace where its state changes are traced (the BS's StateTransition; must
     *        outlive the session; null: not traced)
     * \param initial the state it is created in (no transition traced)
     */
    EdgeLlmSession(uint64_t id, uint16_t cellId, const StateTrace* trace, State initial);

    /// \return its state (changed only by SwitchToState)
    State GetState() const;

    /**
     * \brief The one door of the session's state: set it and trace the change.
     * \param state its new state (nothing traced if unchanged)
     * Aborts (NS_ABORT_MSG, naming the cell, the session and both states) on leaving a
     * final state (REFUSED, LOST).
     */
    void SwitchToState(State state);

    /// \return true once every prefill the restore needs has finished (target side)
    bool PrefillDone() const;

    /// \return KV bytes received (ImpactHO segments carry a 3-byte coordinate per entry; the
    ///         entries a pre-transfer committed count), bytes
    uint64_t ReceivedKvBytes() const;

    uint64_t id{0};        //!< Session id
    Ipv4Address ueAddress; //!< Where tokens go
    uint16_t uePort{0};    //!< UE UDP port
    /// Prompt length; a conversation's turn: its context before decoding (the earlier
    /// turns' tokens plus its new prompt)
    uint32_t promptTokens{0};
    uint32_t maxNewTokens{0}; //!< Tokens to decode in total
    uint32_t generated{0};    //!< Tokens decoded so far
    Time nextToken;           //!< When the next token is decoded
    EventId decodeEvent;      //!< Pending decode
    /// Its sequence on the node's ServingGpu (0: none; the single-session mode's DecodeRate)
    uint64_t servingHandle{0};
    /// The conversation it is a turn of (its turn 0's session id; 0: none)
    uint64_t conversation{0};
    bool moreTurns{false};    //!< Its conversation has turns after this one
    uint32_t cachedTokens{0}; //!< Of promptTokens, tokens its conversation's idle cache held
    // Target side:
    uint16_t sourceCellId{0};         //!< Source BS
    uint16_t targetCellId{0};         //!< Target BS (source side, once handed over)
    Time handoverTime;                //!< tau_i
    uint64_t expectedKvBytes{0};      //!< n_tx * bytes per token
    uint64_t receivedKvBytes{0};      //!< Counted so far
    bool batchPending{false};         //!< The n_pf batch prefill has not finished
    uint64_t reprefillTokens{0};      //!< Timed out: tokens to re-prefill (0: none)
    bool reprefillRunning{false};     //!< That re-prefill is on the GPU
    uint32_t entryBytes{0};           //!< ImpactHO: KV bytes per entry (0: plain bytes)
    bool transferClosed{false};       //!< ImpactHO: TRANSFER_COMPLETE or TRUNCATE came
    bool closedAtWindowEnd{false};    //!< ImpactHO: the target closed it (WindowGrace)
    uint32_t restoreGeneration{0};    //!< Tells a stale timeout from the current restore
    bool layerMajor{false};           //!< KV bytes arrive layer-major (layer-wise streaming)
    std::vector<Time> layerReady;     //!< Layer-major: when each KV layer completed
    Time prefillDoneAt;               //!< When the last prefill of the restore ended (0: none)
    uint16_t relayTarget{0};          //!< Hand the restored session on to this cell (0: none)
    Time relayTime;                   //!< When the UE handed over to relayTarget
    bool timeoutSkipped{false};       //!< TransferTimeout expired while REDIRECTING
    bool kvDoneAtRedirect{false};     //!< Every KV byte was in (and traced) at the redirect
    EventId statusEvent;              //!< Next PROGRESS report
    Time kvDeadline;                  //!< The plan has every KV byte here by (0: no plan)
    Time requestArrivedAt;            //!< When its TRANSFER_REQUEST came
    uint64_t sourceBytesAtRequest{0}; //!< The source's KV bytes received here by then
                                      //!< (all its sessions: they share one connection)
    /// Source side: tokens of the cache the target holds from a pre-transfer (the plan of
    /// this handover leaves them out)
    uint64_t preSentTokens{0};
    /// Target side, importance-ordered: KV bytes of the first entries a pre-transfer
    /// committed (counted in ReceivedKvBytes())
    uint64_t preSentKvBytes{0};

  private:
    State m_state;             //!< State (SwitchToState)
    uint16_t m_cellId;         //!< The cell of the BS that holds it
    const StateTrace* m_trace; //!< Where changes are traced (null: nowhere)
};

} // namespace ns3

#endif /* EDGE_LLM_SESSION_H */
