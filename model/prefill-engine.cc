/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "prefill-engine.h"

#include "edge-llm-compat.h"
#include "edge-llm-limits.h"
#include "edge-llm-serving-gpu.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrefillEngine");

NS_OBJECT_ENSURE_REGISTERED(PrefillEngine);

TypeId
PrefillEngine::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PrefillEngine")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<PrefillEngine>()
            .AddAttribute("PrefillA",
                          "Prefill slope a of p(L) = c L^2 + a L + b, s/token (ctHO: 9.4267e-5).",
                          DoubleValue(9.4267e-5),
                          MakeDoubleAccessor(&PrefillEngine::m_a),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("PrefillB",
                          "Prefill constant b of p(L), s (ctHO: 2.4e-3). p(L) is floored at 0.",
                          DoubleValue(2.4e-3),
                          MakeDoubleAccessor(&PrefillEngine::m_b),
                          MakeDoubleChecker<double>())
            .AddAttribute("PrefillC",
                          "Prefill quadratic coefficient c of p(L), s/token^2 (ctHO: 0).",
                          DoubleValue(0.0),
                          MakeDoubleAccessor(&PrefillEngine::m_c),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("BatchPeriod",
                          "Batching period T_c: batches start on multiples of it (ctHO: 10 ms), "
                          "in [0, 1] s (edgellm::MAX_BATCH_PERIOD_S).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&PrefillEngine::m_batchPeriod),
                          MakeTimeChecker(Time(0), Seconds(edgellm::MAX_BATCH_PERIOD_S)))
            .AddTraceSource("BatchStart",
                            "A prefill batch starts on the GPU.",
                            MakeTraceSourceAccessor(&PrefillEngine::m_batchStartTrace),
                            "ns3::PrefillEngine::BatchTracedCallback")
            .AddTraceSource("BatchEnd",
                            "A prefill batch ends; its members' KV prefixes are ready.",
                            MakeTraceSourceAccessor(&PrefillEngine::m_batchEndTrace),
                            "ns3::PrefillEngine::BatchTracedCallback");
    return tid;
}

PrefillEngine::PrefillEngine()
    : m_a(9.4267e-5),
      m_b(2.4e-3),
      m_c(0.0),
      m_batchPeriod(MilliSeconds(10))
{
}

PrefillEngine::~PrefillEngine() = default;

void
PrefillEngine::DoDispose()
{
    m_waiting.clear();
    m_serving = nullptr;
    Object::DoDispose();
}

void
PrefillEngine::SetServingGpu(Ptr<EdgeLlmServingGpu> gpu)
{
    m_serving = gpu;
}

PrefillTimeModel
PrefillEngine::GetModel() const
{
    if (m_serving)
    {
        return m_serving->GetPlanningModel();
    }
    return PrefillTimeModel(m_a, m_b, m_c);
}

Time
PrefillEngine::GetBatchPeriod() const
{
    return m_batchPeriod;
}

Time
PrefillEngine::GetBusyUntil() const
{
    return m_busyUntil;
}

void
PrefillEngine::Join(uint64_t batchKey,
                    uint32_t batchSize,
                    uint64_t prefillLength,
                    Time handoverTime,
                    Callback<void> done)
{
    NS_LOG_FUNCTION(this << batchKey << batchSize << prefillLength << handoverTime);
    NS_ABORT_MSG_IF(prefillLength == 0, "PrefillEngine::Join: prefillLength must be >= 1 token");
    auto it = m_waiting.find(batchKey);
    if (it == m_waiting.end())
    {
        Batch b;
        b.size = batchSize;
        b.prefillLength = prefillLength;
        b.lastHandover = handoverTime;
        it = m_waiting.emplace(batchKey, b).first;
    }
    Batch& batch = it->second;
    batch.lastHandover = std::max(batch.lastHandover, handoverTime);
    batch.done.push_back(done);
    MaybeStart(batchKey);
}

void
PrefillEngine::Close(uint64_t batchKey, uint32_t batchSize)
{
    NS_LOG_FUNCTION(this << batchKey << batchSize);
    NS_ABORT_MSG_IF(batchSize == 0, "PrefillEngine::Close: batchSize must be >= 1");
    auto it = m_waiting.find(batchKey);
    if (it == m_waiting.end())
    {
        NS_LOG_WARN("PrefillEngine::Close: no open batch " << batchKey << "; ignored");
        return;
    }
    it->second.size = batchSize;
    MaybeStart(batchKey);
}

Time
PrefillEngine::GetStartFor(Time lastHandover) const
{
    // ctHO Sec. II: start on the first T_c boundary at or after the last handover
    // (and not before now, nor before the GPU is free).
    const Time ready = std::max({lastHandover, Simulator::Now(), m_busyUntil});
    if (!m_batchPeriod.IsStrictlyPositive())
    {
        return ready;
    }
    const int64_t tc = m_batchPeriod.GetTimeStep();
    const int64_t t = ready.GetTimeStep();
    return TimeStep(((t + tc - 1) / tc) * tc);
}

void
PrefillEngine::MaybeStart(uint64_t batchKey)
{
    auto it = m_waiting.find(batchKey);
    Batch& batch = it->second;
    if (batch.size == 0 || batch.done.size() < batch.size)
    {
        return;
    }
    const Time start = GetStartFor(batch.lastHandover);
    if (m_serving)
    {
        // Its length comes from the shared GPU's iterations; the next batch may start at
        // once (a priority prefill behind this one).
        m_busyUntil = start;
        Simulator::Schedule(start - Simulator::Now(),
                            &PrefillEngine::StartOnServingGpu,
                            this,
                            batchKey,
                            batch.done,
                            batch.prefillLength,
                            static_cast<uint32_t>(batch.done.size()));
        m_waiting.erase(it);
        return;
    }
    const Time duration = Seconds(GetModel().Evaluate(batch.prefillLength));
    m_busyUntil = start + duration;
    const uint64_t l = batch.prefillLength;
    const auto members = static_cast<uint32_t>(batch.done.size());
    compat::Schedule(start - Simulator::Now(),
                     [this, batchKey, l, members]() { m_batchStartTrace(batchKey, l, members); });
    Simulator::Schedule(m_busyUntil - Simulator::Now(),
                        &PrefillEngine::Finish,
                        this,
                        batchKey,
                        batch.done,
                        l,
                        members);
    m_waiting.erase(it);
}

void
PrefillEngine::StartOnServingGpu(uint64_t batchKey,
                                 std::vector<Callback<void>> done,
                                 uint64_t l,
                                 uint32_t n)
{
    m_batchStartTrace(batchKey, l, n);
    GpuSequenceSpec spec;
    spec.prefillTokens = l * n; // each member's first L tokens
    spec.priority = true;
    const uint64_t handle = m_serving->Add(spec,
                                           compat::MakeCallback<void, const GpuEvent&>(
                                               [this, batchKey, done, l, n](const GpuEvent& e) {
                                                   if (e.kind == GpuEvent::FINISHED)
                                                   {
                                                       Finish(batchKey, done, l, n);
                                                   }
                                               }));
    NS_ABORT_MSG_IF(handle == 0,
                    "PrefillEngine: a batch of " << n << " x " << l
                                                 << " tokens never fits the ServingGpu's KvMemory");
}

void
PrefillEngine::Finish(uint64_t batchKey, std::vector<Callback<void>> done, uint64_t l, uint32_t n)
{
    NS_LOG_FUNCTION(this << batchKey);
    m_batchEndTrace(batchKey, l, n);
    for (auto& cb : done)
    {
        cb();
    }
}

} // namespace ns3
