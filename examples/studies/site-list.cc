/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "site-list.h"

#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-limits.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// The site file's columns, in the order the header must give them.
const std::vector<std::string> COLUMNS = {"id", "x", "y", "height", "txPowerDbm"};
/// A sectorised site file's two further columns, after COLUMNS.
const std::vector<std::string> SECTOR_COLUMNS = {"azimuth", "beamwidth"};

/// \return whether \p columns names \p name
bool
Has(const std::vector<std::string>& columns, const std::string& name)
{
    return std::find(columns.begin(), columns.end(), name) != columns.end();
}

/**
 * The header's check.
 * \param table the file
 * \return whether the file gives sectors (azimuth and beamwidth)
 * \throws EdgeLlmInputError at line 1 for any other header, naming a lone sector column
 */
bool
ReadHeader(const EdgeLlmCsvTable& table)
{
    const std::vector<std::string>& columns = table.GetColumns();
    const bool azimuth = Has(columns, "azimuth");
    const bool beamwidth = Has(columns, "beamwidth");
    if (azimuth != beamwidth)
    {
        throw EdgeLlmInputError(table.GetPath(),
                                1,
                                std::string("the header has ") +
                                    (azimuth ? "azimuth but no beamwidth"
                                             : "beamwidth but no "
                                               "azimuth") +
                                    ": a sector gives both (header "
                                    "id,x,y,height,txPowerDbm,azimuth,beamwidth)");
    }
    std::vector<std::string> expected = COLUMNS;
    if (azimuth)
    {
        expected.insert(expected.end(), SECTOR_COLUMNS.begin(), SECTOR_COLUMNS.end());
    }
    if (columns != expected)
    {
        throw EdgeLlmInputError(table.GetPath(),
                                1,
                                "the header must be id,x,y,height,txPowerDbm (omnidirectional "
                                "cells) or id,x,y,height,txPowerDbm,azimuth,beamwidth (sectors)");
    }
    return azimuth;
}

/// Record \p r of \p table, its fields in their ranges (the id's uniqueness aside).
SiteRecord
ReadRow(const EdgeLlmCsvTable& table, std::size_t r, bool sector)
{
    SiteRecord s;
    s.id = table.GetString(r, "id");
    const double c = SiteRecord::MAX_COORDINATE;
    s.x = table.GetDouble(r, "x", -c, c);
    s.y = table.GetDouble(r, "y", -c, c);
    s.height = table.GetDouble(r, "height", 0, SiteRecord::MAX_HEIGHT);
    s.txPowerDbm = table.GetDouble(r,
                                   "txPowerDbm",
                                   SiteRecord::MIN_TX_POWER_DBM,
                                   SiteRecord::MAX_TX_POWER_DBM);
    s.sector = sector;
    if (sector)
    {
        const double a = EdgeLlmSectorAntenna::MAX_AZIMUTH_DEG;
        s.antenna.azimuthDeg = table.GetDouble(r, "azimuth", -a, a);
        s.antenna.beamwidthDeg =
            table.GetDouble(r, "beamwidth", 0, EdgeLlmSectorAntenna::MAX_BEAMWIDTH_DEG, true);
    }
    return s;
}

/**
 * Record \p r's place beside the earlier ones at its position: omnidirectional cells one
 * per position; sectors each below 360 degrees wide, pointing where no other of its site
 * does (azimuths compared modulo 360).
 * \param earlier the earlier records at its position
 */
void
CheckColocated(const EdgeLlmCsvTable& table,
               std::size_t r,
               const SiteRecord& s,
               const std::vector<SiteRecord>& earlier)
{
    if (earlier.empty())
    {
        return;
    }
    const SiteRecord& first = earlier.front();
    if (!s.sector)
    {
        table.Fail(r,
                   "site '" + s.id +
                       "' is at the position of an earlier site (one omnidirectional cell "
                       "per position)");
    }
    for (const SiteRecord* cell : {&first, &s})
    {
        if (cell->antenna.beamwidthDeg >= EdgeLlmSectorAntenna::MAX_BEAMWIDTH_DEG)
        {
            table.Fail(r,
                       "site '" + s.id + "' shares its position with site '" + first.id +
                           "': cells at one position are the sectors of a site, each with a "
                           "beamwidth in (0, 360) degrees; '" +
                           cell->id + "' has 360 (omnidirectional)");
        }
    }
    for (const SiteRecord& o : earlier)
    {
        if (std::fmod(std::fabs(s.antenna.azimuthDeg - o.antenna.azimuthDeg), 360.0) == 0)
        {
            table.Fail(r,
                       "site '" + s.id + "' points where site '" + o.id +
                           "' at its position does (azimuth " +
                           edgellm::FormatNumber(s.antenna.azimuthDeg) + " and " +
                           edgellm::FormatNumber(o.antenna.azimuthDeg) +
                           ", equal modulo 360): sectors of one site need different azimuths");
        }
    }
}

/// Read() without the conversion of EdgeLlmCsvTable's errors.
std::vector<SiteRecord>
ReadTable(const std::string& path)
{
    const EdgeLlmCsvTable table(path);
    const bool sector = ReadHeader(table);
    if (table.GetRowCount() < SiteRecord::MIN_SITES || table.GetRowCount() > SiteRecord::MAX_SITES)
    {
        throw EdgeLlmInputError(path,
                                0,
                                "a site file has " + std::to_string(SiteRecord::MIN_SITES) +
                                    " to " + std::to_string(SiteRecord::MAX_SITES) +
                                    " sites, got " + std::to_string(table.GetRowCount()));
    }
    std::vector<SiteRecord> sites;
    std::set<std::string> ids;
    std::map<std::pair<double, double>, std::vector<SiteRecord>> places;
    for (std::size_t r = 0; r < table.GetRowCount(); ++r)
    {
        const SiteRecord s = ReadRow(table, r, sector);
        if (s.id.empty() || !ids.insert(s.id).second)
        {
            table.Fail(r, "id must be non-empty and unique, got '" + s.id + "'");
        }
        std::vector<SiteRecord>& here = places[{s.x, s.y}];
        CheckColocated(table, r, s, here);
        here.push_back(s);
        sites.push_back(s);
    }
    if (places.size() < 2)
    {
        throw EdgeLlmInputError(path,
                                0,
                                "every sector stands at one position: the cells must stand at 2 "
                                "positions at least (the layout's inter-site distance is "
                                "measured between positions)");
    }
    return sites;
}

} // namespace

std::vector<SiteRecord>
SiteRecord::Read(const std::string& path)
{
    try
    {
        return ReadTable(path);
    }
    catch (const EdgeLlmInputError& e)
    {
        throw std::invalid_argument(std::string("siteFile: ") + e.what());
    }
}

std::size_t
SiteRecord::CountPositions(const std::vector<SiteRecord>& sites)
{
    std::set<std::pair<double, double>> places;
    for (const SiteRecord& s : sites)
    {
        places.insert({s.x, s.y});
    }
    return places.size();
}

bool
SiteRecord::AreSectors(const std::vector<SiteRecord>& sites)
{
    return !sites.empty() && sites.front().sector;
}

} // namespace ns3
