#include "codegen.hpp"

#include <gtest/gtest.h>

#include "broadcast.hpp"
#include "layout_chooser.hpp"
#include "support.hpp"

namespace tessera::plugins::tree {
namespace {

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";
constexpr const char* kFig7 = "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))";

std::shared_ptr<const TreeLayout> shared(
    const std::string& text, std::vector<uint64_t> shape,
    std::shared_ptr<const TreeChip> chip = test::patent_chip()) {
  return std::make_shared<const TreeLayout>(test::layout(std::move(chip), text, std::move(shape)));
}

std::vector<double> numbered(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t e : shape) n *= e;
  std::vector<double> values(n);
  for (uint64_t i = 0; i < n; ++i) values[i] = 1.0 + static_cast<double>(i);
  return values;
}

// "" when both models hold the same value at every place `layout` stores (padding included).
std::string same_image(const FunctionalModel& got, const FunctionalModel& want,
                       const TreeLayout& layout) {
  std::string problem;
  for_each_place(layout, [&](const uint64_t*, bool, const TreeLayout::Place& p) {
    double g = got.load(layout.memory_level(), p.core, p.address);
    double w = want.load(layout.memory_level(), p.core, p.address);
    if (problem.empty() && g != w)
      problem = layout.chip().path_text(layout.memory_level(), p.core) + " @" +
                std::to_string(p.address) + ": " + std::to_string(g) + " != " + std::to_string(w);
  });
  return problem;
}

// Re-lays out a tensor written in `from` into `to` by running the moves, and compares the memory
// with the tensor written in `to` directly.
std::string relayout_matches(std::shared_ptr<const TreeLayout> from,
                             std::shared_ptr<const TreeLayout> to, double pad = -1) {
  auto chip = from->chip_ptr();
  FunctionalModel moved(chip), direct(chip);
  auto values = numbered(from->shape());
  moved.write("x", from, values, pad);
  std::vector<double> expanded;
  for_each_place(*to, [&](const uint64_t* index, bool real, const TreeLayout::Place&) {
    if (!real) return;
    std::vector<uint64_t> i = broadcast_index(from->shape(), to->shape(), index);
    uint64_t flat = 0;
    for (size_t a = 0; a < i.size(); ++a) flat = flat * from->shape()[a] + i[a];
    expanded.push_back(values[flat]);
  });
  direct.write("x", to, expanded, 0.0);
  execute(relayout_moves(*from, *to, 0.0), moved);
  return same_image(moved, direct, *to);
}

TEST(Relayout, Fig6ToFig7MovesReproduceTheTargetExactly) {
  auto from = shared(kFig6, {100, 100});
  auto to = shared(std::string(kFig7) + "@1000", {100, 100});
  MoveProgram p = relayout_moves(*from, *to);
  EXPECT_EQ(p.moves.size(), 400u);  // one run of 25 addresses per row and B block
  EXPECT_EQ(p.fills.size(), 0u);
  // Each 25 x 25 block of Fig. 7 comes from one block of Fig. 6; 8 of 16 are the same block
  // (flat block = 4 A + B): e.g. rows 0..24, columns 25..49 are A0 B1 in both.
  EXPECT_EQ(p.traffic.moves(), 10000u - 8 * 625);
  std::string listing = format_moves(from->chip(), p);
  EXPECT_EQ(listing.substr(0, listing.find('\n')), "copy in A0 B0: @0..24 -> @1000..1024");
  EXPECT_NE(listing.find("move via top: A0 B2 @0..24 -> A1 B0 @1000..1024\n"), std::string::npos)
      << listing;
  EXPECT_EQ(relayout_matches(from, to), "");
}

TEST(Relayout, InPlaceAndPaddedAndBroadcast) {
  EXPECT_EQ(relayout_matches(shared(kFig6, {100, 100}), shared(kFig7, {100, 100})), "");
  EXPECT_EQ(
      relayout_matches(shared(kFig6, {99, 97}), shared(kFig7 + std::string("@700"), {99, 97})), "");
  EXPECT_EQ(relayout_matches(shared("((1_A:0, 1_Addr:0), (4_B:1, 25_Addr:1))", {1, 100}),
                             shared(std::string(kFig6) + "@625", {100, 100})),
            "");
}

// Every pair of the chooser's candidates for an awkward shape, padding included.
TEST(Relayout, EveryPairOfCandidateLayouts) {
  for (auto chip : {test::patent_chip(), test::mini_chip()}) {
    auto all = choose_layouts(chip, {37, 53}, parse_access_pattern("elementwise", 2));
    ASSERT_GE(all.size(), 9u);
    all.erase(all.begin() + 9, all.end());
    for (const auto& from : all)
      for (const auto& to : all) {
        LayoutText text = parse_layout_text(to.layout->format());
        text.base_address = from.layout->address_end();
        auto shifted = std::make_shared<const TreeLayout>(chip, text, to.layout->shape());
        ASSERT_EQ(relayout_matches(from.layout, shifted), "")
            << from.layout->format() << " -> " << shifted->format();
      }
  }
}

// out = a OP b executed block by block equals the reference computed elementwise.
void expect_elementwise(SimdOp op, std::shared_ptr<const TreeLayout> out,
                        std::shared_ptr<const TreeLayout> a, std::shared_ptr<const TreeLayout> b,
                        size_t relayouts) {
  FunctionalModel model(out->chip_ptr());
  auto va = numbered(a->shape()), vb = numbered(b->shape());
  for (double& v : vb) v = v * 0.5 - 3;
  auto ia = model.write("a", a, va).id;
  auto ib = model.write("b", b, vb).id;
  SimdProgram program = elementwise_program(op, *out, *a, *b, 300);
  EXPECT_EQ(program.prologue.size(), relayouts);
  execute(program, model);
  FunctionalModel reference(out->chip_ptr());
  std::vector<double> want;
  auto da = model.read_all(ia), db = model.read_all(ib);
  for (uint64_t i = 0; i < out->shape()[0]; ++i)
    for (uint64_t j = 0; j < out->shape()[1]; ++j) {
      double x = da[(a->shape()[0] == 1 ? 0 : i) * a->shape()[1] + j];
      double y = db[(b->shape()[0] == 1 ? 0 : i) * b->shape()[1] + j];
      want.push_back(op == SimdOp::add ? x + y : op == SimdOp::mul ? x * y : x - y);
    }
  for (uint64_t i = 0; i < out->shape()[0]; ++i)
    for (uint64_t j = 0; j < out->shape()[1]; ++j) {
      const uint64_t index[2] = {i, j};
      TreeLayout::Place p = out->place(index);
      ASSERT_EQ(model.load(out->memory_level(), p.core, p.address), want[i * out->shape()[1] + j])
          << i << "," << j;
    }
}

constexpr const char* k40Blocked = "((2_A:2, 2_B:2, 10_Addr:10), (2_A:1, 2_B:1, 10_Addr:1))";
constexpr const char* k40Rows = "((4_A:1, 10_Addr:10), (4_B:1, 10_Addr:1))";

TEST(Simd, AlignedOperandsNeedOneInstruction) {
  auto out = shared(k40Blocked + std::string("@200"), {40, 40});
  auto a = shared(k40Blocked, {40, 40});
  auto bias =
      shared("((*2_A:2, *2_B:2, *10_Addr:10, 1_Addr:0), (2_A:1, 2_B:1, 10_Addr:1))@100", {1, 40});
  SimdProgram p = elementwise_program(SimdOp::add, *out, *a, *bias, 300);
  EXPECT_EQ(format_simd(out->chip(), p), "simd add on B[0..15]: @200..299 = @0..99, @100..199\n");
  expect_elementwise(SimdOp::add, out, a, bias, 0);
}

TEST(Simd, MisalignedAndBroadcastOperandsAreReLaidOutFirst) {
  auto out = shared(k40Blocked + std::string("@200"), {40, 40});
  expect_elementwise(SimdOp::mul, out, shared(k40Blocked, {40, 40}),
                     shared(k40Rows + std::string("@100"), {40, 40}), 1);
  expect_elementwise(SimdOp::sub, out, shared(k40Rows, {40, 40}),
                     shared("((1_A:0, 1_Addr:0), (4_B:1, 10_Addr:1))@100", {1, 40}), 2);
  // Padding: a 38 x 39 tensor in the same blocks.
  auto padded = shared(k40Blocked + std::string("@200"), {38, 39});
  expect_elementwise(SimdOp::add, padded, shared(k40Rows, {38, 39}),
                     shared(k40Blocked + std::string("@100"), {38, 39}), 1);
}

TEST(Simd, OpsAndOutputsAreChecked) {
  EXPECT_EQ(parse_simd_op("max"), SimdOp::max);
  try {
    parse_simd_op("div");
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "unknown elementwise op 'div'; expected add, sub, mul, min or max");
  }
  auto bias = shared("((*2_A:2, 1_Addr:0), (4_B:1, 10_Addr:1))", {1, 40});
  EXPECT_THROW(elementwise_program(SimdOp::add, *bias, *bias, *bias, 300), sdk::Error);
}

}  // namespace
}  // namespace tessera::plugins::tree
