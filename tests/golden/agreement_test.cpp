// Planned against simulated: every design's plan of each model × chip of the matrix below (kRows),
// planned and then simulated at one node per core. A row says the worst gap between the two over
// Basic, Static, Elk-Dyn and Elk-Full (Ideal is the yardstick that ignores contention: its plan is
// not meant to run as planned), and how much slower Elk-Full simulates than the faster of Static
// and Basic. Rows within the bounds (kGapBound 10 %, kOrderBound 1 %) must stay within them; the
// others hold their stated figure within 3 points, so a change that moves them fails here and
// restates the figure and its cause (docs/planner.md, "Planned against simulated").
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "framework/driver/driver.hpp"

namespace tessera {
namespace {

struct Row {
  std::string name, target, chip, model;
  std::optional<zoo::Mode> mode;  // nullopt: the entry's (a DiT's step)
  int64_t batch, seq;             // seq 0: the entry's
  double worst_gap;               // max over the four designs of |simulated / planned - 1|
  double full_vs_simple;          // Elk-Full simulated / min(Static, Basic simulated) - 1
};

constexpr double kGapBound = 0.10, kOrderBound = 0.01, kHeld = 0.03;

// clang-format off
const std::vector<Row> kRows = {
    {"llama2_7b_decode_b16_s2048_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "llama2-7b", zoo::Mode::decode, 16, 2048, 0.013, 0.000},
    {"llama2_13b_decode_b16_s2048_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "llama2-13b", zoo::Mode::decode, 16, 2048, 0.020, 0.000},
    {"llama2_7b_prefill_b1_s2048_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.001, 0.000},
    {"llama2_13b_prefill_b1_s2048_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "llama2-13b", zoo::Mode::prefill, 1, 2048, 0.001, 0.000},
    {"dit_xl_step_b1_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "dit-xl", std::nullopt, 1, 0, 0.026, 0.000},
    {"gpt3_6_7b_decode_b16_s2048_on_ipu_pod4_hbm3e", "ipu_alltoall", "ipu-pod4-hbm3e", "gpt3-6.7b", zoo::Mode::decode, 16, 2048, 0.020, 0.000},
    {"llama2_7b_decode_b16_s2048_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "llama2-7b", zoo::Mode::decode, 16, 2048, 0.024, -0.073},
    {"llama2_13b_decode_b16_s2048_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "llama2-13b", zoo::Mode::decode, 16, 2048, 0.046, 0.003},
    {"llama2_7b_prefill_b1_s2048_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.009, 0.000},
    {"llama2_13b_prefill_b1_s2048_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "llama2-13b", zoo::Mode::prefill, 1, 2048, 0.002, -0.004},
    {"dit_xl_step_b1_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "dit-xl", std::nullopt, 1, 0, 0.017, 0.000},
    {"gpt3_6_7b_decode_b16_s2048_on_ipu_pod4_mesh_hbm3e", "ipu_alltoall", "ipu-pod4-mesh-hbm3e", "gpt3-6.7b", zoo::Mode::decode, 16, 2048, 0.045, -0.050},
    {"dit_xl_step_b1_on_wormhole_n150", "mesh_tenstorrent", "wormhole-n150", "dit-xl", std::nullopt, 1, 0, 0.000, 0.000},
    {"llama2_7b_decode_b16_s2048_on_blackhole_p150", "mesh_tenstorrent", "blackhole-p150", "llama2-7b", zoo::Mode::decode, 16, 2048, 0.000, 0.000},
    {"llama2_7b_prefill_b1_s2048_on_blackhole_p150", "mesh_tenstorrent", "blackhole-p150", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.018, -0.027},
    {"llama2_13b_prefill_b1_s2048_on_blackhole_p150", "mesh_tenstorrent", "blackhole-p150", "llama2-13b", zoo::Mode::prefill, 1, 2048, 0.018, -0.008},
    {"dit_xl_step_b1_on_blackhole_p150", "mesh_tenstorrent", "blackhole-p150", "dit-xl", std::nullopt, 1, 0, 0.001, 0.000},
    {"gpt3_6_7b_decode_b16_s2048_on_blackhole_p150", "mesh_tenstorrent", "blackhole-p150", "gpt3-6.7b", zoo::Mode::decode, 16, 2048, 0.000, -0.006},
    {"llama2_7b_prefill_b1_s2048_on_mncore2", "tree_simd", "mncore2", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.008, -0.004},
    {"dit_xl_step_b1_on_mncore2", "tree_simd", "mncore2", "dit-xl", std::nullopt, 1, 0, 0.000, 0.000},
    {"llama2_7b_prefill_b1_s2048_on_wormhole_n300", "mesh_tenstorrent", "wormhole-n300", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.013, -0.011},
    {"dit_xl_step_b1_on_wormhole_n300", "mesh_tenstorrent", "wormhole-n300", "dit-xl", std::nullopt, 1, 0, 0.001, 0.000},
    {"llama2_7b_decode_b16_s2048_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "llama2-7b", zoo::Mode::decode, 16, 2048, 0.001, 0.000},
    {"llama2_13b_decode_b16_s2048_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "llama2-13b", zoo::Mode::decode, 16, 2048, 0.001, 0.000},
    {"llama2_7b_prefill_b1_s2048_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.025, -0.042},
    {"llama2_13b_prefill_b1_s2048_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "llama2-13b", zoo::Mode::prefill, 1, 2048, 0.012, -0.042},
    {"dit_xl_step_b1_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "dit-xl", std::nullopt, 1, 0, 0.027, 0.000},
    {"gpt3_6_7b_decode_b16_s2048_on_wormhole_t3000", "mesh_tenstorrent", "wormhole-t3000", "gpt3-6.7b", zoo::Mode::decode, 16, 2048, 0.001, -0.001},
    {"llama2_7b_decode_b16_s2048_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "llama2-7b", zoo::Mode::decode, 16, 2048, 0.002, 0.000},
    {"llama2_13b_decode_b16_s2048_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "llama2-13b", zoo::Mode::decode, 16, 2048, 0.001, 0.000},
    {"llama2_7b_prefill_b1_s2048_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "llama2-7b", zoo::Mode::prefill, 1, 2048, 0.011, 0.000},
    {"llama2_13b_prefill_b1_s2048_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "llama2-13b", zoo::Mode::prefill, 1, 2048, 0.017, 0.000},
    {"dit_xl_step_b1_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "dit-xl", std::nullopt, 1, 0, 0.002, 0.000},
    {"gpt3_6_7b_decode_b16_s2048_on_wormhole_galaxy", "mesh_tenstorrent", "wormhole-galaxy", "gpt3-6.7b", zoo::Mode::decode, 16, 2048, 0.002, 0.000},
};
// clang-format on

void PrintTo(const Row& r, std::ostream* os) {
  *os << r.name;
}

struct Measured {
  double worst_gap = 0, full_vs_simple = 0;
  // The planner's energy against the simulator's (docs/energy.md), over the same designs (every
  // chip of the matrix states its energy rates).
  double worst_energy_gap = 0;
  bool every_energy = true;
  std::string table;
};

Measured measure(const Row& r) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip = driver::open_chip(plugins, driver::ChipChoice{r.target, r.chip}).take();
  ModelRequest request;
  request.model = r.model;
  request.shape.mode = r.mode;
  request.shape.batch = r.batch;
  if (r.seq > 0) request.shape.seq = r.seq;
  request.shape_given = true;
  driver::CompileOptions options;
  using planner::Design;
  options.designs = {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full};
  options.simulate = true;
  driver::Compilation compiled =
      driver::compile(chip, driver::load(request).take(), options).take();
  Measured m;
  std::vector<double> simulated;
  for (const auto& d : compiled.designs) {
    double planned_s = d.plan.result.latency_s, simulated_s = d.simulated->result.latency_s;
    m.worst_gap = std::max(m.worst_gap, std::abs(simulated_s / planned_s - 1));
    simulated.push_back(simulated_s);
    const auto &planned_e = d.plan.result.energy, &simulated_e = d.simulated->energy;
    m.every_energy = m.every_energy && planned_e && simulated_e;
    double planned_j = planned_e ? planned_e->total_j() : 0;
    double simulated_j = simulated_e ? simulated_e->total_j() : 0;
    if (planned_j > 0)
      m.worst_energy_gap = std::max(m.worst_energy_gap, std::abs(simulated_j / planned_j - 1));
    m.table += fmt::format("  {:8} planned {:.4g} ms {:.4g} mJ, simulated {:.4g} ms {:.4g} mJ\n",
                           to_string(d.plan.result.design), planned_s * 1e3, planned_j * 1e3,
                           simulated_s * 1e3, simulated_j * 1e3);
  }
  m.full_vs_simple = simulated[3] / std::min(simulated[0], simulated[1]) - 1;
  return m;
}

class Agreement : public testing::TestWithParam<Row> {};

TEST_P(Agreement, PlannedMatchesSimulatedAndElkFullIsNotSlowerThanStaticOrBasic) {
  const Row& r = GetParam();
  Measured m = measure(r);
  std::cout << fmt::format(
      "{}: worst gap {:.1f} %, energy {:.1f} %, Elk-Full vs Static/Basic {:+.1f} %\n{}", r.name,
      100 * m.worst_gap, 100 * m.worst_energy_gap, 100 * m.full_vs_simple, m.table);
  EXPECT_TRUE(m.every_energy) << "every chip of the matrix states its energy";
  EXPECT_LE(m.worst_energy_gap, std::max(kGapBound, r.worst_gap + kHeld))
      << "the planned energy no longer matches the simulated within the latencies' bound";
  if (r.worst_gap <= kGapBound)
    EXPECT_LE(m.worst_gap, kGapBound) << "a design's plan no longer matches its simulation";
  else
    EXPECT_NEAR(m.worst_gap, r.worst_gap, kHeld) << "the gap moved: restate the row and its cause";
  if (r.full_vs_simple <= kOrderBound)
    EXPECT_LE(m.full_vs_simple, kOrderBound) << "Elk-Full simulates slower than Static or Basic";
  else
    EXPECT_NEAR(m.full_vs_simple, r.full_vs_simple, kHeld)
        << "Elk-Full against Static/Basic moved: restate the row and its cause";
}

INSTANTIATE_TEST_SUITE_P(Issue17, Agreement, testing::ValuesIn(kRows),
                         [](const testing::TestParamInfo<Row>& param) { return param.param.name; });

}  // namespace
}  // namespace tessera
