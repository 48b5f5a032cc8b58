// A parallel strategy: how one model step is divided over a machine's chips — the `--parallel`
// option of `tessera compile`, a sweep axis, a Python keyword, a line of every report. Parsed and
// checked for form here; parallel.hpp checks it against a model and a chip and compiles it.
//
//   (none)         flat: every op split over every core of every chip, as one machine, partial
//                  sums merged across chips (what Tessera did before strategies existed)
//   tp=T           Megatron-style tensor parallel: each chip of a group of T holds 1/T of every
//                  layer's heads, MLP and vocabulary; all-reduces after attention and after the MLP
//   pp=P           P pipeline stages of consecutive layers, each on its own chip group
//   stages=A:B:..  the layers of each stage (PopTransformer's layer_per_ipu); sets P
//   dp=D           D replicas, each serving batch / D users with its own copy of the weights
//   ep=E           a mixture-of-experts layer's experts over E chips of the replicas, all-to-all
//                  dispatch and combine
//   mb=M           micro-batches per step through the pipeline (default 1)
//   collective=A   the algorithm of every collective whose kind has it: ring,
//                  bidirectional_ring, ring_2d, tree, direct (the others, e.g. a send or an
//                  all-to-all, which only go direct, and by default all: each its cheapest)
//   auto           every strategy that fits the machine and the model, compared under the
//                  objective (parallel.hpp)
//
// Keys are separated by commas, in any order, each at most once: "pp=4,tp=2". A degree not given
// is 1, except dp, which takes the chips the others leave (chips / (tp × pp)).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/collective/collective.hpp"
#include "framework/common/status.hpp"

namespace tessera::parallel {

// The largest degree a strategy may name: above any machine a chip file can describe.
inline constexpr int64_t kMaxDegree = 4096;

struct ParallelStrategy {
  bool automatic = false;  // `auto`: the degrees below are unset
  bool flat = true;        // no key given: the flat default
  int64_t tp = 1, pp = 1, ep = 1, micro_batches = 1;
  std::optional<int64_t> dp;          // unset: chips / (tp × pp)
  std::vector<int64_t> stage_layers;  // empty: layers balanced over pp stages
  collective::CollectiveAlgorithm algorithm = collective::CollectiveAlgorithm::automatic;
  bool operator==(const ParallelStrategy&) const = default;
};

// The replicas `strategy` runs on `chips`: its dp, or the chips tp x pp leave (at least 1).
int64_t dp_of(const ParallelStrategy& strategy, int64_t chips);

// Usage errors name the option and the text at fault: an unknown key (with the keys), a value that
// is not a whole number from 1 to kMaxDegree (stages: from 0), a key given twice, pp and stages
// that disagree, an unknown collective algorithm, `auto` beside other keys.
Result<ParallelStrategy> parse_strategy(const std::string& text);

// The strategy as `--parallel` takes it back ("tp=4,pp=2,dp=1"; "flat"; "auto"), with dp
// resolved when `chips` is given.
std::string to_string(const ParallelStrategy& strategy);

}  // namespace tessera::parallel
