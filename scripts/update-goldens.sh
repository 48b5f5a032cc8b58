#!/usr/bin/env bash
# update-goldens.sh — rewrite tests/golden/figures.yaml, matrix.yaml and parallel.yaml with what
# the pipeline gives now (Release build), then show the change. A golden moves only in a commit
# that says why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake --preset default >/dev/null
cmake --build --preset default --target golden_test matrix_test parallel_test
TESSERA_UPDATE_GOLDENS=1 build/default/bin/golden_test
TESSERA_UPDATE_GOLDENS=1 build/default/bin/matrix_test
TESSERA_UPDATE_GOLDENS=1 build/default/bin/parallel_test
git --no-pager diff --stat -- tests/golden/figures.yaml tests/golden/matrix.yaml \
  tests/golden/parallel.yaml || true
git --no-pager diff -- tests/golden/figures.yaml tests/golden/matrix.yaml \
  tests/golden/parallel.yaml || true
