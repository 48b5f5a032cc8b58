// Fuzz target: the sweep file reader must answer any bytes with a SweepSpec or an Error, never a
// crash, hang or exception; a spec it accepts has at most kMaxPoints points, each with a value of
// every axis; a serve sweep's points all become serve requests (their words were checked when
// read, so building one never throws).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/dse/points.hpp"
#include "framework/dse/serve_words.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(sweep)(const uint8_t* data, size_t size) {
  using namespace tessera::dse;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = parse_sweep_text(text, "/fuzz/sweep.yaml");
  if (!spec) return 0;
  for (const Axis& axis : spec->axes)
    if (axis.values.empty()) std::abort();
  auto points = enumerate_points(*spec);  // the reader bounds their number
  if (points.size() > kMaxPoints) std::abort();
  for (const Point& p : points) {
    if (p.values.size() != spec->axes.size()) std::abort();
    if (spec->kind == SweepKind::serve) serve_request(*spec, p);
  }
  return 0;
}
