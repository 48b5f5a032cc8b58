// Memory models at the edges of ABI 1.1 and 1.4 (memory/), under this host:
//  - memory_1_0, built for ABI 1.0: it loads, its 1.0 methods work, the 1.1 fields of its info read
//    as absent, the host calls no 1.1 method it does not have (it says so instead), and memsim
//    refuses it with one clear error; memory_claims_1_1, its vtable under a 1.1 descriptor, gets no
//    1.1 call either;
//  - sdk_defaults, today's SDK without the 1.1 overrides: one channel runs in memsim on the SDK's
//    defaults, several are refused with the SDK's message;
//  - ABI 1.4's offer: the SDK's default runs inside sdk_defaults, and the host runs the same front
//    end itself for memory_1_0.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "framework/memsim/memsim.hpp"
#include "framework/plugin/library.hpp"
#include "framework/plugin/manifest.hpp"
#include "framework/plugin/objects.hpp"
#include "framework/plugin/plugin_set.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera {
namespace {

std::string plugin_file(const std::string& name) {
  return std::string(TESSERA_TEST_MEMORY_DIR) + "/" + name + ".so";
}

std::shared_ptr<const PluginLibrary> load(const std::string& name) {
  return PluginLibrary::load(read_manifest(manifest_for_library(plugin_file(name))).take()).take();
}

// memsim on `target` with a short stream; the Failure it throws, if any.
std::optional<Error> memsim_error(const std::string& target) {
  PluginSet plugins(Registry::discover({}));
  memsim::MemsimOptions o;
  o.target = target;
  o.generator = "stream";
  o.cycles = 100;
  try {
    memsim::run_memsim(plugins, o);
  } catch (const Failure& f) {
    return f.error();
  }
  return std::nullopt;
}

class Abi10Memory : public ::testing::Test {
 protected:
  MemoryModel model(const ParamList& params = {}) {
    return create_memory_model(library_, params).take();
  }
  std::shared_ptr<const PluginLibrary> library_ = load("memory_1_0");
};

TEST_F(Abi10Memory, LoadsAsABuiltFor10Plugin) {
  EXPECT_EQ(library_->manifest().abi_minor, 0u);
  EXPECT_EQ(library_->descriptor().abi_minor, 0u);
  MemoryModel m = model();
  EXPECT_EQ(m.raw()->struct_size, offsetof(tessera_memory_model, channel_of));
}

TEST_F(Abi10Memory, ItsInfoHasNo11Fields) {
  MemoryInfo info = model({{{"channels", "4"}}, ""}).info().take();
  EXPECT_DOUBLE_EQ(info.clock_hz, 1e9);
  EXPECT_DOUBLE_EQ(info.peak_bytes_per_s, 256e9);
  EXPECT_EQ(info.channels, 4u);
  EXPECT_EQ(info.burst_bytes, 64u);
  EXPECT_EQ(info.capacity_bytes, uint64_t{1} << 20);
  EXPECT_EQ(info.description, "");
  EXPECT_EQ(info.source, "");
}

TEST_F(Abi10Memory, Its10MethodsWork) {
  MemoryModel m = model({{{"latency_cycles", "10"}, {"queue", "2"}}, ""});
  const tessera_memory_request requests[] = {{7, 0, 0, 0}, {8, 64, 1, 0}, {9, 128, 0, 0}};
  EXPECT_EQ(m.submit(requests, 3).take(), 2u);  // the queue holds two
  std::vector<tessera_memory_completion> done;
  ASSERT_TRUE(m.advance(9, [&](const tessera_memory_completion& c) { done.push_back(c); }));
  EXPECT_TRUE(done.empty());
  ASSERT_TRUE(m.advance(1, [&](const tessera_memory_completion& c) { done.push_back(c); }));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].id, 7u);
  EXPECT_EQ(done[1].id, 8u);
  EXPECT_EQ(done[0].done_cycle - done[0].issue_cycle, 10u);
  tessera_memory_stats s = m.stats().take();
  EXPECT_EQ(s.cycles, 10u);
  EXPECT_EQ(s.reads, 1u);
  EXPECT_EQ(s.writes, 1u);
  EXPECT_DOUBLE_EQ(s.bytes_per_s, 2 * 64 / 10e-9);
  EXPECT_DOUBLE_EQ(s.avg_read_latency_cycles, 10);
  MemorySustained rate = m.sustained(1).take();
  EXPECT_DOUBLE_EQ(rate.bytes_per_s, 2 * 64 / 10e-9);
  EXPECT_DOUBLE_EQ(rate.latency_s, 10e-9);
}

TEST_F(Abi10Memory, The11MethodsAreUnimplementedAndSaySo) {
  MemoryModel m = model();
  auto channel = m.channel_of(0);
  ASSERT_FALSE(channel);
  EXPECT_EQ(channel.error().kind, ErrorKind::plugin);
  EXPECT_EQ(channel.error().code, StatusCode::unimplemented);
  EXPECT_EQ(channel.error().message,
            "plugin 'memory_1_0' is built for plugin ABI 1.0, and memory_model.channel_of is new "
            "in ABI 1.1: rebuild the plugin against TesseraSDK 1.1 or later");
  auto stats = m.channel_stats(0);
  ASSERT_FALSE(stats);
  EXPECT_EQ(stats.error().code, StatusCode::unimplemented);
  EXPECT_EQ(stats.error().message,
            "plugin 'memory_1_0' is built for plugin ABI 1.0, and memory_model.get_channel_stats "
            "is new in ABI 1.1: rebuild the plugin against TesseraSDK 1.1 or later");
}

TEST(Claims11Memory, ADescriptorSaying11DoesNotMakeTheVtableLonger) {
  MemoryModel m = create_memory_model(load("memory_claims_1_1"), {}).take();
  auto channel = m.channel_of(0);
  ASSERT_FALSE(channel);
  EXPECT_EQ(channel.error().code, StatusCode::unimplemented);
  EXPECT_EQ(channel.error().message,
            "plugin 'memory_claims_1_1' reports ABI 1.1, but its memory_model has no channel_of "
            "(struct_size 120, or the slot is NULL)");
  EXPECT_EQ(m.stats().take().cycles, 0u);  // its 1.0 methods still work
}

TEST_F(Abi10Memory, MemsimRefusesItWithOneError) {
  auto error = memsim_error(plugin_file("memory_1_0"));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->kind, ErrorKind::plugin);
  EXPECT_EQ(error->message,
            "memsim needs a memory model with per-channel statistics (plugin ABI 1.1): plugin "
            "'memory_1_0' is built for plugin ABI 1.0, and memory_model.channel_of is new in ABI "
            "1.1: rebuild the plugin against TesseraSDK 1.1 or later");
}

// ABI 1.4's offer on a model of latency 10 and a queue of 2: requests 1-3 due at cycle 0, 4 at 5.
// 1 and 2 go in at 0, 3 is refused until both are done at 10, and 4 then follows it at 10.
struct OfferRun {
  sdk::OfferProgress progress;
  std::vector<uint64_t> completed;  // ids, as reported
  std::vector<uint32_t> channels = std::vector<uint32_t>(4, 99);
  Status status = ok_status();
};

OfferRun offer_four(MemoryModel& m, bool with_channels) {
  const tessera_memory_request requests[] = {
      {1, 0, 0, 0}, {2, 64, 1, 0}, {3, 128, 0, 0}, {4, 192, 0, 0}};
  const uint64_t due[] = {0, 0, 0, 5};
  OfferRun run;
  run.status = m.offer(
      requests, due, 4, 0, 100,
      [&](const tessera_memory_completion& c) { run.completed.push_back(c.id); },
      with_channels ? run.channels.data() : nullptr, run.progress);
  return run;
}

TEST_F(Abi10Memory, TheHostRunsOfferOverItsSubmitAndAdvance) {
  MemoryModel m = model({{{"latency_cycles", "10"}, {"queue", "2"}}, ""});
  OfferRun run = offer_four(m, false);
  ASSERT_TRUE(run.status) << run.status.error().message;
  EXPECT_EQ(run.progress.accepted, 4u);
  EXPECT_EQ(run.progress.cycles_run, 10u);
  EXPECT_EQ(run.completed, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(m.stats().take().cycles, 10u) << "the model stays at the last offer";

  // Channels need channel_of, which a 1.0 model lacks: the error says so, and how far it got.
  MemoryModel other = model({{{"latency_cycles", "10"}, {"queue", "2"}}, ""});
  OfferRun named = offer_four(other, true);
  ASSERT_FALSE(named.status);
  EXPECT_EQ(named.status.error().code, StatusCode::unimplemented);
  EXPECT_EQ(named.status.error().message,
            "plugin 'memory_1_0' is built for plugin ABI 1.0, and memory_model.channel_of is new "
            "in ABI 1.1: rebuild the plugin against TesseraSDK 1.1 or later");
  EXPECT_EQ(named.progress.accepted, 1u);
  EXPECT_EQ(named.progress.cycles_run, 0u);
}

TEST(SdkDefaults, OfferIsTheSdksFrontEndInsideThePlugin) {
  MemoryModel m =
      create_memory_model(load("sdk_defaults"), {{{"latency_cycles", "10"}, {"queue", "2"}}, ""})
          .take();
  ASSERT_TRUE(TESSERA_HAS_SLOT(m.raw(), tessera_memory_model, offer));
  OfferRun run = offer_four(m, true);
  ASSERT_TRUE(run.status) << run.status.error().message;
  EXPECT_EQ(run.progress.accepted, 4u);
  EXPECT_EQ(run.progress.cycles_run, 10u);
  EXPECT_EQ(run.completed, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(run.channels, (std::vector<uint32_t>{0, 0, 0, 0}));
}

TEST(SdkDefaults, OneChannelIsAComplete11Object) {
  auto library = load("sdk_defaults");
  EXPECT_EQ(library->descriptor().abi_minor, uint32_t{TESSERA_ABI_MINOR});
  MemoryModel m = create_memory_model(library, {}).take();
  EXPECT_EQ(m.raw()->struct_size, sizeof(tessera_memory_model));
  const tessera_memory_request request{1, 0x1234, 0, 0};
  EXPECT_EQ(m.submit(&request, 1).take(), 1u);
  ASSERT_TRUE(m.advance(50, [](const tessera_memory_completion&) {}));
  EXPECT_EQ(m.channel_of(0x1234).take(), 0u);
  tessera_memory_stats one = m.channel_stats(0).take(), all = m.stats().take();
  EXPECT_EQ(one.reads, 1u);
  EXPECT_EQ(one.cycles, all.cycles);
  EXPECT_DOUBLE_EQ(one.bytes_per_s, all.bytes_per_s);
  auto beyond = m.channel_stats(1);
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error().code, StatusCode::invalid_argument);
  EXPECT_EQ(beyond.error().message,
            "plugin 'sdk_defaults': memory_model.get_channel_stats: channel 1 out of range (count "
            "1)");
  MemoryInfo info = m.info().take();
  EXPECT_EQ(info.description, "");
  EXPECT_EQ(info.source, "");
}

TEST(SdkDefaults, SeveralChannelsAreUnimplementedAndSaySo) {
  MemoryModel m = create_memory_model(load("sdk_defaults"), {{{"channels", "3"}}, ""}).take();
  auto channel = m.channel_of(0);
  ASSERT_FALSE(channel);
  EXPECT_EQ(channel.error().code, StatusCode::unimplemented);
  EXPECT_EQ(channel.error().message,
            "plugin 'sdk_defaults': memory_model.channel_of: this memory model of 3 channels does "
            "not implement channel_of (ABI 1.1): override tessera::sdk::MemoryModel::channel_of");
  auto stats = m.channel_stats(2);
  ASSERT_FALSE(stats);
  EXPECT_EQ(stats.error().code, StatusCode::unimplemented);
  EXPECT_EQ(stats.error().message,
            "plugin 'sdk_defaults': memory_model.get_channel_stats: this memory model of 3 "
            "channels does not implement channel_stats (ABI 1.1): override "
            "tessera::sdk::MemoryModel::channel_stats");
}

TEST(SdkDefaults, MemsimRunsOneChannel) {
  PluginSet plugins(Registry::discover({}));
  memsim::MemsimOptions o;
  o.target = plugin_file("sdk_defaults");
  o.generator = "random";
  o.write_fraction = 0.5;
  o.cycles = 1000;
  MemoryRunReport r = memsim::run_memsim(plugins, o);
  // What the model does not say, memsim says for it.
  EXPECT_EQ(r.config, "(not reported by the model)");
  EXPECT_EQ(r.device, "sdk_defaults 1.0.0: test: a memory model without the ABI 1.1 overrides");
  ASSERT_EQ(r.channels.size(), 1u);
  const tessera_memory_stats& s = r.channels[0].stats;
  // A queue of 8 and 20 cycles: 8 requests at cycles 0, 20, .. 980, the last done at 1000.
  EXPECT_EQ(r.accepted, 400u);
  EXPECT_EQ(s.reads + s.writes, 400u);
  EXPECT_EQ(r.channels[0].read_latency.count(), s.reads);
  EXPECT_EQ(r.channels[0].read_latency.max(), 20u);
  EXPECT_NEAR(static_cast<double>(s.writes) / (s.reads + s.writes), 0.5, 0.1);
}

TEST(SdkDefaults, MemsimRefusesAModelWithoutChannels) {
  MemoryModel m = create_memory_model(load("sdk_defaults"), {{{"channels", "0"}}, ""}).take();
  memsim::StreamSource source(1 << 20, 64, 1, 0.0, 0.0, 1);
  try {
    memsim::drive_model(m, source, 100);
    FAIL() << "memsim ran a model of 0 channels";
  } catch (const Failure& f) {
    EXPECT_EQ(f.error().kind, ErrorKind::plugin);
    EXPECT_EQ(f.error().message,
              "plugin 'sdk_defaults': memory_model.get_info cannot be simulated: 0 channels "
              "(memsim reports 1 to 1048576)");
  }
}

// ABI 1.2's dtype (bfp8) is never sent to a plugin built for 1.0 or 1.1: the host refuses with the
// target, its ABI version and the dtypes it accepts; a 1.1 topology is not even asked its FLOP/s.
TEST(Abi12Dtypes, OlderPluginsAreNeverSentBfp8) {
  for (const char* name : {"memory_1_0", "memory_claims_1_1"}) {
    auto library = load(name);
    EXPECT_EQ(abi_dtype_count(*library), 7u) << name;
    EXPECT_TRUE(check_abi_dtype(*library, TESSERA_DTYPE_FP8).ok()) << name;
    Status s = check_abi_dtype(*library, TESSERA_DTYPE_BFP8);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_EQ(s.error().kind, ErrorKind::usage);
    EXPECT_EQ(s.error().message,
              "target '" + std::string(name) + "' is built for plugin ABI 1." +
                  std::to_string(library->descriptor().abi_minor) +
                  ", which has no bfp8 (new in ABI 1.2); it accepts: fp32, fp16, bf16, fp8, int8, "
                  "int32, fp64 (rebuild the plugin against TesseraSDK 1.2 or later)");
  }
  auto current = load("sdk_defaults");
  EXPECT_EQ(abi_dtype_count(*current), uint32_t{TESSERA_DTYPE_COUNT});
  EXPECT_TRUE(check_abi_dtype(*current, TESSERA_DTYPE_BFP8).ok());
  EXPECT_STREQ(dtype_name(TESSERA_DTYPE_BFP8), "bfp8");
}

// ABI 1.5's dtypes (bfp4, bfp2) likewise never reach a plugin built before 1.5; one built for 1.5
// knows all ten.
TEST(Abi15Dtypes, OlderPluginsAreNeverSentBfp4OrBfp2) {
  for (const char* name : {"memory_1_0", "memory_claims_1_1"}) {
    auto library = load(name);
    for (uint32_t dtype : {uint32_t{TESSERA_DTYPE_BFP4}, uint32_t{TESSERA_DTYPE_BFP2}}) {
      Status s = check_abi_dtype(*library, dtype);
      ASSERT_FALSE(s.ok()) << name;
      EXPECT_EQ(s.error().message,
                "target '" + std::string(name) + "' is built for plugin ABI 1." +
                    std::to_string(library->descriptor().abi_minor) + ", which has no " +
                    dtype_name(dtype) +
                    " (new in ABI 1.5); it accepts: fp32, fp16, bf16, fp8, int8, int32, fp64 "
                    "(rebuild the plugin against TesseraSDK 1.5 or later)");
    }
  }
  EXPECT_EQ(TESSERA_DTYPE_COUNT_FOR_MINOR(4u), 8u) << "a 1.4 plugin knows bfp8 but not bfp4";
  auto current = load("sdk_defaults");
  EXPECT_EQ(abi_dtype_count(*current), 10u);
  EXPECT_TRUE(check_abi_dtype(*current, TESSERA_DTYPE_BFP4).ok());
  EXPECT_STREQ(dtype_name(TESSERA_DTYPE_BFP4), "bfp4");
  EXPECT_STREQ(dtype_name(TESSERA_DTYPE_BFP2), "bfp2");
}

}  // namespace
}  // namespace tessera
