#!/usr/bin/env python3
"""What a grid point costs as the grid's dimensions change, one at a time.

Runs lu on custom grids (--size NX NY NZ, class U: unverified, NPB's class A
time step by default), alternating the sizes round by round so that the
machine's drift falls on all of them alike, per forced instruction-set level
(NPBLU_ISA), and prints per size the medians of each phase's nanoseconds per
interior point and iteration (a timer's max over ranks) and the total against
the first size's. Changing nx alone (the row the sweeps and rhs work along),
ny alone (the columns: a plane's width) or nz alone (the planes: the field's
size, past the last-level cache) says which of them makes the larger classes'
points dearer.

  flock /tmp/npblu-timing.lock python3 runs/bench_sizes.py --levels v3 v4 \\
      --sizes 64x64x64 64x64x162 64x162x64 102x64x64 162x64x64 102x102x102 --repeats 3
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_phases import PHASES, phase_times  # noqa: E402
from lu_json import count, DEFAULT_LU, LEVELS, mpirun, run_report, script_main  # noqa: E402


def parse_size(text):
    try:
        nx, ny, nz = (int(v) for v in text.lower().split("x"))
    except ValueError:
        sys.exit(f"--sizes: '{text}' is not NXxNYxNZ (e.g. 64x64x64)")
    return nx, ny, nz


def run_size(lu, size, np, iterations, dt):
    """{phase: ns per interior point and iteration} of one run of a custom grid."""
    nx, ny, nz = size
    args = ["--size", str(nx), str(ny), str(nz), "--iterations", str(iterations), "--dt", str(dt)]
    report = run_report(lambda path: [*mpirun(), "-np", str(np), lu, *args, "--quiet", "--json", path],
                        require_verified=False)
    points = (nx - 2) * (ny - 2) * (nz - 2) * report["iterations_run"]
    return {p: t / points * 1e9 for p, t in phase_times(report).items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lu", default=DEFAULT_LU)
    ap.add_argument("--sizes", nargs="+", default=["64x64x64", "64x64x162", "64x162x64", "102x64x64"])
    ap.add_argument("--levels", nargs="+", default=["v4"], choices=LEVELS)
    ap.add_argument("--np", type=count(1), default=1)
    ap.add_argument("--iterations", type=count(1), default=20)
    ap.add_argument("--dt", type=float, default=2.0)
    ap.add_argument("--repeats", type=count(1), default=3)
    a = ap.parse_args()
    sizes = [parse_size(s) for s in a.sizes]
    for level in a.levels:
        os.environ["NPBLU_ISA"] = level
        ns = {s: {p: [] for p in PHASES} for s in sizes}
        for _ in range(a.repeats):
            for s in sizes:
                for p, v in run_size(a.lu, s, a.np, a.iterations, a.dt).items():
                    ns[s][p].append(v)
        med = {s: {p: statistics.median(v) for p, v in ns[s].items()} for s in sizes}
        print(f"level {level}, {a.np} rank(s), {a.iterations} iterations, {a.repeats} alternated runs a size; "
              "ns per interior point and iteration, medians")
        print("| nx x ny x nz | " + " | ".join(PHASES) + " | total / first size's |")
        print("|---" * (len(PHASES) + 2) + "|")
        for s in sizes:
            cells = " | ".join(f"{med[s][p]:.1f}" for p in PHASES)
            print(f"| {s[0]} x {s[1]} x {s[2]} | {cells} | {med[s]['total'] / med[sizes[0]]['total']:.3f} |")
        print()


if __name__ == "__main__":
    script_main(main)
