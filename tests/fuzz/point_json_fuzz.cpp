// Fuzz target: a sweep run directory's point files (points/*.json, read to resume a sweep) must
// answer any bytes with a point result or an Error, never a crash, hang or exception; a result it
// accepts writes back to text that reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/dse/point_result.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(point_json)(const uint8_t* data, size_t size) {
  using namespace tessera::dse;
  auto point =
      read_point_json(std::string(reinterpret_cast<const char*>(data), size), "/fuzz/point.json");
  if (!point) return 0;
  std::string written = point_json(*point);
  auto again = read_point_json(written, "/fuzz/again.json");
  if (!again || point_json(*again) != written) std::abort();
  return 0;
}
