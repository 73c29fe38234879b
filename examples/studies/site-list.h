/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SITE_LIST_H
#define EDGE_LLM_SITE_LIST_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One base-station site of a site file (MultiCellConfig layout "file").
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

    /**
     * \brief Read a site file: CSV (EdgeLlmCsvTable) with the header
     *        `id,x,y,height,txPowerDbm` in that order, one site a record.
     * \param path the file
     * \return the sites in file order, [MIN_SITES, MAX_SITES] of them
     * \throws std::invalid_argument "siteFile: FILE:LINE: ..." naming the column and its
     *         valid range (an unreadable file, a different header, a wrong number of
     *         fields, a number that does not parse or is out of range, a repeated or empty
     *         id, two sites at one position, too few or too many sites). Sectorised sites
     *         (azimuth and beamwidth columns) are refused: the engine builds
     *         omnidirectional cells.
     */
    static std::vector<SiteRecord> Read(const std::string& path);
};

} // namespace ns3

#endif /* EDGE_LLM_SITE_LIST_H */
