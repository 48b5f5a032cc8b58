#!/usr/bin/env bash
# output_files.sh TESSERA DIR — where outputs go: `-o -` is standard output (the report moves to
# standard error), a symbolic link is followed and kept, a dangling one refused, a device written in
# place and never replaced, a failed write an error naming the path (exit 3).
set -euo pipefail
tessera=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAILED: $*"; exit 1; }
expect_error() {  # expect_error EXIT MESSAGE COMMAND...: the exit code and the exact last line
  local want=$1 message=$2 code=0
  shift 2
  "$@" >"$dir/out" 2>"$dir/err" || code=$?
  [[ $code == "$want" ]] || fail "exit $code, expected $want: $* ($(cat "$dir/err"))"
  [[ $(tail -n1 "$dir/err") == "$message" ]] || fail "stderr '$(tail -n1 "$dir/err")', expected '$message'"
}

# -o -: the same bytes as a file, nothing else on standard output.
"$tessera" inspect llama2-7b --batch 1 --seq 16 --format yaml -o "$dir/g.yaml"
"$tessera" inspect llama2-7b --batch 1 --seq 16 --format yaml -o - >"$dir/stdout.yaml" 2>"$dir/err"
cmp "$dir/g.yaml" "$dir/stdout.yaml" || fail "inspect -o - differs from -o FILE"
"$tessera" map --workload gpt3-6.7b-qk --threads 1 -o - >"$dir/map.yaml" 2>"$dir/map.err"
head -n2 "$dir/map.yaml" | grep -q '^tessera_mapping: 1$' || fail "map -o - wrote: $(head -n2 "$dir/map.yaml")"
grep -q '^energy ' "$dir/map.err" || fail "map's report did not move to standard error"
"$tessera" map --evaluate "$dir/map.yaml" >/dev/null || fail "the mapping from -o - does not evaluate"

# A symbolic link is followed: the file it names is replaced (with --force), the link kept.
echo old >"$dir/target.yaml"
ln -s "$dir/target.yaml" "$dir/link.yaml"
expect_error 3 "error: '$dir/link.yaml' already exists; pass --force to overwrite it or choose another path" \
  "$tessera" inspect llama2-7b --format yaml -o "$dir/link.yaml"
"$tessera" inspect llama2-7b --batch 1 --seq 16 --format yaml -o "$dir/link.yaml" --force 2>/dev/null
[[ -L $dir/link.yaml ]] || fail "the link was replaced"
cmp "$dir/g.yaml" "$dir/target.yaml" || fail "the link's target was not written"

# A dangling link is refused, with or without --force, and stays as it was.
ln -s "$dir/nowhere.txt" "$dir/dangling.txt"
for force in "" --force; do
  expect_error 3 "error: '$dir/dangling.txt' is a symbolic link to '$dir/nowhere.txt', which does not exist; remove the link or choose another path" \
    "$tessera" inspect llama2-7b --format yaml -o "$dir/dangling.txt" $force
done
[[ -L $dir/dangling.txt && ! -e $dir/nowhere.txt ]] || fail "the dangling link was touched"

# A device is written in place: /dev/null takes it, /dev/full says why it cannot; both stay devices.
"$tessera" inspect llama2-7b --format yaml -o /dev/null
expect_error 3 "error: cannot write '/dev/full': No space left on device" \
  "$tessera" inspect llama2-7b --format yaml -o /dev/full --force
[[ -c /dev/full && -c /dev/null ]] || fail "a device node was replaced"
# Standard output that cannot be written is an error too, not a success.
expect_error 3 "error: cannot write to standard output: No space left on device" \
  sh -c "'$tessera' inspect --list >/dev/full"
# A directory is not a file; a path below a regular file cannot be created.
expect_error 3 "error: '$dir' is a directory; give the path of a file to write" \
  "$tessera" inspect llama2-7b --format yaml -o "$dir" --force
expect_error 3 "error: cannot create the directory '$dir/g.yaml': Not a directory" \
  "$tessera" inspect llama2-7b --format yaml -o "$dir/g.yaml/x.yaml"
# compile and sweep take directories: `-` is a usage error.
expect_error 2 "error: -o names the directory plan.yaml is written into; '-' (standard output) is not one" \
  "$tessera" compile llama2-7b -t ipu_alltoall -o -
echo "ok: outputs"
