// CostModel contracts: what the planner relies on when it ranks plans by their times. Tile times
// are positive and finite (+inf: the core cannot run the tile), never shorter for more work, and
// the same whether asked in one batch, one by one, by a newer host or from many threads; transfers
// take longer the more bytes they move; the info fields are usable rates.
//
// Queries are built as the host builds them (framework/planner/partition/evaluate.cpp): FLOPs and
// bytes follow from the extents, so "more work" grows every field at once. Work is swept densely
// (every count up to kDense) and then geometrically, so a fit whose pieces do not meet is caught.
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <tuple>
#include <type_traits>

#include "framework/plugin/objects.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_cost_model_suite() {}

namespace {

constexpr uint64_t kDense = 32768, kLargest = uint64_t{1} << 32;
constexpr double kGeometricStep = 1.01;
constexpr uint64_t kBaseExtent = 64, kBaseElements = 4096;

bool matmul_like(uint32_t kind) {
  return kind == TESSERA_OP_MATMUL || kind == TESSERA_OP_BATCHED_MATMUL || kind == TESSERA_OP_CONV;
}

// Every count 1..kDense, then ~1% steps up to `largest`.
std::vector<uint64_t> work_sweep(uint64_t dense, uint64_t largest) {
  std::vector<uint64_t> counts;
  for (uint64_t c = 1; c <= dense; ++c) counts.push_back(c);
  for (double c = static_cast<double>(dense) * kGeometricStep; c <= static_cast<double>(largest);
       c *= kGeometricStep)
    counts.push_back(static_cast<uint64_t>(c));
  return counts;
}

// One core's tile of `kind`: batch x m x k x n for matmul-like kinds, `m` output elements for the
// others (two inputs of as many elements each).
tessera_tile_query tile(uint32_t kind, uint32_t dtype, uint64_t batch, uint64_t m, uint64_t k,
                        uint64_t n) {
  tessera_tile_query q{};
  q.op_kind = kind;
  q.dtype = dtype;
  const double b = dtype_bytes(dtype);
  if (!matmul_like(kind)) {
    q.batch = q.m = q.k = q.n = 1;
    q.elements = m;
    q.flops = static_cast<double>(m);
    q.bytes_in = 2 * b * static_cast<double>(m);
    q.bytes_out = b * static_cast<double>(m);
    return q;
  }
  const auto [bd, md, kd, nd] = std::tuple(static_cast<double>(batch), static_cast<double>(m),
                                           static_cast<double>(k), static_cast<double>(n));
  q.batch = batch;
  q.m = m;
  q.k = k;
  q.n = n;
  q.elements = batch * m * n;
  q.flops = 2 * bd * md * kd * nd;
  q.bytes_in = b * bd * (md * kd + kd * nd);
  q.bytes_out = b * bd * md * nd;
  return q;
}

tessera_tile_query base_tile(uint32_t kind, uint32_t dtype) {
  return matmul_like(kind) ? tile(kind, dtype, 1, kBaseExtent, kBaseExtent, kBaseExtent)
                           : tile(kind, dtype, 1, kBaseElements, 1, 1);
}

std::string describe(const tessera_tile_query& q) {
  std::string what = op_kind_name(q.op_kind) + " " + dtype_name(q.dtype) + " ";
  if (!matmul_like(q.op_kind)) return what + std::to_string(q.elements) + " elements";
  return what + "batch " + std::to_string(q.batch) + " m " + std::to_string(q.m) + " k " +
         std::to_string(q.k) + " n " + std::to_string(q.n);
}

std::string describe(const tessera_transfer_query& q) {
  static const char* const kClasses[] = {"on-chip", "memory", "chip-to-chip"};
  return std::string(kClasses[q.link_class]) + " " + std::to_string(q.hops) + " hops, packets " +
         format_number(q.packet_bytes) + " B, " + format_number(q.bytes) + " B";
}

// The same double, NaN included.
bool same(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// The index of the first answer that differs, as text, or "".
std::string first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size())
    return std::to_string(a.size()) + " answers, then " + std::to_string(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i]))
      return "query " + std::to_string(i) + ": " + format_number(a[i]) + " s, then " +
             format_number(b[i]) + " s";
  return "";
}

class CostModelContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::cost_model);
    model_ = make_default<tessera_cost_model>(library());
    ASSERT_TRUE(model_);
  }

  // Times of `queries` in one call, laid out `stride` bytes apart as a host with a larger query
  // struct would; empty (and a failure) when the call fails.
  template <class Q>
  std::vector<double> ask(const std::vector<Q>& queries, size_t stride = sizeof(Q),
                          const tessera_cost_model* model = nullptr) const {
    const tessera_cost_model* c = model != nullptr ? model : model_.get();
    std::vector<unsigned char> bytes(queries.size() * stride, 0);
    for (size_t i = 0; i < queries.size(); ++i)
      std::memcpy(bytes.data() + i * stride, &queries[i], sizeof(Q));
    std::vector<double> seconds(queries.size(), std::numeric_limits<double>::quiet_NaN());
    const Q* raw = reinterpret_cast<const Q*>(bytes.data());
    std::optional<Error> error;
    if constexpr (std::is_same_v<Q, tessera_tile_query>)
      error = invoke("tile_seconds", [&] {
        return c->tile_seconds(c, raw, stride, queries.size(), seconds.data());
      });
    else
      error = invoke("transfer_seconds", [&] {
        return c->transfer_seconds(c, raw, stride, queries.size(), seconds.data());
      });
    if (!error) return seconds;
    ADD_FAILURE() << error->message;
    return {};
  }

  // A mix of every kind and dtype at a few sizes, and of transfers.
  std::vector<tessera_tile_query> mixed_tiles() const {
    std::vector<tessera_tile_query> queries;
    for (uint32_t kind = 0; kind <= TESSERA_OP_OTHER; ++kind)
      for (uint32_t dtype = 0; dtype < dtype_count(); ++dtype)
        for (uint64_t size : {1, 7, 64, 1000})
          queries.push_back(tile(kind, dtype, 2, size, size + 3, 2 * size));
    return queries;
  }
  static std::vector<tessera_transfer_query> mixed_transfers() {
    std::vector<tessera_transfer_query> queries;
    for (uint32_t link = 0; link <= TESSERA_LINK_CHIP_TO_CHIP; ++link)
      for (uint32_t hops : {0, 1, 5})
        for (double bytes : {1.0, 100.0, 65536.0, 1e9})
          queries.push_back({link, hops, bytes, bytes > 100 ? 1024.0 : 0.0});
    return queries;
  }

  // One batch, the same queries one by one, and the batch as a host whose query structs grew
  // (ABI rule 3: a larger stride, the extra bytes zero) must all answer alike.
  template <class Q>
  void expect_batches_answer_like_singles(const std::vector<Q>& queries, const char* method) {
    constexpr size_t kNewerHost = 24;
    std::vector<double> batch = ask(queries), single;
    for (const Q& q : queries) {
      std::vector<double> one = ask(std::vector{q});
      single.push_back(one.empty() ? std::numeric_limits<double>::quiet_NaN() : one[0]);
    }
    EXPECT_EQ(first_difference(batch, single), "") << method << ": a batch and single queries";
    EXPECT_EQ(first_difference(batch, ask(queries, sizeof(Q) + kNewerHost)), "")
        << method << ": queries of a newer host (query_size larger than 1.0's)";
  }

  Owned<tessera_cost_model> model_;
};

TEST_P(CostModelContract, InfoIsSane) {
  tessera_cost_model_info info{};
  info.struct_size = sizeof(info);
  ASSERT_EQ(outcome(invoke("get_info", [&] { return model_->get_info(model_.get(), &info); })),
            "OK");
  EXPECT_PRED1(positive_finite, info.clock_hz) << "clock_hz";
  EXPECT_PRED1(positive_finite, info.shift_bytes_per_s) << "shift_bytes_per_s";
  EXPECT_PRED1(non_negative_finite, info.sync_s) << "sync_s";
  expect_honours_struct_size<tessera_cost_model_info>(
      "get_info",
      [&](tessera_cost_model_info* out) { return model_->get_info(model_.get(), out); });
}

TEST_P(CostModelContract, TileTimesArePositiveAndFinite) {
  Problems problems;
  for (uint32_t kind = 0; kind <= TESSERA_OP_OTHER; ++kind) {
    std::vector<tessera_tile_query> queries;
    for (uint32_t dtype = 0; dtype < dtype_count(); ++dtype)
      queries.push_back(base_tile(kind, dtype));
    std::vector<double> seconds = ask(queries);
    bool runs = false;
    for (size_t i = 0; i < seconds.size(); ++i) {
      // +inf is the ABI's "the core cannot run this tile"; anything else must be a real time.
      if (seconds[i] == std::numeric_limits<double>::infinity()) continue;
      runs = true;
      if (!positive_finite(seconds[i]))
        problems.add(
            describe(queries[i]) + ": " + format_number(seconds[i]) +
            " s; a tile takes a positive, finite time (or +inf when the core cannot run it)");
    }
    if (!seconds.empty() && !runs)
      problems.add(op_kind_name(kind) + ": +inf in every dtype; the planner cannot place such ops");
  }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

// The tiles of one sweep: dimension `axis` (batch, m, k, n; the element count of other kinds)
// takes each of `counts`, the others stay at the base tile's.
std::vector<tessera_tile_query> sweep(uint32_t kind, uint32_t dtype, size_t axis,
                                      const std::vector<uint64_t>& counts) {
  std::vector<tessera_tile_query> queries;
  for (uint64_t c : counts) {
    std::array<uint64_t, 4> dims{1, kBaseExtent, kBaseExtent, kBaseExtent};
    dims[axis] = c;
    queries.push_back(matmul_like(kind) ? tile(kind, dtype, dims[0], dims[1], dims[2], dims[3])
                                        : tile(kind, dtype, 1, c, 1, 1));
  }
  return queries;
}

// The first place where a time falls as `queries` (ordered by growing work) grow, or "".
std::string first_drop(const std::vector<tessera_tile_query>& queries,
                       const std::vector<double>& seconds) {
  for (size_t i = 1; i < seconds.size(); ++i)
    if (seconds[i] < seconds[i - 1] || std::isnan(seconds[i]))
      return describe(queries[i - 1]) + " -> " + describe(queries[i]) + ": " +
             format_number(seconds[i - 1]) + " s -> " + format_number(seconds[i]) +
             " s; more work must never be faster";
  return "";
}

TEST_P(CostModelContract, TileTimesAreMonotoneInWork) {
  const std::vector<uint64_t> elements = work_sweep(kDense, kLargest);
  const std::vector<uint64_t> extents = work_sweep(kDense / 8, uint64_t{1} << 20);
  Problems problems;
  for (uint32_t kind = 0; kind <= TESSERA_OP_OTHER; ++kind)
    for (uint32_t dtype = 0; dtype < dtype_count(); ++dtype) {
      std::vector<double> base = ask(std::vector{base_tile(kind, dtype)});
      if (base.empty() || base[0] == std::numeric_limits<double>::infinity()) continue;
      for (size_t axis = 0; axis < (matmul_like(kind) ? 4u : 1u); ++axis) {
        auto queries = sweep(kind, dtype, axis, matmul_like(kind) ? extents : elements);
        if (std::string drop = first_drop(queries, ask(queries)); !drop.empty()) problems.add(drop);
      }
    }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(CostModelContract, TransferTimeGrowsWithBytes) {
  const std::vector<uint64_t> sizes = work_sweep(kDense / 4, uint64_t{1} << 36);
  Problems problems;
  for (uint32_t link = 0; link <= TESSERA_LINK_CHIP_TO_CHIP; ++link)
    for (uint32_t hops : {0, 1, 4})
      for (double packet : {0.0, 64.0, 2048.0}) {
        std::vector<tessera_transfer_query> queries;
        for (uint64_t bytes : sizes)
          queries.push_back({link, hops, static_cast<double>(bytes), packet});
        std::vector<double> seconds = ask(queries);
        for (size_t i = 0; i < seconds.size(); ++i) {
          if (!positive_finite(seconds[i])) {
            problems.add(describe(queries[i]) + ": " + format_number(seconds[i]) +
                         " s; moving bytes takes a positive, finite time");
            break;
          }
          if (i > 0 && seconds[i] < seconds[i - 1]) {
            problems.add(describe(queries[i - 1]) + " -> " + format_number(queries[i].bytes) +
                         " B: " + format_number(seconds[i - 1]) + " s -> " +
                         format_number(seconds[i]) + " s; more bytes must never be faster");
            break;
          }
        }
        if (!seconds.empty() && !(seconds.back() > seconds.front()))
          problems.add(describe(queries.back()) + " takes no longer than 1 B (" +
                       format_number(seconds.front()) + " s); time must grow with bytes");
      }
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

TEST_P(CostModelContract, BatchesAnswerLikeSingleQueries) {
  expect_batches_answer_like_singles(mixed_tiles(), "tile_seconds");
  expect_batches_answer_like_singles(mixed_transfers(), "transfer_seconds");
}

TEST_P(CostModelContract, AnswersAreDeterministicAcrossObjectsAndThreads) {
  constexpr int kThreads = 4;
  const std::vector<tessera_tile_query> tiles = mixed_tiles();
  const std::vector<tessera_transfer_query> transfers = mixed_transfers();
  const std::vector<double> first = ask(tiles), first_transfers = ask(transfers);
  Owned<tessera_cost_model> other = make_default<tessera_cost_model>(library());
  ASSERT_TRUE(other);
  EXPECT_EQ(first_difference(first, ask(tiles, sizeof(tessera_tile_query), other.get())), "")
      << "two objects of one chip timed tiles differently";
  EXPECT_EQ(first_difference(first_transfers,
                             ask(transfers, sizeof(tessera_transfer_query), other.get())),
            "")
      << "two objects of one chip timed transfers differently";
  // Both methods are [concurrent]: one object asked from many threads at once.
  std::vector<std::vector<double>> answers(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&, t] { answers[t] = ask(tiles); });
  for (auto& t : threads) t.join();
  for (const auto& a : answers)
    EXPECT_EQ(first_difference(first, a), "") << "tile_seconds answered differently from a thread";
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(CostModelContract);

}  // namespace tessera::conformance
