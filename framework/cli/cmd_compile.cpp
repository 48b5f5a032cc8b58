// `tessera compile`: a model onto a chip through the driver — per-op plans, each requested design
// (Elk planner), a table comparing them, optionally each design simulated, and plan.yaml.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "framework/cli/model_options.hpp"
#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/common/json_text.hpp"
#include "framework/driver/driver.hpp"
#include "framework/parallel/parallel.hpp"
#include "framework/parallel/parallel_yaml.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/report/approximation_report.hpp"
#include "framework/report/core_mapping_report.hpp"
#include "framework/report/design_report.hpp"
#include "framework/report/parallel_report.hpp"
#include "framework/report/residency_report.hpp"

namespace tessera::cli {

namespace {

struct CompileOptions {
  std::shared_ptr<ModelOptions> model = std::make_shared<ModelOptions>();
  driver::ChipChoice chip;
  std::string design = "elk-full";
  std::string output;
  bool force = false;
  unsigned threads = 0;
  int max_displacement = 4;
  int max_preloads = 0;
  bool simulate = false;  // add the simulator's columns
  std::string format = "table";
  std::string objective = "latency";
  std::string core_cost;  // empty: the chip file's choice
  std::string parallel;   // empty: flat
  std::string rank = "latency";
  std::string residency;  // empty: the chip file's
  std::string dispatch;   // empty: the chip file's
};

// Progress on stderr: on a terminal one line rewritten in place; with -v and no terminal, a
// line at every tenth of the work; otherwise nothing.
driver::Progress compile_progress_printer(const std::string& what, bool verbose) {
  bool tty = isatty(STDERR_FILENO) != 0;
  if (!verbose && !tty) return {};
  auto next_tenth = std::make_shared<double>(0.1);
  return [what, tty, next_tenth](double done, double total) {
    if (tty) {
      std::cerr << fmt::format("\r\033[K{}: {:.0f}/{:.0f}", what, done, total)
                << (done >= total ? "\n" : "") << std::flush;
      return;
    }
    if (done < *next_tenth * total && done < total) return;
    while (*next_tenth * total <= done) *next_tenth += 0.1;
    std::cerr << fmt::format("{}: {:.0f}/{:.0f}\n", what, done, total);
  };
}

void write_plan(const std::filesystem::path& path, const planner::Plan& plan, bool force) {
  write_output(path.string(), planner::write_plan_yaml(plan), force);
}

void write_plans(const CompileOptions& o, const driver::DesignChoice& choice,
                 const driver::Compilation& compilation) {
  for (const auto& d : compilation.designs) {
    const planner::Design design = d.plan.result.design;
    if (design == choice.written)
      write_plan(std::filesystem::path(o.output) / "plan.yaml", d.plan, o.force);
    if (choice.write_each)
      write_plan(std::filesystem::path(o.output) / fmt::format("plan-{}.yaml", to_string(design)),
                 d.plan, o.force);
  }
}

// The written design's core mappings (with --core-cost tcm), after a blank line; empty without.
std::string core_mappings(const driver::Compilation& compilation, planner::Design written,
                          const driver::OpenChip& chip) {
  for (const auto& d : compilation.designs)
    if (d.plan.result.design == written) {
      std::string text = core_mappings_text(d.plan.result, chip).take();
      return text.empty() ? text : "\n" + text;
    }
  return "";
}

driver::CompileOptions compile_options(const GlobalOptions& global, const CompileOptions& o,
                                       const driver::DesignChoice& choice,
                                       const driver::OpenChip& chip) {
  driver::CompileOptions options;
  options.designs = driver::planned_designs(choice, chip.spec.conventions.vendor);
  options.threads = o.threads;
  options.max_displacement = o.max_displacement;
  options.max_preload_ops = o.max_preloads;
  options.simulate = o.simulate;
  options.objective = driver::parse_plan_objective(o.objective).take();
  if (!o.residency.empty()) options.residency = parse_residency(o.residency);
  if (!o.dispatch.empty()) options.dispatch = parse_dispatch(o.dispatch);
  const bool verbose = global.verbose > 0;
  options.progress = [verbose](const std::string& stage) {
    return compile_progress_printer(stage, verbose);
  };
  return options;
}

// A compile document with the strategies tried beside it, under "search", when there was a search.
std::string with_search(const std::string& document, const std::optional<parallel::Search>& found) {
  if (!found) return document;
  nlohmann::json doc = nlohmann::json::parse(document);
  doc["search"] = nlohmann::json::parse(search_json(*found));
  return json_text(doc, 1) + "\n";
}

// --parallel auto: every strategy tried (its table on standard output, but with --format json),
// and the best one; an input error when none fits.
parallel::Search search(PluginSet& plugins, driver::OpenChip& chip, const CompileOptions& o,
                        const parallel::ParallelModel& model,
                        const driver::CompileOptions& options) {
  auto found =
      parallel::search_strategies(plugins, chip, model, options, *parallel::parse_rank(o.rank))
          .take();
  if (o.format != "json") std::cout << search_table(found) << "\n";
  if (!found.best)
    throw Failure(input_error("--parallel auto: no strategy fits " + model.request.model + " on " +
                              chip.spec.name + "; each row above says why"));
  return found;
}

// -o with a strategy: each distinct stage's plan (one chip's, as plan.yaml is for the whole chip;
// with --design all also each design's), then parallel.yaml, which names them — last, so a
// parallel.yaml is never left naming plans that were not written.
void write_parallel(const CompileOptions& o, const driver::DesignChoice& choice,
                    const driver::OpenChip& chip, const parallel::ParallelModel& model,
                    const parallel::ParallelCompilation& compiled) {
  const std::filesystem::path dir(o.output);
  std::set<size_t> written;
  for (size_t s = 0; s < compiled.stages.size(); ++s) {
    if (!written.insert(compiled.stages[s].compilation).second) continue;
    for (const auto& d : compiled.compilations[compiled.stages[s].compilation].designs) {
      const planner::Design design = d.plan.result.design;
      if (design == choice.written)
        write_plan(dir / parallel::stage_plan_file(compiled, s), d.plan, o.force);
      if (choice.write_each)
        write_plan(dir / parallel::stage_plan_file(compiled, s, design), d.plan, o.force);
    }
  }
  const planner::PlanSource source = driver::plan_source(
      driver::LoadedModel{model.request, nullptr}, chip, *compiled.compilations.front().graph);
  write_output(
      (dir / "parallel.yaml").string(),
      parallel::write_parallel_yaml(parallel::parallel_plan(compiled, source, choice.written)),
      o.force);
}

// --parallel: a strategy's step, stages and collectives (after the search's table).
int run_parallel(PluginSet& plugins, driver::OpenChip& chip, const CompileOptions& o,
                 const parallel::ParallelModel& model, const parallel::ParallelStrategy& strategy,
                 const driver::CompileOptions& options, const driver::DesignChoice& choice,
                 const std::optional<parallel::Search>& searched) {
  auto compiled = parallel::compile_parallel(plugins, chip, model, strategy, options).take();
  if (o.format == "json")
    std::cout << parallel_json(compiled, chip.models.machine, searched ? &*searched : nullptr);
  else
    std::cout << strategy_line(compiled, chip.models.machine) << parallel_steps_table(compiled)
              << "\n"
              << stages_table(compiled, choice.written)
              << stages_residency_text(compiled, chip.models.machine) << "\n"
              << collectives_table(compiled, choice.written);
  if (o.output.empty()) {
    std::cerr << "note: pass -o DIR to write DIR/parallel.yaml and its stages' plans\n";
    return kExitOk;
  }
  write_parallel(o, choice, chip, model, compiled);
  return kExitOk;
}

int run_compile(const GlobalOptions& global, const CompileOptions& o) {
  if (is_stdout(o.output))
    throw Failure(
        usage_error("-o names the directory plan.yaml is written into; '-' (standard "
                    "output) is not one"));
  driver::DesignChoice choice = driver::parse_design_choice(o.design).take();
  PluginSet plugins(global.registry());
  driver::OpenChip chip = driver::open_chip(plugins, o.chip).take();
  if (!o.core_cost.empty()) driver::choose_core_cost(chip, *parse_core_cost(o.core_cost)).take();
  driver::CompileOptions options = compile_options(global, o, choice, chip);
  std::optional<parallel::Search> searched;
  if (!o.parallel.empty()) {
    auto strategy = parallel::parse_strategy(o.parallel).take();
    auto model = parallel::parallel_model(model_request(*o.model)).take();
    if (strategy.automatic) {
      searched = search(plugins, chip, o, model, options);
      strategy = searched->tried[*searched->best].strategy;
    }
    if (!strategy.flat)
      return run_parallel(plugins, chip, o, model, strategy, options, choice, searched);
  }
  driver::LoadedModel model = driver::load(model_request(*o.model)).take();
  // The search compiled flat already (planned only): its compile stands unless --simulate.
  driver::Compilation compilation = searched && searched->flat && !options.simulate
                                        ? std::move(*searched->flat)
                                        : driver::compile(chip, model, options).take();

  const Machine& machine = chip.models.machine;
  const ir::Graph& planned = *compilation.graph;
  if (o.format == "json")
    std::cout << with_approximation(
        with_search(compile_json(compilation, machine, options.sim.memory), searched), chip.spec);
  else
    std::cout << fmt::format("model  {} ({} ops, {} classes) on {} ({} cores)\n", planned.name(),
                             planned.ops().size(), compilation.op_classes, machine.chip,
                             machine.cores)
              << approximation_line(chip.spec) << splits_table(compilation)
              << planned_table(compilation)
              << (compilation.designs.empty()
                      ? ""
                      : residency_text(compilation.designs.front().plan.result.residency, machine))
              << (o.simulate ? "\n" + simulated_table(compilation, options.sim.memory) : "")
              << core_mappings(compilation, choice.written, chip);
  if (o.output.empty()) {
    std::cerr << "note: pass -o DIR to write DIR/plan.yaml\n";
    return kExitOk;
  }
  write_plans(o, choice, compilation);
  return kExitOk;
}

}  // namespace

void add_compile_command(CLI::App& app, const GlobalOptions& global, Action& action) {
  auto o = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Plan a model on a chip with Elk (per-op plans, preload scheduling, memory allocation, "
      "preload orders) and compare the designs; Basic and Ideal are always planned, as the "
      "table's yardsticks");
  auto models = std::make_shared<ModelOptionSet>(cmd, o->model, true);
  add_chip_options(cmd, o->chip);
  cmd->add_option("--design", o->design,
                  "elk-full, elk-dyn, static, basic, ideal, vendor (the chip's own stack, as "
                  "its chip file names it), or all (plan.yaml holds elk-full then, and "
                  "plan-DESIGN.yaml each design; vendor too where the chip names a stack)")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Directory to write plan.yaml into (with --parallel: parallel.yaml and each "
                  "stage's plan, stage-K.yaml)")
      ->type_name("DIR");
  cmd->add_flag("--force", o->force, "Overwrite existing plan files");
  cmd->add_flag("--simulate", o->simulate,
                "Also run each design's program on the event-driven simulator and show its table");
  cmd->add_option("--format", o->format,
                  "table, or json: the same figures as one JSON document on standard output")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--objective", o->objective,
                  "What each design's search minimises: latency (Elk's), or the planned energy "
                  "or energy x latency (edp), from the chip file's energy rates (docs/energy.md)")
      ->check(CLI::IsMember({"latency", "energy", "edp"}))
      ->capture_default_str();
  cmd->add_option("--core-cost", o->core_cost,
                  "Who times one core's tiles: plugin (the target's cost model) or tcm (the "
                  "optimal mapping of each tile on the chip file's core: hierarchy, "
                  "docs/mapper.md); default: the chip file's cost_model choice")
      ->check(CLI::IsMember({"plugin", "tcm"}));
  cmd->add_option("--parallel", o->parallel,
                  "How the step is divided over the chips (docs/planner.md): tp=T, pp=P, dp=D, "
                  "ep=E, mb=M, stages=A:B:.., collective=ALG, comma-separated (e.g. pp=4,tp=2); "
                  "auto: every strategy that fits, ranked by --rank; default flat (every op over "
                  "every core of every chip)")
      ->type_name("STRATEGY");
  cmd->add_option("--rank", o->rank,
                  "--parallel auto ranks strategies by latency (per step), throughput (tokens/s "
                  "of the machine) or energy (per token)")
      ->check(CLI::IsMember({"latency", "throughput", "energy"}))
      ->capture_default_str();
  cmd->add_option("--residency", o->residency,
                  "What stays in SRAM across steps instead of being preloaded every step "
                  "(docs/planner.md): off, auto (what pays, as much as fits), weights, or "
                  "weights+kv; default: the chip file's (off unless it says)")
      ->check(CLI::IsMember({"off", "auto", "weights", "weights+kv"}));
  cmd->add_option("--dispatch", o->dispatch,
                  "How each op's command reaches the chip, a fixed cost outside the preload "
                  "overlap (docs/planner.md, \"Fixed costs\"): none, traced (a replayed trace), "
                  "host (each op's command prepared once the op before has ended) or host-async "
                  "(commands issued ahead of the device); default: the chip file's (none unless "
                  "it says)")
      ->check(CLI::IsMember({"none", "traced", "host", "host-async"}));
  cmd->add_option("--threads", o->threads, "Worker threads (default: all)")
      ->check(bounded("compile", "--threads"));
  cmd->add_option("--max-displacement", o->max_displacement,
                  "Elk-Full: slots a preload may move from program order")
      ->check(bounded("compile", "--max-displacement"))
      ->capture_default_str();
  cmd->add_option("--max-preloads", o->max_preloads,
                  "Most preloads beside one op, K (default: the ops of one repeated layer)")
      ->check(bounded("compile", "--max-preloads"));
  cmd->callback([&global, &action, o, models] {
    models->finish();
    action = [&global, o] { return run_compile(global, *o); };
  });
}

}  // namespace tessera::cli
