#!/usr/bin/env python3
"""Validates lu-sim's unpinned ranks (--unpinned RANKS:CORES) against real runs of lu whose ranks the
scheduler places: more ranks than cores, none pinned (mpirun --oversubscribe, no binding).

Real runs, alternating in each round: `--balance off`, `--balance diffusive` (this lu: share pools on)
and, with --lu-before, the same with a build from before share pools (every rank read at its own core
share). From the runs without a balancer: how often the rank holding a core to itself changes (the
scheduler's pace, given to lu-sim as --scheduler-period), with --model-noise the noise of compute per
column, with --measure-cores each CPU's speed (class W pinned to it: lu-sim's --core-speeds), and, with the 1- and 2-rank runs, the model's costs and latency (as runs/validate_sim.py fits and
measures them). lu-sim then runs the same cases, one seed a round: --unpinned NP:CORES with
--share-pools on and off. Compared: time against the run without a balancer (median of the rounds'
ratios), columns moved (median and range), runs that moved a column after iteration 20, and the model's
bottleneck ratio after iteration 20 (max width over the best, for ranks of equal mean share).

--scale P1 P2 ... then runs the calibrated model alone at those rank counts: nodes of NP ranks on CORES
cores, --scale-width columns a rank (default: the real runs' width), the same three cases and seeds.

  flock /tmp/npblu-timing.lock python3 runs/validate_unpinned.py --lu-before /tmp/base/lu --repeats 5
  python3 runs/validate_unpinned.py --cls W --repeats 1 --scale 6 12 24 48
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from lu_json import count, DEFAULT_LU, median_range, run_lu, script_main, sim_noise_args
from npb_classes import GRID, ITERATIONS
from validate_sim import BANDWIDTH, DEFAULT_SIM, costs_from, fit_latency, measured_noise, per_iteration

WHOLE_CORE = 0.9  # an iteration's core share at which a rank had a core to itself


def holder_changes(report):
    """How often the one rank with a whole core changed (iterations where none or several had one skipped)."""
    h = report["history"]
    holders = []
    for on, delay in zip(h["on_cpu_s"], h["run_delay_s"]):
        whole = [q for q, (o, d) in enumerate(zip(on, delay)) if o + d > 0 and o / (o + d) >= WHOLE_CORE]
        if len(whole) == 1:
            holders.append(whole[0])
    return sum(1 for a, b in zip(holders, holders[1:]) if a != b)


def moves(report):
    """(columns moved, columns moved after iteration 20) of a real or modelled run."""
    late = sum(abs(m["columns"]) for m in report.get("balance_moves", []) if m["iteration"] > 20)
    return report["moved_columns"], late


def real_runs(a):
    """Per round: {case: report}; cases off, diffusive and, with --lu-before, diffusive-before."""
    cases = [("off", a.lu, ["--balance", "off"]), ("diffusive", a.lu, ["--balance", "diffusive"])]
    if a.lu_before:
        cases.append(("diffusive before pools", a.lu_before, ["--balance", "diffusive"]))
    rounds = []
    for rnd in range(a.repeats):
        rounds.append({name: run_lu(lu, a.cls, a.np, args) for name, lu, args in cases})
        print(f"round {rnd + 1}: " + ", ".join(f"{n} {r['time_s']:.2f} s" for n, r in rounds[-1].items()),
              flush=True)
    return rounds


def model(a, fit, seed, extra, ranks=None, width=None):
    """lu-sim on the real runs' class and ranks, or on `ranks` ranks of `width` columns each."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    n = GRID[a.cls]
    problem = ["--class", a.cls] if ranks is None else ["--size", str(n), str(width * ranks + 2), str(n),
                                                         "--iterations", str(ITERATIONS[a.cls])]
    cmd = [a.lu_sim, *problem, "--ranks", str(ranks or a.np), "--unpinned", f"{a.np}:{a.cores}",
           "--latency", str(fit["latency"]),
           "--bandwidth", str(BANDWIDTH), *sim_noise_args(fit["noise"], fit["rho"]),
           "--seed", str(seed), "--json", out, "--quiet", *extra]
    if fit["period"] is not None:  # else lu-sim's own default
        cmd += ["--scheduler-period", str(fit["period"])]
    if a.core_slice:
        cmd += ["--core-slice", str(a.core_slice)]
    cmd += [f"--cost-{k}={v}" for k, v in fit["cost"].items()]
    if fit["core_speeds"]:  # the same CPUs on every node
        nodes = -(-(ranks or a.np) // a.np)
        cmd += ["--core-speeds", ",".join(f"{s:.4f}" for s in fit["core_speeds"] * nodes)]
    subprocess.run(cmd, check=True)
    with open(out) as f:
        r = json.load(f)
    os.remove(out)
    return r


MODEL_CASES = [("off", ["--balance", "off"]), ("diffusive", ["--balance", "diffusive"]),
               ("diffusive before pools", ["--balance", "diffusive", "--share-pools", "off"])]


def model_runs(a, fit, ranks=None, width=None):
    return [{name: model(a, fit, seed, extra, ranks, width) for name, extra in MODEL_CASES}
            for seed in range(1, a.repeats + 1)]


def scale_rows(a, fit):
    width = a.scale_width or (GRID[a.cls] - 2) // a.np
    print(f"\nThe model alone: nodes of {a.np} ranks on {a.cores} cores, {width} columns a rank, "
          f"seeds 1-{a.repeats}\n")
    print("| ranks | case | time / off | columns moved | runs moving after it. 20 | bottleneck after it. 20 |")
    print("|---|---|---|---|---|---|")
    for ranks in a.scale:
        runs = model_runs(a, fit, ranks, width)
        for name, _ in MODEL_CASES[1:]:
            ratio, moved, late, worst = summary(runs, name)
            print(f"| {ranks} | {name} | {ratio} | {moved} | {late} | {worst} |", flush=True)


def summary(rounds, name):
    ratios = [r[name]["time_s"] / r["off"]["time_s"] for r in rounds]
    moved = [moves(r[name])[0] for r in rounds]
    late = sum(1 for r in rounds if moves(r[name])[1] > 0)
    worst = [max(r[name]["bottleneck_ratio_by_iteration"][20:]) for r in rounds
             if "bottleneck_ratio_by_iteration" in r[name]]
    return (median_range(ratios),
            f"{statistics.median(moved):g} ({min(moved)}-{max(moved)})", f"{late} of {len(rounds)}",
            f"{statistics.median(worst):.3f} (worst {max(worst):.3f})" if worst else "")


def calibrate(a, offs):
    """The model's costs and latency (1- and 2-rank runs), the scheduler's period and, with --model-noise,
    the noise of compute per column (the real runs without a balancer, as validate_sim.py measures it)."""
    cost = costs_from(run_lu(a.lu, a.cls, 1, ["--balance", "off"]), GRID[a.cls])
    _, waits, _ = per_iteration(run_lu(a.lu, a.cls, 2, ["--balance", "off"]))
    latency = fit_latency(a.lu_sim, a.cls, cost, statistics.mean(waits))
    changes = sum(holder_changes(r) for r in offs)
    # Fewer than two changes a run: no rank had a core to itself (as many ranks a core), so none to count;
    # then --scheduler-period if given, else lu-sim's default (None: not passed).
    period = sum(r["time_s"] for r in offs) / changes if changes >= 2 * len(offs) else a.scheduler_period
    noises = [measured_noise(r) for r in offs] if a.model_noise else [(0.0, 0.0)]
    return {"cost": cost, "latency": latency, "period": period, "changes": changes,
            "noise": statistics.median(n for n, _ in noises), "rho": statistics.median(r for _, r in noises),
            "core_speeds": measured_core_speeds(a) if a.measure_cores else None}


def measured_core_speeds(a, rounds=3):
    """Each CPU's speed against the fastest: class W on 1 rank pinned to it, `rounds` alternated runs, medians."""
    times = [[] for _ in range(a.cores)]
    for _ in range(rounds):
        for cpu in range(a.cores):
            times[cpu].append(run_lu(a.lu, "W", 1, ["--balance", "off"], pin=[cpu])["time_s"])
    medians = [statistics.median(t) for t in times]
    return [min(medians) / m for m in medians]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cls", default="A")
    ap.add_argument("--np", type=count(1), default=3)
    ap.add_argument("--cores", type=count(1), default=os.cpu_count(), help="cores the ranks share (this machine's)")
    ap.add_argument("--repeats", type=count(1), default=5)
    ap.add_argument("--lu", default=DEFAULT_LU)
    ap.add_argument("--lu-before", help="an lu from before share pools (e.g. d75944e), for the real column")
    ap.add_argument("--lu-sim", default=DEFAULT_SIM)
    ap.add_argument("--scale", type=count(2), nargs="*", default=[], help="rank counts for the model alone")
    ap.add_argument("--scale-width", type=count(2), help="columns a rank at --scale (default: the real runs')")
    ap.add_argument("--model-noise", action="store_true",
                    help="give lu-sim the noise of compute per column measured in the runs without a balancer")
    ap.add_argument("--measure-cores", action="store_true",
                    help="give lu-sim each CPU's speed, measured with class W pinned to it (a VM's vCPUs differ)")
    ap.add_argument("--core-slice", type=float, help="lu-sim's --core-slice (default: lu-sim's)")
    ap.add_argument("--scheduler-period", type=float,
                    help="lu-sim's period when ranks rarely had a core to themselves (e.g. 4 on 2 cores; "
                         "default: lu-sim's)")
    a = ap.parse_args()
    rounds = real_runs(a)
    fit = calibrate(a, [r["off"] for r in rounds])
    print(f"\nclass {a.cls}, {a.np} unpinned ranks on {a.cores} cores; model costs ns/point " +
          ", ".join(f"{k} {v * 1e9:.2f}" for k, v in fit["cost"].items()) +
          f", latency {fit['latency'] * 1e6:.1f} us; the rank with a core to itself changed {fit['changes']} "
          f"times in {len(rounds)} runs without a balancer: --scheduler-period " +
          (f"{fit['period']:.3f}; " if fit["period"] is not None else "lu-sim's default; ") +
          f"--noise {fit['noise']:.4f} --noise-correlation {fit['rho']:.2f}" +
          (" --core-speeds " + ",".join(f"{s:.3f}" for s in fit["core_speeds"]) if fit["core_speeds"] else ""))
    modelled = model_runs(a, fit)
    print("\n| case | real time / off | model time / off | real columns moved | model columns moved | "
          "real runs moving after it. 20 | model runs moving after it. 20 | model bottleneck after it. 20 |")
    print("|---|---|---|---|---|---|---|---|")
    for name in [n for n in rounds[0] if n != "off"] + (["diffusive before pools"] if not a.lu_before else []):
        real = summary(rounds, name) if name in rounds[0] else ("", "", "", "")
        sim = summary(modelled, name)
        print(f"| {name} | {real[0]} | {sim[0]} | {real[1]} | {sim[1]} | {real[2]} | {sim[2]} | {sim[3]} |")
    if a.scale:
        scale_rows(a, fit)


if __name__ == "__main__":
    script_main(main)
