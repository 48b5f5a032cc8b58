/*
 * Proves that plugin_abi.h is C99 (this file is compiled with -std=c99 -pedantic -Werror) and that
 * a C compiler lays out ABI 1.0 to 1.5 exactly as the frozen tables abi_1_0.h to abi_1_5.h say.
 * C99 has no static_assert: a false condition makes an array of size -1, which does not compile.
 * Nor can C99 tell a struct that grew since 1.0 from one that did not, so abi_1_0.h's and
 * abi_1_1.h's sizes are lower bounds here; the GROWN lines of abi_1_1.h and abi_1_3.h to abi_1_5.h
 * pin the size every grown struct had before, the STRUCT lines of abi_1_3.h to abi_1_5.h their
 * full sizes, and layout_test.cpp checks every size exactly.
 */
#include <stddef.h>
#include <tessera/plugin_abi.h>

/* Named by kind, table and line: the tables share line numbers. */
#define TESSERA_C99_ASSERT(cond, name, table, line) \
  typedef char tessera_abi_##name##_##table##_##line[(cond) ? 1 : -1];
#define TESSERA_C99_ASSERT_IN(cond, name, table, line) TESSERA_C99_ASSERT(cond, name, table, line)
#define TESSERA_C99_ASSERT_AT(cond, name, line) \
  TESSERA_C99_ASSERT_IN(cond, name, TESSERA_C99_TABLE, line)

#define TESSERA_ABI_FIELD(type, field, offset, size)                      \
  TESSERA_C99_ASSERT_AT(offsetof(type, field) == (offset), off, __LINE__) \
  TESSERA_C99_ASSERT_AT(sizeof(((const type*)0)->field) == (size), len, __LINE__)
#define TESSERA_ABI_VALUE(name, value) TESSERA_C99_ASSERT_AT((name) == (value), val, __LINE__)
#define TESSERA_ABI_METHOD(type, field, ...)
#define TESSERA_ABI_FUNCTION(name, ...)

/* 1.0: every offset as released; no struct is smaller than it was. */
#define TESSERA_C99_TABLE 1_0
#define TESSERA_ABI_STRUCT(type, size, align) \
  TESSERA_C99_ASSERT_AT(sizeof(type) >= (size), sz, __LINE__)
#include "abi_1_0.h"
#undef TESSERA_ABI_STRUCT
#undef TESSERA_C99_TABLE

/* 1.1 (and 1.3, 1.4): the grown structs' earlier part ends where their first new field begins;
 * 1.1's sizes are lower bounds (tessera_memory_model grew again in 1.4), later ones exact. */
#define TESSERA_C99_TABLE 1_1
#define TESSERA_ABI_GROWN(type, size_before, first_field) \
  TESSERA_C99_ASSERT_AT(offsetof(type, first_field) == (size_before), grown, __LINE__)
#define TESSERA_ABI_STRUCT(type, size, align) \
  TESSERA_C99_ASSERT_AT(sizeof(type) >= (size), sz, __LINE__)
#include "abi_1_1.h"
#undef TESSERA_ABI_STRUCT
#define TESSERA_ABI_STRUCT(type, size, align) \
  TESSERA_C99_ASSERT_AT(sizeof(type) == (size), sz, __LINE__)
#undef TESSERA_C99_TABLE

/* 1.2: one enumerator. */
#define TESSERA_C99_TABLE 1_2
#include "abi_1_2.h"
#undef TESSERA_C99_TABLE

/* 1.3: tessera_core_digit, and tessera_partition_plan's core_digits after its 1.2 part (checked
 * as 1.1's grown structs are). */
#define TESSERA_C99_TABLE 1_3
#include "abi_1_3.h"
#undef TESSERA_C99_TABLE

/* 1.4: tessera_memory_model's offer after its 1.1 part. */
#define TESSERA_C99_TABLE 1_4
#include "abi_1_4.h"
#undef TESSERA_C99_TABLE

/* 1.5: tessera_endpoint's bytes_per_s, tessera_cost_model_info's fixed costs and
 * tessera_tile_query's math_fidelity after their 1.0 parts; two dtypes; the fidelity enumerators.
 */
#define TESSERA_C99_TABLE 1_5
#include "abi_1_5.h"
#undef TESSERA_ABI_GROWN
#undef TESSERA_ABI_STRUCT
#undef TESSERA_C99_TABLE
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE

/* One byte per entry checked above, so the C++ test can compare counts. */
#define TESSERA_ABI_STRUCT(type, size, align) 1,
#define TESSERA_ABI_FIELD(type, field, offset, size) 1,
#define TESSERA_ABI_VALUE(name, value) 1,
#define TESSERA_ABI_GROWN(type, size_before, first_field) 1,
static const char tessera_abi_entries[] = {
#include "abi_1_0.h"
#include "abi_1_1.h"
#include "abi_1_2.h"
#include "abi_1_3.h"
#include "abi_1_4.h"
#include "abi_1_5.h"
};

int tessera_abi_c99_checked_entries(void);
int tessera_abi_c99_checked_entries(void) {
  return (int)sizeof(tessera_abi_entries);
}
