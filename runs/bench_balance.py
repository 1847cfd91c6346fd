#!/usr/bin/env python3
"""Quality of the diffusive balancer, as times and ratios to the ideal.

Scenarios (class A, 2 ranks unless said):
  steady    --emulate-speeds 1,0.444 from equal stripes: diffusive vs static
            (exact weights) vs off; window imbalance of iterations 11-20 and
            21-30; time / ideal, ideal = T(equal, no emulation) * P / sum(s);
            and the balance quality after iteration 30: the bottleneck ratio
            (max width / speed over the best whole-column partition's, at
            the speeds each rank measured), per iteration and per 10
            iterations, median, worst and last
  changing  --emulate-speeds '1,1;@80:1,0.5': diffusive vs static vs off;
            imbalance of iterations 81-90 and 91-100; ideal integrates
            P / sum(s) over the schedule; the bottleneck ratio after 100
  noharm    2 equal ranks, diffusive (--balance-every 1, 5, 20) vs off, and
            diffusive held (gathers and decides, never moves: the price of
            deciding alone), every variant in each repeat in a rotated order;
            the median of paired ratios to the same repeat's off run with its
            95% interval; columns moved after iteration 20 (must be 0) and
            time diffusive/off (within 1%); and whether the ranks were
            equal: each off run's compute imbalance, and each diffusive run's
            equal stripes over the best whole-column partition at the speeds
            it measured after iteration 20 (tests/best_partition.py); each
            step after iteration 20 with the compute imbalance measured in the
            windows before and after it (the decision log)
  defaults  the choice of --balance-every K and --balance-damping A: for each
            pair, steady 1,0.444 (time / ideal, imbalance 21-30) and 2 equal
            ranks (columns moved after iteration 20: oscillation)
  real      3 ranks on 2 cores (rank 0 alone on core 0, ranks 1 and 2
            sharing core 1 via taskset): off vs diffusive vs three static
            stripes, final widths and each rank's core share

  runs/bench_balance.py                       # all scenarios, 3 repeats
  runs/bench_balance.py --only noharm --repeats 7
"""
import argparse
import math
import os
import statistics
import sys

from lu_json import core_shares, count, DEFAULT_LU, run_lu, script_main
from npb_classes import GRID, ITERATIONS

# The bottleneck ratio's one Python home, the tests' independent oracle.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from best_partition import equal_widths, quality  # noqa: E402


def run(a, np, args, pin=None):
    return run_lu(a.lu, a.cls, np, args, pin=pin)


def window_imbalance(r, first, last):
    """max/mean over ranks of compute summed over 1-based iterations first..last."""
    rows = r["history"]["compute_s"][first - 1:last]
    sums = [sum(row[k] for row in rows) for k in range(len(rows[0]))]
    return max(sums) / (sum(sums) / len(sums))


def median_run(runs):
    t = statistics.median(r["time_s"] for r in runs)
    return min(runs, key=lambda r: abs(r["time_s"] - t))


def late_moves(r, after):
    return sum(abs(m["columns"]) for m in r["balance_moves"] if m["iteration"] > after)


def late_steps(r, after):
    """The decision log's steps after iteration `after`, each as iteration, columns moved and the
    compute imbalance (max / mean over ranks) measured in the window before and after it: a step
    that answered a real difference of speed lowers it; one taken on noise leaves it where it was."""
    return [f"it {d['iteration']}: {d['moved_columns']} col, measured {d['measured_imbalance_before']:.3f}"
            f" -> {d['measured_imbalance_after']:.3f}" for d in r["decisions"] if d["iteration"] > after]


def iteration_widths(h, i):
    return [e - b for b, e in zip(h["column_begin"][i], h["column_end"][i])]


def settled_quality(r, settle, window=10):
    """The bottleneck ratio after iteration `settle`: max over ranks of width /
    speed over the best whole-column partition's, at the per-column speeds
    the ranks measured (emulated slowdown and the vCPUs' own speeds included),
    per iteration and per window of `window` iterations of constant widths
    (the windows average out the noise of single iterations). Returns the
    per-iteration median and worst and the windows' worst and last."""
    h = r["history"]
    compute, n = h["compute_s"], len(h["compute_s"])
    per_iteration = r["bottleneck_ratio_by_iteration"][settle:]  # lu's, checked against the oracle by the tests
    per_window = []
    for start in range(settle, n - window + 1, window):
        w = iteration_widths(h, start)
        if any(iteration_widths(h, i) != w for i in range(start, start + window)):
            continue  # a move inside the window
        sums = [sum(compute[i][k] for i in range(start, start + window)) for k in range(len(w))]
        per_window.append(quality(w, [wk / ck for wk, ck in zip(w, sums)]))
    if not per_window:  # a move in every window
        per_window = [float("nan")]
    return statistics.median(per_iteration), max(per_iteration), max(per_window), per_window[-1]


def compare(a, title, variants, ideal_factor, windows, settle):
    """Runs every variant and the unemulated baseline in turn, repeats times.

    The baseline is measured in the same rounds as the variants: this VM's
    cores drift in speed over tens of seconds, so an ideal from a separate
    earlier measurement would be off by as much as the effects measured."""
    results = {name: [] for name in ["baseline", *variants]}
    for _ in range(a.repeats):
        results["baseline"].append(run(a, 2, []))
        for name, (np, args) in variants.items():
            results[name].append(run(a, np, args))
    base = statistics.median(r["time_s"] for r in results.pop("baseline"))
    ideal = base * ideal_factor
    print(f"\n== {title}; T(equal, no emulation) {base:.3f} s, ideal {ideal:.3f} s; medians of {a.repeats}")
    head = "".join(f" imb{w[0]}-{w[1]:<4}" for w in windows)
    print(f"{'variant':12} {'time s':>8} {'/ideal':>7}{head} {'moved':>6} {'late':>5}  final columns")
    for name, runs in results.items():
        r = median_run(runs)
        imbs = "".join(f" {window_imbalance(r, *w):>10.3f}" for w in windows)
        late = [late_moves(x, settle) for x in runs]
        print(f"{name:12} {r['time_s']:8.3f} {r['time_s'] / ideal:7.3f}{imbs} {r['moved_columns']:>6} "
              f"{max(late):>5}  {','.join(map(str, r['columns']))}  (times/ideal "
              f"{[round(x['time_s'] / ideal, 3) for x in runs]})")
    print(f"late: most columns any run moved after iteration {settle}")
    print(f"bottleneck / best after iteration {settle} (tests/best_partition.py, at the speeds each run measured),"
          f" per run:\n  per iteration median / worst; per 10 iterations worst / last")
    for name, runs in results.items():
        q = [settled_quality(x, settle) for x in runs]
        print(f"{name:12} " + "  ".join(f"{m:.3f}/{w:.3f}; {ww:.3f}/{wl:.3f}" for m, w, ww, wl in q))
    return results


def steady_section(a, its):
    s = "1,0.444"
    compare(a, f"steady heterogeneity --emulate-speeds {s}", {
        "off": (2, ["--balance", "off", "--emulate-speeds", s]),
        "static": (2, ["--weights", s, "--emulate-speeds", s]),
        "diffusive": (2, ["--balance", "diffusive", "--emulate-speeds", s]),
    }, 2 / 1.444, [(11, 20), (21, 30), (its - 9, its)], settle=30)


def changing_section(a, its):
    s = "1,1;@80:1,0.5"
    factor = (79 * 2 / 2 + (its - 79) * 2 / 1.5) / its
    compare(a, f"changing load --emulate-speeds '{s}'", {
        "off": (2, ["--balance", "off", "--emulate-speeds", s]),
        "static": (2, ["--balance", "static", "--emulate-speeds", s]),
        "diffusive": (2, ["--balance", "diffusive", "--emulate-speeds", s]),
    }, factor, [(71, 79), (81, 90), (91, 100), (its - 9, its)], settle=100)


def equal_stripes_over_best(r, after):
    """max over ranks of width / speed for equal stripes, over the best
    whole-column partition's, at the per-column speeds the run measured after
    iteration `after` (all of its columns, whichever rank held them): 1 when
    equal stripes were the best partition over that stretch as a whole (the
    premise of "no column moved after iteration 20"); above 1, the ranks were
    not equal and a move could pay."""
    h = r["history"]
    rows = range(after, len(h["compute_s"]))
    widths = [sum(h["column_end"][i][k] - h["column_begin"][i][k] for i in rows) for k in range(len(r["columns"]))]
    computes = [sum(h["compute_s"][i][k] for i in rows) for k in range(len(widths))]
    speeds = [w / c for w, c in zip(widths, computes)]
    return quality(equal_widths(sum(r["columns"]), len(speeds)), speeds)


def median_interval(values):
    """The median and a distribution-free 95% interval for it: the order statistics
    whose ranks bound the median with a binomial(n, 1/2) tail of at most 2.5% each
    side (n >= 6; below that the interval is the whole range)."""
    v, n = sorted(values), len(values)
    lo, tail = 0, 0.5 ** n
    while lo + 1 < n // 2 and tail + math.comb(n, lo + 1) * 0.5 ** n <= 0.025:
        lo += 1
        tail += math.comb(n, lo) * 0.5 ** n
    return statistics.median(v), v[lo], v[n - 1 - lo]


def noharm_variants(a):
    """Every variant of the no-harm series: off, and for each K diffusive and diffusive held (a
    threshold no wait can confirm: it gathers and decides every K but never moves a column)."""
    variants = {"off": ["--balance", "off"]}
    for k in a.every:
        knobs = ["--balance", "diffusive", "--balance-every", str(k)]
        variants[f"diffusive K={k}"] = knobs
        variants[f"held K={k}"] = [*knobs, "--balance-threshold", "1000"]
    return variants


def noharm_section(a):
    # One repeat runs every variant, in an order rotated from repeat to repeat, so the
    # drift of the machine hits all alike; each variant's time over the same repeat's off
    # run is one paired ratio, and the median of those ratios carries an interval.
    variants = noharm_variants(a)
    names = list(variants)
    print(f"\n== no harm: 2 equal ranks, class {a.cls}, every variant in each of {a.repeats} repeats "
          "(rotated order); paired ratios to the same repeat's off run, median [95% interval]")
    runs = {n: [] for n in names}
    for rep in range(a.repeats):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for n in order:
            runs[n].append(run(a, 2, variants[n]))
    off_times = [r["time_s"] for r in runs["off"]]
    print(f"off: median {statistics.median(off_times):.3f} s (min {min(off_times):.3f}, max {max(off_times):.3f})")
    for n in names[1:]:
        ratios = [r["time_s"] / t for r, t in zip(runs[n], off_times)]
        med, lo, hi = median_interval(ratios)
        print(f"{n:15} {statistics.median(r['time_s'] for r in runs[n]):.3f} s  ratio {med:.4f} [{lo:.4f}, {hi:.4f}]"
              f"  balancer s per run (median) {statistics.median(balancer_seconds(r) for r in runs[n]):.4f}", flush=True)
        if n.startswith("diffusive"):
            noharm_moves(runs[n])
        else:  # held: a move here would be a threshold not honoured
            print(f"      columns moved, all runs: {sum(r['moved_columns'] for r in runs[n])}", flush=True)


def balancer_seconds(r):
    """The balancer's phase (gather, decision and any move), the slowest rank's, in seconds."""
    return r["timers"]["migration"]["max"]


def noharm_moves(runs):
    late = [late_moves(r, 20) for r in runs]
    ever = [r["moved_columns"] for r in runs]
    equal_over_best = [round(equal_stripes_over_best(r, 20), 3) for r in runs]
    held = [m for m, e in zip(late, equal_over_best) if e <= 1.01]
    print(f"      columns moved per run, whole run: {ever}\n      after iteration 20: {late}\n"
          f"      equal / best per run: {equal_over_best}\n"
          f"      runs whose ranks measured equal (equal / best <= 1.01): {len(held)} of {len(runs)}, "
          f"columns they moved after iteration 20: {held}", flush=True)
    for run_index, r in enumerate(runs):
        if steps := late_steps(r, 20):
            print(f"      run {run_index + 1}, steps after iteration 20: {'; '.join(steps)}", flush=True)


def defaults_section(a):
    """Slow (13 runs a repeat): only on request."""
    grid = [(k, d) for k in (2, 5, 10) for d in (0.5, 1.0)]
    base, steady, equal = [], {g: [] for g in grid}, {g: [] for g in grid}
    for _ in range(a.repeats):
        base.append(run(a, 2, [])["time_s"])
        for k, d in grid:
            knobs = ["--balance", "diffusive", "--balance-every", str(k), "--balance-damping", str(d)]
            steady[(k, d)].append(run(a, 2, [*knobs, "--emulate-speeds", "1,0.444"]))
            equal[(k, d)].append(run(a, 2, knobs))
    ideal = statistics.median(base) * 2 / 1.444
    print(f"\n== defaults: steady 1,0.444 and 2 equal ranks; ideal {ideal:.3f} s; medians of {a.repeats}")
    print(f"{'K':>3} {'damping':>8} {'steady/ideal':>13} {'imb21-30':>9} {'equal: late moves per run':>27}")
    for k, d in grid:
        r = median_run(steady[(k, d)])
        late = [late_moves(x, 20) for x in equal[(k, d)]]
        print(f"{k:>3} {d:>8} {r['time_s'] / ideal:>13.3f} {window_imbalance(r, 21, 30):>9.3f} {str(late):>27}")


def core_share_text(r):
    return ",".join("n/a" if s is None else f"{s:.2f}" for s in core_shares(r))


def scaled_columns(class_a_widths, interior):
    """Class A's hand-picked stripes (62 columns) scaled to `interior` columns, largest remainders first."""
    exact = [w * interior / sum(class_a_widths) for w in class_a_widths]
    widths = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: widths[i] - exact[i])[:interior - sum(widths)]:
        widths[i] += 1
    return ",".join(map(str, widths))


def real_section(a):
    pin = [0, 1, 1]
    print("\n== real heterogeneity: 3 ranks on 2 cores (rank 0 on core 0; ranks 1, 2 share core 1)")
    # Hand-picked static stripes beside them: how much any partition can
    # do when two pipeline stages time-share one core.
    variants = [("off", ["--balance", "off"]), ("diffusive", ["--balance", "diffusive"])]
    variants += [(f"static {c}", ["--balance", "static", "--columns", c])
                 for c in (scaled_columns(w, GRID[a.cls] - 2) for w in ((26, 18, 18), (31, 16, 15), (36, 13, 13)))]
    results = {name: [] for name, _ in variants}
    for _ in range(a.repeats):
        for name, args in variants:
            results[name].append(run(a, 3, args, pin))
    for name, runs in results.items():
        r = median_run(runs)
        print(f"{name:18} {r['time_s']:8.3f} s  imbalance {r['imbalance']:.3f}  moved {r['moved_columns']:>4}  "
              f"final columns {','.join(map(str, r['columns']))}  core shares {core_share_text(r)}  "
              f"(times {[round(x['time_s'], 2) for x in runs]})")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cls", default="A", choices=list(ITERATIONS))
    p.add_argument("--repeats", type=count(1), default=3)
    p.add_argument("--only", choices=["steady", "changing", "noharm", "defaults", "real"])
    p.add_argument("--every", type=count(1), nargs="*", default=[1, 5, 20], help="noharm: --balance-every values")
    a = p.parse_args()
    want = lambda s: a.only in (None, s) and s != "defaults"  # noqa: E731
    its = ITERATIONS[a.cls]
    if want("changing") and its < 110:  # its speeds change at iteration 80, its windows run to 100
        p.error(f"the changing section needs a class of at least 110 iterations, class {a.cls} has {its} "
                "(give --only steady, noharm or real, or another class)")
    if want("steady"):
        steady_section(a, its)
    if want("changing"):
        changing_section(a, its)
    if want("noharm"):
        noharm_section(a)
    if a.only == "defaults":
        defaults_section(a)
    if want("real"):
        real_section(a)


if __name__ == "__main__":
    script_main(main)
