/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CONTINUOUS_BATCHING_GPU_H
#define CONTINUOUS_BATCHING_GPU_H

#include "gpu-iteration-model.h"
#include "prefill-time-model.h"

#include <cstdint>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief What a sequence asks of a serving GPU: a request's turn, or a handover's restore
 *        of a session whose decoding goes on at this BS.
 */
struct GpuSequenceSpec
{
    /// KV tokens already in memory for it (a held conversation cache, KV received over the
    /// backhaul): counted in its context, never prefilled
    uint64_t cachedTokens{0};
    /// KV tokens of positions after the prefill, received over the backhaul (a ctHO
    /// restore's transferred suffix): in its room and its decode context, not read by its
    /// prefill chunks (which attend to the prefix only)
    uint64_t suffixTokens{0};
    uint64_t prefillTokens{0}; //!< Tokens to prefill, in chunks
    /// Tokens to decode after the prefill, the first token included (0: prefill only)
    uint64_t decodeTokens{0};
    /// A handover restore: admitted and prefilled before every sequence without it
    bool priority{false};
    /// It may not decode until Release (part of its KV still arrives over the backhaul)
    bool held{false};
};

/**
 * \ingroup edge-llm
 * \brief What happened to a sequence in an iteration.
 */
struct GpuEvent
{
    /// Kinds, in the order they happen to one sequence in one iteration
    enum Kind
    {
        PREFILL_DONE, //!< Its last prefill chunk ran
        TOKEN,        //!< It decoded a token
        FINISHED,     //!< It decoded its last token: it left the GPU, its KV freed
    };

    uint64_t id{0};      //!< The sequence
    Kind kind{TOKEN};    //!< What happened
    uint64_t decoded{0}; //!< Its tokens decoded so far (after this event)
};

/**
 * \ingroup edge-llm
 * \brief One iteration's work and time.
 */
struct GpuIteration
{
    double duration{0};          //!< t_iter, s (GpuIterationModel)
    uint64_t prefillTokens{0};   //!< P
    uint64_t decodeSequences{0}; //!< B
    uint64_t kvTokensRead{0};    //!< K
};

/**
 * \ingroup edge-llm
 * \brief A GPU that serves many users by continuous batching, with chunked prefill and a
 *        bounded KV memory that also holds idle conversations' caches
 *        (doc/edge-llm-design.rst, "A GPU shared by many users").
 *
 * Admission (at the start of each iteration): waiting sequences, priority ones first and
 * each class first come first served, are admitted in order while fewer than maxRunning
 * run and the memory has room for the sequence's whole final context, (cachedTokens + suffixTokens
 * + prefillTokens + decodeTokens) x bytes per token, evicting idle conversation caches least
 * recently parked first; the first that does not fit stops admission (no overtaking).
 *
 * An iteration (stall-free batching, as Sarathi-Serve's): first one decode step for every
 * admitted sequence that has finished its prefill, is not held and has tokens left to
 * decode (admission order, one budget token each), then prefill chunks from the budget
 * left, to admitted sequences in admission order (priority first), each chunk the
 * sequence's remaining prefill or the budget left if smaller. K sums the context of every
 * decoding sequence and the prefix already in memory of every prefill chunk. A sequence
 * whose last chunk runs and that is not held also decodes its first token in that same
 * iteration (the prefill's last position gives it).
 *
 * Times are the caller's (s); the GPU has no clock and no simulator state. The caller
 * runs iterations back to back while HasWork(): BeginIteration, then, t_iter later,
 * EndIteration.
 */
class ContinuousBatchingGpu
{
  public:
    /**
     * \param model iteration time and limits (validated)
     * \param bytesPerToken KV bytes per token (LlmModelProfile::BytesPerToken()), >= 1
     * \throws std::invalid_argument for a bad model or size
     */
    ContinuousBatchingGpu(const GpuIterationModel& model, uint64_t bytesPerToken);

    /**
     * \brief Queue a sequence for admission.
     * \param id the sequence (not on this GPU)
     * \param spec its work
     * \return false, and nothing queued, when its whole context can never fit the memory
     * \throws std::invalid_argument for an id already here or a spec with no work
     *         (prefillTokens = decodeTokens = 0)
     */
    bool Add(uint64_t id, const GpuSequenceSpec& spec);

    /**
     * \brief Let a held sequence decode (its KV has all arrived).
     * \param id a sequence on this GPU
     * \throws std::invalid_argument for an unknown id
     */
    void Release(uint64_t id);

    /**
     * \brief Take a sequence off the GPU (its UE handed over): its KV room is freed; work
     *        of the iteration under way counts for nothing.
     * \param id a sequence on this GPU
     * \return its context, tokens (cached + suffix + prefilled + decoded)
     * \throws std::invalid_argument for an unknown id
     */
    uint64_t Remove(uint64_t id);

    /// \param id a sequence \return whether it is on this GPU (waiting or admitted)
    bool Has(uint64_t id) const;

    /// \return whether an iteration started now would do some work
    bool HasWork() const;

    /// \return whether an iteration is under way (BeginIteration without EndIteration)
    bool IsBusy() const;

    /**
     * \brief Admit, then plan the next iteration.
     * \return its work and duration (duration 0: nothing to do, no iteration started)
     * \throws std::logic_error when an iteration is under way
     */
    GpuIteration BeginIteration();

    /**
     * \brief End the iteration under way: apply its work.
     * \return its events, in admission order of the sequences
     * \throws std::logic_error when none is under way
     */
    std::vector<GpuEvent> EndIteration();

    /**
     * \brief Keep a conversation's KV cache between its turns (least recently parked
     *        evicted first when the memory needs room).
     * \param conversation the conversation (not parked)
     * \param tokens its context, tokens
     * \return false, and nothing kept, when it does not fit even after evicting every
     *         other idle cache (counted as an eviction)
     * \throws std::invalid_argument for a conversation already parked or 0 tokens
     */
    bool Park(uint64_t conversation, uint64_t tokens);

    /**
     * \brief Take a conversation's idle cache (its next turn starts here, or it moves).
     * \param conversation the conversation
     * \return its tokens; 0 when none is held (never parked, or evicted)
     */
    uint64_t Unpark(uint64_t conversation);

    /// \param conversation the conversation \return whether its idle cache is held
    bool IsParked(uint64_t conversation) const;

    /**
     * \brief The duration of an iteration with today's decoding sequences and, when
     *        prefill waits, a full budget of prefill tokens (what a planner uses for the
     *        GPU's speed instead of a constant).
     * \return t_iter, s; c0 + c_p when idle (a one-token iteration)
     */
    double ExpectedIterationTime() const;

    /**
     * \brief How long a priority prefill of \p tokens queued now would take to end, if the
     *        decoding sequences stay and the priority prefill already queued goes first:
     *        whole budgets of prefill (what the decode steps leave) at ExpectedIterationTime
     *        each.
     * \param tokens the prefill, tokens
     * \return s (0 for 0 tokens)
     */
    double ExpectedPriorityPrefillTime(uint64_t tokens) const;

    /**
     * \brief The decode steps of the next iteration if nothing changes: what a planner needs
     *        to price a prefill that shares iterations with them.
     * \return (B, K): decode steps (at most the token budget) and their KV reads, tokens (a
     *         pro-rata share of every decoder's context when the budget cannot take them all)
     */
    std::pair<uint64_t, uint64_t> ExpectedDecodes() const;

    /**
     * \brief p(L) of a priority prefill of L tokens joining now, as a handover planner reads
     *        it: with (B, K) = ExpectedDecodes(), s = tokenBudget - B (at least 1) and
     *        o = c0 + cDecode B + cKv K, the prefill takes ceil(L / s) iterations, about
     *        p(L) = (cPrefill + o / s) L + o.
     * \return that model (c = 0)
     * \throws std::invalid_argument when its slope or constant leave PrefillTimeModel's
     *         ranges (GpuIterationModel::CheckPlanning rules it out)
     */
    PrefillTimeModel ExpectedPrefillModel() const;

    /// \return prefill tokens of admitted and waiting priority sequences not yet run
    uint64_t GetPriorityPrefillLeft() const;

    uint32_t GetRunning() const;      //!< \return admitted sequences
    uint32_t GetWaiting() const;      //!< \return sequences waiting for admission
    uint64_t GetKvBytesInUse() const; //!< \return bytes reserved by sequences and idle caches
    uint64_t GetEvictions() const;    //!< \return idle caches evicted (or refused) so far
    const GpuIterationModel& GetModel() const; //!< \return the model

  private:
    /// A sequence's progress.
    struct Sequence
    {
        uint64_t id{0};         //!< Its id
        GpuSequenceSpec spec;   //!< Its work
        uint64_t room{0};       //!< Its whole final context, bytes (reserved once admitted)
        uint64_t prefilled{0};  //!< Tokens prefilled
        uint64_t decoded{0};    //!< Tokens decoded
        bool admitted{false};   //!< Admitted (its room reserved)
        uint64_t chunk{0};      //!< This iteration's prefill chunk
        bool decodes{false};    //!< Decodes one token in this iteration (a decode step)
        bool firstToken{false}; //!< Decodes its first token with this iteration's last chunk
    };

    using SequenceList = std::list<Sequence>; //!< Sequences in order

    /// An idle conversation cache.
    struct Parked
    {
        uint64_t conversation{0}; //!< The conversation
        uint64_t tokens{0};       //!< Its context, tokens
        uint64_t bytes{0};        //!< Its room, bytes
    };

    using ParkedList = std::list<Parked>; //!< Least recently parked first

    /**
     * \brief Add (\p sign +1) or take (-1) a sequence's share of the running totals
     *        (m_prefilling, m_decodable, m_decodeContext, m_waitingPrefill,
     *        m_priorityPrefillLeft), as its state is now.
     */
    void Track(const Sequence& s, int sign);
    /// \return whether \p bytes fit after evicting idle caches (evicts them if so)
    bool MakeRoom(uint64_t bytes);
    /// Admit waiting sequences (priority first, FIFO in each class, no overtaking).
    void Admit();
    /// \return the waiting queue admitted from next (nullptr if none waits)
    SequenceList* NextWaiting();
    /// \return the list that holds \p s (admitted, or its waiting class)
    SequenceList& ListOf(const Sequence& s);

    GpuIterationModel m_model;      //!< Time and limits
    uint64_t m_bytesPerToken;       //!< KV bytes per token
    SequenceList m_admitted;        //!< Admitted, in admission order
    SequenceList m_waitingPriority; //!< Waiting with priority, first come first
    SequenceList m_waitingNormal;   //!< Waiting without priority, first come first
    std::unordered_map<uint64_t, SequenceList::iterator> m_index; //!< Every sequence by id
    std::vector<uint64_t> m_working; //!< This iteration's sequences, admission order
    std::vector<SequenceList::iterator> m_priorityChunks; //!< Scratch: priority prefills
    std::vector<SequenceList::iterator> m_normalChunks;   //!< Scratch: other prefills
    uint64_t m_inUse{0}; //!< Bytes reserved by admitted sequences and caches
    ParkedList m_parked; //!< Idle caches, least recently parked first
    std::unordered_map<uint64_t, ParkedList::iterator> m_parkedIndex; //!< Caches by id
    uint64_t m_parkedBytes{0};                                        //!< Bytes of the idle caches
    uint64_t m_evictions{0};           //!< Idle caches evicted or refused
    bool m_busy{false};                //!< An iteration is under way
    uint32_t m_prefilling{0};          //!< Admitted sequences with prefill left
    uint32_t m_decodable{0};           //!< Admitted, prefilled, not held, tokens left
    uint64_t m_decodeContext{0};       //!< Sum of the contexts of the m_decodable ones
    uint64_t m_waitingPrefill{0};      //!< Waiting sequences with prefill
    uint64_t m_priorityPrefillLeft{0}; //!< Prefill tokens left of priority sequences
};

} // namespace ns3

#endif /* CONTINUOUS_BATCHING_GPU_H */
