// Byte address -> (stack, channel, rank, bank group, bank, row, column), DRAMsim3's way within one
// device, with `stacks` identical devices interleaved in front of it.
//
// Within a device the fields of `address_mapping` are taken above the request offset, least
// significant field last in the string (DRAMsim3 src/configuration.cc). Stacks interleave at the
// granularity of one "channel unit" (request bytes << ch_pos): consecutive units go to consecutive
// stacks, so a sequential stream spreads over the stacks exactly as it spreads over channels.
// Addresses wrap at the total capacity, as DRAMsim3's bit masks wrap within one device.
#pragma once

#include <cstdint>

#include "dram_config.hpp"

namespace tessera::hbm {

struct Location {
  uint32_t channel = 0;  // global: stack * channels + channel within the stack
  uint32_t rank = 0, bankgroup = 0, bank = 0;  // bank within its group
  uint32_t row = 0, column = 0;                // column in requests within the row
  uint64_t line = 0;                           // global request index (address / request bytes)
};

class AddressMap {
 public:
  // Throws sdk::Error(INVALID_ARGUMENT) when stacks is 0 or the total capacity exceeds 2^62 B.
  AddressMap(const DramConfig& config, uint32_t stacks);

  Location locate(uint64_t address) const;
  // locate(address).channel, without decoding the rest.
  uint32_t channel_of(uint64_t address) const;
  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint32_t total_channels() const { return stacks_ * channels_; }
  uint32_t stacks() const { return stacks_; }

 private:
  uint64_t in_stack(uint64_t address, uint32_t& stack) const;

  AddressFields f_;
  uint32_t stacks_ = 1, channels_ = 1;
  uint64_t request_bytes_ = 0, unit_bytes_ = 0, stack_bytes_ = 0, capacity_bytes_ = 0;
  int request_shift_ = -1;  // log2(request_bytes_) when a power of two
};

}  // namespace tessera::hbm
