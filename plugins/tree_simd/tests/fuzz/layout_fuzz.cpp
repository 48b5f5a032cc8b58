// Fuzz target: the tree layout parser and validator (plugins/tree_simd) must answer any text with a
// layout or an error whose message starts with "column N:", never a crash or hang; an accepted
// layout must print, re-parse to the same text, and invert what it locates.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

#include "layout.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "tree_chip.hpp"

namespace {

using namespace tessera::plugins::tree;

std::vector<std::shared_ptr<const TreeChip>> chips() {
  // JP7770865B2's two-level chip and the 64-PE MN-Core 2 slice with two chips and aliases.
  tessera::sdk::Params mini(std::map<std::string, std::string>{{"chip.fanout", "2"},
                                                               {"group.fanout", "2"},
                                                               {"l2b.fanout", "2"},
                                                               {"l1b.fanout", "2"},
                                                               {"mab.fanout", "2"},
                                                               {"group.alias", "G"}});
  return {patent_example_chip(), std::make_shared<const TreeChip>(mini)};
}

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void exercise(const TreeLayout& layout, const std::shared_ptr<const TreeChip>& chip) {
  std::string text = layout.format();
  check(TreeLayout(chip, parse_layout_text(text), layout.shape()).format() == text);
  std::vector<uint64_t> index(layout.rank()), back(layout.rank());
  for (int corner = 0; corner < 2; ++corner) {
    for (uint32_t a = 0; a < layout.rank(); ++a) index[a] = corner ? layout.shape()[a] - 1 : 0;
    layout.inverse(layout.locate(index.data()), back.data());
    check(back == index);
  }
}

}  // namespace

TESSERA_FUZZ_TARGET(layout)(const uint8_t* data, size_t size) {
  static const auto kChips = chips();
  static const std::vector<std::vector<uint64_t>> kShapes = {{100, 100}, {7}, {3, 5, 2}};
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto& chip : kChips)
    for (const auto& shape : kShapes) {
      try {
        TreeLayout layout(chip, parse_layout_text(text), shape);
        exercise(layout, chip);
      } catch (const tessera::sdk::Error& e) {
        check(std::string(e.what()).rfind("column ", 0) == 0);
      }
    }
  return 0;
}
