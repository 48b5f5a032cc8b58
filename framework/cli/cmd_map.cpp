// `tessera map`: TCM, the optimal mapping of one Einsum onto an accelerator's memory hierarchy
// (docs/mapper.md), the random-sampling baseline, and evaluating a saved mapping.
#include <unistd.h>

#include <iostream>

#include "framework/cli/model_options.hpp"
#include "framework/cli/number_checks.hpp"
#include "framework/cli/options.hpp"
#include "framework/cli/output.hpp"
#include "framework/driver/map.hpp"
#include "framework/mapper/report.hpp"
#include "framework/mapper/workload_file.hpp"
#include "framework/report/map_report.hpp"

namespace tessera::cli {

namespace {

using namespace tessera::mapper;

struct MapOptions {
  std::string arch = "tpu_v4i_like";
  std::string workload;
  std::string model;
  std::string op;
  int64_t batch = 0;  // 0: not given (the model's default)
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
  std::string format = "text";
};

// The report's stream: standard error when the mapping itself goes to standard output (-o -).
std::ostream& report(const MapOptions& o) {
  return report_stream({o.output});
}

// A progress line on stderr when it is a terminal (or when asked), overwritten in place.
std::function<void(const MapperProgress&)> map_progress_printer(bool forced) {
  bool tty = isatty(STDERR_FILENO) != 0;
  if (!tty && !forced) return {};
  return [tty](const MapperProgress& p) {
    std::cerr << (tty ? "\r" : "") << "mapping: " << p.dataplacements_done << "/"
              << p.dataplacements << " dataplacements, "
              << format_count(static_cast<double>(p.evaluated)) << " mappings evaluated, "
              << static_cast<int>(p.seconds) << " s" << (tty ? "   " : "\n") << std::flush;
  };
}

driver::MapRequest map_request(const MapOptions& o) {
  driver::MapRequest r;
  r.arch = o.arch;
  r.workload = o.workload;
  if (!o.model.empty()) {
    r.model.emplace();
    r.model->model = o.model;
    if (o.batch > 0) r.model->batch = o.batch;
    if (o.seq > 0) r.model->seq = o.seq;
    if (!o.mode.empty()) r.model->mode = o.mode;
  }
  r.op = o.op;
  r.objective = *parse_objective(o.objective);
  r.pareto_level = o.pareto_level;
  r.search = o.search == "random" ? driver::MapSearch::random : driver::MapSearch::tcm;
  r.time_limit_seconds = o.time_limit;
  r.seed = o.seed;
  r.threads = o.threads;
  r.progress = o.format == "json" ? nullptr : map_progress_printer(o.progress);
  return r;
}

void print_header(const MapOptions& o, const driver::Mapping& m, const std::string& what) {
  report(o) << "workload   " << m.problem.str() << "\n";
  report(o) << "arch       " << m.arch.name << " (" << m.arch.file.string() << ")\n";
  report(o) << what << "\n\n";
}

// The tables: the best mapping (the fastest point of a Pareto front, after the front), then the
// mapspace and times (TCM) or the sampling's figures (random).
void print_report(const MapOptions& o, const driver::Mapping& m) {
  const Problem& p = m.problem;
  const Hierarchy& h = m.hierarchy;
  for (const auto& t : m.epilogue)
    report(o) << "note       " << t << " is added once per output element (an epilogue); it is "
              << "not part of the mapped Einsum\n";
  print_header(o, m,
               m.random ? "search     random sampling, seed " + std::to_string(o.seed) +
                              ", objective " + o.objective
                        : "objective  " + o.objective +
                              (m.pareto_level >= 0
                                   ? " (latency vs " + h.levels[m.pareto_level].name + " usage)"
                                   : ""));
  if (m.pareto_level >= 0) {
    std::vector<Candidate> front;
    for (const auto& e : m.mappings) front.push_back(e.candidate);
    report(o) << render_front(front, h.levels[m.pareto_level].name) << "\n"
              << "fastest point:\n";
  }
  const driver::EvaluatedMapping& best = m.mappings.front();
  report(o) << render_evaluation(p, h, best.candidate.tree, best.evaluation) << "\n";
  if (m.random) report(o) << render_random(*m.random, m.objective);
  if (m.mapspace) report(o) << render_stats(*m.mapspace, *m.times);
}

int run_search(const MapOptions& o) {
  if (o.format == "json" && o.output == "-")
    throw Failure(
        usage_error("--format json and -o - both write to standard output; write the "
                    "mapping to a file (-o FILE) or leave one of them out"));
  driver::MapRequest request = map_request(o);
  bool tty_progress = request.progress && isatty(STDERR_FILENO);
  auto mapped = driver::map_einsum(request);
  if (tty_progress) std::cerr << "\r\033[K" << std::flush;
  driver::Mapping m = std::move(mapped).take();
  if (o.format == "json")
    std::cout << map_json(m);
  else
    print_report(o, m);
  if (!o.output.empty()) write_output(o.output, driver::mapping_file_text(m), o.force);
  return kExitOk;
}

int run_evaluate(const MapOptions& o) {
  driver::Mapping m = driver::evaluate_mapping_file(o.evaluate).take();
  int status = kExitOk;
  for (const auto& e : m.mappings)
    if (!e.evaluation.valid) status = kExitCheckFailed;
  if (o.format == "json") {
    std::cout << map_json(m);
    return status;
  }
  print_header(o, m, "evaluating " + o.evaluate);
  for (size_t i = 0; i < m.mappings.size(); ++i) {
    if (m.mappings.size() > 1) std::cout << "front point " << i << ":\n";
    std::cout << render_evaluation(m.problem, m.hierarchy, m.mappings[i].candidate.tree,
                                   m.mappings[i].evaluation)
              << "\n";
  }
  return status;
}

int run_list(const MapOptions& o) {
  if (o.format == "json") {
    std::cout << map_presets_json();
    return kExitOk;
  }
  std::cout << "architectures:";
  for (const auto& a : arch_presets()) std::cout << " " << a;
  std::cout << "\nworkloads:";
  for (const auto& w : workload_presets()) std::cout << " " << w;
  std::cout << "\n";
  return kExitOk;
}

int run_map(const MapOptions& o) {
  if (o.list) return run_list(o);
  if (!o.evaluate.empty()) return run_evaluate(o);
  return run_search(o);
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
      ->check(bounded("model", "--batch"));
  cmd->add_option("--seq", o->seq, "Zoo models: tokens per sequence")
      ->check(bounded("model", "--seq"));
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
      ->check(bounded("map", "--time-limit"))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of random sampling")
      ->check(bounded("map", "--seed"))
      ->capture_default_str();
  cmd->add_option("-j,--threads", o->threads, "Threads (0: all)")
      ->check(bounded("map", "--threads"));
  cmd->add_option("-o,--output", o->output, "Write the mapping (YAML) here");
  cmd->add_flag("--force", o->force, "Overwrite an existing --output file");
  cmd->add_option("--evaluate", o->evaluate, "Evaluate the mapping in this file");
  cmd->add_flag("--list", o->list, "List the architecture and workload presets");
  cmd->add_option("--format", o->format,
                  "text, or json: one document on standard output (docs/formats.md)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--progress", o->progress,
                "Print progress to stderr even when it is not a terminal");
  cmd->callback([&action, o] { action = [o] { return run_map(*o); }; });
}

}  // namespace tessera::cli
