/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_CSV_H
#define EDGE_LLM_CSV_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief An input error that names where it is: "FILE:LINE: what and the valid range".
 */
class EdgeLlmInputError : public std::runtime_error
{
  public:
    /**
     * \param file the file name as the user gave it
     * \param line 1-based line number (0: the file as a whole)
     * \param what what is wrong and the valid range
     */
    EdgeLlmInputError(const std::string& file, uint64_t line, const std::string& what);
};

/**
 * \ingroup edge-llm
 * \brief A small strict CSV table: a header line naming the columns, then one
 *        record per line; fields are comma-separated, surrounding blanks trimmed; a
 *        field in double quotes (RFC 4180) is taken verbatim, commas included, with ""
 *        for a quote. Blank lines are skipped; CRLF line ends are accepted. The module's
 *        one CSV reader (input tables of the programs, the campaign tool's merge).
 *
 * Every getter throws EdgeLlmInputError with FILE:LINE and the valid range, so a
 * caller never sees a silently defaulted or clamped value.
 */
class EdgeLlmCsvTable
{
  public:
    /**
     * \brief Read a whole file.
     * \param path file to read
     * \param columns the required column names, in any order in the file; a
     *        missing, duplicated or unknown column is an error
     * \throws EdgeLlmInputError (unreadable or empty file, bad header, a record whose
     *         field count differs from the header's, no records)
     */
    EdgeLlmCsvTable(const std::string& path, const std::vector<std::string>& columns);

    /**
     * \brief Read a whole file whose columns are whatever its header names (each once).
     * \param path file to read
     * \throws EdgeLlmInputError (unreadable or empty file, a column named twice, a record
     *         whose field count differs from the header's); no record is not an error
     */
    explicit EdgeLlmCsvTable(const std::string& path);

    /// \return the column names, in file order
    const std::vector<std::string>& GetColumns() const;

    /**
     * \return the raw text of the \p column -th field (file order) of record \p row
     * \throws std::out_of_range for a row or column outside the table
     */
    const std::string& GetString(std::size_t row, std::size_t column) const;

    /// \return number of records (>= 1)
    std::size_t GetRowCount() const;

    /// \return the 1-based file line of record \p row
    uint64_t GetLine(std::size_t row) const;

    /// \return the file name as given
    const std::string& GetPath() const;

    /**
     * \return the raw text of column \p column of record \p row
     */
    const std::string& GetString(std::size_t row, const std::string& column) const;

    /**
     * \brief A finite real in [min, max], or (min, max] / [min, max) / (min, max) with
     *        \p minOpen / \p maxOpen; the error message shows the same brackets.
     * \throws EdgeLlmInputError if not a number or outside the range
     */
    double GetDouble(std::size_t row,
                     const std::string& column,
                     double min,
                     double max,
                     bool minOpen = false,
                     bool maxOpen = false) const;

    /**
     * \brief A decimal integer in [min, max].
     * \throws EdgeLlmInputError if not an integer or outside the range
     */
    uint64_t GetUnsigned(std::size_t row,
                         const std::string& column,
                         uint64_t min,
                         uint64_t max) const;

    /**
     * \brief Throw an EdgeLlmInputError located at record \p row.
     */
    [[noreturn]] void Fail(std::size_t row, const std::string& what) const;

  private:
    /**
     * \brief Read m_path.
     * \param required the required columns (all, any order), or null: the header's
     */
    void Read(const std::vector<std::string>* required);

    std::size_t ColumnIndex(const std::string& column) const;

    std::string m_path;                           //!< File name as given
    std::vector<std::string> m_columns;           //!< Header, file order
    std::vector<std::vector<std::string>> m_rows; //!< Fields per record
    std::vector<uint64_t> m_lines;                //!< File line per record
};

/**
 * \ingroup edge-llm
 * \brief Parse a whole string as a finite double.
 * \return false if the text is not entirely one finite number
 */
bool EdgeLlmParseDouble(const std::string& text, double& value);

/**
 * \ingroup edge-llm
 * \brief Parse a whole string as an unsigned decimal integer.
 * \return false if the text is not entirely one integer that fits in 64 bits
 */
bool EdgeLlmParseUnsigned(const std::string& text, uint64_t& value);

/**
 * \ingroup edge-llm
 * \brief One CSV field of a measured value: 9 significant digits, or empty for NaN (a
 *        value that was not measured or does not apply, never the text "nan").
 * \param value the value
 * \return the field's text
 */
std::string EdgeLlmCsvField(double value);

} // namespace ns3

#endif /* EDGE_LLM_CSV_H */
