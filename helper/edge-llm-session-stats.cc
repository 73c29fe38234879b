/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-session-stats.h"

#include "edge-llm-csv.h"

#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-node.h"
#include "ns3/edge-llm-ue-app.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmSessionStats");
NS_OBJECT_ENSURE_REGISTERED(EdgeLlmSessionStats);

EdgeLlmDelaySummary
EdgeLlmDelaySummary::Of(const std::vector<double>& samples)
{
    EdgeLlmDelaySummary s;
    s.count = samples.size();
    if (samples.empty() ||
        std::any_of(samples.begin(), samples.end(), [](double x) { return std::isnan(x); }))
    {
        return s; // unknown: NaN mean, p95, worst
    }
    std::vector<double> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (double x : sorted)
    {
        sum += x;
    }
    s.mean = sum / static_cast<double>(sorted.size());
    s.median = sorted[(sorted.size() + 1) / 2 - 1]; // the ceil(n / 2)-th smallest
    // Nearest rank: the ceil(0.95 n)-th smallest (1-based), in integer arithmetic.
    const std::size_t rank = (95 * sorted.size() + 99) / 100;
    s.p95 = sorted[std::max<std::size_t>(rank, 1) - 1];
    s.worst = sorted.back();
    return s;
}

EdgeLlmDelaySummary
EdgeLlmDelaySummary::OfKnown(std::vector<double> samples)
{
    const std::size_t all = samples.size();
    samples.erase(
        std::remove_if(samples.begin(), samples.end(), [](double x) { return std::isnan(x); }),
        samples.end());
    EdgeLlmDelaySummary s = Of(samples);
    s.unknown = all - samples.size();
    return s;
}

EdgeLlmPredictionError
EdgeLlmPredictionError::Of(const std::vector<double>& predicted,
                           const std::vector<double>& restored)
{
    if (predicted.size() != restored.size())
    {
        throw std::invalid_argument(
            "EdgeLlmPredictionError::Of: " + std::to_string(predicted.size()) + " predicted and " +
            std::to_string(restored.size()) + " restored delays (they must pair up)");
    }
    EdgeLlmPredictionError e;
    std::vector<double> absolute;
    for (std::size_t i = 0; i < predicted.size(); ++i)
    {
        if (std::isnan(predicted[i]) || std::isnan(restored[i]))
        {
            continue;
        }
        const double error = restored[i] - predicted[i];
        absolute.push_back(std::abs(error));
        e.worstLate = std::isnan(e.worstLate) ? error : std::max(e.worstLate, error);
        if (predicted[i] > 0)
        {
            const double relative = std::abs(error) / predicted[i];
            e.worstRelative =
                std::isnan(e.worstRelative) ? relative : std::max(e.worstRelative, relative);
        }
        if (std::abs(error) > RELATIVE_TOLERANCE * predicted[i] + ABSOLUTE_TOLERANCE)
        {
            ++e.outside;
        }
    }
    e.absolute = EdgeLlmDelaySummary::Of(absolute);
    return e;
}

std::string
EdgeLlmPredictionError::Describe() const
{
    if (absolute.count == 0)
    {
        return "plan vs restore: no UE with both a plan and a restore";
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << "plan vs restore over " << absolute.count
        << " UEs: |error| median " << 1e3 * absolute.median << " ms, p95 " << 1e3 * absolute.p95
        << " ms, worst " << 1e3 * absolute.worst << " ms; latest " << std::showpos
        << 1e3 * worstLate << " ms" << std::noshowpos << ", worst relative " << 100 * worstRelative
        << " %; " << outside << " outside " << 100 * RELATIVE_TOLERANCE << " % + "
        << 1e3 * ABSOLUTE_TOLERANCE << " ms";
    return out.str();
}

namespace
{

/**
 * Append a record that starts final, for a handover that moved nothing (a lost session
 * with no path, a handover after decoding): now, from \p source to \p target.
 */
void
AppendFinalRecord(std::vector<EdgeLlmHandoverRecord>& records,
                  std::map<uint64_t, std::vector<std::size_t>>& bySession,
                  uint64_t id,
                  uint16_t source,
                  uint16_t target,
                  EdgeLlmHandoverRecord::Outcome outcome)
{
    EdgeLlmHandoverRecord r;
    r.sessionId = id;
    r.sourceCellId = source;
    r.targetCellId = target;
    r.handoverTime = Simulator::Now().GetSeconds();
    r.outcome = outcome;
    bySession[id].push_back(records.size());
    records.push_back(r);
}

} // namespace

std::string
EdgeLlmHandoverRecord::GetOutcomeName() const
{
    switch (outcome)
    {
    case PENDING:
        return "pending";
    case RESTORED:
        return "restored";
    case TIMED_OUT:
        return "timed_out";
    case CANCELLED:
        return "cancelled";
    case LOST:
        return "lost";
    case AFTER_DECODING:
        return "after_decoding";
    }
    return "pending";
}

void
EdgeLlmWriteFileWhole(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    std::error_code ec;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
        {
            const std::string reason = std::strerror(errno);
            const std::filesystem::path parent = std::filesystem::path(path).parent_path();
            if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
            {
                throw std::runtime_error("cannot write '" + path + "': directory '" +
                                         parent.string() + "' does not exist");
            }
            throw std::runtime_error("cannot write '" + path + "': " + reason);
        }
        out << text;
        out.flush();
        if (!out)
        {
            out.close();
            std::filesystem::remove(tmp, ec);
            throw std::runtime_error("cannot write '" + path + "': write error");
        }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec)
    {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw std::runtime_error("cannot write '" + path + "': " + ec.message());
    }
}

TypeId
EdgeLlmSessionStats::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EdgeLlmSessionStats")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmSessionStats>()
            .AddAttribute("StreamTokens",
                          "G, tokens: > 0 measures each handover's stream, "
                          "the time from its start to the session's G-th "
                          "token after it (EdgeLlmHandoverRecord::streamDelay, "
                          "StreamMeasured); 0: none. Set before Install.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&EdgeLlmSessionStats::m_streamTokens),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("StreamMeasured",
                            "A stream reached its G-th token (sessionId, its "
                            "start, the delay from its start).",
                            MakeTraceSourceAccessor(&EdgeLlmSessionStats::m_streamMeasured),
                            "ns3::EdgeLlmSessionStats::StreamTracedCallback");
    return tid;
}

void
EdgeLlmSessionStats::DoDispose()
{
    m_records.clear();
    m_bySession.clear();
    m_batches.clear();
    m_latestBatch.clear();
    m_streams.clear();
    m_promptTokens.clear();
    m_gpuBatchStart.clear();
    m_gpuBatchStartByEnd.clear();
    m_bs.clear();
    Object::DoDispose();
}

void
EdgeLlmSessionStats::Install(ApplicationContainer bsApps, ApplicationContainer ueApps)
{
    Ptr<EdgeLlmSessionStats> self = this;
    for (uint32_t i = 0; i < bsApps.GetN(); ++i)
    {
        Ptr<EdgeLlmNode> bs = DynamicCast<EdgeLlmNode>(bsApps.Get(i));
        if (!bs)
        {
            NS_FATAL_ERROR("EdgeLlmSessionStats::Install: BS application "
                           << i << " is not an ns3::EdgeLlmNode");
        }
        if (m_bs.empty())
        {
            Simulator::ScheduleDestroy(&EdgeLlmSessionStats::ReleaseBs, self);
        }
        m_bs.push_back(bs);
        InstallBs(bs);
    }
    for (uint32_t i = 0; i < ueApps.GetN(); ++i)
    {
        Ptr<EdgeLlmUeApp> ue = DynamicCast<EdgeLlmUeApp>(ueApps.Get(i));
        if (!ue)
        {
            NS_FATAL_ERROR("EdgeLlmSessionStats::Install: UE application "
                           << i << " is not an ns3::EdgeLlmUeApp");
        }
        InstallUe(ue);
    }
}

void
EdgeLlmSessionStats::InstallBs(Ptr<EdgeLlmNode> bs)
{
    Ptr<EdgeLlmSessionStats> self = this;
    EdgeLlmNode* n = PeekPointer(bs); // the sinks live in n's own traces
    const uint16_t cell = bs->GetCellId();
    // The GPU's batches: which one a prefill-bound restore waited for.
    bs->GetPrefillEngine()->TraceConnectWithoutContext(
        "BatchStart",
        compat::MakeCallback<void, uint64_t, uint64_t, uint32_t>(
            [self, cell](uint64_t key, uint64_t, uint32_t) {
                self->m_gpuBatchStart[cell][key] = Simulator::Now();
            }));
    bs->GetPrefillEngine()->TraceConnectWithoutContext(
        "BatchEnd",
        compat::MakeCallback<void, uint64_t, uint64_t, uint32_t>(
            [self, cell](uint64_t key, uint64_t, uint32_t) { self->OnGpuBatchEnd(cell, key); }));
    bs->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverStarted",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t target, uint64_t context) {
                self->OnHandoverStarted(n, id, target, context);
            }));
    bs->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverPlanned",
        compat::MakeCallback<void, uint64_t, uint64_t, uint64_t, Time>(
            [self, n](uint64_t id, uint64_t npf, uint64_t ntx, Time predicted) {
                self->OnPlanned(n, id, npf, ntx, predicted);
            }));
    bs->GetTargetRole()->TraceConnectWithoutContext(
        "KvTransferReceived",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t source, uint64_t bytes) {
                self->OnKvReceived(n, id, source, bytes);
            }));
    bs->GetTargetRole()->TraceConnectWithoutContext(
        "PartialRestored",
        compat::MakeCallback<void, uint64_t, uint16_t, double>(
            [self, n](uint64_t id, uint16_t source, double fraction) {
                self->OnPartial(n, id, source, fraction);
            }));
    bs->GetTargetRole()->TraceConnectWithoutContext(
        "TransferTimedOut",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t source, uint64_t missing) {
                self->OnTimedOut(n, id, source, missing);
            }));
    bs->GetTargetRole()->TraceConnectWithoutContext(
        "TransferReplanned",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t, Time, Time>(
            [self, n](uint64_t id, uint16_t source, uint64_t missing, Time, Time) {
                self->OnReplanned(n, id, source, missing);
            }));
    bs->GetTargetRole()->TraceConnectWithoutContext(
        "SessionRestored",
        compat::MakeCallback<void, uint64_t, uint16_t, Time>(
            [self, n](uint64_t id, uint16_t source, Time delay) {
                self->OnRestored(n, id, source, delay);
            }));
    bs->TraceConnectWithoutContext(
        "TransferCancelled",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t other, uint64_t) { self->OnCancelled(n, id, other); }));
    bs->GetSourceRole()->TraceConnectWithoutContext(
        "HandoverAfterDecoding",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t target, uint64_t) {
                self->OnAfterDecoding(n, id, target);
            }));
    bs->GetPreTransferRole()->TraceConnectWithoutContext(
        "PreTransferUsed",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self, n](uint64_t id, uint16_t source, uint64_t tokens) {
                self->OnPreUsed(n, id, source, tokens);
            }));
    bs->GetPreTransferRole()->TraceConnectWithoutContext(
        "PreTransferWasted",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self](uint64_t id, uint16_t, uint64_t bytes) {
                self->m_preWasted[id] += bytes;
                self->m_pre.wastedBytes += bytes;
                self->m_pre.sentBytes += bytes;
            }));
    bs->GetPreTransferRole()->TraceConnectWithoutContext(
        "PreTransferEvicted",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self](uint64_t, uint16_t, uint64_t) { ++self->m_pre.evictions; }));
    bs->GetPreTransferRole()->TraceConnectWithoutContext(
        "PreTransferLost",
        compat::MakeCallback<void, uint64_t, uint16_t, uint64_t>(
            [self](uint64_t, uint16_t, uint64_t) { ++self->m_pre.lost; }));
    bs->TraceConnectWithoutContext(
        "SessionLost",
        compat::MakeCallback<void, uint64_t, uint16_t, EdgeLlmNode::LossReason>(
            [self, n](uint64_t id, uint16_t cell, EdgeLlmNode::LossReason) {
                self->OnLost(n, id, cell);
            }));
}

void
EdgeLlmSessionStats::OnGpuBatchEnd(uint16_t cell, uint64_t key)
{
    const Time start = m_gpuBatchStart[cell][key];
    m_gpuBatchStart[cell].erase(key);
    // (PrefillEngine traces BatchEnd before it calls its members back: a restore the batch
    // bounds comes after this, and finds the batch in FindBatchStart.)
    m_gpuBatchStartByEnd[cell][Simulator::Now()] = start;
}

void
EdgeLlmSessionStats::FindBatchStart(EdgeLlmHandoverRecord& r, uint16_t cell) const
{
    const auto byEnd = m_gpuBatchStartByEnd.find(cell);
    if (r.bound != "prefill" || byEnd == m_gpuBatchStartByEnd.end())
    {
        return;
    }
    const auto batch = byEnd->second.find(r.restoredAt);
    if (batch != byEnd->second.end())
    {
        r.batchStart = batch->second.GetSeconds();
    }
}

void
EdgeLlmSessionStats::InstallUe(Ptr<EdgeLlmUeApp> ue)
{
    Ptr<EdgeLlmSessionStats> self = this;
    EdgeLlmUeApp* app = PeekPointer(ue); // the sink lives in the app's own trace
    ue->TraceConnectWithoutContext(
        "Stall",
        compat::MakeCallback<void, uint64_t, uint16_t, uint16_t, Time, Time>(
            [self, app](uint64_t id, uint16_t from, uint16_t to, Time stall, Time excess) {
                // The app traces a stall right after keeping it: its index gap is the last.
                const uint32_t missing = app->GetStalls().back().tokenGap - 1;
                self->OnStall(id, from, to, stall, excess, missing);
            }));
    if (m_streamTokens > 0)
    {
        m_streamsInstalled = true;
        UintegerValue prompt;
        ue->GetAttribute("PromptTokens", prompt);
        m_promptTokens[ue->GetSessionId()] = static_cast<uint32_t>(prompt.Get());
        ue->TraceConnectWithoutContext(
            "TokenReceived",
            compat::MakeCallback<void, uint64_t, uint32_t, uint16_t>(
                [self](uint64_t id, uint32_t index, uint16_t) { self->OnToken(id, index); }));
    }
}

const std::vector<EdgeLlmHandoverRecord>&
EdgeLlmSessionStats::GetRecords() const
{
    return m_records;
}

const std::vector<EdgeLlmHandoverBatch>&
EdgeLlmSessionStats::GetBatches() const
{
    return m_batches;
}

uint64_t
EdgeLlmSessionStats::CountOutcome(EdgeLlmHandoverRecord::Outcome outcome) const
{
    return std::count_if(m_records.begin(), m_records.end(), [outcome](const auto& r) {
        return r.outcome == outcome;
    });
}

EdgeLlmHandoverRecord*
EdgeLlmSessionStats::Find(uint64_t sessionId, uint16_t source, uint16_t target)
{
    auto it = m_bySession.find(sessionId);
    if (it == m_bySession.end())
    {
        return nullptr;
    }
    for (auto i = it->second.rbegin(); i != it->second.rend(); ++i)
    {
        EdgeLlmHandoverRecord& r = m_records[*i];
        if (r.sourceCellId == source && r.targetCellId == target)
        {
            return &r;
        }
    }
    return nullptr;
}

void
EdgeLlmSessionStats::DecideBound(EdgeLlmHandoverRecord& r)
{
    if (r.restoredAt == Time::Max())
    {
        r.bound = "none";
    }
    else if (!std::isnan(r.receivedFraction))
    {
        r.bound =
            r.receivedFraction == 1 && r.transferDoneAt == r.restoredAt ? "transfer" : "window";
    }
    else if (r.transferTokens > 0 && r.transferDoneAt == r.restoredAt)
    {
        r.bound = "transfer";
    }
    else
    {
        r.bound = "prefill";
    }
}

void
EdgeLlmSessionStats::OnHandoverStarted(EdgeLlmNode* node,
                                       uint64_t id,
                                       uint16_t target,
                                       uint64_t context)
{
    EdgeLlmHandoverRecord r;
    r.sessionId = id;
    r.sourceCellId = node->GetCellId();
    r.targetCellId = target;
    r.handoverTime = Simulator::Now().GetSeconds();
    r.contextTokens = context;
    r.started = true;
    m_bySession[id].push_back(m_records.size());
    m_records.push_back(r);
    if (m_streamsInstalled)
    {
        OpenStream(id, context, m_records.size() - 1);
    }
}

void
EdgeLlmSessionStats::OpenStream(uint64_t id, uint64_t context, std::size_t record)
{
    const auto prompt = m_promptTokens.find(id);
    if (prompt == m_promptTokens.end())
    {
        return; // no UE of this collector: no token will come
    }
    // The UE counts tokens from its first decoded one; the context holds the prompt too.
    const uint64_t decoded = context > prompt->second ? context - prompt->second : 0;
    m_streams[id].push_back({decoded + m_streamTokens, Simulator::Now(), record});
}

void
EdgeLlmSessionStats::StartStream(uint64_t sessionId, uint64_t contextTokens)
{
    if (m_streamTokens == 0)
    {
        NS_FATAL_ERROR("EdgeLlmSessionStats::StartStream: StreamTokens is 0 (set it > 0 "
                       "before Install to measure streams)");
    }
    if (!m_streamsInstalled)
    {
        NS_FATAL_ERROR("EdgeLlmSessionStats::StartStream: StreamTokens was set after Install "
                       "(set it before Install, so the UEs' tokens are counted)");
    }
    if (m_promptTokens.count(sessionId) == 0)
    {
        NS_FATAL_ERROR("EdgeLlmSessionStats::StartStream: session "
                       << sessionId << " has no UE application installed here");
    }
    OpenStream(sessionId, contextTokens, NO_RECORD);
}

void
EdgeLlmSessionStats::OnToken(uint64_t id, uint32_t index)
{
    const auto it = m_streams.find(id);
    if (it == m_streams.end())
    {
        return;
    }
    // Close every stream this token completes, then trace them (a sink may open another).
    std::vector<std::pair<Time, Time>> measured; // start, delay
    std::vector<OpenedStream>& open = it->second;
    for (auto s = open.begin(); s != open.end();)
    {
        if (index < s->lastIndex)
        {
            ++s;
            continue;
        }
        const Time delay = Simulator::Now() - s->start;
        if (s->record != NO_RECORD)
        {
            m_records[s->record].streamDelay = delay.GetSeconds();
        }
        measured.emplace_back(s->start, delay);
        s = open.erase(s);
    }
    for (const auto& [start, delay] : measured)
    {
        m_streamMeasured(id, start, delay);
    }
}

void
EdgeLlmSessionStats::OnPlanned(EdgeLlmNode* node,
                               uint64_t id,
                               uint64_t npf,
                               uint64_t ntx,
                               Time predicted)
{
    // A batch's members are planned at one instant, one call each, at their source.
    const double now = Simulator::Now().GetSeconds();
    const uint16_t cell = node->GetCellId();
    const auto latest = m_latestBatch.find(cell);
    if (latest == m_latestBatch.end() || m_batches[latest->second].plannedAt != now)
    {
        m_latestBatch[cell] = m_batches.size();
        m_batches.push_back({now, cell, 0, {}});
    }
    EdgeLlmHandoverBatch& batch = m_batches[m_latestBatch[cell]];
    batch.prefillLength = std::max(batch.prefillLength, npf);
    batch.ues.push_back(id);
    // The session's latest handover from this cell that has no plan yet.
    auto it = m_bySession.find(id);
    if (it == m_bySession.end())
    {
        return;
    }
    for (auto i = it->second.rbegin(); i != it->second.rend(); ++i)
    {
        EdgeLlmHandoverRecord& r = m_records[*i];
        if (r.sourceCellId == node->GetCellId() && !r.planned)
        {
            r.planned = true;
            r.prefillTokens = npf;
            r.transferTokens = ntx;
            r.predictedDelay = predicted.GetSeconds();
            r.kvBytesExpected = ntx * node->GetModelProfile().BytesPerToken();
            if (r.replanned || r.timedOut)
            {
                // Replanned or timed out before the batch's plan was traced (a member's
                // deadline can pass before the batch's last member starts).
                KeepWholeTokens(r, node->GetModelProfile().BytesPerToken());
            }
            DecideBound(r);
            return;
        }
    }
}

void
EdgeLlmSessionStats::OnKvReceived(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t bytes)
{
    if (EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId()))
    {
        r->kvBytesReceived = bytes;
        r->transferDoneAt = Simulator::Now();
    }
}

void
EdgeLlmSessionStats::OnPreUsed(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t tokens)
{
    const uint64_t bytes = tokens * node->GetModelProfile().BytesPerToken();
    m_pre.usedTokens += tokens;
    m_pre.usedBytes += bytes;
    m_pre.sentBytes += bytes;
    if (EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId()))
    {
        r->preSentTokens = tokens;
    }
}

EdgeLlmSessionStats::PreTransferTotals
EdgeLlmSessionStats::GetPreTransferTotals() const
{
    // Used and wasted bytes come from the traces; what is still held or on the way, from
    // the BSs now (after Simulator::Destroy: as it was then). Every byte a source sent
    // ahead is in one of the four, except for importance-ordered entries: used counts
    // whole tokens, so used entries' coordinates and the entries past a used cache's last
    // whole token are in none (doc: Bytes).
    PreTransferTotals totals = m_pre;
    if (!m_bs.empty())
    {
        uint64_t sent = 0;
        uint64_t received = 0;
        totals.heldBytes = 0;
        for (const Ptr<EdgeLlmNode>& bs : m_bs)
        {
            totals.heldBytes += bs->GetPreTransferHeldBytes();
            sent += bs->GetPreTransferBytesSent();
            received += bs->GetPreTransferBytesReceived();
        }
        totals.inFlightBytes = sent > received ? sent - received : 0;
    }
    totals.sentBytes += totals.heldBytes;
    return totals;
}

std::string
EdgeLlmSessionStats::PreTransferTotals::Describe() const
{
    std::ostringstream s;
    s << sentBytes << " KV bytes reached targets ahead: " << usedBytes << " (" << usedTokens
      << " tokens) used at the handovers, " << wastedBytes
      << " wasted (wrong target, evicted, partial token), " << heldBytes << " held at the stop; "
      << inFlightBytes << " on the way at the stop; " << evictions << " evictions";
    if (lost > 0)
    {
        s << ", " << lost << " COMMITS FOR EVICTED BYTES";
    }
    return s.str();
}

void
EdgeLlmSessionStats::ReleaseBs()
{
    const PreTransferTotals last = GetPreTransferTotals();
    m_pre.heldBytes = last.heldBytes;
    m_pre.inFlightBytes = last.inFlightBytes;
    m_bs.clear(); // the BSs' traces hold this object: no cycle past the run
}

uint64_t
EdgeLlmSessionStats::GetPreWastedBytes(uint64_t sessionId) const
{
    auto it = m_preWasted.find(sessionId);
    return it == m_preWasted.end() ? 0 : it->second;
}

void
EdgeLlmSessionStats::OnPartial(EdgeLlmNode* node, uint64_t id, uint16_t source, double fraction)
{
    if (EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId()))
    {
        r->receivedFraction = fraction;
        if (r->transferTokens == 0 && r->prefillTokens == 0)
        {
            // ImpactHO plans no split: the whole cache is offered.
            r->transferTokens = r->contextTokens;
            r->kvBytesExpected = r->contextTokens * node->GetModelProfile().BytesPerToken();
        }
        // A truncated transfer never completes (no KvTransferReceived): its bytes are the
        // share of the cache it resumed on (the target's whole entries).
        r->kvBytesReceived =
            static_cast<uint64_t>(std::llround(fraction * static_cast<double>(r->kvBytesExpected)));
    }
}

void
EdgeLlmSessionStats::KeepWholeTokens(EdgeLlmHandoverRecord& r, uint64_t bytesPerToken)
{
    // A timed-out or replanned transfer: the target keeps the whole tokens received and
    // re-prefills the missing ones.
    const uint64_t kept =
        r.transferTokens > r.reprefillTokens ? r.transferTokens - r.reprefillTokens : 0;
    r.kvBytesReceived = kept * bytesPerToken;
}

void
EdgeLlmSessionStats::OnReplanned(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t missing)
{
    if (EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId()))
    {
        r->replanned = true;
        r->reprefillTokens = missing;
        KeepWholeTokens(*r, node->GetModelProfile().BytesPerToken());
    }
}

void
EdgeLlmSessionStats::OnTimedOut(EdgeLlmNode* node, uint64_t id, uint16_t source, uint64_t missing)
{
    if (EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId()))
    {
        r->timedOut = true;
        r->reprefillTokens = missing;
        KeepWholeTokens(*r, node->GetModelProfile().BytesPerToken());
    }
}

void
EdgeLlmSessionStats::OnRestored(EdgeLlmNode* node, uint64_t id, uint16_t source, Time delay)
{
    EdgeLlmHandoverRecord* r = Find(id, source, node->GetCellId());
    if (!r)
    {
        return;
    }
    r->restoredDelay = delay.GetSeconds();
    r->restoredAt = Simulator::Now();
    if (r->outcome == EdgeLlmHandoverRecord::PENDING)
    {
        r->outcome =
            r->timedOut ? EdgeLlmHandoverRecord::TIMED_OUT : EdgeLlmHandoverRecord::RESTORED;
    }
    DecideBound(*r);
    FindBatchStart(*r, node->GetCellId());
}

void
EdgeLlmSessionStats::OnCancelled(EdgeLlmNode* node, uint64_t id, uint16_t other)
{
    // Traced at the target (other = source) and at the source (other = target): the
    // latest handover between the two cells, whichever way.
    const uint16_t self = node->GetCellId();
    EdgeLlmHandoverRecord* a = Find(id, other, self);
    EdgeLlmHandoverRecord* b = Find(id, self, other);
    EdgeLlmHandoverRecord* r = a && b ? (a > b ? a : b) : (a ? a : b);
    if (r && r->outcome == EdgeLlmHandoverRecord::PENDING)
    {
        r->outcome = EdgeLlmHandoverRecord::CANCELLED;
        // A cancelled handover has no stream: the session's goes on from its next one.
        const auto open = m_streams.find(id);
        if (open != m_streams.end())
        {
            const std::size_t index = static_cast<std::size_t>(r - m_records.data());
            auto& v = open->second;
            v.erase(std::remove_if(v.begin(),
                                   v.end(),
                                   [index](const OpenedStream& s) { return s.record == index; }),
                    v.end());
        }
    }
}

void
EdgeLlmSessionStats::OnLost(EdgeLlmNode* node, uint64_t id, uint16_t cell)
{
    auto it = m_bySession.find(id);
    if (it != m_bySession.end() &&
        m_records[it->second.back()].outcome == EdgeLlmHandoverRecord::PENDING)
    {
        m_records[it->second.back()].outcome = EdgeLlmHandoverRecord::LOST;
        return;
    }
    // No handover started (no backhaul path from this cell to the UE's new one): the
    // session is lost at the handover it could not make.
    AppendFinalRecord(m_records,
                      m_bySession,
                      id,
                      node->GetCellId(),
                      cell,
                      EdgeLlmHandoverRecord::LOST);
}

void
EdgeLlmSessionStats::OnAfterDecoding(EdgeLlmNode* node, uint64_t id, uint16_t target)
{
    AppendFinalRecord(m_records,
                      m_bySession,
                      id,
                      node->GetCellId(),
                      target,
                      EdgeLlmHandoverRecord::AFTER_DECODING);
}

void
EdgeLlmSessionStats::OnStall(uint64_t id,
                             uint16_t from,
                             uint16_t to,
                             Time stall,
                             Time excess,
                             uint32_t missing)
{
    EdgeLlmHandoverRecord* r = Find(id, from, to);
    if (!r)
    {
        // The UE's cells are not one record's ends when a BS between them relayed the
        // session (A -> B, the UE on to C, B -> C; the UE's gap is A -> C): the latest
        // record to the cell the UE resumed in.
        auto it = m_bySession.find(id);
        if (it != m_bySession.end())
        {
            for (auto i = it->second.rbegin(); i != it->second.rend() && !r; ++i)
            {
                r = m_records[*i].targetCellId == to ? &m_records[*i] : nullptr;
            }
        }
    }
    if (r && std::isnan(r->ueStall))
    {
        r->ueStall = stall.GetSeconds();
        r->ueDelay = excess.GetSeconds();
        r->ueTokensMissing = missing;
    }
}

std::vector<double>
EdgeLlmSessionStats::Samples(double EdgeLlmHandoverRecord::*field) const
{
    std::vector<double> samples;
    for (const auto& r : m_records)
    {
        // A cancelled transfer and a handover after decoding have no delay to count.
        if (r.outcome != EdgeLlmHandoverRecord::CANCELLED &&
            r.outcome != EdgeLlmHandoverRecord::AFTER_DECODING)
        {
            samples.push_back(r.*field);
        }
    }
    return samples;
}

EdgeLlmDelaySummary
EdgeLlmSessionStats::SummarizeRestoredDelay() const
{
    return EdgeLlmDelaySummary::Of(Samples(&EdgeLlmHandoverRecord::restoredDelay));
}

EdgeLlmDelaySummary
EdgeLlmSessionStats::SummarizeUeDelay() const
{
    // A record without a stall is not a longer delay (its UE measured none): leave it out.
    return EdgeLlmDelaySummary::OfKnown(Samples(&EdgeLlmHandoverRecord::ueDelay));
}

EdgeLlmDelaySummary
EdgeLlmSessionStats::SummarizePredictedDelay() const
{
    return EdgeLlmDelaySummary::Of(Samples(&EdgeLlmHandoverRecord::predictedDelay));
}

EdgeLlmPredictionError
EdgeLlmSessionStats::SummarizePredictionError() const
{
    std::vector<double> predicted;
    std::vector<double> restored;
    for (const auto& r : m_records)
    {
        predicted.push_back(r.predictedDelay);
        restored.push_back(r.restoredDelay);
    }
    return EdgeLlmPredictionError::Of(predicted, restored);
}

std::string
EdgeLlmSessionStats::GetCsv() const
{
    auto field = &EdgeLlmCsvField;
    std::ostringstream csv;
    csv << "session_id,source_cell,target_cell,handover_s,context_tokens,prefill_tokens,"
           "transfer_tokens,predicted_delay_s,restored_s,stall_s,measured_delay_s,"
           "tokens_missing,bound,"
           "kv_bytes_expected,kv_bytes_received,reprefill_tokens,received_fraction,outcome\n";
    for (const auto& r : m_records)
    {
        csv << r.sessionId << ',' << r.sourceCellId << ',' << r.targetCellId << ','
            << field(r.handoverTime) << ','
            << (r.started ? std::to_string(r.contextTokens) : std::string()) << ','
            << (r.planned ? std::to_string(r.prefillTokens) : std::string()) << ','
            << (r.planned || r.transferTokens > 0 ? std::to_string(r.transferTokens)
                                                  : std::string())
            << ',' << field(r.predictedDelay) << ',' << field(r.restoredDelay) << ','
            << field(r.ueStall) << ',' << field(r.ueDelay) << ','
            << (std::isnan(r.ueStall) ? std::string() : std::to_string(r.ueTokensMissing)) << ','
            << r.bound << ',' << r.kvBytesExpected << ',' << r.kvBytesReceived << ','
            << r.reprefillTokens << ',' << field(r.receivedFraction) << ',' << r.GetOutcomeName()
            << '\n';
    }
    return csv.str();
}

void
EdgeLlmSessionStats::WriteCsv(const std::string& path) const
{
    EdgeLlmWriteFileWhole(path, GetCsv());
}

} // namespace ns3
