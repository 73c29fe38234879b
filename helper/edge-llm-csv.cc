/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "edge-llm-csv.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <utility>

namespace ns3
{

namespace
{

/// Longest line accepted (a larger one is not a table of UEs or users).
constexpr std::size_t MAX_LINE = 65536;

/// A field as quoted in an error: at most 40 characters, control bytes escaped.
std::string
Quote(const std::string& text)
{
    std::string out;
    for (char c : text.substr(0, 40))
    {
        out += std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : std::string("?");
    }
    return out + (text.size() > 40 ? "..." : "");
}

std::string
Trim(const std::string& s)
{
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos)
    {
        return "";
    }
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

/**
 * Split a line into fields: comma-separated, blanks around a field trimmed; a field in
 * double quotes (RFC 4180) is taken verbatim, commas included, with "" for one quote.
 * \param line one line, without its end
 * \param[out] fields the fields
 * \return "" or what is wrong (an unterminated quote, text after a closing quote)
 */
std::string
SplitFields(const std::string& line, std::vector<std::string>& fields)
{
    fields.clear();
    std::size_t i = 0;
    while (true)
    {
        std::size_t end = line.find(',', i);
        std::string field =
            Trim(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
        if (!field.empty() && field.front() == '"')
        {
            // The quoted field runs to its closing quote, commas included.
            const std::size_t open = line.find('"', i);
            std::string text;
            std::size_t k = open + 1;
            while (true)
            {
                if (k >= line.size())
                {
                    return "a quoted field has no closing quote";
                }
                if (line[k] == '"' && k + 1 < line.size() && line[k + 1] == '"')
                {
                    text += '"';
                    k += 2;
                }
                else if (line[k] == '"')
                {
                    break;
                }
                else
                {
                    text += line[k++];
                }
            }
            end = line.find(',', k + 1);
            if (!Trim(
                     line.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1))
                     .empty())
            {
                return "text after a quoted field's closing quote";
            }
            field = text;
        }
        fields.push_back(field);
        if (end == std::string::npos)
        {
            return "";
        }
        i = end + 1;
    }
}

std::string
Join(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& item : items)
    {
        out += (out.empty() ? "" : ",") + item;
    }
    return out;
}

} // namespace

EdgeLlmInputError::EdgeLlmInputError(const std::string& file,
                                     uint64_t line,
                                     const std::string& what)
    : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                         what)
{
}

bool
EdgeLlmParseDouble(const std::string& text, double& value)
{
    // Decimal notation only: no leading blank or '+', no hex, inf or nan spellings.
    if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos ||
        text.front() == '+')
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    {
        return false;
    }
    value = v;
    return true;
}

bool
EdgeLlmParseUnsigned(const std::string& text, uint64_t& value)
{
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
        }))
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (end != text.c_str() + text.size() || errno == ERANGE)
    {
        return false;
    }
    value = v;
    return true;
}

EdgeLlmCsvTable::EdgeLlmCsvTable(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path)
{
    Read(&columns);
}

EdgeLlmCsvTable::EdgeLlmCsvTable(const std::string& path)
    : m_path(path)
{
    Read(nullptr);
}

void
EdgeLlmCsvTable::Read(const std::vector<std::string>* required)
{
    const std::string& path = m_path;
    const std::vector<std::string> none;
    const std::vector<std::string>& columns = required ? *required : none;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
    {
        throw EdgeLlmInputError(path, 0, "is a directory, not a CSV file");
    }
    std::ifstream in(path);
    if (!in)
    {
        throw EdgeLlmInputError(path,
                                0,
                                std::string("cannot open file for reading: ") +
                                    std::strerror(errno));
    }
    std::string line;
    uint64_t lineNo = 0;
    bool haveHeader = false;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.size() > MAX_LINE)
        {
            throw EdgeLlmInputError(path,
                                    lineNo,
                                    "line longer than " + std::to_string(MAX_LINE) +
                                        " characters; not a CSV of this tool");
        }
        if (lineNo == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
        {
            line.erase(0, 3); // a UTF-8 byte-order mark is not part of the first column name
        }
        if (Trim(line).empty())
        {
            continue;
        }
        std::vector<std::string> fields;
        const std::string bad = SplitFields(line, fields);
        if (!bad.empty())
        {
            throw EdgeLlmInputError(path, lineNo, bad);
        }
        if (!haveHeader)
        {
            m_columns = fields;
            for (const auto& c : m_columns)
            {
                if (std::count(m_columns.begin(), m_columns.end(), c) > 1)
                {
                    throw EdgeLlmInputError(path,
                                            lineNo,
                                            "column '" + Quote(c) + "' appears twice");
                }
                if (required && std::find(columns.begin(), columns.end(), c) == columns.end())
                {
                    throw EdgeLlmInputError(path,
                                            lineNo,
                                            "unknown column '" + Quote(c) +
                                                "'; the header must be " + Join(columns));
                }
            }
            for (const auto& c : columns)
            {
                if (std::find(m_columns.begin(), m_columns.end(), c) == m_columns.end())
                {
                    throw EdgeLlmInputError(path,
                                            lineNo,
                                            "missing column '" + c + "'; the header must be " +
                                                Join(columns));
                }
            }
            haveHeader = true;
            continue;
        }
        if (fields.size() != m_columns.size())
        {
            throw EdgeLlmInputError(path,
                                    lineNo,
                                    "expected " + std::to_string(m_columns.size()) +
                                        " comma-separated fields (" + Join(m_columns) +
                                        "), found " + std::to_string(fields.size()));
        }
        m_rows.push_back(std::move(fields));
        m_lines.push_back(lineNo);
    }
    if (in.bad())
    {
        throw EdgeLlmInputError(path, lineNo, "read error");
    }
    if (!haveHeader)
    {
        throw EdgeLlmInputError(path,
                                1,
                                required ? "empty file; expected the header " + Join(columns)
                                         : std::string("empty file; expected a header line"));
    }
    if (required && m_rows.empty())
    {
        throw EdgeLlmInputError(path, lineNo, "no records after the header; at least one needed");
    }
}

const std::vector<std::string>&
EdgeLlmCsvTable::GetColumns() const
{
    return m_columns;
}

const std::string&
EdgeLlmCsvTable::GetString(std::size_t row, std::size_t column) const
{
    return m_rows.at(row).at(column);
}

std::size_t
EdgeLlmCsvTable::GetRowCount() const
{
    return m_rows.size();
}

uint64_t
EdgeLlmCsvTable::GetLine(std::size_t row) const
{
    return m_lines.at(row);
}

const std::string&
EdgeLlmCsvTable::GetPath() const
{
    return m_path;
}

std::size_t
EdgeLlmCsvTable::ColumnIndex(const std::string& column) const
{
    const auto it = std::find(m_columns.begin(), m_columns.end(), column);
    if (it == m_columns.end())
    {
        throw EdgeLlmInputError(m_path, 0, "no column '" + column + "'");
    }
    return static_cast<std::size_t>(it - m_columns.begin());
}

const std::string&
EdgeLlmCsvTable::GetString(std::size_t row, const std::string& column) const
{
    return m_rows.at(row).at(ColumnIndex(column));
}

void
EdgeLlmCsvTable::Fail(std::size_t row, const std::string& what) const
{
    throw EdgeLlmInputError(m_path, m_lines.at(row), what);
}

double
EdgeLlmCsvTable::GetDouble(std::size_t row,
                           const std::string& column,
                           double min,
                           double max,
                           bool minOpen,
                           bool maxOpen) const
{
    const std::string& text = GetString(row, column);
    double v = 0;
    std::ostringstream range;
    range << (minOpen ? "(" : "[") << min << ", " << max << (maxOpen ? ")" : "]");
    if (!EdgeLlmParseDouble(text, v))
    {
        Fail(row, column + " must be a number in " + range.str() + ", got '" + Quote(text) + "'");
    }
    if ((minOpen ? v <= min : v < min) || (maxOpen ? v >= max : v > max))
    {
        Fail(row, column + " must be in " + range.str() + ", got " + text);
    }
    return v;
}

uint64_t
EdgeLlmCsvTable::GetUnsigned(std::size_t row,
                             const std::string& column,
                             uint64_t min,
                             uint64_t max) const
{
    const std::string& text = GetString(row, column);
    uint64_t v = 0;
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!EdgeLlmParseUnsigned(text, v))
    {
        Fail(row, column + " must be an integer in " + range + ", got '" + Quote(text) + "'");
    }
    if (v < min || v > max)
    {
        Fail(row, column + " must be in " + range + ", got " + text);
    }
    return v;
}

std::string
EdgeLlmCsvField(double value)
{
    std::ostringstream o;
    o << std::setprecision(9);
    if (!std::isnan(value))
    {
        o << value;
    }
    return o.str();
}

} // namespace ns3
