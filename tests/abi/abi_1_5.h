/*
 * What ABI 1.5 added to 1.4, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h to abi_1_4.h, which stay as 1.0 to 1.4 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.5 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * Lines as in abi_1_1.h. tessera_endpoint, tessera_cost_model_info and tessera_tile_query grow
 * for the first time here, so each GROWN line pins its 1.0 size (abi_1_0.h's STRUCT line;
 * tessera_tile_query has no struct_size: the host passes its size as query_size). The host sends
 * TESSERA_DTYPE_BFP4 and TESSERA_DTYPE_BFP2 only to a plugin whose descriptor reports minor >= 5
 * (TESSERA_DTYPE_COUNT_FOR_MINOR), checked by abi_memory_test.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_GROWN(tessera_endpoint, 48, bytes_per_s)
TESSERA_ABI_STRUCT(tessera_endpoint, 56, 8)
TESSERA_ABI_FIELD(tessera_endpoint, bytes_per_s, 48, 8)
TESSERA_ABI_GROWN(tessera_cost_model_info, 32, dispatch_host_s)
TESSERA_ABI_STRUCT(tessera_cost_model_info, 56, 8)
TESSERA_ABI_FIELD(tessera_cost_model_info, dispatch_host_s, 32, 8)
TESSERA_ABI_FIELD(tessera_cost_model_info, dispatch_traced_s, 40, 8)
TESSERA_ABI_FIELD(tessera_cost_model_info, launch_s, 48, 8)

TESSERA_ABI_VALUE(TESSERA_DTYPE_BFP4, 8)
TESSERA_ABI_VALUE(TESSERA_DTYPE_BFP2, 9)
TESSERA_ABI_VALUE(TESSERA_MATH_FIDELITY_DEFAULT, 0)
TESSERA_ABI_VALUE(TESSERA_MATH_FIDELITY_LOFI, 1)
TESSERA_ABI_VALUE(TESSERA_MATH_FIDELITY_HIFI2, 2)
TESSERA_ABI_VALUE(TESSERA_MATH_FIDELITY_HIFI3, 3)
TESSERA_ABI_VALUE(TESSERA_MATH_FIDELITY_HIFI4, 4)

TESSERA_ABI_GROWN(tessera_tile_query, 72, math_fidelity)
TESSERA_ABI_STRUCT(tessera_tile_query, 80, 8)
TESSERA_ABI_FIELD(tessera_tile_query, math_fidelity, 72, 4)
/* clang-format on */
