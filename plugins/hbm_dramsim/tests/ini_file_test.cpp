#include "ini_file.hpp"

#include <gtest/gtest.h>

namespace tessera::hbm {
namespace {

TEST(IniFile, SplitsSectionsAndKeysCaseInsensitively) {
  IniFile f = parse_ini("[Timing]\n tCK = 0.625 \nCL: 20\n");
  ASSERT_EQ(f.sections.size(), 1u);
  EXPECT_EQ(f.sections[0].name, "timing");
  EXPECT_EQ(f.sections[0].spelled, "Timing");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].section, "timing");
  EXPECT_EQ(f.entries[0].key, "tck");
  EXPECT_EQ(f.entries[0].spelled, "tCK");
  EXPECT_EQ(f.entries[0].value, "0.625");
  EXPECT_EQ(f.entries[0].line, 2);
  EXPECT_EQ(f.entries[1].key, "cl");
  EXPECT_EQ(f.entries[1].value, "20");
  EXPECT_TRUE(f.problems.empty());
}

TEST(IniFile, CommentsEndAValueWhereverTheyStart) {
  // DRAMsim3's HBM file writes `tRPRE = 1; read preamble` with no space before the `;`.
  IniFile f = parse_ini("; header\n# another\n[timing]\ntRPRE = 1; read preamble\ntWPRE = 2 # x\n");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].value, "1");
  EXPECT_EQ(f.entries[1].value, "2");
  EXPECT_EQ(f.entries[1].line, 5);
}

TEST(IniFile, AnEmptyValueIsKept) {
  IniFile f = parse_ini("[timing]\ntRFC = \n");
  ASSERT_EQ(f.entries.size(), 1u);
  EXPECT_EQ(f.entries[0].value, "");
}

TEST(IniFile, ReportsLinesItCannotSplit) {
  IniFile f = parse_ini("[timing\nCL 14\n= 3\n[]\n");
  ASSERT_EQ(f.problems.size(), 4u);
  EXPECT_EQ(f.problems[0].line, 1);
  EXPECT_EQ(f.problems[0].message, "expected a section header like '[timing]', got '[timing'");
  EXPECT_EQ(f.problems[1].message, "expected 'key = value' or '[section]', got 'CL 14'");
  EXPECT_EQ(f.problems[2].message, "expected 'key = value' or '[section]', got '= 3'");
  EXPECT_EQ(f.problems[3].line, 4);
  EXPECT_TRUE(f.entries.empty());
}

TEST(IniFile, KeysBeforeAnySectionHaveAnEmptySection) {
  IniFile f = parse_ini("stray = 1\r\n[other]\n");
  ASSERT_EQ(f.entries.size(), 1u);
  EXPECT_EQ(f.entries[0].section, "");
  EXPECT_EQ(f.entries[0].value, "1");  // the \r of a Windows line end is trimmed
}

TEST(IniFile, ShowsUnprintableBytesAsQuestionMarks) {
  IniFile f = parse_ini(std::string("\x01\x02garbage\n", 10));
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_EQ(f.problems[0].message, "expected 'key = value' or '[section]', got '??garbage'");
}

}  // namespace
}  // namespace tessera::hbm
