/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-handover-scenario.h"

#include "edge-llm-helper.h"

#include "ns3/double.h"
#include "ns3/edge-llm-compat.h"
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
} // namespace

FluidHandoverResult
FluidHandoverScenario::Run(const FluidHandoverConfig& config, const std::vector<CtHoUe>& ues)
{
    const LlmModelProfile profile = LlmModelProfile::FromPreset(config.model, config.kvBits);
    if (!(config.backhaulGbps > 0) || !std::isfinite(config.backhaulGbps))
    {
        throw std::invalid_argument("backhaulGbps must be a finite number > 0");
    }
    if (ues.empty())
    {
        throw std::invalid_argument("a flow-level batch needs at least one UE");
    }
    // A name that is no creatable HandoverScheduler would make ObjectFactory abort.
    RequireTypeId("schedulerType", config.schedulerType, "ns3::HandoverScheduler");
    ObjectFactory schedulerFactory(config.schedulerType);
    schedulerFactory.Set("Lookahead", TimeValue(config.lookahead));
    HandoverSchemeRegistry::SetAttributes(schedulerFactory, config.schedulerAttributes);
    Ptr<HandoverScheduler> scheduler = schedulerFactory.Create<HandoverScheduler>();

    Ptr<PrefillEngine> gpu = CreateObject<PrefillEngine>();
    gpu->SetAttribute("PrefillA", DoubleValue(config.prefill.GetA()));
    gpu->SetAttribute("PrefillB", DoubleValue(config.prefill.GetB()));
    gpu->SetAttribute("PrefillC", DoubleValue(config.prefill.GetC()));
    gpu->SetAttribute("BatchPeriod", TimeValue(config.batchPeriod));
    Ptr<FluidBackhaul> backhaul = CreateObject<FluidBackhaul>();
    const double bitRate = config.backhaulGbps * 1e9;
    backhaul->SetAttribute("Rate", DataRateValue(DataRate(static_cast<uint64_t>(bitRate))));
    backhaul->SetAttribute("Scheduler", PointerValue(scheduler));

    HandoverBatcher batcher(scheduler);
    HandoverBatcher::PlanInputs inputs;
    inputs.backhaulTokensPerSecond = bitRate / static_cast<double>(profile.BitsPerToken());
    inputs.prefill = config.prefill;
    inputs.batchPeriod = config.batchPeriod.GetSeconds();

    FluidHandoverResult result;
    result.ues.resize(ues.size());
    std::vector<int> pending(ues.size(), 0);
    std::vector<double> transferDone(ues.size());
    std::vector<double> prefillDone(ues.size());
    auto index = [&ues](uint64_t id) {
        return static_cast<std::size_t>(
            std::find_if(ues.begin(), ues.end(), [id](const CtHoUe& u) { return u.ueId == id; }) -
            ues.begin());
    };
    auto finish = [&](std::size_t i) {
        if (--pending[i] == 0)
        {
            CtHoUePlan& u = result.ues[i];
            u.delay = Simulator::Now().GetSeconds() - u.handoverTime;
        }
    };

    batcher.SetBatchCompleteCallback(
        [&gpu](uint32_t id, uint16_t, uint16_t size, bool online, const CtHoPlan& plan) {
            if (online && plan.prefillLength > 0)
            {
                gpu->Close(id, size);
            }
        });
    if (config.knownHandoverTimes)
    {
        for (const auto& ue : ues)
        {
            batcher.Expect(ue.ueId, TARGET_CELL, Seconds(ue.handoverTime));
        }
    }
    else
    {
        // Online: the road's future handovers are foreseen up to the Lookahead.
        batcher.SetArrivalPredictor([&ues](uint16_t, Time now, Time horizon) {
            std::vector<CtHoUe> next;
            for (const auto& ue : ues)
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
    // UE i's handover, planned now (at or after its time tau).
    auto begin = [&](std::size_t i) {
        const CtHoUe& ue = ues[i];
        const Time tau = Seconds(ue.handoverTime);
        HandoverBatcher::PlanInputs current = inputs;
        current.backhaulFreeAt = backhaul->GetFreeAt().GetSeconds(); // online backlog
        const HandoverBatcher::Decision d =
            batcher.Start(ue.ueId,
                          TARGET_CELL,
                          ue.contextTokens,
                          tau,
                          current,
                          [&](uint64_t id, Time) { return ues[index(id)].contextTokens; });
        CtHoUePlan& u = result.ues[i];
        u.ueId = ue.ueId;
        u.handoverTime = ue.handoverTime;
        u.contextTokens = ue.contextTokens;
        u.prefillTokens = d.prefillTokens;
        u.transferTokens = d.transferTokens;
        u.prefillDone = u.handoverTime;
        u.transferDone = u.handoverTime;
        result.prefillLength = d.prefillLength;
        pending[i] = 2;
        if (d.prefillTokens > 0)
        {
            gpu->Join(d.batchId,
                      d.batchSize,
                      d.prefillLength,
                      tau,
                      compat::MakeCallback<void>([&, i]() {
                          result.ues[i].prefillDone = Simulator::Now().GetSeconds();
                          finish(i);
                      }));
        }
        else
        {
            finish(i);
        }
        KvTransferJob job;
        job.sessionId = ue.ueId;
        job.handoverTime = tau;
        job.deadline = d.deadline;
        job.remainingBytes = d.transferTokens * profile.BytesPerToken();
        backhaul->AddTransfer(job, compat::MakeCallback<void, uint64_t>([&, i](uint64_t) {
                                  result.ues[i].transferDone = Simulator::Now().GetSeconds();
                                  finish(i);
                              }));
    };
    // Online handovers within gatherTime of the first are planned together, as the
    // packet level's EdgeLlmNode does.
    std::vector<std::size_t> gathered;
    EventId gatherEvent;
    auto processGathered = [&]() {
        std::vector<CtHoUe> arrivals;
        for (std::size_t i : gathered)
        {
            arrivals.push_back(ues[i]);
        }
        batcher.SetSimultaneous(TARGET_CELL, arrivals);
        const auto group = gathered;
        gathered.clear();
        for (std::size_t i : group)
        {
            begin(i);
        }
    };
    for (std::size_t i = 0; i < ues.size(); ++i)
    {
        compat::Schedule(Seconds(ues[i].handoverTime), [&, i]() {
            if (config.knownHandoverTimes || config.gatherTime.IsZero())
            {
                begin(i);
                return;
            }
            gathered.push_back(i);
            if (!compat::IsPending(gatherEvent))
            {
                gatherEvent = compat::Schedule(config.gatherTime, processGathered);
            }
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    for (const auto& u : result.ues)
    {
        result.worstDelay = std::max(result.worstDelay, u.delay);
    }
    return result;
}

} // namespace ns3
