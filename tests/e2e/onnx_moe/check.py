"""check.py inspect ONNX.json ZOO.json EXPERTS HIDDEN WIDTH SHARED_WIDTH | check.py planned LOG

inspect: the ONNX block imported as the zoo's MoE ops (run.sh): one router, its top-k, EXPERTS
routed experts, the shared expert when SHARED_WIDTH > 0, the combine; weights exactly the
export's fp32 initializers; and every op of the zoo's layer 0 MoE (router to combine) present under
the same suffix with the same kind, einsum, ranks, FLOPs and bytes written (bytes read from HBM
differ: the block's input is a model input here, the previous layer's norm in the zoo).
planned: the strategy table's elk-full step planned and simulated within 5 %.
Prints what it checked; exits 1 with the first difference.
"""
import json
import re
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def inspect(onnx_json, zoo_json, experts, hidden, width, shared_width):
    onnx_ops = {op["name"]: op for op in json.load(open(onnx_json))["ops"]}
    zoo = json.load(open(zoo_json))
    routed = [n for n in onnx_ops if re.fullmatch(r"/moe\.experts\.\d+\.down_proj", n)]
    if len(routed) != experts:
        fail(f"{onnx_json}: {len(routed)} routed experts, expected {experts}")
    if ("/moe.shared.down_proj" in onnx_ops) != (shared_width > 0):
        fail(f"{onnx_json}: shared expert present: {'/moe.shared.down_proj' in onnx_ops}")
    weights = 4 * (hidden * experts + experts * 3 * hidden * width + 3 * hidden * shared_width)
    got = json.load(open(onnx_json))["weight_bytes"]
    if got != weights:
        fail(f"{onnx_json}: weight_bytes {got}, the export's initializers are {weights}")
    compared = 0
    for op in zoo["ops"]:
        name = op["name"]
        if not name.startswith("layers.0.") or not re.match(
                r"layers\.0\.(router|experts\.|shared\.|moe$)", name):
            continue
        mine = onnx_ops.get("/moe" + name[len("layers.0.moe"):] if name.endswith(".moe")
                            else "/moe." + name[len("layers.0."):])
        if mine is None:
            fail(f"{onnx_json}: no op for the zoo's {name}")
        for key in ("kind", "einsum", "ranks", "flops", "bytes_out"):
            if mine[key] != op[key]:
                fail(f"{onnx_json}: {mine['name']} {key} {mine[key]} != zoo {name} {op[key]}")
        compared += 1
    print(f"{onnx_json}: {len(routed)} experts, {got:.0f} weight bytes, "
          f"{compared} ops equal to the zoo's")


def planned(log):
    # One chip's simulated table: design, planned, simulated, diff; a strategy's: design, step,
    # tokens/s, exposed collectives, bubble, simulated, diff. The diff is signed.
    number = r"([0-9.]+)"
    rows = (rf"^elk-full +{number} +{number} +[+-][0-9.]+%",
            rf"^elk-full +{number} +[0-9.]+ +[0-9.]+ +[0-9.]+% +{number} +[+-][0-9.]+%")
    for line in open(log):
        match = next((m for m in (re.match(row, line) for row in rows) if m), None)
        if match:
            step, simulated = float(match.group(1)), float(match.group(2))
            diff = simulated / step - 1
            if abs(diff) > 0.05:
                fail(f"{log}: planned {step} ms, simulated {simulated} ms ({diff:+.1%})")
            print(f"{log}: planned {step} ms, simulated {simulated} ms ({diff:+.1%})")
            return
    fail(f"{log}: no simulated elk-full row")


if __name__ == "__main__":
    if sys.argv[1] == "inspect":
        inspect(sys.argv[2], sys.argv[3], *map(int, sys.argv[4:8]))
    else:
        planned(sys.argv[2])
