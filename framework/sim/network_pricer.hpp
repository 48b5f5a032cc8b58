// The planner's prices (planner/pricing.hpp) from the simulator's own transfer sets: the chip's
// Topology read once (scaled as the chip file says), each exchange laid on its routes by make_set
// and timed alone by SetPlan::alone_s — the numbers the simulator starts every such set with, so
// a plan's estimate and its simulation differ only where sets share links.
#pragma once

#include <tbb/enumerable_thread_specific.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "framework/chip/chip_models.hpp"
#include "framework/planner/pricing.hpp"
#include "framework/sim/sim_network.hpp"
#include "framework/sim/transfer_sets.hpp"

namespace tessera::sim {

class FlowNetworkPricer final : public planner::NetworkPricer {
 public:
  // `chip` must outlive the pricer (routes are asked of its Topology). Errors: read_chip_graph's.
  static Result<std::unique_ptr<FlowNetworkPricer>> build(const ChipModels& chip);
  // On a chip graph (its route function must stay valid); `hbm_latency_s`: the memory's first
  // byte, which a preload's latency includes. Errors: SimNetwork::build's.
  static Result<std::unique_ptr<FlowNetworkPricer>> build(const ChipGraph& chip,
                                                          double hbm_latency_s);

  Result<planner::SetPrice> exchange(const planner::OpTraffic& traffic, planner::Exchange kind,
                                     int level) const override;
  // Kept by the shape: an exchange is laid and keyed by its partners (exchange) only the first
  // time its shape is priced, as most candidates of a class, and of classes alike, repeat the
  // shapes of others.
  Result<planner::SetPrice> exchange_by_shape(
      const std::vector<uint32_t>& shape, planner::Exchange kind, int level,
      const std::function<Result<const planner::OpTraffic*>()>& lay) const override;
  Result<planner::SetPrice> preload(uint32_t cores,
                                    const planner::OpTraffic* placed) const override;
  Result<planner::SetPrice> ring(uint32_t cores, const planner::OpTraffic* placed) const override;
  Result<planner::SetPrice> handoff(const planner::HandOff& handoff, uint32_t cores) const override;
  double fastest_transfer_bytes_per_s() const override { return fastest_bytes_per_s_; }
  std::optional<planner::CoreGrid> core_grid() const override { return grid_; }

 private:
  FlowNetworkPricer(SimNetwork net, double hbm_latency_s, double fastest_bytes_per_s,
                    std::optional<planner::CoreGrid> grid)
      : net_(std::move(net)),
        hbm_latency_s_(hbm_latency_s),
        fastest_bytes_per_s_(fastest_bytes_per_s),
        grid_(grid) {}
  Result<planner::SetPrice> price(const TrafficKey& key) const;
  // price({kind, cores}) of a set laid on the cores `placed` names (OpTraffic::physical), kept by
  // them; without them on each chip's first `cores` cores, kept in `kept`.
  Result<planner::SetPrice> by_cores(std::map<uint32_t, planner::SetPrice>& kept, Traffic kind,
                                     uint32_t cores, const planner::OpTraffic* placed) const;
  // price(set), kept under `key` (what the set's transfers are: kind, level, cores, partners and
  // the cores' places).
  Result<planner::SetPrice> cached(std::vector<uint32_t> key, const TrafficKey& set) const;
  // The preload every exchange is priced beside: one to every core, its transfers per link.
  Status lay_beside_preload();
  // s_per_byte of `set` beside that preload at each kPreloadBusy point (pricing.hpp).
  planner::BesideSeconds beside_s_per_byte(const SetPlan& set) const;

  // Identical exchanges recur (the rotations of one spatial plan share its gather and combine;
  // classes share factorisations), so prices are kept by what the set's transfers are: kind,
  // level, the cores' partners and places. Bounded: cleared when its keys pass kMaxCachedWords.
  struct KeyHash {
    size_t operator()(const std::vector<uint32_t>& key) const;
  };
  // 128 MiB of keys: on mncore2's 4096 cores a key is ~3,800 words, and googlenet's classes
  // price ~9,500 distinct sets; at 32 MiB the cache was cleared 8 times and priced twice as many.
  static constexpr size_t kMaxCachedWords = size_t{32} << 20;

  SimNetwork net_;
  double hbm_latency_s_;
  double fastest_bytes_per_s_;
  std::optional<planner::CoreGrid> grid_;
  // Per FlowNetwork link: the full preload's transfers crossing it (0 on the links an exchange
  // shares only through SRAM ports, which the scheduler charges as sram_port_s, and off its
  // routes), and each transfer's rate when its busiest network link is saturated.
  std::vector<double> preload_transfers_;
  double preload_saturated_bytes_per_s_ = 0;
  mutable tbb::enumerable_thread_specific<LoadSum> scratch_;
  mutable tbb::enumerable_thread_specific<PathCache> paths_;
  mutable std::mutex mutex_;
  mutable std::map<uint32_t, planner::SetPrice> preloads_;  // by cores
  mutable std::map<uint32_t, planner::SetPrice> rings_;     // by cores
  mutable std::unordered_map<std::vector<uint32_t>, planner::SetPrice, KeyHash> exchanges_;
  mutable size_t cached_words_ = 0;
  // exchange_by_shape's prices, by kind, level and shape (a few words each; unbounded: a
  // compile has thousands of shapes).
  mutable std::unordered_map<std::vector<uint32_t>, planner::SetPrice, KeyHash> by_shape_;
};

}  // namespace tessera::sim
