/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-handover-scenario.h"

#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
#include "ns3/edge-llm-helper.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/event-id.h"
#include "ns3/fluid-backhaul.h"
#include "ns3/handover-batcher.h"
#include "ns3/handover-scheme-registry.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/prefill-engine.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace ns3
{

namespace
{
/// Target cell id of the flow-level batch.
constexpr uint16_t TARGET_CELL = 2;

/**
 * One run of FluidHandoverScenario: the packet level's scheduler, HandoverBatcher and
 * PrefillEngine over a FluidBackhaul, on the ns-3 simulator.
 */
class FluidBatchRun
{
  public:
    /// Builds the objects of a run (config already checked).
    FluidBatchRun(const FluidHandoverConfig& config,
                  const std::vector<CtHoUe>& ues,
                  const LlmModelProfile& profile);

    /// Schedules every handover, runs and destroys the simulator; returns the result.
    FluidHandoverResult Run();

  private:
    /// Known times: every handover expected; online: the road's arrivals foreseen.
    void SetUpBatcher();
    /// UE \p i's handover, planned now: its prefill joins the GPU, its transfer the link.
    void Begin(std::size_t i);
    /// One of UE \p i's two parts (prefill, transfer) is done; both: its delay D_i.
    void Finish(std::size_t i);
    /// Online: plan the handovers gathered within gatherTime together.
    void ProcessGathered();
    /// UE \p i hands over now.
    void Arrive(std::size_t i);
    /// \return the index of UE \p id in the input
    std::size_t Index(uint64_t id) const;

    const FluidHandoverConfig& m_config;  //!< The knobs
    const std::vector<CtHoUe>& m_ues;     //!< The handovers
    LlmModelProfile m_profile;            //!< The model's KV size
    Ptr<HandoverScheduler> m_scheduler;   //!< The policy
    Ptr<PrefillEngine> m_gpu;             //!< The target GPU
    Ptr<FluidBackhaul> m_backhaul;        //!< The source-target link
    HandoverBatcher m_batcher;            //!< Plans the batches
    HandoverBatcher::PlanInputs m_inputs; //!< R, p, T_c
    FluidHandoverResult m_result;         //!< Filled as the run goes
    std::vector<int> m_pending;           //!< Per UE: prefill and transfer not done
    std::vector<std::size_t> m_gathered;  //!< Online: handovers gathered for one plan
    EventId m_gatherEvent;                //!< Online: the end of the gathering
};

/// \return the config's scheduler \throws std::invalid_argument for a bad schedulerType
Ptr<HandoverScheduler>
CreateScheduler(const FluidHandoverConfig& config)
{
    // A name that is no creatable HandoverScheduler would make ObjectFactory abort.
    RequireTypeId("schedulerType", config.schedulerType, "ns3::HandoverScheduler");
    ObjectFactory schedulerFactory(config.schedulerType);
    schedulerFactory.Set("Lookahead", TimeValue(config.lookahead));
    HandoverSchemeRegistry::SetAttributes(schedulerFactory, config.schedulerAttributes);
    return schedulerFactory.Create<HandoverScheduler>();
}

FluidBatchRun::FluidBatchRun(const FluidHandoverConfig& config,
                             const std::vector<CtHoUe>& ues,
                             const LlmModelProfile& profile)
    : m_config(config),
      m_ues(ues),
      m_profile(profile),
      m_scheduler(CreateScheduler(config)),
      m_gpu(CreateObject<PrefillEngine>()),
      m_backhaul(CreateObject<FluidBackhaul>()),
      m_batcher(m_scheduler)
{
    m_gpu->SetAttribute("PrefillA", DoubleValue(config.prefill.GetA()));
    m_gpu->SetAttribute("PrefillB", DoubleValue(config.prefill.GetB()));
    m_gpu->SetAttribute("PrefillC", DoubleValue(config.prefill.GetC()));
    m_gpu->SetAttribute("BatchPeriod", TimeValue(config.batchPeriod));
    const double bitRate = config.backhaulGbps * 1e9;
    m_backhaul->SetAttribute("Rate", DataRateValue(DataRate(static_cast<uint64_t>(bitRate))));
    m_backhaul->SetAttribute("Scheduler", PointerValue(m_scheduler));
    m_inputs.backhaulTokensPerSecond = bitRate / static_cast<double>(profile.BitsPerToken());
    m_inputs.prefill = config.prefill;
    m_inputs.batchPeriod = config.batchPeriod.GetSeconds();
    m_result.ues.resize(ues.size());
    m_pending.assign(ues.size(), 0);
}

std::size_t
FluidBatchRun::Index(uint64_t id) const
{
    return static_cast<std::size_t>(
        std::find_if(m_ues.begin(), m_ues.end(), [id](const CtHoUe& u) { return u.ueId == id; }) -
        m_ues.begin());
}

void
FluidBatchRun::Finish(std::size_t i)
{
    if (--m_pending[i] == 0)
    {
        CtHoUePlan& u = m_result.ues[i];
        u.delay = Simulator::Now().GetSeconds() - u.handoverTime;
    }
}

void
FluidBatchRun::SetUpBatcher()
{
    m_batcher.SetBatchCompleteCallback(
        [this](uint32_t id, uint16_t, uint16_t size, bool online, const CtHoPlan& plan) {
            if (online && plan.prefillLength > 0)
            {
                m_gpu->Close(id, size);
            }
        });
    if (m_config.knownHandoverTimes)
    {
        for (const auto& ue : m_ues)
        {
            m_batcher.Expect(ue.ueId, TARGET_CELL, Seconds(ue.handoverTime));
        }
        return;
    }
    // Online: the road's future handovers are foreseen up to the Lookahead.
    m_batcher.SetArrivalPredictor([this](uint16_t, Time now, Time horizon) {
        std::vector<CtHoUe> next;
        for (const auto& ue : m_ues)
        {
            if (ue.handoverTime > now.GetSeconds() &&
                ue.handoverTime <= (now + horizon).GetSeconds())
            {
                next.push_back(ue);
            }
        }
        return next;
    });
}

void
FluidBatchRun::Begin(std::size_t i)
{
    // UE i's handover, planned now (at or after its time tau).
    const CtHoUe& ue = m_ues[i];
    const Time tau = Seconds(ue.handoverTime);
    HandoverBatcher::PlanInputs current = m_inputs;
    current.backhaulFreeAt = m_backhaul->GetFreeAt().GetSeconds(); // online backlog
    const HandoverBatcher::Decision d =
        m_batcher.Start(ue.ueId,
                        TARGET_CELL,
                        ue.contextTokens,
                        tau,
                        current,
                        [this](uint64_t id, Time) { return m_ues[Index(id)].contextTokens; });
    CtHoUePlan& u = m_result.ues[i];
    u.ueId = ue.ueId;
    u.handoverTime = ue.handoverTime;
    u.contextTokens = ue.contextTokens;
    u.prefillTokens = d.prefillTokens;
    u.transferTokens = d.transferTokens;
    u.prefillDone = u.handoverTime;
    u.transferDone = u.handoverTime;
    m_result.prefillLength = d.prefillLength;
    m_pending[i] = 2;
    if (d.prefillTokens > 0)
    {
        m_gpu->Join(d.batchId,
                    d.batchSize,
                    d.prefillLength,
                    tau,
                    compat::MakeCallback<void>([this, i]() {
                        m_result.ues[i].prefillDone = Simulator::Now().GetSeconds();
                        Finish(i);
                    }));
    }
    else
    {
        Finish(i);
    }
    KvTransferJob job;
    job.sessionId = ue.ueId;
    job.handoverTime = tau;
    job.deadline = d.deadline;
    job.remainingBytes = d.transferTokens * m_profile.BytesPerToken();
    m_backhaul->AddTransfer(job, compat::MakeCallback<void, uint64_t>([this, i](uint64_t) {
                                m_result.ues[i].transferDone = Simulator::Now().GetSeconds();
                                Finish(i);
                            }));
}

void
FluidBatchRun::ProcessGathered()
{
    std::vector<CtHoUe> arrivals;
    for (std::size_t i : m_gathered)
    {
        arrivals.push_back(m_ues[i]);
    }
    m_batcher.SetSimultaneous(TARGET_CELL, arrivals);
    const auto group = m_gathered;
    m_gathered.clear();
    for (std::size_t i : group)
    {
        Begin(i);
    }
}

void
FluidBatchRun::Arrive(std::size_t i)
{
    // Online handovers within gatherTime of the first are planned together, as the packet
    // level's EdgeLlmNode does.
    if (m_config.knownHandoverTimes || m_config.gatherTime.IsZero())
    {
        Begin(i);
        return;
    }
    m_gathered.push_back(i);
    if (!compat::IsPending(m_gatherEvent))
    {
        m_gatherEvent = compat::Schedule(m_config.gatherTime, [this]() { ProcessGathered(); });
    }
}

FluidHandoverResult
FluidBatchRun::Run()
{
    SetUpBatcher();
    for (std::size_t i = 0; i < m_ues.size(); ++i)
    {
        compat::Schedule(Seconds(m_ues[i].handoverTime), [this, i]() { Arrive(i); });
    }
    Simulator::Run();
    Simulator::Destroy();
    for (const auto& u : m_result.ues)
    {
        m_result.worstDelay = std::max(m_result.worstDelay, u.delay);
    }
    return m_result;
}
} // namespace

FluidHandoverResult
FluidHandoverScenario::Run(const FluidHandoverConfig& config, const std::vector<CtHoUe>& ues)
{
    const LlmModelProfile profile = LlmModelProfile::FromPreset(config.model, config.kvBits);
    edgellm::CheckBackhaulGbps("backhaulGbps", config.backhaulGbps);
    if (ues.empty())
    {
        throw std::invalid_argument("a flow-level batch needs at least one UE");
    }
    return FluidBatchRun(config, ues, profile).Run();
}

} // namespace ns3
