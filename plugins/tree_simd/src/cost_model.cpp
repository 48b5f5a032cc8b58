#include "cost_model.hpp"

#include <algorithm>
#include <limits>

namespace tessera::plugins::tree {

namespace {

constexpr double kHeaderBytes = 8;  // [U] per packet on the tree

bool is_matmul_like(uint32_t kind) {
  return kind == TESSERA_OP_MATMUL || kind == TESSERA_OP_BATCHED_MATMUL || kind == TESSERA_OP_CONV;
}

double vector_ops_per_element(uint32_t kind) {
  switch (kind) {
    case TESSERA_OP_UNARY:
      return 4;
    case TESSERA_OP_NORMALIZATION:
      return 4;
    case TESSERA_OP_SOFTMAX:
      return 5;
    default:
      return 1;
  }
}

}  // namespace

TreeCostModel::TreeCostModel(const sdk::Params& params)
    : chip_(std::make_shared<const TreeChip>(params)) {}

tessera_cost_model_info TreeCostModel::info() const {
  tessera_cost_model_info out{};
  // A barrier climbs the whole tree and comes back down [D].
  out.sync_s = 2.0 * chip_->num_levels() * chip_->link_latency_s();
  out.clock_hz = chip_->clock_hz();
  out.shift_bytes_per_s = chip_->level(chip_->lowest_level()).down_bytes_per_s;
  return out;
}

double TreeCostModel::tile_seconds(const tessera_tile_query& q) const {
  uint32_t bytes = dtype_bytes(q.dtype);
  if (bytes == 0) return std::numeric_limits<double>::infinity();
  double memory_s = (q.bytes_in + q.bytes_out) / chip_->sram_bytes_per_s();
  if (is_matmul_like(q.op_kind)) {
    double rate = chip_->flops_per_s(static_cast<tessera_dtype>(q.dtype));
    if (rate <= 0) return std::numeric_limits<double>::infinity();
    double flops = q.flops > 0 ? q.flops
                               : 2.0 * static_cast<double>(std::max<uint64_t>(q.batch, 1)) *
                                     static_cast<double>(q.m) * static_cast<double>(q.k) *
                                     static_cast<double>(q.n);
    return std::max(flops / rate, memory_s);
  }
  double vector_s = static_cast<double>(q.elements) * vector_ops_per_element(q.op_kind) * bytes /
                    chip_->vector_bytes_per_s();
  return std::max(vector_s, memory_s);
}

double TreeCostModel::transfer_seconds(const tessera_transfer_query& q) const {
  double payload = q.bytes;
  if (q.packet_bytes > 0 && q.bytes > 0)
    payload = q.bytes * (q.packet_bytes + kHeaderBytes) / q.packet_bytes;
  uint32_t hops = std::max<uint32_t>(q.hops, 1);
  double latency = hops * chip_->link_latency_s();
  if (q.link_class == TESSERA_LINK_MEMORY) return latency + payload / chip_->dram_bytes_per_s();
  if (q.link_class == TESSERA_LINK_CHIP_TO_CHIP)
    return latency + payload / chip_->level(0).down_bytes_per_s;
  // Up ceil(h/2) levels from the lowest and down again: the slowest edge on the way sets the rate.
  uint32_t climb = std::min((hops + 1) / 2, chip_->num_levels());
  double rate = std::numeric_limits<double>::infinity();
  for (uint32_t i = 0; i < climb; ++i) {
    const TreeLevel& l = chip_->level(chip_->lowest_level() - i);
    rate = std::min({rate, l.up_bytes_per_s, l.down_bytes_per_s});
  }
  return latency + payload / rate;
}

double TreeCostModel::distribute_seconds(uint32_t level, double bytes_per_child) const {
  return chip_->link_latency_s() + bytes_per_child / chip_->level(level).down_bytes_per_s;
}

double TreeCostModel::multicast_seconds(uint32_t level, double bytes) const {
  return distribute_seconds(level, bytes);
}

double TreeCostModel::combine_seconds(uint32_t level, double bytes_per_child) const {
  return chip_->link_latency_s() + bytes_per_child / chip_->level(level).up_bytes_per_s;
}

}  // namespace tessera::plugins::tree
