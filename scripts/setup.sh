#!/usr/bin/env bash
# setup.sh [PRESET [BUILD_PRESET]] — install the Debian packages Tessera needs (only those
# missing), then configure the CMake preset PRESET (default: "default", Release) in build/PRESET
# and build the build preset BUILD_PRESET (default: PRESET, everything; `runtime`: only the CLI
# and the plugins). Compiles go through ccache (CMakeLists.txt, TESSERA_CCACHE).
# Run as root on a fresh Debian 12 machine, or as a user once the packages are installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
preset=${1:-default}
build_preset=${2:-$preset}

missing=()
while read -r pkg; do
  [[ -z $pkg || $pkg == \#* ]] && continue
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done <"$root/scripts/packages.txt"

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) != 0 ]]; then
    echo "setup: these Debian packages are missing: ${missing[*]}" >&2
    echo "setup: run this script as root, or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$build_preset"
