// The facts about a chip that planning and simulation read, gathered once from the chip's plugins
// (Topology, CostModel, MemoryModel) so the search loops never cross the plugin boundary. Parsed
// chip files (chip_spec.hpp) are the spec; a Machine is the model built from them (chip_models.hpp
// says where each field comes from).
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

struct Machine {
  std::string chip;    // chip name, as reports show it ("ipu-pod4-hbm3e")
  std::string target;  // plugin serving the topology ("ipu_alltoall")
  uint32_t cores = 0;  // compute cores over all chips
  uint32_t chips = 1;
  uint64_t sram_bytes_per_core = 0;
  double clock_hz = 0;              // the cost model's cycle clock
  double peak_flops_per_s = 0;      // whole machine, fp16
  double hbm_bytes_per_s = 0;       // sustained off-chip bandwidth, all stacks together
  double hbm_peak_bytes_per_s = 0;  // the memory's peak (for utilisation reports)
  double hbm_latency_s = 0;         // first byte of a long stream
  uint32_t hbm_controllers = 0;     // HBM endpoints over all chips
  uint64_t off_chip_bytes = 0;      // off-chip memory capacity, all chips (0: not known)
  // A core's inbound interconnect rate for data arriving from HBM controllers (the distribution
  // side of a preload); cores × this is the on-chip network's preload capacity.
  double preload_bytes_per_s_per_core = 0;
  double shift_bytes_per_s_per_core = 0;  // a core's inter-core shift rate (rotations, distribute)
  // A core's SRAM port (IPU: 16 B/cycle): preload bytes landing on a core while it computes steal
  // it (Elk §2.3 memory-access contention). 0: not modelled.
  double sram_bytes_per_s_per_core = 0;
  double sync_s = 0;                    // one machine-wide barrier
  double interconnect_bytes_per_s = 0;  // total core-to-core capacity (utilisation reports)
  // One chip-to-chip link, per direction: the slowest of the topology's (0: a single chip). A
  // plan's partial results merged between chips are priced on it (planner/partition).
  double chip_link_bytes_per_s = 0;
  // The chip file's scale.flops: the default partitioner divides the cost model's tile times by
  // it (peak_flops_per_s already includes it).
  double compute_speedup = 1;
};

// What the CostModel says each op pays outside the overlap of loads and compute (ABI 1.5's
// tessera_cost_model_info fields; all 0 from a plugin built before 1.5). Not in Machine: the
// dispatch mode chooses which of them a plan pays (planner/plan.hpp, DispatchCosts).
struct OpFixedCosts {
  double dispatch_host_s = 0;    // a host issuing the op's command as the step runs
  double dispatch_traced_s = 0;  // a replayed trace issuing it
  double launch_s = 0;           // the cores starting its kernels once the command is there
  bool operator==(const OpFixedCosts&) const = default;
};

// Who reads a Machine field. Per-op plans (the partitioner's output) depend on every field but the
// off-chip memory's: preload time is the scheduler's, so a cache of per-op plans may be shared by
// machines that differ only in those (an HBM bandwidth sweep partitions its ops once).
enum class MachineFieldUse { everyone, off_chip_memory };

// The one list of Machine's fields: calls v(key, field, use) for each, in declaration order.
// plan.yaml's `machine:` map and every cache key are built from it, so a new field reaches both
// (and a field added to Machine but not here is caught by machine_test's size check).
template <class M, class V>
void machine_fields(M& m, V&& v) {
  using U = MachineFieldUse;
  v("chip", m.chip, U::everyone);
  v("target", m.target, U::everyone);
  v("cores", m.cores, U::everyone);
  v("chips", m.chips, U::everyone);
  v("sram_bytes_per_core", m.sram_bytes_per_core, U::everyone);
  v("clock_hz", m.clock_hz, U::everyone);
  v("peak_flops_per_s", m.peak_flops_per_s, U::everyone);
  v("hbm_bytes_per_s", m.hbm_bytes_per_s, U::off_chip_memory);
  v("hbm_peak_bytes_per_s", m.hbm_peak_bytes_per_s, U::off_chip_memory);
  v("hbm_latency_s", m.hbm_latency_s, U::off_chip_memory);
  v("hbm_controllers", m.hbm_controllers, U::off_chip_memory);
  v("off_chip_bytes", m.off_chip_bytes, U::off_chip_memory);
  v("preload_bytes_per_s_per_core", m.preload_bytes_per_s_per_core, U::everyone);
  v("shift_bytes_per_s_per_core", m.shift_bytes_per_s_per_core, U::everyone);
  v("sram_bytes_per_s_per_core", m.sram_bytes_per_s_per_core, U::everyone);
  v("sync_s", m.sync_s, U::everyone);
  v("interconnect_bytes_per_s", m.interconnect_bytes_per_s, U::everyone);
  v("chip_link_bytes_per_s", m.chip_link_bytes_per_s, U::everyone);
  v("compute_speedup", m.compute_speedup, U::everyone);
}

}  // namespace tessera
