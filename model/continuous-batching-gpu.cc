/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "continuous-batching-gpu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

constexpr uint64_t U64_MAX = std::numeric_limits<uint64_t>::max(); //!< Saturation value

/// \return a + b, or U64_MAX when it overflows
uint64_t
SatAdd(uint64_t a, uint64_t b)
{
    return a > U64_MAX - b ? U64_MAX : a + b;
}

/// \return a x b, or U64_MAX when it overflows
uint64_t
SatMul(uint64_t a, uint64_t b)
{
    return (b != 0 && a > U64_MAX / b) ? U64_MAX : a * b;
}

/// \return "id <id>"
std::string
IdText(uint64_t id)
{
    return "id " + std::to_string(id);
}

} // namespace

/*
 * Bookkeeping (doc/edge-llm-design.rst, "A GPU shared by many users"):
 *
 * - Sequences sit in one of three lists: waiting with priority, waiting without, admitted (in
 *   admission order); m_index finds a sequence's node by id. Admission splices a node from a
 *   waiting list to the admitted list's end (the node and its iterator stay).
 * - Running totals kept as sequences change (Track): admitted sequences with prefill left
 *   (m_prefilling), admitted ones that can take a decode step (prefill done, not held, tokens
 *   left: m_decodable) and the sum of their contexts (m_decodeContext), waiting ones with
 *   prefill (m_waitingPrefill), and the prefill tokens left of priority sequences, waiting or
 *   admitted (m_priorityPrefillLeft). HasWork, ExpectedIterationTime and
 *   ExpectedPriorityPrefillTime read them in O(1).
 * - Events: a sequence whose last prefill chunk runs gets PREFILL_DONE (decoded 0), then,
 *   when not held at BeginIteration and decodeTokens > 0, TOKEN (decoded 1) from the same
 *   iteration (no budget token, not counted in B or K). decodeTokens = 0 (prefill only, held
 *   or not): PREFILL_DONE then FINISHED, its room freed. Held with decodeTokens > 0: it stays
 *   admitted, its room kept, after PREFILL_DONE until Release; then its first token is an
 *   ordinary decode step (budget token, B, K = its whole context). A sequence with
 *   prefillTokens = 0 never gets PREFILL_DONE. FINISHED follows the TOKEN that makes decoded
 *   = decodeTokens. A Release during an iteration counts from the next one.
 * - A decode step's K is the sequence's context cachedTokens + suffixTokens + prefilled +
 *   decoded; a chunk's
 *   K is its prefix cachedTokens + prefilled. When the decode steps outnumber the budget the
 *   first ones in admission order run (the rest wait for an iteration with room).
 * - BeginIteration makes one pass over the admitted sequences; EndIteration one pass over
 *   those that had work. Add, Release, Remove, Park and Unpark are O(1) (amortized hash
 *   look-ups; Park and admission also evict O(evicted) caches).
 */

ContinuousBatchingGpu::ContinuousBatchingGpu(const GpuIterationModel& model, uint64_t bytesPerToken)
    : m_model(model),
      m_bytesPerToken(bytesPerToken)
{
    m_model.Validate();
    if (bytesPerToken < 1)
    {
        throw std::invalid_argument("bytesPerToken must be >= 1, got " +
                                    std::to_string(bytesPerToken));
    }
}

void
ContinuousBatchingGpu::Track(const Sequence& s, int sign)
{
    const auto add = [sign](auto& total, uint64_t v) {
        if (sign > 0)
        {
            total += v;
        }
        else
        {
            total -= v;
        }
    };
    const uint64_t prefillLeft = s.spec.prefillTokens - s.prefilled;
    if (s.spec.priority)
    {
        add(m_priorityPrefillLeft, prefillLeft);
    }
    if (!s.admitted)
    {
        add(m_waitingPrefill, s.spec.prefillTokens > 0 ? 1 : 0);
        return;
    }
    if (prefillLeft > 0)
    {
        add(m_prefilling, 1);
    }
    else if (!s.spec.held && s.decoded < s.spec.decodeTokens)
    {
        add(m_decodable, 1);
        add(m_decodeContext, s.spec.cachedTokens + s.spec.suffixTokens + s.prefilled + s.decoded);
    }
}

ContinuousBatchingGpu::SequenceList&
ContinuousBatchingGpu::ListOf(const Sequence& s)
{
    if (s.admitted)
    {
        return m_admitted;
    }
    return s.spec.priority ? m_waitingPriority : m_waitingNormal;
}

ContinuousBatchingGpu::SequenceList*
ContinuousBatchingGpu::NextWaiting()
{
    if (!m_waitingPriority.empty())
    {
        return &m_waitingPriority;
    }
    if (!m_waitingNormal.empty())
    {
        return &m_waitingNormal;
    }
    return nullptr;
}

bool
ContinuousBatchingGpu::Add(uint64_t id, const GpuSequenceSpec& spec)
{
    if (Has(id))
    {
        throw std::invalid_argument(IdText(id) + " is already on this GPU");
    }
    if (spec.prefillTokens == 0 && spec.decodeTokens == 0)
    {
        throw std::invalid_argument(
            "prefillTokens + decodeTokens must be >= 1 (a sequence with work), got 0 for " +
            IdText(id));
    }
    const uint64_t tokens =
        SatAdd(SatAdd(SatAdd(spec.cachedTokens, spec.suffixTokens), spec.prefillTokens),
               spec.decodeTokens);
    const uint64_t room = SatMul(tokens, m_bytesPerToken);
    if (room > m_model.kvMemoryBytes)
    {
        return false;
    }
    Sequence s;
    s.id = id;
    s.spec = spec;
    s.room = room;
    SequenceList& queue = ListOf(s);
    queue.push_back(s);
    m_index.emplace(id, std::prev(queue.end()));
    Track(queue.back(), +1);
    return true;
}

void
ContinuousBatchingGpu::Release(uint64_t id)
{
    const auto f = m_index.find(id);
    if (f == m_index.end())
    {
        throw std::invalid_argument("Release: unknown " + IdText(id));
    }
    Sequence& s = *f->second;
    Track(s, -1);
    s.spec.held = false;
    Track(s, +1);
}

uint64_t
ContinuousBatchingGpu::Remove(uint64_t id)
{
    const auto f = m_index.find(id);
    if (f == m_index.end())
    {
        throw std::invalid_argument("Remove: unknown " + IdText(id));
    }
    const SequenceList::iterator it = f->second;
    const uint64_t context =
        it->spec.cachedTokens + it->spec.suffixTokens + it->prefilled + it->decoded;
    Track(*it, -1);
    if (it->admitted)
    {
        m_inUse -= it->room;
    }
    ListOf(*it).erase(it);
    m_index.erase(f);
    return context;
}

bool
ContinuousBatchingGpu::Has(uint64_t id) const
{
    return m_index.count(id) > 0;
}

bool
ContinuousBatchingGpu::HasWork() const
{
    if (m_prefilling > 0 || m_decodable > 0)
    {
        return true;
    }
    // Admission as BeginIteration would do it: the k-th waiting sequence is admitted when k
    // fit the running limit and the rooms so far fit the free memory with every idle cache
    // evicted. The first admitted one with work (prefill, or a decode step not held) decides.
    uint64_t room = m_model.kvMemoryBytes - m_inUse + m_parkedBytes;
    std::size_t running = m_admitted.size();
    for (const SequenceList* queue : {&m_waitingPriority, &m_waitingNormal})
    {
        for (const Sequence& s : *queue)
        {
            if (running >= m_model.maxRunning || s.room > room)
            {
                return false;
            }
            if (s.spec.prefillTokens > 0 || !s.spec.held)
            {
                return true;
            }
            room -= s.room;
            ++running;
        }
    }
    return false;
}

bool
ContinuousBatchingGpu::IsBusy() const
{
    return m_busy;
}

bool
ContinuousBatchingGpu::MakeRoom(uint64_t bytes)
{
    uint64_t free = m_model.kvMemoryBytes - m_inUse;
    if (bytes <= free)
    {
        return true;
    }
    if (bytes > free + m_parkedBytes)
    {
        return false;
    }
    while (bytes > free)
    {
        const Parked& oldest = m_parked.front();
        free += oldest.bytes;
        m_inUse -= oldest.bytes;
        m_parkedBytes -= oldest.bytes;
        m_parkedIndex.erase(oldest.conversation);
        m_parked.pop_front();
        ++m_evictions;
    }
    return true;
}

void
ContinuousBatchingGpu::Admit()
{
    while (m_admitted.size() < m_model.maxRunning)
    {
        SequenceList* queue = NextWaiting();
        if (queue == nullptr || !MakeRoom(queue->front().room))
        {
            return;
        }
        const SequenceList::iterator it = queue->begin();
        Track(*it, -1);
        m_inUse += it->room;
        it->admitted = true;
        m_admitted.splice(m_admitted.end(), *queue, it);
        Track(*it, +1);
    }
}

/**
 * An iteration starts when it has work (P + B > 0); its duration is then t_iter(P, B, K),
 * which is 0 only for a model whose coefficients are all 0 (IsBusy() tells).
 */
GpuIteration
ContinuousBatchingGpu::BeginIteration()
{
    if (m_busy)
    {
        throw std::logic_error("BeginIteration: an iteration is under way");
    }
    Admit();
    m_working.clear();
    m_priorityChunks.clear();
    m_normalChunks.clear();
    GpuIteration plan;
    uint64_t budget = m_model.tokenBudget;
    // Decode steps first, in admission order, one budget token each.
    for (auto it = m_admitted.begin(); it != m_admitted.end(); ++it)
    {
        Sequence& s = *it;
        s.chunk = 0;
        s.decodes = false;
        s.firstToken = false;
        if (s.prefilled < s.spec.prefillTokens)
        {
            (s.spec.priority ? m_priorityChunks : m_normalChunks).push_back(it);
            m_working.push_back(s.id);
        }
        else if (!s.spec.held && s.decoded < s.spec.decodeTokens && budget > 0)
        {
            s.decodes = true;
            --budget;
            ++plan.decodeSequences;
            plan.kvTokensRead +=
                s.spec.cachedTokens + s.spec.suffixTokens + s.prefilled + s.decoded;
            m_working.push_back(s.id);
        }
    }
    // Then prefill chunks from the budget left: priority sequences first, each class in
    // admission order.
    for (const auto* chunks : {&m_priorityChunks, &m_normalChunks})
    {
        for (const SequenceList::iterator& it : *chunks)
        {
            if (budget == 0)
            {
                break;
            }
            Sequence& s = *it;
            const uint64_t left = s.spec.prefillTokens - s.prefilled;
            s.chunk = std::min(left, budget);
            budget -= s.chunk;
            plan.prefillTokens += s.chunk;
            plan.kvTokensRead += s.spec.cachedTokens + s.prefilled;
            s.firstToken = s.chunk == left && !s.spec.held && s.spec.decodeTokens > 0;
        }
    }
    if (plan.prefillTokens == 0 && plan.decodeSequences == 0)
    {
        m_working.clear();
        return plan;
    }
    plan.duration =
        m_model.IterationTime(plan.prefillTokens, plan.decodeSequences, plan.kvTokensRead);
    m_busy = true;
    return plan;
}

std::vector<GpuEvent>
ContinuousBatchingGpu::EndIteration()
{
    if (!m_busy)
    {
        throw std::logic_error("EndIteration: no iteration is under way");
    }
    m_busy = false;
    std::vector<GpuEvent> events;
    for (const uint64_t id : m_working)
    {
        const auto f = m_index.find(id);
        if (f == m_index.end())
        {
            continue; // removed during the iteration: its work counts for nothing
        }
        const SequenceList::iterator it = f->second;
        Sequence& s = *it;
        if (!s.admitted || (!s.decodes && s.chunk == 0))
        {
            continue; // no work planned (or removed and added again during the iteration)
        }
        Track(s, -1);
        if (s.decodes)
        {
            ++s.decoded;
            events.push_back({s.id, GpuEvent::TOKEN, s.decoded});
        }
        else
        {
            s.prefilled += s.chunk;
            if (s.prefilled == s.spec.prefillTokens)
            {
                events.push_back({s.id, GpuEvent::PREFILL_DONE, s.decoded});
                if (s.firstToken)
                {
                    s.decoded = 1;
                    events.push_back({s.id, GpuEvent::TOKEN, s.decoded});
                }
            }
        }
        s.chunk = 0;
        s.decodes = false;
        s.firstToken = false;
        if (s.prefilled == s.spec.prefillTokens && s.decoded == s.spec.decodeTokens)
        {
            events.push_back({s.id, GpuEvent::FINISHED, s.decoded});
            m_inUse -= s.room;
            m_admitted.erase(it);
            m_index.erase(f);
        }
        else
        {
            Track(s, +1);
        }
    }
    m_working.clear();
    return events;
}

bool
ContinuousBatchingGpu::Park(uint64_t conversation, uint64_t tokens)
{
    if (IsParked(conversation))
    {
        throw std::invalid_argument("Park: conversation " + std::to_string(conversation) +
                                    " is already parked");
    }
    if (tokens == 0)
    {
        throw std::invalid_argument("Park: tokens must be >= 1, got 0");
    }
    const uint64_t bytes = SatMul(tokens, m_bytesPerToken);
    if (!MakeRoom(bytes))
    {
        ++m_evictions;
        return false;
    }
    m_parked.push_back({conversation, tokens, bytes});
    m_parkedIndex.emplace(conversation, std::prev(m_parked.end()));
    m_inUse += bytes;
    m_parkedBytes += bytes;
    return true;
}

uint64_t
ContinuousBatchingGpu::Unpark(uint64_t conversation)
{
    const auto f = m_parkedIndex.find(conversation);
    if (f == m_parkedIndex.end())
    {
        return 0;
    }
    const uint64_t tokens = f->second->tokens;
    m_inUse -= f->second->bytes;
    m_parkedBytes -= f->second->bytes;
    m_parked.erase(f->second);
    m_parkedIndex.erase(f);
    return tokens;
}

bool
ContinuousBatchingGpu::IsParked(uint64_t conversation) const
{
    return m_parkedIndex.count(conversation) > 0;
}

std::pair<uint64_t, uint64_t>
ContinuousBatchingGpu::ExpectedDecodes() const
{
    const uint64_t d = m_decodable;
    const uint64_t b = std::min<uint64_t>(d, m_model.tokenBudget);
    if (b == d)
    {
        return {b, m_decodeContext};
    }
    // Only b of the d decode steps fit the budget: their reads taken at the mean context.
    const double k =
        static_cast<double>(m_decodeContext) * static_cast<double>(b) / static_cast<double>(d);
    return {b, static_cast<uint64_t>(std::llround(k))};
}

/**
 * With D admitted sequences that can take a decode step (prefill done, not held, tokens
 * left), C the sum of their contexts (cachedTokens + suffixTokens + prefilled + decoded) and T the
 * token budget: B = min(D, T) and K = C (K = round(C B / D) when D > T). P = T - B when prefill
 * waits (an admitted sequence with prefill left, or a waiting one with prefillTokens > 0),
 * else 0. The result is t_iter(P, B, K) = c0 + c_p P + c_d B + c_kv K, and c0 + c_p when
 * P = B = 0. The prefill chunks' prefix reads are left out (they depend on which chunks run).
 */
double
ContinuousBatchingGpu::ExpectedIterationTime() const
{
    const auto [b, k] = ExpectedDecodes();
    const bool prefillWaits = m_prefilling > 0 || m_waitingPrefill > 0;
    const uint64_t p = prefillWaits ? m_model.tokenBudget - b : 0;
    if (p == 0 && b == 0)
    {
        return m_model.IterationTime(1, 0, 0);
    }
    return m_model.IterationTime(p, b, k);
}

/**
 * With B, K as in ExpectedIterationTime, Q the prefill tokens left of the priority sequences
 * already on the GPU (waiting or admitted) and L = \p tokens: each iteration prefills
 * T - B tokens, so the prefill ends after n = ceil((Q + L) / (T - B)) iterations of
 * t_iter(T - B, B, K) each: n t_iter(T - B, B, K). 0 for L = 0; +infinity when B = T (the
 * decode steps take the whole budget).
 */
double
ContinuousBatchingGpu::ExpectedPriorityPrefillTime(uint64_t tokens) const
{
    if (tokens == 0)
    {
        return 0.0;
    }
    const auto [b, k] = ExpectedDecodes();
    const uint64_t perIteration = m_model.tokenBudget - b;
    if (perIteration == 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    const uint64_t total = SatAdd(m_priorityPrefillLeft, tokens);
    const uint64_t n = total / perIteration + (total % perIteration != 0 ? 1 : 0);
    return static_cast<double>(n) * m_model.IterationTime(perIteration, b, k);
}

uint32_t
ContinuousBatchingGpu::GetRunning() const
{
    return static_cast<uint32_t>(m_admitted.size());
}

uint32_t
ContinuousBatchingGpu::GetWaiting() const
{
    return static_cast<uint32_t>(m_waitingPriority.size() + m_waitingNormal.size());
}

uint64_t
ContinuousBatchingGpu::GetKvBytesInUse() const
{
    return m_inUse;
}

uint64_t
ContinuousBatchingGpu::GetEvictions() const
{
    return m_evictions;
}

const GpuIterationModel&
ContinuousBatchingGpu::GetModel() const
{
    return m_model;
}

PrefillTimeModel
ContinuousBatchingGpu::ExpectedPrefillModel() const
{
    const auto [b, k] = ExpectedDecodes();
    const uint64_t share = m_model.tokenBudget > b ? m_model.tokenBudget - b : 1;
    const double overhead = m_model.c0 + m_model.cDecode * static_cast<double>(b) +
                            m_model.cKv * static_cast<double>(k);
    return PrefillTimeModel(m_model.cPrefill + overhead / static_cast<double>(share),
                            overhead,
                            0.0);
}

uint64_t
ContinuousBatchingGpu::GetPriorityPrefillLeft() const
{
    return m_priorityPrefillLeft;
}

} // namespace ns3
