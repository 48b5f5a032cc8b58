#!/usr/bin/env bash
# sdk_out_of_tree.sh BUILD_DIR SOURCE_DIR WORK_DIR
# What a vendor does: install Tessera, build sdk/examples/minimal_plugin against the installed SDK
# with find_package(TesseraSDK COMPONENTS conformance), and run its tests: `tessera conformance`
# on the plugin, and the installed conformance kit linked into the plugin's own test program.
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
# The kit is one archive (the suites and the plugin host they run on); no other library and no
# header of the framework is installed.
libraries=$(cd "$work/prefix/lib" && ls ./*.a | sort | tr '\n' ' ')
[[ $libraries == "./libtessera_conformance_kit.a " ]] ||
  { echo "installed libraries: $libraries"; exit 1; }
framework_headers=$(find "$work/prefix/include" -path '*framework*' | head -3)
[[ -z $framework_headers ]] || { echo "framework headers installed: $framework_headers"; exit 1; }
tests=$(ctest --test-dir "$work/build" -N | grep -Eo 'conformance[a-z_]*\.minimal' | sort | tr '\n' ' ')
[[ $tests == "conformance.minimal conformance_kit.minimal " ]] || { echo "tests: $tests"; exit 1; }
ctest --test-dir "$work/build" --output-on-failure
"$work/build/minimal_conformance" "$work/build/minimal.so" |
  grep -E '^conformance: minimal 1\.0\.0 — [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'
"$work/prefix/bin/tessera" topology --target "$work/build/minimal.so"
