// `tessera inspect` output: one row per op (name, kind, Einsum, rank extents, FLOPs, HBM bytes in,
// on-chip bytes in + out, identical-op class, layer) and the graph's totals.
#pragma once

#include <string>
#include <vector>

#include "framework/ir/graph.hpp"

namespace tessera {

// 6.83 TFLOP, 1.20 GFLOP, 512 FLOP.
std::string format_flops(double flops);

// The op table followed by the summary.
std::string render_workload_table(const ir::Graph& graph);
// The table and the summary as one JSON document (`inspect --format json`, docs/formats.md): per
// op its Einsum, rank extents, FLOPs and footprints in bytes, its class's first op and its layer;
// the totals; `off_chip` the footprint line against a chip ("" : none asked for, null).
std::string workload_json(const ir::Graph& graph, const std::string& off_chip);
// The summary lines alone (also the header comments of the YAML form).
std::vector<std::string> workload_summary(const ir::Graph& graph);

}  // namespace tessera
