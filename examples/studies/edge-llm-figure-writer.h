/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_FIGURE_WRITER_H
#define EDGE_LLM_FIGURE_WRITER_H

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One plotted point of a figure: a series' mean and 95 % CI at x.
 */
struct FigurePoint
{
    double x{0};             //!< Sweep value
    std::string series;      //!< Curve name (scheme)
    double mean{0};          //!< Mean over runs
    double ci95{0};          //!< 95 % CI half-width
    bool markersOnly{false}; //!< Draw as points (e.g. packet-level), not a line
};

/**
 * \ingroup edge-llm
 * \brief Writes a figure: the CSV text given (whole or not at all), a gnuplot script
 *        built with ns-3's Gnuplot class (lines with y error bars), and the PNG, if
 *        gnuplot is installed.
 * \param stem path without extension: writes stem.csv, stem.plt, stem.png
 * \param csv the CSV text
 * \param title plot title
 * \param xLabel x axis label
 * \param yLabel y axis label
 * \param points the points, any order; series in first-seen order
 * \param extra more gnuplot commands for the script, e.g. "set xtics 1" (default none)
 * \return false (after an "error: ..." line on stderr) if a file cannot be written or
 *         gnuplot fails
 */
bool WriteFigure(const std::string& stem,
                 const std::string& csv,
                 const std::string& title,
                 const std::string& xLabel,
                 const std::string& yLabel,
                 const std::vector<FigurePoint>& points,
                 const std::vector<std::string>& extra = {});

/**
 * \ingroup edge-llm
 * \brief A labelled place on a map (WriteMap): a site.
 */
struct MapSite
{
    std::string label; //!< Its name, printed beside it
    double x{0};       //!< m
    double y{0};       //!< m
};

/**
 * \ingroup edge-llm
 * \brief A point on a map coloured by a value (WriteMap): a handover and its delay.
 */
struct MapPoint
{
    double x{0};       //!< m
    double y{0};       //!< m
    double value{0};   //!< Its colour on the palette (e.g. the delay, s)
    std::string label; //!< Its id in the CSV (e.g. "vehicle 3")
};

/**
 * \ingroup edge-llm
 * \brief Writes a map seen from above: stem.csv (rows kind,id,x,y,value: each site, each
 *        path's points, each coloured point), stem.plt (ns-3's Gnuplot, splot with
 *        "set view map", equal axes) and stem.png if gnuplot is installed: the sites as
 *        labelled black squares, each path as a grey line, each point filled with its
 *        value's colour on a palette with a colour box.
 * \param stem path without extension
 * \param title plot title
 * \param valueLabel the colour box's label (e.g. "UE-side handover delay (s)")
 * \param sites the sites
 * \param paths the paths (a vehicle's trajectory each), each as (x, y) points, m
 * \param points the coloured points
 * \return false (after an "error: ..." line on stderr) if a file cannot be written or
 *         gnuplot fails
 */
bool WriteMap(const std::string& stem,
              const std::string& title,
              const std::string& valueLabel,
              const std::vector<MapSite>& sites,
              const std::vector<std::vector<std::pair<double, double>>>& paths,
              const std::vector<MapPoint>& points);

/**
 * \ingroup edge-llm
 * \brief Writes \p text to \p path whole or not at all (a temporary file renamed).
 * \return false after an "error: ..." line on stderr
 */
bool WriteFileAtomically(const std::string& path, const std::string& text);

/**
 * \ingroup edge-llm
 * \brief Creates \p dir if needed and checks it is writable.
 * \param field what names the folder for the user (a program's option, "--outputDir", or a
 *        config field)
 * \param dir the folder
 * \throws std::invalid_argument "<field>: cannot write to '<dir>'" and the reason
 */
void CheckOutputDirectory(const std::string& field, const std::string& dir);

} // namespace ns3

#endif /* EDGE_LLM_FIGURE_WRITER_H */
