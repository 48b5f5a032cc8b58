// Request traces: what a real server saw, replayed. Two spellings of one table (docs/formats.md,
// "Request traces"; a sample in configs/serve/):
//   CSV    a header line `arrival_s,prompt_tokens,output_tokens` (in any order), then one row per
//          request; blank lines and lines starting with '#' are skipped
//   JSONL  one object per line: {"arrival_s": 0.5, "prompt_tokens": 512, "output_tokens": 128}
// The kind follows the extension (.csv; .jsonl or .json). Arrival times are seconds from the
// trace's start (finite, >= 0); lengths whole tokens >= 1. Requests are taken in arrival order
// (a stable sort, so rows with one time keep theirs).
#pragma once

#include <filesystem>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/serve/requests.hpp"

namespace tessera::serve {

struct TraceRow {
  Request request;
  std::string source;  // "FILE:LINE", for check_request
};

// Input errors name FILE:LINE and the field: "trace.csv:4: arrival_s: expected seconds from the
// trace's start, a finite number >= 0, got '-1'"; a missing header or field, an unknown field, an
// empty trace; read_file's (a missing file, one beyond kMaxTextBytes).
Result<std::vector<TraceRow>> read_trace(const std::filesystem::path& path);

// The same from a trace's text: CSV when `path` ends in .csv, else JSONL; `path` labels errors.
Result<std::vector<TraceRow>> parse_trace_text(const std::string& text,
                                               const std::filesystem::path& path);

}  // namespace tessera::serve
