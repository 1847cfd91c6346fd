#!/usr/bin/env python3
"""The legacy F77 heat-equation code balancing its own columns with npblu's
balancer (interop/examples/heat_balance.f): balanced time / unbalanced time,
side by side, against the ideal.

Each run of heat_balance times the code twice in one MPI session, first on
its own equal columns and then with the balancer (NPBLU_BAL_*), with rank
ISLOW doing its stencil work KSLOW times. The ideal ratio, with the slow
rank at speed 1/k and P - 1 ranks at speed 1, is the equal stripes' time
k * N / P over the best split's N / (P - 1 + 1/k):  P / (k (P - 1) + 1).
A control run with no slow rank (k = 1, nothing should move) shows what the
order of the two runs and the balancer's own cost do to the ratio.

The time ratio assumes ranks that differ only by k. Balance quality itself is
the bottleneck ratio: max over ranks of width / speed over the best
whole-column partition's (tests/best_partition.py), at the per-column speeds
the ranks measured. heat_balance prints each rank's columns and compute
seconds per window of --window steps (its NWIN); per run this prints the
median, worst and last window of the unbalanced run (its equal columns:
1.000 when the ranks were equal apart from k) and of the balanced run after
its last change. And since a step's halo exchange and timers cost the same on
any partition, the ideal that keeps them: (unbalanced time - its slowest
rank's compute + the best partition's compute at the speeds measured) /
unbalanced time, from the unbalanced run's windows.
Ranks beyond the machine's cores share them: the ideal then no longer holds.

  runs/bench_legacy_balance.py                      # P=2, k=3, 5 repeats
  runs/bench_legacy_balance.py --np 2 --slow 2 --repeats 7 --size 512 480 --steps 3000
  runs/bench_legacy_balance.py --baseline-program OTHER/heat_balance   # two builds, alternating

With --baseline-program, each repeat runs the baseline build's heat_balance
and this one's in turn (same cases), so the VM's drift hits both alike, and
each build's rows are printed, with the runs that moved columns counted.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from lu_json import count, mpirun, script_main

# The bottleneck ratio's one Python home, the tests' independent oracle.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from best_partition import best_bottleneck, quality  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROGRAM = os.path.join(HERE, "..", "build", "bin", "heat_balance")
TIMES = re.compile(r"TIME UNBALANCED\s+(\S+) S BALANCED\s+(\S+) S")
MOVED = re.compile(r"MOVED COLUMNS\s+(\d+)")
FINAL = re.compile(r"FINAL COLUMNS PER RANK(.*)")
WINDOW = re.compile(r"WINDOW (UNBALANCED|BALANCED)\s+STEP\s+(\d+) CHANGES\s+(\d+) COLUMNS(.*)\n\s*WINDOW SECONDS(.*)")


def window_qualities(out):
    """Per run (UNBALANCED, BALANCED): the bottleneck ratio of each window
    whose columns held throughout it, after the run's last change; and the
    unbalanced run's compute seconds, summed over its windows, of its slowest
    rank and of the best partition at the speeds measured there."""
    runs = {"UNBALANCED": [], "BALANCED": []}
    slowest = best = 0.0
    for label, _, changes, cols, secs in WINDOW.findall(out):
        widths = [int(x) for x in cols.split()]
        seconds = [float(t) for t in secs.split()]
        speeds = [w / t for w, t in zip(widths, seconds)]
        if int(changes) > 0:
            runs[label].clear()  # only the windows after the last change count
        else:
            runs[label].append(quality(widths, speeds))
        if label == "UNBALANCED":
            slowest += max(seconds)
            best += best_bottleneck(sum(widths), speeds)
    return runs, slowest, best


def run(a, slow, program):
    cmd = [*mpirun(), "-np", str(a.np), program, str(a.size[0]), str(a.size[1]), str(a.steps), "1", str(slow),
           str(a.every), str(a.window)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    unbalanced, balanced = (float(t) for t in TIMES.search(out).groups())
    q, slowest, best = window_qualities(out)
    # The ideal that keeps what balancing cannot shrink: the unbalanced run's time beyond its slowest
    # rank's compute (halo exchanges, timers: a fixed cost per step), plus the best partition's compute.
    ideal = (unbalanced - slowest + best) / unbalanced if slowest > 0 else None
    return {"unbalanced": unbalanced, "balanced": balanced, "ratio": balanced / unbalanced, "ideal": ideal,
            "moved": int(MOVED.search(out).group(1)), "final": FINAL.findall(out)[-1].split(),
            "equal": q["UNBALANCED"], "settled": q["BALANCED"], "window": a.window}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--program", default=DEFAULT_PROGRAM)
    p.add_argument("--np", type=count(1), default=2)
    p.add_argument("--slow", type=count(1), default=3, help="KSLOW: rank 1 repeats its work this many times")
    p.add_argument("--size", type=count(1), nargs=2, default=[512, 480], metavar=("NX", "NCOLS"))
    p.add_argument("--steps", type=count(1), default=3000)
    p.add_argument("--every", type=count(1), default=5)
    p.add_argument("--repeats", type=count(1), default=5)
    p.add_argument("--window", type=count(1), default=100, help="NWIN: steps per window of the balance quality")
    p.add_argument("--baseline-program", help="another build's heat_balance, run alternating with --program")
    a = p.parse_args()
    builds = {"": a.program} if not a.baseline_program else {"baseline": a.baseline_program, "this": a.program}
    rows = {(b, case): [] for b in builds for case in ("slow", "control")}
    for _ in range(a.repeats):  # alternating, so drift hits every build and case alike
        for b, program in builds.items():
            rows[(b, "slow")].append(run(a, a.slow, program))
            rows[(b, "control")].append(run(a, 1, program))
    ideal = a.np / (a.slow * (a.np - 1) + 1)
    print(f"heat_balance on {a.np} ranks, {a.size[0]} x {a.size[1]}, {a.steps} steps, every {a.every}, "
          f"{a.repeats} repeats (medians)")
    for b, program in builds.items():
        if b:
            print(f" {b}: {program}")
        for name, label in (("slow", f"rank 1 x{a.slow}"), ("control", "no slow rank")):
            print_row(label, rows[(b, name)])
    print(f"  ideal balanced/unbalanced with rank 1 x{a.slow}: {ideal:.3f} = P / (k (P - 1) + 1)")


def print_row(label, r):
    ratios = [x["ratio"] for x in r]
    moved = [x["moved"] for x in r]
    print(f"  {label:>14}: unbalanced {statistics.median(x['unbalanced'] for x in r):.3f} s, "
          f"balanced {statistics.median(x['balanced'] for x in r):.3f} s, "
          f"balanced/unbalanced {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}); "
          f"columns moved {statistics.median(moved):.0f} (runs that moved {sum(m > 0 for m in moved)} of {len(r)}); "
          f"last final widths {' '.join(r[-1]['final'])}")
    print(f"  {'':>14}  ratios {' '.join(f'{x:.3f}' for x in ratios)}; moved {' '.join(map(str, moved))}")
    if all(x["ideal"] for x in r):
        ideals = " ".join(f"{x['ideal']:.3f}" for x in r)
        over = " ".join(f"{x['ratio'] / x['ideal']:.3f}" for x in r)
        print(f"  {'':>14}  ideal keeping the unbalanced run's time beyond its slowest rank's compute, per run: "
              f"{ideals}; balanced / unbalanced over that ideal: {over}")
    print(f"  {'':>14}  bottleneck / best per window of {r[0]['window']} steps, median / worst / last, per run:")
    print(f"  {'':>14}    unbalanced (equal columns; 1.000: equal ranks apart from k): "
          f"{' '.join(window_summary(x['equal']) for x in r)}")
    print(f"  {'':>14}    balanced, after its last change: {' '.join(window_summary(x['settled']) for x in r)} "
          f"({' '.join(str(len(x['settled'])) for x in r)} windows)")


def window_summary(q):
    if not q:
        return "n/a"
    return f"{statistics.median(q):.3f}/{max(q):.3f}/{q[-1]:.3f}"


if __name__ == "__main__":
    script_main(main)
