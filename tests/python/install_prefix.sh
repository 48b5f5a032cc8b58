#!/usr/bin/env bash
# install_prefix.sh PYTHON BUILD_DIR WORK_DIR — the Python module installed with `cmake --install`
# imports from PREFIX/lib/python3/dist-packages and finds its plugins under PREFIX (not the
# interpreter's prefix, not the build tree): docs/python.md's example compile runs from there.
set -euo pipefail
python=$1 build=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PYTHONPATH=$work/prefix/lib/python3/dist-packages TESSERA_PLUGIN_PATH=
cd "$work"
"$python" - "$work/prefix" <<'PY'
import os, sys
import tessera
prefix = os.path.realpath(sys.argv[1])
assert os.path.realpath(tessera.__file__).startswith(prefix), tessera.__file__
r = tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=512)
elk = [d for d in r["designs"] if d["design"] == "elk-full"][0]
assert elk["simulated_metrics"]["latency_s"] > 0, elk
try:
    tessera.compile("llama2-7b", target="no_such_target")
    raise SystemExit("FAILED: an unknown target did not raise")
except tessera.InputError as e:
    searched = str(e).split("Searched: ")[1]
    assert searched.startswith(os.path.join(prefix, "lib/tessera/plugins")), searched
print("ok: installed module,", r["model"], "elk-full", round(elk["simulated_metrics"]["latency_s"] * 1e3, 3), "ms")
PY
