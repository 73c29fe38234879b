/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_MOBILITY_TRACE_H
#define EDGE_LLM_MOBILITY_TRACE_H

#include "ns3/node-container.h"
#include "ns3/vector.h"

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Vehicles from an ns-2 mobility trace, as SUMO's traceExporter.py writes it
 *        (`--ns2mobility-output`, with `--ns2activity-output` for vehicles that enter and
 *        leave), moved the way ns-3's Ns2MobilityHelper replays such a trace.
 *
 * Mobility file, one statement a line (blank lines and `#` comments allowed):
 * \verbatim
 *   $node_(N) set X_ x          initial position of vehicle N (also Y_, Z_), m
 *   $ns_ at t "$node_(N) setdest x y s"
 * \endverbatim
 * `setdest` at t s: from where the vehicle is at t it drives straight toward (x, y) at
 * s m/s and stops there (s = 0: it stops where it is); a later setdest takes over from
 * the position reached by then. Times (arrivals included) are at most MAX_SECONDS, coordinates
 * at most MAX_COORDINATE in size. Activity file, one line per event:
 * `$ns_ at t "$g(N) start"` (the vehicle enters) and `$ns_ at t "$g(N) stop"` (it
 * leaves), each optionally followed by `; # comment`; a `stop` at 0 (what SUMO's exporter
 * writes for a vehicle still driving when its output ends) means present to the end of its
 * motion. Without an activity file a vehicle is present from its first setdest until it
 * reaches its last destination.
 *
 * Refused, with "FILE:LINE: ..." (std::invalid_argument): a line of another form, a
 * number that does not parse or is not finite, a negative time or speed, a node whose
 * setdest times go backwards, a setdest or activity line for a node without an initial
 * X_ and Y_, node numbers that are not 0..n-1 without a gap, an activity file that
 * starts or stops a vehicle twice or stops it before it starts, and a vehicle that
 * never enters (without an activity file: no setdest).
 */
class MobilityTrace
{
  public:
    static constexpr double MAX_SECONDS = 3600;   //!< Latest instant of a trace (arrivals too), s
    static constexpr double MAX_COORDINATE = 1e6; //!< Largest |x|, |y|, |z|, m

    /// One straight drive: from \p from at \p start at \p velocity until \p arrive, then
    /// at rest at from + velocity (arrive - start) until the next leg.
    struct Leg
    {
        double start{0};  //!< When the setdest took effect, s
        Vector from;      //!< Where the vehicle was then, m
        Vector velocity;  //!< m/s (zero: stopped)
        double arrive{0}; //!< When it reaches the destination (>= start), s
    };

    /// One vehicle (node N of the trace).
    struct Vehicle
    {
        Vector initial;        //!< Its `set X_/Y_/Z_` position, m
        std::vector<Leg> legs; //!< By start time
        double enter{0};       //!< When it enters the trace, s
        double leave{0};       //!< When it leaves, s (>= enter)
        std::string label;     //!< The activity file's comment (SUMO-ID), "" without
    };

    /**
     * \brief Read a trace from files.
     * \param mobilityFile the ns-2 mobility file
     * \param activityFile the activity file, "" for none
     * \return the trace
     * \throws std::invalid_argument "FILE:LINE: ..." for a bad line, or naming an
     *         unreadable file
     */
    static MobilityTrace Read(const std::string& mobilityFile, const std::string& activityFile);

    /**
     * \brief Read a trace from streams (Read's work; names are for the messages).
     * \param mobility the mobility statements
     * \param mobilityName its name in messages
     * \param activity the activity statements, nullptr for none
     * \param activityName its name in messages
     * \return the trace
     * \throws std::invalid_argument as Read
     */
    static MobilityTrace Parse(std::istream& mobility,
                               const std::string& mobilityName,
                               std::istream* activity,
                               const std::string& activityName);

    uint32_t GetN() const;                   //!< \return the number of vehicles
    const Vehicle& Get(uint32_t node) const; //!< \return vehicle \p node (< GetN())
    double GetEnd() const;                   //!< \return the last vehicle's leave time, s

    /**
     * \brief Where vehicle \p node is at \p t (before its first leg: its initial position).
     * \param node the vehicle, < GetN()
     * \param t s
     * \return the position, m (z as in the trace)
     */
    Vector GetPosition(uint32_t node, double t) const;

    /**
     * \brief Give node i of \p nodes vehicle i's motion: a WaypointMobilityModel through
     *        the position at time 0 and at each leg's start and arrival (the same
     *        piecewise-straight path GetPosition gives and Ns2MobilityHelper would drive),
     *        at height \p z.
     * \param nodes GetN() nodes without a mobility model
     * \param z the height of every vehicle's antenna, m (the RAN's UE height)
     */
    void Install(NodeContainer nodes, double z) const;

    /// A change of the strongest cell along a vehicle's path (StrongestCellChanges).
    struct CellChange
    {
        double at{0};     //!< When the new cell becomes the strongest, s
        uint32_t from{0}; //!< The cell that was the strongest (a site index)
        uint32_t to{0};   //!< The new strongest cell
    };

    /**
     * \brief The instants at which another cell becomes the strongest along vehicle
     *        \p node's path while it is in the trace: the received power of every cell is
     *        sampled every \p step s from its entry (or \p from, if later) to its leave; where the
     * strongest changes, the instant is found by bisection on the power difference of the two cells
     * to 1 us. A change whose new cell does not stay the strongest for \p minDwell s (sampled) is
     * no handover (the RRC could not finish two handovers that close together, and an A3 event with
     * a time-to-trigger would not fire). \param node the vehicle, < GetN() \param rxPowerDbm
     * received power of cell (site index) at a position, dBm \param cells the number of cells, >= 1
     * \param step the sampling step, s, > 0
     * \param minDwell the least time the new cell stays the strongest, s, >= 0
     * \param[out] serving the strongest cell when the vehicle enters (or at \p from)
     * \param from the earliest instant considered, s (e.g. when its session is under way)
     * \return the changes, by time (each from the previous change's cell)
     */
    std::vector<CellChange> StrongestCellChanges(
        uint32_t node,
        const std::function<double(uint32_t, const Vector&)>& rxPowerDbm,
        uint32_t cells,
        double step,
        double minDwell,
        uint32_t& serving,
        double from = 0) const;

  private:
    /// Parse one mobility line into m_vehicles (\p where: "FILE:LINE" for messages).
    void ParseMobilityLine(const std::string& line, const std::string& where);
    /// Parse one activity line into m_vehicles.
    void ParseActivityLine(const std::string& line, const std::string& where);
    /// After the mobility file: dense node numbers, initial positions, enter and leave.
    void Finish(const std::string& mobilityName, bool withActivity);
    /// Vehicle \p node's entry, grown as needed.
    Vehicle& At(uint64_t node);

    std::vector<Vehicle> m_vehicles;   //!< By node number
    std::vector<bool> m_hasX;          //!< Node had `set X_`
    std::vector<bool> m_hasY;          //!< Node had `set Y_`
    std::vector<bool> m_seen;          //!< Node was named at all
    std::vector<int> m_started;        //!< Activity: 0 none, 1 started, 2 stopped
    std::vector<double> m_lastDest;    //!< Last setdest time per node (order check)
    std::vector<Vector> m_destination; //!< Last destination per node
};

} // namespace ns3

#endif /* EDGE_LLM_MOBILITY_TRACE_H */
