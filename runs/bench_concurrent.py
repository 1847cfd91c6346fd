#!/usr/bin/env python3
"""What computing on both cores at once costs a program, on this machine: lu against NPB's LU.

A run on 2 ranks computes on both cores at the same time; a run on 1 rank on one. Where the cores
share something (a hypervisor's vCPUs on the same physical core, a turbo frequency that falls with
the busy cores, a shared cache or memory bus), each rank of a 2-rank run computes slower than the
1-rank run did, and by how much depends on the program: no partition or pipeline can win that
back, and it is not NPB's loss when NPB's code leans less on what is shared.

For each program (lu, one rank, at --level; NPB's lu.CLASS.x, one rank, with --npb-bin), each
repeat runs it alone on core 0, then two copies at once, pinned to cores 0 and 1, and prints the
paired ratios concurrent / alone (> 1: slower beside the other copy): of the two copies' mean, and
of the slower copy (what a pipeline of two ranks waits for). Medians over the repeats, ranges
after them. Benchmarks are not tests: run it on a quiet machine, under the timing lock.

  flock /tmp/npblu-timing.lock runs/bench_concurrent.py --cls W --level v3 \\
      --npb-bin ~/NPB3.4-MPI/bin --repeats 8
"""
import argparse
import concurrent.futures
import os
import statistics
import sys

from lu_json import count, DEFAULT_LU, LEVELS, median_range, mpirun, run_lu, run_npb, script_main

CORES = (0, 1)


def time_lu(lu, cls, core):
    return run_lu(lu, cls, 1, [], pin=[core])["time_s"]


def time_npb(exe, core):
    return run_npb([*mpirun(), "-np", "1", "taskset", "-c", str(core), exe])


def alone_and_together(run):
    """run(core) alone on the first core, then on every core at once: (alone, [each copy])."""
    alone = run(CORES[0])
    with concurrent.futures.ThreadPoolExecutor(len(CORES)) as pool:
        together = list(pool.map(run, CORES))
    return alone, together


def summary(name, repeats):
    """One line: the medians of the times and of the paired ratios, with their ranges."""
    alone = [a for a, _ in repeats]
    mean = [statistics.mean(t) / a for a, t in repeats]
    slower = [max(t) / a for a, t in repeats]
    return (f"{name:>5} {median_range(alone):>22} {median_range([x for _, t in repeats for x in t]):>22} "
            f"{median_range(mean):>20} {median_range(slower):>20}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cls", default="W", help="NPB class (default W)")
    p.add_argument("--level", choices=LEVELS, help="lu's kernels (NPBLU_ISA); default: the CPU's")
    p.add_argument("--npb-bin", help="directory holding NPB's lu.<class>.x")
    p.add_argument("--repeats", type=count(1), default=5)
    a = p.parse_args()
    if len(os.sched_getaffinity(0)) < len(CORES):
        sys.exit(f"needs cores {CORES} to run on; this process may use {sorted(os.sched_getaffinity(0))}")
    if a.level:
        os.environ["NPBLU_ISA"] = a.level
    programs = [("lu", lambda core: time_lu(a.lu, a.cls, core))]
    if a.npb_bin:
        exe = os.path.join(a.npb_bin, f"lu.{a.cls}.x")
        if not os.path.exists(exe):
            sys.exit(f"--npb-bin {a.npb_bin}: no {exe}")
        programs.append(("NPB", lambda core: time_npb(exe, core)))
    results = {name: [] for name, _ in programs}
    for r in range(a.repeats):
        for name, run in programs[r % len(programs):] + programs[:r % len(programs)]:
            alone, together = alone_and_together(run)
            results[name].append((alone, together))
            print(f"  repeat {r + 1} {name}: alone {alone:.3f} s, together {together[0]:.3f} and "
                  f"{together[1]:.3f} s", flush=True)
    print(f"\nclass {a.cls}, 1 rank, level {os.environ.get('NPBLU_ISA', 'auto')} (lu); medians (range) "
          f"of {a.repeats} repeats")
    print(f"{'':>5} {'alone s':>22} {'together s':>22} {'together/alone':>20} {'slower/alone':>20}")
    for name, repeats in results.items():
        print(summary(name, repeats))


if __name__ == "__main__":
    script_main(main)
