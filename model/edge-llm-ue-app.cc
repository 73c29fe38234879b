/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-ue-app.h"

#include "token-stream-header.h"

#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmUeApp");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmUeApp);

namespace
{
/// Virtual prompt payload: 4 bytes per token id, capped to keep one datagram.
constexpr uint32_t PROMPT_BYTES_CAP = 1024;
} // namespace

TypeId
EdgeLlmUeApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmUeApp")
            .SetParent<Application>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmUeApp>()
            .AddAttribute("SessionId",
                          "Session id (EdgeLlmSessionId): EdgeLlmHelper sets the UE's IMSI, or "
                          "for its k-th request (k << 32) | IMSI, so the RRC's HandoverStart "
                          "trace (the IMSI) names the UE's sessions.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_sessionId),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ServerAddress",
                          "Address of the serving BS's EdgeLlmNode.",
                          Ipv4AddressValue(),
                          MakeIpv4AddressAccessor(&EdgeLlmUeApp::m_serverAddress),
                          MakeIpv4AddressChecker())
            .AddAttribute("ServerPort",
                          "UDP port of the EdgeLlmNode (its UePort).",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_serverPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("LocalPort",
                          "UDP port on which tokens arrive.",
                          UintegerValue(9002),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_localPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PromptTokens",
                          "Prompt length, tokens, >= 1.",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_promptTokens),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxNewTokens",
                          "Tokens the session decodes in total, >= 1.",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_maxNewTokens),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DecodeInterval",
                          "The server's decode cadence, 1 / DecodeRate (EdgeLlmHelper sets it): "
                          "the stall's excess (time lost) is measured on this cadence.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&EdgeLlmUeApp::m_decodeInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("PromptRetry",
                          "Resend the prompt (same session) after this long without a token, "
                          "and again after each such interval until the first token: a prompt "
                          "the radio lost (RLC UM drops a datagram whose fragment failed HARQ) "
                          "otherwise leaves the UE without a session. The server ignores a "
                          "prompt for a session it has. 0: never resend. With the GPU "
                          "warm-up the first token waits for the prompts queued before it: "
                          "keep it above that wait, or 0.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&EdgeLlmUeApp::m_promptRetry),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Conversation",
                          "The conversation this request is a turn of: the session id of its "
                          "turn 0 (EdgeLlmHelper::InstallUeRequests sets it for conversations "
                          "of more than one turn). 0: none (an 18-byte prompt).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_conversation),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EarlierTokens",
                          "Tokens of the conversation's earlier turns (their prompts and "
                          "outputs): the turn's context is EarlierTokens + PromptTokens.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmUeApp::m_earlierTokens),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MoreTurns",
                          "The conversation has turns after this one: the BS keeps its cache "
                          "when its last token is decoded.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&EdgeLlmUeApp::m_moreTurns),
                          MakeBooleanChecker())
            .AddAttribute("TurnEndTimeout",
                          "A conversation's turn (Conversation != 0) whose stream has gone "
                          "quiet this long after its last token, the UE not in a handover, "
                          "has ended: its final tokens were lost on the radio (e.g. in the "
                          "source cell's buffer when the UE left); the next turn goes then. "
                          "0: never (the next turn waits for the final token).",
                          TimeValue(Seconds(5)),
                          MakeTimeAccessor(&EdgeLlmUeApp::m_turnEndTimeout),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("TokenReceived",
                            "A token arrived (sessionId, tokenIndex, cellId).",
                            MakeTraceSourceAccessor(&EdgeLlmUeApp::m_tokenTrace),
                            "ns3::EdgeLlmUeApp::TokenTracedCallback")
            .AddTraceSource("Stall",
                            "The stream moved to another cell: the gap between the last token "
                            "of the old cell and the first of the new one, and its excess: the "
                            "time the stream lost against the old cell's decode cadence at its "
                            "fastest delivery (>= 0).",
                            MakeTraceSourceAccessor(&EdgeLlmUeApp::m_stallTrace),
                            "ns3::EdgeLlmUeApp::StallTracedCallback");
    return tid;
}

EdgeLlmUeApp::EdgeLlmUeApp()
    : m_sessionId(0),
      m_serverPort(9000),
      m_localPort(9002),
      m_promptTokens(1024),
      m_maxNewTokens(1000),
      m_decodeInterval(MilliSeconds(10))
{
}

EdgeLlmUeApp::~EdgeLlmUeApp() = default;

void
EdgeLlmUeApp::DoDispose()
{
    m_retryEvent.Cancel();
    m_quietEvent.Cancel();
    m_socket = nullptr;
    m_nextTurn = nullptr;
    Application::DoDispose();
}

const std::vector<EdgeLlmUeApp::Stall>&
EdgeLlmUeApp::GetStalls() const
{
    return m_stalls;
}

uint32_t
EdgeLlmUeApp::GetTokensReceived() const
{
    return m_tokens;
}

uint32_t
EdgeLlmUeApp::GetTokensMissing() const
{
    return m_missing;
}

uint32_t
EdgeLlmUeApp::GetTokensDuplicated() const
{
    return m_duplicated;
}

uint64_t
EdgeLlmUeApp::GetSessionId() const
{
    return m_sessionId;
}

void
EdgeLlmUeApp::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_serverAddress == Ipv4Address() && !m_resolver,
                    "ns3::EdgeLlmUeApp::ServerAddress is not set (session " << m_sessionId << ")");
    NS_ABORT_MSG_IF(m_conversation == 0 && (m_moreTurns || m_earlierTokens > 0),
                    "ns3::EdgeLlmUeApp: session "
                        << m_sessionId
                        << ": MoreTurns and EarlierTokens need a Conversation (> 0), got 0");
    NS_ABORT_MSG_IF((m_conversation & EdgeLlmPromptHeader::TURN_BIT) != 0 ||
                        (m_sessionId & EdgeLlmPromptHeader::TURN_BIT) != 0,
                    "ns3::EdgeLlmUeApp: SessionId and Conversation must be below 2^63, got "
                        << m_sessionId << " and " << m_conversation);
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_localPort)) != 0,
                    "EdgeLlmUeApp: cannot bind UDP port " << m_localPort);
    m_socket->SetRecvCallback(MakeCallback(&EdgeLlmUeApp::HandleRead, this));
    m_started = true;
    m_requestTime = Simulator::Now();
    if (!m_waitForAttach || m_bearerReady)
    {
        SendPrompt();
    }
    else
    {
        NS_LOG_INFO("session " << m_sessionId << ": not attached yet, the prompt waits");
    }
}

void
EdgeLlmUeApp::WaitForAttach(ServerResolver resolver)
{
    m_waitForAttach = true;
    m_resolver = std::move(resolver);
}

void
EdgeLlmUeApp::NotifyAttached(uint64_t /* imsi */, uint16_t cellId, uint16_t /* rnti */)
{
    NS_LOG_FUNCTION(this << cellId);
    m_attachedCell = cellId; // the first attach, or a re-establishment: the serving cell
}

void
EdgeLlmUeApp::NotifyBearerReady(uint64_t /* imsi */, uint16_t /* cellId */, uint16_t /* rnti */)
{
    NS_LOG_FUNCTION(this);
    if (m_attachedCell == 0 || m_bearerReady)
    {
        return;
    }
    m_bearerReady = true;
    if (m_started && m_promptTime.IsStrictlyNegative())
    {
        // Once the RRC has applied the reconfiguration that carries the bearer.
        Simulator::ScheduleNow(&EdgeLlmUeApp::SendPrompt, this);
    }
}

void
EdgeLlmUeApp::NotifyHandoverStart(uint64_t /* imsi */,
                                  uint16_t /* cellId */,
                                  uint16_t /* rnti */,
                                  uint16_t /* targetCellId */)
{
    m_betweenCells = true;
}

void
EdgeLlmUeApp::NotifyHandoverEnd(uint64_t /* imsi */, uint16_t cellId, uint16_t /* rnti */)
{
    NS_LOG_FUNCTION(this << cellId);
    m_betweenCells = false;
    if (m_attachedCell == 0)
    {
        return; // not attached through NotifyAttached: the server is the one set
    }
    m_attachedCell = cellId;
    if (m_started && m_bearerReady && m_promptTime.IsStrictlyNegative())
    {
        Simulator::ScheduleNow(&EdgeLlmUeApp::SendPrompt, this);
    }
}

void
EdgeLlmUeApp::NotifyHandoverFailed(uint64_t /* imsi */, uint16_t /* cellId */, uint16_t /* rnti */)
{
    NS_LOG_FUNCTION(this);
    m_betweenCells = false;
    if (m_attachedCell != 0)
    {
        // The RRC leaves connected mode: a waiting prompt goes with the re-establishment's
        // bearer (ConnectionEstablished, then ConnectionReconfiguration).
        m_bearerReady = false;
    }
}

void
EdgeLlmUeApp::SetPreviousTurn(Ptr<EdgeLlmUeApp> previous)
{
    NS_ABORT_MSG_IF(!previous || previous == this,
                    "EdgeLlmUeApp::SetPreviousTurn: session " << m_sessionId
                                                              << ": previous must be another "
                                                                 "application");
    NS_ABORT_MSG_IF(previous->m_nextTurn && previous->m_nextTurn != this,
                    "EdgeLlmUeApp::SetPreviousTurn: session "
                        << previous->m_sessionId << " has a next turn already (session "
                        << previous->m_nextTurn->m_sessionId << "), so session " << m_sessionId
                        << " cannot follow it too");
    previous->m_nextTurn = this;
    m_previousEnded = false;
}

void
EdgeLlmUeApp::PreviousTurnEnded()
{
    m_previousEnded = true;
    if (m_started && (!m_waitForAttach || m_bearerReady))
    {
        SendPrompt();
    }
}

Time
EdgeLlmUeApp::GetRequestTime() const
{
    return m_requestTime;
}

Time
EdgeLlmUeApp::GetFirstTokenTime() const
{
    return m_firstArrival;
}

Time
EdgeLlmUeApp::GetLastTokenTime() const
{
    return m_tokens > 0 ? m_lastArrival : Seconds(-1);
}

uint16_t
EdgeLlmUeApp::GetPromptCellId() const
{
    return m_promptCell;
}

Time
EdgeLlmUeApp::GetPromptTime() const
{
    return m_promptTime;
}

void
EdgeLlmUeApp::StopApplication()
{
    m_retryEvent.Cancel();
    m_quietEvent.Cancel();
    if (m_socket)
    {
        m_socket->Close();
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

void
EdgeLlmUeApp::SendPrompt()
{
    if (!m_promptTime.IsStrictlyNegative())
    {
        return; // sent already
    }
    if (!m_previousEnded)
    {
        NS_LOG_INFO("session " << m_sessionId << ": the previous turn goes on, the prompt waits");
        return; // PreviousTurnEnded sends it
    }
    if (m_betweenCells)
    {
        NS_LOG_INFO("session " << m_sessionId << ": in a handover, the prompt waits for its end");
        return; // NotifyHandoverEnd sends it
    }
    if (m_resolver && m_attachedCell != 0)
    {
        Ipv4Address address;
        uint16_t port = 0;
        Time interval;
        NS_ABORT_MSG_UNLESS(m_resolver(m_attachedCell, address, port, interval),
                            "EdgeLlmUeApp: session " << m_sessionId << " attached to cell "
                                                     << m_attachedCell
                                                     << ", which no EdgeLlmNode serves");
        m_serverAddress = address;
        m_serverPort = port;
        m_decodeInterval = interval;
    }
    m_promptCell = m_attachedCell;
    m_promptTime = Simulator::Now();
    TransmitPrompt();
}

void
EdgeLlmUeApp::TransmitPrompt()
{
    EdgeLlmPromptHeader prompt;
    prompt.sessionId = m_sessionId;
    prompt.promptTokens = m_promptTokens;
    prompt.maxNewTokens = m_maxNewTokens;
    prompt.replyPort = m_localPort;
    prompt.conversation = m_conversation;
    prompt.earlierTokens = m_earlierTokens;
    prompt.moreTurns = m_moreTurns;
    prompt.previousCell = m_previousCell;
    Ptr<Packet> p = Create<Packet>(std::min(4 * m_promptTokens, PROMPT_BYTES_CAP));
    p->AddHeader(prompt);
    m_socket->SendTo(p, 0, InetSocketAddress(m_serverAddress, m_serverPort));
    if (m_promptRetry.IsStrictlyPositive())
    {
        m_retryEvent = Simulator::Schedule(m_promptRetry, &EdgeLlmUeApp::RetryPrompt, this);
    }
}

void
EdgeLlmUeApp::RetryPrompt()
{
    if (m_tokens > 0 || !m_socket)
    {
        return;
    }
    ++m_promptRetries;
    NS_LOG_INFO("session " << m_sessionId << ": no token " << m_promptRetry.As(Time::MS)
                           << " after the prompt, resent (" << m_promptRetries << ")");
    TransmitPrompt();
}

uint32_t
EdgeLlmUeApp::GetPromptRetries() const
{
    return m_promptRetries;
}

void
EdgeLlmUeApp::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    while ((packet = socket->Recv()))
    {
        if (packet->GetSize() < EdgeLlmTokenHeader::SIZE)
        {
            continue;
        }
        EdgeLlmTokenHeader token;
        packet->RemoveHeader(token);
        if (token.sessionId != m_sessionId)
        {
            continue;
        }
        const Time now = Simulator::Now();
        if (token.tokenIndex <= m_lastIndex)
        {
            ++m_duplicated; // late or repeated: the stream already moved past it
            continue;
        }
        m_missing += token.tokenIndex - m_lastIndex - 1; // skipped indices: lost on the way
        // arrival - index * DecodeInterval: the cell's decode clock plus this token's radio
        // latency; its minimum over the cell's tokens is the clock plus the fastest latency.
        const Time offset = now - m_decodeInterval * static_cast<int64_t>(token.tokenIndex);
        if (m_lastCell != 0 && token.cellId != m_lastCell)
        {
            Stall s;
            s.fromCell = m_lastCell;
            s.toCell = token.cellId;
            s.lastBefore = m_lastArrival;
            s.firstAfter = now;
            s.tokenGap = token.tokenIndex - m_lastIndex;
            // The time the stream lost: how much later this token came than it would have
            // from the old cell at that cell's fastest delivery (m_minOffset + index *
            // DecodeInterval). Tokens lost before the handover or delivered late by a
            // loaded source cell do not shift that reference, so they cannot make the
            // delay look shorter; a token no later than the reference lost no time (0).
            s.excess = std::max(offset - m_minOffset, Time(0));
            m_stalls.push_back(s);
            m_stallTrace(m_sessionId, s.fromCell, s.toCell, now - m_lastArrival, s.excess);
        }
        if (m_lastCell == 0 || token.cellId != m_lastCell || offset < m_minOffset)
        {
            m_minOffset = offset; // a new cell's decode clock starts afresh
        }
        if (m_tokens == 0)
        {
            m_firstArrival = now;
        }
        ++m_tokens;
        m_lastIndex = token.tokenIndex;
        m_lastCell = token.cellId;
        m_lastArrival = now;
        m_tokenTrace(m_sessionId, token.tokenIndex, token.cellId);
        if (m_lastIndex >= m_maxNewTokens)
        {
            EndTurn(); // the final token
        }
        else if (m_conversation != 0 && m_turnEndTimeout.IsStrictlyPositive())
        {
            m_quietEvent.Cancel();
            m_quietEvent = Simulator::Schedule(m_turnEndTimeout, &EdgeLlmUeApp::StreamQuiet, this);
        }
    }
}

void
EdgeLlmUeApp::StreamQuiet()
{
    if (m_betweenCells)
    {
        // The stream waits for the handover's restore: look again later.
        m_quietEvent = Simulator::Schedule(m_turnEndTimeout, &EdgeLlmUeApp::StreamQuiet, this);
        return;
    }
    NS_LOG_INFO("session " << m_sessionId << ": no token " << m_turnEndTimeout.As(Time::S)
                           << " after token " << m_lastIndex << " of " << m_maxNewTokens
                           << ": the turn ended, its last tokens lost");
    EndTurn();
}

void
EdgeLlmUeApp::EndTurn()
{
    m_quietEvent.Cancel();
    m_turnEnded = true;
    if (m_nextTurn)
    {
        // The conversation's next turn may go (once), to follow the cache from the cell
        // that decoded this turn's last token received.
        Ptr<EdgeLlmUeApp> next = m_nextTurn;
        m_nextTurn = nullptr;
        next->m_previousCell = m_lastCell;
        next->PreviousTurnEnded();
    }
}

bool
EdgeLlmUeApp::HasTurnEnded() const
{
    return m_turnEnded;
}

} // namespace ns3
