#!/usr/bin/env bash
# install_manifests.sh BUILD_DIR WORK_DIR
# `cmake --install --strip` changes the plugin libraries it installs. The manifest installed beside
# each must record the installed file's size and SHA-256 (the host refuses any other library), so
# the installed tessera lists every installed plugin as ok.
set -euo pipefail
build=$1 work=$2
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" --strip >/dev/null
plugins=$work/prefix/lib/tessera/plugins
count=0
for manifest in "$plugins"/*.plugin.yaml; do
  library=${manifest%.plugin.yaml}.so
  if cmp -s "$library" "$build/lib/tessera/plugins/${library##*/}"; then
    echo "FAILED: $library is the built file: install did not strip it, so this proves nothing"
    exit 1
  fi
  size=$(stat -c %s "$library")
  sha=$(sha256sum "$library" | cut -d' ' -f1)
  grep -qx "library_size: $size" "$manifest" ||
    { echo "FAILED: $manifest does not record the installed size $size"; cat "$manifest"; exit 1; }
  grep -qx "library_sha256: \"$sha\"" "$manifest" ||
    { echo "FAILED: $manifest does not record the installed SHA-256 $sha"; cat "$manifest"; exit 1; }
  count=$((count + 1))
done
[[ $count -ge 4 ]] || { echo "FAILED: only $count plugins installed"; exit 1; }
output=$("$work/prefix/bin/tessera" targets 2>&1) || { echo "FAILED: targets: $output"; exit 1; }
loaded=$(grep -cE " ok +$plugins/[a-z0-9_]+\.so$" <<<"$output" || true)
[[ $loaded == "$count" ]] || { echo "FAILED: $loaded of $count installed plugins load:"; echo "$output"; exit 1; }
echo "ok: $count installed plugins, each manifest records its stripped library"
