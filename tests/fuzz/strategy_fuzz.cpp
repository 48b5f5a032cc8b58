// Fuzz target: `--parallel` text must parse to a strategy or a usage error, never a crash; a
// strategy it accepts must print back (to_string) as text that parses to the same strategy.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/parallel/strategy.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(strategy)(const uint8_t* data, size_t size) {
  using namespace tessera::parallel;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto strategy = parse_strategy(text);
  if (!strategy) return 0;
  auto again = parse_strategy(to_string(*strategy));
  if (!again) std::abort();
  ParallelStrategy expected = *strategy;
  expected.dp = expected.flat || expected.automatic ? expected.dp : expected.dp.value_or(1);
  if (*again != expected) std::abort();
  return 0;
}
