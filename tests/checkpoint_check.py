#!/usr/bin/env python3
"""Checkpoint and restart of build/bin/lu under mpiexec (CTest).

continue --problem "CLASS [ARGS]" --np P --every N [--checkpointed ARGS] --restarts "Q:ARGS" ...
    an uninterrupted 1-rank run (the reference), then a P-rank run writing a
    checkpoint every N iterations, then each restart "Q:ARGS" from that
    checkpoint on Q ranks: every run ends with the reference's field_checksum
    and (classes S-F) verifies; the norms equal the reference's to 1e-13
    relative (they are sums over ranks: their last bits depend on the
    partition even without a restart) and a restart on the checkpoint's own
    stripes gives bitwise the norms of the uninterrupted P-rank run. Each
    restart starts on the stripes it asked for (--columns as given; the same
    rank count and no placement option: the checkpoint's column_widths, read
    from the file), says it resumed at the last checkpoint's iteration, runs
    only the remaining iterations, and reports time_s as the file's
    timed_seconds plus its own. --moved-before: the checkpointed stripes must
    differ from the ones the checkpointed run started on (the balancer moved
    them). --saved-not-default: they must differ from the equal partition.
sigterm --np P -- ARGS
    SIGTERM to every rank mid-run (the ranks are stopped with SIGSTOP at the
    first progress line, signalled, then continued: mid-run on any machine load): every rank exits 4, one line saying where
    the checkpoint is; a restart from it ends verified with the reference's
    field_checksum.
kill9 --np P --trials T -- ARGS
    SIGKILL to every rank (and the launcher) at a random moment after the
    first checkpoint of a run writing one every iteration, T times: each time
    the file left is a complete checkpoint that a restart continues to the
    reference's field_checksum. Every other trial kills mid-write for certain:
    once an aside FILE.h5.XXXXXX.tmp appears the ranks are stopped (SIGSTOP), and
    killed if it is still there (else continued, and the next write is tried). The
    random delays come from --seed (default 1): the same every run.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from best_partition import equal_widths  # noqa: E402

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
    if whole.get("restarted_from", "missing") is not None:
        fail(f"a run from the start reports restarted_from {whole.get('restarted_from', 'missing')}")
    if whole["field_checksum"] != reference["field_checksum"]:
        fail("checkpointing changed the result")
    saved = checkpoint_header(checkpoint)
    check_saved_stripes(ctx, whole, saved)
    for case in ctx.restarts:
        np_text, _, args = case.partition(":")
        start = time.monotonic()
        proc, report = finished_run(ctx, int(np_text), ["--restart", checkpoint, "--quiet", *shlex.split(args)],
                                    verified)
        wall = time.monotonic() - start
        resumed = re.search(r"Restarted from .* at iteration (\d+)", proc.stdout)
        if not resumed or int(resumed.group(1)) != int(written[-1]) or saved["iteration"] != int(written[-1]):
            fail("the restart did not say it continued from the last checkpoint", proc)
        origin = report.get("restarted_from") or {}
        if (origin.get("file") != checkpoint or origin.get("at_iteration") != saved["iteration"]
                or origin.get("written_on_ranks") != ctx.np):
            fail(f"{case}: the JSON's restarted_from {report.get('restarted_from')} does not name the "
                 f"checkpoint {checkpoint} at iteration {saved['iteration']} of {ctx.np} ranks", proc)
        if len(report["history"]["column_begin"]) != report["iterations"] - saved["iteration"]:
            fail(f"{case}: ran {len(report['history']['column_begin'])} iterations after the restart, "
                 f"expected {report['iterations'] - saved['iteration']}", proc)
        check_restart_stripes(ctx, case, report, saved, proc)
        check_restart_time(case, report, saved, wall, proc)
        check_balancer_override(case, report, saved, proc)
        if report["field_checksum"] != reference["field_checksum"]:
            fail(f"{case}: field checksum {report['field_checksum']} != {reference['field_checksum']}", proc)
        if not same_norms(report, reference, 1e-13):
            fail(f"{case}: norms differ from the uninterrupted run's", proc)
        own_stripes = int(np_text) == ctx.np and not args.strip() and not ctx.checkpointed
        if own_stripes and (report["columns"] != whole["columns"] or not same_norms(report, whole, 0.0)):
            fail(f"{case}: on the checkpoint's own stripes the norms must be bitwise the uninterrupted run's")
        print(f"restart {case:45s} columns {widths_at(report, 0)} -> {report['columns']} moved "
              f"{report['moved_columns']}: checksum {report['field_checksum']}, verified {report['verified']}")
    os.remove(checkpoint)


def widths_at(report, index):
    h = report["history"]
    return [e - b for b, e in zip(h["column_begin"][index], h["column_end"][index])]


def checkpoint_header(path):
    import h5py  # Debian's python3-h5py
    with h5py.File(path, "r") as f:
        return {"iteration": int(f.attrs["iteration"]), "timed_seconds": float(f.attrs["timed_seconds"]),
                "column_widths": [int(w) for w in f.attrs["column_widths"]],
                "balance": f.attrs["balance"].decode() if isinstance(f.attrs["balance"], bytes)
                else str(f.attrs["balance"])}


def check_saved_stripes(ctx, whole, saved):
    if sum(saved["column_widths"]) != whole["grid"][1] - 2 or len(saved["column_widths"]) != ctx.np:
        fail(f"the checkpoint's column_widths {saved['column_widths']} do not tile the interior")
    if ctx.moved_before and saved["column_widths"] == widths_at(whole, 0):
        fail(f"the balancer had not moved the stripes {saved['column_widths']} before the checkpoint")
    if ctx.saved_not_default and saved["column_widths"] == equal_widths(whole["grid"][1] - 2, ctx.np):
        fail(f"the saved stripes {saved['column_widths']} are the default ones: a restart cannot show it took them")
    print(f"checkpoint at iteration {saved['iteration']} holds stripes {saved['column_widths']}")


def check_restart_stripes(ctx, case, report, saved, proc):
    np_text, _, args = case.partition(":")
    words = shlex.split(args)
    start = widths_at(report, 0)
    if "--columns" in words:
        expected = [int(w) for w in words[words.index("--columns") + 1].split(",")]
    elif int(np_text) == ctx.np and not {"--columns", "--weights"} & set(words) and "off" not in words:
        expected = saved["column_widths"]
    else:
        expected = equal_widths(report["grid"][1] - 2, int(np_text))
    if start != expected:
        fail(f"{case}: the restart started on {start}, expected {expected}", proc)


def check_balancer_override(case, report, saved, proc):
    """A restart of a diffusive run that gives --balance-every N alone (no --balance) continues the
    diffusive balancer at every N (the option is the restart's, the mode the checkpoint's)."""
    words = shlex.split(case.partition(":")[2])
    if "--balance-every" not in words or "--balance" in words:
        return
    every = int(words[words.index("--balance-every") + 1])
    if saved["balance"] != "diffusive" or report["balance"] != "diffusive" or report["balance_every"] != every:
        fail(f"{case}: balance {report['balance']!r} every {report['balance_every']} after a checkpoint "
             f"balanced {saved['balance']!r}, expected diffusive every {every}", proc)


def check_restart_time(case, report, saved, wall, proc):
    """time_s covers the whole run: the saved timed seconds plus at least the restart's own
    iterations (the slowest rank's compute and wait, summed over them) and at most its wall time.
    (Per rank, not the sum of each iteration's slowest rank: ranks time-sharing cores end their
    iterations at different moments, and that sum then exceeds any rank's elapsed time.)"""
    h = report["history"]
    own = max(sum(c + w for c, w in zip(cs, ws))
              for cs, ws in zip(zip(*h["compute_s"]), zip(*h["wait_s"])))
    new = report["time_s"] - saved["timed_seconds"]
    if not (saved["timed_seconds"] > 0 and 0.8 * own <= new <= wall):
        fail(f"{case}: time_s {report['time_s']:.3f} is not the saved {saved['timed_seconds']:.3f} s plus "
             f"this run's (iterations {own:.3f} s, wall {wall:.3f} s)", proc)


def rank_statuses(stderr):
    return [int(s) for s in re.findall(r"^npblu-rank-exit (\d+)$", stderr, re.MULTILINE)]


def sigterm_mode(ctx):
    _, reference = finished_run(ctx, 1, ctx.rest_plain + ["--quiet"], True)
    # A name a shell would split and unquote: the hint must give it back as one word.
    checkpoint = path_in(ctx, "sig term 'x' $HOME") + ".h5"
    cmd = [*launcher(ctx, ctx.np), "sh", "-c", RANK_WRAPPER, "sh", ctx.lu, *ctx.rest,
           "--checkpoint", checkpoint, "--progress-interval", "0.01"]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # At the first progress line (the timed iterations have begun) the ranks are frozen, then
    # signalled and continued: the signal lands mid-run however loaded the machine is.
    for line in proc.stdout:
        if line.startswith(" iteration") and int(line.split()[1]) >= 20:
            break
    signal_ranks(proc, ctx.lu, ctx.np, signal.SIGSTOP)
    signalled = signal_ranks(proc, ctx.lu, ctx.np, signal.SIGTERM)
    signal_ranks(proc, ctx.lu, ctx.np, signal.SIGCONT)
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
    hint = lines[0].split("continue with ", 1)[-1]
    words = shlex.split(hint)
    if words != ["--restart", checkpoint]:
        fail(f"the restart hint {hint!r} reads as {words} in a shell, not --restart and the checkpoint", proc)
    proc, report = finished_run(ctx, 1, [*words, "--quiet"], True)
    if report["field_checksum"] != reference["field_checksum"]:
        fail("the restart from the SIGTERM checkpoint ended with another field", proc)
    print(f"restart from iteration {stopped_at}: verified, checksum {report['field_checksum']}")
    os.remove(checkpoint)


def kill_mid_write(proc, ctx, asides):
    """Stops the ranks while an aside file FILE.h5.XXXXXX.tmp exists (a checkpoint being
    written) and kills them there; a write that finished before the stop is let go and the
    next one tried."""
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if asides():
            stopped = signal_ranks(proc, ctx.lu, ctx.np, signal.SIGSTOP)
            if asides():
                signal_ranks(proc, ctx.lu, ctx.np, signal.SIGKILL)
                return stopped
            signal_ranks(proc, ctx.lu, ctx.np, signal.SIGCONT)
        time.sleep(0.0005)
    fail("no checkpoint write could be caught mid-way before the run ended")


def kill9_mode(ctx):
    _, reference = finished_run(ctx, 1, ctx.rest_plain + ["--quiet"], False)
    checkpoint = path_in(ctx, "kill9") + ".h5"
    # The aside files a write leaves when killed: FILE.h5.XXXXXX.tmp (lu/io/output_files.hpp).
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
        if trial % 2:
            killed = kill_mid_write(proc, ctx, asides)
        else:
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
        if trial % 2 and not left_tmp:
            fail(f"trial {trial}: stopped mid-write, yet no {checkpoint}.XXXXXX.tmp was left")
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
    p.add_argument("--moved-before", action="store_true")
    p.add_argument("--saved-not-default", action="store_true")
    p.add_argument("--min-delay", type=float, default=0.0)
    p.add_argument("--max-delay", type=float, default=0.4)
    p.add_argument("--seed", type=int, default=1)
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
