// Per-core cost of IPU Mk2 tiles, as fitted by T10 (OSDI'24) and used by the Elk artifact: cycles
// at 1.325 GHz for fp16 (2-byte elements). The constants are facts about the hardware fit; the
// code is ours. Sources: the Elk artifact's cost functions (github platformxlab/elk @8c6e814;
// docs/validation.md, "Elk's artifact").
//
//   matmul tile m×k×n, per batch:  24⌈m/6⌉⌈k/16⌉⌈n/16⌉ + 514⌈k/16⌉⌈n/16⌉ + 113⌈n/16⌉ + 173
//   elementwise over x elements:   min(8517, 0.75x + 290) when x ≤ 16432, else 0.5x + 300
//                                  (never below 8517: the fit's pieces leave a half-cycle dip at
//                                  x = 16433, and more elements must never be faster)
//   unary over x elements:         0.5x + 200
//   inter-core shift:              0.56 cycles per 2-byte element (0.28 per byte)
//   chip-wide sync:                118 cycles
//   more than one chip (> cores_per_chip cores): shift and sync × 1.25
//
// Ops the fit does not cover are composed from the fitted primitives [D]: a reduction, gather or
// data movement is one unary pass over its input; softmax is max-reduce + exp + sum-reduce +
// divide (three unary passes and one elementwise); a normalisation is two reductions and two
// elementwise passes; convolution uses the artifact's linear cap 0.0495·flops + 2030. fp32 matmul
// runs the MAC term at a quarter of fp16's rate (62.5 vs 250 TFLOPS [S]); arithmetic in other
// dtypes the fit does not know costs +inf (the core cannot run it as fitted), never a guess. A
// gather or data movement of any dtype is its unary pass over the bytes moved, as for fp32.
// A query's math_fidelity (ABI 1.5) is ignored: the IPU's AMP units have no fidelity setting, and
// the fit is the rate they run at.
//
// Parameters (cost_model section of a chip file):
//   clock_hz                 cycles per second                        1.325e9
//   shift_cycles_per_byte    inter-core shift [per-core rates]        0.28
//   sync_cycles              chip-wide barrier                        118
//   chips                    chips the program spans                  1
//   multi_chip_factor        shift/sync slow-down when chips > 1      1.25
//   distribute_bytes_per_s   HBM → core distribution per core (NoC)   5.5e9
//                            [per-core rates]
//
// Fixed costs per op (ABI 1.5 dispatch_host_s, dispatch_traced_s, launch_s): 0 [D]. Poplar
// compiles the whole step into one program the IPU runs on its own (Engine::run once per step):
// no op waits for a command from the host and no kernel is launched per op; the per-op barrier
// of the BSP step is sync_s, already charged. The host's per-step work (stream copies, the run
// call) is per step, not per op, and is not modelled.
//
// [per-core rates]: read by the planner only under `planner: transfers: per_core_rates` (the
// Elk artifact's accounting, configs/chips/elk-*.yaml), which prices shifts and preloads at the
// Machine's per-core rates (this model's info() and MEMORY-class transfer_seconds); the simulator
// never reads them. Under the default `transfers: routes` plan and simulation both price the
// exchange and the HBM on the topology's links (exchange.bytes_per_cycle, hbm.bytes_per_s), so
// there these two are refused (sdk::Params::refuse_unless_per_core) and their defaults set only
// the NoC-utilisation denominator (cores × shift rate). The chip-to-chip rate is the topology's
// alone (chip_link.bytes_per_s): `chip_link_bytes_per_s` here is refused, and a CHIP_TO_CHIP
// transfer_seconds (which the framework never asks) answers at the shift rate / 1.25.
//   composed_ops             t10 (above) or elk_artifact: a reduction by the artifact's aligned
//                            fit (its output rounded up to 1, 2, 4, 8, 12, 16, 24 or a multiple
//                            of 48, times the inputs per output: min(295.25, 1.5x + 175) up to
//                            x = 480, else 0.25x + 175) and a data movement (slice) as a shift
//                            of its output plus one sync (TensorExpression.
//                            get_comp_time_per_iter_helper)                          t10
#pragma once

#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>

namespace tessera::plugins::ipu {

class IpuCostModel final : public sdk::CostModel {
 public:
  explicit IpuCostModel(const sdk::Params& params);

  tessera_cost_model_info info() const override;
  double tile_seconds(const tessera_tile_query& query) const override;
  double transfer_seconds(const tessera_transfer_query& query) const override;

  // The fitted cycle counts, exposed for tests.
  static double matmul_cycles(uint64_t m, uint64_t k, uint64_t n);
  static double elementwise_cycles(double elements);
  static double unary_cycles(double elements);
  static double artifact_reduce_cycles(double out_elements, double inputs_per_output);

 private:
  double cycles(const tessera_tile_query& query) const;
  double span_factor() const { return chips_ > 1 ? multi_chip_factor_ : 1.0; }

  double clock_hz_;
  double shift_cycles_per_byte_;
  double sync_cycles_;
  int64_t chips_;
  double multi_chip_factor_;
  double distribute_bytes_per_s_;
  double chip_link_bytes_per_s_;
  bool artifact_composed_;  // composed_ops: elk_artifact
};

}  // namespace tessera::plugins::ipu
