#!/usr/bin/env python3
"""One copy per schema: the per-iteration record and the run identity.

Adding a field to the per-iteration record is one edit (lu/io/iteration_record.cpp).

lu and lu-sim built with NPBLU_TEST_EXTRA_RECORD_FIELD have one more row in the
table: busy_seconds (JSON busy_s) = compute + wait, and nothing else changed.
Runs both and the ordinary lu, and checks that the new column is in the trace
(dataset iterations/busy_seconds with its units), in the gathered history of
both JSON reports (history.busy_s, one value per iteration and rank, equal to
compute_s + wait_s bit for bit), that the ordinary build has none of it, and
that the extra row changes nothing computed (the same field checksum).

The run identity (lu/io/run_identity.cpp) is one table too: every root
attribute of each trace is a key of the same program's JSON report with the
same value, and lu's and lu-sim's reports carry the same identity keys, with
emulated_speeds the same object ({"spec", "schedule"}) in both.
Needs Debian's python3-h5py.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

import h5py

TRACE_NAME, JSON_NAME = "busy_seconds", "busy_s"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        fail(f"{shlex.join(cmd)} exited {proc.returncode}: {proc.stdout[-2000:]} {proc.stderr[-2000:]}")


def check_sum(rows, compute, wait, where):
    for it, (row, c, w) in enumerate(zip(rows, compute, wait)):
        if [float(x) for x in row] != [a + b for a, b in zip(c, w)]:
            fail(f"{where}: iteration {it + 1}: {list(row)} is not compute + wait")


def check_trace(path, iterations, ranks, extra):
    with h5py.File(path, "r") as f:
        g = f["iterations"]
        if not extra:
            if TRACE_NAME in g:
                fail(f"{path}: the ordinary build has {TRACE_NAME}")
            return
        if TRACE_NAME not in g:
            fail(f"{path}: no dataset iterations/{TRACE_NAME} (has {sorted(g)})")
        d = g[TRACE_NAME]
        if d.shape != (iterations, ranks):
            fail(f"{path}: {TRACE_NAME} has shape {d.shape}, expected {(iterations, ranks)}")
        units = d.attrs["units"]
        if (units.decode() if isinstance(units, bytes) else units) != "s":
            fail(f"{path}: {TRACE_NAME} units {d.attrs['units']!r}")
        check_sum(d[()], g["compute_seconds"][()], g["wait_seconds"][()], path)


def check_report(path, iterations, ranks, extra):
    h = json.load(open(path))["history"]
    if not extra:
        if JSON_NAME in h:
            fail(f"{path}: the ordinary build has history.{JSON_NAME}")
        return
    rows = h.get(JSON_NAME)
    if rows is None:
        fail(f"{path}: no history.{JSON_NAME} (has {sorted(h)})")
    if len(rows) != iterations or any(len(r) != ranks for r in rows):
        fail(f"{path}: history.{JSON_NAME} is not {iterations} iterations of {ranks} ranks")
    check_sum(rows, h["compute_s"], h["wait_s"], path)


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def identity_of(trace, report_path):
    """The trace's root attributes, each checked against the JSON report's key of the same name."""
    report = json.load(open(report_path))
    with h5py.File(trace, "r") as f:
        names = set(f.attrs)
        for name in names:
            if name not in report:
                fail(f"{report_path}: no key {name!r}, a root attribute of {trace}")
            value, key = f.attrs[name], report[name]
            if name == "emulated_speeds":
                if not isinstance(key, dict) or key.get("spec") != text(value) or "schedule" not in key:
                    fail(f"{report_path}: emulated_speeds {key!r} is not {{'spec': {text(value)!r}, 'schedule'}}")
            elif isinstance(value, (bytes, str)):
                if key != text(value):
                    fail(f"{report_path}: {name} {key!r}, the trace holds {text(value)!r}")
            else:
                values = [text(v) for v in value.tolist()]
                if (key if isinstance(key, list) else [key]) != values:
                    fail(f"{report_path}: {name} {key!r}, the trace holds {values!r}")
    return names


def check_identity(lu_pair, sim_pair):
    lu_names, sim_names = identity_of(*lu_pair), identity_of(*sim_pair)
    if lu_names != sim_names:
        fail(f"lu's and lu-sim's identities differ: {sorted(lu_names ^ sim_names)}")
    if len(lu_names) < 20:
        fail(f"the identity has {len(lu_names)} fields: {sorted(lu_names)}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lu", required=True, help="the ordinary lu")
    p.add_argument("--lu-extra", required=True, help="lu with the extra row")
    p.add_argument("--sim-extra", required=True, help="lu-sim with the extra row")
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n")
    p.add_argument("--preflags", default="")
    a = p.parse_args()
    mpi = [a.mpiexec, a.np_flag, "2", *shlex.split(a.preflags)]
    args = ["S", "--iterations", "12", "--balance", "diffusive", "--balance-every", "3",
            "--emulate-speeds", "1,0.5", "-q"]
    checksums = {}
    for name, lu, extra in [("plain", a.lu, False), ("extra", a.lu_extra, True)]:
        run([*mpi, lu, *args, "--json", f"{name}.json", "--trace", f"{name}.h5"])
        check_trace(f"{name}.h5", 12, 2, extra)
        check_report(f"{name}.json", 12, 2, extra)
        checksums[name] = json.load(open(f"{name}.json"))["field_checksum"]
    if checksums["plain"] != checksums["extra"]:
        fail(f"the extra row changed the field checksum: {checksums}")
    run([a.sim_extra, "-P", "5", "--class", "S", "--iterations", "20", "--balance", "diffusive",
         "--emulate-speeds", "1,1,0.5,1,1", "--history", "--json", "sim.json", "--trace", "sim.h5", "-q"])
    check_trace("sim.h5", 20, 5, True)
    check_report("sim.json", 20, 5, True)
    check_identity(("plain.h5", "plain.json"), ("sim.h5", "sim.json"))
    print(f"OK: the same run identity in both traces and reports; {TRACE_NAME} in both traces, history.{JSON_NAME} in both JSON reports; checksum "
          f"{checksums['plain']} unchanged")


if __name__ == "__main__":
    main()
