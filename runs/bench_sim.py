#!/usr/bin/env python3
"""Convergence of the diffusive balancer on 4 to 1024 modelled ranks (lu-sim),
judged on the bottleneck ratio.

Bottleneck ratio, per iteration: max over ranks of width_r / speed_r divided
by the same for the best whole-column partition for the true speeds
(balance/min_max_partition). 1 is the best any partition can do. Unlike a
time ratio it is not hidden by pipeline fill (at 1024 ranks most of an
iteration).

Every scenario runs `diffusive` from equal stripes: 20 columns per rank
(--size NXZ 20P+2 NXZ), class-A-like costs, 250 iterations, balancing every 5,
noise independent (0, 2, 5, 10%) or AR(1) in time (5% with correlation 0.9),
seeded. A step costs lu-sim's default migration price (one modelled
iteration of the widest stripe, as lu's migration measured).

Columns of the table:
  steps      balancing steps until the ratio first reaches the bar (after the
             change: counted from it); '-' if never
  at         the iteration it first reaches the bar
  worst      the worst ratio from then on (under noise: the worst, not the mean)
  final      the ratio at the last iteration
  moved      columns moved (boundary crossings) after reaching the bar
             (homogeneous: after iteration 20)
  ok         the bar: at most 3 steps to 1.05 (1.08 at 10% or correlated
             noise), never more than 0.05 above it afterwards, final within
             it; homogeneous: no column moved after iteration 20

  runs/bench_sim.py                   # the whole table (a few minutes)
  runs/bench_sim.py --ranks 64 --only slow-mid --noise 0.05
"""
import argparse
import concurrent.futures
import json
import os
import random
import subprocess
import sys
import tempfile

from lu_json import count, script_main, sim_noise_args

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIM = os.path.join(HERE, "..", "build", "bin", "lu-sim")
ITERATIONS, EVERY, CHANGE, SETTLE = 250, 5, 100, 20
NOISES = [(0.0, 0.0), (0.02, 0.0), (0.05, 0.0), (0.10, 0.0), (0.05, 0.9)]


def scenarios(p, seed):
    slow = 0.444
    lin = [slow + (1 - slow) * r / (p - 1) for r in range(p)]
    rnd = random.Random(seed)
    one = lambda at: [slow if r == at else 1.0 for r in range(p)]
    return {
        "homogeneous": [[1.0] * p],
        "slow-first": [one(0)],
        "slow-mid": [one(p // 2)],
        "slow-last": [one(p - 1)],
        "ramp": [lin],
        "half-slow": [[slow if r < p // 2 else 1.0 for r in range(p)]],
        "random": [[round(rnd.uniform(0.3, 1.0), 4) for _ in range(p)]],
        # the slow half swaps sides at iteration CHANGE: every cut must travel
        "change": [[slow if r < p // 2 else 1.0 for r in range(p)], [1.0 if r < p // 2 else slow for r in range(p)]],
    }


def speed_file(segments, path):
    with open(path, "w") as f:
        for i, seg in enumerate(segments):
            if i:
                f.write(f"@{CHANGE}\n")
            f.write("\n".join(str(s) for s in seg) + "\n")


def run(sim, p, speeds, noise, rho, seed, nxz):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sim, "--ranks", str(p), "--size", str(nxz), str(20 * p + 2), str(nxz), "--iterations", str(ITERATIONS),
           "--balance", "diffusive", "--balance-every", str(EVERY), "--emulate-speeds", "@" + speeds,
           "--json", out, "--quiet"]
    cmd += sim_noise_args(noise, rho, seed)
    subprocess.run(cmd, check=True)
    with open(out) as f:
        r = json.load(f)
    os.remove(out)
    return r


def bar_for(noise, rho):
    return 1.08 if noise >= 0.10 or rho > 0 else 1.05


def assess(name, r, bar, changing):
    """steps, reached-at iteration (1-based, None), worst after, final, moved after, ok."""
    ratio = r["bottleneck_ratio_by_iteration"]
    start = CHANGE if changing else 1
    moves = r["balance_moves"]
    reached = next((i + 1 for i in range(start - 1, len(ratio)) if ratio[i] <= bar + 1e-12), None)
    step_its = sorted({m["iteration"] for m in moves if m["iteration"] >= start})
    steps = sum(1 for i in step_its if reached is not None and i < reached)
    worst = max(ratio[reached - 1:]) if reached else max(ratio[start - 1:])
    after = SETTLE if name == "homogeneous" else (reached or ITERATIONS)
    moved = sum(abs(m["columns"]) for m in moves if m["iteration"] > after)
    if name == "homogeneous":
        ok = moved == 0
    else:
        ok = reached is not None and steps <= 3 and worst <= bar + 0.05 + 1e-12 and ratio[-1] <= bar + 1e-12
    return steps, reached, worst, ratio[-1], moved, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=DEFAULT_SIM)
    ap.add_argument("--ranks", type=count(2), nargs="*", default=[4, 16, 64, 256, 1024])
    ap.add_argument("--only", help="one scenario")
    ap.add_argument("--noise", type=float, nargs="*", help="independent noise levels only (default: the table's five)")
    ap.add_argument("--nxz", type=count(6), default=64, help="NX = NZ of the modelled grid (default 64, class A's)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=count(1), default=2)
    a = ap.parse_args()
    noises = [(n, 0.0) for n in a.noise] if a.noise else NOISES
    print(f"lu-sim, 20 columns per rank, grid {a.nxz} x (20P+2) x {a.nxz}, {ITERATIONS} iterations, "
          f"K = {EVERY}, change at iteration {CHANGE}, seed {a.seed}")
    print("| P | scenario | noise | bar | steps | at | worst | final | moved | ok |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failures = rows = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for p in a.ranks:
            jobs = []
            for name, segs in scenarios(p, a.seed).items():
                if a.only and name != a.only:
                    continue
                path = os.path.join(tmp, f"{name}_{p}.txt")
                speed_file(segs, path)
                for noise, rho in noises:
                    if name == "homogeneous" and noise == 0:
                        continue  # nothing to balance, nothing to perturb
                    jobs.append((name, segs, noise, rho, pool.submit(run, a.sim, p, path, noise, rho, a.seed, a.nxz)))
            for name, segs, noise, rho, fut in jobs:
                bar = bar_for(noise, rho)
                steps, at, worst, final, moved, ok = assess(name, fut.result(), bar, len(segs) > 1)
                rows += 1
                failures += not ok
                label = f"{noise:.0%}" + (f" rho {rho}" if rho else "")
                print(f"| {p} | {name} | {label} | {bar} | {steps if at else '-'} | {at or '-'} | {worst:.3f} | "
                      f"{final:.3f} | {moved} | {'yes' if ok else 'NO'} |", flush=True)
    print(f"\n{failures} of {rows} rows miss the bar")
    return 1 if failures else 0


if __name__ == "__main__":
    script_main(main)
