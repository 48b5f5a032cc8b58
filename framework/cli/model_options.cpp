#include "framework/cli/model_options.hpp"

#include <charconv>

#include "framework/cli/number_checks.hpp"
#include "framework/common/user_text.hpp"

namespace tessera::cli {

namespace {

std::pair<std::string, int64_t> parse_dim(const std::string& text) {
  size_t eq = text.find('=');
  int64_t value = 0;
  if (eq != std::string::npos && eq > 0) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data() + eq + 1, end, value);
    if (ec == std::errc() && ptr == end && value >= 1 && value <= kMaxDim)
      return {text.substr(0, eq), value};
  }
  throw Failure(usage_error("--dim " + in_quotes(text) +
                            ": expected NAME=VALUE with VALUE in [1, " + std::to_string(kMaxDim) +
                            "], e.g. --dim batch=16"));
}

}  // namespace

ModelOptionSet::ModelOptionSet(CLI::App* cmd, std::shared_ptr<ModelOptions> options,
                               bool model_required)
    : options_(std::move(options)) {
  ModelOptions& o = *options_;
  auto* model =
      cmd->add_option("MODEL", o.model, "Zoo model name, or a .onnx or workload .yaml file");
  if (model_required) model->required();
  cmd->add_option("--dim", o.dims, "Bind a symbolic ONNX dimension: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  zoo_only_.push_back(cmd->add_option("--batch", o.batch, "Zoo models: sequences per step")
                          ->check(whole_in(1, kMaxBatch)));
  zoo_only_.push_back(cmd->add_option("--seq", o.seq,
                                      "Zoo models: KV positions (decode), tokens (prefill), "
                                      "latent tokens (DiT); ONNX decode graphs: the past length")
                          ->check(whole_in(1, kMaxSeq)));
  zoo_only_.push_back(cmd->add_option("--mode", o.mode, "Zoo models: decode (default) or prefill")
                          ->check(CLI::IsMember({"decode", "prefill"})));
  zoo_only_.push_back(cmd->add_option("--dtype", o.dtype,
                                      "Zoo models: element type of weights, activations and KV "
                                      "cache (default: the entry's)")
                          ->check(CLI::IsMember({"fp32", "fp16", "bf16", "fp8"})));
  zoo_only_.push_back(
      cmd->add_option("--weight-dtype", o.weight_dtype,
                      "Zoo models: storage type of the weights alone (fp8, or bfp8: block fp8, "
                      "1.0625 bytes); activations and KV cache keep --dtype, ops compute in it. "
                      "Only where the target stores it (default: --dtype)")
          ->check(CLI::IsMember({"fp16", "bf16", "fp8", "bfp8"})));
  cmd->add_flag("--skip-unsupported", o.skip_unsupported,
                "ONNX: import unsupported ops as zero-cost placeholders (with a warning)");
}

void ModelOptionSet::finish() const {
  size_t given = 0;
  for (const CLI::Option* option : zoo_only_) given += option->count();
  options_->shape_given = given > 0;
}

ModelRequest model_request(const ModelOptions& o) {
  ModelRequest request;
  request.model = o.model;
  for (const auto& d : o.dims) {
    auto [name, value] = parse_dim(d);
    if (!request.onnx.dims.emplace(name, value).second)
      throw Failure(usage_error("--dim " + name + " is given twice"));
  }
  request.onnx.skip_unsupported = o.skip_unsupported;
  request.shape.batch = o.batch;
  if (o.seq > 0) request.shape.seq = o.seq;
  if (!o.mode.empty())
    request.shape.mode = o.mode == "decode" ? zoo::Mode::decode : zoo::Mode::prefill;
  if (!o.dtype.empty()) request.shape.dtype = ir::parse_dtype(o.dtype);
  if (!o.weight_dtype.empty()) request.shape.weight_dtype = ir::parse_dtype(o.weight_dtype);
  request.shape_given = o.shape_given;
  return request;
}

}  // namespace tessera::cli
