#!/usr/bin/env bash
# whole_evaluation.sh — times Elk's whole evaluation as `tessera sweep` runs it: the five paper-size
# sweeps of configs/sweeps/ (Fig. 18a, 19, 22, 23, 24; every point planned under five designs and
# simulated), each into a fresh run directory, and prints per sweep and in all the points, the
# failed ones, the simulations shared between designs (results.csv's sim_same_as), seconds, points
# per second and the sweep's peak RSS, with the machine's load before and after (docs/dse.md,
# "Speed"). Fails when a sweep's peak RSS passes 2 GB, the target every run is held to.
#
#   bench/whole_evaluation.sh [--reduced | --smoke] [--tessera PATH] [--threads N] [--mpi R]
#                             [--out DIR]
#
#   --reduced   the -reduced sweeps instead (74 points)
#   --smoke     fig18a-breakdown-reduced alone (3 points): the ctest bench.whole_evaluation.smoke
#   --tessera   the binary (default: build/default/bin/tessera)
#   --threads   worker threads of each sweep (default 2, the machine the figures are quoted on);
#               under --mpi, of each rank
#   --mpi R     each sweep under `mpirun --bind-to none -np R` (rank 0 hands out the points,
#               ranks 1..R-1 evaluate them; docs/dse.md, "MPI")
#   --out       where the run directories go (default: a temporary directory, removed after)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tessera=$here/build/default/bin/tessera
threads=2
out=""
ranks=0
sweeps=(fig18a-breakdown fig19-hbm-bandwidth fig22-noc-hbm fig23-cores fig24-training)
suffix=""
while (($#)); do
  case $1 in
    --reduced) suffix=-reduced ;;
    --smoke) sweeps=(fig18a-breakdown) suffix=-reduced ;;
    --tessera) tessera=$2 && shift ;;
    --threads) threads=$2 && shift ;;
    --mpi) ranks=$2 && shift ;;
    --out) out=$2 && shift ;;
    *) echo "whole_evaluation.sh: unknown argument '$1' (see the comment at the top)" >&2 && exit 2 ;;
  esac
  shift
done
[[ -x $tessera ]] || { echo "whole_evaluation.sh: no tessera binary at $tessera; build it or pass --tessera" >&2; exit 2; }
if [[ -z $out ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

launch=()
if ((ranks > 0)); then
  command -v mpirun >/dev/null || { echo "whole_evaluation.sh: --mpi needs mpirun (openmpi-bin)" >&2; exit 2; }
  launch=(mpirun --bind-to none -np "$ranks")
fi

now() { date +%s.%N; }
# Rows whose simulated figures are another design's (sim_same_as set), from results.json.
shared() {
  /usr/bin/python3 -c 'import json, sys
print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r.get("sim_same_as")))' "$1"
}

# Runs "$@" and writes its peak RSS (resident set, MB) to the file $rss: what getrusage says of
# the waited-for child (a sweep's workers are its threads, so the process's own peak).
rss=$out/rss
measured() {
  /usr/bin/python3 -c 'import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write("%.0f" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))
sys.exit(code)' "$rss" "$@"
}
limit_mb=2048
peak_mb=0

echo "load before: $(uptime)"
printf '%-26s %6s %6s %6s %9s %8s %8s\n' sweep points failed shared seconds points/s "peak MB"
total_points=0
start=$(now)
for name in "${sweeps[@]}"; do
  file=$here/configs/sweeps/$name$suffix.yaml
  dir=$out/$name$suffix
  rm -rf "$dir"
  t0=$(now)
  measured "${launch[@]}" "$tessera" sweep "$file" -o "$dir" --threads "$threads" >"$dir.log" 2>&1 ||
    { echo "whole_evaluation.sh: $name$suffix failed:" >&2; cat "$dir.log" >&2; exit 1; }
  t1=$(now)
  summary=$(grep "^sweep " "$dir.log" | tail -1)
  points=$(sed -E 's/^sweep [^:]+: ([0-9]+) points.*/\1/' <<<"$summary")
  failed=$(sed -nE 's/.*; ([0-9]+) failed$/\1/p' <<<"$summary")
  total_points=$((total_points + points))
  mb=$(<"$rss")
  ((mb > peak_mb)) && peak_mb=$mb
  awk -v n="$name$suffix" -v p="$points" -v f="${failed:-0}" -v s="$(shared "$dir/results.json")" \
    -v t0="$t0" -v t1="$t1" -v mb="$mb" \
    'BEGIN { printf "%-26s %6d %6d %6d %9.1f %8.3f %8d\n", n, p, f, s, t1 - t0, p / (t1 - t0), mb }'
done
end=$(now)
how="$threads threads"
((ranks > 0)) && how="mpirun -np $ranks, $threads threads a rank"
awk -v p="$total_points" -v t0="$start" -v t1="$end" -v how="$how" -v mb="$peak_mb" \
  'BEGIN { printf "%-26s %6d %6s %6s %9.1f %8.3f %8d   (%s)\n", "all", p, "", "", t1 - t0, p / (t1 - t0), mb, how }'
echo "load after:  $(uptime)"
if ((peak_mb > limit_mb)); then
  echo "whole_evaluation.sh: a sweep's peak RSS reached $peak_mb MB, over the $limit_mb MB target" >&2
  exit 1
fi
