// JSON text from documents whose strings and keys may not be UTF-8: valid JSON that tells the
// bytes.
#include "framework/common/json_text.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(JsonText, Utf8DocumentsAreDumpedAsNlohmannDoes) {
  nlohmann::json doc = {{"name", "Größe"}, {"cores", 4}};
  EXPECT_EQ(json_text(doc), doc.dump());
  EXPECT_EQ(json_text(doc, 2), doc.dump(2));
}

TEST(JsonText, BadBytesInStringsAndKeysAreEscaped) {
  nlohmann::json doc = {{"chip", "ipu\xff"}, {"k\xfe", {"a", "b\xc3"}}};
  std::string text = json_text(doc);
  EXPECT_EQ(text, R"({"chip":"ipu\\xFF","k\\xFE":["a","b\\xC3"]})");
  nlohmann::json back = nlohmann::json::parse(text);
  EXPECT_EQ(back["chip"], "ipu\\xFF");
}

}  // namespace
}  // namespace tessera
