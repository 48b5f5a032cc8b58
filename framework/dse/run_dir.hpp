// A sweep's run directory, what makes a sweep resumable (docs/dse.md):
//   RUN/sweep.yaml        the sweep file's bytes, to recognise the sweep when it is run again
//   RUN/points/NNNNNN.json one per finished point (point_result.hpp), written atomically the
//                         moment the point ends, so a killed run loses only the points in flight
//   RUN/results.csv, RUN/results.json  rebuilt from all finished points after each one
#pragma once

#include <filesystem>

#include "framework/common/status.hpp"
#include "framework/dse/results_table.hpp"
#include "framework/dse/sweep_spec.hpp"

namespace tessera::dse {

class RunDir {
 public:
  // Creates the directory or reopens one holding the same sweep. Input errors: the directory
  // holds a different sweep (unless `force`, which discards its points and results) or is not a
  // run directory but has files in it.
  static Result<RunDir> open(const std::filesystem::path& dir, const SweepSpec& spec, bool force);

  const std::filesystem::path& path() const { return dir_; }
  // The points already finished; a damaged point file is an input error naming it.
  Result<PointResults> finished() const;
  Status write_point(const PointResult& result) const;
  Status write_results(const SweepSpec& spec, const PointResults& results) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace tessera::dse
