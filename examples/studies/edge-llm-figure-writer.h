/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_FIGURE_WRITER_H
#define EDGE_LLM_FIGURE_WRITER_H

#include <string>
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
