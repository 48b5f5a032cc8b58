"""The Python module's fuzz target, replayed as the ctest fuzz.python.replay: each input's bytes
choose a public tessera function and, keyword by keyword, a value from a pool of edge cases
(numbers past every bound, NaN, denormals, text that is not UTF-8, wrong types, an uninitialised
Plan). Every call must return or raise tessera.Error (or TypeError, Python's own word for a value
of the wrong type): a crash, a hang past the deadline or any other exception fails the input.

usage: python_fuzz.py CORPUS_DIR [SEEDED_INPUTS]  — the corpus files, then SEEDED_INPUTS inputs
drawn from a fixed seed (default 2000)."""
import inspect
import math
import os
import pathlib
import random
import signal
import sys
import tempfile
import traceback

import tessera

DEADLINE_S = 60  # far above any refused call; a valid one is kept small by the pools below
FUZZ_DIR = pathlib.Path(__file__).resolve().parent
SMALL_ONNX = str(FUZZ_DIR / "corpus" / "onnx" / "reshape_shape.onnx")

# Valid numbers are small (0, 1, 2, 0.5) so that a call the module accepts stays quick; the rest
# lie past every bound in framework/driver/option_bounds.hpp or are not numbers at all.
NUMBERS = [None, 0, 1, 2, -1, 0.5, 2**31 - 1, 2**63, -2**70, 1e-320, 1e308, math.nan, math.inf,
           -math.inf, "1x", True, [], {}]
TEXT = ["", "x", "\udcff\udcfe", "a\x00b", "ü" * 300, "/dev/null", "/nonexistent/dir/file.yaml",
        "../", "ipu_alltoall", "mesh_tenstorrent", "tree_mncore", "elk-full", "all", SMALL_ONNX,
        "fp16", "bfp8", "decode", "random", "stream", None, 7, b"\xff", ["x"], ("a", 1)]
POOLS = {"plan": [tessera.Plan.__new__(tessera.Plan), None, "plan.yaml", 3],
         "shape": [(4,), (), (0,), (2**40,), (-1, 2), "4", None, (4, 4)],
         "dims": [None, {}, {"seq": 2**70}, {"": 1}, {"b": math.nan}, [1]],
         "locate": [(), (0,), (-1,), (2**64,), "0"], "inverse": [(), (0,), (2**64,), None],
         "progress": [None, print, 1, lambda *a: 1 / 0]}
NUMBER_KEYWORDS = {"batch", "seq", "threads", "time_limit", "seed", "candidates", "cycles",
                   "rate", "streams", "write_fraction", "stacks", "max_displacement",
                   "max_preloads", "ops", "requests", "cv", "max_batch", "token_budget",
                   "block_tokens", "slo_ttft_ms", "slo_tpot_ms"}
FUNCTIONS = sorted(name for name in tessera.__all__
                   if inspect.isfunction(getattr(tessera, name)))


def pool_of(keyword):
    if keyword in POOLS:
        return POOLS[keyword]
    return NUMBERS if keyword in NUMBER_KEYWORDS else TEXT


def call_of(data):
    """The function and keywords `data` chooses: byte 0 the function, then one byte per parameter
    (odd: leave it at its default when it has one; else the pool's value at byte // 2)."""
    name = FUNCTIONS[data[0] % len(FUNCTIONS)] if data else FUNCTIONS[0]
    keywords = {}
    parameters = inspect.signature(getattr(tessera, name)).parameters.items()
    for i, (keyword, parameter) in enumerate(parameters, start=1):
        byte = data[i] if i < len(data) else 1
        if byte % 2 and parameter.default is not inspect.Parameter.empty:
            continue
        pool = pool_of(keyword)
        keywords[keyword] = pool[(byte // 2) % len(pool)]
    return name, keywords


def on_deadline(signum, frame):
    raise TimeoutError(f"no answer within {DEADLINE_S} s")


def run(label, data):
    """Empty when the call behaves, else what went wrong."""
    name, keywords = call_of(data)
    signal.alarm(DEADLINE_S)
    try:
        getattr(tessera, name)(**keywords)
    except (tessera.Error, TypeError):
        pass
    except BaseException:  # a hang or any other exception is the finding
        return f"{label}: tessera.{name}(**{keywords!r}):\n{traceback.format_exc()}"
    finally:
        signal.alarm(0)
    return ""


def main():
    corpus = pathlib.Path(sys.argv[1])
    seeded = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    signal.signal(signal.SIGALRM, on_deadline)
    inputs = [(str(f), f.read_bytes()) for f in sorted(corpus.iterdir()) if f.is_file()]
    rng = random.Random(0)
    inputs += [(f"seeded input {i}", bytes(rng.randrange(256) for _ in range(24)))
               for i in range(seeded)]
    os.chdir(tempfile.mkdtemp(prefix="tessera-python-fuzz-"))  # outputs land here, not the tree
    failures = [f for f in (run(label, data) for label, data in inputs) if f]
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"python fuzz: {len(inputs)} inputs, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
