#!/usr/bin/env python3
"""Checkpoint and restart of build/bin/lu under mpiexec (CTest).

continue --problem "CLASS [ARGS]" --np P --every N [--checkpointed ARGS] --restarts "Q:ARGS" ...
    an uninterrupted 1-rank run (the reference), then a P-rank run writing a
    checkpoint every N iterations, then each restart "Q:ARGS" from that
    checkpoint on Q ranks: every run ends with the reference's field_checksum
    and (classes S-F) verifies; the norms equal the reference's to 1e-13
    relative (they are sums over ranks: their last bits depend on the
    partition even without a restart) and a restart on the checkpoint's own
    stripes gives bitwise the norms of the uninterrupted P-rank run.
sigterm --np P -- ARGS
    SIGTERM to every rank mid-run: every rank exits 4, one line saying where
    the checkpoint is; a restart from it ends verified with the reference's
    field_checksum.
kill9 --np P --trials T -- ARGS
    SIGKILL to every rank (and the launcher) at a random moment after the
    first checkpoint of a run writing one every iteration, T times: each time
    the file left is a complete checkpoint that a restart continues to the
    reference's field_checksum; a good share of the kills must land while a
    later checkpoint was being written (its .tmp file left behind).
"""
import argparse
import glob
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time

# Each rank reports its own exit status (and then exits 0, so the launcher does
# not end the other ranks early): "every rank" is checked, not just mpiexec's.
RANK_WRAPPER = '"$@"; echo "npblu-rank-exit $?" >&2'
EXIT_INTERRUPTED = 4


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + (proc.stdout or "")[-3000:])
        print("--- stderr ---\n" + (proc.stderr or "")[-3000:])
    sys.exit(1)


def launcher(ctx, np):
    return [ctx.mpiexec, ctx.np_flag, str(np), *shlex.split(ctx.preflags)]


def path_in(ctx, name):
    return os.path.join(ctx.workdir, f"{name}_{os.getpid()}")


def run_lu(ctx, np, args, timeout=300):
    """Runs lu; returns (process, JSON report or None)."""
    json_path = path_in(ctx, "report") + ".json"
    if os.path.exists(json_path):
        os.remove(json_path)
    cmd = [*launcher(ctx, np), ctx.lu, *args, "--json", json_path]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    report = None
    if os.path.exists(json_path):
        with open(json_path) as f:
            report = json.load(f)
        os.remove(json_path)
    return proc, report


def finished_run(ctx, np, args, expect_verified):
    proc, report = run_lu(ctx, np, args)
    if proc.returncode != 0 or report is None:
        fail(f"exit status {proc.returncode}", proc)
    if report["iterations_run"] != report["iterations"]:
        fail(f"ran {report['iterations_run']} of {report['iterations']} iterations", proc)
    if expect_verified and report["verified"] is not True:
        fail("did not verify", proc)
    return proc, report


def same_norms(a, b, tolerance):
    for key in ("xcr", "xce"):
        for x, y in zip(a[key], b[key]):
            if abs(x - y) > tolerance * abs(y):
                return False
    return abs(a["xci"] - b["xci"]) <= tolerance * abs(b["xci"])


def descendants(pid):
    """Every process below pid (mpiexec's ranks, whatever its launcher tree)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except OSError:
            continue
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def lu_ranks(pid, lu):
    ranks = []
    for p in descendants(pid):
        try:
            if os.path.realpath(f"/proc/{p}/exe") == os.path.realpath(lu):
                ranks.append(p)
        except OSError:
            continue
    return ranks


def signal_ranks(proc, lu, np, sig, settle=10.0):
    """Sends sig to every lu rank under proc once all np are up; returns how many got it."""
    deadline = time.monotonic() + settle
    ranks = lu_ranks(proc.pid, lu)
    while len(ranks) < np and time.monotonic() < deadline:
        time.sleep(0.02)
        ranks = lu_ranks(proc.pid, lu)
    for p in ranks:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass
    return len(ranks)


def continue_mode(ctx):
    cls_args = shlex.split(ctx.problem)
    verified = "--size" not in ctx.problem and "--iterations" not in ctx.problem
    _, reference = finished_run(ctx, 1, cls_args + ["--quiet"], verified)
    checkpoint = path_in(ctx, "continue") + ".h5"
    proc, whole = finished_run(ctx, ctx.np, cls_args + shlex.split(ctx.checkpointed) + [
        "--quiet", "--checkpoint", checkpoint, "--checkpoint-every", str(ctx.every)], verified)
    written = re.findall(r"Checkpoint at iteration (\d+) written", proc.stdout)
    expected = [str(i) for i in range(ctx.every, reference["iterations"], ctx.every)]
    if written != expected or not os.path.exists(checkpoint):
        fail(f"checkpoints written at iterations {written}, expected {expected}", proc)
    print(f"{ctx.np} ranks, checkpoints at {written}: checksum {whole['field_checksum']}")
    if whole["field_checksum"] != reference["field_checksum"]:
        fail("checkpointing changed the result")
    for case in ctx.restarts:
        np_text, _, args = case.partition(":")
        proc, report = finished_run(ctx, int(np_text), ["--restart", checkpoint, "--quiet", *shlex.split(args)],
                                    verified)
        resumed = re.search(r"Restarted from .* at iteration (\d+)", proc.stdout)
        if not resumed or int(resumed.group(1)) != int(written[-1]):
            fail("the restart did not say it continued from the last checkpoint", proc)
        if report["field_checksum"] != reference["field_checksum"]:
            fail(f"{case}: field checksum {report['field_checksum']} != {reference['field_checksum']}", proc)
        if not same_norms(report, reference, 1e-13):
            fail(f"{case}: norms differ from the uninterrupted run's", proc)
        if "--balance diffusive" in args and not report["moved_columns"] > 0:
            fail(f"{case}: the diffusive balancer moved no columns", proc)
        own_stripes = int(np_text) == ctx.np and not args.strip() and not ctx.checkpointed
        if own_stripes and (report["columns"] != whole["columns"] or not same_norms(report, whole, 0.0)):
            fail(f"{case}: on the checkpoint's own stripes the norms must be bitwise the uninterrupted run's")
        print(f"restart {case:45s} columns {report['columns']} moved {report['moved_columns']}: "
              f"checksum {report['field_checksum']}, verified {report['verified']}")
    os.remove(checkpoint)


def rank_statuses(stderr):
    return [int(s) for s in re.findall(r"^npblu-rank-exit (\d+)$", stderr, re.MULTILINE)]


def sigterm_mode(ctx):
    _, reference = finished_run(ctx, 1, ctx.rest_plain + ["--quiet"], True)
    checkpoint = path_in(ctx, "sigterm") + ".h5"
    cmd = [*launcher(ctx, ctx.np), "sh", "-c", RANK_WRAPPER, "sh", ctx.lu, *ctx.rest,
           "--checkpoint", checkpoint, "--progress-interval", "0.5"]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Wait for the timed iterations to begin (the first progress line), then signal mid-run.
    for line in proc.stdout:
        if line.startswith(" iteration"):
            break
    time.sleep(0.3)
    signalled = signal_ranks(proc, ctx.lu, ctx.np, signal.SIGTERM)
    start = time.monotonic()
    out, err = proc.communicate(timeout=120)
    proc.stdout, proc.stderr = out, err
    print(f"SIGTERM sent to {signalled} ranks; all exited {time.monotonic() - start:.2f} s later")
    statuses = rank_statuses(err)
    if statuses != [EXIT_INTERRUPTED] * ctx.np:
        fail(f"expected exit status {EXIT_INTERRUPTED} on each of {ctx.np} ranks, got {statuses}", proc)
    lines = [l for l in err.splitlines() if l.startswith("lu: ")]
    if len(lines) != 1 or not re.match(r"lu: stopped by SIGTERM after iteration \d+ of \d+; checkpoint written", lines[0]):
        fail(f"expected one line saying where it stopped, got {lines}", proc)
    stopped_at = int(re.search(r"after iteration (\d+)", lines[0]).group(1))
    if stopped_at >= reference["iterations"] or "Verification" in out:
        fail("the run was not stopped mid-run", proc)
    print(lines[0])
    proc, report = finished_run(ctx, 1, ["--restart", checkpoint, "--quiet"], True)
    if report["field_checksum"] != reference["field_checksum"]:
        fail("the restart from the SIGTERM checkpoint ended with another field", proc)
    print(f"restart from iteration {stopped_at}: verified, checksum {report['field_checksum']}")
    os.remove(checkpoint)


def kill9_mode(ctx):
    _, reference = finished_run(ctx, 1, ctx.rest_plain + ["--quiet"], False)
    checkpoint = path_in(ctx, "kill9") + ".h5"
    # The aside files a write leaves when killed: FILE.h5.XXXXXX.tmp (lu/app/output_files.hpp).
    asides = lambda: glob.glob(glob.escape(checkpoint) + ".*.tmp")  # noqa: E731
    rng = random.Random(ctx.seed)
    mid_write = restarted = 0
    for trial in range(ctx.trials):
        for path in [checkpoint, *asides()]:
            if os.path.exists(path):
                os.remove(path)
        cmd = [*launcher(ctx, ctx.np), ctx.lu, *ctx.rest, "--quiet", "--checkpoint", checkpoint,
               "--checkpoint-every", "1"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        # Once the first checkpoint is there, kill at a random moment of the later ones.
        deadline = time.monotonic() + 30
        while not os.path.exists(checkpoint) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        time.sleep(rng.uniform(ctx.min_delay, ctx.max_delay))
        killed = signal_ranks(proc, ctx.lu, ctx.np, signal.SIGKILL)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the launcher too: nothing left running
        except ProcessLookupError:
            pass
        proc.communicate(timeout=60)
        if killed < ctx.np:
            fail(f"trial {trial}: the run ended before the kill (found {killed} ranks); lengthen it")
        left_tmp = bool(asides())
        mid_write += left_tmp
        if not os.path.exists(checkpoint):
            fail(f"trial {trial}: the first checkpoint vanished")
        done, report = finished_run(ctx, 1, ["--restart", checkpoint, "--quiet"], False)
        if report["field_checksum"] != reference["field_checksum"]:
            fail(f"trial {trial}: the restart ended with another field", done)
        at = re.search(r"at iteration (\d+)", done.stdout).group(1)
        restarted += 1
        print(f"trial {trial:2d}: killed {'while writing a checkpoint' if left_tmp else 'between checkpoints'}; "
              f"restart from iteration {at} ends with the reference field")
    print(f"{ctx.trials} kills after the first checkpoint: {mid_write} while writing a later one; "
          f"every one left a checkpoint a restart continued to the reference field")
    needed = max(2, ctx.trials // 5) if ctx.min_mid_write is None else ctx.min_mid_write
    if mid_write < needed:
        fail("too few kills landed during a checkpoint write for the test to mean something")
    for path in [checkpoint, *asides()]:
        if os.path.exists(path):
            os.remove(path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lu", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n")
    p.add_argument("--preflags", default="")
    p.add_argument("--workdir", required=True)
    p.add_argument("mode", choices=["continue", "sigterm", "kill9"])
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--problem", default="W")
    p.add_argument("--every", type=int, default=150)
    p.add_argument("--restarts", nargs="*", default=[])
    p.add_argument("--checkpointed", default="", help="more arguments of the checkpointed run")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--min-mid-write", type=int, default=None,
                   help="kills that must land during a write (default: a fifth of the trials, at least 2)")
    p.add_argument("--min-delay", type=float, default=0.0)
    p.add_argument("--max-delay", type=float, default=0.4)
    p.add_argument("--seed", type=int, default=int(time.time()))
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    ctx = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    ctx.rest = rest
    # The reference run: the same problem without the emulated slowdown.
    ctx.rest_plain = [w for i, w in enumerate(rest)
                      if w != "--emulate-speeds" and (i == 0 or rest[i - 1] != "--emulate-speeds")]
    ctx.workdir = os.path.abspath(ctx.workdir)
    os.makedirs(ctx.workdir, exist_ok=True)
    print("seed", ctx.seed)
    {"continue": continue_mode, "sigterm": sigterm_mode, "kill9": kill9_mode}[ctx.mode](ctx)


if __name__ == "__main__":
    main()
