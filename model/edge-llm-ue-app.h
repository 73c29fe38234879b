/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_UE_APP_H
#define EDGE_LLM_UE_APP_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The UE side of an edge-LLM session: sends one prompt at start, receives the
 *        token stream, and measures the stall each handover causes.
 *
 * A UE that sends several requests has one application per request, each with its own
 * session id (EdgeLlmSessionId) and local port (EdgeLlmHelper::InstallUeRequests); each
 * starts at its request's arrival. The prompt goes to the server of the cell the UE is
 * served by when it is sent: the attached cell, then each handover's target
 * (NotifyHandoverEnd); a prompt due while the UE is between cells (NotifyHandoverStart
 * until NotifyHandoverEnd) waits for the handover's end.
 *
 * A turn of a multi-turn conversation (Conversation != 0) is one application too: its prompt
 * names the conversation, the tokens of its earlier turns and whether more follow
 * (EdgeLlmPromptHeader), and waits for the previous turn's stream to end (SetPreviousTurn:
 * its final token arrived), so turn t + 1 goes at its arrival or at turn t's end, whichever
 * is later (a closed loop, as FluidServingEngine's).
 *
 * A stall is the gap between the last token decoded by one BS and the first token
 * decoded by another (the cell id in EdgeLlmTokenHeader changes). Its *excess*, the
 * handover delay as the user sees it, is the time the stream lost: the first token
 * after's arrival minus the arrival it would have had from the old cell, at that cell's
 * fastest delivery, `firstAfter - (min_k (arrival_k - k * DecodeInterval) + index *
 * DecodeInterval)`, the minimum over the tokens k received from the old cell; 0 if it
 * came no later (never negative). Tokens lost in the old cell (e.g. in its RLC buffer
 * when the UE leaves) or delivered late by a loaded old cell do not shift that
 * reference, so they cannot shorten the measured delay below the target's restore
 * time: it is D_i (resume - handover) plus the time from the old cell's last decode to
 * the handover (under one interval) plus the new cell's first-token latency minus the
 * old cell's fastest one.
 */
class EdgeLlmUeApp : public Application
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EdgeLlmUeApp();
    ~EdgeLlmUeApp() override;

    /// One measured stall.
    struct Stall
    {
        uint16_t fromCell{0}; //!< Cell that decoded the last token before
        uint16_t toCell{0};   //!< Cell that decoded the first token after
        Time lastBefore;      //!< Arrival of the last token from fromCell
        Time firstAfter;      //!< Arrival of the first token from toCell
        uint32_t tokenGap{1}; //!< Index difference of those two tokens (>= 1)
        Time excess;          //!< Time lost, >= 0 (see the class description)
    };

    /**
     * \brief TracedCallback signature for a stall.
     * \param [in] sessionId the session
     * \param [in] fromCell cell before
     * \param [in] toCell cell after
     * \param [in] stall firstAfter - lastBefore
     * \param [in] excess the time the stream lost, >= 0 (see the class description)
     */
    typedef void (*StallTracedCallback)(uint64_t sessionId,
                                        uint16_t fromCell,
                                        uint16_t toCell,
                                        Time stall,
                                        Time excess);

    /**
     * \brief TracedCallback signature for a token.
     * \param [in] sessionId the session
     * \param [in] tokenIndex 1-based token index
     * \param [in] cellId the cell that decoded it
     */
    typedef void (*TokenTracedCallback)(uint64_t sessionId, uint32_t tokenIndex, uint16_t cellId);

    /// \return the stalls measured so far, in order
    const std::vector<Stall>& GetStalls() const;
    /// \return tokens received (duplicates excluded)
    uint32_t GetTokensReceived() const;
    /**
     * \return token indices skipped by the stream so far (lost on the way; e.g. the
     *         token in the source cell's RLC UM buffer when the UE leaves it)
     */
    uint32_t GetTokensMissing() const;
    /// \return tokens that arrived after a later one, or twice (dropped)
    uint32_t GetTokensDuplicated() const;
    /// \return the session id (the UE's IMSI in LTE scenarios)
    uint64_t GetSessionId() const;

    /**
     * \brief Finds the server of the cell a UE attached to.
     * \param cellId the cell the UE's RRC is connected to
     * \param [out] address its EdgeLlmNode's address
     * \param [out] port its UePort
     * \param [out] decodeInterval its decode cadence, 1 / DecodeRate
     * \return false if no EdgeLlmNode serves that cell
     */
    using ServerResolver = std::function<
        bool(uint16_t cellId, Ipv4Address& address, uint16_t& port, Time& decodeInterval)>;

    /**
     * \brief The prompt waits for the UE's attach (EdgeLlmHelper::InstallUe sets this and
     *        connects the RRC's ConnectionEstablished trace to NotifyAttached()): if the app
     *        starts before, the prompt goes out when NotifyAttached() is called.
     * \param resolver if set, the server is the one of the cell attached to (else
     *        ServerAddress, ServerPort and DecodeInterval as set)
     */
    void WaitForAttach(ServerResolver resolver);

    /**
     * \brief Sink for the UE RRC's ConnectionEstablished trace (imsi, cellId, rnti): the UE is
     *        attached to \p cellId (its data bearer comes with the next reconfiguration); a
     *        later one (a re-establishment) makes \p cellId the serving cell.
     */
    void NotifyAttached(uint64_t imsi, uint16_t cellId, uint16_t rnti);

    /**
     * \brief Sink for the UE RRC's ConnectionReconfiguration trace (imsi, cellId, rnti): the
     *        first one after NotifyAttached() sets up the data radio bearer (before it, the
     *        UE's RRC drops user packets); a prompt waiting for it goes out now.
     */
    void NotifyBearerReady(uint64_t imsi, uint16_t cellId, uint16_t rnti);

    /**
     * \brief Make this application a conversation's next turn after \p previous: its prompt
     *        waits until \p previous received its final token (MaxNewTokens).
     * \param previous the conversation's previous turn, on the same node, not this one
     */
    void SetPreviousTurn(Ptr<EdgeLlmUeApp> previous);

    /**
     * \return whether its stream has ended: its final token arrived, or (a conversation's
     *         turn) it went quiet for TurnEndTimeout, its last tokens lost
     */
    bool HasTurnEnded() const;

    /// \return the cell the prompt went to (0: not sent yet)
    uint16_t GetPromptCellId() const;
    /// \return when the prompt was sent (negative: not yet)
    Time GetPromptTime() const;
    /// \return how many times the prompt was resent (PromptRetry)
    uint32_t GetPromptRetries() const;
    /// \return when the application started: its request's arrival (negative: not yet)
    Time GetRequestTime() const;
    /// \return when its first token arrived (negative: none yet)
    Time GetFirstTokenTime() const;
    /// \return when its latest token arrived (negative: none yet)
    Time GetLastTokenTime() const;

    /**
     * \brief Sink for the UE RRC's HandoverStart trace (imsi, cellId, rnti, targetCellId):
     *        the UE is between cells; a prompt due now waits for NotifyHandoverEnd.
     */
    void NotifyHandoverStart(uint64_t imsi, uint16_t cellId, uint16_t rnti, uint16_t targetCellId);

    /**
     * \brief Sink for the UE RRC's HandoverEndOk trace (imsi, cellId, rnti): the UE is served
     *        by \p cellId, where its next prompt goes; a prompt waiting for it goes out now.
     */
    void NotifyHandoverEnd(uint64_t imsi, uint16_t cellId, uint16_t rnti);

    /**
     * \brief Sink for the UE RRC's HandoverEndError trace (imsi, cellId, rnti): the handover
     *        failed and the RRC leaves connected mode; a prompt waiting for it goes out with
     *        the bearer of the UE's next connection (NotifyAttached, NotifyBearerReady).
     */
    void NotifyHandoverFailed(uint64_t imsi, uint16_t cellId, uint16_t rnti);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendPrompt();
    /// Sends the prompt packet to the server (first time and retries)
    void TransmitPrompt();
    /// PromptRetry expired: resend unless a token arrived
    void RetryPrompt();
    void HandleRead(Ptr<Socket> socket);
    /// The previous turn's final token arrived: the prompt may go.
    void PreviousTurnEnded();
    /// TurnEndTimeout after the last token: the turn ended unless in a handover
    void StreamQuiet();
    /// The stream ended: start the conversation's next turn
    void EndTurn();

    uint64_t m_sessionId;             //!< Session id
    Ipv4Address m_serverAddress;      //!< Serving BS's LLM address
    uint16_t m_serverPort;            //!< Its UDP port
    uint16_t m_localPort;             //!< Our UDP port
    uint32_t m_promptTokens;          //!< Prompt length
    uint32_t m_maxNewTokens;          //!< Tokens to decode
    Time m_decodeInterval;            //!< The server's decode cadence (for the excess)
    Ptr<Socket> m_socket;             //!< UDP socket
    std::vector<Stall> m_stalls;      //!< Measured stalls
    uint32_t m_tokens{0};             //!< Tokens received
    uint32_t m_missing{0};            //!< Indices skipped
    uint32_t m_duplicated{0};         //!< Late or repeated tokens
    uint32_t m_lastIndex{0};          //!< Highest index received
    uint16_t m_lastCell{0};           //!< Cell of the last token (0: none yet)
    Time m_lastArrival;               //!< Arrival of the last token
    Time m_minOffset;                 //!< min (arrival - index * DecodeInterval), current cell
    bool m_waitForAttach{false};      //!< The prompt waits for NotifyAttached()
    ServerResolver m_resolver;        //!< Server of the attached cell (may be empty)
    uint16_t m_attachedCell{0};       //!< Serving cell: attached to, then handed over to (0: none)
    bool m_betweenCells{false};       //!< In a handover (its start seen, its end not yet)
    Time m_requestTime{Seconds(-1)};  //!< StartApplication's time (negative: not yet)
    Time m_firstArrival{Seconds(-1)}; //!< First token's arrival (negative: none)
    bool m_bearerReady{false};        //!< The data radio bearer exists
    bool m_started{false};            //!< StartApplication ran
    uint16_t m_promptCell{0};         //!< Cell the prompt went to
    Time m_promptTime{Seconds(-1)};   //!< When the prompt went (negative: not yet)
    Time m_promptRetry;               //!< Resend the prompt after this long without a token
    uint32_t m_promptRetries{0};      //!< Prompts resent
    EventId m_retryEvent;             //!< The pending retry
    uint64_t m_conversation{0};       //!< Conversation (0: none)
    uint32_t m_earlierTokens{0};      //!< Tokens of the conversation's earlier turns
    bool m_moreTurns{false};          //!< Turns follow this one
    bool m_previousEnded{true};       //!< The previous turn's stream ended (or none)
    uint16_t m_previousCell{0};       //!< The cell that decoded its final token (0: none)
    Ptr<EdgeLlmUeApp> m_nextTurn;     //!< The conversation's next turn (may be null)
    Time m_turnEndTimeout;            //!< TurnEndTimeout
    EventId m_quietEvent;             //!< The pending StreamQuiet
    bool m_turnEnded{false};          //!< HasTurnEnded

    TracedCallback<uint64_t, uint32_t, uint16_t> m_tokenTrace;             //!< TokenReceived
    TracedCallback<uint64_t, uint16_t, uint16_t, Time, Time> m_stallTrace; //!< Stall
};

} // namespace ns3

#endif /* EDGE_LLM_UE_APP_H */
