#include "framework/cli/model_options.hpp"

#include "framework/cli/number_checks.hpp"

namespace tessera::cli {

ModelOptionSet::ModelOptionSet(CLI::App* cmd, std::shared_ptr<ModelOptions> options,
                               bool model_required)
    : options_(std::move(options)) {
  ModelOptions& o = *options_;
  auto* model =
      cmd->add_option("MODEL", o.words.model, "Zoo model name, or a .onnx or workload .yaml file");
  if (model_required) model->required();
  cmd->add_option("--dim", o.words.dims, "Bind a symbolic ONNX dimension: NAME=VALUE (repeatable)")
      ->type_name("NAME=VALUE");
  batch_ = cmd->add_option("--batch", o.batch, "Zoo models: sequences per step")
               ->check(bounded("model", "--batch"));
  seq_ = cmd->add_option("--seq", o.seq,
                         "Zoo models: KV positions (decode), tokens (prefill), latent tokens "
                         "(DiT); ONNX decode graphs: the past length")
             ->check(bounded("model", "--seq"));
  mode_ = cmd->add_option("--mode", o.mode, "Zoo models: decode (default) or prefill")
              ->check(CLI::IsMember({"decode", "prefill"}));
  dtype_ = cmd->add_option("--dtype", o.dtype,
                           "Zoo models: element type of weights, activations and KV cache "
                           "(default: the entry's)")
               ->check(CLI::IsMember({"fp32", "fp16", "bf16", "fp8"}));
  weight_dtype_ =
      cmd->add_option("--weight-dtype", o.weight_dtype,
                      "Zoo models: storage type of the weights alone (fp8, or bfp8: block fp8, "
                      "1.0625 bytes); activations and KV cache keep --dtype, ops compute in it. "
                      "Only where the target stores it (default: --dtype)")
          ->check(CLI::IsMember({"fp16", "bf16", "fp8", "bfp8"}));
  cmd->add_option("--precision", o.words.precision,
                  "Zoo models: a precision file (docs/formats.md): storage type per tensor group "
                  "(bfp4, bfp8, ...) and FPU fidelity per op group, as tt-metal's model configs "
                  "(configs/precision/tt-perf.yaml, tt-accuracy.yaml)")
      ->type_name("FILE");
  expert_skew_ = cmd->add_option("--expert-skew", o.expert_skew,
                                 "Zoo mixture-of-experts models: routing skew s, expert i's share "
                                 "of tokens as (i+1)^-s (0: uniform, the default; at most 4)")
                     ->check(bounded("model", "--expert-skew"));
  cmd->add_flag("--skip-unsupported", o.words.skip_unsupported,
                "ONNX: import unsupported ops as zero-cost placeholders (with a warning)");
}

void ModelOptionSet::finish() const {
  ModelOptions& o = *options_;
  if (batch_->count()) o.words.batch = o.batch;
  if (seq_->count()) o.words.seq = o.seq;
  if (mode_->count()) o.words.mode = o.mode;
  if (dtype_->count()) o.words.dtype = o.dtype;
  if (weight_dtype_->count()) o.words.weight_dtype = o.weight_dtype;
  if (expert_skew_->count()) o.words.expert_skew = o.expert_skew;
}

ModelRequest model_request(const ModelOptions& o) {
  return driver::parse_model_request(o.words).take();
}

}  // namespace tessera::cli
