// Fuzz target: the plan.yaml reader must answer any bytes with a Plan or an Error, never a crash,
// hang or exception; a Plan it accepts must write back to text that reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/planner/plan_yaml.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(plan_yaml)(const uint8_t* data, size_t size) {
  using namespace tessera::planner;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto plan = parse_plan_yaml(text, "/fuzz/plan.yaml");
  if (!plan) return 0;
  std::string written = write_plan_yaml(*plan);
  auto again = parse_plan_yaml(written, "/fuzz/again.yaml");
  if (!again || write_plan_yaml(*again) != written) std::abort();
  return 0;
}
