/*
 * What ABI 1.5 added to 1.4, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h to abi_1_4.h, which stay as 1.0 to 1.4 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.5 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * Lines as in abi_1_1.h. tessera_endpoint and tessera_cost_model_info grow for the first time
 * here, so each GROWN line pins its 1.0 size (abi_1_0.h's STRUCT line).
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
/* clang-format on */
