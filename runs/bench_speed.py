#!/usr/bin/env python3
"""Speed benchmark: our LU against NPB 3.4's Fortran LU, as ratios.

Runs each configuration REPEATS times, alternating between the programs (the
order rotating each repeat) so that machine noise hits all alike, and prints
median times, Mop/s and the ratio NPB time / our time (> 1: we are faster) as
the median of the repeats' paired ratios (NPB / ours within one repeat, the two
run next to each other), with its range.

The Fortran reference is not part of this project: build NPB 3.4 MPI LU
yourself (make LU CLASS=A, ...) and pass its bin directory with --npb-bin to
run it side by side (it expects lu.A.x, lu.B.x, ...). Without it the
ratios are against the figures measured on this machine kind and recorded
in the issue tracker (gfortran 12 -O3 -march=native, Open MPI 4.1.4).

  runs/bench_speed.py                      # W/1, A/1, A/2, B/2
  runs/bench_speed.py --cases A:1 A:2 --repeats 5 --npb-bin ~/NPB3.4-MPI/bin

Before/after a change of ours: --baseline-lu OTHER/bin/lu runs another build
of lu alternating with --lu in the same way and prints baseline / ours too
(> 1: --lu is faster), e.g.

  runs/bench_speed.py --baseline-lu /tmp/lu-before --cases W:1 A:2 --repeats 5

Per instruction-set level of the kernels (lu/isa.hpp; NPBLU_ISA is set for every program run, so
a --baseline-lu or NPB run ignores it): --levels baseline v3 v4 repeats every case at each level,
and --driver build/bin/timed_driver (interop/examples/timed_driver.f90, module npblu calling
libnpblu.so) times the library alternating with lu: driver / lu should be 1. Every ratio is a median
of paired ratios (other / lu within one repeat), with its range: on a machine whose speed drifts over
minutes a ratio of medians can pair one program's fast runs with the other's slow ones.

NPB built with -march=native on an AVX-512 machine uses AVX-512 whatever level our kernels run:
--npb-bin-level v3=DIR adds NPB built for that level (-march=x86-64-v3: what an AVX2-only machine's
-march=native gives, near enough) as a further program at that level, column NPB@level/lu.

  runs/bench_speed.py --levels v3 v4 --driver build/bin/timed_driver --npb-bin ~/NPB3.4-MPI/bin \
      --cases W:1 A:1 A:2 B:2 C:2 --repeats 3
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from lu_json import count, DEFAULT_LU, LEVELS, median_range, mpirun, run_lu, run_npb as run_npb_command, script_main
from npb_classes import GRID, ITERATIONS

RECORDED_NPB_SECONDS = {("W", 1): 2.39, ("A", 1): 19.25, ("A", 2): 9.38, ("B", 2): 43.4}
MPI = mpirun("core")


def run_ours(lu, cls, np):
    return run_lu(lu, cls, np, [], bind="core")["time_s"]


def run_npb(npb_bin, cls, np):
    exe = os.path.join(npb_bin, f"lu.{cls}.x")
    if not os.path.exists(exe):
        return None
    return run_npb_command([*MPI, "-np", str(np), exe])


def run_driver(driver, cls, np):
    out = subprocess.run([*MPI, "-np", str(np), driver, cls], check=True, capture_output=True, text=True).stdout
    m = re.search(r"isa=(\S+) verified=T seconds=([0-9.]+)", out)
    if not m:
        sys.exit(f"{driver} {cls} on {np} ranks: no verified result")
    return float(m.group(2))


def mops(cls, seconds):
    n = GRID[cls]
    it = ITERATIONS[cls]
    mean = n
    return 1e-6 * it * (1984.77 * n**3 - 10923.3 * mean**2 + 27770.9 * mean - 144010.0) / seconds


def time_case(a, cls, np):
    """Each program's times, one per repeat, run alternately (the order rotates each repeat)."""
    programs = [("ours", lambda: run_ours(a.lu, cls, np))]
    if a.driver:
        programs.append(("driver", lambda: run_driver(a.driver, cls, np)))
    if a.baseline_lu:
        programs.append(("baseline", lambda: run_ours(a.baseline_lu, cls, np)))
    if a.npb_bin and os.path.exists(os.path.join(a.npb_bin, f"lu.{cls}.x")):
        programs.append(("npb", lambda: run_npb(a.npb_bin, cls, np)))
    level_bin = npb_bin_for_level(a)
    if level_bin and os.path.exists(os.path.join(level_bin, f"lu.{cls}.x")):
        programs.append(("npb_level", lambda: run_npb(level_bin, cls, np)))
    times = {name: [] for name, _ in programs}
    for r in range(a.repeats):
        for name, f in programs[r % len(programs):] + programs[:r % len(programs)]:
            times[name].append(f())
    print(f"  {cls}:{np} " + "  ".join(f"{n} {[round(x, 3) for x in t]}" for n, t in times.items()), flush=True)
    return times


def parse_level_bins(texts):
    """--npb-bin-level LEVEL=DIR, repeated: {LEVEL: DIR}."""
    bins = {}
    for text in texts or []:
        level, sep, directory = text.partition("=")
        if not sep or level not in LEVELS or not directory:
            sys.exit(f"--npb-bin-level wants LEVEL=DIR with LEVEL one of {', '.join(LEVELS)}; got '{text}'")
        if not os.path.isdir(directory):
            sys.exit(f"--npb-bin-level {text}: no directory '{directory}'")
        bins[level] = directory
    return bins


def npb_bin_for_level(a):
    """NPB built for the level being timed (--npb-bin-level), if any."""
    return a.npb_level_bins.get(os.environ.get("NPBLU_ISA", ""))


def paired_ratios(times, key):
    """other / lu within each repeat: the two ran next to each other, so a
    drift of the machine over the repeats cancels (a ratio of medians keeps
    it when the programs' fast and slow runs fall in different repeats)."""
    return sorted(o / t for o, t in zip(times[key], times["ours"]))


def paired_text(times, key, digits):
    """The median of the paired ratios and their range, as text."""
    return median_range(paired_ratios(times, key), digits)


def print_level_table(level, rows):
    print(f"\nlevel {level}: medians of the times; each ratio is the median of the repeats' paired ratios "
          f"(other / lu in one repeat), its range after it")
    print(f"level {level}: {'class':>5} {'ranks':>5} {'lu s':>8} {'driver s':>9} {'driver/lu':>22} "
          f"{'NPB s':>8} {'NPB/lu':>19} {'baseline s':>11} {'baseline/lu':>22} {'NPB@level s':>11} "
          f"{'NPB@level/lu':>19}")
    for cls, np, times in rows:
        t = statistics.median(times["ours"])

        def col(key, width, ratio_width):
            if key not in times:
                return f"{'-':>{width}} {'-':>{ratio_width}}"
            return f"{statistics.median(times[key]):{width}.3f} {paired_text(times, key, 3):>{ratio_width}}"
        print(f"level {level}: {cls:>5} {np:>5} {t:8.3f} {col('driver', 9, 22)} {col('npb', 8, 19)} "
              f"{col('baseline', 11, 22)} {col('npb_level', 11, 19)}")


def main_levels(a):
    for level in a.levels:
        os.environ["NPBLU_ISA"] = level
        rows = []
        for case in a.cases:
            cls, np = case.split(":")
            rows.append((cls, int(np), time_case(a, cls, int(np))))
        print_level_table(level, rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cases", nargs="+", default=["W:1", "A:1", "A:2", "B:2"], help="CLASS:RANKS")
    p.add_argument("--repeats", type=count(1), default=3)
    p.add_argument("--npb-bin", help="directory holding NPB's lu.<class>.x, to run side by side")
    p.add_argument("--npb-bin-level", action="append", metavar="LEVEL=DIR",
                   help="NPB built for one level (e.g. v3=DIR: gfortran -march=x86-64-v3), run beside --npb-bin "
                        "at that level; repeatable")
    p.add_argument("--baseline-lu", help="another build's lu, alternated with --lu (before/after a change)")
    p.add_argument("--levels", nargs="+", choices=LEVELS,
                   help="NPBLU_ISA levels to time, one table each")
    p.add_argument("--driver", help="the Fortran timed_driver (libnpblu.so), alternated with --lu")
    a = p.parse_args()
    a.npb_level_bins = parse_level_bins(a.npb_bin_level)
    if a.npb_level_bins and not a.levels:
        sys.exit("--npb-bin-level needs --levels (it is NPB built for one of them)")
    if a.levels or a.driver:
        return main_levels(a) if a.levels else main_levels_default(a)
    rows = []
    for case in a.cases:
        cls, np = case.split(":")
        rows.append((cls, int(np), time_case(a, cls, int(np))))
    print_default_table(a, rows)


def print_default_table(a, rows):
    """NPB / ours and baseline / ours as medians of paired ratios (as the
    per-level tables); without --npb-bin, NPB's recorded time over ours."""
    print(f"\n{'class':>5} {'ranks':>5} {'ours s':>9} {'Mop/s':>10} {'Mop/s/rank':>11} {'NPB s':>8} "
          f"{'NPB/ours':>19}  reference")
    for cls, np, times in rows:
        t = statistics.median(times["ours"])
        m = mops(cls, t)
        if "npb" in times:
            ref, ratio, kind = statistics.median(times["npb"]), paired_text(times, "npb", 2), "measured, paired"
        else:
            ref = RECORDED_NPB_SECONDS.get((cls, np))
            ratio, kind = (f"{ref / t:.2f}", "recorded") if ref else ("-", "")
        refs = f"{ref:8.2f}" if ref else f"{'-':>8}"
        print(f"{cls:>5} {np:>5} {t:9.3f} {m:10.0f} {m / np:11.0f} {refs} {ratio:>19}  {kind}")
    if a.baseline_lu:
        print(f"\n{'class':>5} {'ranks':>5} {'baseline s':>11} {'ours s':>9} {'baseline/ours':>22}"
              f"   (--baseline-lu {a.baseline_lu}, --lu {a.lu}; paired)")
        for cls, np, times in rows:
            tb, t = statistics.median(times["baseline"]), statistics.median(times["ours"])
            print(f"{cls:>5} {np:>5} {tb:11.3f} {t:9.3f} {paired_text(times, 'baseline', 3):>22}")
    by_key = {(c, n): statistics.median(times["ours"]) for c, n, times in rows}
    for cls in sorted({c for c, *_ in rows}):
        if (cls, 1) in by_key and (cls, 2) in by_key:
            print(f"speed-up class {cls}, 2 ranks over 1: {by_key[(cls, 1)] / by_key[(cls, 2)]:.2f}")


def main_levels_default(a):
    a.levels = [os.environ.get("NPBLU_ISA", "auto")]
    os.environ["NPBLU_ISA"] = a.levels[0]
    main_levels(a)


if __name__ == "__main__":
    script_main(main)
