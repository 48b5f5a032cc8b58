"""Every number a tessera function takes is bounded as the CLI bounds its option of the same name:
the same values refused with the same words (run by ctest: python.module, with TESSERA_CLI)."""
import inspect
import math
import os
import re
import subprocess

import pytest
import tessera

CLI = os.environ["TESSERA_CLI"]

# Per public function: the CLI command that is its twin, the words that command needs before an
# option, and the keywords that take a number. Every other keyword is in WORDS, so a keyword added
# to a function fails test_every_keyword_is_a_number_or_a_word until it is placed (and bounded).
TWINS = {
    "compile": ("compile", ["x"], {"batch", "seq", "threads", "expert_skew"}),
    "inspect": ("inspect", ["x"], {"batch", "seq", "expert_skew"}),
    "map": ("map", [], {"batch", "seq", "time_limit", "seed", "threads"}),
    "layout": ("layout", ["--shape", "4"], {"candidates"}),
    "sweep": ("sweep", ["x"], {"threads"}),
    "memsim": ("memsim", [], {"cycles", "rate", "streams", "write_fraction", "seed", "stacks"}),
    "serve": ("serve", ["x"], {"rate", "requests", "seed", "cv", "max_batch", "token_budget",
                               "block_tokens", "slo_ttft_ms", "slo_tpot_ms"}),
}
WORDS = {"model", "target", "chip", "design", "simulate", "mode", "dtype", "weight_dtype", "dims",
         "skip_unsupported", "memory_detail", "objective", "core_cost", "progress", "plan",
         "trace", "force", "workload", "arch", "op", "pareto_level", "search", "output", "path",
         "shape", "layout", "locate", "inverse", "map", "choose", "spec", "run_dir", "gen",
         "config", "strict", "parallel", "rank", "residency", "dispatch",
         "precision", "arrivals", "prompt", "scheduler", "rates", "cache_dir", "preemption",
         "router", "disaggregate", "prefill_target", "prefill_chip", "prefill_parallel",
         "kv_link"}
# What each function needs besides the keyword under test (never reached: numbers come first).
REQUIRED = {"compile": {"model": "x", "target": "x"}, "inspect": {"model": "x"}, "map": {},
            "layout": {"target": "x", "shape": (4,)}, "sweep": {"spec": "x"},
            "memsim": {"cycles": 1}, "serve": {"model": "x", "target": "x"}}


def public_functions():
    return {name: getattr(tessera, name) for name in tessera.__all__
            if inspect.isfunction(getattr(tessera, name))}


def test_every_keyword_is_a_number_or_a_word():
    for name, function in public_functions().items():
        numbers = TWINS.get(name, (None, None, set()))[2]
        for keyword, parameter in inspect.signature(function).parameters.items():
            default = parameter.default
            number = isinstance(default, (int, float)) and not isinstance(default, bool)
            assert keyword in numbers or (keyword in WORDS and not number), \
                f"{name}({keyword}=...): bound it in framework/driver/option_bounds.hpp and TWINS"


def cli_message(command, before, option, value):
    args = [CLI, command, *before, f"{option}={value}"]
    if command == "memsim" and option != "--cycles":
        args += ["--cycles", "1"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().splitlines()[-1].removeprefix(f"error: {option}: ")


def python_message(name, keyword, value):
    with pytest.raises(tessera.UsageError) as raised:
        public_functions()[name](**dict(REQUIRED[name], **{keyword: value}))
    return str(raised.value).removeprefix(f"{keyword}: ")


def bound_of(message):
    low, high = re.search(r"in [\[(](-?\d+), (\d+)\]", message).groups()
    return int(low), int(high)


@pytest.mark.parametrize("name,keyword", [(n, k) for n, twin in TWINS.items() for k in twin[2]])
def test_every_number_is_refused_as_the_cli_refuses_it(name, keyword):
    command, before, _ = TWINS[name]
    option = "--" + keyword.replace("_", "-")
    first = python_message(name, keyword, -2**70)
    low, high = bound_of(first)
    outside = [low - 1, high + 1, 2**64, -2**70, math.nan, math.inf, -math.inf, 1e308, "1x"]
    if "in (" in first:
        outside.append(low)
    for value in outside:
        got = python_message(name, keyword, value)
        assert got == cli_message(command, before, option, value), (keyword, value)
        assert got.endswith(f", got '{value}'")


@pytest.mark.parametrize("call,message", [
    (lambda: tessera.compile("llama2-7b", "ipu_alltoall", threads=2**31 - 1),
     "threads: expected a whole number in [1, 1024], got '2147483647'"),
    (lambda: tessera.sweep({}, threads=100000),
     "threads: expected a whole number in [1, 1024], got '100000'"),
    (lambda: tessera.map("gemm", search="random", time_limit=math.nan),
     "time_limit: expected a number in (0, 86400], got 'nan'"),
    (lambda: tessera.map("gemm", search="random", time_limit=math.inf),
     "time_limit: expected a number in (0, 86400], got 'inf'"),
    (lambda: tessera.map("gemm", search="random", time_limit=1e308),
     "time_limit: expected a number in (0, 86400], got '1e+308'"),
    (lambda: tessera.memsim(2**40, gen="stream"),
     "cycles: expected a whole number in [1, 1000000000], got '1099511627776'"),
    (lambda: tessera.memsim(1000, gen="stream", streams=2**32 - 1),
     "streams: expected a whole number in [1, 4096], got '4294967295'"),
    (lambda: tessera.memsim(1000, gen="walk"), "gen 'walk': expected stream or random"),
])
def test_what_hung_or_crashed_is_a_usage_error(call, message):
    with pytest.raises(tessera.UsageError) as raised:
        call()
    assert str(raised.value) == message


@pytest.mark.parametrize("use", [
    lambda plan: plan.yaml(),
    lambda plan: plan.design,
    lambda plan: plan.write("never-written.yaml"),
    lambda plan: tessera.simulate(plan),
])
def test_a_plan_not_made_by_tessera_is_a_usage_error(use):
    with pytest.raises(tessera.UsageError) as raised:
        use(tessera.Plan.__new__(tessera.Plan))
    assert str(raised.value) == "this Plan was not made by tessera.compile or tessera.load_plan"
    assert not os.path.exists("never-written.yaml")
