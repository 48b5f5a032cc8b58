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
// had queued at once (and one batch of offers).
class InFlight {
 public:
  static constexpr uint32_t kChannelUnknown = UINT32_MAX;
  struct Request {
    uint32_t channel = kChannelUnknown;  // known once the offer that queued it has returned
    uint32_t batch_index = 0;            // its place in that offer
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
  // The channel of a request that its offer queued, unless it has already completed.
  void place(uint64_t id, uint32_t channel) {
    if (slots_[id].busy) slots_[id].request.channel = channel;
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

void check_channel(const MemoryModel& model, uint32_t channels, uint64_t address,
                   uint32_t channel) {
  if (channel >= channels)
    throw Failure(plugin_error(
        fmt::format("plugin '{}': memory_model.offer put address {:#x} on channel {}, but the "
                    "model has {} channels",
                    model.library().name(), address, channel, channels),
        StatusCode::internal));
}

// Requests per offer: the host crosses into the model once per batch, not per cycle.
constexpr size_t kBatchRequests = 4096;

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
  // Reads that completed before the offer that queued them returned (with their channel).
  std::vector<std::pair<uint32_t, uint64_t>> unplaced;  // batch index, latency
  // Made once: a std::function built per offer would allocate for this lambda.
  const std::function<void(const tessera_memory_completion&)> done =
      [&](const tessera_memory_completion& c) {
        const InFlight::Request r = in_flight.finish(c.id);
        if (r.is_write) return;
        const uint64_t latency = c.done_cycle - c.issue_cycle;
        if (r.channel == InFlight::kChannelUnknown)
          unplaced.emplace_back(r.batch_index, latency);
        else
          latencies.add(r.channel, latency, report.channels[r.channel].read_latency);
      };
  // The in-order front end offers a request at its cycle, before the model runs it, several in a
  // cycle; DRAMsim3's CPU once the memory has run its cycle, one per cycle (memsim.hpp).
  const bool cpu = front_end == FrontEnd::dramsim3_cpu;
  const uint64_t spacing = cpu ? 1 : 0, delay = cpu ? 1 : 0;
  uint64_t now = 0;
  std::optional<TrafficRequest> next = source.next();
  std::vector<tessera_memory_request> batch;
  std::vector<uint64_t> offer_cycles;
  std::vector<uint32_t> batch_channels;
  while (cycles > 0 && next) {
    const uint64_t last_offer = cycles - 1 + delay;  // the last cycle an offer may be made at
    // A batch of the requests that may still be offered, each at its cycle or after the last one
    // accepted; a trace is read no further than the cycles simulated (and one request ahead).
    batch.clear();
    offer_cycles.clear();
    for (; next && next->cycle < cycles && batch.size() < kBatchRequests; next = source.next()) {
      const uint64_t id = in_flight.next_id();
      in_flight.start(
          {InFlight::kChannelUnknown, static_cast<uint32_t>(batch.size()), next->is_write});
      batch.push_back({id, next->address, next->is_write ? 1u : 0u, 0});
      offer_cycles.push_back(std::max(next->cycle + delay, now + spacing) - now);
    }
    if (batch.empty()) break;
    batch_channels.assign(batch.size(), 0);
    sdk::OfferProgress progress;
    Status offered = model.offer(batch.data(), offer_cycles.data(), batch.size(), spacing,
                                 last_offer - now, done, batch_channels.data(), progress);
    per_channel(std::move(offered));
    now += progress.cycles_run;
    report.accepted += progress.accepted;
    for (size_t k = 0; k < progress.accepted; ++k) {
      check_channel(model, channels, batch[k].address, batch_channels[k]);
      in_flight.place(batch[k].id, batch_channels[k]);
    }
    for (const auto& [k, latency] : unplaced)
      latencies.add(batch_channels[k], latency, report.channels[batch_channels[k]].read_latency);
    unplaced.clear();
    for (size_t k = progress.accepted; k < batch.size(); ++k) in_flight.finish(batch[k].id);
    if (progress.accepted < batch.size()) break;  // the run ended with a request refused
  }
  if (cycles > now) model.advance(cycles - now, done).take();
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
