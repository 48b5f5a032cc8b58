// Freezes ABI 1.0 for x86_64 / LP64: every size, alignment, offset, enumerator and function type
// of abi_1_0.h is a static_assert, so a change to a released layout fails the BUILD. c99_check.c
// checks the same table with a C99 compiler; the tests below prove both sides ran.
#include <gtest/gtest.h>
#include <tessera/plugin_abi.h>

#include <cstddef>
#include <type_traits>

#include "framework/plugin/host_api.hpp"

#if !defined(__x86_64__) || !defined(__LP64__)
#error "abi_1_0.h freezes the x86_64 / LP64 layout; add a table for this platform"
#endif

#define TESSERA_ABI_STRUCT(type, size, align)                         \
  static_assert(sizeof(type) == (size), "sizeof(" #type ") changed"); \
  static_assert(alignof(type) == (align), "alignof(" #type ") changed");
#define TESSERA_ABI_FIELD(type, field, offset, size)                                           \
  static_assert(offsetof(type, field) == (offset), "offset of " #type "::" #field " changed"); \
  static_assert(sizeof(type::field) == (size), "size of " #type "::" #field " changed");
#define TESSERA_ABI_VALUE(name, value) static_assert((name) == (value), #name " changed");
#define TESSERA_ABI_METHOD(type, field, ...)                        \
  static_assert(std::is_same_v<decltype(type::field), __VA_ARGS__>, \
                "function type of " #type "::" #field " changed");
#define TESSERA_ABI_FUNCTION(name, ...) \
  static_assert(std::is_same_v<name, __VA_ARGS__>, "function type " #name " changed");
#include "abi_1_0.h"
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE
#undef TESSERA_ABI_METHOD
#undef TESSERA_ABI_FUNCTION

// Defined in c99_check.c: how many layout entries the C compiler checked.
extern "C" int tessera_abi_c99_checked_entries(void);

namespace {

// The same count on this side: one per STRUCT, FIELD and VALUE line (C99 cannot compare types).
constexpr int count_entries() {
  int n = 0;
#define TESSERA_ABI_STRUCT(...) ++n;
#define TESSERA_ABI_FIELD(...) ++n;
#define TESSERA_ABI_VALUE(...) ++n;
#define TESSERA_ABI_METHOD(...)
#define TESSERA_ABI_FUNCTION(...)
#include "abi_1_0.h"
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE
#undef TESSERA_ABI_METHOD
#undef TESSERA_ABI_FUNCTION
  return n;
}

TEST(Layout, CAndCppCheckedTheSameFrozenTable) {
  EXPECT_GE(count_entries(), 268) << "released lines are never removed from abi_1_0.h";
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
