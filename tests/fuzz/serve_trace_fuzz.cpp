// Fuzz target: the request trace reader (serve --trace FILE) must answer any bytes, read as CSV and
// as JSONL, with requests or one input error naming the line, never a crash, hang or other
// exception; the requests it yields come in arrival order, numbered from 0, each with a finite
// arrival time >= 0 and at least one prompt and one output token.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "framework/serve/trace_file.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

void check(const std::string& text, const char* path) {
  auto rows = tessera::serve::parse_trace_text(text, path);
  if (!rows) {
    if (rows.error().kind != tessera::ErrorKind::input) std::abort();
    return;
  }
  double last_s = 0;
  for (size_t i = 0; i < rows->size(); ++i) {
    const tessera::serve::Request& r = (*rows)[i].request;
    if (r.id != static_cast<int64_t>(i) || !std::isfinite(r.arrival_s) || r.arrival_s < last_s ||
        r.prompt_tokens < 1 || r.output_tokens < 1)
      std::abort();
    last_s = r.arrival_s;
  }
}

}  // namespace

TESSERA_FUZZ_TARGET(serve_trace)(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  check(text, "/fuzz/trace.csv");
  check(text, "/fuzz/trace.jsonl");
  return 0;
}
