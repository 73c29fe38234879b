/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_NODE_H
#define EDGE_LLM_NODE_H

#include "accuracy-utility.h"
#include "edge-llm-peer.h"
#include "edge-llm-serving-gpu.h"
#include "edge-llm-session.h"
#include "handover-batcher.h"
#include "handover-scheduler.h"
#include "kv-datagram-socket.h"
#include "kv-transfer-connection.h"
#include "kv-transfer-header.h"
#include "llm-model-profile.h"
#include "prefill-engine.h"

#include "ns3/application.h"
#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class EdgeLlmSourceRole;
class EdgeLlmTargetRole;
class EdgeLlmPreTransferRole;
class EdgeLlmIdleCacheRole;
class EdgeLlmPromptHeader;
class EdgeLlmBackhaulTransport;
class EdgeLlmBsState;

/**
 * \ingroup edge-llm
 * \brief The LLM server on a base station (eNB/gNB): serves LLM sessions to its UEs
 *        and plays source or target when one of them hands over.
 *
 * Serving: a UE's prompt (EdgeLlmPromptHeader, UDP on UePort) opens a session; the
 * BS prefills the prompt on its PrefillEngine, then decodes one token every
 * 1/DecodeRate s and streams each to the UE (EdgeLlmTokenHeader). The context
 * grows by one token per decoded token.
 *
 * The node keeps the Application, the UE socket, peers, serving and decoding, and the
 * session's own attributes and trace sources; its parts are objects with the attributes and
 * trace sources of their own (one of each per node, as LteEnbRrc owns its UeManagers): the
 * source, target and pre-transfer roles (EdgeLlmSourceRole, EdgeLlmTargetRole,
 * EdgeLlmPreTransferRole) and the backhaul transport (EdgeLlmBackhaulTransport: the KV
 * protocol's sockets), reached through the attributes SourceRole, TargetRole,
 * PreTransferRole and BackhaulTransport (Config paths
 * ".../$ns3::EdgeLlmNode/TargetRole/SessionRestored") or GetSourceRole() and its siblings.
 *
 * Source role (NotifyHandoverStart, or the RRC's HandoverStart trace through
 * RrcHandoverStart): decoding stops; the session joins a batch to that target
 * (all handovers announced with ExpectHandover() to the same target and still
 * pending form one batch, as in ctHO; an unannounced handover is a batch of one);
 * the Scheduler plans the batch once, at its first handover, from the announced
 * times and the contexts predicted at them. Each member then sends a
 * TRANSFER_REQUEST with its n_pf forwarded tokens and queues its n_tx KV tokens on
 * the backhaul connection to the target, in the scheduler's order. When every
 * member has handed over, the plan is re-evaluated on the actual times and
 * contexts at the chosen L, and HandoverPlanned reports each UE's predicted delay.
 *
 * Target role: answers the request (TRANSFER_RESPONSE: accepted, or refused when its
 * model's KV bytes per token differ), prefills the first n_pf tokens in the batch
 * (PrefillEngine), counts the KV bytes arriving (TRANSFER_STATUS PROGRESS every
 * StatusInterval), and resumes decoding when both are done; the first token after the
 * handover follows one decode interval later, from this cell, and TRANSFER_STATUS
 * RESTORED lets the source release its copy of the session.
 *
 * Layer-wise streaming (LayerwiseStreaming, doc/edge-llm-design.rst): the source sends the
 * n_tx tokens' KV cache layer-major, and the target runs the first decode step after
 * the handover layer by layer as each layer of the cache completes: layer l of the step
 * starts at max(end of layer l - 1, arrival of KV layer l, end of the batch prefill) and
 * lasts 1 / (DecodeRate N_layers). Token-major (the default), the step starts when the
 * whole cache is in place and lasts 1 / DecodeRate.
 *
 * Second handover mid-restore (doc/edge-llm-design.rst, "Partial backhaul mesh"): the target
 * sends TRANSFER_REDIRECT and the source, holding the whole cache, hands the session to
 * the UE's new cell; a source with no link to that cell answers
 * TRANSFER_REDIRECT_REFUSED and the target finishes the restore and relays the session
 * (store-and-forward). A session no BS can move to the UE's cell (no backhaul link
 * from either), or whose KV format the target refuses, ends with SessionLost, traced
 * once, at the BS that gives it up, and counted by GetLostSessions.
 *
 * Limitations (doc/edge-llm-design.rst, "Scope and Limitations"): a batch waits for every
 * announced member; one backhaul connection per peer (over TCP, one stream each way); no
 * routing over several links.
 */
class EdgeLlmNode : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// DecodeRate's range, tokens/s (the attribute's checker and CheckDecodeRate)
    static constexpr double MIN_DECODE_RATE = 1e-3;
    static constexpr double MAX_DECODE_RATE = 1e6; //!< see MIN_DECODE_RATE
    /// TokenBytes' largest value, bytes (the attribute's checker and the scenario configs':
    /// a token and its 14-byte header fit one 1500-byte radio packet with room to spare)
    static constexpr uint32_t MAX_TOKEN_BYTES = 1400;

    /**
     * \brief Check a decode rate against the DecodeRate attribute's range (the one check
     *        of it, which every config that sets the attribute calls).
     * \param field the knob's name as the caller's user wrote it (e.g. "decodeRate")
     * \param tokensPerSecond the value
     * \throws std::invalid_argument "<field> must be in [0.001, 1e+06] tokens/s
     *         (ns3::EdgeLlmNode::DecodeRate's range)" unless finite and in that range
     */
    static void CheckDecodeRate(const std::string& field, double tokensPerSecond);

    /// Default of the BackhaulPort attribute: TCP/UDP port of the KV transfer
    static constexpr uint16_t DEFAULT_BACKHAUL_PORT = 9001;
    /// Default of the ControlPort attribute: X2AP's SCTP port (3GPP TS 36.412), here UDP
    static constexpr uint16_t DEFAULT_CONTROL_PORT = 36422;

    EdgeLlmNode();
    ~EdgeLlmNode() override;

    /// The backhaul transport of the KV transfer protocol (attribute Transport).
    enum Transport
    {
        TCP, //!< Two TCP connections per BS pair, one per direction (ns-3's default variant)
        UDP, //!< KvDatagramSocket over UDP: paced at the link rate, selective-repeat ARQ
    };

    /// Where the transfer protocol's control messages travel (attribute ControlChannel).
    enum ControlChannel
    {
        SHARED,   //!< In the KV connection, ahead of KV frames not yet written (one stream)
        SEPARATE, //!< On their own KvDatagramSocket stream per peer (UDP ControlPort), as
                  //!< X2-C runs beside X2-U: a request passes a stalled KV stream
    };

    /// Why a session ended without being restored anywhere (trace SessionLost).
    enum LossReason : uint8_t
    {
        NO_BACKHAUL_PATH = 1,  //!< Neither the BS holding the session nor the one relaying
                               //!< it has a backhaul link to the UE's new cell
        KV_FORMAT_REFUSED = 2, //!< The target refused the KV cache (TRANSFER_RESPONSE
                               //!< REFUSED_KV_FORMAT: another model or KvBits)
    };

    /// Life of a session at this BS (EdgeLlmSession::State: its values and transitions)
    using SessionState = EdgeLlmSession::State;
    static constexpr SessionState PREFILLING = EdgeLlmSession::PREFILLING;   //!< See State
    static constexpr SessionState DECODING = EdgeLlmSession::DECODING;       //!< See State
    static constexpr SessionState FINISHED = EdgeLlmSession::FINISHED;       //!< See State
    static constexpr SessionState HANDED_OVER = EdgeLlmSession::HANDED_OVER; //!< See State
    static constexpr SessionState RESTORING = EdgeLlmSession::RESTORING;     //!< See State
    static constexpr SessionState CANCELLED = EdgeLlmSession::CANCELLED;     //!< See State
    static constexpr SessionState REFUSED = EdgeLlmSession::REFUSED;         //!< See State
    static constexpr SessionState REDIRECTING = EdgeLlmSession::REDIRECTING; //!< See State
    static constexpr SessionState LOST = EdgeLlmSession::LOST;               //!< See State

    /**
     * \param state a session state
     * \return its name as in the enum ("PREFILLING", ...; EdgeLlmSession::ToString)
     */
    static std::string ToString(SessionState state);

    /**
     * \brief TracedCallback signature for a session's state change (StateTransition).
     * \param [in] sessionId the session
     * \param [in] cellId this BS's cell
     * \param [in] oldState the state it left
     * \param [in] newState the state it entered
     */
    typedef void (*StateTransitionTracedCallback)(uint64_t sessionId,
                                                  uint16_t cellId,
                                                  SessionState oldState,
                                                  SessionState newState);

    /// The backhaul rate the schedulers plan with (attribute PlanningRate).
    enum PlanningRate
    {
        NOMINAL, //!< The link's bit rate (the papers' R)
        PAYLOAD, //!< The link's rate times the KV payload share of its packets
    };

    /// The cross traffic the schedulers plan with (attribute PlanningCrossTraffic).
    enum PlanningCrossTraffic
    {
        INSTALLED, //!< Each hop's PathHop::crossBitRate (what the backhaul installed)
        MEASURED,  //!< Each hop's PathHop::measuredCrossBitRate() when the plan is made
    };

    /**
     * \brief TracedCallback signature for a session event.
     * \param [in] sessionId the session (the UE's IMSI in LTE scenarios)
     * \param [in] cellId the other BS (target at the source, source at the target)
     * \param [in] tokens context tokens
     */
    typedef void (*SessionTracedCallback)(uint64_t sessionId, uint16_t cellId, uint64_t tokens);

    /**
     * \brief TracedCallback signature for a planned handover (at the source).
     * \param [in] sessionId the session
     * \param [in] prefillTokens n_pf, tokens the target prefills
     * \param [in] transferTokens n_tx, tokens whose KV cache crosses the backhaul
     * \param [in] predictedDelay the planner's D_i for the actual times and contexts
     */
    typedef void (*PlannedTracedCallback)(uint64_t sessionId,
                                          uint64_t prefillTokens,
                                          uint64_t transferTokens,
                                          Time predictedDelay);

    /**
     * \brief TracedCallback signature for a restored session (at the target).
     * \param [in] sessionId the session
     * \param [in] sourceCellId the source BS
     * \param [in] delay resume time minus handover time (the handover delay D_i)
     */
    typedef void (*RestoredTracedCallback)(uint64_t sessionId, uint16_t sourceCellId, Time delay);

    /**
     * \brief TracedCallback signature for a transfer the target replanned (loss-aware
     *        replanning: the KV transfer fell behind its plan and re-prefilling the rest
     *        is sooner than waiting for it).
     * \param [in] sessionId the session
     * \param [in] sourceCellId the source BS
     * \param [in] missingTokens tokens re-prefilled instead of received
     * \param [in] waitTime how long the rest would still take at the rate measured over
     *        the last check interval (Time::Max(): nothing arrived in it)
     * \param [in] reprefillTime how long the re-prefill takes from now (GPU queue + p(m))
     */
    typedef void (*ReplannedTracedCallback)(uint64_t sessionId,
                                            uint16_t sourceCellId,
                                            uint64_t missingTokens,
                                            Time waitTime,
                                            Time reprefillTime);

    /**
     * \brief TracedCallback signature for a session that ended without being restored.
     * \param [in] sessionId the session (the UE's IMSI in LTE scenarios)
     * \param [in] cellId the cell the session could not reach (the UE's new cell)
     * \param [in] reason why (LossReason)
     */
    typedef void (*LostTracedCallback)(uint64_t sessionId, uint16_t cellId, LossReason reason);

    /**
     * \brief TracedCallback signature for a coordinated plan (at the target;
     *        target-coordinated ctHO).
     * \param [in] groupId the GPU batch (its requests' batchId)
     * \param [in] sources sources planned together
     * \param [in] members handovers planned, over every source
     * \param [in] prefillLength L, tokens
     * \param [in] batchStart the batch's planned start t_s
     */
    typedef void (*CoordinatedTracedCallback)(uint32_t groupId,
                                              uint32_t sources,
                                              uint32_t members,
                                              uint64_t prefillLength,
                                              Time batchStart);

    /**
     * \brief Declare a backhaul peer reachable over a direct link (e.g. X2).
     * \param peerCellId the peer BS's cell id
     * \param localAddress this BS's address on the link
     * \param peerAddress the peer's address on the link
     * \param linkRate the link's rate (R of the planner, before dividing by s_KV)
     */
    void AddPeer(uint16_t peerCellId,
                 Ipv4Address localAddress,
                 Ipv4Address peerAddress,
                 DataRate linkRate);

    /// One link of a backhaul path as the planner sees it (PlanningFairQueue)
    using PathHop = EdgeLlmPathHop;
    /// A backhaul path to a peer, possibly over several links (EdgeLlmBackhaul::Path)
    using PeerPath = EdgeLlmPeerPath;

    /**
     * \brief Declare a backhaul peer reachable over a path of one or more links. The
     *        planner's R is the share of the path a KV flow gets (KvFlowBitRate: \p
     *        path.rate, or per hop with \p path.hops; PlanningRate applies the packet
     *        overhead at the path MTU); the round trip is 2 x path delay + 4 frames at
     *        that rate. Batches planned at once toward peers whose paths share a link
     *        split that link (see doc/edge-llm-design.rst, "Backhaul topologies").
     * \param peerCellId the peer BS's cell id
     * \param path the path (rate > 0, mtu >= 576, hops empty or one per link, each with
     *        rate > 0 and cross traffic in [0, rate); aborts naming the field otherwise)
     */
    void AddPeer(uint16_t peerCellId, const PeerPath& path);

    /**
     * \param peerCellId a peer's cell id
     * \return the rate the schedulers plan a lone transfer to it with, bit/s (the path's
     *         KvFlowBitRate for one flow, with PlanningRate's packet overhead), before any
     *         shared-link split
     */
    double GetPlanningBitRate(uint16_t peerCellId) const;

    /// \return the PlanningCrossTraffic attribute
    PlanningCrossTraffic GetPlanningCrossTraffic() const;

    /**
     * \brief The wire rate one KV flow to \p peerCellId gets when \p flowsOn(link) KV flows
     *        of this source cross each link of its path (at least 1; ctHO's R and
     *        ImpactHO's budget before PlanningRate's packet overhead). Per link of rate R
     *        with cross traffic x (PathHop: installed CBR, or measured now with
     *        PlanningCrossTraffic=Measured, then taken as at most 0.999 R) and k KV flows:
     *        (R - x) / k on a FIFO; with PlanningFairQueue on a flow-fair queue disc, the
     *        max-min fair share of k + 1 flows: (R - x) / k if x <= R / (k + 1), else
     *        R / (k + 1). The path's rate is the smallest over its links; a peer without
     *        hops: PeerPath::rate (or the link rate) divided by the busiest link's k.
     * \param peerCellId a peer's cell id
     * \param flowsOn KV flows of this source on a link id (>= 1 counted for the path's own)
     * \return bit/s, > 0
     */
    double KvFlowBitRate(uint16_t peerCellId,
                         const std::function<uint32_t(uint32_t)>& flowsOn) const;

    /**
     * \brief TracedCallback signature for the backhaul rate a plan uses.
     * \param [in] targetCellId the target
     * \param [in] bitRate the rate planned with, bit/s
     * \param [in] sharers how many targets planned at once share its busiest link
     */
    typedef void (*BackhaulPlannedTracedCallback)(uint16_t targetCellId,
                                                  double bitRate,
                                                  uint32_t sharers);

    /**
     * \brief Announce that session \p sessionId will hand over to \p targetCellId
     *        at \p when (ctHO's known handover times).
     */
    void ExpectHandover(uint64_t sessionId, uint16_t targetCellId, Time when);

    /**
     * \brief Open a session whose context is already built and that has no UE stream
     *        (scenarios that study the backhaul alone, e.g. ImpactHO's).
     * \param sessionId the session
     * \param contextTokens its context, tokens, >= 1
     * \param newTokens tokens it decodes after a handover, at the target (default 0:
     *        none; they are traced by TokenDecoded, not sent: there is no UE)
     */
    void OpenSession(uint64_t sessionId, uint64_t contextTokens, uint32_t newTokens = 0);

    /**
     * \brief TracedCallback signature for an ImpactHO session resumed on a prefix.
     * \param [in] sessionId the session
     * \param [in] sourceCellId the source BS
     * \param [in] fraction share of the cache received, in [0, 1]
     */
    typedef void (*PartialTracedCallback)(uint64_t sessionId,
                                          uint16_t sourceCellId,
                                          double fraction);

    /**
     * \brief TracedCallback signature for an ImpactHO slot.
     * \param [in] targetCellId the backhaul peer
     * \param [in] users active users in the slot
     * \param [in] fallback true if the admission fallback decided it
     */
    typedef void (*SlotTracedCallback)(uint16_t targetCellId, uint32_t users, bool fallback);

    /**
     * \brief TracedCallback signature for an ImpactHO slot's budget toward one target.
     * \param [in] targetCellId the backhaul peer
     * \param [in] sharers targets active in the slot whose paths share its busiest link
     *        (1: it has the path alone)
     * \param [in] bytes the slot's budget toward it: planning rate / sharers x slot length / 8
     */
    typedef void (*SlotBudgetTracedCallback)(uint16_t targetCellId, uint32_t sharers, double bytes);

    /**
     * \brief Where online batches (unannounced handovers) get predicted arrivals, e.g.
     *        from UE positions and speeds; used up to the scheduler's Lookahead.
     */
    void SetArrivalPredictor(HandoverBatcher::ArrivalPredictor predictor);

    /**
     * \brief Start the edge handover of a session to \p targetCellId now.
     * Unknown sessions (a UE without an LLM session) are ignored.
     */
    void NotifyHandoverStart(uint64_t sessionId, uint16_t targetCellId);

    /**
     * \brief A handover of \p sessionId to \p targetCellId has become likely (a
     *        PreTransferScheduler's trigger: an A3 entering report of the RRC, or a predicted
     *        crossing): with a PreTransferScheduler, start sending its KV cache there ahead
     *        of the handover (EdgeLlmPreTransferRole). Ignored otherwise, or for a session
     *        not decoding here.
     */
    void NotifyHandoverLikely(uint64_t sessionId, uint16_t targetCellId);

    /**
     * \brief Sink for the HandoverStart trace of LteEnbRrc and NrGnbRrc
     *        (imsi, cellId, rnti, targetCellId): NotifyHandoverStart for the UE's single
     *        session (its id is the IMSI; held here or not) and for each of its request
     *        sessions here that has tokens left (EdgeLlmSessionId).
     */
    void RrcHandoverStart(uint64_t imsi, uint16_t cellId, uint16_t rnti, uint16_t targetCellId);

    /**
     * \brief NotifyHandoverLikely for UE \p imsi's sessions, as RrcHandoverStart picks them,
     *        and for each request session of the UE opened here before its handover starts or
     *        fails (a pre-transfer trigger that names the UE, e.g. the RRC's A3 entering
     *        report).
     * \param imsi the UE's IMSI
     * \param targetCellId the likely target
     */
    void UeHandoverLikely(uint64_t imsi, uint16_t targetCellId);

    /**
     * \brief Sink for the RRC's handover failure traces of LteEnbRrc
     *        (HandoverFailureNoPreamble, ...MaxRach, ...Leaving, ...Joining:
     *        imsi, cellId, rnti): NotifyHandoverFailure for the UE's sessions, as
     *        RrcHandoverStart picks them.
     */
    void RrcHandoverFailure(uint64_t imsi, uint16_t cellId, uint16_t rnti);

    /**
     * \brief A handover of \p sessionId failed. At the target (restoring): TRANSFER_CANCEL
     *        to the source, which serves the session again from its own cache. At the
     *        source (handed over): the same, told to the target, which drops the restore,
     *        and HandoverFailed. At the source before the handover started (announced,
     *        still decoding here: the target's RRC refused the UE): the batch waiting for
     *        it goes on without it (HandoverBatcher::Withdraw), the session stays here,
     *        and HandoverFailed. Other BSs (EdgeLlmHelper connects every BS to every
     *        RRC's failure traces) ignore it.
     */
    void NotifyHandoverFailure(uint64_t sessionId);

    /// \return this BS's cell id
    uint16_t GetCellId() const;

    /**
     * \return sessions this BS declared lost (SessionLost traces so far): each lost
     *         session is counted once, at one BS, so the run's total is the sum over BSs
     */
    uint64_t GetLostSessions() const;
    /**
     * \return bytes sent ahead to this BS (PreTransferScheduler) that arrived and are
     *         neither used by a handover nor dropped yet, as on the wire (each entry with
     *         its coordinate); 0 without pre-transfers
     */
    uint64_t GetPreTransferHeldBytes() const;
    /**
     * \return pre-transfer bytes this BS sent to all its peers so far, as on the wire
     *         (KvTransferConnection::GetBackgroundBytesSent summed)
     */
    uint64_t GetPreTransferBytesSent() const;
    /**
     * \return pre-transfer bytes this BS received from all its peers so far, as on the
     *         wire (KvTransferConnection::GetBackgroundBytesReceived summed)
     */
    uint64_t GetPreTransferBytesReceived() const;
    /// \return the LLM's KV geometry
    LlmModelProfile GetModelProfile() const;
    /// \return KvBits: q, bits per KV element (16, 8 or 4)
    uint32_t GetKvBits() const;
    /// \return DecodeRate: tokens per second each session decodes
    double GetDecodeRate() const;
    /// \return the handover policy
    Ptr<HandoverScheduler> GetScheduler() const;
    /// \return the GPU
    Ptr<PrefillEngine> GetPrefillEngine() const;

    /// \return the GPU that serves many users, or nullptr (the papers' single-session mode)
    Ptr<EdgeLlmServingGpu> GetServingGpu() const;

    /**
     * \brief Stop decoding \p session here (its handover starts, it is lost or the node
     *        stops): its pending decode event is cancelled and, with a ServingGpu, its
     *        sequence taken off the GPU.
     * \param session a session of this BS
     */
    void StopDecoding(EdgeLlmSession& session);
    /// \return the source role (ns3::EdgeLlmSourceRole), for its attributes
    Ptr<Object> GetSourceRole() const;
    /// \return the target role (ns3::EdgeLlmTargetRole), for its attributes
    Ptr<Object> GetTargetRole() const;
    /// \return the pre-transfer role (ns3::EdgeLlmPreTransferRole), for its attributes
    Ptr<Object> GetPreTransferRole() const;
    /// \return the idle-cache role (ns3::EdgeLlmIdleCacheRole), for its attributes and traces
    Ptr<Object> GetIdleCacheRole() const;
    /// \return the backhaul transport (ns3::EdgeLlmBackhaulTransport), for its attributes
    Ptr<Object> GetBackhaulTransport() const;
    /**
     * \brief The node's parts, as its TypeId declares them: each read-only pointer
     *        attribute (SourceRole, TargetRole, PreTransferRole, IdleCacheRole,
     *        BackhaulTransport) with the
     *        TypeId of the object it holds.
     * \return attribute name -> the part's TypeId
     */
    static std::map<std::string, TypeId> GetParts();
    /// \return the backhaul connection to \p peerCellId (null if no such peer)
    Ptr<KvTransferConnection> GetConnection(uint16_t peerCellId) const;
    /**
     * \param peerCellId a peer's cell id
     * \return the connection that carries the control messages to that peer: with
     *         ControlChannel=Separate (once the application started) its own, else the KV
     *         connection (null for an unknown peer)
     */
    Ptr<KvTransferConnection> GetControlConnection(uint16_t peerCellId) const;

    /**
     * \param peerCellId a peer's cell id
     * \return the UDP transport's stream to that peer (retransmission and RTT
     *         counters), or null for an unknown peer, with Transport=Tcp, or before
     *         the application starts
     */
    Ptr<KvDatagramSocket> GetDatagramSocket(uint16_t peerCellId) const;

    /**
     * \brief The send and receive buffer each backhaul connection uses (TCP's
     *        SndBufSize / RcvBufSize, or KvDatagramSocket's window), bytes.
     *
     * BackhaulBuffer if it is set (> 0); else, automatically, the largest over the peer
     * links of ceil(1.25 x R x RTT / 8) with RTT = 2 d + 4 (MTU + 2) x 8 / R (R the
     * link rate, d its propagation delay: the channel's Delay attribute), at least
     * 512 KiB and at most 1 GiB (TCP window scaling's limit).
     * \return the buffer, bytes; valid once the application has started
     */
    uint32_t GetBackhaulBufferInUse() const;

    /**
     * \brief Check the attributes against each other and against the backhaul peers, as
     *        StartApplication does before it starts (which aborts on the first error).
     *
     * Call it after EdgeLlmHelper::ConnectBackhaul to refuse a configuration before the
     * simulation runs (the module's programs exit 2 with the message). It checks: a known
     * Model at KvBits; a Scheduler; KvAccuracyLoss 0 at KvBits 16; StatusInterval 0 or
     * >= 1 ms; every peer link's MTU >= 576; over TCP, BackhaulSegmentSize 0 or in
     * [64, MTU - 52]; BackhaulBuffer 0 or >= 16384 bytes; over TCP, an explicit segment
     * size that keeps at most 1024 segments of the buffer in flight; with
     * PlanningCrossTraffic=Measured, a CrossTrafficMeter on every hop of every peer path.
     * \return an empty string if the configuration is valid, else the first error, naming
     *         the attribute and its valid range
     */
    std::string CheckConfiguration() const;

    /**
     * \brief The context a session will have at time \p t if it keeps decoding.
     * \return tokens (prompt + decoded), or 0 for an unknown session
     */
    uint64_t PredictContextAt(uint64_t sessionId, Time t) const;

  protected:
    void DoDispose() override;

  private:
    /**
     * \brief The sessions an RRC event of UE \p imsi concerns here: its single session (the
     *        IMSI, held or not, as ever) and its request sessions held here that have not
     *        decoded every token (EdgeLlmSessionId).
     * \return their ids, the IMSI first
     */
    std::vector<uint64_t> UeSessionsToNotify(uint64_t imsi) const;
    /// UEs whose handover is likely (UeHandoverLikely), by IMSI: the target, until the UE's
    /// handover starts or fails; a request session opened meanwhile goes ahead too
    std::map<uint64_t, uint16_t> m_ueLikely;
    void StartApplication() override;
    void StopApplication() override;

    /// One LLM session (its fields, state and StateTransition trace)
    using Session = EdgeLlmSession;

    /// A backhaul peer: its path, connections and the rates a KV flow gets on it
    using Peer = EdgeLlmPeer;

    void HandleUeRead(Ptr<Socket> socket);
    void OnPromptPrefilled(uint64_t sessionId);
    void StartDecoding(Session& session, Time firstToken);
    void DecodeToken(uint64_t sessionId);
    /// \p session decodes now: DECODING, and the pre-transfer role told (a likely handover
    /// noted before may start sending ahead)
    void Decoding(Session& session);
    /// Send the session's next token to its UE (TokenDecoded); FINISHED after its last.
    /// \return whether it has tokens left
    bool EmitToken(Session& session);
    /// Decode \p session on the ServingGpu: its context so far cached, the rest to decode
    /// (a prompt: its prefill first, unless \p prefill is false).
    void ServeOnGpu(Session& session, bool prefill);
    /// Open the session of a prompt received from \p from (\return false: ignored)
    bool OpenPromptSession(const EdgeLlmPromptHeader& prompt, const Address& from);
    /// Serve the session \p sessionId a prompt opened (its conversation's cache found)
    void ServePrompt(uint64_t sessionId);
    /// An event of a session's sequence on the ServingGpu (its id: the sequence's handle).
    void OnServingEvent(uint64_t sessionId, const GpuEvent& event);
    /**
     * \brief A backhaul message from \p peerCellId: handed to the target role (request,
     *        complete, redirect refused, batch close) or the source role (response,
     *        status, redirect, stop); TRANSFER_CANCEL to whichever holds the session.
     *        \p controlChannel: it came on the separate control channel (a request's
     *        control copy), not on the KV connection.
     */
    void OnBackhaulMessage(uint16_t peerCellId,
                           bool controlChannel,
                           const KvFrameHeader& frame,
                           Ptr<Packet> message);
    /// End \p session here: SessionLost traced once, LOST to its source if restoring.
    void LoseSession(Session& session, uint16_t cellId, LossReason reason);
    /// CheckConfiguration's part: Model at KvBits, a Scheduler, its pre-transfer's
    /// YieldToHandovers, KvAccuracyLoss at KvBits 16 (\return "" or the first error)
    std::string CheckModelAndPolicy() const;
    /// CheckConfiguration's part, per peer: a CrossTrafficMeter on every hop with
    /// PlanningCrossTraffic=Measured, MTU (\return "" or the first error)
    std::string CheckPeers() const;

    // Attributes
    uint16_t m_cellId;                  //!< Cell id
    std::string m_modelName;            //!< LLM preset
    uint32_t m_kvBits;                  //!< KV precision q
    double m_decodeRate;                //!< Tokens/s per session
    uint32_t m_tokenBytes;              //!< Radio payload per token
    uint16_t m_uePort;                  //!< UDP port for prompts
    Ptr<HandoverScheduler> m_scheduler; //!< Policy
    Ptr<PrefillEngine> m_gpu;           //!< GPU
    Ptr<EdgeLlmServingGpu> m_serving;   //!< GPU of many users (null: single-session mode)

    Ptr<Socket> m_ueSocket; //!< UDP, prompts in, tokens out

    TracedCallback<uint64_t, uint16_t, uint64_t> m_sessionStartedTrace; //!< SessionStarted
    TracedCallback<uint64_t, uint16_t, uint64_t> m_cancelledTrace;      //!< TransferCancelled
    TracedCallback<uint64_t, uint16_t, uint64_t> m_tokenTrace;          //!< TokenDecoded
    TracedCallback<uint64_t, uint16_t, uint64_t> m_refusedTrace;        //!< TransferRefused
    TracedCallback<uint64_t, uint16_t, uint64_t> m_turnStartedTrace;    //!< TurnStarted
    TracedCallback<uint64_t, uint16_t, LossReason> m_lostTrace;         //!< SessionLost
    /// StateTransition
    TracedCallback<uint64_t, uint16_t, SessionState, SessionState> m_stateTrace;
    bool m_promptsOnGpu{true}; //!< PrefillPromptsOnGpu
    Time m_warmDecodeStart;    //!< WarmDecodeStart

    /// What the parts share: the sessions, the peers, the KV geometry (created first,
    /// destroyed last: the parts hold it)
    std::unique_ptr<EdgeLlmBsState> m_state;
    Ptr<EdgeLlmSourceRole> m_source; //!< Source session role (attribute SourceRole)
    Ptr<EdgeLlmTargetRole> m_target; //!< Target session role (attribute TargetRole)
    /// Proactive pre-transfer, both sides
    Ptr<EdgeLlmPreTransferRole> m_preTransfer;
    Ptr<EdgeLlmIdleCacheRole> m_idleCache; //!< Idle conversation caches (attribute IdleCacheRole)
    Ptr<EdgeLlmBackhaulTransport> m_backhaul; //!< Backhaul sockets (attribute BackhaulTransport)

    /// KV bytes from a peer: a pre-transfer's (PRE_TRANSFER_BIT) or a session's
    void OnKvBytes(uint64_t sessionId, uint64_t bytes);
    /// A job's last KV byte went to a peer's transport: a pre-transfer's or a session's
    void OnTransferSent(uint64_t sessionId);
};

} // namespace ns3

#endif /* EDGE_LLM_NODE_H */
