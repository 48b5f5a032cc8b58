// program.txt: a Program as readable text, one instruction per line, that reads back unchanged.
//
//   # tessera program 1
//   program "llama2-13b decode b16 s2048 on ipu-pod4-hbm3e, elk-full"
//   estimated_latency_s 0.0123
//   preload_async 1 "layer0.attn_norm" bytes=10485760 hbm_bytes=10240 plan="replicate ×1024"
//   execute 0 "embed" compute_s=1.2e-06 distribute_bytes=0 ... cores=5888 estimate_s=0..1.5e-06
//   plan="b/16 n/368"
//
// Op names and plan labels are double-quoted (\" and \\ escape); numbers are bytes, seconds or
// FLOPs as the key says; `#` starts a comment line. A preload_async line carries the op's preload
// fields, its execute line the rest; an op may appear on at most one line of each kind. An
// execute line with `streamed=1` runs while its own preload streams (program.hpp, rule 4).
#pragma once

#include <string>

#include "framework/codegen/program.hpp"
#include "framework/common/status.hpp"

namespace tessera::codegen {

std::string write_program_text(const Program& program);

// Parses program text. `file` labels errors: "FILE:LINE: what is wrong; what would fit" (input
// errors). Checks the syntax and each line's fields only; rule violations are program_check's.
Result<Program> read_program_text(const std::string& text, const std::string& file);

}  // namespace tessera::codegen
