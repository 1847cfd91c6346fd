#!/usr/bin/env python3
"""The diffusive balancer's direction and quality, deterministically: lu-sim drives the real decision
code (balance/diffusive_balancer) with modelled, seeded times, so nothing here depends on the machine's
load or a clock.

  sim_balance_check.py LU_SIM strong|many|still|change

For each case: the quality of every iteration's partition is its bottleneck ratio, max_r width_r /
speed_r over the same for the best whole-column partition (tests/best_partition.py, computed here
independently of balance/min_max_partition), at that iteration's true speeds. Checked:
  strong  2 ranks, class W, speeds 1,0.444, 3% noise: the slow rank gives columns away (never takes
          any), within 3 balance windows the ratio is under 1.05, and stays there (worst case after)
  many    12 ranks, class A, uneven speeds, 2% noise: worst ratio after iteration 60 under 1.10;
          every rank at 0.6 of full speed or less ends with fewer columns than it started with
  still   4 and 8 ranks, equal speeds, 5% noise, 3 seeds each: no column moves
  change  2 ranks, class W, 1,1 then 1,0.5 from iteration 100: nothing moves before, the slow
          rank gives columns away after, worst ratio from iteration 130 on under 1.08
Every case checks the decision log (decision_log.py), and strong, many and change that each logged
step's predicted bottleneck ratio, before and after, is within 5% of the true one.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from best_partition import best_bottleneck, quality  # noqa: E402
from decision_log import check_decisions  # noqa: E402


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def simulate(sim, args, name):
    path = os.path.abspath(f"{name}.json")
    cmd = [sim, *args, "--balance", "diffusive", "--json", path, "--history", "--quiet"]
    print("+", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        fail(f"lu-sim failed: {done.stderr}")
    with open(path) as f:
        report = json.load(f)
    check_decisions(report, fail)
    return report


def widths(report):
    h = report["history"]
    return [[e - b for b, e in zip(bs, es)] for bs, es in zip(h["column_begin"], h["column_end"])]


def ratios(report):
    return [quality(w, s) for w, s in zip(widths(report), report["history"]["speed"])]


def check_predictions(report, q, tolerance=0.05):
    """Each logged step's predicted bottleneck ratio, before and after, is the true one (the model's
    speeds) at its iteration and the next, within the tolerance: the balancer's estimates are what
    its decision log claims."""
    for d in report["decisions"]:
        it = d["iteration"]
        for key, true in (("before", q[it - 1]), ("after", q[it])):
            predicted = d[f"predicted_bottleneck_ratio_{key}"]
            if abs(predicted / true - 1) > tolerance:
                fail(f"step after iteration {it}: predicted ratio {key} {predicted:.4f}, true {true:.4f}")


def check_whole_run_ratio(report):
    """The JSON's whole-run bottleneck_ratio is lu's: each rank's compute over its column-iterations is
    its measured cost a column; the slowest rank's compute over the iterations times the best partition's
    bottleneck at those costs (recomputed here with best_partition, not balance/)."""
    h, n = report["history"], len(report["history"]["compute_s"])
    w = widths(report)
    compute = [sum(row[r] for row in h["compute_s"]) for r in range(report["ranks"])]
    column_iterations = [sum(row[r] for row in w) for r in range(report["ranks"])]
    speeds = [c_i / c for c, c_i in zip(compute, column_iterations)]
    expected = max(compute) / (n * best_bottleneck(sum(w[-1]), speeds))
    if abs(report["bottleneck_ratio"] / expected - 1) > 1e-9:
        fail(f"bottleneck_ratio {report['bottleneck_ratio']} is not the whole run's {expected}")


def first_move(report):
    moves = report["balance_moves"]
    return min(m["iteration"] for m in moves) if moves else None


def strong(sim):
    r = simulate(sim, ["-P", "2", "W", "--emulate-speeds", "1,0.444", "--noise", "0.03", "--seed", "1"], "strong")
    w, q = widths(r), ratios(r)
    check_predictions(r, q)
    check_whole_run_ratio(r)
    if w[-1][1] >= w[0][1] or any(w[i + 1][1] > w[i][1] for i in range(len(w) - 1)):
        fail(f"the slow rank took columns or gave none: {w[0]} -> {w[-1]}")
    settle = 3 * r["balance_every"]
    worst = max(q[settle:])
    if worst > 1.05:
        fail(f"worst bottleneck ratio after iteration {settle}: {worst:.3f} (limit 1.05)")
    print(f"strong: {w[0]} -> {w[-1]}, first move after iteration {first_move(r)}, ratio {q[0]:.3f} -> "
          f"worst {worst:.3f} from iteration {settle + 1}")


def many(sim):
    speeds = [1, 1, 0.5, 1, 0.8, 1, 1, 0.3, 1, 1, 0.6, 1]
    r = simulate(sim, ["-P", "12", "A", "--iterations", "150", "--emulate-speeds", ",".join(map(str, speeds)),
                       "--noise", "0.02", "--seed", "2"], "many")
    w, q = widths(r), ratios(r)
    check_predictions(r, q)
    worst = max(q[60:])
    if worst > 1.10:
        fail(f"12 ranks: worst bottleneck ratio after iteration 60: {worst:.3f} (limit 1.10)")
    for rank, s in enumerate(speeds):
        if s <= 0.6 and w[-1][rank] >= w[0][rank]:
            fail(f"12 ranks: slow rank {rank} (speed {s}) kept {w[-1][rank]} of its {w[0][rank]} columns")
    print(f"many: ratio {q[0]:.3f} -> worst {worst:.3f} after iteration 60; final widths {w[-1]}")


def still(sim):
    for ranks in (4, 8):
        for seed in (1, 2, 3):
            r = simulate(sim, ["-P", str(ranks), "A", "--iterations", "200", "--noise", "0.05",
                               "--seed", str(seed)], f"still_{ranks}_{seed}")
            if r["moved_columns"] != 0:
                fail(f"{ranks} equal ranks, 5% noise, seed {seed}: moved {r['moved_columns']} columns")
    print("still: 4 and 8 equal ranks under 5% noise, seeds 1-3: no column moved")


def change(sim):
    r = simulate(sim, ["-P", "2", "W", "--emulate-speeds", "1,1;@100:1,0.5", "--noise", "0.02", "--seed", "3"],
                 "change")
    w, q = widths(r), ratios(r)
    check_predictions(r, q)
    moved_at = first_move(r)
    if moved_at is None or moved_at < 100:
        fail(f"first move after iteration {moved_at}: expected none before the change at 100")
    if w[-1][1] >= w[98][1]:
        fail(f"the rank slowed at iteration 100 kept its columns: {w[98]} -> {w[-1]}")
    worst = max(q[129:])
    if worst > 1.08:
        fail(f"worst bottleneck ratio from iteration 130: {worst:.3f} (limit 1.08)")
    print(f"change: still until 100, first move after iteration {moved_at}, {w[98]} -> {w[-1]}, worst ratio "
          f"{worst:.3f} from iteration 130")


if __name__ == "__main__":
    {"strong": strong, "many": many, "still": still, "change": change}[sys.argv[2]](sys.argv[1])
