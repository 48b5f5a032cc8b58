// The simulator executing programs on hand-built chips, against hand-computed timelines.
#include "framework/sim/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "framework/codegen/program.hpp"
#include "framework/ir/graph_yaml.hpp"
#include "tests/unit/sim/test_chips.hpp"
#include "tests/unit/temp_dir.hpp"

namespace tessera::sim {
namespace {

using codegen::InstructionKind;
using codegen::Program;
using codegen::ProgramOp;

EngineConfig config(double hbm_bytes_per_s, double hbm_latency_s) {
  EngineConfig c;
  c.hbm_latency_s = hbm_latency_s;
  c.hbm_bytes_per_s = [hbm_bytes_per_s](double) -> Result<double> { return hbm_bytes_per_s; };
  c.record_trace = true;
  return c;
}

SimResult run(const ChipGraph& chip, const Program& program, const EngineConfig& c) {
  auto network = SimNetwork::build(chip, 1);
  EXPECT_TRUE(network.ok());
  auto result = run_program(*network, program, c);
  EXPECT_TRUE(result.ok()) << result.error().message;
  return std::move(result).take();
}

TEST(Engine, OnePreloadFlowIsLatencyPlusBytesOverBandwidth) {
  chips::AllToAllSpec spec;
  spec.cores = 1;
  spec.controllers = 1;
  spec.link_latency_s = 100e-9;  // controller -> exchange -> core: two hops
  Program p;
  ProgramOp op;
  op.op = 0;
  op.name = "load";
  op.preload_bytes = 1e6;
  p.ops = {op};
  p.instructions = {{InstructionKind::preload_async, 0, 1}, {InstructionKind::execute, 0, 2}};
  // The core link (4 GB/s) is the narrowest: hbm 8, controller link 20, SRAM port 16.
  SimResult r = run(chips::all_to_all(spec), p, config(8e9, 1e-6));
  EXPECT_NEAR(r.latency_s, 1e-6 + 2 * 100e-9 + 1e6 / 4e9, 1e-15);
  EXPECT_NEAR(r.ops[0].preload_end_s, r.latency_s, 1e-15);
  EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::preload)], 1e6, 1e-3);
}

// A program exercising every kind of traffic, on 8 symmetric cores.
Program busy_program() {
  Program p;
  for (int i = 0; i < 3; ++i) {
    ProgramOp op;
    op.op = i;
    op.name = "op" + std::to_string(i);
    op.preload_bytes = i == 0 ? 0 : 2e6 * i;
    op.distribute_bytes = 1e6 * i;
    op.distribute_sync_s = i > 0 ? 1e-6 : 0;
    op.compute_s = 50e-6;
    op.shift_bytes = 3e5;
    op.hbm_write_bytes = i == 2 ? 4e5 : 0;
    op.sync_s = 2e-6;
    op.flops = 1e9;
    p.ops.push_back(op);
  }
  p.instructions = {{InstructionKind::preload_async, 1, 1},
                    {InstructionKind::execute, 0, 2},
                    {InstructionKind::preload_async, 2, 3},
                    {InstructionKind::execute, 1, 4},
                    {InstructionKind::execute, 2, 5}};
  return p;
}

// Every transfer a flow of its own, as the simulator once ran them (the rates of one solve, the
// set re-solved as flows finish): on a symmetric chip each transfer set finishes as its flows do.
TEST(Engine, TransferSetsGiveTheSharesOfOneFlowPerTransfer) {
  chips::AllToAllSpec spec;
  spec.link_latency_s = 20e-9;
  ChipGraph chip = chips::all_to_all(spec);
  Program p = busy_program();
  SimResult r = run(chip, p, config(6e9, 500e-9));
  EXPECT_EQ(r.cores, 8u);
  // op 0 alone: no distribute, compute 50 us at the full port, the shift ring (3e5 B over 8
  // cores: 37.5 kB per core on 4 GB/s core links, 9.375 us + 40 ns), sync 2 us.
  EXPECT_NEAR(r.ops[0].isolated_s, 50e-6 + 3e5 / 8 / 4e9 + 40e-9 + 2e-6, 1e-15);
  // Preload 1 (2 MB) is in flight from t = 0: 16 transfers (2 controllers × 8 cores) of 125 kB;
  // each core link takes 2 at 2 GB/s, each controller's 6 GB/s hbm link 8 at 0.75 GB/s: the hbm
  // links bound them, so it lands after 0.5 us + 40 ns + 125 kB / 0.75 GB/s.
  EXPECT_NEAR(r.ops[1].preload_end_s, 540e-9 + 125e3 / 0.75e9, 1e-12);
  // The preloads landing while op 0 computes slow it down (SRAM-port contention).
  EXPECT_GT(r.ops[0].execute_end_s - r.ops[0].execute_start_s, r.ops[0].isolated_s);
  EXPECT_GT(r.breakdown.congestion_s, 0);
}

// An op whose plan says which cores exchange what (planner/op_traffic.hpp): its rotation rings,
// then its combine tree level by level, on 8 cores with 4 GB/s core links and 16 GB/s ports.
TEST(Engine, APlansRingsAndTreeMoveItsShiftBytes) {
  chips::AllToAllSpec spec;
  spec.link_latency_s = 20e-9;
  Program p;
  ProgramOp op;
  op.op = 0;
  op.name = "mm";
  op.shift_bytes = 8e5;
  op.reduce_bytes = 1e5;  // the tree's partials between chips: carried by the tree itself
  op.cores_used = 8;
  auto traffic = std::make_shared<planner::OpTraffic>();
  traffic->cores = 8;
  traffic->rotation_next = {2, 3, 0, 1, 6, 7, 4, 5};
  traffic->rotation_bytes = 4e5;
  traffic->combine_parts = 4;  // two levels: 1 -> 0, 3 -> 2; then 2 -> 0 (per block of 4)
  traffic->combine_order = {0, 1, 2, 3, 4, 5, 6, 7};
  traffic->combine_bytes = 4e5;
  op.traffic = traffic;
  p.ops = {op};
  p.instructions = {{InstructionKind::execute, 0, 1}};
  SimResult r = run(chips::all_to_all(spec), p, config(6e9, 0));
  // Rotation: 8 transfers of 50 kB, one per core link: 12.5 us + 2 hops. Tree: 6 partials of
  // 4e5 / 6 B; level 0 has 4 of them (one per core link), level 1 two.
  double partial = 4e5 / 6;
  double expected = 50e3 / 4e9 + 40e-9 + 2 * (partial / 4e9 + 40e-9);
  EXPECT_NEAR(r.latency_s, expected, 1e-15);
  EXPECT_NEAR(r.ops[0].isolated_s, expected, 1e-15);
  EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::shift)], 4e5, 1e-6);
  EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::reduce)], 4e5, 1e-6);
  // Every transfer crosses two core links.
  EXPECT_NEAR(r.ops[0].link_bytes_by_class[static_cast<size_t>(LinkClass::on_chip)], 2 * 8e5, 1e-6);
}

// An op's hand-off (planner/handoff.hpp): the activations it takes from the other chip run before
// its distribute_data, chip 0's used cores to chip 1's (each receiving core from four sending
// cores). Two chips of 4 cores behind one exchange: 4e5 B from chip 0 to chip 1, 1e5 B out of
// each chip-0 core's link and into each chip-1 core's (4 GB/s each way): 25 us and two hops; the
// 1e5 B back run on the links' other directions meanwhile.
TEST(Engine, AHandOffRunsBeforeDistributeOnTheChipsCores) {
  chips::AllToAllSpec spec;
  spec.link_latency_s = 20e-9;
  ChipGraph chip = chips::all_to_all(spec);
  chip.chips = 2;
  for (Endpoint& e : chip.endpoints)
    e.chip = e.kind == TESSERA_ENDPOINT_CORE ? e.index / 4 : e.index % 2;
  Program p;
  ProgramOp op;
  op.op = 0;
  op.name = "b";
  op.cores_used = 8;
  op.compute_s = 1e-6;
  op.handoff = std::make_shared<planner::HandOff>(planner::HandOff{{{0, 1, 4e5}, {1, 0, 1e5}}});
  p.ops = {op};
  p.instructions = {{InstructionKind::execute, 0, 1}};
  SimResult r = run(chip, p, config(6e9, 0));
  double expected = 1e5 / 4e9 + 40e-9 + 1e-6;
  EXPECT_NEAR(r.latency_s, expected, 1e-12);
  EXPECT_NEAR(r.ops[0].isolated_s, expected, 1e-12);
  EXPECT_NEAR(r.bytes_by_kind[static_cast<size_t>(FlowKind::distribute)], 5e5, 1e-6);
  // The same op without it: compute alone.
  p.ops[0].handoff = nullptr;
  EXPECT_NEAR(run(chip, p, config(6e9, 0)).latency_s, 1e-6, 1e-15);
}

TEST(Engine, ExecuteWaitingForAPreloadNeverIssuedIsAnError) {
  Program p = busy_program();
  p.instructions = {{InstructionKind::execute, 0, 1},
                    {InstructionKind::execute, 1, 2},
                    {InstructionKind::preload_async, 1, 3}};
  auto network = SimNetwork::build(chips::all_to_all({}), 1);
  auto r = run_program(*network, p, config(6e9, 0));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "program line 2: execute(1) waits for done_preload_op_1 but preload_async(1) is not "
            "issued before it (rules 1 and 3)");
}

// Three ops on 4 cores (1 GB/s links, 4 GB/s SRAM ports), one controller at 2 GB/s with 1 us
// latency, barriers of 0.5 us, no link latency. By hand:
//   0 us      preload(1) issued (2000 B per core); execute(0) computes (40000 B of port per core)
//   1-5 us    preload(1) flows at 0.5 GB/s each (hbm 2 GB/s / 4); compute gets 4 - 0.5 = 3.5 GB/s
//   5 us      tag 1; preload(2) issued, its flows join at 6 us, 1000 B each at 0.5: done at 8 us
//   compute   4000 + 14000 + 4000 + 7000 = 29000 B by 8 us; 11000 B at 4 GB/s: ends 10.75 us
//   execute(1) 10.75 -> 15.75 (compute 5 us)
//   execute(2) distribute 1000 B per core at 1 GB/s (its core link) = 1 us, barrier 0.5 us,
//              compute 2 us, sync 1 us: ends 20.25 us
TEST(Engine, HandMadeThreeOpPlanGivesTheHandComputedLatency) {
  tessera::testing::TempDir dir;
  std::string graph_file = (dir.path() / "tiny3.yaml").string();
  std::ofstream(graph_file) << R"(tessera_workload: 1
name: tiny3
tensors:
  - {name: x, shape: [1, 4], dtype: fp16, role: input}
  - {name: w1, shape: [4, 4], dtype: fp16, role: weight}
  - {name: w2, shape: [4, 4], dtype: fp16, role: weight}
  - {name: a, shape: [1, 4], dtype: fp16, role: activation}
  - {name: b, shape: [1, 4], dtype: fp16, role: activation}
  - {name: c, shape: [1, 4], dtype: fp16, role: activation}
ops:
  - {name: op0, kind: unary, fn: copy, ranks: {m: 1, n: 4}, inputs: ["x[m,n]"], output: "a[m,n]"}
  - {name: op1, kind: matmul, fn: mac, ranks: {m: 1, k: 4, n: 4}, inputs: ["a[m,k]", "w1[k,n]"], output: "b[m,n]"}
  - {name: op2, kind: matmul, fn: mac, ranks: {m: 1, k: 4, n: 4}, inputs: ["b[m,k]", "w2[k,n]"], output: "c[m,n]"}
outputs: [c]
)";
  auto graph = ir::read_graph_file(graph_file);
  ASSERT_TRUE(graph.ok()) << graph.error().message;

  planner::Plan plan;
  plan.source.graph_name = "tiny3";
  plan.machine.chip = "hand-built";
  plan.machine.cores = 4;
  plan.machine.sync_s = 0.5e-6;
  plan.result.preload_order = {1, 2};
  auto& ops = plan.result.ops;
  ops.resize(3);
  for (int i = 0; i < 3; ++i) {
    ops[i].op = i;
    ops[i].name = "op" + std::to_string(i);
    ops[i].exec.cores_used = 4;
  }
  ops[0].exec.compute_s = 10e-6;
  ops[0].execute_end_s = 10e-6;
  ops[1].exec.compute_s = 5e-6;
  ops[1].exec.cross_chip_bytes = 64;  // one chip: the reduction between chips moves nothing
  ops[1].preload = {"replicate", 2000, 8000, 0, 0, std::nullopt};
  ops[1].preload_position = 0;
  ops[1].execute_end_s = 15e-6;
  ops[2].exec.compute_s = 2e-6;
  ops[2].exec.sync_s = 1e-6;
  ops[2].preload = {"split", 1000, 4000, 4000, 1.5e-6, std::nullopt};
  ops[2].preload_position = 1;
  ops[2].preload_start_s = 5e-6;
  ops[2].execute_end_s = 19.5e-6;
  plan.result.latency_s = 19.5e-6;

  auto program = codegen::lower_plan(plan, *graph);
  ASSERT_TRUE(program.ok()) << program.error().message;
  ASSERT_EQ(program->instructions.size(), 5u);
  EXPECT_EQ(program->instructions[1].kind, InstructionKind::preload_async);
  EXPECT_EQ(program->instructions[1].op, 2);    // preload 2 starts during execute(0)
  EXPECT_EQ(program->ops[1].reduce_bytes, 64);  // the plan's partials merged between chips

  chips::AllToAllSpec spec;
  spec.cores = 4;
  spec.controllers = 1;
  spec.core_link_bytes_per_s = 1e9;
  spec.controller_link_bytes_per_s = 4e9;  // 3.6 at the memory endpoint efficiency: hbm binds
  spec.sram_bytes_per_s = 4e9;
  SimResult r = run(chips::all_to_all(spec), *program, config(2e9, 1e-6));
  EXPECT_NEAR(r.ops[1].preload_end_s, 5e-6, 1e-15);
  EXPECT_NEAR(r.ops[2].preload_end_s, 8e-6, 1e-15);
  EXPECT_NEAR(r.ops[0].execute_end_s, 10.75e-6, 1e-15);
  EXPECT_NEAR(r.ops[1].execute_end_s, 15.75e-6, 1e-15);
  EXPECT_NEAR(r.latency_s, 20.25e-6, 1e-15);
  const auto& b = r.breakdown;
  EXPECT_NEAR(b.congestion_s, 0.75e-6, 1e-15);              // op 0: 10.75 simulated, 10 alone
  EXPECT_NEAR(b.overlapped_s, 8.0 / 10.75 * 10e-6, 1e-15);  // preloads in flight 0-8 us
  EXPECT_NEAR(b.preload_stall_s, 0, 1e-15);
  EXPECT_NEAR(b.execution_only_s + b.overlapped_s + b.preload_stall_s + b.congestion_s, r.latency_s,
              1e-15);
}

// Four compute-only ops of 10 us, in program order.
Program four_computes() {
  Program p;
  for (int i = 0; i < 4; ++i) {
    ProgramOp op;
    op.op = i;
    op.name = "op" + std::to_string(i);
    op.compute_s = 10e-6;
    p.ops.push_back(op);
    p.instructions.push_back({InstructionKind::execute, i, i + 1});
  }
  return p;
}

// planner/schedule.hpp's "Fixed costs" in the simulator: four compute-only ops whose commands
// arrive 25 us apart (host-async: the first at 25 us) and launch in 1 us each. Every op waits for
// its command, so op 3 starts at 100 us and the step ends a launch and its work later; the
// dispatch part is the rest of the step beyond the ops' work.
TEST(Engine, ExecutesWaitForTheirCommandsAndPayTheirLaunch) {
  Program p = four_computes();
  SimResult alone = run(chips::all_to_all({}), p, config(6e9, 0));
  p.dispatch = {DispatchMode::host_async, 25e-6, 1e-6};
  SimResult r = run(chips::all_to_all({}), p, config(6e9, 0));
  double work_s = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(r.ops[i].execute_start_s, (i + 1) * 25e-6, 1e-15);
    work_s += alone.ops[i].execute_end_s - alone.ops[i].execute_start_s;
  }
  EXPECT_NEAR(r.latency_s,
              100e-6 + 1e-6 + alone.ops[3].execute_end_s - alone.ops[3].execute_start_s, 1e-15);
  EXPECT_NEAR(r.ops[0].dispatch_s, 25e-6 + 1e-6, 1e-15);
  EXPECT_NEAR(r.breakdown.dispatch_s, r.latency_s - work_s, 1e-15);
  EXPECT_EQ(alone.breakdown.dispatch_s, 0);
  const auto& b = r.breakdown;
  EXPECT_NEAR(
      b.execution_only_s + b.overlapped_s + b.preload_stall_s + b.congestion_s + b.dispatch_s,
      r.latency_s, 1e-15);
}

// Under `host` each command is prepared once the op before has ended: every op pays its command
// and launch after the one before, so the step is the ops' work plus 4 × (25 + 1) us.
TEST(Engine, HostCommandsFollowTheOpBefore) {
  Program p = four_computes();
  SimResult alone = run(chips::all_to_all({}), p, config(6e9, 0));
  p.dispatch = {DispatchMode::host, 25e-6, 1e-6};
  SimResult r = run(chips::all_to_all({}), p, config(6e9, 0));
  EXPECT_NEAR(r.latency_s, alone.latency_s + 4 * 26e-6, 1e-15);
  for (int i = 1; i < 4; ++i)
    EXPECT_NEAR(r.ops[i].execute_start_s, r.ops[i - 1].execute_end_s + 25e-6, 1e-15);
  EXPECT_NEAR(r.breakdown.dispatch_s, 4 * 26e-6, 1e-15);
}

// A collective after op 0 (a parallel stage's all-reduce, planner/collective_op.hpp): op 0's
// execute ends when it does, op 1 waits for it, but op 1's preload streams on meanwhile. Op 0
// loads 0.4 MB (0.1 ms at the core link's 4 GB/s) and computes nothing (a compute would share the
// SRAM port with op 1's preload, which the engine charges: not what this test is about); op 1
// loads 4 MB (1 ms) and computes 0.1 ms: the step is max(0.1 + c, 0.1 + 1) + 0.1 ms, as the
// planner's timeline gives it (tests/unit/planner/collective_op_test.cpp).
TEST(Engine, ACollectiveHoldsTheNextExecuteButNotThePreloads) {
  chips::AllToAllSpec spec;
  spec.cores = 1;
  spec.controllers = 1;
  spec.link_latency_s = 0;
  for (double c : {0.5e-3, 1.5e-3}) {
    Program p;
    ProgramOp first, second;
    first.op = 0, second.op = 1;
    first.name = "o_proj", second.name = "next";
    first.preload_bytes = 0.4e6, second.preload_bytes = 4e6;
    second.compute_s = 0.1e-3;
    first.collective_s = c;
    p.ops = {first, second};
    p.instructions = {{InstructionKind::preload_async, 0, 1},
                      {InstructionKind::preload_async, 1, 2},
                      {InstructionKind::execute, 0, 3},
                      {InstructionKind::execute, 1, 4}};
    SimResult r = run(chips::all_to_all(spec), p, config(8e9, 0));
    const double expected_s = std::max(0.1e-3 + c, 1.1e-3) + 0.1e-3;
    EXPECT_NEAR(r.latency_s, expected_s, 1e-9 * expected_s) << c;
    EXPECT_NEAR(r.ops[0].execute_end_s, 0.1e-3 + c, 1e-12) << c;
    auto span = std::find_if(r.spans.begin(), r.spans.end(),
                             [](const Span& s) { return s.what == "collective"; });
    ASSERT_NE(span, r.spans.end());
    EXPECT_EQ(span->track, 0u) << "on the execute track";
    EXPECT_NEAR(span->end_s - span->start_s, c, 1e-15);
  }
}

}  // namespace
}  // namespace tessera::sim
