#include "dram_config.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <sstream>
#include <tessera/sdk/error.hpp>

#include "dram_keys.hpp"
#include "ini_file.hpp"

namespace tessera::hbm {

namespace {

// Bounds that keep every product of the geometry inside 64 bits and every queue allocation small;
// far beyond any real device.
constexpr int64_t kMaxCount = 1 << 24;
constexpr int64_t kMaxCycles = 1'000'000'000;
constexpr int kMaxAddressBits = 62;
// Every bank is simulated: this keeps one device's state within tens of megabytes.
constexpr uint64_t kMaxDeviceBanks = 1 << 18;

// A real number as a user would write it: 0.625, 1e+06, 0.
std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

int log2_exact(uint64_t value) {
  return std::countr_zero(value);
}
int log2_ceil(uint64_t value) {
  return value <= 1 ? 0 : static_cast<int>(std::bit_width(value - 1));
}

template <class Enum>
using Choices = std::vector<std::pair<const char*, Enum>>;

class Deriver {
 public:
  Deriver(const KeyReading& reading, const std::string& source, std::vector<Diagnostic>& warnings)
      : k_(reading.keys), lines_(reading.lines), source_(source), warnings_(warnings) {}

  DramConfig run() {
    c_.source = source_;
    c_.keys = k_;
    structure();
    timing();
    power();
    system();
    capacity();
    mapping();
    return c_;
  }

 private:
  int line_of(const std::string& section, const std::string& key) const {
    auto it = lines_.find(section + "." + to_lower(key));
    return it == lines_.end() ? 0 : it->second;
  }
  [[noreturn]] void fail(const std::string& section, const std::string& key,
                         const std::string& problem) const {
    int line = line_of(section, key);
    std::string where = line > 0 ? source_ + ":" + std::to_string(line) + ": " : source_ + ": ";
    std::string origin = line > 0 ? "" : " (DRAMsim3's default; the file does not set it)";
    throw sdk::invalid_argument(where + key_label(section, key) + ": " + problem + origin);
  }
  void warn(const std::string& section, const std::string& key, const std::string& problem) {
    warnings_.push_back({line_of(section, key), key_label(section, key) + ": " + problem});
  }

  int64_t in_range(const std::string& section, const std::string& key, int64_t value, int64_t min,
                   int64_t max) const {
    if (value < min)
      fail(section, key,
           "must be at least " + std::to_string(min) + ", got " + std::to_string(value));
    if (value > max)
      fail(section, key,
           "must be at most " + std::to_string(max) + ", got " + std::to_string(value));
    return value;
  }
  uint32_t count(const std::string& section, const std::string& key, int64_t value) const {
    return static_cast<uint32_t>(in_range(section, key, value, 1, kMaxCount));
  }
  uint32_t power_of_two(const std::string& section, const std::string& key, int64_t value) const {
    count(section, key, value);
    if (!std::has_single_bit(static_cast<uint64_t>(value)))
      fail(section, key,
           "must be a power of two (the address mapping takes whole bits), got " +
               std::to_string(value));
    return static_cast<uint32_t>(value);
  }
  void cycles(const std::string& key, int64_t value, int64_t min = 0) const {
    in_range("timing", key, value, min, kMaxCycles);
  }
  template <class Enum>
  Enum choice(const std::string& section, const std::string& key, const std::string& value,
              const Choices<Enum>& choices) const {
    std::string list;
    for (const auto& [name, e] : choices) {
      if (to_lower(value) == to_lower(name)) return e;
      list += (list.empty() ? "" : ", ") + std::string(name);
    }
    fail(section, key, "'" + value + "' is not one of: " + list);
  }

  void structure();
  void burst();
  void timing();
  void power();
  void system();
  void mapping();
  void capacity();

  const DramKeys& k_;
  const KeyLines& lines_;
  const std::string& source_;
  std::vector<Diagnostic>& warnings_;
  DramConfig c_;
};

void Deriver::structure() {
  if (to_lower(k_.protocol) == "hmc")
    fail("dram_structure", "protocol",
         "HMC (Hybrid Memory Cube) is not modelled; use a DRAM protocol such as HBM2");
  c_.protocol = choice<Protocol>("dram_structure", "protocol", k_.protocol,
                                 {{"DDR3", Protocol::ddr3},
                                  {"DDR4", Protocol::ddr4},
                                  {"GDDR5", Protocol::gddr5},
                                  {"GDDR5X", Protocol::gddr5x},
                                  {"GDDR6", Protocol::gddr6},
                                  {"LPDDR", Protocol::lpddr},
                                  {"LPDDR3", Protocol::lpddr3},
                                  {"LPDDR4", Protocol::lpddr4},
                                  {"HBM", Protocol::hbm},
                                  {"HBM2", Protocol::hbm2}});
  c_.bankgroups = power_of_two("dram_structure", "bankgroups", k_.bankgroups);
  c_.banks_per_group = power_of_two("dram_structure", "banks_per_group", k_.banks_per_group);
  if (!k_.bankgroup_enable) {  // all banks in one group (GDDR5 may disable bank groups)
    c_.banks_per_group *= c_.bankgroups;
    c_.bankgroups = 1;
  }
  c_.banks = c_.bankgroups * c_.banks_per_group;
  if (c_.banks > 4096)
    fail("dram_structure", "banks_per_group",
         "bankgroups x banks_per_group must be at most 4096, got " + std::to_string(c_.banks));
  c_.rows = count("dram_structure", "rows", k_.rows);
  count("dram_structure", "num_dies", k_.num_dies);
  in_range("dram_structure", "device_width", k_.device_width, 1, 4096);
  burst();
}

void Deriver::burst() {
  uint32_t bl = power_of_two("dram_structure", "BL", k_.BL);
  in_range("dram_structure", "BL", k_.BL, 1, 256);
  // Data beats per tCK: DDR-like parts move two, GDDR5 / GDDR5X / GDDR6 four, eight, sixteen.
  uint32_t beats_per_cycle = c_.protocol == Protocol::gddr5    ? 4
                             : c_.protocol == Protocol::gddr5x ? 8
                             : c_.protocol == Protocol::gddr6  ? 16
                                                               : 2;
  if (bl < beats_per_cycle)
    fail("dram_structure", "BL",
         "a burst must last at least one clock: this protocol moves " +
             std::to_string(beats_per_cycle) + " beats per tCK, got BL " + std::to_string(bl));
  c_.burst_cycles = bl / beats_per_cycle;
  // DRAMsim3 counts physical columns: a GDDR column is BL device words, an HBM column two.
  c_.columns = power_of_two("dram_structure", "columns", k_.columns);
  in_range("dram_structure", "columns", k_.columns, 1, 1 << 20);
  if (c_.is_gddr()) c_.columns *= bl;
  if (c_.is_hbm()) c_.columns *= 2;
  if (c_.columns < bl)
    fail("dram_structure", "columns",
         "a row must hold at least one burst of " + std::to_string(bl) + " columns, got " +
             std::to_string(c_.columns));
  c_.page_bytes = uint64_t{c_.columns} * static_cast<uint64_t>(k_.device_width) / 8;
  c_.dual_command = c_.is_hbm() && k_.hbm_dual_cmd;
}

void Deriver::timing() {
  if (!(k_.tCK > 0)) fail("timing", "tCK", "must be greater than 0 (ns), got " + number(k_.tCK));
  if (k_.tCK > 1e6) fail("timing", "tCK", "must be at most 1e6 ns, got " + number(k_.tCK));
  for (const auto& [key, value] : std::vector<std::pair<const char*, int64_t>>{
           {"AL", k_.AL},
           {"CWL", k_.CWL},
           {"tCCD_L", k_.tCCD_L},
           {"tCCD_S", k_.tCCD_S},
           {"tRTRS", k_.tRTRS},
           {"tRTP", k_.tRTP},
           {"tWTR_L", k_.tWTR_L},
           {"tWTR_S", k_.tWTR_S},
           {"tWR", k_.tWR},
           {"tRRD_L", k_.tRRD_L},
           {"tRRD_S", k_.tRRD_S},
           {"tCKE", k_.tCKE},
           {"tCKESR", k_.tCKESR},
           {"tXS", k_.tXS},
           {"tXP", k_.tXP},
           {"tFAW", k_.tFAW},
           {"tRPRE", k_.tRPRE},
           {"tWPRE", k_.tWPRE},
           {"tPPD", k_.tPPD},
           {"t32AW", k_.t32AW},
           {"ideal_memory_latency", k_.ideal_memory_latency}})
    cycles(key, value);
  for (const auto& [key, value] : std::vector<std::pair<const char*, int64_t>>{
           {"CL", k_.CL}, {"tRP", k_.tRP}, {"tRAS", k_.tRAS}, {"tRFC", k_.tRFC}})
    cycles(key, value, 1);
  // ACT to RD/WR: HBM and GDDR read tRCDRD/tRCDWR, the others tRCD.
  if (c_.is_hbm() || c_.is_gddr()) {
    cycles("tRCDRD", k_.tRCDRD, 1);
    cycles("tRCDWR", k_.tRCDWR, 1);
  } else {
    cycles("tRCD", k_.tRCD, 1);
    if (k_.tRCD <= k_.AL)
      fail("timing", "tRCD",
           "must be greater than AL (" + std::to_string(k_.AL) + "), got " +
               std::to_string(k_.tRCD));
  }
  cycles("tREFI", k_.tREFI, 1);
  if (k_.tREFI <= k_.tRFC)
    fail("timing", "tREFI",
         "must be greater than tRFC (" + std::to_string(k_.tRFC) +
             "): a refresh would never end before the next, got " + std::to_string(k_.tREFI));
}

void Deriver::power() {
  for (const auto& [key, value] : std::vector<std::pair<const char*, double>>{{"VDD", k_.VDD},
                                                                              {"IDD0", k_.IDD0},
                                                                              {"IDD2P", k_.IDD2P},
                                                                              {"IDD2N", k_.IDD2N},
                                                                              {"IDD3N", k_.IDD3N},
                                                                              {"IDD4W", k_.IDD4W},
                                                                              {"IDD4R", k_.IDD4R},
                                                                              {"IDD5AB", k_.IDD5AB},
                                                                              {"IDD5PB", k_.IDD5PB},
                                                                              {"IDD6x", k_.IDD6x}})
    if (value < 0 || value > 1e6)
      fail("power", key, "must be in [0, 1e6] (V or mA), got " + number(value));
}

void Deriver::system() {
  c_.channels = power_of_two("system", "channels", k_.channels);
  if (c_.channels > 4096)
    fail("system", "channels", "must be at most 4096, got " + std::to_string(c_.channels));
  in_range("system", "bus_width", k_.bus_width, 8, 4096);
  if (k_.bus_width % 8 != 0 || k_.bus_width % k_.device_width != 0)
    fail("system", "bus_width",
         "must be a multiple of 8 and of device_width (" + std::to_string(k_.device_width) +
             "), got " + std::to_string(k_.bus_width));
  c_.devices_per_rank = static_cast<uint32_t>(k_.bus_width / k_.device_width);
  c_.request_bytes = static_cast<uint32_t>(k_.bus_width / 8 * k_.BL);
  count("system", "channel_size", k_.channel_size);
  in_range("system", "cmd_queue_size", k_.cmd_queue_size, 1, 4096);
  in_range("system", "trans_queue_size", k_.trans_queue_size, 1, 4096);
  in_range("system", "write_buf_size", k_.write_buf_size, 1, 4096);
  in_range("system", "sref_threshold", k_.sref_threshold, 0, kMaxCycles);
  in_range("system", "mega_tick", k_.mega_tick, 1, kMaxCycles);
  c_.queue_structure = choice<QueueStructure>(
      "system", "queue_structure", k_.queue_structure,
      {{"PER_BANK", QueueStructure::per_bank}, {"PER_RANK", QueueStructure::per_rank}});
  c_.row_policy = choice<RowBufferPolicy>(
      "system", "row_buf_policy", k_.row_buf_policy,
      {{"OPEN_PAGE", RowBufferPolicy::open_page}, {"CLOSE_PAGE", RowBufferPolicy::close_page}});
  c_.refresh_policy =
      choice<RefreshPolicy>("system", "refresh_policy", k_.refresh_policy,
                            {{"RANK_LEVEL_STAGGERED", RefreshPolicy::rank_staggered},
                             {"RANK_LEVEL_SIMULTANEOUS", RefreshPolicy::rank_simultaneous},
                             {"BANK_LEVEL_STAGGERED", RefreshPolicy::bank_staggered}});
  if (c_.refresh_policy == RefreshPolicy::bank_staggered) {
    cycles("tRFCb", k_.tRFCb, 1);
    cycles("tREFIb", k_.tREFIb, 1);
  }
  if (k_.enable_self_refresh)
    warn("system", "enable_self_refresh", "self-refresh is not modelled; ranks never enter it");
}

void Deriver::capacity() {
  // One rank is every bank of devices_per_rank devices side by side; channel_size fixes how many.
  uint64_t rank_bytes = c_.page_bytes;
  for (uint64_t factor : {uint64_t{c_.rows}, uint64_t{c_.banks}, uint64_t{c_.devices_per_rank}})
    if (__builtin_mul_overflow(rank_bytes, factor, &rank_bytes) || rank_bytes > (uint64_t{1} << 50))
      fail("dram_structure", "rows",
           "the device is larger than 1 PiB per rank; check the geometry");
  uint64_t wanted_bytes = static_cast<uint64_t>(k_.channel_size) << 20;
  if (wanted_bytes < rank_bytes) {
    warn("system", "channel_size",
         std::to_string(k_.channel_size) + " MB is less than one rank of this device (" +
             std::to_string(rank_bytes >> 20) + " MB); one rank is modelled (as in DRAMsim3)");
    c_.ranks = 1;
  } else {
    c_.ranks = static_cast<uint32_t>(std::min<uint64_t>(wanted_bytes / rank_bytes, kMaxCount));
    if (!std::has_single_bit(c_.ranks) || c_.ranks > 1024)
      fail("system", "channel_size",
           std::to_string(k_.channel_size) + " MB makes " + std::to_string(c_.ranks) +
               " ranks of " + std::to_string(rank_bytes >> 20) +
               " MB; the rank count must be a power of two up to 1024");
    if (c_.ranks * rank_bytes != wanted_bytes)
      warn("system", "channel_size",
           std::to_string(k_.channel_size) + " MB is not a whole number of ranks; " +
               std::to_string((c_.ranks * rank_bytes) >> 20) + " MB is modelled (as in DRAMsim3)");
  }
  c_.channel_bytes = c_.ranks * rank_bytes;
  const uint64_t device_banks = uint64_t{c_.channels} * c_.ranks * c_.banks;
  if (device_banks > kMaxDeviceBanks)
    fail("system", "channels",
         std::to_string(c_.channels) + " channels x " + std::to_string(c_.ranks) + " ranks x " +
             std::to_string(c_.banks) + " banks is " + std::to_string(device_banks) +
             " banks; at most " + std::to_string(kMaxDeviceBanks) + " are modelled");
}

void Deriver::mapping() {
  const std::string& text = k_.address_mapping;
  const std::array<const char*, 6> names = {"ch", "ra", "bg", "ba", "ro", "co"};
  const std::string expected =
      "; use six 2-letter fields, each of ch, ra, bg, ba, ro, co once, most significant first, "
      "e.g. 'rorabgbachco'";
  if (text.size() != 12) fail("system", "address_mapping", "got '" + text + "'" + expected);
  std::array<int, 6> slot_of{-1, -1, -1, -1, -1, -1};
  for (int slot = 0; slot < 6; ++slot) {
    std::string field = to_lower(text.substr(static_cast<size_t>(slot) * 2, 2));
    auto it = std::find(names.begin(), names.end(), field);
    size_t index = static_cast<size_t>(it - names.begin());
    if (it == names.end() || slot_of[index] >= 0)
      fail("system", "address_mapping",
           "field '" + field + "' at position " + std::to_string(slot + 1) +
               " is unknown or repeated" + expected);
    slot_of[index] = slot;
  }
  AddressFields& f = c_.fields;
  f.row_on_top = slot_of[4] == 0;
  if (!f.row_on_top && !std::has_single_bit(c_.rows))
    fail("dram_structure", "rows",
         "must be a power of two unless 'ro' is the most significant field of address_mapping, "
         "got " +
             std::to_string(c_.rows));
  const std::array<int, 6> bits = {
      log2_exact(c_.channels),   log2_exact(c_.ranks),
      log2_exact(c_.bankgroups), log2_exact(c_.banks_per_group),
      log2_ceil(c_.rows),        log2_exact(c_.columns) - log2_exact(static_cast<uint64_t>(k_.BL))};
  std::array<int, 6> pos{};
  int next = 0;
  for (int slot = 5; slot >= 0; --slot) {  // laid out from the least significant end
    size_t index =
        static_cast<size_t>(std::find(slot_of.begin(), slot_of.end(), slot) - slot_of.begin());
    pos[index] = next;
    next += bits[index];
  }
  f.shift_bits = log2_exact(c_.request_bytes);
  if (!std::has_single_bit(c_.request_bytes) || next + f.shift_bits > kMaxAddressBits)
    fail("system", "channels",
         "the device needs " + std::to_string(next + f.shift_bits) + " address bits; at most " +
             std::to_string(kMaxAddressBits) + " are supported");
  f.ch_pos = pos[0], f.ra_pos = pos[1], f.bg_pos = pos[2], f.ba_pos = pos[3], f.ro_pos = pos[4],
  f.co_pos = pos[5];
  f.ch_bits = bits[0], f.ra_bits = bits[1], f.bg_bits = bits[2], f.ba_bits = bits[3],
  f.ro_bits = bits[4], f.co_bits = bits[5];
}

std::string with_location(const std::string& source, const Diagnostic& d) {
  return d.line > 0 ? source + ":" + std::to_string(d.line) + ": " + d.message
                    : source + ": " + d.message;
}

// Moves `found` into `out` as full messages; in strict mode the first one is an error.
void report(const std::string& source, std::vector<Diagnostic> found, bool strict,
            std::vector<std::string>& out) {
  std::stable_sort(found.begin(), found.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  if (strict && !found.empty())
    throw sdk::invalid_argument(with_location(source, found.front()) +
                                " (strict mode: fix or remove it)");
  for (const auto& d : found) out.push_back(with_location(source, d));
}

}  // namespace

bool DramConfig::is_gddr() const {
  return protocol == Protocol::gddr5 || protocol == Protocol::gddr5x || protocol == Protocol::gddr6;
}

double DramConfig::channel_peak_bytes_per_s() const {
  return static_cast<double>(request_bytes) / (burst_cycles * keys.tCK * 1e-9);
}

std::string DramConfig::canonical() const {
  std::ostringstream out;
  out.precision(17);
  const DramKeys& k = keys;
  out << k.protocol << ' ' << k.bankgroups << ' ' << k.banks_per_group << ' ' << k.bankgroup_enable
      << ' ' << k.rows << ' ' << k.columns << ' ' << k.device_width << ' ' << k.BL << ' '
      << k.hbm_dual_cmd << '\n'
      << k.tCK << ' ' << k.AL << ' ' << k.CL << ' ' << k.CWL << ' ' << k.tCCD_L << ' ' << k.tCCD_S
      << ' ' << k.tRTRS << ' ' << k.tRTP << ' ' << k.tWTR_L << ' ' << k.tWTR_S << ' ' << k.tWR
      << ' ' << k.tRP << ' ' << k.tRRD_L << ' ' << k.tRRD_S << ' ' << k.tRAS << ' ' << k.tRCD << ' '
      << k.tRFC << ' ' << k.tRFCb << ' ' << k.tREFI << ' ' << k.tREFIb << ' ' << k.tFAW << ' '
      << k.tRPRE << ' ' << k.tWPRE << ' ' << k.tPPD << ' ' << k.tRCDRD << ' ' << k.tRCDWR << '\n'
      << k.VDD << ' ' << k.IDD0 << ' ' << k.IDD2N << ' ' << k.IDD3N << ' ' << k.IDD4W << ' '
      << k.IDD4R << ' ' << k.IDD5AB << ' ' << k.IDD5PB << '\n'
      << k.channel_size << ' ' << k.channels << ' ' << k.bus_width << ' ' << k.address_mapping
      << ' ' << k.queue_structure << ' ' << k.row_buf_policy << ' ' << k.cmd_queue_size << ' '
      << k.trans_queue_size << ' ' << k.unified_queue << ' ' << k.write_buf_size << ' '
      << k.refresh_policy << ' ' << k.aggressive_precharging_enabled << '\n';
  return out.str();
}

std::string DramConfig::describe() const {
  // Shortest text that reads back as the same double, as the file most likely wrote it.
  char tck[32];
  const auto written = std::to_chars(tck, tck + sizeof(tck), keys.tCK);
  return keys.protocol + ", " + std::to_string(channels) + " channels of " +
         std::to_string(keys.bus_width) + " bits, " + std::to_string(request_bytes) +
         " B requests, " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + " x " +
         std::to_string(banks) + " banks, tCK " + std::string(tck, written.ptr) + " ns";
}

LoadedConfig load_dram_config(const std::string& text, const std::string& source, bool strict) {
  IniFile ini = parse_ini(text);
  KeyReading reading = read_keys(ini);
  LoadedConfig loaded;
  std::vector<Diagnostic> found = std::move(ini.problems);
  found.insert(found.end(), reading.warnings.begin(), reading.warnings.end());
  report(source, std::move(found), strict, loaded.warnings);
  std::vector<Diagnostic> derived;
  loaded.config = Deriver(reading, source, derived).run();
  report(source, std::move(derived), strict, loaded.warnings);
  return loaded;
}

}  // namespace tessera::hbm
