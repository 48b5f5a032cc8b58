#!/usr/bin/env bash
# sweep_test.sh TESSERA MPIEXEC|"" WORKDIR SWEEP — `tessera sweep` as a user runs it: failed points
# kept with their reason, a finished run resumed as a no-op, a run killed midway and resumed to the
# same bytes, the same bytes from `mpirun -np 2` (when MPI is built), a different sweep refused in
# the same run directory, and the figures drawn from the run.
set -u
tessera=$1 mpiexec=$2 work=$3 sweep=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
name=e2e-small

"$tessera" sweep "$sweep" -o "$work/local" --threads 2 >"$work/local.out" 2>&1 ||
  fail "local run: $(cat "$work/local.out")"
grep -q "^sweep $name: 4 points — 4 run now in .*, 0 from an earlier run; 2 failed$" "$work/local.out" ||
  fail "local summary: $(cat "$work/local.out")"
grep -q "^  point 2 failed: op 'layers.0.gate_proj' needs at least 60.0 KiB of SRAM per core" "$work/local.out" ||
  fail "failed point's reason not reported: $(cat "$work/local.out")"
grep -q "^2,failed,\"op 'layers.0.gate_proj' needs at least 60.0 KiB of SRAM per core .*\",256,0.5e12,llama2-7b," \
  "$work/local/results.csv" || fail "failed point not in results.csv"
[[ $(grep -c ',ok,' "$work/local/results.csv") == 4 ]] || fail "expected 2 ok points x 2 designs"

"$tessera" sweep "$sweep" -o "$work/local" >"$work/again.out" 2>&1 || fail "rerun: $(cat "$work/again.out")"
grep -q "^sweep $name: 4 points, 0 to run, 4 already in $work/local$" "$work/again.out" ||
  fail "a finished run is not skipped: $(cat "$work/again.out")"

# Killed once the first point is on disk; the resumed run must end with the same bytes.
"$tessera" sweep "$sweep" -o "$work/killed" --threads 1 >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < 6000; ++i)); do
  compgen -G "$work/killed/points/*.json" >/dev/null && break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
done_before=$(find "$work/killed/points" -name '*.json' | wc -l)
((done_before >= 1 && done_before < 4)) || fail "kill left $done_before of 4 points"
compgen -G "$work/killed/points/*.tmp*" >/dev/null && fail "a partial point file survived the kill"
"$tessera" sweep "$sweep" -o "$work/killed" >"$work/resume.out" 2>&1 || fail "resume: $(cat "$work/resume.out")"
grep -q "^sweep $name: 4 points, $((4 - done_before)) to run, $done_before already in" "$work/resume.out" ||
  fail "resume did not skip the finished points: $(cat "$work/resume.out")"
cmp -s "$work/local/results.csv" "$work/killed/results.csv" || fail "killed+resumed CSV differs"
cmp -s "$work/local/results.json" "$work/killed/results.json" || fail "killed+resumed JSON differs"

if [[ -n $mpiexec ]]; then
  # OpenMPI's own allocations outlive MPI_Finalize; under ASan they are not ours to report.
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    "$mpiexec" --oversubscribe -np 2 "$tessera" sweep "$sweep" -o "$work/mpi" >"$work/mpi.out" 2>&1 ||
    fail "mpirun: $(cat "$work/mpi.out")"
  grep -q "^sweep $name: 4 points — 4 run now" "$work/mpi.out" || fail "mpi summary: $(cat "$work/mpi.out")"
  cmp -s "$work/local/results.csv" "$work/mpi/results.csv" || fail "MPI CSV differs from the local run"
  cmp -s "$work/local/results.json" "$work/mpi/results.json" || fail "MPI JSON differs"
fi

sed "s/^name: $name/name: other/" "$sweep" >"$work/other.yaml"
"$tessera" sweep "$work/other.yaml" -o "$work/local" >"$work/other.out" 2>&1
status=$?
[[ $status == 3 ]] || fail "a different sweep in the run directory exits $status"
grep -qF "error: $work/local holds the results of a different sweep (its sweep.yaml differs from $work/other.yaml); pass another -o DIR, or --force to discard those results" \
  "$work/other.out" || fail "different-sweep message: $(cat "$work/other.out")"

"$tessera" sweep "$work/other.yaml" -o "$work/local" --force >"$work/forced.out" 2>&1 ||
  fail "--force over a different sweep: $(cat "$work/forced.out")"
grep -q "^sweep other: 4 points — 4 run now" "$work/forced.out" ||
  fail "--force did not discard the old results: $(cat "$work/forced.out")"

mkdir -p "$work/mine" && echo "keep me" >"$work/mine/notes.txt"
"$tessera" sweep "$sweep" -o "$work/mine" >"$work/mine.out" 2>&1
status=$?
[[ $status == 3 ]] || fail "a non-run directory with files exits $status"
grep -qF "error: $work/mine exists and is not a sweep run directory (it has no sweep.yaml); pass another -o DIR, or --force to write into it" \
  "$work/mine.out" || fail "non-run directory message: $(cat "$work/mine.out")"
[[ $(cat "$work/mine/notes.txt") == "keep me" ]] || fail "the user's file was touched"

TESSERA_PYTHON=/nonexistent/python3 "$tessera" plot "$work/local" >"$work/nopy.out" 2>&1
status=$?
[[ $status == 3 ]] || fail "plot without matplotlib exits $status"
grep -qF "error: tessera plot needs Python 3 with matplotlib, and '/nonexistent/python3' has none: install it (Debian: apt-get install python3-matplotlib) or point TESSERA_PYTHON at a python3 that has it" \
  "$work/nopy.out" || fail "no-matplotlib message: $(cat "$work/nopy.out")"

"$tessera" plot "$work/local" >"$work/plot.out" 2>&1 || fail "plot: $(cat "$work/plot.out")"
for f in latency_vs_hbm breakdown; do
  [[ -s $work/local/plots/$f.png && -s $work/local/plots/$f.svg ]] || fail "plot $f not drawn"
done
grep -q "HBM bandwidth (TB/s)" "$work/local/plots/latency_vs_hbm.svg" || fail "axis label missing"
# Energy (docs/energy.md): the chip states its rates, so every successful row has them, and the
# plots of energy and tokens per joule draw against the first numeric axis. Its file states no
# approximation: the column is there, empty.
python3 - "$work/local/results.csv" <<'PY' || fail "energy and approximation columns"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]
assert rows and all(float(r["planned_mj"]) > 0 and float(r["sim_mj"]) > 0 for r in rows), rows
assert all(r["mode"] == "decode" for r in rows), "the entry's default mode is recorded"
assert all(r["approximation"] == "" for r in rows), "ipu-mk2-hbm3e's file states no approximation"
for r in rows:  # W = J / s
    assert abs(float(r["sim_w"]) - float(r["sim_mj"]) / float(r["sim_ms"])) < 1e-6 * float(r["sim_w"])
PY
"$tessera" plot "$work/local" --only energy,tokens_per_joule >"$work/plot_energy.out" 2>&1 ||
  fail "energy plots: $(cat "$work/plot_energy.out")"
grep -q "tokens per joule" "$work/local/plots/tokens_per_joule.svg" || fail "tokens per joule label"
grep -q "SRAM\|sram" "$work/local/plots/tokens_per_joule.svg" || fail "energy plots: the first numeric axis"
"$tessera" plot "$work/local" --only tokens_per_joule --x memory.bandwidth_bytes_per_s \
  >"$work/plot_x.out" 2>&1 || fail "energy plots --x: $(cat "$work/plot_x.out")"
grep -q "HBM bandwidth (TB/s)" "$work/local/plots/tokens_per_joule.svg" || fail "--x not drawn"
echo ok
