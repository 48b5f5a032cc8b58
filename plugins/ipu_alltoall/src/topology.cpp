#include "topology.hpp"

#include <algorithm>

namespace tessera::plugins::ipu {

namespace {

// Mk2 AMP units [D from 62.5 and 250 TFLOPS over 1472 tiles at ≈1.33 GHz]; no bf16/fp8/int
// figures are published for GC200, so those stay 0 (cannot compute) rather than guessed.
constexpr FlopsPerCycle::Table kFlopsPerCycle = {32, 128, 0, 0, 0, 0, 0};

// An all-to-all among more chips than a pod is not how IPUs are cabled; the cap also keeps the
// chips² chip links modest.
constexpr int64_t kMaxChips = 64;
constexpr int64_t kMaxCoresPerChip = 1 << 16;
// Endpoint and link tables grow with the tile count; this keeps them under ~50 MB.
constexpr int64_t kMaxTiles = 1 << 18;
constexpr int64_t kMaxControllers = 1024;

}  // namespace

IpuTopology::IpuTopology(const sdk::Params& params)
    : TableTopology(params, 1.325e9, kFlopsPerCycle) {
  read_params(params);
  build(read_placement(params));
}

void IpuTopology::read_params(const sdk::Params& params) {
  name_ = params.get_string("name", "ipu-mk2");
  chips_ = get_count(params, "chips", 1, kMaxChips);
  cores_per_chip_ = get_count(params, "cores_per_chip", 1472, kMaxCoresPerChip);
  if (int64_t{chips_} * cores_per_chip_ > kMaxTiles)
    throw sdk::invalid_argument("parameters 'chips' x 'cores_per_chip': more than " +
                                std::to_string(kMaxTiles) + " tiles");
  sram_bytes_per_core_ =
      static_cast<uint64_t>(params.get_int("sram_bytes_per_core", 624 * 1024, 1));
  sram_bytes_per_cycle_ = params.get_double("sram.bytes_per_cycle", 16, 0.0);
  exchange_bytes_per_cycle_ = params.get_double("exchange.bytes_per_cycle", 4, 0.0);
  exchange_latency_s_ = params.get_non_negative("exchange.latency_cycles", 30) / clock_hz_;
  hbm_controllers_ = get_count(params, "hbm.controllers", 4, kMaxControllers);
  hbm_bytes_per_s_ = params.get_double("hbm.bytes_per_s", 4e12, 0.0);
  hbm_latency_s_ = params.get_non_negative("hbm.latency_cycles", 30) / clock_hz_;
  // Two chips get all ten IPU-Links between them; more chips share them evenly.
  double per_pair_default = 160e9 / std::max<uint32_t>(1, chips_ - 1);
  chip_link_bytes_per_s_ = params.get_double("chip_link.bytes_per_s", per_pair_default, 0.0);
  chip_link_latency_s_ = params.get_non_negative("chip_link.latency_s", 250e-9);
}

std::vector<int64_t> IpuTopology::read_placement(const sdk::Params& params) const {
  std::vector<int64_t> placement = params.get_int_list("hbm.placement", 0, cores_per_chip_ - 1);
  if (placement.empty()) {
    // Centre of each of n equal stretches of tiles, so no controller is favoured.
    for (uint32_t i = 0; i < hbm_controllers_; ++i)
      placement.push_back((2 * int64_t{i} + 1) * cores_per_chip_ / (2 * int64_t{hbm_controllers_}));
  } else if (placement.size() != hbm_controllers_) {
    throw sdk::invalid_argument(
        "parameter 'hbm.placement': lists " + std::to_string(placement.size()) + " tiles for " +
        std::to_string(hbm_controllers_) + " controllers ('hbm.controllers')");
  }
  return placement;
}

void IpuTopology::build(const std::vector<int64_t>& placement) {
  double exchange_bytes_per_s = exchange_bytes_per_cycle_ * clock_hz_;
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t tile = 0; tile < cores_per_chip_; ++tile)
      tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_CORE, chip, static_cast<int32_t>(tile),
                                         -1, sram_bytes_per_core_),
                           "chip" + std::to_string(chip) + ".tile" + std::to_string(tile));
  first_exchange_ = tables_.num_endpoints();
  for (uint32_t chip = 0; chip < chips_; ++chip)
    tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_ROUTER, chip, -1, -1, 0),
                         "chip" + std::to_string(chip) + ".exchange");
  first_hbm_ = tables_.num_endpoints();
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t c = 0; c < hbm_controllers_; ++c)
      tables_.add_endpoint(flat_endpoint(TESSERA_ENDPOINT_MEMORY_CONTROLLER, chip,
                                         static_cast<int32_t>(placement[c]), -1, 0),
                           "chip" + std::to_string(chip) + ".hbm" + std::to_string(c));

  for (uint32_t core = 0; core < first_exchange_; ++core)
    tables_.add_duplex(core, exchange_of_chip(core / cores_per_chip_), TESSERA_LINK_ON_CHIP, 0,
                       exchange_bytes_per_s, exchange_latency_s_);
  double controller_bytes_per_s = hbm_bytes_per_s_ / hbm_controllers_;
  for (uint32_t chip = 0; chip < chips_; ++chip)
    for (uint32_t c = 0; c < hbm_controllers_; ++c)
      tables_.add_duplex(hbm_controller(chip, c), exchange_of_chip(chip), TESSERA_LINK_MEMORY, 0,
                         controller_bytes_per_s, hbm_latency_s_);
  for (uint32_t from = 0; from < chips_; ++from)
    for (uint32_t to = 0; to < chips_; ++to)
      if (from != to)
        tables_.add_link(exchange_of_chip(from), exchange_of_chip(to), TESSERA_LINK_CHIP_TO_CHIP, 0,
                         chip_link_bytes_per_s_, chip_link_latency_s_);
}

tessera_topology_info IpuTopology::info() const {
  return make_info(tables_, chips_ * cores_per_chip_, chips_, 0, sram_bytes_per_core_,
                   sram_bytes_per_cycle_ * clock_hz_, clock_hz_, name_);
}

// Every endpoint but an exchange hangs off its chip's exchange, so a route is at most
// endpoint -> own exchange -> other exchange -> endpoint.
void IpuTopology::route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const {
  if (src == dst) return;
  auto hub = [&](uint32_t e) {
    bool is_exchange = e >= first_exchange_ && e < first_hbm_;
    return is_exchange ? e : exchange_of_chip(tables_.endpoint(e).chip);
  };
  uint32_t from = hub(src);
  uint32_t to = hub(dst);
  if (src != from) links.push_back(tables_.link_between(src, from));
  if (from != to) links.push_back(tables_.link_between(from, to));
  if (to != dst) links.push_back(tables_.link_between(to, dst));
}

}  // namespace tessera::plugins::ipu
