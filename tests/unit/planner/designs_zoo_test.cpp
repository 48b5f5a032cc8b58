// The five designs on every zoo model, end to end (zoo graph -> ipu_alltoall per-op plans ->
// planner): Ideal <= Elk-Full <= Elk-Dyn in latency, every design respects SRAM, loads are
// serialised and each ends before its op executes, and the breakdown sums to the latency.
// Small shapes (batch 2, 256 positions, fp16) keep it fast; the four-IPU chip holds even
// Gemma2-27B's 2.4 GB vocabulary projection.
#include <gtest/gtest.h>

#include "framework/driver/driver.hpp"
#include "framework/frontend/zoo/zoo.hpp"

namespace tessera::planner {
namespace {

struct Planned {
  std::vector<DesignResult> designs;  // in Design order
  Machine machine;
};

Planned plan_all(const std::string& model) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{"ipu_alltoall", "ipu-pod4-hbm3e"}).take();
  ModelRequest request;
  request.model = model;
  request.shape.batch = 2;
  request.shape.seq = 256;
  request.shape.dtype = ir::DType::fp16;  // the IPU computes fp16 (bf16 models run in fp16)
  driver::CompileOptions options;
  options.designs = {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full,
                     Design::ideal};
  options.threads = 2;
  driver::Compilation compiled =
      driver::compile(chip, driver::load(request).take(), options).take();
  Planned out;
  out.machine = chip.models.machine;
  for (const auto& d : compiled.designs) out.designs.push_back(d.plan.result);
  return out;
}

void expect_consistent(const DesignResult& r, const Machine& machine) {
  SCOPED_TRACE(to_string(r.design));
  const Breakdown& b = r.breakdown;
  EXPECT_NEAR(b.execution_only_s + b.overlapped_s + b.preload_stall_s + b.congestion_s, r.latency_s,
              1e-9 * r.latency_s);
  double previous_preload_end = 0, previous_exec_end = 0;
  for (int op : r.preload_order) {
    const OpSchedule& s = r.ops[op];
    EXPECT_GE(s.preload_start_s, previous_preload_end - 1e-15) << s.name;
    EXPECT_LE(s.preload_end_s, s.execute_start_s + 1e-15) << s.name;
    previous_preload_end = s.preload_end_s;
  }
  for (const OpSchedule& s : r.ops) {
    EXPECT_GE(s.execute_start_s, previous_exec_end - 1e-15) << s.name;
    previous_exec_end = s.execute_end_s;
    if (r.design != Design::ideal) {
      EXPECT_LE(s.sram_bytes_per_core, static_cast<double>(machine.sram_bytes_per_core)) << s.name;
    }
  }
  EXPECT_NEAR(previous_exec_end, r.latency_s, 1e-15);
  EXPECT_GT(r.hbm_utilisation, 0);
  EXPECT_LE(r.hbm_utilisation, 1 + 1e-9);
}

class ZooDesigns : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooDesigns, IdealElkFullElkDynAreOrdered) {
  Planned p = plan_all(GetParam());
  const auto& d = p.designs;
  double ideal = d[4].latency_s, full = d[3].latency_s, dyn = d[2].latency_s;
  EXPECT_LE(ideal, full * (1 + 1e-12));
  EXPECT_LE(full, dyn * (1 + 1e-12));
  // Ideal is a lower bound of every design, not only of Elk's.
  EXPECT_LE(ideal, d[0].latency_s * (1 + 1e-12));
  EXPECT_LE(ideal, d[1].latency_s * (1 + 1e-12));
  EXPECT_GE(d[3].orders_tried, 1u);
  for (const auto& r : d) expect_consistent(r, p.machine);
}

std::vector<std::string> zoo_names() {
  std::vector<std::string> names;
  for (const auto& e : zoo::list_zoo()) names.push_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllModels, ZooDesigns, ::testing::ValuesIn(zoo_names()),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace tessera::planner

namespace tessera::planner {
namespace {

// Elk-Full searches orders in parallel; the plan must not depend on the thread count.
TEST(ZooDesignsThreads, ElkFullIsTheSameOnOneAndTwoThreads) {
  PluginSet plugins{Registry::discover(plugin_search_dirs({}))};
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{"ipu_alltoall", "ipu-mk2-hbm3e"}).take();
  ModelRequest request;
  request.model = "llama2-7b";
  request.shape.batch = 4;
  request.shape.seq = 512;
  driver::LoadedModel model = driver::load(request).take();
  driver::CompileOptions one;
  one.designs = {Design::elk_full};
  one.threads = 1;
  one.max_displacement = 2;  // enough orders to split, fewer to time
  driver::CompileOptions two = one;
  two.threads = 2;
  DesignResult a = driver::compile(chip, model, one).take().designs.front().plan.result;
  DesignResult b = driver::compile(chip, model, two).take().designs.front().plan.result;
  EXPECT_GT(a.orders_tried, 1u);
  EXPECT_EQ(a.orders_tried, b.orders_tried);
  EXPECT_EQ(a.preload_order, b.preload_order);
  EXPECT_EQ(a.latency_s, b.latency_s);
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].preloads_during, b.ops[i].preloads_during);
    EXPECT_EQ(a.ops[i].exec.label, b.ops[i].exec.label);
  }
}

}  // namespace
}  // namespace tessera::planner
