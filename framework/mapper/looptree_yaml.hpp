// Mapping files: what `tessera map --output` writes and `tessera map --evaluate` reads back.
//
//   tessera_mapping: 1
//   arch: tpu_v4i_like                  # preset name or absolute path
//   workload: {name: ..., einsum: ..., ranks: {...}, element_bytes: {...}, roles: {...}}
//   objective: edp                      # informational, as are the metrics
//   metrics: {energy_joules: ..., latency_seconds: ..., edp: ...}
//   mapping:                            # the LoopTree, top to bottom
//     - {storage: MainMemory, tensor: Q}
//     - {temporal: m, bound: 8}
//     - {spatial: p, bound: 4, fanout: Z}
//
// A Pareto front is written as `front:`, a list of {latency_seconds, usage_bytes, mapping}.
// Reading is two steps, because names mean something only once the architecture is resolved
// against the workload: read_mapping_file, then looptree_from_yaml per mapping.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "framework/common/yaml_reader.hpp"
#include "framework/mapper/hierarchy.hpp"
#include "framework/mapper/looptree.hpp"
#include "framework/mapper/objective.hpp"

namespace tessera::mapper {

struct MappingFile {
  std::string arch;  // as written: a preset name or a path
  Problem problem;
  std::vector<YamlNode> trees;  // each a `mapping:` list
};

Result<MappingFile> read_mapping_file(const std::filesystem::path& file);
// The same from text; `file` labels errors.
Result<MappingFile> parse_mapping_text(const std::string& text, const std::filesystem::path& file);

// Names resolved against `problem` and `hierarchy` (unknown names suggest the nearest), then
// check_looptree; errors name the file, line and `mapping[i]`.
Result<LoopTree> looptree_from_yaml(const YamlNode& list, const Problem& problem,
                                    const Hierarchy& hierarchy);

// The file for `mappings` (one, or a front when `objective` is pareto).
std::string mapping_yaml(const std::string& arch, const Problem& problem,
                         const Hierarchy& hierarchy, Objective objective,
                         const std::vector<Candidate>& mappings);

}  // namespace tessera::mapper
