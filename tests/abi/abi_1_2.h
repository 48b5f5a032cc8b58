/*
 * What ABI 1.2 added to 1.1, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h and abi_1_1.h, which stay as 1.0 and 1.1 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.2 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * 1.2 adds one enumerator and no field: no struct grew, so there are no GROWN or STRUCT lines. The
 * host sends TESSERA_DTYPE_BFP8 only to a plugin whose descriptor reports minor >= 2
 * (TESSERA_DTYPE_COUNT_FOR_MINOR), checked by abi_memory_test.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_VALUE(TESSERA_DTYPE_BFP8, 7)
/* clang-format on */
