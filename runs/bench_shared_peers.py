#!/usr/bin/env python3
"""Ranks that share cores with each other (more ranks than cores): how they wait.

`--wait auto` spins on such cores only where the MPI library says it yields
while it polls (Open MPI's mpi_yield_when_idle, on when it knows the node is
oversubscribed) and sleeps between polls otherwise (MPICH; Open MPI told not
to yield). This script runs NP ranks on the machine's cores with each
library and each wait mode, alternating (the order rotating every repeat),
and prints median times and the median of the paired ratios auto / spin and
auto / sleep (< 1: auto is faster). Before this rule auto always spun on
such cores: its old time is the spin column.

  runs/bench_shared_peers.py --lu-mpich build-mpich/bin/lu            # W, 3 ranks, 5 repeats
  runs/bench_shared_peers.py --cls A --np 3 --repeats 3 --lu-mpich build-mpich/bin/lu

Without --lu-mpich (a build against MPICH, runs/setup.sh with BUILD_DIR and
CMAKE_ARGS as in .ci/run) only the Open MPI cases run.
"""
import argparse
import os
import statistics
import sys

from lu_json import add_shared_core_arguments, median_range, run_report, script_main, shared_core_launchers

MODES = ["auto", "spin", "sleep"]


def launchers(args):
    """(label, launcher argv up to the program, lu) per library case."""
    ompi, mpich = shared_core_launchers(args.np)
    no_yield, _ = shared_core_launchers(args.np, mca=("--mca", "mpi_yield_when_idle", "0"))
    out = [("Open MPI (yields: oversubscribed)", ompi, args.lu), ("Open MPI told not to yield", no_yield, args.lu)]
    if args.lu_mpich:
        out.append(("MPICH", mpich, args.lu_mpich))
    return out


def run_once(launcher, lu, cls, mode):
    """Seconds, and how the ranks waited (the report's `waits`, each rule with its count)."""
    cmd = lambda path: [*launcher, lu, cls, "--quiet", "--wait", mode, "--json", path]
    r = run_report(cmd)
    return r["time_s"], ", ".join(f"{w} x{r['waits'].count(w)}" for w in sorted(set(r["waits"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_shared_core_arguments(ap)
    args = ap.parse_args()
    cases = launchers(args)
    times = {(c[0], m): [] for c in cases for m in MODES}
    chose = {c[0]: set() for c in cases}  # what auto resolved to, per library
    for rep in range(args.repeats):
        order = MODES[rep % 3:] + MODES[:rep % 3]
        for label, launcher, lu in cases:
            for mode in order:
                seconds, waits = run_once(launcher, lu, args.cls, mode)
                times[(label, mode)].append(seconds)
                if mode == "auto":
                    chose[label].add(waits)
        print(f"repeat {rep + 1}/{args.repeats} done", file=sys.stderr)
    print(f"class {args.cls}, {args.np} ranks on {os.cpu_count()} cores, medians of {args.repeats}")
    print(f"| library | auto s | spin s | sleep s | auto / spin | auto / sleep | auto waited (the report's waits) |")
    print("|---|---|---|---|---|---|---|")
    for label, _, _ in cases:
        med = {m: statistics.median(times[(label, m)]) for m in MODES}
        ratio = {m: [a / b for a, b in zip(times[(label, "auto")], times[(label, m)])] for m in MODES[1:]}
        cells = [f"{med[m]:.3f}" for m in MODES]
        cells += [median_range(r) for r in ratio.values()]
        cells.append("; ".join(sorted(chose[label])))
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    script_main(main)
