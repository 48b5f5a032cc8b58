// The hbm_dramsim MemoryModel: a MemorySystem built from the `memory_model` section of a chip file.
//
// Parameters:
//   config   DRAMsim3 .ini file (found as config_files.hpp says); default: the built-in HBM3E
//            8-high stack (configs/memory/hbm3e_8hi.ini)
//   stacks   identical devices side by side, interleaved (default 1)
//   strict   true: a warning about the .ini (unknown key, unparsable value) is an error
//   seed     where the fast mode's streams start (default 1)
//   channel  model only this channel of the system (0 .. stacks x channels - 1); requests must
//            map to it. For per-channel studies (tessera memsim); absent = every channel
// Warnings about the .ini go to the host's log.
#pragma once

#include <memory>
#include <optional>
#include <tessera/sdk/interfaces.hpp>

#include "memory_system.hpp"

namespace tessera::hbm {

class HbmModel : public sdk::MemoryModel {
 public:
  explicit HbmModel(const sdk::Params& params);

  tessera_memory_info info() const override { return system_->info(); }
  size_t submit(const tessera_memory_request* requests, size_t count) override;
  void advance(uint64_t cycles,
               const std::function<void(const tessera_memory_completion&)>& done) override;
  tessera_memory_stats stats() const override;
  std::pair<double, double> sustained(uint32_t streams) override;

 private:
  std::shared_ptr<const Device> device_;
  std::unique_ptr<MemorySystem> system_;
  uint32_t stacks_ = 1;
  uint64_t seed_ = 1;
  bool slice_ = false;
};

// The ABI's totals for `total`, counted over `total.cycles` cycles of `config`'s clock.
tessera_memory_stats to_abi_stats(const ChannelStats& total, const DramConfig& config);

}  // namespace tessera::hbm
