#include "framework/sim/sim_energy.hpp"

#include "framework/planner/partition/plan_space.hpp"

namespace tessera::sim {

namespace {

double kind_bytes(const SimResult& r, FlowKind kind) {
  return r.bytes_by_kind[static_cast<size_t>(kind)];
}

double class_bytes(const SimResult& r, LinkClass c) {
  return r.link_bytes_by_class[static_cast<size_t>(c)];
}

}  // namespace

Result<EnergyCounts> simulated_counts(const SimResult& result, const codegen::Program& program,
                                      const ir::Graph& graph) {
  EnergyCounts c;
  for (const codegen::ProgramOp& op : program.ops) {
    if (!(op.flops > 0)) continue;
    if (op.op < 0 || static_cast<size_t>(op.op) >= graph.ops().size())
      return Error{ErrorKind::internal, StatusCode::internal,
                   "program op '" + op.name + "' names no op of the graph"};
    auto shape = planner::partition::describe_op(graph, graph.ops()[op.op]);
    if (!shape) return shape.error();
    c.flops[dtype_name(shape->dtype)] += op.flops;
  }
  double exchanged = kind_bytes(result, FlowKind::distribute) +
                     kind_bytes(result, FlowKind::shift) + kind_bytes(result, FlowKind::reduce);
  c.sram_read_bytes =
      kind_bytes(result, FlowKind::compute) + kind_bytes(result, FlowKind::writeback) + exchanged;
  c.sram_write_bytes = kind_bytes(result, FlowKind::preload) + exchanged;
  c.on_chip_byte_links =
      class_bytes(result, LinkClass::on_chip) + class_bytes(result, LinkClass::memory);
  c.chip_byte_links = class_bytes(result, LinkClass::chip_to_chip);
  // A preload's copies of one byte cross the HBM links one by one in the flow model, but the DRAM
  // reads the byte once (the replication happens on the way): its reads, then the writebacks.
  c.off_chip_bytes = result.hbm_read_bytes;
  for (const codegen::ProgramOp& op : program.ops) c.off_chip_bytes += op.hbm_write_bytes;
  c.latency_s = result.latency_s;
  return c;
}

}  // namespace tessera::sim
