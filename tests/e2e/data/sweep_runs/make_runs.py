#!/usr/bin/env python3
"""Writes the synthetic run directories in this folder (inputs of tests/e2e/plot_sweep_test.sh).

The numbers come from a toy model of a decode step, NOT from tessera: a design streams the
weights from HBM (preload P) and executes (E), overlapping some of the two, plus interconnect
congestion C; latency = E + P - overlap + C. They only need to look plausible on a plot: latency
falls with HBM bandwidth with diminishing returns, a mesh is slower than all-to-all, Basic >
Static > Elk-Dyn > Elk-Full > Ideal.

    python3 make_runs.py        # rewrites hbm_topology/, noc_hbm/ and cores/ beside this file
"""
import csv
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

FIXED = ["model", "target", "chip", "batch", "seq", "mode", "dtype", "design",
         "cores", "hbm_peak_bytes_per_s", "hbm_sustained_bytes_per_s", "interconnect_bytes_per_s",
         "peak_flops_per_s",
         "planned_ms", "speedup_vs_basic", "of_ideal", "hbm_util", "noc_util", "tflops",
         "exec_only_ms", "overlap_ms", "stall_ms", "congest_ms", "orders",
         "sim_ms", "sim_hbm_util", "sim_noc_util", "sim_sram_util", "sim_tflops",
         "sim_exec_only_ms", "sim_overlap_ms", "sim_stall_ms", "sim_congest_ms"]
METRICS = FIXED[FIXED.index("planned_ms"):]
DESIGNS = ["basic", "static", "elk-dyn", "elk-full", "ideal"]

WEIGHT_BYTES = 26.0e9          # llama2-13b, fp16
FLOP_PER_TOKEN = 2 * 13.0e9    # per sequence
BATCH = 16
# design -> (execution time factor, fraction of min(P, E) overlapped, congestion factor, orders)
DESIGN_MODEL = {
    "basic": (1.30, 0.00, 0.00, 1),
    "static": (1.15, 0.55, 0.04, 1),
    "elk-dyn": (1.05, 0.80, 0.06, 6),
    "elk-full": (1.00, 0.92, 0.03, 24),
    "ideal": (0.90, 1.00, 0.00, 1),
}


def point_rows(point, axis_values, design, bw, topo="alltoall", noc_scale=1.0, cores=5888,
               simulate=True, jitter=0.0):
    exec_f, ov_f, cong_f, orders = DESIGN_MODEL[design]
    sustained = 0.785 * bw
    preload = WEIGHT_BYTES / sustained * 1e3
    execute = 1.6 * exec_f * (5888.0 / cores) ** 0.8
    exchange = 0.45 * (5888.0 / cores) ** 0.5 / noc_scale
    if topo == "mesh":
        exchange *= 1.9
    execute += exchange
    overlap = ov_f * min(preload, execute)
    congest = cong_f * exchange * (3.0 if topo == "mesh" else 1.0) * preload / 4.0
    lat = execute + preload - overlap + congest
    noc_bw = 32e12 * noc_scale
    row = {
        "point": point, "status": "ok", "reason": "",
        "model": "llama2-13b", "target": "mesh_tenstorrent" if topo == "mesh" else "ipu_alltoall",
        "chip": "ipu-pod4-hbm3e", "batch": BATCH, "seq": 2048, "mode": "decode",
        "dtype": "fp16", "design": design, "cores": cores,
        "hbm_peak_bytes_per_s": bw, "hbm_sustained_bytes_per_s": sustained,
        "interconnect_bytes_per_s": noc_bw, "peak_flops_per_s": 1.0e15 * cores / 5888,
        "planned_ms": lat, "exec_only_ms": execute - overlap, "overlap_ms": overlap,
        "stall_ms": preload - overlap, "congest_ms": congest, "orders": orders,
        "hbm_util": (WEIGHT_BYTES / bw * 1e3) / lat,
        "noc_util": min(0.95, exchange * 1.1 / lat),
        "tflops": FLOP_PER_TOKEN * BATCH / (lat * 1e-3) / 1e12,
    }
    row.update(axis_values)
    if simulate:
        s = 1.04 + jitter + (0.03 if topo == "mesh" else 0.0)
        for col in ("exec_only_ms", "overlap_ms", "stall_ms", "congest_ms"):
            row["sim_" + col] = row[col] * s
        row["sim_ms"] = lat * s
        row["sim_hbm_util"] = row["hbm_util"] / s
        row["sim_noc_util"] = row["noc_util"] / s
        row["sim_sram_util"] = 0.71 + 0.02 * DESIGNS.index(design)
        row["sim_tflops"] = row["tflops"] / s
    return row


def finish(rows, ideal_by_point, basic_by_point):
    for r in rows:
        if r["status"] != "ok":
            continue
        r["speedup_vs_basic"] = basic_by_point[r["point"]] / r["planned_ms"]
        r["of_ideal"] = ideal_by_point[r["point"]] / r["planned_ms"]


def compact(v):
    """Floats to 4 significant digits, as short JSON/CSV text (4e+12, not 4000000000000.0)."""
    if isinstance(v, float):
        return Num(float("%.4g" % v))
    return v


class Num(float):
    def __repr__(self):
        return "%.6g" % self
    __str__ = __repr__


def to_json(v):
    """json.dumps, with floats written as %g (JSON allows 4e+12)."""
    if isinstance(v, float):
        return "%.6g" % v
    if isinstance(v, list):
        return "[" + ",".join(to_json(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join("%s:%s" % (json.dumps(k), to_json(x)) for k, x in v.items()) + "}"
    return json.dumps(v)


def write_run(name, sweep, axes, make_point, failed=(), as_written=False):
    """make_point(point_index, axis_values_dict, design) -> row dict. as_written: axis values
    as text, the way the sweep file spells them (results.json axes[].values and the CSV's axis
    columns), as tessera sweep keeps them."""
    columns = ["point", "status", "reason"]
    columns += [a["path"] for a in axes if a["path"] not in FIXED]
    columns += FIXED
    # the points: the product over zip groups (axes with the same non-empty zip vary together)
    groups = []
    for a in axes:
        if a["zip"] and groups and any(b["zip"] == a["zip"] for b in groups[-1]):
            groups[-1].append(a)
        else:
            groups.append([a])
    points = [{}]
    for g in groups:
        n = len(g[0]["values"])
        points = [dict(p, **{a["path"]: a["values"][i] for a in g}) for p in points
                  for i in range(n)]
    rows = []
    ideal, basic = {}, {}
    for i, values in enumerate(points):
        for d in DESIGNS:
            if i in failed:
                r = {c: None for c in columns}
                r.update(values)
                r.update({"point": i, "status": "failed", "design": d,
                          "reason": failed[i], "model": "llama2-13b", "target": "ipu_alltoall",
                          "chip": "ipu-pod4-hbm3e", "batch": BATCH, "seq": 2048,
                          "mode": "decode", "dtype": "fp16"})
                rows.append(r)
                continue
            r = make_point(i, values, d)
            rows.append(r)
            if d == "ideal":
                ideal[i] = r["planned_ms"]
            if d == "basic":
                basic[i] = r["planned_ms"]
    finish(rows, ideal, basic)
    rows = [{c: compact(r.get(c)) for c in columns} for r in rows]
    if as_written:
        text = {}
        for a in axes:
            text[a["path"]] = dict(zip(a.pop("values_num"), a["spelled"]))
            a["values"] = a.pop("spelled")
            a["zip"] = a.pop("zip")  # keep the key order path, values, zip
        for r in rows:
            for path, spelled in text.items():
                if path not in FIXED and r[path] is not None:
                    r[path] = spelled[float(r[path])]
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if r[c] is None else ("%.6g" % r[c] if isinstance(r[c], float)
                                                 else r[c]) for c in columns])
    with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
        f.write('{\n"tessera_version": "0.1.0",\n"sweep": %s,\n"axes": [\n%s\n],\n'
                '"columns": %s,\n"rows": [\n%s\n]\n}\n'
                % (to_json(sweep), ",\n".join(to_json(a) for a in axes), to_json(columns),
                   ",\n".join(to_json(r) for r in rows)))


def main():
    write_run(
        "hbm_topology",
        {"name": "fig19-hbm-topology",
         "description": "synthetic: llama2-13b decode vs HBM bandwidth, all-to-all vs mesh",
         "plots": ["latency_vs_hbm", "utilisation_vs_hbm", "breakdown"]},
        [{"path": "memory.bandwidth_bytes_per_s", "values": [4e12, 8e12, 16e12], "zip": ""},
         {"path": "topology.kind", "values": ["alltoall", "mesh"], "zip": ""}],
        lambda i, v, d: point_rows(i, v, d, v["memory.bandwidth_bytes_per_s"],
                                   topo=v["topology.kind"], jitter=0.01 * (i % 3)),
        failed={1: "op 'lm_head' needs 700 KiB per core; the chip has 624 KiB"})
    write_run(
        "noc_hbm",
        {"name": "fig22-noc-hbm",
         "description": "synthetic: latency over HBM x interconnect bandwidth (planned only)",
         "plots": ["noc_hbm_heatmap"]},
        [{"path": "memory.bandwidth_bytes_per_s", "values": [4e12, 8e12, 16e12], "zip": ""},
         {"path": "interconnect_scale", "values": [0.5, 1, 2], "zip": ""}],
        lambda i, v, d: point_rows(i, v, d, v["memory.bandwidth_bytes_per_s"],
                                   noc_scale=v["interconnect_scale"], simulate=False))
    cores_axes = [{"path": "cores", "spelled": ["2944", "5888"], "zip": "c"},
                  {"path": "memory.bandwidth_bytes_per_s", "spelled": ["8e12", "16e12"],
                   "zip": "c"}]
    for a in cores_axes:
        a["values"] = a["values_num"] = [float(v) for v in a["spelled"]]
    write_run(
        "cores",
        {"name": "fig23-cores",
         "description": "synthetic: 2 and 4 chips, HBM scaled with them; axis values as text",
         "plots": ["latency_vs_cores"]},
        cores_axes,
        lambda i, v, d: point_rows(i, v, d, v["memory.bandwidth_bytes_per_s"],
                                   cores=int(v["cores"])),
        as_written=True)


if __name__ == "__main__":
    main()
