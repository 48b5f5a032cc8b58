// The MemoryModel the plugin exports: parameters, defaults, the fast mode and the ABI statistics.
#include "hbm_model.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tessera/sdk/error.hpp>
#include <vector>

#include "address_map.hpp"
#include "config_files.hpp"
#include "test_support.hpp"

namespace tessera::hbm {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::memory_config_path;

// Parameters as the host passes them: strings, and the chip file's directory.
sdk::Params params(const std::vector<std::pair<std::string, std::string>>& values,
                   const std::string& base_dir = "") {
  std::vector<tessera_param> items;
  for (const auto& [k, v] : values) items.push_back({k.c_str(), v.c_str()});
  tessera_params raw{items.size(), items.data(), base_dir.c_str()};
  return sdk::Params(raw);
}

std::string construction_error(const std::vector<std::pair<std::string, std::string>>& values,
                               const std::string& base_dir = "") {
  try {
    HbmModel model(params(values, base_dir));
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(HbmModel, WithoutParametersItIsOneHbm3eStack) {
  HbmModel model(params({}));
  tessera_memory_info info = model.info();
  EXPECT_EQ(info.channels, 32u);
  EXPECT_NEAR(info.peak_bytes_per_s, 1177.6e9, 1e6);
  EXPECT_NEAR(info.clock_hz, 4.6e9, 1e3);
  EXPECT_EQ(info.burst_bytes, 32u);
  EXPECT_EQ(info.capacity_bytes, uint64_t{24} << 30);
}

TEST(HbmModel, StacksMultiplyChannelsPeakAndCapacity) {
  HbmModel model(params({{"config", memory_config_path("hbm3e_8hi.ini")}, {"stacks", "4"}}));
  EXPECT_EQ(model.info().channels, 128u);
  EXPECT_NEAR(model.info().peak_bytes_per_s, 4 * 1177.6e9, 1e7);
  EXPECT_EQ(model.info().capacity_bytes, uint64_t{96} << 30);
}

TEST(HbmModel, FindsConfigsBesideTheChipFileThenInTheSharedDirectory) {
  fs::path dir = fs::temp_directory_path() / "tessera_hbm_model_test";
  fs::create_directories(dir);
  std::ofstream(dir / "mine.ini") << read_text_file(memory_config_path("hbm2_8gb_x128.ini"));
  EXPECT_EQ(HbmModel(params({{"config", "mine.ini"}}, dir.string())).info().channels, 8u);
  // Not beside the chip file: the shipped configs are found by name.
  EXPECT_EQ(HbmModel(params({{"config", "hbm3_6400.ini"}}, dir.string())).info().channels, 32u);
  EXPECT_THAT(construction_error({{"config", "nope.ini"}}, dir.string()),
              HasSubstr("memory config 'nope.ini' not found (looked in: " + dir.string() + ", "));
  EXPECT_EQ(construction_error({{"config", "/nonexistent/x.ini"}}),
            "memory config '/nonexistent/x.ini' does not exist");
  fs::remove_all(dir);
}

TEST(HbmModel, ConfigErrorsAndStrictWarningsNameTheFile) {
  fs::path dir = fs::temp_directory_path() / "tessera_hbm_model_strict";
  fs::create_directories(dir);
  std::ofstream(dir / "typo.ini") << read_text_file(memory_config_path("hbm2_8gb_x128.ini"))
                                  << "[timing]\ntFAWW = 3\n";
  std::ofstream(dir / "zero.ini") << "[dram_structure]\nbankgroups = 0\n";
  const std::string typo = (dir / "typo.ini").string();
  const std::string shipped = read_text_file(memory_config_path("hbm2_8gb_x128.ini"));
  const auto typo_line = std::count(shipped.begin(), shipped.end(), '\n') + 2;
  EXPECT_EQ(construction_error({{"config", "typo.ini"}}, dir.string()), "no error");
  EXPECT_EQ(construction_error({{"config", "typo.ini"}, {"strict", "true"}}, dir.string()),
            typo + ":" + std::to_string(typo_line) +
                ": [timing] tFAWW: unknown key, ignored (did you mean 'tFAW'?) (strict mode: fix "
                "or remove it)");
  EXPECT_EQ(
      construction_error({{"config", "zero.ini"}}, dir.string()),
      (dir / "zero.ini").string() + ":2: [dram_structure] bankgroups: must be at least 1, got 0");
  fs::remove_all(dir);
}

TEST(HbmModel, ParametersAreChecked) {
  EXPECT_EQ(construction_error({{"stacks", "0"}}),
            "parameter 'stacks': must be in [1, 1024], got 0");
  EXPECT_EQ(construction_error({{"strict", "perhaps"}}),
            "parameter 'strict': expected true or false, got 'perhaps'");
  EXPECT_EQ(construction_error({{"channel", "32"}}),
            "channel 32 does not exist: this system has 32 channels (0..31)");
  sdk::Params typo = params({{"confg", "x.ini"}});
  HbmModel model(typo);
  try {
    typo.reject_unknown("memory_model");
    FAIL() << "expected an error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(), "unknown memory_model parameter 'confg' (did you mean 'config'?)");
  }
}

TEST(HbmModel, AChannelSliceIsOneChannelAndRefusesOtherAddresses) {
  HbmModel slice(params({{"config", memory_config_path("hbm2_8gb_x128.ini")}, {"channel", "1"}}));
  EXPECT_EQ(slice.info().channels, 1u);
  EXPECT_NEAR(slice.info().peak_bytes_per_s, 32e9, 1e3);
  tessera_memory_request mine{7, 0x800, 0, 0}, other{8, 0x1000, 0, 0};
  EXPECT_EQ(slice.submit(&mine, 1), 1u);
  try {
    slice.submit(&other, 1);
    FAIL() << "expected an error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "request 8: address 0x1000 maps to channel 2, but this memory model is channel 1 "
                 "only");
  }
  EXPECT_EQ(slice.channel_of(0x840), 0u);  // the slice's only channel is its channel 0
  try {
    slice.channel_of(0x1000);
    FAIL() << "expected an error";
  } catch (const sdk::Error& e) {
    EXPECT_STREQ(e.what(),
                 "address 0x1000 maps to channel 2, but this memory model is channel 1 only");
  }
  // A batch with a stranger is refused whole: nothing of it is queued.
  tessera_memory_request batch[] = {{9, 0x840, 0, 0}, other};
  EXPECT_THROW(slice.submit(batch, 2), sdk::Error);
  std::vector<uint64_t> finished;
  slice.advance(500, [&](const tessera_memory_completion& c) { finished.push_back(c.id); });
  EXPECT_EQ(finished, std::vector<uint64_t>{7});
}

TEST(HbmModel, StatisticsReachTheAbiAsTotals) {
  HbmModel model(params({{"config", memory_config_path("hbm2_8gb_x128.ini")}}));
  // 40 reads of one row of channel 0 and 8 writes elsewhere: the read queue holds 32.
  std::vector<tessera_memory_request> requests;
  for (uint64_t i = 0; i < 40; ++i) requests.push_back({i, (i % 32) * 64, 0, 0});
  EXPECT_EQ(model.submit(requests.data(), requests.size()), 32u);
  size_t taken = 32;
  requests.clear();
  for (uint64_t i = 0; i < 8; ++i) requests.push_back({100 + i, 0x800 + i * 64, 1, 0});
  taken += model.submit(requests.data(), requests.size());
  EXPECT_EQ(taken, 40u);
  uint64_t completions = 0;
  model.advance(2000, [&](const tessera_memory_completion& c) {
    ++completions;
    EXPECT_GT(c.done_cycle, c.issue_cycle);
  });
  tessera_memory_stats s = model.stats();
  EXPECT_EQ(s.struct_size, sizeof(s));
  EXPECT_EQ(s.cycles, 2000u);
  EXPECT_EQ(s.reads + s.writes, completions);
  EXPECT_EQ(s.reads + s.writes, taken);
  EXPECT_EQ(s.row_hits + s.row_misses, taken);
  EXPECT_GE(s.activates, 1u);
  EXPECT_DOUBLE_EQ(s.bytes_per_s, taken * 64 / 2000e-9);
  EXPECT_GT(s.avg_read_latency_cycles, 30);
  EXPECT_GT(s.energy_j, 0);
}

TEST(HbmModel, ItDescribesItsDeviceAndWhereItCameFrom) {
  const std::string path = memory_config_path("hbm2_8gb_x128.ini");
  HbmModel hbm2(params({{"config", path}, {"stacks", "2"}}));
  EXPECT_STREQ(hbm2.info().description,
               "HBM, 8 channels of 128 bits, 64 B requests, 1 rank x 16 banks, tCK 1 ns");
  EXPECT_EQ(hbm2.info().source, path);
  HbmModel builtin(params({}));
  EXPECT_STREQ(builtin.info().description,
               "HBM, 32 channels of 32 bits, 32 B requests, 2 ranks x 16 banks, tCK 0.2173913 ns");
  EXPECT_STREQ(builtin.info().source, "built-in hbm3e_8hi.ini");
}

TEST(HbmModel, ChannelOfIsTheAddressMapsChannel) {
  for (const char* stacks : {"1", "3"}) {
    HbmModel model(params({{"config", memory_config_path("hbm3_6400.ini")}, {"stacks", stacks}}));
    const AddressMap map(load_dram_config(read_text_file(memory_config_path("hbm3_6400.ini")),
                                          "hbm3_6400.ini", false)
                             .config,
                         static_cast<uint32_t>(std::stoi(stacks)));
    const uint64_t capacity = model.info().capacity_bytes;
    std::mt19937_64 rng(5);
    std::vector<uint64_t> addresses = {0,         63, 64, capacity - 1, capacity, capacity + 0x1000,
                                       UINT64_MAX};
    for (int i = 0; i < 2000; ++i) addresses.push_back(rng());
    for (uint64_t a : addresses) {
      ASSERT_EQ(model.channel_of(a), map.locate(a).channel) << stacks << " stacks, address " << a;
      ASSERT_LT(model.channel_of(a), model.info().channels);
    }
  }
}

TEST(HbmModel, ChannelStatisticsAddUpToTheTotals) {
  HbmModel model(params({{"config", memory_config_path("hbm2_8gb_x128.ini")}}));
  RandomSource source(model.info().capacity_bytes, 64, 0.3, 0.0, 4);
  uint64_t id = 0, now = 0;
  drive_requests(source, 4000, [&](const TrafficRequest& r, uint64_t cycle) {
    if (cycle > now) model.advance(cycle - now, [](const tessera_memory_completion&) {});
    now = cycle;
    tessera_memory_request request{id, r.address, r.is_write ? 1u : 0u, 0};
    if (model.submit(&request, 1) == 0) return false;
    ++id;
    return true;
  });
  model.advance(4000 - now, [](const tessera_memory_completion&) {});
  const tessera_memory_stats total = model.stats();
  tessera_memory_stats sum{};
  double latency_sum = 0, bytes_per_s = 0, energy_j = 0;
  for (uint32_t ch = 0; ch < model.info().channels; ++ch) {
    const tessera_memory_stats s = model.channel_stats(ch);
    EXPECT_EQ(s.cycles, total.cycles) << ch;
    EXPECT_GT(s.reads, 0u) << ch;
    sum.reads += s.reads;
    sum.writes += s.writes;
    sum.row_hits += s.row_hits;
    sum.row_misses += s.row_misses;
    sum.activates += s.activates;
    sum.refreshes += s.refreshes;
    latency_sum += s.avg_read_latency_cycles * static_cast<double>(s.reads);
    bytes_per_s += s.bytes_per_s;
    energy_j += s.energy_j;
  }
  EXPECT_EQ(sum.reads, total.reads);
  EXPECT_EQ(sum.writes, total.writes);
  EXPECT_EQ(sum.row_hits, total.row_hits);
  EXPECT_EQ(sum.row_misses, total.row_misses);
  EXPECT_EQ(sum.activates, total.activates);
  EXPECT_EQ(sum.refreshes, total.refreshes);
  EXPECT_NEAR(bytes_per_s, total.bytes_per_s, 1e-12 * total.bytes_per_s);
  EXPECT_NEAR(latency_sum / static_cast<double>(sum.reads), total.avg_read_latency_cycles,
              1e-12 * total.avg_read_latency_cycles);
  EXPECT_NEAR(energy_j, total.energy_j, 1e-12 * total.energy_j);
  EXPECT_GT(total.reads + total.writes, 2000u);
}

TEST(HbmModel, SustainedStreamsGetMostOfThePeakAndAreRemembered) {
  HbmModel one(params({{"config", memory_config_path("hbm2_8gb_x128.ini")}}));
  auto [bytes_per_s, latency_s] = one.sustained(1);
  EXPECT_GT(bytes_per_s, 0.85 * 256e9);
  EXPECT_LT(bytes_per_s, 256e9 * (1 - 260.0 / 3900));
  EXPECT_GT(latency_s, 30e-9);   // at least tRCD + CL + burst
  EXPECT_LT(latency_s, 200e-9);  // half load: little queueing
  HbmModel two(params({{"config", memory_config_path("hbm2_8gb_x128.ini")}, {"stacks", "2"}}));
  auto [two_bytes_per_s, two_latency_s] = two.sustained(1);
  EXPECT_DOUBLE_EQ(two_bytes_per_s, 2 * bytes_per_s);  // from the cache, per stack
  EXPECT_DOUBLE_EQ(two_latency_s, latency_s);
  EXPECT_THROW(one.sustained(5000), sdk::Error);
}

// Every preset the plugin ships builds, with the config its memory_model section names.
TEST(HbmModel, TheShippedChipPresetsBuild) {
  int presets = 0;
  for (const auto& entry : fs::directory_iterator(TESSERA_CHIPS_DIR)) {
    YAML::Node chip = YAML::LoadFile(entry.path().string());
    std::vector<std::pair<std::string, std::string>> values;
    for (const auto& kv : chip["memory_model"])
      values.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
    HbmModel model(params(values, TESSERA_CHIPS_DIR));
    EXPECT_GT(model.info().peak_bytes_per_s, 250e9) << entry.path();
    ++presets;
  }
  EXPECT_EQ(presets, 4);
}

}  // namespace
}  // namespace tessera::hbm
