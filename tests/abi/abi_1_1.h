/*
 * What ABI 1.1 added to 1.0, as released, frozen, for x86_64 / LP64 (System V). Read with
 * abi_1_0.h, which stays as 1.0 released it: together they describe every 1.1 layout.
 *
 * NEVER EDIT A LINE OF THIS FILE once 1.1 is released (as abi_1_0.h says for 1.0); a later minor
 * version gets its own abi_1_N.h.
 *
 * The X-macros of abi_1_0.h, plus
 *   TESSERA_ABI_GROWN(type, size_before, first_field)
 * for each struct that grew in 1.1: it was `size_before` bytes in 1.0 (abi_1_0.h's STRUCT line),
 * and its first 1.1 field starts there. An includer checks abi_1_0.h's STRUCT line of such a type
 * against offsetof(type, first_field) instead of sizeof(type): the 1.0 size of a grown struct is
 * what a 1.0 plugin puts in its struct_size. The STRUCT lines below are the full 1.1 sizes.
 * C99: no include guard by design, comments in C style.
 */
/* clang-format off */

TESSERA_ABI_GROWN(tessera_memory_info, 40, description)
TESSERA_ABI_STRUCT(tessera_memory_info, 56, 8)
TESSERA_ABI_FIELD(tessera_memory_info, description, 40, 8)
TESSERA_ABI_FIELD(tessera_memory_info, source, 48, 8)

TESSERA_ABI_GROWN(tessera_memory_model, 120, channel_of)
TESSERA_ABI_STRUCT(tessera_memory_model, 136, 8)
TESSERA_ABI_FIELD(tessera_memory_model, channel_of, 120, 8)
TESSERA_ABI_FIELD(tessera_memory_model, get_channel_stats, 128, 8)

TESSERA_ABI_METHOD(tessera_memory_model, channel_of, tessera_status* (*)(const tessera_memory_model* self, uint64_t address, uint32_t* channel))
TESSERA_ABI_METHOD(tessera_memory_model, get_channel_stats, tessera_status* (*)(const tessera_memory_model* self, uint32_t channel, tessera_memory_stats* out))
/* clang-format on */
