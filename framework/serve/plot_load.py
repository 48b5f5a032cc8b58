#!/usr/bin/env python3
"""Latency against load from `tessera serve --rates ... --format json` (tessera-serve-load-2, or
-1 from before the approximation keys), for one or more configurations (each its own load sweep): TTFT and TPOT (P50 and P99) against the
offered rate, the loads a configuration did not sustain marked at the rate it served instead; and
the throughput-latency frontier: every sustained point's output tokens/s against its P99 TPOT, the
points no other beats on both (more tokens/s at no higher P99 TPOT) joined. Writes OUT_STEM.png
and OUT_STEM.svg.

usage: plot_load.py LOAD.json[=LABEL] [LOAD.json[=LABEL] ...] OUT_STEM
       (matplotlib; Debian: python3-matplotlib)"""
import json
import sys


def read_load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"error: {path}: {e}")
    if not isinstance(doc, dict) or doc.get("format") not in ("tessera-serve-load-1",
                                                              "tessera-serve-load-2"):
        sys.exit(f"error: {path}: not the output of tessera serve --rates ... --format json")
    return doc["points"]


def default_label(points):
    first = points[0]
    return f"{first['model']} on {first['chip']} ({first['strategy']}, {first['scheduler']})"


def frontier(points):
    """(tokens/s, P99 TPOT) of the points no other beats on both, by rising throughput."""
    pairs = sorted((p["tokens_per_s"], p["tpot_s"]["p99"]) for p in points)
    best = []
    for tokens, tpot in reversed(pairs):  # from the highest throughput down
        if not best or tpot < best[-1][1]:
            best.append((tokens, tpot))
    return list(reversed(best))


def draw_latency(ax, runs, key, name):
    for label, points in runs:
        kept = [p for p in points if p["sustainable"]]
        for q, style in (("p50", "o-"), ("p99", "s--")):
            ax.plot([p["offered_rps"] for p in kept], [p[key][q] * 1e3 for p in kept], style,
                    label=f"{label} {name} {q.upper()}" if len(runs) > 1 else f"{name} {q.upper()}")
        lost = [p for p in points if not p["sustainable"]]
        if lost:
            ax.axvspan(min(p["offered_rps"] for p in lost), max(p["offered_rps"] for p in lost),
                       color="tab:red", alpha=0.08,
                       label=f"unsustainable (serves {max(p['sustained_rps'] for p in lost):.2f} req/s)")
    ax.set_xlabel("offered load (requests/s)")
    ax.set_ylabel(f"{name} (ms)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def draw_frontier(ax, runs):
    kept_all = []
    for label, points in runs:
        kept = [p for p in points if p["sustainable"]]
        kept_all += kept
        ax.plot([p["tokens_per_s"] for p in kept], [p["tpot_s"]["p99"] * 1e3 for p in kept], "o",
                label=label if len(runs) > 1 else "sustained loads")
        for p in kept:
            ax.annotate(f"{p['offered_rps']:.2f}", (p["tokens_per_s"], p["tpot_s"]["p99"] * 1e3),
                        fontsize=6, xytext=(3, 3), textcoords="offset points")
    if kept_all:
        edge = frontier(kept_all)
        ax.plot([t for t, _ in edge], [s * 1e3 for _, s in edge], "k-", lw=1, label="frontier")
    ax.set_xlabel("output tokens/s (labels: offered req/s)")
    ax.set_ylabel("TPOT P99 (ms)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def figure(rows, columns, width, height):
    """A matplotlib figure drawn off screen (Agg), and its axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(rows, columns, figsize=(width, height))


def save(fig, stem):
    """STEM.png and STEM.svg, each named on standard error as it is written."""
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{stem}.{ext}", dpi=120)
        print(f"wrote {stem}.{ext}", file=sys.stderr)


def main(args):
    *inputs, stem = args
    runs = []
    for spec in inputs:
        path, _, label = spec.partition("=")
        points = read_load(path)
        runs.append((label or default_label(points), points))
    fig, axes = figure(1, 3, 15, 4)
    draw_latency(axes[0], runs, "ttft_s", "TTFT")
    draw_latency(axes[1], runs, "tpot_s", "TPOT")
    draw_frontier(axes[2], runs)
    if len(runs) == 1:
        fig.suptitle(runs[0][0])
    save(fig, stem)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1:])
