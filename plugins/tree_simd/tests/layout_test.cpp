#include "layout.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "support.hpp"

namespace tessera::plugins::tree {
namespace {

using test::layout;
using test::layout_error;
using test::patent_chip;

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";
constexpr const char* kFig7 = "((4_A:1,25_Addr:25),(4_B:1,25_Addr:1))";

std::vector<uint32_t> blocks_of(const tessera_location& l) {
  return std::vector<uint32_t>(l.blocks, l.blocks + l.num_levels);
}

TEST(PatentExamples, Fig6Layout1LocatesIndex91_36) {
  TreeLayout l = layout(patent_chip(), kFig6, {100, 100});
  const uint64_t index[2] = {91, 36};
  EXPECT_EQ(l.decompose(index), (std::vector<std::vector<uint64_t>>{{1, 1, 16}, {0, 1, 11}}));
  tessera_location where = l.locate(index);
  EXPECT_EQ(blocks_of(where), (std::vector<uint32_t>{2, 3}));  // A2, B3
  EXPECT_EQ(where.address, 411u);
  EXPECT_EQ(where.core, 2u * 4 + 3);
  uint64_t back[2] = {0, 0};
  l.inverse(where, back);
  EXPECT_EQ(back[0], 91u);
  EXPECT_EQ(back[1], 36u);
  EXPECT_EQ(l.format(), kFig6);
  EXPECT_EQ(l.memory_level(), 1u);
  EXPECT_EQ(l.addresses_per_block(), 625u);
}

TEST(PatentExamples, Fig7Layout2LocatesIndex91_36) {
  TreeLayout l = layout(patent_chip(), kFig7, {100, 100});
  const uint64_t index[2] = {91, 36};
  EXPECT_EQ(l.decompose(index), (std::vector<std::vector<uint64_t>>{{3, 16}, {1, 11}}));
  tessera_location where = l.locate(index);
  EXPECT_EQ(blocks_of(where), (std::vector<uint32_t>{3, 1}));  // A3, B1
  EXPECT_EQ(where.address, 411u);
  uint64_t back[2] = {0, 0};
  l.inverse(where, back);
  EXPECT_EQ(back[0], 91u);
  EXPECT_EQ(back[1], 36u);
  EXPECT_EQ(l.format(), "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))");
}

// Fig. 8: in A0 B1, x_{1,26}..x_{1,50} (0-based row 0, columns 25..49) sit at addresses 0..24.
TEST(PatentExamples, Fig8WritePlacement) {
  TreeLayout l = layout(patent_chip(), kFig6, {100, 100});
  for (uint64_t c = 25; c < 50; ++c) {
    const uint64_t index[2] = {0, c};
    tessera_location where = l.locate(index);
    EXPECT_EQ(blocks_of(where), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(where.address, c - 25);
  }
  const uint64_t last[2] = {49, 49};  // x_{50,50} in A0 B3 at 624
  EXPECT_EQ(blocks_of(l.locate(last)), (std::vector<uint32_t>{0, 3}));
  EXPECT_EQ(l.locate(last).address, 624u);
}

TEST(Padding, NonDivisibleShapesArePaddedAndInverseRejectsPadding) {
  TreeLayout l = layout(patent_chip(), kFig6, {99, 97});
  EXPECT_EQ(l.elements(), 99u * 97);
  EXPECT_EQ(l.padded_elements(), 10000u);
  tessera_location pad = l.location_of(l.place(std::vector<uint64_t>{99, 0}.data()));
  uint64_t index[2];
  try {
    l.inverse(pad, index);
    FAIL() << "padding inverted";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "address 600 holds padding: index 99 on axis 0 is past the extent 99");
  }
}

TEST(Broadcast, CopiesLandOnDistinctBlocksAndInvertToTheSameIndex) {
  // A row vector (1 x 100) stored like Fig. 6's tensor: every block holds the columns it needs.
  TreeLayout l =
      layout(patent_chip(), "((*2_A:2, *2_B:2, *25_Addr:25, 1_Addr:0), (2_A:1, 2_B:1, 25_Addr:1))",
             {1, 100});
  EXPECT_EQ(l.copies(), 2u * 2 * 25);
  std::set<std::pair<uint64_t, uint64_t>> places;
  const uint64_t index[2] = {0, 36};
  TreeLayout::Place first = l.place(index);
  for (const auto& offset : l.copy_offsets()) {
    TreeLayout::Place p{first.core + offset.core, first.address + offset.address};
    EXPECT_TRUE(places.insert({p.core, p.address}).second);
    uint64_t back[2];
    l.inverse(l.location_of(p), back);
    EXPECT_EQ(back[1], 36u);
  }
}

TEST(MergedLevels, ChipsTimesGroupsCountAsOneLevel) {
  auto chip = test::chip_from({{"chip.fanout", "4"}});
  TreeLayout l = layout(chip, "((16_chip*group:1, 1_PE:0, 4_Addr:1))", {64});
  const uint64_t index[1] = {4 * 5 + 3};  // chip 1, group 1, address 3
  tessera_location where = l.locate(index);
  EXPECT_EQ(where.blocks[0], 1u);
  EXPECT_EQ(where.blocks[1], 1u);
  EXPECT_EQ(where.address, 3u);
  uint64_t back[1];
  l.inverse(where, back);
  EXPECT_EQ(back[0], index[0]);
}

TEST(Names, AliasesAndCaseResolveToTheChipsNames) {
  auto chip = test::chip_from({{"group.alias", "A"}, {"l1b.alias", "B"}});
  TreeLayout l =
      layout(chip, "((2_a:2, 2_b:2, 1_pe:0, 25_addr:25), (2_A:1, 2_B:1, 25_Addr:1))", {100, 100});
  EXPECT_EQ(l.format(),
            "((2_group:2, 2_L1B:2, 1_PE:0, 25_Addr:25), (2_group:1, 2_L1B:1, 25_Addr:1))");
}

TEST(Base, AddressesStartAtTheBase) {
  TreeLayout l =
      layout(patent_chip(), "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1)) @ 100 # note", {100, 100});
  const uint64_t index[2] = {91, 36};
  EXPECT_EQ(l.locate(index).address, 511u);
  EXPECT_EQ(l.format(), "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))@100");
}

// Every malformed or ill-fitting description gets one message naming its column.
TEST(Errors, SyntaxNamesTheColumn) {
  auto chip = patent_chip();
  std::vector<uint64_t> shape{100, 100};
  auto error = [&](const std::string& text) { return layout_error(chip, text, shape); };
  EXPECT_EQ(error(""),
            "column 1: expected a layout such as ((2_A:2, 25_Addr:25), (2_B:1, 25_Addr:1)), "
            "found the end of the text");
  EXPECT_EQ(error("(2_A:2)"), "column 2: expected '(' to open the group of axis 0, found '2_A:2)'");
  EXPECT_EQ(error("((2A:2, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 4: expected '_' between the divisions and the level name (e.g. 2_A:2), "
            "found 'A:2, 25_Addr...'");
  EXPECT_EQ(
      error("((2_A2, 25_Addr:25), (4_B:1, 25_Addr:1))"),
      "column 7: expected ':' and a stride after 'A2' (e.g. 2_A2:1), found ', 25_Addr:25...'");
  EXPECT_EQ(error("((2_A:, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 7: expected a stride after ':', found ', 25_Addr:25...'");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25) (4_B:1, 25_Addr:1))"),
            "column 22: expected ',' or ')' after an axis group, found '(4_B:1, 25_A...'");
  EXPECT_EQ(error("((4_A:1 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 9: expected ',' or ')' after an item, found '25_Addr:25),...'");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1)) x"),
            "column 43: expected the end of the layout (or '@' base, '#' comment), found 'x'");
  EXPECT_EQ(error("((4_A:1, 25_Addr:99999999999999999999), (4_B:1, 25_Addr:1))"),
            "column 18: number too large (at most 9223372036854775807)");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))@"),
            "column 43: expected a base address after '@', found the end of the text");
}

TEST(Errors, MeaningNamesTheItem) {
  auto chip = patent_chip();
  std::vector<uint64_t> shape{100, 100};
  auto error = [&](const std::string& text) { return layout_error(chip, text, shape); };
  EXPECT_EQ(error("((4_C:1, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 3: unknown level 'C'; this chip's levels are A, B, and Addr for the memory "
            "address (did you mean 'A'?)");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25))"),
            "column 21: the layout has 1 axis groups but the tensor has 2 axes: give one group "
            "per axis");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1), (1_Addr:0))"),
            "column 43: the layout has 3 axis groups but the tensor has 2 axes: give one group "
            "per axis");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25), (4_B:1))"),
            "column 29: axis 1 ends without its Addr item; end every axis group with "
            "divisions_Addr:stride (e.g. 25_Addr:1)");
  EXPECT_EQ(error("((25_Addr:25, 4_A:1), (4_B:1, 25_Addr:1))"),
            "column 15: nothing may follow the Addr item of axis 0 (column 3): it comes last");
  EXPECT_EQ(error("((4_B:1, 25_Addr:25), (4_A:1, 4_A:1, 25_Addr:1))"),
            "column 31: axis 1 names 'A' twice (also at column 24)");
  EXPECT_EQ(error("((2_B:2, 2_A:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))"),
            "column 10: 'A' comes after a lower level in axis 0; list the items top down (A, B), "
            "Addr last");
  EXPECT_EQ(error("((0_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 3: divisions must be at least 1");
  EXPECT_EQ(error("((2_A:2, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 2: axis 0 covers 50 elements (2 x 25) but the tensor has 100 there; the "
            "divisions of an axis must multiply to at least its extent (the rest is padding)");
  EXPECT_EQ(error("((4_A:2, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 3: level A: block ids reach 6 but it has 4 blocks (A0..A3); lower this "
            "item's stride or divisions");
  EXPECT_EQ(error("((4_A:1, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))"),
            "column 3: level A: the items divide it into 8 (4 x 2) but it has 4 blocks "
            "(A0..A3)");
  EXPECT_EQ(error("((2_A:1, 2_B:1, 25_Addr:25), (2_A:1, 2_B:2, 25_Addr:1))"),
            "column 31: level A: the items at columns 3 and 31 put two index blocks on one "
            "block; give every division its own place (e.g. strides 2 and 1 for 2 x 2 "
            "divisions)");
  EXPECT_EQ(error("((4_A:0, 25_Addr:25), (4_B:1, 25_Addr:1))"),
            "column 3: level A: stride 0 with 4 divisions put two index blocks on one block; use "
            "a stride of at least 1");
  EXPECT_EQ(error("((4_A:1, 25_Addr:1), (4_B:1, 25_Addr:1))"),
            "column 30: Addr: the items at columns 10 and 30 put two elements on one address; "
            "give every division its own place (e.g. strides 2 and 1 for 2 x 2 divisions)");
}

TEST(Errors, CapacityIsResourceExhausted) {
  auto chip = patent_chip();  // B memory: 8192 B = 2048 elements of 4 B
  try {
    layout(chip, "((4_A:1, 25_Addr:100), (4_B:1, 25_Addr:1))", {100, 100});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_RESOURCE_EXHAUSTED);
    EXPECT_STREQ(e.what(),
                 "column 10: addresses reach 2424 but one B memory holds 2048 elements (8192 B "
                 "at 4 B per element); split the tensor over more blocks or name a level with "
                 "more memory");
  }
  EXPECT_EQ(layout_error(chip, "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))@1500", {100, 100}),
            "column 42: addresses reach 2124 but one B memory holds 2048 elements (8192 B at 4 "
            "B per element); split the tensor over more blocks or name a level with more memory");
}

TEST(Errors, LevelsWithoutMemoryAndMergedLevels) {
  auto chip = test::mini_chip();
  EXPECT_EQ(layout_error(chip, "((2_group:1, 2_MAB:1, 4_Addr:1))", {16}),
            "column 14: level MAB has no memory for the data (the deepest level a layout names "
            "holds it); also name a lower level with memory, e.g. 1_PE:0");
  EXPECT_EQ(layout_error(chip, "((2_group*L1B:1, 1_PE:0, 4_Addr:1))", {16}),
            "column 3: a merged level must name adjacent levels top down, e.g. chip*group (this "
            "chip: chip, group, L2B, L1B, MAB, PE)");
  EXPECT_EQ(layout_error(chip, "((4_group*L2B:1, 1_PE:0, 4_Addr:1), (2_L2B:1, 4_Addr:4))", {16, 8}),
            "column 38: level L2B is named differently here and at column 3; merge it with the "
            "same levels in every axis");
}

TEST(Errors, LocateAndInverseRejectBadArguments) {
  TreeLayout l = layout(patent_chip(), kFig7, {100, 100});
  const uint64_t outside[2] = {100, 0};
  try {
    l.locate(outside);
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "index 100 on axis 0 is out of range (the extent is 100)");
  }
  auto inverse_error = [&](tessera_location where) -> std::string {
    uint64_t index[2];
    try {
      l.inverse(where, index);
    } catch (const sdk::Error& e) {
      return e.what();
    }
    return "";
  };
  tessera_location where{};
  where.num_levels = 1;
  EXPECT_EQ(inverse_error(where),
            "the location has 1 levels but this layout keeps its data at level B, so it needs 2 "
            "(top down to B)");
  where.num_levels = 2;
  where.blocks[1] = 4;
  EXPECT_EQ(inverse_error(where), "block B4 does not exist (B has 4 blocks under each parent)");
  where.blocks[1] = 0;
  where.address = 630;
  EXPECT_EQ(inverse_error(where), "this layout stores nothing at address 630");
}

// ---- Random layouts: locate and inverse agree, and no two elements share a place ---------------

struct RandomCase {
  std::shared_ptr<const TreeChip> chip;
  std::string text;
  std::vector<uint64_t> shape;
};

// Mixed-radix strides over `divisions` in a random axis order, each step widened by a random gap
// (still one place per quotient vector); returns the strides and their span.
std::vector<uint64_t> random_strides(const std::vector<uint64_t>& divisions, std::mt19937& rng,
                                     uint64_t max_gap, uint64_t& span) {
  std::vector<size_t> order(divisions.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<uint64_t> strides(divisions.size(), 0);
  uint64_t step = 1;
  for (size_t a : order) {
    step *= 1 + rng() % max_gap;
    strides[a] = step;
    step *= divisions[a];
  }
  span = step;
  return strides;
}

RandomCase random_case(std::mt19937& rng) {
  uint32_t num_levels = 1 + rng() % 3, rank = 1 + rng() % 3;
  std::vector<TreeLevel> levels;
  for (uint32_t k = 0; k < num_levels; ++k)
    levels.push_back(TreeLevel{"L" + std::to_string(k), "", 1 + static_cast<uint32_t>(rng() % 6), 0,
                               k + 1 == num_levels ? 4u * 4096 : 0, 1e9, 1e9});
  auto chip = std::make_shared<const TreeChip>(levels, 4, 1e9);
  // items[a] collects the text of axis a's items, top down.
  std::vector<std::vector<std::string>> items(rank);
  std::vector<uint64_t> covered(rank, 1);
  for (uint32_t k = 0; k < num_levels; ++k) {
    uint64_t room = levels[k].fanout;
    std::vector<uint64_t> d(rank + 1, 1);  // the last one: broadcast copies on axis 0
    for (auto& x : d) {
      x = 1 + rng() % room;
      room /= x;
    }
    uint64_t span = 0;
    std::vector<uint64_t> s = random_strides(d, rng, 1, span);
    for (uint32_t a = 0; a < rank; ++a) {
      if (d[a] == 1 && !(k + 1 == num_levels && a == 0)) continue;
      items[a].push_back(std::to_string(d[a]) + "_L" + std::to_string(k) + ":" +
                         std::to_string(s[a]));
      covered[a] *= d[a];
    }
    if (d[rank] > 1)
      items[0].push_back("*" + std::to_string(d[rank]) + "_L" + std::to_string(k) + ":" +
                         std::to_string(s[rank]));
  }
  std::vector<uint64_t> addr(rank);
  for (auto& x : addr) x = 1 + rng() % 5;
  uint64_t span = 0;
  std::vector<uint64_t> s = random_strides(addr, rng, 2, span);
  uint64_t base = rng() % 3 == 0 ? rng() % 100 : 0;
  std::string text = "(";
  std::vector<uint64_t> shape(rank);
  for (uint32_t a = 0; a < rank; ++a) {
    items[a].push_back(std::to_string(addr[a]) + "_Addr:" + std::to_string(s[a]));
    covered[a] *= addr[a];
    shape[a] = covered[a] - rng() % (covered[a] / 2 + 1);  // some padding
    text += a == 0 ? "(" : ", (";
    for (size_t i = 0; i < items[a].size(); ++i) text += (i ? ", " : "") + items[a][i];
    text += ")";
  }
  text += base ? ")@" + std::to_string(base) : ")";
  return {chip, text, shape};
}

// Calls f(index) for every index of `extents`, row-major.
template <class F>
void for_each_index(const std::vector<uint64_t>& extents, F&& f) {
  std::vector<uint64_t> index(extents.size(), 0);
  while (true) {
    f(index.data());
    size_t a = extents.size();
    while (a > 0 && ++index[a - 1] == extents[a - 1]) index[--a] = 0;
    if (a == 0) return;
  }
}

TEST(RandomLayouts, LocateInverseIsTheIdentityAndPlacesAreDistinct) {
  std::mt19937 rng(20240611);
  int checked = 0;
  for (int n = 0; n < 1500; ++n) {
    RandomCase c = random_case(rng);
    SCOPED_TRACE(c.text);
    std::string error = layout_error(c.chip, c.text, c.shape);
    ASSERT_EQ(error, "") << "the generator made an invalid layout";
    TreeLayout l = layout(c.chip, c.text, c.shape);
    EXPECT_EQ(layout(c.chip, l.format(), c.shape).format(), l.format());
    std::vector<uint64_t> padded;
    for (const auto& axis : l.axes()) padded.push_back(axis.padded_extent);
    std::set<std::pair<uint64_t, uint64_t>> places;
    for_each_index(padded, [&](const uint64_t* index) {
      bool real = true;
      for (uint32_t a = 0; a < l.rank(); ++a) real = real && index[a] < c.shape[a];
      TreeLayout::Place first = l.place(index);
      for (const auto& offset : l.copy_offsets()) {
        TreeLayout::Place p{first.core + offset.core, first.address + offset.address};
        ASSERT_LT(p.core, l.memory_blocks());
        ASSERT_LT(p.address, l.chip().capacity_elements(l.memory_level()));
        ASSERT_TRUE(places.insert({p.core, p.address}).second) << "two elements share a place";
        tessera_location where = l.location_of(p);
        ASSERT_EQ(l.core_of(where), p.core);
        if (!real) continue;
        std::vector<uint64_t> back(l.rank());
        l.inverse(where, back.data());
        ASSERT_EQ(back, std::vector<uint64_t>(index, index + l.rank()));
      }
      if (real) {
        tessera_location where = l.locate(index);
        EXPECT_EQ(where.core, first.core);
      }
    });
    ++checked;
  }
  EXPECT_GE(checked, 1000);
}

}  // namespace
}  // namespace tessera::plugins::tree
