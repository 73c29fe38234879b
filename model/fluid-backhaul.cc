/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-backhaul.h"

#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidBackhaul");

NS_OBJECT_ENSURE_REGISTERED(FluidBackhaul);

TypeId
FluidBackhaul::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FluidBackhaul")
            .SetParent<Object>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<FluidBackhaul>()
            .AddAttribute("Rate",
                          "Backhaul rate R (payload bit/s, no header overhead).",
                          DataRateValue(DataRate("4.5Gbps")),
                          MakeDataRateAccessor(&FluidBackhaul::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Scheduler",
                          "The policy that picks the transfer served (SelectNextTransfer).",
                          PointerValue(),
                          MakePointerAccessor(&FluidBackhaul::m_scheduler),
                          MakePointerChecker<HandoverScheduler>())
            .AddTraceSource("TransferDone",
                            "A transfer's last byte was delivered (sessionId, bytes).",
                            MakeTraceSourceAccessor(&FluidBackhaul::m_transferDoneTrace),
                            "ns3::FluidBackhaul::TransferTracedCallback");
    return tid;
}

FluidBackhaul::FluidBackhaul() = default;

FluidBackhaul::~FluidBackhaul() = default;

void
FluidBackhaul::DoDispose()
{
    m_completion.Cancel();
    m_flows.clear();
    m_scheduler = nullptr;
    Object::DoDispose();
}

double
FluidBackhaul::GetBytesDelivered() const
{
    return m_deliveredBytes;
}

Time
FluidBackhaul::GetFreeAt() const
{
    double bits = 0;
    for (std::size_t i = 0; i < m_flows.size(); ++i)
    {
        bits += m_flows[i].remainingBits;
    }
    if (m_busy)
    {
        // The served flow has progressed since m_since.
        const double sent =
            (Simulator::Now() - m_since).GetSeconds() * static_cast<double>(m_rate.GetBitRate());
        bits -= std::min(sent, m_flows[m_serving].remainingBits);
    }
    return Simulator::Now() + Seconds(bits / static_cast<double>(m_rate.GetBitRate()));
}

void
FluidBackhaul::AddTransfer(const KvTransferJob& job, DoneCallback done)
{
    NS_LOG_FUNCTION(this << job.sessionId << job.remainingBytes);
    NS_ABORT_MSG_IF(m_rate.GetBitRate() == 0, "ns3::FluidBackhaul::Rate must be > 0 bit/s");
    if (job.remainingBytes == 0)
    {
        m_transferDoneTrace(job.sessionId, 0);
        if (!done.IsNull())
        {
            done(job.sessionId);
        }
        return;
    }
    Settle();
    Flow f;
    f.job = job;
    f.remainingBits = 8.0 * static_cast<double>(job.remainingBytes);
    f.bytes = job.remainingBytes;
    f.done = done;
    m_flows.push_back(f);
    Serve();
}

void
FluidBackhaul::Settle()
{
    if (!m_busy)
    {
        return;
    }
    const double sent =
        (Simulator::Now() - m_since).GetSeconds() * static_cast<double>(m_rate.GetBitRate());
    Flow& f = m_flows[m_serving];
    const double used = std::min(sent, f.remainingBits);
    f.remainingBits -= used;
    m_deliveredBytes += used / 8.0;
    m_since = Simulator::Now();
    m_completion.Cancel();
    m_busy = false;
}

void
FluidBackhaul::Serve()
{
    if (m_flows.empty())
    {
        return;
    }
    std::size_t pick = 0;
    if (m_flows.size() > 1 && m_scheduler)
    {
        std::vector<KvTransferJob> view;
        view.reserve(m_flows.size());
        for (const auto& f : m_flows)
        {
            KvTransferJob j = f.job;
            j.remainingBytes = static_cast<uint64_t>(std::ceil(f.remainingBits / 8.0));
            view.push_back(j);
        }
        pick = m_scheduler->SelectNextTransfer(view);
    }
    m_serving = pick;
    m_busy = true;
    m_since = Simulator::Now();
    const double seconds = m_flows[pick].remainingBits / static_cast<double>(m_rate.GetBitRate());
    m_completion = Simulator::Schedule(Seconds(seconds), &FluidBackhaul::Complete, this);
}

void
FluidBackhaul::Complete()
{
    Flow f = m_flows[m_serving];
    m_deliveredBytes += f.remainingBits / 8.0;
    m_flows.erase(m_flows.begin() + static_cast<std::ptrdiff_t>(m_serving));
    m_busy = false;
    m_transferDoneTrace(f.job.sessionId, f.bytes);
    Serve();
    if (!f.done.IsNull())
    {
        f.done(f.job.sessionId);
    }
}

} // namespace ns3
