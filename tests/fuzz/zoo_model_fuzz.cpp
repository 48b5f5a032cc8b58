// Fuzz target: the zoo entry reader (models/zoo/*.yaml, or an entry given as MODEL) must answer any
// bytes with a ModelSpec or an Error, never a crash, hang or exception; an entry it accepts builds
// a graph (or refuses the shape) in both modes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/frontend/zoo/builders.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(zoo_model)(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto root = YamlNode::load_string(std::string(reinterpret_cast<const char*>(data), size),
                                    "/fuzz/model.yaml");
  if (!root) return 0;
  zoo::ModelSpec spec;
  try {
    if (!zoo::is_model_document(*root)) return 0;
    spec = zoo::parse_model_spec(*root);
  } catch (const Failure&) {
    return 0;
  }
  for (zoo::Mode mode : {zoo::Mode::decode, zoo::Mode::prefill}) {
    zoo::RunShape shape;
    shape.seq = 16;
    shape.mode = mode;
    (void)zoo::build_model(spec, shape);
  }
  return 0;
}
