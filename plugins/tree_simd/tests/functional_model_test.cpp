#include "functional_model.hpp"

#include <gtest/gtest.h>

#include "support.hpp"

namespace tessera::plugins::tree {
namespace {

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";

std::shared_ptr<const TreeLayout> shared(std::shared_ptr<const TreeChip> chip,
                                         const std::string& text, std::vector<uint64_t> shape) {
  return std::make_shared<const TreeLayout>(test::layout(std::move(chip), text, std::move(shape)));
}

// x[i][j] = 1000 i + j, as many as the shape has.
std::vector<double> numbered(uint64_t rows, uint64_t cols) {
  std::vector<double> values;
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < cols; ++j) values.push_back(1000.0 * i + j);
  return values;
}

TEST(Write, ThenReadReturnsTheTensorAndFig10FindsIndex91_36) {
  auto chip = test::patent_chip();
  FunctionalModel model(chip);
  auto x = numbered(100, 100);
  auto report = model.write("X", shared(chip, kFig6, {100, 100}), x);
  EXPECT_EQ(report.elements, 10000u);
  EXPECT_EQ(report.stored, 10000u);
  EXPECT_EQ(report.padded, 0u);
  EXPECT_EQ(model.read_all(report.id), x);
  EXPECT_EQ(model.read(report.id, {91, 36}), 91036.0);
  EXPECT_EQ(model.load(1, 2 * 4 + 3, 411), 91036.0);  // A2 B3, address 411
  for (uint64_t c = 0; c < 25; ++c)  // Fig. 8: A0 B1 holds x_{1,26}..x_{1,50} at 0..24
    EXPECT_EQ(model.load(1, 1, c), 25.0 + c);
}

TEST(Write, PaddingFillsTheGapsAndIsCounted) {
  auto chip = test::patent_chip();
  FunctionalModel model(chip);
  auto x = numbered(99, 97);
  auto report = model.write("X", shared(chip, kFig6, {99, 97}), x, -1.0);
  EXPECT_EQ(report.padded, 10000u - 99 * 97);
  EXPECT_EQ(model.read_all(report.id), x);
  EXPECT_EQ(model.check_copies(report.id, -1.0), "");
  EXPECT_EQ(model.load(1, 3 * 4 + 3, 24 * 25 + 24), -1.0);  // index (99, 99): padding
  EXPECT_EQ(model.check_copies(report.id, 0.0),
            "'X' at A1 B1 address 22 holds -1.000000, expected 0.000000 (padding)");
}

TEST(Write, BroadcastCopiesSitBesideTheElementsTheyMeet) {
  auto chip = test::patent_chip();
  FunctionalModel model(chip);
  auto x_layout = shared(chip, kFig6, {100, 100});
  model.write("X", x_layout, numbered(100, 100));
  auto bias = numbered(1, 100);
  auto report = model.write(
      "bias",
      shared(chip, "((*2_A:2, *2_B:2, *25_Addr:25, 1_Addr:0), (2_A:1, 2_B:1, 25_Addr:1))@625",
             {1, 100}),
      bias);
  EXPECT_EQ(report.stored, 100u * 100);
  EXPECT_EQ(model.read_all(report.id), bias);
  EXPECT_EQ(model.check_copies(report.id, 0.0), "");
  // Every element of X finds its bias at the same block, 625 addresses later.
  for (uint64_t i = 0; i < 100; i += 7)
    for (uint64_t j = 0; j < 100; j += 3) {
      const uint64_t index[2] = {i, j};
      tessera_location where = x_layout->locate(index);
      ASSERT_EQ(model.load(1, where.core, where.address + 625), bias[j]);
    }
}

TEST(Broadcast, ReplicatesASmallerTensorAndCountsItsMoves) {
  auto chip = test::patent_chip();
  FunctionalModel model(chip);
  auto row = numbered(1, 100);  // 0..99, in the four B blocks of A0
  auto src =
      model.write("row", shared(chip, "((1_A:0, 1_Addr:0), (4_B:1, 25_Addr:1))", {1, 100}), row);
  auto report =
      model.broadcast(src.id, "rows", shared(chip, std::string(kFig6) + "@625", {100, 100}));
  std::vector<double> expected;
  for (int i = 0; i < 100; ++i) expected.insert(expected.end(), row.begin(), row.end());
  EXPECT_EQ(model.read_all(report.write.id), expected);
  // Row 0..49 of columns 0..24 land in A0 B0, where columns 0..24 already are: no move.
  // Every other element leaves its block; those landing outside A0 climb through level A.
  EXPECT_EQ(report.traffic.moves(), 10000u - 50 * 25);
  EXPECT_EQ(report.traffic.per_level()[0].crossings, 2u * 7500);
  EXPECT_EQ(report.traffic.per_level()[1].crossings, 2u * (10000 - 50 * 25));
  EXPECT_THROW(model.broadcast(src.id, "bad", shared(chip, kFig6, {100, 50})), sdk::Error);
}

TEST(Write, OverlappingLiveTensorsAreAnError) {
  auto chip = test::patent_chip();
  FunctionalModel model(chip);
  auto layout = shared(chip, kFig6, {100, 100});
  auto a = model.write("a", layout, numbered(100, 100));
  try {
    model.write("b", layout, numbered(100, 100));
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_FAILED_PRECONDITION);
    EXPECT_STREQ(e.what(),
                 "tensor 'b' would overwrite live tensor 'a' at A0 B0 address 0; free 'a' first "
                 "or give 'b' another base address (@N)");
  }
  model.free(a.id);
  EXPECT_NO_THROW(model.write("b", layout, numbered(100, 100)));
  try {
    model.write("c", layout, {1.0, 2.0});
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "write 'c': 2 values for a tensor of 10000 elements (shape 100x100)");
  }
}

}  // namespace
}  // namespace tessera::plugins::tree
