// `tessera compile`: a model onto a chip with the Elk planner — per-op plans (partition/), then
// each requested design (planner.hpp), a table comparing them, and plan.yaml (plan_yaml.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "framework/cli/model_options.hpp"
#include "framework/cli/options.hpp"
#include "framework/common/files.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/planner/chip_models.hpp"
#include "framework/planner/plan_yaml.hpp"
#include "framework/planner/planner.hpp"
#include "framework/planner/planner_input.hpp"
#include "framework/report/table.hpp"
#include "framework/sim/simulate.hpp"

namespace tessera::cli {

namespace {

using namespace tessera::planner;

struct CompileOptions {
  std::shared_ptr<ModelOptions> model = std::make_shared<ModelOptions>();
  std::string target;
  std::string chip;
  std::string design = "elk-full";
  std::string output;
  bool force = false;
  unsigned threads = 0;
  int max_displacement = 4;
  int max_preloads = 0;
  bool simulate = false;  // add the simulator's columns (framework/sim/simulate.hpp)
};

std::vector<Design> designs_to_plan(const std::string& name) {
  if (name == "all")
    return {Design::basic, Design::static_split, Design::elk_dyn, Design::elk_full, Design::ideal};
  auto design = parse_design(name);
  if (!design)
    throw Failure(
        usage_error("--design '" + name + "': unknown design; valid: " + design_names() + ", all"));
  // Basic and Ideal are the table's yardsticks (speedup, % of Ideal).
  std::vector<Design> out{Design::basic};
  if (*design != Design::basic && *design != Design::ideal) out.push_back(*design);
  out.push_back(Design::ideal);
  return out;
}

// Progress on stderr: on a terminal one line rewritten in place; with -v and no terminal, a
// line at every tenth of the work; otherwise nothing.
std::function<void(double, double)> progress_printer(const std::string& what, bool verbose) {
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

std::string ms(double seconds) {
  return fmt::format("{:.3f}", seconds * 1e3);
}
std::string percent(double share) {
  return fmt::format("{:.1f}%", share * 100);
}

std::string render(const std::vector<DesignResult>& results) {
  const DesignResult* basic = nullptr;
  const DesignResult* ideal = nullptr;
  for (const auto& r : results) {
    if (r.design == Design::basic) basic = &r;
    if (r.design == Design::ideal) ideal = &r;
  }
  using A = Table::Align;
  Table table({"design", "ms/token", "vs basic", "of ideal", "HBM util", "NoC util", "TFLOP/s",
               "exec only ms", "overlap ms", "stall ms", "congest ms", "orders"},
              {A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right,
               A::right, A::right, A::right, A::right});
  for (const auto& r : results) {
    const Breakdown& b = r.breakdown;
    table.add_row({to_string(r.design), ms(r.latency_s),
                   fmt::format("{:.2f}x", basic->latency_s / r.latency_s),
                   percent(ideal->latency_s / r.latency_s), percent(r.hbm_utilisation),
                   percent(r.interconnect_utilisation),
                   fmt::format("{:.1f}", r.achieved_flops_per_s / 1e12), ms(b.execution_only_s),
                   ms(b.overlapped_s), ms(b.preload_stall_s), ms(b.congestion_s),
                   fmt::format("{}", r.orders_tried)});
  }
  return table.render();
}

void write_plans(const CompileOptions& o, const PlanSource& source, const Machine& machine,
                 const std::vector<DesignResult>& results) {
  namespace fs = std::filesystem;
  Design chosen = o.design == "all" ? Design::elk_full : *parse_design(o.design);
  for (const auto& r : results) {
    std::string text = write_plan_yaml(Plan{source, machine, r});
    if (r.design == chosen) {
      fs::path path = fs::path(o.output) / "plan.yaml";
      write_file_atomically(path, text, o.force).take();
      std::cerr << "wrote " << path.string() << "\n";
    }
    if (o.design == "all") {
      fs::path path = fs::path(o.output) / fmt::format("plan-{}.yaml", to_string(r.design));
      write_file_atomically(path, text, o.force).take();
      std::cerr << "wrote " << path.string() << "\n";
    }
  }
}

// What `tessera simulate` needs to load the same graph: the shape options of a zoo model (by name,
// or an entry file given them), the --dim bindings of an ONNX model.
PlanSource plan_source(const CompileOptions& o, const ir::Graph& graph, const std::string& target) {
  const ModelOptions& m = *o.model;
  PlanSource s;
  s.tessera_version = TESSERA_VERSION;
  s.model = m.model;
  bool file = m.model.ends_with(".onnx") || m.model.ends_with(".yaml") ||
              m.model.ends_with(".yml") || m.model.find('/') != std::string::npos;
  if (!file || m.shape_given) {
    s.batch = m.batch;
    s.seq = m.seq;
    s.mode = m.mode.empty() ? "decode" : m.mode;
    s.dtype = m.dtype;
  }
  for (const std::string& dim : m.dims) s.onnx_dims += (s.onnx_dims.empty() ? "" : ",") + dim;
  s.skip_unsupported = m.skip_unsupported ? 1 : 0;
  s.graph_name = graph.name();
  s.graph_ops = graph.ops().size();
  s.target = target;
  s.chip = o.chip;
  return s;
}

int run_compile(const GlobalOptions& global, const CompileOptions& o) {
  std::vector<Design> designs = designs_to_plan(o.design);
  PluginSet plugins(global.registry());
  Manifest manifest = plugins.library(o.target).take()->manifest();
  ChipSpec chip = resolve_chip(o.chip, manifest).take();
  ChipModels models = build_chip(plugins, chip).take();
  ir::Graph graph = load_model(model_request(*o.model)).take();

  PartitionOptions partition_options;
  partition_options.threads = o.threads;
  partition_options.progress = progress_printer("per-op plans (classes)", global.verbose > 0);
  PlannerInput input = make_planner_input(graph, models, partition_options).take();

  PlannerOptions options;
  options.threads = o.threads;
  options.max_displacement = o.max_displacement;
  options.max_preload_ops = o.max_preloads;
  std::vector<DesignResult> results;
  for (Design design : designs) {
    options.progress =
        progress_printer(fmt::format("{} (preload orders)", to_string(design)), global.verbose > 0);
    results.push_back(plan_design(input, design, options).take());
  }
  std::cout << fmt::format("model  {} ({} ops, {} classes) on {} ({} cores)\n", graph.name(),
                           graph.ops().size(), input.classes.first_op.size(), input.machine.chip,
                           input.machine.cores)
            << render(results);
  if (o.simulate) {
    std::vector<Plan> plans;
    for (const auto& r : results)
      plans.push_back({plan_source(o, graph, manifest.name), input.machine, r});
    std::cout << "\n" << sim::simulate_designs_table(plans, models, graph, {}).take();
  }
  if (o.output.empty()) {
    std::cerr << "note: pass -o DIR to write DIR/plan.yaml\n";
    return kExitOk;
  }
  write_plans(o, plan_source(o, graph, manifest.name), input.machine, results);
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
  cmd->add_option("-t,--target", o->target, "Target plugin: name, alias or path to NAME.so")
      ->required();
  cmd->add_option("--chip", o->chip, "Chip preset name or chip file (default: the target's)");
  cmd->add_option("--design", o->design,
                  "elk-full, elk-dyn, static, basic, ideal, or all (plan.yaml holds elk-full "
                  "then, and plan-DESIGN.yaml each design)")
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Directory to write plan.yaml into")->type_name("DIR");
  cmd->add_flag("--force", o->force, "Overwrite existing plan files");
  cmd->add_flag("--simulate", o->simulate,
                "Also run each design's program on the event-driven simulator and show its table");
  cmd->add_option("--threads", o->threads, "Worker threads (default: all)")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--max-displacement", o->max_displacement,
                  "Elk-Full: slots a preload may move from program order")
      ->check(CLI::Range(0, 8))
      ->capture_default_str();
  cmd->add_option("--max-preloads", o->max_preloads,
                  "Most preloads beside one op, K (default: the ops of one repeated layer)")
      ->check(CLI::Range(1, 4096));
  cmd->callback([&global, &action, o, models] {
    models->finish();
    action = [&global, o] { return run_compile(global, *o); };
  });
}

}  // namespace tessera::cli
