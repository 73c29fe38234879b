/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_COMPAT_H
#define EDGE_LLM_COMPAT_H

/**
 * \file
 * \ingroup edge-llm
 * \brief The one place where the module's code depends on the ns-3 release it is built
 *        against (ns-3.35 to ns-3.48). Nothing else in the module tests the version.
 *
 * EDGE_LLM_NS3_VERSION is 1000 * major + minor of that release (ns-3.35 is 3035, ns-3.46.1
 * is 3046). The build defines it, for the module and for every program that links it:
 *
 * - standalone CMake: from the version of the ns3 CMake package found (Debian: 3037);
 * - CMake inside an ns-3 source tree (>= 3.36): from the tree's VERSION file;
 * - waf inside an ns-3.35 source tree: from the tree's VERSION file, in configure.
 *
 * (cmake/edge-llm-version.cmake and wscript.) A user program built outside these
 * (plain g++) must pass -DEDGE_LLM_NS3_VERSION=30XX itself.
 *
 * API differences handled here (the release that brought the new API):
 *
 * - ns-3.36: an ns3::Callback can be made from any callable (a lambda); before, only
 *   from a functor comparable with !=. Use compat::MakeCallback<R, Args...>(lambda).
 * - ns-3.36: Simulator::Schedule and ScheduleNow take any callable (a lambda); before,
 *   only functions and member functions. Use compat::Schedule(delay, lambda),
 *   compat::ScheduleNow(lambda).
 * - ns-3.36: Callback::Bind binds any number of leading arguments; before, Bind bound
 *   one, TwoBind two, ThreeBind three. Use compat::Bind(callback, args...).
 * - ns-3.38: the callback CommandLine::AddValue(name, help, callback, default) takes became
 *   Callback<bool, const std::string&> (before: Callback<bool, std::string>). Use
 *   compat::AddStringValue(cmd, name, help, value), which also takes the value whole: every
 *   release reads a std::string option with operator>>, which stops at the first blank.
 * - ns-3.41: MakeEnumAccessor needs the enum type, MakeEnumAccessor<T>(&C::m_x)
 *   (EnumValue became EnumValue<T>). Use compat::MakeEnumAccessor<T>(&C::m_x).
 * - ns-3.41: EnumValue<T>::DeserializeFromString asserts on a name its checker lacks (before:
 *   it returned false). Parse with compat::CreateValidValue(checker, value), which refuses
 *   such a name first.
 * - ns-3.42: EventId::IsRunning() became IsPending() (IsRunning is gone in 3.46).
 *   Use compat::IsPending(event).
 * - ns-3.42: TestCase::QUICK became TestCase::Duration::QUICK and TestSuite::UNIT,
 *   SYSTEM became TestSuite::Type::UNIT, SYSTEM (the old names are gone in 3.46).
 *   Use EDGE_LLM_TEST_QUICK, EDGE_LLM_TEST_UNIT, EDGE_LLM_TEST_SYSTEM.
 *
 * Features an older ns-3 does not have are compiled out, never imitated; each has a
 * feature macro, 1 where the feature exists and 0 where it does not:
 *
 * - EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES (ns-3 >= 3.37): LteEnbRrc's
 *   HandoverFailureNoPreamble/MaxRach/Leaving/Joining traces, which EdgeLlmHelper connects
 *   to EdgeLlmNode::RrcHandoverFailure. Before 3.37 LTE models no handover failure and the
 *   helper connects nothing (EdgeLlmNode::RrcHandoverFailure can still be called directly).
 */

#ifndef EDGE_LLM_NS3_VERSION
#error "define EDGE_LLM_NS3_VERSION (ns-3.37: 3037); the module's CMake and waf builds do"
#endif
#if EDGE_LLM_NS3_VERSION < 3035
#error "EDGE_LLM_NS3_VERSION is below 3035: the edge-llm module needs ns-3.35 or later"
#endif

#include "ns3/attribute.h"
#include "ns3/callback.h"
#include "ns3/command-line.h"
#include "ns3/enum.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#if EDGE_LLM_NS3_VERSION < 3036
#include <memory>
#endif
#include <string>
#include <utility>

#if EDGE_LLM_NS3_VERSION >= 3037
/// 1: LteEnbRrc has the HandoverFailure* trace sources (ns-3 >= 3.37); 0: it has not.
#define EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES 1
#else
#define EDGE_LLM_HAVE_LTE_HANDOVER_FAILURE_TRACES 0
#endif

// Test durations and suite types (ns3/test.h is included where these are used).
#if EDGE_LLM_NS3_VERSION >= 3042
/// TestCase duration QUICK, for TestSuite::AddTestCase
#define EDGE_LLM_TEST_QUICK ns3::TestCase::Duration::QUICK
/// TestCase duration EXTENSIVE: cases over 30 s, run by `ctest -L extensive`
#define EDGE_LLM_TEST_EXTENSIVE ns3::TestCase::Duration::EXTENSIVE
/// TestSuite type UNIT
#define EDGE_LLM_TEST_UNIT ns3::TestSuite::Type::UNIT
/// TestSuite type SYSTEM
#define EDGE_LLM_TEST_SYSTEM ns3::TestSuite::Type::SYSTEM
#else
#define EDGE_LLM_TEST_QUICK ns3::TestCase::QUICK
#define EDGE_LLM_TEST_EXTENSIVE ns3::TestCase::EXTENSIVE
#define EDGE_LLM_TEST_UNIT ns3::TestSuite::UNIT
#define EDGE_LLM_TEST_SYSTEM ns3::TestSuite::SYSTEM
#endif

namespace ns3
{
namespace compat
{

/**
 * \ingroup edge-llm
 * \brief Whether an event is scheduled and has neither run nor been cancelled.
 * \param [in] event the event
 * \return EventId::IsPending() (ns-3 >= 3.42), EventId::IsRunning() before
 */
inline bool
IsPending(const EventId& event)
{
#if EDGE_LLM_NS3_VERSION >= 3042
    return event.IsPending();
#else
    return event.IsRunning();
#endif
}

/**
 * \ingroup edge-llm
 * \brief Whether \p text can be parsed by \p checker without an ns-3 assertion: for an enum
 *        attribute, whether it is one of the checker's names (ns-3 >= 3.41 asserts on any
 *        other); for any other attribute true (its own parser refuses bad text).
 * \param [in] checker the attribute's checker
 * \param [in] text the value as text
 * \return false only for an enum name the checker lacks
 */
inline bool
IsEnumNameValid(Ptr<const AttributeChecker> checker, const std::string& text)
{
    if (checker->GetValueTypeName().rfind("ns3::EnumValue", 0) != 0 ||
        !checker->HasUnderlyingTypeInformation())
    {
        return true;
    }
    const std::string names = "|" + checker->GetUnderlyingTypeInformation() + "|";
    return names.find("|" + text + "|") != std::string::npos;
}

/**
 * \ingroup edge-llm
 * \brief checker->CreateValidValue(value) on every release: a text an enum attribute lacks
 *        is refused here (IsEnumNameValid) instead of asserting in ns-3 (>= 3.41).
 * \param [in] checker the attribute's checker
 * \param [in] value the value, typed or as text (StringValue)
 * \return the checked value, or null if it does not parse or check
 */
inline Ptr<AttributeValue>
CreateValidValue(Ptr<const AttributeChecker> checker, const AttributeValue& value)
{
    const auto* text = dynamic_cast<const StringValue*>(&value);
    if (text && !IsEnumNameValid(checker, text->Get()))
    {
        return nullptr;
    }
    return checker->CreateValidValue(value);
}

/**
 * \ingroup edge-llm
 * \brief Accessor of an enum attribute held in a data member.
 * \tparam T the enum type (ns-3 >= 3.41 needs it; ignored before)
 * \tparam M \deduced the member pointer type
 * \param [in] member the data member, e.g. &EdgeLlmNode::m_transport
 * \return ns-3's MakeEnumAccessor(member)
 */
template <typename T, typename M>
Ptr<const AttributeAccessor>
MakeEnumAccessor(M member)
{
#if EDGE_LLM_NS3_VERSION >= 3041
    return ns3::MakeEnumAccessor<T>(member);
#else
    return ns3::MakeEnumAccessor(member);
#endif
}

#if EDGE_LLM_NS3_VERSION < 3036
/**
 * \ingroup edge-llm
 * \brief A callable as ns-3.35's Callback wants a functor: comparable with != (ns-3.35
 *        compares the functors of two callbacks). Two copies compare equal, as two copies
 *        of a Callback do; closures themselves have no operator!=.
 * \tparam F the callable's type
 */
template <typename F>
class CallableFunctor
{
  public:
    /// \param [in] f the callable, moved into shared storage
    explicit CallableFunctor(F f)
        : m_f(std::make_shared<F>(std::move(f)))
    {
    }

    /**
     * \param [in] args the callback's arguments
     * \return what the callable returns
     */
    template <typename... A>
    auto operator()(A&&... args) const
    {
        return (*m_f)(std::forward<A>(args)...);
    }

    /**
     * \param [in] other another functor
     * \return whether the two hold different callables
     */
    bool operator!=(const CallableFunctor& other) const
    {
        return m_f != other.m_f;
    }

  private:
    std::shared_ptr<F> m_f; ///< the callable, shared by every copy
};
#endif

/**
 * \ingroup edge-llm
 * \brief ns3::Callback<R, Args...> that calls a callable (a lambda).
 * \tparam R the callback's return type
 * \tparam Args the callback's argument types
 * \tparam F \deduced the callable's type
 * \param [in] f the callable; it is copied (captured references must outlive the callback)
 * \return the callback
 */
template <typename R, typename... Args, typename F>
Callback<R, Args...>
MakeCallback(F f)
{
#if EDGE_LLM_NS3_VERSION >= 3036
    return Callback<R, Args...>(std::move(f));
#else
    return Callback<R, Args...>(CallableFunctor<F>(std::move(f)), true, true);
#endif
}

/**
 * \ingroup edge-llm
 * \brief The callback with its first arguments bound.
 * \tparam C \deduced the ns3::Callback type
 * \tparam A \deduced the types of the bound arguments (1 to 3 of them before ns-3.36)
 * \param [in] callback the callback (a copy: ns-3.35's Bind is not const)
 * \param [in] args the values of its first sizeof...(A) arguments
 * \return callback.Bind(args...) (ns-3 >= 3.36); Bind, TwoBind or ThreeBind before
 */
template <typename C, typename... A>
auto
Bind(C callback, A... args)
{
#if EDGE_LLM_NS3_VERSION >= 3036
    return callback.Bind(args...);
#else
    static_assert(sizeof...(A) >= 1 && sizeof...(A) <= 3, "ns-3.35 binds 1 to 3 arguments");
    if constexpr (sizeof...(A) == 1)
    {
        return callback.Bind(args...);
    }
    else if constexpr (sizeof...(A) == 2)
    {
        return callback.TwoBind(args...);
    }
    else
    {
        return callback.ThreeBind(args...);
    }
#endif
}

#if EDGE_LLM_NS3_VERSION < 3036
/**
 * \ingroup edge-llm
 * \brief An event that calls a callable with no arguments (ns-3.35 makes events from
 *        functions and member functions only).
 * \tparam F the callable's type
 */
template <typename F>
class CallableEvent : public EventImpl
{
  public:
    /// \param [in] f the callable
    explicit CallableEvent(F f)
        : m_f(std::move(f))
    {
    }

  private:
    void Notify() override
    {
        m_f();
    }

    F m_f; ///< the callable
};
#endif

/**
 * \ingroup edge-llm
 * \brief Simulator::Schedule(delay, f) for a callable f with no arguments (a lambda).
 * \tparam F \deduced the callable's type
 * \param [in] delay the delay from now, >= 0
 * \param [in] f the callable; it is copied
 * \return the event's id
 */
template <typename F>
EventId
Schedule(const Time& delay, F f)
{
#if EDGE_LLM_NS3_VERSION >= 3036
    return Simulator::Schedule(delay, std::move(f));
#else
    return Simulator::Schedule(delay, Ptr<EventImpl>(Create<CallableEvent<F>>(std::move(f))));
#endif
}

/**
 * \ingroup edge-llm
 * \brief Simulator::ScheduleNow(f) for a callable f with no arguments (a lambda).
 * \tparam F \deduced the callable's type
 * \param [in] f the callable; it is copied
 * \return the event's id
 */
template <typename F>
EventId
ScheduleNow(F f)
{
#if EDGE_LLM_NS3_VERSION >= 3036
    return Simulator::ScheduleNow(std::move(f));
#else
    return Simulator::ScheduleNow(Ptr<EventImpl>(Create<CallableEvent<F>>(std::move(f))));
#endif
}

/**
 * \ingroup edge-llm
 * \brief CommandLine::AddValue for a std::string option, taken whole: `--outputDir='a b/c'`
 *        sets "a b/c" (CommandLine's own AddValue(name, help, std::string&) reads with
 *        operator>> and would keep "a", in every release).
 * \param [in,out] cmd the program's CommandLine
 * \param [in] name option name, without dashes
 * \param [in] help help text
 * \param [in,out] value the variable the option sets; its value on entry is the default
 *        --PrintHelp shows. It must outlive cmd.Parse().
 */
inline void
AddStringValue(CommandLine& cmd,
               const std::string& name,
               const std::string& help,
               std::string& value)
{
    std::string* dest = &value;
#if EDGE_LLM_NS3_VERSION >= 3038
    using Arg = const std::string&;
#else
    using Arg = std::string;
#endif
    cmd.AddValue(name,
                 help,
                 MakeCallback<bool, Arg>([dest](Arg v) {
                     *dest = v;
                     return true;
                 }),
                 value);
}

} // namespace compat
} // namespace ns3

#endif // EDGE_LLM_COMPAT_H
