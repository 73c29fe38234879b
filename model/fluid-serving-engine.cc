/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-serving-engine.h"

#include "accuracy-utility.h"
#include "ctho-planner.h"
#include "edge-llm-limits.h"
#include "fluid-pre-transfer.h"
#include "fluid-slot-share.h"
#include "handover-scheduler.h"
#include "handover-scheme-registry.h"
#include "kv-pre-transfer-store.h"
#include "llm-model-profile.h"
#include "prefill-time-model.h"

#include "ns3/nstime.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace ns3
{

using edgellm::CheckRange;

const std::vector<std::string>&
IdleCachePolicyNames()
{
    static const std::vector<std::string> names{"move-now", "move-on-next-turn", "drop"};
    return names;
}

IdleCachePolicy
IdleCachePolicyFromName(const std::string& name, const std::string& field)
{
    const auto& names = IdleCachePolicyNames();
    for (std::size_t i = 0; i < names.size(); ++i)
    {
        if (names[i] == name)
        {
            return static_cast<IdleCachePolicy>(i);
        }
    }
    std::string list;
    for (const auto& n : names)
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    throw std::invalid_argument(field + " must be one of " + list + ", got '" + name + "'");
}

bool
FluidServingConfig::MeetsSlo(const ServingRequestResult& request) const
{
    return request.served && request.ttft <= ttftSlo &&
           (request.outputTokens == 1 || request.tpot <= tpotSlo);
}

ServingRequestResult
ServingRequestResult::Of(const LlmRequest& request)
{
    ServingRequestResult r;
    r.ue = request.ue;
    r.conversation = request.conversation;
    r.turn = request.turn;
    r.arrival = request.arrival;
    r.promptTokens = request.promptTokens;
    r.outputTokens = request.outputTokens;
    return r;
}

double
FluidServingResult::SloAttainmentOf(const std::vector<ServingRequestResult>& requests)
{
    const auto met =
        std::count_if(requests.begin(), requests.end(), [](const auto& r) { return r.sloMet; });
    return requests.empty() ? 0.0 : static_cast<double>(met) / requests.size();
}

void
FluidServingConfig::Validate() const
{
    const LlmModelProfile profile = LlmModelProfile::FromPreset(model, kvBits);
    gpu.Validate();
    CheckRange("backhaulGbps", backhaulGbps, 0, 1e4, true);
    CheckRange("uplinkDelay", uplinkDelay, 0, 10);
    CheckRange("downlinkDelay", downlinkDelay, 0, 10);
    CheckRange("ttftSlo", ttftSlo, 0, 3600, true);
    CheckRange("tpotSlo", tpotSlo, 0, 3600, true);
    CheckRange("seriesStep", seriesStep, 1e-3, 3600);
    if (kvMemoryCapacity < 1)
    {
        throw std::invalid_argument("kvMemoryCapacity must be >= 1 byte, got 0");
    }
    if (model != gpu.llm)
    {
        throw std::invalid_argument("model must be the GPU model's LLM '" + gpu.llm +
                                    "' (gpu.llm: its constants assume its KV size), got '" + model +
                                    "'");
    }
    gpu.CheckPlanning(profile.BytesPerToken());
}

/// The run's state.
struct FluidServingEngine::Impl
{
    /// Event kinds, in their order at equal times.
    enum Kind
    {
        HOLD_END,      //!< A target frees a cache sent ahead that was not used (index: it)
        ITERATION_END, //!< A GPU's iteration ends (index: cell)
        TRANSFER_END,  //!< A link's transfer ends (index: link; tag: its generation)
        AHEAD_CHANGE,  //!< A cache sent ahead changes rate (tag: the rates' generation)
        EPISODE_END,   //!< A slot episode's cache is whole or its window closes (index: it)
        HANDOVER,      //!< A UE changes cell (index: handover)
        TRIGGER,       //!< A pre-transfer's trigger (index: handover)
        SLOT,          //!< Slot policies: a slot starts (index: k, at k dt)
        PLAN,          //!< The batches of this instant are planned
        AT_BS,         //!< A request reaches its BS (index: request)
        SEND,          //!< A UE sends a request (index: request)
    };

    /// A pending event.
    struct Event
    {
        double time;       //!< s
        int kind;          //!< Kind
        uint64_t seq;      //!< Insertion order
        std::size_t index; //!< What it is about
        uint64_t tag{0};   //!< TRANSFER_END: the link's generation when scheduled
    };

    /// Earliest first.
    struct Later
    {
        bool operator()(const Event& a, const Event& b) const
        {
            if (a.time != b.time)
            {
                return a.time > b.time;
            }
            if (a.kind != b.kind)
            {
                return a.kind > b.kind;
            }
            return a.seq > b.seq;
        }
    };

    /// Why bytes cross a link.
    enum TransferKind
    {
        RESTORE,   //!< A handed-over request's KV (ctHO's n_tx)
        IDLE_MOVE, //!< An idle conversation's cache, at a handover or for a next turn
    };

    /// A transfer waiting for or on a link.
    struct Transfer
    {
        TransferKind kind{RESTORE}; //!< Why
        std::size_t request{0};     //!< RESTORE: whose
        uint64_t epoch{0};          //!< RESTORE: the request's epoch when sent
        uint64_t conversation{0};   //!< IDLE_MOVE: whose cache
        uint64_t tokens{0};         //!< KV tokens
        double released{0};         //!< When it joined the link, s
    };

    /// A directed link.
    struct Link
    {
        uint16_t from{1};            //!< Source cell
        uint16_t to{2};              //!< Target cell
        std::vector<Transfer> queue; //!< Waiting
        bool busy{false};            //!< One is being sent
        Transfer current;            //!< The one sent
        double left{0};              //!< Bits of the one sent not yet sent (as of since)
        double rate{0};              //!< Its rate since then, bit/s
        double since{0};             //!< When left was counted, s
        /// The rate the slot episodes leave the transfers in the current slot, bit/s (R
        /// outside slots)
        double freeRate{0};
        uint64_t gen{0};                   //!< Bumped when its transfer end is rescheduled
        std::vector<std::size_t> episodes; //!< Slot episodes on it, not over
        double aheadRate{0};               //!< Bytes/s its caches sent ahead take now
    };

    /// Slot policies: a handed-over request's cache sent in importance order within the
    /// transfer window.
    struct Episode
    {
        std::size_t request{0};  //!< Whose
        std::size_t link{0};     //!< Its link
        double arrival{0};       //!< The handover, s
        double windowEnd{0};     //!< arrival + T_max, s
        uint64_t context{0};     //!< C, KV tokens at the source
        double bits{0};          //!< L = C x bytes per token x 8
        AccuracyUtility utility; //!< A of its context
        double x{0};             //!< Fraction at the end of its last slot's sending
        double before{0};        //!< Fraction at that slot's start
        double slotStart{-1};    //!< That slot's start, s (< 0: none yet)
        double sendEnd{0};       //!< When that slot's sending ends: its end or the window's, s
        double ahead{0};         //!< Fraction sent ahead of the handover (in importance order)
        bool over{false};        //!< Ended
    };

    /// Where a cache sent ahead is.
    enum AheadPhase
    {
        SENDING, //!< The source sends it (or waits for its next token: FollowDecoding)
        STOPPED, //!< Not used: the target holds what arrived until HoldTime passes
        GONE,    //!< Used, freed, evicted or refused
    };

    /// A request's KV sent ahead of its UE's next handover.
    struct Ahead
    {
        std::size_t request{0};    //!< Whose
        std::size_t handover{0};   //!< The handover it is sent for
        uint16_t from{1};          //!< Source cell
        uint16_t to{2};            //!< The handover's target
        double arrived{0};         //!< Bytes at the target
        double goal{0};            //!< Bytes it sends in all (FollowDecoding: grows per token)
        uint64_t room{0};          //!< Bytes reserved at the target
        double rate{0};            //!< Bytes/s since aheadSince
        AheadPhase phase{SENDING}; //!< Where it is
        bool closed{false};        //!< Its bytes were counted (used, wasted)
    };

    static constexpr std::size_t NO_EPISODE = SIZE_MAX; //!< Request::episode: none

    /// A request's progress.
    struct Request
    {
        const LlmRequest* in{nullptr}; //!< Its input
        uint16_t cell{0};              //!< The GPU it is on (0: none)
        uint64_t epoch{0};             //!< Bumped at every handover (stale transfers)
        GpuSequenceSpec spec;          //!< What it asked of its GPU
        uint64_t decodedBefore{0};     //!< Its tokens decoded before it joined that GPU
        double handoverAt{-1};         //!< Its open stall's handover, s (< 0: none)
        double firstAt{0};             //!< Its first token at the UE, s
        /// Tokens of its context whose KV it lacks (slot policies: not received, never
        /// re-prefilled while it decodes)
        uint64_t missing{0};
        std::size_t episode{NO_EPISODE}; //!< Its open slot episode
        std::size_t ahead{NO_EPISODE};   //!< Its cache sent ahead (NO_EPISODE: none)
        bool started{false};             //!< Reached its BS
        bool done{false};                //!< Ended (served or not)
    };

    /// A conversation's cache.
    struct Conversation
    {
        uint32_t ue{0};                   //!< Its UE
        uint64_t context{0};              //!< Tokens of its ended turns
        uint16_t heldAt{0};               //!< The BS that parked it (0: none)
        uint16_t movingTo{0};             //!< A link carries it there (0: none)
        std::vector<std::size_t> turns;   //!< Its requests by turn
        std::vector<std::size_t> waiting; //!< Requests waiting for its cache to arrive
    };

    /// A batch of one instant, one source and one target.
    struct Batch
    {
        uint16_t source{1};               //!< Source cell
        uint16_t target{2};               //!< Target cell
        double tau{0};                    //!< The handover instant, s
        std::vector<std::size_t> members; //!< Requests
        std::vector<uint64_t> contexts;   //!< Their C
        std::vector<uint64_t> ahead;      //!< Their P: tokens the target holds (sent ahead)
    };

    FluidServingConfig config;
    Ptr<HandoverScheduler> scheduler;
    uint16_t numCells{1};
    std::vector<uint16_t> ueCell;
    std::vector<ServingHandover> handovers;
    std::vector<LlmRequest> inputs; //!< A copy: the caller's may be a temporary
    uint64_t bytesPerToken{1};
    uint64_t contextWindow{0}; //!< The model's longest context, tokens (0: unknown)
    double bitsPerSecond{1};

    std::vector<std::unique_ptr<ContinuousBatchingGpu>> gpus; //!< By cell - 1
    std::vector<std::vector<double>> busy;                    //!< By cell - 1, per period
    std::vector<Link> links;                                  //!< (from - 1) * n + to - 1
    std::vector<Request> requests;
    std::map<uint64_t, Conversation> conversations;
    std::vector<std::set<std::size_t>> active;          //!< By UE: requests started, not done
    std::vector<std::vector<uint64_t>> ueConversations; //!< By UE: its conversations
    std::vector<Batch> batches;                         //!< This instant's
    bool slots{false};                                  //!< A slot policy
    double slotLength{0};                               //!< dt, s
    double window{0};                                   //!< T_max, s
    std::vector<Episode> episodes;                      //!< Slot policies: every episode
    std::set<std::size_t> slotLinks;        //!< Links with episodes or a slot's reduced rate
    std::set<uint64_t> slotsPending;        //!< Slots k scheduled
    int64_t lastSlot{-1};                   //!< The last slot run
    std::optional<PreTransferSettings> pre; //!< A pre-transfer policy's settings
    double share{0};                        //!< Its RateShare (0: none)
    bool aheadYields{true}; //!< YieldToHandovers (slot policies: always, as FluidHandoverEngine)
    std::vector<double> triggers;                      //!< Per handover: its trigger, s (NaN: none)
    std::vector<std::vector<std::size_t>> ueHandovers; //!< By UE: its handovers by time
    std::vector<std::size_t> ueNext;                   //!< By UE: its next handover in ueHandovers
    std::vector<uint16_t> lastFrom; //!< By UE: its last handover's source (0: none)
    std::vector<double> lastTime;   //!< By UE: its last handover's time, s
    std::vector<Ahead> aheads;      //!< Every cache sent ahead
    std::set<std::size_t> sending;  //!< Those SENDING
    std::map<uint16_t, std::unique_ptr<KvPreTransferStore>> stores; //!< By target
    double aheadSince{0};   //!< When the aheads' arrived were counted, s
    uint64_t aheadGen{0};   //!< Bumped when their rates are recomputed
    bool aheadDirty{false}; //!< Their rates must be recomputed
    std::priority_queue<Event, std::vector<Event>, Later> events;
    uint64_t seq{0};
    double now{0};
    double nextSample{0};
    bool ran{false};
    FluidServingResult result;

    Impl(const FluidServingConfig& c,
         Ptr<HandoverScheduler> s,
         uint16_t cells,
         const std::vector<uint16_t>& initial,
         const std::vector<ServingHandover>& hos,
         const std::vector<LlmRequest>& reqs)
        : config(c),
          scheduler(s),
          numCells(cells),
          ueCell(initial),
          handovers(hos),
          inputs(reqs)
    {
    }

    void Validate();
    void Setup();
    void Push(double time, Kind kind, std::size_t index, uint64_t tag = 0);
    void Sample(double until);
    void Handle(const Event& e);
    /// \return whether \p e no longer applies (a rescheduled transfer end, an episode over)
    bool IsStale(const Event& e) const;
    void Kick(uint16_t cell);
    void OnIterationEnd(uint16_t cell);
    void OnToken(std::size_t r);
    void Finish(std::size_t r, bool served);
    void OnSend(std::size_t r);
    void StartTurn(std::size_t r);
    void Join(std::size_t r, uint16_t cell, const GpuSequenceSpec& spec);
    void OnHandover(std::size_t index);
    void CloseStall(std::size_t r, double at);
    bool Retarget(std::size_t r, uint16_t from, uint16_t to);
    void MoveIdle(uint64_t id, uint16_t source, uint16_t target);
    /// Send conversation \p id's idle cache from \p from (unparked) to \p to; its tokens
    uint64_t SendCache(uint64_t id, uint16_t from, uint16_t to);
    void PlanBatches();
    void PlanBatch(const Batch& batch);
    void Send(uint16_t from, uint16_t to, const Transfer& t);
    void StartLink(Link& link);
    void OnTransferEnd(std::size_t link);
    /// Send link \p link's transfer at \p rate bit/s from now (its end rescheduled).
    void SetLinkRate(Link& link, double rate);
    /// Slot policies: request \p r's cache of \p context tokens goes from \p from to \p to.
    /// \p ahead: the fraction of it the target holds already (sent ahead).
    void StartEpisode(std::size_t r, uint16_t from, uint16_t to, uint64_t context, double ahead);
    /// Schedule the slot a handover at \p time first takes part in (at most one per k).
    void ScheduleSlot(uint64_t k);
    /// Slot k: every link's active episodes share its budget (ShareFluidSlot).
    void OnSlot(uint64_t k);
    /// \return episode \p e's fraction received by now (constant rate over its slot)
    double ReceivedNow(const Episode& e) const;
    /// Episode \p e is over now: take it off its link, count its bytes.
    void CloseEpisode(Episode& e);
    /// Episode \p e's cache is whole or its window closed: its request resumes at the target.
    void OnEpisodeEnd(std::size_t e);
    /// A handover of request \p r's UE during its episode: the source sends the cache to
    /// the new cell instead (or the request resumes at the source, \p to being it).
    bool RetargetEpisode(std::size_t r, uint16_t from, uint16_t to);
    Link& LinkOf(uint16_t from, uint16_t to);
    ContinuousBatchingGpu& Gpu(uint16_t cell);
    void Summarize();
    /// The rate link \p link's transfer gets: what the slot episodes leave, less the caches
    /// sent ahead's if they do not yield, bit/s
    double TransferRate(const Link& link) const;
    /// Count the bytes the caches sent ahead moved up to now.
    void SettleAhead();
    /// Share each link among its caches sent ahead from now (ShareAheadRate).
    void RateAhead();
    /// Request \p r starts sending its KV ahead if its UE's next handover's trigger passed
    /// and it decodes on the source.
    void TryAhead(std::size_t r);
    /// \return the KV memory for caches sent ahead of \p cell
    KvPreTransferStore& Store(uint16_t cell);
    /// The entries \p keys were evicted: what arrived is waste.
    void Evicted(const std::vector<uint64_t>& keys);
    /// Count cache sent ahead \p a's bytes once: \p used whole tokens used, \p wasted bytes.
    void CloseAhead(Ahead& a, uint64_t used, double wasted);
    /// Cache sent ahead \p a is not used: waste; the target frees it HoldTime later.
    void AbandonAhead(Ahead& a);
};

void
FluidServingEngine::Impl::Validate()
{
    config.Validate();
    if (!scheduler)
    {
        throw std::invalid_argument("scheduler must be a handover policy, got none");
    }
    if (scheduler->GetPlanLead().IsStrictlyPositive())
    {
        throw std::invalid_argument("scheme '" + scheduler->GetSchemeName() +
                                    "' is not modelled in serving mode: it takes a batch or "
                                    "slot policy its source plans alone, or a pre-transfer "
                                    "around one (" +
                                    HandoverSchemeRegistry::Names(", ", Models) + ")");
    }
    pre = scheduler->GetPreTransfer();
    if (pre)
    {
        CheckFluidPreTransfer(*pre, scheduler->AllocatesSlots());
    }
    if (numCells < 1)
    {
        throw std::invalid_argument("numCells must be in [1, 65535], got 0");
    }
    for (std::size_t u = 0; u < ueCell.size(); ++u)
    {
        if (ueCell[u] < 1 || ueCell[u] > numCells)
        {
            throw std::invalid_argument("initialCell[" + std::to_string(u) + "] must be in [1, " +
                                        std::to_string(numCells) + "], got " +
                                        std::to_string(ueCell[u]));
        }
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        const auto& q = inputs[i];
        std::string at = "requests[" + std::to_string(i) + "].";
        if (q.ue >= ueCell.size())
        {
            throw std::invalid_argument(at + "ue must be < " + std::to_string(ueCell.size()) +
                                        " (the UEs), got " + std::to_string(q.ue));
        }
        CheckRange(at + "arrival", q.arrival, 0, 1e9);
        if (q.promptTokens < 1 || q.outputTokens < 1)
        {
            throw std::invalid_argument(at + "promptTokens and outputTokens must be >= 1");
        }
    }
    std::map<uint64_t, std::pair<uint32_t, uint32_t>> turns; // conversation: UE, turns so far
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        const auto& q = inputs[i];
        auto [it, fresh] = turns.emplace(q.conversation, std::make_pair(q.ue, 0u));
        std::string at = "requests[" + std::to_string(i) + "].";
        if (!fresh && it->second.first != q.ue)
        {
            throw std::invalid_argument(at + "ue must be " + std::to_string(it->second.first) +
                                        " (conversation " + std::to_string(q.conversation) +
                                        "'s UE), got " + std::to_string(q.ue));
        }
        if (q.turn != it->second.second)
        {
            throw std::invalid_argument(at + "turn must be " + std::to_string(it->second.second) +
                                        " (its conversation's next), got " +
                                        std::to_string(q.turn));
        }
        it->second.second += 1;
    }
    std::vector<uint16_t> cell = ueCell;
    std::vector<std::size_t> order(handovers.size());
    for (std::size_t i = 0; i < order.size(); ++i)
    {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
        return handovers[a].time < handovers[b].time;
    });
    for (std::size_t i : order)
    {
        const auto& h = handovers[i];
        std::string at = "handovers[" + std::to_string(i) + "].";
        if (h.ue >= cell.size())
        {
            throw std::invalid_argument(at + "ue must be < " + std::to_string(cell.size()) +
                                        " (the UEs), got " + std::to_string(h.ue));
        }
        CheckRange(at + "time", h.time, 0, 1e9);
        if (!std::isnan(h.likely) && !(h.likely >= 0 && h.likely <= h.time))
        {
            throw std::invalid_argument(
                at + "likely must be in [0, " + edgellm::FormatValue(h.time) +
                "] (its time) s or NaN, got " + edgellm::FormatValue(h.likely));
        }
        if (pre && pre->trigger == PreTransferSettings::A3_ENTERING && std::isnan(h.likely))
        {
            throw std::invalid_argument(
                at + "likely must be given for scheme '" + scheduler->GetSchemeName() +
                "' (Trigger A3Entering: when the handover became likely, s, in [0, time])");
        }
        if (h.target < 1 || h.target > numCells || h.target == cell[h.ue])
        {
            throw std::invalid_argument(at + "target must be in [1, " + std::to_string(numCells) +
                                        "] and not the UE's serving cell " +
                                        std::to_string(cell[h.ue]) + ", got " +
                                        std::to_string(h.target));
        }
        cell[h.ue] = h.target;
    }
}

void
FluidServingEngine::Impl::Setup()
{
    auto profile = LlmModelProfile::FromPreset(config.model, config.kvBits);
    bytesPerToken = profile.BytesPerToken();
    contextWindow = profile.contextWindow;
    bitsPerSecond = config.backhaulGbps * 1e9;
    slots = scheduler->AllocatesSlots();
    slotLength = scheduler->GetSlotLength().GetSeconds();
    window = scheduler->GetTransferWindow().GetSeconds();
    for (uint16_t c = 1; c <= numCells; ++c)
    {
        gpus.push_back(std::make_unique<ContinuousBatchingGpu>(config.gpu, bytesPerToken));
    }
    links.resize(static_cast<std::size_t>(numCells) * numCells);
    busy.assign(numCells, {});
    for (uint16_t a = 1; a <= numCells; ++a)
    {
        for (uint16_t b = 1; b <= numCells; ++b)
        {
            auto& l = LinkOf(a, b);
            l.from = a;
            l.to = b;
            l.freeRate = bitsPerSecond;
        }
    }
    requests.resize(inputs.size());
    active.assign(ueCell.size(), {});
    ueConversations.assign(ueCell.size(), {});
    result.requests.resize(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        const auto& q = inputs[i];
        requests[i].in = &q;
        result.requests[i] = ServingRequestResult::Of(q);
        auto& conv = conversations[q.conversation];
        conv.ue = q.ue;
        if (conv.turns.empty())
        {
            ueConversations[q.ue].push_back(q.conversation);
        }
        conv.turns.push_back(i);
        if (q.turn == 0)
        {
            Push(q.arrival, SEND, i);
        }
    }
    for (std::size_t i = 0; i < handovers.size(); ++i)
    {
        Push(handovers[i].time, HANDOVER, i);
    }
    share = pre ? pre->rateShare : 0.0;
    aheadYields = !pre || pre->yieldToHandovers || slots;
    ueHandovers.assign(ueCell.size(), {});
    ueNext.assign(ueCell.size(), 0);
    lastFrom.assign(ueCell.size(), 0);
    lastTime.assign(ueCell.size(), 0.0);
    triggers.assign(handovers.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < handovers.size(); ++i)
    {
        ueHandovers[handovers[i].ue].push_back(i);
        if (share > 0)
        {
            triggers[i] = FluidTriggerTime(*pre, handovers[i].time, handovers[i].likely);
            Push(triggers[i], TRIGGER, i);
        }
    }
    for (auto& list : ueHandovers)
    {
        // As the HANDOVER events run: by time, then input order.
        std::stable_sort(list.begin(), list.end(), [this](std::size_t a, std::size_t b) {
            return handovers[a].time < handovers[b].time;
        });
    }
    result.scheme = scheduler->GetSchemeName();
}

void
FluidServingEngine::Impl::Push(double time, Kind kind, std::size_t index, uint64_t tag)
{
    events.push(Event{time, kind, seq++, index, tag});
}

ContinuousBatchingGpu&
FluidServingEngine::Impl::Gpu(uint16_t cell)
{
    return *gpus[cell - 1];
}

FluidServingEngine::Impl::Link&
FluidServingEngine::Impl::LinkOf(uint16_t from, uint16_t to)
{
    return links[static_cast<std::size_t>(from - 1) * numCells + (to - 1)];
}

void
FluidServingEngine::Impl::Sample(double until)
{
    // The state is constant between events: every period that ends before the next event
    // sees today's queues.
    while (nextSample + config.seriesStep <= until)
    {
        nextSample += config.seriesStep;
        auto period = static_cast<std::size_t>(std::llround(nextSample / config.seriesStep)) - 1;
        for (uint16_t c = 1; c <= numCells; ++c)
        {
            ServingGpuSample s;
            s.time = nextSample;
            s.cell = c;
            const auto& b = busy[c - 1];
            s.utilization = period < b.size() ? b[period] / config.seriesStep : 0.0;
            s.running = Gpu(c).GetRunning();
            s.waiting = Gpu(c).GetWaiting();
            result.series.push_back(s);
        }
    }
}

void
FluidServingEngine::Impl::Kick(uint16_t cell)
{
    auto& gpu = Gpu(cell);
    if (gpu.IsBusy() || !gpu.HasWork())
    {
        return;
    }
    GpuIteration it = gpu.BeginIteration();
    if (!gpu.IsBusy())
    {
        return;
    }
    // Busy time per series period, split at the periods' ends.
    auto& b = busy[cell - 1];
    double from = now;
    double to = now + it.duration;
    while (from < to)
    {
        auto period = static_cast<std::size_t>(std::floor(from / config.seriesStep));
        double periodEnd = (period + 1) * config.seriesStep;
        double part = std::min(to, periodEnd) - from;
        if (b.size() <= period)
        {
            b.resize(period + 1, 0.0);
        }
        b[period] += part;
        from = std::min(to, periodEnd);
        if (part <= 0)
        {
            break;
        }
    }
    Push(to, ITERATION_END, cell);
}

void
FluidServingEngine::Impl::OnIterationEnd(uint16_t cell)
{
    for (const auto& ev : Gpu(cell).EndIteration())
    {
        std::size_t r = ev.id;
        auto& out = result.requests[r];
        switch (ev.kind)
        {
        case GpuEvent::PREFILL_DONE:
            break;
        case GpuEvent::TOKEN:
            OnToken(r);
            break;
        case GpuEvent::FINISHED:
            if (out.decodedTokens == out.outputTokens)
            {
                Finish(r, true);
            }
            break;
        }
    }
    Kick(cell);
}

void
FluidServingEngine::Impl::OnToken(std::size_t r)
{
    auto& q = requests[r];
    auto& out = result.requests[r];
    out.decodedTokens += 1;
    double at = now + config.downlinkDelay;
    if (out.decodedTokens == 1)
    {
        q.firstAt = at;
        out.ttft = at - out.sent;
    }
    if (q.handoverAt >= 0)
    {
        CloseStall(r, now);
        q.handoverAt = -1;
    }
    if (q.ahead == NO_EPISODE)
    {
        TryAhead(r);
    }
    else if (aheads[q.ahead].phase == SENDING && pre->followDecoding)
    {
        // FollowDecoding: the new token's KV follows, its room reserved (the oldest other
        // entries evicted); one that would not fit the memory stops the following.
        Ahead& a = aheads[q.ahead];
        KvPreTransferStore& store = Store(a.to);
        if (a.room + bytesPerToken <= store.GetCapacity())
        {
            a.room += bytesPerToken;
            Evicted(store.Grow(q.ahead, a.room));
            a.goal += static_cast<double>(bytesPerToken);
            aheadDirty = true;
        }
    }
    if (out.decodedTokens == out.outputTokens)
    {
        out.e2e = at - out.sent;
        if (out.outputTokens > 1)
        {
            out.tpot = (at - q.firstAt) / static_cast<double>(out.outputTokens - 1);
        }
    }
}

void
FluidServingEngine::Impl::Finish(std::size_t r, bool served)
{
    auto& q = requests[r];
    auto& out = result.requests[r];
    if (q.done)
    {
        return;
    }
    q.done = true;
    if (q.ahead != NO_EPISODE)
    {
        AbandonAhead(aheads[q.ahead]); // it ended before its handover
    }
    uint16_t cell = q.cell;
    q.cell = 0;
    active[q.in->ue].erase(r);
    out.served = served;
    out.sloMet = config.MeetsSlo(out);
    auto& conv = conversations[q.in->conversation];
    conv.context = out.contextTokens + out.decodedTokens;
    double lastAt = served ? now + config.downlinkDelay : now; // its last token at the UE
    result.end = std::max(result.end, lastAt);
    if (q.in->turn + 1 < conv.turns.size())
    {
        if (served && cell != 0)
        {
            // A slot policy's request lacks the KV of what it never received: its cache is
            // the rest (the next turn prefills the missing part).
            const uint64_t held = conv.context - std::min(conv.context, q.missing);
            if (held > 0 && Gpu(cell).Park(q.in->conversation, held))
            {
                conv.heldAt = cell;
            }
            else
            {
                conv.heldAt = 0;
            }
        }
        std::size_t next = conv.turns[q.in->turn + 1];
        Push(std::max(inputs[next].arrival, lastAt), SEND, next);
    }
}

void
FluidServingEngine::Impl::OnSend(std::size_t r)
{
    result.requests[r].sent = now;
    Push(now + config.uplinkDelay, AT_BS, r);
}

void
FluidServingEngine::Impl::StartTurn(std::size_t r)
{
    auto& q = requests[r];
    auto& out = result.requests[r];
    uint16_t cell = ueCell[q.in->ue];
    auto& conv = conversations[q.in->conversation];
    if (!q.started)
    {
        q.started = true;
        active[q.in->ue].insert(r);
        out.contextTokens = conv.context + q.in->promptTokens;
    }
    if (contextWindow > 0 && out.contextTokens + q.in->outputTokens > contextWindow)
    {
        result.overContext += 1;
        Finish(r, false); // beyond the model's context window: refused, as a server would
        return;
    }
    GpuSequenceSpec spec;
    spec.decodeTokens = q.in->outputTokens;
    if (conv.context == 0)
    {
        spec.prefillTokens = q.in->promptTokens;
        Join(r, cell, spec);
        return;
    }
    if (conv.movingTo != 0)
    {
        conv.waiting.push_back(r); // its cache is on a link: start when it lands
        return;
    }
    if (conv.heldAt != 0 && conv.heldAt != cell && Gpu(conv.heldAt).IsParked(q.in->conversation))
    {
        out.transferTokens += SendCache(q.in->conversation, conv.heldAt, cell);
        result.idleFetches += 1;
        conv.waiting.push_back(r);
        return;
    }
    uint64_t cached = 0;
    if (conv.heldAt == cell)
    {
        cached = Gpu(cell).Unpark(q.in->conversation);
    }
    conv.heldAt = 0;
    out.cachedTokens = cached;
    spec.cachedTokens = cached;
    spec.prefillTokens = out.contextTokens - cached;
    Join(r, cell, spec);
}

void
FluidServingEngine::Impl::Join(std::size_t r, uint16_t cell, const GpuSequenceSpec& spec)
{
    auto& q = requests[r];
    q.spec = spec;
    q.decodedBefore = result.requests[r].decodedTokens;
    result.requests[r].prefillTokens += spec.prefillTokens;
    if (!Gpu(cell).Add(r, spec))
    {
        Finish(r, false); // its context can never fit this GPU's KV memory
        return;
    }
    q.cell = cell;
    Kick(cell);
}

void
FluidServingEngine::Impl::OnHandover(std::size_t index)
{
    const ServingHandover& h = handovers[index];
    uint16_t source = ueCell[h.ue];
    ueCell[h.ue] = h.target;
    ueNext[h.ue] += 1;
    // A copy: a slot policy's request may join a GPU (and end) in the loop.
    const std::vector<std::size_t> caught(active[h.ue].begin(), active[h.ue].end());
    for (std::size_t r : caught)
    {
        auto& q = requests[r];
        if (q.done)
        {
            continue;
        }
        result.requests[r].handovers += 1;
        if (q.handoverAt >= 0)
        {
            // Handed over again before its next token: the stall so far counts, a new one
            // starts (the UE's gap is the sum).
            CloseStall(r, h.time);
            q.handoverAt = h.time;
            result.requests[r].stalls += 1;
        }
        if (q.cell == 0 && RetargetEpisode(r, source, h.target))
        {
            continue; // its slot episode now sends to the new cell (or it is back home)
        }
        if (q.cell == 0 && Retarget(r, source, h.target))
        {
            continue; // its restore, not yet planned, now goes to the new cell
        }
        if (q.cell != source)
        {
            continue; // waiting for its conversation's cache: it starts where the UE is then
        }
        auto& out = result.requests[r];
        q.epoch += 1;
        uint64_t context = Gpu(source).Remove(r);
        q.cell = 0;
        // Its KV sent ahead for this handover: the target holds P whole tokens of it (a
        // slot policy: the fraction, every byte).
        uint64_t held = 0;
        double aheadFraction = 0;
        if (q.ahead != NO_EPISODE && aheads[q.ahead].handover == index &&
            aheads[q.ahead].phase == SENDING)
        {
            Ahead& a = aheads[q.ahead];
            const FluidAheadClaim claim =
                ClaimAhead(a.arrived, static_cast<double>(bytesPerToken), context);
            const double bits = static_cast<double>(context) * bytesPerToken * 8.0;
            aheadFraction = bits > 0 ? std::min(1.0, a.arrived * 8.0 / bits) : 0.0;
            held = claim.usedTokens;
            CloseAhead(a, claim.usedTokens, slots ? 0.0 : claim.wastedBytes);
            Store(a.to).Release(q.ahead);
            a.phase = GONE;
            sending.erase(q.ahead);
            aheadDirty = true;
            q.ahead = NO_EPISODE;
        }
        else if (q.ahead != NO_EPISODE)
        {
            AbandonAhead(aheads[q.ahead]);
        }
        // What it had left on the source: prompt tokens not prefilled, tokens not decoded.
        const uint64_t decodedHere = out.decodedTokens - q.decodedBefore;
        const uint64_t prefilled =
            context - q.spec.cachedTokens - q.spec.suffixTokens - decodedHere;
        GpuSequenceSpec rest;
        rest.decodeTokens = q.spec.decodeTokens - decodedHere;
        rest.prefillTokens = q.spec.prefillTokens - prefilled;
        q.spec = rest; // the batch's plan completes it
        if (out.decodedTokens > 0 && q.handoverAt < 0)
        {
            out.stalls += 1;
            q.handoverAt = h.time;
        }
        if (slots)
        {
            StartEpisode(r, source, h.target, context, aheadFraction);
            continue;
        }
        auto it = std::find_if(batches.begin(), batches.end(), [&](const Batch& b) {
            return b.source == source && b.target == h.target;
        });
        if (it == batches.end())
        {
            batches.push_back(Batch{source, h.target, h.time, {}, {}, {}});
            it = batches.end() - 1;
        }
        it->members.push_back(r);
        it->contexts.push_back(context);
        it->ahead.push_back(held);
    }
    lastFrom[h.ue] = source;
    lastTime[h.ue] = h.time;
    for (uint64_t id : ueConversations[h.ue])
    {
        const auto& conv = conversations[id];
        if (conv.heldAt == source && Gpu(source).IsParked(id))
        {
            MoveIdle(id, source, h.target);
        }
    }
    Push(h.time, PLAN, 0);
}

void
FluidServingEngine::Impl::CloseStall(std::size_t r, double at)
{
    auto& out = result.requests[r];
    const double stall = at - requests[r].handoverAt;
    out.stall += stall;
    out.worstStall = std::max(out.worstStall, stall);
}

bool
FluidServingEngine::Impl::Retarget(std::size_t r, uint16_t from, uint16_t to)
{
    // A second handover at the same instant as the first (before its batch was planned):
    // the restore goes from the first source straight to the last cell.
    for (auto& b : batches)
    {
        auto it = std::find(b.members.begin(), b.members.end(), r);
        if (it == b.members.end() || b.target != from)
        {
            continue;
        }
        const auto k = static_cast<std::size_t>(it - b.members.begin());
        const uint64_t context = b.contexts[k];
        // What was sent ahead to the cell it left at once is never used: waste.
        const double unused = static_cast<double>(b.ahead[k]) * bytesPerToken;
        result.requests[r].preWastedBytes += unused;
        result.preWastedBytes += unused;
        b.members.erase(it);
        b.contexts.erase(b.contexts.begin() + static_cast<std::ptrdiff_t>(k));
        b.ahead.erase(b.ahead.begin() + static_cast<std::ptrdiff_t>(k));
        const uint16_t source = b.source;
        if (source == to)
        {
            // Back where its context is: it decodes there again, nothing to restore.
            batches.push_back(Batch{source, to, now, {r}, {context}, {0}});
            return true;
        }
        auto next = std::find_if(batches.begin(), batches.end(), [&](const Batch& n) {
            return n.source == source && n.target == to;
        });
        if (next == batches.end())
        {
            batches.push_back(Batch{source, to, now, {}, {}, {}});
            next = batches.end() - 1;
        }
        next->members.push_back(r);
        next->contexts.push_back(context);
        next->ahead.push_back(0);
        return true;
    }
    return false;
}

void
FluidServingEngine::Impl::MoveIdle(uint64_t id, uint16_t source, uint16_t target)
{
    if (config.idlePolicy == IdleCachePolicy::MOVE_ON_NEXT_TURN)
    {
        return;
    }
    if (config.idlePolicy == IdleCachePolicy::DROP)
    {
        Gpu(source).Unpark(id);
        conversations[id].heldAt = 0;
        result.idleDrops += 1;
        return;
    }
    SendCache(id, source, target);
    result.idleMoves += 1;
}

uint64_t
FluidServingEngine::Impl::SendCache(uint64_t id, uint16_t from, uint16_t to)
{
    auto& conv = conversations[id];
    Transfer t;
    t.kind = IDLE_MOVE;
    t.conversation = id;
    t.tokens = Gpu(from).Unpark(id);
    conv.heldAt = 0;
    conv.movingTo = to;
    Send(from, to, t);
    return t.tokens;
}

void
FluidServingEngine::Impl::StartEpisode(std::size_t r,
                                       uint16_t from,
                                       uint16_t to,
                                       uint64_t context,
                                       double ahead)
{
    auto& q = requests[r];
    if (context > 0 && ahead >= 1.0)
    {
        // All of it was sent ahead: it goes on at the target at once with its cache.
        auto& out = result.requests[r];
        out.received = 1.0;
        out.accuracy = AccuracyUtility::Preset(context).Value(1.0);
        GpuSequenceSpec spec = q.spec;
        spec.cachedTokens = context;
        spec.priority = true;
        Join(r, to, spec);
        return;
    }
    if (context == 0)
    {
        // Nothing to send: it goes on at the target at once.
        GpuSequenceSpec spec = q.spec;
        spec.priority = true;
        Join(r, to, spec);
        return;
    }
    result.restores += 1;
    Episode e;
    e.request = r;
    e.link = static_cast<std::size_t>(from - 1) * numCells + (to - 1);
    e.arrival = now;
    e.windowEnd = now + window;
    e.context = context;
    e.bits = static_cast<double>(context) * bytesPerToken * 8.0;
    e.utility = AccuracyUtility::Preset(context);
    e.ahead = ahead;
    e.x = ahead;
    e.before = ahead;
    const std::size_t id = episodes.size();
    episodes.push_back(e);
    q.episode = id;
    links[e.link].episodes.push_back(id);
    slotLinks.insert(e.link);
    Push(e.windowEnd, EPISODE_END, id);
    ScheduleSlot(FirstSlotAtOrAfter(now, slotLength));
}

void
FluidServingEngine::Impl::ScheduleSlot(uint64_t k)
{
    if (static_cast<int64_t>(k) <= lastSlot)
    {
        k = static_cast<uint64_t>(lastSlot + 1); // that slot ran at this instant already
    }
    if (slotsPending.insert(k).second)
    {
        Push(static_cast<double>(k) * slotLength, SLOT, k);
    }
}

void
FluidServingEngine::Impl::OnSlot(uint64_t k)
{
    slotsPending.erase(k);
    lastSlot = static_cast<int64_t>(k);
    const double t = now;
    const double budget = bitsPerSecond * slotLength;
    bool busySlot = false;
    const std::vector<std::size_t> touched(slotLinks.begin(), slotLinks.end());
    for (std::size_t l : touched)
    {
        auto& link = links[l];
        // Active: handed over by the slot's start, window open, cache not whole.
        std::vector<std::size_t> on;
        std::vector<SlotUser> users;
        std::vector<double> windowEnds;
        for (std::size_t id : link.episodes)
        {
            const auto& e = episodes[id];
            if (e.arrival <= t && e.windowEnd > t && e.x < 1.0)
            {
                on.push_back(id);
                users.push_back({e.request, e.bits, e.x, e.utility});
                windowEnds.push_back(e.windowEnd);
            }
        }
        double used = 0;
        if (!on.empty())
        {
            busySlot = true;
            const FluidSlotShare share =
                ShareFluidSlot(*scheduler, users, windowEnds, t, slotLength, budget);
            used = share.usedBits;
            for (std::size_t n = 0; n < on.size(); ++n)
            {
                auto& e = episodes[on[n]];
                e.before = e.x;
                e.slotStart = t;
                e.sendEnd = std::min(t + slotLength, e.windowEnd);
                e.x = share.reached[n];
                if ((1.0 - e.x) * e.bits < 1.0)
                {
                    e.x = 1.0; // less than a bit left (rounding of R dt): whole
                }
                if (e.x >= 1.0 && e.sendEnd < e.windowEnd)
                {
                    Push(e.sendEnd, EPISODE_END, on[n]); // whole at the slot's end
                }
            }
        }
        // The idle-cache transfers get what the episodes leave of the slot, at a constant
        // rate over it (R in a slot without active episodes).
        // (Less than a bit left is none: rounding of R dt.)
        const double spare = budget - used;
        link.freeRate = on.empty() ? bitsPerSecond : (spare < 1.0 ? 0.0 : spare / slotLength);
        SetLinkRate(link, TransferRate(link));
        aheadDirty = aheadDirty || !sending.empty();
        if (on.empty() && link.episodes.empty())
        {
            slotLinks.erase(l);
        }
    }
    if (busySlot)
    {
        ScheduleSlot(k + 1); // the next slot goes on, or gives the links back their rate
    }
}

double
FluidServingEngine::Impl::ReceivedNow(const Episode& e) const
{
    if (e.slotStart < 0 || now >= e.sendEnd)
    {
        return e.x;
    }
    return e.before + (e.x - e.before) * (now - e.slotStart) / (e.sendEnd - e.slotStart);
}

void
FluidServingEngine::Impl::CloseEpisode(Episode& e)
{
    e.x = ReceivedNow(e);
    e.over = true;
    auto& on = links[e.link].episodes;
    const std::size_t id = static_cast<std::size_t>(&e - episodes.data());
    on.erase(std::remove(on.begin(), on.end(), id), on.end());
    requests[e.request].episode = NO_EPISODE;
    result.backhaulBytes += (e.x - e.ahead) * e.bits / 8; // the bytes sent ahead counted then
}

void
FluidServingEngine::Impl::OnEpisodeEnd(std::size_t id)
{
    auto& e = episodes[id];
    if (e.over)
    {
        return;
    }
    CloseEpisode(e);
    const std::size_t r = e.request;
    auto& q = requests[r];
    auto& out = result.requests[r];
    // Anytime inference (ImpactHO): it decodes on with the fraction received, the rest
    // never re-prefilled; the prompt tokens not prefilled at the source are prefilled here.
    const uint64_t held = e.x >= 1.0 ? e.context
                                     : std::min(e.context,
                                                static_cast<uint64_t>(std::floor(
                                                    e.x * static_cast<double>(e.context) + 1e-6)));
    q.missing += e.context - held;
    out.received = e.x;
    out.accuracy = e.utility.Value(e.x);
    const auto aheadTokens = std::min(
        held,
        static_cast<uint64_t>(std::floor(e.ahead * static_cast<double>(e.context) + 1e-6)));
    out.transferTokens += held - aheadTokens;
    GpuSequenceSpec spec = q.spec;
    spec.cachedTokens = held;
    spec.priority = true;
    Join(r, links[e.link].to, spec);
}

bool
FluidServingEngine::Impl::RetargetEpisode(std::size_t r, uint16_t from, uint16_t to)
{
    auto& q = requests[r];
    if (q.episode == NO_EPISODE || links[episodes[q.episode].link].to != from)
    {
        return false;
    }
    // The source still holds the whole cache while it sends it: what reached the cell the
    // UE left is lost; the source sends the cache anew to the new cell (a new window), or
    // the request goes on at the source with its cache when the UE is back there.
    auto& e = episodes[q.episode];
    CloseEpisode(e);
    const uint16_t source = links[e.link].from;
    if (source != to)
    {
        result.restores -= 1;                        // StartEpisode counts the same restore again
        StartEpisode(r, source, to, e.context, 0.0); // nothing sent ahead to the new cell
        return true;
    }
    GpuSequenceSpec spec = q.spec;
    spec.cachedTokens = e.context;
    spec.priority = true;
    Join(r, source, spec);
    return true;
}

void
FluidServingEngine::Impl::PlanBatches()
{
    std::vector<Batch> todo;
    todo.swap(batches);
    for (const auto& b : todo)
    {
        PlanBatch(b);
    }
}

void
FluidServingEngine::Impl::PlanBatch(const Batch& batch)
{
    std::vector<CtHoUe> ues;
    for (std::size_t i = 0; i < batch.members.size(); ++i)
    {
        // The rest of its cache: what was not sent ahead (the P tokens the target holds).
        if (batch.contexts[i] > batch.ahead[i])
        {
            ues.push_back(CtHoUe{batch.members[i], batch.tau, batch.contexts[i] - batch.ahead[i]});
        }
    }
    uint64_t l = 0;
    if (!ues.empty() && batch.source != batch.target)
    {
        // The target GPU's speed today (doc: "Serving many users"): the members' prefills
        // share its iterations, K x L tokens at most, behind the priority prefill queued
        // there; T_c = 0: a restore joins the GPU at once.
        const auto& gpu = Gpu(batch.target);
        const PrefillTimeModel one = gpu.ExpectedPrefillModel();
        CtHoPlanner planner(bitsPerSecond / (8.0 * bytesPerToken), one.InTurn(ues.size()), 0.0);
        CtHoSignalling signalling;
        signalling.gpuFreeAt = batch.tau + one.GetA() * gpu.GetPriorityPrefillLeft();
        planner.SetSignalling(signalling);
        l = scheduler->ChoosePrefillLength(planner, ues);
    }
    for (std::size_t i = 0; i < batch.members.size(); ++i)
    {
        std::size_t r = batch.members[i];
        uint64_t context = batch.contexts[i];
        auto& q = requests[r];
        auto& out = result.requests[r];
        // Back at the BS that holds its context (two handovers at one instant): it goes on
        // there with its context cached.
        const bool home = batch.source == batch.target;
        const uint64_t ahead = home ? 0 : batch.ahead[i];
        const uint64_t rest = context - ahead;
        uint64_t prefill = home ? 0 : std::min(l, rest);
        uint64_t transfer = home ? 0 : rest - prefill;
        if ((home ? context : ahead + prefill + transfer) != context)
        {
            throw std::logic_error("request " + std::to_string(r) + ": the restore of " +
                                   std::to_string(context) + " tokens is not conserved");
        }
        GpuSequenceSpec spec;
        spec.cachedTokens = home ? context : ahead;
        spec.suffixTokens = transfer;
        spec.prefillTokens = prefill + q.spec.prefillTokens;
        spec.decodeTokens = q.spec.decodeTokens;
        spec.priority = true;
        spec.held = transfer > 0;
        result.restores += context > 0 && !home ? 1 : 0;
        out.transferTokens += transfer;
        Join(r, batch.target, spec);
        if (transfer > 0 && !q.done)
        {
            Transfer tr;
            tr.kind = RESTORE;
            tr.request = r;
            tr.epoch = q.epoch;
            tr.tokens = transfer;
            Send(batch.source, batch.target, tr);
        }
    }
}

void
FluidServingEngine::Impl::Send(uint16_t from, uint16_t to, const Transfer& t)
{
    auto& link = LinkOf(from, to);
    Transfer copy = t;
    copy.released = now;
    link.queue.push_back(copy);
    result.backhaulBytes += static_cast<double>(t.tokens) * bytesPerToken;
    if (!link.busy)
    {
        StartLink(link);
    }
}

void
FluidServingEngine::Impl::StartLink(Link& link)
{
    if (link.queue.empty())
    {
        link.busy = false;
        aheadDirty = aheadDirty || !sending.empty(); // the caches sent ahead may use it
        return;
    }
    std::vector<KvTransferJob> jobs;
    for (const auto& t : link.queue)
    {
        KvTransferJob job;
        job.sessionId = t.kind == RESTORE ? t.request : t.conversation;
        job.handoverTime = Seconds(t.released);
        job.deadline = Seconds(t.released);
        job.remainingBytes = t.tokens * bytesPerToken;
        jobs.push_back(job);
    }
    std::size_t pick = scheduler->SelectNextTransfer(jobs);
    link.current = link.queue[pick];
    link.queue.erase(link.queue.begin() + static_cast<std::ptrdiff_t>(pick));
    link.busy = true;
    link.left = static_cast<double>(link.current.tokens) * bytesPerToken * 8.0;
    link.since = now;
    link.rate = 0;
    SetLinkRate(link, TransferRate(link));
    aheadDirty = aheadDirty || link.aheadRate > 0 || !sending.empty();
}

void
FluidServingEngine::Impl::SetLinkRate(Link& link, double rate)
{
    if (!link.busy || rate == link.rate)
    {
        return;
    }
    link.left = std::max(0.0, link.left - (now - link.since) * link.rate);
    link.since = now;
    link.rate = rate;
    link.gen += 1;
    if (rate > 0)
    {
        std::size_t index = static_cast<std::size_t>(link.from - 1) * numCells + (link.to - 1);
        Push(now + link.left / rate, TRANSFER_END, index, link.gen);
    }
}

void
FluidServingEngine::Impl::OnTransferEnd(std::size_t index)
{
    auto& link = links[index];
    Transfer t = link.current;
    link.busy = false;
    if (t.kind == RESTORE)
    {
        auto& q = requests[t.request];
        if (q.epoch == t.epoch && q.cell == link.to && !q.done)
        {
            Gpu(link.to).Release(t.request);
            Kick(link.to);
        }
    }
    else
    {
        auto& conv = conversations[t.conversation];
        conv.movingTo = 0;
        if (Gpu(link.to).Park(t.conversation, t.tokens))
        {
            conv.heldAt = link.to;
        }
        std::vector<std::size_t> waiting;
        waiting.swap(conv.waiting);
        for (std::size_t r : waiting)
        {
            StartTurn(r);
        }
    }
    StartLink(link);
}

bool
FluidServingEngine::Impl::IsStale(const Event& e) const
{
    if (e.kind == TRANSFER_END)
    {
        return !links[e.index].busy || links[e.index].gen != e.tag;
    }
    if (e.kind == AHEAD_CHANGE)
    {
        return e.tag != aheadGen;
    }
    return e.kind == EPISODE_END && episodes[e.index].over;
}

void
FluidServingEngine::Impl::Handle(const Event& e)
{
    switch (e.kind)
    {
    case ITERATION_END:
        OnIterationEnd(static_cast<uint16_t>(e.index));
        break;
    case TRANSFER_END:
        OnTransferEnd(e.index); // Run() skipped a rescheduled one (IsStale)
        break;
    case EPISODE_END:
        OnEpisodeEnd(e.index);
        break;
    case HANDOVER:
        OnHandover(e.index);
        break;
    case TRIGGER:
        if (ueNext[handovers[e.index].ue] < ueHandovers[handovers[e.index].ue].size() &&
            ueHandovers[handovers[e.index].ue][ueNext[handovers[e.index].ue]] == e.index)
        {
            // Its UE's next handover: the requests decoding at the source start sending.
            const std::vector<std::size_t> on(active[handovers[e.index].ue].begin(),
                                              active[handovers[e.index].ue].end());
            for (std::size_t r : on)
            {
                TryAhead(r);
            }
        }
        break;
    case AHEAD_CHANGE:
        aheadDirty = true; // a cache sent ahead is all sent: the others share its part
        break;
    case HOLD_END:
        if (aheads[e.index].phase == STOPPED)
        {
            Store(aheads[e.index].to).Release(e.index);
            aheads[e.index].phase = GONE;
        }
        break;
    case SLOT:
        OnSlot(e.index);
        break;
    case PLAN:
        PlanBatches();
        break;
    case AT_BS:
        StartTurn(e.index);
        break;
    case SEND:
        OnSend(e.index);
        break;
    }
}

void
FluidServingEngine::Impl::Summarize()
{
    for (std::size_t i = 0; i < result.requests.size(); ++i)
    {
        const auto& out = result.requests[i];
        if (!requests[i].done)
        {
            throw std::logic_error("request " + std::to_string(i) + " never ended");
        }
        if (out.served && out.decodedTokens != out.outputTokens)
        {
            throw std::logic_error("request " + std::to_string(i) + " decoded " +
                                   std::to_string(out.decodedTokens) + " of " +
                                   std::to_string(out.outputTokens) + " tokens");
        }
    }
    result.sloAttainment = FluidServingResult::SloAttainmentOf(result.requests);
    for (const auto& gpu : gpus)
    {
        result.evictions += gpu->GetEvictions();
    }
    for (std::size_t i = 0; i < aheads.size(); ++i)
    {
        const Ahead& a = aheads[i];
        const auto& out = result.requests[a.request];
        if (!a.closed || out.preWastedBytes > static_cast<double>(out.preSentTokens + 1) *
                                                  static_cast<double>(bytesPerToken) * (1 + 1e-9))
        {
            throw std::logic_error("request " + std::to_string(a.request) +
                                   ": its bytes sent ahead are not accounted for");
        }
    }
}

double
FluidServingEngine::Impl::TransferRate(const Link& link) const
{
    if (!aheadYields)
    {
        return std::max(0.0, link.freeRate - 8.0 * link.aheadRate);
    }
    return link.freeRate;
}

KvPreTransferStore&
FluidServingEngine::Impl::Store(uint16_t cell)
{
    auto& store = stores[cell];
    if (!store)
    {
        store = std::make_unique<KvPreTransferStore>(config.kvMemoryCapacity);
    }
    return *store;
}

void
FluidServingEngine::Impl::SettleAhead()
{
    for (std::size_t id : sending)
    {
        Ahead& a = aheads[id];
        if (a.rate <= 0)
        {
            continue;
        }
        a.arrived = std::min(a.goal, a.arrived + a.rate * (now - aheadSince));
        // All sent, or so nearly that the rest would take less than a time step.
        if (a.goal - a.arrived <= std::max(a.goal * 1e-12, a.rate * FluidTimeResolution(now)))
        {
            a.arrived = a.goal;
            aheadDirty = true;
        }
    }
    aheadSince = now;
}

void
FluidServingEngine::Impl::RateAhead()
{
    aheadDirty = false;
    aheadGen += 1;
    std::map<std::size_t, std::vector<std::size_t>> byLink; // the senders with bytes left
    for (std::size_t id : sending)
    {
        Ahead& a = aheads[id];
        a.rate = 0;
        if (a.arrived < a.goal)
        {
            byLink[static_cast<std::size_t>(a.from - 1) * numCells + (a.to - 1)].push_back(id);
        }
    }
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < links.size(); ++l)
    {
        Link& link = links[l];
        const auto it = byLink.find(l);
        const double before = link.aheadRate;
        link.aheadRate = 0;
        if (it != byLink.end() && !(aheadYields && link.busy))
        {
            // RateShare x R, out of what the slot episodes leave.
            const double allowed = std::min(share * bitsPerSecond, link.freeRate) / 8.0;
            std::vector<FluidAheadSender> senders;
            for (std::size_t id : it->second)
            {
                const Ahead& a = aheads[id];
                senders.push_back({a.arrived, a.goal, a.goal, 0.0}); // tokens come as events
            }
            const std::vector<FluidAheadRate> rates = ShareAheadRate(allowed, senders);
            for (std::size_t n = 0; n < rates.size(); ++n)
            {
                aheads[it->second[n]].rate = rates[n].rate;
                link.aheadRate += rates[n].rate;
                next = std::min(next, now + rates[n].change);
            }
        }
        if (link.aheadRate != before)
        {
            SetLinkRate(link, TransferRate(link));
        }
    }
    if (std::isfinite(next))
    {
        Push(next, AHEAD_CHANGE, 0, aheadGen);
    }
}

void
FluidServingEngine::Impl::TryAhead(std::size_t r)
{
    auto& q = requests[r];
    const uint32_t ue = q.in->ue;
    if (share <= 0 || q.done || q.ahead != NO_EPISODE || ueNext[ue] >= ueHandovers[ue].size())
    {
        return;
    }
    const std::size_t index = ueHandovers[ue][ueNext[ue]];
    const ServingHandover& h = handovers[index];
    const double trigger = triggers[index];
    const uint64_t decodedHere = result.requests[r].decodedTokens - q.decodedBefore;
    if (!(trigger <= now) || now >= h.time || q.cell != ueCell[ue] || decodedHere == 0 ||
        FluidPingPongGuarded(lastFrom[ue],
                             lastTime[ue],
                             h.target,
                             trigger,
                             pre->pingPongTime.GetSeconds()))
    {
        return; // not triggered yet, not decoding at the source, or a ping-pong
    }
    // The context it has on the source GPU now (its prefill done).
    const uint64_t context =
        q.spec.cachedTokens + q.spec.suffixTokens + q.spec.prefillTokens + decodedHere;
    Ahead a;
    a.request = r;
    a.handover = index;
    a.from = q.cell;
    a.to = h.target;
    a.room = context * bytesPerToken;
    a.goal = static_cast<double>(a.room);
    const std::size_t id = aheads.size();
    q.ahead = id;
    const FluidAheadRoom room = ReserveAhead(Store(a.to), id, a.room);
    if (room.refused)
    {
        result.preEvictions += 1; // larger than the whole memory
        a.phase = GONE;
        a.closed = true;
        aheads.push_back(a);
        return;
    }
    aheads.push_back(a);
    Evicted(room.evicted);
    sending.insert(id);
    aheadDirty = true;
}

void
FluidServingEngine::Impl::Evicted(const std::vector<uint64_t>& keys)
{
    for (uint64_t key : keys)
    {
        Ahead& a = aheads[key];
        result.preEvictions += 1;
        if (!a.closed)
        {
            CloseAhead(a, 0, a.arrived);
        }
        a.phase = GONE;
        sending.erase(key);
        aheadDirty = true;
    }
}

void
FluidServingEngine::Impl::CloseAhead(Ahead& a, uint64_t used, double wasted)
{
    auto& out = result.requests[a.request];
    const uint64_t whole =
        ClaimAhead(a.arrived, static_cast<double>(bytesPerToken), UINT64_MAX).usedTokens;
    out.preSentTokens += std::max(used, whole); // (used <= whole)
    out.preWastedBytes += wasted;
    result.preSentBytes += a.arrived;
    result.preWastedBytes += wasted;
    result.backhaulBytes += a.arrived;
    a.closed = true;
}

void
FluidServingEngine::Impl::AbandonAhead(Ahead& a)
{
    const std::size_t id = static_cast<std::size_t>(&a - aheads.data());
    requests[a.request].ahead = NO_EPISODE;
    if (a.closed)
    {
        return; // refused or evicted: counted
    }
    CloseAhead(a, 0, a.arrived);
    sending.erase(id);
    aheadDirty = true;
    a.phase = STOPPED;
    KvPreTransferStore& store = Store(a.to);
    store.Shrink(id, std::min(a.room, static_cast<uint64_t>(std::ceil(a.arrived))));
    Push(now + pre->holdTime.GetSeconds(), HOLD_END, id);
}

FluidServingEngine::FluidServingEngine(const FluidServingConfig& config,
                                       Ptr<HandoverScheduler> scheduler,
                                       uint16_t numCells,
                                       const std::vector<uint16_t>& initialCell,
                                       const std::vector<ServingHandover>& handovers,
                                       const std::vector<LlmRequest>& requests)
    : m_impl(std::make_unique<Impl>(config, scheduler, numCells, initialCell, handovers, requests))
{
    m_impl->Validate();
}

FluidServingEngine::~FluidServingEngine() = default;

bool
FluidServingEngine::Models(const HandoverScheme& scheme)
{
    return (scheme.batchPlan || scheme.slotPolicy) && !scheme.targetCoordinated;
}

FluidServingResult
FluidServingEngine::Run()
{
    auto& s = *m_impl;
    if (s.ran)
    {
        throw std::logic_error("FluidServingEngine::Run may be called once");
    }
    s.ran = true;
    s.Setup();
    while (!s.events.empty())
    {
        Impl::Event e = s.events.top();
        s.events.pop();
        if (s.IsStale(e))
        {
            continue; // a transfer end rescheduled, an episode already over
        }
        s.Sample(e.time);
        s.now = e.time;
        s.SettleAhead();
        s.Handle(e);
        if (s.aheadDirty)
        {
            s.RateAhead();
        }
    }
    // The series covers the periods up to the one the last request ended in (later events
    // are handovers of idle UEs).
    const double step = s.config.seriesStep;
    const double cutoff = std::max(std::ceil(s.result.end / step - 1e-9), 1.0) * step;
    s.Sample(cutoff + step * 1e-6);
    while (!s.result.series.empty() && s.result.series.back().time > cutoff + step * 1e-6)
    {
        s.result.series.pop_back();
    }
    s.Summarize();
    return s.result;
}

} // namespace ns3
