#include "address_map.hpp"

#include <bit>
#include <tessera/sdk/error.hpp>

namespace tessera::hbm {

namespace {

uint32_t field(uint64_t value, int pos, int bits) {
  return static_cast<uint32_t>((value >> pos) & ((uint64_t{1} << bits) - 1));
}

}  // namespace

AddressMap::AddressMap(const DramConfig& config, uint32_t stacks)
    : f_(config.fields),
      stacks_(stacks),
      channels_(config.channels),
      request_bytes_(config.request_bytes),
      unit_bytes_(uint64_t{config.request_bytes} << config.fields.ch_pos),
      stack_bytes_(config.channel_bytes * config.channels) {
  if (stacks == 0) throw sdk::invalid_argument("stacks must be at least 1");
  if (std::has_single_bit(request_bytes_)) request_shift_ = std::countr_zero(request_bytes_);
  if (__builtin_mul_overflow(stack_bytes_, uint64_t{stacks}, &capacity_bytes_) ||
      capacity_bytes_ > (uint64_t{1} << 62))
    throw sdk::invalid_argument(std::to_string(stacks) + " stacks of " +
                                std::to_string(stack_bytes_ >> 20) +
                                " MiB exceed the 2^62-byte address space");
}

// The address within its stack (wrapped at the capacity), shifted past the request offset.
uint64_t AddressMap::in_stack(uint64_t address, uint32_t& stack) const {
  // Every request passes here twice (channel_of, submit): the divisions by the request and unit
  // sizes, powers of two on every device in practice, are shifts then, and a single stack
  // interleaves nothing.
  if (address >= capacity_bytes_) address %= capacity_bytes_;
  stack = 0;
  uint64_t local = address;
  if (stacks_ > 1) {
    // Stack interleaving first: unit k goes to stack k % stacks, as unit k / stacks of that stack.
    uint64_t unit = address / unit_bytes_;
    stack = static_cast<uint32_t>(unit % stacks_);
    local = (unit / stacks_) * unit_bytes_ + address % unit_bytes_;
  }
  return local >> f_.shift_bits;
}

uint32_t AddressMap::channel_of(uint64_t address) const {
  uint32_t stack = 0;
  const uint64_t x = in_stack(address, stack);
  return stack * channels_ + field(x, f_.ch_pos, f_.ch_bits);
}

Location AddressMap::locate(uint64_t address) const {
  Location at;
  if (address >= capacity_bytes_) address %= capacity_bytes_;
  at.line = request_shift_ >= 0 ? address >> request_shift_ : address / request_bytes_;
  uint32_t stack = 0;
  const uint64_t x = in_stack(address, stack);
  at.channel = stack * channels_ + field(x, f_.ch_pos, f_.ch_bits);
  at.rank = field(x, f_.ra_pos, f_.ra_bits);
  at.bankgroup = field(x, f_.bg_pos, f_.bg_bits);
  at.bank = field(x, f_.ba_pos, f_.ba_bits);
  // On top, the row takes every remaining bit, so a row count that is not a power of two works.
  at.row = f_.row_on_top ? static_cast<uint32_t>(x >> f_.ro_pos) : field(x, f_.ro_pos, f_.ro_bits);
  at.column = field(x, f_.co_pos, f_.co_bits);
  return at;
}

}  // namespace tessera::hbm
