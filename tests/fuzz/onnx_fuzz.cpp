// Fuzz target: the ONNX importer must answer any bytes with a Graph or an Error, never a crash,
// hang or exception; the graphs it makes must survive analysis.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/frontend/onnx/importer.hpp"
#include "framework/ir/analysis.hpp"
#include "framework/ir/repeats.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(onnx)(const uint8_t* data, size_t size) {
  spdlog::set_level(spdlog::level::off);  // --skip-unsupported warns once per node
  std::string bytes(reinterpret_cast<const char*>(data), size);
  for (bool skip : {false, true}) {
    tessera::onnx_import::OnnxOptions options;
    options.skip_unsupported = skip;
    auto graph = tessera::onnx_import::import_onnx_bytes(bytes, "/fuzz/model.onnx", options);
    if (!graph) continue;
    (void)tessera::ir::totals(*graph);
    auto classes = tessera::ir::identical_ops(*graph);
    (void)tessera::ir::repeated_layers(*graph, classes, tessera::ir::edges(*graph));
  }
  return 0;
}
