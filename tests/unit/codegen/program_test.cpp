// program.txt: written text reads back unchanged; reader errors name the line; the checker finds
// rule violations in hand-written programs with exact messages.
#include <gtest/gtest.h>

#include "framework/codegen/program_check.hpp"
#include "framework/codegen/program_text.hpp"
#include "framework/ir/graph_yaml.hpp"

namespace tessera::codegen {
namespace {

Program sample() {
  Program p;
  p.name = "tiny \"quoted\" model on chip, elk-full";
  p.estimated_latency_s = 1.25e-3;
  for (int i = 0; i < 3; ++i) {
    ProgramOp op;
    op.op = i;
    op.name = i == 2 ? "an ONNX\nname\r" : "layer0.op" + std::to_string(i);
    op.exec_label = "b/16 n/368 · rotate k×4";
    op.preload_label = i > 0 ? "replicate ×2" : "";
    op.preload_bytes = i > 0 ? 1048576.5 * i : 0;
    op.hbm_read_bytes = op.preload_bytes / 2;
    op.distribute_bytes = 1000 * i;
    op.distribute_sync_s = 1e-7;
    op.compute_s = 1.0 / 3.0 * 1e-5;
    op.shift_bytes = 12345;
    op.sync_s = 2e-7;
    op.reduce_bytes = i == 2 ? 64 : 0;
    op.hbm_write_bytes = 0.1;
    op.flops = 2.5e9;
    op.cores_used = 1472;
    op.estimated_start_s = i * 1e-4;
    op.estimated_end_s = (i + 1) * 1e-4;
    op.collective_s = i == 1 ? 8.3e-6 : 0;  // an all-reduce after op 1 (a parallel stage's)
    p.ops.push_back(op);
  }
  p.instructions = {{InstructionKind::preload_async, 1, 0},
                    {InstructionKind::execute, 0, 0},
                    {InstructionKind::preload_async, 2, 0},
                    {InstructionKind::execute, 1, 0},
                    {InstructionKind::execute, 2, 0}};
  return p;
}

TEST(ProgramText, WrittenProgramReadsBackUnchanged) {
  Program p = sample();
  std::string text = write_program_text(p);
  EXPECT_NE(text.find("preload_async 1 \"layer0.op1\" bytes=1048576.5 hbm_bytes=524288.25 "
                      "plan=\"replicate ×2\"\n"),
            std::string::npos)
      << text;
  auto back = read_program_text(text, "program.txt");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->name, p.name);
  EXPECT_EQ(back->estimated_latency_s, p.estimated_latency_s);
  ASSERT_EQ(back->ops.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const auto &a = p.ops[i], &b = back->ops[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.exec_label, b.exec_label);
    EXPECT_EQ(a.preload_label, b.preload_label);
    EXPECT_EQ(a.preload_bytes, b.preload_bytes);
    EXPECT_EQ(a.hbm_read_bytes, b.hbm_read_bytes);
    EXPECT_EQ(a.compute_s, b.compute_s);  // shortest round-trip form: bit for bit
    EXPECT_EQ(a.reduce_bytes, b.reduce_bytes);
    EXPECT_EQ(a.hbm_write_bytes, b.hbm_write_bytes);
    EXPECT_EQ(a.cores_used, b.cores_used);
    EXPECT_EQ(a.estimated_end_s, b.estimated_end_s);
    EXPECT_EQ(a.collective_s, b.collective_s);
  }
  EXPECT_NE(text.find(" collective_s=8.3e-06 "), std::string::npos) << "op 1's, and only its:";
  EXPECT_EQ(text.find("collective_s"), text.rfind("collective_s")) << text;
  ASSERT_EQ(back->instructions.size(), 5u);
  EXPECT_EQ(back->instructions[2].kind, InstructionKind::preload_async);
  EXPECT_EQ(back->instructions[2].op, 2);
  EXPECT_EQ(back->instructions[2].line, 6);
  EXPECT_EQ(write_program_text(*back), text);
}

std::string read_error(const std::string& text) {
  auto r = read_program_text(text, "p.txt");
  return r.ok() ? "no error" : r.error().message;
}

TEST(ProgramText, ErrorsNameTheLine) {
  EXPECT_EQ(read_error("# c\nexecute 0 \"a\" compute_s=1e-6\nprefetch 1 \"b\"\n"),
            "p.txt:3: unknown line 'prefetch'; expected preload_async, execute, program \"NAME\" "
            "or estimated_latency_s");
  EXPECT_EQ(read_error("execute 0 \"a\" compute_s=fast\n"),
            "p.txt:1: compute_s='fast': expected a number >= 0");
  EXPECT_EQ(read_error("execute 0 \"a\" compute_s=1e300\n"),
            "p.txt:1: compute_s=1e300: more than 1e+06 s, which no program comes near");
  EXPECT_EQ(read_error("execute 0 \"a\" shift_bytes=1e20\n"),
            "p.txt:1: shift_bytes=1e20: more than 9.0072e+15 bytes, which no program comes near");
  EXPECT_EQ(read_error("execute 0 \"a\" compute_s=nan\n"),
            "p.txt:1: compute_s='nan': expected a number >= 0");
  EXPECT_EQ(read_error("execute 0 \"a\" cores=0\n"),
            "p.txt:1: cores '0': expected a whole number from 1 to 10000000");
  EXPECT_EQ(read_error("execute 0 \"a\" estimate_s=2..1\n"),
            "p.txt:1: estimate_s='2..1': END is before START");
  EXPECT_EQ(read_error("preload_async 0 \"a\" bytes=10 hbm_bytes=11\n"),
            "p.txt:1: preload_async 0: hbm_bytes=11 is more than bytes=10: HBM reads each byte "
            "once, however many cores it is copied to");
  EXPECT_EQ(read_error("execute 0 \"a\" compute=1\n"),
            "p.txt:1: execute: unknown key 'compute'; expected compute_s, distribute_bytes, "
            "distribute_sync_s, shift_bytes, sync_s, reduce_bytes, hbm_write_bytes, flops, cores, "
            "streamed, collective_s, estimate_s or plan");
  EXPECT_EQ(read_error("preload_async 0 \"a\" bytes=0\n"),
            "p.txt:1: preload_async 0: bytes must be > 0 (an op without HBM data has no preload)");
  EXPECT_EQ(read_error("execute 0 \"a\"\nexecute 0 \"a\"\n"),
            "p.txt:2: execute 0 is already on line 1; each op has one execute");
  EXPECT_EQ(read_error("preload_async 0 \"a\" bytes=5\nexecute 0 \"b\"\n"),
            "p.txt:2: op 0 is named 'b' here but 'a' on line 1");
  EXPECT_EQ(read_error("execute 0 \"a\n"),
            "p.txt:1: a quoted string is not closed; add the closing '\"'");
  EXPECT_EQ(read_error("execute -1 \"a\"\n"),
            "p.txt:1: op index '-1': expected a whole number from 0 to 10000000");
  EXPECT_EQ(read_error("execute 0 \"a\"\nexecute 2 \"c\"\n"),
            "p.txt: op 1 is never mentioned; ops are numbered 0, 1, 2, ... without gaps");
}

// The violations as the CLI shows them, one per line.
std::string format_violations(const std::vector<Violation>& violations, const std::string& file) {
  std::string text;
  for (const auto& line : violation_lines(violations, file)) text += line + "\n";
  return text;
}

std::string violations(const std::string& text, const std::vector<int>* order) {
  auto p = read_program_text(text, "hand.txt");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return format_violations(check_program(*p, order), "hand.txt");
}

TEST(ProgramCheck, ALoweredOrderIsClean) {
  std::vector<int> order{1, 2};
  EXPECT_EQ(check_program(sample(), &order).size(), 0u);
}

TEST(ProgramCheck, ExecuteBeforeItsPreloadIsAViolation) {
  std::string text =
      "execute 0 \"a\"\n"
      "execute 1 \"b\"\n"
      "preload_async 1 \"b\" bytes=100\n";
  EXPECT_EQ(violations(text, nullptr),
            "hand.txt:2: execute(1) comes before preload_async(1) on line 3; it would wait "
            "forever for done_preload_op_1 (rules 1 and 3)\n");
}

TEST(ProgramCheck, PreloadsOutOfThePlansOrderAreViolations) {
  std::string text =
      "preload_async 2 \"c\" bytes=100\n"
      "preload_async 1 \"b\" bytes=100\n"
      "execute 0 \"a\"\n"
      "execute 1 \"b\"\n"
      "execute 2 \"c\"\n";
  std::vector<int> order{1, 2};
  EXPECT_EQ(violations(text, &order),
            "hand.txt:1: preload_async(2) is issued before preload_async(1), which the plan "
            "preloads first (rule 2)\n");
  std::vector<int> other{1};
  EXPECT_EQ(violations(text, &other),
            "hand.txt:1: preload_async(2) is not in the plan's preload order\n");
}

TEST(ProgramCheck, ExecutesOutOfOrderMissingAndTwice) {
  std::string text =
      "preload_async 1 \"b\" bytes=100\n"
      "execute 1 \"b\"\n"
      "execute 0 \"a\"\n"
      "execute 2 \"c\"\n";
  std::vector<int> order{1, 3};
  EXPECT_EQ(violations(text + "execute 3 \"d\"\n", &order),
            "hand.txt:2: execute(1) comes before execute(0); ops execute in graph order\n"
            "hand.txt: preload_async(3) is never issued but the plan preloads op 3\n");
  EXPECT_EQ(violations("execute 0 \"a\"\nexecute 2 \"c\"\nexecute 1 \"b\"\n", nullptr),
            "hand.txt:2: execute(2) comes before execute(1); ops execute in graph order\n");
  std::string twice = "execute 0 \"a\"\nexecute 1 \"b\"\n";
  auto p = read_program_text(twice, "hand.txt");
  ASSERT_TRUE(p.ok());
  p->instructions.push_back({InstructionKind::execute, 1, 3});
  p->ops.push_back(p->ops[1]);
  EXPECT_EQ(format_violations(check_program(*p), "hand.txt"),
            "hand.txt:3: execute(1) is issued twice\nhand.txt: execute(2) is never issued\n");
}

TEST(ProgramCheck, OnlyTheFirstTenViolationsAreShownThenACount) {
  std::string text;
  for (int i = 25; i-- > 0;) text += "execute " + std::to_string(i) + " \"op\"\n";
  auto p = read_program_text(text, "hand.txt");
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::vector<Violation> all = check_program(*p);
  ASSERT_GT(all.size(), 10u);
  std::vector<std::string> lines = violation_lines(all, "hand.txt");
  ASSERT_EQ(lines.size(), 11u);
  EXPECT_EQ(lines[0],
            "hand.txt:1: execute(24) comes before execute(0); ops execute in graph order");
  EXPECT_EQ(lines[10], "hand.txt: " + std::to_string(all.size() - 10) + " more violations (" +
                           std::to_string(all.size()) + " in all); fix the ones above first");
}

// A one-op graph (a 4x8 by 8x2 matmul of fp32, its input and weight in HBM) on a 4-core machine.
struct OneOp {
  ir::Graph graph = one_matmul();
  Machine machine;
  OneOp() {
    machine.chip = "four";
    machine.cores = 4;
  }
  static ir::Graph one_matmul() {
    auto root = YamlNode::load_string(R"(tessera_workload: 1
name: g
tensors:
  - {name: x, shape: [4, 8], dtype: fp32, role: input}
  - {name: w, shape: [8, 2], dtype: fp32, role: weight}
  - {name: y, shape: [4, 2], dtype: fp32, role: activation}
ops:
  - {name: mm, kind: matmul, fn: mac, ranks: {m: 4, n: 2, k: 8}, inputs: ["x[m,k]", "w[k,n]"],
     output: "y[m,n]"}
outputs: [y]
)",
                                      "g.yaml");
    return ir::build_graph(ir::parse_graph_spec(root.value())).take();
  }
};

TEST(ProgramCheck, NumbersBeyondTheGraphAndChipAreViolations) {
  OneOp g;
  OpBounds b = op_bounds(g.graph, g.graph.ops()[0], g.machine);
  EXPECT_EQ(b.tensor_bytes, (32 + 16 + 8) * 4.0);
  EXPECT_EQ(b.moved_bytes, b.tensor_bytes * 4);
  EXPECT_EQ(b.hbm_read_bytes, (32 + 16) * 4.0) << "the input and the weight live in HBM";
  EXPECT_EQ(b.flops, 2.0 * 4 * 2 * 8);
  auto p = read_program_text(
      "preload_async 0 \"mm\" bytes=800 hbm_bytes=500\n"
      "execute 0 \"mm\" shift_bytes=1e9 flops=128 cores=5\n",
      "hand.txt");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(format_violations(check_program_bounds(*p, g.graph, g.machine), "hand.txt"),
            "hand.txt:2: cores=5: four has 4 cores\n"
            "hand.txt:2: shift_bytes=1e+09: op 0 'mm' can move at most 896 (its tensors' 224 "
            "bytes on each of the 4 cores)\n"
            "hand.txt:1: hbm_bytes=500: op 0 'mm' can move at most 192 (the bytes of its inputs "
            "in HBM)\n");
  auto fine = read_program_text(
      "preload_async 0 \"mm\" bytes=768 hbm_bytes=192\nexecute 0 \"mm\" flops=128 cores=4\n",
      "hand.txt");
  EXPECT_TRUE(check_program_bounds(*fine, g.graph, g.machine).empty());
}

}  // namespace
}  // namespace tessera::codegen
