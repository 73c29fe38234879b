/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-serving-engine.h"

#include "ctho-planner.h"
#include "edge-llm-limits.h"
#include "handover-scheduler.h"
#include "handover-scheme-registry.h"
#include "llm-model-profile.h"
#include "prefill-time-model.h"

#include "ns3/nstime.h"

#include <algorithm>
#include <cmath>
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
IdleCachePolicyFromName(const std::string& name)
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
    throw std::invalid_argument("idlePolicy must be one of " + list + ", got '" + name + "'");
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
        ITERATION_END, //!< A GPU's iteration ends (index: cell)
        TRANSFER_END,  //!< A link's transfer ends (index: link)
        HANDOVER,      //!< A UE changes cell (index: handover)
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
    };

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
        bool started{false};           //!< Reached its BS
        bool done{false};              //!< Ended (served or not)
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
    void Push(double time, Kind kind, std::size_t index);
    void Sample(double until);
    void Handle(const Event& e);
    void Kick(uint16_t cell);
    void OnIterationEnd(uint16_t cell);
    void OnToken(std::size_t r);
    void Finish(std::size_t r, bool served);
    void OnSend(std::size_t r);
    void StartTurn(std::size_t r);
    void Join(std::size_t r, uint16_t cell, const GpuSequenceSpec& spec);
    void OnHandover(const ServingHandover& h);
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
    Link& LinkOf(uint16_t from, uint16_t to);
    ContinuousBatchingGpu& Gpu(uint16_t cell);
    void Summarize();
};

void
FluidServingEngine::Impl::Validate()
{
    config.Validate();
    if (!scheduler)
    {
        throw std::invalid_argument("scheduler must be a handover policy, got none");
    }
    if (scheduler->AllocatesSlots() || scheduler->GetPreTransfer().has_value() ||
        scheduler->GetPlanLead().IsStrictlyPositive())
    {
        throw std::invalid_argument("scheme '" + scheduler->GetSchemeName() +
                                    "' is not modelled in serving mode: it takes a batch "
                                    "policy its source plans alone (" +
                                    HandoverSchemeRegistry::Names(", ", Models) + ")");
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
        auto& out = result.requests[i];
        out.ue = q.ue;
        out.conversation = q.conversation;
        out.turn = q.turn;
        out.arrival = q.arrival;
        out.promptTokens = q.promptTokens;
        out.outputTokens = q.outputTokens;
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
    result.scheme = scheduler->GetSchemeName();
}

void
FluidServingEngine::Impl::Push(double time, Kind kind, std::size_t index)
{
    events.push(Event{time, kind, seq++, index});
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
    uint16_t cell = q.cell;
    q.cell = 0;
    active[q.in->ue].erase(r);
    out.served = served;
    out.sloMet = served && out.ttft <= config.ttftSlo &&
                 (out.outputTokens == 1 || out.tpot <= config.tpotSlo);
    auto& conv = conversations[q.in->conversation];
    conv.context = out.contextTokens + out.decodedTokens;
    double lastAt = served ? now + config.downlinkDelay : now; // its last token at the UE
    result.end = std::max(result.end, lastAt);
    if (q.in->turn + 1 < conv.turns.size())
    {
        if (served && cell != 0)
        {
            if (Gpu(cell).Park(q.in->conversation, conv.context))
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
FluidServingEngine::Impl::OnHandover(const ServingHandover& h)
{
    uint16_t source = ueCell[h.ue];
    ueCell[h.ue] = h.target;
    for (std::size_t r : active[h.ue])
    {
        auto& q = requests[r];
        result.requests[r].handovers += 1;
        if (q.handoverAt >= 0)
        {
            // Handed over again before its next token: the stall so far counts, a new one
            // starts (the UE's gap is the sum).
            CloseStall(r, h.time);
            q.handoverAt = h.time;
            result.requests[r].stalls += 1;
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
        auto it = std::find_if(batches.begin(), batches.end(), [&](const Batch& b) {
            return b.source == source && b.target == h.target;
        });
        if (it == batches.end())
        {
            batches.push_back(Batch{source, h.target, h.time, {}, {}});
            it = batches.end() - 1;
        }
        it->members.push_back(r);
        it->contexts.push_back(context);
    }
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
        b.members.erase(it);
        b.contexts.erase(b.contexts.begin() + static_cast<std::ptrdiff_t>(k));
        const uint16_t source = b.source;
        if (source == to)
        {
            // Back where its context is: it decodes there again, nothing to restore.
            batches.push_back(Batch{source, to, now, {r}, {context}});
            return true;
        }
        auto next = std::find_if(batches.begin(), batches.end(), [&](const Batch& n) {
            return n.source == source && n.target == to;
        });
        if (next == batches.end())
        {
            batches.push_back(Batch{source, to, now, {}, {}});
            next = batches.end() - 1;
        }
        next->members.push_back(r);
        next->contexts.push_back(context);
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
        if (batch.contexts[i] > 0)
        {
            ues.push_back(CtHoUe{batch.members[i], batch.tau, batch.contexts[i]});
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
        uint64_t prefill = home ? 0 : std::min(l, context);
        uint64_t transfer = home ? 0 : context - prefill;
        GpuSequenceSpec spec;
        spec.cachedTokens = home ? context : 0;
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
    double seconds = static_cast<double>(link.current.tokens) * bytesPerToken * 8.0 / bitsPerSecond;
    std::size_t index = static_cast<std::size_t>(link.from - 1) * numCells + (link.to - 1);
    Push(now + seconds, TRANSFER_END, index);
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

void
FluidServingEngine::Impl::Handle(const Event& e)
{
    switch (e.kind)
    {
    case ITERATION_END:
        OnIterationEnd(static_cast<uint16_t>(e.index));
        break;
    case TRANSFER_END:
        OnTransferEnd(e.index);
        break;
    case HANDOVER:
        OnHandover(handovers[e.index]);
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
    uint64_t met = 0;
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
        met += out.sloMet ? 1 : 0;
    }
    result.sloAttainment =
        result.requests.empty() ? 0.0 : static_cast<double>(met) / result.requests.size();
    for (const auto& gpu : gpus)
    {
        result.evictions += gpu->GetEvictions();
    }
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
    return scheme.batchPlan && !scheme.wrapsInner && !scheme.targetCoordinated;
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
        s.Sample(e.time);
        s.now = e.time;
        s.Handle(e);
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
