#include "framework/plugin/peak.hpp"

#include <fmt/format.h>

#include <array>

namespace tessera {

namespace {

constexpr uint64_t kRows = 6144, kColumns = 512;

// tessera_math_fidelity 1 to 4 as chip files and precision files name them.
constexpr std::array<const char*, 4> kFidelityNames = {"lofi", "hifi2", "hifi3", "hifi4"};

}  // namespace

tessera_tile_query peak_matmul_tile(uint32_t dtype, double element_bytes, uint32_t math_fidelity) {
  tessera_tile_query q{};
  q.op_kind = TESSERA_OP_MATMUL;
  q.dtype = dtype;
  q.batch = 1;
  q.m = kRows;
  q.k = q.n = kColumns;
  q.elements = kRows * kColumns;
  const auto m = static_cast<double>(kRows), k = static_cast<double>(kColumns);
  q.flops = 2 * m * k * k;
  q.bytes_in = (m * k + k * k) * element_bytes;
  q.bytes_out = m * k * element_bytes;
  q.math_fidelity = math_fidelity;
  return q;
}

Result<double> matmul_flops_per_s(const CostModel& cost_model, uint32_t dtype,
                                  uint32_t math_fidelity) {
  const tessera_tile_query q = peak_matmul_tile(dtype, 2, math_fidelity);
  auto seconds = cost_model.tile_seconds({q});
  if (!seconds) return seconds.error();
  return q.flops / seconds->at(0);
}

Status check_peaks(const Topology& topology, const CostModel& cost_model,
                   const std::vector<uint32_t>& dtypes) {
  for (uint32_t dtype : dtypes) {
    auto peak = topology.peak_flops_per_s(dtype);
    if (!peak) return peak.error();
    auto achieved = matmul_flops_per_s(cost_model, dtype);
    if (!achieved) return achieved.error();
    if (*achieved <= *peak * (1 + 1e-9) && *achieved >= kLeastShareOfPeak * *peak) continue;
    const char* name = dtype_name(dtype);
    return input_error(fmt::format(
        "the topology's {0} peak, {1:.4g} TFLOP/s per core (what reports, utilisation and the "
        "Ideal design divide by), and the rate its cost model times a large {0} matmul at, "
        "{2:.4g} TFLOP/s per core (what plans and simulations take), are one fact: the second "
        "must lie between {3:g} and 1 times the first; make the topology's clock_hz × "
        "`flops_per_cycle.{0}` and the cost model's clock and compute rate agree",
        name, *peak / 1e12, *achieved / 1e12, kLeastShareOfPeak));
  }
  return ok_status();
}

Result<std::string> default_fidelity(const CostModel& cost_model, uint32_t dtype) {
  auto chosen = matmul_flops_per_s(cost_model, dtype);
  if (!chosen) return chosen.error();
  std::string name;
  bool varies = false;
  for (uint32_t f = TESSERA_MATH_FIDELITY_LOFI; f <= TESSERA_MATH_FIDELITY_HIFI4; ++f) {
    auto rate = matmul_flops_per_s(cost_model, dtype, f);
    if (!rate) return rate.error();
    if (*rate != *chosen) varies = true;
    if (*rate == *chosen && name.empty()) name = kFidelityNames[f - 1];
  }
  return varies ? name : std::string();
}

}  // namespace tessera
