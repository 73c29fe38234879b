/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "site-list.h"

#include "ns3/edge-llm-csv.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// The site file's columns, in the order the header must give them.
const std::vector<std::string> COLUMNS = {"id", "x", "y", "height", "txPowerDbm"};

/// Read() without the conversion of EdgeLlmCsvTable's errors.
std::vector<SiteRecord>
ReadTable(const std::string& path)
{
    const EdgeLlmCsvTable table(path);
    const std::vector<std::string>& columns = table.GetColumns();
    if (std::find(columns.begin(), columns.end(), "azimuth") != columns.end() ||
        std::find(columns.begin(), columns.end(), "beamwidth") != columns.end())
    {
        throw EdgeLlmInputError(path,
                                1,
                                "sectorised sites (azimuth, beamwidth columns) are not supported: "
                                "every cell is omnidirectional; the header must be "
                                "id,x,y,height,txPowerDbm");
    }
    if (columns != COLUMNS)
    {
        throw EdgeLlmInputError(path, 1, "the header must be id,x,y,height,txPowerDbm");
    }
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
    std::set<std::pair<double, double>> places;
    for (std::size_t r = 0; r < table.GetRowCount(); ++r)
    {
        SiteRecord s;
        s.id = table.GetString(r, "id");
        if (s.id.empty() || !ids.insert(s.id).second)
        {
            table.Fail(r, "id must be non-empty and unique, got '" + s.id + "'");
        }
        const double c = SiteRecord::MAX_COORDINATE;
        s.x = table.GetDouble(r, "x", -c, c);
        s.y = table.GetDouble(r, "y", -c, c);
        s.height = table.GetDouble(r, "height", 0, SiteRecord::MAX_HEIGHT);
        s.txPowerDbm = table.GetDouble(r,
                                       "txPowerDbm",
                                       SiteRecord::MIN_TX_POWER_DBM,
                                       SiteRecord::MAX_TX_POWER_DBM);
        if (!places.insert({s.x, s.y}).second)
        {
            table.Fail(r,
                       "site '" + s.id +
                           "' is at the position of an earlier site (one omnidirectional cell "
                           "per position)");
        }
        sites.push_back(s);
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

} // namespace ns3
