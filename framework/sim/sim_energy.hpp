// What a simulated step did, counted for its energy (chip/energy.hpp): every program op's FLOPs in
// the type it computes in, SRAM bytes read and written (each flow kind's bytes: compute reads its
// operands; a preload writes what lands; a writeback reads what leaves; a core-to-core exchange
// reads at one end and writes at the other), bytes × links crossed on chip and between chips as
// the flows moved them, bytes read from HBM (a replicated byte once) and written back, and the
// latency.
#pragma once

#include <vector>

#include "framework/chip/energy.hpp"
#include "framework/codegen/program.hpp"
#include "framework/ir/graph.hpp"
#include "framework/sim/sim_result.hpp"

namespace tessera::sim {

// `graph` is the one the program was lowered from. Input error: an op in a type no core computes
// in (describe_op's).
Result<EnergyCounts> simulated_counts(const SimResult& result, const codegen::Program& program,
                                      const ir::Graph& graph);

// The step's power over time, one value per bucket of result.bucket_s (SimResult's utilisation
// buckets): each part of `energy` spread over the buckets by its own activity — compute by every
// op's FLOPs spread evenly over its execute interval, SRAM, network, chip-to-chip and off-chip by
// the bytes their link classes moved in the bucket, static evenly — so the buckets' energies sum
// to the total. For the trace's power counter.
std::vector<double> power_over_time(const SimResult& result, const codegen::Program& program,
                                    const EnergyBreakdown& energy);

}  // namespace tessera::sim
