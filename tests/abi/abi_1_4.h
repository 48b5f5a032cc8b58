/*
 * What ABI 1.4 added to 1.3, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h to abi_1_3.h, which stay as 1.0 to 1.3 released them.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.4 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * Lines as in abi_1_1.h. tessera_memory_model grew in 1.1 already, so this GROWN line is its second
 * growth: `size_before` is its 1.1 size (abi_1_1.h's STRUCT line, which an includer checks against
 * offsetof(tessera_memory_model, offer) instead of sizeof), not its 1.0 size.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_GROWN(tessera_memory_model, 136, offer)
TESSERA_ABI_STRUCT(tessera_memory_model, 144, 8)
TESSERA_ABI_FIELD(tessera_memory_model, offer, 136, 8)

TESSERA_ABI_METHOD(tessera_memory_model, offer, tessera_status* (*)(tessera_memory_model* self, const tessera_memory_request* requests, const uint64_t* offer_cycles, size_t count, uint64_t spacing, uint64_t last_cycle, tessera_completion_sink* sink, uint32_t* channels, size_t* accepted, uint64_t* cycles_run))
/* clang-format on */
