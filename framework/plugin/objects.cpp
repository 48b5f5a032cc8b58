#include "framework/plugin/objects.hpp"

#include <exception>
#include <iterator>

namespace tessera {

const char* to_string(tessera_endpoint_kind kind) {
  switch (kind) {
    case TESSERA_ENDPOINT_CORE:
      return "core";
    case TESSERA_ENDPOINT_MEMORY_CONTROLLER:
      return "memory controller";
    case TESSERA_ENDPOINT_ROUTER:
      return "router";
    case TESSERA_ENDPOINT_CHIP_PORT:
      return "chip port";
    case TESSERA_ENDPOINT_TREE_NODE:
      return "tree node";
  }
  return "unknown";
}

const char* to_string(tessera_link_class link_class) {
  switch (link_class) {
    case TESSERA_LINK_ON_CHIP:
      return "on-chip";
    case TESSERA_LINK_MEMORY:
      return "memory";
    case TESSERA_LINK_CHIP_TO_CHIP:
      return "chip-to-chip";
  }
  return "unknown";
}

const char* dtype_name(uint32_t dtype) {
  static const char* const names[] = {"fp32",  "fp16", "bf16", "fp8",  "int8",
                                      "int32", "fp64", "bfp8", "bfp4", "bfp2"};
  static_assert(std::size(names) == TESSERA_DTYPE_COUNT);
  return dtype < TESSERA_DTYPE_COUNT ? names[dtype] : "unknown";
}

uint32_t abi_dtype_count(const PluginLibrary& library) {
  return TESSERA_DTYPE_COUNT_FOR_MINOR(library.descriptor().abi_minor);
}

Status check_abi_dtype(const PluginLibrary& library, uint32_t dtype) {
  uint32_t known = abi_dtype_count(library);
  if (dtype >= TESSERA_DTYPE_COUNT || dtype < known) return ok_status();
  const tessera_plugin_descriptor& d = library.descriptor();
  std::string accepts;
  for (uint32_t t = 0; t < known; ++t) accepts += (t == 0 ? "" : ", ") + std::string(dtype_name(t));
  std::string since = dtype == TESSERA_DTYPE_BFP8 ? "1.2" : "1.5";
  return usage_error("target '" + library.name() + "' is built for plugin ABI " +
                     std::to_string(d.abi_major) + "." + std::to_string(d.abi_minor) +
                     ", which has no " + dtype_name(dtype) + " (new in ABI " + since +
                     "); it accepts: " + accepts + " (rebuild the plugin against TesseraSDK " +
                     since + " or later)");
}

namespace {

tessera_params to_c(const ParamList& params, std::vector<tessera_param>& storage) {
  storage.clear();
  for (const auto& [key, value] : params.items) storage.push_back({key.c_str(), value.c_str()});
  return tessera_params{storage.size(), storage.data(), params.base_dir.c_str()};
}

// One constructor call, whatever the interface.
template <class Handle, class CApi, class Ctor>
Result<Handle> create(std::shared_ptr<const PluginLibrary> library, const ParamList& params,
                      Interface interface, Ctor ctor) {
  const std::string iname(to_string(interface));
  if (ctor == nullptr)
    return plugin_error("plugin '" + library->name() + "' does not provide a " + iname +
                            " (it provides what its manifest lists: see `tessera targets`)",
                        StatusCode::unimplemented);
  std::vector<tessera_param> storage;
  tessera_params c_params = to_c(params, storage);
  CApi* object = nullptr;
  Status s = library->call("create_" + iname, [&] { return ctor(&c_params, &object); });
  if (!s) {
    Error e = s.error();
    e.kind = e.code == StatusCode::internal ? ErrorKind::plugin : ErrorKind::input;
    return e;
  }
  if (object == nullptr)
    return plugin_error(
        "plugin '" + library->name() + "': create_" + iname + " returned OK but no object",
        StatusCode::internal);
  // Every 1.x object is at least as large as the 1.0 vtable; anything shorter cannot be called
  // (nor safely released, so it is leaked: the plugin is broken).
  if (object->struct_size < kAbi10Size<CApi> || object->release == nullptr)
    return plugin_error(
        "plugin '" + library->name() + "': the " + iname + " object is malformed: struct_size " +
            std::to_string(object->struct_size) + " (ABI 1.0 needs " +
            std::to_string(kAbi10Size<CApi>) + "), release " + (object->release ? "set" : "NULL"),
        StatusCode::internal);
  return Handle(std::move(library), object);
}

template <class T>
T sized() {
  T value{};
  value.struct_size = sizeof(T);
  return value;
}

}  // namespace

#define TESSERA_DEFINE_CREATE(Handle, CApi, interface_name, slot)                             \
  Result<Handle> create_##interface_name(std::shared_ptr<const PluginLibrary> library,        \
                                         const ParamList& params) {                           \
    auto ctor = library->descriptor().slot;                                                   \
    return create<Handle, CApi>(std::move(library), params, Interface::interface_name, ctor); \
  }

TESSERA_DEFINE_CREATE(Topology, tessera_topology, topology, create_topology)
TESSERA_DEFINE_CREATE(CostModel, tessera_cost_model, cost_model, create_cost_model)
TESSERA_DEFINE_CREATE(Partitioner, tessera_partitioner, partitioner, create_partitioner)
TESSERA_DEFINE_CREATE(LayoutMapper, tessera_layout_mapper, layout_mapper, create_layout_mapper)
TESSERA_DEFINE_CREATE(CodeGen, tessera_codegen, codegen, create_codegen)
TESSERA_DEFINE_CREATE(MemoryModel, tessera_memory_model, memory_model, create_memory_model)
#undef TESSERA_DEFINE_CREATE

Result<TopologyInfo> Topology::info() const {
  auto c = sized<tessera_topology_info>();
  Status s = call("topology.get_info", [&] { return raw()->get_info(raw(), &c); });
  if (!s) return s.error();
  TopologyInfo i;
  i.name = c.name != nullptr ? c.name : "";
  i.num_cores = c.num_cores;
  i.num_endpoints = c.num_endpoints;
  i.num_links = c.num_links;
  i.num_chips = c.num_chips;
  i.num_levels = c.num_levels;
  i.sram_bytes_per_core = c.sram_bytes_per_core;
  i.sram_bytes_per_s = c.sram_bytes_per_s;
  i.clock_hz = c.clock_hz;
  return i;
}

Result<double> Topology::peak_flops_per_s(uint32_t dtype) const {
  double flops = 0;
  // A plugin built for an ABI without this dtype cannot compute in it (and is never asked).
  if (dtype < TESSERA_DTYPE_COUNT && dtype >= abi_dtype_count(library())) return flops;
  Status s = call("topology.peak_flops_per_s",
                  [&] { return raw()->peak_flops_per_s(raw(), dtype, &flops); });
  if (!s) return s.error();
  return flops;
}

Result<Endpoint> Topology::endpoint(uint32_t index) const {
  auto c = sized<tessera_endpoint>();
  Status s = call("topology.get_endpoint", [&] { return raw()->get_endpoint(raw(), index, &c); });
  if (!s) return s.error();
  return Endpoint{index,
                  static_cast<tessera_endpoint_kind>(c.kind),
                  c.chip,
                  c.x,
                  c.y,
                  c.level,
                  c.parent,
                  c.memory_bytes,
                  c.name != nullptr ? c.name : "",
                  c.bytes_per_s};
}

Result<Link> Topology::link(uint32_t index) const {
  auto c = sized<tessera_link>();
  Status s = call("topology.get_link", [&] { return raw()->get_link(raw(), index, &c); });
  if (!s) return s.error();
  return Link{index,     c.src,         c.dst,      static_cast<tessera_link_class>(c.link_class),
              c.network, c.bytes_per_s, c.latency_s};
}

Result<std::vector<uint32_t>> Topology::route(uint32_t src, uint32_t dst) const {
  // A buffer too small costs the plugin an error (a C++ plugin throws it) and a second walk of
  // the route. Routes across a mesh of hundreds of routers a side run to hundreds of links and are
  // asked for by the million, so the buffer keeps the longest route this thread has seen: after
  // the first long route, one call each.
  thread_local std::vector<uint32_t> buffer(64);
  size_t count = 0;
  Status s = call("topology.route", [&] {
    return raw()->route(raw(), src, dst, buffer.data(), buffer.size(), &count);
  });
  if (!s && s.error().code == StatusCode::out_of_range && count > buffer.size()) {
    buffer.resize(count);
    s = call("topology.route",
             [&] { return raw()->route(raw(), src, dst, buffer.data(), buffer.size(), &count); });
  }
  if (!s) return s.error();
  return std::vector<uint32_t>(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(count));
}

Result<CostModelInfo> CostModel::info() const {
  auto c = sized<tessera_cost_model_info>();
  Status s = call("cost_model.get_info", [&] { return raw()->get_info(raw(), &c); });
  if (!s) return s.error();
  // A plugin built before 1.5 copies only its own (shorter) struct: the fields past it keep the
  // zeros sized() gave them.
  return CostModelInfo{c.sync_s,          c.clock_hz,          c.shift_bytes_per_s,
                       c.dispatch_host_s, c.dispatch_traced_s, c.launch_s};
}

Result<std::vector<double>> CostModel::tile_seconds(
    const std::vector<tessera_tile_query>& queries) const {
  for (const auto& q : queries)
    if (Status s = check_abi_dtype(library(), q.dtype); !s) return s.error();
  std::vector<double> seconds(queries.size());
  Status s = call("cost_model.tile_seconds", [&] {
    return raw()->tile_seconds(raw(), queries.data(), sizeof(tessera_tile_query), queries.size(),
                               seconds.data());
  });
  if (!s) return s.error();
  return seconds;
}

Result<std::vector<double>> CostModel::transfer_seconds(
    const std::vector<tessera_transfer_query>& queries) const {
  std::vector<double> seconds(queries.size());
  Status s = call("cost_model.transfer_seconds", [&] {
    return raw()->transfer_seconds(raw(), queries.data(), sizeof(tessera_transfer_query),
                                   queries.size(), seconds.data());
  });
  if (!s) return s.error();
  return seconds;
}

Result<Level> Topology::level(uint32_t index) const {
  if (!TESSERA_HAS_SLOT(raw(), tessera_topology, get_level))
    return plugin_error("topology has no get_level", StatusCode::unimplemented);
  auto c = sized<tessera_level>();
  Status s = call("topology.get_level", [&] { return raw()->get_level(raw(), index, &c); });
  if (!s) return s.error();
  return Level{c.name != nullptr ? c.name : "",
               c.fanout,
               c.nodes,
               c.memory_bytes,
               c.down_bytes_per_s,
               c.up_bytes_per_s};
}

// ---- LayoutMapper ------------------------------------------------------------------------------

namespace {

// The plugin blames the user's text or indices for anything but an internal failure.
Error as_input(Error e) {
  if (e.code != StatusCode::internal) e.kind = ErrorKind::input;
  return e;
}

}  // namespace

Layout& Layout::operator=(Layout&& other) noexcept {
  if (this != &other) {
    reset();
    library_ = std::move(other.library_);
    mapper_ = other.mapper_;
    layout_ = std::exchange(other.layout_, nullptr);
    rank_ = other.rank_;
  }
  return *this;
}

void Layout::reset() {
  if (layout_ == nullptr) return;
  tessera_layout* layout = std::exchange(layout_, nullptr);
  (void)library_->call("layout_mapper.release_layout", [&]() -> tessera_status* {
    mapper_->release_layout(mapper_, layout);
    return nullptr;
  });
}

Result<Layout> LayoutMapper::parse(const std::string& text,
                                   const std::vector<uint64_t>& shape) const {
  tessera_layout* layout = nullptr;
  Status s = call("layout_mapper.parse", [&] {
    return raw()->parse(raw(), text.c_str(), shape.data(), static_cast<uint32_t>(shape.size()),
                        &layout);
  });
  if (!s) return as_input(s.error());
  if (layout == nullptr)
    return plugin_error(
        "plugin '" + library().name() + "': layout_mapper.parse returned OK but no layout",
        StatusCode::internal);
  return Layout(library_ptr(), raw(), layout, static_cast<uint32_t>(shape.size()));
}

Result<std::string> LayoutMapper::format(const Layout& layout) const {
  size_t length = 0;
  std::string text(256, '\0');
  auto once = [&] {
    return call("layout_mapper.format", [&] {
      return raw()->format(raw(), layout.raw(), text.data(), text.size(), &length);
    });
  };
  Status s = once();
  if (!s && s.error().code == StatusCode::out_of_range && length + 1 > text.size()) {
    text.assign(length + 1, '\0');
    s = once();
  }
  if (!s) return as_input(s.error());
  text.resize(length);
  return text;
}

Result<std::vector<tessera_location>> LayoutMapper::locate(
    const Layout& layout, const std::vector<uint64_t>& indices) const {
  size_t count = layout.rank() == 0 ? 0 : indices.size() / layout.rank();
  std::vector<tessera_location> out(count);
  Status s = call("layout_mapper.locate", [&] {
    return raw()->locate(raw(), layout.raw(), indices.data(), count, out.data());
  });
  if (!s) return as_input(s.error());
  return out;
}

Result<std::vector<uint64_t>> LayoutMapper::inverse(
    const Layout& layout, const std::vector<tessera_location>& locations) const {
  std::vector<uint64_t> out(locations.size() * layout.rank());
  Status s = call("layout_mapper.inverse", [&] {
    return raw()->inverse(raw(), layout.raw(), locations.data(), locations.size(), out.data());
  });
  if (!s) return as_input(s.error());
  return out;
}

// ---- MemoryModel -------------------------------------------------------------------------------

namespace {

// A string field of an output struct the plugin filled: "" when its struct_size (rule 3) ends
// before the field at `offset`, or the field is NULL.
std::string sized_string(size_t struct_size, size_t offset, const char* text) {
  return struct_size >= offset + sizeof(text) && text != nullptr ? text : "";
}

}  // namespace

Result<MemoryInfo> MemoryModel::info() const {
  auto c = sized<tessera_memory_info>();
  Status s = call("memory_model.get_info", [&] { return raw()->get_info(raw(), &c); });
  if (!s) return s.error();
  return MemoryInfo{
      c.clock_hz,
      c.peak_bytes_per_s,
      c.channels,
      c.burst_bytes,
      c.capacity_bytes,
      sized_string(c.struct_size, offsetof(tessera_memory_info, description), c.description),
      sized_string(c.struct_size, offsetof(tessera_memory_info, source), c.source)};
}

Result<size_t> MemoryModel::submit(const tessera_memory_request* requests, size_t count) {
  size_t accepted = 0;
  Status s =
      call("memory_model.submit", [&] { return raw()->submit(raw(), requests, count, &accepted); });
  if (!s) return s.error();
  if (accepted > count)
    return plugin_error("plugin '" + library().name() + "': memory_model.submit accepted " +
                            std::to_string(accepted) + " of " + std::to_string(count) + " requests",
                        StatusCode::internal);
  return accepted;
}

namespace {

// The sink the plugin calls: nothing may be thrown back through the plugin's frames.
struct CompletionContext {
  const std::function<void(const tessera_memory_completion&)>* done = nullptr;
  std::exception_ptr error;
};

void complete(void* context, const tessera_memory_completion* completion) noexcept {
  auto* c = static_cast<CompletionContext*>(context);
  if (c->error || completion == nullptr) return;
  try {
    (*c->done)(*completion);
  } catch (...) {
    c->error = std::current_exception();
  }
}

}  // namespace

Status MemoryModel::advance(uint64_t cycles,
                            const std::function<void(const tessera_memory_completion&)>& done) {
  CompletionContext context{&done, nullptr};
  tessera_completion_sink sink{&context, &complete};
  Status s = call("memory_model.advance", [&] { return raw()->advance(raw(), cycles, &sink); });
  if (context.error) std::rethrow_exception(context.error);
  return s;
}

Status MemoryModel::offer(const tessera_memory_request* requests, const uint64_t* offer_cycles,
                          size_t count, uint64_t spacing, uint64_t last_cycle,
                          const std::function<void(const tessera_memory_completion&)>& done,
                          uint32_t* channels, sdk::OfferProgress& progress) {
  progress = {};
  if (library().descriptor().abi_minor < 4 || !TESSERA_HAS_SLOT(raw(), tessera_memory_model, offer))
    return offer_by_steps(requests, offer_cycles, count, spacing, last_cycle, done, channels,
                          progress);
  CompletionContext context{&done, nullptr};
  tessera_completion_sink sink{&context, &complete};
  Status s = call("memory_model.offer", [&] {
    return raw()->offer(raw(), requests, offer_cycles, count, spacing, last_cycle, &sink, channels,
                        &progress.accepted, &progress.cycles_run);
  });
  if (context.error) std::rethrow_exception(context.error);
  if (s && (progress.accepted > count || progress.cycles_run > last_cycle))
    return plugin_error("plugin '" + library().name() + "': memory_model.offer reported " +
                            std::to_string(progress.accepted) + " of " + std::to_string(count) +
                            " requests accepted in " + std::to_string(progress.cycles_run) +
                            " cycles, but offers end at cycle " + std::to_string(last_cycle),
                        StatusCode::internal);
  return s;
}

// The front end over submit, advance and channel_of through the ABI: a plugin built before 1.4.
Status MemoryModel::offer_by_steps(
    const tessera_memory_request* requests, const uint64_t* offer_cycles, size_t count,
    uint64_t spacing, uint64_t last_cycle,
    const std::function<void(const tessera_memory_completion&)>& done, uint32_t* channels,
    sdk::OfferProgress& progress) {
  try {
    sdk::offer_requests(
        requests, offer_cycles, count, spacing, last_cycle, channels, progress,
        [&](const tessera_memory_request& r) { return submit(&r, 1).take() == 1; },
        [&](uint64_t cycles) { advance(cycles, done).take(); },
        [&](uint64_t address) { return channel_of(address).take(); });
  } catch (const Failure& failure) {
    return failure.error();
  }
  return ok_status();
}

Result<tessera_memory_stats> MemoryModel::stats() const {
  auto c = sized<tessera_memory_stats>();
  Status s = call("memory_model.get_stats", [&] { return raw()->get_stats(raw(), &c); });
  if (!s) return s.error();
  return c;
}

Result<MemorySustained> MemoryModel::sustained(uint32_t streams) {
  MemorySustained rate;
  Status s = call("memory_model.sustained", [&] {
    return raw()->sustained(raw(), streams, &rate.bytes_per_s, &rate.latency_s);
  });
  if (!s) return s.error();
  return rate;
}

Status MemoryModel::require_1_1(const char* method, bool has_slot) const {
  const tessera_plugin_descriptor& d = library().descriptor();
  if (d.abi_minor >= 1 && has_slot) return ok_status();  // memsim asks this once per request
  const std::string who = "plugin '" + library().name() + "'";
  if (d.abi_minor < 1)
    return plugin_error(
        who + " is built for plugin ABI " + std::to_string(d.abi_major) + "." +
            std::to_string(d.abi_minor) + ", and memory_model." + method +
            " is new in ABI 1.1: rebuild the plugin against TesseraSDK 1.1 or later",
        StatusCode::unimplemented);
  if (!has_slot)
    return plugin_error(who + " reports ABI 1." + std::to_string(d.abi_minor) +
                            ", but its memory_model has no " + method + " (struct_size " +
                            std::to_string(raw()->struct_size) + ", or the slot is NULL)",
                        StatusCode::unimplemented);
  return ok_status();
}

Result<uint32_t> MemoryModel::channel_of(uint64_t address) const {
  if (auto s = require_1_1("channel_of", TESSERA_HAS_SLOT(raw(), tessera_memory_model, channel_of));
      !s)
    return s.error();
  uint32_t channel = 0;
  Status s =
      call("memory_model.channel_of", [&] { return raw()->channel_of(raw(), address, &channel); });
  if (!s) return s.error();
  return channel;
}

Result<tessera_memory_stats> MemoryModel::channel_stats(uint32_t channel) const {
  if (auto s = require_1_1("get_channel_stats",
                           TESSERA_HAS_SLOT(raw(), tessera_memory_model, get_channel_stats));
      !s)
    return s.error();
  auto c = sized<tessera_memory_stats>();
  Status s = call("memory_model.get_channel_stats",
                  [&] { return raw()->get_channel_stats(raw(), channel, &c); });
  if (!s) return s.error();
  return c;
}

}  // namespace tessera
