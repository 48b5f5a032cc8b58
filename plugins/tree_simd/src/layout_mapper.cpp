#include "layout_mapper.hpp"

#include <tessera/sdk/error.hpp>

#include "layout_chooser.hpp"

namespace tessera::plugins::tree {

namespace {

// Rankings kept per mapper; each holds a few candidates, so a small bound is plenty.
constexpr size_t kMaxRankings = 32;

const MappedLayout& mapped(const sdk::Layout& layout) {
  return static_cast<const MappedLayout&>(layout);
}

// True when `text` is a choose(...) form rather than a layout.
bool is_choose(const std::string& text) {
  size_t start = text.find_first_not_of(" \t");
  return start != std::string::npos && text.compare(start, 6, "choose") == 0;
}

// An error of the chooser, placed at the pattern's column.
[[noreturn]] void rethrow_at(const sdk::Error& e, uint32_t column) {
  std::string message = e.what();
  if (message.rfind("column ", 0) == 0) throw e;
  throw sdk::Error(e.code(), at_column(column, message));
}

}  // namespace

TreeLayoutMapper::TreeLayoutMapper(const sdk::Params& params)
    : chip_(std::make_shared<const TreeChip>(params)) {}

std::unique_ptr<sdk::Layout> TreeLayoutMapper::parse(const std::string& text,
                                                     const std::vector<uint64_t>& shape) const {
  if (is_choose(text)) return choose(text, shape);
  LayoutText parsed = parse_layout_text(text);
  std::string note = parsed.comment;
  auto layout = std::make_shared<const TreeLayout>(chip_, std::move(parsed), shape);
  uint64_t padding = layout->padded_elements() - layout->elements();
  if (note.empty() && padding > 0) note = "padding " + std::to_string(padding) + " elements";
  return std::make_unique<MappedLayout>(std::move(layout), note);
}

std::unique_ptr<sdk::Layout> TreeLayoutMapper::choose(const std::string& text,
                                                      const std::vector<uint64_t>& shape) const {
  TextCursor in(text);
  in.word("expected choose");
  in.expect('(', "'(' after choose");
  in.skip_blanks();
  uint32_t pattern_column = in.column();
  std::string pattern = in.word("expected an access pattern: " + access_pattern_names(), "-");
  uint64_t wanted = 1;
  uint32_t wanted_column = pattern_column;
  if (in.accept(',')) {
    in.skip_blanks();
    wanted_column = in.column();
    wanted = in.number("expected a candidate number (1 is the cheapest)");
  }
  in.expect(')', "')' to close choose(...)");
  if (in.accept('#')) in.skip_to_end();
  if (!in.at_end()) in.fail("expected the end of the text after choose(...)");
  std::vector<Ranked> ranked = ranking(pattern, shape, pattern_column);
  if (wanted == 0 || wanted > ranked.size())
    throw sdk::Error(
        TESSERA_NOT_FOUND,
        at_column(wanted_column, "choose(" + pattern + ") has " + std::to_string(ranked.size()) +
                                     " candidates for this tensor; ask for 1 to " +
                                     std::to_string(ranked.size())));
  const Ranked& r = ranked[wanted - 1];
  return std::make_unique<MappedLayout>(
      r.layout, "choose(" + pattern + ") " + std::to_string(wanted) + " of " +
                    std::to_string(ranked.size()) + ": " + r.summary);
}

std::vector<TreeLayoutMapper::Ranked> TreeLayoutMapper::ranking(const std::string& pattern,
                                                                const std::vector<uint64_t>& shape,
                                                                uint32_t column) const {
  auto key = std::make_pair(pattern, shape);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = rankings_.find(key); it != rankings_.end()) return it->second;
  }
  std::vector<Ranked> ranked;
  try {
    AccessPattern p = parse_access_pattern(pattern, static_cast<uint32_t>(shape.size()));
    for (const LayoutCandidate& c : choose_layouts(chip_, shape, p))
      ranked.push_back({c.layout, c.summary()});
  } catch (const sdk::Error& e) {
    rethrow_at(e, column);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (rankings_.size() >= kMaxRankings) rankings_.clear();
  rankings_.emplace(key, ranked);
  return ranked;
}

std::string TreeLayoutMapper::format(const sdk::Layout& layout) const {
  const MappedLayout& m = mapped(layout);
  std::string text = m.layout().format();
  if (!m.note().empty()) text += " # " + m.note();
  return text;
}

tessera_location TreeLayoutMapper::locate(const sdk::Layout& layout, const uint64_t* index) const {
  return mapped(layout).layout().locate(index);
}

void TreeLayoutMapper::inverse(const sdk::Layout& layout, const tessera_location& location,
                               uint64_t* index) const {
  mapped(layout).layout().inverse(location, index);
}

uint32_t TreeLayoutMapper::rank(const sdk::Layout& layout) const {
  return mapped(layout).layout().rank();
}

}  // namespace tessera::plugins::tree
