#!/usr/bin/env python3
"""Latency against load from `tessera serve --rates ... --format json` (tessera-serve-load-1):
TTFT and TPOT (P50 and P99) against the offered rate, the loads the machine did not sustain
marked at the rate it served instead. Writes OUT_STEM.png and OUT_STEM.svg.

usage: plot_load.py LOAD.json OUT_STEM   (matplotlib; Debian: python3-matplotlib)"""
import json
import sys


def main(path, stem):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "tessera-serve-load-1":
        sys.exit(f"error: {path}: not the output of tessera serve --rates ... --format json")
    points = doc["points"]
    kept = [p for p in points if p["sustainable"]]
    lost = [p for p in points if not p["sustainable"]]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key, name in ((axes[0], "ttft_s", "TTFT"), (axes[1], "tpot_s", "TPOT")):
        for q, style in (("p50", "o-"), ("p99", "s--")):
            ax.plot([p["offered_rps"] for p in kept], [p[key][q] * 1e3 for p in kept], style,
                    label=f"{name} {q.upper()}")
        for p in lost:
            ax.axvline(p["offered_rps"], color="tab:red", alpha=0.3)
        if lost:
            ax.axvspan(min(p["offered_rps"] for p in lost), max(p["offered_rps"] for p in lost),
                       color="tab:red", alpha=0.08,
                       label=f"unsustainable (serves {max(p['sustained_rps'] for p in lost):.2f} req/s)")
        ax.set_xlabel("offered load (requests/s)")
        ax.set_ylabel(f"{name} (ms)")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    first = points[0]
    fig.suptitle(f"{first['model']} on {first['chip']} ({first['strategy']}, {first['scheduler']})")
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120)
        print(f"wrote {stem}.{ext}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
