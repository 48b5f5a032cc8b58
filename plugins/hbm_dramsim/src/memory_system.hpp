// A memory system of `stacks` identical DRAM devices (each `channels` channels), cycle by cycle:
// requests in at the current cycle, completions out as simulated time advances. Channels are
// independent controllers; one object may also model a single channel of the system (a "slice",
// for per-channel studies), which then accepts only addresses that map to that channel.
// Not thread-safe; distinct objects are independent.
#pragma once

#include <tessera/plugin_abi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tessera/sdk/traffic.hpp>
#include <vector>

#include "address_map.hpp"
#include "channel.hpp"
#include "dram_config.hpp"
#include "energy.hpp"
#include "timing.hpp"

namespace tessera::hbm {

// One device's description and everything derived from it; immutable, shared by its channels.
struct Device {
  explicit Device(DramConfig c)
      : config(std::move(c)), timing(config), energy(config), canonical(config.canonical()) {}
  DramConfig config;
  Timing timing;
  EnergyModel energy;
  std::string canonical;  // equal for equal devices, whatever file they came from
};

using CompletionSink = std::function<void(const tessera_memory_completion&)>;

class MemorySystem {
 public:
  // Throws sdk::Error(INVALID_ARGUMENT) for 0 stacks, a capacity beyond 2^62 bytes, or
  // `only_channel` >= stacks x channels.
  MemorySystem(std::shared_ptr<const Device> device, uint32_t stacks,
               std::optional<uint32_t> only_channel = std::nullopt);

  uint64_t now() const { return now_; }
  // Queues one request at now(); false when its channel's queue is full. Addresses wrap at the
  // capacity. A slice throws sdk::Error(INVALID_ARGUMENT) for an address of another channel.
  bool submit(uint64_t id, uint64_t address, bool is_write);
  // Throws what submit throws for an address a slice does not model; nothing otherwise.
  void check_address(uint64_t id, uint64_t address) const;
  // The modelled channel (< info().channels) that serves `address`: its global channel, or 0 in
  // a slice, which throws sdk::Error(INVALID_ARGUMENT) for another channel's address.
  uint32_t channel_index(uint64_t address) const;
  // Simulates `cycles` cycles; `done` hears of every request that finishes in them.
  void advance(uint64_t cycles, const CompletionSink& done);

  tessera_memory_info info() const;
  // Modelled channel `index` (< info().channels), up to now().
  ChannelStats channel_stats(size_t index) const { return channels_.at(index).stats(now_); }
  // Per modelled channel, in channel order, up to now().
  std::vector<ChannelStats> channel_stats() const;
  ChannelStats total() const;
  const Device& device() const { return *device_; }
  const AddressMap& address_map() const { return map_; }

 private:
  // "address 0x.. maps to channel N, but this memory model is channel M only" (slices).
  std::string foreign_address(uint64_t address, uint32_t channel) const;
  // The first cycle `channel` can do anything at: its wake or its next completion.
  static uint64_t next_event_of(const Channel& channel);

  std::shared_ptr<const Device> device_;
  AddressMap map_;
  std::optional<uint32_t> only_channel_;
  std::vector<Channel> channels_;
  // next_event_of(channels_[i]), kept up to date by submit and advance, all that change a channel,
  // so that advance visits only the channels with something to do.
  std::vector<uint64_t> next_event_;
  uint64_t now_ = 0;
};

using sdk::TrafficRequest;
using sdk::TrafficSource;

// Feeds `source` to `system` for `cycles` cycles from its current cycle: requests in order, each at
// its cycle (counted from now) or when its channel accepts it (drive_requests), the system advanced
// as needed and to the end. Ids count from 0; `accepted(id, request)` hears of every request
// queued. Returns how many were queued.
uint64_t run_traffic(MemorySystem& system, TrafficSource& source, uint64_t cycles,
                     const CompletionSink& done,
                     const std::function<void(uint64_t, const TrafficRequest&)>& accepted = {});

}  // namespace tessera::hbm
