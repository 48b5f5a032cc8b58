"""The tessera Python module against the CLI (run by ctest: python.module). TESSERA_CLI names the
tessera binary of the same build; PYTHONPATH holds the module's build directory."""
import json
import os
import subprocess

import pytest
import tessera

CLI = os.environ["TESSERA_CLI"]

# model, target, chip, shape: small cases of each family.
CASES = [
    ("llama2-7b", "ipu_alltoall", "ipu-mk2-hbm3e", {"batch": 1, "seq": 128}),
    ("dit-xl", "mesh_tenstorrent", "wormhole-n150", {}),
    ("dit-xl", "tree_simd", "mncore2", {}),
]


def cli(*args):
    done = subprocess.run([CLI, *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def shape_args(shape):
    return [a for k, v in shape.items() for a in (f"--{k}", str(v))]


def without(document, *keys):
    return {k: v for k, v in document.items() if k not in keys}


@pytest.mark.parametrize("model,target,chip,shape", CASES)
def test_compile_gives_the_clis_json(model, target, chip, shape):
    got = tessera.compile(model, target=target, chip=chip, design="all", threads=2, **shape)
    code, out, err = cli("compile", model, "--target", target, "--chip", chip, "--design", "all",
                         "--simulate", "--format", "json", "--threads", "2", *shape_args(shape))
    assert code == 0, err
    want = json.loads(out)
    # Everything but the planner's wall time (search_s) is the same number.
    for d in got["designs"] + want["designs"]:
        d.pop("search_s")
    assert without(got, "plans") == want
    assert sorted(got["plans"]) == sorted(d["design"] for d in want["designs"])
    elk = [d for d in got["designs"] if d["design"] == "elk-full"][0]
    assert elk["simulated"] and elk["simulated_metrics"]["latency_s"] > 0
    ideal = [d for d in got["designs"] if d["design"] == "ideal"][0]
    assert ideal["simulated_metrics"] is None
    assert ideal["simulated_note"] == ("ideal is a bound (preloads on their own network, no SRAM "
                                       "limit) that no chip runs: not simulated")


def test_a_plan_written_and_simulated_again_matches_the_cli(tmp_path):
    r = tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=128,
                        simulate=False, threads=2)
    plan = r["plans"]["elk-full"]
    assert plan.design == "elk-full"
    path = tmp_path / "plan.yaml"
    plan.write(str(path))
    with pytest.raises(tessera.InputError, match="already exists; pass --force"):
        plan.write(str(path))
    got = tessera.simulate(tessera.load_plan(str(path)), trace=str(tmp_path / "trace.json"))
    code, out, err = cli("simulate", str(path), "--format", "json")
    assert code == 0, err
    assert without(got, "wall_s") == without(json.loads(out), "wall_s")
    assert json.load(open(tmp_path / "trace.json"))["traceEvents"]


def test_core_cost_tcm_plans_what_the_cli_plans(tmp_path):
    got = tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1,
                          seq=128, simulate=False, threads=2, core_cost="tcm")
    code, out, err = cli("compile", "llama2-7b", "--target", "ipu_alltoall", "--chip",
                         "ipu-mk2-hbm3e", "--batch", "1", "--seq", "128", "--threads", "2",
                         "--core-cost", "tcm", "-o", str(tmp_path))
    assert code == 0, err
    assert got["plans"]["elk-full"].yaml() == open(tmp_path / "plan.yaml").read()
    assert "core_mapping:" in got["plans"]["elk-full"].yaml()
    with pytest.raises(tessera.UsageError,
                       match="core_cost 'fitted': expected plugin or tcm"):
        tessera.compile("llama2-7b", target="ipu_alltoall", core_cost="fitted")
    with pytest.raises(tessera.UsageError, match="has none: give a chip file with a core: section"):
        tessera.compile("llama2-7b", target="tree_simd", chip="patent-2level", core_cost="tcm")


def test_a_chip_files_approximation_comes_with_its_chip_and_figures():
    c = tessera.chip("mesh_tenstorrent", "wse2")
    assert c["approximation"].startswith("blocks of 12 x 12 PEs: on a 300 x 300-PE copy")
    assert c["machine"]["cores"] == 5229
    assert tessera.chip("mesh_tenstorrent", "wormhole-n150")["approximation"] is None


def test_inspect_and_chip_give_the_clis_figures():
    got = tessera.inspect("llama2-7b", batch=1, seq=128)
    code, out, err = cli("inspect", "llama2-7b", "--batch", "1", "--seq", "128", "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    c = tessera.chip("tree_simd", "mncore2")
    assert c["machine"]["cores"] == 4096 and c["target"] == "tree_simd"
    code, out, err = cli("topology", "--target", "tree_simd", "--chip", "mncore2", "--format", "json")
    assert code == 0, err
    # The CLI adds example routes and the chip file; the rest is the same summary.
    assert without(c, "machine") == without(json.loads(out), "routes", "chip_file")


def test_memsim_gives_the_clis_json():
    got = tessera.memsim(3000, gen="random", config="hbm3_6400.ini", write_fraction=0.3)
    code, out, err = cli("memsim", "--config", "hbm3_6400.ini", "--gen", "random",
                         "--write-fraction", "0.3", "--cycles", "3000", "--format", "json")
    assert code == 0, err
    assert got == json.loads(out) and got["total"]["bytes_per_s"] > 0
    with pytest.raises(tessera.UsageError, match="memsim needs gen="):
        tessera.memsim(3000)


def test_a_sweep_gives_the_clis_rows_and_resumes(tmp_path):
    spec = {"name": "tiny", "base": {"model": "llama2-7b", "target": "ipu_alltoall",
                                     "chip": "ipu-mk2-hbm3e", "batch": 1, "seq": 128,
                                     "designs": ["static", "elk-full"]},
            "axes": [{"path": "memory.bandwidth_bytes_per_s", "values": [2e12, 4e12]}]}
    got = tessera.sweep(spec, run_dir=tmp_path / "py", threads=2)
    (tmp_path / "tiny.yaml").write_text(json.dumps(spec))  # JSON is YAML
    code, out, err = cli("sweep", str(tmp_path / "tiny.yaml"), "-o", str(tmp_path / "cli"),
                         "--threads", "2")
    assert code == 0, err
    want = json.load(open(tmp_path / "cli" / "results.json"))
    assert got["rows"] == want["rows"] and got["columns"] == want["columns"]
    assert len(got.rows) == 4 and all(r["status"] == "ok" for r in got.rows)
    # Run again into the same directory: every point is already there, the same rows come back.
    assert tessera.sweep(spec, run_dir=tmp_path / "py").rows == got.rows
    with pytest.raises(tessera.InputError, match="unknown path 'memory.bandwith'"):
        tessera.sweep(dict(spec, axes=[{"path": "memory.bandwith", "values": [1]}]))


def test_a_serve_sweep_with_a_goal_reads_as_the_clis(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path / "cache"))
    spec = {"name": "load", "kind": "serve",
            "base": {"model": "gpt2-xl", "target": "mesh_tenstorrent", "chip": "wormhole-n150",
                     "max_batch": 8, "requests": 40, "prompt": "fixed:128", "output": "fixed:16"},
            "axes": [{"path": "rate", "values": [1, 200]}],
            "goal": {"ttft_p90_ms": 100}}
    got = tessera.sweep(spec, run_dir=tmp_path / "py", threads=2)
    (tmp_path / "load.yaml").write_text(json.dumps(spec))
    code, out, err = cli("sweep", str(tmp_path / "load.yaml"), "-o", str(tmp_path / "cli"))
    assert code == 0, err
    want = json.load(open(tmp_path / "cli" / "results.json"))
    assert got["rows"] == want["rows"] and got["goal"] == want["goal"]
    assert [r["meets"] for r in got.rows] == ["yes", "no"]
    assert got["goal"]["cheapest"] == 0 and "cheapest meeting point: 0 (rate=1)" in out
    with pytest.raises(tessera.InputError, match=r"'base.rate': expected a number in \(0, "):
        tessera.sweep(dict(spec, base=dict(spec["base"], rate=0)))


def test_a_sweep_over_parallel_strategies(tmp_path):
    spec = {"name": "strategies", "base": {"model": "llama3.1-8b", "target": "mesh_tenstorrent",
                                           "chip": "wormhole-n300", "batch": 2, "seq": 128,
                                           "designs": ["elk-full"], "simulate": False},
            "axes": [{"path": "parallel", "values": ["flat", "tp=2", "pp=2"]}]}
    got = tessera.sweep(spec, run_dir=tmp_path / "s", threads=2)
    assert all(r["status"] == "ok" for r in got.rows)
    assert [r["strategy"] for r in got.rows] == ["flat", "tp=2,pp=1,dp=1", "tp=1,pp=2,dp=1"]
    assert got.rows[0]["collective_ms"] is None and got.rows[1]["collective_ms"] > 0
    assert got.rows[2]["bubble"] > 0 and got.rows[2]["tokens"] == 2
    with pytest.raises(tessera.InputError, match="parallel: value 'tp=0': tp=0: expected"):
        tessera.sweep(dict(spec, axes=[{"path": "parallel", "values": ["tp=0"]}]))


@pytest.mark.parametrize("call,args,kind", [
    (tessera.compile, ("llama2-7b",), {"target": "ipu_alltoall", "chip": "ipu-mk3"}),
    (tessera.compile, ("llama2-7b",), {"target": "ipu_alltoall", "design": "elk-fast"}),
    (tessera.compile, ("no-such-model",), {"target": "ipu_alltoall"}),
    (tessera.compile, ("llama2-7b",), {"target": "no_such_target"}),
])
def test_a_bad_input_raises_the_clis_message(call, args, kind):
    with pytest.raises(tessera.Error) as raised:
        call(*args, simulate=False, **kind)
    flags = [a for k, v in kind.items() for a in ("--" + k, v)]
    code, out, err = cli("compile", *args, *flags)
    assert code in (2, 3, 4), err
    assert str(raised.value) == err.strip().splitlines()[-1].removeprefix("error: ")
    expected = {2: tessera.UsageError, 3: tessera.InputError, 4: tessera.PluginError}[code]
    assert type(raised.value) is expected


@pytest.mark.parametrize("kind,message", [
    ({"memory_detail": "exact"}, "memory_detail 'exact': expected fast or full"),
    ({"mode": "train"}, "mode 'train': expected decode or prefill"),
    ({"dtype": "fp64x"}, "dtype 'fp64x': expected fp32, fp16, bf16 or fp8"),
    ({"weight_dtype": "fp32"}, "weight_dtype 'fp32': expected fp16, bf16, fp8 or bfp8"),
    ({"dims": {"batch": 0}}, "--dim 'batch=0': expected NAME=VALUE with VALUE in [1, 16777216], e.g. --dim batch=16"),
    ({"residency": "all"}, "residency 'all': expected off, auto, weights or weights+kv"),
])
def test_a_keyword_out_of_its_words_is_a_usage_error(kind, message):
    with pytest.raises(tessera.UsageError) as raised:
        tessera.compile("llama2-7b", target="ipu_alltoall", simulate=False, **kind)
    assert str(raised.value) == message


def test_targets_gives_the_clis_json():
    code, out, err = cli("targets", "--format", "json")
    assert code == 0, err
    assert tessera.targets() == json.loads(out)
    assert {t["name"] for t in tessera.targets()} >= {"ipu_alltoall", "mesh_tenstorrent", "tree_simd"}


MATMUL = os.path.join(os.path.dirname(__file__), "..", "e2e", "data", "mapper", "matmul.yaml")


@pytest.mark.parametrize("py,flags", [
    ({"workload": "resnet18-conv3_x"}, ["-w", "resnet18-conv3_x"]),
    ({"workload": MATMUL, "objective": "pareto", "pareto_level": "LocalBuffer"},
     ["-w", MATMUL, "--objective", "pareto", "--pareto-level", "LocalBuffer"]),
    ({"model": "llama2-7b", "op": "layers.0.q_proj", "seq": 128, "arch": "simba_like"},
     ["--model", "llama2-7b", "--op", "layers.0.q_proj", "--seq", "128", "--arch", "simba_like"]),
])
def test_map_gives_the_clis_json(py, flags):
    # One thread each: how many tile shapes the search evaluates depends on the threads' timing.
    got = tessera.map(threads=1, **py)
    code, out, err = cli("map", *flags, "--format", "json", "-j", "1")
    assert code == 0, err
    want = json.loads(out)
    assert without(got, "times") == without(want, "times")
    assert got["times"]["wall_s"] > 0 and got["mappings"][0]["valid"]


def test_a_mapping_written_from_python_evaluates_as_the_cli_does(tmp_path):
    path = tmp_path / "mapping.yaml"
    best = tessera.map("resnet18-conv3_x", objective="latency", threads=2, output=path)
    with pytest.raises(tessera.InputError, match="already exists; pass --force"):
        tessera.map("resnet18-conv3_x", threads=2, output=path)
    got = tessera.evaluate_mapping(path)
    code, out, err = cli("map", "--evaluate", str(path), "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    assert got["mappings"][0]["latency_s"] == best["mappings"][0]["latency_s"]


FIG7 = "((4_A:1, 25_Addr:25), (4_B:1, 25_Addr:1))"


def test_layout_gives_the_clis_json():
    got = tessera.layout("tree_simd", (100, 100), FIG7, chip="patent-2level",
                         locate=[(91, 36)], inverse=["A3,B1,411"], map=True)
    code, out, err = cli("layout", "--target", "tree_simd", "--chip", "patent-2level", FIG7,
                         "--shape", "100x100", "--locate", "91,36", "--inverse", "A3,B1,411",
                         "--map", "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    assert got["description"]["locate"][0]["place"]["address"] == 411
    chosen = tessera.layout("tree_simd", (100, 100), chip="patent-2level", choose="row-reduce",
                            candidates=3)["choice"]
    assert len(chosen["candidates"]) == 3 and chosen["chosen"] == FIG7


@pytest.mark.parametrize("call,flags", [
    (lambda: tessera.map("no-such-workload"), ["map", "-w", "no-such-workload"]),
    (lambda: tessera.map(MATMUL, pareto_level="L9"), ["map", "-w", MATMUL, "--pareto-level", "L9"]),
    (lambda: tessera.map(model="llama2-7b"), ["map", "--model", "llama2-7b"]),
    (lambda: tessera.layout("tree_simd", (100, 100), "((2_A:2, 2_C:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))",
                            chip="patent-2level"),
     ["layout", "--target", "tree_simd", "--chip", "patent-2level",
      "((2_A:2, 2_C:2, 25_Addr:25), (2_A:1, 2_B:1, 25_Addr:1))", "--shape", "100x100"]),
    (lambda: tessera.layout("tree_simd", (100, 100), FIG7, chip="patent-2level", inverse=["Q1,4"]),
     ["layout", "--target", "tree_simd", "--chip", "patent-2level", FIG7, "--shape", "100x100",
      "--inverse", "Q1,4"]),
])
def test_map_and_layout_raise_the_clis_message(call, flags):
    with pytest.raises(tessera.Error) as raised:
        call()
    code, out, err = cli(*flags)
    assert code in (2, 3), err
    assert str(raised.value) == err.strip().splitlines()[-1].removeprefix("error: ")
    assert type(raised.value) is {2: tessera.UsageError, 3: tessera.InputError}[code]


def test_progress_reports_each_stage_and_its_exceptions_surface():
    seen = []
    tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=128,
                    simulate=False, threads=2, progress=lambda *a: seen.append(a))
    stages = {stage for stage, _, _ in seen}
    assert "per-op plans (classes)" in stages and "elk-full (preload orders)" in stages
    assert all(0 <= done <= total for _, done, total in seen)
    assert ("per-op plans (classes)", 14.0, 14.0) in seen

    def stop(stage, done, total):
        raise KeyboardInterrupt("stopped at " + stage)
    with pytest.raises(KeyboardInterrupt, match="stopped at per-op plans"):
        tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=128,
                        simulate=False, threads=2, progress=stop)


def test_an_energy_objective_gives_the_clis_plans_and_energy():
    got = tessera.compile("llama2-7b", target="ipu_alltoall", chip="ipu-mk2-hbm3e", batch=1, seq=128,
                          design="all", objective="edp", threads=2)
    code, out, err = cli("compile", "llama2-7b", "--target", "ipu_alltoall", "--chip", "ipu-mk2-hbm3e",
                         "--batch", "1", "--seq", "128", "--design", "all", "--objective", "edp",
                         "--simulate", "--format", "json", "--threads", "2")
    assert code == 0, err
    want = json.loads(out)
    for d in got["designs"] + want["designs"]:
        d.pop("search_s")
    assert without(got, "plans") == want
    e = got["designs"][0]["simulated_energy"]
    assert e["energy_j"] > 0 and abs(sum(e[k] for k in (
        "compute_j", "sram_j", "network_j", "chip_to_chip_j", "off_chip_j", "static_j")) - e["energy_j"]) < 1e-9
    with pytest.raises(tessera.UsageError) as raised:
        tessera.compile("llama2-7b", target="ipu_alltoall", simulate=False, objective="power")
    assert str(raised.value) == "--objective 'power': expected latency, energy or edp"


@pytest.mark.parametrize("call,message", [
    (lambda: tessera.map(MATMUL, objective="fastest"),
     "objective 'fastest': expected energy, latency, edp or pareto"),
    (lambda: tessera.map(MATMUL, search="annealing"), "search 'annealing': expected tcm or random"),
    (lambda: tessera.layout("tree_simd", (), FIG7, chip="patent-2level"),
     "--shape: give the tensor's extents, e.g. 100x100"),
])
def test_python_only_words_are_usage_errors(call, message):
    with pytest.raises(tessera.UsageError) as raised:
        call()
    assert str(raised.value) == message


def test_a_parallel_strategy_gives_the_clis_json():
    args = dict(target="mesh_tenstorrent", chip="wormhole-t3000", batch=1, seq=256,
                weight_dtype="bfp8", threads=2, simulate=False)
    got = tessera.compile("llama3.1-8b", parallel="tp=8", **args)
    code, out, err = cli("compile", "llama3.1-8b", "--target", "mesh_tenstorrent", "--chip",
                         "wormhole-t3000", "--batch", "1", "--seq", "256", "--weight-dtype",
                         "bfp8", "--threads", "2", "--parallel", "tp=8", "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    assert got["format"] == "tessera-parallel-4" and got["tp"] == 8
    assert [c["where"] for c in got["collectives"]] == ["embedding", "after attention",
                                                         "after MLP", "LM head"]
    searched = tessera.compile("llama3.1-8b", parallel="auto", rank="throughput", **args)
    assert searched["search"]["rank"] == "throughput"
    assert len(searched["search"]["tried"]) > 4
    with pytest.raises(tessera.UsageError, match="--parallel: tp=0: expected a whole number"):
        tessera.compile("llama3.1-8b", parallel="tp=0", **args)
    with pytest.raises(tessera.InputError, match="tp x pp x dp = 16 chips"):
        tessera.compile("llama3.1-8b", parallel="tp=16", **args)
    with pytest.raises(tessera.UsageError, match="rank 'fast'"):
        tessera.compile("llama3.1-8b", parallel="auto", rank="fast", **args)


# GPT-2 XL decode on one IPU Mk2 (no HBM beside it in practice: what stays in SRAM matters).
RESIDENT = dict(target="ipu_alltoall", chip="ipu-mk2", batch=1, seq=264, design="elk-dyn",
                threads=2, simulate=False)
RESIDENT_FLAGS = ["--target", "ipu_alltoall", "--chip", "ipu-mk2", "--batch", "1", "--seq", "264",
                  "--design", "elk-dyn", "--threads", "2"]


def test_residency_gives_the_clis_plans_and_record(tmp_path):
    got = tessera.compile("gpt2-xl", residency="auto", **RESIDENT)
    code, out, err = cli("compile", "gpt2-xl", *RESIDENT_FLAGS, "--residency", "auto", "--format",
                         "json", "-o", str(tmp_path))
    assert code == 0, err
    want = json.loads(out)
    for d in got["designs"] + want["designs"]:
        d.pop("search_s")
    assert without(got, "plans") == want
    plan = got["plans"]["elk-dyn"]
    assert plan.residency == want["residency"]
    assert plan.residency["mode"] == "auto" and plan.residency["bytes_per_core"] > 0
    assert plan.yaml() == open(tmp_path / "plan.yaml").read()
    # The record survives plan.yaml, and simulate reports it beside the run, as the CLI does.
    again = tessera.load_plan(str(tmp_path / "plan.yaml"))
    assert again.residency == plan.residency
    simulated = tessera.simulate(again)
    code, out, err = cli("simulate", str(tmp_path / "plan.yaml"), "--format", "json")
    assert code == 0, err
    assert without(simulated, "wall_s") == without(json.loads(out), "wall_s")
    assert simulated["residency"] == plan.residency
    # None: the chip file's, which for ipu-mk2 is off; every op preloads again, and takes longer.
    off = tessera.compile("gpt2-xl", **RESIDENT)
    assert off["residency"] is None and off["plans"]["elk-dyn"].residency is None
    assert off["designs"][1]["design"] == got["designs"][1]["design"] == "elk-dyn"
    assert off["designs"][1]["planned"]["latency_s"] != got["designs"][1]["planned"]["latency_s"]


def test_residency_that_does_not_fit_raises_the_clis_message():
    with pytest.raises(tessera.InputError) as raised:
        tessera.compile("gpt2-xl", residency="weights", **RESIDENT)
    assert str(raised.value) == ("--residency weights: the homes take 2.0 MiB of each core's "
                                 "624.0 KiB of SRAM; --residency auto keeps the ones that fit "
                                 "and pay")
    code, out, err = cli("compile", "gpt2-xl", *RESIDENT_FLAGS, "--residency", "weights")
    assert code == 3
    assert err.strip().splitlines()[-1] == "error: " + str(raised.value)


def test_a_sweep_over_residency(tmp_path):
    spec = {"name": "residency", "base": {"model": "gpt2-xl", "target": "ipu_alltoall",
                                          "chip": "ipu-mk2", "batch": 1, "seq": 264,
                                          "designs": ["elk-dyn"], "simulate": False},
            "axes": [{"path": "residency", "values": ["off", "auto"]}]}
    got = tessera.sweep(spec, run_dir=tmp_path / "s", threads=2)
    assert [(r["status"], r["residency"]) for r in got.rows] == [("ok", "off"), ("ok", "auto")]
    assert got.rows[0]["resident_bytes_per_core"] == 0
    resident = tessera.compile("gpt2-xl", residency="auto", **RESIDENT)["residency"]
    assert got.rows[1]["resident_bytes_per_core"] == resident["bytes_per_core"]
    with pytest.raises(tessera.InputError) as raised:
        tessera.sweep(dict(spec, axes=[{"path": "residency", "values": ["all"]}]))
    assert str(raised.value).endswith(
        "axes: residency: value 'all': expected off, auto, weights or weights+kv")


def test_residency_reaches_each_stage_of_a_strategy():
    args = dict(target="ipu_alltoall", chip="ipu-pod4", seq=264, threads=2, simulate=False,
                parallel="pp=4")
    got = tessera.compile("gpt2-xl", residency="auto", **args)
    code, out, err = cli("compile", "gpt2-xl", "--target", "ipu_alltoall", "--chip", "ipu-pod4",
                         "--seq", "264", "--threads", "2", "--parallel", "pp=4", "--residency",
                         "auto", "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    streamed = tessera.compile("gpt2-xl", residency="off", **args)
    assert got["designs"][0]["step_s"] != streamed["designs"][0]["step_s"]


# Llama 3.1 8B decode on one Wormhole with every op's command prepared by the host after the op
# before (docs/planner.md, "Fixed costs"): the CLI's document, the plan's dispatch block, and an unknown mode refused.
WORMHOLE = dict(target="mesh_tenstorrent", chip="wormhole-n150", batch=1, seq=1024,
                weight_dtype="bfp8", design="elk-full", threads=2, simulate=False)


def test_dispatch_gives_the_clis_figures():
    got = tessera.compile("llama3.1-8b", dispatch="host-async", **WORMHOLE)
    code, out, err = cli("compile", "llama3.1-8b", "--target", "mesh_tenstorrent", "--chip",
                         "wormhole-n150", "--batch", "1", "--seq", "1024", "--weight-dtype", "bfp8",
                         "--design", "elk-full", "--threads", "2", "--dispatch", "host-async",
                         "--format", "json")
    assert code == 0, err
    want = json.loads(out)
    for d in got["designs"] + want["designs"]:
        d.pop("search_s")
    assert without(got, "plans") == want
    elk = got["designs"][1]
    assert elk["dispatch"] == {"mode": "host-async", "command_s": 0, "launch_s": 19e-6}
    assert elk["planned"]["dispatch_s"] == pytest.approx(11.894e-3, abs=1e-6)
    assert elk["planned"]["latency_s"] == pytest.approx(31.313e-3, abs=1e-6)
    assert "dispatch:\n  mode: host-async\n  command_s: 0\n" in got["plans"]["elk-full"].yaml()
    with pytest.raises(tessera.UsageError) as raised:
        tessera.compile("llama3.1-8b", dispatch="eager", **WORMHOLE)
    assert str(raised.value) == "dispatch 'eager': expected none, traced, host or host-async"


# A prefill's time to first token from Python: the CLI's document, and the plan simulated again
# reports the same host part beside its step (the chip file's host section: the 32-row tile of
# Llama 3.1 8B's 128,256 bf16 logits at 1.93 GB/s).
def test_a_prefills_time_to_first_token_is_the_clis():
    args = dict(WORMHOLE, seq=128, mode="prefill", simulate=True)
    got = tessera.compile("llama3.1-8b", **args)
    code, out, err = cli("compile", "llama3.1-8b", "--target", "mesh_tenstorrent", "--chip",
                         "wormhole-n150", "--batch", "1", "--seq", "128", "--mode", "prefill",
                         "--weight-dtype", "bfp8", "--design", "elk-full", "--threads", "2",
                         "--simulate", "--format", "json")
    assert code == 0, err
    want = json.loads(out)
    for d in got["designs"] + want["designs"]:
        d.pop("search_s")
    assert without(got, "plans") == want
    host_s = 32 * 128256 * 2 / 1.93e9
    assert got["first_token"] == {"bytes": 32 * 128256 * 2, "rows": 32, "bytes_per_s": 1.93e9,
                                  "host_s": pytest.approx(host_s, rel=1e-12)}
    elk = got["designs"][1]
    assert elk["ttft_s"] == pytest.approx(elk["planned"]["latency_s"] + host_s, rel=1e-12)
    again = tessera.simulate(got["plans"]["elk-full"])
    assert again["first_token"] == got["first_token"]
    assert again["ttft_s"] == pytest.approx(again["latency_s"] + host_s, rel=1e-12)


# precision= is --precision: the same document as the CLI's, and tt-metal's performance config
# stores Llama 3.1 8B's ff1/ff3 in bfp4 (0.5625 B) and the rest of its projections in bfp8.
def test_precision_is_the_clis_precision():
    perf = os.path.join(os.path.dirname(__file__), "..", "..", "configs", "precision",
                        "tt-perf.yaml")
    got = tessera.inspect("llama3.1-8b", batch=1, seq=1024, precision=perf)
    code, out, err = cli("inspect", "llama3.1-8b", "--batch", "1", "--seq", "1024",
                         "--precision", perf, "--format", "json")
    assert code == 0, err
    assert got == json.loads(out)
    layers, hidden, ffn, kv, vocab = 32, 4096, 14336, 1024, 128256
    per_layer = 2 * hidden * ffn * 0.5625 + (hidden * ffn + 2 * hidden * hidden
                                             + 2 * hidden * kv) * 1.0625
    expected = layers * per_layer + vocab * hidden * (1.0625 + 2) + (2 * layers + 1) * hidden * 2
    assert got["weight_bytes"] == pytest.approx(expected, rel=1e-9)
    with pytest.raises(tessera.InputError) as raised:
        tessera.inspect("gpt2-xl", seq=64, precision=perf)
    assert str(raised.value) == (
        "precision: tensor group 'lm_head' matches no tensor of gpt2-xl decode b1 s64; its "
        "groups are: attention.wo, attention.wqkv, embedding, kv_cache, mlp.ff2, mlp.ff3")


# tessera.serve against `tessera serve --format json` (docs/serving.md): gpt2-xl on one Wormhole
# from the sample trace. Python builds the step-cost grid once into a shared cache, reporting each
# point; then both read it and give the same document; a load sweep gives one point per rate; bad words are the
# CLI's errors.
def test_serve_gives_the_clis_document(tmp_path):
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    trace = os.path.join(source, "configs", "serve", "chat-sample.csv")
    cache = str(tmp_path / "cache")
    args = ["serve", "gpt2-xl", "--target", "mesh_tenstorrent", "--chip", "wormhole-n150",
            "--max-batch", "8", "--slo-ttft-ms", "2000", "--slo-tpot-ms", "50", "--cache-dir",
            cache, "--trace", trace]
    built = []
    got = tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", max_batch=8,
                        slo_ttft_ms=2000, slo_tpot_ms=50, cache_dir=cache, trace=trace,
                        progress=lambda *call: built.append(call))
    grid = [(done, total) for stage, done, total in built if stage == "step-cost grid (points)"]
    assert [done for done, _ in grid] == list(range(1, len(grid) + 1)) and len(grid) > 10
    # The total grows as refinement holds out more points; done reaches it once, at the end.
    assert all(a[1] <= b[1] for a, b in zip(grid, grid[1:]))
    assert [done == total for done, total in grid] == [False] * (len(grid) - 1) + [True]
    code, _, err = cli(*args)
    assert code == 0, err
    code, out, err = cli(*args, "--format", "json")
    assert code == 0, err
    read = json.loads(out)
    assert got["step_costs"].pop("built") and not read["step_costs"].pop("built")
    assert got == read
    code, out, err = cli(*args, "--format", "json", "--preemption", "swap")
    assert code == 0, err
    swapped = tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", max_batch=8,
                            slo_ttft_ms=2000, slo_tpot_ms=50, cache_dir=cache, trace=trace,
                            preemption="swap")
    assert swapped == json.loads(out) and swapped["preemption"] == "swap"
    with pytest.raises(tessera.UsageError, match="--preemption evict: expected recompute or swap"):
        tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", preemption="evict")
    calls = []
    swept = tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", max_batch=8,
                          cache_dir=cache, rates=[0.5, 1.0], requests=20, prompt="fixed:64",
                          output="fixed:16", progress=lambda *call: calls.append(call))
    assert swept["format"] == "tessera-serve-load-2" and swept["approximation"] is None
    # The grid is cached: only the runs report, from 0 and then each request once as it finishes.
    for stage in ("serving at 0.5 req/s (requests)", "serving at 1 req/s (requests)"):
        assert [done for s, done, total in calls if s == stage] == list(range(0, 21))
    assert {total for _, _, total in calls} == {20}
    assert len(calls) == 42
    assert ["at 0.5 req/s" in p["load"] for p in swept["points"]] == [True, False]
    assert ["at 1 req/s" in p["load"] for p in swept["points"]] == [False, True]
    with pytest.raises(tessera.UsageError) as raised:
        tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", scheduler="fifo")
    code, _, err = cli("serve", "gpt2-xl", "--target", "mesh_tenstorrent", "--scheduler", "fifo")
    assert code == 2
    with pytest.raises(tessera.UsageError, match="parallel auto: serve takes one strategy"):
        tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", parallel="auto")
    # Disaggregated: the same words, the same document (the grids built by the first run).
    split_args = [*args, "--disaggregate", "--prefill-chip", "wormhole-n300", "--kv-link",
                  "pcie4-x16", "--router", "round-robin"]
    code, _, err = cli(*split_args)
    assert code == 0, err
    code, out, err = cli(*split_args, "--format", "json")
    assert code == 0, err
    split = tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", max_batch=8,
                          slo_ttft_ms=2000, slo_tpot_ms=50, cache_dir=cache, trace=trace,
                          disaggregate=True, prefill_chip="wormhole-n300", kv_link="pcie4-x16",
                          router="round-robin")
    assert split == json.loads(out) and split["disaggregation"]["transfers"]["count"] == 40
    with pytest.raises(tessera.InputError, match="unknown KV link '10gbe'"):
        tessera.serve("gpt2-xl", "mesh_tenstorrent", "wormhole-n150", disaggregate=True,
                      prefill_chip="wormhole-n300", kv_link="10gbe")
