// The SDK's typed parameters (<tessera/sdk/params.hpp>): a chip file's map or list where a plugin
// reads one value, or one value where it reads a list, is an error naming the key, never the
// getter's default.
#include <gtest/gtest.h>

#include <tessera/sdk/params.hpp>

namespace tessera::sdk {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Params, AMapWhereOneValueBelongsIsAnError) {
  Params p({{"clock_hz.ghz", "1.3"}, {"cores", "4"}});
  EXPECT_EQ(error_of([&] { (void)p.get_double("clock_hz", 1e9, 0.0); }),
            "parameter 'clock_hz': expected a single value, got a map or a list ('clock_hz.ghz')");
  EXPECT_EQ(p.get_int("cores", 1), 4);
  EXPECT_EQ(p.get_double("absent", 2.5), 2.5) << "a key that is not there keeps its default";
}

TEST(Params, OneValueWhereAListBelongsIsAnError) {
  Params p({{"hbm.placement", "5"}, {"levels.0", "1"}, {"levels.1", "2"}});
  EXPECT_EQ(error_of([&] { (void)p.get_int_list("hbm.placement"); }),
            "parameter 'hbm.placement': expected a list, got the single value '5'");
  EXPECT_EQ(p.get_int_list("levels"), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(p.get_int_list("none").empty());
}

// The host's planning convention reaches every cost model; one that prices transfers one way only
// may ignore it, and a rate only the per-core convention reads is refused under routes.
TEST(Params, TheHostsConventionIsNeverUnknownAndGuardsPerCoreRates) {
  Params routes({{"planner.transfers", "routes"}, {"rate", "2"}});
  EXPECT_EQ(error_of([&] { routes.refuse_unless_per_core("rate", "links.bytes_per_s"); }),
            "'cost_model.rate' is not read under the routes convention: transfers are priced on "
            "the topology's links; set 'topology.links.bytes_per_s' instead");
  Params per_core({{"planner.transfers", "per_core_rates"}, {"rate", "2"}});
  per_core.refuse_unless_per_core("rate", "links.bytes_per_s");
  EXPECT_EQ(per_core.get_double("rate", 1), 2);
  per_core.reject_unknown("cost_model");
  using Values = std::map<std::string, std::string>;
  Params silent(Values{{"planner.transfers", "routes"}});
  silent.reject_unknown("cost_model");
  Params ring(Values{{"planner.transfers", "ring"}});
  EXPECT_EQ(error_of([&] { (void)ring.prices_per_core(); }),
            "parameter 'planner.transfers': 'ring' is not one of: routes, per_core_rates");
}

}  // namespace
}  // namespace tessera::sdk
