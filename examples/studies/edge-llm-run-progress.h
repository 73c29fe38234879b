/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_RUN_PROGRESS_H
#define EDGE_LLM_RUN_PROGRESS_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Progress lines for a packet-level run that takes long in wall time: once
 *        \p interval of wall time has passed since the last line (or the start), one line
 *        "<label>: simulated S of T s, wall W s, ETA E s" on \p os, where T is the time
 *        the run stops at and E = (T - S) x W / S, the wall time still to go at the rate so
 *        far. A run that ends within the first interval prints nothing, so quick runs'
 *        output is unchanged. (ns-3's ShowProgress reports the rate but knows no end
 *        time, hence no ETA.)
 *
 * Usage: `EdgeLlmRunProgress progress("ctHO", stopAt, std::cerr); Simulator::Run();`
 * The object must live until Simulator::Run returns; it checks the wall clock every
 * \p check of simulated time (one event each, none after \p stopAt or once nothing else is
 * scheduled: it never keeps a run alive nor reorders other events).
 */
class EdgeLlmRunProgress
{
  public:
    /**
     * \brief Start reporting (schedules the first check).
     * \param label the run's name, first on each line
     * \param stopAt the simulated time the run stops at, > 0
     * \param os where the lines go (kept by reference: it must outlive this)
     * \param interval wall time between two lines, > 0 (default 10 s)
     * \param check simulated time between two looks at the wall clock, > 0 (default 10 ms)
     */
    EdgeLlmRunProgress(const std::string& label,
                       Time stopAt,
                       std::ostream& os,
                       std::chrono::steady_clock::duration interval = std::chrono::seconds(10),
                       Time check = MilliSeconds(10));
    ~EdgeLlmRunProgress();

    EdgeLlmRunProgress(const EdgeLlmRunProgress&) = delete;
    EdgeLlmRunProgress& operator=(const EdgeLlmRunProgress&) = delete;

    /// \return the progress lines printed so far
    uint32_t GetLines() const;

    /**
     * \brief Append \p status() to every line from now on (e.g. how many UEs resumed, so
     *        that a run waiting for one stuck UE shows it).
     * \param status called once per line; empty: nothing appended
     */
    void SetStatus(std::function<std::string()> status);

  private:
    /// Look at the wall clock; print a line if the interval has passed; schedule the next.
    void Check();

    std::string m_label;                            //!< First word of each line
    Time m_stopAt;                                  //!< T, the run's stop time
    std::ostream& m_os;                             //!< Output
    std::chrono::steady_clock::duration m_interval; //!< Wall time between lines
    Time m_check;                                   //!< Simulated time between checks
    std::function<std::string()> m_status;          //!< Appended to each line (may be empty)
    std::chrono::steady_clock::time_point m_start;  //!< Wall clock at the start
    std::chrono::steady_clock::time_point m_last;   //!< Wall clock at the last line
    Time m_simStart;                                //!< Simulated time at the start
    EventId m_event;                                //!< Next check
    uint32_t m_lines{0};                            //!< Lines printed
};

} // namespace ns3

#endif // EDGE_LLM_RUN_PROGRESS_H
