#!/usr/bin/env python3
"""Peak resident memory of every rank against a budget computed from the fields it stores.

  peak_memory_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                       --workdir DIR [--np 2] [--class B] [--checkpoint] -- [more lu options]

Runs lu twice on the same ranks with the same options and 3 iterations: class S (fields of a few
hundred kB: the program, its libraries and MPI's own memory) and the class under test. Each rank
runs under a small Python wrapper that reports its rank and lu's peak resident set
(getrusage(RUSAGE_CHILDREN).ru_maxrss). What MPI, the libraries and the program cost is the same in
both runs and cancels, so for every rank

    0.9 (fields(class) - fields(S))  <=  peak(class) - peak(S)  <=  fields(class) - fields(S) + budget

where fields() is what the rank stores of u (2 halo columns), rsd (1) and frct (none), from the
report's grid and column widths, and the budget is 4 MiB (the sweeps' and rhs' workspaces, MPI's
buffers for the halo columns), plus 4 MiB with --checkpoint (rank 0 holds one piece of another
rank's stripe while it writes: lu/io/checkpoint.cpp). At class B on 2 ranks a rank stores 62 MB;
a second copy of any field (21 MB), the forcing's former temporaries (8 MB) or a checkpoint's
former whole second stripe (21 MB) breaks the budget. The lower bound shows the measure sees the
fields at all (0.9: pages never written, such as rsd's boundary column, cost nothing). Exit 77 (skipped) where ru_maxrss is not in kilobytes (not Linux).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402  (the launch options every lu runner takes)

MIB = 1024  # ru_maxrss counts KiB on Linux
BUDGET_KIB = 4 * MIB
CHECKPOINT_PIECE_KIB = 4 * MIB

# The rank wrapper: runs lu, then prints its rank, lu's exit status and lu's peak resident set.
RANK_WRAPPER = r"""
import os, resource, subprocess, sys
status = subprocess.call(sys.argv[1:], close_fds=False)  # MPICH's PMI_FD must reach lu
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "-1"))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write(f"\nnpblu-rank-peak {rank} {status} {peak}\n")
"""


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + proc.stdout[-3000:] + "\n--- stderr ---\n" + proc.stderr[-3000:])
    sys.exit(1)


def run(ctx, cls, report, extra):
    for name in (report, f"{cls}.h5"):
        if os.path.exists(os.path.join(ctx.workdir, name)):
            os.remove(os.path.join(ctx.workdir, name))
    words = [ctx.lu, cls, "--iterations", "3", "--quiet", "--json", report, *extra]
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(ctx.np),
           sys.executable, "-c", RANK_WRAPPER, *words]
    print("+", " ".join(shlex.quote(c) if c != RANK_WRAPPER else "<rank wrapper>" for c in cmd), flush=True)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, cwd=ctx.workdir)
    except subprocess.TimeoutExpired:
        fail(f"class {cls}: no answer within 240 s")
    peaks = {}
    for rank, status, kib in re.findall(r"npblu-rank-peak (-?\d+) (\d+) (\d+)", proc.stderr):
        if int(status) != 0:
            fail(f"class {cls}: rank {rank} exited with status {status}", proc)
        peaks[int(rank)] = int(kib)
    if proc.returncode != 0 or sorted(peaks) != list(range(ctx.np)):
        fail(f"class {cls}: expected a peak from each of ranks 0..{ctx.np - 1}, got {sorted(peaks)}", proc)
    with open(os.path.join(ctx.workdir, report)) as f:
        return peaks, json.load(f)


def stored_field_kib(report):
    """KiB of u, rsd and frct per rank, from the grid and the stripes' widths."""
    nx, ny, nz = report["grid"]
    column_bytes = 5 * nx * nz * 8
    stored, begin = [], 1
    for width in report["column_widths"]:
        end = begin + width
        columns = sum(min(ny, end + halo) - max(0, begin - halo) for halo in (2, 1, 0))
        stored.append(columns * column_bytes / 1024)
        begin = end
    return stored


def main():
    if not sys.platform.startswith("linux"):
        print("skipped: ru_maxrss is in kilobytes on Linux only")
        sys.exit(77)
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--class", dest="cls", default="B")
    p.add_argument("--checkpoint", action="store_true", help="write a checkpoint at iteration 2")
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    ctx = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    ctx.lu = os.path.abspath(ctx.lu)
    os.makedirs(ctx.workdir, exist_ok=True)
    budget = BUDGET_KIB + (CHECKPOINT_PIECE_KIB if ctx.checkpoint else 0)

    def options(cls):
        # (--checkpoint-overwrite: the previous invocation's checkpoint of the same name is replaced)
        return extra + (["--checkpoint", f"{cls}.h5", "--checkpoint-every", "2", "--checkpoint-overwrite"]
                        if ctx.checkpoint else [])

    base_peaks, base_report = run(ctx, "S", "S.json", options("S"))
    peaks, report = run(ctx, ctx.cls, f"{ctx.cls}.json", options(ctx.cls))
    if report["moved_columns"] != 0:
        fail(f"columns moved in 3 iterations ({report['moved_columns']}): the stripes are not the report's widths")
    base_fields, fields = stored_field_kib(base_report), stored_field_kib(report)
    ok = True
    for r in range(ctx.np):
        grown, expected = peaks[r] - base_peaks[r], fields[r] - base_fields[r]
        print(f"rank {r}: peak {peaks[r] / 1024:.1f} MiB (class S {base_peaks[r] / 1024:.1f} MiB): "
              f"{grown / 1024:.1f} MiB more for {expected / 1024:.1f} MiB more fields; "
              f"the rest {(grown - expected) / 1024:.2f} MiB, budget {budget / 1024:.0f} MiB")
        ok = ok and 0.9 * expected <= grown <= expected + budget
    if not ok:
        fail(f"a rank's peak is not its fields plus at most {budget / 1024:.0f} MiB (see above)")
    print(f"class {ctx.cls} on {ctx.np} ranks: every rank's peak is its fields plus at most "
          f"{budget / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
