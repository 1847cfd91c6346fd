#!/usr/bin/env python3
"""Validates lu-sim against real runs of lu on this machine.

For each class (W, A): the model's per-point compute costs (rhs, lower
sweep, upper sweep, update) come from the 1-rank run's phase timers, and its
message time from the 2-rank equal-stripes run's wait (the one latency that
makes the model's mean wait match; bandwidth fixed at 4 GB/s; also printed:
the latency fitted to a model that sweeps every stripe plane by plane, as
lu-sim did before it modelled lu's hyperplanes). The model's --lanes are
those of the level lu ran (its JSON's isa), or --lanes. Every run is
then predicted by lu-sim with the same stripes and emulated speeds, and the
table gives predicted vs measured time per iteration and per-rank wait per
iteration. Medians of --repeats runs, runs of one round alternating.

3 ranks run on 2 cores: rank 0 pinned to core 0, ranks 1 and 2 both to core
1 (PINNED_3), and lu-sim is told the same (--cores 0,1,1: its time-shared
model, which runs one rank of a core at a time, a rank waiting in MPI
yielding its core). The table also gives each rank's core share, on-CPU over
on-CPU plus run-queue time, measured (Linux schedstat) and modelled: what
the balancer reads to tell a slow rank from a shared core.

--behaviour adds the balancer's decisions: real `--balance diffusive` runs
(2 ranks `1,0.444`, 2 ranks changing `1,1;@80:1,0.5` (S: `@16`), 2 equal ranks, 3 ranks
`1,0.5,1`) against lu-sim driving the same balancer session with the noise
measured from those runs (each rank's relative deviation of compute per
column per iteration, and its lag-1 autocorrelation, pooled) and the
migration price measured there (seconds per step as a fraction of a modelled
iteration of the widest stripe: --migration-iterations): steps, columns
moved, final widths, time per iteration.

  flock /tmp/npblu-timing.lock python3 runs/validate_sim.py            # W and A, 3 repeats
  flock /tmp/npblu-timing.lock python3 runs/validate_sim.py --classes W --repeats 1
  python3 runs/validate_sim.py --classes A --repeats 1 --behaviour
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from lu_json import core_shares, count, DEFAULT_LU, run_lu, script_main, sim_noise_args
from npb_classes import GRID, ITERATIONS

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIM = os.path.join(HERE, "..", "build", "bin", "lu-sim")
BANDWIDTH = 4e9
LANES = {"baseline": 2, "v3": 4, "v4": 8}  # lu's kernel levels (lu/isa.hpp)

CASES = [  # ranks, emulated speeds (None: none)
    (1, None), (2, None), (2, "1,0.444"), (3, None), (3, "1,0.5,1"),
]
PINNED_3 = [0, 1, 1]  # 3 ranks on this machine's 2 cores: ranks 1 and 2 share core 1


def pin(ranks):
    """The cores of a run: 3 ranks as PINNED_3, fewer unpinned (a core each)."""
    return PINNED_3 if ranks == 3 else None


def run(a, cls, ranks, args):
    return run_lu(a.lu, cls, ranks, args, pin=pin(ranks))


def shares(r):
    """Each rank's core share over the run (1 where nothing was recorded, as the balancer takes it)."""
    return [1.0 if s is None else s for s in core_shares(r)]


def per_iteration(r):
    its = r["iterations_run"]
    waits = [sum(row[q] for row in r["history"]["wait_s"]) / its for q in range(r["ranks"])]
    computes = [sum(row[q] for row in r["history"]["compute_s"]) / its for q in range(r["ranks"])]
    return r["time_s"] / its, waits, computes


def costs_from(one_rank, n, lanes=None):
    """Seconds per interior point per iteration, per phase, from a 1-rank run, and the vector lanes of the
    level its kernels ran (lu-sim's --lanes: how wide stripes pipeline) unless given."""
    t = one_rank["timers"]
    points = (n - 2) ** 3 * one_rank["iterations_run"]
    mean = lambda *names: sum(t[x]["mean"] for x in names) / points
    return {"lower": mean("jacld", "blts"), "upper": mean("jacu", "buts"), "rhs": mean("rhs"),
            "update": mean("update"), "lanes": lanes or LANES[one_rank["isa"]]}


def simulate(sim, cls, ranks, speeds, cost, latency, extra=(), full=False):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sim, "--class", cls, "--ranks", str(ranks), "--latency", str(latency), "--bandwidth", str(BANDWIDTH),
           "--json", out, "--quiet", "--history", *(extra or ["--balance", "off"])]
    if pin(ranks):
        cmd += ["--cores", ",".join(map(str, pin(ranks)))]
    cmd += [f"--lanes={v}" if k == "lanes" else f"--cost-{k}={v}" for k, v in cost.items()]
    if speeds:
        cmd += ["--emulate-speeds", speeds]
    subprocess.run(cmd, check=True)
    with open(out) as f:
        r = json.load(f)
    os.remove(out)
    if full:
        return r
    its = r["iterations"]
    return (r["time_s"] / its, [l["wait_s"] / its for l in r["rank_loads"]],
            [l["compute_s"] / its for l in r["rank_loads"]], shares(r))


def fit_latency(sim, cls, cost, measured_wait):
    """The latency at which the model's mean wait (2 equal ranks) matches the measurement."""
    lo, hi = 0.0, 1e-3
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        _, w, _, _ = simulate(sim, cls, 2, None, cost, mid)
        if statistics.mean(w) < measured_wait:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def behaviour_cases(cls):
    """(ranks, emulated speeds) of the --behaviour runs; the speed change at iteration 80, or a third of the
    way through a class with fewer than 240 iterations (S: 16 of 50)."""
    change = min(80, ITERATIONS[cls] // 3)
    return [(2, "1,0.444"), (2, f"1,1;@{change}:1,0.5"), (2, None), (3, "1,0.5,1")]


def measured_noise(r):
    """Each rank's relative deviation of compute per column per iteration (robust: 1.4826 x the median
    absolute deviation, so that a rank descheduled for an iteration is not taken for Gaussian noise) and the
    lag-1 autocorrelation of the deviations clipped at 3 of those, pooled over ranks; each rank's series is
    split where its stripe changed (a migration changes the compute, not the noise)."""
    h = r["history"]
    devs = []
    for q in range(r["ranks"]):
        series, segments = [], []
        for it in range(len(h["compute_s"])):
            width = h["column_end"][it][q] - h["column_begin"][it][q]
            if series and width != series[-1][1]:
                segments.append(series)
                series = []
            series.append((h["compute_s"][it][q] / width, width))
        segments.append(series)
        for seg in segments:
            x = [c for c, _ in seg[1:]]  # the first iteration after a migration pays page faults
            if len(x) >= 3:
                m = statistics.median(x)
                devs.append([v / m - 1 for v in x])
    flat = [abs(v) for d in devs for v in d]
    if not flat:
        return 0.0, 0.0
    sd = 1.4826 * statistics.median(flat)
    clip = [[max(-3 * sd, min(3 * sd, v)) for v in d] for d in devs]
    squares = sum(v * v for d in clip for v in d)
    products = sum(d[i] * d[i + 1] for d in clip for i in range(len(d) - 1))
    pairs = sum(len(d) - 1 for d in clip)
    rho = (products / pairs) / (squares / len(flat)) if pairs and squares else 0.0
    return sd, min(max(rho, 0.0), 0.95)


def behaviour(a, cls, cost, latency, n):
    print(f"\n| class {cls} diffusive | ranks | speeds | noise (rho) | price (iterations) | steps real / model "
          f"| columns moved real / model | final widths real / model | s/it real / model "
          f"| bottleneck / best, last 100 iterations: median real / model |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    column = sum(cost.values()) * (n - 2) ** 2
    for ranks, speeds in behaviour_cases(cls):
        runs = []
        for _ in range(a.repeats):
            args = ["--balance", "diffusive"] + (["--emulate-speeds", speeds] if speeds else [])
            runs.append(run(a, cls, ranks, args))
        t = statistics.median(x["time_s"] for x in runs)
        r = min(runs, key=lambda x: abs(x["time_s"] - t))
        sd, rho = measured_noise(r)
        h = r["history"]
        steps = sorted({m["iteration"] for m in r["balance_moves"]})
        widest = max(e - b for row_b, row_e in zip(h["column_begin"], h["column_end"]) for b, e in zip(row_b, row_e))
        paid = [max(h["migration_s"][it - 1]) for it in steps]
        price = statistics.median(paid) / (column * widest) if paid else 1.0
        extra = ["--balance", "diffusive", *sim_noise_args(round(min(sd, 0.9), 4), round(rho, 3)),
                 "--migration-iterations", f"{price:.3f}"] + (["--emulate-speeds", speeds] if speeds else [])
        model = simulate(a.sim, cls, ranks, None, cost, latency, extra, full=True)
        its = r["iterations_run"]
        print(f"| {cls} | {ranks} | {speeds or 'equal'} | {sd:.1%} ({rho:.2f}) | {price:.2f} | "
              f"{r['balance_steps']} / {model['balance_steps']} | {r['moved_columns']} / {model['moved_columns']} | "
              f"{','.join(map(str, r['columns']))} / {','.join(map(str, model['columns']))} | "
              f"{r['time_s'] / its * 1e3:.2f} / {model['time_s'] / model['iterations'] * 1e3:.2f} ms | "
              f"{settled_ratio(r):.3f} / {settled_ratio(model):.3f} |", flush=True)


def settled_ratio(report, last=100):
    """The median bottleneck ratio (max width / speed over the best whole-column partition's) of the last
    iterations: lu's at the speeds its ranks measured, lu-sim's at its modelled ones."""
    ratios = [x for x in report["bottleneck_ratio_by_iteration"][-last:] if x is not None]
    return statistics.median(ratios) if ratios else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lu", default=DEFAULT_LU)
    ap.add_argument("--sim", default=DEFAULT_SIM)
    ap.add_argument("--classes", nargs="*", default=["W", "A"])
    ap.add_argument("--repeats", type=count(1), default=3)
    ap.add_argument("--behaviour", action="store_true", help="also the balancer's decisions, real vs model")
    ap.add_argument("--lanes", type=int, choices=[1, 2, 4, 8],
                    help="model the sweeps with these lanes (default: the level lu ran; 1: plane by plane)")
    a = ap.parse_args()
    print("| class | ranks | speeds | measured s/it | model s/it | model/measured | measured wait ms/it per rank "
          "| model wait ms/it per rank | measured compute ms/it | model compute ms/it | core share measured / model |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cls in a.classes:
        runs = {case: [] for case in CASES}
        for _ in range(a.repeats):
            for ranks, speeds in CASES:
                args = ["--balance", "off"] + (["--emulate-speeds", speeds] if speeds else [])
                runs[(ranks, speeds)].append(run(a, cls, ranks, args))
        med = {}
        for case, rs in runs.items():
            t = statistics.median(r["time_s"] for r in rs)
            med[case] = min(rs, key=lambda r: abs(r["time_s"] - t))
        cost = costs_from(med[(1, None)], GRID[cls], a.lanes)
        _, w2, _ = per_iteration(med[(2, None)])
        latency = fit_latency(a.sim, cls, cost, statistics.mean(w2))
        plane_by_plane = fit_latency(a.sim, cls, {**cost, "lanes": 1}, statistics.mean(w2))
        times = ", ".join(f"{k} {v * 1e9:.2f}" for k, v in cost.items() if k != "lanes")
        print(f"<!-- class {cls}: costs ns/point {times}; {cost['lanes']} lanes; fitted message latency "
              f"{latency * 1e6:.1f} us ({plane_by_plane * 1e6:.1f} us if every stripe went plane by plane) -->")
        for ranks, speeds in CASES:
            mt, mw, mc = per_iteration(med[(ranks, speeds)])
            st, sw, sc, ss = simulate(a.sim, cls, ranks, speeds, cost, latency)
            note = " (cores 0,1,1)" if pin(ranks) else ""
            fmt = lambda v: ", ".join(f"{x * 1e3:.2f}" for x in v)
            share = ", ".join(f"{m:.2f}/{x:.2f}" for m, x in zip(shares(med[(ranks, speeds)]), ss))
            print(f"| {cls} | {ranks}{note} | {speeds or 'equal'} | {mt * 1e3:.2f} ms | {st * 1e3:.2f} ms | "
                  f"{st / mt:.3f} | {fmt(mw)} | {fmt(sw)} | {fmt(mc)} | {fmt(sc)} | {share} |", flush=True)
        if a.behaviour:
            behaviour(a, cls, cost, latency, GRID[cls])


if __name__ == "__main__":
    script_main(main)
