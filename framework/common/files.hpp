// Files the way a user's data deserves: listings in a stable order, inputs read with a bound, and
// outputs that never replace what they should not: a file only when asked (--force) and atomically
// (a temporary beside it, then rename), never a device, FIFO, socket or symbolic link.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"

namespace tessera {

// The regular files directly in `dir` whose names end with `suffix`, sorted by path. A missing or
// unreadable directory gives an empty list: search paths routinely name directories that are not
// there.
std::vector<std::filesystem::path> files_with_suffix(const std::filesystem::path& dir,
                                                     const std::string& suffix);

// The most any input may hold: protobuf's own limit for an ONNX model, far beyond any text file.
inline constexpr size_t kMaxInputBytes = size_t{2} << 30;
// The most a text input (YAML, plan, program) may hold; a larger one is not something Tessera
// wrote or anyone typed (or it is /dev/zero).
inline constexpr size_t kMaxTextBytes = size_t{256} << 20;

// The whole file as bytes. Input errors naming the path: it cannot be opened (not_found), it is a
// directory, it holds more than `max_bytes` (a device or FIFO is read up to that bound, so an
// endless one ends).
Result<std::string> read_file(const std::filesystem::path& path, size_t max_bytes = kMaxInputBytes);

// Writes `contents` to `path`, which may be:
//  - "-": standard output;
//  - a path that does not exist: written to a temporary beside it, then renamed (atomic), with
//    missing parent directories created;
//  - an existing regular file: only with `force` (else an input error telling the user to pass
//    --force), replaced atomically; through a symbolic link, the file it points to is replaced and
//    the link kept;
//  - a character device or a FIFO (/dev/null, a pipe, a process substitution), or a link to one:
//    written in place, never replaced; a FIFO without a reader is refused instead of waited on.
// Refused: a directory, a socket, a block device, a dangling symbolic link. Every error is an input
// error naming the path and the system's reason (permission denied, no space left on device).
Status write_file_atomically(const std::filesystem::path& path, const std::string& contents,
                             bool force);

// The install prefix this process runs from: the directory above the running tessera binary
// (PREFIX/bin/tessera), or the one a host that is not that binary set (the Python module, whose
// interpreter is elsewhere); nullopt when neither is known. Installed data lives under it:
// share/tessera (chips, zoo, plot script) and lib/tessera/plugins.
std::optional<std::filesystem::path> install_prefix();
// Called once, before any other call of this library (not thread-safe with install_prefix).
void set_install_prefix(std::filesystem::path prefix);

}  // namespace tessera
