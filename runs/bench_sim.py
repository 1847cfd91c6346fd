#!/usr/bin/env python3
"""Convergence of the diffusive balancer on 4 to 1024 modelled ranks (lu-sim).

Every scenario runs three times with the same speeds and noise draws: `off`
(equal stripes), `best` (at every iteration the best whole-column partition
for the true speeds: the oracle), and `diffusive` from equal stripes. 20
columns per rank (--size NX 20P+2 NZ), class-A-like costs, 250 iterations,
balancing every 5. Times are per iteration, compared in windows of 10
iterations with the oracle's same window.

Columns of the table:
  off/best     off's time over the oracle's, whole run (what is to gain)
  dif/best     diffusive over the oracle, iterations 21-250 (after the change:
               from 20 iterations after it)
  worst        the worst 10-iteration window of diffusive/best in that range
  steps        balancing steps that moved columns before diffusive stays
               within 1.05 x best for good (after the change: counted from it)
  migrated     columns that changed owner (what migration sends), all steps
  late         boundary crossings after iteration 20 (after the change + 20)
  ok           the bar: steps <= 3 and worst <= 1.05 (homogeneous with noise:
               no column moved after iteration 20 and time within 0.5% of off)

  runs/bench_sim.py                   # the whole table (about a minute)
  runs/bench_sim.py --ranks 64 --only slow-mid
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIM = os.path.join(HERE, "..", "build", "bin", "lu-sim")
ITERATIONS, EVERY, WINDOW, CHANGE = 250, 5, 10, 100


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
        "linear": [lin],
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


def run(sim, p, mode, speeds, noise, seed, nxz):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sim, "--ranks", str(p), "--size", str(nxz), str(20 * p + 2), str(nxz), "--iterations", str(ITERATIONS),
           "--balance", mode, "--balance-every", str(EVERY), "--emulate-speeds", "@" + speeds,
           "--noise", str(noise), "--seed", str(seed), "--json", out, "--quiet"]
    subprocess.run(cmd, check=True)
    with open(out) as f:
        r = json.load(f)
    os.remove(out)
    return r


def windows(times):
    return [sum(times[i:i + WINDOW]) for i in range(0, len(times), WINDOW)]


def assess(name, dif, off, best, changing):
    start = CHANGE if changing else 0
    first = start + 20  # iterations before this are the settling allowance
    wd, wb = windows(dif["iteration_time_s"]), windows(best["iteration_time_s"])
    ratio = [d / b for d, b in zip(wd, wb)]
    tail = ratio[first // WINDOW:]
    # the last window (from its start) after which every window stays within 1.05
    settled_at = len(ratio) * WINDOW
    for w in range(len(ratio) - 1, start // WINDOW - 1, -1):
        if ratio[w] > 1.05:
            break
        settled_at = w * WINDOW
    moves = dif["balance_moves"]
    step_its = sorted({m["iteration"] for m in moves if m["iteration"] > start})
    steps = sum(1 for i in step_its if i <= settled_at)
    moved = dif["migrated_columns"]
    late = sum(abs(m["columns"]) for m in moves if m["iteration"] > first)
    dsum = sum(dif["iteration_time_s"][first:])
    bsum = sum(best["iteration_time_s"][first:])
    off_best = off["time_s"] / best["time_s"]
    dif_off = dif["time_s"] / off["time_s"]
    if name == "homogeneous":
        ok = late == 0 and dif_off <= 1.005
    else:
        ok = steps <= 3 and max(tail) <= 1.05
    return off_best, dsum / bsum, max(tail), steps, moved, late, dif_off, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=DEFAULT_SIM)
    ap.add_argument("--ranks", type=int, nargs="*", default=[4, 16, 64, 256, 1024])
    ap.add_argument("--only", help="one scenario")
    ap.add_argument("--noise", type=float, nargs="*", default=[0.0, 0.05])
    ap.add_argument("--nxz", type=int, default=64, help="NX = NZ of the modelled grid (default 64, class A's)")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    print(f"lu-sim, 20 columns per rank, grid {a.nxz} x (20P+2) x {a.nxz}, {ITERATIONS} iterations, "
          f"K = {EVERY}, change at iteration {CHANGE}")
    print(f"| P | scenario | noise | off/best | dif/best | worst | steps | migrated | late | dif/off | bar |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in a.ranks:
            for name, segs in scenarios(p, a.seed).items():
                if a.only and name != a.only:
                    continue
                path = os.path.join(tmp, f"{name}_{p}.txt")
                speed_file(segs, path)
                for noise in a.noise:
                    if name == "homogeneous" and noise == 0:
                        continue  # nothing to balance, nothing to perturb
                    r = {m: run(a.sim, p, m, path, noise, a.seed, a.nxz) for m in ("off", "best", "diffusive")}
                    ob, db, worst, steps, moved, late, do, ok = assess(name, r["diffusive"], r["off"], r["best"],
                                                                        len(segs) > 1)
                    failures += not ok
                    print(f"| {p} | {name} | {noise:.0%} | {ob:.3f} | {db:.3f} | {worst:.3f} | {steps} | {moved} | "
                          f"{late} | {do:.4f} | {'yes' if ok else 'NO'} |", flush=True)
    print(f"\n{failures} rows miss the bar")


if __name__ == "__main__":
    main()
