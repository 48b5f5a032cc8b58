// The peak contract between a plugin's Topology and its CostModel, on every chip file it ships: a
// Topology's peak_flops_per_s is what reports, utilisation and the Ideal design divide by, the
// CostModel's matmul times are what plans and simulations take, and the two state one fact.
// Tessera refuses a chip whose two disagree whenever it builds one (framework/plugin/peak.hpp);
// this suite finds it before a user does, for each preset the plugin serves both interfaces of.
#include "framework/plugin/peak.hpp"

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/plugin/objects.hpp"
#include "sdk/conformance/plugin_under_test.hpp"
#include "sdk/conformance/suites.hpp"

namespace tessera::conformance {

void link_peak_suite() {}

namespace {

class PeakContract : public PluginTest {
 protected:
  void SetUp() override {
    PluginTest::SetUp();
    if (IsSkipped()) return;
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::topology);
    TESSERA_SKIP_UNLESS_PROVIDES(Interface::cost_model);
  }

  // "" when `chip` keeps the contract or is served by another plugin; else why not.
  std::string problem(const std::string& chip) const {
    auto spec = resolve_chip(chip, manifest());
    if (!spec) return spec.error().message;
    if (spec->plugin_for(Interface::topology) != manifest().name ||
        spec->plugin_for(Interface::cost_model) != manifest().name)
      return "";
    auto topology = create_topology(state().library, spec->params_for(Interface::topology));
    if (!topology) return topology.error().message;
    auto cost_model = create_cost_model(state().library, spec->params_for(Interface::cost_model));
    if (!cost_model) return cost_model.error().message;
    std::vector<uint32_t> computing;
    for (uint32_t d = 0; d < dtype_count(); ++d) {
      auto flops = topology->peak_flops_per_s(d);
      if (!flops) return flops.error().message;
      if (*flops > 0) computing.push_back(d);
    }
    auto agreed = check_peaks(*topology, *cost_model, computing);
    return agreed ? "" : agreed.error().message;
  }
};

// Each preset's large aligned matmul runs within [0.9, 1] x its topology's peak, per dtype.
TEST_P(PeakContract, EveryChipFileStatesOnePeak) {
  Problems problems;
  for (const std::string& chip : chip_presets(manifest()))
    if (std::string p = problem(chip); !p.empty()) problems.add(chip + ": " + p);
  EXPECT_TRUE(problems.empty()) << problems.summary();
}

}  // namespace

TESSERA_INSTANTIATE_FOR_PLUGINS(PeakContract);

}  // namespace tessera::conformance
