// Fuzz target: the DRAMsim3 trace reader must answer any bytes with requests or one input error
// naming the line, never a crash, hang or other exception; the requests it yields never go back in
// time, and an in-order front end takes them to the end.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "framework/common/status.hpp"
#include "framework/memsim/request_sources.hpp"
#include "tests/fuzz/fuzz_target.hpp"

TESSERA_FUZZ_TARGET(trace)(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  tessera::memsim::TraceSource trace(in, "/fuzz/x.trace");
  uint64_t last_cycle = 0, offered = 0;
  try {
    // Every third offer refused: the front end must hold the request back, not lose it.
    tessera::memsim::drive_requests(trace, UINT64_MAX, [&](const auto& request, uint64_t cycle) {
      if (request.cycle < last_cycle || cycle < request.cycle) __builtin_trap();
      last_cycle = request.cycle;
      return ++offered % 3 != 0;
    });
  } catch (const tessera::Failure& f) {
    if (f.error().kind != tessera::ErrorKind::input) __builtin_trap();
  }
  return 0;
}
