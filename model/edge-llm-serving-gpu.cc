/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-serving-gpu.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EdgeLlmServingGpu");

NS_OBJECT_ENSURE_REGISTERED(EdgeLlmServingGpu);

TypeId
EdgeLlmServingGpu::GetTypeId()
{
    const GpuIterationModel d; // the defaults: preset "ctho-a100"
    static TypeId tid =
        TypeId("ns3::EdgeLlmServingGpu")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<EdgeLlmServingGpu>()
            .AddAttribute("C0",
                          "c0 of t_iter = c0 + cPrefill P + cDecode B + cKv K: per iteration, s, "
                          "[0, 10] (ctHO's prefill constant b).",
                          DoubleValue(d.c0),
                          MakeDoubleAccessor(&EdgeLlmServingGpu::m_c0),
                          MakeDoubleChecker<double>(0, 10))
            .AddAttribute("CPrefill",
                          "cPrefill: per prefill token, s/token, [0, 1] (ctHO's slope a).",
                          DoubleValue(d.cPrefill),
                          MakeDoubleAccessor(&EdgeLlmServingGpu::m_cPrefill),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("CDecode",
                          "cDecode: per decoding sequence, s, [0, 1].",
                          DoubleValue(d.cDecode),
                          MakeDoubleAccessor(&EdgeLlmServingGpu::m_cDecode),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("CKv",
                          "cKv: per KV token read, s/token, [0, 1e-3] (KV bytes per token over "
                          "the HBM bandwidth).",
                          DoubleValue(d.cKv),
                          MakeDoubleAccessor(&EdgeLlmServingGpu::m_cKv),
                          MakeDoubleChecker<double>(0, 1e-3))
            .AddAttribute("TokenBudget",
                          "Tokens per iteration (chunked prefill; a decode step is one), "
                          "[1, 1000000].",
                          UintegerValue(d.tokenBudget),
                          MakeUintegerAccessor(&EdgeLlmServingGpu::m_tokenBudget),
                          MakeUintegerChecker<uint64_t>(1, GpuIterationModel::MAX_TOKEN_BUDGET))
            .AddAttribute("MaxRunning",
                          "Sequences admitted at once, [1, 100000].",
                          UintegerValue(d.maxRunning),
                          MakeUintegerAccessor(&EdgeLlmServingGpu::m_maxRunning),
                          MakeUintegerChecker<uint32_t>(1, GpuIterationModel::MAX_RUNNING))
            .AddAttribute("KvMemory",
                          "KV memory, bytes, [1, 2^50].",
                          UintegerValue(d.kvMemoryBytes),
                          MakeUintegerAccessor(&EdgeLlmServingGpu::m_kvMemory),
                          MakeUintegerChecker<uint64_t>(1, GpuIterationModel::MAX_KV_MEMORY))
            .AddTraceSource("Iteration",
                            "An iteration starts: its duration, P, B, K, and the sequences "
                            "running and waiting.",
                            MakeTraceSourceAccessor(&EdgeLlmServingGpu::m_iterationTrace),
                            "ns3::EdgeLlmServingGpu::IterationTracedCallback");
    return tid;
}

EdgeLlmServingGpu::EdgeLlmServingGpu()
{
    Take(GpuIterationModel());
}

EdgeLlmServingGpu::~EdgeLlmServingGpu() = default;

void
EdgeLlmServingGpu::DoDispose()
{
    m_iterationEnd.Cancel();
    m_sinks.clear();
    m_gpu.reset();
    Object::DoDispose();
}

void
EdgeLlmServingGpu::SetPreset(const std::string& name)
{
    NS_ABORT_MSG_IF(m_gpu, "EdgeLlmServingGpu::SetPreset after the first sequence");
    Take(GpuIterationModel::FromPreset(name));
}

void
EdgeLlmServingGpu::Take(const GpuIterationModel& m)
{
    m_c0 = m.c0;
    m_cPrefill = m.cPrefill;
    m_cDecode = m.cDecode;
    m_cKv = m.cKv;
    m_tokenBudget = m.tokenBudget;
    m_maxRunning = m.maxRunning;
    m_kvMemory = m.kvMemoryBytes;
}

void
EdgeLlmServingGpu::SetBytesPerToken(uint64_t bytesPerToken)
{
    NS_ABORT_MSG_IF(m_gpu, "EdgeLlmServingGpu::SetBytesPerToken after the first sequence");
    NS_ABORT_MSG_IF(bytesPerToken < 1, "EdgeLlmServingGpu: bytesPerToken must be >= 1");
    m_bytesPerToken = bytesPerToken;
}

ContinuousBatchingGpu&
EdgeLlmServingGpu::Gpu()
{
    if (!m_gpu)
    {
        try
        {
            GetModel().CheckPlanning(m_bytesPerToken);
            m_gpu = std::make_unique<ContinuousBatchingGpu>(GetModel(), m_bytesPerToken);
        }
        catch (const std::invalid_argument& e)
        {
            NS_FATAL_ERROR("ns3::EdgeLlmServingGpu: " << e.what());
        }
    }
    return *m_gpu;
}

GpuIterationModel
EdgeLlmServingGpu::GetModel() const
{
    GpuIterationModel m;
    m.c0 = m_c0;
    m.cPrefill = m_cPrefill;
    m.cDecode = m_cDecode;
    m.cKv = m_cKv;
    m.tokenBudget = m_tokenBudget;
    m.maxRunning = m_maxRunning;
    m.kvMemoryBytes = m_kvMemory;
    return m;
}

const ContinuousBatchingGpu&
EdgeLlmServingGpu::GetGpu() const
{
    return const_cast<EdgeLlmServingGpu*>(this)->Gpu();
}

uint64_t
EdgeLlmServingGpu::Add(const GpuSequenceSpec& spec, EventSink sink)
{
    const uint64_t handle = m_nextHandle++;
    if (!Gpu().Add(handle, spec))
    {
        NS_LOG_WARN("sequence of " << spec.cachedTokens + spec.suffixTokens + spec.prefillTokens +
                                          spec.decodeTokens
                                   << " tokens can never fit the KV memory");
        return 0;
    }
    m_sinks[handle] = sink;
    Kick();
    return handle;
}

void
EdgeLlmServingGpu::Release(uint64_t handle)
{
    Gpu().Release(handle);
    Kick();
}

void
EdgeLlmServingGpu::Remove(uint64_t handle)
{
    if (m_sinks.erase(handle) == 0)
    {
        return;
    }
    Gpu().Remove(handle);
}

bool
EdgeLlmServingGpu::Has(uint64_t handle) const
{
    return m_sinks.count(handle) > 0;
}

bool
EdgeLlmServingGpu::Park(uint64_t conversation, uint64_t tokens)
{
    Gpu().Unpark(conversation);
    return Gpu().Park(conversation, tokens);
}

uint64_t
EdgeLlmServingGpu::Unpark(uint64_t conversation)
{
    return Gpu().Unpark(conversation);
}

PrefillTimeModel
EdgeLlmServingGpu::GetPlanningModel() const
{
    return GetGpu().ExpectedPrefillModel();
}

void
EdgeLlmServingGpu::Kick()
{
    ContinuousBatchingGpu& gpu = Gpu();
    if (m_dispatching || gpu.IsBusy() || !gpu.HasWork())
    {
        return;
    }
    const GpuIteration it = gpu.BeginIteration();
    if (!gpu.IsBusy())
    {
        return;
    }
    m_iterationTrace(Seconds(it.duration),
                     it.prefillTokens,
                     it.decodeSequences,
                     it.kvTokensRead,
                     gpu.GetRunning(),
                     gpu.GetWaiting());
    m_iterationEnd =
        Simulator::Schedule(Seconds(it.duration), &EdgeLlmServingGpu::EndIteration, this);
}

void
EdgeLlmServingGpu::EndIteration()
{
    const std::vector<GpuEvent> events = Gpu().EndIteration();
    m_dispatching = true;
    for (const GpuEvent& e : events)
    {
        auto it = m_sinks.find(e.id);
        if (it == m_sinks.end())
        {
            continue; // removed by an earlier sink of this iteration
        }
        EventSink sink = it->second;
        if (e.kind == GpuEvent::FINISHED)
        {
            m_sinks.erase(it);
        }
        sink(e);
    }
    m_dispatching = false;
    Kick();
}

} // namespace ns3
