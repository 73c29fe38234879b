/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HANDOVER_SCHEME_REGISTRY_H
#define HANDOVER_SCHEME_REGISTRY_H

#include "handover-scheduler.h"

#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One handover scheme: the name programs and outputs use, the scheduler that
 *        runs it with the attributes it sets, what it can do, and its one-line description.
 */
struct HandoverScheme
{
    /// Name and value of one attribute of the scheme's scheduler (the value as its
    /// checker parses it, e.g. "Equal" for ImpactHoScheduler Policy)
    using Attribute = std::pair<std::string, std::string>;

    std::string name; //!< As in --schemes and the outputs' scheme column ("ctho", ...)
    /// HandoverScheduler subclass ("ns3::CtHoScheduler"); "" for a flow-level formula
    /// without a scheduler (ImpactHO Table II's re-prefill and hybrid)
    std::string typeId;
    /// Set on the scheduler object in this order (GetFactory), never as defaults
    std::vector<Attribute> attributes;
    bool batchPlan{false};  //!< Plans prefill/transfer batches (AllocatesSlots() false)
    bool slotPolicy{false}; //!< Shares the backhaul slot by slot (AllocatesSlots() true)
    /// Wraps an inner policy (PreTransferScheduler: the cache sent ahead, the rest planned
    /// by the InnerScheduler attribute's policy)
    bool wrapsInner{false};
    /// The target plans its sources' batches together (HandoverScheduler::GetPlanLead())
    bool targetCoordinated{false};
    /// Has ImpactHO's admission and its fallback (ImpactHoScheduler Fallback acts)
    bool admissionFallback{false};
    std::string description; //!< One line, for help texts (no trailing period)
    std::string label;       //!< Figure legend if not the name ("ours"); "": the name
    /// Plot colour, gnuplot's "#RRGGBB", one per scheme (figures draw it in that colour)
    std::string color;

    /// \return whether a scheduler object runs the scheme (typeId not empty)
    bool HasScheduler() const;
    /// \return the figure legend: label, or the name if it has none
    std::string GetLabel() const;
};

/**
 * \ingroup edge-llm
 * \brief The one list of handover schemes (issue 44): every program lists, parses and
 *        describes its schemes from it, and creates a scheme's scheduler with
 *        GetFactory() or Create(), which set the scheme's attributes on that object
 *        (never through Config::SetDefault).
 *
 * A program offering some schemes only passes a Filter on the capabilities
 * (HandoverScheme::batchPlan, ...). A new scheme is one entry in GetAll() (in
 * handover-scheme-registry.cc) plus its HandoverScheduler class.
 */
class HandoverSchemeRegistry
{
  public:
    /// Which schemes a program offers (true: offered); empty: every scheme
    using Filter = std::function<bool(const HandoverScheme&)>;

    /// \return every scheme, in the order programs list them
    static const std::vector<HandoverScheme>& GetAll();

    /**
     * \param filter the schemes wanted (empty: all)
     * \return those schemes, in GetAll() order
     */
    static std::vector<HandoverScheme> Select(const Filter& filter = Filter());

    /**
     * \param name a scheme's name
     * \return its entry
     * \throws std::invalid_argument "unknown scheme '<name>'; valid schemes: ..." listing
     *         every name
     */
    static const HandoverScheme& Find(const std::string& name);

    /**
     * \brief The colour a figure draws a series in.
     * \param series a curve's name: a scheme's name or label, alone or followed by '-' and
     *        more ("ctho-packet-lte"; the longest matching name wins)
     * \return the scheme's colour, "#RRGGBB"; "" for no scheme (gnuplot's own colours)
     */
    static std::string PlotColor(const std::string& series);

    /**
     * \param separator what goes between two names
     * \param filter the schemes wanted (empty: all)
     * \return their names in GetAll() order, e.g. "ctho, tho, cho"
     */
    static std::string Names(const std::string& separator = ", ", const Filter& filter = Filter());

    /**
     * \param filter the schemes wanted (empty: all)
     * \return a help text listing them: "name (description); name (description)"
     */
    static std::string Describe(const Filter& filter = Filter());

    /**
     * \brief Parse a comma-separated list of scheme names (a program's --schemes).
     * \param list the names, e.g. "ctho,impactho"
     * \param filter the schemes the program offers (empty: all)
     * \return their entries, in the order given
     * \throws std::invalid_argument for a name not offered ("unknown scheme 'x'; valid
     *         schemes: ..."), a name given twice, an empty list or an empty name
     */
    static std::vector<HandoverScheme> ParseList(const std::string& list,
                                                 const Filter& filter = Filter());

    /**
     * \brief The attributes the schemes set, for CheckAttributeArguments' setByProgram: a
     *        default given on the command line would be overwritten per scheme.
     * \param filter the schemes the program offers (empty: all)
     * \return "<declaring TypeId>::<attribute>" -> "set per scheme: <name> (<value>), ..."
     */
    static std::map<std::string, std::string> AttributesSet(const Filter& filter = Filter());

    /**
     * \brief The scheduler types that running \p schemes never builds, for
     *        CheckAttributeArguments' unused types: a default set for one would change
     *        nothing. A scheme builds its typeId and, wrapping an inner policy
     *        (PreTransferScheduler), that policy's type; HandoverScheduler itself (whose
     *        Lookahead every scheduler reads) is built when any scheme has a scheduler.
     * \param schemes the schemes a run uses
     * \return each scheduler TypeId of GetAll() (and ns3::HandoverScheduler) none of them
     *         builds -> "no scheme of this run builds it (running: ctho, tho); schemes that
     *         do: impactho, ea, ..."
     */
    static std::map<std::string, std::string> TypesUnused(
        const std::vector<HandoverScheme>& schemes);

    /**
     * \param name a scheme's name
     * \return a factory of its scheduler with its attributes set
     * \throws std::invalid_argument for an unknown name (Find()) or a scheme without a
     *         scheduler (HandoverScheme::HasScheduler())
     */
    static ObjectFactory GetFactory(const std::string& name);

    /**
     * \param name a scheme's name
     * \return a new scheduler of the scheme, its attributes set (GetFactory())
     * \throws std::invalid_argument as GetFactory()
     */
    static Ptr<HandoverScheduler> Create(const std::string& name);

    /**
     * \brief Set name/value attributes on \p factory, each checked first.
     * \param factory a factory whose TypeId is set
     * \param attributes name and value (as the attribute's checker parses it) pairs
     * \throws std::invalid_argument naming the TypeId and the attribute it does not have, or
     *         the value its checker refuses
     */
    static void SetAttributes(ObjectFactory& factory,
                              const std::vector<HandoverScheme::Attribute>& attributes);
};

} // namespace ns3

#endif /* HANDOVER_SCHEME_REGISTRY_H */
