// The options that say which model a command works on — MODEL, --dim, --batch, --seq, --mode,
// --dtype, --weight-dtype, --precision, --skip-unsupported — registered the same way on every
// command that loads a model (inspect, compile), so they mean one thing everywhere.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "framework/driver/choices.hpp"
#include "framework/frontend/model_source.hpp"

namespace tessera::cli {

// The words as given; the zoo-only options land in `words` (when given) in finish().
struct ModelOptions {
  driver::ModelWords words;
  int64_t batch = 1;
  int64_t seq = 0;
  std::string mode;
  std::string dtype;
  std::string weight_dtype;
  double expert_skew = 0;
};

// Adds MODEL (required when `model_required`) and the model options to `cmd`. Call
// finish_model_options from the command's callback.
class ModelOptionSet {
 public:
  ModelOptionSet(CLI::App* cmd, std::shared_ptr<ModelOptions> options, bool model_required);
  // Copies the zoo-only options that were given into the words (the others keep the model's
  // defaults, and an ONNX or graph file refuses those given).
  void finish() const;

 private:
  std::shared_ptr<ModelOptions> options_;
  CLI::Option *batch_, *seq_, *mode_, *dtype_, *weight_dtype_, *expert_skew_;
};

// The request load_model takes (driver::parse_model_request's usage errors).
ModelRequest model_request(const ModelOptions& options);

}  // namespace tessera::cli
