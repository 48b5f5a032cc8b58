#include "layout_text.hpp"

#include <tessera/plugin_abi.h>

#include <cctype>
#include <tessera/sdk/error.hpp>

namespace tessera::plugins::tree {

namespace {

constexpr size_t kMaxItemsPerGroup = 64;

bool is_address_name(const std::string& name) {
  return name.size() == 4 && std::tolower(static_cast<unsigned char>(name[0])) == 'a' &&
         std::tolower(static_cast<unsigned char>(name[1])) == 'd' &&
         std::tolower(static_cast<unsigned char>(name[2])) == 'd' &&
         std::tolower(static_cast<unsigned char>(name[3])) == 'r';
}

ItemText parse_item(TextCursor& in) {
  ItemText item;
  in.skip_blanks();
  item.column = in.column();
  item.broadcast = in.accept('*');
  item.divisions = in.number(item.broadcast ? "a number of copies after '*'"
                                            : "an item: divisions_Level:stride, e.g. 2_A:2");
  in.expect('_', "'_' between the divisions and the level name (e.g. 2_A:2)");
  const std::string kLevel = "expected a level name or 'Addr' after '_' (e.g. 2_A:1, 25_Addr:1)";
  std::string first = in.word(kLevel);
  if (!is_address_name(first)) {
    item.levels.push_back(first);
    while (in.accept('*')) item.levels.push_back(in.word(kLevel));
  }
  in.expect(':', "':' and a stride after '" + first + "' (e.g. 2_" + first + ":1)");
  item.stride = in.number("a stride after ':'");
  return item;
}

GroupText parse_group(TextCursor& in, size_t index) {
  GroupText group;
  in.skip_blanks();
  group.column = in.column();
  in.expect('(', "'(' to open the group of axis " + std::to_string(index));
  do {
    if (group.items.size() == kMaxItemsPerGroup)
      throw sdk::invalid_argument(at_column(in.column(), "at most 64 items in one axis group"));
    group.items.push_back(parse_item(in));
  } while (in.accept(','));
  in.skip_blanks();
  group.close_column = in.column();
  in.expect(')', "',' or ')' after an item");
  return group;
}

}  // namespace

std::string at_column(uint32_t column, const std::string& message) {
  return "column " + std::to_string(column) + ": " + message;
}

LayoutText parse_layout_text(std::string_view text) {
  TextCursor in(text);
  in.skip_blanks();
  if (in.at_end() || in.peek() == '#')
    in.fail("expected a layout such as ((2_A:2, 25_Addr:25), (2_B:1, 25_Addr:1))");
  LayoutText layout;
  in.expect('(', "'(' to open the layout");
  do {
    if (layout.groups.size() == TESSERA_MAX_RANKS)
      throw sdk::invalid_argument(
          at_column(in.column(), "at most " + std::to_string(TESSERA_MAX_RANKS) + " axis groups"));
    layout.groups.push_back(parse_group(in, layout.groups.size()));
  } while (in.accept(','));
  in.expect(')', "',' or ')' after an axis group");
  if (in.accept('@')) {
    layout.base_column = in.column() - 1;
    layout.base_address = in.number("a base address after '@'");
  }
  in.skip_blanks();
  layout.end_column = in.column();
  if (in.accept('#')) layout.comment = in.rest();
  if (!in.at_end()) in.fail("expected the end of the layout (or '@' base, '#' comment)");
  return layout;
}

std::string format_layout_text(const LayoutText& layout) {
  std::string out = "(";
  for (size_t g = 0; g < layout.groups.size(); ++g) {
    out += g == 0 ? "(" : ", (";
    const auto& items = layout.groups[g].items;
    for (size_t i = 0; i < items.size(); ++i) {
      const ItemText& item = items[i];
      if (i > 0) out += ", ";
      if (item.broadcast) out += "*";
      out += std::to_string(item.divisions) + "_";
      if (item.levels.empty()) out += "Addr";
      for (size_t l = 0; l < item.levels.size(); ++l) out += (l > 0 ? "*" : "") + item.levels[l];
      out += ":" + std::to_string(item.stride);
    }
    out += ")";
  }
  out += ")";
  if (layout.base_address != 0) out += "@" + std::to_string(layout.base_address);
  return out;
}

}  // namespace tessera::plugins::tree
