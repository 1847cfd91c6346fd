#!/usr/bin/env python3
"""Non-dedicated nodes: 2 ranks, rank 1's core shared with CPU-bound load.

Rank 0 is pinned to core 0 and rank 1 to core 1 (taskset); LOADS CPU-bound
processes pinned to core 1 (started and killed by this script, by PID) take
their fair share of it, so rank 1 gets 1/(LOADS+1) of a core. With the
unloaded, equal-stripes time T0 (measured in every round, alternating with
the loaded runs, since this VM's speed drifts), the ideal is

    ideal = T0 * 2 / (1 + 1/(LOADS+1))        (1.333 x T0 for one load)

Every variant is printed as median time / ideal. --unloaded runs the same
variants without load, as ratios to the plain unloaded run (the remedy's
cost on dedicated cores).

  runs/bench_nondedicated.py --lock /tmp/npblu-timing.lock --group-nice -20      # class A, 1 load
  runs/bench_nondedicated.py --cls W --repeats 3 --variants "off spin" "off sleep"
  runs/bench_nondedicated.py --unloaded --variants "off auto" "off sleep" "off spin planes4"
  runs/bench_nondedicated.py --dry-run

Variant names are PLACEMENT WAIT [planesN]: placement off (equal stripes),
static (weights 1 and rank 1's share), diffusive or calibrate; wait spin
(as before --wait existed), sleep or auto (the default); planesN adds
--planes-per-message N.

The lock (if given) is taken for one round at a time (an unloaded run plus
every variant), so other users of the machine get it between rounds.
"""
import argparse
import contextlib
import fcntl
import os
import signal
import statistics
import subprocess
import sys
import time

from lu_json import count, DEFAULT_LU, run_lu, script_main

PIN = [0, 1]  # rank r on core PIN[r]; the load goes on PIN[1]

# name -> lu arguments ({share}: rank 1's core share, for static weights).
# "spin" is how every rank waited before --wait existed; "auto" is the default.
PLACEMENTS = {
    "off": ["--balance", "off"],
    "static": ["--weights", "1,{share}"],
    "diffusive": ["--balance", "diffusive"],
    "calibrate": ["--weights", "calibrate"],
}
VARIANTS = {}
for _place, _args in PLACEMENTS.items():
    for _wait in ("spin", "sleep", "auto"):
        VARIANTS[f"{_place} {_wait}"] = [*_args, "--wait", _wait]
    for _planes in (4, 8, 16):
        VARIANTS[f"{_place} spin planes{_planes}"] = [*_args, "--wait", "spin", "--planes-per-message", str(_planes)]
        VARIANTS[f"{_place} auto planes{_planes}"] = [*_args, "--wait", "auto", "--planes-per-message", str(_planes)]
BASELINE = "off spin"  # T0: today's equal stripes, unloaded
DEFAULT_VARIANTS = [f"{p} {w}" for p in PLACEMENTS for w in ("spin", "auto")] + ["off spin planes4"]


@contextlib.contextmanager
def cpu_load(count, core):
    """`count` busy loops pinned to `core`; always killed on the way out
    (normal exit, exception, Ctrl-C, SIGTERM)."""
    procs = []
    try:
        for _ in range(count):
            procs.append(subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", "while True: pass"],
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          ))
        time.sleep(0.2)  # let them reach the core before timing starts
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


@contextlib.contextmanager
def timing_lock(path):
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def own_autogroup(nice):
    """Moves this script (and so every run and load it starts) into a session
    of its own, whose Linux autogroup gets `nice`. With autogroups on (the
    default of most distributions), `nice -n 19` on other sessions' builds
    does not make them yield to this one: each session's group gets an equal
    share of a core. A negative group nice (root only) keeps such foreign load
    from timing itself into the measurement; inside the group, rank 1 and the
    load still share core 1 equally."""
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))
        return True
    except OSError as e:
        print(f"note: cannot set the autogroup nice ({e}); timings include other sessions' load")
        return False


def interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def args_for(name, share):
    return [a.replace("{share}", f"{share:.4g}") for a in VARIANTS[name]]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=DEFAULT_LU)
    p.add_argument("--cls", default="A")
    p.add_argument("--loads", type=count(0), default=1, help="CPU-bound processes on rank 1's core (default 1)")
    p.add_argument("--repeats", type=count(1), default=2)
    p.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS, choices=list(VARIANTS))
    p.add_argument("--unloaded", action="store_true", help="no load: each variant's cost on dedicated cores")
    p.add_argument("--lock", default="", help="flock this file for each round (e.g. /tmp/npblu-timing.lock)")
    p.add_argument("--group-nice", type=int, default=None,
                   help="run in a session of its own whose autogroup has this nice (e.g. -10; see own_autogroup)")
    p.add_argument("--dry-run", action="store_true", help="print the commands and stop")
    a = p.parse_args()

    # SIGTERM/SIGHUP unwind like Ctrl-C, so the load is always killed.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)

    share = 1.0 / (a.loads + 1)
    if a.group_nice is not None and not a.dry_run:
        own_autogroup(a.group_nice)
    if a.dry_run:
        run_lu(a.lu, a.cls, 2, VARIANTS[BASELINE], pin=PIN, dry_run=True)
        for name in a.variants:
            run_lu(a.lu, a.cls, 2, args_for(name, share), pin=PIN, dry_run=True)
        return

    base, times, reports = [], {n: [] for n in a.variants}, {n: [] for n in a.variants}
    for rnd in range(a.repeats):
        with timing_lock(a.lock):
            base.append(run_lu(a.lu, a.cls, 2, VARIANTS[BASELINE], pin=PIN)["time_s"])
            load = contextlib.nullcontext([]) if a.unloaded else cpu_load(a.loads, PIN[1])
            with load as pids:
                for name in a.variants:
                    r = run_lu(a.lu, a.cls, 2, args_for(name, share), pin=PIN)
                    times[name].append(r["time_s"])
                    reports[name].append(r)
        print(f"round {rnd + 1}: unloaded {base[-1]:.2f} s; load PIDs {pids}; "
              + ", ".join(f"{n} {times[n][-1]:.2f}" for n in a.variants), flush=True)

    t0 = statistics.median(base)
    if a.unloaded:
        print(f"\n== class {a.cls}, 2 ranks on cores {PIN}, no load; T(equal stripes, spin) {t0:.3f} s; "
              f"medians of {a.repeats}")
        print(f"{'variant':24} {'time s':>8} {'/ T0':>7}  per run")
        for name in a.variants:
            t = statistics.median(times[name])
            print(f"{name:24} {t:8.3f} {t / t0:7.3f}  {[round(x / b, 3) for x, b in zip(times[name], base)]}")
        return
    ideal = t0 * 2 / (1 + share)
    print(f"\n== class {a.cls}, 2 ranks on cores {PIN}, {a.loads} CPU-bound process(es) on core {PIN[1]}; "
          f"T0 (unloaded) {t0:.3f} s, ideal {ideal:.3f} s; medians of {a.repeats}")
    print(f"{'variant':24} {'time s':>8} {'/ideal':>7} {'/T0':>6}  final columns  per run / ideal")
    for name in a.variants:
        t = statistics.median(times[name])
        r = min(reports[name], key=lambda x: abs(x["time_s"] - t))
        print(f"{name:24} {t:8.3f} {t / ideal:7.3f} {t / t0:6.2f}  {','.join(map(str, r['columns'])):13}  "
              f"{[round(x / ideal, 3) for x in times[name]]}")


if __name__ == "__main__":
    try:
        script_main(main)
    except KeyboardInterrupt:
        sys.exit("interrupted (load killed)")
