// What the user chose, as typed values: parsed once where the words arrive (the CLI's options, a
// sweep file), then passed down; nothing below re-reads the words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/chip_spec/conventions.hpp"
#include "framework/common/status.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/planner/plan.hpp"

namespace tessera::driver {

// --target and --chip.
struct ChipChoice {
  std::string target;  // plugin: name, alias or path to NAME.so (common/reference.hpp)
  std::string chip;    // preset name or chip file; empty: the target's default chip
};

// --design NAME|all.
struct DesignChoice {
  // Planned, in table order. Basic and Ideal are always there: they are the table's yardsticks
  // (speedup over Basic, share of Ideal).
  std::vector<planner::Design> planned;
  planner::Design written = planner::Design::elk_full;  // the design plan.yaml holds
  bool write_each = false;  // `all`: plan-DESIGN.yaml for every design as well
};

// Usage error for an unknown name, listing the valid ones.
Result<DesignChoice> parse_design_choice(const std::string& text);
// The designs to plan on a chip whose file names `stack`: `choice.planned`, and with `all` the
// vendor design before Ideal where the chip names a stack (one table: Elk's designs beside what
// ships).
std::vector<planner::Design> planned_designs(const DesignChoice& choice, VendorStack stack);

// --objective: what the planner minimises among the schedules it compares (planner.hpp's cost).
enum class PlanObjective { latency, energy, edp };
// Usage error for anything but latency, energy or edp.
Result<PlanObjective> parse_plan_objective(const std::string& text);
const char* to_string(PlanObjective objective);

// MODEL and the options that shape it, as words: the CLI's MODEL, --dim, --batch, --seq, --mode,
// --dtype, --weight-dtype, --precision and --skip-unsupported, or the Python module's keyword
// arguments.
// Absent options keep the model's defaults.
struct ModelWords {
  std::string model;              // zoo name, or a .onnx or workload .yaml file
  std::vector<std::string> dims;  // NAME=VALUE, binding a symbolic ONNX dimension
  std::optional<int64_t> batch, seq;
  std::optional<std::string> mode, dtype, weight_dtype;
  std::optional<std::string> precision;  // a precision file (zoo/precision.hpp)
  std::optional<double> expert_skew;  // --expert-skew: a MoE model's routing skew (zoo::RunShape)
  bool skip_unsupported = false;
};

// The request load_model takes. Usage errors: a malformed dim or one given twice (naming
// `--dim`), a mode other than decode/prefill, an unknown dtype (each naming the field and what it
// takes). A batch, seq, mode, dtype or precision given marks the shape as given (refused for ONNX
// and graph files by load_model). Input errors: the precision file's (precision.hpp); a usage error
// when it gives activations and --dtype is given too.
Result<ModelRequest> parse_model_request(const ModelWords& words);

}  // namespace tessera::driver
