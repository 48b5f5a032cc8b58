// Architecture specs, workload files and their presets: the shipped files load, and every kind of
// mistake gets one error naming file, line and key path, with the nearest valid name.
#include <gtest/gtest.h>

#include <cmath>

#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/workload_file.hpp"

namespace tessera::mapper {
namespace {

const char* kSmallArch = R"(name: small
levels:
  - name: DRAM
    read_pj_per_bit: 1
    write_pj_per_bit: 1
  - name: Buffer
    capacity_bytes: 1024*4
    read_pj_per_access: 8
    write_pj_per_access: 16
    access_bits: 64
    bytes_per_s: 1e9
    ports: separate
    fanout: [{name: PE, size: 16, multicast: [input], require_reuse: [input]}]
    keep: [weight]
    may_keep: all
compute: {pj_per_op: 0.5, ops_per_s: 1e9}
)";

const char* kMatmul = R"(einsum: Z[m,n] = A[m,k] * B[k,n]
ranks: {m: 8, n: 4, k: 2}
dtype: fp16
dtypes: {Z: fp32}
)";

std::string arch_error(const std::string& text) {
  auto spec = parse_arch_spec(text, "arch.yaml");
  return spec ? "(no error)" : spec.error().message;
}

std::string workload_error(const std::string& text) {
  auto w = parse_workload_text(text, "w.yaml");
  return w ? "(no error)" : w.error().message;
}

TEST(ArchSpec, ParsesUnitsAndResolvesAgainstAnEinsum) {
  ArchSpec spec = parse_arch_spec(kSmallArch, "arch.yaml").take();
  ASSERT_EQ(spec.levels.size(), 2u);
  EXPECT_EQ(spec.levels[1].capacity_bytes, 4096);
  EXPECT_DOUBLE_EQ(spec.levels[0].read_joules_per_byte, 8e-12);        // 1 pJ/bit
  EXPECT_DOUBLE_EQ(spec.levels[1].write_joules_per_byte, 16e-12 / 8);  // 16 pJ per 8 bytes
  EXPECT_FALSE(spec.levels[1].shared_port);
  EXPECT_TRUE(std::isinf(spec.levels[0].read_bytes_per_s));
  Problem p = parse_workload_text(kMatmul, "w.yaml").take();
  Hierarchy h = build_hierarchy(spec, p).take();
  EXPECT_EQ(h.levels[1].must_keep, (std::vector<bool>{false, true, false}));  // B is the weight
  EXPECT_EQ(h.levels[1].may_keep, (std::vector<bool>{true, true, true}));
  ASSERT_EQ(h.fanouts.size(), 1u);
  EXPECT_EQ(h.fanouts[0].allowed_rank, (std::vector<bool>{false, true, false}));  // only n
  EXPECT_EQ(h.instances(2), 16);
}

TEST(ArchSpec, ShippedPresetsLoadForEveryWorkloadPreset) {
  auto archs = arch_presets();
  EXPECT_EQ(archs, (std::vector<std::string>{"eyeriss_like", "ipu_tile", "mncore2_pe", "simba_like",
                                             "tensix_core", "tpu_v4i_like"}));
  for (const auto& a : archs) {
    ArchSpec spec = resolve_arch_spec(a).take();
    for (const auto& w : workload_presets()) {
      Problem p = resolve_workload(w).take();
      EXPECT_TRUE(build_hierarchy(spec, p).ok()) << a << " " << w;
    }
  }
  EXPECT_GE(workload_presets().size(), 20u);
}

TEST(ArchSpec, UnknownKeyNamesTheNearest) {
  std::string text = kSmallArch;
  text.replace(text.find("capacity_bytes"), 14, "capacity_byte");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:7: 'levels[1].capacity_byte': unknown key 'capacity_byte' (did you mean "
            "'capacity_bytes'?); valid keys: name, capacity_bytes, read_pj_per_bit, "
            "write_pj_per_bit, read_pj_per_access, write_pj_per_access, access_bits, bytes_per_s, "
            "read_bytes_per_s, write_bytes_per_s, ports, keep, may_keep, fanout");
}

TEST(ArchSpec, BadValuesSayWhatWasExpected) {
  std::string text = kSmallArch;
  text.replace(text.find("1024*4"), 6, "4KB");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:7: 'levels[1].capacity_bytes': expected a non-negative number (e.g. 1.05e9 "
            "or 1024*1024), got '4KB'");
  text = kSmallArch;
  text.replace(text.find("separate"), 8, "dual");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:12: 'levels[1].ports': expected `shared` (read and write time add) or "
            "`separate` (they overlap), got 'dual'");
  text = kSmallArch;
  text.replace(text.find("1024*4"), 6, "1e300*1e300");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:7: 'levels[1].capacity_bytes': the product '1e300*1e300' overflows; write "
            "`unlimited` for no bound");
  text = kSmallArch;
  text.replace(text.find("    access_bits: 64\n"), 20, "");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:8: 'levels[1].read_pj_per_access': energy per access "
            "needs access_bits (the width of one access)");
}

TEST(ArchSpec, BackingStoreKeepsEverything) {
  std::string text = kSmallArch;
  text.replace(text.find("    write_pj_per_bit: 1\n"), 0, "    keep: [input]\n");
  EXPECT_EQ(arch_error(text),
            "arch.yaml:5: 'levels[0].keep': the first level is the backing store "
            "and keeps every tensor: write `keep: all` or leave keep out");
}

TEST(ArchSpec, KeepListNamesAreCheckedAgainstTheEinsum) {
  std::string text = kSmallArch;
  text.replace(text.find("keep: [weight]"), 14, "keep: [wieght]");
  ArchSpec spec = parse_arch_spec(text, "arch.yaml").take();
  Problem p = parse_workload_text(kMatmul, "w.yaml").take();
  auto h = build_hierarchy(spec, p);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message,
            "arch.yaml:14: 'levels[1].keep': 'wieght' is neither a role nor a tensor of w (did "
            "you mean 'weight'?); expected one of: all, none, input, weight, output, A, B, Z");
}

TEST(ArchSpec, UnknownPresetNamesTheNearest) {
  auto spec = resolve_arch_spec("tpu_v4_like");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(
      spec.error().message,
      "unknown architecture 'tpu_v4_like'; did you mean 'tpu_v4i_like'? Presets: "
      "eyeriss_like, ipu_tile, mncore2_pe, simba_like, tensix_core, tpu_v4i_like; or give a path "
      "to a .yaml file");
}

TEST(WorkloadFile, ReadsTheEinsumRanksTypesAndRoles) {
  Problem p = parse_workload_text(kMatmul, "w.yaml").take();
  EXPECT_EQ(p.str(), "w: Z[m,n] = A[m,k] * B[k,n] with m=8 n=4 k=2");
  EXPECT_EQ(p.tensors[0].element_bytes, 2);
  EXPECT_EQ(p.tensors[2].element_bytes, 4);
  EXPECT_EQ(p.tensors[1].role, TensorRole::weight);
  EXPECT_EQ(p.relevance[0][p.find_rank("n")], Relevance::irrelevant);
  EXPECT_EQ(p.relevance[0][p.find_rank("m")], Relevance::full);
}

TEST(WorkloadFile, ConvolutionIndicesArePartiallyRelevant) {
  Problem p = resolve_workload("resnet18-conv3_1").take();
  EXPECT_EQ(p.einsum_text(), "O[n,k,p,q] = I[n,c,2*p+r,2*q+s] * W[k,c,r,s]");
  EXPECT_EQ(p.relevance[0][p.find_rank("p")], Relevance::partial);
  EXPECT_EQ(p.relevance[0][p.find_rank("c")], Relevance::full);
  EXPECT_EQ(p.tensor_elements(0), 1 * 64 * 57 * 57);  // 2*(28-1)+3 rows and columns
  EXPECT_EQ(p.tensors[0].element_bytes, 1);
}

TEST(WorkloadFile, WritingAndReadingGivesTheSameProblem) {
  Problem p = resolve_workload("gpt3-6.7b-qk").take();
  Problem q = parse_workload_text(workload_yaml(p), "again.yaml").take();
  EXPECT_EQ(q.str(), p.str());
  EXPECT_EQ(q.tensors[1].role, p.tensors[1].role);
  EXPECT_EQ(q.tensors[2].element_bytes, 2);
}

TEST(WorkloadFile, MistakesAreNamedWithTheKey) {
  EXPECT_EQ(workload_error("einsum: Z[m,n] = A[m,k] * B[k,n]\nranks: {m: 8, n: 4}\n"),
            "w.yaml:1: 'einsum': operand A[m,k]: rank 'k' is not among the ranks (m, n); give its "
            "extent in `ranks`");
  EXPECT_EQ(workload_error("einsum: Z[m] A[m]\nranks: {m: 8}\n"),
            "w.yaml:1: 'einsum': expected `OUT[...] = IN[...] * IN[...]`, got 'Z[m] A[m]'");
  EXPECT_EQ(workload_error(std::string(kMatmul) + "roles: {C: weight}\n"),
            "w.yaml:5: 'roles.C': 'C' is not a tensor of the einsum (did you mean 'A'?)");
  EXPECT_EQ(workload_error(std::string(kMatmul) + "rank: {m: 2}\n"),
            "w.yaml:5: 'rank': unknown key 'rank' (did you mean 'ranks'?); valid keys: name, "
            "description, einsum, ranks, dtype, dtypes, element_bytes, roles");
  EXPECT_EQ(workload_error("einsum: Z[m] = A[m]\nranks: {m: 0}\n"),
            "w.yaml:2: 'ranks.m': must be in [1, 1099511627776], got 0");
  EXPECT_EQ(workload_error("einsum: Z[m,n] = A[m,k] * B[k,n]\n"
                           "ranks: {m: 1099511627776, n: 1099511627776, k: 1099511627776}\n"),
            "w.yaml:1: 'einsum': w: the ranks' extents multiply to 1.33e+36 points; the mapper "
            "takes at most 1e18");
}

}  // namespace
}  // namespace tessera::mapper
