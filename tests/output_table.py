#!/usr/bin/env python3
"""Outputs that never destroy a file: runs the cases of tests/output_cases.txt.

  output_table.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                  --workdir DIR --table FILE (--case NAME | --all)

For every case, in a fresh directory of fixtures: the exit status on every rank, the error line (one
"lu: error:" line containing the table's text, as tests/bad_input_table.py checks it), and the
SHA-256 of every file before and after: unchanged, but the files the case names as changed, which must
then be complete (a report that parses, an HDF5 file that opens). No aside file is left behind.
"""
import argparse
import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402  (the rank wrapper and the refusal checks)

FIXED_TMP = {"c.h5.tmp", "r.json.tmp"}  # fixtures named like the old fixed aside names


def read_table(path):
    cases = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, np, status, expect, changes, setup, args = (x.strip() for x in line.split("|", 6))
            cases[name] = dict(np=int(np), status=int(status), expect=expect, args=args,
                               changes=dict(c.split(":") for c in changes.split(",")) if changes != "-" else {},
                               setup=setup)
    return cases


def base_checkpoint(ctx):
    """A class S checkpoint at iteration 25, made once per invocation."""
    path = os.path.join(ctx.workdir, f"base_{os.getpid()}.h5")
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, "1", ctx.lu, "S", "--quiet",
           "--checkpoint", path, "--checkpoint-every", "25"]
    made = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if made.returncode != 0 or not os.path.exists(path):
        bit.fail("could not write the checkpoint the cases start from", made)
    return path


def make_fixtures(work, checkpoint):
    import h5py  # Debian's python3-h5py
    os.makedirs(os.path.join(work, "adir"))
    with open(os.path.join(work, "old.json"), "w") as f:
        json.dump({"program": "lu", "program_version": "0.0.1", "old": "report", "padding": "x" * 4000}, f)
    with h5py.File(os.path.join(work, "old.h5"), "w") as f:
        f.attrs["class"] = "old trace"
        f["iterations/iteration"] = list(range(1, 8))
    with h5py.File(os.path.join(work, "data.h5"), "w") as f:
        f["x"] = list(range(10))  # a user's data file: no run may replace it
    shutil.copyfile(checkpoint, os.path.join(work, "ckpt.h5"))
    os.link(os.path.join(work, "ckpt.h5"), os.path.join(work, "hard.h5"))
    with open(os.path.join(work, "w.txt"), "w") as f:
        f.write("1\n1\n")
    with open(os.path.join(work, "victim"), "w") as f:
        f.write("a file the checkpoint must not overwrite through a stale .tmp symlink\n")
    os.mkfifo(os.path.join(work, "fifo"))
    os.symlink(os.path.join(work, "old.json"), os.path.join(work, "link.json"))
    for name, target in (("dangling.json", "adir/new.json"), ("dangling.h5", "adir/new.h5"),
                         ("dangling_ckpt.h5", "adir/new_ckpt.h5"), ("nowhere.json", "nodir/new.json")):
        os.symlink(os.path.join(work, target), os.path.join(work, name))
    os.symlink(os.path.join(work, "victim"), os.path.join(work, "c.h5.tmp"))
    os.makedirs(os.path.join(work, "r.json.tmp"))


def digests(work):
    """name -> SHA-256 of every regular file; a symlink -> where it points (its target is digested
    under its own name: a file changed through a link shows there)."""
    out = {}
    for root, _, files in os.walk(work):
        for name in files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, work)
            if os.path.islink(path):
                out[rel] = "symlink to " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def check_complete(path, kind):
    import h5py
    if kind == "json":
        with open(path) as f:
            report = json.load(f)
        if report.get("successful") is not True:
            bit.fail(f"{path}: the new report is not a successful run's")
    elif kind == "h5-partial":  # a trace its run could not finish: readable up to its last flush
        with h5py.File(path, "r") as f:
            if not 0 < len(f["iterations/iteration"]):
                bit.fail(f"{path}: the trace left holds no iteration")
    elif kind in ("h5", "checkpoint"):
        with h5py.File(path, "r") as f:
            if kind == "checkpoint" and "header_checksums" not in f.attrs:
                bit.fail(f"{path}: not a complete checkpoint")
            if kind == "h5" and len(f["iterations/iteration"]) != 50:
                bit.fail(f"{path}: the new trace does not hold the run's 50 iterations")
    else:
        bit.fail(f"unknown kind {kind!r}")


def read_text(path):
    with open(path) as f:
        return f.read()


def start_live_run(ctx, work):
    """Another run writing {W}/live.h5 (a new trace, so written in place and locked by HDF5 while
    open), slowed down so that it is still running when the case starts; returns it once its trace
    holds a flushed iteration: its first progress line (one per iteration), printed after the
    iteration's trace flush (--trace-flush 1), whatever the machine's speed."""
    # Its output beside the case's directory, whose every file the case checks is left untouched.
    trace, out = os.path.join(work, "live.h5"), work.rstrip("/") + "_live_out.txt"
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, "1", ctx.lu, "W",
           "--progress-interval", "0.001", "--emulate-speeds", "0.05", "--trace", trace, "--trace-flush", "1"]
    with open(out, "w") as sink:
        live = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + bit.HANG_LIMIT
    while live.poll() is None and " iteration " not in read_text(out):
        if time.monotonic() > deadline:
            live.kill()
            bit.fail(f"the live run printed no progress line within {bit.HANG_LIMIT} s")
        time.sleep(0.05)
    if live.poll() is not None:
        bit.fail("the live run ended before the case could start")
    return live, os.stat(trace).st_ino


def stop_live_run(live, work, inode):
    """Ends the live run (its process group: the launcher and its rank) and checks its trace: the same
    file, readable, holding the iterations it flushed."""
    import h5py
    live.terminate()  # SIGTERM to the launcher we started: it forwards it to its rank and waits
    try:
        live.wait(timeout=60)
    except subprocess.TimeoutExpired:
        live.kill()
        live.wait(timeout=60)
    trace = os.path.join(work, "live.h5")
    with open(trace, "rb") as f:  # the rank gone, its lock goes with it
        deadline = time.monotonic() + 30
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    bit.fail("the live run still holds its trace 30 s after it was stopped")
                time.sleep(0.1)
    if os.stat(trace).st_ino != inode:
        bit.fail("the live run's trace was replaced")
    with h5py.File(trace, "r") as f:
        n = len(f["iterations/iteration"])
        first = int(f["iterations/iteration"][0]) if n else None
    if n < 1 or first != 1:
        bit.fail(f"the live run's trace holds {n} iterations from {first}: damaged")
    print(f"the live run's trace is the same file, readable, {n} iterations flushed")


def launch(ctx, case, words, work):
    prefix, lock = [], None
    setup = case["setup"]
    if setup.startswith("ulimit="):
        # The limit is the process's, so MPI_Init's own files count too: MPICH's UCX writes its
        # shared-memory FIFOs to files (posix transport), which a small limit refuses before lu runs.
        # Self and TCP (loopback) need no such file and carry a 1-rank run the same.
        prefix = ["env", "UCX_TLS=self,tcp", "sh", "-c", f'ulimit -f {setup.split("=", 1)[1]}; exec "$@"', "sh"]
    elif setup.startswith("vmem="):  # an address-space limit, as batch systems set one
        prefix = ["sh", "-c", f'ulimit -v {setup.split("=", 1)[1]}; exec "$@"', "sh"]
    elif setup.startswith("env="):
        prefix = ["env", setup.split("=", 1)[1]]
    elif setup.startswith("lock="):
        lock = open(os.path.join(work, setup.split("=", 1)[1]), "rb")
        fcntl.flock(lock, fcntl.LOCK_EX)
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(case["np"]),
           "sh", "-c", bit.RANK_WRAPPER, "sh", *prefix, ctx.lu, *words]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        bit.fail("hung: no answer within 120 s")
    finally:
        if lock:
            lock.close()
    return proc, time.monotonic() - start


def run_case(ctx, name, case, checkpoint):
    if case["setup"].startswith("vmem=") and "ASAN_OPTIONS" in os.environ:
        print("skipped under a sanitizer: its shadow memory alone takes more address space than the limit")
        return
    work = os.path.join(ctx.workdir, f"{name}_{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_fixtures(work, checkpoint)
    text = case["args"].replace("{W}", work).replace("{NAME250}", "n" * 250)
    expect = case["expect"].replace("{W}", work)
    live = start_live_run(ctx, work) if case["setup"] == "live" else None
    before = digests(work)
    try:
        proc, elapsed = launch(ctx, case, shlex.split(text) + ["--quiet"], work)
    finally:
        if live:
            stop_live_run(live[0], work, live[1])
    if live:  # (it kept writing its own trace: checked above, not by digest)
        before.pop("live.h5", None)
    if case["status"] == 0:
        statuses = [s for s, _ in bit.rank_statuses(proc)]
        if statuses != [0] * case["np"]:
            bit.fail(f"expected exit status 0 on each of {case['np']} ranks, got {statuses}", proc)
    else:
        bit.check_refused(proc, elapsed, case["np"], expect, status=case["status"], time_limit=None)
    after = digests(work)
    if live:
        after.pop("live.h5", None)
    for rel, digest in before.items():
        if rel in case["changes"]:
            continue
        if after.get(rel) != digest:
            bit.fail(f"{rel} changed (or vanished): {digest[:12]} -> {str(after.get(rel))[:12]}", proc)
    for rel, kind in case["changes"].items():
        check_complete(os.path.join(work, rel), kind)
    extra = [rel for rel in after if rel not in before and rel not in case["changes"]]
    if extra:
        bit.fail(f"files left behind: {extra}", proc)
    if any(n.endswith(".tmp") and n not in FIXED_TMP for n in os.listdir(work)):
        bit.fail(f"an aside file left behind: {os.listdir(work)}", proc)
    if os.path.exists(os.path.join(work, "--quiet")):
        bit.fail("a file named --quiet was written")
    shutil.rmtree(work)
    print(f"{name}: exit {case['status']} on every rank; {len(before)} files checked by SHA-256"
          f"{', changed complete: ' + ', '.join(case['changes']) if case['changes'] else ', all unchanged'}")


def main():
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--case")
    p.add_argument("--all", action="store_true")
    ctx = p.parse_args()
    ctx.workdir = os.path.abspath(ctx.workdir)
    os.makedirs(ctx.workdir, exist_ok=True)
    cases = read_table(ctx.table)
    names = list(cases) if ctx.all else [ctx.case]
    checkpoint = base_checkpoint(ctx)
    try:
        for name in names:
            if name not in cases:
                bit.fail(f"no case {name!r} in {ctx.table}")
            run_case(ctx, name, cases[name], checkpoint)
    finally:
        os.remove(checkpoint)


if __name__ == "__main__":
    main()
