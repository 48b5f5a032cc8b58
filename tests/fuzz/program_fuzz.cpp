// Fuzz target: the program.txt reader must answer any bytes with a Program or an Error, never a
// crash, hang or exception; what it reads must pass through the checker and write back to text that
// reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/codegen/program_check.hpp"
#include "framework/codegen/program_text.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(program)(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto program = tessera::codegen::read_program_text(text, "/fuzz/program.txt");
  if (!program) return 0;
  std::vector<int> order{0, 1, 2};
  (void)tessera::codegen::check_program(*program, &order);
  std::string written = tessera::codegen::write_program_text(*program);
  auto again = tessera::codegen::read_program_text(written, "/fuzz/again.txt");
  if (!again || tessera::codegen::write_program_text(*again) != written) std::abort();
  return 0;
}
