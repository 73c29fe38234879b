/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SITE_LIST_H
#define EDGE_LLM_SITE_LIST_H

#include "ns3/edge-llm-ran.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One cell of a site file (MultiCellConfig layout "file"): an omnidirectional site,
 *        or one sector of a site (the rows at one position).
 */
struct SiteRecord
{
    static constexpr double MAX_COORDINATE = 1e6;   //!< Largest |x|, |y|, m
    static constexpr double MAX_HEIGHT = 300;       //!< Tallest antenna, m
    static constexpr double MIN_TX_POWER_DBM = -30; //!< Least transmit power, dBm
    static constexpr double MAX_TX_POWER_DBM = 60;  //!< Most transmit power, dBm
    static constexpr uint32_t MIN_SITES = 2;        //!< Fewest sites of a file
    static constexpr uint32_t MAX_SITES = 57;       //!< Most sites of a file

    std::string id;       //!< Its name (unique, non-empty; the tables and map label it)
    double x{0};          //!< m
    double y{0};          //!< m
    double height{0};     //!< Antenna height above ground, m, [0, 300]
    double txPowerDbm{0}; //!< Transmit power, dBm, [-30, 60]
    bool sector{false};   //!< The file has azimuth and beamwidth columns: antenna is its own
    EdgeLlmSectorAntenna antenna; //!< Its azimuth and beamwidth (sector only)

    /**
     * \brief Read a site file: CSV (EdgeLlmCsvTable) with the header
     *        `id,x,y,height,txPowerDbm` (omnidirectional cells) or
     *        `id,x,y,height,txPowerDbm,azimuth,beamwidth` (sector antennas,
     *        EdgeLlmSectorAntenna: azimuth in [-360, 360] degrees, beamwidth in (0, 360]),
     *        in that order, one cell a record.
     *
     * Omnidirectional: no two cells at one position. Sectors: every record gives both
     * angles; the records at one position are the sectors of one site, each with a
     * beamwidth below 360 and an azimuth no other of them has (modulo 360); the cells stand
     * at two positions at least.
     * \param path the file
     * \return the cells in file order, [MIN_SITES, MAX_SITES] of them
     * \throws std::invalid_argument "siteFile: FILE:LINE: ..." naming the column and its
     *         valid range (an unreadable file, a different header or one of azimuth and
     *         beamwidth without the other, a wrong number of fields, a number that does not
     *         parse or is out of range, a repeated or empty id, cells at one position that
     *         are no distinct sectors, one position only, too few or too many cells)
     */
    static std::vector<SiteRecord> Read(const std::string& path);

    /**
     * \param sites a site file's records
     * \return whether they are sectors (the file has azimuth and beamwidth columns)
     */
    static bool AreSectors(const std::vector<SiteRecord>& sites);

    /**
     * \param sites a site file's records
     * \return how many positions they stand at (the sites; each of a sectorised site's
     *         cells is one record)
     */
    static std::size_t CountPositions(const std::vector<SiteRecord>& sites);
};

} // namespace ns3

#endif /* EDGE_LLM_SITE_LIST_H */
