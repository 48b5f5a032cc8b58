#include "framework/cli/memsim_driver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <tessera/sdk/error.hpp>

#include "address_map.hpp"
#include "config_files.hpp"
#include "dram_config.hpp"
#include "traffic.hpp"

namespace tessera::cli {

namespace {

// The plugin the memsim command drives; its .ini format is the one read here for the mapping.
constexpr const char* kMemoryPlugin = "hbm_dramsim";

// Runs `body`, turning the format library's errors (bad .ini, bad trace line) into input errors.
template <class Body>
auto as_input(Body&& body) {
  try {
    return body();
  } catch (const sdk::Error& e) {
    throw Failure(input_error(e.what()));
  }
}

std::string describe_device(const hbm::DramConfig& c) {
  return fmt::format("{}, {} channels of {} bits, {} B requests, {} rank{} x {} banks, tCK {} ns",
                     c.keys.protocol, c.channels, c.keys.bus_width, c.request_bytes, c.ranks,
                     c.ranks == 1 ? "" : "s", c.banks, c.keys.tCK);
}

std::string describe_traffic(const MemsimOptions& o) {
  if (!o.trace.empty()) return "trace " + o.trace;
  std::string rate = o.rate > 0 ? fmt::format("{} requests per cycle", o.rate)
                                : std::string("as fast as accepted");
  std::string what = o.generator == "stream" ? fmt::format("{} sequential stream{}", o.streams,
                                                           o.streams == 1 ? "" : "s")
                                             : std::string("uniform random addresses");
  return fmt::format("{}, {:.0f}% writes, {}, seed {}", what, 100 * o.write_fraction, rate, o.seed);
}

std::unique_ptr<hbm::TrafficSource> make_source(const MemsimOptions& o, uint64_t capacity,
                                                uint32_t request_bytes, std::ifstream& trace) {
  if (!o.trace.empty()) {
    trace.open(o.trace);
    if (!trace) throw Failure(input_error(o.trace + ": cannot open the trace file"));
    return std::make_unique<hbm::TraceSource>(trace, o.trace);
  }
  return as_input([&]() -> std::unique_ptr<hbm::TrafficSource> {
    if (o.generator == "stream")
      return std::make_unique<hbm::StreamSource>(capacity, request_bytes, o.streams,
                                                 o.write_fraction, o.rate, o.seed);
    return std::make_unique<hbm::RandomSource>(capacity, request_bytes, o.write_fraction, o.rate,
                                               o.seed);
  });
}

// One plugin object per channel, each with its own clock.
struct Slice {
  MemoryModel model;
  uint64_t now = 0;
  MemoryChannelReport report;
};

std::vector<Slice> make_slices(PluginSet& plugins, const MemsimOptions& o,
                               const std::string& config_path, uint32_t channels) {
  auto library = plugins.library(kMemoryPlugin).take();
  std::vector<Slice> slices;
  slices.reserve(channels);
  const auto level = spdlog::get_level();
  for (uint32_t ch = 0; ch < channels; ++ch) {
    ParamList params;
    params.items = {{"config", config_path},
                    {"stacks", std::to_string(o.stacks)},
                    {"strict", o.strict ? "true" : "false"},
                    {"channel", std::to_string(ch)}};
    // The .ini's warnings are the same for every channel: let the first object report them.
    if (ch > 0) spdlog::set_level(std::max(level, spdlog::level::err));
    auto model = create_memory_model(library, params);
    spdlog::set_level(level);
    slices.push_back(Slice{std::move(model).take(), 0, {}});
    slices.back().report.channel = ch;
  }
  return slices;
}

// Advances a slice to `cycle`, adding its finished reads to its latency histogram. Request ids
// carry the direction in their lowest bit.
void advance_to(Slice& slice, uint64_t cycle) {
  if (cycle <= slice.now) return;
  slice.model
      .advance(cycle - slice.now,
               [&](const tessera_memory_completion& c) {
                 if ((c.id & 1) == 0) slice.report.read_latency.add(c.done_cycle - c.issue_cycle);
               })
      .take();
  slice.now = cycle;
}

}  // namespace

MemoryRunReport run_memsim(PluginSet& plugins, const MemsimOptions& o) {
  const std::string cwd = std::filesystem::current_path().string();
  const std::string path = as_input([&] { return hbm::find_config(o.config, cwd).string(); });
  const hbm::DramConfig config = as_input(
      [&] { return hbm::load_dram_config(hbm::read_text_file(path), path, o.strict).config; });
  const hbm::AddressMap map = as_input([&] { return hbm::AddressMap(config, o.stacks); });

  std::vector<Slice> slices = make_slices(plugins, o, path, map.total_channels());
  std::ifstream trace;
  auto source = make_source(o, map.capacity_bytes(), config.request_bytes, trace);
  MemoryRunReport report;
  uint64_t id = 0;
  as_input([&] {
    hbm::drive_requests(*source, o.cycles, [&](const hbm::TrafficRequest& r, uint64_t cycle) {
      Slice& slice = slices[map.locate(r.address).channel];
      advance_to(slice, cycle);
      tessera_memory_request request{(id << 1) | (r.is_write ? 1 : 0), r.address,
                                     r.is_write ? 1u : 0u, 0};
      if (slice.model.submit(&request, 1).take() == 0) return false;
      ++id;
      return true;
    });
    return 0;
  });

  report.config = path;
  report.device = describe_device(config);
  report.traffic = describe_traffic(o);
  report.stacks = o.stacks;
  report.cycles = o.cycles;
  report.accepted = id;
  for (Slice& slice : slices) {
    advance_to(slice, o.cycles);
    slice.report.stats = slice.model.stats().take();
    report.channels.push_back(std::move(slice.report));
  }
  report.info = slices.front().model.info().take();
  report.info.channels = map.total_channels();
  report.info.peak_bytes_per_s *= map.total_channels();
  report.info.capacity_bytes = map.capacity_bytes();
  return report;
}

}  // namespace tessera::cli
