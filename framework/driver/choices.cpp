#include "framework/driver/choices.hpp"

#include <algorithm>
#include <charconv>

#include "framework/common/user_text.hpp"
#include "framework/planner/planner.hpp"

namespace tessera::driver {

using planner::Design;

namespace {

// A symbolic ONNX dimension (a batch, a sequence) is bound to at most what a zoo --seq takes.
constexpr int64_t kMaxDim = zoo::kMaxSeq;

Result<std::pair<std::string, int64_t>> parse_dim(const std::string& text) {
  size_t eq = text.find('=');
  int64_t value = 0;
  if (eq != std::string::npos && eq > 0) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data() + eq + 1, end, value);
    if (ec == std::errc() && ptr == end && value >= 1 && value <= kMaxDim)
      return std::pair{text.substr(0, eq), value};
  }
  return usage_error("--dim " + in_quotes(text) + ": expected NAME=VALUE with VALUE in [1, " +
                     std::to_string(kMaxDim) + "], e.g. --dim batch=16");
}

// `valid`: the spellings the field takes (the CLI's choices), the last after "or".
Result<ir::DType> parse_dtype_word(const std::string& field, const std::string& text,
                                   const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), text) != valid.end()) return *ir::parse_dtype(text);
  std::string names;
  for (size_t i = 0; i < valid.size(); ++i)
    names += (i == 0 ? "" : i + 1 == valid.size() ? " or " : ", ") + valid[i];
  return usage_error(field + " " + in_quotes(text) + ": expected " + names);
}

}  // namespace

Result<DesignChoice> parse_design_choice(const std::string& text) {
  DesignChoice choice;
  if (text == "all") {
    choice.planned = {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full,
                      Design::ideal};
    choice.write_each = true;
    return choice;
  }
  auto design = planner::parse_design(text);
  if (!design)
    return usage_error("--design '" + text +
                       "': unknown design; valid: " + planner::design_names() + ", all");
  choice.written = *design;
  choice.planned = {Design::basic};
  if (*design != Design::basic && *design != Design::ideal) choice.planned.push_back(*design);
  choice.planned.push_back(Design::ideal);
  return choice;
}

std::vector<Design> planned_designs(const DesignChoice& choice, VendorStack stack) {
  std::vector<Design> planned = choice.planned;
  if (choice.write_each && stack != VendorStack::none)
    planned.insert(std::find(planned.begin(), planned.end(), Design::ideal), Design::vendor);
  return planned;
}

Result<PlanObjective> parse_plan_objective(const std::string& text) {
  for (PlanObjective o : {PlanObjective::latency, PlanObjective::energy, PlanObjective::edp})
    if (text == to_string(o)) return o;
  return usage_error("--objective " + in_quotes(text) + ": expected latency, energy or edp");
}

const char* to_string(PlanObjective objective) {
  switch (objective) {
    case PlanObjective::energy:
      return "energy";
    case PlanObjective::edp:
      return "edp";
    case PlanObjective::latency:
      break;
  }
  return "latency";
}

Result<ModelRequest> parse_model_request(const ModelWords& words) {
  ModelRequest request;
  request.model = words.model;
  for (const auto& text : words.dims) {
    auto dim = parse_dim(text);
    if (!dim) return dim.error();
    if (!request.onnx.dims.emplace(dim->first, dim->second).second)
      return usage_error("--dim " + dim->first + " is given twice");
  }
  request.onnx.skip_unsupported = words.skip_unsupported;
  if (words.batch) request.shape.batch = *words.batch;
  request.shape.seq = words.seq;
  if (words.mode) {
    if (*words.mode != "decode" && *words.mode != "prefill")
      return usage_error("mode " + in_quotes(*words.mode) + ": expected decode or prefill");
    request.shape.mode = *words.mode == "decode" ? zoo::Mode::decode : zoo::Mode::prefill;
  }
  if (words.dtype) {
    auto dtype = parse_dtype_word("dtype", *words.dtype, {"fp32", "fp16", "bf16", "fp8"});
    if (!dtype) return dtype.error();
    request.shape.dtype = *dtype;
  }
  if (words.weight_dtype) {
    auto dtype =
        parse_dtype_word("weight_dtype", *words.weight_dtype, {"fp16", "bf16", "fp8", "bfp8"});
    if (!dtype) return dtype.error();
    request.shape.weight_dtype = *dtype;
  }
  if (words.expert_skew) request.shape.expert_skew = *words.expert_skew;
  if (words.precision) {
    auto precision = zoo::parse_precision_file(*words.precision);
    if (!precision) return precision.error();
    if (precision->activations && words.dtype)
      return usage_error("--dtype and " + printable(*words.precision) +
                         "'s tensors.activations both give the activations' type; give one");
    request.shape.precision = std::move(*precision);
  }
  request.shape_given = words.batch || words.seq || words.mode || words.dtype ||
                        words.weight_dtype || words.expert_skew || words.precision;
  return request;
}

}  // namespace tessera::driver
