// Fuzz target: the mapper's architecture-spec and workload readers, and resolving one against the
// other, must answer any bytes with a value or an Error, never a crash, hang or exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/workload_file.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {

const char* kArch = R"(levels:
  - {name: DRAM}
  - {name: Buffer, capacity_bytes: 4096, keep: [input], may_keep: all,
     fanout: [{name: PE, size: 4, multicast: [weight], require_reuse: [output]}]}
compute: {ops_per_s: 1e9}
)";

const char* kWorkload = "einsum: O[k,p] = I[c,p+r] * W[k,c,r]\nranks: {k: 4, c: 2, p: 8, r: 3}\n";

}  // namespace

TESSERA_FUZZ_TARGET(mapper_spec)(const uint8_t* data, size_t size) {
  using namespace tessera::mapper;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto arch = parse_arch_spec(text, "/fuzz/arch.yaml");
  auto workload = parse_workload_text(text, "/fuzz/workload.yaml");
  if (arch) {
    auto fixed = parse_workload_text(kWorkload, "/fuzz/fixed.yaml");
    if (fixed) (void)build_hierarchy(*arch, *fixed);
  }
  if (workload) {
    auto fixed = parse_arch_spec(kArch, "/fuzz/fixed.yaml");
    if (fixed) (void)build_hierarchy(*fixed, *workload);
    (void)workload->str();
  }
  return 0;
}
