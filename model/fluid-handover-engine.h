/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_HANDOVER_ENGINE_H
#define FLUID_HANDOVER_ENGINE_H

#include "accuracy-utility.h"
#include "edge-llm-limits.h"
#include "handover-scheduler.h"
#include "prefill-time-model.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

namespace ns3
{

class HandoverBatcher;
class KvPreTransferStore;

/**
 * \ingroup edge-llm
 * \brief Knobs of the flow-level handover engine: the links, the target GPUs, the batches
 *        and the targets' KV memory (ctHO Sec. IV-A defaults; doc/edge-llm-design.rst,
 *        "Proactive KV pre-transfer").
 */
struct FluidEngineConfig
{
    std::string model{"qwen2.5-7b-instruct"}; //!< LLM preset
    uint32_t kvBits{16};                      //!< q
    double backhaulGbps{4.5}; //!< R of every directed BS-to-BS link, Gbit/s (1e9 bit/s), > 0
    PrefillTimeModel prefill; //!< Every target GPU's p(L)
    Time batchPeriod{MilliSeconds(10)}; //!< T_c
    /// A source's handovers to one target within this many s of the batch's first are
    /// planned together, at the first (infinity: all of them, ctHO's known handover times;
    /// 0: each alone), >= 0
    double batchSpan{std::numeric_limits<double>::infinity()};
    /// Memory for KV caches sent ahead, per target BS, bytes, >= 1 (the packet level's
    /// EdgeLlmPreTransferRole KvMemoryCapacity, whose default it takes)
    uint64_t kvMemoryCapacity{edgellm::DEFAULT_KV_MEMORY_CAPACITY};
    /// Batch policies: true, the handover times are known ahead (ctHO's setting: batches
    /// by batchSpan, planned at their first handover); false, online ctHO: each handover is
    /// planned when it happens, with its source's others within gatherTime and the arrivals
    /// the scheduler's Lookahead foresees (perfect foresight of the episodes), by the packet
    /// level's HandoverBatcher (doc/edge-llm-design.rst, "Online ctHO")
    bool knownHandoverTimes{true};
    /// Online: a source's handovers within this time of the first are planned together (the
    /// packet level's EdgeLlmSourceRole GatherTime), [0, 1] s
    Time gatherTime{MilliSeconds(2)};

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;
};

/**
 * \ingroup edge-llm
 * \brief One handover episode of a UE: an optional trigger towards a predicted target, and
 *        the handover that follows (to that cell, another one, or none). A UE that hands
 *        over twice (ping-pong) has two episodes. Without a trigger it is a plain handover.
 */
struct FluidHandoverEpisode
{
    uint64_t ueId{0};   //!< The UE (echoed; several episodes may share it)
    uint16_t source{1}; //!< Serving BS's cell id
    /// When the trigger fired, s (NaN: never; a time at or after the handover: no effect)
    double triggerTime{std::numeric_limits<double>::quiet_NaN()};
    uint16_t predictedTarget{2}; //!< The cell the trigger predicts, != source
    /// When the source stops sending ahead without a handover (the UE left the trigger
    /// condition or ended its session), s (NaN: never)
    double triggerEnd{std::numeric_limits<double>::quiet_NaN()};
    /// tau, the handover, s (NaN: none)
    double handoverTime{std::numeric_limits<double>::quiet_NaN()};
    uint16_t target{2};        //!< The cell the UE hands over to, != source
    uint64_t prefixTokens{0};  //!< Tokens decoded by the trigger: the prefix sent ahead
    uint64_t contextTokens{0}; //!< C, tokens decoded by the handover, >= prefixTokens
    /// Tokens decoded per s after the trigger (the pre-transfer policy's FollowDecoding
    /// sends them ahead too, up to contextTokens), >= 0
    double decodeRate{0};
    /// A_i, the accuracy utility of the context (ImpactHO Eq. (6)): a slot policy's input,
    /// required by one for every episode with a handover; unused by batch policies
    std::optional<AccuracyUtility> utility;
};

/**
 * \ingroup edge-llm
 * \brief What happened to one episode.
 */
struct FluidEpisodeResult
{
    uint64_t ueId{0};           //!< As in the input
    bool handedOver{false};     //!< The episode had a handover
    double handoverTime{0};     //!< tau, s (NaN: none)
    uint16_t target{0};         //!< The cell it handed over to (0: none)
    bool predictedRight{false}; //!< target == predictedTarget
    double preSentBytes{0};     //!< Bytes that reached the predicted target ahead
    /// Batch policies: P, whole tokens of them the target used (slot policies use every
    /// byte sent ahead: receivedAhead)
    uint64_t usedTokens{0};
    double wastedBytes{0};      //!< preSentBytes - P x bytes per token (slot policies: 0)
    bool evicted{false};        //!< Its pre-sent bytes were evicted (memory full)
    uint64_t prefillTokens{0};  //!< Batch policies: n_pf of the rest, planned at the handover
    uint64_t transferTokens{0}; //!< Batch policies: n_tx of the rest
    uint64_t prefillLength{0};  //!< Batch policies: L of its batch
    /// Batch policies: when its batch's prefill ended, s (tau: nothing to prefill)
    double prefillDone{std::numeric_limits<double>::quiet_NaN()};
    /// Batch policies: when its last KV byte arrived, s (tau: nothing to transfer)
    double transferDone{std::numeric_limits<double>::quiet_NaN()};
    /// KV bytes sent from the handover on: n_tx x bytes/token (slot policies: the
    /// fraction received after it, x bytes)
    double handoverBytes{0};
    /// D, s (NaN: no handover; slot policies: NaN, the accuracy grows as the cache arrives)
    double delay{std::numeric_limits<double>::quiet_NaN()};
    double received{0};      //!< Slot policies: x_i, the cache's fraction at the target at the end
    double receivedAhead{0}; //!< Slot policies: its fraction sent ahead of the handover
    /// Slot policies: A_i(x_i), the final accuracy (anytime inference; NaN for batch policies)
    double accuracy{std::numeric_limits<double>::quiet_NaN()};
    bool starved{false}; //!< Slot policies: x_i stayed below the utility's tau_i (its anchor)
    /// Slot policies: time from the handover to 99 % of A_i's asymptote, s (0: it arrived
    /// with it; NaN: never)
    double latency99{std::numeric_limits<double>::quiet_NaN()};
};

/**
 * \ingroup edge-llm
 * \brief The outcome of one flow-level engine run.
 */
struct FluidEngineResult
{
    std::string scheme;                  //!< The scheduler's name ("pre-ctho", "ctho", ...)
    std::vector<FluidEpisodeResult> ues; //!< Input order
    double worstDelay{0};                //!< max D over handovers, s (NaN: one never ended)
    double meanDelay{0};                 //!< mean D over handovers, s (0: none; NaN: as worst)
    double preSentBytes{0};              //!< Sum of preSentBytes
    double wastedBytes{0};               //!< Sum of wastedBytes
    double handoverBytes{0};             //!< Sum of handoverBytes
    double backhaulBytes{0};             //!< preSentBytes + handoverBytes
    uint32_t evictions{0};               //!< Entries evicted from a full KV memory
    uint64_t slots{0};                   //!< Slot policies: (link, slot) pairs with active users
    uint64_t fallbackSlots{0};           //!< Slot policies: those the admission fallback decided
};

/**
 * \ingroup edge-llm
 * \brief The flow-level handover core: fluid backhaul links (one per directed BS pair,
 *        rate R), every target GPU's prefill queue, every target's bounded KV memory
 *        (KvPreTransferStore), and a batch policy's PlanBatch() for every batch of
 *        handovers, with an optional pre-transfer policy (the scheduler's
 *        HandoverScheduler::GetPreTransfer(): asked, never cast) that sends caches ahead
 *        of their handovers.
 *
 * Batches: a source's handovers to one target within batchSpan of the batch's first are
 * planned at the first (ctHO Sec. II-III), each on its link's backlog and its target GPU's
 * previous batch (CtHoSignalling::gpuFreeAt). With knownHandoverTimes false (online ctHO)
 * each handover is planned when it happens instead, with its source's others within
 * gatherTime, by a HandoverBatcher per source (the packet level's): an online batch takes
 * the arrivals the scheduler's Lookahead foresees and closes on its GPU start. Then each
 * member's prefill joins its target GPU's batch, which starts on the first T_c boundary at
 * or after its last member's handover, the GPU's previous batch and (online) its close, and
 * takes p(L) (as PrefillEngine); its transfer joins its directed link at its handover
 * (online: when planned), where one transfer at a time is sent at R, picked by the policy's
 * SelectNextTransfer() (EDF for ctHO, as at packet level); its delay D is the later of the
 * two ends minus its handover time. Pre-transfer: at its trigger an episode
 * reserves room for its prefix at the predicted target (evicting the oldest entries when
 * full; a prefix larger than the whole memory is refused, counted as an eviction) and
 * sends it at its share of RateShare x R (pausing while a planned batch uses the link if
 * YieldToHandovers). At its batch a member whose target holds its entry uses
 * P = floor(arrived bytes / bytes per token) tokens of it; the rest, C - P tokens, is
 * planned (R x (1 - RateShare) while other pre-transfers keep their share) and a member
 * with nothing left has D = 0. Bytes not used are waste: dropped HoldTime after the
 * source stopped, or at once when evicted. A trigger towards the cell the UE's last
 * handover came from, less than PingPongTime after it, is ignored (as at packet level).
 * Events happen only at triggers, handovers, batch closes, prefill and transfer ends and
 * completions of a sending rate, so a run costs microseconds per episode.
 *
 * Slot policies (AllocatesSlots(), ImpactHO Sec. III-IV) run slot by slot instead: every
 * directed link's budget R dt (dt: GetSlotLength()) is shared among its active episodes
 * (handover at or before the slot's start, window GetTransferWindow() still open, cache
 * not whole) by the policy's AllocateSlot(); a share is sent at a constant rate over the
 * slot and a window that ends mid-slot cuts it pro rata. With a pre-transfer around the
 * slot policy, each episode whose trigger has fired and whose handover is after the
 * slot's start (slot-granular: a handover waits for the next slot, so the slot it falls
 * in still sends ahead) gets its prefix (prefixTokens of contextTokens) in importance
 * order, from min(what the active episodes left of R dt, RateShare x R dt) in equal
 * parts, a prefix that needs less leaving the rest to the others. The final accuracy is
 * A_i of the fraction received (anytime inference). The KV memory bound, trigger ends,
 * FollowDecoding, YieldToHandovers false (slots always yield: only what the active
 * episodes left is sent ahead), waste and the ping-pong guard are the batch policies':
 * with a slot policy and a pre-transfer that sends, a triggered episode must hand over,
 * to the predicted target, with no trigger end. Idle slots are skipped.
 */
class FluidHandoverEngine
{
  public:
    /**
     * \brief An engine for one run; checks its inputs.
     * \param config the knobs (validated)
     * \param scheduler a batch policy (ctHO, tHO, cHO: triggers ignored), a slot policy
     *        (ImpactHO and its baselines) or a pre-transfer policy around either
     *        (HandoverScheduler::GetPreTransfer() not empty)
     * \param ues the episodes (validated); must outlive the engine
     * \throws std::invalid_argument naming the field for a bad config, episode or policy
     *         (none; YieldToHandovers false with RateShare 1 for a batch policy; a slot
     *         policy's episode without a utility, or, with a pre-transfer that sends, one
     *         whose trigger predicts another target, ends, or comes to no handover)
     */
    FluidHandoverEngine(const FluidEngineConfig& config,
                        Ptr<HandoverScheduler> scheduler,
                        const std::vector<FluidHandoverEpisode>& ues);

    /// Frees the KV memories (their class is internal to the module).
    ~FluidHandoverEngine();

    /**
     * \brief Run every episode to its end.
     * \return per episode (input order) and totals
     * \throws std::logic_error when called a second time
     */
    FluidEngineResult Run();

  private:
    /// An engine event (ordered by time, then kind, then insertion).
    struct Event
    {
        double time;       //!< When, s
        int kind;          //!< Kind (ordering at equal times)
        uint64_t seq;      //!< Insertion order
        std::size_t index; //!< Episode, or batch for a handover
    };

    /// Orders the event queue: earliest first.
    struct Later
    {
        /**
         * \param a an event
         * \param b another
         * \return whether a comes after b
         */
        bool operator()(const Event& a, const Event& b) const;
    };

    /// Where an episode's bytes sent ahead are.
    enum Phase
    {
        IDLE,    //!< Nothing sent ahead (yet)
        SENDING, //!< Sending to the predicted target
        HELD,    //!< Held there, the source no longer sending
        GONE,    //!< Used, dropped or evicted
    };

    /// An episode's pre-transfer.
    struct EpisodeState
    {
        Phase phase{IDLE};    //!< Where its bytes are
        double arrived{0};    //!< Bytes at the predicted target
        double goal{0};       //!< Bytes it sends ahead in all (FollowDecoding: the context's)
        double goal0{0};      //!< Bytes decoded at the trigger (the prefix's)
        double growth{0};     //!< Bytes decoded per s after it (FollowDecoding; else 0)
        double since{0};      //!< The trigger's time, s
        bool handled{false};  //!< Its batch was planned
        double completion{0}; //!< When SENDING ends at the current rate, s
    };

    /// An episode's transfer under a slot policy.
    struct SlotState
    {
        double bits{0};    //!< L_i, bits
        double x{0};       //!< Fraction at the target
        double prefix{1};  //!< Fraction it may send ahead: prefixTokens / contextTokens
        double reach99{1}; //!< Fraction at 99 % of A_i's asymptote (infinity: never)
    };

    /// A batch member's parts (batch policies): its prefill and its transfer.
    struct BatchMember
    {
        uint64_t gpuKey{0};  //!< Its GPU batch
        uint32_t gpuSize{0}; //!< Members the GPU batch waits for (0: until its close)
        double deadline{0};  //!< Its transfer's EDF deadline tau + g(L), s
        double rate{0};      //!< Its transfer's rate, bit/s
        int pending{0};      //!< Parts not done
        double last{0};      //!< When its last part so far ended, s
    };

    /// A transfer on a link (batch policies).
    struct LinkJob
    {
        std::size_t episode{0}; //!< Whose
        double bits{0};         //!< Not yet sent (as of the link's since when served)
        double rate{0};         //!< Its rate when served, bit/s
        KvTransferJob job;      //!< What SelectNextTransfer sees
    };

    /// A directed link's transfers (batch policies): one served at a time.
    struct LinkState
    {
        std::vector<LinkJob> jobs;   //!< Released, not done
        std::size_t serving{0};      //!< The one sent (busy)
        bool busy{false};            //!< One is being sent
        double since{0};             //!< Since when, s
        double doneAt{0};            //!< When it ends, s (busy)
        uint32_t planned{0};         //!< Planned transfers not done (pre-transfers yield)
        double unreleasedSeconds{0}; //!< Planned transfers not yet released, s at their rate
    };

    /// A target GPU's batch waiting for its members (PrefillEngine's).
    struct GpuBatch
    {
        uint16_t target{0};               //!< Whose GPU
        uint32_t size{0};                 //!< Members to wait for (0: until the close)
        uint64_t prefillLength{0};        //!< L
        double lastHandover{0};           //!< Its members' latest handover, s
        std::vector<std::size_t> members; //!< Joined so far
    };

    /// \throws std::invalid_argument naming the episode's field (ues[i].field)
    void ValidateEpisodes() const;
    /// Online batches: at most 65535 handovers per directed link. \throws std::invalid_argument
    void CheckOnlineBatchSizes() const;
    /// \return episode \p j's context less the whole tokens its target already holds
    uint64_t PredictedRest(std::size_t j) const;
    /// The slot policy's checks of episode \p i. \throws std::invalid_argument as above
    void ValidateSlotEpisode(std::size_t i) const;
    /// Slot policies: every slot until each window is closed or each cache whole.
    void RunSlots();
    /**
     * \brief One link's slot at \p t: AllocateSlot() over its \p active episodes.
     * \return the bits they took
     */
    double ShareActiveSlot(double t, const std::vector<std::size_t>& active);
    /// Pre-transfer in a slot: \p spare bits for the episodes \p ahead, in equal parts.
    void SendAheadInSlot(double spare, std::vector<std::size_t> ahead);
    /// Slot policies: each episode's fraction, accuracy and latency.
    void SummarizeSlots();
    /// Sum the episodes' bytes and delays into the run's totals.
    void SumTotals();
    /// Queue an event of \p kind at \p time (s) for episode or batch \p index.
    void Push(double time, int kind, std::size_t index);
    /// \return the KV memory of \p cell (created at kvMemoryCapacity)
    KvPreTransferStore& Store(uint16_t cell);
    /// Queue the triggers, their ends and one handover event per batch (batchSpan).
    void ScheduleEpisodes();
    /// The source stops sending episode \p i ahead; its target keeps what arrived.
    void Stop(std::size_t i);
    /// The target drops what it holds of episode \p i: waste.
    void Drop(std::size_t i);
    /// \return whether \p u's trigger goes back where its UE came from within PingPongTime
    bool PingPongGuarded(const FluidHandoverEpisode& u) const;
    /// Episode \p i's trigger: reserve its room (evicting) and start sending ahead.
    void Trigger(std::size_t i);
    /**
     * \brief A batch's members stop sending ahead and use what arrived.
     * \return the rest of each member's cache to plan (ueId: the episode's index)
     */
    std::vector<CtHoUe> ClaimSentAhead(const std::vector<std::size_t>& members, double now);
    /// Plan batch \p members at \p now on its link's backlog and its GPU (ctHO Sec. II-III).
    void PlanBatch(const std::vector<std::size_t>& members, double now);
    /// \return the rate a batch from \p source to \p target is planned and sent at, bit/s
    double HandoverRate(uint16_t source, uint16_t target) const;
    /**
     * \brief Episode \p i's split (n_pf, n_tx of its batch's L) and its parts' GPU batch,
     *        deadline and rate; a transfer counts as planned on its link from now.
     */
    void Assign(std::size_t i,
                uint64_t prefillTokens,
                uint64_t transferTokens,
                uint64_t prefillLength,
                const BatchMember& parts);
    /// Episode \p i's handover: its prefill joins its GPU batch, its transfer its link.
    void Release(std::size_t i, double now);
    /// Online: episode \p i hands over now: it stops being sent ahead, and the rest of its
    /// cache is gathered with its source's others.
    void Arrive(std::size_t i, double now);
    /// Online: plan \p source's gathered handovers together.
    void ProcessGathered(uint16_t source, double now);
    /// Online: plan episode \p i (the rest of its cache: \p context tokens) now.
    void BeginOnline(std::size_t i, uint64_t context, double now);
    /// \return \p source's batcher (online), made on first use
    HandoverBatcher& Batcher(uint16_t source);
    /// Episode \p i joins GPU batch \p key (\p size members, 0: until its close).
    void JoinGpu(uint64_t key, uint32_t size, std::size_t i, double now);
    /// Online batch \p key closed with \p size members.
    void CloseGpu(uint64_t key, uint32_t size, double now);
    /// Start GPU batch \p key if every member joined.
    void StartGpuIfReady(uint64_t key, double now);
    /// Episode \p i's transfer joins its link now.
    void AddTransfer(std::size_t i, double now);
    /// Count the bits \p link's served transfer sent up to \p now.
    static void SettleLink(LinkState& link, double now);
    /// Serve \p link's next transfer (the policy picks) from \p now.
    void ServeLink(LinkState& link, double now) const;
    /// \return when \p link would have sent every planned transfer, from \p now, s
    double LinkFreeAt(uint32_t link, double now) const;
    /// \return the earliest end of a served transfer, s (infinity: none)
    double NextTransferDone() const;
    /// The transfers that end at \p now are done.
    void CompleteTransfers(double now);
    /// One of episode \p i's parts ended at \p now; both: its delay.
    void PartDone(std::size_t i, double now);
    /// \return bytes of episode \p i decoded (so sendable) by \p t, s
    double GoalAt(std::size_t i, double t) const;
    /**
     * \brief Every sending episode's rate at \p now, bytes/s, into \p rate.
     * \return the next event's time: the earliest of the queue and the rates' changes
     */
    double SendingRates(double now, std::vector<double>& rate);
    /// Move the bytes sent at \p rate from \p now to \p next.
    void Progress(const std::vector<double>& rate, double now, double next);
    /// The sending episodes due at \p now within a time step take their change now.
    /// \throws std::logic_error if none changes (the loop would not advance)
    void CatchUpStalled(double now);
    /// Handle event \p e at \p now.
    void Dispatch(const Event& e, double now);
    /// Drop what is still held and sum the totals.
    void Summarize();

    const FluidEngineConfig m_config;               //!< The knobs
    Ptr<HandoverScheduler> m_scheduler;             //!< The batch policy (or pre-transfer)
    const std::vector<FluidHandoverEpisode>& m_ues; //!< The episodes
    std::optional<PreTransferSettings> m_pre;       //!< Pre-transfer settings, if any
    double m_share{0};                              //!< RateShare (0: no pre-transfer)
    bool m_yield{true};                             //!< YieldToHandovers
    uint64_t m_bytesPerTokenInt{0};                 //!< s_KV / 8, bytes
    double m_bytesPerToken{0};                      //!< Same, as a double
    double m_bitsPerToken{0};                       //!< s_KV, bits
    double m_linkBytesPerSecond{0};                 //!< R / 8

    FluidEngineResult m_result;                                       //!< Filled as the run goes
    std::vector<EpisodeState> m_state;                                //!< Per episode
    std::vector<SlotState> m_slot;                                    //!< Per episode (slots)
    std::map<uint16_t, std::unique_ptr<KvPreTransferStore>> m_memory; //!< Per target
    std::map<uint32_t, LinkState> m_links;                            //!< Per directed link
    std::map<uint16_t, double> m_gpuFreeAt;          //!< Per target: planned prefill ends, s
    std::map<uint16_t, double> m_gpuBusy;            //!< Per target: its GPU's last batch ends, s
    std::map<uint64_t, GpuBatch> m_gpuWaiting;       //!< By key
    std::vector<std::vector<std::size_t>> m_gpuDone; //!< Started batches' members
    uint64_t m_nextGpuKey{1};                        //!< Known-times batch keys
    std::vector<BatchMember> m_members;              //!< Per episode
    std::map<uint16_t, std::unique_ptr<HandoverBatcher>> m_batchers; //!< Online: per source
    std::map<uint16_t, std::vector<CtHoUe>> m_gathered; //!< Online: per source, the rests
    std::vector<std::function<void()>> m_calls;         //!< Batcher timers
    double m_now{0};                                    //!< The loop's time, s
    mutable std::vector<KvTransferJob> m_view;       //!< Scratch: the jobs SelectNextTransfer sees
    std::vector<std::vector<std::size_t>> m_batches; //!< Episodes of each batch
    std::priority_queue<Event, std::vector<Event>, Later> m_events; //!< Pending events
    uint64_t m_seq{0};                                              //!< Next event's seq
    bool m_ran{false};                                              //!< Run() was called
};

} // namespace ns3

#endif /* FLUID_HANDOVER_ENGINE_H */
