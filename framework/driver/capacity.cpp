// check_off_chip(): a model whose weights, KV cache and spilled activations exceed the chip's
// off-chip memory is refused before planning, with what would fit: more chips of the kind, a
// narrower element type, or (zoo models) the largest batch and sequence length that fit.
#include "framework/planner/capacity.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "framework/common/units.hpp"
#include "framework/driver/driver.hpp"
#include "framework/planner/attention_tiles.hpp"
#include "framework/planner/split.hpp"

namespace tessera::driver {

namespace {

using planner::OffChipFootprint;

// What would fit is searched on the model's own graphs, never tiled (a rebuild per candidate
// batch or length would tile up to 100,000 ops each): a shape that fits so fits as planned too.
std::optional<OffChipFootprint> footprint_of(const ModelRequest& request, const Machine& m) {
  auto graph = load_model(request);
  if (!graph) return std::nullopt;
  return planner::off_chip_footprint(*graph, m);
}

bool fits(const ModelRequest& request, const Machine& m) {
  auto f = footprint_of(request, m);
  return f && planner::fits_off_chip(*f, m);
}

// The largest value in [1, limit) of `field` (batch or seq) at which the model fits; 0: none.
int64_t largest_fitting(ModelRequest request, int64_t limit, const Machine& m,
                        int64_t& (*field)(ModelRequest&)) {
  int64_t low = 0, high = limit;  // fits at low (0: vacuous), not at high
  while (high - low > 1) {
    int64_t mid = low + (high - low) / 2;
    field(request) = mid;
    (fits(request, m) ? low : high) = mid;
  }
  return low;
}

int64_t& batch_of(ModelRequest& r) {
  return r.shape.batch;
}
int64_t& seq_of(ModelRequest& r) {
  return *r.shape.seq;
}

bool stores(const OpenChip& chip, ir::DType dtype) {
  auto abi = ir::to_abi(dtype);
  return abi && std::find(chip.models.dtypes.begin(), chip.models.dtypes.end(),
                          static_cast<uint32_t>(*abi)) != chip.models.dtypes.end();
}

std::vector<std::string> what_would_fit(const LoadedModel& model, const OpenChip& chip,
                                        const OffChipFootprint& f) {
  const Machine& m = chip.models.machine;
  std::vector<std::string> out;
  double per_chip = static_cast<double>(m.off_chip_bytes) / m.chips;
  out.push_back(fmt::format("the memory of {} such chips ({} each)",
                            static_cast<int64_t>(std::ceil(f.total_bytes() / per_chip)),
                            format_bytes(per_chip)));
  const ModelRequest& r = model.request;
  if (model_kind(r.model) != ModelKind::zoo_name) return out;
  // Narrower weights alone first (activations and KV cache keep their type), where the chip
  // stores them: bfp8 (1.0625 bytes) keeps more precision than fp8 for little more memory.
  for (ir::DType w : {ir::DType::bfp8, ir::DType::fp8}) {
    if (!stores(chip, w) || r.shape.weight_dtype == w) continue;
    ModelRequest narrow = r;
    narrow.shape.weight_dtype = w;
    auto fw = footprint_of(narrow, m);
    if (fw && planner::fits_off_chip(*fw, m))
      out.push_back(
          fmt::format("--weight-dtype {} ({})", ir::to_string(w), format_bytes(fw->total_bytes())));
  }
  // A narrower compute type only where the cores compute in it (the IPU has no fp8).
  ModelRequest narrow = r;
  narrow.shape.dtype = ir::DType::fp8;
  auto f8 = stores(chip, ir::DType::fp8) ? footprint_of(narrow, m) : std::nullopt;
  if (f8 && planner::fits_off_chip(*f8, m) && r.shape.dtype != ir::DType::fp8)
    out.push_back(fmt::format("--dtype fp8 ({})", format_bytes(f8->total_bytes())));
  if (f.weight_bytes > static_cast<double>(m.off_chip_bytes)) {
    out.push_back("no batch or sequence length: the weights alone need " +
                  format_bytes(f.weight_bytes));
    return out;
  }
  if (int64_t b = largest_fitting(r, r.shape.batch, m, batch_of); b > 0)
    out.push_back(fmt::format("--batch {}", b));
  if (r.shape.seq)
    if (int64_t s = largest_fitting(r, *r.shape.seq, m, seq_of); s > 0)
      out.push_back(fmt::format("--seq {}", s));
  return out;
}

}  // namespace

Result<TiledGraph> tile_attention(std::shared_ptr<const ir::Graph> graph, const Machine& machine) {
  OffChipFootprint f = planner::off_chip_footprint(*graph, machine);
  bool activations_decide =
      !planner::fits_off_chip(f, machine) &&
      f.total_bytes() - f.activation_bytes <= static_cast<double>(machine.off_chip_bytes);
  auto tiles = activations_decide ? planner::attention_tiles(*graph, machine)
                                  : std::vector<planner::OpSplit>{};
  if (tiles.empty()) return TiledGraph{std::move(graph), {}};
  auto tiled = planner::apply_splits(*graph, tiles);
  if (!tiled)
    return Error{ErrorKind::internal, StatusCode::internal,
                 "internal error: attention in tiles: " + tiled.error().message};
  return TiledGraph{std::make_shared<const ir::Graph>(std::move(*tiled)), std::move(tiles)};
}

OffChipReport off_chip_report(const LoadedModel& model, const OpenChip& chip,
                              const ir::Graph* planned) {
  const Machine& m = chip.models.machine;
  std::shared_ptr<const ir::Graph> tiled;  // keeps the graph tile_attention gives alive
  if (planned == nullptr) {
    auto t = tile_attention(model.graph, m);
    tiled = t ? t->graph : model.graph;  // compile reports a tiling's error
    planned = tiled.get();
  }
  OffChipReport r;
  r.footprint = planner::off_chip_footprint(*planned, m);
  r.attention_in_tiles = planned != model.graph.get();
  r.capacity_bytes = m.off_chip_bytes;
  r.fits = planner::fits_off_chip(r.footprint, m);
  if (!r.fits) r.would_fit = what_would_fit(model, chip, r.footprint);
  return r;
}

std::string OffChipReport::needs() const {
  return format_bytes(footprint.total_bytes()) + " (" + planner::describe(footprint) + ")" +
         (attention_in_tiles ? " with attention computed in tiles" : "");
}

std::string OffChipReport::options() const {
  std::string out;
  for (const std::string& o : would_fit) out += (out.empty() ? "" : "; ") + o;
  return out;
}

std::string OffChipReport::text() const {
  if (capacity_bytes == 0) return needs() + "; the chip states no capacity: not checked";
  std::string out = needs() + " of " + format_bytes(static_cast<double>(capacity_bytes));
  return fits ? out + ": fits" : out + ": does not fit; what would fit: " + options();
}

std::vector<ir::DType> weight_dtypes(const OpenChip& chip) {
  std::vector<ir::DType> out;
  for (ir::DType d : {ir::DType::fp16, ir::DType::bf16, ir::DType::fp8, ir::DType::bfp8})
    if (stores(chip, d)) out.push_back(d);
  return out;
}

namespace {

std::string stored_names(const OpenChip& chip, const std::vector<ir::DType>& candidates) {
  std::string accepts;
  for (ir::DType d : candidates)
    if (stores(chip, d)) accepts += (accepts.empty() ? "" : ", ") + std::string(ir::to_string(d));
  return accepts.empty() ? "none" : accepts;
}

// A precision file's tensor groups, each in a type the chip stores (the narrow block types too).
Status check_precision_dtypes(const zoo::Precision& precision, const OpenChip& chip) {
  for (const auto& [group, dtype] : precision.tensors) {
    if (stores(chip, dtype)) continue;
    return usage_error(fmt::format(
        "target {} (chip {}) does not store precision group {} as {}; it stores: {}",
        chip.target.name, chip.models.machine.chip, group, ir::to_string(dtype),
        stored_names(chip, {ir::DType::fp32, ir::DType::fp16, ir::DType::bf16, ir::DType::fp8,
                            ir::DType::bfp8, ir::DType::bfp4, ir::DType::bfp2})));
  }
  return ok_status();
}

}  // namespace

Status check_weight_dtype(const LoadedModel& model, const OpenChip& chip) {
  const auto& shape = model.request.shape;
  if (shape.precision)
    if (Status s = check_precision_dtypes(*shape.precision, chip); !s) return s;
  const auto& wanted = shape.weight_dtype;
  if (!wanted || stores(chip, *wanted)) return ok_status();
  return usage_error(fmt::format("target {} (chip {}) does not store weights as {}; it accepts: {}",
                                 chip.target.name, chip.models.machine.chip, ir::to_string(*wanted),
                                 stored_names(chip, weight_dtypes(chip))));
}

Status check_off_chip(const LoadedModel& model, const OpenChip& chip, const ir::Graph* planned) {
  OffChipReport r = off_chip_report(model, chip, planned);
  const std::string& name = chip.models.machine.chip;
  if (r.capacity_bytes == 0) {
    spdlog::warn(
        "chip '{}' states no off-chip memory capacity: the model's {} there are not "
        "checked",
        name, r.needs());
    return ok_status();
  }
  if (r.fits) return ok_status();
  return input_error(fmt::format(
      "{} does not fit the off-chip memory of {}: it needs {} but the chip has {}; what would "
      "fit: {}",
      model.graph->name(), name, r.needs(), format_bytes(static_cast<double>(r.capacity_bytes)),
      r.options()));
}

}  // namespace tessera::driver
