// Per-core cost of Tenstorrent Tensix cores (Wormhole B0 by default, Blackhole by parameters).
// Sources: tt-isa-documentation (FPU rates per fidelity, SFPU width) and tt-npe's calibrated NoC
// model (link bandwidth by transfer size, hop latency, DRAM and Ethernet rates); the defaults
// below are tagged with theirs ([V] vendor, [U] no source).
//
// Matrix ops run on the FPU in 32×32 tiles (`fpu_tile`): m, k and n are padded up to multiples of
// 32 and the padded FLOPs run at 4096 FLOP/cycle at LoFi, half at HiFi2, a third at HiFi3, a
// quarter at HiFi4. Everything else runs on the 32-lane SFPU, one element per lane per cycle per
// pass; softmax takes four passes (max, exp, sum, divide), a normalisation four (mean, variance,
// scale, shift), a reduction, gather or data movement one pass over its input. Convolution is a
// matmul over its FLOPs. fp32 matrix work runs at HiFi4 (the FPU's full-precision mode); the block
// types (bfp8, bfp4, bfp2: 1.0625, 0.5625, 0.3125 bytes per value) are unpacked to the FPU's format
// and run at its rate, as fp16, bf16 and fp8 do; dtypes the FPU lacks (int32, fp64) cost +inf. A
// query's math_fidelity (ABI 1.5) overrides `fidelity` for that tile, as tt-metal sets the fidelity
// per op in its compute kernel config (tenstorrent/tt-metal
// models/tt_transformers/tt/model_config.py
// @0039cbf0, OpFidelity); it does not move fp32, which has one mode. Every op also pays
// `op_overhead_cycles` (kernel dispatch).
//
// A transfer of B bytes in packets of P bytes over h router hops takes
//   h · hop_latency_cycles + B / rate(P)
// where rate(P) interpolates the calibrated table (B/cycle by packet size) linearly and is flat
// past its ends.
//
// Parameters (cost_model section of a chip file; defaults are Wormhole B0):
//   clock_hz                      1e9          Blackhole 1.35e9
//   fidelity                      lofi         lofi | hifi2 | hifi3 | hifi4
//   fpu_flops_per_cycle           4096         at LoFi [V]
//   sfpu_lanes                    32           [V]
//   fpu_tile                      32           the FPU's tile edge [V]; 1 for a core that runs
//                                              matrix work on vectors of any length (a WSE PE)
//   tile_edge                     1            the topology's: each core a k x k block of the
//                                              fabric's, the two rates above per PE, x k^2
//   op_overhead_cycles            0            no measurement found [U]
//   hop_latency_cycles            9            [V tt-isa-documentation]      [per-core rates]
//   noc.rate_by_size              list of "bytes:B/cycle" — WH 128:5.5 256:10.1 512:18.0
//                                 1024:27.4 2048:30.0 [V tt-npe]            [per-core rates]
//   dram_bytes_per_cycle          23.2         injection per controller [V tt-npe]
//                                                                           [per-core rates]
//   ethernet_bytes_per_cycle      12.5         per direction [V tt-npe]     [per-core rates]
//   sync_cycles                   1000         a global barrier over the NoC [U guess], paid at
//                                              each op step and combine level; 0 on a fabric
//                                              whose cores wait for their own data, not for
//                                              each other (chips/wse2.yaml)
//   dispatch_host_s               0            per op, the host preparing its command [D]
//   dispatch_traced_s             0            per op, a replayed Metal Trace issuing it [D]
//   launch_s                      19e-6        per op, on the device, traced or not [D]
//
// [per-core rates]: transfer_seconds and info().shift_bytes_per_s, which the planner reads only
// under `planner: transfers: per_core_rates` (framework/chip_spec/conventions.hpp). Under the
// default `routes` the planner and the simulator price every transfer on the topology's links
// (topology hop_latency_cycles, link_bytes_per_cycle, dram.bytes_per_s, ethernet.bytes_per_s), so
// a chip file setting one of these there is refused, naming the topology key to set; their
// defaults then set only the NoC-utilisation denominator (cores × shift rate).
//
// The three fixed costs per op (ABI 1.5; the planner charges them outside the preload overlap
// only under --dispatch traced|host|host-async, planner/schedule.hpp). launch_s is what each op
// costs the device beyond the work this model times, whoever issued it, and is derived: the
// fixed part of tt-metal's own untraced Llama 3.1 8B decode (PERF.md@040a27c1, accuracy rows
// n150, n300: 11.9 ms per token, docs/validation.md cause 2) over Tessera's 626 ops of that step
// is 19 us per op. That it is the device's, not the host's, is what tt-metal's traced figures say:
// its traced batch-32 steps (models/README.md@02068156: Llama 3.2 1B, 3B, Llama 3.1 8B on n150,
// 12.4, 21.5, 38.5 ms) are 1.0 to 3.2 ms longer than its untraced batch-1 steps of the same
// models (PERF.md@040a27c1: 11.4, 18.5, 35.3 ms), where a trace that took 15 us of host time off
// each of the 8B's 626 ops would leave its step 9.4 ms shorter (cause K). Of the 19 us, ~4 us is
// the op-to-op gap a trace leaves ("roughly 4k cycles constant dispatch time regardless the
// kernel", github.com/tenstorrent/tt-metal/issues/12074; "typically tracing reduces the OP-to-OP
// gap below 6us", tech_reports/LLMs/llms.md@0100dbfc2e192bd2954692117db88749006b095c §4.5.5) and
// the rest the small ops' kernels beyond their bytes and FLOPs (validation.md, "Per-op device
// time", shows 2 to 15 us per kernel on the Galaxy's own code). dispatch_traced_s is 0: the
// replayed commands are already in device DRAM. dispatch_host_s is 0: tt-metal's untraced runs show
// no host time beyond the device's (the traced steps above are as long as the untraced ones), so a
// command is there before the device wants it, whether it was issued ahead (`--dispatch
// host-async`, as ttnn enqueues ops without waiting) or after the op before (`host`). A host that
// does pace a device is a chip file's `cost_model: {dispatch_host_s: ...}`.
#pragma once

#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <utility>
#include <vector>

namespace tessera::plugins::mesh {

class TensixCostModel final : public sdk::CostModel {
 public:
  explicit TensixCostModel(const sdk::Params& params);

  tessera_cost_model_info info() const override;
  double tile_seconds(const tessera_tile_query& query) const override;
  double transfer_seconds(const tessera_transfer_query& query) const override;

  // NoC bytes per cycle for packets of `packet_bytes`, from the calibrated table.
  double noc_bytes_per_cycle(double packet_bytes) const;

 private:
  double cycles(const tessera_tile_query& query) const;
  double matrix_cycles(const tessera_tile_query& query) const;

  double clock_hz_;
  // FPU FLOP per cycle of a query's fidelity (the configured one for DEFAULT).
  double fpu_flops_per_cycle(uint32_t math_fidelity) const;

  double fpu_lofi_flops_per_cycle_;
  uint32_t fidelity_;  // tessera_math_fidelity, never DEFAULT
  double sfpu_lanes_;
  uint64_t fpu_tile_;  // the edge matrix extents are padded to
  double op_overhead_cycles_;
  double hop_latency_cycles_;
  std::vector<std::pair<double, double>> rate_by_size_;  // (packet bytes, B/cycle), ascending
  double dram_bytes_per_cycle_;
  double ethernet_bytes_per_cycle_;
  double sync_cycles_;
  double dispatch_host_s_, dispatch_traced_s_, launch_s_;
};

}  // namespace tessera::plugins::mesh
