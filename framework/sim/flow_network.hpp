// A flow-level network: links with a capacity, and flows — a number of bytes along a list of
// links — that share every link max-min fairly (progressive filling: the most contended link fixes
// the rate of its flows, its capacity is removed from their other links, repeat). Rates are
// recomputed only when asked (after flows start or end), so a batch of starts costs one solve.
// Latency is the caller's: a flow joins the network when its first byte has crossed the route.
//
// A flow may be a whole transfer set (link_load.hpp) whose transfers progress together: its bytes
// are one transfer's, its route lists every link the set crosses with a weight, the transfers
// crossing it (the link's bytes over one transfer's). At rate r it puts r × weight on each link,
// so progressive filling shares a link per transfer, as if each were a flow of its own, and a set
// alone finishes in the link-load bound. A plain flow is the set of one transfer (weights 1).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

namespace tessera::sim {

// What a link is, for utilisation reports. `hbm` is a memory controller's own rate (the
// MemoryModel's), `sram_port` a core's SRAM port, shared by compute and transfers.
enum class LinkClass : uint8_t { on_chip, memory, chip_to_chip, hbm, sram_port };
inline constexpr size_t kLinkClasses = 5;
const char* to_string(LinkClass link_class);

// What a flow carries, for the reports. `compute` is local_execute's use of the SRAM port.
enum class FlowKind : uint8_t { preload, distribute, compute, shift, reduce, writeback };
inline constexpr size_t kFlowKinds = 6;
const char* to_string(FlowKind kind);

// Max-min fair rates of the flows whose routes are `routes` (link indices) over links of
// `capacity_bytes_per_s`, into `rates` (resized). A link listed twice in a route carries the
// flow's rate twice (a transfer that reads and writes the same SRAM port). A flow with an empty
// route gets infinity. `weights`, when not empty, holds per flow one weight (> 0) per route entry.
void max_min_rates(std::span<const double> capacity_bytes_per_s,
                   std::span<const std::span<const uint32_t>> routes, std::vector<double>& rates,
                   std::span<const std::span<const double>> weights = {});

// The working memory of progressive filling, kept between solves so that a warm solve allocates
// nothing: per link (indexed by link) and per flow arrays, and the flows crossing each used link
// laid out back to back.
struct FillingScratch {
  std::vector<double> residual_bytes_per_s;  // per link: capacity not yet given to frozen flows
  std::vector<double> share_bytes_per_s;     // per link: residual / weight, while count > 0
  std::vector<double> weight;                // per link: weights of unfrozen flows' entries on it
  std::vector<uint32_t> count;               // per link: route entries of unfrozen flows on it
  std::vector<uint32_t> first, end;          // per link: its range in flows_on
  std::vector<uint32_t> flows_on;            // flow positions, grouped by link, in flow order
  std::vector<uint32_t> live;                // links with unfrozen flows
  std::vector<uint32_t> tied;                // live links at the least share, by index
  std::vector<uint32_t> touched;             // links whose share one freeze changed
  std::vector<uint8_t> frozen, touched_mark, tied_mark;
};

class FlowNetwork {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // Capacity > 0 bytes per second. Returns the link's index.
  uint32_t add_link(double bytes_per_s, LinkClass link_class);
  // Takes effect at the next recompute().
  void set_capacity(uint32_t link, double bytes_per_s);
  double capacity(uint32_t link) const { return capacity_[link]; }
  LinkClass link_class(uint32_t link) const { return class_[link]; }
  size_t links() const { return capacity_.size(); }

  // A route that flows run along, kept from now on: its links and, for a transfer
  // set, `weights` (one per link entry, > 0; empty: 1 each). Registered once and run many times
  // (the engine's transfer sets recur op after op and layer after layer). Returns the route's
  // index.
  uint32_t add_route(std::span<const uint32_t> links, std::span<const double> weights = {});
  // A flow of `bytes` > 0 along `route` joins now; `owner` is returned when it finishes. Its rate
  // is 0 until recompute(). Returns the flow's id (reused after it finishes).
  uint32_t add_flow(uint32_t route, double bytes, uint32_t owner, FlowKind kind);
  // A transfer set: `payload_bytes`, the bytes its transfers carry in all (for the per-kind
  // totals), as well as `bytes`, one transfer's.
  uint32_t add_set(uint32_t route, double bytes, double payload_bytes, uint32_t owner,
                   FlowKind kind);
  // Max-min fair rates of the active flows, and the per-kind and per-class totals. The rates and
  // class totals are a function of the active flows' routes in id order and the capacities of the
  // link classes they cross, so each such combination is solved once and then looked up: the
  // same bits (a decode step's layers run the same sets over the same capacities).
  void recompute();
  // Seconds until the first active flow finishes at the current rates; kNever when none is active.
  double next_finish_s() const;
  // Moves every flow forward `seconds`; appends the owners of the flows that finished (in flow id
  // order, so ties break the same way on every run) to `finished`, and their ids to `ids`.
  void advance(double seconds, std::vector<uint32_t>& finished, std::vector<uint32_t>& ids);

  double rate(uint32_t flow) const { return flows_[flow].rate; }
  size_t active() const { return active_.size(); }
  std::span<const uint32_t> active_ids() const { return active_; }  // ascending
  // Bytes per second the active flows of a kind carry (a set: its payload's rate) / put on the
  // links of a class (a flow counts once per link of the class on its route, times its weight
  // there). Valid after recompute().
  double kind_rate(FlowKind kind) const { return kind_rate_[static_cast<size_t>(kind)]; }
  double class_rate(LinkClass c) const { return class_rate_[static_cast<size_t>(c)]; }
  double class_capacity(LinkClass c) const { return class_capacity_[static_cast<size_t>(c)]; }

 private:
  struct Flow {
    uint32_t route = 0;
    double bytes = 0, remaining = 0, rate = 0;
    double payload_per_byte = 1;  // bytes its transfers carry per byte of `bytes`
    uint32_t owner = 0;
    FlowKind kind = FlowKind::preload;
  };
  struct Route {
    std::vector<uint32_t> links;
    std::vector<double> weights;  // empty: 1 per entry
    std::array<bool, kLinkClasses> crosses{};
    double weight(size_t k) const { return weights.empty() ? 1.0 : weights[k]; }
  };
  // A solve: the rates progressive filling gave, per active flow in id order, and what they put
  // on each link class, summed in flow and entry order.
  struct Solution {
    std::vector<double> rates;
    std::array<double, kLinkClasses> class_rate{};
  };
  struct KeyHash {
    size_t operator()(const std::vector<uint64_t>& key) const;
  };
  // Adds rate × weight of each of the route's entries to `into`, per link class, in entry order.
  void add_class_rates(const Route& route, double rate,
                       std::array<double, kLinkClasses>& into) const;
  // The key of the active flows' solve: per class, its capacities' id if a route crosses it (else
  // a mark that it is not crossed), then the routes in flow id order.
  const std::vector<uint64_t>& solve_key();
  // Progressive filling of the active flows.
  Solution solve();
  std::vector<Route> routes_;
  // Per link class: its links; whether a capacity changed since its id was taken; the id of its
  // capacities by content (equal capacities, equal id, so a solve recurs when they come back).
  std::array<std::vector<uint32_t>, kLinkClasses> class_links_;
  std::array<bool, kLinkClasses> class_changed_{};
  std::array<uint64_t, kLinkClasses> class_capacities_id_{};
  std::array<std::map<std::vector<double>, uint64_t>, kLinkClasses> capacities_ids_;
  std::unordered_map<std::vector<uint64_t>, Solution, KeyHash> solved_;
  std::vector<uint64_t> key_scratch_;
  std::vector<double> capacity_;
  std::vector<LinkClass> class_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> active_, free_;
  std::array<double, kFlowKinds> kind_rate_{};
  std::array<double, kLinkClasses> class_rate_{}, class_capacity_{};
  // Scratch of solve(), kept to avoid allocating per solve.
  FillingScratch filling_;
};

}  // namespace tessera::sim
