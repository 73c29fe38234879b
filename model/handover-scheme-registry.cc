/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "handover-scheme-registry.h"

#include "edge-llm-compat.h"

#include "ns3/string.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

bool
HandoverScheme::HasScheduler() const
{
    return !typeId.empty();
}

std::string
HandoverScheme::GetLabel() const
{
    return label.empty() ? name : label;
}

namespace
{

/// \return a batch policy's entry (no attributes)
HandoverScheme
BatchScheme(const std::string& name, const std::string& typeId, const std::string& description)
{
    HandoverScheme s;
    s.name = name;
    s.typeId = typeId;
    s.batchPlan = true;
    s.description = description;
    return s;
}

/// \return an ImpactHoScheduler entry sharing the slot by \p policy
HandoverScheme
SlotScheme(const std::string& name, const std::string& policy, const std::string& description)
{
    HandoverScheme s;
    s.name = name;
    s.typeId = "ns3::ImpactHoScheduler";
    s.attributes = {{"Policy", policy}};
    s.slotPolicy = true;
    s.description = description;
    return s;
}

/**
 * \param name the scheme's name ("pre-" and \p inner's, as GetSchemeName() says)
 * \param inner the scheme whose policy plans the rest
 * \param description the one-line description
 * \return a PreTransferScheduler entry around \p inner's policy: its InnerScheduler is
 *         \p inner's type with \p inner's attributes in ns-3's ObjectFactory form
 *         ("ns3::ImpactHoScheduler[Policy=WaterFilling]")
 */
HandoverScheme
PreTransferScheme(const std::string& name,
                  const HandoverScheme& inner,
                  const std::string& description)
{
    std::string spec;
    for (const auto& [attribute, value] : inner.attributes)
    {
        spec += (spec.empty() ? "[" : "|") + attribute + "=" + value;
    }
    HandoverScheme s;
    s.name = name;
    s.typeId = "ns3::PreTransferScheduler";
    s.attributes = {{"InnerScheduler", inner.typeId + spec + (spec.empty() ? "" : "]")}};
    s.batchPlan = inner.batchPlan;
    s.slotPolicy = inner.slotPolicy;
    s.wrapsInner = true;
    s.description = description;
    return s;
}

/// \return a flow-level formula of ImpactHO Table II (no scheduler)
HandoverScheme
FormulaScheme(const std::string& name, const std::string& description)
{
    HandoverScheme s;
    s.name = name;
    s.description = description;
    return s;
}

/// \return \p s with its plot colour \p color
HandoverScheme
Painted(HandoverScheme s, const std::string& color)
{
    s.color = color;
    return s;
}

/// \return every scheme (GetAll()'s list); colours from the Okabe-Ito and Tableau palettes,
///         one per scheme, so a scheme looks the same in every figure
std::vector<HandoverScheme>
MakeSchemes()
{
    const HandoverScheme ctHo =
        BatchScheme("ctho",
                    "ns3::CtHoScheduler",
                    "ctHO: the batch's prefill/transfer split that minimises the worst delay");
    HandoverScheme tcCtHo =
        BatchScheme("tc-ctho",
                    "ns3::CoordinatedCtHoScheduler",
                    "target-coordinated ctHO: each target plans its sources' batches together");
    tcCtHo.targetCoordinated = true;
    HandoverScheme impactHo = SlotScheme("impactho",
                                         "WaterFilling",
                                         "ImpactHO: importance-ordered partial transfer in 100 ms "
                                         "slots within a 500 ms window, each slot shared by "
                                         "water-filling");
    impactHo.admissionFallback = true;
    impactHo.label = "ours"; // ImpactHO's figures
    return {
        Painted(ctHo, "#0072B2"),
        Painted(BatchScheme("tho",
                            "ns3::ThoScheduler",
                            "tHO: the whole context prefilled at the target"),
                "#D55E00"),
        Painted(BatchScheme("cho", "ns3::ChoScheduler", "cHO: the whole cache over the backhaul"),
                "#009E73"),
        Painted(tcCtHo, "#56B4E9"),
        Painted(PreTransferScheme("pre-ctho",
                                  ctHo,
                                  "proactive pre-transfer: the cache sent ahead on an A3 event, "
                                  "the rest planned by ctHO; --ns3::PreTransferScheduler::* tune "
                                  "it"),
                "#CC79A7"),
        Painted(impactHo, "#E69F00"),
        Painted(SlotScheme("ea", "Equal", "EA: ImpactHO's slots shared equally"), "#000000"),
        Painted(SlotScheme("wta", "Wta", "WTA: ImpactHO's slots, winner takes all"), "#8C564B"),
        Painted(SlotScheme("pf", "Pf", "PF: ImpactHO's slots shared proportionally fair"),
                "#7F7F7F"),
        Painted(PreTransferScheme("pre-impactho",
                                  impactHo,
                                  "pre-transfer in importance order, the rest sent by ImpactHO"),
                "#BCBD22"),
        Painted(FormulaScheme("re-prefill",
                              "ImpactHO Table II: the user's context re-prefilled on its own GPU "
                              "(flow level, no scheduler)"),
                "#17BECF"),
        Painted(FormulaScheme("hybrid",
                              "ImpactHO Table II: a ctHO split for the user alone behind a FCFS "
                              "backhaul (flow level, no scheduler)"),
                "#9467BD"),
    };
}

} // namespace

std::string
HandoverSchemeRegistry::PlotColor(const std::string& series)
{
    // The scheme whose name or label the series is, or starts with followed by '-'
    // ("ctho-packet-lte"); the longest such name wins ("pre-ctho" over "ctho").
    std::string color;
    std::size_t matched = 0;
    for (const HandoverScheme& s : GetAll())
    {
        for (const std::string& n : {s.name, s.GetLabel()})
        {
            const bool whole = series == n;
            const bool prefix = series.size() > n.size() && series.compare(0, n.size(), n) == 0 &&
                                series[n.size()] == '-';
            if ((whole || prefix) && n.size() > matched)
            {
                color = s.color;
                matched = n.size();
            }
        }
    }
    return color;
}

const std::vector<HandoverScheme>&
HandoverSchemeRegistry::GetAll()
{
    static const std::vector<HandoverScheme> all = MakeSchemes();
    return all;
}

std::vector<HandoverScheme>
HandoverSchemeRegistry::Select(const Filter& filter)
{
    std::vector<HandoverScheme> selected;
    for (const HandoverScheme& s : GetAll())
    {
        if (!filter || filter(s))
        {
            selected.push_back(s);
        }
    }
    return selected;
}

const HandoverScheme&
HandoverSchemeRegistry::Find(const std::string& name)
{
    const std::vector<HandoverScheme>& all = GetAll();
    const auto it =
        std::find_if(all.begin(), all.end(), [&name](const auto& s) { return s.name == name; });
    if (it == all.end())
    {
        throw std::invalid_argument("unknown scheme '" + name + "'; valid schemes: " + Names());
    }
    return *it;
}

std::string
HandoverSchemeRegistry::Names(const std::string& separator, const Filter& filter)
{
    std::string names;
    for (const HandoverScheme& s : Select(filter))
    {
        names += (names.empty() ? "" : separator) + s.name;
    }
    return names;
}

std::string
HandoverSchemeRegistry::Describe(const Filter& filter)
{
    std::string text;
    for (const HandoverScheme& s : Select(filter))
    {
        text += (text.empty() ? "" : "; ") + s.name + " (" + s.description + ")";
    }
    return text;
}

std::vector<HandoverScheme>
HandoverSchemeRegistry::ParseList(const std::string& list, const Filter& filter)
{
    const std::vector<HandoverScheme> offered = Select(filter);
    const std::string giveSome = "give one or more of " + Names(", ", filter) + ", comma-separated";
    if (list.empty() || list.front() == ',' || list.back() == ',' ||
        list.find(",,") != std::string::npos)
    {
        throw std::invalid_argument(giveSome);
    }
    std::vector<HandoverScheme> schemes;
    std::istringstream words(list);
    std::string name;
    while (std::getline(words, name, ','))
    {
        const auto it = std::find_if(offered.begin(), offered.end(), [&name](const auto& s) {
            return s.name == name;
        });
        if (it == offered.end())
        {
            const bool known = std::any_of(GetAll().begin(),
                                           GetAll().end(),
                                           [&name](const auto& s) { return s.name == name; });
            throw std::invalid_argument((known ? "scheme '" + name + "' is not offered here"
                                               : "unknown scheme '" + name + "'") +
                                        "; valid schemes: " + Names(", ", filter));
        }
        if (std::any_of(schemes.begin(), schemes.end(), [&name](const auto& s) {
                return s.name == name;
            }))
        {
            throw std::invalid_argument("'" + name + "' is listed twice");
        }
        schemes.push_back(*it);
    }
    return schemes;
}

std::map<std::string, std::string>
HandoverSchemeRegistry::AttributesSet(const Filter& filter)
{
    std::map<std::string, std::string> set;
    for (const HandoverScheme& s : Select(filter))
    {
        for (const auto& [attribute, value] : s.attributes)
        {
            // The TypeId that declares the attribute: a default is set there only.
            TypeId tid = TypeId::LookupByName(s.typeId);
            while (true)
            {
                bool own = false;
                for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
                {
                    own = own || tid.GetAttribute(i).name == attribute;
                }
                if (own || tid.GetParent() == tid)
                {
                    break;
                }
                tid = tid.GetParent();
            }
            std::string& text = set[tid.GetName() + "::" + attribute];
            text += (text.empty() ? "set per scheme: " : ", ") + s.name + " (" + value + ")";
        }
    }
    return set;
}

namespace
{

/// Add \p name and its parents up to HandoverScheduler (a parent's attribute defaults
/// apply to its subclasses' objects) to \p types.
void
AddWithParents(const std::string& name, std::set<std::string>& types)
{
    for (TypeId tid = TypeId::LookupByName(name); tid != Object::GetTypeId(); tid = tid.GetParent())
    {
        types.insert(tid.GetName());
    }
}

/// \return the scheduler types \p s builds: its own and, if it wraps one, its inner
///         policy's (the InnerScheduler value up to '['), each with its parents; none for
///         a formula
std::set<std::string>
TypesBuilt(const HandoverScheme& s)
{
    std::set<std::string> types;
    if (!s.HasScheduler())
    {
        return types;
    }
    AddWithParents(s.typeId, types);
    for (const auto& [attribute, value] : s.attributes)
    {
        if (s.wrapsInner && attribute == "InnerScheduler")
        {
            AddWithParents(value.substr(0, value.find('[')), types);
        }
    }
    return types;
}

} // namespace

std::map<std::string, std::string>
HandoverSchemeRegistry::TypesUnused(const std::vector<HandoverScheme>& schemes)
{
    std::set<std::string> built;
    std::string running;
    for (const HandoverScheme& s : schemes)
    {
        built.merge(TypesBuilt(s));
        running += (running.empty() ? "" : ", ") + s.name;
    }
    std::map<std::string, std::string> builders; // type -> the schemes that build it
    for (const HandoverScheme& s : GetAll())
    {
        for (const std::string& type : TypesBuilt(s))
        {
            std::string& names = builders[type];
            names += (names.empty() ? "" : ", ") + s.name;
        }
    }
    std::map<std::string, std::string> unused;
    for (const auto& [type, names] : builders)
    {
        if (!built.count(type))
        {
            unused[type] = "no scheme of this run builds it (running: " +
                           (running.empty() ? std::string("none") : running) +
                           "); schemes that do: " + names;
        }
    }
    return unused;
}

ObjectFactory
HandoverSchemeRegistry::GetFactory(const std::string& name)
{
    const HandoverScheme& s = Find(name);
    if (!s.HasScheduler())
    {
        throw std::invalid_argument("scheme '" + name +
                                    "' has no scheduler (a flow-level formula); schemes with "
                                    "one: " +
                                    Names(", ", [](const auto& e) { return e.HasScheduler(); }));
    }
    ObjectFactory factory(s.typeId);
    SetAttributes(factory, s.attributes);
    return factory;
}

Ptr<HandoverScheduler>
HandoverSchemeRegistry::Create(const std::string& name)
{
    return GetFactory(name).Create<HandoverScheduler>();
}

void
HandoverSchemeRegistry::SetAttributes(ObjectFactory& factory,
                                      const std::vector<HandoverScheme::Attribute>& attributes)
{
    const TypeId tid = factory.GetTypeId();
    for (const auto& [name, value] : attributes)
    {
        TypeId::AttributeInformation info;
        if (!tid.LookupAttributeByName(name, &info))
        {
            throw std::invalid_argument(tid.GetName() + " has no attribute '" + name + "'");
        }
        if (!compat::CreateValidValue(info.checker, StringValue(value)))
        {
            throw std::invalid_argument("invalid value '" + value + "' for " + tid.GetName() +
                                        "::" + name +
                                        "; valid: " + info.checker->GetUnderlyingTypeInformation());
        }
        factory.Set(name, StringValue(value));
    }
}

} // namespace ns3
