// memsim's engine (framework/memsim/memsim.hpp) on hbm_dramsim from the build tree, through the
// ABI: every request lands in its channel's report, the per-channel statistics add up to the
// model's totals, and bad targets or parameters get one error each.
#include "framework/memsim/memsim.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace tessera::memsim {
namespace {

class Memsim : public ::testing::Test {
 protected:
  MemoryModel hbm2(const std::string& stacks = "1") {
    auto library = plugins_.library("hbm_dramsim").take();
    return create_memory_model(library, {{{"config", "hbm2_8gb_x128.ini"}, {"stacks", stacks}}, ""})
        .take();
  }
  Error error_of(const MemsimOptions& o) {
    try {
      run_memsim(plugins_, o);
    } catch (const Failure& f) {
      return f.error();
    }
    ADD_FAILURE() << "memsim ran";
    return {};
  }
  PluginSet plugins_{Registry::discover(plugin_search_dirs({}))};
};

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

TEST_F(Memsim, ChannelsAddUpToTheModelsTotals) {
  MemoryModel model = hbm2();
  RandomSource source(8ull << 30, 64, 0.3, 0.0, 8);
  MemoryRunReport r = drive_model(model, source, 6000);
  ASSERT_EQ(r.channels.size(), 8u);
  const tessera_memory_stats total = model.stats().take(), sum = r.total();
  EXPECT_EQ(sum.reads, total.reads);
  EXPECT_EQ(sum.writes, total.writes);
  EXPECT_EQ(sum.row_hits, total.row_hits);
  EXPECT_EQ(sum.row_misses, total.row_misses);
  EXPECT_EQ(sum.activates, total.activates);
  EXPECT_EQ(sum.refreshes, total.refreshes);
  EXPECT_LT(relative(sum.bytes_per_s, total.bytes_per_s), 1e-12);
  EXPECT_LT(relative(sum.avg_read_latency_cycles, total.avg_read_latency_cycles), 1e-12);
  EXPECT_LT(relative(sum.energy_j, total.energy_j), 1e-12);
  for (const MemoryChannelReport& c : r.channels) {
    EXPECT_EQ(c.stats.cycles, 6000u) << c.channel;
    EXPECT_GT(c.stats.reads, 0u) << c.channel;
    // Each finished read is in the histogram of the channel that counted it.
    EXPECT_EQ(c.read_latency.count(), c.stats.reads) << c.channel;
  }
  EXPECT_GE(r.accepted, total.reads + total.writes);
  EXPECT_EQ(r.cycles, 6000u);
  EXPECT_EQ(r.info.channels, 8u);
}

TEST_F(Memsim, RequestsCountOnTheChannelTheirAddressMapsTo) {
  // hbm2_8gb_x128.ini maps 0x800 bytes to a channel before the next; two stacks take turns at
  // that granularity: 0x1000 (unit 2) is channel 1 of stack 0, 0x1800 (unit 3) channel 1 of
  // stack 1, channel 9 of the system.
  MemoryModel model = hbm2("2");
  EXPECT_EQ(model.channel_of(0x1000).take(), 1u);
  EXPECT_EQ(model.channel_of(0x1800).take(), 9u);
  std::istringstream trace("0x1000 READ 0\n0x1040 READ 0\n0x1080 WRITE 1\n0x1800 READ 2\n");
  TraceSource source(trace, "t.trace");
  MemoryRunReport r = drive_model(model, source, 500);
  ASSERT_EQ(r.channels.size(), 16u);
  for (const MemoryChannelReport& c : r.channels) {
    const uint64_t reads = c.channel == 1 ? 2 : c.channel == 9 ? 1 : 0;
    EXPECT_EQ(c.stats.reads, reads) << c.channel;
    EXPECT_EQ(c.read_latency.count(), reads) << c.channel;
    EXPECT_EQ(c.stats.writes, c.channel == 1 ? 1u : 0u) << c.channel;
  }
  EXPECT_EQ(r.accepted, 4u);
}

TEST_F(Memsim, ReportsWhatTheModelSaysOfItself) {
  MemsimOptions o;
  o.config = "hbm2_8gb_x128.ini";
  o.generator = "stream";
  o.cycles = 200;
  MemoryRunReport r = run_memsim(plugins_, o);
  EXPECT_EQ(r.device, "HBM, 8 channels of 128 bits, 64 B requests, 1 rank x 16 banks, tCK 1 ns");
  EXPECT_EQ(r.config, std::string(TESSERA_SOURCE_DIR) + "/configs/memory/hbm2_8gb_x128.ini");
  EXPECT_EQ(r.traffic, "1 sequential stream, 0% writes, as fast as accepted, seed 1");
  EXPECT_EQ(r.stacks, 1u);
}

TEST_F(Memsim, ATargetWithoutAMemoryModelIsOneError) {
  MemsimOptions o;
  o.target = "ipu_alltoall";
  o.generator = "stream";
  o.cycles = 100;
  Error e = error_of(o);
  EXPECT_EQ(e.kind, ErrorKind::input);
  EXPECT_EQ(e.message,
            "target 'ipu_alltoall' provides no memory_model (it provides topology, cost_model); "
            "memsim runs a memory model, e.g. --target hbm_dramsim (see `tessera targets`)");
}

TEST_F(Memsim, WithoutParametersTheModelRunsOnItsDefaults) {
  MemsimOptions o;
  o.generator = "stream";
  o.cycles = 100;
  MemoryRunReport r = run_memsim(plugins_, o);
  EXPECT_EQ(r.config, "built-in hbm3e_8hi.ini");
  EXPECT_EQ(r.info.channels, 32u);
}

TEST_F(Memsim, ParameterErrorsAreTheModelsOwn) {
  MemsimOptions o;
  o.generator = "random";
  o.cycles = 100;
  o.stacks = 0;  // past the CLI's range check: the plugin checks too
  Error e = error_of(o);
  EXPECT_EQ(e.kind, ErrorKind::input);
  EXPECT_EQ(e.message,
            "plugin 'hbm_dramsim': create_memory_model: parameter 'stacks': must be in [1, 1024], "
            "got 0");
}

}  // namespace
}  // namespace tessera::memsim
