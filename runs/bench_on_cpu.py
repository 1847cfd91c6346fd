#!/usr/bin/env python3
"""Before/after on a loaded machine: the CPU seconds the timed iterations
ran on a core, not the wall time.

When the cores are shared with other work, wall times swing by 2x from one
run to the next and runs/bench_speed.py's ratios say little. The JSON
report's per-iteration on_cpu_s (Linux schedstat: seconds actually running)
leaves out the time a rank was runnable but descheduled. On one rank it is
the compute time (no MPI waits); on several it also counts spinning in MPI
waits, so use 1-rank cases to compare kernels and layouts. Alternates the
two builds, REPEATS runs each, and prints the medians and before/after
(> 1: --lu uses less CPU).

  runs/bench_on_cpu.py --baseline-lu ../npblu-before/build/bin/lu --cases W:1 A:1 --repeats 5
"""
import argparse
import statistics

from lu_json import count, DEFAULT_LU, run_lu, script_main


def on_cpu_seconds(report):
    """Sum over timed iterations and ranks of on_cpu_s."""
    return sum(sum(ranks) for ranks in report["history"]["on_cpu_s"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--baseline-lu", required=True)
    p.add_argument("--cases", nargs="+", default=["W:1", "A:1"], help="CLASS:RANKS")
    p.add_argument("--repeats", type=count(1), default=5)
    a = p.parse_args()
    print(f"{'class':>5s} {'ranks':>5s} {'before cpu s':>12s} {'after cpu s':>12s} {'before/after':>12s}"
          f"   (wall s medians: before, after)")
    for case in a.cases:
        cls, np = case.split(":")
        runs = {"before": [], "after": []}
        for _ in range(a.repeats):
            for name, lu in (("before", a.baseline_lu), ("after", a.lu)):
                r = run_lu(lu, cls, int(np), [])
                runs[name].append((on_cpu_seconds(r), r["time_s"]))
        med = {k: statistics.median(c for c, _ in v) for k, v in runs.items()}
        wall = {k: statistics.median(t for _, t in v) for k, v in runs.items()}
        print(f"{cls:>5s} {np:>5s} {med['before']:12.3f} {med['after']:12.3f} {med['before'] / med['after']:12.3f}"
              f"   ({wall['before']:.2f}, {wall['after']:.2f})")
        for k, v in runs.items():
            print(f"      {k:6s} cpu s {', '.join(f'{c:.3f}' for c, _ in v)}")


if __name__ == "__main__":
    script_main(main)
