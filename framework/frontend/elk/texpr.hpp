// The Elk artifact's operator graphs (github platformxlab/elk,
// `models/TExpr/TExpr_<model>-b<B>.json`, written by its models/model_parser.py): so a graph the
// artifact schedules can be planned by Tessera op for op (docs/validation.md, "Elk's artifact").
//
// The file is a JSON list with one entry per op, in execution order:
//   [type_name, dim_lengths, variables, ignore_flags, type_id, op_id, input_ids]
// - dim_lengths: the op's iteration space, one extent per dimension (≥ 1);
// - variables: per tensor, output first then the inputs, one list per tensor dimension of the
//   iteration dimensions it spans (one for an ordinary index, two for a convolution window);
// - ignore_flags: per input, true when the artifact counts it as already on chip (the output or
//   an input of the op just before); false when it is loaded from HBM (weights, the KV cache and
//   activations from further back alike);
// - type_id: 0 reduce, 1 unary, 2 elementwise, 3 pool, 4 conv, 5 matmul (Dot, BatchMatMul),
//   6 gather, 8 slice; op_id and input_ids are the exporter's names and are not needed.
//
// Each entry becomes one op over ranks d0, d1, ... with its own tensors: an HBM input is a weight
// (a KV cache for a BatchMatMul), an on-chip input is `resident` (ir::TensorRole: on chip before
// the op, produced outside the graph), the output an activation. The artifact's costs depend on
// nothing else, and Tessera's neither: activations are where each op needs them. Element type:
// fp16 (the artifact's 2 bytes per element).
#pragma once

#include <string>

#include "framework/common/status.hpp"
#include "framework/ir/graph.hpp"

namespace tessera::elk_texpr {

// Reads `path`. Input errors name the file, the entry (0-based, as the artifact's op list) and
// the field, and say what was expected.
Result<ir::Graph> read_texpr_file(const std::string& path);
// The same from text; `file` labels errors and names the graph.
Result<ir::Graph> parse_texpr(const std::string& text, const std::string& file);

}  // namespace tessera::elk_texpr
