// A streamed vendor stack's own read rate (PlannerOptions::vendor_stream_bytes_per_s): the vendor
// design's loads are timed at the lower of it and the memory's rate, and the result records it;
// the other designs keep the memory's rate. Models timed by hand.
#include <gtest/gtest.h>

#include "framework/planner/planner.hpp"
#include "tests/unit/planner/synthetic.hpp"

namespace tessera::planner {
namespace {

using testing::round_machine;
using testing::synthetic_op;

// Two ops that compute for 0.1 s on 500 B each read from HBM (0.5 s at the machine's 1000 B/s).
PlannerInput two_loads() {
  PlannerInput in;
  in.classes.class_of = testing::identity_classes(2);
  for (int i = 0; i < 2; ++i) in.class_plans.push_back(synthetic_op(500, {{100, 0.1}}, {{100, 0}}));
  in.machine = round_machine(10000);
  return in;
}

DesignResult plan(Design design, double stream_bytes_per_s) {
  PlannerOptions options;
  options.threads = 1;
  options.vendor = VendorStack::streamed;
  options.vendor_stream_bytes_per_s = stream_bytes_per_s;
  return plan_design(two_loads(), design, options).take();
}

// At 250 B/s each op's stream takes 2 s, and the compute runs under it: 2 × 2 s.
TEST(VendorStream, TheVendorDesignReadsAtTheStacksRateWhereItIsLower) {
  DesignResult r = plan(Design::vendor, 250);
  EXPECT_NEAR(r.latency_s, 2 * 2.0, 1e-12);
  EXPECT_EQ(r.stream_bytes_per_s, 250);
  EXPECT_NEAR(r.ops[1].preload_end_s - r.ops[1].preload_start_s, 2.0, 1e-12);
}

// Without a rate, or with one above the memory's, the memory's 1000 B/s: 2 × 0.5 s.
TEST(VendorStream, NoRateOrAFasterOneLeavesTheMemorysRate) {
  for (double rate : {0.0, 4000.0}) {
    DesignResult r = plan(Design::vendor, rate);
    EXPECT_NEAR(r.latency_s, 2 * 0.5, 1e-12) << rate;
    EXPECT_EQ(r.stream_bytes_per_s, 0) << rate;
  }
}

// Elk's designs and the yardsticks are not the stack's: Basic streams at the memory's rate.
TEST(VendorStream, OtherDesignsKeepTheMemorysRate) {
  DesignResult r = plan(Design::basic, 250);
  EXPECT_NEAR(r.latency_s, 2 * 0.5 + 0.1, 1e-12);
  EXPECT_EQ(r.stream_bytes_per_s, 0);
}

}  // namespace
}  // namespace tessera::planner
