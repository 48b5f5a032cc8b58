#!/usr/bin/env bash
# device_node.sh TESSERA DIR — a device node given as output is still that device afterwards: run
# as root (CI does), it makes its own nodes with mknod (null: 1,3; full: 1,7) and writes to them
# with --force, which once renamed a regular file over the node. Skipped (77) when not root.
set -euo pipefail
tessera=$1
dir=$2
if [[ $(id -u) != 0 ]]; then
  echo "SKIP: mknod needs root (CI runs this test as root)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
mknod "$dir/null" c 1 3
mknod "$dir/full" c 1 7
"$tessera" inspect llama2-7b --format yaml -o "$dir/null" --force 2>"$dir/err" ||
  fail "writing to a null device: $(cat "$dir/err")"
[[ -c $dir/null ]] || fail "$dir/null is no longer a character device"
code=0
"$tessera" inspect llama2-7b --format yaml -o "$dir/full" --force 2>"$dir/err" || code=$?
[[ $code == 3 ]] || fail "exit $code writing to a full device, expected 3"
[[ $(cat "$dir/err") == "error: cannot write '$dir/full': No space left on device" ]] ||
  fail "message: $(cat "$dir/err")"
[[ -c $dir/full ]] || fail "$dir/full is no longer a character device"
[[ $(ls "$dir") == $'err\nfull\nnull' ]] || fail "left behind: $(ls "$dir")"
echo "ok: device nodes kept"
