/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fluid-pre-transfer.h"

#include "kv-pre-transfer-store.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ns3
{

void
CheckFluidPreTransfer(const PreTransferSettings& pre, bool slots)
{
    if (!pre.yieldToHandovers && pre.rateShare >= 1 && !slots)
    {
        throw std::invalid_argument("ns3::PreTransferScheduler::YieldToHandovers false needs "
                                    "RateShare < 1 (the handovers' part of the link)");
    }
}

double
FluidTriggerTime(const PreTransferSettings& pre, double handoverTime, double likely)
{
    if (pre.trigger == PreTransferSettings::PREDICTED_CROSSING)
    {
        return std::max(0.0, handoverTime - pre.leadTime.GetSeconds());
    }
    return likely;
}

bool
FluidPingPongGuarded(uint16_t lastFrom,
                     double lastTime,
                     uint16_t predictedTarget,
                     double trigger,
                     double pingPongTime)
{
    return lastFrom != 0 && lastFrom == predictedTarget && trigger < lastTime + pingPongTime;
}

FluidAheadRoom
ReserveAhead(KvPreTransferStore& store, uint64_t key, uint64_t bytes)
{
    FluidAheadRoom room;
    if (bytes > store.GetCapacity())
    {
        room.refused = true;
        return room;
    }
    room.evicted = store.Reserve(key, bytes);
    return room;
}

std::vector<FluidAheadRate>
ShareAheadRate(double allowed, const std::vector<FluidAheadSender>& senders)
{
    auto following = [](const FluidAheadSender& s) {
        return s.growth > 0 && s.decoded < s.goal && s.arrived >= s.decoded - 1e-9 * s.goal;
    };
    uint32_t catching = 0;
    double followed = 0;
    for (const FluidAheadSender& s : senders)
    {
        if (following(s))
        {
            followed += s.growth;
        }
        else
        {
            ++catching;
        }
    }
    std::vector<FluidAheadRate> out(senders.size());
    for (std::size_t n = 0; n < senders.size(); ++n)
    {
        const FluidAheadSender& s = senders[n];
        FluidAheadRate& r = out[n];
        if (following(s))
        {
            r.rate = s.growth * std::min(1.0, allowed / followed);
            r.change = (s.goal - s.decoded) / s.growth; // the decoding reaches the context
            continue;
        }
        r.rate = std::max(0.0, allowed - followed) / catching;
        if (r.rate > 0)
        {
            r.change = (s.goal - s.arrived) / r.rate; // all sent (if the goal is whole)
        }
        if (s.growth > 0 && s.decoded < s.goal)
        {
            r.change = std::min(r.change, (s.goal - s.decoded) / s.growth); // the goal is whole
            if (r.rate > s.growth)
            {
                r.change = std::min(r.change, (s.decoded - s.arrived) / (r.rate - s.growth));
            }
        }
    }
    return out;
}

FluidAheadClaim
ClaimAhead(double arrived, double bytesPerToken, uint64_t contextTokens)
{
    FluidAheadClaim c;
    c.usedTokens =
        std::min(contextTokens, static_cast<uint64_t>(std::floor(arrived / bytesPerToken + 1e-9)));
    c.wastedBytes = arrived - static_cast<double>(c.usedTokens) * bytesPerToken;
    return c;
}

double
FluidTimeResolution(double t)
{
    return 4.0 * (std::nextafter(t, std::numeric_limits<double>::infinity()) - t);
}

} // namespace ns3
