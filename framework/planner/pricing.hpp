// What a plan's transfers cost on the chip's network (docs/planner.md): the planner prices every
// candidate's exchanges (op_traffic.hpp) and preloads on the topology's routes and link capacities,
// with the numbers the simulator runs them with (sim/network_pricer.hpp implements this on the
// simulator's own transfer sets: same routes, same capacities, same placement of the plan's cores
// on the chip). A set of transfers is bulk-synchronous (Elk issues each exchange as one
// instruction that waits for its last byte), so alone on an idle network its time is exact from
// the load on its links: the busiest link's bytes over its bandwidth, plus the latency of the
// route that reaches it first, and never less than the longest route plus one transfer at its
// slowest link (link_load.hpp in the simulator).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera::planner {

struct OpTraffic;  // op_traffic.hpp (which includes the partitioner's headers, and they this one)
struct HandOff;    // handoff.hpp (likewise)

// An exchange beside a preload in flight (Elk §2.3) shares the links both cross. The preload is
// described by how busy it keeps its own busiest network link: kPreloadBusy[k] of the time (its
// network time over its time in flight; 1: the network is what holds it back). BesideSeconds
// holds an exchange's seconds at those points; 0 entries: not priced beside a preload (the time
// alone stands).
inline constexpr std::array<double, 4> kPreloadBusy{0.25, 0.5, 0.75, 1.0};
using BesideSeconds = std::array<double, kPreloadBusy.size()>;

// Where busy fraction `busy` (clamped to [0, 1]) falls between the kPreloadBusy points: the
// segment's upper point and how far along it. Found once, it serves every exchange priced at that
// fraction (the order search prices each exec plan of an op at one fraction).
struct BusyPoint {
  double busy = 0;   // clamped
  int segment = -1;  // first k with busy <= kPreloadBusy[k]; -1: none (a NaN fraction)
  double t = 0;      // (busy - the point below) / (kPreloadBusy[segment] - the point below)
};
BusyPoint busy_point(double busy);

// The seconds at busy fraction `busy` (clamped to [0, 1]), linear between alone_s at 0 and the
// points of `beside`; never below alone_s.
double beside_s(double alone_s, const BesideSeconds& beside, double busy);
double beside_s(double alone_s, const BesideSeconds& beside, const BusyPoint& at);
// Adds `s` to every point of `sum`.
void add_beside(BesideSeconds& sum, const BesideSeconds& s);

// Seconds of one set as a function of the bytes it carries in all (the instruction's total).
struct SetPrice {
  double latency_s = 0;         // until the busiest link's first byte
  double s_per_byte = 0;        // the busiest link's seconds per byte of the total
  double floor_latency_s = 0;   // the longest route
  double floor_s_per_byte = 0;  // the slowest transfer alone, per byte of the total
  // s_per_byte with a preload to every core in flight beside it, at each kPreloadBusy point: on
  // each link the set gets what the preload leaves, and never less than its fair share of the
  // link per transfer (the simulator's max-min sharing). 0: not priced (s_per_byte stands).
  BesideSeconds beside_s_per_byte{};
  // Links the set's bytes cross, per byte of its total: inside a chip (core-to-core and
  // controller-to-core) and between chips. What its energy is charged on (chip/energy.hpp).
  double on_chip_links_per_byte = 0;
  double chip_links_per_byte = 0;
  double seconds(double bytes) const { return seconds_at(bytes, s_per_byte); }
  BesideSeconds seconds_beside(double bytes) const {
    BesideSeconds out{};
    for (size_t k = 0; k < out.size(); ++k)
      out[k] = seconds_at(bytes, std::max(s_per_byte, beside_s_per_byte[k]));
    return out;
  }

 private:
  double seconds_at(double bytes, double per_byte) const {
    if (!(bytes > 0)) return 0;
    return std::max(latency_s + bytes * per_byte, floor_latency_s + bytes * floor_s_per_byte);
  }
};

enum class Exchange { rotation, gather, combine };

// A one-chip machine whose cores sit in `rows` rows of `columns`, numbered row by row: Topology
// core y × columns + x sits in column x of row y, and the cores of a column line up (a 2-D mesh's
// workers). What a placement on a rectangle of the grid (op_traffic.hpp, grid_placements) needs.
struct CoreGrid {
  uint32_t columns = 0, rows = 0;
  bool operator==(const CoreGrid&) const = default;
};

// Thread-safe: the partitioner prices classes in parallel. Errors: a route the Topology cannot
// give (its error).
class NetworkPricer {
 public:
  virtual ~NetworkPricer() = default;
  // The exchange `kind` of `traffic` (combine: level `level`, as combine_transfers numbers them).
  virtual Result<SetPrice> exchange(const OpTraffic& traffic, Exchange kind, int level) const = 0;
  // The same for an exchange known by its shape (PlacementBrief::shape, op_traffic.hpp: one shape
  // and level, the same transfers), which a pricer may keep its prices by; `lay` gives the
  // placement's exchanges when the price is not kept. This one keeps nothing.
  virtual Result<SetPrice> exchange_by_shape(
      const std::vector<uint32_t>& shape, Exchange kind, int level,
      const std::function<Result<const OpTraffic*>()>& lay) const;
  // A preload onto the plan's `cores` cores (where `placed` puts them, OpTraffic::physical; null
  // or no physical cores: each chip's first ones), from the memory controllers of each core's
  // chip, on the network alone: the memory's rate and its controllers' links into the network
  // (which carry the bytes read, at the memory's pace, and scale with it in a sweep) are left to
  // the scheduler's HBM time.
  virtual Result<SetPrice> preload(uint32_t cores, const OpTraffic* placed) const = 0;
  // The even ring on an op's `cores` cores (where `placed` puts them, as preload's): each core to
  // the next of its chip, as the simulator carries a distribution whose plan names no gather ring.
  virtual Result<SetPrice> ring(uint32_t cores, const OpTraffic* placed) const = 0;
  // The activations an op of `cores` cores (on each chip's first ones) takes from other chips
  // before it runs (handoff.hpp): each move's bytes from the sending chip's cores to the op's cores
  // on the receiving chip.
  virtual Result<SetPrice> handoff(const HandOff& handoff, uint32_t cores) const = 0;
  // The most bytes per second one transfer can move at (its SRAM ports and fastest link): what
  // bounds any exchange from below before it is priced.
  virtual double fastest_transfer_bytes_per_s() const = 0;
  // The machine's cores as a grid, when they form one (CoreGrid); nullopt: no grid placements.
  virtual std::optional<CoreGrid> core_grid() const { return std::nullopt; }
};

}  // namespace tessera::planner
