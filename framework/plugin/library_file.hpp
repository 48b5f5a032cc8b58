// A plugin library checked BEFORE it is mapped into the process. dlopen runs the library's code
// and touches every page it maps, so a file that is not the one its manifest was written for
// (truncated, a flipped byte, another machine's build, a directory, a loop of symbolic links) must
// be refused before it: the process cannot recover from a fault inside the dynamic loader.
#pragma once

#include <filesystem>
#include <string>

#include "framework/common/status.hpp"
#include "framework/plugin/manifest.hpp"

namespace tessera {

// Resolves manifest.library (symbolic links followed, a loop or a dangling link named) and checks
// the file: a readable, non-empty regular file, an ELF shared library for this host whose headers
// and segments lie within it (elf_check.hpp), and exactly the size and SHA-256 the manifest
// records. Returns the resolved path, the file to load. Every refusal is a plugin error naming the
// plugin, the file and the reason.
Result<std::filesystem::path> verify_library_file(const Manifest& manifest);

// A path as plugin errors show it: in single quotes, so a name with spaces reads as one.
std::string quoted(const std::filesystem::path& path);

}  // namespace tessera
