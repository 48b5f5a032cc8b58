// Host-side handles to plugin objects: each keeps its library loaded, releases its object exactly
// once, and turns the C vtable into guarded C++ calls that return Result.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <tessera/sdk/traffic.hpp>
#include <utility>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/plugin/interface.hpp"
#include "framework/plugin/library.hpp"

namespace tessera {

// True when `object` (a vtable starting with struct_size) has a non-NULL slot `field`.
#define TESSERA_HAS_SLOT(object, Type, field) \
  ((object)->struct_size >= offsetof(Type, field) + sizeof((object)->field) && (object)->field)

// The size of each vtable or struct in ABI 1.0: what a plugin built for 1.0 puts in struct_size,
// and the least any 1.x object has. One that grew since ends, in 1.0, where its first later
// member begins (tests/abi/abi_1_1.h).
template <class CApi>
inline constexpr size_t kAbi10Size = sizeof(CApi);
template <>
inline constexpr size_t kAbi10Size<tessera_memory_model> = offsetof(tessera_memory_model,
                                                                    channel_of);
template <>
inline constexpr size_t kAbi10Size<tessera_memory_info> = offsetof(tessera_memory_info,
                                                                   description);

template <class CApi>
class PluginObject {
 public:
  PluginObject(std::shared_ptr<const PluginLibrary> library, CApi* object)
      : library_(std::move(library)), object_(object) {}
  PluginObject(PluginObject&& other) noexcept
      : library_(std::move(other.library_)), object_(std::exchange(other.object_, nullptr)) {}
  PluginObject& operator=(PluginObject&& other) noexcept {
    if (this != &other) {
      reset();
      library_ = std::move(other.library_);
      object_ = std::exchange(other.object_, nullptr);
    }
    return *this;
  }
  PluginObject(const PluginObject&) = delete;
  PluginObject& operator=(const PluginObject&) = delete;
  ~PluginObject() { reset(); }

  CApi* raw() const { return object_; }
  const PluginLibrary& library() const { return *library_; }
  const std::shared_ptr<const PluginLibrary>& library_ptr() const { return library_; }

 protected:
  template <class Call>
  Status call(std::string_view what, Call&& c) const {
    return library_->call(what, std::forward<Call>(c));
  }

 private:
  void reset() {
    // The object is released while library_ still holds the library: release() is plugin code.
    if (object_ != nullptr && object_->release != nullptr) {
      CApi* object = std::exchange(object_, nullptr);
      (void)library_->call("release", [&]() -> tessera_status* {
        object->release(object);
        return nullptr;
      });
    }
  }

  // Declared before object_, so it is destroyed after it (members die in reverse order).
  std::shared_ptr<const PluginLibrary> library_;
  CApi* object_ = nullptr;
};

// The C++ view of Topology answers; strings copied out of the plugin.
struct TopologyInfo {
  std::string name;
  uint32_t num_cores = 0, num_endpoints = 0, num_links = 0, num_chips = 0, num_levels = 0;
  uint64_t sram_bytes_per_core = 0;
  double sram_bytes_per_s = 0, clock_hz = 0;
};
struct Endpoint {
  uint32_t index = 0;
  tessera_endpoint_kind kind = TESSERA_ENDPOINT_CORE;
  uint32_t chip = 0;
  int32_t x = -1, y = -1;
  uint32_t level = 0, parent = UINT32_MAX;
  uint64_t memory_bytes = 0;
  std::string name;
  // A memory controller's own rate, all its links together (ABI 1.5); 0: not known (a plugin
  // built for 1.0 to 1.4, or a topology that does not say), its links alone bound it.
  double bytes_per_s = 0;
};
struct Link {
  uint32_t index = 0, src = 0, dst = 0;
  tessera_link_class link_class = TESSERA_LINK_ON_CHIP;
  uint32_t network = 0;
  double bytes_per_s = 0, latency_s = 0;
};
struct Level {
  std::string name;
  uint32_t fanout = 0, nodes = 0;
  uint64_t memory_bytes = 0;
  double down_bytes_per_s = 0, up_bytes_per_s = 0;
};

const char* to_string(tessera_endpoint_kind kind);
const char* to_string(tessera_link_class link_class);
const char* dtype_name(uint32_t dtype);
// The tessera_dtypes a plugin's ABI version has: 0 .. this - 1 (7 for 1.0 and 1.1, 8 since 1.2).
uint32_t abi_dtype_count(const PluginLibrary& library);
// A usage error when `dtype` is a tessera_dtype newer than the plugin's ABI version (naming the
// target, its ABI version and the dtypes it accepts); the host never sends such a dtype.
Status check_abi_dtype(const PluginLibrary& library, uint32_t dtype);

class Topology : public PluginObject<tessera_topology> {
 public:
  using PluginObject::PluginObject;
  Result<TopologyInfo> info() const;
  Result<double> peak_flops_per_s(uint32_t dtype) const;
  Result<Endpoint> endpoint(uint32_t index) const;
  Result<Link> link(uint32_t index) const;
  Result<std::vector<uint32_t>> route(uint32_t src, uint32_t dst) const;
  Result<Level> level(uint32_t index) const;
};

struct CostModelInfo {
  double sync_s = 0, clock_hz = 0, shift_bytes_per_s = 0;
  // Per op (ABI 1.5; 0 from a plugin built before it, whose struct ends before them).
  double dispatch_host_s = 0, dispatch_traced_s = 0, launch_s = 0;
};

// What the planner asks of a core: the time of each tile (tessera_tile_query, one core, one
// step), batched. The plugin's CostModel answers it, or the framework's mapper on the chip's core
// hierarchy (chip/core_cost.hpp). A tile the core cannot run gets +infinity, not an error.
class TileCost {
 public:
  virtual ~TileCost() = default;
  virtual Result<std::vector<double>> tile_seconds(
      const std::vector<tessera_tile_query>& queries) const = 0;
  // The plugin cost model this one stands in for, whose times a plugin Partitioner's plans carry
  // (they are re-timed by the ratio of the two); nullptr when this is the plugin's own.
  virtual const TileCost* replaced() const { return nullptr; }
};

class CostModel : public PluginObject<tessera_cost_model>, public TileCost {
 public:
  using PluginObject::PluginObject;
  Result<CostModelInfo> info() const;
  // One call for the whole batch: the boundary costs nothing per query.
  Result<std::vector<double>> tile_seconds(
      const std::vector<tessera_tile_query>& queries) const override;
  Result<std::vector<double>> transfer_seconds(
      const std::vector<tessera_transfer_query>& queries) const;
};

using Partitioner = PluginObject<tessera_partitioner>;
// A layout a LayoutMapper parsed, released through that mapper's release_layout. It must not
// outlive the LayoutMapper that made it (it keeps the library loaded, not the mapper).
class Layout {
 public:
  Layout(std::shared_ptr<const PluginLibrary> library, const tessera_layout_mapper* mapper,
         tessera_layout* layout, uint32_t rank)
      : library_(std::move(library)), mapper_(mapper), layout_(layout), rank_(rank) {}
  Layout(Layout&& other) noexcept
      : library_(std::move(other.library_)),
        mapper_(other.mapper_),
        layout_(std::exchange(other.layout_, nullptr)),
        rank_(other.rank_) {}
  Layout& operator=(Layout&& other) noexcept;
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
  ~Layout() { reset(); }

  const tessera_layout* raw() const { return layout_; }
  uint32_t rank() const { return rank_; }

 private:
  void reset();
  std::shared_ptr<const PluginLibrary> library_;
  const tessera_layout_mapper* mapper_ = nullptr;
  tessera_layout* layout_ = nullptr;
  uint32_t rank_ = 0;
};

// Layout descriptions: parse, print, and map between tensor indices and places on the chip.
// Errors the plugin reports about the user's text or indices (invalid argument, not found,
// resource exhausted) are input errors; its message starts with "column N:" for a bad text.
class LayoutMapper : public PluginObject<tessera_layout_mapper> {
 public:
  using PluginObject::PluginObject;
  Result<Layout> parse(const std::string& text, const std::vector<uint64_t>& shape) const;
  Result<std::string> format(const Layout& layout) const;
  // `indices` holds count x rank values, row-major; one location per index.
  Result<std::vector<tessera_location>> locate(const Layout& layout,
                                               const std::vector<uint64_t>& indices) const;
  // count x rank index values for the locations.
  Result<std::vector<uint64_t>> inverse(const Layout& layout,
                                        const std::vector<tessera_location>& locations) const;
};
using CodeGen = PluginObject<tessera_codegen>;

// What a MemoryModel says about itself; cycles are in its own clock.
struct MemoryInfo {
  double clock_hz = 0, peak_bytes_per_s = 0;
  uint32_t channels = 0, burst_bytes = 0;
  uint64_t capacity_bytes = 0;
  // ABI 1.1; empty when the model does not say (or is built for 1.0).
  std::string description;  // one line: what is simulated
  std::string source;       // where its configuration came from
};
// The fast mode's answer: bandwidth and mean latency of long sequential streams.
struct MemorySustained {
  double bytes_per_s = 0, latency_s = 0;
};

// Off-chip memory timing, driven cycle by cycle (not thread-safe: one caller per object).
class MemoryModel : public PluginObject<tessera_memory_model> {
 public:
  using PluginObject::PluginObject;
  Result<MemoryInfo> info() const;
  // Offers `count` requests at the current cycle; how many (a prefix) were queued.
  Result<size_t> submit(const tessera_memory_request* requests, size_t count);
  // Simulates `cycles` cycles; `done` hears of every request finished in them, during the call.
  // An exception thrown by `done` stops the reporting and is rethrown once the plugin returns.
  Status advance(uint64_t cycles,
                 const std::function<void(const tessera_memory_completion&)>& done);
  Result<tessera_memory_stats> stats() const;
  Result<MemorySustained> sustained(uint32_t streams);
  // ABI 1.1: the channel that serves `address` (the plugin's answer: the caller checks it against
  // info().channels before indexing with it), and what one channel counted. An object without
  // the method (a plugin built for 1.0) gives an UNIMPLEMENTED plugin error that says so.
  Result<uint32_t> channel_of(uint64_t address) const;
  Result<tessera_memory_stats> channel_stats(uint32_t channel) const;
  // ABI 1.4's offer (plugin_abi.h): `count` requests offered in order, each from its offer cycle
  // (counted from the current one, at least `spacing` after the previous acceptance) and again
  // every cycle until accepted, none after `last_cycle`; `done` hears of completions as in
  // advance, `channels` (may be null) receives each accepted request's channel. A plugin built
  // before 1.4 gets the same front end (sdk::offer_requests) run here over its submit, advance and
  // channel_of. `progress` says how far it got, also on an error.
  Status offer(const tessera_memory_request* requests, const uint64_t* offer_cycles, size_t count,
               uint64_t spacing, uint64_t last_cycle,
               const std::function<void(const tessera_memory_completion&)>& done,
               uint32_t* channels, sdk::OfferProgress& progress);

 private:
  // OK when the plugin reports ABI 1.1 or later (rule 4) and the object has a non-NULL `slot`
  // (rule 3, `has_slot`); otherwise the UNIMPLEMENTED error naming `method`.
  Status require_1_1(const char* method, bool has_slot) const;
  Status offer_by_steps(const tessera_memory_request* requests, const uint64_t* offer_cycles,
                        size_t count, uint64_t spacing, uint64_t last_cycle,
                        const std::function<void(const tessera_memory_completion&)>& done,
                        uint32_t* channels, sdk::OfferProgress& progress);
};

// Constructs one object of `library`'s interface I from `params`. Errors: the plugin does not
// provide the interface; the constructor failed (its message, usually naming a parameter).
Result<Topology> create_topology(std::shared_ptr<const PluginLibrary> library,
                                 const ParamList& params);
Result<CostModel> create_cost_model(std::shared_ptr<const PluginLibrary> library,
                                    const ParamList& params);
Result<Partitioner> create_partitioner(std::shared_ptr<const PluginLibrary> library,
                                       const ParamList& params);
Result<LayoutMapper> create_layout_mapper(std::shared_ptr<const PluginLibrary> library,
                                          const ParamList& params);
Result<CodeGen> create_codegen(std::shared_ptr<const PluginLibrary> library,
                               const ParamList& params);
Result<MemoryModel> create_memory_model(std::shared_ptr<const PluginLibrary> library,
                                        const ParamList& params);

}  // namespace tessera
