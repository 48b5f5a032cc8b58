#include "framework/common/yaml_reader.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Failure& e) {
    return e.error().message;
  }
  return "(no failure)";
}

TEST(YamlReader, SyntaxErrorNamesFileLineAndColumn) {
  auto r = YamlNode::load_string("a: 1\nb: [1, 2\n", "chip.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("chip.yaml:3:", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("invalid YAML"), std::string::npos);
}

TEST(YamlReader, MissingFileIsNotFound) {
  auto r = YamlNode::load_file("/nonexistent/chip.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, StatusCode::not_found);
  EXPECT_EQ(r.error().message,
            "/nonexistent/chip.yaml: cannot open the file (does it exist and is it readable?)");
}

TEST(YamlReader, UnknownKeySuggestsTheNearestAndListsValidOnes) {
  auto root = YamlNode::load_string("name: x\ntopolgy: {}\n", "c.yaml").value();
  EXPECT_EQ(failure_of([&] {
              root.only_keys({"name", "topology"});
            }),
            "c.yaml:2: 'topolgy': unknown key 'topolgy' (did you mean 'topology'?); valid keys: "
            "name, topology");
}

TEST(YamlReader, IntegersAreCheckedWithThePath) {
  auto root = YamlNode::load_string("abi:\n  major: two\n  minor: -1\n", "m.yaml").value();
  EXPECT_EQ(failure_of([&] { (void)root.child("abi").child("major").as_int(); }),
            "m.yaml:2: 'abi.major': expected a whole number, got 'two'");
  EXPECT_EQ(failure_of([&] { (void)root.child("abi").child("minor").as_int(0, 10); }),
            "m.yaml:3: 'abi.minor': must be in [0, 10], got -1");
}

TEST(YamlReader, MissingKeyIsNamed) {
  auto root = YamlNode::load_string("name: x\n", "m.yaml").value();
  EXPECT_EQ(failure_of([&] { (void)root.child("version"); }),
            "m.yaml:1: missing required key 'version'");
}

TEST(YamlReader, StringListAcceptsScalarOrSequence) {
  auto root = YamlNode::load_string("a: one\nb: [x, y]\nc:\n", "m.yaml").value();
  EXPECT_EQ(root.child("a").as_string_list(), std::vector<std::string>{"one"});
  EXPECT_EQ(root.child("b").as_string_list(), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(root.child("c").as_string_list().empty());
}

}  // namespace
}  // namespace tessera
