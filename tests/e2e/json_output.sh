#!/usr/bin/env bash
# json_output.sh TESSERA DIR — `--format json` of compile, simulate and inspect gives the tables'
# numbers: every design's planned and simulated ms/token, utilisations and breakdown match the
# compile tables (to their rounding), Ideal's simulated figures left out with a note; the simulate document's latency, what was simulated and
# per-op rows match the simulate report; inspect's ops (name, kind, Einsum, ranks, FLOPs), layers
# and totals match its table. DIR holds simulate_setup.sh's plan.
set -euo pipefail
tessera=$1
dir=$2
small=(llama2-7b --batch 1 --seq 128 --target ipu_alltoall --chip ipu-mk2-hbm3e --threads 2)
"$tessera" compile "${small[@]}" --design all --simulate >"$dir/compile.txt"
"$tessera" compile "${small[@]}" --design all --simulate --format json >"$dir/compile.json"
"$tessera" simulate "$dir/plan.yaml" --ops 0 >"$dir/simulate.txt"
"$tessera" simulate "$dir/plan.yaml" --format json >"$dir/simulate.json"
"$tessera" inspect llama2-7b --batch 1 --seq 128 >"$dir/inspect.txt"
"$tessera" inspect llama2-7b --batch 1 --seq 128 --format json >"$dir/inspect.json"
python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]

# inspect: every op's row and the totals.
PREFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
def flops(text):
    value, unit = text.split()
    return float(value) * PREFIX[unit[:-4]]
g = json.load(open(f"{d}/inspect.json"))
assert g["format"] == "tessera-inspect-1" and g["model"] == "llama2-7b decode b1 s128", g["model"]
lines = open(f"{d}/inspect.txt").read().splitlines()
rows = [re.split(r"  +", l.strip()) for l in lines[2:] if re.match(r"^ *\d+  ", l)]
assert len(rows) == len(g["ops"]) == 611, (len(rows), len(g["ops"]))
for op, row in zip(g["ops"], rows):
    assert [str(op["op"]), op["name"], op["kind"], op["einsum"]] == row[:4], (op, row)
    assert " ".join(f"{r['name']}={r['extent']}" for r in op["ranks"]) == row[4], (op, row)
    got = flops(row[5])
    assert abs(op["flops"] - got) <= 0.005 * got + 0.5, (op["flops"], row[5])
assert g["layers"] == {"count": 32, "ops_per_layer": 19, "first_op": 1}, g["layers"]
assert g["op_classes"] == 14 and abs(g["flops"] / 13.29e9 - 1) < 5e-4, (g["op_classes"], g["flops"])

def near(a, b, tol, what):
    assert abs(a - b) <= tol, f"{what}: json {a} against table {b}"

c = json.load(open(f"{d}/compile.json"))
assert c["format"] == "tessera-compile-7", c["format"]
assert c["chip"] == "ipu-mk2-hbm3e" and c["cores"] == 1472 and c["ops"] > 0, c
text = open(f"{d}/compile.txt").read().split("\nsimulated")
rows = lambda t: {l.split()[0]: l.split() for l in t.splitlines() if l.split() and l.split()[0] in
                  ("basic", "static", "elk-dyn", "elk-full", "ideal")}
planned, simulated = rows(text[0]), rows(text[1])
assert [x["design"] for x in c["designs"]] == list(planned), (c["designs"], planned)
pct = lambda s: float(s.rstrip("%")) / 100
IDEAL = "ideal is a bound (preloads on their own network, no SRAM limit) that no chip runs: not simulated"
for x in c["designs"]:
    p, s, name = planned[x["design"]], simulated[x["design"]], x["design"]
    near(x["planned"]["latency_s"] * 1e3, float(p[1]), 5e-4, name + " planned ms")
    near(x["planned"]["hbm_utilisation"], pct(p[4]), 5e-4, name + " HBM util")
    near(x["planned"]["flops_per_s"] / 1e12, float(p[6]), 0.05, name + " TFLOP/s")
    near(x["planned"]["congestion_s"] * 1e3, float(p[10]), 5e-4, name + " congest ms")
    assert x["orders_tried"] == int(p[11]), name
    near(x["planned_energy"]["energy_j"] * 1e3, float(p[13]), 5e-4, name + " planned mJ/token")
    near(x["planned_energy"]["power_w"], float(p[14]), 0.05, name + " planned W")
    if name == "ideal":  # a bound no chip runs: its plan, "-" and a footnote; null in the JSON
        assert s[1] == p[1] and s[2:] == ["-"] * 12, s
        assert not x["simulated"] and x["simulated_metrics"] is None, x
        assert x["simulated_energy"] is None and x["simulated_note"] == IDEAL, x
        assert "\n- " + IDEAL + "\n" in text[1], text[1]
        continue
    assert x["simulated"], name
    near(x["simulated_metrics"]["latency_s"] * 1e3, float(s[2]), 5e-4, name + " simulated ms")
    near(x["simulated_metrics"]["sram_utilisation"], pct(s[6]), 5e-4, name + " SRAM util")
    near(x["simulated_metrics"]["preload_stall_s"] * 1e3, float(s[10]), 5e-4, name + " stall ms")
    e = x["simulated_energy"]   # ipu-mk2-hbm3e states its energy
    near(e["energy_j"] * 1e3, float(s[12]), 5e-4, name + " mJ/token")
    near(e["power_w"], float(s[13]), 0.05, name + " W")
    parts = sum(e[k] for k in ("compute_j", "sram_j", "network_j", "chip_to_chip_j", "off_chip_j", "static_j"))
    near(parts, e["energy_j"], 1e-9 * e["energy_j"], name + " parts")
    near(e["power_w"], e["energy_j"] / x["simulated_metrics"]["latency_s"], 1e-6 * e["power_w"], name + " W = J/s")

UNIT = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
def seconds(value, unit):
    return float(value) * UNIT[unit]

s = json.load(open(f"{d}/simulate.json"))
assert s["format"] == "tessera-simulate-5", s["format"]
report = open(f"{d}/simulate.txt").read()
m = re.search(r"^latency +([0-9.]+) (m?u?n?s) per token \(planner estimate ([0-9.]+) (m?u?n?s)", report, re.M)
near(s["latency_s"], seconds(m[1], m[2]), 5e-3 * s["latency_s"], "latency")
near(s["estimated_latency_s"], seconds(m[3], m[4]), 5e-3 * s["estimated_latency_s"], "estimate")
m = re.search(r"^energy +([0-9.]+) (m?u?J) per token, ([0-9.]+) W: compute ", report, re.M)
near(s["energy"]["energy_j"], float(m[1]) * {"J": 1, "mJ": 1e-3, "uJ": 1e-6}[m[2]], 5e-3 * s["energy"]["energy_j"], "energy")
near(s["energy"]["power_w"], float(m[3]), 5e-3 * s["energy"]["power_w"], "power")
m = re.search(r"^energy .* \(planner estimate ([0-9.]+) mJ, ([-+][0-9.]+)%\)$", report, re.M)
near(s["estimated_energy"]["energy_j"] * 1e3, float(m[1]), 5e-4 * float(m[1]), "planned energy from plan.yaml")
m = re.search(r"^simulated +(\d+) cores, (\d+) HBM controllers, (\d+) links, (\d+) flows, (\d+) events", report, re.M)
assert [s["cores"], s["controllers"], s["links"], s["flows"], s["events"]] == [int(g) for g in m.groups()], m.groups()
table = report.split("ops, simulated next to the planner's estimate\n")[1].splitlines()[2:]
ops = {int(l.split()[0]): l for l in table if l.split() and l.split()[0].isdigit()}
assert len(s["ops"]) == len(ops) > 0, (len(s["ops"]), len(ops))
for op in s["ops"]:
    line = ops[op["op"]]
    assert f" {op['name']} " in line, (op, line)
    times = re.findall(r"([0-9.]+) (s|ms|us|ns)\b", line)
    for (value, unit), key in zip(times, ("estimated_s", "simulated_s", "start_s", "congestion_s")):
        got = seconds(value, unit)
        near(op[key], got, 5e-3 * got + 1e-15, f"op {op['op']} {key}")
PY
echo "ok: json output"
