#!/usr/bin/env python3
"""Latency CDFs from `tessera serve ... --per-request FILE` (FILE.csv, or FILE.json:
tessera-serve-requests-1): for each run, the share of its requests whose TTFT, TPOT and end-to-end
latency are at most x, one curve per run, labelled LABEL or the file's name. TPOT is drawn over the
requests with more than one output token (the others have none). Writes OUT_STEM.png and
OUT_STEM.svg.

usage: plot_requests.py FILE[=LABEL] [FILE[=LABEL] ...] OUT_STEM
       (matplotlib; Debian: python3-matplotlib)"""
import csv
import json
import os
import sys

METRICS = (("ttft_s", "TTFT"), ("tpot_s", "TPOT"), ("e2e_s", "end to end"))


def fail(message):
    sys.exit(f"error: {message}")


def read_rows(path):
    """Each request's latencies in seconds (None where the run has none, e.g. a lone token's TPOT)."""
    try:
        with open(path, newline="") as f:
            if path.endswith(".json"):
                doc = json.load(f)
                if not isinstance(doc, dict) or doc.get("format") != "tessera-serve-requests-1":
                    fail(f"{path}: not tessera serve's --per-request FILE.json "
                         "(format tessera-serve-requests-1)")
                rows = doc["requests"]
            else:
                rows = list(csv.DictReader(f))
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not rows:
        fail(f"{path}: no requests")
    missing = [key for key, _ in METRICS if key not in rows[0]]
    if missing:
        fail(f"{path}: no column {', '.join(missing)}; expected tessera serve's --per-request rows")
    out = {key: [] for key, _ in METRICS}
    for line, row in enumerate(rows, start=2):
        for key, _ in METRICS:
            value = row[key]
            if value in ("", None):
                continue
            try:
                out[key].append(float(value))
            except ValueError:
                fail(f"{path}: request {line - 1}: {key} '{value}' is not a number of seconds")
    return out


def cdf(values):
    """The points of an empirical CDF: sorted values against i / n."""
    xs = sorted(values)
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)]


def main(args):
    from plot_load import figure, save  # beside this script

    *inputs, stem = args
    runs = []
    for spec in inputs:
        path, _, label = spec.partition("=")
        runs.append((label or os.path.basename(path), read_rows(path)))
    fig, axes = figure(1, len(METRICS), 4 * len(METRICS), 3.6)
    for ax, (key, name) in zip(axes, METRICS):
        for label, rows in runs:
            if rows[key]:
                xs, ys = cdf([v * 1e3 for v in rows[key]])
                ax.step(xs, ys, where="post", label=f"{label} ({len(xs)})")
        ax.set_xlabel(f"{name} (ms)")
        ax.set_ylabel("share of requests")
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, stem)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
