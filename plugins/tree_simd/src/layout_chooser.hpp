// Layout choice: for a tensor and an op's access pattern, the candidate layouts on the chip with
// their estimated time, cheapest first (JP7770865B2's second embodiment: "the compilation unit may
// select a layout").
//
// Candidates: every way to share each level's blocks among the tensor's axes, top level down to
// the memory level (the lowest level unless given), using all of a level's blocks whenever the
// extents allow (a level whose blocks cannot all be used gets its largest usable share). Block ids
// and addresses are row-major over the axes, so Fig. 6's layout comes out as the patent writes it.
// Layouts whose addresses exceed the memory are skipped.
//
// Estimated time = SIMD compute (addresses per block x the pattern's ops per element / the vector
// rate of one block: padding costs lanes too) + communication (pattern_traffic, each level's bytes
// spread over its edges, levels one after another).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layout.hpp"
#include "layout_cost.hpp"

namespace tessera::plugins::tree {

struct LayoutCandidate {
  std::shared_ptr<const TreeLayout> layout;
  Traffic traffic;
  double compute_seconds = 0;
  double comm_seconds = 0;
  double seconds() const { return compute_seconds + comm_seconds; }
  // "cost 3.1 us = compute 2.8 us + comm 0.3 us; crossings A 1200, B 3600"
  std::string summary() const;
};

// Best first; ties keep enumeration order. Throws RESOURCE_EXHAUSTED when no candidate fits the
// memory, INVALID_ARGUMENT for a pattern that does not fit the tensor.
std::vector<LayoutCandidate> choose_layouts(std::shared_ptr<const TreeChip> chip,
                                            const std::vector<uint64_t>& shape,
                                            const AccessPattern& pattern,
                                            std::optional<uint32_t> memory_level = std::nullopt);

// Every way to share the blocks of levels 0..memory_level among axes of `extents` (each level's
// whole fanout when the extents allow, else its largest usable share): result[i][level][axis].
// With `distinct_totals` only the first assignment reaching each product per axis (tile shape) is
// kept. Throws RESOURCE_EXHAUSTED past `limit` assignments.
std::vector<std::vector<std::vector<uint64_t>>> enumerate_shares(
    const TreeChip& chip, const std::vector<uint64_t>& extents, uint32_t memory_level, size_t limit,
    bool distinct_totals = false);

// The layout text when level k (0..memory_level) gives divisions[k][r] blocks to rank r of
// `extents`: a level's block id is row-major over all the ranks; the tensor's axes are the ranks
// `axes` lists (in order) and split it, the ranks it lacks replicate it (broadcast items, one per
// level per axis as the syntax allows: the first axis without a copy item of that level); each
// block holds the row-major tile of what is left, at `base`. With every rank an axis this is the
// chooser's candidate; with an operand's ranks, the partitioner's placement. Throws
// RESOURCE_EXHAUSTED when one level replicates the tensor over more lacking ranks than it has
// axes (the syntax cannot place those copies; the caller offers no such plan).
std::string blocked_layout_text(const TreeChip& chip, const std::vector<uint64_t>& extents,
                                const std::vector<uint32_t>& axes,
                                const std::vector<std::vector<uint64_t>>& divisions,
                                uint32_t memory_level, uint64_t base = 0);

}  // namespace tessera::plugins::tree
