#include "framework/dse/run_dir.hpp"

#include <fmt/format.h>

#include <system_error>

#include "framework/common/files.hpp"

namespace tessera::dse {

namespace fs = std::filesystem;

namespace {

fs::path point_file(const fs::path& dir, size_t index) {
  return dir / "points" / fmt::format("{:06}.json", index);
}

Status discard_results(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir / "points", ec);
  for (const char* name : {"results.csv", "results.json"})
    if (!ec) fs::remove(dir / name, ec);
  if (ec) return input_error(dir.string() + ": cannot remove the old results: " + ec.message());
  return ok_status();
}

}  // namespace

Result<RunDir> RunDir::open(const fs::path& dir, const SweepSpec& spec, bool force) {
  RunDir run;
  run.dir_ = dir;
  fs::path recorded = dir / "sweep.yaml";
  std::error_code ec;
  if (fs::exists(recorded, ec)) {
    auto text = read_file(recorded);
    if (!text) return text.error();
    if (*text == spec.text) return run;
    if (!force)
      return input_error(dir.string() + " holds the results of a different sweep (its sweep.yaml " +
                         "differs from " + spec.file + "); pass another -o DIR, or --force to " +
                         "discard those results");
    Status status = discard_results(dir);
    if (!status) return status.error();
  } else if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec) && !force) {
    return input_error(dir.string() + " exists and is not a sweep run directory (it has no " +
                       "sweep.yaml); pass another -o DIR, or --force to write into it");
  }
  Status status = write_file_atomically(recorded, spec.text, true);
  if (!status) return status.error();
  return run;
}

Result<PointResults> RunDir::finished() const {
  PointResults out;
  for (const fs::path& file : files_with_suffix(dir_ / "points", ".json")) {
    auto text = read_file(file);
    if (!text) return text.error();
    auto point = read_point_json(*text, file.string());
    if (!point) return point.error();
    out.emplace(point->index, std::move(*point));
  }
  return out;
}

Status RunDir::write_point(const PointResult& result) const {
  return write_file_atomically(point_file(dir_, result.index), point_json(result), true);
}

Status RunDir::write_results(const SweepSpec& spec, const PointResults& results) const {
  Status status = write_file_atomically(dir_ / "results.csv", results_csv(spec, results), true);
  if (!status) return status;
  return write_file_atomically(dir_ / "results.json", results_json(spec, results), true);
}

}  // namespace tessera::dse
