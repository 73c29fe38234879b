/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "mobility-trace.h"

#include "ns3/edge-llm-limits.h"
#include "ns3/nstime.h"
#include "ns3/waypoint-mobility-model.h"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The most vehicles a trace may name (node numbers above are refused as typos).
constexpr uint64_t MAX_VEHICLES = 100000;

[[noreturn]] void
Fail(const std::string& where, const std::string& what)
{
    throw std::invalid_argument(where + ": " + what);
}

/// \p text as a finite double, all of it, else Fail naming \p field.
double
Number(const std::string& text, const std::string& field, const std::string& where)
{
    std::size_t used = 0;
    double v = std::numeric_limits<double>::quiet_NaN();
    try
    {
        v = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v))
    {
        Fail(where, field + " must be a finite number, got '" + text + "'");
    }
    return v;
}

/// The N of "<prefix>(N)", else Fail.
uint64_t
NodeNumber(const std::string& token, const std::string& prefix, const std::string& where)
{
    const std::string open = prefix + "(";
    if (token.rfind(open, 0) != 0 || token.back() != ')' || token.size() == open.size() + 1)
    {
        Fail(where, "expected " + prefix + "(N), got '" + token + "'");
    }
    const std::string digits = token.substr(open.size(), token.size() - open.size() - 1);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
    {
        Fail(where,
             "node number must be an integer in [0, " + std::to_string(MAX_VEHICLES - 1) +
                 "], got '" + digits + "'");
    }
    const uint64_t n = std::stoull(digits);
    if (n >= MAX_VEHICLES)
    {
        Fail(where,
             "node number must be in [0, " + std::to_string(MAX_VEHICLES - 1) + "], got " + digits);
    }
    return n;
}

/// \p line without its comment (from '#'), quotes and trailing ';', split at blanks.
std::vector<std::string>
Tokens(const std::string& line)
{
    std::string text = line.substr(0, line.find('#'));
    for (char& ch : text)
    {
        ch = (ch == '"' || ch == ';') ? ' ' : ch;
    }
    std::istringstream in(text);
    std::vector<std::string> tokens;
    for (std::string t; in >> t;)
    {
        tokens.push_back(t);
    }
    return tokens;
}

/// A coordinate token, |v| <= MAX_COORDINATE m.
double
Coordinate(const std::string& text, const std::string& field, const std::string& where)
{
    const double v = Number(text, field, where);
    if (std::abs(v) > MobilityTrace::MAX_COORDINATE)
    {
        Fail(where,
             field + " must be in [-" + edgellm::FormatNumber(MobilityTrace::MAX_COORDINATE) +
                 ", " + edgellm::FormatNumber(MobilityTrace::MAX_COORDINATE) + "] m, got " + text);
    }
    return v;
}

/// A time token of "$ns_ at t ...", >= 0.
double
AtTime(const std::string& text, const std::string& where)
{
    const double t = Number(text, "time", where);
    if (t < 0 || t > MobilityTrace::MAX_SECONDS)
    {
        Fail(where,
             "time must be in [0, " + edgellm::FormatNumber(MobilityTrace::MAX_SECONDS) +
                 "] s, got " + text);
    }
    return t;
}

} // namespace

MobilityTrace
MobilityTrace::Read(const std::string& mobilityFile, const std::string& activityFile)
{
    std::ifstream mobility(mobilityFile);
    if (!mobility)
    {
        throw std::invalid_argument("mobilityTrace: cannot read '" + mobilityFile + "'");
    }
    std::ifstream activity;
    if (!activityFile.empty())
    {
        activity.open(activityFile);
        if (!activity)
        {
            throw std::invalid_argument("mobilityActivity: cannot read '" + activityFile + "'");
        }
    }
    return Parse(mobility, mobilityFile, activityFile.empty() ? nullptr : &activity, activityFile);
}

MobilityTrace
MobilityTrace::Parse(std::istream& mobility,
                     const std::string& mobilityName,
                     std::istream* activity,
                     const std::string& activityName)
{
    MobilityTrace trace;
    std::string line;
    for (uint64_t n = 1; std::getline(mobility, line); ++n)
    {
        trace.ParseMobilityLine(line, mobilityName + ":" + std::to_string(n));
    }
    if (trace.m_vehicles.empty())
    {
        Fail(mobilityName, "no vehicle: the trace must set X_ and Y_ of $node_(0) at least");
    }
    if (activity)
    {
        for (uint64_t n = 1; std::getline(*activity, line); ++n)
        {
            trace.ParseActivityLine(line, activityName + ":" + std::to_string(n));
        }
    }
    trace.Finish(mobilityName, activity != nullptr);
    return trace;
}

MobilityTrace::Vehicle&
MobilityTrace::At(uint64_t node)
{
    if (node >= m_vehicles.size())
    {
        m_vehicles.resize(node + 1);
        m_hasX.resize(node + 1, false);
        m_hasY.resize(node + 1, false);
        m_seen.resize(node + 1, false);
        m_started.resize(node + 1, 0);
        m_lastDest.resize(node + 1, -1);
        m_destination.resize(node + 1);
    }
    m_seen[node] = true;
    return m_vehicles[node];
}

void
MobilityTrace::ParseMobilityLine(const std::string& line, const std::string& where)
{
    const std::vector<std::string> t = Tokens(line);
    if (t.empty())
    {
        return;
    }
    if (t.size() == 4 && t[1] == "set" && t[0].rfind("$node_(", 0) == 0)
    {
        const uint64_t node = NodeNumber(t[0], "$node_", where);
        const double v = Coordinate(t[3], t[2], where);
        Vehicle& veh = At(node);
        if (!m_vehicles[node].legs.empty())
        {
            Fail(where,
                 "the initial position of $node_(" + std::to_string(node) +
                     ") must come before its first setdest");
        }
        if (t[2] == "X_")
        {
            veh.initial.x = v;
            m_hasX[node] = true;
        }
        else if (t[2] == "Y_")
        {
            veh.initial.y = v;
            m_hasY[node] = true;
        }
        else if (t[2] == "Z_")
        {
            veh.initial.z = v;
        }
        else
        {
            Fail(where, "expected set X_, Y_ or Z_, got set " + t[2]);
        }
        return;
    }
    if (t.size() != 8 || t[0] != "$ns_" || t[1] != "at" || t[4] != "setdest")
    {
        Fail(where,
             "expected '$node_(N) set X_|Y_|Z_ value' or '$ns_ at t \"$node_(N) setdest "
             "x y speed\"', got '" +
                 line + "'");
    }
    const double at = AtTime(t[2], where);
    const uint64_t node = NodeNumber(t[3], "$node_", where);
    const Vector dest(Coordinate(t[5], "x", where), Coordinate(t[6], "y", where), 0);
    const double speed = Number(t[7], "speed", where);
    if (speed < 0)
    {
        Fail(where, "speed must be >= 0 m/s, got " + t[7]);
    }
    if (node >= m_vehicles.size() || !m_hasX[node] || !m_hasY[node])
    {
        Fail(where,
             "unknown node $node_(" + std::to_string(node) +
                 "): its initial X_ and Y_ must be set before its first setdest");
    }
    if (at < m_lastDest[node])
    {
        Fail(where,
             "time goes backwards for $node_(" + std::to_string(node) + "): " + t[2] + " s after " +
                 edgellm::FormatNumber(m_lastDest[node]) + " s");
    }
    m_lastDest[node] = at;
    Vehicle& veh = m_vehicles[node];
    Leg leg;
    leg.start = at;
    leg.from = GetPosition(static_cast<uint32_t>(node), at);
    leg.arrive = at;
    const double dx = dest.x - leg.from.x;
    const double dy = dest.y - leg.from.y;
    const double dist = std::hypot(dx, dy);
    if (speed > 0 && dist > 0)
    {
        leg.velocity = Vector(dx / dist * speed, dy / dist * speed, 0);
        leg.arrive = at + dist / speed;
        if (!(leg.arrive <= MAX_SECONDS))
        {
            Fail(where,
                 "$node_(" + std::to_string(node) + ") would arrive at " +
                     edgellm::FormatValue(leg.arrive) + " s (" + edgellm::FormatValue(dist) +
                     " m at " + t[7] + " m/s), after " + edgellm::FormatNumber(MAX_SECONDS) + " s");
        }
    }
    veh.legs.push_back(leg);
}

void
MobilityTrace::ParseActivityLine(const std::string& line, const std::string& where)
{
    const std::vector<std::string> t = Tokens(line);
    if (t.empty())
    {
        return;
    }
    if (t.size() != 5 || t[0] != "$ns_" || t[1] != "at" || (t[4] != "start" && t[4] != "stop"))
    {
        Fail(where, "expected '$ns_ at t \"$g(N) start\"' or '... stop\"', got '" + line + "'");
    }
    const double at = AtTime(t[2], where);
    const uint64_t node = NodeNumber(t[3], "$g", where);
    if (node >= m_vehicles.size() || !m_hasX[node])
    {
        Fail(where,
             "unknown node $g(" + std::to_string(node) + "): the mobility file has no vehicle " +
                 std::to_string(node));
    }
    Vehicle& veh = m_vehicles[node];
    const std::size_t hash = line.find('#');
    const std::string comment = hash == std::string::npos ? "" : line.substr(hash + 1);
    const std::size_t id = comment.find("SUMO-ID:");
    if (id != std::string::npos)
    {
        std::istringstream(comment.substr(id + 8)) >> veh.label;
    }
    if (t[4] == "start")
    {
        if (m_started[node] != 0)
        {
            Fail(where, "$g(" + std::to_string(node) + ") starts twice");
        }
        m_started[node] = 1;
        veh.enter = at;
        return;
    }
    if (m_started[node] != 1)
    {
        Fail(where, "$g(" + std::to_string(node) + ") stops before it starts (or twice)");
    }
    m_started[node] = 2;
    // SUMO's traceExporter writes "stop" at 0 for a vehicle still driving when its FCD
    // output ends: present until its last setdest.
    const bool stillDriving = at == 0;
    if (!stillDriving && at < veh.enter)
    {
        Fail(where,
             "$g(" + std::to_string(node) + ") stops at " + t[2] + " s, before it starts at " +
                 edgellm::FormatNumber(veh.enter) + " s");
    }
    veh.leave = stillDriving ? -1 : at;
}

void
MobilityTrace::Finish(const std::string& mobilityName, bool withActivity)
{
    if (m_vehicles.empty())
    {
        Fail(mobilityName, "no vehicle: the trace must set X_ and Y_ of $node_(0) at least");
    }
    for (uint32_t n = 0; n < m_vehicles.size(); ++n)
    {
        const std::string node = "$node_(" + std::to_string(n) + ")";
        Vehicle& veh = m_vehicles[n];
        if (!m_seen[n] || !m_hasX[n] || !m_hasY[n])
        {
            Fail(mobilityName,
                 "node numbers must be 0.." + std::to_string(m_vehicles.size() - 1) +
                     " without a gap, each with X_ and Y_ set: " + node +
                     " has no initial position");
        }
        // The end of its motion: its last leg's arrival (at rest after it).
        const double last = veh.legs.empty() ? 0 : veh.legs.back().arrive;
        if (!withActivity)
        {
            if (veh.legs.empty())
            {
                Fail(mobilityName, node + " never enters: it has no setdest");
            }
            veh.enter = veh.legs.front().start;
            veh.leave = last;
            continue;
        }
        if (m_started[n] == 0)
        {
            Fail(mobilityName,
                 node + " never enters: the activity file has no \"$g(" + std::to_string(n) +
                     ") start\"");
        }
        if (m_started[n] == 1 || veh.leave < 0)
        {
            veh.leave = std::max(last, veh.enter); // still there when the trace ends
        }
    }
}

uint32_t
MobilityTrace::GetN() const
{
    return static_cast<uint32_t>(m_vehicles.size());
}

const MobilityTrace::Vehicle&
MobilityTrace::Get(uint32_t node) const
{
    return m_vehicles.at(node);
}

double
MobilityTrace::GetEnd() const
{
    double end = 0;
    for (const Vehicle& v : m_vehicles)
    {
        end = std::max(end, v.leave);
    }
    return end;
}

Vector
MobilityTrace::GetPosition(uint32_t node, double t) const
{
    const Vehicle& v = m_vehicles.at(node);
    // The last leg started at or before t (legs are by start time).
    auto it = std::upper_bound(v.legs.begin(), v.legs.end(), t, [](double at, const Leg& leg) {
        return at < leg.start;
    });
    if (it == v.legs.begin())
    {
        return v.initial;
    }
    const Leg& leg = *std::prev(it);
    const double dt = std::min(t, leg.arrive) - leg.start;
    return Vector(leg.from.x + leg.velocity.x * dt,
                  leg.from.y + leg.velocity.y * dt,
                  leg.from.z + leg.velocity.z * dt);
}

void
MobilityTrace::Install(NodeContainer nodes, double z) const
{
    NS_ABORT_MSG_UNLESS(nodes.GetN() == GetN(),
                        "MobilityTrace::Install: " << nodes.GetN() << " nodes for " << GetN()
                                                   << " vehicles");
    for (uint32_t n = 0; n < GetN(); ++n)
    {
        Ptr<WaypointMobilityModel> m = CreateObject<WaypointMobilityModel>();
        Time last = Seconds(-1);
        // In whole nanoseconds (a Time): an arrival a fraction of a ns before the next
        // setdest is the same instant.
        auto add = [&m, &last, z](double t, Vector p) {
            const Time at = Seconds(t);
            if (at > last)
            {
                m->AddWaypoint(Waypoint(at, Vector(p.x, p.y, z)));
                last = at;
            }
        };
        add(0, m_vehicles[n].initial);
        const std::vector<Leg>& legs = m_vehicles[n].legs;
        for (std::size_t i = 0; i < legs.size(); ++i)
        {
            add(legs[i].start, legs[i].from);
            const double next =
                i + 1 < legs.size() ? legs[i + 1].start : std::numeric_limits<double>::infinity();
            if (legs[i].arrive < next)
            {
                add(legs[i].arrive, GetPosition(n, legs[i].arrive));
            }
        }
        nodes.Get(n)->AggregateObject(m);
    }
}

std::vector<MobilityTrace::CellChange>
MobilityTrace::StrongestCellChanges(
    uint32_t node,
    const std::function<double(uint32_t, const Vector&)>& rxPowerDbm,
    uint32_t cells,
    double step,
    double minDwell,
    uint32_t& serving,
    double from) const
{
    const Vehicle& v = m_vehicles.at(node);
    auto strongest = [&](double t) {
        const Vector p = GetPosition(node, t);
        uint32_t best = 0;
        double bestDbm = -std::numeric_limits<double>::infinity();
        for (uint32_t c = 0; c < cells; ++c)
        {
            const double dbm = rxPowerDbm(c, p);
            if (dbm > bestDbm) // ties: the lower index
            {
                best = c;
                bestDbm = dbm;
            }
        }
        return best;
    };
    // Still the strongest from t to t + minDwell (or the leave), sampled every step.
    // Strongest after t (a tie at t itself goes to the lower index) until t + minDwell (or
    // the leave), sampled every step.
    auto stays = [&](uint32_t cell, double t) {
        const double end = std::min(t + minDwell, v.leave);
        for (double u = t + step; u < end; u += step)
        {
            if (strongest(u) != cell)
            {
                return false;
            }
        }
        return end <= t || strongest(end) == cell;
    };
    const double begin = std::min(std::max(v.enter, from), v.leave);
    serving = strongest(begin);
    std::vector<CellChange> changes;
    const auto samples = static_cast<uint64_t>(std::ceil((v.leave - begin) / step));
    double before = begin;
    for (uint64_t k = 1; k <= samples; ++k)
    {
        const double t = std::min(begin + k * step, v.leave);
        const uint32_t best = strongest(t);
        if (best != serving)
        {
            // The first instant in (before, t] at which best beats serving, to 1 us (at
            // before itself when a change there was too short-lived to count).
            auto margin = [&](double u) {
                const Vector p = GetPosition(node, u);
                return rxPowerDbm(best, p) - rxPowerDbm(serving, p);
            };
            double at = before;
            double from = before; // where best is the strongest (stays' check starts)
            if (margin(before) <= 0)
            {
                const std::pair<double, double> bracket =
                    boost::math::tools::bisect(margin, before, t, [](double a, double b) {
                        return b - a <= 1e-7;
                    });
                at = std::round((bracket.first + bracket.second) / 2 * 1e6) / 1e6;
                from = bracket.second;
            }
            if (stays(best, from))
            {
                changes.push_back({at, serving, best});
                serving = best;
            }
        }
        before = t;
    }
    serving = changes.empty() ? serving : changes.front().from;
    return changes;
}

} // namespace ns3
