// Chips and helpers shared by the tree_simd model tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

#include "layout.hpp"
#include "tree_chip.hpp"

namespace tessera::plugins::tree::test {

inline std::shared_ptr<const TreeChip> patent_chip() {
  return patent_example_chip();
}

// A chip from parameters, as a chip file section gives them.
inline std::shared_ptr<const TreeChip> chip_from(std::map<std::string, std::string> values) {
  sdk::Params params(std::move(values));
  return std::make_shared<const TreeChip>(params);
}

// The 64-PE mncore2-mini tree.
inline std::shared_ptr<const TreeChip> mini_chip() {
  return chip_from(
      {{"group.fanout", "2"}, {"l2b.fanout", "2"}, {"l1b.fanout", "2"}, {"mab.fanout", "2"}});
}

inline TreeLayout layout(std::shared_ptr<const TreeChip> chip, const std::string& text,
                         std::vector<uint64_t> shape) {
  return TreeLayout(std::move(chip), parse_layout_text(text), std::move(shape));
}

// The message a layout gets, or "" when it is accepted.
inline std::string layout_error(std::shared_ptr<const TreeChip> chip, const std::string& text,
                                std::vector<uint64_t> shape) {
  try {
    layout(std::move(chip), text, std::move(shape));
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::plugins::tree::test
