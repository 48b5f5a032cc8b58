// MemoryModel contracts (ABI 1.0 methods, then 1.1's and 1.4's), what the simulator relies on when
// it drives a memory cycle by cycle: every request it submits completes exactly once, not before it
// was submitted, taking at least a cycle, and not later than the cycle the model has reached; the
// statistics count them; no traffic and no fast-mode answer beats the peak bandwidth the model
// reports; and the same requests give the same completions and statistics on another object.
//
// The traffic mixes the simulator's patterns: sequential reads (weights streaming in), random
// reads and random writes (KV cache), interleaved, offered as fast as the model accepts them.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <random>
#include <tessera/sdk/traffic.hpp>
#include <tuple>

#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_memory_model_suite() {}

namespace {

constexpr size_t kSequential = 1024, kRandomReads = 512, kWrites = 512;
constexpr uint64_t kSubmitStep = 8;        // cycles between offers while requests wait
constexpr uint64_t kDrainStep = 4096;      // cycles per advance once everything is queued
constexpr uint64_t kBudget = 4'000'000;    // cycles after which a request counts as dropped
constexpr uint64_t kAfterwards = 100'000;  // cycles run after the last completion
constexpr uint64_t kTrafficSeed = 0x3e3041;

// A completion with the cycle the host had reached when the model reported it.
struct Completed {
  tessera_memory_completion done;
  uint64_t reported_by = 0;  // the model's cycle after the advance that reported it
};

struct Traffic {
  std::vector<tessera_memory_request> requests;
  std::vector<uint64_t> submitted;  // per request, the cycle it was accepted at
  std::vector<Completed> completions;
  uint64_t cycles = 0;  // advanced in all
  std::string problem;  // a call failed or the model misbehaved while driven
};

std::vector<tessera_memory_request> mixed_requests(const tessera_memory_info& info) {
  const uint64_t bursts = std::max<uint64_t>(info.capacity_bytes / info.burst_bytes, 1);
  std::mt19937_64 random(kTrafficSeed);
  std::vector<tessera_memory_request> requests;
  for (size_t i = 0; i < kSequential; ++i)
    requests.push_back({0, (i % bursts) * info.burst_bytes, 0, 0});
  for (size_t i = 0; i < kRandomReads + kWrites; ++i)
    requests.push_back({0, random() % bursts * info.burst_bytes, i >= kRandomReads ? 1u : 0u, 0});
  std::shuffle(requests.begin() + static_cast<std::ptrdiff_t>(kSequential / 2), requests.end(),
               random);
  // Ids the host picks freely: sparse, large, so an id the model mangles is noticed.
  for (size_t i = 0; i < requests.size(); ++i) requests[i].id = 0x9e3779b97f4a7c15ULL * (i + 1);
  return requests;
}

std::string request_text(const Traffic& t, size_t i) {
  const tessera_memory_request& r = t.requests[i];
  return std::string(r.is_write ? "write" : "read") + " " + std::to_string(i) + " (id " +
         std::to_string(r.id) + ", address " + std::to_string(r.address) + ")";
}

class MemoryModelContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::memory_model);
    model_ = make_default<tessera_memory_model>(library());
    ASSERT_TRUE(model_);
    info_.struct_size = sizeof(info_);
    ASSERT_EQ(outcome(invoke("get_info", [&] { return model_->get_info(model_.get(), &info_); })),
              "OK");
    ASSERT_GE(info_.burst_bytes, 1u) << "burst_bytes: a request moves at least a byte";
  }

  // Called from plugin code: nothing may be thrown back across the C ABI.
  static void on_complete(void* context, const tessera_memory_completion* done) noexcept {
    auto* t = static_cast<Traffic*>(context);
    try {
      t->completions.push_back({*done, 0});
    } catch (...) {
      t->problem = "out of memory recording completions";
    }
  }

  // Advances `m` by `cycles`, stamping what it reported with the cycle reached.
  static bool advance(tessera_memory_model* m, uint64_t cycles, Traffic& t) {
    tessera_completion_sink sink{&t, &on_complete};
    size_t before = t.completions.size();
    if (auto e = invoke("advance", [&] { return m->advance(m, cycles, &sink); })) {
      t.problem = e->message;
      return false;
    }
    t.cycles += cycles;
    for (size_t i = before; i < t.completions.size(); ++i) t.completions[i].reported_by = t.cycles;
    return true;
  }

  // Offers the traffic as fast as `m` accepts it, then runs until every request completed or
  // kBudget cycles passed, then kAfterwards more (a late duplicate shows there).
  static Traffic drive(tessera_memory_model* m, std::vector<tessera_memory_request> requests) {
    Traffic t;
    t.requests = std::move(requests);
    t.submitted.assign(t.requests.size(), 0);
    for (size_t next = 0; next < t.requests.size() && t.cycles < kBudget;) {
      size_t accepted = 0;
      if (auto e = invoke("submit", [&] {
            return m->submit(m, t.requests.data() + next, t.requests.size() - next, &accepted);
          })) {
        t.problem = e->message;
        return t;
      }
      if (accepted > t.requests.size() - next) {
        t.problem = "submit accepted " + std::to_string(accepted) + " of " +
                    std::to_string(t.requests.size() - next) + " requests offered";
        return t;
      }
      std::fill_n(t.submitted.begin() + static_cast<std::ptrdiff_t>(next), accepted, t.cycles);
      next += accepted;
      if (next < t.requests.size() && !advance(m, kSubmitStep, t)) return t;
    }
    while (t.completions.size() < t.requests.size() && t.cycles < kBudget)
      if (!advance(m, kDrainStep, t)) return t;
    advance(m, kAfterwards, t);
    return t;
  }

  Traffic drive_mixed(tessera_memory_model* m) const { return drive(m, mixed_requests(info_)); }

  tessera_memory_stats stats(const tessera_memory_model* m) const {
    tessera_memory_stats s{};
    s.struct_size = sizeof(s);
    EXPECT_EQ(outcome(invoke("get_stats", [&] { return m->get_stats(m, &s); })), "OK");
    return s;
  }

  Owned<tessera_memory_model> model_;
  tessera_memory_info info_{};
};

TEST_P(MemoryModelContract, InfoIsSane) {
  EXPECT_PRED1(positive_finite, info_.clock_hz) << "clock_hz";
  EXPECT_PRED1(positive_finite, info_.peak_bytes_per_s) << "peak_bytes_per_s";
  EXPECT_GE(info_.channels, 1u) << "channels";
  EXPECT_GE(info_.capacity_bytes, info_.burst_bytes) << "capacity_bytes: less than one burst";
  tessera_memory_model* m = model_.get();
  expect_honours_struct_size<tessera_memory_info>(
      "get_info", [&](tessera_memory_info* out) { return m->get_info(m, out); });
  expect_honours_struct_size<tessera_memory_stats>(
      "get_stats", [&](tessera_memory_stats* out) { return m->get_stats(m, out); });
}

TEST_P(MemoryModelContract, EveryRequestCompletesExactlyOnce) {
  Traffic t = drive_mixed(model_.get());
  ASSERT_EQ(t.problem, "");
  std::map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < t.requests.size(); ++i) by_id[t.requests[i].id] = i;
  std::vector<int> seen(t.requests.size(), 0);
  Problems problems;
  for (const Completed& c : t.completions) {
    auto it = by_id.find(c.done.id);
    if (it == by_id.end()) {
      problems.add("a completion for id " + std::to_string(c.done.id) + ", which no request has");
      continue;
    }
    if (++seen[it->second] == 2) problems.add(request_text(t, it->second) + " completed twice");
  }
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] == 0)
      problems.add(request_text(t, i) + " never completed within " + std::to_string(kBudget) +
                   " cycles");
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(MemoryModelContract, CompletionCyclesAreCausal) {
  Traffic t = drive_mixed(model_.get());
  ASSERT_EQ(t.problem, "");
  std::map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < t.requests.size(); ++i) by_id[t.requests[i].id] = i;
  Problems problems;
  for (const Completed& c : t.completions) {
    auto it = by_id.find(c.done.id);
    if (it == by_id.end()) continue;  // EveryRequestCompletesExactlyOnce reports it
    const tessera_memory_completion& d = c.done;
    std::string who = request_text(t, it->second) + ": issue " + std::to_string(d.issue_cycle) +
                      ", done " + std::to_string(d.done_cycle) + ": ";
    if (d.issue_cycle < t.submitted[it->second])
      problems.add(who + "issued before it was submitted at cycle " +
                   std::to_string(t.submitted[it->second]));
    if (d.done_cycle <= d.issue_cycle)
      problems.add(who + "done without taking a cycle; a device needs at least one");
    if (d.done_cycle > c.reported_by)
      problems.add(who + "reported when the model had reached cycle " +
                   std::to_string(c.reported_by) + ", before it was done");
  }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(MemoryModelContract, StatisticsCountTheTraffic) {
  Traffic t = drive_mixed(model_.get());
  ASSERT_EQ(t.problem, "");
  tessera_memory_stats s = stats(model_.get());
  uint64_t writes = 0;
  for (const auto& r : t.requests) writes += r.is_write;
  EXPECT_EQ(s.cycles, t.cycles) << "stats.cycles: the cycles the model was advanced";
  EXPECT_EQ(s.reads, t.requests.size() - writes) << "stats.reads: every read completed";
  EXPECT_EQ(s.writes, writes) << "stats.writes: every write completed";
  EXPECT_PRED1(non_negative_finite, s.bytes_per_s) << "stats.bytes_per_s";
  EXPECT_PRED1(non_negative_finite, s.avg_read_latency_cycles) << "stats.avg_read_latency_cycles";
  EXPECT_PRED1(non_negative_finite, s.energy_j) << "stats.energy_j";
}

TEST_P(MemoryModelContract, NoTrafficBeatsThePeakBandwidth) {
  // A little slack for rounding in the model's own arithmetic.
  const double peak = info_.peak_bytes_per_s * (1 + 1e-9);
  Traffic t = drive_mixed(model_.get());
  ASSERT_EQ(t.problem, "");
  tessera_memory_stats s = stats(model_.get());
  EXPECT_LE(s.bytes_per_s, peak) << "stats.bytes_per_s above peak_bytes_per_s "
                                 << info_.peak_bytes_per_s;
  // From the completions: the requests' bytes over the cycles from the first submission to the
  // last completion.
  uint64_t last = 0;
  for (const Completed& c : t.completions) last = std::max(last, c.done.done_cycle);
  ASSERT_GT(last, 0u) << "nothing completed after cycle 0";
  double seconds = static_cast<double>(last) / info_.clock_hz;
  double bytes = static_cast<double>(t.completions.size()) * info_.burst_bytes;
  EXPECT_LE(bytes / seconds, peak)
      << t.completions.size() << " bursts of " << info_.burst_bytes << " B done by cycle " << last
      << ": faster than the peak " << info_.peak_bytes_per_s << " B/s";
  for (uint32_t streams : {1u, 2u, 4u}) {
    double bytes_per_s = 0, latency_s = 0;
    tessera_memory_model* m = model_.get();
    ASSERT_EQ(outcome(invoke("sustained",
                             [&] { return m->sustained(m, streams, &bytes_per_s, &latency_s); })),
              "OK");
    EXPECT_PRED1(positive_finite, bytes_per_s) << "sustained(" << streams << ")";
    EXPECT_LE(bytes_per_s, peak) << "sustained(" << streams << ") above the peak";
    EXPECT_PRED1(positive_finite, latency_s) << "sustained(" << streams << ") latency";
  }
}

TEST_P(MemoryModelContract, SameRequestsSameCompletionsAndStatistics) {
  Owned<tessera_memory_model> other = make_default<tessera_memory_model>(library());
  ASSERT_TRUE(other);
  Traffic a = drive_mixed(model_.get()), b = drive_mixed(other.get());
  ASSERT_EQ(a.problem, "");
  ASSERT_EQ(b.problem, "");
  ASSERT_EQ(a.completions.size(), b.completions.size());
  for (size_t i = 0; i < a.completions.size(); ++i) {
    const auto &x = a.completions[i].done, &y = b.completions[i].done;
    ASSERT_TRUE(x.id == y.id && x.issue_cycle == y.issue_cycle && x.done_cycle == y.done_cycle)
        << "completion " << i << ": id " << x.id << " issue " << x.issue_cycle << " done "
        << x.done_cycle << ", then id " << y.id << " issue " << y.issue_cycle << " done "
        << y.done_cycle;
  }
  tessera_memory_stats s = stats(model_.get()), u = stats(other.get());
  EXPECT_TRUE(std::tie(s.cycles, s.reads, s.writes, s.row_hits, s.row_misses, s.activates,
                       s.refreshes, s.bytes_per_s, s.avg_read_latency_cycles, s.energy_j) ==
              std::tie(u.cycles, u.reads, u.writes, u.row_hits, u.row_misses, u.activates,
                       u.refreshes, u.bytes_per_s, u.avg_read_latency_cycles, u.energy_j))
      << "two objects given the same requests report different statistics";
}

// ---- ABI 1.1 ------------------------------------------------------------------------------------
// Per-channel statistics and the address -> channel map come with ABI 1.1, so these tests skip a
// plugin built for 1.0 (plugin_abi.h rule 4): channel_of names a channel below `channels` for
// every address, the same one each time; every request is counted on the channel its address maps
// to; the channels' statistics add up to get_stats'; out-of-range channels are refused.

class MemoryModel11Contract : public MemoryModelContract {
 protected:
  void SetUp() override {
    MemoryModelContract::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (descriptor().abi_minor < 1 || model_->struct_size < sizeof(tessera_memory_model))
      GTEST_SKIP() << "built for plugin ABI 1.0: no per-channel statistics";
  }

  std::optional<uint32_t> channel_of(uint64_t address) const {
    uint32_t channel = UINT32_MAX;
    auto e =
        invoke("channel_of", [&] { return model_->channel_of(model_.get(), address, &channel); });
    EXPECT_EQ(outcome(e), "OK") << "address " << address;
    if (e) return std::nullopt;
    return channel;
  }

  tessera_memory_stats channel_stats(uint32_t channel) const {
    tessera_memory_stats s{};
    s.struct_size = sizeof(s);
    EXPECT_EQ(outcome(invoke("get_channel_stats",
                             [&] { return model_->get_channel_stats(model_.get(), channel, &s); })),
              "OK")
        << "channel " << channel;
    return s;
  }
};

TEST_P(MemoryModel11Contract, ChannelOfIsInRangeAndDeterministic) {
  for (const tessera_memory_request& r : mixed_requests(info_)) {
    auto channel = channel_of(r.address);
    ASSERT_TRUE(channel.has_value());
    ASSERT_LT(*channel, info_.channels) << "address " << r.address;
    ASSERT_EQ(channel_of(r.address), channel) << "address " << r.address << " maps twice alike";
  }
  expect_invalid_argument("get_channel_stats(channels)", [&] {
    tessera_memory_stats s{};
    s.struct_size = sizeof(s);
    return model_->get_channel_stats(model_.get(), info_.channels, &s);
  });
}

TEST_P(MemoryModel11Contract, RequestsCountOnTheirChannelAndChannelsAddUpToTheTotals) {
  std::vector<tessera_memory_request> requests = mixed_requests(info_);
  std::vector<uint64_t> reads(info_.channels, 0), writes(info_.channels, 0);
  for (const auto& r : requests) {
    auto channel = channel_of(r.address);
    ASSERT_TRUE(channel.has_value());
    (r.is_write ? writes : reads)[*channel]++;
  }
  Traffic t = drive(model_.get(), requests);
  ASSERT_EQ(t.problem, "");
  tessera_memory_stats total = stats(model_.get()), sum{};
  double latency_sum = 0;
  for (uint32_t c = 0; c < info_.channels; ++c) {
    tessera_memory_stats s = channel_stats(c);
    EXPECT_EQ(s.reads, reads[c]) << "reads counted on channel " << c;
    EXPECT_EQ(s.writes, writes[c]) << "writes counted on channel " << c;
    EXPECT_EQ(s.cycles, total.cycles) << "channel " << c << " runs on the model's clock";
    sum.row_hits += s.row_hits;
    sum.row_misses += s.row_misses;
    sum.activates += s.activates;
    sum.refreshes += s.refreshes;
    sum.bytes_per_s += s.bytes_per_s;
    sum.energy_j += s.energy_j;
    latency_sum += s.avg_read_latency_cycles * static_cast<double>(s.reads);
  }
  EXPECT_EQ(sum.row_hits, total.row_hits);
  EXPECT_EQ(sum.row_misses, total.row_misses);
  EXPECT_EQ(sum.activates, total.activates);
  EXPECT_EQ(sum.refreshes, total.refreshes);
  EXPECT_NEAR(sum.bytes_per_s, total.bytes_per_s, 1e-9 * total.bytes_per_s + 1e-9);
  EXPECT_NEAR(sum.energy_j, total.energy_j, 1e-9 * std::abs(total.energy_j) + 1e-15);
  if (total.reads > 0) {
    EXPECT_NEAR(latency_sum / static_cast<double>(total.reads), total.avg_read_latency_cycles,
                1e-9 * total.avg_read_latency_cycles + 1e-9)
        << "the total latency is the channels' mean weighted by their reads";
  }
}

// ---- ABI 1.4 ------------------------------------------------------------------------------------
// offer is the host's front end run inside the plugin: it must be exactly the submits and
// advances it stands for (sdk::offer_requests over the same object's methods), offer for offer,
// completion for completion, whether the plugin keeps the SDK's default or has its own. Skipped
// for a plugin built before 1.4, which the host drives with submit and advance itself.

class MemoryModel14Contract : public MemoryModel11Contract {
 protected:
  void SetUp() override {
    MemoryModel11Contract::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (descriptor().abi_minor < 4 ||
        model_->struct_size < offsetof(tessera_memory_model, offer) + sizeof(void*) ||
        model_->offer == nullptr)
      GTEST_SKIP() << "built for plugin ABI 1." << descriptor().abi_minor << ": no offer";
  }

  struct Offered {
    sdk::OfferProgress progress;
    std::vector<uint32_t> channels;
  };

  // One offer of requests[from ..) on `m`, through the method or (`by_steps`) as its definition:
  // the same front end over submit, advance and channel_of.
  static Offered offer(tessera_memory_model* m, const std::vector<tessera_memory_request>& requests,
                       size_t from, const std::vector<uint64_t>& at, uint64_t spacing,
                       uint64_t last_cycle, Traffic& t, bool by_steps) {
    Offered o;
    o.channels.assign(requests.size() - from, UINT32_MAX);
    const tessera_memory_request* r = requests.data() + from;
    const size_t count = requests.size() - from;
    if (!by_steps) {
      tessera_completion_sink sink{&t, &on_complete};
      if (auto e = invoke("offer", [&] {
            return m->offer(m, r, at.data(), count, spacing, last_cycle, &sink, o.channels.data(),
                            &o.progress.accepted, &o.progress.cycles_run);
          }))
        t.problem = e->message;
      t.cycles += o.progress.cycles_run;
      return o;
    }
    struct Failed {};  // t.problem says what
    const uint64_t start = t.cycles;
    try {
      sdk::offer_requests(
          r, at.data(), count, spacing, last_cycle, o.channels.data(), o.progress,
          [&](const tessera_memory_request& one) {
            size_t accepted = 0;
            if (auto e = invoke("submit", [&] { return m->submit(m, &one, 1, &accepted); })) {
              t.problem = e->message;
              throw Failed{};
            }
            return accepted == 1;
          },
          [&](uint64_t cycles) {
            if (!advance(m, cycles, t)) throw Failed{};
          },
          [&](uint64_t address) {
            uint32_t channel = UINT32_MAX;
            if (auto e =
                    invoke("channel_of", [&] { return m->channel_of(m, address, &channel); })) {
              t.problem = e->message;
              throw Failed{};
            }
            return channel;
          });
    } catch (const Failed&) {
      return o;
    }
    EXPECT_EQ(t.cycles - start, o.progress.cycles_run);
    return o;
  }

  // The mixed traffic offered in two calls (the first cut short by its last cycle), then drained.
  Traffic run(tessera_memory_model* m, uint64_t spacing, bool by_steps,
              std::vector<Offered>& calls) const {
    Traffic t;
    t.requests = mixed_requests(info_);
    // Request i due at cycle 3i/4: several per cycle for spacing 0, late ones for spacing 1.
    std::vector<uint64_t> due(t.requests.size());
    for (size_t i = 0; i < due.size(); ++i) due[i] = 3 * i / 4;
    const uint64_t cut = due[due.size() / 2];
    calls.push_back(offer(m, t.requests, 0, due, spacing, cut, t, by_steps));
    const size_t from = calls.back().progress.accepted;
    std::vector<uint64_t> rest;
    for (size_t i = from; i < due.size(); ++i) rest.push_back(due[i] > cut ? due[i] - cut : 0);
    calls.push_back(offer(m, t.requests, from, rest, spacing, kBudget, t, by_steps));
    advance(m, kAfterwards, t);
    return t;
  }
};

TEST_P(MemoryModel14Contract, OfferIsItsSubmitsAndAdvancesCycleForCycle) {
  for (uint64_t spacing : {0, 1}) {
    SCOPED_TRACE("spacing " + std::to_string(spacing));
    Owned<tessera_memory_model> a = make_default<tessera_memory_model>(library());
    Owned<tessera_memory_model> b = make_default<tessera_memory_model>(library());
    ASSERT_TRUE(a && b);
    std::vector<Offered> offered, stepped;
    Traffic x = run(a.get(), spacing, false, offered), y = run(b.get(), spacing, true, stepped);
    ASSERT_EQ(x.problem, "");
    ASSERT_EQ(y.problem, "");
    for (size_t call = 0; call < 2; ++call) {
      const Offered &o = offered[call], &s = stepped[call];
      EXPECT_EQ(o.progress.accepted, s.progress.accepted) << "requests accepted by call " << call;
      EXPECT_EQ(o.progress.cycles_run, s.progress.cycles_run) << "cycles run by call " << call;
      for (size_t i = 0; i < s.progress.accepted && i < o.channels.size(); ++i)
        ASSERT_EQ(o.channels[i], s.channels[i])
            << "channel of request " << i << " of call " << call;
    }
    EXPECT_GT(offered[0].progress.accepted, 0u);
    EXPECT_LT(offered[0].progress.accepted, x.requests.size()) << "the first call is cut short";
    ASSERT_EQ(x.completions.size(), y.completions.size());
    for (size_t i = 0; i < x.completions.size(); ++i) {
      const auto &p = x.completions[i].done, &q = y.completions[i].done;
      ASSERT_TRUE(p.id == q.id && p.issue_cycle == q.issue_cycle && p.done_cycle == q.done_cycle)
          << "completion " << i << ": offer gave id " << p.id << " issue " << p.issue_cycle
          << " done " << p.done_cycle << ", its steps id " << q.id << " issue " << q.issue_cycle
          << " done " << q.done_cycle;
    }
    tessera_memory_stats s = stats(a.get()), u = stats(b.get());
    EXPECT_TRUE(std::tie(s.cycles, s.reads, s.writes, s.row_hits, s.activates, s.energy_j) ==
                std::tie(u.cycles, u.reads, u.writes, u.row_hits, u.activates, u.energy_j))
        << "offer and its steps leave different statistics";
  }
}

TEST_P(MemoryModel14Contract, OfferChecksItsArguments) {
  Traffic t;
  tessera_completion_sink sink{&t, &on_complete};
  size_t accepted = 7;
  uint64_t cycles_run = 7;
  EXPECT_EQ(outcome(invoke("offer",
                           [&] {
                             return model_->offer(model_.get(), nullptr, nullptr, 0, 0, 10, &sink,
                                                  nullptr, &accepted, &cycles_run);
                           })),
            "OK");
  EXPECT_EQ(accepted, 0u);
  EXPECT_EQ(cycles_run, 0u) << "nothing to offer runs no cycle";
  const tessera_memory_request r{1, 0, 0, 0};
  const uint64_t at = 0;
  expect_invalid_argument("offer(accepted NULL)", [&] {
    return model_->offer(model_.get(), &r, &at, 1, 0, 10, &sink, nullptr, nullptr, &cycles_run);
  });
  expect_invalid_argument("offer(sink NULL)", [&] {
    return model_->offer(model_.get(), &r, &at, 1, 0, 10, nullptr, nullptr, &accepted, &cycles_run);
  });
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(MemoryModelContract);
TESSERA_INSTANTIATE_FOR_PLUGINS(MemoryModel11Contract);
TESSERA_INSTANTIATE_FOR_PLUGINS(MemoryModel14Contract);

}  // namespace tessera::conformance
