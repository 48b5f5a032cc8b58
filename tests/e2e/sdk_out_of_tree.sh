#!/usr/bin/env bash
# sdk_out_of_tree.sh BUILD_DIR SOURCE_DIR WORK_DIR
# What a vendor does: install Tessera, build sdk/examples/minimal_plugin against the installed SDK
# with find_package(TesseraSDK), and run its conformance test (ctest → tessera conformance).
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/sdk/examples/minimal_plugin" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build"
test -f "$work/build/minimal.so" && test -f "$work/build/minimal.plugin.yaml"
nm -D --defined-only "$work/build/minimal.so" | grep -q ' T tessera_plugin_query$'
exported=$(nm -D --defined-only "$work/build/minimal.so" | awk '$2 ~ /^[TDBRVW]$/' | wc -l)
[[ $exported == 1 ]] || { echo "expected 1 exported symbol, found $exported"; exit 1; }
ctest --test-dir "$work/build" --output-on-failure
"$work/prefix/bin/tessera" topology --target "$work/build/minimal.so"
