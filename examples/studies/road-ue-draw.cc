/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "road-ue-draw.h"

#include "ns3/edge-llm-limits.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{
/// Random streams of the road draws (fixed so every scheme sees the same UEs).
constexpr int64_t STREAM_START_X = 11;
constexpr int64_t STREAM_CONTEXT = 12;
} // namespace

std::string
RoadUeDraw::NumUesRange()
{
    return "[1, " + std::to_string(MAX_UES) + "]";
}

void
RoadUeDraw::Validate() const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    require(numUes >= 1 && numUes <= MAX_UES,
            "numUes must be in " + NumUesRange() + ", got " + std::to_string(numUes));
    require(std::isfinite(speed) && speed > 0,
            "speed must be a finite number > 0 m/s, got " + edgellm::FormatValue(speed));
    require(std::isfinite(boundary) && boundary > 0,
            "boundary must be a finite number > 0 m, got " + edgellm::FormatValue(boundary));
    require(std::isfinite(startMax) && startMax >= 0 && startMax < boundary,
            "startMax must be in [0, boundary) = [0, " + edgellm::FormatValue(boundary) +
                ") m, got " + edgellm::FormatValue(startMax));
    require(std::isfinite(startMin) && startMin >= 0 && startMin <= startMax,
            "startMin must be in [0, startMax] = [0, " + edgellm::FormatValue(startMax) +
                "] m, got " + edgellm::FormatValue(startMin));
    edgellm::CheckContextTokens("contextMin", static_cast<double>(contextMin));
    edgellm::CheckContextTokens("contextMax", static_cast<double>(contextMax));
    require(contextMin <= contextMax,
            "contextMin must be in [1, contextMax] (contextMin <= contextMax), got contextMin = " +
                std::to_string(contextMin) + ", contextMax = " + std::to_string(contextMax));
}

std::vector<CtHoUe>
RoadUeDraw::Draw(uint64_t run) const
{
    if (numUes < 1 || speed <= 0 || startMin > startMax || startMax >= boundary || contextMin < 1 ||
        contextMin > contextMax)
    {
        throw std::invalid_argument("road draw needs numUes >= 1, speed > 0, startMin <= "
                                    "startMax < boundary and 1 <= contextMin <= contextMax");
    }
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(run);
    Ptr<UniformRandomVariable> x = CreateObject<UniformRandomVariable>();
    x->SetStream(STREAM_START_X);
    Ptr<UniformRandomVariable> c = CreateObject<UniformRandomVariable>();
    c->SetStream(STREAM_CONTEXT);
    RngSeedManager::SetRun(oldRun);
    std::vector<CtHoUe> ues;
    for (uint32_t i = 0; i < numUes; ++i)
    {
        const double x0 = x->GetValue(startMin, startMax);
        CtHoUe ue;
        ue.ueId = i + 1;
        ue.handoverTime = (boundary - x0) / speed;
        ue.contextTokens = c->GetInteger(contextMin, contextMax);
        ues.push_back(ue);
    }
    return ues;
}

} // namespace ns3
