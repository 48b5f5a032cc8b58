// A fuzz target's entry point. Built for libFuzzer (clang, -DTESSERA_FUZZ=ON), each target is its
// own binary and the macro names libFuzzer's LLVMFuzzerTestOneInput. Otherwise every target is
// compiled once into one program, fuzz_replay (replay_main.cpp), which runs a named target on
// its corpus as a ctest; the macro then registers the target under its name.
//
//   TESSERA_FUZZ_TARGET(chip)(const uint8_t* data, size_t size) { ...; return 0; }
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::fuzz {

using OneInput = int (*)(const uint8_t* data, size_t size);
// Called from static initialisers, before main; the name must be unique within the program.
bool register_target(const char* name, OneInput one_input);

}  // namespace tessera::fuzz

#ifdef TESSERA_FUZZ_LIBFUZZER
#define TESSERA_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput
#else
#define TESSERA_FUZZ_TARGET(name)                                \
  static int name##_one_input(const uint8_t* data, size_t size); \
  [[maybe_unused]] static const bool name##_registered =         \
      ::tessera::fuzz::register_target(#name, name##_one_input); \
  static int name##_one_input
#endif
