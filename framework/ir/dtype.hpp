// Element types of workload tensors. The first ten values equal the plugin ABI's tessera_dtype
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
  // Block fp8 (Tenstorrent bfp8_b): 16 values share one exponent byte, 1.0625 bytes per element. A
  // storage type for weights; since ABI 1.2 (plugin_abi.h says what it is).
  bfp8 = 7,
  // Block fp4 and fp2 (bfp4_b, bfp2_b): as bfp8 with 4 or 2 bits per value, 0.5625 and 0.3125 bytes
  // per element; since ABI 1.5.
  bfp4 = 8,
  bfp2 = 9,
  // IR-only types (no tessera_dtype): storage and indices.
  int64 = 64,
  int16 = 65,
  uint8 = 66,
  uint16 = 67,
  uint32 = 68,
  uint64 = 69,
  boolean = 70,
};

// Bytes of one element (a bool takes one byte, as in ONNX tensors). Fractional for block types:
// bfp8 is 1.0625, bfp4 0.5625, bfp2 0.3125 (a shared exponent byte per block of 16). Where a buffer
// size in whole bytes is needed, use storage_bytes.
double element_bytes(DType dtype);
// Whole bytes that `elements` elements take in memory: for a block type, rounded up to whole
// blocks (a block of 16 values is 17 bytes in bfp8, 9 in bfp4, 5 in bfp2); for the others elements
// * element_bytes.
int64_t storage_bytes(DType dtype, int64_t elements);
// Values per shared-exponent block of a block type; 1 for the others.
int64_t block_elements(DType dtype);
// The ABI minor version that introduced this dtype's tessera_dtype (0 for 1.0's seven, 2 for bfp8,
// 5 for bfp4 and bfp2); nullopt
// for IR-only types.
std::optional<uint32_t> abi_minor_since(DType dtype);
// The YAML/report spelling: fp32, fp16, bf16, fp8, int8, int32, fp64, int64, ..., bool.
const char* to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
// All spellings, for error messages that list what would fit.
std::string dtype_names();
// The ABI type, or nullopt for IR-only types.
std::optional<tessera_dtype> to_abi(DType dtype);

}  // namespace tessera::ir
