#!/usr/bin/env python3
"""The exit statuses the README promises, each on every rank (each rank under the wrapper of
bad_input_table.py, which records its own status):

  not-verified      --np N -- ARGS  a run that does not verify exits 1 on every rank, says
                                    "Verification = UNSUCCESSFUL" and "verified": false.
                                    The wrong answer comes from the test-only fault injection
                                    NPBLU_TEST_FAULT=wrong-norms (lu/run/test_faults.hpp): the
                                    computed residual norms scaled by 1 + 1e-6, as a wrong field
                                    would make them.
  json-disk-full    --np N -- ARGS  the JSON report cannot be written at the end (a full tmpfs,
                                    created empty by the start-up probe): exit 3 on every rank,
                                    one "lu: error:" line.
  checkpoint-disk-full --np N -- ARGS  the second checkpoint does not fit a small tmpfs: exit 3 on
                                    every rank, one line; the first checkpoint is left whole and a
                                    restart from it verifies with the uninterrupted field.
  abort             --np N -- ARGS  one rank alone fails (NPBLU_TEST_FAULT=throw-on-rank-1): one
                                    line naming the rank, and MPI_Abort ends the job with status
                                    3 instead of a hang.
  signal-at-start   --np N -- ARGS  with --checkpoint, SIGTERM on every rank as its session starts
                                    (NPBLU_TEST_FAULT=sigterm-at=start, before the warm-up): the
                                    run stops after its first iteration with a checkpoint, exit 4
                                    on every rank (the handlers were installed later: 143).
  signal-after-last --np N -- ARGS  with --checkpoint, SIGTERM on every rank while the report is
                                    built (sigterm-at=report): the complete run verifies, exit 0
                                    on every rank, and says the signal was ignored (was 143).
  signal-at-exit --np N -- ARGS     with --checkpoint, SIGTERM on every rank after the run, before
                                    MPI ends (sigterm-at=exit): still exit 0 on every rank (was 143:
                                    the handlers were restored when the run returned).
The disk-full modes mount a tmpfs (root only); they exit 77 ("skipped") where they cannot.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bad_input_table import BACKTRACE, add_launch_arguments, check_refused, fail, launch  # noqa: E402

SKIPPED = 77
VERDICT = re.compile(r"^ Verification\s+=\s+(\S+)$", re.MULTILINE)


def verdict(proc):
    found = VERDICT.findall(proc.stdout)
    return found[0] if len(found) == 1 else None


def run_not_verified(ctx, args):
    json_path = os.path.abspath("not_verified.json")
    proc, _ = launch(ctx, ctx.np, args + ["--json", json_path], env_vars=["NPBLU_TEST_FAULT=wrong-norms"])
    statuses = [int(s) for s in re.findall(r"^npblu-rank-exit (\d+) ", proc.stderr, re.MULTILINE)]
    if statuses != [1] * ctx.np:
        fail(f"expected exit status 1 on each of {ctx.np} ranks, got {statuses}", proc)
    if verdict(proc) != "UNSUCCESSFUL":
        fail(f"the report's verdict is {verdict(proc)!r}, not UNSUCCESSFUL", proc)
    with open(json_path) as f:
        report = json.load(f)
    if report["verified"] is not False or report["verification_performed"] is not True:
        fail("the JSON must say verification performed, not verified", proc)
    if "lu: error:" in proc.stderr or BACKTRACE.search(proc.stderr):
        fail("a run that does not verify is not an error: no error line, no backtrace", proc)
    print(f"not verified: exit 1 on every one of {ctx.np} ranks, Verification = UNSUCCESSFUL")


def mounted_tmpfs(size):
    point = tempfile.mkdtemp(prefix="npblu_full_")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", point],
                          capture_output=True, text=True)
    if done.returncode != 0:
        os.rmdir(point)
        print("skipped: cannot mount a small tmpfs here:", done.stderr.strip())
        sys.exit(SKIPPED)
    return point


def unmount(point):
    subprocess.run(["umount", point])
    os.rmdir(point)


def fill(point):
    """Fills the file system: nothing more can be written, a new empty file still can."""
    f = open(os.path.join(point, "filler"), "wb", buffering=0)
    try:
        while True:
            f.write(b"\0" * 4096)
    except OSError:
        pass
    try:
        f.close()
    except OSError:
        pass


def run_json_disk_full(ctx, args):
    point = mounted_tmpfs("64k")
    try:
        fill(point)
        proc, _ = launch(ctx, ctx.np, args + ["--quiet", "--json", os.path.join(point, "report.json")])
        line, _ = check_refused(proc, 0.0, ctx.np, "JSON report", status=3, time_limit=None)
        print(f"JSON write failed at the end: exit 3 on every rank: {line}")
    finally:
        unmount(point)


def run_checkpoint_disk_full(ctx, args):
    # Class S: u is 12*12*12*5 doubles = 69 kB. The first checkpoint fits, the second's
    # FILE.h5.tmp beside it does not.
    point = mounted_tmpfs("128k")
    try:
        path = os.path.join(point, "c.h5")
        proc, _ = launch(ctx, ctx.np, args + ["--quiet", "--checkpoint", path, "--checkpoint-every", "10"])
        line, _ = check_refused(proc, 0.0, ctx.np, "writing the checkpoint failed", status=3, time_limit=None)
        if verdict(proc) is not None:
            fail("the run went on to the end after the failed write", proc)
        kept = os.path.abspath("kept.h5")
        subprocess.run(["cp", path, kept], check=True)
    finally:
        unmount(point)
    import h5py  # Debian's python3-h5py
    with h5py.File(kept, "r") as f:
        if int(f.attrs["iteration"]) != 10:
            fail(f"the checkpoint left holds iteration {f.attrs['iteration']}, not 10")
    proc, _ = launch(ctx, ctx.np, ["--restart", kept, "--quiet"])
    statuses = [int(s) for s in re.findall(r"^npblu-rank-exit (\d+) ", proc.stderr, re.MULTILINE)]
    if statuses != [0] * ctx.np or verdict(proc) != "SUCCESSFUL":
        fail(f"the restart from the checkpoint left did not verify (statuses {statuses})", proc)
    print(f"checkpoint write failed: exit 3 on every rank ({line}); the first checkpoint, "
          "iteration 10, restarts and verifies")


def run_abort(ctx, args):
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(ctx.np), "env",
           "NPBLU_TEST_FAULT=throw-on-rank-1", ctx.lu, *args, "--quiet"]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        fail("one rank failing alone left the job hanging")
    errors = [l for l in proc.stderr.splitlines() if l.startswith("lu: error:")]
    if len(errors) != 1 or "(rank 1)" not in errors[0] or "test fault injection" not in errors[0]:
        fail(f"expected one 'lu: error: ... (rank 1)' line, got {errors}", proc)
    if proc.returncode != 3:
        fail(f"the launcher exited {proc.returncode}, not MPI_Abort's 3", proc)
    if verdict(proc) is not None:
        fail("the run printed a verdict after a rank failed", proc)
    print(f"one rank failing alone: {errors[0]}; the job ended by MPI_Abort with status 3")


def statuses_of(proc):
    return [int(s) for s in re.findall(r"^npblu-rank-exit (\d+) ", proc.stderr, re.MULTILINE)]


def run_signal_at_start(ctx, args):
    path = os.path.abspath("signal_at_start.h5")
    if os.path.exists(path):
        os.remove(path)
    proc, _ = launch(ctx, ctx.np, args + ["--checkpoint", path, "--quiet"],
                     env_vars=["NPBLU_TEST_FAULT=sigterm-at=start"])
    if statuses_of(proc) != [4] * ctx.np:
        fail(f"expected exit status 4 on each of {ctx.np} ranks, got {statuses_of(proc)}", proc)
    if not re.search(r"^lu: stopped by SIGTERM after iteration 1 of \d+; checkpoint written", proc.stderr,
                     re.MULTILINE):
        fail("no 'stopped by SIGTERM after iteration 1' line", proc)
    import h5py  # Debian's python3-h5py
    with h5py.File(path, "r") as f:
        if int(f.attrs["iteration"]) != 1:
            fail(f"the checkpoint holds iteration {f.attrs['iteration']}, not 1")
    print(f"SIGTERM during start-up: exit 4 on every one of {ctx.np} ranks, a checkpoint of iteration 1")


def late_signal_run(ctx, args, where):
    """A checkpointed run that gets SIGTERM on every rank at `where` (sigterm-at=...): verified, exit 0."""
    path = os.path.abspath(f"signal_at_{where}.h5")
    if os.path.exists(path):
        os.remove(path)
    proc, _ = launch(ctx, ctx.np, args + ["--checkpoint", path, "--checkpoint-every", "20"],
                     env_vars=[f"NPBLU_TEST_FAULT=sigterm-at={where}"])
    if statuses_of(proc) != [0] * ctx.np or verdict(proc) != "SUCCESSFUL":
        fail(f"expected a verified run, exit 0 on each of {ctx.np} ranks, got {statuses_of(proc)}", proc)
    return proc


def run_signal_after_last(ctx, args):
    proc = late_signal_run(ctx, args, "report")
    if "SIGTERM after the last iteration: ignored, the run was complete" not in proc.stdout:
        fail("the report does not say the late signal was ignored", proc)
    print(f"SIGTERM after the last iteration: exit 0 on every one of {ctx.np} ranks, Verification = SUCCESSFUL")


def run_signal_at_exit(ctx, args):
    late_signal_run(ctx, args, "exit")
    print(f"SIGTERM after the run: exit 0 on every one of {ctx.np} ranks, Verification = SUCCESSFUL")


def main():
    p = argparse.ArgumentParser()
    add_launch_arguments(p)
    p.add_argument("--np", type=int, default=2)
    p.add_argument("mode", choices=["not-verified", "json-disk-full", "checkpoint-disk-full", "abort",
                                    "signal-at-start", "signal-after-last", "signal-at-exit"])
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    ctx = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    {"not-verified": run_not_verified, "json-disk-full": run_json_disk_full,
     "checkpoint-disk-full": run_checkpoint_disk_full, "abort": run_abort,
     "signal-at-start": run_signal_at_start, "signal-after-last": run_signal_after_last,
     "signal-at-exit": run_signal_at_exit}[ctx.mode](ctx, rest)


if __name__ == "__main__":
    main()
