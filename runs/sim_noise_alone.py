#!/usr/bin/env python3
"""Does noise alone move columns? lu-sim on equal ranks, many seeds.

Every run models P equal ranks (20 columns each, grid 64 x (20P+2) x 64, 250
iterations, class-A-like costs) under `--balance diffusive` with seeded noise,
independent or correlated in time (AR(1)), and counts the runs in which the
balancer moved any column: on equal ranks every move is one the noise made.
With --baseline, a second lu-sim runs the same seeds beside it (e.g. the
build before a change of the rule), and each cell shows both counts.

  runs/sim_noise_alone.py                              # the grid, seeds 1-40
  runs/sim_noise_alone.py --baseline /tmp/old/lu-sim --seeds 100
  runs/sim_noise_alone.py --ranks 2 4 --noise 0.3 --correlation 0.9

Prints one line per cell with movers, then the totals and every run that
moved (P, noise, correlation, seed, columns moved, final bottleneck ratio).
"""
import argparse
import concurrent.futures
import itertools
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SIM = os.path.join(HERE, "..", "build", "bin", "lu-sim")


def run(sim, p, noise, rho, seed):
    """(columns moved, final bottleneck ratio) of one modelled run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        cmd = [sim, "-P", str(p), "--size", "64", str(20 * p + 2), "64", "--iterations", "250",
               "--balance", "diffusive", "--noise", str(noise), "--noise-correlation", str(rho),
               "--seed", str(seed), "--quiet", "--json", out]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            report = json.load(f)
    return report["moved_columns"], report["bottleneck_ratio_final"] or 1.0


def trial(sim, cells, seeds, jobs):
    """{(p, noise, rho, seed): (moved, final)} for every run that moved."""
    runs = [(c + (s,)) for c in cells for s in range(1, seeds + 1)]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = pool.map(lambda r: run(sim, *r), runs)
        return {r: res for r, res in zip(runs, results) if res[0] > 0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=DEFAULT_SIM)
    ap.add_argument("--baseline", help="a second lu-sim, run on the same seeds")
    ap.add_argument("--ranks", type=int, nargs="*", default=[2, 3, 4, 8, 16, 64])
    ap.add_argument("--noise", type=float, nargs="*", default=[0.02, 0.05, 0.1, 0.2, 0.3])
    ap.add_argument("--correlation", type=float, nargs="*", default=[0.0, 0.5, 0.9])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    cells = list(itertools.product(args.ranks, args.noise, args.correlation))
    sims = {"this": args.sim} | ({"baseline": args.baseline} if args.baseline else {})
    moved = {name: trial(sim, cells, args.seeds, args.jobs) for name, sim in sims.items()}
    print(f"equal ranks, {args.seeds} seeds a cell; runs that moved columns ({' / '.join(sims)}):")
    for p, noise, rho in cells:
        counts = [sum(1 for r in m if r[:3] == (p, noise, rho)) for m in moved.values()]
        if any(counts):
            print(f"  P = {p}, noise {noise:g}, correlation {rho:g}: " + " / ".join(map(str, counts)))
    total = len(cells) * args.seeds
    print("total: " + ", ".join(f"{name} {len(m)} of {total}" for name, m in moved.items()))
    for name, m in moved.items():
        for (p, noise, rho, seed), (columns, final) in sorted(m.items()):
            print(f"  {name}: P = {p}, noise {noise:g}, correlation {rho:g}, seed {seed}: "
                  f"{columns} column{'s' if columns != 1 else ''}, final ratio {final:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
