#!/usr/bin/env bash
# format.sh [--check] — clang-format every C/C++ source of the tree in place, or with --check list
# the files that differ from .clang-format and exit 1 (CI runs the check as the ctest `format.tree`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    '*.c' '*.h' '*.cpp' '*.hpp' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
else  # an exported tree without .git
  mapfile -t files < <(find framework sdk plugins tests bench models -name '*.[ch]' -o \
    -name '*.[ch]pp' | sort)
fi
if [[ ${1:-} != --check ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# Files in batches over every core, one clang-format per batch (a process per file took ~90 s of
# CI); a file that differs is named by its first violation, "PATH:LINE:COL: error: ...".
rc=0
report=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 40 -P "$(nproc)" clang-format --dry-run -Werror 2>&1 >/dev/null) || rc=$?
mapfile -t bad < <(sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$report" | sort -u)
if ((rc != 0 && ${#bad[@]} == 0)); then  # clang-format itself failed: say what it said
  printf 'format: clang-format failed (exit %d):\n%s\n' "$rc" "$report" >&2
  exit 1
fi
if ((${#bad[@]})); then
  echo "format: ${#bad[@]} file(s) differ from .clang-format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "format: run scripts/format.sh to fix them" >&2
  exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
