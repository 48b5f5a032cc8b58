// One serve point (`kind: serve`): the point's words opened as `tessera serve` opens them
// (serve_request.hpp), its load served on the machine, and the summary reduced to ServeMetrics.
// The step-cost grid comes from the on-disk cache (serve.hpp), so points that share a model,
// chip, strategy, dtype, design and grid axes build it once between them.
#pragma once

#include "framework/common/status.hpp"
#include "framework/dse/point_result.hpp"
#include "framework/dse/points.hpp"
#include "framework/dse/sweep_spec.hpp"
#include "framework/plugin/plugin_set.hpp"
#include "framework/plugin/registry.hpp"

namespace tessera::dse {

// Fills `r` (model, target, chip, dtype, strategy as it ran, and `serve`). Errors: serve's own
// (the model that is not a decoder, a strategy the machine cannot take, a request that does not
// fit), which make the point a failed one with the reason.
Status run_serve_point(const SweepSpec& spec, const Point& point, const Registry& registry,
                       PointResult& r);

// Before any point runs: every model word names a zoo decoder and every chip word opens under the
// target (driver::open_chip's errors, after the sweep file's name).
Status check_serve_sweep(const SweepSpec& spec, PluginSet& plugins);

}  // namespace tessera::dse
