#!/usr/bin/env python3
"""A restart continues the diffusive balancer, not only its settings.

  balancer_restart_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                            --workdir DIR

Class W on 2 ranks, rank 1 emulated 5x slower, the diffusive balancer: a run of 80 iterations
checkpointed at 40, then restarted. Whether the balancer has moved by iteration 40 depends on the
machine's load (tests/README.md, "Determinism": with another 2-rank job polling on the same 2 cores,
rank 1 emulated 3x slower did not move in 80 iterations in 3 of 5 runs), so the first run is made
again, up to 3 times, until it has; what is asserted (the restart continues the counts) does not
depend on the load. The checkpoint must
hold the balancer's state (attribute balancer_state: its evidence, step prices and counts); the
restarted run's report must count the steps and columns moved before the checkpoint too
(moved_columns = the checkpoint's balance_moved_columns + the columns of its own moves). Without
the state a restarted balancer starts blind and its counts start at 0. A restart on 1 rank, where
per-rank evidence means nothing, starts afresh: moved 0.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402


def run(ctx, np, words):
    proc, _ = bit.launch(ctx, np, [*words, "--quiet"])
    if [s for s, _ in bit.rank_statuses(proc)] != [0] * np:
        bit.fail(f"lu {' '.join(words)} failed", proc)


def main():
    import h5py
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    ctx = p.parse_args()
    w = os.path.abspath(ctx.workdir)
    ckpt, first, again, alone = (os.path.join(w, n) for n in ("c.h5", "first.json", "again.json", "alone.json"))
    for attempt in range(1, 4):
        if os.path.exists(ckpt):  # (an earlier attempt's or invocation's: a new run never replaces it)
            os.remove(ckpt)
        run(ctx, 2, ["W", "--iterations", "80", "--balance", "diffusive", "--emulate-speeds", "1,0.2",
                     "--checkpoint", ckpt, "--checkpoint-every", "40", "--json", first])
        with h5py.File(ckpt, "r") as f:
            state = list(f.attrs["balancer_state"])
            moved_before = int(f.attrs["balance_moved_columns"][0])
        print(f"run {attempt}, checkpoint at 40: moved {moved_before}, balancer state of {len(state)} numbers")
        if moved_before > 0:
            break
    if moved_before <= 0 or len(state) < 10:
        bit.fail("in 3 runs the balancer had not moved before the checkpoint, or its state was not saved")
    steps_before = len({m["iteration"] for m in json.load(open(first))["balance_moves"] if m["iteration"] <= 40})
    run(ctx, 2, ["--restart", ckpt, "--json", again])
    r = json.load(open(again))
    own = sum(abs(m["columns"]) for m in r["balance_moves"])
    own_steps = len({m["iteration"] for m in r["balance_moves"]})
    print(f"restarted: moved_columns {r['moved_columns']} (own moves {own}), steps {r['balance_steps']}")
    if r["moved_columns"] != moved_before + own or r["balance_steps"] != steps_before + own_steps:
        bit.fail(f"the restart did not continue the balancer: moved {r['moved_columns']}, expected "
                 f"{moved_before} + {own}; steps {r['balance_steps']}, expected {steps_before} + {own_steps}")
    run(ctx, 1, ["--restart", ckpt, "--json", alone])
    if json.load(open(alone))["moved_columns"] != 0:
        bit.fail("a restart on 1 rank carried another rank count's balancer state")
    print("PASS")


if __name__ == "__main__":
    main()
