/*
 * What ABI 1.3 added to 1.2, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h, abi_1_1.h and abi_1_2.h, which stay as 1.0, 1.1 and 1.2 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.3 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * Lines as in abi_1_1.h: GROWN for the struct that grew in 1.3, its full 1.3 STRUCT size, and a
 * new struct. tessera_partition_plan did not grow in 1.1 or 1.2, so its size before 1.3 is its 1.0
 * size (abi_1_0.h's STRUCT line), and this GROWN line is what pins that 1.0 size.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_STRUCT(tessera_core_digit, 16, 8)
TESSERA_ABI_FIELD(tessera_core_digit, rank, 0, 4)
TESSERA_ABI_FIELD(tessera_core_digit, count, 4, 4)
TESSERA_ABI_FIELD(tessera_core_digit, core_stride, 8, 8)

TESSERA_ABI_GROWN(tessera_partition_plan, 96, num_core_digits)
TESSERA_ABI_STRUCT(tessera_partition_plan, 112, 8)
TESSERA_ABI_FIELD(tessera_partition_plan, num_core_digits, 96, 4)
TESSERA_ABI_FIELD(tessera_partition_plan, core_digits, 104, 8)
/* clang-format on */
