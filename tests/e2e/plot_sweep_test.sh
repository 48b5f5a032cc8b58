#!/usr/bin/env bash
# plot_sweep_test.sh PYTHON SCRIPT FIXTURES_DIR WORKDIR — framework/dse/plot_sweep.py on the
# synthetic run directories of tests/e2e/data/sweep_runs: every plot renders as a non-empty PNG
# and SVG, and the errors are one `error:` line with exit code 1. WORKDIR is emptied first.
set -u
python=$1
script=$2
fixtures=$3
work=$4

fail() { echo "FAIL: $*"; exit 1; }
{ rm -rf "$work" && mkdir -p "$work"; } || fail "cannot create $work"

# render RUN PLOT... — draws RUN into WORKDIR/RUN and checks NAME.png and NAME.svg of each PLOT
render() {
  local run=$1 out=$work/$1
  shift
  local output
  output=$("$python" "$script" "$fixtures/$run" --out "$out" 2>&1) \
    || fail "$run: exit code $?: $output"
  for name in "$@"; do
    for ext in png svg; do
      [[ -s $out/$name.$ext ]] || fail "$run: $out/$name.$ext is missing or empty; output: $output"
      grep -qF "wrote $out/$name.$ext" <<<"$output" \
        || fail "$run: no 'wrote $out/$name.$ext' in: $output"
    done
  done
  if grep -q Traceback <<<"$output"; then fail "$run: a traceback: $output"; fi
}

# expect_error CODE PATTERN ARGS... — runs the script, checks the exit code and that stderr is
# one line starting with `error:` matching the extended regex PATTERN
expect_error() {
  local want=$1 pattern=$2
  shift 2
  local err code
  err=$("$python" "$script" "$@" 2>&1 >/dev/null)
  code=$?
  [[ $code == "$want" ]] || fail "$*: exit code $code, expected $want; stderr: $err"
  [[ $(wc -l <<<"$err") == 1 ]] || fail "$*: expected one line on stderr, got: $err"
  [[ $err == error:* ]] || fail "$*: stderr does not start with 'error:': $err"
  grep -Eq -- "$pattern" <<<"$err" || fail "$*: stderr does not match '$pattern': $err"
}

render hbm_topology latency_vs_hbm utilisation_vs_hbm breakdown
render noc_hbm noc_hbm_heatmap
render cores latency_vs_cores
grep -qF "HBM bandwidth (TB/s)" "$work/hbm_topology/latency_vs_hbm.svg" \
  || fail "latency_vs_hbm.svg has no axis label 'HBM bandwidth (TB/s)'"
grep -qF "ms/token" "$work/noc_hbm/noc_hbm_heatmap.svg" \
  || fail "noc_hbm_heatmap.svg has no colour bar label 'ms/token'"

# the failed point of hbm_topology is counted on stderr
note=$("$python" "$script" "$fixtures/hbm_topology" --out "$work/again" --only breakdown \
  --formats png 2>&1 >/dev/null)
grep -qF "note: 1 failed point skipped (see results.csv)" <<<"$note" \
  || fail "hbm_topology: no note about the failed point: $note"

# the default output directory is RUN/plots
cp -r "$fixtures/cores" "$work/cores_run"
"$python" "$script" "$work/cores_run" --formats svg >/dev/null 2>&1 \
  || fail "cores: exit code $? with the default --out"
[[ -s $work/cores_run/plots/latency_vs_cores.svg ]] || fail "cores: nothing in RUN/plots"

# errors
missing=$work/no_such_run
expect_error 1 \
  "^error: $missing/results\.csv: not found; is $missing a run directory of tessera sweep\?$" \
  "$missing"
axes_error="^error: plot 'noc_hbm_heatmap' needs the axes memory\.bandwidth_bytes_per_s and"
axes_error+=" interconnect_scale; this sweep has: memory\.bandwidth_bytes_per_s, topology\.kind$"
expect_error 1 "$axes_error" \
  "$fixtures/hbm_topology" --out "$work/x" --only noc_hbm_heatmap
bad=$work/bad_plot
cp -r "$fixtures/hbm_topology" "$bad"
sed -i 's/"latency_vs_hbm"/"latency_vs_hbmm"/' "$bad/results.json"
expect_error 1 "^error: unknown plot 'latency_vs_hbmm'; known: breakdown, latency_vs_hbm, " \
  "$bad" --out "$work/x"
expect_error 1 "^error: unknown plot 'nope'; known: breakdown, " \
  "$fixtures/cores" --out "$work/x" --only nope
failed=$work/all_failed
mkdir -p "$failed"
cp "$fixtures/cores/results.json" "$failed/"
sed -E '2,$ s/^([0-9]+),ok,,/\1,failed,out of memory,/' "$fixtures/cores/results.csv" \
  >"$failed/results.csv"
expect_error 1 "^error: $failed: no point succeeded; see the reason column of results\.csv$" \
  "$failed"
expect_error 1 "^error: .*--metric simulated" "$fixtures/noc_hbm" --out "$work/x" --metric simulated
expect_error 1 "^error: .*: no successful row has a planned_mj value; the chip states no energy rates \(docs/energy\.md\)$" \
  "$fixtures/cores" --out "$work/x" --only tokens_per_joule --metric planned
expect_error 1 "^error: --x cores: not an axis of this sweep; it has memory\.bandwidth_bytes_per_s, topology\.kind$" \
  "$fixtures/hbm_topology" --out "$work/x" --only energy --x cores
expect_error 1 "^error: --x topology\.kind: the energy plots need a numeric axis$" \
  "$fixtures/hbm_topology" --out "$work/x" --only energy --x topology.kind

echo "ok"
