#include "framework/chip/machine.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

namespace tessera {
namespace {

// machine_fields is the one list of Machine's fields (plan.yaml, cache keys). A field added to
// Machine and forgotten there would be silently missing from both, so the struct's size is pinned:
// when this fails, add the field to machine_fields, then update the size.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Machine) == 192,
              "Machine changed: list the new field in machine_fields (framework/chip/machine.hpp), "
              "then update this size");
#endif

TEST(MachineFields, VisitsEveryFieldOnceWithUniqueKeys) {
  Machine m;
  std::set<std::string> keys;
  size_t bytes = 0;
  machine_fields(m, [&](const char* key, auto& field, MachineFieldUse) {
    EXPECT_TRUE(keys.insert(key).second) << "key '" << key << "' given twice";
    bytes += sizeof(field);
  });
  EXPECT_EQ(keys.size(), 19u);
  // Two strings, eleven doubles, two uint64 and three uint32 (padding excepted): the visited
  // fields cover the struct.
  EXPECT_EQ(bytes, 2 * sizeof(std::string) + 12 * sizeof(double) + 2 * sizeof(uint64_t) +
                       3 * sizeof(uint32_t));
}

TEST(MachineFields, WritesReachTheFieldsTheyName) {
  Machine m;
  machine_fields(m, [](const char* key, auto& field, MachineFieldUse) {
    using T = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<T, std::string>)
      field = key;
    else
      field = static_cast<T>(std::string(key).size());
  });
  EXPECT_EQ(m.chip, "chip");
  EXPECT_EQ(m.target, "target");
  EXPECT_EQ(m.cores, 5u);
  EXPECT_EQ(m.sram_bytes_per_core, std::string("sram_bytes_per_core").size());
  EXPECT_EQ(m.compute_speedup, std::string("compute_speedup").size());
  EXPECT_EQ(m.hbm_controllers, std::string("hbm_controllers").size());
}

TEST(MachineFields, OnlyTheOffChipMemoryIsHiddenFromPerOpPlans) {
  std::set<std::string> off_chip;
  const Machine m;
  machine_fields(m, [&](const char* key, const auto&, MachineFieldUse use) {
    if (use == MachineFieldUse::off_chip_memory) off_chip.insert(key);
  });
  EXPECT_EQ(off_chip,
            (std::set<std::string>{"hbm_bytes_per_s", "hbm_peak_bytes_per_s", "hbm_latency_s",
                                   "hbm_controllers", "off_chip_bytes"}));
}

}  // namespace
}  // namespace tessera
