/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "impactho-fluid-scenario.h"

#include "ns3/ctho-planner.h"
#include "ns3/double.h"
#include "ns3/edge-llm-limits.h"
#include "ns3/enum.h"
#include "ns3/impactho-scheduler.h"
#include "ns3/llm-model-profile.h"
#include "ns3/object-factory.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>

namespace ns3
{

namespace
{
/// Random streams of the ImpactHO draws.
constexpr int64_t STREAM_ARRIVALS = 21;
constexpr int64_t STREAM_CONTEXTS = 22;

/// The fraction y with A(y) = level (A increasing), by bisection to 1e-12.
double
FractionFor(const AccuracyUtility& a, double level)
{
    double lo = 0;
    double hi = 1;
    for (int i = 0; i < 60; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        (a.Value(mid) >= level ? hi : lo) = mid;
    }
    return hi;
}
} // namespace

void
ImpactHoFluidConfig::Validate() const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    (void)LlmModelProfile::FromPreset(model, kvBits);
    edgellm::CheckBackhaulGbps("backhaulGbps", backhaulGbps);
    require(slot.IsStrictlyPositive(), "slot must be > 0");
    require(window.IsStrictlyPositive(), "window must be > 0");
    require(arrivalRate > 0 && arrivalRate <= 1e4, "arrivalRate must be in (0, 1e4] users/s");
    require(simTime.IsStrictlyPositive(), "simTime must be > 0");
    require(!contexts.empty(), "contexts must list at least one length");
    require(kvAccuracyLoss >= 0 && kvAccuracyLoss < 1, "kvAccuracyLoss must be in [0, 1)");
    require(kvBits < 16 || kvAccuracyLoss == 0,
            "kvAccuracyLoss must be 0 at kvBits 16 (the loss is that of a lower precision)");
    require(calibration == AccuracyUtility::HEADLINE || calibration == AccuracyUtility::JOINT,
            "calibration must be HEADLINE or JOINT");
    if (anchors)
    {
        anchors->Validate();
    }
    require(!preTransfer ||
                preTransfer->GetPreTransfer()->trigger == PreTransferSettings::PREDICTED_CROSSING,
            "preTransfer needs ns3::PreTransferScheduler::Trigger PredictedCrossing (Poisson "
            "arrivals have no position: the LeadTime is the prediction)");
}

AccuracyUtility
ImpactHoFluidConfig::Utility(uint64_t contextTokens) const
{
    return anchors ? AccuracyUtility::FromAnchors(*anchors,
                                                  contextTokens,
                                                  importanceOrder,
                                                  kvAccuracyLoss)
                   : AccuracyUtility::Preset(contextTokens,
                                             importanceOrder,
                                             kvAccuracyLoss,
                                             calibration);
}

std::vector<std::pair<double, uint64_t>>
ImpactHoFluidScenario::DrawHandovers(const ImpactHoFluidConfig& cfg, uint64_t run)
{
    // Draws of (seed, run): Poisson arrivals and uniform contexts, fixed streams.
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(run);
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetStream(STREAM_ARRIVALS);
    gap->SetAttribute("Mean", DoubleValue(1.0 / cfg.arrivalRate));
    Ptr<UniformRandomVariable> pick = CreateObject<UniformRandomVariable>();
    pick->SetStream(STREAM_CONTEXTS);
    RngSeedManager::SetRun(oldRun);
    std::vector<std::pair<double, uint64_t>> handovers;
    for (double t = gap->GetValue(); t < cfg.simTime.GetSeconds(); t += gap->GetValue())
    {
        handovers.emplace_back(t, cfg.contexts[pick->GetInteger(0, cfg.contexts.size() - 1)]);
    }
    return handovers;
}

double
ImpactHoFluidScenario::RePrefillLatency(uint64_t context)
{
    return PrefillTimeModel::ImpactHoQwen3_8b().Evaluate(context);
}

double
ImpactHoFluidScenario::HybridLatency(uint64_t context,
                                     double arrival,
                                     double& backhaulFreeAt,
                                     double backhaulTokensPerSecond)
{
    // ctHO for this user alone (no batching period), on its own GPU, behind the FCFS
    // backhaul's backlog: the split that minimizes its own delay.
    CtHoPlanner planner(backhaulTokensPerSecond, PrefillTimeModel::ImpactHoQwen3_8b(), 0.0);
    planner.SetBackhaulFreeAt(backhaulFreeAt);
    const CtHoPlan plan = planner.PlanOptimal({{0, arrival, context}});
    if (plan.ues[0].transferTokens > 0)
    {
        backhaulFreeAt = plan.ues[0].transferDone;
    }
    return plan.worstDelay;
}

namespace
{
/// One user of a flow-level ImpactHO run, as the slots go.
struct UserState
{
    double arrival{0};       //!< Handover time, s
    uint64_t context{0};     //!< C_i, tokens
    double bits{0};          //!< L_i, bits
    AccuracyUtility utility; //!< A_i
    double x{0};             //!< Fraction received
    double reach99{1};       //!< Fraction at 99 % of the asymptote
    double latency99{std::numeric_limits<double>::quiet_NaN()}; //!< See ImpactHoUserResult
    double preSent{0};                                          //!< Share sent ahead
};

/// The users of (seed, run) with their caches and utilities.
std::vector<UserState>
DrawSlotUsers(const ImpactHoFluidConfig& cfg, uint64_t run)
{
    const double bitsPerToken =
        static_cast<double>(LlmModelProfile::FromPreset(cfg.model, cfg.kvBits).BitsPerToken());
    std::vector<UserState> users;
    for (const auto& [t, c] : ImpactHoFluidScenario::DrawHandovers(cfg, run))
    {
        UserState u;
        u.arrival = t;
        u.context = c;
        u.bits = static_cast<double>(c) * bitsPerToken;
        u.utility = cfg.Utility(c);
        u.reach99 = FractionFor(u.utility, 0.99 * u.utility.asymptote);
        users.push_back(u);
    }
    return users;
}

/**
 * The slot at \p t: the active users (arrived by its start, window open, cache not full)
 * share the budget by the scheduler's AllocateSlot (ImpactHO Sec. IV); a window that ends
 * mid-slot cuts a user's share pro rata.
 * \return the bits the active users used (0 if none was active)
 */
double
ShareActiveSlot(const ImpactHoFluidConfig& cfg,
                const ImpactHoScheduler& scheduler,
                double t,
                std::size_t first,
                std::vector<UserState>& users,
                ImpactHoFluidResult& result)
{
    const double dt = cfg.slot.GetSeconds();
    const double window = cfg.window.GetSeconds();
    const double budget = cfg.backhaulGbps * 1e9 * dt;
    std::vector<SlotUser> active;
    std::vector<std::size_t> index;
    for (std::size_t i = first; i < users.size() && users[i].arrival <= t; ++i)
    {
        UserState& u = users[i];
        if (u.arrival + window > t && u.x < 1.0)
        {
            active.push_back({i, u.bits, u.x, u.utility});
            index.push_back(i);
        }
    }
    double used = 0;
    if (active.empty())
    {
        return used;
    }
    const SlotAllocation a = scheduler.AllocateSlot(active, budget);
    ++result.slots;
    result.fallbackSlots += a.regime == SlotAllocation::FALLBACK ? 1 : 0;
    for (std::size_t n = 0; n < index.size(); ++n)
    {
        UserState& u = users[index[n]];
        // Sent at a constant rate over the slot; the window may cut it short.
        const double share = std::clamp((u.arrival + window - t) / dt, 0.0, 1.0);
        const double y = u.x + (a.target[n] - u.x) * share;
        if (std::isnan(u.latency99) && y >= u.reach99 && a.target[n] > u.x)
        {
            u.latency99 = t + dt * (u.reach99 - u.x) / (a.target[n] - u.x) - u.arrival;
        }
        used += (std::min(1.0, y) - u.x) * u.bits;
        u.x = std::min(1.0, y);
    }
    return used;
}

/**
 * Pre-transfer in the slot at \p t: the users \p ahead (arriving within LeadTime) get the
 * budget the active users left, at most RateShare of it, shared equally, a user's
 * leftover going to the others (water-filling on bits), in importance order.
 */
void
SendAheadInSlot(double spare,
                std::vector<std::size_t> ahead,
                std::vector<UserState>& users,
                ImpactHoFluidResult& result)
{
    std::sort(ahead.begin(), ahead.end(), [&users](std::size_t a, std::size_t b) {
        return (1.0 - users[a].x) * users[a].bits < (1.0 - users[b].x) * users[b].bits;
    });
    for (std::size_t n = 0; n < ahead.size(); ++n)
    {
        UserState& u = users[ahead[n]];
        const double bits =
            std::min(spare / static_cast<double>(ahead.size() - n), (1.0 - u.x) * u.bits);
        spare -= bits;
        result.preSentBits += bits;
        u.x = std::min(1.0, u.x + bits / u.bits);
        u.preSent = u.x;
        if (std::isnan(u.latency99) && u.x >= u.reach99)
        {
            u.latency99 = 0; // it arrives with 99 % of its accuracy
        }
    }
}

/// Per-user results and the run's means (anytime inference: A_i of the final fraction).
void
SummarizeSlotUsers(const std::vector<UserState>& users, ImpactHoFluidResult& result)
{
    double accSum = 0;
    double fullSum = 0;
    uint32_t starved = 0;
    for (const auto& u : users)
    {
        ImpactHoUserResult r;
        r.arrival = u.arrival;
        r.contextTokens = u.context;
        r.received = u.x;
        r.accuracy = u.utility.Value(u.x);
        r.fullAccuracy = u.utility.asymptote;
        r.starved = u.x < u.utility.inflection;
        r.latency99 = u.latency99;
        r.cacheBits = u.bits;
        r.utility = u.utility;
        r.preSent = u.preSent;
        accSum += r.accuracy;
        fullSum += r.fullAccuracy;
        starved += r.starved ? 1 : 0;
        result.users.push_back(r);
    }
    if (!users.empty())
    {
        result.meanAccuracy = accSum / static_cast<double>(users.size());
        result.meanFullAccuracy = fullSum / static_cast<double>(users.size());
        result.starvationRate = static_cast<double>(starved) / static_cast<double>(users.size());
    }
}
} // namespace

ImpactHoFluidResult
ImpactHoFluidScenario::Run(const ImpactHoFluidConfig& cfg, uint64_t run)
{
    cfg.Validate();
    ObjectFactory factory("ns3::ImpactHoScheduler");
    factory.Set("Policy", StringValue(cfg.policy));
    factory.Set("Fallback", StringValue(cfg.fallback));
    factory.Set("SlotLength", TimeValue(cfg.slot));
    factory.Set("TransferWindow", TimeValue(cfg.window));
    Ptr<ImpactHoScheduler> scheduler = factory.Create<ImpactHoScheduler>();
    std::vector<UserState> users = DrawSlotUsers(cfg, run);

    ImpactHoFluidResult result;
    const double dt = cfg.slot.GetSeconds();
    const double window = cfg.window.GetSeconds();
    const double budget = cfg.backhaulGbps * 1e9 * dt;
    // The pre-transfer policy, asked as the flow-level core asks it (never cast).
    const std::optional<PreTransferSettings> pre =
        cfg.preTransfer ? cfg.preTransfer->GetPreTransfer() : std::nullopt;
    const double lead = pre ? pre->leadTime.GetSeconds() : 0.0;
    const double preShare = pre ? pre->rateShare : 0.0;
    std::size_t first = 0; // users before it are done (window closed or full)
    for (uint64_t k = 0;; ++k)
    {
        const double t = static_cast<double>(k) * dt;
        while (first < users.size() &&
               (users[first].arrival + window <= t || users[first].x >= 1.0))
        {
            ++first;
        }
        if (first >= users.size())
        {
            break;
        }
        // Pre-transfer: users arriving after this slot's start, within LeadTime.
        std::vector<std::size_t> ahead;
        for (std::size_t i = first; preShare > 0 && i < users.size(); ++i)
        {
            if (users[i].arrival > t && users[i].arrival - lead <= t && users[i].x < 1.0)
            {
                ahead.push_back(i);
            }
            if (users[i].arrival - lead > t)
            {
                break; // arrivals are in time order
            }
        }
        const double used = ShareActiveSlot(cfg, *scheduler, t, first, users, result);
        SendAheadInSlot(std::min(budget - used, preShare * budget), ahead, users, result);
    }
    SummarizeSlotUsers(users, result);
    return result;
}

} // namespace ns3
