// Architecture specs for the mapper (configs/arch/*.yaml, docs/mapper.md): a memory hierarchy from
// the backing store (level 0) to the innermost buffer, spatial fan-outs between levels, and the
// compute unit. This is the parsed file, independent of any workload; Hierarchy (hierarchy.hpp)
// resolves it against an Einsum. Parsing errors name file, line and key path; an unknown key names
// the nearest valid one.
#pragma once

#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "framework/common/status.hpp"
#include "framework/common/yaml_reader.hpp"

namespace tessera::mapper {

inline constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// Which tensors a list names: `all`, `none`, roles (input, weight, output) or tensor names. Kept as
// written (with where it was written) until a workload gives the names meaning.
struct TensorSelector {
  std::vector<std::string> names;
  std::optional<YamlNode> node;  // for errors when a name matches nothing
};

// One dimension of a spatial fan-out, e.g. the rows of a 128×128 MAC array.
struct FanoutDimSpec {
  std::string name;
  int64_t size = 1;
  // Tensors this dimension can multicast (inputs) or reduce spatially (the output): instances
  // that need the same elements get them with one access upstream.
  TensorSelector multicast;
  // A spatial loop here must be over a rank that does not index these tensors (a systolic
  // dimension that only broadcasts inputs or only reduces outputs).
  TensorSelector require_reuse;
  std::vector<std::string> ranks;  // empty: any rank; else only these rank names
  std::optional<YamlNode> ranks_node;
};

struct LevelSpec {
  std::string name;
  double capacity_bytes = kUnlimited;  // per instance
  double read_joules_per_byte = 0;     // energy of reading one byte
  double write_joules_per_byte = 0;
  double read_bytes_per_s = kUnlimited;  // per instance
  double write_bytes_per_s = kUnlimited;
  bool shared_port = true;  // true: read and write time add; false: separate ports, the max
  TensorSelector keep;      // must hold a tile of these (a storage node always exists)
  TensorSelector may_keep;  // may hold a tile of these
  std::vector<FanoutDimSpec> fanout;  // instances of this level per instance of the level above
  std::optional<YamlNode> node;
};

struct ComputeSpec {
  std::string name = "MAC";
  double joules_per_op = 0;
  double ops_per_s = 1e9;             // per instance, one op = one iteration point
  std::vector<FanoutDimSpec> fanout;  // compute units per instance of the innermost level
};

struct ArchSpec {
  std::filesystem::path file;
  std::string name;
  std::string description;
  std::vector<LevelSpec> levels;  // outermost (backing store) first
  ComputeSpec compute;
};

Result<ArchSpec> read_arch_spec(const std::filesystem::path& file);
Result<ArchSpec> parse_arch_spec(const std::string& text, const std::filesystem::path& file);
// A spec written inside another file (a chip file's `core:` section): errors name that file, its
// lines and the node's key path.
Result<ArchSpec> parse_arch_node(const YamlNode& node);

// The shipped specs: <exe>/../share/tessera/arch and the source tree's configs/arch.
std::vector<std::filesystem::path> arch_spec_dirs();
std::vector<std::string> arch_presets();
// A path (contains '/' or ends in .yaml) or a preset name; an unknown name lists the presets and
// the nearest.
Result<ArchSpec> resolve_arch_spec(const std::string& name_or_path);

}  // namespace tessera::mapper
