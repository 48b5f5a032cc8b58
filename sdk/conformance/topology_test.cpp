// Topology contracts: what the mapper and the simulator rely on. Counts agree with the tables,
// links are physical, every core reaches every core and memory controller, routes are loop-free
// chains of existing links, and the same question always gets the same answer.
//
// The chips are big (thousands of cores), so all-pairs routing is out of reach: strong connectivity
// is proved by a forward and a reverse search from one core, and routes are checked for every
// core/memory-controller pair, all pairs of the first cores, and a fixed pseudo-random sample.
#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <tuple>
#include <unordered_set>

#include "framework/plugin/objects.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_topology_suite() {}

namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

constexpr uint32_t kAllPairsAmongFirst = 64;
constexpr size_t kSampledCorePairs = 20000;
constexpr uint64_t kTopologySampleSeed = 0x7e55e4a;

// Everything a topology reports except routes, read once per test.
struct Snapshot {
  TopologyInfo info;
  std::vector<Endpoint> endpoints;
  std::vector<Link> links;
  std::vector<Level> levels;
};

Result<Snapshot> read_snapshot(const Topology& t) {
  Snapshot s;
  auto info = t.info();
  if (!info) return info.error();
  s.info = *info;
  for (uint32_t i = 0; i < s.info.num_endpoints; ++i) {
    auto e = t.endpoint(i);
    if (!e) return e.error();
    s.endpoints.push_back(*e);
  }
  for (uint32_t i = 0; i < s.info.num_links; ++i) {
    auto l = t.link(i);
    if (!l) return l.error();
    s.links.push_back(*l);
  }
  for (uint32_t i = 0; i < s.info.num_levels; ++i) {
    auto l = t.level(i);
    if (!l) return l.error();
    s.levels.push_back(*l);
  }
  return s;
}

// Field-by-field views, for comparing two objects' answers.
auto fields(const TopologyInfo& i) {
  return std::tie(i.name, i.num_cores, i.num_endpoints, i.num_links, i.num_chips, i.num_levels,
                  i.sram_bytes_per_core, i.sram_bytes_per_s, i.clock_hz);
}
auto fields(const Endpoint& e) {
  return std::tie(e.kind, e.chip, e.x, e.y, e.level, e.parent, e.memory_bytes, e.name);
}
auto fields(const Link& l) {
  return std::tie(l.src, l.dst, l.link_class, l.network, l.bytes_per_s, l.latency_s);
}
auto fields(const Level& l) {
  return std::tie(l.name, l.fanout, l.nodes, l.memory_bytes, l.down_bytes_per_s, l.up_bytes_per_s);
}
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return fields(x) == fields(y); });
}

bool is_core(const Endpoint& e) {
  return e.kind == TESSERA_ENDPOINT_CORE;
}

std::vector<uint32_t> endpoints_of_kind(const Snapshot& s, tessera_endpoint_kind kind) {
  std::vector<uint32_t> found;
  for (const auto& e : s.endpoints)
    if (e.kind == kind) found.push_back(e.index);
  return found;
}

// All ordered pairs among the first cores, then a fixed pseudo-random sample of the rest (all
// pairs when there are few cores). Includes src == dst, whose route must be empty.
Pairs core_pairs(uint32_t cores) {
  Pairs pairs;
  uint32_t first = std::min(cores, kAllPairsAmongFirst);
  for (uint32_t a = 0; a < first; ++a)
    for (uint32_t b = 0; b < first; ++b) pairs.emplace_back(a, b);
  if (uint64_t{cores} * cores <= kSampledCorePairs) {
    for (uint32_t a = 0; a < cores; ++a)
      for (uint32_t b = a < first ? first : 0; b < cores; ++b) pairs.emplace_back(a, b);
    return pairs;
  }
  std::mt19937_64 random(kTopologySampleSeed);
  for (size_t i = 0; i < kSampledCorePairs; ++i)
    pairs.emplace_back(static_cast<uint32_t>(random() % cores),
                       static_cast<uint32_t>(random() % cores));
  return pairs;
}

// Every core to every memory controller and back.
Pairs memory_pairs(const Snapshot& s) {
  Pairs pairs;
  for (uint32_t mc : endpoints_of_kind(s, TESSERA_ENDPOINT_MEMORY_CONTROLLER))
    for (uint32_t core = 0; core < s.info.num_cores; ++core) {
      pairs.emplace_back(core, mc);
      pairs.emplace_back(mc, core);
    }
  return pairs;
}

// Endpoints reachable from `start` over directed links (against their direction if `reverse`).
std::vector<bool> reachable(const Snapshot& s, uint32_t start, bool reverse) {
  std::vector<std::vector<uint32_t>> next(s.endpoints.size());
  for (const auto& l : s.links) {
    if (l.src >= next.size() || l.dst >= next.size()) continue;  // LinksArePhysical reports it
    if (reverse)
      next[l.dst].push_back(l.src);
    else
      next[l.src].push_back(l.dst);
  }
  std::vector<bool> seen(s.endpoints.size(), false);
  std::deque<uint32_t> queue{start};
  seen[start] = true;
  while (!queue.empty()) {
    uint32_t at = queue.front();
    queue.pop_front();
    for (uint32_t n : next[at])
      if (!seen[n]) queue.push_back(n), seen[n] = true;
  }
  return seen;
}

std::string describe(const Snapshot& s, uint32_t endpoint) {
  std::string name = endpoint < s.endpoints.size() ? s.endpoints[endpoint].name : "(missing)";
  return "endpoint " + std::to_string(endpoint) + " '" + name + "'";
}

// Why `route` is not a loop-free chain of existing links from src to dst; "" when it is.
std::string route_problem(const Snapshot& s, uint32_t src, uint32_t dst,
                          const std::vector<uint32_t>& route) {
  std::string where = "route " + describe(s, src) + " -> " + describe(s, dst) + ": ";
  if (src == dst) return route.empty() ? "" : where + "must be empty (src == dst)";
  if (route.empty()) return where + "is empty";
  uint32_t at = src;
  std::unordered_set<uint32_t> visited{src};
  for (size_t i = 0; i < route.size(); ++i) {
    std::string hop = "hop " + std::to_string(i) + " (link " + std::to_string(route[i]) + ") ";
    if (route[i] >= s.links.size()) return where + hop + "does not exist";
    const Link& l = s.links[route[i]];
    if (l.src != at)
      return where + hop + "starts at " + describe(s, l.src) + ", not where the last ended";
    at = l.dst;
    if (!visited.insert(at).second) return where + hop + "revisits " + describe(s, at);
  }
  return at == dst ? "" : where + "ends at " + describe(s, at);
}

// The first pair routed differently in `a` and `b`, or "".
std::string first_difference(const Snapshot& s, const Pairs& pairs,
                             const std::vector<std::vector<uint32_t>>& a,
                             const std::vector<std::vector<uint32_t>>& b) {
  for (size_t i = 0; i < pairs.size() && i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i])
      return describe(s, pairs[i].first) + " -> " + describe(s, pairs[i].second) + ": " +
             std::to_string(a[i].size()) + " links, then " + std::to_string(b[i].size());
  return "";
}

class TopologyContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::topology);
    auto params = default_params(manifest(), Interface::topology);
    ASSERT_TRUE(params) << params.error().message;
    params_ = *params;
    topology_ = make_topology();
    ASSERT_TRUE(topology_);
    auto snapshot = read_snapshot(*topology_);
    ASSERT_TRUE(snapshot) << snapshot.error().message;
    s_ = std::move(snapshot).value();
    // The tests below index cores from 0.
    ASSERT_GE(s_.info.num_cores, 1u) << "a topology needs at least one core";
    ASSERT_GE(s_.info.num_endpoints, s_.info.num_cores) << "cores are endpoints 0..num_cores-1";
  }

  std::optional<Topology> make_topology() const {
    auto t = create_topology(state().library, params_);
    if (!t) {
      ADD_FAILURE() << t.error().message;
      return std::nullopt;
    }
    return std::move(t).value();
  }

  // Routes every pair through `t` and checks each route against the snapshot.
  std::vector<std::vector<uint32_t>> check_routes(const Topology& t, const Pairs& pairs) const {
    Problems problems;
    std::vector<std::vector<uint32_t>> routes;
    routes.reserve(pairs.size());
    for (auto [src, dst] : pairs) {
      auto route = t.route(src, dst);
      if (!route) {
        problems.add(route.error().message);
        routes.emplace_back();
        continue;
      }
      if (std::string p = route_problem(s_, src, dst, *route); !p.empty()) problems.add(p);
      routes.push_back(std::move(route).value());
    }
    EXPECT_TRUE(problems.empty()) << problems.summary();
    return routes;
  }

  ParamList params_;
  std::optional<Topology> topology_;
  Snapshot s_;
};

TEST_P(TopologyContract, InfoIsSane) {
  const TopologyInfo& i = s_.info;
  EXPECT_GE(i.num_cores, 1u);
  EXPECT_GE(i.num_endpoints, i.num_cores);
  EXPECT_GE(i.num_chips, 1u);
  EXPECT_GT(i.sram_bytes_per_core, 0u);
  EXPECT_PRED1(positive_finite, i.sram_bytes_per_s);
  EXPECT_PRED1(positive_finite, i.clock_hz);
  EXPECT_FALSE(i.name.empty()) << "the chip needs a name for reports";
}

TEST_P(TopologyContract, PeakFlopsAreFiniteAndSomeDtypeComputes) {
  double best = 0;
  for (uint32_t d = 0; d < dtype_count(); ++d) {
    auto flops = topology_->peak_flops_per_s(d);
    ASSERT_TRUE(flops) << flops.error().message;
    EXPECT_PRED1(non_negative_finite, *flops) << dtype_name(d);
    best = std::max(best, *flops);
  }
  EXPECT_GT(best, 0) << "the cores compute in no dtype";
}

TEST_P(TopologyContract, EndpointsAreCoresFirstAndWellFormed) {
  Problems problems;
  for (const Endpoint& e : s_.endpoints) {
    std::string who = describe(s_, e.index) + ": ";
    if (e.kind > TESSERA_ENDPOINT_TREE_NODE)
      problems.add(who + "unknown kind " + std::to_string(e.kind));
    if (is_core(e) != (e.index < s_.info.num_cores))
      problems.add(who + "is a " + to_string(e.kind) + "; exactly endpoints 0.." +
                   std::to_string(s_.info.num_cores - 1) + " must be cores");
    if (e.chip >= s_.info.num_chips)
      problems.add(who + "chip " + std::to_string(e.chip) + " does not exist");
    if (is_core(e) && e.memory_bytes == 0) problems.add(who + "a core without SRAM");
    if (e.name.empty()) problems.add(who + "has no name");
    bool root = e.parent == UINT32_MAX;
    if (s_.info.num_levels == 0 && (e.level != 0 || !root))
      problems.add(who + "a flat chip's endpoints have level 0 and parent UINT32_MAX");
    if (s_.info.num_levels > 0 && !root &&
        (e.parent >= s_.endpoints.size() || s_.endpoints[e.parent].level + 1 != e.level))
      problems.add(who + "parent " + std::to_string(e.parent) + " is not one level up");
  }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(TopologyContract, LinksArePhysical) {
  Problems problems;
  const auto n = s_.endpoints.size();
  for (const Link& l : s_.links) {
    std::string who = "link " + std::to_string(l.index) + ": ";
    if (l.src >= n || l.dst >= n) {
      problems.add(who + "joins missing endpoints " + std::to_string(l.src) + " -> " +
                   std::to_string(l.dst));
      continue;
    }
    if (l.src == l.dst) problems.add(who + "is a self-loop at " + describe(s_, l.src));
    if (!positive_finite(l.bytes_per_s))
      problems.add(who + "bytes_per_s " + std::to_string(l.bytes_per_s));
    if (!non_negative_finite(l.latency_s))
      problems.add(who + "latency_s " + std::to_string(l.latency_s));
    if (l.link_class > TESSERA_LINK_CHIP_TO_CHIP)
      problems.add(who + "unknown class " + std::to_string(l.link_class));
  }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(TopologyContract, LevelsAreConsistent) {
  if (s_.levels.empty()) GTEST_SKIP() << "a flat chip: no hierarchy levels";
  uint64_t memory = 0;
  for (size_t i = 0; i < s_.levels.size(); ++i) {
    const Level& l = s_.levels[i];
    SCOPED_TRACE("level " + std::to_string(i) + " '" + l.name + "'");
    EXPECT_FALSE(l.name.empty());
    EXPECT_GE(l.fanout, 1u);
    // fanout is children per node of the level above (level 0: the number of roots).
    EXPECT_EQ(uint64_t{l.nodes}, uint64_t{l.fanout} * (i == 0 ? 1 : s_.levels[i - 1].nodes));
    // Level 0 has no parent, so its down/up bandwidths may be zero.
    auto bandwidth_ok = i == 0 ? non_negative_finite : positive_finite;
    EXPECT_PRED1(bandwidth_ok, l.down_bytes_per_s);
    EXPECT_PRED1(bandwidth_ok, l.up_bytes_per_s);
    memory += l.memory_bytes;  // a level may have no memory of its own, the tree may not
  }
  EXPECT_GT(memory, 0u) << "no level of the tree has memory";
}

TEST_P(TopologyContract, TreeEndpointsMatchTheirLevels) {
  if (s_.levels.empty()) GTEST_SKIP() << "a flat chip: no hierarchy levels";
  // Tree members: inner nodes, and cores that hang off one. Each level has `nodes` of them, each
  // with that level's memory.
  std::vector<uint64_t> members(s_.levels.size(), 0);
  Problems problems;
  for (const Endpoint& e : s_.endpoints) {
    if (e.kind != TESSERA_ENDPOINT_TREE_NODE && !(is_core(e) && e.parent != UINT32_MAX)) continue;
    if (e.level >= s_.levels.size()) {
      problems.add(describe(s_, e.index) + ": level " + std::to_string(e.level) +
                   " does not exist");
      continue;
    }
    ++members[e.level];
    if (e.memory_bytes != s_.levels[e.level].memory_bytes)
      problems.add(describe(s_, e.index) + ": memory_bytes " + std::to_string(e.memory_bytes) +
                   ", its level says " + std::to_string(s_.levels[e.level].memory_bytes));
  }
  for (size_t i = 0; i < members.size(); ++i)
    if (members[i] != s_.levels[i].nodes)
      problems.add("level " + std::to_string(i) + ": " + std::to_string(members[i]) +
                   " endpoints, the level says " + std::to_string(s_.levels[i].nodes) + " nodes");
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(TopologyContract, CoresAndMemoryControllersAreConnected) {
  // Core 0 reaches everything and everything reaches core 0: every pair is connected both ways.
  std::vector<bool> from = reachable(s_, 0, false), to = reachable(s_, 0, true);
  std::vector<uint32_t> must = endpoints_of_kind(s_, TESSERA_ENDPOINT_CORE);
  for (uint32_t mc : endpoints_of_kind(s_, TESSERA_ENDPOINT_MEMORY_CONTROLLER)) must.push_back(mc);
  Problems problems;
  for (uint32_t e : must) {
    if (!from[e]) problems.add(describe(s_, e) + " cannot be reached from core 0");
    if (!to[e]) problems.add(describe(s_, e) + " cannot reach core 0");
  }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(TopologyContract, RoutesBetweenCoresAreChainsOfLinks) {
  check_routes(*topology_, core_pairs(s_.info.num_cores));
}

TEST_P(TopologyContract, RoutesToAndFromMemoryControllersAreChainsOfLinks) {
  Pairs pairs = memory_pairs(s_);
  if (pairs.empty()) GTEST_SKIP() << "no memory controllers";
  check_routes(*topology_, pairs);
}

TEST_P(TopologyContract, RouteReportsItsLengthWhenTheBufferIsShort) {
  // The longest of a few hundred routes, so that a buffer one link short is not empty.
  Pairs pairs = core_pairs(std::min(s_.info.num_cores, kAllPairsAmongFirst));
  for (uint32_t mc : endpoints_of_kind(s_, TESSERA_ENDPOINT_MEMORY_CONTROLLER))
    pairs.emplace_back(0, mc);
  std::vector<std::vector<uint32_t>> routes = check_routes(*topology_, pairs);
  size_t longest = 0;
  for (size_t i = 0; i < routes.size(); ++i)
    if (routes[i].size() > routes[longest].size()) longest = i;
  auto [src, dst] = pairs[longest];
  const size_t n = routes[longest].size();
  if (n == 0) GTEST_SKIP() << "a single core and no memory controller: every route is empty";
  tessera_topology* t = topology_->raw();
  std::vector<uint32_t> links(n, UINT32_MAX);
  for (size_t capacity : {size_t{0}, n - 1}) {
    size_t count = 0;
    auto error = invoke("route", [&] {
      return t->route(t, src, dst, capacity == 0 ? nullptr : links.data(), capacity, &count);
    });
    ASSERT_TRUE(error) << "route with capacity " << capacity << " < " << n << " returned OK";
    EXPECT_STREQ(to_string(error->code), "OUT_OF_RANGE") << error->message;
    EXPECT_EQ(count, n) << "*count must receive the route's length";
    EXPECT_EQ(links, std::vector<uint32_t>(n, UINT32_MAX)) << "a short buffer must stay untouched";
  }
  size_t count = 0;
  EXPECT_EQ(
      outcome(invoke("route", [&] { return t->route(t, src, dst, links.data(), n, &count); })),
      "OK");
  EXPECT_EQ(count, n);
  EXPECT_EQ(links, routes[longest]);
}

TEST_P(TopologyContract, AnswersAreDeterministic) {
  Pairs pairs = core_pairs(s_.info.num_cores);
  Pairs memory = memory_pairs(s_);
  pairs.insert(pairs.end(), memory.begin(), memory.begin() + std::min<size_t>(memory.size(), 4096));
  auto first = check_routes(*topology_, pairs);
  EXPECT_EQ(first_difference(s_, pairs, first, check_routes(*topology_, pairs)), "")
      << "the same object routed differently";
  // A second object from the same parameters is the same chip.
  std::optional<Topology> other = make_topology();
  ASSERT_TRUE(other);
  auto snapshot = read_snapshot(*other);
  ASSERT_TRUE(snapshot) << snapshot.error().message;
  EXPECT_EQ(fields(snapshot->info), fields(s_.info));
  EXPECT_TRUE(same(snapshot->endpoints, s_.endpoints)) << "endpoints differ between two objects";
  EXPECT_TRUE(same(snapshot->links, s_.links)) << "links differ between two objects";
  EXPECT_TRUE(same(snapshot->levels, s_.levels)) << "levels differ between two objects";
  EXPECT_EQ(first_difference(s_, pairs, first, check_routes(*other, pairs)), "")
      << "two objects of one chip routed differently";
}

TEST_P(TopologyContract, OutputsHonourStructSize) {
  tessera_topology* t = topology_->raw();
  expect_honours_struct_size<tessera_topology_info>(
      "get_info", [&](tessera_topology_info* out) { return t->get_info(t, out); });
  expect_honours_struct_size<tessera_endpoint>(
      "get_endpoint", [&](tessera_endpoint* out) { return t->get_endpoint(t, 0, out); });
  if (!s_.links.empty())
    expect_honours_struct_size<tessera_link>(
        "get_link", [&](tessera_link* out) { return t->get_link(t, 0, out); });
  if (!s_.levels.empty())
    expect_honours_struct_size<tessera_level>(
        "get_level", [&](tessera_level* out) { return t->get_level(t, 0, out); });
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(TopologyContract);

}  // namespace tessera::conformance
