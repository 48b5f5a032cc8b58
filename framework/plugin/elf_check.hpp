// The ELF checks a plugin library passes BEFORE it is mapped. The dynamic loader trusts the file:
// a PT_LOAD segment that reaches past the end of a truncated file is mapped anyway and faults
// (SIGBUS) when touched, and a header it cannot use gives only a terse dlerror(). These checks
// read the headers with pread (never mmap), so a hostile file can only make them say why it is
// refused: not an ELF file, another class, byte order or machine than this host's, not a shared
// object, or headers and segments outside the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

// Why the open file `fd` of `size` bytes is not a shared library this host can map, as a phrase
// that follows the file's name ("is a 32-bit ELF file; ..."), or nullopt when it passes.
std::optional<std::string> elf_problem(int fd, uint64_t size);

}  // namespace tessera
