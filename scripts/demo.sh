#!/usr/bin/env bash
# demo.sh — the main job on a built-in default: set up and build, then show the targets found and
# the default chip of the default target (Graphcore IPU Mk2-like).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" default
tessera="$root/build/default/bin/tessera"
"$tessera" targets
echo
"$tessera" topology --target ipu_alltoall
