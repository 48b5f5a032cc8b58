#include "layout.hpp"

#include <algorithm>
#include <map>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/nearest.hpp>

namespace tessera::plugins::tree {

namespace {

// Copies are materialised as offsets; more than this is surely a mistake.
constexpr uint64_t kMaxCopies = 1u << 22;

[[noreturn]] void fail_at(uint32_t column, const std::string& message,
                          tessera_status_code code = TESSERA_INVALID_ARGUMENT) {
  throw sdk::Error(code, at_column(column, message));
}

std::string product_text(const std::vector<uint64_t>& factors) {
  std::string text;
  for (uint64_t f : factors) text += (text.empty() ? "" : " x ") + std::to_string(f);
  return text.empty() ? "1" : text;
}

}  // namespace

TreeLayout::TreeLayout(std::shared_ptr<const TreeChip> chip, const LayoutText& text,
                       std::vector<uint64_t> shape)
    : chip_(std::move(chip)),
      shape_(std::move(shape)),
      canonical_(text),
      base_address_(text.base_address) {
  if (canonical_.groups.size() != shape_.size()) {
    uint32_t column = canonical_.groups.size() > shape_.size()
                          ? canonical_.groups[shape_.size()].column
                          : canonical_.end_column - 1;
    fail_at(column, "the layout has " + std::to_string(canonical_.groups.size()) +
                        " axis groups but the tensor has " + std::to_string(shape_.size()) +
                        " axes: give one group per axis");
  }
  resolve();
  check_order();
  check_coverage();
  for (uint32_t u = 0; u < units_.size(); ++u) check_unit(u);
  check_addresses();
  build_copies();
}

// ---- Resolving names ---------------------------------------------------------------------------

std::vector<std::vector<std::vector<uint32_t>>> TreeLayout::resolve_names() {
  std::vector<std::vector<std::vector<uint32_t>>> levels(canonical_.groups.size());
  for (size_t g = 0; g < canonical_.groups.size(); ++g) {
    for (ItemText& item : canonical_.groups[g].items) {
      if (item.divisions == 0) fail_at(item.column, "divisions must be at least 1");
      std::vector<uint32_t> named;
      for (std::string& name : item.levels) {
        auto level = chip_->find_level(name);
        if (!level) {
          std::string message = "unknown level '" + name + "'; this chip's levels are " +
                                chip_->level_list() + ", and Addr for the memory address";
          std::string near = sdk::nearest(name, chip_->all_names());
          if (!near.empty()) message += " (did you mean '" + near + "'?)";
          fail_at(item.column, message);
        }
        if (!named.empty() && *level != named.back() + 1)
          fail_at(item.column, "a merged level must name adjacent levels top down, e.g. " +
                                   chip_->level(0).name + "*" +
                                   chip_->level(std::min(1u, chip_->lowest_level())).name +
                                   " (this chip: " + chip_->level_list() + ")");
        name = chip_->level(*level).name;
        named.push_back(*level);
      }
      levels[g].push_back(std::move(named));
    }
  }
  return levels;
}

void TreeLayout::resolve() {
  auto levels = resolve_names();
  // The deepest level named holds the data.
  memory_level_ = chip_->lowest_level();
  uint32_t memory_column = 0;
  bool any_named = false;
  for (size_t g = 0; g < levels.size(); ++g)
    for (size_t i = 0; i < levels[g].size(); ++i)
      if (!levels[g][i].empty() && (!any_named || levels[g][i].back() > memory_level_)) {
        memory_level_ = levels[g][i].back();
        memory_column = canonical_.groups[g].items[i].column;
        any_named = true;
      }
  if (chip_->capacity_elements(memory_level_) == 0)
    fail_at(memory_column, "level " + chip_->level(memory_level_).name +
                               " has no memory for the data (the deepest level a layout names "
                               "holds it); also name a lower level with memory, e.g. 1_" +
                               chip_->level(chip_->lowest_level()).name + ":0");
  build_units(levels);
}

void TreeLayout::build_units(const std::vector<std::vector<std::vector<uint32_t>>>& levels) {
  // Each level belongs to one span; a span named as `chip*group` must be named so everywhere.
  std::vector<std::pair<uint32_t, uint32_t>> span(memory_level_ + 1, {UINT32_MAX, 0});
  std::vector<uint32_t> span_column(memory_level_ + 1, 0);
  for (size_t g = 0; g < levels.size(); ++g)
    for (size_t i = 0; i < levels[g].size(); ++i) {
      if (levels[g][i].empty()) continue;
      std::pair<uint32_t, uint32_t> mine{levels[g][i].front(), levels[g][i].back()};
      uint32_t column = canonical_.groups[g].items[i].column;
      for (uint32_t k = mine.first; k <= mine.second; ++k) {
        if (span[k].first != UINT32_MAX && span[k] != mine)
          fail_at(column, "level " + chip_->level(k).name +
                              " is named differently here and at column " +
                              std::to_string(span_column[k]) +
                              "; merge it with the same levels in every axis");
        span[k] = mine;
        if (span_column[k] == 0) span_column[k] = column;
      }
    }
  std::vector<int32_t> unit_of(memory_level_ + 1);
  for (uint32_t k = 0; k <= memory_level_;) {
    Unit unit;
    unit.first_level = k;
    unit.last_level = span[k].first == UINT32_MAX ? k : span[k].second;
    for (uint32_t j = unit.first_level; j <= unit.last_level; ++j) {
      unit.blocks *= chip_->level(j).fanout;
      unit_of[j] = static_cast<int32_t>(units_.size());
    }
    unit.core_weight = chip_->nodes_below(unit.last_level, memory_level_);
    units_.push_back(unit);
    k = unit.last_level + 1;
  }
  unit_items_.assign(units_.size() + 1, {});
  axes_.resize(shape_.size());
  for (size_t g = 0; g < levels.size(); ++g) {
    axes_[g].extent = shape_[g];
    for (size_t i = 0; i < levels[g].size(); ++i) {
      const ItemText& text = canonical_.groups[g].items[i];
      Item item{text.divisions, text.stride, text.broadcast, kAddressUnit, 1, text.column};
      if (!levels[g][i].empty()) item.unit = unit_of[levels[g][i].front()];
      unit_items_[item.unit == kAddressUnit ? units_.size() : static_cast<size_t>(item.unit)]
          .emplace_back(static_cast<uint32_t>(g), static_cast<uint32_t>(i));
      axes_[g].items.push_back(item);
    }
  }
}

std::string TreeLayout::unit_name(uint32_t unit) const {
  std::string name;
  for (uint32_t k = units_[unit].first_level; k <= units_[unit].last_level; ++k)
    name += (name.empty() ? "" : "*") + chip_->level(k).name;
  return name;
}

// ---- Checks ------------------------------------------------------------------------------------

void TreeLayout::check_order() {
  const auto addr_key = static_cast<int32_t>(units_.size());
  for (uint32_t a = 0; a < axes_.size(); ++a) {
    const std::string axis = "axis " + std::to_string(a);
    int32_t last_key = -1;
    uint32_t addr_column = 0;
    std::map<int32_t, uint32_t> seen[2];  // key -> column, for unmarked and broadcast items
    for (const Item& item : axes_[a].items) {
      int32_t key = item.unit == kAddressUnit ? addr_key : item.unit;
      std::string name = key == addr_key ? "Addr" : unit_name(static_cast<uint32_t>(key));
      if (addr_column != 0)
        fail_at(item.column, "nothing may follow the Addr item of " + axis + " (column " +
                                 std::to_string(addr_column) + "): it comes last");
      if (key < last_key)
        fail_at(item.column, "'" + name + "' comes after a lower level in " + axis +
                                 "; list the items top down (" + chip_->level_list() +
                                 "), Addr last");
      auto& kind = seen[item.broadcast ? 1 : 0];
      if (auto it = kind.find(key); it != kind.end())
        fail_at(item.column, axis + " names '" + name + "' twice" +
                                 (item.broadcast ? " for copies" : "") + " (also at column " +
                                 std::to_string(it->second) + ")");
      kind[key] = item.column;
      last_key = key;
      if (key == addr_key && !item.broadcast) addr_column = item.column;
    }
    if (addr_column == 0)
      fail_at(canonical_.groups[a].close_column,
              axis +
                  " ends without its Addr item; end every axis group with "
                  "divisions_Addr:stride (e.g. 25_Addr:1)");
  }
}

void TreeLayout::check_coverage() {
  for (uint32_t a = 0; a < axes_.size(); ++a) {
    Axis& axis = axes_[a];
    std::vector<uint64_t> factors;
    uint64_t below = 1;
    for (auto it = axis.items.rbegin(); it != axis.items.rend(); ++it) {
      if (it->broadcast) continue;
      it->elements_per_block = below;
      below = saturating_mul(below, it->divisions);
      factors.insert(factors.begin(), it->divisions);
    }
    axis.padded_extent = below;
    uint32_t column = canonical_.groups[a].column;
    if (axis.extent == 0)
      fail_at(column, "axis " + std::to_string(a) +
                          " of the tensor has extent 0; every axis needs at least 1 element");
    if (axis.padded_extent < axis.extent)
      fail_at(column, "axis " + std::to_string(a) + " covers " +
                          std::to_string(axis.padded_extent) + " elements (" +
                          product_text(factors) + ") but the tensor has " +
                          std::to_string(axis.extent) +
                          " there; the divisions of an axis must multiply to at least its "
                          "extent (the rest is padding)");
  }
}

const std::vector<std::pair<uint32_t, uint32_t>>& TreeLayout::items_of(int32_t unit) const {
  return unit_items_[unit == kAddressUnit ? units_.size() : static_cast<size_t>(unit)];
}

StrideSum TreeLayout::sum_of(int32_t unit) const {
  std::vector<StrideSum::Term> terms;
  for (auto [a, i] : items_of(unit)) {
    const Item& item = axes_[a].items[i];
    terms.push_back({item.divisions, item.stride});
  }
  return StrideSum(std::move(terms));
}

const StrideSum& TreeLayout::solver(int32_t unit) const {
  return unit_sums_[unit == kAddressUnit ? units_.size() : static_cast<size_t>(unit)];
}

// Throws when two quotient vectors of `sum` give one value. `what` names the level or Addr.
void TreeLayout::check_distinct(int32_t unit, const StrideSum& sum, const std::string& what,
                                const std::string& collides) const {
  const auto& refs = items_of(unit);
  auto column_of = [&](size_t k) { return axes_[refs[k].first].items[refs[k].second].column; };
  if (!sum.decidable())
    fail_at(column_of(0), what +
                              ": the strides of these items are too irregular to check; "
                              "use strides where each exceeds what the smaller ones reach "
                              "(e.g. 1, 2, 4 for 2 x 2 x 2 divisions)");
  auto collision = sum.collision();
  if (!collision) return;
  auto [first, second] = *collision;
  if (first == second)
    fail_at(column_of(first),
            what + ": stride 0 with " +
                std::to_string(axes_[refs[first].first].items[refs[first].second].divisions) +
                " divisions " + collides + "; use a stride of at least 1");
  fail_at(column_of(second), what + ": the items at columns " + std::to_string(column_of(first)) +
                                 " and " + std::to_string(column_of(second)) + " " + collides +
                                 "; give every division its own place (e.g. strides 2 and 1 "
                                 "for 2 x 2 divisions)");
}

// The column of the item of `unit` that reaches farthest, for range errors.
uint32_t TreeLayout::farthest_column(int32_t unit) const {
  uint32_t column = canonical_.end_column;
  uint64_t farthest = 0;
  for (auto [a, i] : items_of(unit)) {
    const Item& item = axes_[a].items[i];
    uint64_t reach = saturating_mul(item.divisions - 1, item.stride);
    if (reach >= farthest) farthest = reach, column = item.column;
  }
  return column;
}

void TreeLayout::check_unit(uint32_t u) {
  const auto unit = static_cast<int32_t>(u);
  StrideSum sum = sum_of(unit);
  const Unit& un = units_[u];
  std::string what = "level " + unit_name(u);
  std::string blocks = std::to_string(un.blocks) + " blocks" +
                       (un.first_level > 0 ? " under each parent" : "") + " (" + unit_name(u) +
                       "0.." + unit_name(u) + std::to_string(un.blocks - 1) + ")";
  if (sum.positions() > un.blocks) {
    std::vector<uint64_t> factors;
    for (auto [a, i] : items_of(unit))
      if (axes_[a].items[i].divisions > 1) factors.push_back(axes_[a].items[i].divisions);
    fail_at(farthest_column(unit), what + ": the items divide it into " +
                                       std::to_string(sum.positions()) + " (" +
                                       product_text(factors) + ") but it has " + blocks);
  }
  if (sum.max_value() >= un.blocks)
    fail_at(farthest_column(unit), what + ": block ids reach " + std::to_string(sum.max_value()) +
                                       " but it has " + blocks +
                                       "; lower this item's stride or divisions");
  check_distinct(unit, sum, what, "put two index blocks on one block");
  unit_sums_.push_back(std::move(sum));
}

void TreeLayout::check_addresses() {
  StrideSum sum = sum_of(kAddressUnit);
  check_distinct(kAddressUnit, sum, "Addr", "put two elements on one address");
  const TreeLevel& memory = chip_->level(memory_level_);
  uint64_t capacity = chip_->capacity_elements(memory_level_);
  address_end_ = saturating_add(saturating_add(base_address_, sum.max_value()), 1);
  addresses_per_block_ = sum.positions();
  if (address_end_ > capacity) {
    uint32_t column = sum.max_value() >= capacity || canonical_.base_column == 0
                          ? farthest_column(kAddressUnit)
                          : canonical_.base_column;
    fail_at(column,
            "addresses reach " + std::to_string(address_end_ - 1) + " but one " + memory.name +
                " memory holds " + std::to_string(capacity) + " elements (" +
                std::to_string(memory.memory_bytes) + " B at " +
                std::to_string(chip_->element_bytes()) +
                " B per element); split the tensor over more blocks or name a level with more "
                "memory",
            TESSERA_RESOURCE_EXHAUSTED);
  }
  unit_sums_.push_back(std::move(sum));
}

void TreeLayout::build_copies() {
  copy_offsets_ = {Place{}};
  for (const Axis& axis : axes_)
    for (const Item& item : axis.items) {
      if (!item.broadcast || item.divisions == 1) continue;
      if (saturating_mul(copy_offsets_.size(), item.divisions) > kMaxCopies)
        fail_at(item.column, "more than " + std::to_string(kMaxCopies) +
                                 " copies of every element; broadcast over fewer blocks");
      std::vector<Place> more;
      more.reserve(copy_offsets_.size() * item.divisions);
      for (uint64_t q = 0; q < item.divisions; ++q)
        for (const Place& p : copy_offsets_) {
          Place next = p;
          if (item.unit == kAddressUnit)
            next.address += q * item.stride;
          else
            next.core += q * item.stride * units_[static_cast<size_t>(item.unit)].core_weight;
          more.push_back(next);
        }
      copy_offsets_ = std::move(more);
    }
  copies_ = copy_offsets_.size();
}

// ---- Counting ----------------------------------------------------------------------------------

uint64_t TreeLayout::elements() const {
  uint64_t n = 1;
  for (uint64_t e : shape_) n = saturating_mul(n, e);
  return n;
}

uint64_t TreeLayout::padded_elements() const {
  uint64_t n = 1;
  for (const Axis& axis : axes_) n = saturating_mul(n, axis.padded_extent);
  return n;
}

// ---- Locating ----------------------------------------------------------------------------------

uint64_t TreeLayout::core_term(uint32_t axis, uint64_t i) const {
  uint64_t core = 0;
  for (const Item& item : axes_[axis].items) {
    if (item.broadcast || item.unit == kAddressUnit) continue;
    uint64_t q = (i / item.elements_per_block) % item.divisions;
    core += q * item.stride * units_[static_cast<size_t>(item.unit)].core_weight;
  }
  return core;
}

uint64_t TreeLayout::address_term(uint32_t axis, uint64_t i) const {
  uint64_t address = 0;
  for (const Item& item : axes_[axis].items) {
    if (item.broadcast || item.unit != kAddressUnit) continue;
    address += ((i / item.elements_per_block) % item.divisions) * item.stride;
  }
  return address;
}

std::vector<std::vector<uint64_t>> TreeLayout::decompose(const uint64_t* index) const {
  std::vector<std::vector<uint64_t>> out(rank());
  for (uint32_t a = 0; a < rank(); ++a)
    for (const Item& item : axes_[a].items)
      if (!item.broadcast) out[a].push_back((index[a] / item.elements_per_block) % item.divisions);
  return out;
}

TreeLayout::Place TreeLayout::place(const uint64_t* index) const {
  Place p{0, base_address_};
  for (uint32_t a = 0; a < rank(); ++a) {
    p.core += core_term(a, index[a]);
    p.address += address_term(a, index[a]);
  }
  return p;
}

tessera_location TreeLayout::locate(const uint64_t* index) const {
  for (uint32_t a = 0; a < rank(); ++a)
    if (index[a] >= shape_[a])
      throw sdk::invalid_argument("index " + std::to_string(index[a]) + " on axis " +
                                  std::to_string(a) + " is out of range (the extent is " +
                                  std::to_string(shape_[a]) + ")");
  return location_of(place(index));
}

tessera_location TreeLayout::location_of(const Place& p) const {
  tessera_location out{};
  out.num_levels = memory_level_ + 1;
  out.core = static_cast<uint32_t>(p.core);
  out.address = p.address;
  uint64_t core = p.core;
  for (uint32_t k = memory_level_ + 1; k-- > 0;) {
    uint32_t fanout = chip_->level(k).fanout;
    out.blocks[k] = static_cast<uint32_t>(core % fanout);
    core /= fanout;
  }
  return out;
}

uint64_t TreeLayout::core_of(const tessera_location& location) const {
  uint64_t core = 0;
  for (uint32_t k = 0; k <= memory_level_; ++k)
    core = core * chip_->level(k).fanout + location.blocks[k];
  return core;
}

void TreeLayout::inverse(const tessera_location& location, uint64_t* index) const {
  std::string why;
  if (!try_inverse(location, index, &why)) throw sdk::invalid_argument(why);
}

bool TreeLayout::try_inverse(const tessera_location& location, uint64_t* index,
                             std::string* why) const {
  auto fail = [&](const std::string& reason) {
    *why = reason;
    return false;
  };
  if (location.num_levels != memory_level_ + 1)
    return fail("the location has " + std::to_string(location.num_levels) +
                " levels but this layout keeps its data at level " +
                chip_->level(memory_level_).name + ", so it needs " +
                std::to_string(memory_level_ + 1) + " (top down to " +
                chip_->level(memory_level_).name + ")");
  for (uint32_t k = 0; k <= memory_level_; ++k)
    if (location.blocks[k] >= chip_->level(k).fanout)
      return fail("block " + chip_->level(k).name + std::to_string(location.blocks[k]) +
                  " does not exist (" + chip_->level(k).name + " has " +
                  std::to_string(chip_->level(k).fanout) + " blocks" +
                  (k > 0 ? " under each parent)" : ")"));
  uint64_t axis_index[TESSERA_MAX_RANKS] = {};
  uint64_t q[TESSERA_MAX_RANKS * 2];  // a unit has at most one plain and one copy item per axis
  auto add_quotients = [&](int32_t unit, uint64_t value) {
    const auto& refs = items_of(unit);
    if (!solver(unit).solve(value, q)) return false;
    for (size_t k = 0; k < refs.size(); ++k) {
      const Item& item = axes_[refs[k].first].items[refs[k].second];
      if (!item.broadcast) axis_index[refs[k].first] += q[k] * item.elements_per_block;
    }
    return true;
  };
  for (uint32_t u = 0; u < units_.size(); ++u) {
    uint64_t value = 0;
    for (uint32_t k = units_[u].first_level; k <= units_[u].last_level; ++k)
      value = value * chip_->level(k).fanout + location.blocks[k];
    if (!add_quotients(static_cast<int32_t>(u), value))
      return fail("this layout stores nothing at block " + unit_name(u) + std::to_string(value));
  }
  auto where = [&] { return "address " + std::to_string(location.address); };
  if (location.address < base_address_)
    return fail("this layout stores nothing at " + where() + " (its base is " +
                std::to_string(base_address_) + ")");
  if (!add_quotients(kAddressUnit, location.address - base_address_))
    return fail("this layout stores nothing at " + where());
  for (uint32_t a = 0; a < rank(); ++a)
    if (axis_index[a] >= shape_[a])
      return fail(where() + " holds padding: index " + std::to_string(axis_index[a]) + " on axis " +
                  std::to_string(a) + " is past the extent " + std::to_string(shape_[a]));
  std::copy(axis_index, axis_index + rank(), index);
  return true;
}

}  // namespace tessera::plugins::tree
