#include "framework/common/status.hpp"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(Status, CodesMatchTheAbi) {
  EXPECT_STREQ(to_string(StatusCode::invalid_argument), "INVALID_ARGUMENT");
  EXPECT_EQ(static_cast<int>(StatusCode::internal), TESSERA_INTERNAL);
}

TEST(Result, HoldsValueOrError) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  Result<int> bad = input_error("chip.yaml:3: 'topology.cores': must be positive");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::input);
  EXPECT_EQ(bad.error().code, StatusCode::invalid_argument);
}

TEST(Result, TakingAnErrorThrowsFailureWithTheMessage) {
  Result<int> bad = plugin_error("cannot load x.so", StatusCode::not_found);
  try {
    (void)std::move(bad).take();
    FAIL() << "take() of an error must throw";
  } catch (const Failure& f) {
    EXPECT_EQ(f.error().message, "cannot load x.so");
    EXPECT_EQ(f.error().kind, ErrorKind::plugin);
  }
}

}  // namespace
}  // namespace tessera
