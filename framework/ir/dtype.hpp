// Element types of workload tensors. The first seven values equal the plugin ABI's tessera_dtype
// (static_asserts in dtype.cpp), so an op lowers to tessera_op_desc without a table; the others
// (int64 indices, bool masks, ...) appear in imported graphs but have no compute type in the ABI.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::ir {

enum class DType : uint32_t {
  fp32 = 0,
  fp16 = 1,
  bf16 = 2,
  fp8 = 3,
  int8 = 4,
  int32 = 5,
  fp64 = 6,
  // IR-only types (no tessera_dtype): storage and indices.
  int64 = 64,
  int16 = 65,
  uint8 = 66,
  uint16 = 67,
  uint32 = 68,
  uint64 = 69,
  boolean = 70,
};

// Bytes of one element (a bool takes one byte, as in ONNX tensors).
int64_t element_bytes(DType dtype);
// The YAML/report spelling: fp32, fp16, bf16, fp8, int8, int32, fp64, int64, ..., bool.
const char* to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
// All spellings, for error messages that list what would fit.
std::string dtype_names();
// The ABI type, or nullopt for IR-only types.
std::optional<tessera_dtype> to_abi(DType dtype);

}  // namespace tessera::ir
