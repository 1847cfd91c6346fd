#!/usr/bin/env python3
"""The price of column migration, before/after, as seconds and as a fraction
of an iteration.

Drives bench_migration (runs/bench_migration.cpp): NPB LU on equal stripes,
then steps that move C columns from rank 1 to rank 0 and back, each timed
from a barrier to the last rank done (migration only: no balancing decision,
no wait for a slower rank), with one timed iteration between steps. The
baseline is the same source built against another checkout's libraries
(--baseline-src, a checkout of the commit to compare with, and its build/), run alternating with ours, RUNS times
each, so machine drift hits both alike. Class A on 2 ranks has 31 columns
a stripe, so its large step is 29 (a stripe keeps at least 2).

  runs/bench_migration.py --baseline-src ../npblu-before --cases C:2 A:2:2,-2,29,-29 --runs 3
  runs/bench_migration.py --baseline-src /tmp/other-checkout --cases A:2

Each run does the step list --repeats times; the table separates a step's
first occurrence (a field may still have to grow its storage) from its
repeats (the steady state of a run that balances back and forth).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from lu_json import count, script_main

HERE = os.path.dirname(os.path.abspath(__file__))
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


def build_baseline(src, build, out):
    """bench_migration.cpp compiled against `src` and the libraries in `build`."""
    libs = [os.path.join(build, f"libnpblu_{n}.a") for n in ("solver", "verify")]
    missing = [l for l in libs if not os.path.exists(l)]
    if missing:
        sys.exit(f"baseline libraries missing: {' '.join(missing)} (build {src} first)")
    # The balancer's library was split in two (balance_decisions, mpi) since: link whichever the build has.
    libs += [l for l in (os.path.join(build, f"libnpblu_{n}.a") for n in ("balance", "balance_decisions", "mpi"))
             if os.path.exists(l)]
    cmd = ["mpicxx", "-std=c++20", "-O3", "-DNDEBUG", "-march=native", "-DOMPI_SKIP_MPICXX=1",
           "-DMPICH_SKIP_MPICXX=1", f"-I{src}", os.path.join(HERE, "bench_migration.cpp"),
           "-Wl,--start-group", *libs, "-Wl,--end-group", "-o", out]
    subprocess.run(cmd, check=True)
    return out


def run(bench, cls, np, repeats, steps):
    cmd = [*MPI, "-np", str(np), bench, cls, str(repeats), *map(str, steps)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def summarise(reports):
    """{(step, 'first'|'repeat'): [seconds...]}, [median iteration per run]."""
    rows, iterations = {}, []
    for r in reports:
        iterations.append(r["median_iteration_s"])
        seen = set()
        for c, s in zip(r["moved"], r["step_s"]):
            kind = "repeat" if c in seen else "first"
            seen.add(c)
            rows.setdefault((c, kind), []).append(s)
    return rows, iterations


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", default=os.path.join(HERE, "..", "build", "bin", "bench_migration"))
    p.add_argument("--baseline-src", required=True, help="a checkout of the commit to compare with")
    p.add_argument("--baseline-build", help="its build directory (default BASELINE_SRC/build)")
    p.add_argument("--baseline-bench", default="/tmp/bench_migration_baseline")
    p.add_argument("--cases", nargs="+", default=["C:2", "A:2:2,-2,29,-29"],
                   help="CLASS:RANKS[:STEPS], STEPS a comma list (default --steps)")
    p.add_argument("--steps", default="2,-2,30,-30",
                   help="columns moved to rank 0 per step (negative: back), e.g. 2,-2,30,-30")
    p.add_argument("--repeats", type=count(1), default=2, help="times each run does the step list")
    p.add_argument("--runs", type=count(1), default=3, help="runs of each program, alternating")
    a = p.parse_args()
    base = build_baseline(a.baseline_src, a.baseline_build or os.path.join(a.baseline_src, "build"),
                          a.baseline_bench)
    programs = {"before": base, "after": a.bench}
    for case in a.cases:
        cls, np, *rest = case.split(":")
        steps = [int(c) for c in (rest[0] if rest else a.steps).split(",")]
        reports = {name: [] for name in programs}
        for _ in range(a.runs):
            for name, exe in programs.items():
                reports[name].append(run(exe, cls, int(np), a.repeats, steps))
        print(f"\nclass {cls}, {np} ranks: {a.runs} runs each, alternating; steps {steps} x {a.repeats}")
        summary = {name: summarise(r) for name, r in reports.items()}
        for name, (_, its) in summary.items():
            print(f"  {name:6s} iteration: median {statistics.median(its) * 1e3:8.2f} ms "
                  f"(runs {', '.join(f'{t * 1e3:.1f}' for t in its)})")
        print(f"  {'step':>12s} {'before ms':>10s} {'iter':>6s} {'after ms':>10s} {'iter':>6s}  (median [min-max])")
        keys = sorted(summary["after"][0], key=lambda k: (abs(k[0]), -k[0], k[1]))
        for key in keys:
            cells = []
            for name in programs:
                rows, its = summary[name]
                s = rows.get(key, [])
                if not s:
                    cells.append(f"{'-':>10s} {'-':>6s}")
                    continue
                it = statistics.median(its)
                cells.append(f"{statistics.median(s) * 1e3:10.2f} {statistics.median(s) / it:6.3f}")
                cells[-1] += f" [{min(s) * 1e3:.1f}-{max(s) * 1e3:.1f}]"
            print(f"  {key[0]:+5d} {key[1]:>6s} " + "  ".join(cells))


if __name__ == "__main__":
    script_main(main)
