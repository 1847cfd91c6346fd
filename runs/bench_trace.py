#!/usr/bin/env python3
"""Tracing overhead: time with --trace / time without, medians of
alternating runs (class A on 2 ranks by default).

  runs/bench_trace.py --repeats 7
  runs/bench_trace.py --cls W --flush 1     # the traced run flushes (and agrees) every iteration
"""
import argparse
import statistics
import tempfile

from lu_json import count, DEFAULT_LU, run_lu, script_main


def run(a, extra):
    with tempfile.TemporaryDirectory() as d:
        return run_lu(a.lu, a.cls, a.np, [*a.args, *[x.replace("DIR", d) for x in extra]])["time_s"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cls", default="A")
    p.add_argument("--np", type=count(1), default=2)
    p.add_argument("--repeats", type=count(1), default=7)
    p.add_argument("--flush", type=count(0), default=0, help="--trace-flush for the traced variant (default: lu's)")
    p.add_argument("args", nargs="*", help="extra lu arguments for both variants")
    a = p.parse_args()
    plain, traced = [], []
    for _ in range(a.repeats):
        plain.append(run(a, []))
        flush = ["--trace-flush", str(a.flush)] if a.flush else []
        traced.append(run(a, ["--trace", "DIR/t.h5", *flush]))
    m0, m1 = statistics.median(plain), statistics.median(traced)
    print(f"without trace {[round(t, 3) for t in plain]}\nwith trace    {[round(t, 3) for t in traced]}")
    print(f"median without {m0:.3f} s, with {m1:.3f} s, ratio with/without {m1 / m0:.4f}")


if __name__ == "__main__":
    script_main(main)
