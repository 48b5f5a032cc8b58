// A core's peak FLOP/s in a dtype is the rate its cost model times a large aligned matmul tile at:
// the one table plans and simulations read. The topology's per-dtype table (what the Machine's
// peak, utilisation and the Ideal design divide by) is held to it by
// tests/unit/driver/peak_test.cpp.
#pragma once

#include <string>

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

// The fidelity ("lofi", "hifi2", "hifi3", "hifi4") the cost model runs `dtype` at unless an op
// says otherwise; "" when its rate does not depend on the fidelity (no such setting).
Result<std::string> default_fidelity(const CostModel& cost_model, uint32_t dtype);

}  // namespace tessera
