// Turns C++ implementations of <tessera/sdk/interfaces.hpp> into the C ABI.
//
//   #include <tessera/sdk/plugin.hpp>
//   class MyTopology : public tessera::sdk::Topology { public: explicit MyTopology(const
//       tessera::sdk::Params&); ... };
//   TESSERA_DEFINE_PLUGIN("my_chip", "1.0.0", "My chip, all-to-all",
//                         tessera::sdk::provides_topology<MyTopology>)
//
// The macro emits `tessera_plugin_query`, the only exported symbol. Every trampoline is noexcept:
// it validates the C arguments, calls the implementation, and turns any exception into a status.
#pragma once

#include <tessera/plugin_abi.h>

#include <cstring>
#include <memory>
#include <string>
#include <tessera/sdk/error.hpp>
#include <tessera/sdk/interfaces.hpp>
#include <tessera/sdk/params.hpp>
#include <vector>

namespace tessera::sdk::detail {

// A C vtable followed by the C++ object behind it. The vtable must come first: the host holds a
// pointer to it, and the trampolines cast that pointer back to the box.
template <class CApi, class Impl>
struct Box {
  CApi api;
  std::unique_ptr<Impl> impl;
  static const Impl& of(const CApi* self) { return *reinterpret_cast<const Box*>(self)->impl; }
  static Impl& of_mut(CApi* self) { return *reinterpret_cast<Box*>(self)->impl; }
  static void release(CApi* self) noexcept { delete reinterpret_cast<Box*>(self); }
};

template <class Impl>
std::unique_ptr<Impl> construct(const tessera_params* raw, const char* interface_name) {
  require_non_null(raw, "params");
  Params params(*raw);
  auto impl = std::make_unique<Impl>(params);
  params.reject_unknown(interface_name);
  return impl;
}

// ---- Topology ---------------------------------------------------------------------------------

template <class Impl>
struct TopologyTrampolines {
  using B = Box<tessera_topology, Impl>;
  static tessera_topology_info checked_info(const tessera_topology* self) {
    require_non_null(self, "self");
    return B::of(self).info();
  }
  static void check_index(uint32_t index, uint32_t count, const char* what) {
    if (index >= count)
      throw invalid_argument(std::string(what) + " " + std::to_string(index) +
                             " out of range (count " + std::to_string(count) + ")");
  }
  static tessera_status* get_info(const tessera_topology* self,
                                  tessera_topology_info* out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      copy_sized(out, checked_info(self));
    });
  }
  static tessera_status* peak_flops(const tessera_topology* self, uint32_t dtype,
                                    double* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(out, "out");
      check_index(dtype, TESSERA_DTYPE_COUNT_FOR_MINOR(TESSERA_ABI_MINOR), "dtype");
      *out = B::of(self).peak_flops_per_s(static_cast<tessera_dtype>(dtype));
    });
  }
  static tessera_status* get_endpoint(const tessera_topology* self, uint32_t index,
                                      tessera_endpoint* out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      check_index(index, checked_info(self).num_endpoints, "endpoint");
      copy_sized(out, B::of(self).endpoint(index));
    });
  }
  static tessera_status* get_link(const tessera_topology* self, uint32_t index,
                                  tessera_link* out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      check_index(index, checked_info(self).num_links, "link");
      copy_sized(out, B::of(self).link(index));
    });
  }
  static tessera_status* route(const tessera_topology* self, uint32_t src, uint32_t dst,
                               uint32_t* links, size_t capacity, size_t* count) noexcept {
    return guard([&] {
      require_non_null(count, "count");
      uint32_t endpoints = checked_info(self).num_endpoints;
      check_index(src, endpoints, "source endpoint");
      check_index(dst, endpoints, "destination endpoint");
      if (links == nullptr && capacity != 0)
        throw invalid_argument("links is NULL but capacity > 0");
      // A plain local: a thread_local here would pin the library in memory (glibc keeps a
      // module with live TLS destructors loaded until the thread exits), breaking unload.
      std::vector<uint32_t> path;
      path.reserve(16);  // one allocation for most routes, not one per doubling
      B::of(self).route(src, dst, path);
      *count = path.size();
      if (capacity < path.size())
        throw Error(TESSERA_OUT_OF_RANGE, "route needs " + std::to_string(path.size()) + " links");
      if (!path.empty()) std::memcpy(links, path.data(), path.size() * sizeof(uint32_t));
    });
  }
  static tessera_status* get_level(const tessera_topology* self, uint32_t index,
                                   tessera_level* out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      check_index(index, checked_info(self).num_levels, "level");
      copy_sized(out, B::of(self).level(index));
    });
  }
  static tessera_status* create(const tessera_params* params, tessera_topology** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "topology");
      box->api = tessera_topology{sizeof(tessera_topology),
                                  &B::release,
                                  &get_info,
                                  &peak_flops,
                                  &get_endpoint,
                                  &get_link,
                                  &route,
                                  &get_level,
                                  {}};
      *out = &box.release()->api;
    });
  }
};

// ---- CostModel --------------------------------------------------------------------------------

template <class Impl>
struct CostModelTrampolines {
  using B = Box<tessera_cost_model, Impl>;
  static tessera_status* get_info(const tessera_cost_model* self,
                                  tessera_cost_model_info* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(out, "out");
      copy_sized(out, B::of(self).info());
    });
  }
  // Walks a host array whose element size may differ from ours (older/newer host).
  template <class Q, class F>
  static void each(const Q* queries, size_t query_size, size_t count, double* seconds, F&& f) {
    if (count == 0) return;
    require_non_null(queries, "queries");
    require_non_null(seconds, "seconds");
    if (query_size == 0) throw invalid_argument("query_size must be positive");
    const auto* bytes = reinterpret_cast<const unsigned char*>(queries);
    for (size_t i = 0; i < count; ++i) {
      Q q{};
      std::memcpy(&q, bytes + i * query_size, query_size < sizeof(Q) ? query_size : sizeof(Q));
      seconds[i] = f(q);
    }
  }
  static tessera_status* tile_seconds(const tessera_cost_model* self,
                                      const tessera_tile_query* queries, size_t query_size,
                                      size_t count, double* seconds) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      const Impl& impl = B::of(self);
      each(queries, query_size, count, seconds,
           [&](const tessera_tile_query& q) { return impl.tile_seconds(q); });
    });
  }
  static tessera_status* transfer_seconds(const tessera_cost_model* self,
                                          const tessera_transfer_query* queries, size_t query_size,
                                          size_t count, double* seconds) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      const Impl& impl = B::of(self);
      each(queries, query_size, count, seconds,
           [&](const tessera_transfer_query& q) { return impl.transfer_seconds(q); });
    });
  }
  static tessera_status* create(const tessera_params* params, tessera_cost_model** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "cost_model");
      box->api = tessera_cost_model{
          sizeof(tessera_cost_model), &B::release, &get_info, &tile_seconds, &transfer_seconds, {}};
      *out = &box.release()->api;
    });
  }
};

// ---- Partitioner ------------------------------------------------------------------------------

template <class Impl>
struct PartitionerTrampolines {
  using B = Box<tessera_partitioner, Impl>;
  static tessera_status* plans(const tessera_partitioner* self, const tessera_op_desc* op,
                               tessera_plan_sink* sink) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(op, "op");
      require_non_null(sink, "sink");
      if (sink->add == nullptr) throw invalid_argument("sink->add must not be NULL");
      if (op->num_ranks > TESSERA_MAX_RANKS || (op->num_ranks > 0 && op->ranks == nullptr) ||
          (op->num_operands > 0 && op->operands == nullptr))
        throw invalid_argument("op description is inconsistent (ranks or operands)");
      B::of(self).plans(*op, [&](const tessera_partition_plan& p) {
        tessera_partition_plan copy = p;
        copy.struct_size = sizeof(tessera_partition_plan);
        return sink->add(sink->context, &copy) == 0;
      });
    });
  }
  static tessera_status* create(const tessera_params* params, tessera_partitioner** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "partitioner");
      box->api = tessera_partitioner{sizeof(tessera_partitioner), &B::release, &plans, {}};
      *out = &box.release()->api;
    });
  }
};

// ---- LayoutMapper -----------------------------------------------------------------------------

template <class Impl>
struct LayoutMapperTrampolines {
  using B = Box<tessera_layout_mapper, Impl>;
  static const Layout& layout_of(const tessera_layout* layout) {
    require_non_null(layout, "layout");
    return *reinterpret_cast<const Layout*>(layout);
  }
  static tessera_status* parse(const tessera_layout_mapper* self, const char* text,
                               const uint64_t* shape, uint32_t rank,
                               tessera_layout** out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(text, "text");
      require_non_null(out, "out");
      if (rank > TESSERA_MAX_RANKS || (rank > 0 && shape == nullptr))
        throw invalid_argument("shape must have 1.." + std::to_string(TESSERA_MAX_RANKS) + " axes");
      std::unique_ptr<Layout> layout =
          B::of(self).parse(text, std::vector<uint64_t>(shape, shape + rank));
      *out = reinterpret_cast<tessera_layout*>(layout.release());
    });
  }
  static void release_layout(const tessera_layout_mapper*, tessera_layout* layout) noexcept {
    delete reinterpret_cast<Layout*>(layout);
  }
  static tessera_status* format(const tessera_layout_mapper* self, const tessera_layout* layout,
                                char* buffer, size_t capacity, size_t* length) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(length, "length");
      std::string text = B::of(self).format(layout_of(layout));
      *length = text.size();
      if (capacity < text.size() + 1)
        throw Error(TESSERA_OUT_OF_RANGE,
                    "format needs " + std::to_string(text.size() + 1) + " bytes");
      require_non_null(buffer, "buffer");
      std::memcpy(buffer, text.c_str(), text.size() + 1);
    });
  }
  static tessera_status* locate(const tessera_layout_mapper* self, const tessera_layout* layout,
                                const uint64_t* indices, size_t count,
                                tessera_location* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      const Layout& l = layout_of(layout);
      if (count == 0) return;
      require_non_null(indices, "indices");
      require_non_null(out, "out");
      uint32_t rank = B::of(self).rank(l);
      for (size_t i = 0; i < count; ++i) out[i] = B::of(self).locate(l, indices + i * rank);
    });
  }
  static tessera_status* inverse(const tessera_layout_mapper* self, const tessera_layout* layout,
                                 const tessera_location* locations, size_t count,
                                 uint64_t* indices) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      const Layout& l = layout_of(layout);
      if (count == 0) return;
      require_non_null(locations, "locations");
      require_non_null(indices, "indices");
      uint32_t rank = B::of(self).rank(l);
      for (size_t i = 0; i < count; ++i) B::of(self).inverse(l, locations[i], indices + i * rank);
    });
  }
  static tessera_status* create(const tessera_params* params,
                                tessera_layout_mapper** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "layout_mapper");
      box->api = tessera_layout_mapper{sizeof(tessera_layout_mapper),
                                       &B::release,
                                       &parse,
                                       &release_layout,
                                       &format,
                                       &locate,
                                       &inverse,
                                       {}};
      *out = &box.release()->api;
    });
  }
};

// ---- CodeGen ----------------------------------------------------------------------------------

template <class Impl>
struct CodeGenTrampolines {
  using B = Box<tessera_codegen, Impl>;
  static tessera_status* emit(tessera_codegen* self, const tessera_program* program,
                              tessera_file_sink* sink) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(program, "program");
      require_non_null(sink, "sink");
      if (sink->write == nullptr) throw invalid_argument("sink->write must not be NULL");
      B::of_mut(self).emit(*program, [&](const std::string& path, const std::string& contents) {
        return sink->write(sink->context, path.c_str(), contents.data(), contents.size()) == 0;
      });
    });
  }
  static tessera_status* create(const tessera_params* params, tessera_codegen** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "codegen");
      box->api = tessera_codegen{sizeof(tessera_codegen), &B::release, &emit, {}};
      *out = &box.release()->api;
    });
  }
};

// ---- MemoryModel ------------------------------------------------------------------------------

template <class Impl>
struct MemoryModelTrampolines {
  using B = Box<tessera_memory_model, Impl>;
  static tessera_status* get_info(const tessera_memory_model* self,
                                  tessera_memory_info* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(out, "out");
      copy_sized(out, B::of(self).info());
    });
  }
  static tessera_status* submit(tessera_memory_model* self, const tessera_memory_request* requests,
                                size_t count, size_t* accepted) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(accepted, "accepted");
      if (count > 0) require_non_null(requests, "requests");
      *accepted = count == 0 ? 0 : B::of_mut(self).submit(requests, count);
    });
  }
  static void require_sink(const tessera_completion_sink* sink) {
    require_non_null(sink, "sink");
    if (sink->complete == nullptr) throw invalid_argument("sink->complete must not be NULL");
  }
  static tessera_status* advance(tessera_memory_model* self, uint64_t cycles,
                                 tessera_completion_sink* sink) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_sink(sink);
      B::of_mut(self).advance(cycles, [&](const tessera_memory_completion& done) {
        sink->complete(sink->context, &done);
      });
    });
  }
  static tessera_status* offer(tessera_memory_model* self, const tessera_memory_request* requests,
                               const uint64_t* offer_cycles, size_t count, uint64_t spacing,
                               uint64_t last_cycle, tessera_completion_sink* sink,
                               uint32_t* channels, size_t* accepted,
                               uint64_t* cycles_run) noexcept {
    OfferProgress progress;
    tessera_status* status = guard([&] {
      require_non_null(self, "self");
      require_non_null(accepted, "accepted");
      require_non_null(cycles_run, "cycles_run");
      require_sink(sink);
      if (count > 0) {
        require_non_null(requests, "requests");
        require_non_null(offer_cycles, "offer_cycles");
      }
      B::of_mut(self).offer(
          requests, offer_cycles, count, spacing, last_cycle,
          [&](const tessera_memory_completion& done) { sink->complete(sink->context, &done); },
          channels, progress);
    });
    // How far it got, also after an error (the requests stay queued, the cycles run).
    if (accepted != nullptr) *accepted = progress.accepted;
    if (cycles_run != nullptr) *cycles_run = progress.cycles_run;
    return status;
  }
  static tessera_status* get_stats(const tessera_memory_model* self,
                                   tessera_memory_stats* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(out, "out");
      copy_sized(out, B::of(self).stats());
    });
  }
  static tessera_status* sustained(tessera_memory_model* self, uint32_t streams,
                                   double* bytes_per_s, double* latency_s) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(bytes_per_s, "bytes_per_s");
      require_non_null(latency_s, "latency_s");
      if (streams == 0) throw invalid_argument("streams must be at least 1");
      auto [bandwidth, latency] = B::of_mut(self).sustained(streams);
      *bytes_per_s = bandwidth;
      *latency_s = latency;
    });
  }
  static tessera_status* channel_of(const tessera_memory_model* self, uint64_t address,
                                    uint32_t* channel) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(channel, "channel");
      *channel = B::of(self).channel_of(address);
    });
  }
  static tessera_status* get_channel_stats(const tessera_memory_model* self, uint32_t channel,
                                           tessera_memory_stats* out) noexcept {
    return guard([&] {
      require_non_null(self, "self");
      require_non_null(out, "out");
      const uint32_t channels = B::of(self).info().channels;
      if (channel >= channels)
        throw invalid_argument("channel " + std::to_string(channel) + " out of range (count " +
                               std::to_string(channels) + ")");
      copy_sized(out, B::of(self).channel_stats(channel));
    });
  }
  static tessera_status* create(const tessera_params* params, tessera_memory_model** out) noexcept {
    return guard([&] {
      require_non_null(out, "out");
      auto box = std::make_unique<B>();
      box->impl = construct<Impl>(params, "memory_model");
      box->api = tessera_memory_model{sizeof(tessera_memory_model),
                                      &B::release,
                                      &get_info,
                                      &submit,
                                      &advance,
                                      &get_stats,
                                      &sustained,
                                      {},
                                      &channel_of,
                                      &get_channel_stats,
                                      &offer};
      *out = &box.release()->api;
    });
  }
};

}  // namespace tessera::sdk::detail

namespace tessera::sdk {

// Provider tags for TESSERA_DEFINE_PLUGIN: each fills one constructor slot of the descriptor.
template <class Impl>
struct provides_topology {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_topology = &detail::TopologyTrampolines<Impl>::create;
  }
};
template <class Impl>
struct provides_cost_model {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_cost_model = &detail::CostModelTrampolines<Impl>::create;
  }
};
template <class Impl>
struct provides_partitioner {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_partitioner = &detail::PartitionerTrampolines<Impl>::create;
  }
};
template <class Impl>
struct provides_layout_mapper {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_layout_mapper = &detail::LayoutMapperTrampolines<Impl>::create;
  }
};
template <class Impl>
struct provides_codegen {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_codegen = &detail::CodeGenTrampolines<Impl>::create;
  }
};
template <class Impl>
struct provides_memory_model {
  static void apply(tessera_plugin_descriptor& d) {
    d.create_memory_model = &detail::MemoryModelTrampolines<Impl>::create;
  }
};

namespace detail {

template <class... Provides>
const tessera_plugin_descriptor* query(uint32_t abi_major, const tessera_host_api* host,
                                       const char* name, const char* version,
                                       const char* description) noexcept {
  if (abi_major != TESSERA_ABI_MAJOR || host == nullptr) return nullptr;
  // The first host wins; a library is loaded by one host process.
  if (host_api() == nullptr) host_api() = host;
  static const tessera_plugin_descriptor descriptor = [&] {
    tessera_plugin_descriptor d{};
    d.struct_size = sizeof(tessera_plugin_descriptor);
    d.abi_major = TESSERA_ABI_MAJOR;
    d.abi_minor = TESSERA_ABI_MINOR;
    d.name = name;
    d.version = version;
    d.description = description;
    (Provides::apply(d), ...);
    return d;
  }();
  return &descriptor;
}

}  // namespace detail
}  // namespace tessera::sdk

// NAME, VERSION and DESCRIPTION are string literals; the rest are provides_* tags.
#define TESSERA_DEFINE_PLUGIN(NAME, VERSION, DESCRIPTION, ...)                            \
  extern "C" TESSERA_PLUGIN_EXPORT const tessera_plugin_descriptor* tessera_plugin_query( \
      uint32_t abi_major, uint32_t abi_minor, const tessera_host_api* host) {             \
    (void)abi_minor;                                                                      \
    return ::tessera::sdk::detail::query<__VA_ARGS__>(abi_major, host, NAME, VERSION,     \
                                                      DESCRIPTION);                       \
  }
