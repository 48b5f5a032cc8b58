// The six plugin interfaces as C++ abstract classes. A plugin implements the ones it provides and
// names them in TESSERA_DEFINE_PLUGIN (<tessera/sdk/plugin.hpp>); the SDK's trampolines validate
// arguments (NULL pointers, indices out of range) before calling these, so implementations may
// assume valid input. Throw tessera::sdk::Error for anything else; it becomes a status.
//
// Each implementation class is constructed from `const Params&` (the chip file's section for the
// interface); a parameter it never reads is reported to the user as unknown.
//
// Value types are the C structs of <tessera/plugin_abi.h>; `struct_size` fields are filled by the
// SDK, so implementations leave them alone. Strings returned (names) must stay valid for the life
// of the object. Thread-safety follows the ABI: const methods may be called concurrently.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/params.hpp>
#include <tessera/sdk/traffic.hpp>
#include <utility>
#include <vector>

namespace tessera::sdk {

class Topology {
 public:
  virtual ~Topology() = default;
  virtual tessera_topology_info info() const = 0;
  // FLOP/s of one core; 0 when the core cannot compute in `dtype`.
  virtual double peak_flops_per_s(tessera_dtype dtype) const = 0;
  virtual tessera_endpoint endpoint(uint32_t index) const = 0;  // index < info().num_endpoints
  virtual tessera_link link(uint32_t index) const = 0;          // index < info().num_links
  // Appends to `links` (empty on entry) the links from src to dst, both < num_endpoints.
  virtual void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const = 0;
  // index < info().num_levels
  virtual tessera_level level(uint32_t index) const {
    throw invalid_argument("level " + std::to_string(index) + ": this chip has no hierarchy");
  }
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual tessera_cost_model_info info() const = 0;
  virtual double tile_seconds(const tessera_tile_query& query) const = 0;
  virtual double transfer_seconds(const tessera_transfer_query& query) const = 0;
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  // Calls `emit` for every plan; `emit` returns false when the host wants no more.
  virtual void plans(const tessera_op_desc& op,
                     const std::function<bool(const tessera_partition_plan&)>& emit) const = 0;
};

// A parsed layout. Subclass it; the mapper hands ownership to the host as an opaque handle.
class Layout {
 public:
  virtual ~Layout() = default;
};

class LayoutMapper {
 public:
  virtual ~LayoutMapper() = default;
  // Throw an INVALID_ARGUMENT Error whose message starts with "column N:" for a malformed text.
  virtual std::unique_ptr<Layout> parse(const std::string& text,
                                        const std::vector<uint64_t>& shape) const = 0;
  virtual std::string format(const Layout& layout) const = 0;
  virtual tessera_location locate(const Layout& layout, const uint64_t* index) const = 0;
  virtual void inverse(const Layout& layout, const tessera_location& location,
                       uint64_t* index) const = 0;
  virtual uint32_t rank(const Layout& layout) const = 0;
};

class CodeGen {
 public:
  virtual ~CodeGen() = default;
  // Calls `write(relative_path, contents)` for every generated file.
  virtual void emit(const tessera_program& program,
                    const std::function<bool(const std::string&, const std::string&)>& write) = 0;
};

// The whole memory system, all channels, in one object. The SDK builds every MemoryModel as an
// ABI 1.1 object: the two 1.1 methods below have defaults, so a model written for 1.0 still
// compiles, and the answers of the defaults are right for a model of one channel; a model of
// several channels overrides both (else the host hears UNIMPLEMENTED, and `tessera memsim` says
// the model gives no per-channel statistics).
class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // `description` and `source` (ABI 1.1) may point at strings the object owns, or stay NULL.
  virtual tessera_memory_info info() const = 0;
  // Queues a prefix of `requests`; returns how many were taken.
  virtual size_t submit(const tessera_memory_request* requests, size_t count) = 0;
  virtual void advance(uint64_t cycles,
                       const std::function<void(const tessera_memory_completion&)>& done) = 0;
  virtual tessera_memory_stats stats() const = 0;
  // Sustained bytes/s and mean latency (s) of `streams` interleaved sequential read streams.
  virtual std::pair<double, double> sustained(uint32_t streams) = 0;

  // ABI 1.1: the channel (< info().channels) that serves `address`, as submit routes it.
  virtual uint32_t channel_of(uint64_t address) const {
    (void)address;
    require_one_channel("channel_of");
    return 0;
  }
  // ABI 1.1: what `channel` (< info().channels, checked by the SDK) counted alone; stats() is the
  // sum over channels as plugin_abi.h defines it.
  virtual tessera_memory_stats channel_stats(uint32_t channel) const {
    (void)channel;
    require_one_channel("channel_stats");
    return stats();
  }
  // ABI 1.4: plugin_abi.h's offer, `progress` kept current (the SDK reports it even when this
  // throws); `channels` may be null. The default runs the front end (offer_requests,
  // <tessera/sdk/traffic.hpp>) over this object's own submit, advance and channel_of, which already
  // spares the host its per-cycle calls; override it only to do exactly the same faster.
  virtual void offer(const tessera_memory_request* requests, const uint64_t* offer_cycles,
                     size_t count, uint64_t spacing, uint64_t last_cycle,
                     const std::function<void(const tessera_memory_completion&)>& done,
                     uint32_t* channels, OfferProgress& progress) {
    offer_requests(
        requests, offer_cycles, count, spacing, last_cycle, channels, progress,
        [&](const tessera_memory_request& r) { return submit(&r, 1) == 1; },
        [&](uint64_t cycles) { advance(cycles, done); },
        [&](uint64_t address) { return channel_of(address); });
  }

 private:
  void require_one_channel(const char* method) const {
    if (info().channels != 1)
      throw Error(TESSERA_UNIMPLEMENTED,
                  std::string("this memory model of ") + std::to_string(info().channels) +
                      " channels does not implement " + method +
                      " (ABI 1.1): override tessera::sdk::MemoryModel::" + method);
  }
};

}  // namespace tessera::sdk
