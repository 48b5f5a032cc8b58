#!/usr/bin/env python3
"""The layering check on this build's own manifest, crossing the layers on purpose.

Usage: crossing_probe.py CHECKER MANIFEST ORDER

Adds two probe sources (in a scratch folder) to copies of the real manifest: one compiled into
tessera_common that includes the driver's front door, one compiled into tessera_driver that
includes a private header of the planner. The checker must fail on each with its message, so a
`layering.tree` that passes means something on this tree, not only on the fixture.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

PROBES = [
    ("tessera_common", "framework/driver/driver.hpp",
     "includes framework/driver/driver.hpp of tessera_driver, which tessera_common does not "
     "link"),
    ("tessera_driver", "framework/planner/allocation.hpp",
     "includes framework/planner/allocation.hpp, a private header of tessera_planner"),
]


def probe(checker, manifest, order, scratch, library, header, expected):
    source = Path(scratch) / f"probe_{library}.cpp"
    source.write_text(f'#include "{header}"\n', encoding="utf-8")
    crossed = json.loads(json.dumps(manifest))
    target = next(t for t in crossed["targets"] if t["name"] == library)
    target["sources"] += f";{source}"
    path = Path(scratch) / f"layering_{library}.json"
    path.write_text(json.dumps(crossed), encoding="utf-8")
    result = subprocess.run([sys.executable, checker, "--manifest", str(path), "--order", order],
                            capture_output=True, text=True, check=False)
    wanted = f"{source}:1: {expected}"
    found = [line for line in result.stdout.splitlines() if line.startswith(wanted)]
    if result.returncode != 1 or not found:
        print(f"FAIL: {library} including {header}: exit {result.returncode}, expected 1 and a "
              f"line starting '{wanted}'; got:\n{result.stdout}{result.stderr}")
        return False
    print(f"ok: {found[0]}")
    return True


def main():
    checker, manifest_path, order = sys.argv[1:4]
    manifest = json.loads(Path(manifest_path).read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as scratch:
        results = [probe(checker, manifest, order, scratch, *p) for p in PROBES]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
