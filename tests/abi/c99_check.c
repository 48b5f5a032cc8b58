/*
 * Proves that plugin_abi.h is C99 (this file is compiled with -std=c99 -pedantic -Werror) and that
 * a C compiler lays out ABI 1.0 exactly as the frozen table abi_1_0.h says. C99 has no
 * static_assert: a false condition makes an array of size -1, which does not compile.
 */
#include <stddef.h>
#include <tessera/plugin_abi.h>

#define TESSERA_C99_ASSERT(cond, name, line) \
  typedef char tessera_abi_##name##_##line[(cond) ? 1 : -1];
#define TESSERA_C99_ASSERT_AT(cond, name, line) TESSERA_C99_ASSERT(cond, name, line)

#define TESSERA_ABI_STRUCT(type, size, align) \
  TESSERA_C99_ASSERT_AT(sizeof(type) == (size), sz, __LINE__)
#define TESSERA_ABI_FIELD(type, field, offset, size)                      \
  TESSERA_C99_ASSERT_AT(offsetof(type, field) == (offset), off, __LINE__) \
  TESSERA_C99_ASSERT_AT(sizeof(((const type*)0)->field) == (size), len, __LINE__)
#define TESSERA_ABI_VALUE(name, value) TESSERA_C99_ASSERT_AT((name) == (value), val, __LINE__)
#define TESSERA_ABI_METHOD(type, field, ...)
#define TESSERA_ABI_FUNCTION(name, ...)
#include "abi_1_0.h"
#undef TESSERA_ABI_STRUCT
#undef TESSERA_ABI_FIELD
#undef TESSERA_ABI_VALUE

/* One byte per entry checked above, so the C++ test can compare counts. */
#define TESSERA_ABI_STRUCT(type, size, align) 1,
#define TESSERA_ABI_FIELD(type, field, offset, size) 1,
#define TESSERA_ABI_VALUE(name, value) 1,
static const char tessera_abi_entries[] = {
#include "abi_1_0.h"
};

int tessera_abi_c99_checked_entries(void);
int tessera_abi_c99_checked_entries(void) {
  return (int)sizeof(tessera_abi_entries);
}
