#include "framework/driver/map.hpp"

#include <cmath>
#include <filesystem>

#include "framework/common/units.hpp"
#include "framework/mapper/looptree_yaml.hpp"
#include "framework/mapper/names.hpp"
#include "framework/mapper/presets.hpp"
#include "framework/mapper/reference_model.hpp"
#include "framework/mapper/report.hpp"
#include "framework/mapper/workload_file.hpp"

namespace tessera::driver {

namespace {

using namespace tessera::mapper;

std::string arch_reference(const std::string& arch) {
  if (!looks_like_path(arch)) return arch;
  return std::filesystem::absolute(arch).lexically_normal().string();
}

Result<OpProblem> load_problem(const MapRequest& r) {
  if (r.workload.empty() == !r.model.has_value())
    return usage_error(
        "give the Einsum to map: --workload NAME|FILE, or --model M --op NAME "
        "(`tessera map --list` lists the presets)");
  if (!r.workload.empty()) {
    auto problem = resolve_workload(r.workload);
    if (!problem) return problem.error();
    return OpProblem{std::move(problem).take(), {}};
  }
  if (r.op.empty()) return usage_error("--model needs --op NAME (the op to map)");
  auto request = parse_model_request(*r.model);
  if (!request) return request.error();
  auto graph = load_model(*request);
  if (!graph) return graph.error();
  return problem_from_op(*graph, r.op);
}

Result<int> level_index(const Hierarchy& h, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& l : h.levels) names.push_back(l.name);
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return usage_error("--pareto-level: no level '" + name + "' in " + h.arch_name +
                     nearest_hint(name, names, "; did you mean ", "?") +
                     " Levels: " + join_names(names));
}

EvaluatedMapping evaluated(const Problem& p, const Hierarchy& h, Candidate candidate) {
  Evaluation ev = evaluate_reference(p, h, candidate.tree);
  return {std::move(candidate), std::move(ev)};
}

Status run_tcm(const MapRequest& r, Mapping& m) {
  MapperOptions options;
  options.objective = r.objective;
  options.threads = r.threads;
  options.progress = r.progress;
  // A level named is checked whatever the objective: a typo is not silently ignored.
  int level = std::min(1, m.hierarchy.num_levels() - 1);
  if (!r.pareto_level.empty()) {
    auto named = level_index(m.hierarchy, r.pareto_level);
    if (!named) return named.error();
    level = *named;
  }
  options.pareto_level = level;
  if (r.objective == Objective::pareto) m.pareto_level = level;
  MapResult result = run_mapper(m.problem, m.hierarchy, options);
  if (result.mappings.empty()) return input_error(result.infeasible);
  for (Candidate& c : result.mappings)
    m.mappings.push_back(evaluated(m.problem, m.hierarchy, std::move(c)));
  // Bit-identical below 2^53 bytes per level; beyond, the two sum in different orders.
  auto differ = [](double a, double b) { return std::fabs(a - b) > 1e-9 * std::fabs(b); };
  for (const EvaluatedMapping& e : m.mappings)
    if (differ(e.evaluation.metrics.energy_joules, e.candidate.metrics.energy_joules) ||
        differ(e.evaluation.metrics.latency_seconds, e.candidate.metrics.latency_seconds))
      return Error{ErrorKind::internal, StatusCode::internal,
                   "the curried and the reference model disagree on the best mapping"};
  m.mapspace = result.stats;
  m.times = result.times;
  return Done{};
}

Status run_random(const MapRequest& r, Mapping& m) {
  if (r.objective == Objective::pareto)
    return usage_error("--search random minimises one objective: energy, latency or edp");
  RandomSearchOptions options;
  options.objective = r.objective;
  options.time_limit_seconds = r.time_limit_seconds;
  options.seed = r.seed;
  RandomSearchResult result = random_search(m.problem, m.hierarchy, options);
  if (!result.best) {
    std::string overflow = diagnose_overflow(m.problem, m.hierarchy);
    return input_error("random sampling found no valid mapping in " +
                       format_seconds(result.seconds) + " (" +
                       format_count(static_cast<double>(result.samples)) + " samples); " +
                       (overflow.empty() ? "sample longer (--time-limit)" : overflow));
  }
  m.mappings.push_back(evaluated(m.problem, m.hierarchy, *result.best));
  m.random = std::move(result);
  return Done{};
}

// The Einsum on the architecture `arch` names (a preset or spec file), no mapping yet.
Result<Mapping> start(Problem problem, const std::string& arch) {
  auto spec = resolve_arch_spec(arch);
  if (!spec) return spec.error();
  auto hierarchy = build_hierarchy(*spec, problem);
  if (!hierarchy) return hierarchy.error();
  Mapping m;
  m.problem = std::move(problem);
  m.arch = std::move(spec).take();
  m.hierarchy = std::move(hierarchy).take();
  return m;
}

}  // namespace

Result<Mapping> map_einsum(const MapRequest& r) {
  auto op = load_problem(r);
  if (!op) return op.error();
  auto m = start(std::move(op->problem), r.arch);
  if (!m) return m.error();
  m->arch_reference = arch_reference(r.arch);
  m->epilogue = std::move(op->epilogue);
  m->search = r.search == MapSearch::tcm ? "tcm" : "random";
  m->objective = r.objective;
  Status done = r.search == MapSearch::tcm ? run_tcm(r, *m) : run_random(r, *m);
  if (!done) return done.error();
  return m;
}

Result<Mapping> evaluate_mapping_file(const std::string& path) {
  auto file = read_mapping_file(path);
  if (!file) return file.error();
  auto started = start(std::move(file->problem), file->arch);
  if (!started) return started.error();
  Mapping m = std::move(started).take();
  m.arch_reference = file->arch;
  m.search = "evaluate";
  for (const YamlNode& node : file->trees) {
    auto tree = looptree_from_yaml(node, m.problem, m.hierarchy);
    if (!tree) return tree.error();
    Candidate candidate;
    candidate.tree = std::move(tree).take();
    EvaluatedMapping e = evaluated(m.problem, m.hierarchy, std::move(candidate));
    e.candidate.metrics = e.evaluation.metrics;
    m.mappings.push_back(std::move(e));
  }
  return m;
}

std::string mapping_file_text(const Mapping& m) {
  std::vector<Candidate> candidates;
  for (const EvaluatedMapping& e : m.mappings) candidates.push_back(e.candidate);
  return mapping_yaml(m.arch_reference, m.problem, m.hierarchy, m.objective, candidates);
}

}  // namespace tessera::driver
