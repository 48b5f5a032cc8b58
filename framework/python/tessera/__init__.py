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

__all__ = ["targets", "chip", "inspect", "compile", "simulate", "load_plan", "Plan", "map",
           "evaluate_mapping", "layout", "memsim", "sweep", "SweepResult", "serve",
           "Error", "UsageError", "InputError", "PluginError", "InternalError"]


def _bounded(command, **values):
    """Each keyword's number within the bound the CLI's `command` puts on its option of the same
    name (framework/driver/option_bounds.hpp), else UsageError with the CLI's words; None: not
    given."""
    for keyword, value in values.items():
        if value is not None:
            _tessera.check_bound(command, keyword, str(value))


def _words(batch, seq, mode, dtype, weight_dtype, dims=None, skip_unsupported=False,
           expert_skew=None, precision=None):
    _bounded("model", batch=batch, seq=seq, expert_skew=expert_skew)
    w = _tessera.ModelWords()
    w.batch, w.seq, w.mode, w.dtype, w.weight_dtype = batch, seq, mode, dtype, weight_dtype
    w.expert_skew = expert_skew
    w.precision = None if precision is None else str(precision)
    if dims is not None and not isinstance(dims, dict):
        raise TypeError(f"dims: expected a dict of dimension names to sizes, "
                        f"got {type(dims).__name__}")
    w.dims = [f"{name}={value}" for name, value in (dims or {}).items()]
    w.skip_unsupported = skip_unsupported
    return w


def targets():
    """The target plugins found, as `tessera targets --format json`: one dict per plugin (name,
    version, abi, provides, default_chip, chips, library, "status": "ok" or why it cannot be
    used), then one per broken manifest (name, file, status)."""
    return _tessera.targets()


def compile(model, target, chip="", design="elk-full", simulate=True, batch=None, seq=None, mode=None,
            dtype=None, weight_dtype=None, dims=None, skip_unsupported=False, threads=None,
            memory_detail="fast", objective="latency", core_cost=None, progress=None,
            parallel=None, rank="latency", expert_skew=None, residency=None, dispatch=None,
            precision=None):
    """Plan `model` (a zoo name, or a .onnx / workload .yaml path) on `target`'s `chip` (a preset
    or chip file; "" the target's default), as `tessera compile --format json [--simulate]`.

    design: "elk-full", "elk-dyn", "static", "basic", "ideal" or "all" (Basic and Ideal are always
    planned, as the table's yardsticks). batch, seq, mode, dtype, weight_dtype: zoo models' shape
    (the CLI's --batch ...); dims: an ONNX model's symbolic dimensions, {"batch": 16}.
    objective: "latency" (Elk's), "energy" or "edp" (energy x latency), as --objective.
    core_cost: "plugin" or "tcm" (each tile mapped on the chip's core: hierarchy, as
    --core-cost; each plan's ops then carry their core_mapping); None: the chip file's choice.
    progress: a callable progress(stage, done, total), called now and then with the GIL held
    (an exception it raises is raised when compile returns). threads: the planner's workers, 1 to
    1024 (None: all).

    Returns the compile document (format tessera-compile-7: one entry per design under "designs",
    with "planned" and, when simulated, "simulated_metrics"; seconds, fractions, FLOP/s), plus
    "plans": each design's Plan by name. Ideal is a bound no chip runs: its "simulated_metrics"
    is None and "simulated_note" says why.

    parallel: how the step is divided over the chips, as --parallel ("tp=8", "pp=4,tp=2",
    "dp=8", "ep=8,tp=1", "stages=0:6:7:7", "auto"; None or "flat": every op over every core of
    every chip). With a strategy the result is its document (format tessera-parallel-4: each
    design's step, the stages, the collectives; docs/planner.md); "auto" adds "search", every
    strategy tried ranked by `rank` ("latency", "throughput" or "energy"), and when flat wins
    returns the flat compile document with "search" beside it. expert_skew: a mixture-of-experts
    zoo model's routing skew, as --expert-skew (0, the default: uniform).

    residency: what stays in SRAM across steps instead of being preloaded every step, as
    --residency: "off", "auto" (what pays, as much as fits), "weights" or "weights+kv"; None: the
    chip file's (off unless its planner: section says). The document's "residency" and each Plan's
    .residency say what stayed (None when off).

    dispatch: how each op's command reaches the chip, a fixed cost per op outside the preload
    overlap, as --dispatch: "none", "traced" (a replayed trace), "host" (each op's command prepared
    once the op before has ended) or "host-async" (commands issued ahead of the device); None: the
    chip file's (none unless its planner: section says). Each design's "dispatch" gives the
    mode and the costs per op, its metrics' "dispatch_s" what the step paid.
    precision: a zoo model's precision file (a path), as --precision: storage type per tensor
    group and FPU fidelity per op group (docs/formats.md, "Precision files";
    configs/precision/tt-perf.yaml mirrors tt-metal's performance config).
    """
    _bounded("compile", threads=threads)
    if parallel not in (None, "flat"):
        words = _words(batch, seq, mode, dtype, weight_dtype, dims, skip_unsupported, expert_skew,
                       precision)
        doc = _tessera.compile_parallel(model, target, chip, design, simulate, words,
                                        threads or 0, objective, parallel, rank, residency or "",
                                        dispatch or "")
        if not doc.get("flat"):
            return doc
        flat = compile(model, target, chip, design, simulate, batch, seq, mode, dtype,
                       weight_dtype, dims, skip_unsupported, threads, memory_detail, objective,
                       core_cost, progress, expert_skew=expert_skew, residency=residency,
                       dispatch=dispatch, precision=precision)
        flat["search"] = doc["search"]
        return flat
    return _tessera.compile(model, target, chip, design, simulate,
                            _words(batch, seq, mode, dtype, weight_dtype, dims, skip_unsupported,
                                   expert_skew, precision),
                            threads or 0, memory_detail, objective, core_cost or "", progress,
                            residency or "", dispatch or "")


def simulate(plan, memory_detail="fast", trace=None, force=False):
    """Run a Plan (from compile, or load_plan("plan.yaml")) on the event-driven simulator, as
    `tessera simulate --format json` (format tessera-simulate-5, every op listed, and the plan's
    "residency" beside it: None when off). memory_detail:
    "fast" or "full"; trace: also write a Chrome/Perfetto trace.json there (an existing file only
    with force=True)."""
    return _tessera.simulate(plan, memory_detail, trace or "", force)


def inspect(model, batch=None, seq=None, mode=None, dtype=None, weight_dtype=None, dims=None,
            skip_unsupported=False, expert_skew=None, precision=None):
    """The model's ops as Einsums with FLOPs and bytes, as `tessera inspect --format json`
    (format tessera-inspect-1). expert_skew: a mixture-of-experts zoo model's routing skew, as
    --expert-skew; precision: a precision file, as --precision."""
    return _tessera.inspect(model, _words(batch, seq, mode, dtype, weight_dtype, dims,
                                          skip_unsupported, expert_skew, precision))


def map(workload=None, arch="tpu_v4i_like", objective="edp", model=None, op=None, batch=None,
        seq=None, mode=None, pareto_level=None, search="tcm", time_limit=10.0, seed=1, threads=0,
        output=None, force=False, progress=None):
    """The optimal mapping of one Einsum onto an accelerator's memory hierarchy (TCM, docs/mapper.md),
    as `tessera map --format json` (format tessera-map-1).

    The Einsum: `workload` (a preset name or workload file), or `op` of `model` (a zoo name or
    file, shaped by batch, seq, mode). arch: a preset or spec file. objective: "energy", "latency",
    "edp" or "pareto" (the front of latency against `pareto_level`'s usage). search: "tcm" or
    "random" (sampling for `time_limit` seconds from `seed`). output: also write the mapping file
    (`tessera map -o`; an existing file only with force=True). progress: progress(stage, done,
    total) about once a second, done and total counting dataplacements.

    Returns the document: "workload", "arch", "mappings" (the best, or the Pareto front by latency),
    each with "looptree" (nested objects: a loop's "body" holds what it encloses), "energy_j",
    "latency_s", "edp_j_s", "utilisation", and the per-tensor "nodes" and per-level "levels" tables;
    "mapspace" and "times" for TCM, "random" for sampling.
    """
    _bounded("model", batch=batch, seq=seq)
    _bounded("map", time_limit=time_limit, seed=seed, threads=threads)
    r = _tessera.MapRequest()
    r.arch, r.workload, r.op = _os.fspath(arch), _os.fspath(workload) if workload else "", op or ""
    if model is not None:
        words = _words(batch, seq, mode, None, None)
        words.model = _os.fspath(model)
        r.model = words
    r.set_objective(objective)
    r.set_search(search)
    r.pareto_level = pareto_level or ""
    r.time_limit_seconds, r.seed, r.threads = time_limit, seed, threads
    return _tessera.map(r, _os.fspath(output) if output else "", force, progress)


def evaluate_mapping(path):
    """A mapping file (from `tessera map -o` or map(output=...)) evaluated on the architecture it
    names, as `tessera map --evaluate FILE --format json`: "mappings" in the file's order, each
    with "valid" and, when not, "reason"."""
    return _tessera.evaluate_mapping(_os.fspath(path))


def layout(target, shape, layout=None, chip="", locate=(), inverse=(), map=False, choose=None,
           candidates=10):
    """A tree layout through `target`'s LayoutMapper (docs/tree-layouts.md), as `tessera layout
    --format json` (format tessera-layout-1). shape: the tensor's extents, e.g. (100, 100).

    Give `layout` (a description such as "((2_A:2, 2_B:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))")
    with `locate` (indices, e.g. [(91, 36)]), `inverse` (places "A2,B3,411") and `map` (which block
    holds which index range): the answer is under "description". Or give `choose` (an access
    pattern: stencil3x3, row-reduce, col-reduce, matmul-lhs, matmul-rhs, elementwise): the
    `candidates` cheapest layouts with their estimates are under "choice".
    """
    _bounded("layout", candidates=candidates)
    r = _tessera.LayoutRequest()
    r.chip = _tessera.ChipChoice(target, chip)
    r.layout, r.choose = layout or "", choose or ""
    r.shape = list(shape)
    r.locate = [list(index) for index in locate]
    r.inverse = list(inverse)
    r.map, r.candidates = map, candidates
    return _tessera.layout(r)


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


def sweep(spec, run_dir=None, threads=None, force=False):
    """Run a design-space sweep as `tessera sweep` does (docs/dse.md): `spec` is a sweep file's
    path or the same content as a dict. Points already in `run_dir` are kept (a killed run
    resumes); run_dir None: a new temporary directory. force=True discards another sweep's
    results there. threads: workers, 1 to 1024 (None: all). Returns a SweepResult. A serve sweep
    ("kind": "serve": serve's words as base and axes, and a "goal") serves a load at each point;
    its document adds "kind" and "goal" with the cheapest meeting point (docs/serving.md)."""
    _bounded("sweep", threads=threads)
    if run_dir is None:
        run_dir = _tempfile.mkdtemp(prefix="tessera-sweep-")
    if isinstance(spec, dict):
        document = _tessera.sweep("", _json.dumps(spec), str(run_dir), threads or 0, force)
    else:
        document = _tessera.sweep(_os.fspath(spec), "", str(run_dir), threads or 0, force)
    return SweepResult(document, str(run_dir))


def memsim(cycles, gen=None, trace=None, target="hbm_dramsim", config=None, stacks=None,
           strict=False, rate=None, streams=1, write_fraction=0.0, seed=1):
    """A memory model alone, as `tessera memsim --format json`: `gen` "stream" or "random"
    (generated requests), or `trace` a DRAMsim3 trace file; `config` the model's configuration
    (hbm_dramsim: a DRAMsim3 .ini path or a name in configs/memory); `rate` requests per cycle
    (None: as fast as accepted). Numbers are bounded as the CLI's (cycles 1 to 10^9, ...: see
    docs/python.md). Returns the bandwidth, latency histogram, per-channel statistics
    and energy document."""
    _bounded("memsim", cycles=cycles, rate=rate, streams=streams, write_fraction=write_fraction,
             seed=seed, stacks=stacks)
    o = _tessera.MemsimOptions()
    o.cycles, o.target, o.strict = cycles, target, strict
    o.generator, o.trace = gen or "", _os.fspath(trace) if trace else ""
    o.config = config or ""
    o.stacks = stacks
    o.rate, o.streams, o.write_fraction, o.seed = rate or 0.0, streams, write_fraction, seed
    return _tessera.memsim(o)


def serve(model, target, chip="", rate=1.0, requests=1000, seed=0, arrivals="poisson", cv=1.0,
          prompt="fixed:512", output="fixed:128", trace=None, rates=None, scheduler="continuous",
          max_batch=64, token_budget=512, block_tokens=16, slo_ttft_ms=None, slo_tpot_ms=None,
          design="elk-full", parallel=None, dtype=None, weight_dtype=None, precision=None,
          cache_dir=None, preemption="recompute", router="least-loaded", disaggregate=False,
          prefill_target=None, prefill_chip="", prefill_parallel=None, kv_link="", progress=None):
    """Serve many users of a zoo decoder on `target`'s `chip`, as `tessera serve --format json`
    (docs/serving.md): requests arrive at `rate` per second ("poisson" or "gamma" arrivals of
    coefficient `cv`; `prompt` and `output` lengths as --prompt: "fixed:N", "uniform:LO:HI",
    "normal:MEAN:SD", "lognormal:MEDIAN:SIGMA", "zipf:S:MAX"; `seed`), or from a `trace` file;
    `scheduler` "static", "continuous" or "chunked", out of KV blocks preempting by `preemption`
    "recompute" or "swap"; each step costs what the compiler simulates
    for it (`design`, `parallel`: one strategy, as --parallel; its dp replicas are independent
    servers, each arriving request sent by `router` "least-loaded" or "round-robin"), from a
    step-cost grid built once and cached in `cache_dir` (None: the CLI's default). Returns the
    tessera-serve-5 document. With `disaggregate`, prompts are prefilled on `prefill_chip` (of
    `prefill_target`, default `target`) under `prefill_parallel` and decoded on `chip`, each
    request's KV cache moved over `kv_link` (a preset: "100gbe", "400gbe", "pcie4-x16"; or a link
    file), as --disaggregate.
    with `rates` (a list) the load sweep's tessera-serve-load-2 document. Numbers are bounded as
    the CLI's; an unsustainable load is the document's verdict, not an exception. progress: a
    callable progress(stage, done, total), as compile's: "step-cost grid (points)" while the grid
    is built, then "serving (requests)" ("serving at R req/s (requests)" per rate of a sweep)
    at 0 and each time a request finishes."""
    _bounded("serve", rate=rate, requests=requests, seed=seed, cv=cv, max_batch=max_batch,
             token_budget=token_budget, block_tokens=block_tokens, slo_ttft_ms=slo_ttft_ms,
             slo_tpot_ms=slo_tpot_ms)
    for value in rates or []:
        _bounded("serve", rate=value)
    r = _tessera.ServeRequest()
    words = _words(None, None, None, dtype, weight_dtype, precision=precision)
    words.model = model
    r.model = words
    r.set_chip(target, chip)
    r.set_load(rate, requests, seed, cv)
    r.set_batching(max_batch, token_budget, block_tokens)
    r.design, r.parallel, r.scheduler = design, parallel or "", scheduler
    r.preemption, r.router = preemption, router
    if disaggregate:
        r.set_disaggregation(prefill_target or "", prefill_chip, prefill_parallel or "",
                             _os.fspath(kv_link) if kv_link else "")
    r.arrivals, r.prompt, r.output = arrivals, prompt, output
    r.trace = _os.fspath(trace) if trace else ""
    r.slo_ttft_ms, r.slo_tpot_ms = slo_ttft_ms or 0.0, slo_tpot_ms or 0.0
    r.cache_dir = _os.fspath(cache_dir) if cache_dir else ""
    return _tessera.serve(r, list(rates or []), progress)
