"""framework/serve's plot scripts on documents shaped as tessera serve writes them: the frontier and
CDF arithmetic by hand, every plot drawn as a non-empty PNG and SVG, and bad input one error line."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

SERVE = pathlib.Path(__file__).resolve().parents[2] / "framework" / "serve"


def script(name):
    spec = importlib.util.spec_from_file_location(name, SERVE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def point(rate, tokens, tpot_p99, sustainable=True):
    spread = {"mean": 0.01, "p50": 0.01, "p90": 0.02, "p99": tpot_p99}
    p = {"model": "gpt2-xl", "chip": "wormhole-n150", "strategy": "flat",
         "scheduler": "continuous", "offered_rps": rate, "sustained_rps": rate,
         "sustainable": sustainable, "tokens_per_s": tokens}
    if sustainable:
        p.update(ttft_s=spread, tpot_s=spread)
    return p


def test_the_frontier_keeps_the_points_no_other_beats_on_both():
    load = script("plot_load")
    points = [point(1, 100, 0.020), point(2, 200, 0.030), point(3, 250, 0.025),
              point(4, 300, 0.050)]
    # 200 tokens/s at 30 ms is beaten by 250 at 25 ms; the rest each trade one for the other.
    assert load.frontier(points) == [(100, 0.020), (250, 0.025), (300, 0.050)]


def test_a_cdf_rises_by_one_request_at_a_time():
    xs, ys = script("plot_requests").cdf([3.0, 1.0, 2.0, 2.0])
    assert xs == [1.0, 2.0, 2.0, 3.0]
    assert ys == [0.25, 0.5, 0.75, 1.0]


def run(name, *args):
    return subprocess.run([sys.executable, str(SERVE / f"{name}.py"), *map(str, args)],
                          capture_output=True, text=True)


def test_two_load_sweeps_draw_latency_and_the_frontier(tmp_path):
    for i, shift in enumerate((0, 50)):
        doc = {"format": "tessera-serve-load-1",
               "points": [point(1, 100 + shift, 0.02), point(2, 180 + shift, 0.03),
                          point(9, 190, 0, sustainable=False)]}
        (tmp_path / f"load{i}.json").write_text(json.dumps(doc))
    out = run("plot_load", tmp_path / "load0.json=batch 8", tmp_path / "load1.json=batch 32",
              tmp_path / "load")
    assert out.returncode == 0, out.stderr
    for ext in ("png", "svg"):
        assert (tmp_path / f"load.{ext}").stat().st_size > 0


def test_per_request_rows_draw_cdfs_from_csv_and_json(tmp_path):
    (tmp_path / "a.csv").write_text(
        "id,arrival_s,prompt_tokens,output_tokens,ttft_s,tpot_s,e2e_s,preemptions,joules\n"
        "0,0,512,1,0.2,,0.2,0,1\n1,1,512,64,0.3,0.02,1.5,0,2\n")
    rows = [{"id": 0, "ttft_s": 0.1, "tpot_s": None, "e2e_s": 0.1},
            {"id": 1, "ttft_s": 0.4, "tpot_s": 0.03, "e2e_s": 2.0}]
    (tmp_path / "b.json").write_text(
        json.dumps({"format": "tessera-serve-requests-1", "requests": rows}))
    out = run("plot_requests", tmp_path / "a.csv=continuous", tmp_path / "b.json", tmp_path / "cdf")
    assert out.returncode == 0, out.stderr
    for ext in ("png", "svg"):
        assert (tmp_path / f"cdf.{ext}").stat().st_size > 0


@pytest.mark.parametrize("name, text, message", [
    ("plot_load", '{"format": "tessera-serve-2"}',
     "not the output of tessera serve --rates ... --format json"),
    ("plot_requests", "id,arrival_s\n0,0\n",
     "no column ttft_s, tpot_s, e2e_s; expected tessera serve's --per-request rows"),
    ("plot_requests", "id,ttft_s,tpot_s,e2e_s\n0,fast,,1\n",
     "request 1: ttft_s 'fast' is not a number of seconds"),
])
def test_bad_input_is_one_error_line(tmp_path, name, text, message):
    path = tmp_path / ("in.json" if text.startswith("{") else "in.csv")
    path.write_text(text)
    out = run(name, path, tmp_path / "out")
    assert out.returncode == 1
    assert out.stderr == f"error: {path}: {message}\n"
