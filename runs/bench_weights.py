#!/usr/bin/env python3
"""Static weights under emulated heterogeneity, as ratios to the ideal.

For one class on P ranks with --emulate-speeds S (default: class A, 2 ranks,
1,0.444 — the thesis's 450 MHz + 200 MHz pair), runs each weight source,
alternating between them REPEATS times, and prints median time, imbalance
factor, widths and the ratio to the ideal

    ideal = T(equal partition, no emulation, same P) * P / sum(s_r)

i.e. the equal-partition time if every rank's work were scaled to its speed.
mflops and bogomips measure the real cores, which are equal on a homogeneous
machine: they stay near the unbalanced time, honestly.

  runs/bench_weights.py
  runs/bench_weights.py --cls W --np 3 --speeds 1,0.5,0.74 --repeats 5
"""
import argparse
import statistics
import sys

from lu_json import count, DEFAULT_LU, run_lu, script_main


def run(lu, cls, np, args):
    return run_lu(lu, cls, np, args)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cls", default="A")
    p.add_argument("--np", type=count(1), default=2)
    p.add_argument("--speeds", default="1,0.444")
    p.add_argument("--repeats", type=count(1), default=3)
    a = p.parse_args()
    speeds = [float(s) for s in a.speeds.split(",")]
    if len(speeds) != a.np:
        sys.exit("--speeds needs one value per rank")

    emulate = ["--emulate-speeds", a.speeds]
    variants = {
        "equal (no emulation)": [],
        "equal": emulate,
        f"list {a.speeds}": ["--weights", a.speeds, *emulate],
        "mflops": ["--weights", "mflops", *emulate],
        "bogomips": ["--weights", "bogomips", *emulate],
        "calibrate": ["--weights", "calibrate", *emulate],
    }
    results = {name: [] for name in variants}
    for rep in range(a.repeats):
        for name, args in variants.items():
            results[name].append(run(a.lu, a.cls, a.np, args))
        print(f"repeat {rep + 1}/{a.repeats}: " +
              ", ".join(f"{n} {results[n][-1]['time_s']:.2f}s" for n in variants), flush=True)

    base = statistics.median(r["time_s"] for r in results["equal (no emulation)"])
    ideal = base * a.np / sum(speeds)
    print(f"\nclass {a.cls}, {a.np} ranks, emulated speeds {a.speeds}, medians of {a.repeats}")
    print(f"ideal = {base:.3f} s * {a.np} / {sum(speeds):.3f} = {ideal:.3f} s\n")
    print(f"{'weights':24} {'time s':>8} {'/ideal':>7} {'imbalance':>10}  columns")
    for name, runs in results.items():
        t = statistics.median(r["time_s"] for r in runs)
        imb = statistics.median(r["imbalance"] for r in runs)
        cols = runs[len(runs) // 2]["columns"]
        print(f"{name:24} {t:8.3f} {t / ideal:7.3f} {imb:10.3f}  {','.join(map(str, cols))}")


if __name__ == "__main__":
    script_main(main)
