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
    ({"dtype": "fp64x"}, "dtype 'fp64x': expected fp32, fp16, bf16, fp8 or bfp8"),
])
def test_a_keyword_out_of_its_words_is_a_usage_error(kind, message):
    with pytest.raises(tessera.UsageError) as raised:
        tessera.compile("llama2-7b", target="ipu_alltoall", simulate=False, **kind)
    assert str(raised.value) == message
