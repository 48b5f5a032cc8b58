#include "framework/planner/capacity.hpp"

#include <algorithm>

#include "framework/common/units.hpp"
#include "framework/ir/analysis.hpp"

namespace tessera::planner {

OffChipFootprint off_chip_footprint(const ir::Graph& graph, const Machine& machine) {
  ir::Totals t = ir::totals(graph);
  OffChipFootprint f;
  f.weight_bytes = t.weight_bytes + t.constant_bytes;
  f.kv_cache_bytes = t.kv_cache_bytes;
  f.input_bytes = t.input_bytes;
  double sram_bytes =
      static_cast<double>(machine.cores) * static_cast<double>(machine.sram_bytes_per_core);
  f.activation_bytes = std::max(0.0, t.peak_live_on_chip_bytes - sram_bytes);
  return f;
}

std::string describe(const OffChipFootprint& f) {
  std::string out;
  auto add = [&](const char* kind, double bytes) {
    if (bytes <= 0) return;
    out += (out.empty() ? "" : ", ") + std::string(kind) + " " + format_bytes(bytes);
  };
  add("weights", f.weight_bytes);
  add("KV cache", f.kv_cache_bytes);
  add("inputs", f.input_bytes);
  add("activations beyond SRAM", f.activation_bytes);
  return out.empty() ? "nothing" : out;
}

bool fits_off_chip(const OffChipFootprint& f, const Machine& machine) {
  return machine.off_chip_bytes == 0 ||
         f.total_bytes() <= static_cast<double>(machine.off_chip_bytes);
}

}  // namespace tessera::planner
