#!/usr/bin/env python3
"""Plots of a `tessera sweep` run directory; `tessera plot RUN_DIR` runs this script.

    plot_sweep.py RUN_DIR [--out DIR] [--metric auto|planned|simulated]
                          [--formats png,svg] [--only NAME,...] [--x AXIS]

Reads RUN_DIR/results.csv (one row per point x design) and the sweep's metadata (name, axes,
plots) from RUN_DIR/results.json, and draws every plot the sweep lists in `sweep.plots` (or the
plots named by --only) as DIR/NAME.png and DIR/NAME.svg. DIR defaults to RUN_DIR/plots.

Plots are derived data: every run regenerates them and overwrites files of the same name in DIR
(each file is written to a temporary file beside it and renamed, so a reader never sees half a
file). Other files in DIR are left alone.

--metric: `simulated` plots the sim_* columns, `planned` the planner's estimates; `auto` (the
default) uses the simulated columns when any successful row has a sim_ms value, else the planned
ones.

Plots (the figure of the Elk paper each reproduces, and the sweep axes it needs):
  breakdown           Fig. 18a  stacked time per token per design, per value of the first axis
  latency_vs_hbm      Fig. 19-20 latency vs HBM bandwidth          memory.bandwidth_bytes_per_s
  utilisation_vs_hbm  Fig. 21   HBM and interconnect utilisation  memory.bandwidth_bytes_per_s
  noc_hbm_heatmap     Fig. 22   latency over HBM x interconnect   memory.bandwidth_bytes_per_s,
                                bandwidth, one map per design       interconnect_scale
  latency_vs_cores    Fig. 23   latency vs core count             cores
  flops_vs_bandwidth  Fig. 24   achieved FLOP/s vs HBM bandwidth  memory.bandwidth_bytes_per_s,
                                per FLOP/s scale (Elk-Full)         flops_scale
  energy              -         energy per token vs the first     any numeric axis
                                numeric axis, or --x AXIS
                                (docs/energy.md)
  tokens_per_joule    -         tokens per joule vs it: a decode  any numeric axis
                                step makes batch tokens, a prefill
                                or DiT step batch x seq
Sweep axes a plot does not draw on its own axes split it into panels (one per value, or per
combination of values); axes zipped with a drawn axis vary with it and label its ticks instead.
Panels of the same model share their y scale (heat maps: their colour scale); a failed point
leaves a gap marked `failed`. --formats also accepts pdf.

Output: one line `wrote PATH` on stdout per file. Failed rows (status != ok) are skipped and
counted in a `note:` on stderr. Errors (a wrong run directory, plot name, option) are one line
`error: ...` on stderr and exit 1, which `tessera plot` reports as an input error; a bug in
this script exits 5 (TESSERA_PLOT_TRACEBACK=1 shows its traceback).

Needs only the Python standard library and matplotlib (Agg backend).
"""

import argparse
import csv
import json
import math
import os
import sys
import tempfile

try:
    import matplotlib
except ImportError:  # pragma: no cover - depends on the host
    sys.stderr.write("error: plot_sweep.py needs matplotlib (Debian/Ubuntu: apt install "
                     "python3-matplotlib; pip: pip install matplotlib) for %s\n" % sys.executable)
    sys.exit(1)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

HBM = "memory.bandwidth_bytes_per_s"
NOC_SCALE = "interconnect_scale"
FLOPS_SCALE = "flops_scale"
CORES = "cores"
MODEL = "model"
TOPOLOGY = "topology.kind"
PARALLEL = "parallel"

# design name -> (label, colour, marker, line style), in drawing order.
DESIGNS = {
    "basic": ("Basic", "#7f7f7f", "o", "-"),
    "static": ("Static", "#1f77b4", "s", "-"),
    "elk-dyn": ("Elk-Dyn", "#ff7f0e", "^", "-"),
    "elk-full": ("Elk-Full", "#d62728", "D", "-"),
    "ideal": ("Ideal", "#2ca02c", "*", "--"),
}
EXTRA_COLOURS = ["#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]
EXTRA_MARKERS = ["v", "P", "X", "h", "<"]

# breakdown parts: (column without the sim_ prefix, legend label, colour)
PARTS = [
    ("exec_only_ms", "execution only", "#4878d0"),
    ("overlap_ms", "preload overlapped with execution", "#6acc64"),
    ("stall_ms", "preload only (stall)", "#ee854a"),
    ("congest_ms", "interconnect congestion", "#d65f5f"),
]

# columns that describe the workload; constant ones go under the title.
CONTEXT_COLUMNS = ["model", "chip", "target", "mode", "batch", "seq", "dtype"]

AXIS_LABELS = {
    HBM: "HBM bandwidth (TB/s)",
    NOC_SCALE: "interconnect bandwidth (x baseline)",
    FLOPS_SCALE: "FLOP/s (x baseline)",
    CORES: "cores",
    "batch": "batch",
    "seq": "sequence length",
}
SHORT_NAMES = {
    HBM: "HBM",
    NOC_SCALE: "interconnect",
    FLOPS_SCALE: "FLOP/s",
    TOPOLOGY: "topology",
}
LONG_NAMES = {
    HBM: "HBM bandwidth",
    NOC_SCALE: "interconnect bandwidth",
    FLOPS_SCALE: "FLOP/s",
}
SELF_DESCRIBING = {CORES, "batch", "seq"}
PANEL_PREFIX = {HBM: "HBM", NOC_SCALE: "interconnect", FLOPS_SCALE: "FLOP/s"}

MAX_BREAKDOWN_GROUPS = 8
MAX_FORCED_TICKS = 10


class PlotError(Exception):
    """An error the user can fix; main() prints it as one `error:` line and exits 1."""


class UsageError(Exception):
    """A malformed command line; exit 1 as well (`tessera plot` passes options through)."""


def note(message):
    sys.stderr.write("note: %s\n" % message)


# --------------------------------------------------------------------------------------------
# values and their formatting

def value_key(v):
    """A comparable key for an axis value from results.json (JSON) or results.csv (text)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip()
    if s == "":
        return None
    try:
        f = float(s)
        if math.isfinite(f):
            return f
    except ValueError:
        pass
    return s


def to_float(s):
    if s is None:
        return None
    s = s.strip()
    if s == "":
        return None
    try:
        f = float(s)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def fmt_g(v, digits=4):
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return "%.*g" % (digits, v)


def fmt_value(path, v):
    """An axis value with its unit, for tick labels and panel titles."""
    if v is None:
        return "?"
    if not isinstance(v, float):
        s = str(v)
        if path == MODEL and "/" in s:
            s = os.path.splitext(os.path.basename(s))[0]
        return s
    leaf = path.rsplit(".", 1)[-1]
    if leaf.endswith("bytes_per_s"):
        for scale, unit in ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s")):
            if abs(v) >= scale:
                return "%s %s" % (fmt_g(v / scale), unit)
        return "%s B/s" % fmt_g(v)
    if leaf.endswith("_scale"):
        return "x%s" % fmt_g(v)
    if path == CORES or leaf.startswith("cores"):
        return "%s cores" % fmt_g(v)
    if path in ("batch", "seq"):
        return "%s %s" % (path, fmt_g(v))
    if leaf.endswith("bytes") or leaf.endswith("bytes_per_core"):
        for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
            if abs(v) >= scale:
                return "%s %s" % (fmt_g(v / scale), unit)
        return "%s B" % fmt_g(v)
    if leaf.endswith("_s"):
        for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
            if abs(v) >= scale:
                return "%s %s" % (fmt_g(v / scale), unit)
        return "%s s" % fmt_g(v)
    return fmt_g(v)


def fmt_panel_part(path, v):
    if path in SELF_DESCRIBING:
        return fmt_value(path, v)
    if path in PANEL_PREFIX:
        return "%s %s" % (PANEL_PREFIX[path], fmt_value(path, v))
    return "%s: %s" % (SHORT_NAMES.get(path, path), fmt_value(path, v))


def axis_label(path, values=()):
    if path in AXIS_LABELS:
        return AXIS_LABELS[path]
    leaf = path.rsplit(".", 1)[-1]
    if leaf.endswith("bytes_per_s"):
        unit, _ = rate_unit(values)
        return "%s (%s)" % (path, unit)
    return path


def rate_unit(values):
    finite = [abs(v) for v in values if isinstance(v, float)]
    top = max(finite) if finite else 1e12
    for scale, unit in ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s")):
        if top >= scale:
            return unit, scale
    return "B/s", 1.0


def axis_scale(path, values=()):
    """The factor that turns an axis value into the unit of axis_label()."""
    if path == HBM:
        return 1e-12
    if path.rsplit(".", 1)[-1].endswith("bytes_per_s"):
        return 1.0 / rate_unit(values)[1]
    return 1.0


def fmt_cell(v):
    return ("%.2f" % v) if abs(v) >= 0.1 else ("%.2g" % v)


# --------------------------------------------------------------------------------------------
# the run directory

class Axis:
    def __init__(self, path, values, zip_group):
        self.path = path
        self.values = values
        self.zip = zip_group


class Sweep:
    """A run directory: metadata from results.json, rows from results.csv."""

    def __init__(self, run_dir):
        self.run_dir = run_dir
        csv_path = os.path.join(run_dir, "results.csv")
        json_path = os.path.join(run_dir, "results.json")
        for path in (csv_path, json_path):
            if not os.path.isfile(path):
                raise PlotError("%s: not found; is %s a run directory of tessera sweep?"
                                % (path, run_dir))
        self._read_json(json_path)
        self._read_csv(csv_path)

    def _read_json(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except json.JSONDecodeError as e:
            raise PlotError("%s:%d: not valid JSON: %s" % (path, e.lineno, e.msg))
        except (OSError, UnicodeDecodeError) as e:
            raise PlotError("%s: cannot read: %s" % (path, getattr(e, "strerror", None) or e))
        if not isinstance(doc, dict):
            raise PlotError("%s: expected a JSON object with keys sweep, axes, columns, rows"
                            % path)
        if doc.get("kind") == "serve":
            raise PlotError("%s: a serve sweep's points are served loads, which these plots do "
                            "not draw; read results.csv (framework/serve/plot_load.py draws one "
                            "configuration's load sweep from tessera serve --rates)" % path)
        sweep = doc.get("sweep") or {}
        if not isinstance(sweep, dict):
            raise PlotError("%s: 'sweep' must be an object" % path)
        self.name = str(sweep.get("name") or os.path.basename(os.path.normpath(self.run_dir)))
        self.description = str(sweep.get("description") or "")
        plots = sweep.get("plots") or []
        if isinstance(plots, str):
            plots = [plots]
        if not isinstance(plots, list) or not all(isinstance(p, str) for p in plots):
            raise PlotError("%s: 'sweep.plots' must be a list of plot names" % path)
        self.plots = plots
        axes = doc.get("axes") or []
        if not isinstance(axes, list):
            raise PlotError("%s: 'axes' must be a list" % path)
        self.axes = []
        for i, a in enumerate(axes):
            if not isinstance(a, dict) or not isinstance(a.get("path"), str) or not a["path"]:
                raise PlotError("%s: axes[%d] has no 'path'" % (path, i))
            values = a.get("values") or []
            if not isinstance(values, list):
                values = [values]
            self.axes.append(Axis(a["path"], [value_key(v) for v in values],
                                  str(a.get("zip") or "")))
        self.version = str(doc.get("tessera_version") or "")

    def _read_csv(self, path):
        try:
            with open(path, encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                header = reader.fieldnames or []
                rows = list(reader)
        except (OSError, UnicodeDecodeError) as e:
            raise PlotError("%s: cannot read: %s" % (path, getattr(e, "strerror", None) or e))
        except csv.Error as e:
            raise PlotError("%s: malformed CSV: %s" % (path, e))
        if not header:
            raise PlotError("%s: empty; expected a header line and one row per point x design"
                            % path)
        for required in ("status", "design"):
            if required not in header:
                raise PlotError("%s: no '%s' column; is it a results.csv of tessera sweep?"
                                % (path, required))
        for axis in self.axes:
            if axis.path not in header:
                raise PlotError("%s: no column for the axis '%s' of results.json"
                                % (path, axis.path))
        self.columns = header
        self.ok_rows = []
        self.failed_rows = []
        failed_points = set()
        for r in rows:
            if (r.get("status") or "").strip() == "ok":
                self.ok_rows.append(r)
            else:
                self.failed_rows.append(r)
                failed_points.add((r.get("point") or "").strip() or ("row", len(self.failed_rows)))
        self.failed = len(failed_points)
        if not self.ok_rows:
            raise PlotError("%s: no point succeeded; see the reason column of results.csv"
                            % self.run_dir)
        # typed axis values, cached per row
        for r in rows:
            r["__axes"] = {a.path: value_key(r.get(a.path)) for a in self.axes}

    # ---- queries

    def axis(self, path):
        for a in self.axes:
            if a.path == path:
                return a
        return None

    def axis_paths(self):
        return [a.path for a in self.axes]

    def all_rows(self):
        return self.ok_rows + self.failed_rows

    def zip_partners(self, path):
        a = self.axis(path)
        if a is None or not a.zip:
            return []
        return [b.path for b in self.axes if b.zip == a.zip and b.path != path]

    def ordered_values(self, path, rows=None):
        """The distinct values of an axis in rows, in the sweep's order (numbers ascending when
        the sweep listed them so)."""
        rows = self.ok_rows if rows is None else rows
        seen = []
        for r in rows:
            v = r["__axes"][path]
            if v not in seen:
                seen.append(v)
        declared = self.axis(path).values
        def rank(v):
            if v in declared:
                return (0, declared.index(v), "")
            return (1, v if isinstance(v, float) else 0.0, str(v))
        return sorted(seen, key=rank)

    def numeric_sorted(self, path, rows=None):
        vals = self.ordered_values(path, rows)
        if all(isinstance(v, float) for v in vals):
            return sorted(vals)
        return vals

    def designs(self):
        present = []
        for r in self.ok_rows:
            d = (r.get("design") or "").strip()
            if d and d not in present:
                present.append(d)
        known = [d for d in DESIGNS if d in present]
        return known + [d for d in present if d not in DESIGNS]

    def context(self, exclude=()):
        """The workload columns that are constant across the successful rows."""
        parts = []
        for col in CONTEXT_COLUMNS:
            if col not in self.columns or col in exclude or self.axis(col) is not None:
                continue
            vals = {(r.get(col) or "").strip() for r in self.ok_rows}
            if len(vals) != 1:
                continue
            v = vals.pop()
            if not v:
                continue
            if col in ("batch", "seq"):
                v = "%s %s" % (col, v)
            elif col == MODEL and "/" in v:
                v = os.path.splitext(os.path.basename(v))[0]
            parts.append(v)
        return " · ".join(parts)


def design_style(design, extras):
    if design in DESIGNS:
        return DESIGNS[design]
    i = extras.index(design) if design in extras else len(extras)
    return (design, EXTRA_COLOURS[i % len(EXTRA_COLOURS)], EXTRA_MARKERS[i % len(EXTRA_MARKERS)],
            "-")


# --------------------------------------------------------------------------------------------
# metrics

class Metric:
    def __init__(self, simulated):
        self.simulated = simulated
        p = "sim_" if simulated else ""
        self.name = "simulated" if simulated else "planned"
        self.latency = "sim_ms" if simulated else "planned_ms"
        self.hbm_util = p + "hbm_util"
        self.noc_util = p + "noc_util"
        self.tflops = p + "tflops"
        self.parts = [p + col for col, _, _ in PARTS]
        self.energy = "sim_mj" if simulated else "planned_mj"
        self.tokens_per_s = p + "tokens_per_s"


def choose_metric(sweep, requested):
    has_sim = any(to_float(r.get("sim_ms")) is not None for r in sweep.ok_rows)
    if requested == "simulated" and not has_sim:
        raise PlotError("%s: --metric simulated, but no successful row has a sim_ms value; "
                        "the sweep was not simulated (use --metric planned)" % sweep.run_dir)
    if requested == "planned":
        return Metric(False)
    return Metric(requested == "simulated" or has_sim)


def mean(values):
    return sum(values) / len(values) if values else None


def pick(rows, column):
    """The mean of a column over rows (normally one row), None when no row has a value."""
    return mean([v for v in (to_float(r.get(column)) for r in rows) if v is not None])


# --------------------------------------------------------------------------------------------
# figure helpers

class Context:
    def __init__(self, sweep, metric, x_axis=None):
        self.sweep = sweep
        self.metric = metric
        self.x_axis = x_axis  # --x: the energy plots' axis
        self.designs = sweep.designs()
        self.extras = [d for d in self.designs if d not in DESIGNS]

    def style(self, design):
        return design_style(design, self.extras)

    def title(self, fig, what, exclude=()):
        ctx = self.sweep.context(exclude)
        text = "%s: %s (%s)" % (self.sweep.name, what, self.metric.name)
        if ctx:
            text += "\n" + ctx
        fig.suptitle(text, fontsize=11)

    def panels(self, drawn):
        """Split the rows into panels by the axes not in `drawn` (nor zipped with them).
        Returns [(title, ok rows, failed rows)] in the sweep's value order, and the splitting
        axes."""
        skip = set(drawn)
        for path in drawn:
            skip.update(self.sweep.zip_partners(path))
        split = [a.path for a in self.sweep.axes if a.path not in skip]
        if not split:
            return [("", list(self.sweep.ok_rows), list(self.sweep.failed_rows))], split
        orders = {p: self.sweep.ordered_values(p, self.sweep.all_rows()) for p in split}
        groups, failed = {}, {}
        for r in self.sweep.ok_rows:
            groups.setdefault(tuple(r["__axes"][p] for p in split), []).append(r)
        for r in self.sweep.failed_rows:
            failed.setdefault(tuple(r["__axes"][p] for p in split), []).append(r)
        keys = sorted(set(groups) | set(failed),
                      key=lambda k: [orders[p].index(v) for p, v in zip(split, k)])
        out = []
        for k in keys:
            title = ", ".join(fmt_panel_part(p, v) for p, v in zip(split, k))
            out.append((title, groups.get(k, []), failed.get(k, [])))
        return out, split


def grid(n, ncols_max=3, panel_w=4.6, panel_h=3.4):
    ncols = min(n, ncols_max)
    nrows = int(math.ceil(n / float(ncols)))
    fig, axs = plt.subplots(nrows, ncols, figsize=(panel_w * ncols, panel_h * nrows + 0.9),
                            squeeze=False, constrained_layout=True)
    flat = [ax for row in axs for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def x_ticks(ax, sweep, path, rows, scale):
    """Tick the x axis at the axis values (with the values of zipped axes under them); log2
    when the values span a factor of 8 or more."""
    vals = [v for v in sweep.numeric_sorted(path, sweep.all_rows()) if isinstance(v, float)]
    if not vals:
        return
    xs = [v * scale for v in vals]
    log = min(xs) > 0 and max(xs) / min(xs) >= 8
    if log:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_minor_locator(ticker.NullLocator())
    if len(xs) > 1:  # the same range in every panel, whatever failed
        if log:
            pad = (max(xs) / min(xs)) ** 0.05
            ax.set_xlim(min(xs) / pad, max(xs) * pad)
        else:
            pad = (max(xs) - min(xs)) * 0.05
            ax.set_xlim(min(xs) - pad, max(xs) + pad)
    if len(xs) > MAX_FORCED_TICKS:
        ax.xaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        return
    partners = sweep.zip_partners(path)
    labels = []
    for v in vals:
        label = fmt_g(v * scale)
        for p in partners:
            pv = next((r["__axes"][p] for r in sweep.all_rows() if r["__axes"][path] == v),
                      None)
            label += "\n" + fmt_value(p, pv)
        labels.append(label)
    ax.set_xticks(xs)
    ax.set_xticklabels(labels)


def mark_failed(ax, failed_rows, x_path, scale):
    """A grey `failed` at the foot of the plot for each x value whose point failed."""
    xs = sorted({r["__axes"][x_path] for r in failed_rows
                 if isinstance(r["__axes"][x_path], float)})
    for x in xs:
        ax.annotate("failed", (x * scale, 0), xycoords=("data", "axes fraction"),
                    xytext=(0, 3), textcoords="offset points", ha="center", va="bottom",
                    rotation=90, fontsize=7, color="#888888")


def xlabel(sweep, path, rows):
    label = axis_label(path, sweep.ordered_values(path, rows))
    partners = sweep.zip_partners(path)
    if partners:
        label += "\n(with %s, zipped)" % ", ".join(LONG_NAMES.get(p, p) for p in partners)
    return label


def series(rows, x_path, y_column, scale_x=1.0, scale_y=1.0, where=None, failed=()):
    """(x, y) pairs, x ascending, of rows grouped by their x axis value (mean of duplicates);
    y is NaN, which breaks the line, where the point failed."""
    by_x = {}
    for r in rows:
        if where is not None and not where(r):
            continue
        x = r["__axes"][x_path]
        y = to_float(r.get(y_column))
        if not isinstance(x, float) or y is None:
            continue
        by_x.setdefault(x, []).append(y)
    if not by_x:
        return []
    out = {x: mean(ys) * scale_y for x, ys in by_x.items()}
    for r in failed:
        x = r["__axes"][x_path]
        if isinstance(x, float) and x not in out and (where is None or where(r)):
            out[x] = float("nan")
    return [(x * scale_x, y) for x, y in sorted(out.items())]


def design_is(design):
    return lambda r: (r.get("design") or "").strip() == design


def no_data(ax):
    ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center",
            color="#888888")


def panel_model(rows, failed):
    for r in list(rows) + list(failed):
        return (r.get("model") or "").strip()
    return ""


def common_ylim(axs, panels, tops=None):
    """y from 0 to the same top in every panel of the same model (different models may differ
    by far, and a shared scale would flatten the smaller)."""
    groups = {}
    for i, (ax, panel) in enumerate(zip(axs, panels)):
        if tops is not None:
            top = tops[i]
        else:
            top = ax.dataLim.y1 if ax.has_data() and math.isfinite(ax.dataLim.y1) else 0.0
        key = panel_model(panel[1], panel[2])
        groups[key] = max(groups.get(key, 0.0), top)
    for ax, panel in zip(axs, panels):
        top = groups[panel_model(panel[1], panel[2])]
        ax.set_ylim(0, top * 1.06 if top > 0 else 1.0)


def design_lines(ctx, ax, rows, x_path, y_column, scale_x, scale_y=1.0, failed=()):
    drawn = False
    for d in ctx.designs:
        pts = series(rows, x_path, y_column, scale_x, scale_y, where=design_is(d),
                     failed=failed)
        if not pts:
            continue
        label, colour, marker, ls = ctx.style(d)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker, linestyle=ls,
                color=colour, label=label, markersize=6 if marker != "*" else 9, linewidth=1.6)
        drawn = True
    if not drawn:
        no_data(ax)
    ax.grid(True, alpha=0.3)


def design_legend(ctx, fig, designs_drawn):
    handles = []
    for d in ctx.designs:
        if d not in designs_drawn:
            continue
        label, colour, marker, ls = ctx.style(d)
        handles.append(Line2D([], [], color=colour, marker=marker, linestyle=ls, label=label,
                              markersize=6 if marker != "*" else 9))
    if handles:
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5),
                   title="design", frameon=False)


def designs_with(ctx, column):
    out = set()
    for r in ctx.sweep.ok_rows:
        if to_float(r.get(column)) is not None:
            out.add((r.get("design") or "").strip())
    return out


# --------------------------------------------------------------------------------------------
# the plots

def plot_breakdown(ctx):
    sweep, m = ctx.sweep, ctx.metric
    first = sweep.axes[0].path if sweep.axes else None
    if first is not None:
        panels, _ = ctx.panels([first])
    else:
        panels = [("", list(sweep.ok_rows), list(sweep.failed_rows))]
    designs = [d for d in ctx.designs if any(pick(
        [r for r in sweep.ok_rows if design_is(d)(r)], c) is not None for c in m.parts)]
    if first is not None:
        groups = sweep.ordered_values(first, sweep.all_rows())
        if len(groups) > MAX_BREAKDOWN_GROUPS:
            n = len(groups)
            idx = sorted({int(round(i * (n - 1) / float(MAX_BREAKDOWN_GROUPS - 1)))
                          for i in range(MAX_BREAKDOWN_GROUPS)})
            note("breakdown: %d values of %s; drawing %d evenly chosen"
                 % (n, first, len(idx)))
            groups = [groups[i] for i in idx]
    else:
        groups = [None]
    nd = max(len(designs), 1)
    ng = len(groups)
    width = 0.8 / nd
    panel_w = max(4.6, 0.9 + ng * (0.28 * nd + 0.35))
    fig, axs = grid(len(panels), ncols_max=1 if panel_w > 8 else 2, panel_w=panel_w,
                    panel_h=3.8 if first else 3.4)
    partners = sweep.zip_partners(first) if first else []
    tops = []
    for ax, (title, rows, _) in zip(axs, panels):
        top = 0.0
        bar_x, bar_labels = [], []
        any_bar = False
        for gi, g in enumerate(groups):
            grows = rows if first is None else [r for r in rows if r["__axes"][first] == g]
            for di, d in enumerate(designs):
                x = gi + (di - (nd - 1) / 2.0) * width
                bar_x.append(x)
                bar_labels.append(ctx.style(d)[0])
                drows = [r for r in grows if design_is(d)(r)]
                vals = [pick(drows, c) for c in m.parts]
                if all(v is None for v in vals):
                    ax.text(x, 0, " failed" if not drows else " n/a", rotation=90,
                            ha="center", va="bottom", fontsize=7, color="#888888")
                    continue
                bottom = 0.0
                for (col, label, colour), v in zip(PARTS, vals):
                    v = v or 0.0
                    ax.bar(x, v, width * 0.92, bottom=bottom, color=colour,
                           edgecolor="white", linewidth=0.4)
                    bottom += v
                top = max(top, bottom)
                any_bar = True
        tops.append(top)
        if not any_bar:
            no_data(ax)
        ax.set_xticks(bar_x)
        if first is None:
            ax.set_xticklabels(bar_labels)
        else:
            ax.set_xticklabels(bar_labels, rotation=90, fontsize=7)
            sec = ax.secondary_xaxis("bottom")
            sec.set_xticks(list(range(ng)))
            labels = []
            for g in groups:
                label = fmt_value(first, g)
                for p in partners:
                    pv = next((r["__axes"][p] for r in sweep.all_rows()
                               if r["__axes"][first] == g), None)
                    label += "\n" + fmt_value(p, pv)
                labels.append(label)
            sec.set_xticklabels(labels)
            sec.tick_params(axis="x", length=0, pad=44)
            for gi in range(1, ng):
                ax.axvline(gi - 0.5, color="#cccccc", linewidth=0.6)
            name = SHORT_NAMES.get(first, AXIS_LABELS.get(first, first))
            sec.set_xlabel(name if first != HBM else "HBM bandwidth")
        ax.set_xlim(-0.5, ng - 0.5)
        ax.set_ylabel("time per token (ms)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        if title:
            ax.set_title(title, fontsize=10)
    common_ylim(axs, panels, tops)
    handles = [Patch(facecolor=colour, label=label) for _, label, colour in PARTS]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
               title="time spent in")
    ctx.title(fig, "time per token by design")
    return fig


def plot_latency_vs_hbm(ctx):
    return _latency_lines(ctx, HBM, "latency per token vs HBM bandwidth")


def plot_latency_vs_cores(ctx):
    return _latency_lines(ctx, CORES, "latency per token vs cores")


def _latency_lines(ctx, x_path, what):
    sweep, m = ctx.sweep, ctx.metric
    panels, _ = ctx.panels([x_path])
    fig, axs = grid(len(panels))
    scale = axis_scale(x_path, sweep.ordered_values(x_path))
    for ax, (title, rows, failed) in zip(axs, panels):
        design_lines(ctx, ax, rows, x_path, m.latency, scale, failed=failed)
        mark_failed(ax, failed, x_path, scale)
        x_ticks(ax, sweep, x_path, rows, scale)
        ax.set_xlabel(xlabel(sweep, x_path, rows))
        ax.set_ylabel("latency (ms/token)")
        if title:
            ax.set_title(title, fontsize=10)
    common_ylim(axs, panels)
    design_legend(ctx, fig, designs_with(ctx, m.latency))
    ctx.title(fig, what)
    return fig


def is_numeric(sweep, a):
    values = list(a.values) + [r["__axes"][a.path] for r in sweep.ok_rows]
    return bool(values) and all(v is None or isinstance(v, float) for v in values)


def numeric_axis(sweep, wanted=None):
    """What the energy plots draw against: `wanted` (--x), else the first numeric axis."""
    if wanted:
        a = sweep.axis(wanted)
        if a is None:
            raise PlotError("--x %s: not an axis of this sweep; it has %s"
                            % (wanted, ", ".join(sweep.axis_paths()) or "no axes"))
        if not is_numeric(sweep, a):
            raise PlotError("--x %s: the energy plots need a numeric axis" % wanted)
        return wanted
    for a in sweep.axes:
        if is_numeric(sweep, a):
            return a.path
    raise PlotError("the energy plots draw against a numeric axis; this sweep has %s"
                    % (", ".join(sweep.axis_paths()) or "no axes"))


def tokens_per_step(row):
    """Tokens one step makes: a decode step one per sequence, a prefill or DiT step its
    sequence's tokens (the entry's default sequence, not in the results: counted as one)."""
    batch = to_float(row.get("batch")) or 1.0
    if (row.get("mode") or "").strip() == "decode":
        return batch
    return batch * (to_float(row.get("seq")) or 1.0)


def _energy_lines(ctx, ylabel, what, column, per_row=None):
    sweep, m = ctx.sweep, ctx.metric
    x_path = numeric_axis(sweep, ctx.x_axis)
    if not designs_with(ctx, m.energy):
        raise PlotError("%s: no successful row has a %s value; the chip states no energy rates "
                        "(docs/energy.md)" % (sweep.run_dir, m.energy))
    panels, _ = ctx.panels([x_path])
    fig, axs = grid(len(panels))
    scale = axis_scale(x_path, sweep.ordered_values(x_path))
    for ax, (title, rows, failed) in zip(axs, panels):
        if per_row is not None:  # a column derived per row
            rows = [dict(r, __derived=per_row(r)) for r in rows]
        design_lines(ctx, ax, rows, x_path, column, scale, failed=failed)
        mark_failed(ax, failed, x_path, scale)
        x_ticks(ax, sweep, x_path, rows, scale)
        ax.set_xlabel(xlabel(sweep, x_path, rows))
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title, fontsize=10)
    common_ylim(axs, panels)
    design_legend(ctx, fig, designs_with(ctx, m.energy))
    ctx.title(fig, what % SHORT_NAMES.get(x_path, x_path))
    return fig


def plot_energy(ctx):
    return _energy_lines(ctx, "energy (mJ/token)", "energy per token vs %s", ctx.metric.energy)


def plot_tokens_per_joule(ctx):
    def tokens_per_joule(row):  # a CSV cell, as the other columns are
        mj = to_float(row.get(ctx.metric.energy))
        return repr(tokens_per_step(row) / (mj / 1e3)) if mj else ""
    return _energy_lines(ctx, "tokens per joule", "tokens per joule vs %s", "__derived",
                         per_row=tokens_per_joule)


def strategy_label(g, rows):
    """A strategy axis value as written; `auto` with the strategy the search chose under it."""
    label = str(g)
    chosen = {(r.get("strategy") or "").strip() for r in rows if r["__axes"][PARALLEL] == g}
    chosen.discard("")
    if g == "auto" and len(chosen) == 1:
        label += "\n(" + chosen.pop() + ")"
    return label


def plot_strategies(ctx):
    """Bars per parallel strategy and design: the machine's time per step, and its tokens/s."""
    sweep, m = ctx.sweep, ctx.metric
    panels, _ = ctx.panels([PARALLEL])
    groups = sweep.ordered_values(PARALLEL, sweep.all_rows())
    designs = [d for d in ctx.designs if d in designs_with(ctx, m.latency)]
    nd = max(len(designs), 1)
    ng = len(groups)
    width = 0.8 / nd
    panel_w = max(4.6, 0.9 + ng * (0.22 * nd + 0.4))
    fig, axs = plt.subplots(len(panels), 2, figsize=(2 * panel_w, 3.8 * len(panels) + 0.9),
                            squeeze=False, constrained_layout=True)
    for (ax_ms, ax_tps), (title, rows, failed) in zip(axs, panels):
        for ax, column, ylabel in ((ax_ms, m.latency, "time per step (ms)"),
                                   (ax_tps, m.tokens_per_s, "tokens/s (whole machine)")):
            any_bar = False
            for gi, g in enumerate(groups):
                grows = [r for r in rows if r["__axes"][PARALLEL] == g]
                for di, d in enumerate(designs):
                    x = gi + (di - (nd - 1) / 2.0) * width
                    v = pick([r for r in grows if design_is(d)(r)], column)
                    if v is None:
                        ax.text(x, 0, " failed" if not grows else " n/a", rotation=90,
                                ha="center", va="bottom", fontsize=7, color="#888888")
                        continue
                    ax.bar(x, v, width * 0.92, color=ctx.style(d)[1], edgecolor="white",
                           linewidth=0.4)
                    any_bar = True
            if not any_bar:
                no_data(ax)
            ax.set_xticks(list(range(ng)))
            ax.set_xticklabels([strategy_label(g, rows) for g in groups], rotation=30,
                               ha="right", fontsize=8)
            ax.set_xlim(-0.5, ng - 0.5)
            ax.set_ylabel(ylabel)
            ax.grid(True, axis="y", alpha=0.3)
            ax.set_axisbelow(True)
            if title:
                ax.set_title(title, fontsize=10)
    handles = [Patch(facecolor=ctx.style(d)[1], label=ctx.style(d)[0]) for d in designs]
    if handles:
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5),
                   title="design", frameon=False)
    ctx.title(fig, "step time and throughput by parallel strategy")
    return fig


def plot_utilisation_vs_hbm(ctx):
    sweep, m = ctx.sweep, ctx.metric
    panels, _ = ctx.panels([HBM])
    n = len(panels)
    ncols = min(n, 4)
    blocks = int(math.ceil(n / float(ncols)))  # each block: a row of HBM over a row of NoC
    fig, axs = plt.subplots(2 * blocks, ncols, figsize=(4.6 * ncols, 3.3 * 2 * blocks + 0.9),
                            squeeze=False, constrained_layout=True)
    scale = axis_scale(HBM)
    rows_spec = [(m.hbm_util, "HBM utilisation (%)"), (m.noc_util, "interconnect utilisation (%)")]
    for i, (title, rows, failed) in enumerate(panels):
        block, ci = divmod(i, ncols)
        for ri, (column, ylabel) in enumerate(rows_spec):
            ax = axs[2 * block + ri][ci]
            design_lines(ctx, ax, rows, HBM, column, scale, 100.0, failed=failed)
            mark_failed(ax, failed, HBM, scale)
            x_ticks(ax, sweep, HBM, rows, scale)
            ax.set_ylim(0, 105)
            ax.set_ylabel(ylabel)
            if ri == 1:
                ax.set_xlabel(xlabel(sweep, HBM, rows))
            if ri == 0 and title:
                ax.set_title(title, fontsize=10)
    for i in range(n, blocks * ncols):
        block, ci = divmod(i, ncols)
        axs[2 * block][ci].set_visible(False)
        axs[2 * block + 1][ci].set_visible(False)
    design_legend(ctx, fig, designs_with(ctx, m.hbm_util) | designs_with(ctx, m.noc_util))
    ctx.title(fig, "utilisation vs HBM bandwidth")
    return fig


def plot_noc_hbm_heatmap(ctx):
    sweep, m = ctx.sweep, ctx.metric
    panels, _ = ctx.panels([HBM, NOC_SCALE])
    designs = [d for d in ctx.designs if d in designs_with(ctx, m.latency)] or ctx.designs
    xs = [v for v in sweep.numeric_sorted(HBM, sweep.all_rows()) if isinstance(v, float)]
    ys = [v for v in sweep.numeric_sorted(NOC_SCALE, sweep.all_rows()) if isinstance(v, float)]
    nx, ny = max(len(xs), 1), max(len(ys), 1)

    def at(rows, xv, yv):
        return [r for r in rows if r["__axes"][HBM] == xv and r["__axes"][NOC_SCALE] == yv]

    # one row of maps per panel: [(title, model, [(design, latency or NaN, cell text)])]
    grids = []
    for title, rows, failed in panels:
        line = []
        for d in designs:
            drows = [r for r in rows if design_is(d)(r)]
            mat, text = [], []
            for yv in ys:
                mat.append([])
                text.append([])
                for xv in xs:
                    v = pick(at(drows, xv, yv), m.latency)
                    mat[-1].append(float("nan") if v is None else v)
                    if v is not None:
                        text[-1].append(fmt_cell(v))
                    else:
                        text[-1].append("failed" if at(failed, xv, yv) else "n/a")
            line.append((d, mat, text))
        grids.append((title, panel_model(rows, failed), line))
    # one colour scale per model: models may differ by far more than the designs do
    norms = {}
    for model in dict.fromkeys(g[1] for g in grids):
        finite = [v for g in grids if g[1] == model for _, mat, _ in g[2] for row in mat
                  for v in row if not math.isnan(v)]
        vmin, vmax = (min(finite), max(finite)) if finite else (0.0, 1.0)
        if vmin == vmax:
            vmin, vmax = vmin * 0.95, vmax * 1.05 + 1e-9
        norms[model] = mcolors.Normalize(vmin=vmin, vmax=vmax)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#e0e0e0")
    ncols, nrows = len(designs), len(panels)
    cell_w = 0.62 if nx <= 6 else 0.45
    panel_w = max(2.8, 1.2 + nx * cell_w)
    panel_h = max(2.4, 1.1 + ny * 0.5)
    fig, axs = plt.subplots(nrows, ncols, figsize=(panel_w * ncols + 1.2, panel_h * nrows + 1.0),
                            squeeze=False, constrained_layout=True)
    fontsize = 8 if nx <= 6 else 6
    images = {}
    for ri, (ptitle, model, line) in enumerate(grids):
        norm = norms[model]
        for ci, (d, mat, text) in enumerate(line):
            ax = axs[ri][ci]
            images[model] = ax.imshow(mat, origin="lower", cmap=cmap, norm=norm, aspect="auto")
            for yi in range(len(ys)):
                for xi in range(len(xs)):
                    v = mat[yi][xi]
                    if math.isnan(v):
                        colour = "#666666"
                    else:
                        r, g, b, _ = cmap(norm(v))
                        colour = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
                    ax.text(xi, yi, text[yi][xi], ha="center", va="center", fontsize=fontsize,
                            color=colour)
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([fmt_g(v * 1e-12) for v in xs])
            ax.set_yticks(range(len(ys)))
            ax.set_yticklabels(["x" + fmt_g(v) for v in ys])
            if ri == nrows - 1:
                ax.set_xlabel(AXIS_LABELS[HBM])
            if ci == 0:
                ax.set_ylabel(AXIS_LABELS[NOC_SCALE])
            title = ctx.style(d)[0]
            if ptitle:
                title = "%s\n%s" % (title, ptitle)
            ax.set_title(title, fontsize=10)
    if len(norms) == 1:
        fig.colorbar(next(iter(images.values())), ax=[a for row in axs for a in row],
                     label="ms/token", shrink=0.9)
    else:  # a colour bar per model, beside its rows
        for model, im in images.items():
            rows_of = [axs[ri][ci] for ri, g in enumerate(grids) if g[1] == model
                       for ci in range(ncols)]
            fig.colorbar(im, ax=rows_of, label="ms/token (%s)" % model, shrink=0.9)
    ctx.title(fig, "latency per token over HBM x interconnect bandwidth")
    return fig


def plot_flops_vs_bandwidth(ctx):
    sweep, m = ctx.sweep, ctx.metric
    with_values = designs_with(ctx, m.tflops)
    candidates = [d for d in ["elk-full", "elk-dyn", "static", "basic", "ideal"]
                  if d in with_values] + [d for d in ctx.designs if d in with_values]
    design = candidates[0] if candidates else "elk-full"
    if design != "elk-full":
        note("flops_vs_bandwidth: no Elk-Full values of %s; drawing %s"
             % (m.tflops, ctx.style(design)[0]))
    label = ctx.style(design)[0]
    panels, _ = ctx.panels([HBM, FLOPS_SCALE])
    fig, axs = grid(len(panels))
    scale = axis_scale(HBM)
    fscales = sweep.numeric_sorted(FLOPS_SCALE, sweep.all_rows())
    cmap = plt.get_cmap("plasma")
    colours = {v: cmap(0.1 + 0.75 * i / max(len(fscales) - 1, 1)) for i, v in enumerate(fscales)}

    def of_scale(fv):
        return lambda r: design_is(design)(r) and r["__axes"][FLOPS_SCALE] == fv

    def line_label(fv):
        text = "FLOP/s x%s" % (fmt_g(fv) if isinstance(fv, float) else fv)
        peaks = {to_float(r.get("peak_flops_per_s")) for r in sweep.ok_rows if of_scale(fv)(r)}
        peaks.discard(None)
        if len(peaks) == 1:  # the peak, when the same in every panel
            text += " (peak %s TFLOP/s)" % fmt_g(peaks.pop() / 1e12, 3)
        return text

    for ax, (title, rows, failed) in zip(axs, panels):
        drawn = False
        mark_failed(ax, failed, HBM, scale)
        for fv in fscales:
            pts = series(rows, HBM, m.tflops, scale, 1.0, where=of_scale(fv), failed=failed)
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=colours[fv],
                    linewidth=1.6)
            drawn = True
        if not drawn:
            no_data(ax)
        x_ticks(ax, sweep, HBM, rows, scale)
        ax.set_xlabel(xlabel(sweep, HBM, rows))
        ax.set_ylabel("achieved TFLOP/s")
        ax.grid(True, alpha=0.3)
        ax.set_title("%s, %s" % (label, title) if title else label, fontsize=10)
    common_ylim(axs, panels)
    handles = [Line2D([], [], color=colours[fv], marker="o", label=line_label(fv))
               for fv in fscales]
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False,
               title="%s, chip FLOP/s" % label)
    ctx.title(fig, "achieved FLOP/s vs HBM bandwidth")
    return fig


# name -> (function, required axes), in the order of the help text
PLOTS = {
    "breakdown": (plot_breakdown, []),
    "latency_vs_hbm": (plot_latency_vs_hbm, [HBM]),
    "utilisation_vs_hbm": (plot_utilisation_vs_hbm, [HBM]),
    "noc_hbm_heatmap": (plot_noc_hbm_heatmap, [HBM, NOC_SCALE]),
    "latency_vs_cores": (plot_latency_vs_cores, [CORES]),
    "flops_vs_bandwidth": (plot_flops_vs_bandwidth, [HBM, FLOPS_SCALE]),
    "energy": (plot_energy, []),
    "tokens_per_joule": (plot_tokens_per_joule, []),
    "strategies": (plot_strategies, [PARALLEL]),
}


def check_plot(name, sweep):
    if name not in PLOTS:
        raise PlotError("unknown plot '%s'; known: %s" % (name, ", ".join(PLOTS)))
    needs = PLOTS[name][1]
    missing = [p for p in needs if sweep.axis(p) is None]
    if missing:
        have = ", ".join(sweep.axis_paths()) or "no axes"
        raise PlotError("plot '%s' needs the %s %s; this sweep has: %s"
                        % (name, "axes" if len(needs) > 1 else "axis", " and ".join(needs),
                           have))
    for path in needs:  # the plot draws these on numeric axes; a strategy is a name
        if path == PARALLEL:
            continue
        values = list(sweep.axis(path).values) + [r["__axes"][path] for r in sweep.ok_rows]
        bad = next((v for v in values if v is not None and not isinstance(v, float)), None)
        if bad is not None:
            raise PlotError("plot '%s' draws the axis %s on a numeric scale, but it has the "
                            "value '%s', not a number" % (name, path, bad))


# --------------------------------------------------------------------------------------------
# output

def save(fig, out_dir, name, fmt):
    final = os.path.join(out_dir, "%s.%s" % (name, fmt))
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=".%s." % name, suffix=".%s.tmp" % fmt)
    os.close(fd)
    try:
        kwargs = {"format": fmt, "bbox_inches": "tight"}
        if fmt == "png":
            kwargs["dpi"] = 120
        if fmt == "svg":
            kwargs["metadata"] = {"Date": None}
        elif fmt == "pdf":
            kwargs["metadata"] = {"CreationDate": None}
        fig.savefig(tmp, **kwargs)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return final


def split_list(values):
    out = []
    for v in values or []:
        out.extend(s.strip() for s in v.split(",") if s.strip())
    return out


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def parse_args(argv):
    p = Parser(prog="plot_sweep.py", description="Plots of a tessera sweep run directory.",
               epilog="plots: " + ", ".join(PLOTS))
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run directory of tessera sweep")
    p.add_argument("--out", metavar="DIR", help="where to write the plots (default RUN_DIR/plots)")
    p.add_argument("--metric", choices=["auto", "planned", "simulated"], default="auto",
                   help="simulated (sim_* columns) or planned estimates; auto: simulated when "
                        "the sweep was simulated")
    p.add_argument("--formats", action="append", metavar="png,svg",
                   help="file formats: png, svg, pdf (default png,svg)")
    p.add_argument("--x", metavar="AXIS",
                   help="the axis the energy plots draw against (default: the first numeric one)")
    p.add_argument("--only", action="append", metavar="NAME,...",
                   help="draw these plots instead of the sweep's list")
    return p.parse_args(argv)


def run(argv):
    args = parse_args(argv)
    formats = split_list(args.formats) or ["png", "svg"]
    for f in formats:
        if f not in ("png", "svg", "pdf"):
            raise UsageError("unknown format '%s'; known: png, svg, pdf" % f)
    # vector formats first: the first save lays the figure out, so an SVG comes out the same
    # whether or not a PNG is asked for too
    formats = sorted(dict.fromkeys(formats), key=lambda f: f == "png")
    only = split_list(args.only)
    for name in only:
        if name not in PLOTS:
            raise PlotError("unknown plot '%s'; known: %s" % (name, ", ".join(PLOTS)))

    sweep = Sweep(args.run_dir)
    if only:
        names = only
    elif sweep.plots:
        names = sweep.plots
    else:
        names = [n for n, (_, needs) in PLOTS.items()
                 if all(sweep.axis(p) is not None for p in needs)]
        note("the sweep lists no plots; drawing those its axes allow: %s" % ", ".join(names))
    names = list(dict.fromkeys(names))
    for name in names:
        check_plot(name, sweep)
    if args.x:  # a wrong --x is an error before anything is drawn or noted
        numeric_axis(sweep, args.x)

    metric = choose_metric(sweep, args.metric)
    if sweep.failed:
        note("%d failed point%s skipped (see results.csv)"
             % (sweep.failed, "" if sweep.failed == 1 else "s"))
    ctx = Context(sweep, metric, args.x)
    missing = [d for d in ctx.designs if d not in designs_with(ctx, metric.latency)]
    if missing:
        note("no %s values for design%s %s; left out of the %s plots"
             % (metric.latency, "" if len(missing) == 1 else "s", ", ".join(missing),
                metric.name))

    out_dir = args.out or os.path.join(args.run_dir, "plots")
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise PlotError("%s: cannot create the directory: %s" % (out_dir, e.strerror or e))

    plt.rcParams.update({
        "svg.hashsalt": "tessera",
        "svg.fonttype": "none",  # keep text as text: searchable, smaller files
        "font.size": 9,
        "axes.titlesize": 10,
        "legend.fontsize": 9,
    })
    for name in names:
        fig = PLOTS[name][0](ctx)
        try:
            for fmt in formats:
                try:
                    path = save(fig, out_dir, name, fmt)
                except OSError as e:
                    raise PlotError("%s: cannot write: %s"
                                    % (os.path.join(out_dir, "%s.%s" % (name, fmt)),
                                       e.strerror or e))
                print("wrote %s" % path, flush=True)
        finally:
            plt.close(fig)
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except PlotError as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    except UsageError as e:
        sys.stderr.write("error: %s (see plot_sweep.py --help)\n" % e)
        return 1
    except Exception as e:  # a bug here, not in the run directory
        if os.environ.get("TESSERA_PLOT_TRACEBACK"):
            raise
        sys.stderr.write("error: internal error in plot_sweep.py: %s: %s; please report it "
                         "(TESSERA_PLOT_TRACEBACK=1 shows the traceback)\n"
                         % (type(e).__name__, e))
        return 5


if __name__ == "__main__":
    sys.exit(main())
