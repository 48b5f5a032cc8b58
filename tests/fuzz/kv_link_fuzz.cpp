// Fuzz target: the KV link file reader (serve --kv-link FILE) must answer any bytes with a link or
// one input error, never a crash, hang or other exception; a link it accepts moves bytes at a
// positive finite rate after a finite latency, so every transfer it prices is finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/serve/kv_link.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(kv_link)(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto link = tessera::serve::parse_kv_link_text(text, "/fuzz/link.yaml");
  if (!link) {
    if (link.error().kind != tessera::ErrorKind::input) std::abort();
    return 0;
  }
  if (!(link->bytes_per_s > 0) || !std::isfinite(link->transfer_s(1e9))) std::abort();
  return 0;
}
