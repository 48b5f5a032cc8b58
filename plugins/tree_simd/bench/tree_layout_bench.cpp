// tree_simd layouts: how fast an element is located and inverted, a description parsed and checked,
// a layout chosen, a tensor written to the functional model and re-laid out.
#include <benchmark/benchmark.h>

#include "codegen.hpp"
#include "functional_model.hpp"
#include "layout_chooser.hpp"

namespace {

using namespace tessera::plugins::tree;

constexpr const char* kFig6 = "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))";
constexpr const char* kFig7 = "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))";

std::shared_ptr<const TreeLayout> fig(const char* text) {
  return std::make_shared<const TreeLayout>(patent_example_chip(), parse_layout_text(text),
                                            std::vector<uint64_t>{100, 100});
}

void BM_LocateInverse(benchmark::State& state) {
  auto layout = fig(kFig6);
  uint64_t index[2] = {0, 0}, back[2];
  for (auto _ : state) {
    index[0] = (index[0] + 7) % 100;
    index[1] = (index[1] + 13) % 100;
    layout->inverse(layout->locate(index), back);
    benchmark::DoNotOptimize(back);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LocateInverse);

void BM_ParseAndValidate(benchmark::State& state) {
  auto chip = patent_example_chip();
  for (auto _ : state)
    benchmark::DoNotOptimize(TreeLayout(chip, parse_layout_text(kFig6), {100, 100}));
}
BENCHMARK(BM_ParseAndValidate);

void BM_ChooseStencil3x3(benchmark::State& state) {
  auto chip = patent_example_chip();
  AccessPattern p = parse_access_pattern("stencil3x3", 2);
  for (auto _ : state) benchmark::DoNotOptimize(choose_layouts(chip, {100, 100}, p));
}
BENCHMARK(BM_ChooseStencil3x3)->Unit(benchmark::kMillisecond);

void BM_WriteAndRelayout(benchmark::State& state) {
  auto from = fig(kFig6);
  auto to = fig(kFig7);
  std::vector<double> values(10000, 1.5);
  for (auto _ : state) {
    FunctionalModel model(from->chip_ptr());
    model.write("x", from, values);
    execute(relayout_moves(*from, *to), model);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_WriteAndRelayout)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
