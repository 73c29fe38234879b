/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-figure-writer.h"

#include "ns3/gnuplot.h"
#include "ns3/handover-scheme-registry.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ns3
{

bool
WriteFileAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << text;
        if (!out)
        {
            std::cerr << "error: cannot write " << tmp << std::endl;
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
    {
        std::cerr << "error: cannot rename " << tmp << ": " << ec.message() << std::endl;
        return false;
    }
    return true;
}

void
CheckOutputDirectory(const std::string& field, const std::string& dir)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string probe = dir + "/.write-test";
    if (ec || !std::ofstream(probe))
    {
        throw std::invalid_argument(field + ": cannot write to '" + dir + "'" +
                                    (ec ? ": " + ec.message() : std::string()));
    }
    std::filesystem::remove(probe, ec);
}

bool
WriteFigure(const std::string& stem,
            const std::string& csv,
            const std::string& title,
            const std::string& xLabel,
            const std::string& yLabel,
            const std::vector<FigurePoint>& points,
            const std::vector<std::string>& extra)
{
    std::vector<std::string> order;
    std::map<std::string, Gnuplot2dDataset> datasets;
    for (const auto& p : points)
    {
        auto it = datasets.find(p.series);
        if (it == datasets.end())
        {
            it = datasets.emplace(p.series, Gnuplot2dDataset(p.series)).first;
            it->second.SetStyle(p.markersOnly ? Gnuplot2dDataset::POINTS
                                              : Gnuplot2dDataset::LINES_POINTS);
            it->second.SetErrorBars(Gnuplot2dDataset::Y);
            const std::string color = HandoverSchemeRegistry::PlotColor(p.series);
            if (!color.empty())
            {
                it->second.SetExtra("lc rgb '" + color + "'"); // a scheme's own colour
            }
            order.push_back(p.series);
        }
        it->second.Add(p.x, p.mean, p.ci95);
    }
    Gnuplot plot(stem + ".png");
    plot.SetTerminal("png size 800,560");
    plot.SetTitle(title);
    plot.SetLegend(xLabel, yLabel);
    plot.AppendExtra("set key outside right top");
    plot.AppendExtra("set grid");
    for (const auto& line : extra)
    {
        plot.AppendExtra(line);
    }
    for (const auto& name : order)
    {
        plot.AddDataset(datasets.at(name));
    }
    std::ostringstream plt;
    plot.GenerateOutput(plt);
    if (!WriteFileAtomically(stem + ".csv", csv) || !WriteFileAtomically(stem + ".plt", plt.str()))
    {
        return false;
    }
    const std::string gnuplot = "gnuplot '" + stem + ".plt'";
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        std::cerr << "note: gnuplot not found; run " << gnuplot << " for the PNG" << std::endl;
    }
    else if (std::system(gnuplot.c_str()) != 0)
    {
        std::cerr << "error: " << gnuplot << " failed" << std::endl;
        return false;
    }
    return true;
}

} // namespace ns3
