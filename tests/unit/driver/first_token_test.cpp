// The host's part of a prefill's time to first token: what it reads, at what rate, and when.
#include <gtest/gtest.h>

#include "framework/driver/driver.hpp"

namespace tessera::driver {
namespace {

// Llama 2 7B (a 32,000-token vocabulary, fp16) at 2 users of 16 tokens.
LoadedModel llama(zoo::Mode mode, zoo::Shard shard = {}) {
  ModelRequest request;
  request.model = "llama2-7b";
  request.shape.batch = 2;
  request.shape.seq = 16;
  request.shape.mode = mode;
  request.shape_given = true;
  request.shard = shard;
  return load(request).take();
}

ChipSpec with_host(std::optional<HostSpec> host) {
  ChipSpec spec;
  spec.host = host;
  return spec;
}

constexpr double kLogitsBytes = 2 * 32000 * 2;  // users × vocabulary × fp16

TEST(FirstToken, APrefillReadsEachUsersLogitsInTheHostsRowsAtItsRate) {
  auto read = first_token_read(with_host(HostSpec{2e9, 32}), llama(zoo::Mode::prefill));
  ASSERT_TRUE(read.has_value());
  // The logits alone: the KV cache the step writes stays on the device.
  EXPECT_EQ(read->bytes, 32 * kLogitsBytes);
  EXPECT_EQ(read->rows, 32);
  EXPECT_DOUBLE_EQ(read->seconds(), 32 * kLogitsBytes / 2e9);  // 2.048 ms
}

TEST(FirstToken, WithoutAHostSectionTheBytesAreKnownAndNothingIsCharged) {
  auto read = first_token_read(with_host(std::nullopt), llama(zoo::Mode::prefill));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->bytes, kLogitsBytes);
  EXPECT_EQ(read->bytes_per_s, 0);
  EXPECT_EQ(read->seconds(), 0);
}

TEST(FirstToken, ADecodeOrAStageHasNone) {
  const ChipSpec spec = with_host(HostSpec{2e9, 32});
  EXPECT_FALSE(first_token_read(spec, llama(zoo::Mode::decode)).has_value())
      << "a decode step hands back token ids";
  EXPECT_FALSE(first_token_read(spec, llama(zoo::Mode::prefill, zoo::Shard{.tp = 2})).has_value())
      << "a stage's outputs are a shard of the logits (the parallel compile reads the whole's)";
}

}  // namespace
}  // namespace tessera::driver
