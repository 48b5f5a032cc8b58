// The chip file's core: section and its cost_model choice (chip_spec.hpp): every form, and the
// errors of each.
#include <gtest/gtest.h>

#include "framework/chip_spec/chip_spec.hpp"
#include "framework/common/yaml_reader.hpp"

namespace tessera {
namespace {

TEST(ChipCore, APresetNameStaysAndARelativeFileIsAnchoredAtTheChipFile) {
  auto preset = parse_chip_text("name: c\ntarget: t\ncore: tensix_core\n", "/x/c.yaml");
  ASSERT_TRUE(preset.ok()) << preset.error().message;
  ASSERT_TRUE(preset->core);
  EXPECT_EQ(preset->core->reference, "tensix_core");
  EXPECT_FALSE(preset->core->spec);
  EXPECT_EQ(preset->core_cost, CoreCost::plugin) << "a core alone does not change the timing";
  auto file = parse_chip_text("name: c\ntarget: t\ncore: ../arch/pe.yaml\n", "/x/chips/c.yaml");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->core->reference, "/x/arch/pe.yaml");
}

TEST(ChipCore, AnInlineSpecIsKeptWithItsLines) {
  auto chip = parse_chip_text(
      "name: c\ntarget: t\ncost_model: tcm\ncore:\n  name: pe\n  levels: []\n", "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  ASSERT_TRUE(chip->core && chip->core->spec);
  EXPECT_EQ(chip->core->reference, "");
  EXPECT_EQ(chip->core->spec->line(), 5);
  EXPECT_EQ(chip->core_cost, CoreCost::tcm);
  EXPECT_TRUE(chip->sections.count(Interface::cost_model)) << "the target's cost model stays";
  EXPECT_TRUE(chip->params_for(Interface::cost_model).items.empty());
}

TEST(ChipCore, CoreCostBesideTheCostModelsParameters) {
  auto chip = parse_chip_text(
      "name: c\ntarget: t\ncore: ipu_tile\ncost_model: {core_cost: tcm, chips: 4}\n", "/x/c.yaml");
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ(chip->core_cost, CoreCost::tcm);
  std::vector<std::pair<std::string, std::string>> params = {{"chips", "4"}};
  EXPECT_EQ(chip->params_for(Interface::cost_model).items, params);
}

TEST(ChipCore, TcmWithoutACoreIsRefused) {
  auto chip = parse_chip_text("name: c\ntarget: t\ncost_model: tcm\n", "/x/c.yaml");
  ASSERT_FALSE(chip.ok());
  EXPECT_EQ(chip.error().message,
            "/x/c.yaml:3: 'cost_model': core_cost tcm maps each tile onto the core's memory "
            "hierarchy, and this chip has none: add a `core:` section (an architecture preset "
            "such as tensix_core, a spec file, or the spec inline; docs/mapper.md)");
}

TEST(ChipCore, AnUnknownCoreCostNamesBoth) {
  auto chip = parse_chip_text("name: c\ntarget: t\ncost_model: {core_cost: fitted}\n", "/x/c.yaml");
  ASSERT_FALSE(chip.ok());
  EXPECT_EQ(chip.error().message,
            "/x/c.yaml:3: 'cost_model.core_cost': unknown core cost 'fitted'; expected plugin "
            "(the cost model plugin's formulas) or tcm (the mapper on the chip's core: hierarchy)");
  auto list = parse_chip_text("name: c\ntarget: t\ncore: [a, b]\n", "/x/c.yaml");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message,
            "/x/c.yaml:3: 'core': expected an architecture preset name, a spec file or the spec "
            "as a map (docs/mapper.md)");
}

}  // namespace
}  // namespace tessera
