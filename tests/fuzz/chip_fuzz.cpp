// Fuzz target: the chip file reader must answer any bytes with a ChipSpec or an Error, never a
// crash, hang or exception; so must the mapper reading a core: hierarchy written inline.
#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/mapper/arch_spec.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(chip)(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto chip = tessera::parse_chip_text(text, "/fuzz/chip.yaml");
  if (chip) {
    for (tessera::Interface i : tessera::kAllInterfaces) (void)chip->params_for(i);
    if (chip->core && chip->core->spec) (void)tessera::mapper::parse_arch_node(*chip->core->spec);
  }
  return 0;
}
