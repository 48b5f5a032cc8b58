#include "dram_keys.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <tessera/sdk/nearest.hpp>
#include <variant>

namespace tessera::hbm {

namespace {

using Field = std::variant<int64_t DramKeys::*, double DramKeys::*, bool DramKeys::*,
                           std::string DramKeys::*>;

struct KeySpec {
  const char* section;
  const char* name;  // DRAMsim3's spelling
  Field field;
  const char* fallback;  // DRAMsim3's default, as text
};

// clang-format off
const KeySpec kKeys[] = {
    {"dram_structure", "protocol", &DramKeys::protocol, "DDR3"},
    {"dram_structure", "bankgroups", &DramKeys::bankgroups, "2"},
    {"dram_structure", "banks_per_group", &DramKeys::banks_per_group, "2"},
    {"dram_structure", "bankgroup_enable", &DramKeys::bankgroup_enable, "true"},
    {"dram_structure", "rows", &DramKeys::rows, "65536"},
    {"dram_structure", "columns", &DramKeys::columns, "1024"},
    {"dram_structure", "device_width", &DramKeys::device_width, "8"},
    {"dram_structure", "BL", &DramKeys::BL, "8"},
    {"dram_structure", "num_dies", &DramKeys::num_dies, "1"},
    {"dram_structure", "hbm_dual_cmd", &DramKeys::hbm_dual_cmd, "true"},
    {"timing", "tCK", &DramKeys::tCK, "1.0"},
    {"timing", "AL", &DramKeys::AL, "0"},
    {"timing", "CL", &DramKeys::CL, "12"},
    {"timing", "CWL", &DramKeys::CWL, "12"},
    {"timing", "tCCD_L", &DramKeys::tCCD_L, "6"},
    {"timing", "tCCD_S", &DramKeys::tCCD_S, "4"},
    {"timing", "tRTRS", &DramKeys::tRTRS, "2"},
    {"timing", "tRTP", &DramKeys::tRTP, "5"},
    {"timing", "tWTR_L", &DramKeys::tWTR_L, "5"},
    {"timing", "tWTR_S", &DramKeys::tWTR_S, "5"},
    {"timing", "tWR", &DramKeys::tWR, "10"},
    {"timing", "tRP", &DramKeys::tRP, "10"},
    {"timing", "tRRD_L", &DramKeys::tRRD_L, "4"},
    {"timing", "tRRD_S", &DramKeys::tRRD_S, "4"},
    {"timing", "tRAS", &DramKeys::tRAS, "24"},
    {"timing", "tRCD", &DramKeys::tRCD, "10"},
    {"timing", "tRFC", &DramKeys::tRFC, "74"},
    {"timing", "tCKE", &DramKeys::tCKE, "6"},
    {"timing", "tCKESR", &DramKeys::tCKESR, "12"},
    {"timing", "tXS", &DramKeys::tXS, "432"},
    {"timing", "tXP", &DramKeys::tXP, "8"},
    {"timing", "tRFCb", &DramKeys::tRFCb, "20"},
    {"timing", "tREFI", &DramKeys::tREFI, "7800"},
    {"timing", "tREFIb", &DramKeys::tREFIb, "1950"},
    {"timing", "tFAW", &DramKeys::tFAW, "50"},
    {"timing", "tRPRE", &DramKeys::tRPRE, "1"},
    {"timing", "tWPRE", &DramKeys::tWPRE, "1"},
    {"timing", "tPPD", &DramKeys::tPPD, "0"},
    {"timing", "t32AW", &DramKeys::t32AW, "330"},
    {"timing", "tRCDRD", &DramKeys::tRCDRD, "24"},
    {"timing", "tRCDWR", &DramKeys::tRCDWR, "20"},
    {"timing", "ideal_memory_latency", &DramKeys::ideal_memory_latency, "10"},
    {"power", "VDD", &DramKeys::VDD, "1.2"},
    {"power", "IDD0", &DramKeys::IDD0, "48"},
    {"power", "IDD2P", &DramKeys::IDD2P, "25"},
    {"power", "IDD2N", &DramKeys::IDD2N, "34"},
    {"power", "IDD3N", &DramKeys::IDD3N, "43"},
    {"power", "IDD4W", &DramKeys::IDD4W, "123"},
    {"power", "IDD4R", &DramKeys::IDD4R, "135"},
    {"power", "IDD5AB", &DramKeys::IDD5AB, "250"},
    {"power", "IDD5PB", &DramKeys::IDD5PB, "5"},
    {"power", "IDD6x", &DramKeys::IDD6x, "31"},
    {"system", "channel_size", &DramKeys::channel_size, "1024"},
    {"system", "channels", &DramKeys::channels, "1"},
    {"system", "bus_width", &DramKeys::bus_width, "64"},
    {"system", "address_mapping", &DramKeys::address_mapping, "chrobabgraco"},
    {"system", "queue_structure", &DramKeys::queue_structure, "PER_BANK"},
    {"system", "row_buf_policy", &DramKeys::row_buf_policy, "OPEN_PAGE"},
    {"system", "cmd_queue_size", &DramKeys::cmd_queue_size, "16"},
    {"system", "trans_queue_size", &DramKeys::trans_queue_size, "32"},
    {"system", "unified_queue", &DramKeys::unified_queue, "false"},
    {"system", "write_buf_size", &DramKeys::write_buf_size, "16"},
    {"system", "refresh_policy", &DramKeys::refresh_policy, "RANK_LEVEL_STAGGERED"},
    {"system", "enable_self_refresh", &DramKeys::enable_self_refresh, "false"},
    {"system", "sref_threshold", &DramKeys::sref_threshold, "1000"},
    {"system", "aggressive_precharging_enabled", &DramKeys::aggressive_precharging_enabled, "false"},
    {"system", "mega_tick", &DramKeys::mega_tick, "1"},
    {"other", "epoch_period", &DramKeys::epoch_period, "100000"},
    {"other", "output_level", &DramKeys::output_level, "1"},
    {"other", "output_prefix", &DramKeys::output_prefix, "dramsim3"},
};

// Keys found in DRAMsim3's own files that its code never reads: named, so the warning can say
// which key was probably meant.
struct UnreadKey {
  const char* section;
  const char* name;
  const char* why;
};
const UnreadKey kUnreadKeys[] = {
    {"timing", "tRTP_L", "DRAMsim3 reads tRTP, not tRTP_L"},
    {"timing", "tRTP_S", "DRAMsim3 reads tRTP, not tRTP_S"},
    {"timing", "tCKSRE", "DRAMsim3 reads tCKESR, not tCKSRE"},
    {"timing", "tRREFD", "DRAMsim3 does not read tRREFD"},
    {"timing", "tRC", "DRAMsim3 derives tRC = tRAS + tRP; set those two"},
    {"timing", "tRFCPB", "DRAMsim3 reads tRFCb for per-bank refresh, not tRFCPB"},
    {"power", "IDD3P", "DRAMsim3 reads IDD3P nowhere (active power-down is not modelled)"},
};
// clang-format on

// Sections DRAMsim3 knows that describe things Tessera does not model; their keys are skipped.
const char* const kSkippedSections[] = {"thermal", "hmc"};
const char* const kSections[] = {"dram_structure", "timing", "power", "system", "other"};

// Parses `text` into `field`; false when it is not a value of the field's type.
bool parse_into(DramKeys& keys, const Field& field, const std::string& text) {
  return std::visit(
      [&](auto member) -> bool {
        using T = std::remove_reference_t<decltype(keys.*member)>;
        if constexpr (std::is_same_v<T, std::string>) {
          keys.*member = text;
          return true;
        } else if constexpr (std::is_same_v<T, bool>) {
          std::string v = to_lower(text);
          if (v == "true" || v == "yes" || v == "on" || v == "1") return keys.*member = true, true;
          if (v == "false" || v == "no" || v == "off" || v == "0")
            return keys.*member = false, true;
          return false;
        } else {
          errno = 0;
          char* end = nullptr;
          T value{};
          if constexpr (std::is_same_v<T, double>)
            value = std::strtod(text.c_str(), &end);
          else
            value = std::strtoll(text.c_str(), &end, 0);
          if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) return false;
          if constexpr (std::is_same_v<T, double>)
            if (!std::isfinite(value)) return false;
          keys.*member = value;
          return true;
        }
      },
      field);
}

const char* type_name(const Field& field) {
  switch (field.index()) {
    case 0:
      return "a whole number";
    case 1:
      return "a number";
    case 2:
      return "true or false";
    default:
      return "a value";
  }
}

template <class Table>
const auto* find_in(const Table& table, const std::string& section, const std::string& key) {
  for (const auto& entry : table)
    if (section == entry.section && key == to_lower(entry.name)) return &entry;
  return static_cast<decltype(&table[0])>(nullptr);
}

bool contains(const char* const* begin, const char* const* end, const std::string& name) {
  for (auto it = begin; it != end; ++it)
    if (name == *it) return true;
  return false;
}

std::string unknown_key_message(const IniEntry& e) {
  std::vector<std::string> names;
  for (const auto& spec : kKeys)
    if (e.section == spec.section) names.emplace_back(spec.name);
  std::string near = sdk::nearest(e.spelled, names);
  return "unknown key, ignored" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
}

class Reader {
 public:
  KeyReading run(const IniFile& file) {
    for (const auto& spec : kKeys) parse_into(out_.keys, spec.field, spec.fallback);
    for (const auto& s : file.sections)
      if (!contains(std::begin(kSections), std::end(kSections), s.name) &&
          !contains(std::begin(kSkippedSections), std::end(kSkippedSections), s.name))
        warn(s.line, "[" + s.spelled + "]: unknown section, its keys are ignored");
    for (const auto& e : file.entries) read(e);
    return std::move(out_);
  }

 private:
  void warn(int line, std::string message) { out_.warnings.push_back({line, std::move(message)}); }

  void read(const IniEntry& e) {
    const std::string label = key_label(e.section, e.spelled) + ": ";
    if (e.section.empty()) return warn(e.line, e.spelled + ": key outside any section, ignored");
    if (!contains(std::begin(kSections), std::end(kSections), e.section)) return;
    if (const auto* unread = find_in(kUnreadKeys, e.section, e.key))
      return warn(e.line, label + "not used: " + unread->why);
    const KeySpec* spec = find_in(kKeys, e.section, e.key);
    if (spec == nullptr) return warn(e.line, label + unknown_key_message(e));
    const std::string id = e.section + "." + e.key;
    if (auto seen = out_.lines.find(id); seen != out_.lines.end())
      return warn(e.line, label + "repeats line " + std::to_string(seen->second) +
                              "; the first value is used (as in DRAMsim3)");
    out_.lines[id] = e.line;
    if (e.value.empty())
      return warn(e.line, label + "empty value; DRAMsim3's default " + spec->fallback + " is used");
    if (!parse_into(out_.keys, spec->field, e.value))
      warn(e.line, label + "expected " + type_name(spec->field) + ", got '" + e.value +
                       "'; DRAMsim3's default " + spec->fallback + " is used");
  }

  KeyReading out_;
};

}  // namespace

std::string key_label(const std::string& section, const std::string& key) {
  for (const auto& spec : kKeys)
    if (section == spec.section && to_lower(key) == to_lower(spec.name))
      return "[" + section + "] " + spec.name;
  return "[" + section + "] " + key;
}

KeyReading read_keys(const IniFile& file) {
  return Reader().run(file);
}

}  // namespace tessera::hbm
