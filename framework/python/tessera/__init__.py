"""Tessera from Python: compile and simulate deep-learning models on inter-core-connected AI chips.

The same pipeline as the `tessera` command line (its driver, not a copy), with its results as Python
objects whose fields are those of the CLI's ``--format json`` documents (docs/formats.md), and its
errors as exceptions carrying the CLI's messages::

    import tessera
    r = tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=512)
    for d in r["designs"]:
        print(d["design"], d["planned"]["latency_s"], d["simulated_metrics"]["latency_s"])
    r["plans"]["elk-full"].write("plan.yaml")
    again = tessera.simulate(r["plans"]["elk-full"], memory_detail="full")

Threads: every call opens its own plugins and chip, so calls from several Python threads share
nothing, and each releases the GIL while the pipeline runs; a Plan is immutable and may be shared.
"""

import json as _json
import os as _os
import tempfile as _tempfile

from ._tessera import (  # noqa: F401 (the package's API)
    Error,
    InputError,
    InternalError,
    Plan,
    PluginError,
    UsageError,
    load_plan,
)
from . import _tessera

__all__ = ["compile", "simulate", "inspect", "chip", "memsim", "sweep", "SweepResult", "load_plan", "Plan",
           "Error", "UsageError", "InputError", "PluginError", "InternalError"]


def _shape(batch, seq, mode, dtype, weight_dtype):
    return _tessera.Shape(batch=batch, seq=seq, mode=mode, dtype=dtype, weight_dtype=weight_dtype)


def compile(model, target, chip="", design="elk-full", simulate=True, batch=None, seq=None, mode=None,
            dtype=None, weight_dtype=None, threads=0, memory_detail="fast"):
    """Plan `model` (a zoo name, or a .onnx / workload .yaml path) on `target`'s `chip` (a preset
    or chip file; "" the target's default), as `tessera compile --format json [--simulate]`.

    design: "elk-full", "elk-dyn", "static", "basic", "ideal" or "all" (Basic and Ideal are always
    planned, as the table's yardsticks). Returns the compile document (format tessera-compile-1:
    one entry per design under "designs", with "planned" and, when simulated, "simulated_metrics";
    seconds, fractions, FLOP/s), plus "plans": each design's Plan by name.
    """
    return _tessera.compile(model, target, chip, design, simulate,
                            _shape(batch, seq, mode, dtype, weight_dtype), threads, memory_detail)


def simulate(plan, memory_detail="fast", trace=None, force=False):
    """Run a Plan (from compile, or load_plan("plan.yaml")) on the event-driven simulator, as
    `tessera simulate --format json` (format tessera-simulate-1, every op listed). memory_detail:
    "fast" or "full"; trace: also write a Chrome/Perfetto trace.json there (an existing file only
    with force=True)."""
    return _tessera.simulate(plan, memory_detail, trace or "", force)


def inspect(model, batch=None, seq=None, mode=None, dtype=None, weight_dtype=None):
    """The model's ops as Einsums with FLOPs and bytes, as `tessera inspect --format json`
    (format tessera-inspect-1)."""
    return _tessera.inspect(model, _shape(batch, seq, mode, dtype, weight_dtype))


def chip(target, chip=""):
    """The chip's topology summary (as `tessera topology --format json`, without routes) and, under
    "machine", the figures the planner reads off it (cores, SRAM, clock, FLOP/s, HBM, links)."""
    return _tessera.chip(target, chip)


class SweepResult(dict):
    """A sweep's results.json document (docs/dse.md): "sweep", "axes", "columns" and "rows" (one
    dict per point and design, the results.csv columns); `run_dir` is where it was written."""

    def __init__(self, document, run_dir):
        super().__init__(document)
        self.run_dir = run_dir

    @property
    def rows(self):
        return self["rows"]

    def to_pandas(self):
        """The rows as a pandas DataFrame, columns in results.csv's order (needs pandas)."""
        import pandas
        return pandas.DataFrame(self["rows"], columns=self["columns"])


def sweep(spec, run_dir=None, threads=0, force=False):
    """Run a design-space sweep as `tessera sweep` does (docs/dse.md): `spec` is a sweep file's
    path or the same content as a dict. Points already in `run_dir` are kept (a killed run
    resumes); run_dir None: a new temporary directory. force=True discards another sweep's
    results there. Returns a SweepResult."""
    if run_dir is None:
        run_dir = _tempfile.mkdtemp(prefix="tessera-sweep-")
    if isinstance(spec, dict):
        document = _tessera.sweep("", _json.dumps(spec), str(run_dir), threads, force)
    else:
        document = _tessera.sweep(_os.fspath(spec), "", str(run_dir), threads, force)
    return SweepResult(document, str(run_dir))


def memsim(cycles, gen=None, trace=None, target="hbm_dramsim", config=None, stacks=None,
           strict=False, rate=0.0, streams=1, write_fraction=0.0, seed=1):
    """A memory model alone, as `tessera memsim --format json`: `gen` "stream" or "random"
    (generated requests), or `trace` a DRAMsim3 trace file; `config` the model's configuration
    (hbm_dramsim: a DRAMsim3 .ini path or a name in configs/memory); `rate` requests per cycle
    (0: as fast as accepted). Returns the bandwidth, latency histogram, per-channel statistics
    and energy document."""
    o = _tessera.MemsimOptions()
    o.cycles, o.target, o.strict = cycles, target, strict
    o.generator, o.trace = gen or "", _os.fspath(trace) if trace else ""
    o.config = config or ""
    o.stacks = stacks
    o.rate, o.streams, o.write_fraction, o.seed = rate, streams, write_fraction, seed
    return _tessera.memsim(o)
