/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_BACKHAUL_H
#define FLUID_BACKHAUL_H

#include "handover-scheduler.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Flow-level backhaul between two BSs: KV transfers as fluid flows, driven by
 *        ns-3 events, so one Monte-Carlo run of a handover batch costs microseconds.
 *
 * The whole Rate goes to one transfer at a time, the one the HandoverScheduler's
 * SelectNextTransfer() picks (earliest deadline first for ctHO, Sec. III-B); the
 * choice is revisited whenever a transfer arrives or ends, so an arrival with an
 * earlier deadline preempts. Events happen only at arrivals and completions.
 */
class FluidBackhaul : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    FluidBackhaul();
    ~FluidBackhaul() override;

    /// Called when a transfer's last byte is delivered: (session id).
    typedef Callback<void, uint64_t> DoneCallback;

    /**
     * \brief TracedCallback signature for a finished transfer.
     * \param [in] sessionId the session
     * \param [in] bytes its KV bytes
     */
    typedef void (*TransferTracedCallback)(uint64_t sessionId, uint64_t bytes);

    /**
     * \brief Queue a transfer now.
     * \param job session, handover time, deadline, size in remainingBytes (0: done now)
     * \param done called when its last byte is delivered
     */
    void AddTransfer(const KvTransferJob& job, DoneCallback done);

    /// \return bytes delivered so far
    double GetBytesDelivered() const;

    /// \return when every transfer queued now will have been delivered (now if idle)
    Time GetFreeAt() const;

  protected:
    void DoDispose() override;

  private:
    /// A transfer in progress.
    struct Flow
    {
        KvTransferJob job;       //!< As given
        double remainingBits{0}; //!< Fluid remainder
        uint64_t bytes{0};       //!< Size
        DoneCallback done;       //!< Completion callback
    };

    void Settle();
    void Serve();
    void Complete();

    DataRate m_rate;                    //!< Backhaul rate
    Ptr<HandoverScheduler> m_scheduler; //!< Who is served
    std::vector<Flow> m_flows;          //!< Unfinished transfers
    std::size_t m_serving{0};           //!< Index served (valid if m_busy)
    bool m_busy{false};                 //!< A flow is being served
    Time m_since;                       //!< Start of the current service interval
    EventId m_completion;               //!< End of the served flow
    double m_deliveredBytes{0};         //!< Counter

    TracedCallback<uint64_t, uint64_t> m_transferDoneTrace; //!< TransferDone
};

} // namespace ns3

#endif /* FLUID_BACKHAUL_H */
