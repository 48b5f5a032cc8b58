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

TEST(YamlReader, ADuplicatedKeyIsAnError) {
  auto r =
      YamlNode::load_string("name: a\ntopology:\n  cores: 4\n  chips: 1\n  cores: 8\n", "c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "c.yaml:5: 'topology.cores' is given twice (first on line 3); keep one of them");
  auto flow = YamlNode::load_string("a: {x: 1, x: 2}\n", "f.yaml");
  ASSERT_FALSE(flow.ok());
  EXPECT_EQ(flow.error().message,
            "f.yaml:1: 'a.x' is given twice (first on line 1); keep one of them");
  auto in_list = YamlNode::load_string("axes:\n  - {path: a, path: b}\n", "s.yaml");
  ASSERT_FALSE(in_list.ok());
  EXPECT_EQ(in_list.error().message,
            "s.yaml:2: 'axes[0].path' is given twice (first on line 2); keep one of them");
  EXPECT_TRUE(YamlNode::load_string("a: {x: 1}\nb: {x: 1}\nc: [x, x]\n", "ok.yaml").ok())
      << "the same key in two maps, and a value twice in a list, are fine";
}

TEST(YamlReader, DeepNestingIsRefusedWithItsPath) {
  std::string deep = "a: " + std::string(100, '[') + std::string(100, ']') + "\n";
  auto r = YamlNode::load_string(deep, "d.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("d.yaml:1: 'a[0][0]", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("' is nested more than 64 levels deep"), std::string::npos)
      << r.error().message;
  std::string braces(100000, '{');  // deeper than yaml-cpp's own recursion limit
  auto b = YamlNode::load_string(braces, "b.yaml");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("is nested more than 64 levels deep"), std::string::npos)
      << b.error().message;
}

TEST(YamlReader, AliasesThatExpandWithoutBoundAreRefused) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    bomb += std::string(1, c) + ": &" + std::string(1, c) + " [";
    for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  auto r = YamlNode::load_string(bomb, "bomb.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("bomb.yaml:7: the document expands to more than 10000000 "
                                    "values (through aliases of aliases)",
                                    0),
            0u)
      << r.error().message;
  EXPECT_TRUE(YamlNode::load_string("t: &t {a: 1}\nu: *t\nv: *t\n", "ok.yaml").ok())
      << "a few aliases, as chip presets use them, are fine";
}

TEST(YamlReader, ASecondDocumentIsRefused) {
  auto r = YamlNode::load_string("name: a\n---\nname: b\n", "two.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "two.yaml: holds more than one YAML document (a second '---'); give one");
  EXPECT_TRUE(YamlNode::load_string("---\nname: a\n", "one.yaml").ok());
}

TEST(YamlReader, AValueOfTheWrongKindSaysWhatItIs) {
  auto root = YamlNode::load_string("a: {x: 1}\nb: [1]\nc:\nd: {}\n", "k.yaml").value();
  EXPECT_EQ(failure_of([&] { (void)root.child("a").as_int(); }),
            "k.yaml:1: 'a': expected a whole number, got a map");
  EXPECT_EQ(failure_of([&] { (void)root.child("b").as_string(); }),
            "k.yaml:2: 'b': expected a single value, got a list");
  EXPECT_EQ(failure_of([&] { (void)root.child("c").as_int(); }),
            "k.yaml:3: 'c': expected a whole number, got no value");
  EXPECT_EQ(failure_of([&] { (void)root.child("d").items(); }),
            "k.yaml:4: 'd': expected a list, got an empty map");
  EXPECT_EQ(failure_of([&] { (void)root.child("a").child("x").items(); }),
            "k.yaml:1: 'a.x': expected a list, got the value '1'");
}

TEST(YamlReader, QuotedUserTextIsEscaped) {
  auto root = YamlNode::load_string("n: \"a\\nb\\u202E\"\n\"k\\x01\": 1\n", "q.yaml").value();
  EXPECT_EQ(failure_of([&] { (void)root.child("n").as_int(); }),
            "q.yaml:1: 'n': expected a whole number, got 'a\\x0Ab\\u202E'");
  EXPECT_EQ(failure_of([&] { root.only_keys({"n"}); }),
            "q.yaml:2: 'k\\x01': unknown key 'k\\x01' (did you mean 'n'?); valid keys: n");
  auto big = YamlNode::load_string("n: 1" + std::string(400, '0') + "\n", "big.yaml").value();
  EXPECT_EQ(failure_of([&] { (void)big.child("n").as_int(0, 10); }),
            "big.yaml:1: 'n': must be in [0, 10], got 1" + std::string(199, '0') + "…");
}

}  // namespace
}  // namespace tessera
