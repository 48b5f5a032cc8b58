#include "framework/memsim/memsim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace tessera::memsim {

namespace {

// memsim reports every channel: a model that cannot answer per channel is refused, saying why.
template <class T>
T per_channel(Result<T> result) {
  if (!result && result.error().code == StatusCode::unimplemented) {
    Error e = result.error();
    e.message =
        "memsim needs a memory model with per-channel statistics (plugin ABI 1.1): " + e.message;
    throw Failure(std::move(e));
  }
  return std::move(result).take();
}

// Requests in flight, by the id the model echoes in their completion. Ids index a table whose
// slots are reused once their request completes, so it never holds more entries than the model
// had queued at once.
class InFlight {
 public:
  struct Request {
    uint32_t channel = 0;
    bool is_write = false;
  };

  explicit InFlight(std::string plugin) : plugin_(std::move(plugin)) {}
  // The id the next start() takes.
  uint64_t next_id() const { return free_.empty() ? slots_.size() : free_.back(); }
  void start(Request request) {
    if (free_.empty()) {
      slots_.push_back({request, true});
      return;
    }
    slots_[free_.back()] = {request, true};
    free_.pop_back();
  }
  Request finish(uint64_t id) {
    if (id >= slots_.size() || !slots_[id].busy)
      throw Failure(plugin_error("plugin '" + plugin_ +
                                     "': memory_model.advance completed request " +
                                     std::to_string(id) + ", which is not in flight",
                                 StatusCode::internal));
    slots_[id].busy = false;
    free_.push_back(id);
    return slots_[id].request;
  }

 private:
  struct Slot {
    Request request;
    bool busy = false;
  };
  std::string plugin_;
  std::vector<Slot> slots_;
  std::vector<uint64_t> free_;
};

// Read latencies per channel, counted by value and added to the histograms once the run is over:
// one increment per read instead of a Histogram::add (whose long double sum was ~2 % of a run).
// Histograms of the same values in another order are the same: their sums are exact integers.
class LatencyCounts {
 public:
  explicit LatencyCounts(uint32_t channels) : counts_(channels) {}
  void add(uint32_t channel, uint64_t latency, Histogram& histogram) {
    if (latency >= kCounted) return histogram.add(latency);  // rare: a saturated memory
    std::vector<uint64_t>& counts = counts_[channel];
    if (latency >= counts.size()) counts.resize(latency + 1, 0);
    ++counts[latency];
  }
  void add_to(uint32_t channel, Histogram& histogram) const {
    const std::vector<uint64_t>& counts = counts_[channel];
    for (uint64_t latency = 0; latency < counts.size(); ++latency)
      if (counts[latency] != 0) histogram.add(latency, counts[latency]);
  }

 private:
  static constexpr uint64_t kCounted = 4096;
  std::vector<std::vector<uint64_t>> counts_;
};

// A report per channel: far more than any memory system has (hbm_dramsim: 2^20 banks at most).
constexpr uint32_t kMaxChannels = 1u << 20;

// The model's info, refused when a run or a report could not use it.
MemoryInfo checked_info(const MemoryModel& model) {
  MemoryInfo info = model.info().take();
  std::string problem;
  if (!(info.clock_hz > 0)) problem = fmt::format("clock_hz {} is not positive", info.clock_hz);
  if (info.channels == 0 || info.channels > kMaxChannels)
    problem = fmt::format("{} channels (memsim reports 1 to {})", info.channels, kMaxChannels);
  if (info.burst_bytes == 0 || info.capacity_bytes < info.burst_bytes)
    problem =
        fmt::format("{} B requests in a capacity of {} B", info.burst_bytes, info.capacity_bytes);
  if (!problem.empty())
    throw Failure(plugin_error("plugin '" + model.library().name() +
                                   "': memory_model.get_info cannot be simulated: " + problem,
                               StatusCode::internal));
  return info;
}

uint32_t channel_of(const MemoryModel& model, uint32_t channels, uint64_t address) {
  const uint32_t channel = per_channel(model.channel_of(address));
  if (channel >= channels)
    throw Failure(plugin_error(
        fmt::format("plugin '{}': memory_model.channel_of put address {:#x} on channel {}, but "
                    "the model has {} channels",
                    model.library().name(), address, channel, channels),
        StatusCode::internal));
  return channel;
}

MemoryModel make_model(PluginSet& plugins, const MemsimOptions& o) {
  std::shared_ptr<const PluginLibrary> library = plugins.library(o.target).take();
  const Manifest& m = library->manifest();
  if (!m.provides_interface(Interface::memory_model)) {
    std::string provided;
    for (Interface i : m.provides)
      provided += (provided.empty() ? "" : ", ") + std::string(to_string(i));
    throw Failure(input_error("target '" + m.name + "' provides no memory_model (it provides " +
                              provided +
                              "); memsim runs a memory model, e.g. --target hbm_dramsim (see "
                              "`tessera targets`)"));
  }
  ParamList params;
  params.base_dir = std::filesystem::current_path().string();
  if (!o.config.empty()) params.items.emplace_back("config", o.config);
  if (o.stacks) params.items.emplace_back("stacks", std::to_string(*o.stacks));
  if (o.strict) params.items.emplace_back("strict", "true");
  return create_memory_model(library, params).take();
}

std::unique_ptr<TrafficSource> make_source(const MemsimOptions& o, const MemoryInfo& info,
                                           std::ifstream& trace) {
  if (!o.trace.empty()) {
    trace.open(o.trace);
    if (!trace) throw Failure(input_error(o.trace + ": cannot open the trace file"));
    return std::make_unique<TraceSource>(trace, o.trace);
  }
  try {
    if (o.generator == "stream")
      return std::make_unique<StreamSource>(info.capacity_bytes, info.burst_bytes, o.streams,
                                            o.write_fraction, o.rate, o.seed);
    return std::make_unique<RandomSource>(info.capacity_bytes, info.burst_bytes, o.write_fraction,
                                          o.rate, o.seed);
  } catch (const sdk::Error& e) {
    throw Failure(input_error(e.what()));
  }
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

}  // namespace

MemoryRunReport drive_model(MemoryModel& model, TrafficSource& source, uint64_t cycles,
                            FrontEnd front_end) {
  MemoryRunReport report;
  report.info = checked_info(model);
  report.cycles = cycles;
  const uint32_t channels = report.info.channels;
  report.channels.resize(channels);
  for (uint32_t ch = 0; ch < channels; ++ch) report.channels[ch].channel = ch;

  InFlight in_flight(model.library().name());
  LatencyCounts latencies(channels);
  // Made once: a std::function built per advance (each cycle) would allocate for this lambda.
  const std::function<void(const tessera_memory_completion&)> done =
      [&](const tessera_memory_completion& c) {
        const InFlight::Request r = in_flight.finish(c.id);
        if (!r.is_write)
          latencies.add(r.channel, c.done_cycle - c.issue_cycle,
                        report.channels[r.channel].read_latency);
      };
  uint64_t now = 0;
  auto advance_to = [&](uint64_t cycle) {
    if (cycle <= now) return;
    model.advance(cycle - now, done).take();
    now = cycle;
  };
  // Only a read's channel is used (its latency goes to that channel's histogram; the per-channel
  // counts come from the model): a write's is not asked, one ABI call fewer per write.
  auto latency_channel = [&](const TrafficRequest& r) {
    return r.is_write ? 0 : channel_of(model, channels, r.address);
  };
  auto offer = [&](const TrafficRequest& r, uint32_t channel) {
    tessera_memory_request request{in_flight.next_id(), r.address, r.is_write ? 1u : 0u, 0};
    if (model.submit(&request, 1).take() == 0) return false;
    in_flight.start({channel, r.is_write});
    ++report.accepted;
    return true;
  };
  if (front_end == FrontEnd::in_order) {
    drive_requests(source, cycles, [&](const TrafficRequest& r, uint64_t cycle) {
      advance_to(cycle);
      return offer(r, latency_channel(r));
    });
  } else {
    // A refused request is offered again every cycle until accepted (for hundreds of cycles when
    // the memory is saturated): its channel is asked once.
    std::optional<TrafficRequest> pending = source.next();
    std::optional<uint32_t> channel;  // pending's, once it has been offered
    for (uint64_t cycle = 0; pending && cycle < cycles; ++cycle) {
      cycle = std::max(cycle, pending->cycle);
      if (cycle >= cycles) break;
      advance_to(cycle + 1);  // the memory runs cycle `cycle` first
      if (!channel) channel = latency_channel(*pending);
      if (offer(*pending, *channel)) {
        pending = source.next();
        channel.reset();
      }
    }
  }
  advance_to(cycles);
  for (MemoryChannelReport& c : report.channels) {
    latencies.add_to(c.channel, c.read_latency);
    c.stats = per_channel(model.channel_stats(c.channel));
  }
  return report;
}

MemoryRunReport run_memsim(PluginSet& plugins, const MemsimOptions& o) {
  MemoryModel model = make_model(plugins, o);
  const MemoryInfo info = checked_info(model);
  std::ifstream trace;
  std::unique_ptr<TrafficSource> source = make_source(o, info, trace);
  // A DRAMsim3 trace is offered as DRAMsim3 offers it, so that both give the same figures.
  MemoryRunReport report = drive_model(
      model, *source, o.cycles, o.trace.empty() ? FrontEnd::in_order : FrontEnd::dramsim3_cpu);
  const Manifest& m = model.library().manifest();
  report.config = !info.source.empty() ? info.source
                  : !o.config.empty()  ? o.config
                                       : "(not reported by the model)";
  report.device = !info.description.empty() ? info.description
                                            : m.name + " " + m.version + ": " + m.description;
  report.traffic = describe_traffic(o);
  report.stacks = o.stacks.value_or(1);
  return report;
}

}  // namespace tessera::memsim
