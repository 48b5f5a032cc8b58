#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace tessera::plugins::mesh {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// `extent` rounded up to whole tiles of `tile` (at least one).
double padded(uint64_t extent, uint64_t tile) {
  return static_cast<double>((std::max<uint64_t>(extent, 1) + tile - 1) / tile * tile);
}

// FPU work per cycle relative to LoFi: each extra fidelity phase is another pass over the tile.
double fidelity_share(uint32_t fidelity) {
  return fidelity <= TESSERA_MATH_FIDELITY_LOFI ? 1.0 : 1.0 / fidelity;
}

uint32_t parse_fidelity(const sdk::Params& params) {
  std::string name = params.get_choice("fidelity", "lofi", {"lofi", "hifi2", "hifi3", "hifi4"});
  if (name == "hifi2") return TESSERA_MATH_FIDELITY_HIFI2;
  if (name == "hifi3") return TESSERA_MATH_FIDELITY_HIFI3;
  if (name == "hifi4") return TESSERA_MATH_FIDELITY_HIFI4;
  return TESSERA_MATH_FIDELITY_LOFI;
}

// "bytes:rate" pairs from `noc.rate_by_size.N`; the Wormhole table when absent.
std::vector<std::pair<double, double>> read_rate_table(const sdk::Params& params) {
  std::vector<std::pair<double, double>> table;
  for (size_t i = 0;; ++i) {
    std::string key = "noc.rate_by_size." + std::to_string(i);
    auto text = params.find(key);
    if (!text) break;
    size_t colon = text->find(':');
    char* end = nullptr;
    double bytes = colon == std::string::npos ? 0 : std::strtod(text->c_str(), &end);
    double rate = colon == std::string::npos ? 0 : std::strtod(text->c_str() + colon + 1, &end);
    if (colon == std::string::npos || !(bytes > 0) || !(rate > 0) ||
        (!table.empty() && bytes <= table.back().first))
      throw sdk::invalid_argument("parameter '" + key +
                                  "': expected \"bytes:bytes_per_cycle\" with "
                                  "both positive and sizes ascending, got '" +
                                  *text + "'");
    table.emplace_back(bytes, rate);
  }
  if (table.empty()) table = {{128, 5.5}, {256, 10.1}, {512, 18.0}, {1024, 27.4}, {2048, 30.0}};
  return table;
}

}  // namespace

TensixCostModel::TensixCostModel(const sdk::Params& params)
    : clock_hz_(params.get_double("clock_hz", 1e9, 0.0)),
      sfpu_lanes_(params.get_double("sfpu_lanes", 32, 0.0)),
      fpu_tile_(static_cast<uint64_t>(params.get_int("fpu_tile", 32, 1))),
      op_overhead_cycles_(params.get_non_negative("op_overhead_cycles", 0)),
      hop_latency_cycles_(params.get_non_negative("hop_latency_cycles", 9)),
      rate_by_size_(read_rate_table(params)),
      dram_bytes_per_cycle_(params.get_double("dram_bytes_per_cycle", 23.2, 0.0)),
      ethernet_bytes_per_cycle_(params.get_double("ethernet_bytes_per_cycle", 12.5, 0.0)),
      sync_cycles_(params.get_non_negative("sync_cycles", 1000)),
      dispatch_host_s_(params.get_non_negative("dispatch_host_s", 0)),
      dispatch_traced_s_(params.get_non_negative("dispatch_traced_s", 0)),
      launch_s_(params.get_non_negative("launch_s", 19e-6)) {
  // Under `tile_edge` (the topology's blocks.hpp) a core is a block of k x k of these.
  const auto pes = static_cast<double>(params.get_int("tile_edge", 1, 1, 64));
  fpu_lofi_flops_per_cycle_ = params.get_double("fpu_flops_per_cycle", 4096, 0.0) * pes * pes;
  sfpu_lanes_ *= pes * pes;
  fidelity_ = parse_fidelity(params);
  params.refuse_unless_per_core("hop_latency_cycles", "hop_latency_cycles");
  params.refuse_unless_per_core("noc.rate_by_size", "link_bytes_per_cycle");
  params.refuse_unless_per_core("dram_bytes_per_cycle", "dram.bytes_per_s");
  params.refuse_unless_per_core("ethernet_bytes_per_cycle", "ethernet.bytes_per_s");
}

double TensixCostModel::fpu_flops_per_cycle(uint32_t math_fidelity) const {
  if (math_fidelity == TESSERA_MATH_FIDELITY_DEFAULT) math_fidelity = fidelity_;
  if (math_fidelity > TESSERA_MATH_FIDELITY_HIFI4)
    throw sdk::invalid_argument("math_fidelity " + std::to_string(math_fidelity) +
                                " is not a tessera_math_fidelity (0 to 4)");
  return fpu_lofi_flops_per_cycle_ * fidelity_share(math_fidelity);
}

double TensixCostModel::noc_bytes_per_cycle(double packet_bytes) const {
  if (packet_bytes <= rate_by_size_.front().first) return rate_by_size_.front().second;
  for (size_t i = 1; i < rate_by_size_.size(); ++i) {
    auto [b1, r1] = rate_by_size_[i];
    if (packet_bytes <= b1) {
      auto [b0, r0] = rate_by_size_[i - 1];
      return r0 + (r1 - r0) * (packet_bytes - b0) / (b1 - b0);
    }
  }
  return rate_by_size_.back().second;
}

double TensixCostModel::matrix_cycles(const tessera_tile_query& q) const {
  double rate = 0;
  switch (q.dtype) {
    case TESSERA_DTYPE_FP16:
    case TESSERA_DTYPE_BF16:
    case TESSERA_DTYPE_FP8:
    case TESSERA_DTYPE_INT8:
    case TESSERA_DTYPE_BFP8:  // unpacked to the FPU's format as it is read (ABI 1.2)
    case TESSERA_DTYPE_BFP4:  // (ABI 1.5)
    case TESSERA_DTYPE_BFP2:
      rate = fpu_flops_per_cycle(q.math_fidelity);
      break;
    case TESSERA_DTYPE_FP32:
      rate = fpu_flops_per_cycle(TESSERA_MATH_FIDELITY_HIFI4);
      break;
    default:
      return kInfinity;
  }
  if (q.op_kind == TESSERA_OP_CONV) return q.flops / rate;
  double batch = static_cast<double>(std::max<uint64_t>(q.batch, 1));
  return batch * 2 * padded(q.m, fpu_tile_) * padded(q.k, fpu_tile_) * padded(q.n, fpu_tile_) /
         rate;
}

double TensixCostModel::cycles(const tessera_tile_query& q) const {
  double out = static_cast<double>(q.elements);
  double in = q.bytes_in / 2;
  switch (q.op_kind) {
    case TESSERA_OP_MATMUL:
    case TESSERA_OP_BATCHED_MATMUL:
    case TESSERA_OP_CONV:
      return matrix_cycles(q);
    case TESSERA_OP_ELEMENTWISE:
    case TESSERA_OP_UNARY:
      return out / sfpu_lanes_;
    case TESSERA_OP_SOFTMAX:
    case TESSERA_OP_NORMALIZATION:
      return 4 * out / sfpu_lanes_;
    case TESSERA_OP_REDUCTION:
    case TESSERA_OP_GATHER:
    case TESSERA_OP_DATA_MOVEMENT:
    case TESSERA_OP_OTHER:
      return std::max(in, out) / sfpu_lanes_;
    default:
      return kInfinity;
  }
}

double TensixCostModel::tile_seconds(const tessera_tile_query& query) const {
  return (op_overhead_cycles_ + cycles(query)) / clock_hz_;
}

double TensixCostModel::transfer_seconds(const tessera_transfer_query& q) const {
  double packet = q.packet_bytes > 0 ? q.packet_bytes : q.bytes;
  double latency = q.hops * hop_latency_cycles_;
  switch (q.link_class) {
    case TESSERA_LINK_ON_CHIP:
      return (latency + q.bytes / noc_bytes_per_cycle(packet)) / clock_hz_;
    case TESSERA_LINK_MEMORY:
      return (latency + q.bytes / std::min(dram_bytes_per_cycle_, noc_bytes_per_cycle(packet))) /
             clock_hz_;
    case TESSERA_LINK_CHIP_TO_CHIP:
      return (latency + q.bytes / ethernet_bytes_per_cycle_) / clock_hz_;
    default:
      throw sdk::invalid_argument("link_class " + std::to_string(q.link_class) +
                                  " is not a tessera_link_class");
  }
}

tessera_cost_model_info TensixCostModel::info() const {
  tessera_cost_model_info i{};
  i.sync_s = sync_cycles_ / clock_hz_;
  i.clock_hz = clock_hz_;
  i.shift_bytes_per_s = noc_bytes_per_cycle(rate_by_size_.back().first) * clock_hz_;
  i.dispatch_host_s = dispatch_host_s_;
  i.dispatch_traced_s = dispatch_traced_s_;
  i.launch_s = launch_s_;
  return i;
}

}  // namespace tessera::plugins::mesh
