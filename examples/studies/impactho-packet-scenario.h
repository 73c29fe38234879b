/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IMPACTHO_PACKET_SCENARIO_H
#define IMPACTHO_PACKET_SCENARIO_H

#include "impactho-fluid-scenario.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief ImpactHO at packet level: the flow level's handovers (same draws) between two
 *        EdgeLlmNodes over a real point-to-point backhaul (TCP, queues, MTU, delay).
 *
 * The source's ImpactHoScheduler shares each slot's budget among the active sessions;
 * KvTransferConnection sends each session's importance-ordered entries (3-byte
 * coordinate each) within its slot budget and truncates it at the transfer window;
 * the target counts the entries that arrived and resumes on that prefix. The sessions
 * have no UE attached: only the backhaul is studied (LTE adds nothing to accuracy).
 */
class ImpactHoPacketScenario
{
  public:
    /**
     * \brief One run; leaves the simulator destroyed.
     * \param config the knobs (as at flow level; simTime bounds the handovers)
     * \param run the run number (the same handovers as ImpactHoFluidScenario::Run)
     * \param backhaulDelay the link's propagation delay
     * \param mtu the link's MTU, bytes
     * \return per-user received fractions, accuracies, and the averages
     * \throws std::invalid_argument for a bad config
     */
    static ImpactHoFluidResult Run(const ImpactHoFluidConfig& config,
                                   uint64_t run,
                                   Time backhaulDelay = MicroSeconds(100),
                                   uint16_t mtu = 9000);
};

} // namespace ns3

#endif /* IMPACTHO_PACKET_SCENARIO_H */
