#include "framework/codegen/program_text.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "framework/common/user_text.hpp"

namespace tessera::codegen {

namespace {

// 2: an execute's collective_s (the collectives after its work), written when not 0.
constexpr const char* kHeader = "# tessera program 2";

// No program tessera writes comes near these; beyond them a hand-written number is a typo that
// would have the simulator report hours per token, or overflow.
constexpr double kMaxSeconds = 1e6;
// Programs' shortest times are ~6e-11 s; a non-zero time far below it (a denormal such as 1e-320)
// is no duration a chip has, and the simulator's clock could not advance past it.
constexpr double kMinSeconds = 1e-15;
constexpr double kMaxBytes = 9007199254740992.0;  // 2^53 (8 PiB): exact in a double
constexpr int kMaxCores = 10'000'000;

using NumberField = double ProgramOp::*;
constexpr std::array<std::pair<const char*, NumberField>, 9> kExecuteNumbers{{
    {"compute_s", &ProgramOp::compute_s},
    {"distribute_bytes", &ProgramOp::distribute_bytes},
    {"distribute_sync_s", &ProgramOp::distribute_sync_s},
    {"shift_bytes", &ProgramOp::shift_bytes},
    {"sync_s", &ProgramOp::sync_s},
    {"reduce_bytes", &ProgramOp::reduce_bytes},
    {"hbm_write_bytes", &ProgramOp::hbm_write_bytes},
    {"flops", &ProgramOp::flops},
    {"cores", nullptr},  // an integer, read separately
}};

// A name or label between double quotes: \" and \\ escape themselves, and a line break (an ONNX
// node's name may hold one) is \n or \r, so every instruction stays on its line.
std::string quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? std::string("\\n") : c == '\r' ? std::string("\\r") : std::string(1, c);
  }
  return out + "\"";
}

char unescaped(char c) {
  return c == 'n' ? '\n' : c == 'r' ? '\r' : c;
}

std::string instruction_line(const Instruction& in, const ProgramOp& op) {
  std::string line = fmt::format("{} {} {}", to_string(in.kind), op.op, quote(op.name));
  if (in.kind == InstructionKind::preload_async)
    return line + fmt::format(" bytes={} hbm_bytes={} plan={}", op.preload_bytes, op.hbm_read_bytes,
                              quote(op.preload_label));
  for (const auto& [key, field] : kExecuteNumbers) {
    if (field != nullptr) line += fmt::format(" {}={}", key, op.*field);
  }
  if (op.cores_used > 0) line += fmt::format(" cores={}", op.cores_used);  // 0: not given
  if (op.streamed) line += " streamed=1";  // absent: 0, so other programs keep their bytes
  if (op.collective_s > 0) line += fmt::format(" collective_s={}", op.collective_s);  // likewise
  return line + fmt::format(" estimate_s={}..{} plan={}", op.estimated_start_s, op.estimated_end_s,
                            quote(op.exec_label));
}

// One line split into words; a double-quoted part (with \" and \\) belongs to its word.
struct Tokens {
  std::vector<std::string> words;
  std::string error;  // non-empty: why the line cannot be split
};

Tokens split_line(const std::string& line) {
  Tokens t;
  std::string word;
  bool in_word = false, quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\\' && i + 1 < line.size())
        c = unescaped(line[++i]);
      else if (c == '"') {
        quoted = false;
        continue;
      }
      word += c;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) t.words.push_back(std::exchange(word, {}));
      in_word = false;
    } else {
      in_word = true;
      if (c == '"')
        quoted = true;
      else
        word += c;
    }
  }
  if (quoted) t.error = "a quoted string is not closed; add the closing '\"'";
  if (in_word) t.words.push_back(word);
  return t;
}

class LineReader {
 public:
  LineReader(const std::string& file, int line)
      : where_(file + ":" + std::to_string(line) + ": ") {}
  [[noreturn]] void fail(const std::string& what) const {
    throw Failure(input_error(where_ + what));
  }

  // A number >= 0, at most kMaxSeconds for a time (a key ending in _s) and kMaxBytes for bytes.
  double number(const std::string& key, const std::string& text) const {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
      fail(key + "=" + in_quotes(text) + ": expected a number >= 0");
    bool time = key.ends_with("_s");
    double max = time ? kMaxSeconds : key.find("bytes") != std::string::npos ? kMaxBytes : value;
    if (time && value > 0 && value < kMinSeconds)
      fail(key + "=" + printable(text) + ": must be 0 or at least " +
           fmt::format("{:g}", kMinSeconds) + " s");
    if (value > max)
      fail(key + "=" + printable(text) + ": more than " + fmt::format("{:g}", max) +
           (time ? " s" : " bytes") + ", which no program comes near");
    return value;
  }
  int whole(const std::string& what, const std::string& text, int min, int max) const {
    int value = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
      fail(what + " " + in_quotes(text) + ": expected a whole number from " + std::to_string(min) +
           " to " + std::to_string(max));
    return value;
  }
  int op_index(const std::string& text) const { return whole("op index", text, 0, 10000000); }

 private:
  std::string where_;
};

std::pair<std::string, std::string> key_value(const LineReader& r, const std::string& word) {
  size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) r.fail(in_quotes(word) + ": expected KEY=VALUE");
  return {word.substr(0, eq), word.substr(eq + 1)};
}

void read_estimate(const LineReader& r, const std::string& text, ProgramOp& op) {
  size_t dots = text.find("..");
  if (dots == std::string::npos) r.fail("estimate_s=" + in_quotes(text) + ": expected START..END");
  op.estimated_start_s = r.number("estimate_s", text.substr(0, dots));
  op.estimated_end_s = r.number("estimate_s", text.substr(dots + 2));
  if (op.estimated_end_s < op.estimated_start_s)
    r.fail("estimate_s=" + in_quotes(text) + ": END is before START");
}

void read_execute_field(const LineReader& r, const std::string& key, const std::string& value,
                        ProgramOp& op) {
  if (key == "plan") {
    op.exec_label = value;
    return;
  }
  if (key == "estimate_s") {
    read_estimate(r, value, op);
    return;
  }
  if (key == "cores") {
    op.cores_used = static_cast<uint32_t>(r.whole("cores", value, 1, kMaxCores));
    return;
  }
  if (key == "streamed") {
    op.streamed = r.whole("streamed", value, 0, 1) == 1;
    return;
  }
  if (key == "collective_s") {
    op.collective_s = r.number(key, value);
    return;
  }
  for (const auto& [name, field] : kExecuteNumbers) {
    if (key == name && field != nullptr) {
      op.*field = r.number(key, value);
      return;
    }
  }
  r.fail("execute: unknown key " + in_quotes(key) +
         "; expected compute_s, distribute_bytes, distribute_sync_s, shift_bytes, sync_s, "
         "reduce_bytes, hbm_write_bytes, flops, cores, streamed, collective_s, estimate_s or plan");
}

void read_preload_field(const LineReader& r, const std::string& key, const std::string& value,
                        ProgramOp& op) {
  if (key == "plan")
    op.preload_label = value;
  else if (key == "bytes")
    op.preload_bytes = r.number(key, value);
  else if (key == "hbm_bytes")
    op.hbm_read_bytes = r.number(key, value);
  else
    r.fail("preload_async: unknown key " + in_quotes(key) + "; expected bytes, hbm_bytes or plan");
}

struct Reader {
  std::string file;
  Program program;
  std::map<int, ProgramOp> ops;  // sparse while reading: memory follows the input's size
  std::map<int, int> name_line;  // op -> line its name was first given on
  std::map<std::pair<int, int>, int> kind_line;  // (kind, op) -> line

  ProgramOp& op_slot(const LineReader& r, int op, const std::string& name, int line) {
    ProgramOp& p = ops[op];
    auto [it, fresh] = name_line.emplace(op, line);
    if (fresh) {
      p.op = op;
      p.name = name;
    } else if (p.name != name) {
      r.fail("op " + std::to_string(op) + " is named " + in_quotes(name) + " here but " +
             in_quotes(p.name) + " on line " + std::to_string(it->second));
    }
    return p;
  }

  void instruction(const LineReader& r, const std::vector<std::string>& w, int line) {
    InstructionKind kind =
        w[0] == "execute" ? InstructionKind::execute : InstructionKind::preload_async;
    if (w.size() < 3) r.fail(w[0] + ": expected '" + w[0] + " OP \"NAME\" KEY=VALUE...'");
    int op = r.op_index(w[1]);
    auto [it, fresh] = kind_line.emplace(std::pair{static_cast<int>(kind), op}, line);
    if (!fresh)
      r.fail(w[0] + " " + w[1] + " is already on line " + std::to_string(it->second) +
             "; each op has one " + w[0]);
    ProgramOp& p = op_slot(r, op, w[2], line);
    for (size_t i = 3; i < w.size(); ++i) {
      auto [key, value] = key_value(r, w[i]);
      if (kind == InstructionKind::execute)
        read_execute_field(r, key, value, p);
      else
        read_preload_field(r, key, value, p);
    }
    if (kind == InstructionKind::preload_async && !p.has_preload())
      r.fail("preload_async " + w[1] +
             ": bytes must be > 0 (an op without HBM data has no preload)");
    if (kind == InstructionKind::preload_async && p.hbm_read_bytes > p.preload_bytes)
      r.fail(
          fmt::format("preload_async {}: hbm_bytes={} is more than bytes={}: HBM reads each "
                      "byte once, however many cores it is copied to",
                      w[1], p.hbm_read_bytes, p.preload_bytes));
    program.instructions.push_back({kind, op, line});
  }

  void line(const std::string& text, int number) {
    LineReader r(file, number);
    Tokens t = split_line(text);
    if (!t.error.empty()) r.fail(t.error);
    if (t.words.empty() || t.words[0].starts_with("#")) return;
    const auto& w = t.words;
    if (w[0] == "program" && w.size() == 2)
      program.name = w[1];
    else if (w[0] == "estimated_latency_s" && w.size() == 2)
      program.estimated_latency_s = r.number(w[0], w[1]);
    else if (w[0] == "execute" || w[0] == "preload_async")
      instruction(r, w, number);
    else
      r.fail("unknown line " + in_quotes(w[0]) +
             "; expected preload_async, execute, program \"NAME\" or estimated_latency_s");
  }
};

}  // namespace

std::string write_program_text(const Program& program) {
  std::string text = std::string(kHeader) + "\n";
  text += "program " + quote(program.name) + "\n";
  text += fmt::format("estimated_latency_s {}\n", program.estimated_latency_s);
  for (const auto& in : program.instructions)
    text += instruction_line(in, program.ops[in.op]) + "\n";
  return text;
}

Result<Program> read_program_text(const std::string& text, const std::string& file) {
  Reader reader{file, {}, {}, {}, {}};
  try {
    size_t start = 0;
    for (int number = 1; start <= text.size(); ++number) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      reader.line(text.substr(start, end - start), number);
      start = end + 1;
    }
  } catch (const Failure& f) {
    return f.error();
  }
  for (auto& [op, p] : reader.ops) {
    if (op != static_cast<int>(reader.program.ops.size()))
      return input_error(file + ": op " + std::to_string(reader.program.ops.size()) +
                         " is never mentioned; ops are numbered 0, 1, 2, ... without gaps");
    reader.program.ops.push_back(std::move(p));
  }
  return std::move(reader.program);
}

}  // namespace tessera::codegen
