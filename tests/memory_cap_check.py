#!/usr/bin/env python3
"""The run-time balancer never hands a rank more columns than its node's memory holds.

  memory_cap_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                      --workdir DIR -- CLASS ARGS

Two ranks on one node. First asks lu, with NPBLU_TEST_FAULT=available-memory=1000, what the two
stripes need (its refusal names the bytes, to 10 kB). Then gives the node exactly that plus ROOM
columns a rank (of one field's column bytes) and runs lu CLASS ARGS (a diffusive run whose slow
rank 1 makes rank 0 want more columns than ROOM lets it hold). LuSolver::widest_stripe says how far
a rank of width w may grow (widest() below: 3 fields a column and their spare columns; the fields
grow in place, as Linux gives them the grid's address space): the JSON report's max_columns must
say so, no stripe of the run (the start and every move in balance_moves) may pass it, and the run
must verify. ROOM is mid-way between two steps of widest(), so the refusal's rounding cannot change
the answer.
Then the same run with the node's real memory: no limit reported.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402  (the launch options, the rank wrapper, the checks)

GRID = {"S": 12, "W": 33, "A": 64}
ROOM = 25.5  # columns of room a rank: mid-way between 24 and 27, where widest() steps for w = 16, 15
UNITS = {"bytes": 1, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def headroom(width):
    """Field5::headroom: spare columns a field keeps at an edge."""
    return max(2, -(-width // 32))


def widest(width, room):
    """LuSolver::widest_stripe with the fields growing in place (Linux reserves them the grid's address
    space): d more columns cost 3 d columns of the fields and 2 headrooms of spare columns a field."""
    d = 0
    while 3 * (d + 1) + 6 * headroom(width + d + 1 + 4) <= room:
        d += 1
    return width + d


def needed_bytes(ctx, np, args):
    proc, _ = bit.launch(ctx, np, args + ["--quiet"], env_vars=["NPBLU_TEST_FAULT=available-memory=1000"])
    m = re.search(r"the run's \d+ ranks there need ([\d.]+) (bytes|MB|GB|TB)", proc.stderr)
    if not m:
        bit.fail("the refusal did not name the bytes the stripes need", proc)
    return float(m.group(1)) * UNITS[m.group(2)]


def run_json(ctx, np, args, fault):
    path = os.path.join(ctx.workdir, "memory_cap.json")
    if os.path.exists(path):
        os.remove(path)
    env = [f"NPBLU_TEST_FAULT=available-memory={fault}"] if fault else []
    proc, _ = bit.launch(ctx, np, args + ["--quiet", "--json", path], env_vars=env)
    statuses = [s for s, _ in bit.rank_statuses(proc)]
    if statuses != [0] * np or "SUCCESSFUL" not in proc.stdout:
        bit.fail(f"the run must verify on every rank (exit statuses {statuses})", proc)
    with open(path) as f:
        return json.load(f)


def widths_along(report, start):
    """The stripes the run held: the start, then after each move of balance_moves."""
    widths, seen = list(start), [list(start)]
    for move in report["balance_moves"]:
        b, columns = move["boundary"], move["columns"]  # columns from rank b to rank b+1
        widths[b] -= columns
        widths[b + 1] += columns
        seen.append(list(widths))
    return seen


def main():
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    argv = sys.argv[1:]
    ctx = p.parse_args(argv[:argv.index("--")])
    args = argv[argv.index("--") + 1:]
    os.makedirs(ctx.workdir, exist_ok=True)
    np, n = 2, GRID[args[0]]
    column = n * n * 5 * 8  # one column of one field: nx * nz * 5 doubles
    start = [(n - 2 + 1) // 2, (n - 2) // 2]
    expected = [widest(w, int(ROOM)) for w in start]
    needed = needed_bytes(ctx, np, args)
    report = run_json(ctx, np, args, int(needed + np * ROOM * column))
    if report["max_columns"] != expected:
        bit.fail(f"max_columns {report['max_columns']}, expected {expected} (start {start}, room {ROOM} columns)")
    held = widths_along(report, start)
    over = [w for w in held if any(x > m for x, m in zip(w, expected))]
    if over:
        bit.fail(f"stripes {over[0]} passed the memory limits {expected} (moves {report['balance_moves']})")
    if held[-1] != report["columns"]:
        bit.fail(f"the moves end at {held[-1]}, the report at {report['columns']}")
    print(f"memory for {expected} columns: the run held {len(held)} stripes, from {start} to "
          f"{report['columns']}, none past the limit; verified")
    control = run_json(ctx, np, args, None)
    if control["max_columns"] != []:
        bit.fail(f"with the node's own memory no limit should bind, got max_columns {control['max_columns']}")
    print(f"with the node's own memory: no limit, stripes {control['columns']}")


if __name__ == "__main__":
    main()
