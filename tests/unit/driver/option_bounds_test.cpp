// The one table of number bounds the CLI and the Python module share: each option found once, and
// the words a value outside its bound gets.
#include "framework/driver/option_bounds.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace tessera::driver {
namespace {

const OptionBound& bound(std::string_view command, std::string_view option) {
  const OptionBound* b = find_option_bound(command, option);
  EXPECT_NE(b, nullptr) << option;
  return *b;
}

TEST(OptionBounds, EachOptionOfACommandHasOneNonEmptyBound) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const OptionBound& b : option_bounds()) {
    EXPECT_TRUE(seen.insert({b.command, b.option}).second) << b.command << " " << b.option;
    EXPECT_LT(b.min, b.max) << b.option;
  }
  EXPECT_EQ(find_option_bound("compile", "--no-such-option"), nullptr);
}

TEST(OptionBounds, AWholeNumberMustParseWholeAndLieWithin) {
  const OptionBound& threads = bound("compile", "--threads");
  EXPECT_EQ(range_text(threads), "[1, 1024]");
  EXPECT_EQ(bound_violation(threads, "1"), "");
  EXPECT_EQ(bound_violation(threads, "1024"), "");
  EXPECT_EQ(bound_violation(threads, "0"), "expected a whole number in [1, 1024], got '0'");
  EXPECT_EQ(bound_violation(threads, "2147483647"),
            "expected a whole number in [1, 1024], got '2147483647'");
  EXPECT_EQ(bound_violation(threads, "18446744073709551616"),
            "expected a whole number in [1, 1024], got '18446744073709551616'");
  EXPECT_EQ(bound_violation(threads, "2.0"), "expected a whole number in [1, 1024], got '2.0'");
  EXPECT_EQ(bound_violation(threads, "nan"), "expected a whole number in [1, 1024], got 'nan'");
}

TEST(OptionBounds, ANumberMustBeFiniteAndAboveAnOpenMinimum) {
  const OptionBound& limit = bound("map", "--time-limit");
  EXPECT_EQ(range_text(limit), "(0, 86400]");
  EXPECT_EQ(bound_violation(limit, "0.5"), "");
  EXPECT_EQ(bound_violation(limit, "86400"), "");
  for (const char* text : {"0", "nan", "inf", "-inf", "1e+308", "86400.5", "10s"})
    EXPECT_EQ(bound_violation(limit, text),
              std::string("expected a number in (0, 86400], got '") + text + "'");
  const OptionBound& writes = bound("memsim", "--write-fraction");
  EXPECT_EQ(bound_violation(writes, "0"), "");
  EXPECT_EQ(bound_violation(writes, "1.5"), "expected a number in [0, 1], got '1.5'");
}

TEST(OptionBounds, TheWholeRangeOfASeedIsAccepted) {
  const OptionBound& seed = bound("map", "--seed");
  EXPECT_EQ(bound_violation(seed, "9223372036854775807"), "");
  EXPECT_EQ(bound_violation(seed, "-1"),
            "expected a whole number in [0, 9223372036854775807], got '-1'");
}

}  // namespace
}  // namespace tessera::driver
