// A memory model built with today's SDK that overrides none of the ABI 1.1 methods: the SDK's
// defaults answer for it (right for one channel, UNIMPLEMENTED for more) and its info has no
// description or source. The model is FixedLatencyMemory.
#include <tessera/sdk/plugin.hpp>

#include "fixed_latency.hpp"

namespace {

class Model : public tessera::sdk::MemoryModel {
 public:
  explicit Model(const tessera::sdk::Params& p) : memory_(p) {}
  tessera_memory_info info() const override { return memory_.info(); }
  size_t submit(const tessera_memory_request* requests, size_t count) override {
    return memory_.submit(requests, count);
  }
  void advance(uint64_t cycles,
               const std::function<void(const tessera_memory_completion&)>& done) override {
    memory_.advance(cycles, done);
  }
  tessera_memory_stats stats() const override { return memory_.stats(); }
  std::pair<double, double> sustained(uint32_t) override { return memory_.sustained(); }

 private:
  tessera::abi_test::FixedLatencyMemory memory_;
};

}  // namespace

TESSERA_DEFINE_PLUGIN("sdk_defaults", "1.0.0", "test: a memory model without the ABI 1.1 overrides",
                      tessera::sdk::provides_memory_model<Model>)
