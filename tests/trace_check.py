#!/usr/bin/env python3
"""CTest checks of HDF5 partition traces (needs Debian's python3-h5py).

schema --np N -- ARGS   run lu with --trace; check the documented datasets and
                        shapes, that column ranges tile the interior at every
                        iteration, and that moves agree with the ranges
kill   --np N -- ARGS   start lu with --trace, freeze every rank (SIGSTOP) once
                        20 iterations are on disk, read what the file holds,
                        SIGKILL rank 0: the file must open (h5py and h5dump) and
                        hold exactly the iterations 1..n read while frozen, n a
                        multiple of --trace-flush (every iteration up to the last
                        flush, none lost, none half-written)
plot   --np N -- ARGS   run lu with --trace, render runs/plot_trace.py, check the
                        picture shows the trace (tests/plot_content_check.py)
file   TRACE PNG JSON   a trace written by lu-sim (--trace) and its picture: the
                        schema, moves recorded (lu-sim's are deterministic) and
                        the picture's content
Every run's per-iteration bottleneck ratio in the trace must be its JSON
report's bottleneck_ratio_by_iteration, bit for bit (lu's report checks it
against an independent oracle: tests/lu_runner.py).
"""
import argparse
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time

# HDF5 locks a file open for writing; reading a live trace needs locking off.
os.environ["HDF5_USE_FILE_LOCKING"] = "FALSE"
import h5py  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# How launchers tell a process it is rank 0 (Open MPI, MPICH's hydra, PMIx).
RANK0_ENV = {b"OMPI_COMM_WORLD_RANK=0", b"PMI_RANK=0", b"PMIX_RANK=0"}
# The run identity (lu/io/run_identity.cpp) and the per-iteration record (lu/io/iteration_record.cpp).
IDENTITY_ATTRIBUTES = ["program", "program_version", "isa", "mpi_library", "command_line", "start_time", "hosts",
                       "class", "grid", "iterations", "dt", "ranks", "column_widths", "weight_source", "weights",
                       "balance", "balance_every", "balance_threshold", "balance_damping", "emulated_speeds",
                       "waits"]
ITERATION_SETS = ["column_begin", "column_end", "compute_seconds", "wait_seconds", "migration_seconds",
                  "emulated_speed", "on_cpu_seconds", "run_delay_seconds", "slept_waiting"]


def launcher(ctx, np):
    """mpiexec as CMake found it: MPIEXEC_EXECUTABLE MPIEXEC_NUMPROC_FLAG N MPIEXEC_PREFLAGS."""
    return [ctx.mpiexec, ctx.np_flag, str(np), *shlex.split(ctx.preflags)]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check_file(path, expect_iterations=None):
    with h5py.File(path, "r") as f:
        for attr in IDENTITY_ATTRIBUTES:
            if attr not in f.attrs:
                fail(f"attribute {attr} missing")
        ranks = int(f.attrs["ranks"][0])
        ny = int(f.attrs["grid"][1])
        it = f["iterations/iteration"][:]
        n = len(it)
        if expect_iterations is not None and n != expect_iterations:
            fail(f"{n} iterations in the trace, expected {expect_iterations}")
        if list(it) != list(range(1, n + 1)):
            fail("iteration numbers are not 1..N")
        if set(ITERATION_SETS) - set(f["iterations"]):
            fail(f"iterations/ lacks {sorted(set(ITERATION_SETS) - set(f['iterations']))}")
        ratio = f["iterations/bottleneck_ratio"]
        if ratio.shape != (n,) or "meaning" not in ratio.attrs:
            fail(f"iterations/bottleneck_ratio has shape {ratio.shape}, expected {(n,)}, with its meaning")
        for name in set(f["iterations"]) - {"iteration", "bottleneck_ratio"}:  # every row of the record's table
            shape = f["iterations/" + name].shape
            if shape != (n, ranks):
                fail(f"iterations/{name} has shape {shape}, expected {(n, ranks)}")
            for a in ("units", "meaning"):
                if a not in f["iterations/" + name].attrs:
                    fail(f"iterations/{name} lacks its {a}")
        if len(f.attrs["hosts"]) != ranks:
            fail("one host name per rank expected")
        begin = f["iterations/column_begin"][:]
        end = f["iterations/column_end"][:]
        for i in range(n):
            if begin[i, 0] != 1 or end[i, -1] != ny - 1 or any(end[i, r] != begin[i, r + 1] for r in range(ranks - 1)):
                fail(f"iteration {i + 1}: ranges do not tile the interior: {list(zip(begin[i], end[i]))}")
        # Scheduler accounting: each rank ran for at most the iteration's wall
        # time (compute + wait + migration plus small untimed parts), and, on
        # Linux, for some of it. Linux advances a thread's schedstat on-cpu
        # time only at scheduler ticks and context switches, so a rank whose
        # whole timed loop lasts a few ticks (class S: milliseconds) may read
        # none: the "some of it" holds for ranks timed over 0.1 s (10 ticks
        # at HZ=100).
        cpu, delay = f["iterations/on_cpu_seconds"][:], f["iterations/run_delay_seconds"][:]
        timed = (f["iterations/compute_seconds"][:] + f["iterations/wait_seconds"][:]
                 + f["iterations/migration_seconds"][:])
        if (cpu < 0).any() or (delay < 0).any():
            fail("negative on-cpu or run-delay time")
        long_enough = timed.sum(axis=0) > 0.1
        if sys.platform.startswith("linux") and not (cpu.sum(axis=0) > 0)[long_enough].all():
            fail("a rank recorded no time on a core")
        if (cpu.sum(axis=0) > 1.2 * timed.sum(axis=0) + 0.05).any():
            fail(f"on-cpu time {cpu.sum(axis=0)} exceeds the timed phases {timed.sum(axis=0)}")
        mi, mb, mc = (f["balance/" + k][:] for k in ("iteration", "boundary", "columns"))
        if not (len(mi) == len(mb) == len(mc)):
            fail("balance datasets differ in length")
        recorded = {(int(a), int(b)): int(c) for a, b, c in zip(mi, mb, mc)}
        for i in range(1, n):
            for b in range(ranks - 1):
                shift = int(end[i - 1, b] - end[i, b])
                if shift != recorded.get((i, b), 0):
                    fail(f"boundary {b} moved by {shift} after iteration {i}, recorded {recorded.get((i, b), 0)}")
        return n, len(mi), ranks


def send(pid, sig):
    """Signals pid if it still exists: once rank 0 is killed the launcher may end the other ranks
    before this script resumes them, and a rank may end between listing and signalling."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def lu_pids(trace):
    """Every lu process writing to or running alongside this trace (its command line names it)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if trace.encode() in args and args[0].endswith(b"/lu"):
            found.append(int(pid))
    return found


def flushed_iterations(trace):
    try:
        with h5py.File(trace, "r") as f:
            return [int(i) for i in f["iterations/iteration"][:]]
    except (OSError, KeyError):
        return None


def check_picture(trace, png):
    with open(png, "rb") as f:
        if not f.read(8).startswith(b"\x89PNG\r\n\x1a\n"):
            fail(f"{png} is not a PNG")
    done = subprocess.run([sys.executable, os.path.join(HERE, "plot_content_check.py"), trace, png],
                          capture_output=True, text=True)
    print(done.stdout, end="")
    if done.returncode != 0:
        fail(f"the picture does not show the trace:\n{done.stdout}{done.stderr}")


def check_ratio_as_reported(trace, report_path):
    """The trace's per-iteration bottleneck ratio is the JSON report's, value for value."""
    with open(report_path) as f:
        reported = json.load(f)["bottleneck_ratio_by_iteration"]
    with h5py.File(trace, "r") as f:
        traced = [float(x) for x in f["iterations/bottleneck_ratio"][:]]
    if len(traced) != len(reported):
        fail(f"{len(traced)} bottleneck ratios in the trace, {len(reported)} in the report")
    for i, (t, r) in enumerate(zip(traced, reported)):
        same = (math.isnan(t) and r is None) or t == r
        if not same:
            fail(f"iteration {i + 1}: bottleneck ratio {t!r} in the trace, {r!r} in the report")
    if not all(t >= 1 - 1e-12 for t in traced if not math.isnan(t)):
        fail(f"a bottleneck ratio below 1: {min(traced)}")
    print(f"bottleneck ratios as reported: {len(traced)} iterations, {min(traced):.4f}-{max(traced):.4f}")


def check_sim_file(trace, png, report):
    """file mode: a trace lu-sim wrote, its picture and its JSON report."""
    n, moves, ranks = check_file(trace)
    if moves == 0:
        fail("the lu-sim trace records no moves")
    print(f"trace ok: {n} iterations x {ranks} ranks, {moves} moves")
    check_ratio_as_reported(trace, report)
    check_picture(trace, png)


def check_shared_as_reported(trace, stdout):
    """The picture says ranks time-shared cores exactly when lu's report does (one rule: a rank's
    core share over the whole run under kWholeCoreShare)."""
    sys.path.insert(0, os.path.join(HERE, "..", "runs"))
    import plot_trace  # noqa: E402
    drawn = plot_trace.read_trace(trace)["shared"]
    reported = "% of its core: speeds measured on shared cores" in stdout
    if drawn != reported:
        fail(f"the picture says ranks time-shared cores: {drawn}; lu's report: {reported}")
    print(f"time-shared cores: {drawn} in the picture and in the report")


def run_and_check(mode, cmd, trace):
    """schema and plot modes: run lu to the end, check the file (and render it)."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        fail(f"lu exited {proc.returncode}")
    n, moves, ranks = check_file(trace)
    print(f"trace ok: {n} iterations x {ranks} ranks, {moves} moves")
    check_ratio_as_reported(trace, trace[:-3] + ".json")
    os.remove(trace[:-3] + ".json")
    if mode == "plot":
        check_shared_as_reported(trace, proc.stdout)
        png = trace[:-3] + ".png"
        subprocess.run([sys.executable, os.path.join(HERE, "..", "runs", "plot_trace.py"), trace, "-o", png],
                       check=True)
        check_picture(trace, png)
        os.remove(png)


def find_rank0(trace, deadline):
    """The pid of the lu process that is rank 0 of the run writing `trace`, or None by `deadline`."""
    while time.monotonic() < deadline:
        time.sleep(0.2)
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
                with open(f"/proc/{pid}/environ", "rb") as f:
                    env = f.read().split(b"\0")
            except OSError:
                continue
            if trace.encode() in args and args[0].endswith(b"/lu") and RANK0_ENV.intersection(env):
                return int(pid)
    return None


def freeze_with_20_flushed(proc, trace, deadline):
    """Freezes every rank once the file holds 20 flushed iterations, however slow the build; reads
    what is on disk (a read may catch a flush half-way: then lets the run go on and retries).
    Returns the frozen pids and the iterations on disk."""
    ranks_pids, seen = [], None
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        ranks_pids = lu_pids(trace)
        for pid in ranks_pids:
            send(pid, signal.SIGSTOP)
        seen = flushed_iterations(trace)
        if seen is not None and len(seen) >= 20:
            break
        for pid in ranks_pids:
            send(pid, signal.SIGCONT)
    if proc.poll() is not None or seen is None:
        fail("the run ended before it could be killed mid-way")
    return ranks_pids, seen


def kill_and_check(cmd, trace, rest):
    """kill mode: kill rank 0 (the writer) while every rank is frozen: the file must hold exactly
    the iterations on disk before the kill."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    rank0 = find_rank0(trace, deadline)
    if rank0 is None:
        proc.kill()
        fail("rank 0 never started")
    flush = int(rest[rest.index("--trace-flush") + 1]) if "--trace-flush" in rest else 10
    ranks_pids, seen = freeze_with_20_flushed(proc, trace, deadline + 240)
    os.kill(rank0, signal.SIGKILL)
    for pid in ranks_pids:
        if pid != rank0:
            send(pid, signal.SIGCONT)
    proc.wait(timeout=60)
    dump = subprocess.run(["h5dump", "-H", trace], capture_output=True, text=True)
    if dump.returncode != 0:
        fail("h5dump cannot open the trace of a killed run:\n" + dump.stderr[-2000:])
    n, moves, ranks = check_file(trace)
    if seen != list(range(1, len(seen) + 1)) or len(seen) % flush:
        fail(f"the frozen run's file held iterations {seen[:3]}..{seen[-3:]}: not 1..n at a flush of {flush}")
    if n != len(seen):
        fail(f"the file holds {n} iterations after the kill, {len(seen)} were on disk before it")
    print(f"killed rank 0 (pid {rank0}); the trace opens with h5dump and holds {n} iterations x {ranks} ranks")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mpiexec", default="")
    p.add_argument("--np-flag", default="-n", help="CMake's MPIEXEC_NUMPROC_FLAG")
    p.add_argument("--preflags", default="", help="CMake's MPIEXEC_PREFLAGS, space-separated")
    p.add_argument("--workdir", default=".")
    p.add_argument("--lu", default="")
    p.add_argument("mode", choices=["schema", "kill", "plot", "file"])
    p.add_argument("--np", type=int, default=1)
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    a, extra = p.parse_known_args(argv[:argv.index("--")] if "--" in argv else argv)
    if a.mode == "file":
        check_sim_file(*extra[:3])
        return
    os.makedirs(a.workdir, exist_ok=True)
    trace = os.path.join(a.workdir, f"trace_{a.mode}_{os.getpid()}.h5")
    if os.path.exists(trace):
        os.remove(trace)
    cmd = [*launcher(a, a.np), a.lu, *rest, "--quiet", "--trace", trace]
    if a.mode in ("schema", "plot"):
        run_and_check(a.mode, cmd + ["--json", trace[:-3] + ".json"], trace)
    else:
        kill_and_check(cmd, trace, rest)
    if os.path.exists(trace):
        os.remove(trace)


if __name__ == "__main__":
    main()
