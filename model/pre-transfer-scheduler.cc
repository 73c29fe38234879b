/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pre-transfer-scheduler.h"

#include "edge-llm-compat.h"
#include "slot-allocator.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PreTransferScheduler);

namespace
{
/// The creatable policies an inner policy may be, by TypeId name (batch and slot).
std::vector<std::string>
InnerPolicyNames()
{
    const TypeId base = HandoverScheduler::GetTypeId();
    const TypeId self = PreTransferScheduler::GetTypeId();
    std::vector<std::string> names;
    for (uint32_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if (tid == base || tid == self || !tid.IsChildOf(base) || !tid.HasConstructor())
        {
            continue;
        }
        names.push_back(tid.GetName());
    }
    std::sort(names.begin(), names.end());
    return names;
}

/// \return the items joined by ", "
std::string
JoinNames(const std::vector<std::string>& items)
{
    std::string list;
    for (const auto& item : items)
    {
        list += (list.empty() ? "" : ", ") + item;
    }
    return list;
}

/**
 * \brief An inner policy's factory from "Type" or "Type[Name=Value|Name=Value]" (ns-3's
 *        ObjectFactory form, checked here so that a bad spec is an exception, not an abort).
 * \param spec the InnerScheduler value
 * \return the factory, its type and attributes set
 * \throws std::invalid_argument naming InnerScheduler and what is valid
 */
ObjectFactory
InnerPolicyFactory(const std::string& spec)
{
    const std::string field = "ns3::PreTransferScheduler::InnerScheduler";
    const std::size_t open = spec.find('[');
    const std::string type = spec.substr(0, open);
    const std::vector<std::string> valid = InnerPolicyNames();
    if (std::find(valid.begin(), valid.end(), type) == valid.end())
    {
        throw std::invalid_argument(field + " must be one of " + JoinNames(valid) +
                                    " (optionally with attributes, Type[Name=Value|...]), got '" +
                                    spec + "'");
    }
    ObjectFactory factory(type);
    if (open == std::string::npos)
    {
        return factory;
    }
    if (spec.back() != ']' || spec.find(']') != spec.size() - 1 || open + 2 > spec.size() - 1)
    {
        throw std::invalid_argument(field + " '" + spec +
                                    "': attributes go in one pair of brackets at the end, "
                                    "Type[Name=Value|Name=Value]");
    }
    const TypeId tid = TypeId::LookupByName(type);
    std::istringstream items(spec.substr(open + 1, spec.size() - open - 2));
    std::string item;
    while (std::getline(items, item, '|'))
    {
        const std::size_t eq = item.find('=');
        const std::string name = item.substr(0, eq);
        TypeId::AttributeInformation info;
        if (eq == std::string::npos || !tid.LookupAttributeByName(name, &info))
        {
            std::vector<std::string> attributes;
            for (TypeId t = tid; t != Object::GetTypeId(); t = t.GetParent())
            {
                for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
                {
                    attributes.push_back(t.GetAttribute(i).name);
                }
            }
            throw std::invalid_argument(field + " '" + spec + "': '" + item +
                                        "' is not Name=Value with an attribute of " + type + " (" +
                                        JoinNames(attributes) + ")");
        }
        Ptr<AttributeValue> value =
            compat::CreateValidValue(info.checker, StringValue(item.substr(eq + 1)));
        if (!value)
        {
            const std::string valid =
                info.checker->HasUnderlyingTypeInformation()
                    ? " (" + info.checker->GetUnderlyingTypeInformation() + ")"
                    : "";
            throw std::invalid_argument(field + " '" + spec + "': '" + item.substr(eq + 1) +
                                        "' is not a valid value of " + type + "::" + name + valid);
        }
        factory.Set(name, *value);
    }
    return factory;
}
} // namespace

TypeId
PreTransferScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PreTransferScheduler")
            .SetParent<HandoverScheduler>()
            .SetGroupName("EdgeLlm")
            .AddConstructor<PreTransferScheduler>()
            .AddAttribute("InnerScheduler",
                          "The policy that plans, at the handover, the part of the cache not "
                          "sent ahead (a HandoverScheduler's TypeId name, optionally with its "
                          "attributes, e.g. ns3::ImpactHoScheduler[Policy=WaterFilling]): a "
                          "batch policy (ctHO, tHO, cHO) splits it into prefill and transfer; "
                          "a slot policy "
                          "(ImpactHO's family) sends the cache in importance order, ahead and "
                          "after the handover.",
                          StringValue("ns3::CtHoScheduler"),
                          MakeStringAccessor(&PreTransferScheduler::SetInnerScheduler),
                          MakeStringChecker())
            .AddAttribute("Trigger",
                          "What makes a handover likely: A3Entering (the neighbour's RSRP "
                          "exceeds the serving cell's by A3Offset for TimeToTrigger) or "
                          "PredictedCrossing (LeadTime before the handover predicted from the "
                          "UE's position and speed).",
                          EnumValue(PreTransferScheduler::A3_ENTERING),
                          compat::MakeEnumAccessor<Trigger>(&PreTransferScheduler::m_trigger),
                          MakeEnumChecker(PreTransferScheduler::A3_ENTERING,
                                          "A3Entering",
                                          PreTransferScheduler::PREDICTED_CROSSING,
                                          "PredictedCrossing"))
            .AddAttribute("A3Offset",
                          "A3Entering: the trigger's offset, dB, in [-15, 15] (3GPP's a3-Offset "
                          "range; the RRC rounds it to 0.5 dB; negative: before the cells' "
                          "RSRPs are equal, i.e. ahead of an A3 handover).",
                          DoubleValue(-3.0),
                          MakeDoubleAccessor(&PreTransferScheduler::m_a3Offset),
                          MakeDoubleChecker<double>(-15.0, 15.0))
            .AddAttribute("TimeToTrigger",
                          "A3Entering: how long the condition must hold before the "
                          "pre-transfer starts, in [0, 65535] ms (the RRC's 16-bit field; "
                          "the packet level's RRC counts whole ms: a fraction is dropped).",
                          TimeValue(MilliSeconds(256)),
                          MakeTimeAccessor(&PreTransferScheduler::m_timeToTrigger),
                          MakeTimeChecker(Seconds(0), MilliSeconds(65535)))
            .AddAttribute("LeadTime",
                          "PredictedCrossing: how long before the predicted handover the "
                          "pre-transfer starts.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&PreTransferScheduler::m_leadTime),
                          MakeTimeChecker(Seconds(0), Seconds(3600)))
            .AddAttribute("RateShare",
                          "The most of a backhaul link's rate the pre-transfers on it use "
                          "together (shared equally), in [0, 1]; 0: nothing is sent ahead.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&PreTransferScheduler::m_rateShare),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("YieldToHandovers",
                          "true: pre-transfers pause while a planned handover batch uses the "
                          "link (idle capacity only); false: they keep their share and the "
                          "batch is planned on the rest of the link (RateShare < 1 then).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PreTransferScheduler::m_yield),
                          MakeBooleanChecker())
            .AddAttribute("HoldTime",
                          "How long a cell keeps bytes sent ahead for a UE that did not hand "
                          "over to it, after the source stopped sending them (then dropped "
                          "and counted as waste).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&PreTransferScheduler::m_holdTime),
                          MakeTimeChecker(Seconds(0), Seconds(3600)))
            .AddAttribute("PingPongTime",
                          "How long after a UE's handover into a cell its cache is not sent "
                          "ahead back to the cell it came from, in [0, 3600] s (a return "
                          "within it would be a ping-pong: 3GPP TR 36.839 counts one within "
                          "1 s). Triggers towards that cell inside it are ignored (an A3 "
                          "trigger repeats while its condition holds). 0: no guard.",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&PreTransferScheduler::m_pingPongTime),
                          MakeTimeChecker(Seconds(0), Seconds(3600)))
            .AddAttribute("FollowDecoding",
                          "false: the cache decoded by the trigger is sent ahead, the tokens "
                          "decoded after it at the handover; true: the tokens decoded after "
                          "the trigger follow (packet level: each PacingInterval), so that at "
                          "the handover only the last few are left.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&PreTransferScheduler::m_follow),
                          MakeBooleanChecker())
            .AddAttribute("PacingInterval",
                          "Packet level: how often a source refills its pre-transfers' budgets "
                          "(RateShare of the path's planning rate times this, shared by the "
                          "pre-transfers on the path).",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&PreTransferScheduler::m_pacingInterval),
                          MakeTimeChecker(MicroSeconds(100), Seconds(10)));
    return tid;
}

PreTransferScheduler::PreTransferScheduler()
    : m_innerType("ns3::CtHoScheduler"),
      m_trigger(A3_ENTERING),
      m_a3Offset(-3.0),
      m_timeToTrigger(MilliSeconds(256)),
      m_leadTime(Seconds(1)),
      m_rateShare(0.5),
      m_yield(true),
      m_holdTime(Seconds(1)),
      m_pingPongTime(Seconds(1)),
      m_follow(false),
      m_pacingInterval(MilliSeconds(10))
{
}

PreTransferScheduler::~PreTransferScheduler() = default;

void
PreTransferScheduler::DoDispose()
{
    m_inner = nullptr;
    m_sentAhead.clear();
    HandoverScheduler::DoDispose();
}

void
PreTransferScheduler::SetInnerScheduler(std::string spec)
{
    m_inner = InnerPolicyFactory(spec).Create<HandoverScheduler>();
    m_innerType = spec;
}

void
PreTransferScheduler::SetInnerPolicy(Ptr<HandoverScheduler> inner)
{
    if (!inner || inner->GetPreTransfer())
    {
        throw std::invalid_argument("ns3::PreTransferScheduler::InnerScheduler must be a batch or "
                                    "slot policy that does not send ahead itself");
    }
    m_inner = inner;
    m_innerType = inner->GetInstanceTypeId().GetName();
}

void
PreTransferScheduler::CheckInnerScheduler(const std::string& spec)
{
    InnerPolicyFactory(spec);
}

Ptr<HandoverScheduler>
PreTransferScheduler::GetInnerScheduler() const
{
    if (!m_inner)
    {
        const_cast<PreTransferScheduler*>(this)->SetInnerScheduler(m_innerType);
    }
    return m_inner;
}

std::string
PreTransferScheduler::GetSchemeName() const
{
    return "pre-" + GetInnerScheduler()->GetSchemeName();
}

std::size_t
PreTransferScheduler::SelectNextTransfer(const std::vector<KvTransferJob>& jobs) const
{
    return GetInnerScheduler()->SelectNextTransfer(jobs);
}

bool
PreTransferScheduler::AllocatesSlots() const
{
    return GetInnerScheduler()->AllocatesSlots();
}

Time
PreTransferScheduler::GetSlotLength() const
{
    return GetInnerScheduler()->GetSlotLength();
}

Time
PreTransferScheduler::GetTransferWindow() const
{
    return GetInnerScheduler()->GetTransferWindow();
}

void
PreTransferScheduler::AddSlotTransfer(uint64_t sessionId,
                                      uint16_t target,
                                      Time arrival,
                                      uint64_t bytes,
                                      const AccuracyUtility& utility)
{
    GetInnerScheduler()->AddSlotTransfer(sessionId, target, arrival, bytes, utility);
}

uint16_t
PreTransferScheduler::RemoveSlotTransfer(uint64_t sessionId)
{
    m_sentAhead.erase(sessionId);
    return GetInnerScheduler()->RemoveSlotTransfer(sessionId);
}

bool
PreTransferScheduler::HasSlotTransfers() const
{
    return GetInnerScheduler()->HasSlotTransfers();
}

std::vector<HandoverScheduler::SlotShare>
PreTransferScheduler::ShareSlot(Time now, const SentBytes& sent, const SlotBudget& budget) const
{
    if (m_sentAhead.empty())
    {
        return GetInnerScheduler()->ShareSlot(now, sent, budget);
    }
    // The entries sent ahead are the first of the importance order: sent, for the share.
    const SentBytes withAhead = [this, &sent](uint16_t target, uint64_t sessionId) {
        const auto ahead = m_sentAhead.find(sessionId);
        return sent(target, sessionId) + (ahead == m_sentAhead.end() ? 0 : ahead->second);
    };
    return GetInnerScheduler()->ShareSlot(now, withAhead, budget);
}

std::optional<PreTransferSettings>
PreTransferScheduler::GetPreTransfer() const
{
    PreTransferSettings settings;
    settings.trigger = m_trigger;
    settings.a3OffsetDb = m_a3Offset;
    settings.timeToTrigger = m_timeToTrigger;
    settings.leadTime = m_leadTime;
    settings.rateShare = m_rateShare;
    settings.yieldToHandovers = m_yield;
    settings.holdTime = m_holdTime;
    settings.pingPongTime = m_pingPongTime;
    settings.followDecoding = m_follow;
    settings.pacingInterval = m_pacingInterval;
    return settings;
}

void
PreTransferScheduler::SetBytesSentAhead(uint64_t sessionId, uint64_t bytes)
{
    if (bytes == 0)
    {
        m_sentAhead.erase(sessionId);
        return;
    }
    m_sentAhead[sessionId] = bytes;
}

SlotAllocation
PreTransferScheduler::AllocateSlot(const std::vector<SlotUser>& users, double budgetBits) const
{
    return GetInnerScheduler()->AllocateSlot(users, budgetBits);
}

uint64_t
PreTransferScheduler::ChoosePrefillLength(const CtHoPlanner& planner,
                                          const std::vector<CtHoUe>& batch) const
{
    return GetInnerScheduler()->ChoosePrefillLength(planner, batch);
}

double
PreTransferScheduler::A3EnteringPosition(double bsDistance,
                                         double pathlossExponent,
                                         double offsetDb)
{
    if (!std::isfinite(bsDistance) || bsDistance <= 0)
    {
        throw std::invalid_argument("bsDistance must be a finite number > 0 m");
    }
    if (!std::isfinite(pathlossExponent) || pathlossExponent <= 0)
    {
        throw std::invalid_argument("pathlossExponent must be a finite number > 0");
    }
    if (!std::isfinite(offsetDb))
    {
        throw std::invalid_argument("A3Offset must be a finite number of dB");
    }
    const double k = std::pow(10.0, offsetDb / (10.0 * pathlossExponent));
    return bsDistance * k / (1.0 + k);
}

double
PreTransferScheduler::RoadTriggerTime(double startX,
                                      double speed,
                                      double handoverTime,
                                      double bsDistance,
                                      double pathlossExponent) const
{
    if (!std::isfinite(speed) || speed <= 0)
    {
        throw std::invalid_argument("speed must be a finite number > 0 m/s");
    }
    if (m_trigger == PREDICTED_CROSSING)
    {
        return std::max(0.0, handoverTime - m_leadTime.GetSeconds());
    }
    const double x = A3EnteringPosition(bsDistance, pathlossExponent, m_a3Offset);
    return std::max(0.0, (x - startX) / speed) + m_timeToTrigger.GetSeconds();
}

} // namespace ns3
