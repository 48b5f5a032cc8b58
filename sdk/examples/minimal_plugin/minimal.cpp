// A bus with two cores and one memory controller. Endpoints: 0, 1 = cores, 2 = memory, 3 = bus.
// Every endpoint has one link to the bus and one from it, so every route is two links.
#include <tessera/sdk/plugin.hpp>

namespace {

class BusTopology : public tessera::sdk::Topology {
 public:
  explicit BusTopology(const tessera::sdk::Params& params)
      : bytes_per_s_(params.get_double("bus_bytes_per_s", 1e9, 0.0)),
        name_(params.get_string("name", "minimal-pair")) {}

  tessera_topology_info info() const override {
    tessera_topology_info i{};
    i.num_cores = 2;
    i.num_endpoints = 4;
    i.num_links = 6;
    i.num_chips = 1;
    i.sram_bytes_per_core = 64 * 1024;
    i.sram_bytes_per_s = 16e9;
    i.clock_hz = 1e9;
    i.name = name_.c_str();
    return i;
  }
  double peak_flops_per_s(tessera_dtype dtype) const override {
    return dtype == TESSERA_DTYPE_FP32 ? 2e9 : 0.0;
  }
  tessera_endpoint endpoint(uint32_t index) const override {
    static const char* const names[] = {"core 0", "core 1", "memory", "bus"};
    static const tessera_endpoint_kind kinds[] = {TESSERA_ENDPOINT_CORE, TESSERA_ENDPOINT_CORE,
                                                  TESSERA_ENDPOINT_MEMORY_CONTROLLER,
                                                  TESSERA_ENDPOINT_ROUTER};
    tessera_endpoint e{};
    e.kind = kinds[index];
    e.x = e.y = -1;
    e.parent = UINT32_MAX;
    e.memory_bytes = index < 2 ? 64 * 1024 : 0;
    e.name = names[index];
    return e;
  }
  // Link 2i goes from endpoint i to the bus, link 2i+1 from the bus to endpoint i.
  tessera_link link(uint32_t index) const override {
    tessera_link l{};
    uint32_t endpoint = index / 2;
    l.src = index % 2 == 0 ? endpoint : kBus;
    l.dst = index % 2 == 0 ? kBus : endpoint;
    l.link_class = endpoint == 2 ? TESSERA_LINK_MEMORY : TESSERA_LINK_ON_CHIP;
    l.bytes_per_s = bytes_per_s_;
    l.latency_s = 10e-9;
    return l;
  }
  void route(uint32_t src, uint32_t dst, std::vector<uint32_t>& links) const override {
    if (src == dst) return;
    if (src != kBus) links.push_back(2 * src);
    if (dst != kBus) links.push_back(2 * dst + 1);
  }

 private:
  static constexpr uint32_t kBus = 3;
  double bytes_per_s_;
  std::string name_;
};

}  // namespace

TESSERA_DEFINE_PLUGIN(TESSERA_PLUGIN_NAME, TESSERA_PLUGIN_VERSION, TESSERA_PLUGIN_DESCRIPTION,
                      tessera::sdk::provides_topology<BusTopology>)
