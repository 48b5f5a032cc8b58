#!/usr/bin/env python3
# The traces of docs/memory.md's comparison with DRAMsim3, in DRAMsim3's trace format, to feed
# DRAMsim3 (dramsim3main CONFIG -c CYCLES -t TRACE) and `tessera memsim --trace`. splitmix64 with
# seed 7, as dramsim3_agreement_test.cpp's TraceGenerator, which makes the same requests in-process.
# usage: dramsim3_traces.py KIND MIX RATE CYCLES CAPACITY_BYTES REQUEST_BYTES > TRACE
#   KIND rand|seq|stride (8 KiB)   MIX r100|r70|r50 (write 0/30/50 %)|2r1w (3 streams, 3rd writes)
import sys
M = (1 << 64) - 1
class SplitMix:
    def __init__(s, seed): s.x = seed & M
    def next(s):
        s.x = (s.x + 0x9E3779B97F4A7C15) & M
        z = s.x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)
def gen(kind, mix, rate, cycles, capacity, line, out):
    rnd = SplitMix(7)
    lines = capacity // line
    n = int(cycles * rate)
    writes_per_1000 = {"r100": 0, "r70": 300, "r50": 500}.get(mix, 0)
    stride = 8192 // line  # in lines
    bases = [0, lines // 3, 2 * lines // 3]
    ptr = [0, 0, 0]
    for i in range(n):
        cyc = int(i / rate)  # rates are 1/k, exact in binary
        if mix == "2r1w":
            s = i % 3; w = s == 2
        else:
            s = 0; w = rnd.next() % 1000 < writes_per_1000
        if kind == "rand":
            l = rnd.next() % lines
        elif kind == "seq":
            l = bases[s] + ptr[s]; ptr[s] += 1
        else:
            l = bases[s] + ptr[s] * stride; ptr[s] += 1
        out.write("0x%x %s %d\n" % ((l % lines) * line, "WRITE" if w else "READ", cyc))
if __name__ == "__main__":
    gen(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
        int(sys.argv[6]), sys.stdout)
