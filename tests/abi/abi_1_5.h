/*
 * What ABI 1.5 added to 1.4, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h to abi_1_4.h, which stay as 1.0 to 1.4 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.5 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * Lines as in abi_1_1.h. tessera_endpoint did not grow before 1.5, so its size before 1.5 is its
 * 1.0 size (abi_1_0.h's STRUCT line), and this GROWN line is what pins that 1.0 size.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_GROWN(tessera_endpoint, 48, bytes_per_s)
TESSERA_ABI_STRUCT(tessera_endpoint, 56, 8)
TESSERA_ABI_FIELD(tessera_endpoint, bytes_per_s, 48, 8)
/* clang-format on */
