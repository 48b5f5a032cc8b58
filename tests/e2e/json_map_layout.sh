#!/usr/bin/env bash
# json_map_layout.sh TESSERA DIR DATA — `--format json` of map, layout and targets gives the tables'
# numbers: map's energy, latency, EDP, utilisation, per-tensor and per-level rows and mapspace
# counts (TCM and a Pareto front); a saved mapping evaluated; layout's locate and inverse lines,
# block map and --choose table; targets' table.
set -euo pipefail
tessera=$1
dir=$2
matmul=$3/mapper/matmul.yaml
mkdir -p "$dir"
rm -f "$dir/mapping.yaml"
"$tessera" map -w resnet18-conv3_x -j 2 >"$dir/map.txt"
"$tessera" map -w resnet18-conv3_x -j 2 --format json -o "$dir/mapping.yaml" >"$dir/map.json"
"$tessera" map --evaluate "$dir/mapping.yaml" --format json >"$dir/evaluate.json"
pareto=(-w "$matmul" --objective pareto --pareto-level LocalBuffer -j 2)
"$tessera" map "${pareto[@]}" >"$dir/pareto.txt"
"$tessera" map "${pareto[@]}" --format json >"$dir/pareto.json"
fig7="((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))"
patent=(--target tree_simd --chip patent-2level --shape 100x100)
"$tessera" layout "${patent[@]}" "$fig7" --locate 91,36 --locate 0,99 --inverse A3,B1,411 --map \
  >"$dir/layout.txt"
"$tessera" layout "${patent[@]}" "$fig7" --locate 91,36 --locate 0,99 --inverse A3,B1,411 --map \
  --format json >"$dir/layout.json"
"$tessera" layout "${patent[@]}" --choose stencil3x3 --candidates 4 >"$dir/choose.txt"
"$tessera" layout "${patent[@]}" --choose stencil3x3 --candidates 4 --format json >"$dir/choose.json"
TESSERA_PLUGIN_PATH= "$tessera" targets >"$dir/targets.txt"
TESSERA_PLUGIN_PATH= "$tessera" targets --format json >"$dir/targets.json"
python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]

SI = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3}
BYTES = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
def joules(text):
    m = re.fullmatch(r"([0-9.e+-]+) ([fpnumk]?)J", text)
    return float(m[1]) * SI[m[2]]
def seconds(text):
    m = re.fullmatch(r"([0-9.]+) ([fpnum]?)s", text)
    return float(m[1]) * SI[m[2]]
def size(text):
    value, unit = text.split()
    return float(value) * BYTES[unit]
def size_near(value, text, what):
    """Within half a unit of the table's last printed digit."""
    number, unit = text.split()
    decimals = len(number.split(".")[1]) if "." in number else 0
    assert abs(value - size(text)) <= 0.5 * 10**-decimals * BYTES[unit] * 1.0001, f"{what}: json {value} against table {text}"
def count(text):
    return float(text.replace(",", ""))
def near(a, b, rel, what):
    assert abs(a - b) <= rel * abs(b) + 1e-30, f"{what}: json {a} against table {b}"

def check_mapping(m, text, what):
    """One mapping's figures against the report's metrics line and its two tables."""
    line = re.search(r"^energy (.+?)   latency (.+?)   EDP (\S+) J·s   utilization ([0-9.]+)%   "
                     r"compute (.+)$", text, re.M)
    near(m["energy_j"], joules(line[1]), 5e-4, what + " energy")
    near(m["latency_s"], seconds(line[2]), 5e-3, what + " latency")
    near(m["edp_j_s"], float(line[3]), 5e-4, what + " EDP")
    assert abs(m["utilisation"] * 100 - float(line[4])) <= 0.05, (m["utilisation"], line[4])
    near(m["compute_s"], seconds(line[5]), 5e-3, what + " compute")
    tables = text.split("\n\n")
    nodes = [re.split(r"  +", l.strip()) for l in
             next(t for t in tables if t.startswith("level         tensor")).splitlines()[2:]]
    assert len(nodes) == len(m["nodes"]), (len(nodes), len(m["nodes"]))
    for n, row in zip(m["nodes"], nodes):
        assert [n["level"], n["tensor"]] == row[:2], (n, row)
        size_near(n["tile_bytes"], row[2], what + " tile")
        assert [n["fills"], n["read_elements"], n["write_elements"]] == [count(x) for x in row[3:6]], (n, row)
        near(n["energy_j"], joules(row[6]), 5e-4, what + " node energy")
    levels = [re.split(r"  +", l.strip()) for l in
              next(t for t in tables if t.startswith("level         used")).splitlines()[2:]]
    assert [l["level"] for l in m["levels"]] == [r[0] for r in levels], levels
    for l, row in zip(m["levels"], levels):
        assert row[2] == "unlimited" if l["capacity_bytes"] is None else size(row[2]) == l["capacity_bytes"], (l, row)
        assert l["instances"] == count(row[3]), (l, row)
        size_near(l["used_bytes_per_instance"], row[1], what + " level usage")
        size_near(l["read_bytes"], row[4], what + " level reads")
        size_near(l["write_bytes"], row[5], what + " level writes")

# TCM, one mapping.
j = json.load(open(f"{d}/map.json"))
text = open(f"{d}/map.txt").read()
assert j["format"] == "tessera-map-1" and j["search"] == "tcm" and j["objective"] == "edp", j["format"]
assert j["workload"]["name"] == "resnet18-conv3_x" and j["arch"]["name"] == "tpu_v4i_like", j["workload"]
assert len(j["mappings"]) == 1 and j["mappings"][0]["valid"]
check_mapping(j["mappings"][0], text, "tcm")
# (How many tile shapes were evaluated depends on the threads' timing: the runs differ there.)
m = re.search(r"dataplacements \|DP\| +([0-9,]+)\n.*-> ([0-9,]+) non-redundant\n", text)
ms = j["mapspace"]
assert [ms["dataplacements"], ms["dataflows"]] == [int(count(g)) for g in m.groups()], m.groups()
assert ms["evaluated"] > 0 and ms["partial_shapes"] >= ms["evaluated"], ms
# The LoopTree: the loops nest as the text indents them, the compute node innermost.
def walk(body, depth, out):
    for n in body:
        out.append((depth, n))
        if "body" in n:
            walk(n["body"], depth + 1, out)
    return out
nodes = walk(j["mappings"][0]["looptree"], 0, [])
loops = [l for l in text.split("\n\n")[1].splitlines() if re.match(r" *(spatial-)?for ", l)]
json_loops = [(depth, n) for depth, n in nodes if n["kind"] in ("temporal", "spatial")]
assert len(loops) == len(json_loops), (len(loops), len(json_loops))
for line, (depth, n) in zip(loops, json_loops):
    indent = (len(line) - len(line.lstrip())) // 2
    want = ("spatial-" if n["kind"] == "spatial" else "") + f"for {n['loop']} in [0:{n['bound']})"
    assert indent == depth and line.strip().startswith(want), (line, depth, n)
assert nodes[-1][1] == {"kind": "compute", "unit": "MAC", "computes": "resnet18-conv3_x"}, nodes[-1]

# The same mapping, saved and evaluated: the same figures.
e = json.load(open(f"{d}/evaluate.json"))
assert e["search"] == "evaluate" and e["objective"] is None and e["mapspace"] is None
for key in ("energy_j", "latency_s", "edp_j_s", "looptree", "nodes", "levels"):
    assert e["mappings"][0][key] == j["mappings"][0][key], key

# A Pareto front: one mapping per row of the front table, the first the fastest point shown.
p = json.load(open(f"{d}/pareto.json"))
text = open(f"{d}/pareto.txt").read()
front = [re.split(r"  +", l.strip()) for l in text.split("\n\n")[1].splitlines()[2:]]
assert p["pareto_level"] == "LocalBuffer" and len(p["mappings"]) == len(front) > 1, (p["pareto_level"], len(front))
for m, row in zip(p["mappings"], front):
    near(m["latency_s"], seconds(row[1]), 5e-3, "front latency")
    size_near(m["usage_bytes"], row[2], "front usage")
    near(m["edp_j_s"], float(row[4]), 5e-4, "front EDP")
check_mapping(p["mappings"][0], text.split("fastest point:\n")[1], "fastest")

# layout: locate and inverse lines, and the block map's cells.
l = json.load(open(f"{d}/layout.json"))
text = open(f"{d}/layout.txt").read()
assert l["format"] == "tessera-layout-1" and l["choice"] is None
desc = l["description"]
path = lambda place: " ".join(f"{b['level']}{b['block']}" for b in place["blocks"])
for loc in desc["locate"]:
    p = loc["place"]
    line = (f"locate   ({', '.join(map(str, loc['index']))}) -> {path(p)}, address {p['address']} "
            f"({p['memory_level']} block {p['memory_block']} of {p['memory_blocks']})")
    assert line in text, (line, text)
assert desc["locate"][0]["place"]["address"] == 411 and path(desc["locate"][0]["place"]) == "A3 B1"
inv = desc["inverse"][0]
assert f"inverse  {path(inv['place'])}, address 411 -> ({', '.join(map(str, inv['index']))})" in text
assert inv["index"] == [91, 36] and inv["place"]["memory_block"] is None, inv
table = [re.split(r"  +", x.strip()) for x in text.split("map\n")[1].splitlines()[2:]]
rng = lambda r: str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"
mp = desc["map"]
assert len(table) == len(mp["cells"]) == len(mp["rows"]), (len(table), len(mp["rows"]))
for row, ranges, cells in zip(table, mp["rows"], mp["cells"]):
    assert row == [rng(ranges)] + [path(c) for c in cells], (row, cells)

# layout --choose: the candidates table.
c = json.load(open(f"{d}/choose.json"))["choice"]
text = open(f"{d}/choose.txt").read()
assert f"choose   stencil3x3 for 100x100: {c['considered']} candidates, cheapest first" in text
rows = [re.split(r"  +", x.strip()) for x in text.splitlines()[3:-1]]
assert [[str(k["rank"]), k["layout"], k["estimate"]] for k in c["candidates"]] == rows, rows
assert f"chosen   {c['chosen']}" in text and c["chosen"] == c["candidates"][0]["layout"]

# targets: the table's rows.
t = json.load(open(f"{d}/targets.json"))
rows = [x.split()[:3] for x in open(f"{d}/targets.txt").read().splitlines()[2:] if x.strip()]
assert [[x["name"], x["version"], x["abi"]] for x in t] == rows, (t, rows)
PY
echo "ok: map, layout and targets json"
