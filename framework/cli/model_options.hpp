// The options that say which model a command works on — MODEL, --dim, --batch, --seq, --mode,
// --dtype, --skip-unsupported — registered the same way on every command that loads a model
// (inspect, compile), so they mean one thing everywhere.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "framework/frontend/model_source.hpp"

namespace tessera::cli {

using zoo::kMaxBatch;  // the bounds of --batch and --seq
using zoo::kMaxSeq;
// A symbolic ONNX dimension (a batch, a sequence) is bound to at most what --seq takes.
inline constexpr int64_t kMaxDim = kMaxSeq;

struct ModelOptions {
  std::string model;
  std::vector<std::string> dims;
  int64_t batch = 1;
  int64_t seq = 0;
  std::string mode;
  std::string dtype;
  std::string weight_dtype;
  bool skip_unsupported = false;
  bool shape_given = false;  // set by finish_model_options
};

// Adds MODEL (required when `model_required`) and the model options to `cmd`. Call
// finish_model_options from the command's callback.
class ModelOptionSet {
 public:
  ModelOptionSet(CLI::App* cmd, std::shared_ptr<ModelOptions> options, bool model_required);
  // Records whether a zoo-only option was given (to reject it for ONNX/graph files).
  void finish() const;

 private:
  std::shared_ptr<ModelOptions> options_;
  std::vector<CLI::Option*> zoo_only_;
};

// The request load_model takes. Usage error: a malformed --dim or one given twice.
ModelRequest model_request(const ModelOptions& options);

}  // namespace tessera::cli
