#include "framework/common/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <tessera/sdk/nearest.hpp>

namespace tessera {

namespace {
std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
}  // namespace

Result<YamlNode> YamlNode::load_string(const std::string& text, const std::string& file) {
  try {
    return YamlNode(YAML::Load(text), file, "");
  } catch (const YAML::Exception& e) {
    return input_error(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                       std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
}

Result<YamlNode> YamlNode::load_file(const std::string& file) {
  try {
    return YamlNode(YAML::LoadFile(file), file, "");
  } catch (const YAML::BadFile&) {
    return input_error(file + ": cannot open the file (does it exist and is it readable?)",
                       StatusCode::not_found);
  } catch (const YAML::Exception& e) {
    return input_error(file + ":" + std::to_string(e.mark.line + 1) + ":" +
                       std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
}

std::string YamlNode::where() const {
  std::string w = file_;
  if (line() > 0) w += ":" + std::to_string(line());
  w += ": ";
  if (!path_.empty()) w += "'" + path_ + "': ";
  return w;
}

Failure YamlNode::fail(const std::string& what) const {
  return Failure(input_error(where() + what));
}

bool YamlNode::has(const std::string& key) const {
  return node_.IsMap() && node_[key];
}

YamlNode YamlNode::child(const std::string& key) const {
  if (!node_.IsMap()) throw fail("expected a map with key '" + key + "'");
  YAML::Node c = node_[key];
  if (!c) throw fail("missing required key '" + key + "'");
  return YamlNode(c, file_, join_path(path_, key));
}

std::vector<YamlNode> YamlNode::items() const {
  if (!node_.IsSequence()) throw fail("expected a list");
  std::vector<YamlNode> out;
  for (size_t i = 0; i < node_.size(); ++i)
    out.emplace_back(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
  return out;
}

std::vector<std::pair<std::string, YamlNode>> YamlNode::entries() const {
  if (!node_.IsMap()) throw fail("expected a map");
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
  if (!node_.IsScalar()) throw fail("expected a single value");
  return node_.Scalar();
}

int64_t YamlNode::as_int(int64_t min, int64_t max) const {
  std::string text = as_string();
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw fail("expected a whole number, got '" + text + "'");
  if (v < min || v > max)
    throw fail("must be in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
               text);
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
    std::string message = "unknown key '" + key + "'";
    std::string near = sdk::nearest(key, allowed);
    if (!near.empty()) message += " (did you mean '" + near + "'?)";
    std::string valid;
    for (const auto& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
    throw value.fail(message + "; valid keys: " + valid);
  }
}

}  // namespace tessera
