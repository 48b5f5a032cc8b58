#!/usr/bin/env bash
# test.sh — the whole test suite: set up, build and run ctest in the Release preset, then again in
# the ASan+UBSan preset. Warnings are errors in both. Exit code non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
for preset in default asan; do
  echo "== $preset: build"
  "$root/scripts/setup.sh" "$preset"
  echo "== $preset: test"
  (cd "$root" && ctest --preset "$preset" -j "$jobs")
done
