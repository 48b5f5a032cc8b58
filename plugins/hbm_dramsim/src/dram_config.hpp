// A DRAM device as a DRAMsim3 `.ini` file describes it: the raw keys (with DRAMsim3's defaults for
// the absent ones) and the quantities derived from them the way DRAMsim3 derives them.
//
// Reading follows DRAMsim3 (umd-memsys/DRAMsim3, src/configuration.cc) so its own files load
// unchanged: keys are case-insensitive, an empty value means the default, HBM doubles `columns`
// (prefetch), GDDR multiplies them by BL. Tessera is stricter where DRAMsim3 is silent: every key
// it does not read, every value it cannot parse and every empty value is a warning naming the file,
// line, section and key (an error in strict mode), and impossible values (zero banks, tCK <= 0, a
// refresh interval shorter than the refresh) are errors.
//
// Errors are thrown as tessera::sdk::Error (INVALID_ARGUMENT) with one message:
// "FILE:LINE: [section] key: what is wrong; how to fix it".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::hbm {

enum class Protocol { ddr3, ddr4, gddr5, gddr5x, gddr6, lpddr, lpddr3, lpddr4, hbm, hbm2 };
enum class QueueStructure { per_bank, per_rank };
enum class RowBufferPolicy { open_page, close_page };
enum class RefreshPolicy { rank_staggered, rank_simultaneous, bank_staggered };

// The keys of the file, named as DRAMsim3 names them. Cycles are of the command clock tCK.
struct DramKeys {
  // [dram_structure]
  std::string protocol;
  int64_t bankgroups = 0, banks_per_group = 0;
  bool bankgroup_enable = true;
  int64_t rows = 0, columns = 0, device_width = 0, BL = 0, num_dies = 0;
  bool hbm_dual_cmd = true;
  // [timing]
  double tCK = 0;  // ns
  int64_t AL = 0, CL = 0, CWL = 0, tCCD_L = 0, tCCD_S = 0, tRTRS = 0, tRTP = 0, tWTR_L = 0,
          tWTR_S = 0, tWR = 0, tRP = 0, tRRD_L = 0, tRRD_S = 0, tRAS = 0, tRCD = 0, tRFC = 0,
          tCKE = 0, tCKESR = 0, tXS = 0, tXP = 0, tRFCb = 0, tREFI = 0, tREFIb = 0, tFAW = 0,
          tRPRE = 0, tWPRE = 0, tPPD = 0, t32AW = 0, tRCDRD = 0, tRCDWR = 0,
          ideal_memory_latency = 0;
  // [power] (V, mA)
  double VDD = 0, IDD0 = 0, IDD2P = 0, IDD2N = 0, IDD3N = 0, IDD4W = 0, IDD4R = 0, IDD5AB = 0,
         IDD5PB = 0, IDD6x = 0;
  // [system]
  int64_t channel_size = 0;  // MB per channel
  int64_t channels = 0, bus_width = 0;
  std::string address_mapping, queue_structure, row_buf_policy, refresh_policy;
  int64_t cmd_queue_size = 0, trans_queue_size = 0, write_buf_size = 0;
  bool unified_queue = false, enable_self_refresh = false, aggressive_precharging_enabled = false;
  int64_t sref_threshold = 0, mega_tick = 0;
  // [other]
  int64_t epoch_period = 0, output_level = 0;
  std::string output_prefix;
};

// Bit fields of the address mapping (DRAMsim3: six 2-letter fields, most significant first, laid
// out from the least significant end above the request offset).
struct AddressFields {
  int ch_pos = 0, ra_pos = 0, bg_pos = 0, ba_pos = 0, ro_pos = 0, co_pos = 0;
  int ch_bits = 0, ra_bits = 0, bg_bits = 0, ba_bits = 0, ro_bits = 0, co_bits = 0;
  int shift_bits = 0;       // log2(request bytes)
  bool row_on_top = false;  // `ro` is the most significant field (rows need not be a power of 2)
};

struct DramConfig {
  std::string source;  // file name (or "built-in NAME") for messages
  DramKeys keys;

  // Derived, as DRAMsim3 derives them.
  Protocol protocol = Protocol::ddr3;
  QueueStructure queue_structure = QueueStructure::per_bank;
  RowBufferPolicy row_policy = RowBufferPolicy::open_page;
  RefreshPolicy refresh_policy = RefreshPolicy::rank_staggered;
  uint32_t bankgroups = 0, banks_per_group = 0, banks = 0;  // banks per rank
  uint32_t ranks = 0, channels = 0, rows = 0;
  uint32_t columns = 0;  // physical columns after the HBM/GDDR adjustment
  uint32_t devices_per_rank = 0;
  uint32_t burst_cycles = 0;   // data-bus cycles of one request
  uint32_t request_bytes = 0;  // bus_width / 8 * BL
  uint64_t page_bytes = 0;     // one row of one device
  uint64_t channel_bytes = 0;  // capacity of one channel
  bool dual_command = false;   // HBM: a row and a column command in the same cycle
  AddressFields fields;

  bool is_hbm() const { return protocol == Protocol::hbm || protocol == Protocol::hbm2; }
  bool is_gddr() const;
  double clock_hz() const { return 1e9 / keys.tCK; }
  // Two data beats per tCK on bus_width bits: the most one channel can move.
  double channel_peak_bytes_per_s() const;
  // Every key and derived value, one per line: equal texts mean equal devices (cache keys).
  std::string canonical() const;
  // One line for reports: "HBM, 8 channels of 128 bits, 64 B requests, 1 rank x 16 banks, tCK
  // 1 ns" (the protocol and tCK as the file writes them).
  std::string describe() const;
};

struct LoadedConfig {
  DramConfig config;
  std::vector<std::string> warnings;  // full messages, in file order
};

// Reads `text` (the contents of the file named `source`). In strict mode the first warning is
// thrown as an error instead. Throws sdk::Error(INVALID_ARGUMENT) for impossible values.
LoadedConfig load_dram_config(const std::string& text, const std::string& source, bool strict);

}  // namespace tessera::hbm
