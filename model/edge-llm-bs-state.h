/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_BS_STATE_H
#define EDGE_LLM_BS_STATE_H

#include "edge-llm-node.h"
#include "edge-llm-peer.h"
#include "edge-llm-session.h"
#include "kv-transfer-header.h"
#include "llm-model-profile.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace ns3
{

class EdgeLlmSourceRole;
class EdgeLlmTargetRole;
class EdgeLlmPreTransferRole;
class EdgeLlmBackhaulTransport;

/**
 * \ingroup edge-llm
 * \brief What the parts of one BS's EdgeLlmNode share: its session table, its backhaul
 *        peers, the LLM's KV geometry, the parts themselves, and the node's session
 *        actions a part asks for (decode, declare lost, trace a cancel or a refusal).
 *
 * The node owns it and each of its parts (EdgeLlmSourceRole, EdgeLlmTargetRole,
 * EdgeLlmPreTransferRole, EdgeLlmBackhaulTransport) holds it: the parts act on sessions
 * and peers through this interface and EdgeLlmSession's, never on the node's members.
 * Internal to the module (not installed).
 */
class EdgeLlmBsState
{
  public:
    using Session = EdgeLlmSession; //!< One LLM session at this BS
    using Peer = EdgeLlmPeer;       //!< One backhaul peer of this BS

    /// The node's actions on a session, which the parts ask for
    struct Actions
    {
        /// Decode \p session from its first token at the given time (or finish it)
        std::function<void(Session& session, Time firstToken)> startDecoding;
        /// End \p session here (lost: no BS can serve it), the cell it was going to
        std::function<void(Session& session, uint16_t cellId, EdgeLlmNode::LossReason reason)> lose;
        /// Take a backhaul message (the peer's cell id, whether it came on the separate
        /// control channel, its frame header, the message after that header)
        Callback<void, uint16_t, bool, const KvFrameHeader&, Ptr<Packet>> backhaulMessage;
    };

    /// The node's traces a part fires: TransferCancelled, TransferRefused, SessionLost
    struct Traces
    {
        const TracedCallback<uint64_t, uint16_t, uint64_t>* cancelled{nullptr}; //!< Cancelled
        const TracedCallback<uint64_t, uint16_t, uint64_t>* refused{nullptr};   //!< Refused
        const TracedCallback<uint64_t, uint16_t, EdgeLlmNode::LossReason>* lost{nullptr}; //!< Lost
    };

    /**
     * \param node the BS (its cell id names the sessions' traces), outlives this object
     * \param stateTrace where every session's state changes are traced (the node's
     *        StateTransition), outlives this object
     */
    EdgeLlmBsState(const EdgeLlmNode* node, const Session::StateTrace* stateTrace);
    /// \param profile the LLM's KV geometry (resolved when the application starts)
    void SetProfile(const LlmModelProfile& profile);
    /// \return the LLM's KV geometry (valid once the application has started)
    const LlmModelProfile& GetProfile() const;

    /**
     * \brief Create session \p sessionId here in its first state (no transition traced),
     *        replacing a stale one of the same id (e.g. from an earlier visit of the UE).
     * \return the session, kept until EraseSession or ClearSessions
     */
    Session& CreateSession(uint64_t sessionId, Session::State initial);
    /// \return session \p sessionId, or null if this BS has none of that id
    Session* FindSession(uint64_t sessionId);
    /// \return session \p sessionId, or null if this BS has none of that id
    const Session* FindSession(uint64_t sessionId) const;
    /// \return session \p sessionId; aborts naming the cell and the id if it is unknown
    Session& GetSession(uint64_t sessionId);
    /// \brief Forget session \p sessionId (nothing if unknown); its events are the caller's
    void EraseSession(uint64_t sessionId);
    /// \return every session, by id (to iterate)
    std::map<uint64_t, Session>& GetSessions();
    /// \return every session, by id (to iterate)
    const std::map<uint64_t, Session>& GetSessions() const;
    /**
     * \brief The sessions here of one UE (EdgeLlmSessionId::UeOf), in id order: its single
     *        session and its requests'.
     * \param imsi the UE's IMSI
     * \return their ids
     */
    std::vector<uint64_t> GetUeSessions(uint64_t imsi) const;
    /**
     * \brief Note that the prompt of \p sessionId arrived here.
     * \return true the first time for that id
     */
    bool NotePrompted(uint64_t sessionId);

    /// \return peer \p cellId, created empty if this BS has none (EdgeLlmNode::AddPeer)
    Peer& AddPeer(uint16_t cellId);
    /// \return peer \p cellId, or null if it is not a backhaul peer of this BS
    Peer* FindPeer(uint16_t cellId);
    /// \return peer \p cellId, or null if it is not a backhaul peer of this BS
    const Peer* FindPeer(uint16_t cellId) const;
    /// \return peer \p cellId; aborts naming both cells if it is not a peer
    Peer& GetPeer(uint16_t cellId);
    /// \return peer \p cellId; aborts naming both cells if it is not a peer
    const Peer& GetPeer(uint16_t cellId) const;
    /// \return whether \p cellId is a backhaul peer of this BS
    bool HasPeer(uint16_t cellId) const;
    /// \return every peer, by cell id (to iterate)
    std::map<uint16_t, Peer>& GetPeers();
    /// \return every peer, by cell id (to iterate)
    const std::map<uint16_t, Peer>& GetPeers() const;

    /// \return the planning settings of the KV flows on this BS's paths (the source
    ///         role's attributes and the transport's: EdgeLlmSourceRole::PathPlanning)
    EdgeLlmPathPlanning PathPlanning() const;

    /// What one KV flow to a peer gets of its path among concurrent flows to other peers.
    struct PathShare
    {
        uint32_t sharers{1};   //!< Of the concurrent peers, those on the path's busiest link
        double wireBitRate{0}; //!< The flow's wire rate (KvFlowBitRate), bit/s
    };

    /**
     * \param peerCellId a peer's cell id
     * \param concurrent cell ids of the peers with a KV flow at the same time (with \p
     *        peerCellId): a source's concurrent targets, or a target's inbound sources
     *        (this BS's paths to them carry the same links)
     * \return the share of the path to \p peerCellId one KV flow gets among them
     */
    PathShare ShareOfPath(uint16_t peerCellId, const std::set<uint16_t>& concurrent) const;

    /// \brief The node's parts (they outlive every call of theirs; the node owns them)
    void SetParts(EdgeLlmSourceRole* source,
                  EdgeLlmTargetRole* target,
                  EdgeLlmPreTransferRole* preTransfer,
                  EdgeLlmBackhaulTransport* backhaul);
    /// \return the source role
    EdgeLlmSourceRole& Source() const;
    /// \return the target role
    EdgeLlmTargetRole& Target() const;
    /// \return the pre-transfer role
    EdgeLlmPreTransferRole& PreTransfer() const;
    /// \return the backhaul transport
    EdgeLlmBackhaulTransport& Backhaul() const;

    /// \param actions the node's session actions; \param traces the node's traces
    void SetNode(const Actions& actions, const Traces& traces);
    /// \return the node's handler of backhaul messages (Actions::backhaulMessage)
    Callback<void, uint16_t, bool, const KvFrameHeader&, Ptr<Packet>> GetMessageHandler() const;
    /// \brief Decode \p session from \p firstToken (the node's decoder)
    void StartDecoding(Session& session, Time firstToken) const;
    /// \brief End \p session here: lost on its way to \p cellId (the node's SessionLost)
    void LoseSession(Session& session, uint16_t cellId, EdgeLlmNode::LossReason reason) const;
    /// \brief Count one session lost here and fire SessionLost (session id, the cell it was
    ///        going to or coming from, why); LoseSession does it for a session still held
    void TraceLost(uint64_t sessionId, uint16_t cellId, EdgeLlmNode::LossReason reason);
    /// \return sessions declared lost here so far
    uint64_t GetLostSessions() const;
    /// \brief Fire TransferCancelled (session id, the peer's cell, KV bytes moved)
    void TraceCancelled(uint64_t sessionId, uint16_t peerCellId, uint64_t bytes) const;
    /// \brief Fire TransferRefused (session id, the peer's cell, KV bytes sent)
    void TraceRefused(uint64_t sessionId, uint16_t peerCellId, uint64_t bytes) const;

    /// \brief Forget every session (their decode events cancelled)
    void ClearSessions();
    /// \brief Forget every peer (their connections are the caller's to dispose first)
    void ClearPeers();

  private:
    const EdgeLlmNode* m_node;                      //!< The BS
    const Session::StateTrace* m_stateTrace;        //!< The node's StateTransition
    LlmModelProfile m_profile;                      //!< The LLM's KV geometry
    std::map<uint64_t, Session> m_sessions;         //!< By session id
    std::set<uint64_t> m_prompted;                  //!< Sessions whose prompt arrived here
    std::map<uint16_t, Peer> m_peers;               //!< By cell id
    uint64_t m_lostSessions{0};                     //!< SessionLost count
    EdgeLlmSourceRole* m_source{nullptr};           //!< Source role
    EdgeLlmTargetRole* m_target{nullptr};           //!< Target role
    EdgeLlmPreTransferRole* m_preTransfer{nullptr}; //!< Pre-transfer role
    EdgeLlmBackhaulTransport* m_backhaul{nullptr};  //!< Backhaul transport
    Actions m_actions;                              //!< The node's session actions
    Traces m_traces;                                //!< The node's traces
};

} // namespace ns3

#endif /* EDGE_LLM_BS_STATE_H */
