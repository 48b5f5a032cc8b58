#!/usr/bin/env bash
# run.sh TESSERA DIR — MoE blocks exported by PyTorch (export_moe.py beside this script, Debian's
# python3-torch) land on the zoo's MoE ops (docs/workloads.md, "Mixture of experts"):
#   - the dense, gathered and Mixtral-loop forms (8 experts, top-2) and the fine-grained form
#     (16 experts, top-4, a shared expert) import as a router, its top-k, the experts and the
#     combine, holding exactly the export's weights, each op equal to the zoo's for a layer of the
#     same shape (zoo_moe.yaml, zoo_moe_shared.yaml; check.py says what is compared);
#   - a block with biased experts is not recognised: it imports as before, and --parallel ep=2 on
#     it gives the error it always gave; ep that does not divide the experts names the divisors;
#   - compiled flat and under ep on wormhole-n300 and ipu-pod4, simulated within 5 % of the plan,
#     with the all-to-alls of the routed tokens in the collectives table; written with -o and
#     reopened by tessera simulate; --parallel auto on wormhole-t3000 tries ep and picks ep=8.
# Exit 77 (skipped) when torch is not installed.
set -uo pipefail
tessera=$1
dir=$2
python=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)

if ! "$python" -c "import torch" 2>/dev/null; then
  echo "SKIPPED: $python cannot import torch (apt-get install python3-torch)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir" || exit 1
trap 'rm -f "$dir"/*.onnx' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

for form in dense gathered mixtral fine biased; do
  "$python" "$here/export_moe.py" "$form" "$dir/$form.onnx" 2>"$dir/$form.export.log" ||
    fail "export of $form: $(tail -n 1 "$dir/$form.export.log")"
done

zoo() {  # zoo() YAML OUT: the twin layer at the blocks' 16 tokens
  "$tessera" inspect "$here/$1" --mode prefill --seq 16 --format json >"$dir/$2" ||
    fail "inspect $1"
}
zoo zoo_moe.yaml zoo.json
zoo zoo_moe_shared.yaml zoo_shared.json
for form in dense gathered mixtral fine; do
  "$tessera" inspect "$dir/$form.onnx" --format json >"$dir/$form.json" || fail "inspect $form"
done
for form in dense gathered mixtral; do
  "$python" "$here/check.py" inspect "$dir/$form.json" "$dir/zoo.json" 8 256 512 0 || exit 1
done
"$python" "$here/check.py" inspect "$dir/fine.json" "$dir/zoo_shared.json" 16 256 64 256 || exit 1

# Not recognised: the biased block imports op by op (102 ops), every expert on every token.
"$tessera" inspect "$dir/biased.onnx" >"$dir/biased.txt" || fail "inspect biased"
grep -q '/moe' "$dir/biased.txt" && fail "the biased block was recognised"
grep -q '^ops  *102 ' "$dir/biased.txt" || fail "biased: $(grep '^ops' "$dir/biased.txt")"
echo "biased.onnx: not recognised, $(grep '^ops' "$dir/biased.txt" | tr -s ' ')"

expect_error() {  # expect_error MESSAGE ARGS...: exit 3 and this error line
  local message=$1
  shift
  local out
  out=$("$tessera" "$@" 2>&1)
  local rc=$?
  [[ $rc == 3 && $out == *"$message"* ]] || fail "tessera $*: exit $rc: $out"
  echo "refused as expected: $message"
}
expect_error "error: --parallel tp=1,pp=1,dp=2,ep=2: $dir/biased.onnx: tp, pp and ep split a zoo \
decoder's layers; this model runs whole on each chip group (use dp, or the flat default)" \
  compile "$dir/biased.onnx" --target mesh_tenstorrent --chip wormhole-n300 --parallel ep=2
expect_error "error: --parallel tp=1,pp=1,dp=3,ep=3: ep=3 does not divide the 8 experts of each \
MoE block; ep may be one of 1, 2, 4, 8" \
  compile "$dir/mixtral.onnx" --target mesh_tenstorrent --chip wormhole-t3000 --parallel ep=3,dp=3

compile() {  # compile NAME FORM TARGET CHIP [--parallel S]: simulated within 5 % of the plan
  local name=$1 form=$2 target=$3 chip=$4
  shift 4
  "$tessera" compile "$dir/$form.onnx" --target "$target" --chip "$chip" --design elk-full \
    --simulate "$@" >"$dir/$name.log" 2>&1 || fail "$name: $(grep -m1 '^error' "$dir/$name.log")"
  "$python" "$here/check.py" planned "$dir/$name.log" || exit 1
}
compile mixtral_n300 mixtral mesh_tenstorrent wormhole-n300
compile mixtral_pod4 mixtral ipu_alltoall ipu-pod4
compile mixtral_n300_ep2 mixtral mesh_tenstorrent wormhole-n300 --parallel ep=2
compile fine_pod4_ep4 fine ipu_alltoall ipu-pod4 --parallel ep=4
# Each token's 1 KiB hidden state (256 fp32) once per expert it picks: 16 tokens x 2 = 32 KiB,
# x 4 = 64 KiB; and each chip runs its share of the experts (8/2 of them, 16/4).
grep -Eq '^0 +expert dispatch +all_to_all +direct +32\.0 KiB +0,1 ' "$dir/mixtral_n300_ep2.log" ||
  fail "mixtral ep=2: no 32 KiB dispatch in: $(grep -A3 '^collectives' "$dir/mixtral_n300_ep2.log")"
grep -Eq '^0 +expert combine +all_to_all +direct +64\.0 KiB +0,1,2,3 ' "$dir/fine_pod4_ep4.log" ||
  fail "fine ep=4: no 64 KiB combine in: $(grep -A3 '^collectives' "$dir/fine_pod4_ep4.log")"
grep -Eq '^0 +0-0 +0 +23 ' "$dir/mixtral_n300_ep2.log" ||
  fail "mixtral ep=2: not 23 ops per chip: $(grep -A2 '^stage  ' "$dir/mixtral_n300_ep2.log")"
# auto tries ep over the experts too: on the T3000 the fastest spreads them over all 8 chips.
"$tessera" compile "$dir/mixtral.onnx" --target mesh_tenstorrent --chip wormhole-t3000 \
  --parallel auto >"$dir/auto.log" 2>&1 || fail "auto: $(grep -m1 '^error' "$dir/auto.log")"
grep -Eq '^tp=1,pp=1,dp=8,ep=8 .*<- best' "$dir/auto.log" ||
  fail "auto did not pick ep=8: $(grep -B1 -A6 '^strategy ' "$dir/auto.log")"
echo "auto: $(grep -- '<- best' "$dir/auto.log" | tr -s ' ')"
# Written and reopened: the stage plan records ep=2 and imports the same share again.
"$tessera" compile "$dir/mixtral.onnx" --target mesh_tenstorrent --chip wormhole-n300 \
  --parallel ep=2 -o "$dir/ep2" >"$dir/ep2.log" 2>&1 || fail "ep=2 -o: $(tail -n 1 "$dir/ep2.log")"
"$tessera" simulate "$dir/ep2/parallel.yaml" >"$dir/ep2_reopened.log" 2>&1 ||
  fail "simulate ep2/parallel.yaml: $(tail -n 1 "$dir/ep2_reopened.log")"
"$python" "$here/check.py" planned "$dir/ep2_reopened.log" || exit 1
grep -Eq '^0 +0-0 +0 +23 ' "$dir/ep2_reopened.log" ||
  fail "reopened ep=2: not 23 ops per chip: $(grep -A2 '^stage  ' "$dir/ep2_reopened.log")"
echo "PASSED"
