#!/usr/bin/env python3
"""The balancer reads the ranks the scheduler places on shared cores at their pool's mean core share.

  share_pools_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                       --workdir DIR

Each rank is pinned by taskset before lu starts (every MPI's binding undone), and the JSON report's
share_pools (balance/share_pools: per rank the lowest rank of its pool, -1 for none) and the report's
line must follow the ranks' CPU affinity as lu_sim and the C API see it:
  3 ranks all allowed on the same 2 CPUs (an unpinned, oversubscribed run): one pool [0, 0, 0];
  3 ranks on CPUs A, B, B (two pinned to one core): [-1, 1, 1];
  2 ranks on CPUs A and B (a core each): no pools, [] and no line.
Needs two CPUs this process may run on (exit 77, skipped, with fewer).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402  (the launch options, the checks)

# Pins rank r (Open MPI or MPICH numbering) to the r-th CPU list of $1, then runs the rest.
PIN = ('lists="$1"; shift; r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; '
       'cpus=$(echo "$lists" | cut -d" " -f$((r + 1))); exec taskset -c "$cpus" "$@"')
LINE = "time-share cores as the scheduler places them"


def run(ctx, cpu_lists, path):
    np = len(cpu_lists)
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(np), "sh", "-c", PIN, "sh",
           " ".join(cpu_lists), ctx.lu, "S", "--balance", "diffusive", "--json", path]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=bit.HANG_LIMIT)
    except subprocess.TimeoutExpired:
        bit.fail(f"hung: no answer within {bit.HANG_LIMIT} s")
    if proc.returncode != 0 or "SUCCESSFUL" not in proc.stdout:
        bit.fail(f"the run must verify (exit status {proc.returncode})", proc)
    with open(path) as f:
        return json.load(f), proc


def main():
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    ctx = p.parse_args()
    os.makedirs(ctx.workdir, exist_ok=True)
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        print(f"skipped: this process may run on {len(allowed)} CPU, the cases need 2")
        sys.exit(77)
    a, b = str(allowed[0]), str(allowed[1])
    both = f"{a},{b}"
    path = os.path.join(ctx.workdir, "share_pools.json")
    for cpu_lists, expected in (([both, both, both], [0, 0, 0]), ([a, b, b], [-1, 1, 1]), ([a, b], [])):
        report, proc = run(ctx, cpu_lists, path)
        if report["share_pools"] != expected:
            bit.fail(f"ranks on CPUs {cpu_lists}: share_pools {report['share_pools']}, expected {expected}", proc)
        if (LINE in proc.stdout) != bool(expected):
            bit.fail(f"ranks on CPUs {cpu_lists}: the report's line on shared cores is "
                     f"{'missing' if expected else 'there, without pools'}", proc)
        print(f"ranks on CPUs {cpu_lists}: share_pools {expected}, verified")


if __name__ == "__main__":
    main()
