// `tessera simulate PLAN.yaml`: rebuilds the plan's model and chip, refuses a plan that no longer
// matches them, lowers it to the preload_async/execute program (or runs a hand-written one) and
// executes it on the event-driven simulator; prints the report, writes program.txt and trace.json.
#include <iostream>
#include <sstream>

#include "framework/cli/model_options.hpp"
#include "framework/cli/options.hpp"
#include "framework/codegen/program_check.hpp"
#include "framework/codegen/program_text.hpp"
#include "framework/common/files.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/sim/sim_report.hpp"
#include "framework/sim/simulate.hpp"

namespace tessera::cli {

namespace {

struct SimulateOptions {
  std::string plan;
  std::string trace;
  std::string program_out;
  std::string run_program;
  std::string memory_detail = "fast";
  uint32_t groups_per_chip = 4;
  size_t op_rows = 10;
  bool force = false;
};

// "llama2-13b (batch 16, seq 2048)" for a zoo model, the path for a file.
std::string model_words(const planner::PlanSource& s) {
  if (s.batch == 0) return s.model;
  return s.model + " (batch " + std::to_string(s.batch) +
         (s.seq > 0 ? ", seq " + std::to_string(s.seq) : std::string()) +
         (s.mode == "prefill" ? ", prefill)" : ")");
}

// The model as `tessera compile` loaded it, through the same options.
ir::Graph load_plan_model(const planner::PlanSource& s) {
  ModelOptions options;
  options.model = s.model;
  options.batch = s.batch > 0 ? s.batch : 1;
  options.seq = s.seq;
  options.mode = s.mode;
  options.dtype = s.dtype;
  options.shape_given = s.batch > 0;
  for (size_t start = 0; start < s.onnx_dims.size();) {
    size_t comma = std::min(s.onnx_dims.find(',', start), s.onnx_dims.size());
    options.dims.push_back(s.onnx_dims.substr(start, comma - start));
    start = comma + 1;
  }
  options.skip_unsupported = s.skip_unsupported != 0;
  return load_model(model_request(options)).take();
}

[[noreturn]] void mismatch(const std::string& file, const std::string& field,
                           const std::string& what) {
  throw Failure(input_error(file + ": " + field + ": " + what + " — re-run tessera compile"));
}

void check_model(const std::string& file, const planner::Plan& plan, const ir::Graph& graph) {
  const auto& s = plan.source;
  size_t planned = s.graph_ops != graph.ops().size() ? s.graph_ops : plan.result.ops.size();
  if (planned != graph.ops().size())
    mismatch(file, "source.graph_ops",
             "the plan has " + std::to_string(planned) + " ops but " + model_words(s) + " has " +
                 std::to_string(graph.ops().size()));
  if (!s.graph_name.empty() && s.graph_name != graph.name())
    mismatch(file, "source.graph_name",
             "the plan was made for '" + s.graph_name + "' but " + model_words(s) + " is '" +
                 graph.name() + "'");
  for (size_t i = 0; i < graph.ops().size(); ++i) {
    if (plan.result.ops[i].name != graph.ops()[i].name)
      mismatch(file, "ops[" + std::to_string(i) + "].name",
               "the plan has '" + plan.result.ops[i].name + "' but op " + std::to_string(i) +
                   " of " + model_words(s) + " is '" + graph.ops()[i].name + "'");
  }
}

void check_chip(const std::string& file, const planner::Machine& planned,
                const planner::Machine& built) {
  auto differ = [&](const char* field, double a, double b) {
    if (a != b) {
      std::ostringstream what;
      what << "the plan has " << a << " but chip '" << built.chip << "' has " << b;
      mismatch(file, std::string("machine.") + field, what.str());
    }
  };
  if (planned.chip != built.chip)
    mismatch(file, "machine.chip",
             "the plan was made for chip '" + planned.chip + "' but the chip is now '" +
                 built.chip + "'");
  differ("cores", planned.cores, built.cores);
  differ("chips", planned.chips, built.chips);
  differ("sram_bytes_per_core", static_cast<double>(planned.sram_bytes_per_core),
         static_cast<double>(built.sram_bytes_per_core));
  differ("hbm_controllers", planned.hbm_controllers, built.hbm_controllers);
}

codegen::Program hand_written_program(const std::string& path, const planner::Plan& plan) {
  codegen::Program program = codegen::read_program_text(read_file(path).take(), path).take();
  auto violations = codegen::check_program(program, &plan.result.preload_order);
  if (!violations.empty()) {
    std::string text = codegen::format_violations(violations, path);
    text.pop_back();  // the caller adds the newline
    throw Failure(input_error(text));
  }
  if (program.ops.size() != plan.result.ops.size())
    throw Failure(input_error(path + ": the program has " + std::to_string(program.ops.size()) +
                              " ops but the plan has " + std::to_string(plan.result.ops.size())));
  return program;
}

int run_simulate(const GlobalOptions& global, const SimulateOptions& o) {
  planner::Plan plan = planner::read_plan_yaml(o.plan).take();
  ir::Graph graph = load_plan_model(plan.source);
  check_model(o.plan, plan, graph);
  PluginSet plugins(global.registry());
  Manifest manifest = plugins.library(plan.source.target).take()->manifest();
  ChipSpec chip_spec = resolve_chip(plan.source.chip, manifest).take();
  planner::ChipModels chip = planner::build_chip(plugins, chip_spec).take();
  check_chip(o.plan, plan.machine, chip.machine);

  codegen::Program program = o.run_program.empty() ? codegen::lower_plan(plan, graph).take()
                                                   : hand_written_program(o.run_program, plan);
  if (!o.program_out.empty()) {
    write_file_atomically(o.program_out, codegen::write_program_text(program), o.force).take();
    std::cerr << "wrote " << o.program_out << "\n";
  }
  sim::SimOptions options;
  options.groups_per_chip = o.groups_per_chip;
  options.memory = o.memory_detail == "full" ? sim::MemoryDetail::full : sim::MemoryDetail::fast;
  options.record_trace = !o.trace.empty();
  sim::SimResult result = sim::simulate_program(program, chip, options).take();
  std::cout << sim::render_sim_report(result, program, chip.machine, o.op_rows);
  if (!o.trace.empty()) {
    write_file_atomically(o.trace, sim::trace_json(result, program), o.force).take();
    std::cerr << "wrote " << o.trace << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_simulate_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run a saved plan's program on the event-driven simulator and report");
  cmd->add_option("PLAN", o->plan, "plan.yaml written by tessera compile")->required();
  cmd->add_option("--trace", o->trace, "Write a Chrome/Perfetto trace.json")->type_name("FILE");
  cmd->add_option("--program", o->program_out, "Write the program as program.txt")
      ->type_name("FILE");
  cmd->add_option("--run-program", o->run_program,
                  "Simulate this (hand-written) program.txt instead of the plan's; it is checked "
                  "against the plan's rules first")
      ->type_name("FILE");
  cmd->add_option("--memory-detail", o->memory_detail,
                  "fast: the memory's sustained rate; full: the detailed model per preload")
      ->check(CLI::IsMember({"fast", "full"}))
      ->capture_default_str();
  cmd->add_option("--groups", o->groups_per_chip,
                  "Core groups per chip (docs/simulator.md); more is slower and finer")
      ->check(CLI::Range(1u, 1u << 20))
      ->capture_default_str();
  cmd->add_option("--ops", o->op_rows, "Ops listed, furthest from the estimate first; 0: all")
      ->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->callback(
      [&global, &action, o] { action = [&global, o] { return run_simulate(global, *o); }; });
}

}  // namespace tessera::cli
