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
#include <limits>
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

namespace
{

/// stem.csv (\p csv), stem.plt (\p plot) and, with gnuplot installed, stem.png.
bool
WritePlot(const std::string& stem, const std::string& csv, Gnuplot& plot)
{
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

} // namespace

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
    return WritePlot(stem, csv, plot);
}

bool
WriteMap(const std::string& stem,
         const std::string& title,
         const std::string& valueLabel,
         const std::vector<MapSite>& sites,
         const std::vector<std::vector<std::pair<double, double>>>& paths,
         const std::vector<MapPoint>& points)
{
    std::ostringstream csv;
    csv << "kind,id,x,y,value\n";
    Gnuplot3dDataset roads("vehicles");
    roads.SetStyle("with lines lc rgb '#b0b0b0' lw 1");
    for (std::size_t p = 0; p < paths.size(); ++p)
    {
        for (const auto& [x, y] : paths[p])
        {
            roads.Add(x, y, 0);
            csv << "path," << p << "," << x << "," << y << ",\n";
        }
        roads.AddEmptyLine();
    }
    Gnuplot3dDataset handovers("handovers");
    handovers.SetStyle("with points pt 7 ps 1.4 palette");
    for (const MapPoint& p : points)
    {
        handovers.Add(p.x, p.y, p.value);
        csv << "handover," << p.label << "," << p.x << "," << p.y << "," << p.value << "\n";
    }
    Gnuplot3dDataset bs("sites");
    bs.SetStyle("with points pt 5 ps 2 lc rgb 'black'");
    Gnuplot plot(stem + ".png");
    plot.SetTerminal("png size 800,760");
    plot.SetTitle(title);
    plot.SetLegend("x (m)", "y (m)");
    // A square view of everything, 10 % to spare, so a line of sites is not a sliver.
    double lo[2] = {std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::infinity()};
    double hi[2] = {-lo[0], -lo[1]};
    auto grow = [&lo, &hi](double x, double y) {
        lo[0] = std::min(lo[0], x);
        lo[1] = std::min(lo[1], y);
        hi[0] = std::max(hi[0], x);
        hi[1] = std::max(hi[1], y);
    };
    for (const MapSite& site : sites)
    {
        grow(site.x, site.y);
    }
    for (const auto& path : paths)
    {
        for (const auto& [x, y] : path)
        {
            grow(x, y);
        }
    }
    const double span = 1.1 * std::max({hi[0] - lo[0], hi[1] - lo[1], 1.0});
    std::ostringstream range;
    range << "set xrange [" << (lo[0] + hi[0] - span) / 2 << ":" << (lo[0] + hi[0] + span) / 2
          << "]\nset yrange [" << (lo[1] + hi[1] - span) / 2 << ":" << (lo[1] + hi[1] + span) / 2
          << "]";
    plot.AppendExtra(range.str());
    plot.AppendExtra("set view map");
    plot.AppendExtra("set size ratio -1");
    plot.AppendExtra("set key outside bottom center horizontal");
    plot.AppendExtra("set cblabel '" + valueLabel + "'");
    plot.AppendExtra("set palette defined (0 '#0072B2', 1 '#F0E442', 2 '#D55E00')");
    for (const MapSite& site : sites)
    {
        bs.Add(site.x, site.y, 0);
        csv << "site," << site.label << "," << site.x << "," << site.y << ",\n";
        // gnuplot's single-quoted string: a quote is written twice.
        std::string text;
        for (const char ch : site.label)
        {
            text += ch == '\'' ? std::string("''") : std::string(1, ch);
        }
        std::ostringstream label;
        label << "set label '" << text << "' at " << site.x << "," << site.y
              << ",0 offset 1,1 front";
        plot.AppendExtra(label.str());
    }
    plot.AddDataset(roads);
    if (!points.empty())
    {
        plot.AddDataset(handovers);
    }
    plot.AddDataset(bs);
    return WritePlot(stem, csv.str(), plot);
}

} // namespace ns3
