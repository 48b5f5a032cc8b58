#!/usr/bin/env bash
# test.sh — the whole test suite: set up, build and run every test in the Release preset (warnings
# are errors; shipped targets in unity batches), then build the ASan+UBSan preset (every source on
# its own; warnings stay warnings: README.md, "Building by hand") and run the tests sanitizers find bugs in (labels unit, abi, fuzz, conformance,
# e2e_error, layering; CMakePresets.json). Compiles go through ccache, so a second run on the same
# machine, in any folder, rebuilds from the cache. Exit code non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
for preset in default asan; do
  echo "== $preset: build"
  "$root/scripts/setup.sh" "$preset"
  echo "== $preset: test"
  (cd "$root" && ctest --preset "$preset" -j "$jobs")
done
