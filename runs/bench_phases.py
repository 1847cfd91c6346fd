#!/usr/bin/env python3
"""Per-phase timings of two builds of lu, side by side.

Runs --baseline-lu and --lu alternately, REPEATS times each, per forced
instruction-set level (NPBLU_ISA), and prints per phase the medians (min-max)
of both, baseline / ours (> 1: --lu is faster) and the median (min-max) of
the repeats' paired ratios (a repeat runs the two builds one after the other).
The phase timers say where a change to a kernel went when the total is within
this machine's drift; the field checksums of the two builds are printed too
(a kernel change that keeps the arithmetic keeps them).

  flock /tmp/npblu-timing.lock runs/bench_phases.py --baseline-lu /tmp/lu-before \\
      --levels v4 v3 --cls A --np 1 --repeats 5

A custom grid instead of a class (unverified: lu has no reference values for
it), e.g. a stripe of 16 columns on one rank, which lu sweeps plane by plane
like W's stripes on 2 ranks, without the pipeline's waits:

  runs/bench_phases.py --baseline-lu /tmp/lu-before --size 33 18 33 --iterations 300 --dt 0.0015

What a level gains on this CPU: --against-level LEVEL runs --lu itself at LEVEL as the baseline,
alternating with --lu at each of --levels (the two levels compute the same bits where both have FMA,
and the checksums say so), e.g. whether AVX-512 pays on a CPU whose 512-bit operations go through
256-bit units:

  runs/bench_phases.py --against-level v3 --levels v4 --cls A --np 2 --repeats 5
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_speed import paired_text  # noqa: E402
from lu_json import count, DEFAULT_LU, LEVELS, median_range, mpirun, run_lu, run_report, script_main  # noqa: E402

PHASES = {
    "total": ("time_s",),
    "rhs": ("rhs",),
    "sweeps' jacobians (jacld + jacu)": ("jacld", "jacu"),
    "sweeps' solves (blts + buts)": ("blts", "buts"),
    "update": ("update",),
}


def phase_times(report):
    """{phase: seconds} of one report (a timer's max over ranks)."""
    out = {}
    for phase, keys in PHASES.items():
        if keys == ("time_s",):
            out[phase] = report["time_s"]
        else:
            out[phase] = sum(report["timers"][k]["max"] for k in keys)
    return out


def custom_grid_run(lu, np, size, iterations, dt):
    """The report of a run on a custom grid (class U, unverified)."""
    grid = [str(n) for n in size]
    return run_report(lambda path: [*mpirun(), "-np", str(np), lu, "--size", *grid, "--iterations",
                                    str(iterations), "--dt", str(dt), "--quiet", "--json", path],
                      require_verified=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lu", default=DEFAULT_LU)
    baseline = ap.add_mutually_exclusive_group(required=True)
    baseline.add_argument("--baseline-lu", help="another build of lu, at the same level")
    baseline.add_argument("--against-level", choices=LEVELS, help="--lu itself at this level")
    ap.add_argument("--levels", nargs="+", default=["v4"], choices=LEVELS)
    ap.add_argument("--cls", default="A")
    ap.add_argument("--np", type=count(1), default=1)
    ap.add_argument("--repeats", type=count(1), default=5)
    ap.add_argument("--size", type=count(5), nargs=3, metavar=("NX", "NY", "NZ"),
                    help="a custom grid instead of --cls (needs --iterations and --dt)")
    ap.add_argument("--iterations", type=count(1), help="with --size")
    ap.add_argument("--dt", type=float, help="with --size")
    a = ap.parse_args()
    if a.size and (a.iterations is None or a.dt is None):
        ap.error("--size needs --iterations and --dt")
    if not a.size and (a.iterations is not None or a.dt is not None):
        ap.error("--iterations and --dt go with --size (a class runs its own)")
    args = []  # the class's own iterations: run_lu refuses a run that did not verify

    def run(lu):
        if a.size:
            return custom_grid_run(lu, a.np, a.size, a.iterations, a.dt)
        return run_lu(lu, a.cls, a.np, args)

    what = f"grid {'x'.join(map(str, a.size))}, {a.iterations} iterations" if a.size else f"class {a.cls}"
    for level in a.levels:
        # each build: (lu, the level it runs at)
        builds = {"baseline": (a.baseline_lu or a.lu, a.against_level or level), "ours": (a.lu, level)}
        times = {b: {p: [] for p in PHASES} for b in builds}
        checksums = {b: set() for b in builds}
        for _ in range(a.repeats):
            for b, (lu, lu_level) in builds.items():
                os.environ["NPBLU_ISA"] = lu_level
                report = run(lu)
                for p, t in phase_times(report).items():
                    times[b][p].append(t)
                checksums[b].add(report["field_checksum"])
        against = f" against --lu at {a.against_level}" if a.against_level else ""
        print(f"level {level}{against}, {what}, {a.np} rank(s), {a.repeats} alternated runs each; medians (min-max)")
        print("| phase | baseline s | ours s | baseline / ours | paired (range) |")
        print("|---|---|---|---|---|")
        for p in PHASES:
            ratio = statistics.median(times["baseline"][p]) / statistics.median(times["ours"][p])
            paired = paired_text({b: times[b][p] for b in builds}, "baseline", 3)
            print(f"| {p} | {median_range(times['baseline'][p])} | {median_range(times['ours'][p])} | {ratio:.3f} | {paired} |")
        print(f"checksums: baseline {sorted(checksums['baseline'])}, ours {sorted(checksums['ours'])}\n")


if __name__ == "__main__":
    script_main(main)
