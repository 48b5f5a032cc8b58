#include "sdk/conformance/summary.hpp"

#include <charconv>

#include "sdk/conformance/expectations.hpp"
#include "sdk/conformance/records.hpp"

namespace tessera::conformance {

namespace {

// docs/cli.md; the kit's header stays free of the CLI's.
constexpr int kExitOk = 0, kExitCheckFailed = 1, kExitInput = 3, kExitPlugin = 4;

PluginResult titled(const PluginState& state) {
  PluginResult result;
  result.title =
      state.manifest ? state.manifest->name + " " + state.manifest->version : state.target;
  result.lists_expected_failures = state.manifest && !state.manifest->expected_failures.empty();
  return result;
}

int number(const std::string& text) {
  int value = -1;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

int count(const PluginResult& r, Outcome o) {
  return r.counts[static_cast<int>(o)];
}

std::string counts_text(const PluginResult& r) {
  std::string text =
      std::to_string(count(r, Outcome::passed)) + " passed, " +
      std::to_string(count(r, Outcome::failed) + count(r, Outcome::unexpected_pass)) + " failed, " +
      std::to_string(count(r, Outcome::skipped)) + " skipped";
  if (r.lists_expected_failures)
    text += ", " + std::to_string(count(r, Outcome::expected_failure)) + " failed as expected, " +
            std::to_string(count(r, Outcome::unexpected_pass)) + " passed unexpectedly";
  return text;
}

bool is_failure(int outcome) {
  return outcome == static_cast<int>(Outcome::failed) ||
         outcome == static_cast<int>(Outcome::unexpected_pass);
}

// The child's records, in order: counts, and what it was doing last (for a child that dies).
struct Replay {
  PluginResult& result;
  const std::string& label;
  std::string doing;  // " while running Suite.Test", ...
  bool done = false;

  void apply(const std::vector<std::string>& r) {
    const std::string& kind = r[0];
    if (kind == record::kLoading) {
      doing = " while loading the library";
    } else if (kind == record::kLoadFailed && r.size() == 3) {
      result.end = PluginResult::End::not_loaded;
      result.problem_kind = static_cast<ErrorKind>(number(r[1]));
      result.problem = r[2];
    } else if (kind == record::kUntested) {
      result.end = PluginResult::End::untested;
    } else if (kind == record::kStart && r.size() == 2) {
      doing = " while running " + r[1];
    } else if (kind == record::kEnd && r.size() == 3) {
      const int outcome = number(r[2]);
      if (r[1] == label && outcome >= 0 && outcome < 5) ++result.counts[outcome];
      if (r[1] != label && is_failure(outcome)) result.other_failures = true;
      doing = " between tests";
    } else if (kind == record::kOutsideFailure) {
      result.other_failures = true;
    } else if (kind == record::kDone) {
      done = true;
      doing = " after its tests";
    }
  }
};

}  // namespace

PluginResult not_loaded(const PluginState& state, const Error& error) {
  PluginResult result = titled(state);
  result.end = PluginResult::End::not_loaded;
  result.problem = error.message;
  result.problem_kind = error.kind;
  return result;
}

PluginResult from_child(const PluginState& state, const ChildOutcome& outcome) {
  PluginResult result = titled(state);
  Replay replay{result, state.label, "", false};
  for (const auto& r : outcome.records)
    if (!r.empty()) replay.apply(r);
  // The child exits 0 or 1 after `done`; anything else (a signal, exit() from a plugin, a
  // sanitizer's report at exit) means it did not finish as it said.
  const bool finished =
      outcome.exited && (outcome.exit_status == kExitOk || outcome.exit_status == kExitCheckFailed);
  if (result.end == PluginResult::End::not_loaded || (replay.done && finished)) return result;
  result.end = PluginResult::End::died;
  result.problem = outcome.how_it_ended() + replay.doing;
  return result;
}

std::string summary_line(const PluginResult& r) {
  std::string line = "conformance: " + r.title;
  switch (r.end) {
    case PluginResult::End::tested:
      return line + " \u2014 " + counts_text(r);
    case PluginResult::End::untested:
      return line + " (not tested) \u2014 " + counts_text(r);
    case PluginResult::End::not_loaded:
      return line + " \u2014 did not load: " + r.problem;
    case PluginResult::End::died:
      return line + " \u2014 " + r.problem + ", after " + counts_text(r);
  }
  return line;
}

int exit_code(const std::vector<PluginResult>& results) {
  bool input = false, failed = false;
  for (const PluginResult& r : results) {
    if (r.end == PluginResult::End::died) return kExitPlugin;
    if (r.end == PluginResult::End::not_loaded && r.problem_kind != ErrorKind::input)
      return kExitPlugin;
    input = input || r.end == PluginResult::End::not_loaded;
    failed = failed || r.end == PluginResult::End::untested || r.other_failures ||
             count(r, Outcome::failed) + count(r, Outcome::unexpected_pass) > 0;
  }
  return input ? kExitInput : failed ? kExitCheckFailed : kExitOk;
}

}  // namespace tessera::conformance
