// The host's traffic sources (framework/memsim/request_sources.hpp) and the SDK's stream and front
// end they share with memory-model plugins (<tessera/sdk/traffic.hpp>).
#include "framework/memsim/request_sources.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <tessera/sdk/error.hpp>

#include "framework/common/status.hpp"

namespace tessera::memsim {
namespace {

std::vector<TrafficRequest> all_of(TrafficSource& source) {
  std::vector<TrafficRequest> out;
  while (auto r = source.next()) out.push_back(*r);
  return out;
}

std::string trace_error(const std::string& text) {
  std::istringstream in(text);
  TraceSource source(in, "t.trace");
  try {
    all_of(source);
  } catch (const Failure& f) {
    EXPECT_EQ(f.error().kind, ErrorKind::input);
    EXPECT_EQ(f.error().code, StatusCode::invalid_argument);
    return f.error().message;
  }
  return "no error";
}

// The message of the sdk::Error that `make` throws.
template <class Make>
std::string argument_error(Make&& make) {
  try {
    make();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), TESSERA_INVALID_ARGUMENT);
    return e.what();
  }
  return "no error";
}

TEST(Trace, ReadsDramsim3Lines) {
  std::istringstream in("0x1f40 READ 0\n\n# comment\n1F80 WRITE 3\n0x40 P_MEM_WR 3\n0x80 BOFF 9\n");
  TraceSource source(in, "t.trace");
  auto requests = all_of(source);
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].address, 0x1f40u);
  EXPECT_FALSE(requests[0].is_write);
  EXPECT_EQ(requests[1].address, 0x1f80u);
  EXPECT_TRUE(requests[1].is_write);
  EXPECT_EQ(requests[1].cycle, 3u);
  EXPECT_TRUE(requests[2].is_write);
  EXPECT_FALSE(requests[3].is_write);
  EXPECT_EQ(requests[3].cycle, 9u);
}

TEST(Trace, MalformedLinesNameTheFileAndLine) {
  EXPECT_EQ(trace_error("0x0 READ 0\n0x40 READ\n"),
            "t.trace:2: expected '<hex address> READ|WRITE <cycle>', got '0x40 READ'");
  EXPECT_EQ(trace_error("0x0 READ 0 extra\n"),
            "t.trace:1: expected '<hex address> READ|WRITE <cycle>', got '0x0 READ 0 extra'");
  EXPECT_EQ(trace_error("zz READ 0\n"),
            "t.trace:1: 'zz' is not a hexadecimal address (e.g. 0x1f40)");
  EXPECT_EQ(trace_error("-1 READ 0\n"),
            "t.trace:1: '-1' is not a hexadecimal address (e.g. 0x1f40)");
  EXPECT_EQ(trace_error("0x0 FETCH 0\n"),
            "t.trace:1: unknown request type 'FETCH'; expected READ or WRITE");
  EXPECT_EQ(trace_error("0x0 READ ten\n"),
            "t.trace:1: 'ten' is not a cycle number (a whole number >= 0)");
  EXPECT_EQ(trace_error("0x0 READ 10\n0x40 WRITE 5\n"),
            "t.trace:2: cycle 5 is earlier than the previous request's cycle 10; a trace must be "
            "in time order");
  EXPECT_EQ(trace_error("0x10000000000000000 READ 1\n"),
            "t.trace:1: '0x10000000000000000' is not a hexadecimal address (e.g. 0x1f40)");
}

TEST(Generators, StreamsAreSequentialAndInterleaved) {
  StreamSource source(1 << 20, 64, 2, 0.0, 0.0, 7);
  TrafficRequest a0 = *source.next(), b0 = *source.next(), a1 = *source.next(), b1 = *source.next();
  EXPECT_EQ(a1.address, (a0.address + 64) % (1 << 20));
  EXPECT_EQ(b1.address, (b0.address + 64) % (1 << 20));
  EXPECT_EQ(a0.address % 64, 0u);
  EXPECT_EQ(a1.cycle, 0u);  // rate 0: as fast as accepted
}

TEST(Generators, RandomAddressesAreAlignedAndDeterministicPerSeed) {
  RandomSource a(1 << 20, 32, 0.5, 0.0, 3), b(1 << 20, 32, 0.5, 0.0, 3),
      c(1 << 20, 32, 0.5, 0.0, 4);
  int writes = 0, differ = 0;
  for (int i = 0; i < 1000; ++i) {
    TrafficRequest x = *a.next(), y = *b.next(), z = *c.next();
    EXPECT_EQ(x.address, y.address);
    EXPECT_EQ(x.is_write, y.is_write);
    EXPECT_EQ(x.address % 32, 0u);
    EXPECT_LT(x.address, 1u << 20);
    writes += x.is_write;
    differ += x.address != z.address;
  }
  EXPECT_NEAR(writes, 500, 60);
  EXPECT_GT(differ, 990);
}

TEST(Generators, APacedSourceSpacesRequests) {
  RandomSource source(1 << 20, 64, 0.0, 0.25, 1);
  std::vector<uint64_t> cycles;
  for (int i = 0; i < 5; ++i) cycles.push_back(source.next()->cycle);
  EXPECT_EQ(cycles, (std::vector<uint64_t>{0, 4, 8, 12, 16}));
  StreamSource three_per_two(1 << 20, 64, 1, 0.0, 1.5, 1);
  cycles.clear();
  for (int i = 0; i < 5; ++i) cycles.push_back(three_per_two.next()->cycle);
  EXPECT_EQ(cycles, (std::vector<uint64_t>{0, 0, 1, 2, 2}));
}

TEST(Generators, ImpossibleArgumentsSayWhatIsWrong) {
  EXPECT_EQ(argument_error([] { RandomSource(1 << 20, 64, 0.0, -1.0, 1); }),
            "the request rate must be a finite number >= 0 (0 = as fast as accepted), got "
            "-1.000000");
  EXPECT_EQ(argument_error([] { RandomSource(1 << 20, 64, 1.5, 0.0, 1); }),
            "the write fraction must be in [0, 1], got 1.500000");
  EXPECT_EQ(argument_error([] { StreamSource(1 << 20, 64, 0, 0.0, 0.0, 1); }),
            "the number of streams must be at least 1");
  // What a memory model reports may be impossible too: a host takes both from its info.
  EXPECT_EQ(argument_error([] { RandomSource(32, 64, 0.0, 0.0, 1); }),
            "traffic needs requests of at least 1 byte and a capacity of at least one request, "
            "got 64 B requests and 32 B");
  EXPECT_EQ(argument_error([] { StreamSource(1 << 20, 0, 1, 0.0, 0.0, 1); }),
            "traffic needs requests of at least 1 byte and a capacity of at least one request, "
            "got 0 B requests and 1048576 B");
}

TEST(Generators, AStreamWrapsAtTheCapacity) {
  StreamSource source(256, 64, 1, 0.0, 0.0, 3);
  std::vector<uint64_t> addresses;
  for (int i = 0; i < 5; ++i) addresses.push_back(source.next()->address);
  for (int i = 1; i < 5; ++i) EXPECT_EQ(addresses[i], (addresses[i - 1] + 64) % 256) << i;
  EXPECT_EQ(addresses[4], addresses[0]);
}

TEST(Drive, ARefusedRequestHoldsBackEverythingAfterIt) {
  std::istringstream in("0x0 READ 0\n0x40 READ 0\n0x80 READ 7\n");
  TraceSource source(in, "t.trace");
  std::vector<std::pair<uint64_t, uint64_t>> accepted;  // address, cycle
  int refusals = 2;
  drive_requests(source, 100, [&](const TrafficRequest& r, uint64_t cycle) {
    if (r.address == 0x40 && refusals-- > 0) return false;
    accepted.emplace_back(r.address, cycle);
    return true;
  });
  EXPECT_EQ(accepted, (std::vector<std::pair<uint64_t, uint64_t>>{{0x0, 0}, {0x40, 2}, {0x80, 7}}));
}

TEST(Drive, StopsAtTheEndCycle) {
  std::istringstream in("0x0 READ 0\n0x40 READ 50\n");
  TraceSource source(in, "t.trace");
  int offered = 0;
  drive_requests(source, 50, [&](const TrafficRequest&, uint64_t) { return ++offered > 0; });
  EXPECT_EQ(offered, 1);
}

// ---- sdk::offer_requests, MemoryModel::offer's front end (plugin_abi.h, ABI 1.4) ----------------

// A model that records every offer (request id, cycle) and refuses a request `refusals[id]` times.
struct ScriptedModel {
  uint64_t now = 0;
  std::map<uint64_t, int> refusals;
  std::vector<std::pair<uint64_t, uint64_t>> offers;  // id, cycle
  std::vector<uint64_t> advances;
  sdk::OfferProgress progress;
  std::vector<uint32_t> channels;

  void offer(const std::vector<tessera_memory_request>& requests, const std::vector<uint64_t>& at,
             uint64_t spacing, uint64_t last_cycle) {
    channels.assign(requests.size(), 99);
    progress = {};
    sdk::offer_requests(
        requests.data(), at.data(), requests.size(), spacing, last_cycle, channels.data(), progress,
        [&](const tessera_memory_request& r) {
          offers.emplace_back(r.id, now);
          return refusals[r.id]-- <= 0;
        },
        [&](uint64_t cycles) {
          advances.push_back(cycles);
          now += cycles;
        },
        [](uint64_t address) { return static_cast<uint32_t>(address / 64); });
  }
};

std::vector<tessera_memory_request> requests_with_ids(std::initializer_list<uint64_t> ids) {
  std::vector<tessera_memory_request> requests;
  for (uint64_t id : ids) requests.push_back({id, id * 64, 0, 0});
  return requests;
}

using Offers = std::vector<std::pair<uint64_t, uint64_t>>;

TEST(Offer, InOrderOffersRequestsDueTogetherInOneCycleAndRetriesARefusedOneEachCycle) {
  ScriptedModel m;
  m.refusals[2] = 2;
  m.offer(requests_with_ids({1, 2, 3, 4}), {3, 3, 3, 9}, 0, 100);
  EXPECT_EQ(m.offers, (Offers{{1, 3}, {2, 3}, {2, 4}, {2, 5}, {3, 5}, {4, 9}}));
  EXPECT_EQ(m.advances, (std::vector<uint64_t>{3, 1, 1, 4}));
  EXPECT_EQ(m.progress.accepted, 4u);
  EXPECT_EQ(m.progress.cycles_run, 9u) << "the model stays at its last offer";
  EXPECT_EQ(m.channels, (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST(Offer, SpacingOneOffersAtMostOneRequestPerCycle) {
  ScriptedModel m;
  m.refusals[2] = 1;
  m.offer(requests_with_ids({1, 2, 3, 4}), {1, 1, 1, 2}, 1, 100);
  EXPECT_EQ(m.offers, (Offers{{1, 1}, {2, 2}, {2, 3}, {3, 4}, {4, 5}}));
  EXPECT_EQ(m.progress.cycles_run, 5u);
}

TEST(Offer, NoOfferAfterTheLastCycleAndTheModelDoesNotRunPastItsLastOffer) {
  ScriptedModel m;
  m.refusals[2] = 1000;
  m.offer(requests_with_ids({1, 2, 3}), {0, 2, 2}, 0, 6);
  EXPECT_EQ(m.offers, (Offers{{1, 0}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {2, 6}}));
  EXPECT_EQ(m.progress.accepted, 1u);
  EXPECT_EQ(m.progress.cycles_run, 6u);
  EXPECT_EQ(m.channels, (std::vector<uint32_t>{1, 99, 99})) << "only accepted requests are named";

  ScriptedModel late;  // the next request's first offer would come after the last cycle
  late.offer(requests_with_ids({1, 2}), {4, 50}, 0, 20);
  EXPECT_EQ(late.offers, (Offers{{1, 4}}));
  EXPECT_EQ(late.progress.cycles_run, 4u);
  ScriptedModel spaced;  // the same, by the spacing, at the end of the cycle range
  spaced.offer(requests_with_ids({1, 2}), {UINT64_MAX - 1, 0}, 5, UINT64_MAX);
  EXPECT_EQ(spaced.offers, (Offers{{1, UINT64_MAX - 1}}));
  EXPECT_EQ(spaced.progress.accepted, 1u);
}

TEST(Offer, ARefusalAtTheLastCycleOfTheClockEndsTheCallInsteadOfWrapping) {
  ScriptedModel m;
  m.refusals[1] = 1000;
  m.offer(requests_with_ids({1}), {UINT64_MAX}, 0, UINT64_MAX);
  EXPECT_EQ(m.offers, (Offers{{1, UINT64_MAX}}));
  EXPECT_EQ(m.progress.accepted, 0u);
  EXPECT_EQ(m.progress.cycles_run, UINT64_MAX);
}

TEST(Offer, ProgressSaysHowFarItGotWhenTheModelThrows) {
  sdk::OfferProgress progress;
  const auto requests = requests_with_ids({1, 2, 3});
  const std::vector<uint64_t> at = {1, 2, 3};
  uint64_t now = 0;
  EXPECT_THROW(sdk::offer_requests(
                   requests.data(), at.data(), requests.size(), 0, 100, nullptr, progress,
                   [&](const tessera_memory_request& r) {
                     if (r.id == 3) throw sdk::invalid_argument("bad address");
                     return true;
                   },
                   [&](uint64_t cycles) { now += cycles; }, [](uint64_t) -> uint32_t { return 0; }),
               sdk::Error);
  EXPECT_EQ(progress.accepted, 2u);
  EXPECT_EQ(progress.cycles_run, 3u);
  EXPECT_EQ(now, 3u);
}

}  // namespace
}  // namespace tessera::memsim
