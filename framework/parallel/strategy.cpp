#include "framework/parallel/strategy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

namespace tessera::parallel {
namespace {

constexpr const char* kKeys = "tp, pp, dp, ep, mb, stages, collective, or the word auto";

Error bad(const std::string& message) {
  return usage_error("--parallel: " + message);
}

// A whole number in [low, kMaxDegree], or nullopt.
std::optional<int64_t> degree(const std::string& text, int64_t low) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || at != end || value < low || value > kMaxDegree) return std::nullopt;
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string::npos;
       at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

Status parse_stages(const std::string& value, ParallelStrategy& s) {
  for (const std::string& part : split(value, ':')) {
    auto layers = degree(part, 0);
    if (!layers)
      return bad(
          fmt::format("stages={}: expected the layers of each stage as whole numbers from "
                      "0 to {} separated by ':' (e.g. stages=0:6:7:7)",
                      value, kMaxDegree));
    s.stage_layers.push_back(*layers);
  }
  return ok_status();
}

Status parse_key(const std::string& key, const std::string& value, ParallelStrategy& s) {
  if (key == "stages") return parse_stages(value, s);
  if (key == "collective") {
    auto algorithm = collective::parse_collective_algorithm(value);
    if (!algorithm) return bad("collective=" + value + ": " + algorithm.error().message);
    s.algorithm = *algorithm;
    return ok_status();
  }
  auto number = degree(value, 1);
  if (!number)
    return bad(fmt::format("{}={}: expected a whole number from 1 to {}", key, value, kMaxDegree));
  if (key == "tp") s.tp = *number;
  if (key == "pp") s.pp = *number;
  if (key == "dp") s.dp = *number;
  if (key == "ep") s.ep = *number;
  if (key == "mb") s.micro_batches = *number;
  return ok_status();
}

}  // namespace

Result<ParallelStrategy> parse_strategy(const std::string& text) {
  ParallelStrategy s;
  if (text == "flat") return s;
  if (text == "auto") {
    s.automatic = true;
    s.flat = false;
    return s;
  }
  if (text.empty()) return bad(std::string("empty; give keys ") + kKeys);
  static const std::set<std::string> keys = {"tp", "pp", "dp", "ep", "mb", "stages", "collective"};
  std::set<std::string> seen;
  bool pp_given = false;
  for (const std::string& item : split(text, ',')) {
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    if (key == "auto" || key == "flat")
      return bad("'" + key + "' stands alone; '" + text + "' gives it beside other keys");
    if (!keys.contains(key))
      return bad("unknown key '" + key + "' in '" + item + "'; keys: " + kKeys);
    if (eq == std::string::npos) return bad("'" + item + "': expected " + key + "=VALUE");
    if (!seen.insert(key).second) return bad("'" + key + "' is given twice in '" + text + "'");
    pp_given = pp_given || key == "pp";
    if (auto status = parse_key(key, item.substr(eq + 1), s); !status) return status.error();
  }
  if (!s.stage_layers.empty()) {
    auto stages = static_cast<int64_t>(s.stage_layers.size());
    if (pp_given && s.pp != stages)
      return bad(fmt::format("pp={} but stages= lists {} stages; give one of them, or agree", s.pp,
                             stages));
    s.pp = stages;
  }
  s.flat = false;
  return s;
}

int64_t dp_of(const ParallelStrategy& s, int64_t chips) {
  return s.dp.value_or(std::max<int64_t>(1, chips / (s.tp * s.pp)));
}

std::string to_string(const ParallelStrategy& s) {
  if (s.automatic) return "auto";
  if (s.flat) return "flat";
  std::string text = fmt::format("tp={},pp={},dp={}", s.tp, s.pp, s.dp.value_or(1));
  if (s.ep > 1) text += fmt::format(",ep={}", s.ep);
  if (s.micro_batches > 1) text += fmt::format(",mb={}", s.micro_batches);
  if (!s.stage_layers.empty())
    text += ",stages=" + fmt::format("{}", fmt::join(s.stage_layers, ":"));
  if (s.algorithm != collective::CollectiveAlgorithm::automatic)
    text += std::string(",collective=") + collective::to_string(s.algorithm);
  return text;
}

}  // namespace tessera::parallel
