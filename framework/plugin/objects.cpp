#include "framework/plugin/objects.hpp"

namespace tessera {

const char* to_string(tessera_endpoint_kind kind) {
  switch (kind) {
    case TESSERA_ENDPOINT_CORE: return "core";
    case TESSERA_ENDPOINT_MEMORY_CONTROLLER: return "memory controller";
    case TESSERA_ENDPOINT_ROUTER: return "router";
    case TESSERA_ENDPOINT_CHIP_PORT: return "chip port";
    case TESSERA_ENDPOINT_TREE_NODE: return "tree node";
  }
  return "unknown";
}

const char* to_string(tessera_link_class link_class) {
  switch (link_class) {
    case TESSERA_LINK_ON_CHIP: return "on-chip";
    case TESSERA_LINK_MEMORY: return "memory";
    case TESSERA_LINK_CHIP_TO_CHIP: return "chip-to-chip";
  }
  return "unknown";
}

const char* dtype_name(uint32_t dtype) {
  static const char* const names[] = {"fp32", "fp16", "bf16", "fp8", "int8", "int32", "fp64"};
  return dtype < TESSERA_DTYPE_COUNT ? names[dtype] : "unknown";
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
    return plugin_error("plugin '" + library->name() + "': create_" + iname +
                            " returned OK but no object",
                        StatusCode::internal);
  // Every 1.x object is at least as large as the 1.0 vtable; anything shorter cannot be called
  // (nor safely released, so it is leaked: the plugin is broken).
  if (object->struct_size < sizeof(CApi) || object->release == nullptr)
    return plugin_error("plugin '" + library->name() + "': the " + iname +
                            " object is malformed: struct_size " +
                            std::to_string(object->struct_size) + " (ABI 1.0 needs " +
                            std::to_string(sizeof(CApi)) + "), release " +
                            (object->release ? "set" : "NULL"),
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
  Status s = call("topology.peak_flops_per_s",
                  [&] { return raw()->peak_flops_per_s(raw(), dtype, &flops); });
  if (!s) return s.error();
  return flops;
}

Result<Endpoint> Topology::endpoint(uint32_t index) const {
  auto c = sized<tessera_endpoint>();
  Status s = call("topology.get_endpoint", [&] { return raw()->get_endpoint(raw(), index, &c); });
  if (!s) return s.error();
  return Endpoint{index,        static_cast<tessera_endpoint_kind>(c.kind),
                  c.chip,       c.x,
                  c.y,          c.level,
                  c.parent,     c.memory_bytes,
                  c.name != nullptr ? c.name : ""};
}

Result<Link> Topology::link(uint32_t index) const {
  auto c = sized<tessera_link>();
  Status s = call("topology.get_link", [&] { return raw()->get_link(raw(), index, &c); });
  if (!s) return s.error();
  return Link{index,     c.src,         c.dst, static_cast<tessera_link_class>(c.link_class),
              c.network, c.bytes_per_s, c.latency_s};
}

Result<std::vector<uint32_t>> Topology::route(uint32_t src, uint32_t dst) const {
  // Routes are short (a handful of hops); one call with a generous buffer, a second if not.
  std::vector<uint32_t> links(64);
  size_t count = 0;
  Status s = call("topology.route", [&] {
    return raw()->route(raw(), src, dst, links.data(), links.size(), &count);
  });
  if (!s && s.error().code == StatusCode::out_of_range && count > links.size()) {
    links.resize(count);
    s = call("topology.route", [&] {
      return raw()->route(raw(), src, dst, links.data(), links.size(), &count);
    });
  }
  if (!s) return s.error();
  links.resize(count);
  return links;
}

Result<CostModelInfo> CostModel::info() const {
  auto c = sized<tessera_cost_model_info>();
  Status s = call("cost_model.get_info", [&] { return raw()->get_info(raw(), &c); });
  if (!s) return s.error();
  return CostModelInfo{c.sync_s, c.clock_hz, c.shift_bytes_per_s};
}

Result<std::vector<double>> CostModel::tile_seconds(
    const std::vector<tessera_tile_query>& queries) const {
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
  return Level{c.name != nullptr ? c.name : "", c.fanout, c.nodes, c.memory_bytes,
               c.down_bytes_per_s, c.up_bytes_per_s};
}

}  // namespace tessera
