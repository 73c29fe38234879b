/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * EdgeLlmCsvTable, the module's one CSV reader: RFC 4180 quotes, the header-as-given mode
 * the campaign tool merges with, and the errors on both sides of each rule.
 */
#include "edge-llm-gtest-util.h"

#include "ns3/edge-llm-csv.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

std::string
WriteFile(const std::string& name, const std::string& text)
{
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

} // namespace

// A quoted field keeps its commas and blanks; "" is one quote; unquoted blanks are trimmed.
TEST(EdgeLlmCsv, QuotedFieldsAreVerbatim)
{
    const std::string path =
        WriteFile("quoted.csv", "scheme,title\n ctho , \"a, b\"\n\"tho\",\" say \"\"hi\"\" \"\n");
    const EdgeLlmCsvTable t(path);
    ASSERT_EQ(t.GetRowCount(), 2U);
    EXPECT_EQ(t.GetColumns(), (std::vector<std::string>{"scheme", "title"}));
    EXPECT_EQ(t.GetString(0, "scheme"), "ctho");
    EXPECT_EQ(t.GetString(0, "title"), "a, b");
    EXPECT_EQ(t.GetString(1, 0), "tho");
    EXPECT_EQ(t.GetString(1, 1), " say \"hi\" ");
    EXPECT_EQ(t.GetLine(1), 3U);
}

// A quote left open, or text after a closing quote, is refused at its line.
TEST(EdgeLlmCsv, BadQuotesNameTheLine)
{
    const std::string open = WriteFile("open.csv", "a,b\n1,2\n3,\"4\n");
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] { EdgeLlmCsvTable t(open); }),
              open + ":3: a quoted field has no closing quote");
    const std::string after = WriteFile("after.csv", "a,b\n\"1\"x,2\n");
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] { EdgeLlmCsvTable t(after); }),
              after + ":2: text after a quoted field's closing quote");
    // Blanks after the closing quote are not text.
    const std::string blanks = WriteFile("blanks.csv", "a,b\n\"1\"  ,2\n");
    EXPECT_EQ(EdgeLlmCsvTable(blanks).GetString(0, "a"), "1");
}

// Header as given: no record is a table (a run with nothing to report); a column named
// twice is not. With required columns, no record stays an error.
TEST(EdgeLlmCsv, HeaderAsGiven)
{
    const std::string headerOnly = WriteFile("header-only.csv", "x,y\n");
    EXPECT_EQ(EdgeLlmCsvTable(headerOnly).GetRowCount(), 0U);
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] {
                  EdgeLlmCsvTable t(headerOnly, {"x", "y"});
              }),
              headerOnly + ":1: no records after the header; at least one needed");
    const std::string twice = WriteFile("twice.csv", "x,x\n1,2\n");
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] { EdgeLlmCsvTable t(twice); }),
              twice + ":1: column 'x' appears twice");
    const std::string empty = WriteFile("empty.csv", "\n\n");
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] { EdgeLlmCsvTable t(empty); }),
              empty + ":1: empty file; expected a header line");
    const std::string ragged = WriteFile("ragged.csv", "x,y\n1,2\n1,2,3\n");
    EXPECT_EQ(edgellmtest::ErrorOf<EdgeLlmInputError>([&] { EdgeLlmCsvTable t(ragged); }),
              ragged + ":3: expected 2 comma-separated fields (x,y), found 3");
    // A trailing comma is an empty last field, quoted or not.
    const std::string trailing = WriteFile("trailing.csv", "x,y\n1,\n\"2\",\"\"\n");
    const EdgeLlmCsvTable t(trailing);
    EXPECT_EQ(t.GetString(0, "y"), "");
    EXPECT_EQ(t.GetString(1, "y"), "");
}
