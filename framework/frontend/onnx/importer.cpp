#include "framework/frontend/onnx/importer.hpp"

#include "framework/common/files.hpp"
#include "framework/frontend/onnx/context.hpp"
#include "framework/frontend/onnx/converters.hpp"

namespace tessera::onnx_import {

namespace {

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_compute_converters(t);
    add_elementwise_converters(t);
    add_movement_converters(t);
    add_indexing_converters(t);
    add_einsum_converter(t);
    add_resize_converters(t);
    add_recurrent_converters(t);
    add_moe_converter(t);
    return t;
  }();
  return table;
}

}  // namespace

Converter find_converter(const std::string& op_type) {
  auto it = converters().find(op_type);
  return it == converters().end() ? nullptr : it->second;
}

std::string supported_op_types() {
  std::string out;
  for (const auto& entry : converters()) out += (out.empty() ? "" : ", ") + entry.first;
  return out;
}

Result<ir::Graph> import_onnx_bytes(const std::string& bytes, const std::string& name,
                                    const OnnxOptions& options) {
  auto prepared = prepare_model(bytes, name, options);
  if (!prepared) return prepared.error();
  return Importer(*prepared, options).run();
}

Result<ir::Graph> import_onnx_file(const std::string& path, const OnnxOptions& options) {
  auto bytes = read_file(path);
  if (!bytes) return bytes.error();
  return import_onnx_bytes(*bytes, path, options);
}

}  // namespace tessera::onnx_import
