// The hbm_dramsim MemoryModel: a MemorySystem built from the `memory_model` section of a chip file.
//
// Parameters:
//   config   DRAMsim3 .ini file (found as config_files.hpp says); default: the built-in HBM3E
//            8-high stack (configs/memory/hbm3e_8hi.ini)
//   stacks   identical devices side by side, interleaved (default 1)
//   strict   true: a warning about the .ini (unknown key, unparsable value) is an error
//   seed     where the fast mode's streams start (default 1)
//   channel  model only this channel of the system (0 .. stacks x channels - 1); requests must
//            map to it, and it is channel 0 of this model; absent = every channel
// Warnings about the .ini go to the host's log.
//
// ABI 1.1: channel_of is the address map's channel, per-channel statistics are each controller's
// own counts (stats() is their sum), the description is the device's one line (one stack) and the
// source the .ini as found, or "built-in hbm3e_8hi.ini".
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tessera/sdk/interfaces.hpp>

#include "memory_system.hpp"

namespace tessera::hbm {

class HbmModel : public sdk::MemoryModel {
 public:
  explicit HbmModel(const sdk::Params& params);

  tessera_memory_info info() const override;
  size_t submit(const tessera_memory_request* requests, size_t count) override;
  void advance(uint64_t cycles,
               const std::function<void(const tessera_memory_completion&)>& done) override;
  tessera_memory_stats stats() const override;
  std::pair<double, double> sustained(uint32_t streams) override;
  uint32_t channel_of(uint64_t address) const override;
  // The SDK's front end straight on the memory system: no virtual call per cycle and request.
  void offer(const tessera_memory_request* requests, const uint64_t* offer_cycles, size_t count,
             uint64_t spacing, uint64_t last_cycle,
             const std::function<void(const tessera_memory_completion&)>& done, uint32_t* channels,
             sdk::OfferProgress& progress) override;
  tessera_memory_stats channel_stats(uint32_t channel) const override;

 private:
  std::shared_ptr<const Device> device_;
  std::string description_;  // info().description points here
  std::unique_ptr<MemorySystem> system_;
  uint32_t stacks_ = 1;
  uint64_t seed_ = 1;
  bool slice_ = false;
};

// The ABI's totals for `total`, counted over `total.cycles` cycles of `config`'s clock.
tessera_memory_stats to_abi_stats(const ChannelStats& total, const DramConfig& config);

}  // namespace tessera::hbm
