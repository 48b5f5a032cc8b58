// User text in messages: control characters, broken UTF-8 and direction overrides are escaped,
// printable text (accents, CJK) is kept, and long text is cut.
#include "framework/common/user_text.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(UserText, PrintableTextIsKept) {
  EXPECT_EQ(printable("layers.0.q_proj"), "layers.0.q_proj");
  EXPECT_EQ(printable("Größe 名前 — ok"), "Größe 名前 — ok");
  EXPECT_EQ(in_quotes("x y"), "'x y'");
}

TEST(UserText, ControlCharactersAndBrokenUtf8AreEscaped) {
  EXPECT_EQ(printable("a\nb"), "a\\x0Ab");
  EXPECT_EQ(printable(std::string("cut\0here", 8)), "cut\\x00here");
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1B[31mred");
  EXPECT_EQ(printable("del\x7f"), "del\\x7F");
  EXPECT_EQ(printable("\xff\xfe"), "\\xFF\\xFE");
  EXPECT_EQ(printable("\xc3"), "\\xC3") << "a sequence cut short";
  EXPECT_EQ(printable("\xc0\xaf"), "\\xC0\\xAF") << "an overlong '/'";
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xED\\xA0\\x80") << "a UTF-16 surrogate";
  EXPECT_EQ(printable("\xc2\x85"), "\\u0085") << "C1 control NEL";
}

TEST(UserText, DirectionAndLineControlsAreEscaped) {
  EXPECT_EQ(printable("abc\u202Edef"), "abc\\u202Edef");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(printable("\u2066x\u2069"), "\\u2066x\\u2069");
  EXPECT_EQ(printable("a\u2028b"), "a\\u2028b");  // LINE SEPARATOR
  EXPECT_EQ(printable("\u200F"), "\\u200F");
}

TEST(UserText, LongTextIsCutWithAnEllipsis) {
  EXPECT_EQ(printable(std::string(500, 'x')), std::string(200, 'x') + "…");
  EXPECT_EQ(printable("abcdef", 3), "abc…");
  EXPECT_EQ(printable("ab\ncd", 4), "ab…") << "an escape is never cut in half";
  EXPECT_EQ(printable("名前です", 2), "名前…") << "characters, not bytes";
  EXPECT_EQ(printable("abc", 3), "abc");
}

TEST(UserText, ValidUtf8EscapesOnlyTheBadBytes) {
  EXPECT_EQ(valid_utf8("Größe 名前"), "Größe 名前");
  EXPECT_EQ(valid_utf8("a\nb\x7f"), "a\nb\x7f") << "controls are valid UTF-8: JSON escapes them";
  EXPECT_EQ(valid_utf8("chip\xff"), "chip\\xFF");
  EXPECT_EQ(valid_utf8("\xc3"), "\\xC3") << "a sequence cut short";
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\\xC0\\xAF") << "an overlong '/'";
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\\xED\\xA0\\x80") << "a UTF-16 surrogate";
  EXPECT_EQ(valid_utf8(std::string(300, 'x')), std::string(300, 'x')) << "never cut";
}

TEST(UserText, WholeNumberRefusesWhatIsNotOne) {
  EXPECT_EQ(whole_number("0"), 0U);
  EXPECT_EQ(whole_number("1471"), 1471U);
  EXPECT_EQ(whole_number("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(whole_number("18446744073709551616"), std::nullopt) << "one past UINT64_MAX";
  EXPECT_EQ(whole_number("99999999999999999999999"), std::nullopt);
  EXPECT_EQ(whole_number("5", 4), std::nullopt);
  EXPECT_EQ(whole_number("4", 4), 4U);
  EXPECT_EQ(whole_number(""), std::nullopt);
  EXPECT_EQ(whole_number("-1"), std::nullopt);
  EXPECT_EQ(whole_number("+1"), std::nullopt);
  EXPECT_EQ(whole_number(" 1"), std::nullopt);
  EXPECT_EQ(whole_number("1e3"), std::nullopt);
}

}  // namespace
}  // namespace tessera
