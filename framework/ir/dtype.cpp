#include "framework/ir/dtype.hpp"

#include <array>
#include <utility>

namespace tessera::ir {

static_assert(static_cast<uint32_t>(DType::fp32) == TESSERA_DTYPE_FP32);
static_assert(static_cast<uint32_t>(DType::fp16) == TESSERA_DTYPE_FP16);
static_assert(static_cast<uint32_t>(DType::bf16) == TESSERA_DTYPE_BF16);
static_assert(static_cast<uint32_t>(DType::fp8) == TESSERA_DTYPE_FP8);
static_assert(static_cast<uint32_t>(DType::int8) == TESSERA_DTYPE_INT8);
static_assert(static_cast<uint32_t>(DType::int32) == TESSERA_DTYPE_INT32);
static_assert(static_cast<uint32_t>(DType::fp64) == TESSERA_DTYPE_FP64);
static_assert(static_cast<uint32_t>(DType::bfp8) == TESSERA_DTYPE_BFP8);
static_assert(static_cast<uint32_t>(DType::bfp4) == TESSERA_DTYPE_BFP4);
static_assert(static_cast<uint32_t>(DType::bfp2) == TESSERA_DTYPE_BFP2);
static_assert(TESSERA_DTYPE_COUNT == 10, "a new tessera_dtype needs its DType and its kTypes row");

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  int64_t block;        // values per block
  int64_t block_bytes;  // bytes per block
};

// bfp8: a block of 16 values is 16 mantissa bytes + 1 shared exponent byte; a 32x32 Tensix tile
// is 64 blocks = 1088 bytes (tt-metal sizes a Bfp8_b tile as 1 * 32 * 32 + 64). bfp4 and bfp2 keep
// the exponent byte and pack 2 or 4 values per byte: 9 and 5 bytes a block, 576 and 320 bytes a
// tile (Tile::get_tile_size, tenstorrent/tt-metal tt_metal/api/tt-metalium/tile.hpp @68cdbf8b).
constexpr std::array<DTypeInfo, 17> kTypes = {{
    {DType::fp32, "fp32", 1, 4},
    {DType::fp16, "fp16", 1, 2},
    {DType::bf16, "bf16", 1, 2},
    {DType::fp8, "fp8", 1, 1},
    {DType::int8, "int8", 1, 1},
    {DType::int32, "int32", 1, 4},
    {DType::fp64, "fp64", 1, 8},
    {DType::bfp8, "bfp8", 16, 17},
    {DType::bfp4, "bfp4", 16, 9},
    {DType::bfp2, "bfp2", 16, 5},
    {DType::int64, "int64", 1, 8},
    {DType::int16, "int16", 1, 2},
    {DType::uint8, "uint8", 1, 1},
    {DType::uint16, "uint16", 1, 2},
    {DType::uint32, "uint32", 1, 4},
    {DType::uint64, "uint64", 1, 8},
    {DType::boolean, "bool", 1, 1},
}};

const DTypeInfo& info(DType dtype) {
  for (const auto& t : kTypes)
    if (t.dtype == dtype) return t;
  return kTypes[0];  // unreachable for valid enum values
}

}  // namespace

double element_bytes(DType dtype) {
  const auto& t = info(dtype);
  return static_cast<double>(t.block_bytes) / static_cast<double>(t.block);
}

int64_t storage_bytes(DType dtype, int64_t elements) {
  const auto& t = info(dtype);
  return (elements + t.block - 1) / t.block * t.block_bytes;
}

int64_t block_elements(DType dtype) {
  return info(dtype).block;
}

std::optional<uint32_t> abi_minor_since(DType dtype) {
  if (!to_abi(dtype)) return std::nullopt;
  if (dtype == DType::bfp4 || dtype == DType::bfp2) return 5u;
  return dtype == DType::bfp8 ? 2u : 0u;
}

const char* to_string(DType dtype) {
  return info(dtype).name;
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (const auto& t : kTypes)
    if (text == t.name) return t.dtype;
  return std::nullopt;
}

std::string dtype_names() {
  std::string out;
  for (const auto& t : kTypes) out += (out.empty() ? "" : ", ") + std::string(t.name);
  return out;
}

std::optional<tessera_dtype> to_abi(DType dtype) {
  auto v = static_cast<uint32_t>(dtype);
  if (v < TESSERA_DTYPE_COUNT) return static_cast<tessera_dtype>(v);
  return std::nullopt;
}

}  // namespace tessera::ir
