/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_IDLE_CACHE_ROLE_H
#define EDGE_LLM_IDLE_CACHE_ROLE_H

#include "edge-llm-bs-state.h"
#include "edge-llm-node.h"
#include "fluid-serving-engine.h"
#include "kv-transfer-header.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief A BS's idle conversation caches at packet level: a turn's KV kept on the
 *        ServingGpu between turns, what happens to it when its UE hands over, and how a
 *        next turn finds it (doc/edge-llm-design.rst, "Conversations at packet level").
 *
 * A turn with more turns after it parks its cache (context and output) on the GPU where its
 * last token was decoded (EdgeLlmServingGpu::Park: least recently parked evicted first).
 * When the UE hands over, Policy decides for each of its caches held here, as
 * FluidServingEngine's IdleCachePolicy does: move-now sends it to the target at once
 * (IDLE_CACHE, then its KV bytes; the target parks it when the last byte is in),
 * move-on-next-turn leaves it here (the next turn's BS asks for it: IDLE_CACHE_FETCH to
 * the cell that decoded the previous turn's final token, named in the prompt, which
 * answers with IDLE_CACHE and the bytes, or IDLE_CACHE of 0 bytes when it holds none), drop
 * frees it. A turn that finds no cache here asks the previous turn's cell unless Policy is
 * drop (under move-now that cell's move answers: its IDLE_CACHE may not be in yet). A turn
 * whose cache is on its way waits for it, at most FetchTimeout; then, or when none is held
 * anywhere it can ask, it re-prefills its whole context (a cache that lands after its turn
 * stopped waiting, or while a newer one is held, is discarded). A waiting turn is not on the
 * GPU: its UE's handover leaves it here, to start when its cache lands. A moved or fetched cache
 * crosses the backhaul as a KV job of its own (session id the conversation with
 * KvFrameHeader::IDLE_CACHE_BIT), in the scheduler's order with the handover transfers (deadline:
 * its sending time).
 *
 * Without a ServingGpu nothing is kept: every turn prefills its whole context.
 */
class EdgeLlmIdleCacheRole : public Object
{
  public:
    /**
     * \brief Get the type ID (attributes Policy, FetchTimeout).
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \param node the BS (owns this role and outlives it)
     * \param state the BS's shared state (its peers, its KV geometry)
     */
    EdgeLlmIdleCacheRole(EdgeLlmNode* node, EdgeLlmBsState* state);

    /// A turn may start: its cached tokens are set in its session.
    using Ready = std::function<void()>;

    /**
     * \brief A conversation's turn opened \p s here: find its conversation's idle cache
     *        (held here: taken now; moving here: when it lands; move-on-next-turn: fetched
     *        from \p previousCell), set s.cachedTokens (at most \p earlierTokens), then call
     *        \p ready (now, or when the cache arrives or FetchTimeout expires).
     * \param s the turn's session (conversation != 0), PREFILLING
     * \param earlierTokens its earlier turns' tokens
     * \param previousCell the cell that decoded its previous turn's final token (0: none)
     * \param ready what starts it
     */
    void StartTurn(EdgeLlmSession& s, uint32_t earlierTokens, uint16_t previousCell, Ready ready);

    /**
     * \brief A turn decoded its last token here: park its conversation's cache if more turns
     *        follow (s.moreTurns) and a ServingGpu keeps it.
     * \param s the turn's session
     */
    void OnTurnEnded(const EdgeLlmSession& s);

    /**
     * \brief The UE \p imsi hands over from this BS to \p targetCellId: Policy applies to
     *        each of its conversations' caches held here.
     * \param imsi the UE
     * \param targetCellId its target
     */
    void OnUeHandover(uint64_t imsi, uint16_t targetCellId);

    /**
     * \brief IDLE_CACHE from \p peerCellId: a conversation's cache of m.totalBytes KV bytes
     *        follows on the KV stream (0: the peer held none).
     */
    void OnIdleCache(uint16_t peerCellId, const KvTransferCompleteHeader& m);

    /// IDLE_CACHE_FETCH from \p peerCellId: send it conversation m.sessionId's cache.
    void OnFetch(uint16_t peerCellId, const KvTransferCompleteHeader& m);

    /**
     * \brief KV bytes of a conversation's cache arrived.
     * \param conversation the conversation (IDLE_CACHE_BIT cleared)
     * \param bytes how many
     */
    void OnKvBytes(uint64_t conversation, uint64_t bytes);

    /**
     * \param sessionId a session
     * \return whether it is a turn waiting for its conversation's cache (not on the GPU:
     *         its UE's handover leaves it here, to start when the cache lands)
     */
    bool IsWaiting(uint64_t sessionId) const;

    /// The node stops: no turn waits any more (their timeouts cancelled).
    void Stop();

    /**
     * \brief Set Policy by its name.
     * \param name one of IdleCachePolicyNames(); aborts naming them for another
     */
    void SetPolicyName(std::string name);
    /// \return Policy's name
    std::string GetPolicyName() const;

  protected:
    void DoDispose() override;

  private:
    /// A conversation's cache on its way here.
    struct Incoming
    {
        bool announced{false};         //!< Its IDLE_CACHE came
        bool fetched{false};           //!< Asked for by IDLE_CACHE_FETCH (not moved here)
        uint16_t fromCell{0};          //!< Its sender
        uint64_t bytes{0};             //!< Its size (IDLE_CACHE's totalBytes)
        uint64_t received{0};          //!< KV bytes in so far
        std::vector<uint64_t> waiting; //!< Turns (session ids) waiting for it
    };

    /// A turn waiting for its cache.
    struct Waiter
    {
        uint64_t conversation{0};  //!< Its conversation
        uint32_t earlierTokens{0}; //!< At most this many tokens are cached
        Ready ready;               //!< What starts it
        EventId timeout;           //!< FetchTimeout
    };

    /// Take conversation \p c's cache held here into \p s (at most \p earlier tokens).
    void TakeHeld(EdgeLlmSession& s, uint64_t c, uint32_t earlier);
    /// Send conversation \p c's cache of \p tokens to \p cell (IDLE_CACHE, then its bytes).
    void SendCache(uint64_t c, uint64_t tokens, uint16_t cell);
    /// Conversation \p c's cache is all here (or none came): park it, start its waiters.
    void Land(uint64_t c);
    /// Start turn \p sessionId (its cache arrived, or none will): take what is held.
    void Release(uint64_t sessionId);

    EdgeLlmNode* m_node;       //!< The BS
    EdgeLlmBsState* m_bs;      //!< Its shared state
    IdleCachePolicy m_policy;  //!< Policy
    Time m_fetchTimeout;       //!< FetchTimeout
    std::set<uint64_t> m_held; //!< Conversations parked here (some may be evicted since)
    std::map<uint64_t, Incoming> m_incoming; //!< Caches on their way here, by conversation
    std::map<uint64_t, Waiter> m_waiters;    //!< Turns waiting for a cache, by session id
    std::map<uint64_t, uint16_t> m_movedTo;  //!< Move-now: where each cache was sent

    TracedCallback<uint64_t, uint16_t, uint64_t> m_droppedTrace; //!< IdleCacheDropped
    TracedCallback<uint64_t, uint16_t, uint64_t> m_movedTrace;   //!< IdleCacheMoved
    TracedCallback<uint64_t, uint16_t, uint64_t> m_fetchedTrace; //!< IdleCacheFetched
    TracedCallback<uint64_t, uint16_t, uint64_t> m_landedTrace;  //!< IdleCacheLanded
};

} // namespace ns3

#endif /* EDGE_LLM_IDLE_CACHE_ROLE_H */
