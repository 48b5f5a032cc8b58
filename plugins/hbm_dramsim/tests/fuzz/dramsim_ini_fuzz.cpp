// Fuzz target: the DRAMsim3 .ini reader must answer any bytes with a device or an error naming
// the key, never a crash, hang or other exception; a device it accepts must simulate.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>

#include "dram_config.hpp"
#include "memory_system.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(dramsim_ini)(const uint8_t* data, size_t size) {
  using namespace tessera::hbm;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (bool strict : {false, true}) {
    try {
      LoadedConfig loaded = load_dram_config(text, "fuzz.ini", strict);
      auto device = std::make_shared<const Device>(std::move(loaded.config));
      // One channel, a few requests spread by the input's bytes, a few thousand cycles.
      MemorySystem system(device, 1, 0);
      const AddressMap& map = system.address_map();
      const uint64_t spread = std::hash<std::string>{}(text) | 1;
      for (uint64_t i = 0; i < 16; ++i) {
        const uint64_t address = spread * (2 * i + 1) + (i << 12);
        if (map.locate(address).channel == 0) (void)system.submit(i, address, i % 3 == 0);
      }
      system.advance(3000, [](const tessera_memory_completion&) {});
      (void)system.total();
    } catch (const tessera::sdk::Error&) {
      // A clear error is a correct answer.
    }
  }
  return 0;
}
