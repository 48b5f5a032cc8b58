// At a load of one request at a time, the server's TTFT and TPOT are the compiler's own prefill
// and decode steps for the same shapes (what `tessera compile --simulate` prints for them); and the
// KV room is what the compiled model leaves of the chip's memory.
#include <gtest/gtest.h>

#include "framework/serve/serve.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera::serve {
namespace {

PluginSet& plugins() {
  static PluginSet set(Registry::discover(plugin_search_dirs({})));
  return set;
}

// The simulated step of `model` at a shape, compiled as `tessera compile --simulate` does.
double compiled_step_s(driver::OpenChip& chip, const std::string& model, zoo::Mode mode,
                       int64_t seq) {
  ModelRequest request;
  request.model = model;
  request.shape.batch = 1;
  request.shape.seq = seq;
  request.shape.mode = mode;
  request.shape_given = true;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  options.simulate = true;
  auto compiled = driver::compile(chip, driver::load(request).take(), options).take();
  return compiled.designs.front().simulated->result.latency_s;
}

// gpt2-xl served flat, each step planned as Elk-Full, on `chip`.
ServedMachine gpt2_xl_on(driver::OpenChip& chip) {
  ModelRequest request;
  request.model = "gpt2-xl";
  return ServedMachine{&plugins(), &chip, request, planner::Design::elk_full, std::nullopt, "flat"};
}

// Prompts of 256 tokens (a grid point) and two output tokens: the prefill, then one decode step
// over 257 positions; 100 s apart, so none waits.
constexpr const char* kTwoApart = "arrival_s,prompt_tokens,output_tokens\n0,256,2\n100,256,2\n";

// At most two sequences a step, the grid cached in `dir`.
ServeOptions at_most_two(const testing::TempDir& dir) {
  ServeOptions options;
  options.scheduler.max_batch = 2;
  options.cache_dir = dir.path() / "cache";
  return options;
}

TEST(ServeCompiled, OneRequestAtATimeTakesTheCompilersSteps) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  ServedMachine machine = gpt2_xl_on(chip);
  testing::TempDir dir;
  auto trace = dir.write("t.csv", kTwoApart);
  const ServeOptions options = at_most_two(dir);
  Served served = serve(machine, trace, options, {}).take();
  EXPECT_TRUE(served.grid_built);

  const double prefill_s = compiled_step_s(chip, "gpt2-xl", zoo::Mode::prefill, 256);
  const double decode_s = compiled_step_s(chip, "gpt2-xl", zoo::Mode::decode, 257);
  EXPECT_NEAR(served.summary.ttft_s.mean / prefill_s, 1.0, 1e-9);
  // 257 positions lie between the grid's 256 and 512: within the grid's measured decode error.
  EXPECT_NEAR(served.summary.tpot_s.mean / decode_s, 1.0, 0.005);
  EXPECT_TRUE(served.summary.sustainable);

  // gpt2-xl: 48 layers x 1600 (K and V, fp16) = 300 KiB per position; a request holds at most its
  // 1024 learned positions.
  EXPECT_DOUBLE_EQ(served.room.bytes_per_token, 48.0 * 1600 * 2 * 2);
  EXPECT_EQ(served.context_limit, 1024);

  // Served again: the grid comes from the cache, the same figures.
  Served again = serve(machine, trace, options, {}).take();
  EXPECT_FALSE(again.grid_built);
  EXPECT_DOUBLE_EQ(again.summary.tpot_s.mean, served.summary.tpot_s.mean);
}

// Disaggregated, one request at a time: TTFT is the prefill chip's compiled prefill step plus the
// transfer of its KV over the link, TPOT the decode chip's compiled decode step.
TEST(ServeCompiled, DisaggregatedOneAtATimeTakesEachGroupsStepAndTheLink) {
  driver::OpenChip prefill_chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n300"}).take();
  driver::OpenChip decode_chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  ServedMachine prefill = gpt2_xl_on(prefill_chip);
  ServedMachine decode = gpt2_xl_on(decode_chip);
  testing::TempDir dir;
  auto trace = dir.write("t.csv", kTwoApart);
  const ServeOptions options = at_most_two(dir);
  const KvLink link = read_kv_link("100gbe").take();
  Served served = serve_disaggregated(prefill, decode, link, trace, options, {}).take();

  const double bytes = 256 * 48.0 * 1600 * 2 * 2;  // gpt2-xl's K and V, fp16, per position
  const double ttft_s = compiled_step_s(prefill_chip, "gpt2-xl", zoo::Mode::prefill, 256) +
                        bytes / link.bytes_per_s + link.latency_s;
  EXPECT_NEAR(served.summary.ttft_s.mean / ttft_s, 1.0, 1e-9);
  const double decode_s = compiled_step_s(decode_chip, "gpt2-xl", zoo::Mode::decode, 257);
  EXPECT_NEAR(served.summary.tpot_s.mean / decode_s, 1.0, 0.005);
  ASSERT_TRUE(served.summary.link.has_value());
  EXPECT_NEAR(served.summary.link->bytes, 2 * bytes, 1e-6);
  EXPECT_NEAR(served.summary.link->joules, 2 * bytes * 25e-12, 1e-12);
}

TEST(ServeCompiled, ARequestBeyondTheLearnedPositionsIsRefusedWithItsLine) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  ServedMachine machine = gpt2_xl_on(chip);
  testing::TempDir dir;
  auto trace = dir.write("long.csv", "arrival_s,prompt_tokens,output_tokens\n0,1000,100\n");
  ServeOptions options;
  options.cache_dir = dir.path() / "cache";
  std::string message = serve(machine, trace, options, {}).error().message;
  EXPECT_EQ(message.substr(message.find("long.csv")),
            "long.csv:2: prompt_tokens 1000 + output_tokens 100 = 1100 exceeds the 1024 tokens "
            "one request may hold (gpt2-xl's 1024 learned positions); shorten the request, or "
            "serve on a machine with more memory");
}

// A pipeline of two micro-batches on a Wormhole n300 (pp=2,mb=2): every grid batch splits into
// them (2 and 4 under --max-batch 4; a step of one sequence runs padded to 2), a prompt is
// prefilled through the stages as one micro-batch (the pp=2 step's prefill), and a --max-batch
// that mb does not divide is refused.
TEST(ServeCompiled, UnderMicroBatchesTheGridsBatchesAreTheirMultiples) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n300"}).take();
  ServedMachine machine = gpt2_xl_on(chip);
  machine.strategy = parallel::parse_strategy("pp=2,mb=2").take();
  machine.strategy_text = "pp=2,mb=2";
  testing::TempDir dir;
  auto trace = dir.write("t.csv", kTwoApart);
  ServeOptions options = at_most_two(dir);
  options.scheduler.max_batch = 4;
  Served served = serve(machine, trace, options, {}).take();
  EXPECT_EQ(served.grid.axes.batches, (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(served.summary.sustainable);
  ServedMachine one = machine;
  one.strategy = parallel::parse_strategy("pp=2").take();
  const double prefill_s = simulate_step(one, Phase::prefill, 1, 256)->seconds;
  EXPECT_NEAR(served.summary.ttft_s.mean / prefill_s, 1.0, 1e-9);

  options.scheduler.max_batch = 3;
  EXPECT_EQ(serve(machine, trace, options, {}).error().message,
            "--max-batch 3 is not a multiple of --parallel pp=2,mb=2's mb=2: every step's batch "
            "is split into mb micro-batches; give --max-batch a multiple of 2, such as 4");
}

// Under tp=2 each chip of a Wormhole n300 holds half of Llama 3.1 8B and half of its KV heads; the
// room is one chip's, not the machine's less all the weights. By hand (bf16): 8,030,261,248
// parameters, of which the 65 RMSNorm weights (266,240) are held whole on both chips; the rest
// halves. Besides, the RoPE tables of the probe's 1024 positions (1024 x 64 x cos and sin x 2 B)
// and the 4-byte token id. The flat room (the machine less all the weights) reaches positions one
// chip cannot hold: its edge step is the compiler's capacity error.
TEST(ServeCompiled, UnderTensorParallelTheRoomIsOneChipsShare) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n300"}).take();
  ModelRequest request;
  request.model = "llama3.1-8b";
  auto tp2 = parallel::parse_strategy("tp=2").take();
  ServedMachine machine{&plugins(), &chip, request, planner::Design::elk_full, tp2, "tp=2"};
  KvRoom room = kv_room(machine, 16, 8).take();

  const double params = 8030261248.0, norms = 266240.0;
  const double weight_bytes = ((params - norms) / 2 + norms) * 2 + 1024.0 * 64 * 2 * 2 + 4;
  EXPECT_DOUBLE_EQ(room.capacity_bytes, 12e9);  // one chip's GDDR6
  EXPECT_DOUBLE_EQ(room.weight_bytes, weight_bytes);
  EXPECT_DOUBLE_EQ(room.bytes_per_token, 32.0 * 4 * 128 * 2 * 2);  // 32 layers, 4 KV heads of 8
  ASSERT_TRUE(room.stage.has_value());
  EXPECT_EQ(room.stage->first_layer, 0);
  EXPECT_EQ(room.stage->last_layer, 32);
  // floor((12e9 - weights) / (16 x 64 KiB)) = 3785 blocks, less what the edge steps' activations
  // spill (16 blocks when measured).
  const int64_t by_hand = static_cast<int64_t>((12e9 - weight_bytes) / (16.0 * 65536));
  EXPECT_EQ(by_hand, 3785);
  EXPECT_LE(room.blocks, by_hand);
  EXPECT_GE(room.blocks, by_hand - 32);

  // A swap moves each chip's share at that chip's GDDR6 rate: 1000 positions x 64 KiB / 288 GB/s;
  // both chips' bytes at 60 pJ each, and both chips' 40 W static over that time.
  EXPECT_DOUBLE_EQ(room.off_chip_bytes_per_s, 288e9);
  StepCost swap = swap_cost(room, chip.models.energy, 1000);
  const double swap_s = 1000 * 65536 / 288e9;
  EXPECT_NEAR(swap.seconds, swap_s, 1e-15);
  EXPECT_NEAR(swap.joules, 1000 * 65536 * 2 * 60e-12 + 2 * 40 * swap_s, 1e-12);

  EXPECT_TRUE(simulate_step(machine, Phase::decode, 1, room.tokens()).ok());
  // The flat room of the machine: 24e9 less all the weights, over 128 KiB per position.
  const int64_t flat_tokens = 16 * 3777;
  std::string message = simulate_step(machine, Phase::decode, 1, flat_tokens).error().message;
  EXPECT_NE(message.find("does not fit the off-chip memory of wormhole-n300"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace tessera::serve
