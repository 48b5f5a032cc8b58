// The LayoutMapper interface of tree_simd: layout descriptions in JP7770865B2's notation
// (layout.hpp, docs/tree-layouts.md) on the tree its chip-file section describes (tree_chip.hpp).
//
// format() prints the canonical text: the layout normalised, then the text's `# comment` as
// written, or for a text without one `# padding N elements` when the layout pads (the patent's
// auxiliary write). So the canonical text parses back to itself, a chosen layout's too.
// Besides a layout, parse() accepts `choose(PATTERN)` or `choose(PATTERN, N)`: the best (or the
// N-th best) candidate layout for the tensor under an access pattern (layout_chooser.hpp). Its
// format() is the chosen layout followed by a comment with its rank and cost:
//   ((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1)) # choose(stencil3x3) 1 of 9: cost ...
// so hosts that know only the ABI can list and compare candidates. N past the last candidate is
// NOT_FOUND. Rankings are cached per pattern and shape (the methods stay safe to call from many
// threads).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

#include "layout.hpp"
#include "tree_chip.hpp"

namespace tessera::plugins::tree {

// What parse() hands out: a layout, and for a chosen one the comment format() appends.
class MappedLayout final : public sdk::Layout {
 public:
  MappedLayout(std::shared_ptr<const TreeLayout> layout, std::string note)
      : layout_(std::move(layout)), note_(std::move(note)) {}
  const TreeLayout& layout() const { return *layout_; }
  const std::string& note() const { return note_; }

 private:
  std::shared_ptr<const TreeLayout> layout_;
  std::string note_;
};

class TreeLayoutMapper final : public sdk::LayoutMapper {
 public:
  explicit TreeLayoutMapper(const sdk::Params& params);

  std::unique_ptr<sdk::Layout> parse(const std::string& text,
                                     const std::vector<uint64_t>& shape) const override;
  std::string format(const sdk::Layout& layout) const override;
  tessera_location locate(const sdk::Layout& layout, const uint64_t* index) const override;
  void inverse(const sdk::Layout& layout, const tessera_location& location,
               uint64_t* index) const override;
  uint32_t rank(const sdk::Layout& layout) const override;

  const TreeChip& chip() const { return *chip_; }

 private:
  struct Ranked {
    std::shared_ptr<const TreeLayout> layout;
    std::string summary;
  };
  std::unique_ptr<sdk::Layout> choose(const std::string& text,
                                      const std::vector<uint64_t>& shape) const;
  std::vector<Ranked> ranking(const std::string& pattern, const std::vector<uint64_t>& shape,
                              uint32_t pattern_column) const;

  std::shared_ptr<const TreeChip> chip_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, std::vector<uint64_t>>, std::vector<Ranked>> rankings_;
};

}  // namespace tessera::plugins::tree
