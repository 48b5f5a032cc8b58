#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::plugins::ipu {

namespace {

double ceil_div(uint64_t a, uint64_t b) {
  return static_cast<double>((a + b - 1) / b);
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// fp32 AMP throughput is a quarter of fp16's on Mk2 (62.5 vs 250 TFLOPS [S]).
constexpr double kFp32MacSlowdown = 4.0;

}  // namespace

IpuCostModel::IpuCostModel(const sdk::Params& params)
    : clock_hz_(params.get_double("clock_hz", 1.325e9, 0.0)),
      shift_cycles_per_byte_(params.get_double("shift_cycles_per_byte", 0.28, 0.0)),
      sync_cycles_(params.get_non_negative("sync_cycles", 118)),
      chips_(params.get_int("chips", 1, 1, 1024)),
      multi_chip_factor_(params.get_double("multi_chip_factor", 1.25, 0.0)),
      distribute_bytes_per_s_(params.get_double("distribute_bytes_per_s", 5.5e9, 0.0)),
      chip_link_bytes_per_s_(clock_hz_ / shift_cycles_per_byte_ / multi_chip_factor_),
      artifact_composed_(params.get_choice("composed_ops", "t10", {"t10", "elk_artifact"}) ==
                         "elk_artifact") {
  // Chip-to-chip traffic is priced on the topology's links in every planning convention (the
  // planner's per-core convention too reads the slowest CHIP_TO_CHIP link: chip_models.cpp), and
  // nothing asks this model for a CHIP_TO_CHIP transfer, so a rate here would be a second number
  // that moves nothing.
  if (params.has("chip_link_bytes_per_s"))
    throw sdk::invalid_argument(
        "parameter 'chip_link_bytes_per_s': the chip-to-chip rate is the topology's (set "
        "topology.chip_link.bytes_per_s); the planner and the simulator price chip-to-chip "
        "traffic on its links");
  // Under routes the exchange prices shifts and preloads alike, both entering a tile through its
  // exchange port; the artifact's composed slice still reads the shift rate.
  if (!artifact_composed_)
    params.refuse_unless_per_core("shift_cycles_per_byte", "exchange.bytes_per_cycle");
  params.refuse_unless_per_core("distribute_bytes_per_s", "exchange.bytes_per_cycle");
}

double IpuCostModel::matmul_cycles(uint64_t m, uint64_t k, uint64_t n) {
  if (m == 0 || k == 0 || n == 0) return 0;
  double k16 = ceil_div(k, 16), n16 = ceil_div(n, 16);
  return 24 * ceil_div(m, 6) * k16 * n16 + 514 * k16 * n16 + 113 * n16 + 173;
}

double IpuCostModel::elementwise_cycles(double elements) {
  constexpr double kSmallTileCap = 8517;
  if (elements <= 16432) return std::min(kSmallTileCap, 0.75 * elements + 290);
  return std::max(kSmallTileCap, 0.5 * elements + 300);
}

double IpuCostModel::unary_cycles(double elements) {
  return 0.5 * elements + 200;
}

double IpuCostModel::artifact_reduce_cycles(double out_elements, double inputs_per_output) {
  double a = out_elements;
  if (a > 2) {
    for (double size : {4.0, 8.0, 12.0, 16.0, 24.0}) {
      a = std::max(size, a);
      if (a <= size) break;
    }
    if (a > 24) a = std::ceil(a / 48) * 48;
  }
  double x = a * inputs_per_output;
  return x <= 480 ? std::min(481 * 0.25 + 175, 1.5 * x + 175) : 0.25 * x + 175;
}

double IpuCostModel::cycles(const tessera_tile_query& q) const {
  double out = static_cast<double>(q.elements);
  double in = q.bytes_in / 2;  // the fit counts 2-byte elements
  switch (q.op_kind) {
    case TESSERA_OP_MATMUL:
    case TESSERA_OP_BATCHED_MATMUL: {
      double batch = static_cast<double>(std::max<uint64_t>(q.batch, 1));
      if (q.dtype == TESSERA_DTYPE_FP16) return batch * matmul_cycles(q.m, q.k, q.n);
      if (q.dtype != TESSERA_DTYPE_FP32) return kInfinity;
      double mac = 24 * ceil_div(q.m, 6) * ceil_div(q.k, 16) * ceil_div(q.n, 16);
      return batch * (matmul_cycles(q.m, q.k, q.n) + (kFp32MacSlowdown - 1) * mac);
    }
    case TESSERA_OP_CONV:
      return 0.0495 * q.flops + 2030;
    case TESSERA_OP_ELEMENTWISE:
      return elementwise_cycles(out);
    case TESSERA_OP_UNARY:
      return unary_cycles(out);
    case TESSERA_OP_REDUCTION:
      if (artifact_composed_) return artifact_reduce_cycles(out, std::max(1.0, in / out));
      return unary_cycles(std::max(in, out));
    case TESSERA_OP_DATA_MOVEMENT:
      if (artifact_composed_)
        return static_cast<double>(q.bytes_out) * shift_cycles_per_byte_ + sync_cycles_;
      return unary_cycles(std::max(in, out));
    case TESSERA_OP_GATHER:
    case TESSERA_OP_OTHER:
      return unary_cycles(std::max(in, out));
    case TESSERA_OP_SOFTMAX:
      return 3 * unary_cycles(out) + elementwise_cycles(out);
    case TESSERA_OP_NORMALIZATION:
      return 2 * unary_cycles(out) + 2 * elementwise_cycles(out);
    default:
      return kInfinity;
  }
}

double IpuCostModel::tile_seconds(const tessera_tile_query& query) const {
  // A gather or data movement copies bytes, and the fit's pass over them does not depend on what
  // they encode: an int32 index (a top-k MoE's routing) moves as fp32 does.
  bool moves = query.op_kind == TESSERA_OP_DATA_MOVEMENT || query.op_kind == TESSERA_OP_GATHER;
  if (!moves && query.dtype != TESSERA_DTYPE_FP16 && query.dtype != TESSERA_DTYPE_FP32)
    return kInfinity;
  return cycles(query) / clock_hz_;
}

double IpuCostModel::transfer_seconds(const tessera_transfer_query& q) const {
  switch (q.link_class) {
    case TESSERA_LINK_ON_CHIP:
      return span_factor() * q.bytes * shift_cycles_per_byte_ / clock_hz_;
    case TESSERA_LINK_MEMORY:
      return q.bytes / distribute_bytes_per_s_;
    case TESSERA_LINK_CHIP_TO_CHIP:
      return q.bytes / chip_link_bytes_per_s_;
    default:
      throw sdk::invalid_argument("link_class " + std::to_string(q.link_class) +
                                  " is not a tessera_link_class");
  }
}

tessera_cost_model_info IpuCostModel::info() const {
  tessera_cost_model_info i{};
  i.sync_s = span_factor() * sync_cycles_ / clock_hz_;
  i.clock_hz = clock_hz_;
  i.shift_bytes_per_s = clock_hz_ / shift_cycles_per_byte_ / span_factor();
  return i;
}

}  // namespace tessera::plugins::ipu
