#!/usr/bin/env bash
# run.sh TESSERA DIR [MODEL...] — exports torchvision's models to ONNX as a user would
# (export_models.py beside this script, Debian's python3-torchvision) and compiles and simulates
# each on the three chip families with their default chips: `tessera compile M.onnx --target T
# --simulate` must exit 0 and print a simulated Elk-Full time. Each model is compiled while the
# next is exported, and deleted once its targets are done (exports hold their weights). A
# failure names the model, the target and tessera's message; every model is tried before the
# test fails. Exit 77 (skipped) when torch or torchvision is not installed.
set -uo pipefail
tessera=$1
dir=$2
shift 2
python=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
targets=(ipu_alltoall mesh_tenstorrent tree_simd)

if ! "$python" -c "import torch, torchvision" 2>/dev/null; then
  echo "SKIPPED: $python cannot import torch and torchvision (apt-get install python3-torchvision)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" || exit 1
# The logs stay for a failure's details; the exports (about 2.5 GB in all) never do.
trap 'rm -f "$dir"/*.onnx "$dir"/*.onnx.part' EXIT

failures=()
passed=0
start=$SECONDS
compile() {
  local model=$1 onnx=$2 target=$3 log="$dir/$1.$3.log" t0=$SECONDS
  "$tessera" compile "$onnx" --target "$target" --simulate >"$log" 2>&1
  local rc=$?
  if ((rc != 0)); then
    failures+=("$model on $target: exit $rc: $(grep -m1 '^error' "$log" || tail -n 3 "$log")")
    return
  fi
  # The simulated table's Elk-Full row: design, planned ms, simulated ms, difference.
  local row
  row=$(grep -E "^elk-full +[0-9.]+ +[0-9.]+ +[+-][0-9.]+%" "$log" | tail -n 1)
  if [[ -z $row ]]; then
    failures+=("$model on $target: exit 0 but no simulated elk-full time in: $(tail -n 5 "$log")")
    return
  fi
  passed=$((passed + 1))
  printf '%-30s %-17s %s ms simulated (%ds)\n' "$model" "$target" \
    "$(awk '{ print $3 }' <<<"$row")" $((SECONDS - t0))
}

# Process substitution, not a pipe: the loop runs in this shell, so `failures` survives it. The
# exporter's own exit status comes last, as a line of its own.
while IFS= read -r line; do
  if [[ $line == "EXPORT FAILED "* ]]; then
    failures+=("export of ${line#EXPORT FAILED }")
    continue
  fi
  if [[ $line == "EXPORTER EXIT "* ]]; then
    [[ $line == "EXPORTER EXIT 0" ]] || failures+=("export_models.py exited ${line#EXPORTER EXIT }")
    continue
  fi
  model=$(basename "$line" .onnx)
  for target in "${targets[@]}"; do compile "$model" "$line" "$target"; done
  rm -f "$line"
done < <(
  "$python" "$here/export_models.py" "$dir" "$@"
  echo "EXPORTER EXIT $?"
)

echo "$passed compiled and simulated in $((SECONDS - start)) s"
if ((${#failures[@]})); then
  printf 'FAILED: %s\n' "${failures[@]}"
  exit 1
fi
((passed > 0)) || {
  echo "FAILED: no model was exported"
  exit 1
}
echo "ok: every torchvision model compiles and simulates on ${targets[*]}"
