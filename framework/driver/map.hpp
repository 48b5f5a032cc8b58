// The pipeline of `tessera map` (and tessera.map in Python): one Einsum — a workload preset or
// file, or one op of a model — on an accelerator's memory hierarchy (an architecture preset or
// spec file), searched by TCM (optimal for the mapper's model, docs/mapper.md) or by the
// random-sampling baseline, or a saved mapping file evaluated. Every mapping returned is
// re-evaluated with the uncurried reference model, whose figures the reports print.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/driver/choices.hpp"
#include "framework/mapper/arch_spec.hpp"
#include "framework/mapper/evaluation.hpp"
#include "framework/mapper/looptree.hpp"
#include "framework/mapper/mapper.hpp"
#include "framework/mapper/random_search.hpp"

namespace tessera::driver {

enum class MapSearch { tcm, random };

struct MapRequest {
  std::string arch = "tpu_v4i_like";  // preset name or spec file
  // The Einsum: a workload preset or file, or `op` of `model` (exactly one of the two).
  std::string workload;
  std::optional<ModelWords> model;
  std::string op;
  mapper::Objective objective = mapper::Objective::edp;
  std::string pareto_level;  // pareto: the level traded against latency; "": the first below
                             // the backing store
  MapSearch search = MapSearch::tcm;
  double time_limit_seconds = 10;  // random sampling
  uint64_t seed = 1;               // random sampling
  int threads = 0;                 // TCM; 0: every hardware thread
  // TCM: called about once a second from a watcher thread (may be empty).
  std::function<void(const mapper::MapperProgress&)> progress;
};

// One mapping (its tree, the search's metrics, and for pareto the bytes used in the traded
// level) and the reference model's figures for it.
struct EvaluatedMapping {
  mapper::Candidate candidate;
  mapper::Evaluation evaluation;
};

struct Mapping {
  mapper::Problem problem;
  mapper::ArchSpec arch;
  std::string arch_reference;  // what a mapping file's `arch:` holds: a preset, or an absolute path
  mapper::Hierarchy hierarchy;
  // Tensors of the op added once per output element, outside the mapped Einsum (a bias).
  std::vector<std::string> epilogue;
  std::string search;  // "tcm", "random" or "evaluate"
  mapper::Objective objective = mapper::Objective::edp;
  int pareto_level = -1;  // pareto: the traded level's index
  // TCM: the best mapping, or the Pareto front sorted by latency; random: the best sampled;
  // evaluate: every mapping of the file. Never empty.
  std::vector<EvaluatedMapping> mappings;
  std::optional<mapper::MapspaceStats> mapspace;  // TCM
  std::optional<mapper::StageTimes> times;        // TCM
  std::optional<mapper::RandomSearchResult> random;
};

// Usage errors: neither or both of workload and model, a model without op, an unknown pareto
// level, a pareto objective for random sampling. Input errors: the workload, model, op or arch
// (their files' messages), no mapping that fits (which level overflows with which tensors).
// Internal error: the curried and the reference model disagree on TCM's best mapping.
Result<Mapping> map_einsum(const MapRequest& request);

// A mapping file (`tessera map -o`) evaluated against the arch it names: its mappings in order.
Result<Mapping> evaluate_mapping_file(const std::string& path);

// The mapping file of `mapping` (the YAML `tessera map -o` writes and --evaluate reads).
std::string mapping_file_text(const Mapping& mapping);

}  // namespace tessera::driver
