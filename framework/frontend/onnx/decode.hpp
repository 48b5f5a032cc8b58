// Decode graphs as Hugging Face-style exports have them: past key/value inputs that a Concat
// extends by the new positions into present outputs (or that a ScatterND updates: a fixed-size
// cache). Such a present is the layer's KV cache, as in the zoo's decode graphs: it lives in
// HBM, the node writes only the new positions into it, and the past (already there) is not
// copied. `--seq` binds the past length of a growing cache.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "framework/common/status.hpp"
#include "framework/frontend/onnx/importer.hpp"

namespace tessera::onnx_import {

struct KvCache {
  std::string past;         // the model input holding the cache before this step
  std::string present;      // the model output holding it after
  int64_t axis = 0;         // the sequence axis the Concat extends; -1 for a ScatterND
  std::string past_symbol;  // the past input's symbolic length on that axis ("" when fixed)
};

// Keyed by present. A cache is a model input that a Concat extends, or a ScatterND updates, into
// a model output.
std::map<std::string, KvCache> find_kv_caches(const onnx::GraphProto& graph);

// --dim's bindings plus --seq (options.past_length) for every past length symbol. Usage errors:
// --seq for a graph without KV caches or with fixed past lengths, --seq and --dim for one symbol.
Result<std::map<std::string, int64_t>> bind_past_length(
    const std::map<std::string, KvCache>& caches, const OnnxOptions& options,
    const std::string& file);

// The symbols --seq binds, for the message of an unbound one.
std::set<std::string> past_symbols(const std::map<std::string, KvCache>& caches);

}  // namespace tessera::onnx_import
