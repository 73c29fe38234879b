/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SESSION_STATS_H
#define EDGE_LLM_SESSION_STATS_H

#include "ns3/application-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

class EdgeLlmNode;
class EdgeLlmUeApp;

/**
 * \ingroup edge-llm
 * \brief Count, mean, median, 95th percentile and worst of a set of delays.
 *
 * NaN-safe: with Of(), one unknown sample (NaN, e.g. a session that was lost) makes mean,
 * median, p95 and worst unknown (NaN), never smaller than they would be; with OfKnown(),
 * the unknown samples are left out and counted (unknown).
 */
struct EdgeLlmDelaySummary
{
    uint64_t count{0};   //!< Samples (OfKnown: known ones)
    uint64_t unknown{0}; //!< OfKnown: samples left out as unknown (NaN); Of: always 0
    double mean{std::numeric_limits<double>::quiet_NaN()};   //!< Mean, s (NaN if none/unknown)
    double median{std::numeric_limits<double>::quiet_NaN()}; //!< Nearest-rank median, s
    double p95{std::numeric_limits<double>::quiet_NaN()};    //!< Nearest-rank 95th percentile, s
    double worst{std::numeric_limits<double>::quiet_NaN()};  //!< Largest, s

    /**
     * \brief Summarize \p samples.
     *
     * p95 is the nearest-rank percentile: the ceil(0.95 n)-th smallest sample (for
     * n < 20 that is the largest); the median is the ceil(0.5 n)-th smallest (the lower
     * middle for an even n). No sample: count 0 and NaN elsewhere.
     * \param samples delays, s, any order; a NaN makes mean, p95 and worst NaN
     * \return the summary
     */
    static EdgeLlmDelaySummary Of(const std::vector<double>& samples);

    /**
     * \brief Summarize the known samples of \p samples: as Of() with every NaN left out
     *        (count is then the known ones), for a sample where an unknown value means
     *        "not this kind" rather than "worse" (e.g. queue sojourns, or the UEs a study
     *        reports alongside how many were restored).
     * \param samples delays, s, any order
     * \return the summary of the non-NaN ones, with unknown = how many were NaN
     */
    static EdgeLlmDelaySummary OfKnown(std::vector<double> samples);
};

/**
 * \ingroup edge-llm
 * \brief How far the restores came out from their plans: for each handover with both a
 *        planned delay (the source's HandoverPlanned) and a restored one (the target's
 *        SessionRestored), the error e = restored - predicted.
 *
 * A plan "holds" when |e| <= RELATIVE_TOLERANCE x predicted + ABSOLUTE_TOLERANCE (5 % +
 * 2 ms: the margin within which a study's prediction is taken as exact at packet level).
 */
struct EdgeLlmPredictionError
{
    static constexpr double RELATIVE_TOLERANCE = 0.05;  //!< Share of the predicted delay
    static constexpr double ABSOLUTE_TOLERANCE = 0.002; //!< s

    /// |e| over the pairs (count, mean, median, p95, worst), s
    EdgeLlmDelaySummary absolute;
    /// The largest e, s (> 0: a restore later than planned; NaN: no pair)
    double worstLate{std::numeric_limits<double>::quiet_NaN()};
    /// The largest |e| / predicted over the pairs with predicted > 0 (NaN: none)
    double worstRelative{std::numeric_limits<double>::quiet_NaN()};
    /// Pairs outside the tolerance
    uint64_t outside{0};

    /**
     * \brief Compare \p predicted with \p restored, element by element.
     * \param predicted planned delays, s (NaN: not planned, e.g. ImpactHO; left out)
     * \param restored restored delays, s, same length (NaN: not restored; left out)
     * \return the error over the pairs where both are known (count 0 and NaN: none)
     * \throws std::invalid_argument if the lengths differ
     */
    static EdgeLlmPredictionError Of(const std::vector<double>& predicted,
                                     const std::vector<double>& restored);

    /**
     * \return one line for a program's report, e.g. "plan vs restore over 12 UEs: |error|
     *         median 0.4 ms, p95 1.9 ms, worst 2.1 ms; latest +2.1 ms, worst relative 0.6 %;
     *         0 outside 5.0 % + 2.0 ms" ("plan vs restore: no UE with both a plan and a
     *         restore" if none)
     */
    std::string Describe() const;
};

/**
 * \ingroup edge-llm
 * \brief What became of one edge handover of one LLM session (one record per handover: a
 *        UE that hands over twice has two).
 */
struct EdgeLlmHandoverRecord
{
    /// How a handover ended.
    enum Outcome
    {
        PENDING,        //!< Nothing final traced yet (still restoring when the run ended)
        RESTORED,       //!< The target resumed decoding (SessionRestored)
        TIMED_OUT,      //!< Restored, after the KV transfer hit TransferTimeout and the target
                        //!< re-prefilled the missing tokens (TransferTimedOut, SessionRestored)
        CANCELLED,      //!< The transfer was cancelled: the UE came back, its handover failed,
                        //!< or it moved on before the restore (TransferCancelled); the session
                        //!< goes on in the source cell or in a later record
        LOST,           //!< The session ended without being restored anywhere (SessionLost)
        AFTER_DECODING, //!< The UE handed over after its session had decoded every token:
                        //!< nothing to restore, no KV moved (HandoverAfterDecoding)
    };

    /// Marks a value that was never measured.
    static constexpr double UNKNOWN = std::numeric_limits<double>::quiet_NaN();

    uint64_t sessionId{0};            //!< Session id (the UE's IMSI in LTE scenarios)
    uint16_t sourceCellId{0};         //!< Cell the session left
    uint16_t targetCellId{0};         //!< Cell it handed over to
    double handoverTime{UNKNOWN};     //!< When the source started the handover, s
    uint64_t contextTokens{0};        //!< Context at the handover, tokens
    uint64_t prefillTokens{0};        //!< n_pf, tokens the target prefills (HandoverPlanned)
    uint64_t transferTokens{0};       //!< n_tx, tokens whose KV cache crosses the backhaul
    bool planned{false};              //!< HandoverPlanned was traced for it
    double predictedDelay{UNKNOWN};   //!< The planner's delay for the actual times, s
    double restoredDelay{UNKNOWN};    //!< Target: resume time minus handover time, s
    double ueStall{UNKNOWN};          //!< UE: gap between the last token of the source cell
                                      //!< and the first of the target's, s
    double ueDelay{UNKNOWN};          //!< UE: that gap's excess over the decode cadence, s
    double receivedFraction{UNKNOWN}; //!< ImpactHO: share of the cache received
    /// What finished last and so bounded the restore: "transfer" (the last KV byte arrived
    /// at the resume instant), "prefill" (the target's prefill ended then), "window"
    /// (ImpactHO: the transfer window closed before the whole cache arrived), "none" (not
    /// restored)
    std::string bound{"none"};
    /// Prefill-bound restores: when the target GPU's batch whose end resumed the session
    /// started (its PrefillEngine's BatchStart), s
    double batchStart{UNKNOWN};
    /// n_tx x KV bytes per token of the source's model (ImpactHO: the whole cache offered)
    uint64_t kvBytesExpected{0};
    /// KV bytes the target had: all of them (KvTransferReceived), or, when the transfer
    /// timed out, the whole tokens it kept: (n_tx - reprefilled) x KV bytes per token;
    /// ImpactHO: the share it resumed on x the whole cache (a truncated transfer too)
    uint64_t kvBytesReceived{0};
    bool timedOut{false}; //!< The transfer hit TransferTimeout
    /// The target replanned the transfer (TransferReplanned: behind its plan, it stopped
    /// the source and re-prefilled the missing tokens, reprefillTokens)
    bool replanned{false};
    uint64_t reprefillTokens{0}; //!< Tokens the target re-prefilled (timeout or replan)
    /// Tokens of the cache the target held from a pre-transfer and used (PreTransferUsed;
    /// the split n_pf, n_tx is of the rest)
    uint64_t preSentTokens{0};
    /// UE: token indices its stream skipped at the stall (index gap - 1; 0 when nothing
    /// was lost, or no stall was measured): tokens decoded that never reached the UE. They
    /// lengthen ueStall by this many decode intervals and leave ueDelay as it is; a record
    /// with tokens missing may have ueDelay below restoredDelay by more than the usual few
    /// ms (doc: "Measured delay")
    uint32_t ueTokensMissing{0};
    /// The stream after the handover: from handoverTime to the session's G-th token after
    /// it (EdgeLlmSessionStats StreamTokens = G > 0), s; unknown when G is 0, the
    /// handover was cancelled, or the session decoded fewer than G more tokens
    double streamDelay{UNKNOWN};
    bool started{false};              //!< HandoverStarted was traced (else context is unknown)
    Outcome outcome{PENDING};         //!< How it ended
    Time transferDoneAt{Time::Max()}; //!< When every KV byte was in (Max: never)
    Time restoredAt{Time::Max()};     //!< When decoding resumed (Max: never)

    /// \return the outcome as written in the CSV: pending, restored, timed_out, cancelled,
    ///         lost, after_decoding
    std::string GetOutcomeName() const;
};

/**
 * \ingroup edge-llm
 * \brief One batch a source planned (ctHO's L for its members): the HandoverPlanned traces
 *        of one BS at one instant.
 */
struct EdgeLlmHandoverBatch
{
    double plannedAt{0};       //!< Simulation time of the plan, s
    uint16_t sourceCellId{0};  //!< The BS that planned it
    uint64_t prefillLength{0}; //!< L, tokens (the largest n_pf of its members)
    std::vector<uint64_t> ues; //!< Members' session ids (IMSIs), in plan order
};

/**
 * \ingroup edge-llm
 * \brief Per-handover records of every LLM session of a scenario, from the traces of its
 *        EdgeLlmNode (every BS) and EdgeLlmUeApp applications, so that a script need not
 *        write trace sinks by hand.
 *
 * \code
 *   Ptr<EdgeLlmSessionStats> stats = CreateObject<EdgeLlmSessionStats>();
 *   stats->Install(bsApps, ueApps);   // before Simulator::Run
 *   Simulator::Run();
 *   stats->WriteCsv("handovers.csv"); // before Simulator::Destroy
 *   EdgeLlmDelaySummary d = stats->SummarizeRestoredDelay();
 * \endcode
 *
 * Any number of cells; a session that hands over several times gets one record per
 * handover, keyed by the session and the handover time (HandoverStarted at the source).
 * The source's HandoverPlanned, the target's KvTransferReceived, PartialRestored,
 * TransferTimedOut and SessionRestored, and either side's TransferCancelled fill in the
 * session's latest record between that source and target; the UE's Stall (from, to) the
 * latest record between them, or, if none (a BS between them relayed the session), the
 * latest record to that target. SessionLost closes the session's open record, or, if it
 * has none (the source had no backhaul path to the new cell, so no handover started),
 * adds one. The bound is decided here, once, for every scenario (see
 * EdgeLlmHandoverRecord::bound): "transfer" if n_tx > 0 and the last KV byte arrived at the
 * resume instant, else "prefill"; ImpactHO: "transfer" if the whole cache arrived at that
 * instant, else "window".
 *
 * With StreamTokens G > 0 (set before Install) it also measures each handover's stream:
 * the time from the handover's start (HandoverStarted, context C) to the session's G-th
 * token after it, the first token (the UE's TokenReceived) of index at least C - P + G
 * (P: the UE's PromptTokens), into the record's streamDelay and the StreamMeasured trace. A
 * cancelled handover's stream is dropped; StartStream() opens one without a handover.
 *
 * The sinks hold this object (Ptr), so it lives as long as the applications.
 */
class EdgeLlmSessionStats : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * \brief Connect the traces of every BS and UE application.
     * \param bsApps EdgeLlmNode applications (every cell of the scenario)
     * \param ueApps EdgeLlmUeApp applications (may be empty: no UE-side delays)
     * Aborts (NS_FATAL_ERROR) if an application is not of the expected type.
     */
    void Install(ApplicationContainer bsApps, ApplicationContainer ueApps);

    /// \return every handover record, in the order the handovers started
    const std::vector<EdgeLlmHandoverRecord>& GetRecords() const;

    /// \return every planned batch (HandoverPlanned), in time order, every source's
    const std::vector<EdgeLlmHandoverBatch>& GetBatches() const;

    /**
     * \brief The records of \p outcome.
     * \param outcome the outcome
     * \return how many records have it
     */
    uint64_t CountOutcome(EdgeLlmHandoverRecord::Outcome outcome) const;

    /**
     * \brief Restored delay over the records that are neither CANCELLED nor
     *        AFTER_DECODING (a cancelled handover has no delay, the session goes on
     *        elsewhere; a handover after decoding restores nothing). A lost or pending
     *        record's delay is unknown, so it makes the summary unknown.
     * \return the summary
     */
    EdgeLlmDelaySummary SummarizeRestoredDelay() const;
    /**
     * \brief UE-side delay (the Stall's excess) over the same records: over those whose UE
     *        measured a stall (EdgeLlmDelaySummary::OfKnown); a record without one (no UE
     *        application, a lost or pending session, a UE that never heard the target) is
     *        left out and counted in unknown, so a valid run never gives NaN but for no stall
     *        at all (count 0).
     * \return the summary
     */
    EdgeLlmDelaySummary SummarizeUeDelay() const;
    /// \return the same for the planner's predicted delay (unknown for ImpactHO)
    EdgeLlmDelaySummary SummarizePredictedDelay() const;
    /// \return restored vs predicted delay over the records that have both
    EdgeLlmPredictionError SummarizePredictionError() const;

    /// What proactive pre-transfers moved (PreTransferScheduler), over every BS.
    struct PreTransferTotals
    {
        /// Bytes that reached a target ahead: used + wasted + held
        uint64_t sentBytes{0};
        uint64_t usedTokens{0};  //!< Tokens of them the handovers used
        uint64_t usedBytes{0};   //!< usedTokens x bytes per token of the target's model
        uint64_t wastedBytes{0}; //!< PreTransferWasted: dropped, evicted, late, partial
        uint32_t evictions{0};   //!< PreTransferEvicted
        uint32_t lost{0};        //!< PreTransferLost
        /// Bytes that reached a target ahead and were neither used nor dropped when the
        /// totals were taken (held, as on the wire: e.g. sent for a handover after the stop)
        uint64_t heldBytes{0};
        /// Bytes sent ahead that had not reached their target when the totals were taken
        /// (in flight or queued in a transport, as on the wire)
        uint64_t inFlightBytes{0};

        /**
         * \return one line for a program's summary: "S KV bytes reached targets ahead: U
         *         (T tokens) used at the handovers, W wasted (...), H held at the stop; F
         *         on the way at the stop; E evictions" (and the commits for evicted bytes,
         *         if any)
         */
        std::string Describe() const;
    };

    /// \return the run's pre-transfer totals (all zero without a PreTransferScheduler)
    PreTransferTotals GetPreTransferTotals() const;

    /// \return bytes sent ahead for \p sessionId and wasted (PreTransferWasted), bytes
    uint64_t GetPreWastedBytes(uint64_t sessionId) const;

    /**
     * \brief Open the stream of a session that does not hand over, now: measure the time
     *        to its G-th token after \p contextTokens (StreamTokens = G), as a handover's
     *        stream is measured from the handover (e.g. a no-handover baseline measured
     *        from the instant its counterpart handed over). Its delay is reported by the
     *        StreamMeasured trace only (there is no handover record to carry it).
     * \param sessionId the session (its UE application was installed)
     * \param contextTokens its context now, tokens, prompt included (>= PromptTokens)
     * Aborts (NS_FATAL_ERROR) if StreamTokens is 0 or was set after Install, or the
     * session's UE was not installed.
     */
    void StartStream(uint64_t sessionId, uint64_t contextTokens);

    /**
     * \brief TracedCallback signature of StreamMeasured.
     * \param sessionId the session
     * \param start when its stream opened (its handover's start, or StartStream())
     * \param delay from start to its G-th token after it
     */
    typedef void (*StreamTracedCallback)(uint64_t sessionId, Time start, Time delay);

    /**
     * \return the CSV text WriteCsv writes: a header and one line per record; an unknown
     *         value is an empty field
     */
    std::string GetCsv() const;

    /**
     * \brief Write GetCsv() to \p path whole or not at all (a temporary file renamed).
     * \param path the file
     * \throws std::runtime_error naming the path and the reason; no file is left behind
     */
    void WriteCsv(const std::string& path) const;

  protected:
    void DoDispose() override;

  private:
    /// \return the session's latest record between \p source and \p target (null: none)
    EdgeLlmHandoverRecord* Find(uint64_t sessionId, uint16_t source, uint16_t target);
    /**
     * \brief A timed-out or replanned transfer's KV bytes: the whole tokens kept,
     *        (n_tx - re-prefilled) x \p bytesPerToken (0 before its plan is known).
     * \param r the record (transferTokens and reprefillTokens set)
     * \param bytesPerToken KV bytes per token of the target's model
     */
    static void KeepWholeTokens(EdgeLlmHandoverRecord& r, uint64_t bytesPerToken);
    /// Decide the record's bound from its times.
    static void DecideBound(EdgeLlmHandoverRecord& r);
    /// \return one field's values over the records but the cancelled and after-decoding ones
    std::vector<double> Samples(double EdgeLlmHandoverRecord::*field) const;

    void OnHandoverStarted(EdgeLlmNode* node, uint64_t id, uint16_t target, uint64_t context);
    void OnPlanned(EdgeLlmNode* node, uint64_t id, uint64_t npf, uint64_t ntx, Time predicted);
    void OnKvReceived(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t bytes);
    void OnPartial(EdgeLlmNode* node, uint64_t id, uint16_t source, double fraction);
    void OnTimedOut(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t missing);
    void OnReplanned(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t missing);
    void OnRestored(EdgeLlmNode* node, uint64_t id, uint16_t source, Time delay);
    void OnCancelled(EdgeLlmNode* node, uint64_t id, uint16_t other);
    void OnLost(EdgeLlmNode* node, uint64_t id, uint16_t cell);
    void OnAfterDecoding(EdgeLlmNode* node, uint64_t id, uint16_t target);
    /// The UE's Stall: \p missing its stream's skipped token indices at the gap
    void OnStall(uint64_t id,
                 uint16_t from,
                 uint16_t to,
                 Time stall,
                 Time excess,
                 uint32_t missing);
    /// Connect BS application \p bs's traces (its roles', its GPU's).
    void InstallBs(Ptr<EdgeLlmNode> bs);
    /// GPU batch \p key of \p cell ended now: keep its start for the restores it bounds.
    void OnGpuBatchEnd(uint16_t cell, uint64_t key);
    /// A prefill-bound record restored at \p cell: the start of the batch that ended then.
    void FindBatchStart(EdgeLlmHandoverRecord& r, uint16_t cell) const;
    /// Connect UE application \p ue's traces (the Stall; with StreamTokens, its tokens).
    void InstallUe(Ptr<EdgeLlmUeApp> ue);
    /// Token \p index of session \p id arrived: close the streams it completes.
    void OnToken(uint64_t id, uint32_t index);
    /**
     * \brief Open a stream of session \p id now, at its context \p context.
     * \param record the handover record it belongs to (NO_RECORD: StartStream)
     */
    void OpenStream(uint64_t id, uint64_t context, std::size_t record);
    void OnPreUsed(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t tokens);
    /// At Simulator::Destroy: keep the held and in-flight bytes, let the BSs go
    void ReleaseBs();

    PreTransferTotals m_pre; //!< Pre-transfer totals
    /// The BSs installed on (held and in-flight bytes), until Simulator::Destroy
    std::vector<Ptr<EdgeLlmNode>> m_bs;
    std::map<uint64_t, uint64_t> m_preWasted; //!< Per session, bytes

    std::vector<EdgeLlmHandoverRecord> m_records;             //!< In start order
    std::map<uint64_t, std::vector<std::size_t>> m_bySession; //!< Record indices per session
    std::vector<EdgeLlmHandoverBatch> m_batches;              //!< In plan order
    std::map<uint16_t, std::size_t> m_latestBatch;            //!< Per source cell, its latest batch

    /// A stream being measured: its session's G-th token after its start.
    struct OpenedStream
    {
        uint64_t lastIndex{0}; //!< The token index that completes it
        Time start;            //!< When it opened
        std::size_t record{0}; //!< Its handover record (NO_RECORD: StartStream)
    };

    /// OpenedStream::record of a stream opened by StartStream.
    static constexpr std::size_t NO_RECORD = std::numeric_limits<std::size_t>::max();
    uint32_t m_streamTokens{0};                                    //!< G (StreamTokens)
    std::map<uint16_t, std::map<uint64_t, Time>> m_gpuBatchStart;  //!< Per cell, by key
    std::map<uint16_t, std::map<Time, Time>> m_gpuBatchStartByEnd; //!< Per cell: end -> start
    bool m_streamsInstalled{false}; //!< Install connected the UEs' tokens (StreamTokens > 0)
    std::map<uint64_t, uint32_t> m_promptTokens;             //!< Per session, at Install
    std::map<uint64_t, std::vector<OpenedStream>> m_streams; //!< Per session, open ones
    TracedCallback<uint64_t, Time, Time> m_streamMeasured;   //!< StreamMeasured
};

/**
 * \ingroup edge-llm
 * \brief Write \p text to \p path whole or not at all: into path + ".tmp", then renamed.
 * \param path the file
 * \param text its content
 * \throws std::runtime_error "cannot write '<path>': <reason>" (e.g. its directory does
 *         not exist); the temporary file is removed
 */
void EdgeLlmWriteFileWhole(const std::string& path, const std::string& text);

} // namespace ns3

#endif /* EDGE_LLM_SESSION_STATS_H */
