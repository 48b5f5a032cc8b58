#include "hbm_model.hpp"

#include <tessera/sdk/error.hpp>

#include "config_files.hpp"
#include "sustained.hpp"

namespace tessera::hbm {

namespace {

// A bound that keeps the fast mode's bookkeeping small; far beyond any preload schedule.
constexpr uint32_t kMaxStreams = 4096;

std::shared_ptr<const Device> load_device(const sdk::Params& params) {
  const bool strict = params.get_bool("strict", false);
  std::string text = kBuiltinConfigText;
  std::string source = std::string("built-in ") + kBuiltinConfigName;
  if (auto name = params.find("config")) {
    auto file = find_config(*name, params.base_dir());
    text = read_text_file(file);
    source = file.string();
  }
  LoadedConfig loaded = load_dram_config(text, source, strict);
  for (const auto& warning : loaded.warnings) sdk::log(TESSERA_LOG_WARN, warning);
  return std::make_shared<const Device>(std::move(loaded.config));
}

}  // namespace

HbmModel::HbmModel(const sdk::Params& params)
    : device_(load_device(params)), description_(device_->config.describe()) {
  stacks_ = static_cast<uint32_t>(params.get_int("stacks", 1, 1, 1024));
  seed_ = static_cast<uint64_t>(params.get_int("seed", 1, 0));
  std::optional<uint32_t> channel;
  if (params.has("channel"))
    channel = static_cast<uint32_t>(params.get_int("channel", 0, 0, UINT32_MAX));
  slice_ = channel.has_value();
  system_ = std::make_unique<MemorySystem>(device_, stacks_, channel);
}

tessera_memory_info HbmModel::info() const {
  tessera_memory_info info = system_->info();
  info.description = description_.c_str();
  info.source = device_->config.source.c_str();
  return info;
}

size_t HbmModel::submit(const tessera_memory_request* requests, size_t count) {
  // All or nothing on a bad address: nothing is queued when the call fails.
  for (size_t i = 0; i < count; ++i) system_->check_address(requests[i].id, requests[i].address);
  for (size_t i = 0; i < count; ++i)
    if (!system_->submit(requests[i].id, requests[i].address, requests[i].is_write != 0)) return i;
  return count;
}

void HbmModel::advance(uint64_t cycles,
                       const std::function<void(const tessera_memory_completion&)>& done) {
  system_->advance(cycles, done);
}

tessera_memory_stats HbmModel::stats() const {
  return to_abi_stats(system_->total(), device_->config);
}

uint32_t HbmModel::channel_of(uint64_t address) const {
  return system_->channel_index(address);
}

void HbmModel::offer(const tessera_memory_request* requests, const uint64_t* offer_cycles,
                     size_t count, uint64_t spacing, uint64_t last_cycle,
                     const std::function<void(const tessera_memory_completion&)>& done,
                     uint32_t* channels, sdk::OfferProgress& progress) {
  MemorySystem& system = *system_;
  sdk::offer_requests(
      requests, offer_cycles, count, spacing, last_cycle, channels, progress,
      [&](const tessera_memory_request& r) {
        return system.submit(r.id, r.address, r.is_write != 0);
      },
      [&](uint64_t cycles) { system.advance(cycles, done); },
      [&](uint64_t address) { return system.channel_index(address); });
}

tessera_memory_stats HbmModel::channel_stats(uint32_t channel) const {
  return to_abi_stats(system_->channel_stats(channel), device_->config);
}

std::pair<double, double> HbmModel::sustained(uint32_t streams) {
  if (streams > kMaxStreams)
    throw sdk::invalid_argument("streams must be at most " + std::to_string(kMaxStreams) +
                                ", got " + std::to_string(streams));
  SustainedRate rate = cached_sustained(device_, streams, seed_);
  // Stacks interleave evenly, so each adds one device's bandwidth; a slice is one channel's share.
  double bytes_per_s =
      slice_ ? rate.bytes_per_s / device_->config.channels : rate.bytes_per_s * stacks_;
  return {bytes_per_s, rate.latency_s};
}

tessera_memory_stats to_abi_stats(const ChannelStats& total, const DramConfig& config) {
  tessera_memory_stats s{};
  s.struct_size = sizeof(s);
  s.cycles = total.cycles;
  s.reads = total.reads_done;
  s.writes = total.writes_done;
  s.row_hits = total.row_hits();
  s.row_misses = total.column_cmds() - total.row_hits();
  s.activates = total.activates;
  s.refreshes = total.refreshes + total.bank_refreshes;
  const double seconds = static_cast<double>(total.cycles) * config.keys.tCK * 1e-9;
  s.bytes_per_s = seconds > 0 ? static_cast<double>(total.reads_done + total.writes_done) *
                                    config.request_bytes / seconds
                              : 0.0;
  s.avg_read_latency_cycles = total.avg_read_latency_cycles();
  s.energy_j = total.energy_pj() * 1e-12;
  return s;
}

}  // namespace tessera::hbm
