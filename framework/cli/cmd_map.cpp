// `tessera map`: TCM, the optimal mapping of one Einsum onto an accelerator's memory hierarchy
// (docs/mapper.md), the random-sampling baseline, and evaluating a saved mapping.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "framework/cli/model_options.hpp"
#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/frontend/model_source.hpp"
#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/looptree_yaml.hpp"
#include "framework/mapper/mapper.hpp"
#include "framework/mapper/names.hpp"
#include "framework/mapper/presets.hpp"
#include "framework/mapper/random_search.hpp"
#include "framework/mapper/reference_model.hpp"
#include "framework/mapper/report.hpp"
#include "framework/mapper/workload_file.hpp"
#include "framework/report/units.hpp"

namespace tessera::cli {

namespace {

using namespace tessera::mapper;

constexpr double kMaxTimeLimit = 86400;  // a day of sampling; TCM itself needs seconds

struct MapOptions {
  std::string arch = "tpu_v4i_like";
  std::string workload;
  std::string model;
  std::string op;
  int64_t batch = 1;
  int64_t seq = 0;
  std::string mode;
  std::string objective = "edp";
  std::string pareto_level;
  std::string search = "tcm";
  double time_limit = 10;
  uint64_t seed = 1;
  int threads = 0;
  std::string output;
  std::string evaluate;
  bool list = false;
  bool progress = false;
  bool force = false;
};

// The report's stream: standard error when the mapping itself goes to standard output (-o -).
std::ostream& report(const MapOptions& o) {
  return report_stream({o.output});
}

// The text written in a mapping file's `arch:` key: a preset name, or the file's absolute path.
std::string arch_reference(const std::string& arch) {
  if (!looks_like_path(arch)) return arch;
  return std::filesystem::absolute(arch).lexically_normal().string();
}

Problem load_problem(const MapOptions& o) {
  int given = !o.workload.empty() + !o.model.empty();
  if (given != 1)
    throw Failure(
        usage_error("give the Einsum to map: --workload NAME|FILE, or --model M --op NAME "
                    "(`tessera map --list` lists the presets)"));
  if (!o.workload.empty()) return resolve_workload(o.workload).take();
  if (o.op.empty()) throw Failure(usage_error("--model needs --op NAME (the op to map)"));
  ModelRequest request;
  request.model = o.model;
  request.shape.batch = o.batch;
  if (o.seq > 0) request.shape.seq = o.seq;
  if (!o.mode.empty())
    request.shape.mode = o.mode == "decode" ? zoo::Mode::decode : zoo::Mode::prefill;
  request.shape_given = o.batch != 1 || o.seq > 0 || !o.mode.empty();
  ir::Graph graph = load_model(request).take();
  OpProblem op = problem_from_op(graph, o.op).take();
  for (const auto& t : op.epilogue)
    report(o) << "note       " << t << " is added once per output element (an epilogue); it is "
              << "not part of the mapped Einsum\n";
  return op.problem;
}

int level_index(const Hierarchy& h, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& l : h.levels) names.push_back(l.name);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw Failure(usage_error("--pareto-level: no level '" + name + "' in " + h.arch_name +
                            nearest_hint(name, names, "; did you mean ", "?") +
                            " Levels: " + join_names(names)));
}

void print_header(const MapOptions& o, const Problem& p, const ArchSpec& arch,
                  const std::string& what) {
  report(o) << "workload   " << p.str() << "\n";
  report(o) << "arch       " << arch.name << " (" << arch.file.string() << ")\n";
  report(o) << what << "\n\n";
}

void write_mapping(const MapOptions& o, const std::string& text) {
  if (!o.output.empty()) write_output(o.output, text, o.force);
}

// A progress line on stderr when it is a terminal (or when asked), overwritten in place.
std::function<void(const MapperProgress&)> progress_printer(bool forced) {
  bool tty = isatty(STDERR_FILENO) != 0;
  if (!tty && !forced) return {};
  return [tty](const MapperProgress& p) {
    std::cerr << (tty ? "\r" : "") << "mapping: " << p.dataplacements_done << "/"
              << p.dataplacements << " dataplacements, "
              << format_count(static_cast<double>(p.evaluated)) << " mappings evaluated, "
              << static_cast<int>(p.seconds) << " s" << (tty ? "   " : "\n") << std::flush;
  };
}

int run_tcm(const MapOptions& o, const ArchSpec& arch, const Problem& p, const Hierarchy& h) {
  MapperOptions options;
  options.objective = *parse_objective(o.objective);
  options.threads = o.threads;
  options.pareto_level =
      o.pareto_level.empty() ? std::min(1, h.num_levels() - 1) : level_index(h, o.pareto_level);
  options.progress = progress_printer(o.progress);
  MapResult result = run_mapper(p, h, options);
  if (options.progress && isatty(STDERR_FILENO)) std::cerr << "\r\033[K" << std::flush;
  if (result.mappings.empty()) throw Failure(input_error(result.infeasible));
  print_header(o, p, arch,
               "objective  " + o.objective +
                   (options.objective == Objective::pareto
                        ? " (latency vs " + h.levels[options.pareto_level].name + " usage)"
                        : ""));
  if (options.objective == Objective::pareto)
    report(o) << render_front(result.mappings, h.levels[options.pareto_level].name) << "\n"
              << "fastest point:\n";
  const Candidate& best = result.mappings[0];
  Evaluation ev = evaluate_reference(p, h, best.tree);
  // Bit-identical below 2^53 bytes per level; beyond, the two sum in different orders.
  auto differ = [](double a, double b) { return std::fabs(a - b) > 1e-9 * std::fabs(b); };
  if (differ(ev.metrics.energy_joules, best.metrics.energy_joules) ||
      differ(ev.metrics.latency_seconds, best.metrics.latency_seconds))
    throw Failure(Error{ErrorKind::internal, StatusCode::internal,
                        "the curried and the reference model disagree on the best mapping"});
  report(o) << render_evaluation(p, h, best.tree, ev) << "\n"
            << render_stats(result.stats, result.times);
  write_mapping(o, mapping_yaml(arch_reference(o.arch), p, h, options.objective, result.mappings));
  return kExitOk;
}

int run_random(const MapOptions& o, const ArchSpec& arch, const Problem& p, const Hierarchy& h) {
  RandomSearchOptions options;
  options.objective = *parse_objective(o.objective);
  if (options.objective == Objective::pareto)
    throw Failure(usage_error("--search random minimises one objective: energy, latency or edp"));
  options.time_limit_seconds = o.time_limit;
  options.seed = o.seed;
  RandomSearchResult result = random_search(p, h, options);
  if (!result.best)
    throw Failure(input_error("random sampling found no valid mapping in " +
                              format_seconds(result.seconds) + " (" +
                              format_count(static_cast<double>(result.samples)) + " samples); " +
                              (diagnose_overflow(p, h).empty() ? "sample longer (--time-limit)"
                                                               : diagnose_overflow(p, h))));
  print_header(
      o, p, arch,
      "search     random sampling, seed " + std::to_string(o.seed) + ", objective " + o.objective);
  Evaluation ev = evaluate_reference(p, h, result.best->tree);
  report(o) << render_evaluation(p, h, result.best->tree, ev) << "\n"
            << render_random(result, options.objective);
  write_mapping(o, mapping_yaml(arch_reference(o.arch), p, h, options.objective, {*result.best}));
  return kExitOk;
}

int run_evaluate(const MapOptions& o) {
  MappingFile file = read_mapping_file(o.evaluate).take();
  ArchSpec arch = resolve_arch_spec(file.arch).take();
  Hierarchy h = build_hierarchy(arch, file.problem).take();
  print_header(o, file.problem, arch, "evaluating " + o.evaluate);
  int status = kExitOk;
  for (size_t i = 0; i < file.trees.size(); ++i) {
    LoopTree tree = looptree_from_yaml(file.trees[i], file.problem, h).take();
    Evaluation ev = evaluate_reference(file.problem, h, tree);
    if (file.trees.size() > 1) std::cout << "front point " << i << ":\n";
    std::cout << render_evaluation(file.problem, h, tree, ev) << "\n";
    if (!ev.valid) status = kExitCheckFailed;
  }
  return status;
}

int run_list() {
  std::cout << "architectures:";
  for (const auto& a : arch_presets()) std::cout << " " << a;
  std::cout << "\nworkloads:";
  for (const auto& w : workload_presets()) std::cout << " " << w;
  std::cout << "\n";
  return kExitOk;
}

int run_map(const MapOptions& o) {
  if (o.list) return run_list();
  if (!o.evaluate.empty()) return run_evaluate(o);
  Problem p = load_problem(o);
  ArchSpec arch = resolve_arch_spec(o.arch).take();
  Hierarchy h = build_hierarchy(arch, p).take();
  return o.search == "random" ? run_random(o, arch, p, h) : run_tcm(o, arch, p, h);
}

}  // namespace

void add_map_command(CLI::App& app, const GlobalOptions&, Action& action) {
  auto o = std::make_shared<MapOptions>();
  CLI::App* cmd = app.add_subcommand(
      "map", "Find the optimal mapping of one Einsum onto an accelerator (TCM), or evaluate one");
  cmd->add_option("--arch", o->arch, "Architecture: preset name or spec file")
      ->capture_default_str();
  cmd->add_option("-w,--workload", o->workload, "Einsum: preset name or workload file");
  cmd->add_option("--model", o->model, "A model (as `tessera inspect` takes) whose --op to map");
  cmd->add_option("--op", o->op, "The op of --model to map");
  cmd->add_option("--batch", o->batch, "Zoo models: sequences per step")
      ->check(whole_in(1, kMaxBatch));
  cmd->add_option("--seq", o->seq, "Zoo models: tokens per sequence")->check(whole_in(1, kMaxSeq));
  cmd->add_option("--mode", o->mode, "Zoo models: decode or prefill")
      ->check(CLI::IsMember({"decode", "prefill"}));
  cmd->add_option("--objective", o->objective, "energy, latency, edp or pareto")
      ->check(CLI::IsMember({"energy", "latency", "edp", "pareto"}))
      ->capture_default_str();
  cmd->add_option("--pareto-level", o->pareto_level,
                  "Level whose usage the Pareto front trades against latency (default: the "
                  "first below the backing store)");
  cmd->add_option("--search", o->search, "tcm (optimal) or random (sampling baseline)")
      ->check(CLI::IsMember({"tcm", "random"}))
      ->capture_default_str();
  cmd->add_option("--time-limit", o->time_limit, "Seconds of random sampling")
      ->check(number_in(0, kMaxTimeLimit, true))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of random sampling")
      ->check(whole_in(0, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("-j,--threads", o->threads, "Threads (0: all)")->check(whole_in(0, 1024));
  cmd->add_option("-o,--output", o->output, "Write the mapping (YAML) here");
  cmd->add_flag("--force", o->force, "Overwrite an existing --output file");
  cmd->add_option("--evaluate", o->evaluate, "Evaluate the mapping in this file");
  cmd->add_flag("--list", o->list, "List the architecture and workload presets");
  cmd->add_flag("--progress", o->progress,
                "Print progress to stderr even when it is not a terminal");
  cmd->callback([&action, o] { action = [o] { return run_map(*o); }; });
}

}  // namespace tessera::cli
