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

TEST(ServeCompiled, OneRequestAtATimeTakesTheCompilersSteps) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  ModelRequest request;
  request.model = "gpt2-xl";
  ServedMachine machine{&plugins(),   &chip, request, planner::Design::elk_full,
                        std::nullopt, "flat"};
  testing::TempDir dir;
  // Prompts of 256 tokens (a grid point) and two output tokens: the prefill, then one decode step
  // over 257 positions; 100 s apart, so none waits.
  auto trace = dir.write("t.csv", "arrival_s,prompt_tokens,output_tokens\n0,256,2\n100,256,2\n");
  ServeOptions options;
  options.scheduler.max_batch = 2;
  options.cache_dir = dir.path() / "cache";
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

TEST(ServeCompiled, ARequestBeyondTheLearnedPositionsIsRefusedWithItsLine) {
  driver::OpenChip chip =
      driver::open_chip(plugins(), driver::ChipChoice{"mesh_tenstorrent", "wormhole-n150"}).take();
  ModelRequest request;
  request.model = "gpt2-xl";
  ServedMachine machine{&plugins(),   &chip, request, planner::Design::elk_full,
                        std::nullopt, "flat"};
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

}  // namespace
}  // namespace tessera::serve
