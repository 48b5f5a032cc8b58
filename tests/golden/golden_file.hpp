// Writing a golden file: the figures a test measured, under the comment that says how to
// regenerate them, replaced atomically (a killed update leaves the old file whole).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "framework/common/files.hpp"

namespace tessera {

inline void write_golden_file(const std::string& path, const std::string& comment,
                              const YAML::Node& root) {
  YAML::Emitter out;
  out << YAML::Comment(comment) << root;
  write_file_atomically(path, std::string(out.c_str()) + "\n", true).take();
}

}  // namespace tessera
