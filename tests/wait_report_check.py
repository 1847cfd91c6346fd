#!/usr/bin/env python3
"""The report says how each rank waited for messages, and it is how the rank did wait.

  wait_report_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                       --workdir DIR

Class S through --json and the text report:
  - --wait spin / sleep: every rank's policy ("waits") is the mode, and every timed iteration of
    the history's "slept" is 0 / 1;
  - --wait auto with one more rank than this process may run on cores: every rank shares its
    cores with the run's other ranks, and how it waits is the MPI library's answer: Open MPI
    (which yields while it polls on a node it knows is oversubscribed) "auto/shared-yielding",
    spinning in every iteration; any other library "auto/shared-polling", sleeping in every one
    (lu/mpi/request_wait.hpp). Skipped where that would take more than 6 ranks;
  - --wait auto on 1 rank: "auto/own-cores" (spinning or sleeping per iteration by its share of
    the core: not asserted, the load on the machine decides it);
and in every case the text report's "waited by" column counts the same iterations as the JSON
("spin", "sleep" or "sleep N%") and its "Waiting for messages" line names the policies.
"""
import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402


def run(ctx, np, wait, name):
    path = os.path.join(ctx.workdir, name + ".json")
    proc, _ = bit.launch(ctx, np, ["S", "--wait", wait, "--json", path])
    if [s for s, _ in bit.rank_statuses(proc)] != [0] * np:
        bit.fail(f"lu S --wait {wait} on {np} ranks failed", proc)
    return proc.stdout, json.load(open(path))


def waited_by(slept, iterations):
    if slept == 0:
        return "spin"
    if slept == iterations:
        return "sleep"
    return f"sleep {min(99, max(1, math.floor(100.0 * slept / iterations + 0.5)))}%"  # as lround, clamped


def check_text(stdout, report):
    """The text report's column and line agree with the JSON."""
    rows = re.findall(r"^\s+(\d+)\s+\d+\s+\S+\s+\S+\s+\S+\s+\S+\s+(spin|sleep(?: \d+%)?)$", stdout, re.M)
    iterations = report["iterations_run"]
    expect = [(str(r), waited_by(l["slept_iterations"], iterations)) for r, l in enumerate(report["rank_loads"])]
    if rows != expect:
        bit.fail(f"the report's 'waited by' column {rows}, the JSON's slept iterations say {expect}")
    for policy in set(report["waits"]):
        n = report["waits"].count(policy)
        if f" {policy} on {n} rank{'' if n == 1 else 's'}" not in stdout:
            bit.fail(f"the report's 'Waiting for messages' line does not name {policy} on {n} ranks:\n{stdout}")


def check(ctx, np, wait, policy, slept):
    """Every rank's policy is `policy`, and it slept in every timed iteration (1), none (0) or either (None)."""
    stdout, r = run(ctx, np, wait, f"{wait}_{np}")
    check_text(stdout, r)
    if r["waits"] != [policy] * np:
        bit.fail(f"--wait {wait} on {np} ranks ({r['mpi_library']}): waits {r['waits']}, expected {policy}")
    history = r["history"]["slept"]
    if len(history) != r["iterations_run"] or any(len(row) != np for row in history):
        bit.fail(f"the history's slept is not one value per iteration and rank: {history}")
    if slept is not None and any(v != slept for row in history for v in row):
        bit.fail(f"--wait {wait} ({policy}) on {np} ranks: slept {history}, expected {slept} in every iteration")
    print(f"--wait {wait} on {np} ranks: {policy}, slept iterations {[l['slept_iterations'] for l in r['rank_loads']]}")
    return r


def main():
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    ctx = p.parse_args()
    ctx.workdir = os.path.abspath(ctx.workdir)
    yields = check(ctx, 2, "spin", "spin", 0)["mpi_library"].startswith("Open MPI")
    check(ctx, 2, "sleep", "sleep", 1)
    check(ctx, 1, "auto", "auto/own-cores", None)
    cores = len(os.sched_getaffinity(0))
    if cores + 1 > 6:
        print(f"skipped: ranks sharing cores would take {cores + 1} ranks")
    else:
        check(ctx, cores + 1, "auto", "auto/shared-yielding" if yields else "auto/shared-polling", 0 if yields else 1)
    print("PASS")


if __name__ == "__main__":
    main()
