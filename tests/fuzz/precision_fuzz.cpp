// Fuzz target: the precision file reader must answer any bytes with a Precision or an Error, never
// a crash, hang or exception; a file it accepts must write back (as plan.yaml keeps it) to text
// that reads back to the same settings.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/frontend/zoo/precision.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(precision)(const uint8_t* data, size_t size) {
  using namespace tessera::zoo;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto precision = parse_precision_text(text, "/fuzz/precision.yaml");
  if (!precision) return 0;
  auto again = parse_precision_text(precision_yaml(*precision), "/fuzz/again.yaml");
  if (!again || !(*again == *precision)) std::abort();
  return 0;
}
