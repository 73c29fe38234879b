/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-run-progress.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <iomanip>
#include <utility>

namespace ns3
{

EdgeLlmRunProgress::EdgeLlmRunProgress(const std::string& label,
                                       Time stopAt,
                                       std::ostream& os,
                                       std::chrono::steady_clock::duration interval,
                                       Time check)
    : m_label(label),
      m_stopAt(stopAt),
      m_os(os),
      m_interval(interval),
      m_check(check),
      m_start(std::chrono::steady_clock::now()),
      m_last(m_start),
      m_simStart(Simulator::Now())
{
    NS_ABORT_MSG_IF(!stopAt.IsStrictlyPositive() || !check.IsStrictlyPositive() ||
                        interval <= std::chrono::steady_clock::duration::zero(),
                    "EdgeLlmRunProgress: stopAt, interval and check must be > 0");
    m_event = Simulator::Schedule(m_check, &EdgeLlmRunProgress::Check, this);
}

EdgeLlmRunProgress::~EdgeLlmRunProgress()
{
    m_event.Cancel();
}

uint32_t
EdgeLlmRunProgress::GetLines() const
{
    return m_lines;
}

void
EdgeLlmRunProgress::SetStatus(std::function<std::string()> status)
{
    m_status = std::move(status);
}

void
EdgeLlmRunProgress::Check()
{
    const auto now = std::chrono::steady_clock::now();
    if (now - m_last >= m_interval)
    {
        m_last = now;
        ++m_lines;
        const double wall = std::chrono::duration<double>(now - m_start).count();
        const double simulated = (Simulator::Now() - m_simStart).GetSeconds();
        const double left = (m_stopAt - Simulator::Now()).GetSeconds();
        m_os << m_label << ": simulated " << std::fixed << std::setprecision(3)
             << Simulator::Now().GetSeconds() << " of " << m_stopAt.GetSeconds() << " s, wall "
             << std::setprecision(0) << wall << " s, ETA " << left * wall / simulated << " s"
             << std::defaultfloat << std::setprecision(6);
        if (m_status)
        {
            m_os << ", " << m_status();
        }
        m_os << std::endl;
    }
    // Never keep a run alive: once nothing else is scheduled (or Stop was called), stop.
    if (!Simulator::IsFinished() && Simulator::Now() + m_check <= m_stopAt)
    {
        m_event = Simulator::Schedule(m_check, &EdgeLlmRunProgress::Check, this);
    }
}

} // namespace ns3
