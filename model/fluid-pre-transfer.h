/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLUID_PRE_TRANSFER_H
#define FLUID_PRE_TRANSFER_H

#include "handover-scheduler.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace ns3
{

class KvPreTransferStore;

/**
 * \ingroup edge-llm
 * \brief The flow-level pre-transfer steps both flow engines take (FluidHandoverEngine,
 *        FluidServingEngine; doc/edge-llm-design.rst, "Proactive KV pre-transfer"): the
 *        policy's checks, the trigger, the target's room, the link's share among the
 *        caches sent ahead, and what a handover uses of what arrived.
 *
 * Pure C++: no simulator state; bytes are virtual.
 */

/**
 * \ingroup edge-llm
 * \brief Check a pre-transfer policy's settings for a flow engine.
 * \param pre the policy's settings (HandoverScheduler::GetPreTransfer())
 * \param slots whether its inner policy allocates slots (slots always yield)
 * \throws std::invalid_argument "ns3::PreTransferScheduler::YieldToHandovers false needs
 *         RateShare < 1 ..." for a batch policy that would leave its handovers nothing
 */
void CheckFluidPreTransfer(const PreTransferSettings& pre, bool slots);

/**
 * \ingroup edge-llm
 * \brief When a known handover's pre-transfer starts: PREDICTED_CROSSING, LeadTime before
 *        it, max(0, tau - LeadTime) (as the packet level's scripted handovers);
 *        A3_ENTERING, when the A3 entering event made it likely (\p likely).
 * \param pre the policy's settings
 * \param handoverTime tau, s, >= 0
 * \param likely A3: when the handover became likely, s, in [0, tau] (NaN: unknown)
 * \return the trigger, s, in [0, tau] (NaN: A3 with \p likely unknown)
 */
double FluidTriggerTime(const PreTransferSettings& pre, double handoverTime, double likely);

/**
 * \ingroup edge-llm
 * \brief The ping-pong guard (EdgeLlmPreTransferRole's): no pre-transfer back to the cell
 *        a UE's last handover came from, less than PingPongTime after it.
 * \param lastFrom the source of the UE's last handover by the trigger (0: none)
 * \param lastTime its time, s
 * \param predictedTarget the cell the trigger sends to
 * \param trigger the trigger's time, s
 * \param pingPongTime PingPongTime, s
 * \return whether the trigger is ignored
 */
bool FluidPingPongGuarded(uint16_t lastFrom,
                          double lastTime,
                          uint16_t predictedTarget,
                          double trigger,
                          double pingPongTime);

/**
 * \ingroup edge-llm
 * \brief What reserving a cache's room in a target's KV memory did.
 */
struct FluidAheadRoom
{
    bool refused{false};           //!< Larger than the whole memory: nothing reserved
    std::vector<uint64_t> evicted; //!< The entries evicted for it, oldest first
};

/**
 * \ingroup edge-llm
 * \brief Reserve room for a cache sent ahead (KvPreTransferStore::Reserve); one larger
 *        than the whole memory is refused (each engine counts it as an eviction).
 * \param store the target's KV memory
 * \param key the pre-transfer (not held)
 * \param bytes its room, bytes
 * \return refused, or the entries evicted
 */
FluidAheadRoom ReserveAhead(KvPreTransferStore& store, uint64_t key, uint64_t bytes);

/**
 * \ingroup edge-llm
 * \brief A cache sent ahead on a link now (bytes).
 */
struct FluidAheadSender
{
    double arrived{0}; //!< Bytes at the target, < goal
    double decoded{0}; //!< Bytes decoded by now (sendable), <= goal
    double goal{0};    //!< Bytes it sends in all
    double growth{0};  //!< Bytes decoded per s from now (FollowDecoding; 0: none)
};

/**
 * \ingroup edge-llm
 * \brief One sender's rate and when it next changes.
 */
struct FluidAheadRate
{
    double rate{0};                                         //!< Bytes/s
    double change{std::numeric_limits<double>::infinity()}; //!< s from now (infinity: never)
};

/**
 * \ingroup edge-llm
 * \brief Share \p allowed bytes/s of a link among its caches sent ahead: one that has
 *        caught up with its decoding (growth > 0, decoded < goal, arrived >= decoded) follows
 *        it, the followers together at most \p allowed; the others share equally what the
 *        followers leave. A rate changes when its cache is all sent, its decoding reaches
 *        the goal, or it catches up.
 * \param allowed RateShare x the link's rate left to pre-transfers, bytes/s, >= 0
 * \param senders the link's senders (each arrived < goal)
 * \return per sender, in order
 */
std::vector<FluidAheadRate> ShareAheadRate(double allowed,
                                           const std::vector<FluidAheadSender>& senders);

/**
 * \ingroup edge-llm
 * \brief What a handover to the cell that holds a cache sent ahead uses of it.
 */
struct FluidAheadClaim
{
    uint64_t usedTokens{0}; //!< P, whole tokens arrived, <= the context
    double wastedBytes{0};  //!< arrived - P x bytes per token
};

/**
 * \ingroup edge-llm
 * \brief The whole tokens a handover uses of the \p arrived bytes sent ahead (a token whose
 *        bytes all arrived, up to rounding in the sum of rates: +1e-9 token).
 * \param arrived bytes at the target
 * \param bytesPerToken KV bytes per token, > 0
 * \param contextTokens C, the cache's tokens at the handover
 * \return P = min(C, floor(arrived / bytes per token)) and the bytes left over
 */
FluidAheadClaim ClaimAhead(double arrived, double bytesPerToken, uint64_t contextTokens);

/**
 * \ingroup edge-llm
 * \param t a time, s
 * \return four steps of a double at \p t, s: a remainder that takes less than this is done
 *         (time cannot advance by less)
 */
double FluidTimeResolution(double t);

} // namespace ns3

#endif /* FLUID_PRE_TRANSFER_H */
