// Typed access to the parameters a chip file gives an object (tessera_params).
//
// Every getter names the key in its error, so a user sees which line of the chip file to fix.
// Keys never read by the constructor are reported as unknown (with the nearest known key): a typo
// in a chip file is an error, not a silently ignored setting.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/nearest.hpp>
#include <vector>

namespace tessera::sdk {

class Params {
 public:
  Params() = default;
  explicit Params(const tessera_params& raw) {
    for (size_t i = 0; i < raw.count; ++i) {
      if (raw.items == nullptr || raw.items[i].key == nullptr || raw.items[i].value == nullptr)
        throw invalid_argument("parameter " + std::to_string(i) + " has a NULL key or value");
      values_[raw.items[i].key] = raw.items[i].value;
    }
    if (raw.base_dir != nullptr) base_dir_ = raw.base_dir;
  }
  explicit Params(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  bool has(const std::string& key) const {
    used_.insert(key);
    return values_.count(key) != 0;
  }
  // The value of `key`; nullopt when absent. A map or list given where one value belongs (it
  // arrives as `key.SUB` items) is an error, never the getter's default.
  std::optional<std::string> find(const std::string& key) const {
    used_.insert(key);
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
    auto nested = values_.lower_bound(key + ".");
    if (nested != values_.end() && nested->first.compare(0, key.size() + 1, key + ".") == 0)
      throw invalid_argument("parameter '" + key + "': expected a single value, got a map or a " +
                             "list ('" + nested->first + "')");
    return std::nullopt;
  }

  std::string get_string(const std::string& key, const std::string& fallback) const {
    return find(key).value_or(fallback);
  }
  std::string require_string(const std::string& key) const {
    auto v = find(key);
    if (!v) throw Error(TESSERA_NOT_FOUND, "missing parameter '" + key + "'");
    return *v;
  }

  // A finite number; `min_exclusive` rejects values <= it (e.g. 0 for a bandwidth).
  double get_double(const std::string& key, double fallback,
                    std::optional<double> min_exclusive = std::nullopt) const {
    auto v = find(key);
    double x = v ? parse_double(key, *v) : fallback;
    check_min(key, x, min_exclusive);
    return x;
  }
  double require_double(const std::string& key,
                        std::optional<double> min_exclusive = std::nullopt) const {
    double x = parse_double(key, require_string(key));
    check_min(key, x, min_exclusive);
    return x;
  }

  // A number >= 0: a latency may be zero where a bandwidth may not (use min_exclusive 0 for those).
  double get_non_negative(const std::string& key, double fallback) const {
    double x = get_double(key, fallback);
    if (x < 0)
      throw invalid_argument("parameter '" + key + "': must be at least 0, got " +
                             std::to_string(x));
    return x;
  }

  // A whole number within [min, max].
  int64_t get_int(const std::string& key, int64_t fallback, int64_t min = INT64_MIN,
                  int64_t max = INT64_MAX) const {
    auto v = find(key);
    int64_t x = v ? parse_int(key, *v) : fallback;
    check_range(key, x, min, max);
    return x;
  }
  int64_t require_int(const std::string& key, int64_t min = INT64_MIN,
                      int64_t max = INT64_MAX) const {
    int64_t x = parse_int(key, require_string(key));
    check_range(key, x, min, max);
    return x;
  }

  // A YAML list, which the host passes as `key.0`, `key.1`, ...; empty when absent. One value given
  // where the list belongs is an error.
  std::vector<int64_t> get_int_list(const std::string& key, int64_t min = INT64_MIN,
                                    int64_t max = INT64_MAX) const {
    used_.insert(key);
    if (values_.count(key) != 0)
      throw invalid_argument("parameter '" + key + "': expected a list, got the single value '" +
                             values_.at(key) + "'");
    std::vector<int64_t> values;
    for (size_t i = 0;; ++i) {
      std::string item = key + "." + std::to_string(i);
      if (!has(item)) break;
      values.push_back(get_int(item, 0, min, max));
    }
    return values;
  }

  bool get_bool(const std::string& key, bool fallback) const {
    auto v = find(key);
    if (!v) return fallback;
    if (*v == "true" || *v == "yes" || *v == "on" || *v == "1") return true;
    if (*v == "false" || *v == "no" || *v == "off" || *v == "0") return false;
    throw invalid_argument("parameter '" + key + "': expected true or false, got '" + *v + "'");
  }

  // One of `choices`.
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices) const {
    std::string v = get_string(key, fallback);
    if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw invalid_argument("parameter '" + key + "': '" + v + "' is not one of: " + list);
  }

  const std::string& base_dir() const { return base_dir_; }

  // The host gives a cost model the chip file's transfer pricing convention as `planner.transfers`
  // (framework/chip_spec/conventions.hpp): `routes` (the default, also when the key is absent),
  // where the planner and the simulator price exchanges and off-chip reads on the topology's
  // links, or `per_core_rates`, where the planner prices them at the cost model's per-core rates
  // (transfer_seconds, info()).
  bool prices_per_core() const {
    return get_choice("planner.transfers", "routes", {"routes", "per_core_rates"}) ==
           "per_core_rates";
  }
  // A rate only the per_core_rates convention reads is refused under routes, where it would be a
  // second number that moves nothing: the error names the topology key that prices the transfer.
  void refuse_unless_per_core(const std::string& key, const std::string& topology_key) const {
    if (prices_per_core() || !(has(key) || has(key + ".0"))) return;  // a value or a list
    throw invalid_argument("'cost_model." + key +
                           "' is not read under the routes convention: transfers are priced on "
                           "the topology's links; set 'topology." +
                           topology_key + "' instead");
  }

  // Throws for the first key no getter asked about, naming the nearest key that was asked about.
  void reject_unknown(const std::string& owner) const {
    for (const auto& [key, value] : values_) {
      if (used_.count(key) != 0 || key.rfind(kHostPrefix, 0) == 0) continue;
      std::string message = "unknown " + owner + " parameter '" + key + "'";
      std::string near = nearest_known(key);
      if (!near.empty()) message += " (did you mean '" + near + "'?)";
      throw invalid_argument(message);
    }
  }

 private:
  // Keys the host adds for every object of an interface (the planning conventions above), which
  // an object may ignore.
  static constexpr const char* kHostPrefix = "planner.";

  static double parse_double(const std::string& key, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    double x = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x))
      throw invalid_argument("parameter '" + key + "': expected a number, got '" + text + "'");
    return x;
  }
  static int64_t parse_int(const std::string& key, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    long long x = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
      throw invalid_argument("parameter '" + key + "': expected a whole number, got '" + text +
                             "'");
    return static_cast<int64_t>(x);
  }
  static void check_min(const std::string& key, double x, std::optional<double> min_exclusive) {
    if (min_exclusive && !(x > *min_exclusive))
      throw invalid_argument("parameter '" + key + "': must be greater than " +
                             std::to_string(*min_exclusive) + ", got " + std::to_string(x));
  }
  static void check_range(const std::string& key, int64_t x, int64_t min, int64_t max) {
    if (x < min || x > max)
      throw invalid_argument("parameter '" + key + "': must be in [" + std::to_string(min) + ", " +
                             std::to_string(max) + "], got " + std::to_string(x));
  }
  std::string nearest_known(const std::string& key) const {
    std::vector<std::string> asked;
    for (const auto& known : used_)
      if (values_.count(known) == 0) asked.push_back(known);
    return nearest(key, asked);
  }

  std::map<std::string, std::string> values_;
  std::string base_dir_;
  mutable std::set<std::string> used_;
};

}  // namespace tessera::sdk
