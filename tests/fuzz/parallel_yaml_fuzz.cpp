// Fuzz target: the parallel.yaml reader must answer any bytes with a ParallelPlan or an Error,
// never a crash, hang or exception; a plan it accepts must write back to text that reads back to
// the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/parallel/parallel_yaml.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(parallel_yaml)(const uint8_t* data, size_t size) {
  using namespace tessera::parallel;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto plan = parse_parallel_yaml(text, "/fuzz/parallel.yaml");
  if (!plan) return 0;
  std::string written = write_parallel_yaml(*plan);
  auto again = parse_parallel_yaml(written, "/fuzz/again.yaml");
  if (!again || write_parallel_yaml(*again) != written) std::abort();
  return 0;
}
