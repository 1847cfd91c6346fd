#!/usr/bin/env python3
"""Runs bad command lines of lu (tests/bad_inputs.txt) and checks each is refused cleanly.

  bad_input_table.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                     --workdir DIR --table FILE (--case NAME | --all)
  bad_input_table.py ... mid-run --np N --fail-at IT -- ARGS
  bad_input_table.py ... disk-full --np N -- ARGS
  bad_input_table.py ... memory --np N -- ARGS

For every case: exit status 2 on every rank (each rank runs under a small sh wrapper that
prints its own exit status), exactly one "lu: error:" line on stderr that contains the
table's text, no backtrace or signal, nothing computed (no report header on stdout), a
one-line message of readable length, and under 10 s.

disk-full: the same with a real full file system: a 128 kB tmpfs mounted for the test (needs
root and mount; exits 77, "skipped", where it cannot mount), filled by the trace of a long run.

memory: every node made to report 1000 bytes available (the test-only fault injection
NPBLU_TEST_FAULT=available-memory=1000, see lu/run/test_faults.hpp): refused as above, the
message giving the node's ranks and what it has; the same run with --memory-check off then
computes and verifies on every rank.

mid-run: a trace write made to fail on rank 0 at iteration IT (the test-only fault
injection NPBLU_TEST_FAIL_TRACE_AT, see lu/io/trace_writer.hpp): exit status 3 on every
rank, one "lu: error:" line, and a trace file holding the iterations up to the last flush.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import time

# Each rank reports its own exit status and how long lu ran on it, then exits 0, so the
# launcher does not end the other ranks early and "every rank" is checked, not just
# mpiexec's status. (The time excludes the launcher's own start-up, which on a loaded
# 2-core machine can take seconds for 6 ranks.)
RANK_WRAPPER = ('start=$(date +%s%N); "$@"; status=$?; end=$(date +%s%N); '
                'echo "npblu-rank-exit $status $(( (end - start) / 1000000 ))" >&2')
BACKTRACE = re.compile(r"[Bb]acktrace|terminate called|Segmentation fault|exited on signal|Signal: |"
                       r"SIGABRT|SIGSEGV|core dumped|AddressSanitizer|runtime error:")
# The sanitizer build's tests run with ASAN_OPTIONS set (tests/CMakeLists.txt, sanitizer_env): a Debug
# build with ASan and UBSan runs class W on 2 ranks in about a minute beside another test, so its limits
# stretch. A release build keeps the tight ones.
SANITIZED = "ASAN_OPTIONS" in os.environ
TIME_LIMIT = 10.0 * (3 if SANITIZED else 1)  # a refusal comes before computing: seconds
HANG_LIMIT = 60 * (5 if SANITIZED else 1)  # no answer by then is a hang


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + proc.stdout[-3000:])
        print("--- stderr ---\n" + proc.stderr[-3000:])
    sys.exit(1)


def make_fixtures(workdir):
    os.makedirs(os.path.join(workdir, "adir"), exist_ok=True)
    fixtures = {
        "weights_text.txt": "fast\nslow\n",
        "weights_negative.txt": "# two nodes\n1\n-2\n",
        "weights_comments.txt": "# only\n   # comments\n\n",
        "weights_list.txt": "# three nodes\r\n2.25,1 1\r\n",
        "speeds_two.txt": "# two ranks\n1\n0.5\n",
        "existing.h5": "not a trace",
    }
    # Every case (CTest runs them in parallel) writes the fixtures: aside, then renamed,
    # so no case ever reads one another case is halfway through writing.
    fifo = os.path.join(workdir, "fifo")  # stands for a device node: no test touches a real one
    if not os.path.exists(fifo):
        try:
            os.mkfifo(fifo)
        except FileExistsError:
            pass
    for name, text in fixtures.items():
        aside = os.path.join(workdir, f".{name}.{os.getpid()}")
        with open(aside, "w") as f:
            f.write(text)
        os.replace(aside, os.path.join(workdir, name))


def make_checkpoint_fixtures(ctx):
    """Checkpoints to refuse, made from a real one (class S at iteration 25), each written
    aside and renamed: CTest runs these cases in parallel."""
    import shutil
    import h5py  # Debian's python3-h5py
    work, tag = ctx.workdir, f"{os.getpid()}"
    base = os.path.join(work, f"ckpt_base_{tag}.h5")
    cmd = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, "1", ctx.lu, "S", "--quiet",
           "--checkpoint", base, "--checkpoint-every", "25"]
    made = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_LIMIT)
    if made.returncode != 0 or not os.path.exists(base):
        fail("could not write the checkpoint the refusals start from", made)

    def derived(name, change):
        path = os.path.join(work, f"{name}_{tag}.h5")
        shutil.copyfile(base, path)
        change(path)
        os.replace(path, os.path.join(work, name + ".h5"))

    def edit(action):
        def change(path):
            with h5py.File(path, "r+") as f:
                action(f)
        return change

    def truncate(path):
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 2)

    def corrupt_field(f):
        f["u"][5, 3, 4, 1] += 1e-3

    derived("ckpt_ok", lambda path: None)
    derived("ckpt_v99", edit(lambda f: f.attrs.modify("format_version", 99)))
    derived("ckpt_nan_field", edit(lambda f: f["u"].__setitem__((5, 3, 4, 1), float("nan"))))
    derived("ckpt_widths", edit(lambda f: f.attrs.modify("column_widths", [9])))
    derived("ckpt_nan_seconds", edit(lambda f: f.attrs.modify("timed_seconds", float("nan"))))
    derived("ckpt_corrupt", edit(corrupt_field))
    derived("ckpt_no_iteration", edit(lambda f: f.attrs.__delitem__("iteration")))
    derived("ckpt_truncated", truncate)
    other = os.path.join(work, f"not_ckpt_{tag}.h5")
    with h5py.File(other, "w") as f:
        f["iterations/iteration"] = [1, 2, 3]
    os.replace(other, os.path.join(work, "not_ckpt.h5"))
    os.remove(base)


def read_table(path):
    cases = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, np, expect, args = (field.strip() for field in line.split("|", 3))
            cases[name] = (int(np), expect, args)
    return cases


def launch(ctx, np, words, env_vars=(), outer=()):
    # Variables are set by `env` on each rank: no launcher-specific forwarding flags. `outer` is a
    # command that runs the launcher itself (it ends with the launcher's words: "$@").
    env = ["env", *env_vars] if env_vars else []
    cmd = [*outer, ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(np),
           "sh", "-c", RANK_WRAPPER, "sh", *env, ctx.lu, *words]
    print("+", " ".join(shlex.quote(c if len(c) < 200 else c[:60] + "...") for c in cmd), flush=True)
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_LIMIT)
    except subprocess.TimeoutExpired:
        fail(f"hung: no answer within {HANG_LIMIT} s")
    return proc, time.monotonic() - start


def rank_statuses(proc):
    """[(exit status, milliseconds lu ran)] per rank."""
    return [(int(s), int(ms)) for s, ms in re.findall(r"^npblu-rank-exit (\d+) (\d+)$", proc.stderr, re.MULTILINE)]


def contains_in_order(line, expect):
    """Whether line holds expect; in expect, " ... " stands for any text (a part of the message
    that depends on where the test runs, such as a shortened path)."""
    at = 0
    for part in expect.split(" ... "):
        at = line.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


def check_refused(proc, elapsed, np, expect, status=2, time_limit=TIME_LIMIT):
    ranks = rank_statuses(proc)
    statuses = [s for s, _ in ranks]
    elapsed = max([ms / 1000 for _, ms in ranks], default=elapsed)
    if statuses != [status] * np:
        fail(f"expected exit status {status} on each of {np} ranks, got {statuses}", proc)
    errors = [l for l in (proc.stdout + proc.stderr).splitlines() if "lu: error:" in l]
    if len(errors) != 1:
        fail(f"expected exactly one 'lu: error:' line, got {len(errors)}", proc)
    if not errors[0].startswith("lu: error: "):
        fail("the error line must start with 'lu: error: '", proc)
    if not contains_in_order(errors[0], expect):
        fail(f"the error line does not contain {expect!r}", proc)
    if len(errors[0]) > 500:
        fail(f"the error line is {len(errors[0])} characters long", proc)
    if BACKTRACE.search(proc.stderr):
        fail("a backtrace or a signal on stderr", proc)
    if time_limit is not None and elapsed > time_limit:
        fail(f"took {elapsed:.1f} s (limit {time_limit} s)", proc)
    return errors[0], elapsed


# Rows whose error is about no single option: the same class given twice (positional and --class),
# and a rank count the grid cannot split. Every other row's expected text names the option
# (the README's promise: each message names the option and the problem).
NOT_ONE_OPTION = {"class_twice", "too_many_ranks", "restart_too_many_ranks"}


def run_case(ctx, name, case):
    np, expect, args = case
    if name not in NOT_ONE_OPTION and not re.search(r"--[a-z]", expect):
        fail(f"the table's expected text for {name} does not name the option: {expect!r}")
    expect = expect.replace("{WORK}", ctx.workdir)
    text = args.replace("{WORK}", ctx.workdir)
    words = [w.replace("{HUGE}", "1" * 100000).replace("{NAME250}", "n" * 250) for w in shlex.split(text)]
    proc, elapsed = launch(ctx, np, words + ["--quiet"] if words else words)
    line, elapsed = check_refused(proc, elapsed, np, expect)
    if "NAS Parallel Benchmarks" in proc.stdout:
        fail("the run started computing before refusing", proc)
    print(f"{name}: refused in {elapsed:.2f} s (slowest rank) on {np} ranks: {line}")


def run_mid_run(ctx, np, fail_at, args):
    trace = os.path.join(ctx.workdir, f"midrun_{os.getpid()}.h5")
    if os.path.exists(trace):
        os.remove(trace)
    proc, elapsed = launch(ctx, np, args + ["--quiet", "--trace", trace],
                           env_vars=[f"NPBLU_TEST_FAIL_TRACE_AT={fail_at}"])
    line, elapsed = check_refused(proc, elapsed, np, "writing the trace failed", status=3)
    if "test fault injection" not in line:
        fail("the failure was not the injected one", proc)
    if "Verification" in proc.stdout:
        fail("the run went on to the end after the failure", proc)
    print(f"mid-run failure: every rank exited 3 in {elapsed:.2f} s: {line}")
    return trace


SKIPPED = 77


def run_disk_full(ctx, np, args):
    import tempfile
    mount_point = tempfile.mkdtemp(prefix="npblu_full_")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", mount_point],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        os.rmdir(mount_point)
        print("skipped: cannot mount a small tmpfs here:", mounted.stderr.strip())
        sys.exit(SKIPPED)
    try:
        proc, elapsed = launch(ctx, np, args + ["--quiet", "--trace", os.path.join(mount_point, "t.h5")])
        # (it computes until the disk is full: no time limit but the test's)
        line, _ = check_refused(proc, 0.0, np, "writing the trace failed", status=3, time_limit=None)
        if "Verification" in proc.stdout:
            fail("the run went on to the end after the failure", proc)
        print(f"full file system: every rank exited 3 after {elapsed:.1f} s: {line}")
    finally:
        subprocess.run(["umount", mount_point])
        os.rmdir(mount_point)


def run_memory(ctx, np, args):
    fault = ["NPBLU_TEST_FAULT=available-memory=1000"]
    proc, elapsed = launch(ctx, np, args + ["--quiet"], env_vars=fault)
    ranks = f"the run's {np} rank{'s' if np > 1 else ''} there need"
    line, elapsed = check_refused(proc, elapsed, np, f"not enough memory on node ... {ranks} ... and the node has "
                                  "1000 bytes available (NPBLU_TEST_FAULT) ... --memory-check off")
    if "NAS Parallel Benchmarks" in proc.stdout:
        fail("the run started before refusing", proc)
    print(f"refused for memory in {elapsed:.2f} s on {np} ranks: {line}")
    proc, _ = launch(ctx, np, args + ["--quiet", "--memory-check", "off"], env_vars=fault)
    statuses = [s for s, _ in rank_statuses(proc)]
    if statuses != [0] * np or "SUCCESSFUL" not in proc.stdout:
        fail(f"with --memory-check off the run must verify on every rank (exit statuses {statuses})", proc)
    print("with --memory-check off: computed and verified on every rank")


def check_trace_prefix(trace, flush, fail_at):
    """The file on disk holds every iteration up to the last flush before the failure."""
    import h5py  # Debian's python3-h5py
    with h5py.File(trace, "r") as f:
        got = list(f["iterations/iteration"][:])
    written = (fail_at - 1) // flush * flush
    if got != list(range(1, written + 1)):
        fail(f"trace holds iterations {got[:3]}..{got[-3:]}, expected 1..{written}")
    print(f"trace holds iterations 1..{written}, as flushed before the failure")


def add_launch_arguments(p):
    """The options every table-driven runner takes to start lu under mpiexec (see launch)."""
    p.add_argument("--lu", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--numproc-flag", default="-n")
    p.add_argument("--mpiexec-preflags", default="")


def main():
    p = argparse.ArgumentParser()
    add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    p.add_argument("--table")
    p.add_argument("--case")
    p.add_argument("--all", action="store_true")
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--fail-at", type=int, default=0)
    p.add_argument("--trace-flush", type=int, default=0)
    p.add_argument("mode", nargs="?", choices=["table", "mid-run", "disk-full", "memory"], default="table")
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    ctx = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    ctx.workdir = os.path.abspath(ctx.workdir)
    make_fixtures(ctx.workdir)
    if ctx.mode == "disk-full":
        run_disk_full(ctx, ctx.np, rest)
        return
    if ctx.mode == "memory":
        run_memory(ctx, ctx.np, rest)
        return
    if ctx.mode == "mid-run":
        trace = run_mid_run(ctx, ctx.np, ctx.fail_at, rest + ["--trace-flush", str(ctx.trace_flush)])
        check_trace_prefix(trace, ctx.trace_flush, ctx.fail_at)
        os.remove(trace)
        return
    cases = read_table(ctx.table)
    names = list(cases) if ctx.all else [ctx.case]
    for name in names:
        if name not in cases:
            fail(f"no case {name!r} in {ctx.table}")
        if "{WORK}/ckpt_" in cases[name][2] or "{WORK}/not_ckpt" in cases[name][2]:
            make_checkpoint_fixtures(ctx)
        run_case(ctx, name, cases[name])


if __name__ == "__main__":
    main()
