#include "matrix_cells.hpp"

#include <fmt/format.h>

#include <utility>

#include "framework/driver/driver.hpp"
#include "framework/frontend/zoo/zoo.hpp"

namespace tessera::matrix {

namespace {

const std::vector<Chip> kChips = {
    {"ipu_alltoall", "ipu-mk2-hbm3e", false},
    {"ipu_alltoall", "ipu-pod4-hbm3e", false},
    {"mesh_tenstorrent", "wormhole-n150"},
    {"mesh_tenstorrent", "blackhole-p150"},
    {"tree_simd", "mncore2"},
    {"mesh_tenstorrent", "wormhole-n300"},
    {"mesh_tenstorrent", "wormhole-t3000"},
    {"mesh_tenstorrent", "wormhole-galaxy"},
};

const std::vector<Workload> kDecoderWorkloads = {{"decode b1 s2048", zoo::Mode::decode, 1, 2048},
                                                 {"decode b32 s2048", zoo::Mode::decode, 32, 2048},
                                                 {"prefill b1 s2048", zoo::Mode::prefill, 1, 2048}};
const std::vector<Workload> kDitWorkloads = {{"step b1 s256", zoo::Mode::prefill, 1, 256},
                                             {"step b32 s256", zoo::Mode::prefill, 32, 256},
                                             {"step b1 s1024", zoo::Mode::prefill, 1, 1024}};

// GPT-2 XL's 3.1 GB of weights: nearly all of them fit an IPU-M2000's or a Galaxy's SRAM; on
// MN-Core 2's 32 KiB PEs the search keeps only what pays.
const Workload kResidentWorkload = {"decode b1 s264", zoo::Mode::decode, 1, 264};
const std::vector<Chip> kResidentChips = {{"ipu_alltoall", "ipu-m2000", false},
                                          {"mesh_tenstorrent", "wormhole-galaxy"},
                                          {"tree_simd", "mncore2"}};

}  // namespace

std::vector<Cell> cells() {
  std::vector<Cell> out;
  for (const zoo::ZooEntry& entry : zoo::list_zoo()) {
    bool dit = zoo::find_model(entry.name).take().family == zoo::Family::dit;
    for (const Workload& w : dit ? kDitWorkloads : kDecoderWorkloads)
      for (const Chip& chip : kChips)
        out.push_back(
            {fmt::format("{} {} on {}", entry.name, w.name, chip.chip), entry.name, w, chip});
  }
  for (const Chip& chip : kResidentChips)
    out.push_back({fmt::format("gpt2-xl {} resident auto on {}", kResidentWorkload.name, chip.chip),
                   "gpt2-xl", kResidentWorkload, chip, ResidencyMode::automatic});
  return out;
}

Outcome run(const Cell& c) {
  PluginSet plugins(Registry::discover(plugin_search_dirs({})));
  driver::OpenChip chip =
      driver::open_chip(plugins, driver::ChipChoice{c.chip.target, c.chip.chip}).take();
  ModelRequest request;
  request.model = c.model;
  request.shape.batch = c.workload.batch;
  request.shape.seq = c.workload.seq;
  request.shape.mode = c.workload.mode;
  request.shape_given = true;
  if (!c.chip.computes_bf16 && zoo::find_model(c.model).take().dtype == ir::DType::bf16)
    request.shape.dtype = ir::DType::fp16;
  driver::CompileOptions options;
  options.designs = {planner::Design::elk_full};
  options.simulate = true;
  options.residency = c.residency;
  // A shape the model cannot take (GPT-2 XL's 1024 learned positions at --seq 2048) is a refusal
  // with its exact text, as a model the chip cannot hold is.
  auto loaded = driver::load(request);
  if (!loaded) return {0, 0, loaded.error().message};
  auto compiled = driver::compile(chip, std::move(loaded).take(), options);
  if (!compiled) return {0, 0, compiled.error().message};
  const driver::CompiledDesign& d = compiled->designs.front();
  return {d.plan.result.latency_s * 1e3, d.simulated->result.latency_s * 1e3, ""};
}

}  // namespace tessera::matrix
