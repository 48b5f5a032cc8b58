// Fuzz target: the plugin manifest reader must answer any bytes with a manifest or an Error, never
// a crash, hang or exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/plugin/manifest.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(manifest)(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)tessera::parse_manifest(text, "/fuzz/x.plugin.yaml");
  return 0;
}
