#include "dram_config.hpp"

#include <gtest/gtest.h>

#include <tessera/sdk/error.hpp>

#include "config_files.hpp"
#include "test_support.hpp"

namespace tessera::hbm {
namespace {

using testing::memory_config_path;

// A small valid HBM device; tests change one line of it.
const char* const kHbm = R"([dram_structure]
protocol = HBM
bankgroups = 4
banks_per_group = 4
rows = 32768
columns = 64
device_width = 128
BL = 4
[timing]
tCK = 1
CL = 14
CWL = 4
tRCDRD = 14
tRCDWR = 14
tRP = 14
tRAS = 34
tRFC = 260
tREFI = 3900
tFAW = 30
[system]
channel_size = 1024
channels = 8
bus_width = 128
address_mapping = rorabgbachco
)";

std::string with(const std::string& old_line, const std::string& new_line) {
  std::string text = kHbm;
  size_t at = text.find(old_line + "\n");
  EXPECT_NE(at, std::string::npos) << old_line;
  return text.replace(at, old_line.size(), new_line);
}

std::string error_of(const std::string& text, bool strict = false) {
  try {
    load_dram_config(text, "test.ini", strict);
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_INVALID_ARGUMENT);
    return e.what();
  }
  return "no error";
}

std::vector<std::string> warnings_of(const std::string& text) {
  return load_dram_config(text, "test.ini", false).warnings;
}

TEST(DramConfig, AbsentKeysTakeDramsim3Defaults) {
  LoadedConfig loaded = load_dram_config("[system]\nchannel_size = 2048\n", "empty.ini", true);
  const DramKeys& k = loaded.config.keys;
  EXPECT_TRUE(loaded.warnings.empty());
  EXPECT_EQ(k.protocol, "DDR3");
  EXPECT_EQ(k.bankgroups, 2);
  EXPECT_EQ(k.rows, 65536);
  EXPECT_EQ(k.BL, 8);
  EXPECT_DOUBLE_EQ(k.tCK, 1.0);
  EXPECT_EQ(k.CL, 12);
  EXPECT_EQ(k.tRFC, 74);
  EXPECT_EQ(k.tREFI, 7800);
  EXPECT_EQ(k.tFAW, 50);
  EXPECT_EQ(k.tRCDRD, 24);
  EXPECT_DOUBLE_EQ(k.IDD4R, 135);
  EXPECT_EQ(k.address_mapping, "chrobabgraco");
  EXPECT_EQ(k.cmd_queue_size, 16);
  EXPECT_EQ(k.write_buf_size, 16);
  // Derived as DRAMsim3 derives them: DDR3 moves BL/2 cycles, 64-bit bus of x8 devices.
  EXPECT_EQ(loaded.config.burst_cycles, 4u);
  EXPECT_EQ(loaded.config.request_bytes, 64u);
  EXPECT_EQ(loaded.config.devices_per_rank, 8u);
  EXPECT_EQ(loaded.config.ranks, 1u);  // 1 KiB page x 65536 rows x 4 banks x 8 devices = 2 GiB
  EXPECT_FALSE(loaded.config.dual_command);
}

TEST(DramConfig, AChannelSmallerThanARankIsAWarningAsInDramsim3) {
  EXPECT_EQ(warnings_of(""),
            std::vector<std::string>{"test.ini: [system] channel_size: 1024 MB is less than one "
                                     "rank of this device (2048 MB); one rank is modelled (as in "
                                     "DRAMsim3)"});
  EXPECT_EQ(error_of("", true),
            "test.ini: [system] channel_size: 1024 MB is less than one rank of this device "
            "(2048 MB); one rank is modelled (as in DRAMsim3) (strict mode: fix or remove it)");
}

TEST(DramConfig, KeysAndSectionsAreCaseInsensitive) {
  LoadedConfig loaded = load_dram_config(
      with("[timing]", "[TIMING]") + "\n[DRAM_Structure]\nNUM_DIES = 8\n", "test.ini", true);
  EXPECT_EQ(loaded.config.keys.num_dies, 8);
  EXPECT_EQ(loaded.config.keys.CL, 14);
}

TEST(DramConfig, HbmDoublesColumnsAndUsesDualIssue) {
  const DramConfig c = load_dram_config(kHbm, "test.ini", true).config;
  EXPECT_TRUE(c.is_hbm());
  EXPECT_TRUE(c.dual_command);
  EXPECT_EQ(c.columns, 128u);
  EXPECT_EQ(c.page_bytes, 2048u);
  EXPECT_EQ(c.burst_cycles, 2u);
  EXPECT_EQ(c.request_bytes, 64u);
  EXPECT_EQ(c.ranks, 1u);
  EXPECT_EQ(c.channel_bytes, uint64_t{1} << 30);
  EXPECT_DOUBLE_EQ(c.channel_peak_bytes_per_s(), 32e9);
}

TEST(DramConfig, WarnsAboutKeysDramsim3DoesNotRead) {
  std::string text =
      with("[timing]", "[timing]\ntRTP_L = 6\ntCKSRE = 10") + "[power]\nIDD3P = 40\n";
  EXPECT_EQ(warnings_of(text),
            (std::vector<std::string>{
                "test.ini:10: [timing] tRTP_L: not used: DRAMsim3 reads tRTP, not tRTP_L",
                "test.ini:11: [timing] tCKSRE: not used: DRAMsim3 reads tCKESR, not tCKSRE",
                "test.ini:28: [power] IDD3P: not used: DRAMsim3 reads IDD3P nowhere (active "
                "power-down is not modelled)"}));
}

TEST(DramConfig, UnknownKeysAreWarningsWithTheNearestKnownKey) {
  EXPECT_EQ(warnings_of(with("tFAW = 30", "tFAWW = 30")),
            std::vector<std::string>{
                "test.ini:19: [timing] tFAWW: unknown key, ignored (did you mean 'tFAW'?)"});
  EXPECT_EQ(error_of(with("tFAW = 30", "tFAWW = 30"), true),
            "test.ini:19: [timing] tFAWW: unknown key, ignored (did you mean 'tFAW'?) (strict "
            "mode: fix or remove it)");
  EXPECT_EQ(warnings_of(std::string(kHbm) + "zebra = 1\n"),
            std::vector<std::string>{"test.ini:25: [system] zebra: unknown key, ignored"});
}

TEST(DramConfig, UnparsableValuesWarnAndTakeTheDefault) {
  LoadedConfig loaded = load_dram_config(with("rows = 32768", "rows = 32k"), "test.ini", false);
  // The default row count makes a rank larger than the channel: a second, consequent warning.
  EXPECT_EQ(loaded.warnings,
            (std::vector<std::string>{
                "test.ini:5: [dram_structure] rows: expected a whole number, got '32k'; DRAMsim3's "
                "default 65536 is used",
                "test.ini:21: [system] channel_size: 1024 MB is less than one rank of this device "
                "(2048 MB); one rank is modelled (as in DRAMsim3)"}));
  EXPECT_EQ(loaded.config.keys.rows, 65536);
  EXPECT_EQ(warnings_of(with("tCK = 1", "tCK = fast")),
            std::vector<std::string>{"test.ini:10: [timing] tCK: expected a number, got 'fast'; "
                                     "DRAMsim3's default 1.0 is used"});
  EXPECT_EQ(warnings_of(std::string(kHbm) + "unified_queue = maybe\n"),
            std::vector<std::string>{"test.ini:25: [system] unified_queue: expected true or "
                                     "false, got 'maybe'; DRAMsim3's default false is used"});
}

TEST(DramConfig, AnEmptyValueMeansTheDefaultAndIsReported) {
  // DRAMsim3's HBM_4Gb_x128.ini has `tRFC = `, which silently becomes DDR3's 74.
  LoadedConfig loaded = load_dram_config(with("tRFC = 260", "tRFC = "), "test.ini", false);
  EXPECT_EQ(loaded.config.keys.tRFC, 74);
  EXPECT_EQ(loaded.warnings,
            std::vector<std::string>{
                "test.ini:17: [timing] tRFC: empty value; DRAMsim3's default 74 is used"});
}

TEST(DramConfig, ARepeatedKeyKeepsTheFirstValueAsDramsim3Does) {
  LoadedConfig loaded =
      load_dram_config(std::string(kHbm) + "[timing]\nCL = 99\n", "test.ini", false);
  EXPECT_EQ(loaded.config.keys.CL, 14);
  EXPECT_EQ(loaded.warnings, std::vector<std::string>{
                                 "test.ini:26: [timing] CL: repeats line 11; the first value is "
                                 "used (as in DRAMsim3)"});
}

TEST(DramConfig, UnknownSectionsAndStrayLinesAreWarnings) {
  EXPECT_EQ(warnings_of("top = 1\n" + std::string(kHbm) + "[colour]\nred = 1\nnonsense\n"),
            (std::vector<std::string>{"test.ini:1: top: key outside any section, ignored",
                                      "test.ini:26: [colour]: unknown section, its keys are "
                                      "ignored",
                                      "test.ini:28: expected 'key = value' or '[section]', got "
                                      "'nonsense'"}));
  // DRAMsim3's thermal and HMC sections describe what Tessera does not model: skipped quietly.
  EXPECT_TRUE(warnings_of(std::string(kHbm) + "[thermal]\nmat_dim_x = 1024;\n").empty());
}

TEST(DramConfig, ImpossibleValuesAreErrorsNamingTheKeyAndLine) {
  EXPECT_EQ(error_of(with("bankgroups = 4", "bankgroups = 0")),
            "test.ini:3: [dram_structure] bankgroups: must be at least 1, got 0");
  EXPECT_EQ(error_of(with("tCK = 1", "tCK = 0")),
            "test.ini:10: [timing] tCK: must be greater than 0 (ns), got 0");
  EXPECT_EQ(error_of(with("tCK = 1", "tCK = -0.5")),
            "test.ini:10: [timing] tCK: must be greater than 0 (ns), got -0.5");
  EXPECT_EQ(error_of(with("banks_per_group = 4", "banks_per_group = 3")),
            "test.ini:4: [dram_structure] banks_per_group: must be a power of two (the address "
            "mapping takes whole bits), got 3");
  EXPECT_EQ(error_of(with("tRP = 14", "tRP = -1")),
            "test.ini:15: [timing] tRP: must be at least 1, got -1");
  EXPECT_EQ(error_of(with("tREFI = 3900", "tREFI = 200")),
            "test.ini:18: [timing] tREFI: must be greater than tRFC (260): a refresh would never "
            "end before the next, got 200");
  EXPECT_EQ(error_of(with("bus_width = 128", "bus_width = 100")),
            "test.ini:23: [system] bus_width: must be a multiple of 8 and of device_width (128), "
            "got 100");
  EXPECT_EQ(error_of(with("BL = 4", "BL = 1")),
            "test.ini:8: [dram_structure] BL: a burst must last at least one clock: this "
            "protocol moves 2 beats per tCK, got BL 1");
  EXPECT_EQ(error_of(std::string(kHbm) + "[power]\nVDD = -1\n"),
            "test.ini:26: [power] VDD: must be in [0, 1e6] (V or mA), got -1");
}

TEST(DramConfig, ADefaultThatBecomesImpossibleSaysSo) {
  // tREFI is absent: DRAMsim3's 7800 is smaller than this tRFC.
  std::string text = with("tREFI = 3900", "");
  text = text.replace(text.find("tRFC = 260"), 10, "tRFC = 8000");
  EXPECT_EQ(error_of(text),
            "test.ini: [timing] tREFI: must be greater than tRFC (8000): a refresh would never "
            "end before the next, got 7800 (DRAMsim3's default; the file does not set it)");
}

TEST(DramConfig, ChoicesAndTheMappingAreChecked) {
  EXPECT_EQ(error_of(with("protocol = HBM", "protocol = HBM5")),
            "test.ini:2: [dram_structure] protocol: 'HBM5' is not one of: DDR3, DDR4, GDDR5, "
            "GDDR5X, GDDR6, LPDDR, LPDDR3, LPDDR4, HBM, HBM2");
  EXPECT_EQ(error_of(with("protocol = HBM", "protocol = HMC")),
            "test.ini:2: [dram_structure] protocol: HMC (Hybrid Memory Cube) is not modelled; "
            "use a DRAM protocol such as HBM2");
  EXPECT_EQ(error_of(std::string(kHbm) + "row_buf_policy = OPEN\n"),
            "test.ini:25: [system] row_buf_policy: 'OPEN' is not one of: OPEN_PAGE, CLOSE_PAGE");
  EXPECT_EQ(error_of(with("address_mapping = rorabgbachco", "address_mapping = rorabgbachc")),
            "test.ini:24: [system] address_mapping: got 'rorabgbachc'; use six 2-letter fields, "
            "each of ch, ra, bg, ba, ro, co once, most significant first, e.g. 'rorabgbachco'");
  EXPECT_EQ(error_of(with("address_mapping = rorabgbachco", "address_mapping = rorobgbachco")),
            "test.ini:24: [system] address_mapping: field 'ro' at position 2 is unknown or "
            "repeated; use six 2-letter fields, each of ch, ra, bg, ba, ro, co once, most "
            "significant first, e.g. 'rorabgbachco'");
  EXPECT_EQ(error_of(with("channel_size = 1024", "channel_size = 3072")),
            "test.ini:21: [system] channel_size: 3072 MB makes 3 ranks of 1024 MB; the rank count "
            "must be a power of two up to 1024");
}

TEST(DramConfig, RowsNeedNotBeAPowerOfTwoWhenTheRowIsTheTopField) {
  EXPECT_EQ(error_of(with("rows = 32768", "rows = 24576")
                         .replace(std::string(kHbm).find("address_mapping = rorabgbachco"), 30,
                                  "address_mapping = rabgbarochco")),
            "test.ini:5: [dram_structure] rows: must be a power of two unless 'ro' is the most "
            "significant field of address_mapping, got 24576");
  const DramConfig c = load_dram_config(with("rows = 32768", "rows = 24576")
                                            .replace(std::string(kHbm).find("channel_size = 1024"),
                                                     19, "channel_size = 768"),
                                        "test.ini", true)
                           .config;
  EXPECT_EQ(c.rows, 24576u);
  EXPECT_EQ(c.channel_bytes, uint64_t{768} << 20);
}

TEST(DramConfig, TheShippedConfigsLoadStrictlyWithTheAdvertisedPeaks) {
  struct Expected {
    const char* file;
    double peak_bytes_per_s;
    uint64_t capacity_bytes;
    uint32_t ranks;
  };
  for (const Expected& e : {Expected{"hbm2_8gb_x128.ini", 256e9, uint64_t{8} << 30, 1},
                            Expected{"hbm3_6400.ini", 819.2e9, uint64_t{16} << 30, 2},
                            Expected{"hbm3e_8hi.ini", 1177.6e9, uint64_t{24} << 30, 2}}) {
    LoadedConfig loaded =
        load_dram_config(read_text_file(memory_config_path(e.file)), e.file, true);
    const DramConfig& c = loaded.config;
    EXPECT_TRUE(loaded.warnings.empty()) << e.file;
    EXPECT_NEAR(c.channel_peak_bytes_per_s() * c.channels, e.peak_bytes_per_s, 1e6) << e.file;
    EXPECT_EQ(c.channel_bytes * c.channels, e.capacity_bytes) << e.file;
    EXPECT_EQ(c.ranks, e.ranks) << e.file;
  }
}

TEST(DramConfig, TheBuiltInDeviceIsTheShippedHbm3eFile) {
  EXPECT_STREQ(kBuiltinConfigName, "hbm3e_8hi.ini");
  EXPECT_EQ(std::string(kBuiltinConfigText), read_text_file(memory_config_path("hbm3e_8hi.ini")));
}

TEST(DramConfig, CanonicalTextDiffersWhenATimingDiffers) {
  const DramConfig a = load_dram_config(kHbm, "a.ini", true).config;
  const DramConfig b = load_dram_config(kHbm, "b.ini", true).config;
  const DramConfig c = load_dram_config(with("tFAW = 30", "tFAW = 31"), "a.ini", true).config;
  EXPECT_EQ(a.canonical(), b.canonical());
  EXPECT_NE(a.canonical(), c.canonical());
}

}  // namespace
}  // namespace tessera::hbm
