#include "framework/common/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <tessera/sdk/nearest.hpp>

#include "framework/common/files.hpp"
#include "framework/common/user_text.hpp"
#include "framework/common/yaml_structure.hpp"

namespace tessera {

namespace {
std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
}  // namespace

Result<YamlNode> YamlNode::load_string(const std::string& text, const std::string& file) {
  if (Status s = check_yaml_structure(text, file); !s) return s.error();
  try {
    return YamlNode(YAML::Load(text), file, "");
  } catch (const YAML::Exception& e) {
    return input_error(printable(file) + ":" + std::to_string(e.mark.line + 1) + ":" +
                       std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
}

Result<YamlNode> YamlNode::load_file(const std::string& file) {
  auto text = read_file(file, kMaxTextBytes);
  if (!text) return text.error();
  return load_string(*text, file);
}

std::string YamlNode::where() const {
  std::string w = printable(file_);
  if (line() > 0) w += ":" + std::to_string(line());
  w += ": ";
  if (!path_.empty()) w += in_quotes(path_) + ": ";
  return w;
}

std::string YamlNode::kind() const {
  if (node_.IsMap()) return node_.size() == 0 ? "an empty map" : "a map";
  if (node_.IsSequence()) return node_.size() == 0 ? "an empty list" : "a list";
  if (node_.IsScalar()) return "the value " + in_quotes(node_.Scalar());
  return "no value";
}

std::string YamlNode::scalar(const std::string& expected) const {
  if (!node_.IsScalar()) throw fail("expected " + expected + ", got " + kind());
  return node_.Scalar();
}

Failure YamlNode::fail(const std::string& what) const {
  return Failure(input_error(where() + what));
}

bool YamlNode::has(const std::string& key) const {
  return node_.IsMap() && node_[key];
}

YamlNode YamlNode::child(const std::string& key) const {
  if (!node_.IsMap()) throw fail("expected a map with key '" + key + "', got " + kind());
  YAML::Node c = node_[key];
  if (!c) throw fail("missing required key '" + key + "'");
  int line = 0;  // an empty value is marked at the next line: name the key's line instead
  if (c.IsNull())
    for (const auto& kv : node_)
      if (kv.first.IsScalar() && kv.first.Scalar() == key) line = kv.first.Mark().line + 1;
  return YamlNode(c, file_, join_path(path_, key), line);
}

std::vector<YamlNode> YamlNode::items() const {
  if (!node_.IsSequence()) throw fail("expected a list, got " + kind());
  std::vector<YamlNode> out;
  for (size_t i = 0; i < node_.size(); ++i)
    out.emplace_back(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, YamlNode>> YamlNode::entries() const {
  if (!node_.IsMap()) throw fail("expected a map, got " + kind());
  std::vector<std::pair<std::string, YamlNode>> out;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar())
      throw YamlNode(kv.first, file_, path_).fail("keys must be plain names");
    std::string key = kv.first.as<std::string>();
    int line = kv.second.IsNull() ? kv.first.Mark().line + 1 : 0;
    out.emplace_back(key, YamlNode(kv.second, file_, join_path(path_, key), line));
  }
  return out;
}

std::string YamlNode::as_string() const {
  return scalar("a single value");
}

int64_t YamlNode::as_int(int64_t min, int64_t max) const {
  std::string text = scalar("a whole number");
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < min || v > max)))
    throw fail("must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
               printable(text));
  if (ec != std::errc() || end != text.data() + text.size())
    throw fail("expected a whole number, got " + in_quotes(text));
  return v;
}

std::vector<std::string> YamlNode::as_string_list() const {
  if (node_.IsNull()) return {};
  if (node_.IsScalar()) return {node_.Scalar()};
  std::vector<std::string> out;
  for (const auto& item : items()) out.push_back(item.as_string());
  return out;
}

std::string YamlNode::get_string(const std::string& key, const std::string& fallback) const {
  return has(key) ? child(key).as_string() : fallback;
}

void YamlNode::only_keys(const std::vector<std::string>& allowed) const {
  for (const auto& [key, value] : entries()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string message = "unknown key " + in_quotes(key);
    std::string near = sdk::nearest(key, allowed);
    if (!near.empty()) message += " (did you mean '" + near + "'?)";
    std::string valid;
    for (const auto& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    throw value.fail(message + "; valid keys: " + valid);
  }
}

}  // namespace tessera
