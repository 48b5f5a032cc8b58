// `tessera simulate PLAN.yaml`: rebuilds the plan's model and chip, refuses a plan that no longer
// matches them, lowers it to the preload_async/execute program (or runs a hand-written one) and
// executes it on the event-driven simulator; prints the report, writes program.txt and trace.json.
#include <iostream>
#include <optional>

#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/codegen/program_check.hpp"
#include "framework/codegen/program_text.hpp"
#include "framework/common/files.hpp"
#include "framework/common/json_text.hpp"
#include "framework/common/units.hpp"
#include "framework/common/user_text.hpp"
#include "framework/driver/driver.hpp"
#include "framework/parallel/parallel_yaml.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/planner/planner.hpp"
#include "framework/report/approximation_report.hpp"
#include "framework/report/design_report.hpp"
#include "framework/report/parallel_report.hpp"
#include "framework/report/residency_report.hpp"
#include "framework/sim/sim_report.hpp"

namespace tessera::cli {

namespace {

struct SimulateOptions {
  std::string plan;
  std::string trace;
  std::string program_out;
  std::string run_program;
  std::string memory_detail = "fast";
  std::string dispatch;  // empty: the plan's
  size_t op_rows = 10;
  bool force = false;
  std::string format = "text";
};

// A program breaking the rules, or with numbers its graph and chip cannot have, is refused with
// its first violations, one `error:` line each.
[[noreturn]] void refuse(const std::vector<codegen::Violation>& violations,
                         const std::string& path) {
  std::vector<std::string> lines = codegen::violation_lines(violations, printable(path));
  for (size_t i = 0; i + 1 < lines.size(); ++i)
    std::cerr << "error: " << printable(lines[i], 1000) << "\n";  // as main prints the last
  throw Failure(input_error(lines.back()));
}

codegen::Program hand_written_program(const std::string& path, const planner::Plan& plan,
                                      const driver::Reopened& reopened) {
  codegen::Program program =
      codegen::read_program_text(read_file(path, kMaxTextBytes).take(), path).take();
  auto violations = codegen::check_program(program, &plan.result.preload_order);
  if (!violations.empty()) refuse(violations, path);
  if (program.ops.size() != plan.result.ops.size())
    throw Failure(input_error(printable(path) + ": the program has " +
                              std::to_string(program.ops.size()) + " ops but the plan has " +
                              std::to_string(plan.result.ops.size())));
  violations =
      codegen::check_program_bounds(program, *reopened.graph, reopened.chip.models.machine);
  if (!violations.empty()) refuse(violations, path);
  return program;
}

// parallel.yaml: every stage plan reopened on one chip of the machine and simulated, the
// collectives with every replica's copy at once, the step composed; compile --parallel
// --simulate's tables (or its JSON) and, with --trace, the step's trace per chip.
// The JSON report with the plan's residency beside it, under "residency" (null when off).
std::string with_residency(const std::string& document, const planner::ResidencyRecord& residency) {
  nlohmann::json doc = nlohmann::json::parse(document);
  doc["residency"] = residency_json(residency);
  return json_text(doc, 1) + "\n";
}

// The plan's residency and what it means for the run: the simulator moved none of those bytes.
std::string resident_note(const planner::ResidencyRecord& residency, const Machine& machine) {
  std::string text = residency_text(residency, machine);
  if (text.empty()) return text;
  return "\n" + text +
         "  (simulated: no preload, off-chip read or write for the resident tensors; their "
         "ops move them from their homes as a distribution)\n";
}

// A prefill's time to first token: the simulated step and the host's read of the logits.
std::string first_token_text(const std::optional<driver::FirstTokenRead>& read, double step_s) {
  if (!read) return "";
  std::string ttft = read->bytes_per_s > 0
                         ? "\nttft         " + format_seconds(step_s + read->seconds()) + "\n"
                         : "";
  return ttft + first_token_note(read);
}

int run_parallel(const GlobalOptions& global, const SimulateOptions& o, const std::string& text) {
  if (!o.dispatch.empty())
    throw Failure(usage_error("--dispatch is one plan's: " + printable(o.plan) +
                              " is a parallel strategy's, whose stage plans keep the dispatch "
                              "they were compiled with (tessera compile --parallel --dispatch)"));
  if (!o.program_out.empty() || !o.run_program.empty())
    throw Failure(usage_error(std::string(o.program_out.empty() ? "--run-program" : "--program") +
                              " is one plan's program; " + printable(o.plan) +
                              " is a parallel strategy's: give one of its stage plans"));
  std::ostream& report = report_stream({o.trace});
  parallel::ParallelPlan plan = parallel::parse_parallel_yaml(text, o.plan).take();
  PluginSet plugins(global.registry());
  sim::SimOptions options;
  options.memory = o.memory_detail == "full" ? sim::MemoryDetail::full : sim::MemoryDetail::fast;
  parallel::ReopenedParallel reopened =
      parallel::reopen_parallel(plugins, plan, o.plan, true, options).take();
  const parallel::ParallelCompilation& compiled = reopened.compiled;
  const Machine& machine = reopened.machine.models.machine;
  const planner::Design design = *planner::parse_design(plan.design);
  if (o.format == "json")
    report << parallel_json(compiled, machine);
  else
    report << strategy_line(compiled, machine) << parallel_steps_table(compiled) << "\n"
           << stages_table(compiled, design) << "\n"
           << collectives_table(compiled, design);
  if (!o.trace.empty())
    write_output(o.trace, parallel_trace_json(compiled, machine, design), o.force);
  return kExitOk;
}

int run_simulate(const GlobalOptions& global, const SimulateOptions& o) {
  // One read decides the kind: a parallel strategy's parallel.yaml or one design's plan.yaml.
  // A file that cannot be read gets plan.yaml's message (which says what writes it).
  auto text = read_file(o.plan, kMaxTextBytes);
  if (text && parallel::is_parallel_yaml(*text)) return run_parallel(global, o, *text);
  std::ostream& report = report_stream({o.program_out, o.trace});
  planner::Plan plan =
      (text ? planner::parse_plan_yaml(*text, o.plan) : planner::read_plan_yaml(o.plan)).take();
  PluginSet plugins(global.registry());
  driver::Reopened reopened = driver::reopen(plugins, plan, o.plan).take();
  // Simulated under another dispatch than planned: the plan's times stay its estimate.
  if (!o.dispatch.empty())
    plan.result.dispatch =
        planner::dispatch_costs(*parse_dispatch(o.dispatch), reopened.chip.models.fixed_costs);

  std::optional<codegen::Program> program;
  if (!o.run_program.empty()) program = hand_written_program(o.run_program, plan, reopened);
  sim::SimOptions options;
  options.memory = o.memory_detail == "full" ? sim::MemoryDetail::full : sim::MemoryDetail::fast;
  options.record_trace = !o.trace.empty();
  auto simulated =
      driver::simulate(plan, reopened.chip, *reopened.graph, options, std::move(program));
  // What the plan holds that its op cannot have (its tiles' placement) is the plan file's fault.
  if (!simulated && simulated.error().kind == ErrorKind::input)
    throw Failure(input_error(printable(o.plan) + ": " + simulated.error().message));
  driver::SimulatedDesign run = std::move(simulated).take();
  if (!o.program_out.empty())
    write_output(o.program_out, codegen::write_program_text(run.program), o.force);
  const Machine& machine = reopened.chip.models.machine;
  const ChipSpec& spec = reopened.chip.spec;
  const auto first_token = driver::first_token_read(spec, reopened.model);
  const double step_s = run.result.latency_s;
  report << (o.format == "json"
                 ? with_approximation(
                       with_first_token(
                           with_residency(sim::sim_report_json(run.result, run.program, machine,
                                                               run.energy, plan.result.energy),
                                          plan.result.residency),
                           first_token, step_s),
                       spec)
                 : approximation_line(spec) +
                       sim::render_sim_report(run.result, run.program, machine, o.op_rows,
                                              run.energy, plan.result.energy) +
                       first_token_text(first_token, step_s) +
                       resident_note(plan.result.residency, machine));
  if (!o.trace.empty())
    write_output(o.trace, sim::trace_json(run.result, run.program, driver::power_w(run)), o.force);
  return kExitOk;
}

}  // namespace

void add_simulate_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run a saved plan's program on the event-driven simulator and report");
  cmd->add_option("PLAN", o->plan,
                  "plan.yaml written by tessera compile, or parallel.yaml written by tessera "
                  "compile --parallel (every stage, its collectives and the composed step)")
      ->required();
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
  cmd->add_option("--ops", o->op_rows, "Ops listed, furthest from the estimate first; 0: all")
      ->check(bounded("simulate", "--ops"))
      ->capture_default_str();
  cmd->add_option("--format", o->format,
                  "text, or json: the report as one JSON document, every op listed")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--dispatch", o->dispatch,
                  "Simulate with this dispatch (none, traced, host or host-async) instead of the "
                  "plan's; the planned figure stays the plan's")
      ->check(CLI::IsMember({"none", "traced", "host", "host-async"}));
  cmd->add_flag("--force", o->force, "Overwrite existing output files");
  cmd->callback(
      [&global, &action, o] { action = [&global, o] { return run_simulate(global, *o); }; });
}

}  // namespace tessera::cli
