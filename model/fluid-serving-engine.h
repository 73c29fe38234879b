/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_SERVING_ENGINE_H
#define FLUID_SERVING_ENGINE_H

#include "continuous-batching-gpu.h"
#include "edge-llm-limits.h"
#include "gpu-iteration-model.h"
#include "llm-request-trace.h"

#include "ns3/ptr.h"

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class HandoverScheduler;
struct HandoverScheme;

/**
 * \ingroup edge-llm
 * \brief What a BS does with an idle UE's conversation cache when the UE hands over between
 *        two turns (doc/edge-llm-design.rst, "Conversations").
 */
enum class IdleCachePolicy
{
    MOVE_NOW,          //!< Send it to the target at the handover
    MOVE_ON_NEXT_TURN, //!< Leave it at the source; the next turn fetches it if still held
    DROP,              //!< Free it; the next turn re-prefills the whole context
};

/**
 * \ingroup edge-llm
 * \brief The idle-cache policies' names, in enum order ("move-now", "move-on-next-turn",
 *        "drop").
 * \return the names
 */
const std::vector<std::string>& IdleCachePolicyNames();

/**
 * \ingroup edge-llm
 * \brief A policy by name.
 * \param name one of IdleCachePolicyNames()
 * \param field what the error names (the flow level's "idlePolicy", or an attribute's path)
 * \return the policy
 * \throws std::invalid_argument "<field> must be one of ..., got ..."
 */
IdleCachePolicy IdleCachePolicyFromName(const std::string& name,
                                        const std::string& field = "idlePolicy");

/**
 * \ingroup edge-llm
 * \brief A UE's change of serving cell.
 */
struct ServingHandover
{
    uint32_t ue{0};     //!< The UE
    double time{0};     //!< tau, s, >= 0
    uint16_t target{1}; //!< The new serving cell, in [1, numCells], != the serving one
    /// When the handover became likely (the UE's A3 entering event, after its time to
    /// trigger), s, in [0, time] (NaN: unknown): the trigger of a pre-transfer policy with
    /// Trigger A3Entering, which requires it (PredictedCrossing: time - LeadTime instead)
    double likely{std::numeric_limits<double>::quiet_NaN()};
};

struct ServingRequestResult;

/**
 * \ingroup edge-llm
 * \brief Knobs of the flow-level serving engine (doc/edge-llm-design.rst, "Serving many
 *        users").
 */
struct FluidServingConfig
{
    std::string model{"qwen2.5-7b-instruct"}; //!< LLM preset (KV bytes per token)
    uint32_t kvBits{16};                      //!< q: 16, 8 or 4
    GpuIterationModel gpu;                    //!< Every BS's GPU (validated)
    double backhaulGbps{4.5};   //!< R of every directed BS-to-BS link, Gbit/s, (0, 1e4]
    double uplinkDelay{0.01};   //!< A prompt's radio uplink time, s, [0, 10]
    double downlinkDelay{0.01}; //!< A token's radio delivery time, s, [0, 10]
    IdleCachePolicy idlePolicy{IdleCachePolicy::MOVE_ON_NEXT_TURN}; //!< Idle caches
    double ttftSlo{2.0};    //!< SLO: time to first token at most, s, (0, 3600]
    double tpotSlo{0.2};    //!< SLO: mean time per output token at most, s, (0, 3600]
    double seriesStep{1.0}; //!< GPU series period, s, [1e-3, 3600]
    /// Pre-transfer policies: each BS's memory for KV caches sent ahead of a handover,
    /// bytes, >= 1 (KvPreTransferStore; the packet level's EdgeLlmPreTransferRole
    /// KvMemoryCapacity, whose default it takes)
    uint64_t kvMemoryCapacity{edgellm::DEFAULT_KV_MEMORY_CAPACITY};

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument "<field> must be in <range>, got <value>"
     */
    void Validate() const;

    /**
     * \brief The SLO rule, at both levels (the serving study's packet level too).
     * \param request a request's outcome (served, ttft, tpot, outputTokens)
     * \return served, with ttft <= ttftSlo and (one output token or tpot <= tpotSlo)
     */
    bool MeetsSlo(const ServingRequestResult& request) const;
};

/**
 * \ingroup edge-llm
 * \brief What happened to one request (a turn).
 *
 * Times are from the request's send time: turn 0 (and a turn whose previous turn ended
 * before its trace arrival) is sent at its arrival; a later turn is sent when the previous
 * turn's last token reached the UE, if that is later. NaN: never happened.
 */
struct ServingRequestResult
{
    uint32_t ue{0};             //!< Its UE
    uint64_t conversation{0};   //!< Its conversation
    uint32_t turn{0};           //!< Its turn
    double arrival{0};          //!< Its trace arrival, s
    double sent{0};             //!< When the UE sent it, s (>= arrival)
    uint64_t promptTokens{0};   //!< New prompt tokens
    uint64_t outputTokens{0};   //!< Tokens it asked for
    uint64_t contextTokens{0};  //!< Its context at the start: earlier turns + prompt
    uint64_t decodedTokens{0};  //!< Tokens decoded (= outputTokens when served)
    uint64_t cachedTokens{0};   //!< Of its earlier turns, tokens found held (no prefill)
    uint64_t prefillTokens{0};  //!< Tokens prefilled for it, restores included
    uint64_t transferTokens{0}; //!< KV tokens moved over the backhaul for it
    /// Handovers of its UE between its arrival at the BS and its end (queued, prefilling,
    /// decoding or waiting for its conversation's cache)
    uint32_t handovers{0};
    uint32_t stalls{0}; //!< Those after its first token: each a stall of its stream
    double ttft{std::numeric_limits<double>::quiet_NaN()}; //!< First token at the UE - sent, s
    double tpot{std::numeric_limits<double>::quiet_NaN()}; //!< (last - first) / (outputs - 1), s
    double e2e{std::numeric_limits<double>::quiet_NaN()};  //!< Last token at the UE - sent, s
    /// Sum over its handovers of the time from the handover to its next decoded token, s
    double stall{0};
    double worstStall{0}; //!< The longest of them, s
    /// Slot policies: x, the fraction of its context's KV that reached the target in its
    /// last handover's episode, in [0, 1] (NaN: batch policies, or no episode)
    double received{std::numeric_limits<double>::quiet_NaN()};
    /// Slot policies: A(x), the accuracy utility (AccuracyUtility::Preset of the episode's
    /// context) at that fraction: anytime inference on a partial cache (NaN as received)
    double accuracy{std::numeric_limits<double>::quiet_NaN()};
    /// Pre-transfer policies: whole KV tokens of it that reached a target ahead of its
    /// handovers (used or not), summed over them (0: other policies)
    uint64_t preSentTokens{0};
    /// Pre-transfer policies: bytes of it sent ahead that no handover used (the request
    /// ended first, another target, evicted, a part of a token), bytes (0: other policies)
    double preWastedBytes{0};
    bool served{false}; //!< It decoded every token
    bool sloMet{false}; //!< Served with ttft <= ttftSlo and (one token or tpot <= tpotSlo)

    /**
     * \brief A row for \p request: its ue, conversation, turn, arrival, prompt and output
     *        tokens; the rest as the defaults say (nothing happened yet).
     * \param request the trace's request
     * \return the row
     */
    static ServingRequestResult Of(const LlmRequest& request);
};

/**
 * \ingroup edge-llm
 * \brief One GPU's state over one series period.
 */
struct ServingGpuSample
{
    double time{0};        //!< The period's end, s
    uint16_t cell{1};      //!< The BS
    double utilization{0}; //!< Busy share of the period, [0, 1]
    uint32_t running{0};   //!< Admitted sequences at the period's end
    uint32_t waiting{0};   //!< Sequences waiting for admission then
};

/**
 * \ingroup edge-llm
 * \brief The outcome of one serving run.
 */
struct FluidServingResult
{
    std::string scheme;                         //!< The handover policy's name
    std::vector<ServingRequestResult> requests; //!< Input order
    std::vector<ServingGpuSample> series;       //!< By time, then cell
    double end{0}; //!< When the last request ended (its last token at the UE, or refused), s
    double sloAttainment{0}; //!< Share of requests with sloMet (0 with none): SloAttainmentOf

    /**
     * \param requests the rows
     * \return the share of them with sloMet, 0 with none
     */
    static double SloAttainmentOf(const std::vector<ServingRequestResult>& requests);
    uint64_t evictions{0};   //!< Idle caches evicted or refused, all BSs
    uint64_t idleMoves{0};   //!< Idle caches sent at a handover (move-now)
    uint64_t idleFetches{0}; //!< Idle caches fetched by a next turn from another BS
    uint64_t idleDrops{0};   //!< Idle caches freed at a handover (drop)
    uint64_t restores{0};    //!< Handovers of a request on a GPU (slot policies: episodes)
    uint64_t overContext{0}; //!< Requests refused: context + output beyond the model's window
    /// KV bytes over the backhaul (slot policies: the fractions sent, cancelled episodes'
    /// included; pre-transfer policies: the bytes sent ahead included)
    double backhaulBytes{0};
    double preSentBytes{0};   //!< Pre-transfer policies: KV bytes that reached a target ahead
    double preWastedBytes{0}; //!< Pre-transfer policies: those no handover used
    /// Pre-transfer policies: caches sent ahead evicted from a full KV memory, or refused
    /// (larger than the whole memory)
    uint64_t preEvictions{0};
};

/**
 * \ingroup edge-llm
 * \brief Many users on many BSs at flow level: requests (LlmRequestTrace), a continuous-
 *        batching GPU per BS (ContinuousBatchingGpu), a fluid backhaul link per directed BS
 *        pair, and the handover policy for requests caught by a handover
 *        (doc/edge-llm-design.rst, "Serving many users").
 *
 * A request is sent by its UE (turns: see ServingRequestResult), reaches the UE's serving
 * BS uplinkDelay later and joins its GPU with its context: the earlier turns' tokens held
 * there (Unpark), fetched from the BS that holds them (the backhaul, then held here), or
 * re-prefilled when none holds them. Each decoded token reaches the UE downlinkDelay
 * later. When its last token is decoded, a conversation with turns left parks its cache on
 * that GPU.
 *
 * A handover of a UE takes each of its requests off the source GPU with the C tokens of
 * context there; the handovers from one source to one target at one instant form a batch,
 * whose prefill length L the policy chooses (HandoverScheduler::ChoosePrefillLength, ctHO
 * Prop. 1) on a planner whose p(L) is the target GPU's today for the batch's n members
 * (ContinuousBatchingGpu::ExpectedPrefillModel, its slope times n, at most 1 s/token),
 * after the priority prefill queued there (gpuFreeAt), with T_c = 0. A member prefills min(L, C)
 * tokens (plus any prompt tokens not yet prefilled) as a priority sequence on the target GPU; the
 * other C - min(L, C) tokens' KV is sent over the link (one transfer at a time at R, the policy's
 * SelectNextTransfer picking), and the member decodes only once it has arrived. Its stall is the
 * time from the handover to its next decoded token (a handover before its next token adds its own:
 * the stalls add up; two handovers at one instant restore from the first source to the last cell).
 * An idle UE's caches follow the idle policy. A request whose context and output exceed the model's
 * context window is refused (reported, not served).
 *
 * A slot policy (ImpactHO, EA, WTA, PF: AllocatesSlots()) plans no batch: each request a
 * handover takes off the source GPU with C > 0 tokens becomes a slot episode on its directed
 * link, its whole cache sent in importance order within GetTransferWindow() from the
 * handover, slot by slot (GetSlotLength(); ShareFluidSlot, as FluidHandoverEngine: a
 * handover waits for the next slot boundary, each slot's R dt shared by AllocateSlot()
 * among the active episodes with AccuracyUtility::Preset(C), a share sent at a constant rate
 * over the slot, a window that ends mid-slot cutting it pro rata, idle slots skipped). When
 * the cache is whole (the end of its slot) or the window closes, the request resumes as a
 * priority sequence on the target GPU holding floor(x C) tokens of KV, x the fraction
 * received (anytime inference: the rest never re-prefilled; ServingRequestResult::received
 * and accuracy), its prompt rest prefilled first. A handover during the episode cancels it:
 * the source sends the cache anew to the new cell, or the request goes on at the source if
 * the UE is back there. Idle-cache transfers on a link with episodes get what the episodes
 * leave of each slot (R outside slots).
 *
 * A pre-transfer policy (pre-ctho, pre-impactho: HandoverScheduler::GetPreTransfer() around
 * a batch or slot policy; doc/edge-llm-design.rst, "Proactive KV pre-transfer") knows each
 * handover ahead: its trigger is max(0, tau - LeadTime) (PredictedCrossing, as the packet
 * level's scripted handovers) or ServingHandover::likely (A3Entering). From the later of
 * the trigger and its first token on the source GPU to the handover, each request of the
 * UE decoding there sends its KV ahead to the handover's target over the source->target
 * link (the steps of fluid-pre-transfer.h, shared with FluidHandoverEngine): the context it had
 * when it started (FollowDecoding: each token decoded since too), at most RateShare x R
 * shared equally by the link's caches sent ahead, out of what the slot episodes leave of R,
 * pausing while a handover or idle-cache transfer uses the link (YieldToHandovers; else
 * those transfers get the rest); the target reserves its room in a KV memory of
 * kvMemoryCapacity bytes (KvPreTransferStore: the oldest entries evicted, one larger than
 * the memory refused; preEvictions). A trigger back to the cell the UE came from within
 * PingPongTime is ignored. At the handover the request brings the P whole tokens that
 * arrived: a batch policy plans only C - P (ChoosePrefillLength on the rests; the P tokens
 * are held at the target, never prefilled nor sent again); a slot policy's episode starts
 * with the fraction sent ahead (the first entries in importance order, every byte used),
 * ServingRequestResult::received including it. Bytes sent ahead that no handover uses (the
 * request ended first, a second handover at the same instant to another cell, an
 * eviction, a batch policy's part of a token) are waste (preWastedBytes); the target
 * frees them HoldTime after the source stopped. Target-coordinated policies are refused.
 *
 * Events are processed in time order (ties: iteration ends, transfer ends, handovers,
 * batch plans, arrivals at the BS, sends); a run is deterministic.
 */
class FluidServingEngine
{
  public:
    /**
     * \param config the knobs (validated)
     * \param scheduler a batch or slot policy its source plans alone, or a pre-transfer
     *        policy around one (Models())
     * \param numCells BSs, cells 1..numCells, [1, 65535]
     * \param initialCell each UE's serving cell at time 0 (one per UE, in [1, numCells])
     * \param handovers serving-cell changes (any order; each to another cell than the UE's
     *        serving one at that time; likely in [0, time] or NaN, required by a
     *        pre-transfer policy with Trigger A3Entering)
     * \param requests the requests (each ue < initialCell.size(); a conversation's turns
     *        on one UE, numbered 0, 1, ... in arrival order)
     * \throws std::invalid_argument naming the field for a bad input or policy
     */
    FluidServingEngine(const FluidServingConfig& config,
                       Ptr<HandoverScheduler> scheduler,
                       uint16_t numCells,
                       const std::vector<uint16_t>& initialCell,
                       const std::vector<ServingHandover>& handovers,
                       const std::vector<LlmRequest>& requests);

    ~FluidServingEngine();

    /**
     * \brief Which schemes serving mode models (a program's filter for
     *        HandoverSchemeRegistry::ParseList and Names): a batch policy (ctHO, tHO, cHO)
     *        or a slot policy (ImpactHO, EA, WTA, PF) its source plans alone, or a
     *        pre-transfer policy around one (pre-ctho, pre-impactho); not a
     *        target-coordinated one (tc-ctho), whose schedulers the constructor refuses,
     *        asked through the base class.
     * \param scheme a registry entry
     * \return whether it is modelled
     */
    static bool Models(const HandoverScheme& scheme);

    /**
     * \brief Run every request to its end.
     * \return per request (input order), GPU series and totals
     * \throws std::logic_error when called a second time, or when an invariant breaks
     *         (tokens not conserved)
     */
    FluidServingResult Run();

  private:
    struct Impl;
    std::unique_ptr<Impl> m_impl; //!< The run's state
};

} // namespace ns3

#endif /* FLUID_SERVING_ENGINE_H */
