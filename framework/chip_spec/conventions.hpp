// Planning conventions a chip file may fix (its `planner:` section): how the planner accounts for
// what the chip's plugins leave open, so that Tessera can plan with another tool's accounting —
// the Elk artifact's (the `elk-*` presets, docs/validation.md) — and a reader can move one
// convention at a time between that and Tessera's own (the defaults). They change per-op plans and
// the scheduler's costs, never the simulator: a simulated step is the chip's, whatever the plan
// assumed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Which way a core computes a matmul tile Z = A·B: the cost model is asked for A·B and for
// Zᵀ = Bᵀ·Aᵀ (m and n swapped) and the plan keeps
//   fastest       the faster of the two (Tessera's default);
//   as_written    A·B as the op's Einsum roles give it;
//   elk_artifact  the larger of m and n as m, unless that one is at most 16, then the smaller
//                 (the Elk artifact's TensorExpression.get_comp_time_per_iter_helper).
enum class TileOrientation { fastest, as_written, elk_artifact };

// Where exchanges and preloads are priced:
//   routes          on the chip's topology, with the simulator's transfer sets (default);
//   per_core_rates  at the Machine's per-core shift and preload rates, as T10 and the Elk
//                   artifact price them (no routes, no contention between links).
enum class TransferPricing { routes, per_core_rates };

// What an op pays after it computes, for partial results and the re-layout of its output:
//   tree          splitting a reduced rank over p cores merges the partials up a tree of
//                 ceil(log2 p) levels, one barrier each (default);
//   elk_artifact  the artifact's TensorExpression.get_shuffle_time: after an elementwise or unary
//                 op one barrier; after any other its output tile shifted and six barriers, plus a
//                 gather of the p partials (p barriers and the tile shifted; for p = 2 two
//                 barriers and half the tile) and their reduction by T10's reduce fit; rotation
//                 steps pay two barriers per shift (BUFFER_ITERS).
enum class CombineModel { tree, elk_artifact };

// Which spatial plans an op's search keeps by the cores they use:
//   tessera       at least half of min(cores, iteration points) (default);
//   elk_artifact  at least floor(20 · 0.9 · min(P / (P + 2·cores), max extent · ranks / 220)) / 20
//                 of the cores, P the iteration points (TensorExpression.get_util_threshold,
//                 get_dim_size_threshold).
enum class PlanPruning { tessera, elk_artifact };

// Whether an execution is slowed by the preloads in flight beside it:
//   charged  its network traffic and theirs share the network (planner/schedule.hpp's
//            contention_s; default);
//   ignored  it runs at its own pace whatever is in flight (the Elk artifact's Elk-Full with
//            delay_comp False, which launch.py tries beside delay_comp True for every order and
//            keeps when faster; its Basic, Static and Elk-Dyn always run with delay_comp True).
enum class ExecutionContention { charged, ignored };

// How Static is coded:
//   tessera       execution regions at every distinct plan size; preloads at their smallest plan
//                 or the largest that fits the preload region (default);
//   elk_artifact  launch.py's sweep: regions from the largest per-op smallest plan, rounded up to
//                 KiB, in 10 KiB steps to the SRAM; each op the preload plan of least bytes (min
//                 cold) or of most bytes among those beside an execution plan within the region
//                 (max cold, DNNProgram.baseline_cold_hot), a preload larger than the preload
//                 region overlapping nothing; at most K preloads beside an execution.
enum class StaticBaseline { tessera, elk_artifact };

// Which off-chip tensors stay in SRAM across steps (planner/residency.hpp), when the command line
// does not say:
//   off         none: every op preloads its weights and KV cache each step (Elk's design point;
//               default);
//   automatic   the planner keeps what saves the most time per byte, as much as pays ("auto");
//   weights     every weight (an error when they do not fit);
//   weights_kv  every weight and KV cache ("weights+kv").
// A machine whose off-chip memory is a slow backing store (an IPU-M2000's Streaming Memory) says
// `residency: auto`: that is how its users run it.
enum class ResidencyMode { off, automatic, weights, weights_kv };

// How each op's command reaches the chip (planner/schedule.hpp, "Fixed costs"), when the command
// line does not say:
//   none    no fixed cost per op: the command is there when the op may start (Elk's model;
//           default, so a chip file without the key keeps its figures);
//   traced  a trace recorded once replays the commands from the device (tt-metal's Metal Trace):
//           each op pays the cost model's dispatch_traced_s and launch_s;
//   host    the host prepares each op's command once the op before it has ended, as tt-metal's
//           untraced runs pay it (its fixed part adds to the device's, docs/planner.md):
//           dispatch_host_s and launch_s;
//   host-async  the host issues every command from the step's start, running ahead of the
//           device (its commands queue): dispatch_host_s and launch_s.
enum class DispatchMode { none, traced, host, host_async };

// How the chip's own software stack runs a model: what `--design vendor` plans (planner.hpp).
//   none      the chip file names no stack: `--design vendor` is an error saying so (default);
//   streamed  each op streams its off-chip operands inside its own execution and nothing is
//             preloaded across ops (tt-metal's DRAM-sharded matmuls: the weights of one matmul
//             are read while it computes, the next op's only after it ends);
//   resident  every weight and KV cache lives in the cores' SRAM across steps and the ops run one
//             after another (Poplar: a tensor is placed in tile memory for the program's life,
//             and a model whose tensors do not fit fails to compile).
enum class VendorStack { none, streamed, resident };

struct PlanningConventions {
  TileOrientation orientation = TileOrientation::fastest;
  TransferPricing transfers = TransferPricing::routes;
  CombineModel combine = CombineModel::tree;
  PlanPruning pruning = PlanPruning::tessera;
  StaticBaseline static_baseline = StaticBaseline::tessera;
  ResidencyMode residency = ResidencyMode::off;
  DispatchMode dispatch = DispatchMode::none;
  VendorStack vendor = VendorStack::none;
  // A `streamed` stack's prefill: the rate, in bytes per second per chip, at which its ops read
  // their off-chip operands in a prefill step, where its decode streams at the memory's own rate
  // (tt-metal's prefill matmuls read DRAM-interleaved weights in multicast programs, its decode
  // matmuls DRAM-sharded ones). 0: the memory's own rate in both.
  double vendor_prefill_bytes_per_s = 0;
  // Per design name (basic, static, elk-dyn, elk-full, ideal): the share of the network a
  // preload may use, i.e. its network time is divided by it (load = max(HBM, network / share),
  // the artifact's LOAD_NOC_THRESHOLD_*). Several values: the design is planned with each and
  // keeps the best. A design not named uses 1.
  std::map<std::string, std::vector<double>> preload_network_share = {};
  // Per design name: how executions meet the preloads beside them; several: planned with each,
  // the best kept (with each share). A design not named: charged.
  std::map<std::string, std::vector<ExecutionContention>> execution_contention = {};

  bool operator==(const PlanningConventions&) const = default;
};

const char* to_string(TileOrientation orientation);
const char* to_string(TransferPricing pricing);
const char* to_string(CombineModel combine);
const char* to_string(PlanPruning pruning);
const char* to_string(ExecutionContention contention);
const char* to_string(StaticBaseline baseline);
// "off", "auto", "weights", "weights+kv"; parse_residency: nullopt for another text.
const char* to_string(ResidencyMode mode);
std::optional<ResidencyMode> parse_residency(std::string_view text);
inline constexpr const char* kResidencyNames = "off, auto, weights or weights+kv";
// "none", "traced", "host", "host-async"; parse_dispatch: nullopt for another text.
const char* to_string(DispatchMode mode);
std::optional<DispatchMode> parse_dispatch(std::string_view text);
inline constexpr const char* kDispatchNames = "none, traced, host or host-async";

const char* to_string(VendorStack stack);  // "none", "streamed", "resident"

// The design names preload_network_share and execution_contention may key (planner/design.cpp's,
// checked by a test).
inline const std::vector<std::string>& convention_design_names() {
  static const std::vector<std::string> names = {"basic", "static", "elk-dyn", "elk-full", "ideal"};
  return names;
}

}  // namespace tessera
