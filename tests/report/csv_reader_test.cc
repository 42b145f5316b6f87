// The CSV reader against RFC 4180 text written by hand, against the writer
// (Table::render_csv) on cells that need quoting, and on every malformed
// input, which must name the file and the line.
#include "report/csv_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/table.h"

namespace podsim::report {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The message of the CsvError that parsing `text` throws ("" if none).
std::string error_of(const std::string& text) {
  try {
    parse_csv(text, "f.csv");
  } catch (const CsvError& e) {
    return e.what();
  }
  return "";
}

TEST(CsvReader, HeaderRowsAndLineNumbers) {
  const CsvDocument d = parse_csv("a,b,c\n1,2,3\nx,,z\n", "f.csv");
  EXPECT_EQ(d.source, "f.csv");
  EXPECT_THAT(d.header, ElementsAre("a", "b", "c"));
  ASSERT_EQ(d.rows.size(), 2U);
  EXPECT_THAT(d.rows[0].cells, ElementsAre("1", "2", "3"));
  EXPECT_THAT(d.rows[1].cells, ElementsAre("x", "", "z"));
  EXPECT_EQ(d.rows[0].line, 2);
  EXPECT_EQ(d.rows[1].line, 3);
  EXPECT_EQ(d.column("b"), 1);
  EXPECT_EQ(d.column("nope"), -1);
}

TEST(CsvReader, QuotedCellsHoldCommasQuotesAndLineBreaks) {
  const CsvDocument d = parse_csv(
      "name,mesh,note\n\"a,b\",\"x=4,y=4\",\"say \"\"hi\"\"\"\n"
      "plain,\"two\nlines\",\"\"\nlast,1,2\n",
      "f.csv");
  ASSERT_EQ(d.rows.size(), 3U);
  EXPECT_THAT(d.rows[0].cells, ElementsAre("a,b", "x=4,y=4", "say \"hi\""));
  EXPECT_THAT(d.rows[1].cells, ElementsAre("plain", "two\nlines", ""));
  // The record after a cell spanning two lines starts on line 5.
  EXPECT_EQ(d.rows[1].line, 3);
  EXPECT_EQ(d.rows[2].line, 5);
}

TEST(CsvReader, CrLfAndAMissingFinalNewlineReadTheSame) {
  const CsvDocument lf = parse_csv("a,b\n1,2\n3,4\n", "f.csv");
  const CsvDocument crlf = parse_csv("a,b\r\n1,2\r\n3,4", "f.csv");
  ASSERT_EQ(crlf.rows.size(), 2U);
  EXPECT_EQ(lf.header, crlf.header);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(lf.rows[i].cells, crlf.rows[i].cells);
    EXPECT_EQ(lf.rows[i].line, crlf.rows[i].line);
  }
}

TEST(CsvReader, BlankLinesAreSkippedButCounted) {
  const CsvDocument d = parse_csv("\na,b\n\n1,2\n\n\n", "f.csv");
  ASSERT_EQ(d.rows.size(), 1U);
  EXPECT_EQ(d.rows[0].line, 4);
}

TEST(CsvReader, ReadsBackWhatTheTableWrites) {
  const std::vector<std::string> header = {"plain", "comma", "quote", "newline", "empty"};
  const std::vector<std::string> row = {"v5e", "x=16,y=16", "a \"b\" c", "one\r\ntwo", ""};
  Table t(header);
  t.add_row(row);
  t.add_row(header);  // a row that looks like the header is still a row
  std::ostringstream text;
  t.render_csv(text);
  const CsvDocument d = parse_csv(text.str(), "t.csv");
  EXPECT_EQ(d.header, header);
  ASSERT_EQ(d.rows.size(), 2U);
  EXPECT_EQ(d.rows[0].cells, row);
  EXPECT_EQ(d.rows[1].cells, header);
}

TEST(CsvReader, MalformedInputNamesFileAndLine) {
  EXPECT_THAT(error_of(""), HasSubstr("f.csv: empty file"));
  EXPECT_THAT(error_of("\n\n"), HasSubstr("f.csv: empty file"));
  EXPECT_THAT(error_of("a,b\n1,2\n1,2,3\n"),
              HasSubstr("f.csv:3: record has 3 cells, the header has 2"));
  EXPECT_THAT(error_of("a,b\n1\n"), HasSubstr("f.csv:2: record has 1 cells"));
  // An unclosed quote is reported where it opened.
  EXPECT_THAT(error_of("a,b\n1,2\n3,\"four\n5,6\n"),
              HasSubstr("f.csv:3: quoted cell is never closed"));
  EXPECT_THAT(error_of("a,b\n1,x\"y\n"), HasSubstr("f.csv:2: quote inside an unquoted cell"));
  EXPECT_THAT(error_of("a,b\n1,\"x\"y\n"), HasSubstr("f.csv:2: text after a closing quote"));
  EXPECT_THAT(error_of("a,b\n1,2\r3,4\n"),
              HasSubstr("f.csv:2: carriage return without a line feed"));
  EXPECT_THAT(error_of("a,,c\n"), HasSubstr("f.csv:1: the header has an empty column name"));
  EXPECT_THAT(error_of("a,b,a\n"), HasSubstr("f.csv:1: the header names column 'a' twice"));
}

TEST(CsvReader, HeaderOnlyIsAnEmptyTable) {
  const CsvDocument d = parse_csv("a,b\n", "f.csv");
  EXPECT_THAT(d.header, ElementsAre("a", "b"));
  EXPECT_TRUE(d.rows.empty());
}

TEST(CsvReader, FilesThatCannotBeReadAreNamed) {
  const auto dir = std::filesystem::temp_directory_path() / "podsim_csv_reader_test";
  std::filesystem::create_directories(dir);
  try {
    read_csv_file(dir / "missing.csv");
    FAIL() << "a missing file must throw";
  } catch (const CsvError& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing.csv: cannot read"));
  }
  EXPECT_THROW(read_csv_file(dir), CsvError);
  { std::ofstream(dir / "ok.csv") << "a,b\n1,2\n"; }
  const CsvDocument d = read_csv_file(dir / "ok.csv");
  EXPECT_EQ(d.source, (dir / "ok.csv").string());
  ASSERT_EQ(d.rows.size(), 1U);
  std::filesystem::remove_all(dir);
}

TEST(CsvReader, AFileWithNoEndStopsAtTheLimit) {
  // `podsim compare /dev/zero /dev/zero` grew past 6 GB before the limit;
  // then it read the whole 1 GiB limit (2.1 GB RSS, 22 s) before refusing.
  // A CSV is text: the first NUL ends the read (issue 27).
  try {
    read_csv_file("/dev/zero", 1 << 20);
    FAIL() << "read /dev/zero whole";
  } catch (const CsvError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/dev/zero: byte 1 is a NUL: not a text CSV file"));
  }
  EXPECT_EQ(kMaxCsvFileBytes, uint64_t{1} << 30);
  // A regular file over the limit is refused by its size, unread (sparse: no disk used).
  const std::filesystem::path big = std::filesystem::temp_directory_path() /
                                    ("podsim_big_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(big) << "a,b\n";
  std::filesystem::resize_file(big, uint64_t{4} << 30);
  try {
    read_csv_file(big, 1 << 20);
    FAIL() << "read a 4 GiB file";
  } catch (const CsvError& e) {
    EXPECT_THAT(e.what(), HasSubstr("larger than the limit of 1048576 bytes"));
  }
  std::filesystem::remove(big);
}

// Found by compare_csv_fuzzer: a cell that is not UTF-8 reached
// `podsim compare --format json` as an empty string (Protobuf's strings are
// UTF-8), with a libprotobuf error on stderr. Such text is refused, at its
// line; well-formed multi-byte characters are kept.
TEST(CsvReader, TextThatIsNotUtf8IsRefusedAtItsLine) {
  EXPECT_EQ(error_of("a,b\n1,2\nx,\xff\xfe\n"), "f.csv:3: not UTF-8 text (byte 11)");
  EXPECT_THAT(error_of("a\n\xc0\xaf\n"), HasSubstr("f.csv:2: not UTF-8"));      // overlong '/'
  EXPECT_THAT(error_of("a\n\xed\xa0\x80\n"), HasSubstr("f.csv:2: not UTF-8"));  // a surrogate
  EXPECT_THAT(error_of("a\n\xf4\x90\x80\x80\n"), HasSubstr("not UTF-8"));       // past U+10FFFF
  EXPECT_THAT(error_of("a\n\xe2\x82"), HasSubstr("not UTF-8"));                 // cut short
  const CsvDocument d =
      parse_csv("name\n\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", "f.csv");
  ASSERT_EQ(d.rows.size(), 1U);
  EXPECT_EQ(d.rows[0].cells[0], "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace podsim::report
