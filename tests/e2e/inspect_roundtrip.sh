#!/usr/bin/env bash
# inspect_roundtrip.sh TESSERA WORKDIR — a graph written as YAML reads back unchanged: writing it
# again gives the same bytes, and it inspects like the original; outputs are never clobbered.
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
"$tessera" inspect llama2-70b --batch 2 --seq 128 --format yaml -o "$dir/g.yaml"
"$tessera" inspect "$dir/g.yaml" --format yaml -o "$dir/g2.yaml"
cmp "$dir/g.yaml" "$dir/g2.yaml"
diff <("$tessera" inspect llama2-70b --batch 2 --seq 128) <("$tessera" inspect "$dir/g.yaml")
if "$tessera" inspect llama2-7b --format yaml -o "$dir/g.yaml" 2>"$dir/err"; then
  echo "FAILED: overwrote an existing file without --force"; exit 1
fi
grep -q "already exists; pass --force" "$dir/err"
"$tessera" inspect llama2-7b --format yaml -o "$dir/g.yaml" --force
echo "ok: round trip"
