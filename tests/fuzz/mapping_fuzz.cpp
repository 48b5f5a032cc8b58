// Fuzz target: the mapping file reader (`tessera map --evaluate`) must answer any bytes with a
// mapping or an Error, never a crash, hang or exception; each LoopTree it holds is resolved
// against its architecture (a preset it names, else a fixed one: the fuzzer opens no paths) and
// checked, and a valid one is evaluated.
#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/looptree_yaml.hpp"
#include "framework/mapper/presets.hpp"
#include "framework/mapper/reference_model.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

const char* kArch = R"(levels:
  - {name: DRAM}
  - {name: Buffer, capacity_bytes: 4096, may_keep: all,
     fanout: [{name: PE, size: 4}]}
compute: {ops_per_s: 1e9}
)";

}  // namespace

TESSERA_FUZZ_TARGET(mapping)(const uint8_t* data, size_t size) {
  using namespace tessera::mapper;
  auto file = parse_mapping_text(std::string(reinterpret_cast<const char*>(data), size),
                                 "/fuzz/mapping.yaml");
  if (!file) return 0;
  auto arch = looks_like_path(file->arch) ? parse_arch_spec(kArch, "/fuzz/arch.yaml")
                                          : resolve_arch_spec(file->arch);
  if (!arch) return 0;
  auto hierarchy = build_hierarchy(*arch, file->problem);
  if (!hierarchy) return 0;
  for (const auto& list : file->trees) {
    auto tree = looptree_from_yaml(list, file->problem, *hierarchy);
    if (tree) (void)evaluate_reference(file->problem, *hierarchy, *tree);
  }
  return 0;
}
