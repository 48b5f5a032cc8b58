// An Einsum node's equation against its inputs' shapes: every letter with its extent, each
// operand's letters with "..." expanded to the broadcast dims (named '0', '1', ...), and the
// output's letters (implicit form: the ellipsis, then the letters used once, alphabetically).
// Shared by the converter and by shape completion (libonnx 1.12 infers only the output's rank).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tessera::onnx_import {

struct EinsumEquation {
  std::vector<std::string> inputs;  // one letter per dimension of each input
  std::string output;
  std::map<char, int64_t> extents;  // broadcast extents (1 stretches)

  std::vector<int64_t> output_shape() const;
};

// The equation, or why it does not fit the shapes.
std::variant<EinsumEquation, std::string> parse_einsum(
    const std::string& equation, const std::vector<std::vector<int64_t>>& shapes);

}  // namespace tessera::onnx_import
