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

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  int64_t bytes;
};

constexpr std::array<DTypeInfo, 14> kTypes = {{
    {DType::fp32, "fp32", 4},
    {DType::fp16, "fp16", 2},
    {DType::bf16, "bf16", 2},
    {DType::fp8, "fp8", 1},
    {DType::int8, "int8", 1},
    {DType::int32, "int32", 4},
    {DType::fp64, "fp64", 8},
    {DType::int64, "int64", 8},
    {DType::int16, "int16", 2},
    {DType::uint8, "uint8", 1},
    {DType::uint16, "uint16", 2},
    {DType::uint32, "uint32", 4},
    {DType::uint64, "uint64", 8},
    {DType::boolean, "bool", 1},
}};

const DTypeInfo& info(DType dtype) {
  for (const auto& t : kTypes)
    if (t.dtype == dtype) return t;
  return kTypes[0];  // unreachable for valid enum values
}

}  // namespace

int64_t element_bytes(DType dtype) {
  return info(dtype).bytes;
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
