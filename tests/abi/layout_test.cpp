// Freezes ABI 1.0 to 1.5 for x86_64 / LP64: every size, alignment, offset, enumerator and function
// type of abi_1_0.h to abi_1_5.h is a static_assert, so a change to a released layout fails the
// BUILD. c99_check.c checks the same tables with a C99
// compiler; the tests below prove both sides ran.
#include <gtest/gtest.h>
#include <tessera/plugin_abi.h>

#include <cstddef>
#include <type_traits>

#include "framework/plugin/host_api.hpp"
#include "framework/plugin/objects.hpp"

#if !defined(__x86_64__) || !defined(__LP64__)
#error "abi_1_0.h to abi_1_5.h freeze the x86_64 / LP64 layout; add tables for this platform"
#endif

namespace {

// The size a struct had in 1.0: sizeof, except for the structs that grew since, whose 1.0 part
// ends where their first later field begins (the GROWN lines of abi_1_1.h, abi_1_3.h and
// abi_1_5.h, each a first growth). A second GROWN line for one struct would specialise it twice and
// not compile: abi_1_4.h's (tessera_memory_model, grown in 1.1 and again in 1.4) gives its 1.1 size
// instead.
template <class T>
inline constexpr size_t kSize10 = sizeof(T);
#define TESSERA_ABI_GROWN(type, size_before, first_field) \
  template <>                                             \
  inline constexpr size_t kSize10<type> = offsetof(type, first_field);
#define TESSERA_ABI_STRUCT(...)
#define TESSERA_ABI_FIELD(...)
#define TESSERA_ABI_METHOD(...)
#define TESSERA_ABI_VALUE(...)
#include "abi_1_1.h"
#include "abi_1_3.h"
#include "abi_1_5.h"
#undef TESSERA_ABI_GROWN

// The size a struct had in 1.1: sizeof, except for the one that grew again in 1.4.
template <class T>
inline constexpr size_t kSize11 = sizeof(T);
#define TESSERA_ABI_GROWN(type, size_before, first_field) \
  template <>                                             \
  inline constexpr size_t kSize11<type> = offsetof(type, first_field);
#include "abi_1_4.h"
#undef TESSERA_ABI_GROWN
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_METHOD
#undef TESSERA_ABI_VALUE

}  // namespace

// The same in every table.
#define TESSERA_ABI_FIELD(type, field, offset, size)                                           \
  static_assert(offsetof(type, field) == (offset), "offset of " #type "::" #field " changed"); \
  static_assert(sizeof(type::field) == (size), "size of " #type "::" #field " changed");
#define TESSERA_ABI_VALUE(name, value) static_assert((name) == (value), #name " changed");
#define TESSERA_ABI_METHOD(type, field, ...)                        \
  static_assert(std::is_same_v<decltype(type::field), __VA_ARGS__>, \
                "function type of " #type "::" #field " changed");
#define TESSERA_ABI_FUNCTION(name, ...) \
  static_assert(std::is_same_v<name, __VA_ARGS__>, "function type " #name " changed");

// 1.0: every offset as released, and each struct's 1.0 part has its 1.0 size.
#define TESSERA_ABI_STRUCT(type, size, align)                              \
  static_assert(kSize10<type> == (size), "1.0 size of " #type " changed"); \
  static_assert(alignof(type) == (align), "alignof(" #type ") changed");
#include "abi_1_0.h"
#undef TESSERA_ABI_STRUCT

// 1.1 to 1.5: a grown struct's new fields begin where it ended before; the full sizes (1.1's as
// they were in 1.1). 1.2 is one enumerator and no layout change.
#define TESSERA_ABI_GROWN(type, size_before, first_field)     \
  static_assert(offsetof(type, first_field) == (size_before), \
                #type " grew somewhere other than at its end");
#define TESSERA_ABI_STRUCT(type, size, align)                              \
  static_assert(kSize11<type> == (size), "1.1 size of " #type " changed"); \
  static_assert(alignof(type) == (align), "alignof(" #type ") changed");
#include "abi_1_1.h"
#undef TESSERA_ABI_STRUCT
#define TESSERA_ABI_STRUCT(type, size, align)                         \
  static_assert(sizeof(type) == (size), "sizeof(" #type ") changed"); \
  static_assert(alignof(type) == (align), "alignof(" #type ") changed");
#include "abi_1_2.h"
#include "abi_1_3.h"
#include "abi_1_4.h"
#include "abi_1_5.h"
#undef TESSERA_ABI_GROWN
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE
#undef TESSERA_ABI_METHOD
#undef TESSERA_ABI_FUNCTION

// A plugin of each minor version is sent only the dtypes its version has.
static_assert(TESSERA_DTYPE_COUNT_FOR_MINOR(0u) == 7u && TESSERA_DTYPE_COUNT_FOR_MINOR(1u) == 7u);
static_assert(TESSERA_DTYPE_COUNT_FOR_MINOR(2u) == 8u && TESSERA_DTYPE_COUNT_FOR_MINOR(4u) == 8u);
static_assert(TESSERA_DTYPE_COUNT_FOR_MINOR(5u) == 10u && TESSERA_DTYPE_COUNT == 10);
static_assert(TESSERA_DTYPE_COUNT_FOR_MINOR(TESSERA_ABI_MINOR) == TESSERA_DTYPE_COUNT);

// The host refuses objects shorter than its idea of 1.0 (framework/plugin/objects.hpp): it must be
// the frozen one, or it would refuse 1.0 plugins (or call past their end).
static_assert(tessera::kAbi10Size<tessera_topology> == kSize10<tessera_topology>);
static_assert(tessera::kAbi10Size<tessera_cost_model> == kSize10<tessera_cost_model>);
static_assert(tessera::kAbi10Size<tessera_partitioner> == kSize10<tessera_partitioner>);
static_assert(tessera::kAbi10Size<tessera_layout_mapper> == kSize10<tessera_layout_mapper>);
static_assert(tessera::kAbi10Size<tessera_codegen> == kSize10<tessera_codegen>);
static_assert(tessera::kAbi10Size<tessera_memory_model> == kSize10<tessera_memory_model>);
static_assert(tessera::kAbi10Size<tessera_memory_info> == kSize10<tessera_memory_info>);

// Defined in c99_check.c: how many layout entries the C compiler checked.
extern "C" int tessera_abi_c99_checked_entries(void);

namespace {

// The same count on this side: one per STRUCT, FIELD, VALUE and GROWN line of every table (C99
// cannot compare types).
constexpr int count_entries() {
  int n = 0;
#define TESSERA_ABI_STRUCT(...) ++n;
#define TESSERA_ABI_FIELD(...) ++n;
#define TESSERA_ABI_VALUE(...) ++n;
#define TESSERA_ABI_GROWN(...) ++n;
#define TESSERA_ABI_METHOD(...)
#define TESSERA_ABI_FUNCTION(...)
#include "abi_1_0.h"
#include "abi_1_1.h"
#include "abi_1_2.h"
#include "abi_1_3.h"
#include "abi_1_4.h"
#include "abi_1_5.h"
#undef TESSERA_ABI_GROWN
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE
#undef TESSERA_ABI_METHOD
#undef TESSERA_ABI_FUNCTION
  return n;
}

TEST(Layout, CAndCppCheckedTheSameFrozenTables) {
  EXPECT_GE(count_entries(), 268 + 8 + 1 + 8 + 3 + 3 + 5 + 10)
      << "released lines are never removed from abi_1_0.h to abi_1_5.h";
  EXPECT_EQ(tessera_abi_c99_checked_entries(), count_entries());
}

TEST(Layout, HostApiReportsItsOwnSizeAndVersion) {
  const tessera_host_api* host = tessera::host_api();
  EXPECT_EQ(host->struct_size, sizeof(tessera_host_api));
  EXPECT_EQ(host->abi_major, uint32_t{TESSERA_ABI_MAJOR});
  EXPECT_EQ(host->abi_minor, uint32_t{TESSERA_ABI_MINOR});
  for (void* r : host->reserved) EXPECT_EQ(r, nullptr);
}

}  // namespace
