// A core's peak FLOP/s in a dtype is the rate its cost model times a large aligned matmul tile at:
// the one table plans and simulations read. The topology's per-dtype table (what the Machine's
// peak, utilisation and the Ideal design divide by) states the same fact again, so every chip is
// held to it when it is built (check_peaks): a chip file that edits one table and not the other
// is refused rather than reporting a peak its plans never run at.
#pragma once

#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/objects.hpp"

namespace tessera {

// A matmul tile every shipped core runs at its best: extents multiples of every FPU and tile edge
// (6, 16, 32), and tall, so that what a cost model pays per column block (the IPU fit's 514
// cycles per 16 x 16 block of k x n) is a small part of it.
tessera_tile_query peak_matmul_tile(uint32_t dtype, double element_bytes,
                                    uint32_t math_fidelity = TESSERA_MATH_FIDELITY_DEFAULT);

// One core's FLOP/s on that tile (2-byte elements) at `math_fidelity`.
Result<double> matmul_flops_per_s(const CostModel& cost_model, uint32_t dtype,
                                  uint32_t math_fidelity = TESSERA_MATH_FIDELITY_DEFAULT);

// The least share of the topology's peak the cost model reaches on peak_matmul_tile: what is left
// is its fixed per-tile cycles and padding (the IPU fit's 514 cycles per column block).
inline constexpr double kLeastShareOfPeak = 0.9;

// For each of `dtypes` (those the topology gives a peak), the cost model's rate on
// peak_matmul_tile at its default fidelity must lie within [kLeastShareOfPeak, 1] × the
// topology's peak. Input error naming the dtype, both rates and the keys the shipped plugins read
// them from; the cost model's or topology's own errors as they come.
Status check_peaks(const Topology& topology, const CostModel& cost_model,
                   const std::vector<uint32_t>& dtypes);

// The fidelity ("lofi", "hifi2", "hifi3", "hifi4") the cost model runs `dtype` at unless an op
// says otherwise; "" when its rate does not depend on the fidelity (no such setting).
Result<std::string> default_fidelity(const CostModel& cost_model, uint32_t dtype);

}  // namespace tessera
