// Reading a YAML file into a spec with errors a user can act on: every error names the file, the
// line and the key path, says what was expected and what was found instead (a map where a number
// belongs), and for an unknown key the nearest valid one. Loading refuses what yaml-cpp would take
// silently (yaml_structure.hpp): a key given twice, runaway nesting or aliases, a second document.
// Text from the file is quoted through user_text.hpp.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera {

// A node with where it came from. Cheap to copy (yaml-cpp nodes are handles).
class YamlNode {
 public:
  // `line` (1-based) overrides the node's own mark: yaml-cpp marks an empty value at the next line.
  YamlNode(YAML::Node node, std::string file, std::string path, int line = 0)
      : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), line_(line) {}

  // Parses a file (at most kMaxTextBytes); a syntax error becomes an input Error with file and
  // line.
  static Result<YamlNode> load_file(const std::string& file);
  static Result<YamlNode> load_string(const std::string& text, const std::string& file);

  const YAML::Node& raw() const { return node_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  int line() const { return line_ > 0 ? line_ : node_.Mark().line + 1; }

  // "file:line: key path: " prefix for messages.
  std::string where() const;
  Failure fail(const std::string& what) const;

  bool has(const std::string& key) const;
  YamlNode child(const std::string& key) const;                   // throws Failure if missing
  std::vector<YamlNode> items() const;                            // a sequence's elements
  std::vector<std::pair<std::string, YamlNode>> entries() const;  // a map's entries

  std::string as_string() const;  // a scalar; a map, a list or no value is an error saying so
  int64_t as_int(int64_t min = INT64_MIN, int64_t max = INT64_MAX) const;
  std::vector<std::string> as_string_list() const;  // a scalar or a sequence of scalars

  std::string get_string(const std::string& key, const std::string& fallback) const;
  // Throws Failure for a key not in `allowed`, naming the nearest allowed one.
  void only_keys(const std::vector<std::string>& allowed) const;

 private:
  std::string kind() const;                               // "a map", "no value", ... for messages
  std::string scalar(const std::string& expected) const;  // the scalar, or fail naming `expected`

  YAML::Node node_;
  std::string file_;
  std::string path_;
  int line_ = 0;
};

}  // namespace tessera
