/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * How the programs of examples/ print a value in a table column (a program's part, not the
 * module's API).
 */
#ifndef EDGE_LLM_TABLE_CELL_H
#define EDGE_LLM_TABLE_CELL_H

#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>

namespace ns3
{

/**
 * \param v the value (NaN: not measured, or does not apply)
 * \param width the column's width, characters
 * \return \p v right-aligned in \p width with 4 decimals, or "n/a" for NaN (never "nan")
 */
inline std::string
TableCell(double v, int width)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(4) << std::setw(width);
    if (std::isnan(v))
    {
        o << "n/a";
    }
    else
    {
        o << v;
    }
    return o.str();
}

} // namespace ns3

#endif /* EDGE_LLM_TABLE_CELL_H */
