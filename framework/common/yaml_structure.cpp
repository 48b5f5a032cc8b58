#include "framework/common/yaml_structure.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>
#include <vector>

#include "framework/common/user_text.hpp"

namespace tessera {

namespace {

// An open map or list while the events stream by.
struct Open {
  bool map = false;
  std::string path;                      // key path of this collection ("" for the root)
  YAML::anchor_t anchor = 0;             // its anchor, to size later aliases of it
  size_t events = 0;                     // children seen: a map's alternate key, value, key, ...
  size_t values = 1;                     // values it expands to, itself included
  std::string key;                       // a map: the key whose value comes next
  std::map<std::string, int> key_lines;  // a map: keys given so far, with their lines
};

class StructureCheck : public YAML::EventHandler {
 public:
  explicit StructureCheck(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, ""); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = sizes_.find(anchor);
    size_t size = it == sizes_.end() ? 1 : it->second;
    std::string text = scalars_.count(anchor) ? scalars_[anchor] : "";
    value(mark, size, text, !text.empty());
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& text) override {
    if (anchor != 0) scalars_[anchor] = text;
    leaf(mark, anchor, text);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapEnd() override { close(); }

 private:
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    throw Failure(
        input_error(printable(file_) + ":" + std::to_string(mark.line + 1) + ": " + what));
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, const std::string& text) {
    if (anchor != 0) sizes_[anchor] = 1;
    value(mark, 1, text, true);
  }

  // A value of `size` values arrives in the open collection; `text` is its scalar text.
  void value(const YAML::Mark& mark, size_t size, const std::string& text, bool scalar) {
    total_ += size;
    if (total_ > kMaxYamlValues)
      fail(mark, "the document expands to more than " + std::to_string(kMaxYamlValues) +
                     " values (through aliases of aliases); write the values out instead");
    if (stack_.empty()) return;
    Open& parent = stack_.back();
    parent.values += size;
    bool is_key = parent.map && parent.events++ % 2 == 0;
    if (!parent.map) ++parent.events;
    if (!is_key) return;
    parent.key = scalar ? text : "?";
    if (!scalar) return;
    std::string path = parent.path.empty() ? text : parent.path + "." + text;
    auto [it, fresh] = parent.key_lines.emplace(text, mark.line + 1);
    if (!fresh)
      fail(mark, in_quotes(path) + " is given twice (first on line " + std::to_string(it->second) +
                     "); keep one of them");
  }

  // The path of the value that comes next in the open collection.
  std::string child_path() const {
    if (stack_.empty()) return "";
    const Open& parent = stack_.back();
    if (!parent.map) return parent.path + "[" + std::to_string(parent.events) + "]";
    return parent.path.empty() ? parent.key : parent.path + "." + parent.key;
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    if (static_cast<int>(stack_.size()) >= kMaxYamlDepth)
      fail(mark, in_quotes(child_path()) + " is nested more than " + std::to_string(kMaxYamlDepth) +
                     " levels deep");
    Open o;
    o.map = map;
    o.path = child_path();
    o.anchor = anchor;
    if (!stack_.empty()) {  // counted in the parent when it closes, with what it expands to
      Open& parent = stack_.back();
      bool is_key = parent.map && parent.events % 2 == 0;
      ++parent.events;
      if (is_key) parent.key = "?";
    }
    stack_.push_back(std::move(o));
    ++total_;
  }

  void close() {
    Open o = std::move(stack_.back());
    stack_.pop_back();
    if (o.anchor != 0) sizes_[o.anchor] = o.values;
    if (!stack_.empty()) stack_.back().values += o.values;
  }

  std::string file_;
  std::vector<Open> stack_;
  std::map<YAML::anchor_t, size_t> sizes_;         // values an anchored node expands to
  std::map<YAML::anchor_t, std::string> scalars_;  // anchored scalars, for keys given by alias
  size_t total_ = 0;
};

}  // namespace

Status check_yaml_structure(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  try {
    YAML::Parser parser(in);
    StructureCheck check(file);
    if (!parser.HandleNextDocument(check)) return ok_status();
    StructureCheck ignored(file);
    if (parser.HandleNextDocument(ignored))
      return input_error(printable(file) +
                         ": holds more than one YAML document (a second '---'); give one");
  } catch (const Failure& f) {
    return f.error();
  } catch (const YAML::Exception& e) {
    return input_error(printable(file) + ":" + std::to_string(e.mark.line + 1) + ":" +
                       std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
  }
  return ok_status();
}

}  // namespace tessera
