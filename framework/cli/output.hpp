// A command's output files: `-` is standard output, anything else goes through
// write_file_atomically (files.hpp: --force for an existing file, devices and FIFOs written in
// place, links and sockets never replaced). While an output is standard output, the command's
// report goes to standard error, so what a pipe receives is the file and nothing else.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::cli {

inline bool is_stdout(const std::string& path) {
  return path == "-";
}

// Writes `text` to `path` and says "wrote PATH" on standard error (nothing for `-`). Throws Failure
// with write_file_atomically's error.
void write_output(const std::string& path, const std::string& text, bool force);

// std::cerr when any of `outputs` is `-`, else std::cout. Usage error when more than one is `-`.
std::ostream& report_stream(const std::vector<std::string>& outputs);

}  // namespace tessera::cli
