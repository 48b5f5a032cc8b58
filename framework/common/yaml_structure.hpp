// What yaml-cpp accepts without a word but a reader must refuse, found in one pass over the parse
// events before the document is built (YamlNode::load_string runs it):
//  - a key given twice in one map: yaml-cpp keeps one value silently, so an edit that adds a key
//    already set further up is lost;
//  - nesting deeper than kMaxYamlDepth: readers recurse, and yaml-cpp's own limit says "bad file";
//  - aliases that expand to more than kMaxYamlValues values (the "billion laughs" file): a few
//    lines that every reader walking the tree would expand exponentially;
//  - a second document after `---`, which YAML::Load would ignore.
#pragma once

#include <cstddef>
#include <string>

#include "framework/common/status.hpp"

namespace tessera {

inline constexpr int kMaxYamlDepth = 64;
inline constexpr size_t kMaxYamlValues = 10'000'000;

// OK, or an input error "FILE:LINE: ..." naming the key path and what to change. Syntax errors are
// left to the loader, which reports them with their column.
Status check_yaml_structure(const std::string& text, const std::string& file);

}  // namespace tessera
