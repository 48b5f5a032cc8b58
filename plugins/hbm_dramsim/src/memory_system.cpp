#include "memory_system.hpp"

#include <algorithm>
#include <bit>
#include <sstream>
#include <tessera/sdk/error.hpp>

namespace tessera::hbm {

namespace {

// Every bank is simulated; this bounds the memory of one system to a few hundred megabytes.
constexpr size_t kMaxSystemBanks = size_t{1} << 20;

}  // namespace

MemorySystem::MemorySystem(std::shared_ptr<const Device> device, uint32_t stacks,
                           std::optional<uint32_t> only_channel)
    : device_(std::move(device)), map_(device_->config, stacks), only_channel_(only_channel) {
  if (only_channel && *only_channel >= map_.total_channels())
    throw sdk::invalid_argument("channel " + std::to_string(*only_channel) +
                                " does not exist: this system has " +
                                std::to_string(map_.total_channels()) + " channels (0.." +
                                std::to_string(map_.total_channels() - 1) + ")");
  const size_t count = only_channel ? 1 : map_.total_channels();
  const DramConfig& c = device_->config;
  if (count * c.ranks * c.banks > kMaxSystemBanks)
    throw sdk::invalid_argument(
        std::to_string(stacks) + " stacks of " + std::to_string(c.channels) + " channels x " +
        std::to_string(c.ranks * c.banks) + " banks are too many to simulate (at most " +
        std::to_string(kMaxSystemBanks) + " banks)");
  channels_.reserve(count);
  for (size_t i = 0; i < count; ++i)
    channels_.emplace_back(device_->config, device_->timing, device_->energy);
  next_event_.assign(count, 0);
}

uint64_t MemorySystem::next_event_of(const Channel& channel) {
  return std::min(channel.wake(), channel.next_completion());
}

std::string MemorySystem::foreign_address(uint64_t address, uint32_t channel) const {
  std::ostringstream message;
  message << "address 0x" << std::hex << address << std::dec << " maps to channel " << channel
          << ", but this memory model is channel " << *only_channel_ << " only";
  return message.str();
}

void MemorySystem::check_address(uint64_t id, uint64_t address) const {
  if (!only_channel_) return;
  const uint32_t channel = map_.channel_of(address);
  if (channel != *only_channel_)
    throw sdk::invalid_argument("request " + std::to_string(id) + ": " +
                                foreign_address(address, channel));
}

uint32_t MemorySystem::channel_index(uint64_t address) const {
  const uint32_t channel = map_.channel_of(address);
  if (!only_channel_) return channel;
  if (channel != *only_channel_) throw sdk::invalid_argument(foreign_address(address, channel));
  return 0;
}

bool MemorySystem::submit(uint64_t id, uint64_t address, bool is_write) {
  check_address(id, address);
  const Location at = map_.locate(address);
  const size_t index = only_channel_ ? 0 : at.channel;
  const DramConfig& c = device_->config;
  Transaction t;
  t.id = id;
  t.line = at.line;
  t.arrival = now_;
  t.bank = (at.rank * c.bankgroups + at.bankgroup) * c.banks_per_group + at.bank;
  t.row = at.row;
  t.is_write = is_write;
  const bool accepted = channels_[index].accept(t, now_);
  next_event_[index] = next_event_of(channels_[index]);
  return accepted;
}

void MemorySystem::advance(uint64_t cycles, const CompletionSink& done) {
  if (cycles >= kNever - now_)
    throw sdk::invalid_argument("advance by " + std::to_string(cycles) + " cycles from cycle " +
                                std::to_string(now_) + " overflows the cycle counter");
  const uint64_t end = now_ + cycles;
  const size_t n = channels_.size();
  for (uint64_t t = now_; t < end;) {
    // The channels with something to do at t, 64 at a time as a bit set, without a branch per
    // channel (which of them are due varies from cycle to cycle). The others are left alone: tick
    // and deliver would do nothing.
    for (size_t base = 0; base < n; base += 64) {
      uint64_t due = 0;
      for (size_t i = base; i < std::min(n, base + 64); ++i)
        due |= uint64_t{next_event_[i] <= t} << (i - base);
      for (; due != 0; due &= due - 1) {
        const size_t i = base + static_cast<size_t>(std::countr_zero(due));
        channels_[i].tick(t);
        if (channels_[i].next_completion() <= t) channels_[i].deliver(t, done);
        next_event_[i] = next_event_of(channels_[i]);
      }
    }
    // memsim advances one cycle at a time while it offers requests: nothing to look for then.
    if (t + 1 >= end) break;
    // Nothing happens anywhere before the next event: skip the idle cycles.
    const uint64_t next = *std::min_element(next_event_.begin(), next_event_.end());
    t = std::max(t + 1, std::min(next, end));
  }
  now_ = end;
}

tessera_memory_info MemorySystem::info() const {
  const DramConfig& c = device_->config;
  tessera_memory_info info{};
  info.struct_size = sizeof(info);
  info.clock_hz = c.clock_hz();
  info.channels = static_cast<uint32_t>(channels_.size());
  info.peak_bytes_per_s = c.channel_peak_bytes_per_s() * info.channels;
  info.burst_bytes = c.request_bytes;
  info.capacity_bytes = only_channel_ ? c.channel_bytes : map_.capacity_bytes();
  return info;
}

std::vector<ChannelStats> MemorySystem::channel_stats() const {
  std::vector<ChannelStats> out;
  out.reserve(channels_.size());
  for (size_t i = 0; i < channels_.size(); ++i) out.push_back(channel_stats(i));
  return out;
}

ChannelStats MemorySystem::total() const {
  ChannelStats sum;
  for (const ChannelStats& s : channel_stats()) sum += s;
  sum.cycles = now_;
  return sum;
}

uint64_t run_traffic(MemorySystem& system, TrafficSource& source, uint64_t cycles,
                     const CompletionSink& done,
                     const std::function<void(uint64_t, const TrafficRequest&)>& accepted) {
  const uint64_t start = system.now();
  uint64_t id = 0;
  sdk::drive_requests(source, cycles, [&](const TrafficRequest& r, uint64_t cycle) {
    if (start + cycle > system.now()) system.advance(start + cycle - system.now(), done);
    if (!system.submit(id, r.address, r.is_write)) return false;
    if (accepted) accepted(id, r);
    ++id;
    return true;
  });
  if (start + cycles > system.now()) system.advance(start + cycles - system.now(), done);
  return id;
}

}  // namespace tessera::hbm
