#!/usr/bin/env python3
"""Runs build/bin/lu under mpirun for CTest and checks what it reports.

verify        --np N -- ARGS     exit 0 and JSON "verified": true
custom        --np N -- ARGS     exit 0, class U, finished, not claimed verified
same-checksum "N:ARGS[ => CHECKS]" ...
                                 every run verifies and all field_checksum values are equal
Every verified run is also checked for placement: the stripes it starts on are what it asked
for (--columns as given; no placement option: the equal partition; CHECKS may name the widths
--weights must give, e.g. "=> 4,2,2,2"); given weights are reported as given and ordered
widths; a run without the diffusive balancer never moves. CHECKS for a diffusive run with
steady --emulate-speeds: "direction" (the slowest rank never gains columns, and the run never
ends worse than it started: bottleneck ratio against the best whole-column partition,
tests/best_partition.py), "moves" (it moved) and "quality<=X" (its final ratio). The suite uses
none of them: a real run's rank runs at its emulated speed times its share of a core, which other
work on the machine changes and the test cannot know (with a CPU hog beside ctest -j2, a 2-rank
class W run emulated at 1,0.444 ended at 14,17). Direction, quality and stillness are proven
deterministically by lu-sim (sim_balance_check.py) and the balance API fed seeded times
(balance_api.c); they are here for runs on a quiet machine (python3 tests/lu_runner.py ...).
bad-input     --np N --expect TEXT -- ARGS
                                 non-zero exit well within the timeout, TEXT on stderr
"""
import argparse
import json
import re
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decision_log import check_decisions  # noqa: E402
from best_partition import equal_widths, quality  # noqa: E402



def launcher(ctx, np):
    """mpiexec as CMake found it: MPIEXEC_EXECUTABLE MPIEXEC_NUMPROC_FLAG N MPIEXEC_PREFLAGS."""
    return [ctx.mpiexec, ctx.np_flag, str(np), *shlex.split(ctx.preflags)]


def run_lu(ctx, np, args, timeout, with_json=True):
    os.makedirs(ctx.workdir, exist_ok=True)
    tag = f"{os.getpid()}_{time.monotonic_ns()}"
    json_path = os.path.join(ctx.workdir, f"lu_{tag}.json")
    extra = ["--quiet", "--json", json_path] if with_json else []
    cmd = [*launcher(ctx, np), ctx.lu, *args, *extra]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - start
    report = None
    if os.path.exists(json_path):
        with open(json_path) as f:
            text = f.read()
        if text.strip():
            report = json.loads(text)
        os.remove(json_path)
    return proc, report, elapsed


def fail(msg, proc=None):
    print("FAIL:", msg)
    if proc is not None:
        print("--- stdout ---\n" + proc.stdout[-4000:])
        print("--- stderr ---\n" + proc.stderr[-4000:])
    sys.exit(1)


def check_verified(proc, report, np):
    if proc.returncode != 0:
        fail(f"exit status {proc.returncode}", proc)
    if report is None:
        fail("no JSON report written", proc)
    if report.get("verified") is not True:
        fail("run did not verify: " + json.dumps(report.get("verification"), indent=1), proc)
    if report["ranks"] != np or len(report["columns"]) != np:
        fail(f"report says {report['ranks']} ranks / columns {report['columns']}, expected {np}", proc)
    if sum(report["columns"]) != report["grid"][1] - 2:
        fail(f"columns {report['columns']} do not tile the interior", proc)
    if not re.search(r"^ Verification\s+=\s+SUCCESSFUL$", proc.stdout, re.MULTILINE):
        fail("stdout does not say 'Verification = SUCCESSFUL'", proc)
    if len(report["weights"]) != np or not report["imbalance"] >= 1.0 or len(report["rank_loads"]) != np:
        fail("weights / imbalance / rank_loads missing or malformed in the JSON", proc)
    check_history(report, proc)
    emulated = "--emulate-speeds" in " ".join(proc.args)
    if emulated != (report["emulated_speeds"] is not None) or emulated != ("EMULATED" in proc.stdout):
        fail("emulation must be reported in the output and the JSON exactly when it is on", proc)


def check_history(report, proc):
    """Column ranges tile the interior at every iteration, and every change
    between iterations is exactly a recorded balancing move."""
    h = report["history"]
    ny = report["grid"][1]
    begins, ends = h["column_begin"], h["column_end"]
    if len(begins) != report["iterations_run"]:
        fail(f"history has {len(begins)} iterations, expected {report['iterations_run']}", proc)
    for it, (b, e) in enumerate(zip(begins, ends)):
        if b[0] != 1 or e[-1] != ny - 1 or any(e[r] != b[r + 1] for r in range(len(b) - 1)):
            fail(f"iteration {it + 1}: ranges {list(zip(b, e))} do not tile the interior", proc)
        if any(e[r] - b[r] < 2 for r in range(len(b))):
            fail(f"iteration {it + 1}: a stripe below the minimum width", proc)
    moves = {}
    for m in report["balance_moves"]:
        moves[(m["iteration"], m["boundary"])] = m["columns"]
    for it in range(1, len(ends)):
        for bnd in range(len(ends[it]) - 1):
            shift = ends[it - 1][bnd] - ends[it][bnd]  # columns given from rank bnd to bnd+1
            if shift != moves.get((it, bnd), 0):
                fail(f"boundary {bnd} moved by {shift} after iteration {it} but the record says "
                     f"{moves.get((it, bnd), 0)}", proc)
    if sum(abs(m) for m in moves.values()) != report["moved_columns"]:
        fail("moved_columns does not match the recorded moves", proc)
    check_decisions(report, lambda msg: fail(msg, proc))
    check_bottleneck_ratios(report, proc)


def check_bottleneck_ratios(report, proc):
    """lu's balance quality of each iteration (max width / speed over the best whole-column
    partition's, at the speeds the ranks measured) is the independent oracle's, and no iteration's
    stripes beat the best partition."""
    h, ratios = report["history"], report["bottleneck_ratio_by_iteration"]
    if len(ratios) != report["iterations_run"]:
        fail(f"bottleneck_ratio_by_iteration has {len(ratios)} entries", proc)
    limits = report["max_columns"]
    for it, (compute, ratio) in enumerate(zip(h["compute_s"], ratios)):
        widths = widths_at(report, it)
        if limits or not all(c > 0 for c in compute):
            continue  # the oracle knows no memory limits; no ratio without compute
        expected = quality(widths, [w / c for w, c in zip(widths, compute)])
        if ratio is None or not abs(ratio - expected) <= 1e-9 * expected or ratio < 1.0 - 1e-12:
            fail(f"iteration {it + 1}: bottleneck ratio {ratio}, the oracle's {expected}", proc)


def option_value(args, name):
    """The value of --name in a list of words, or None."""
    return args[args.index(name) + 1] if name in args else None


def widths_at(report, index):
    h = report["history"]
    return [e - b for b, e in zip(h["column_begin"][index], h["column_end"][index])]


def check_placement(args, report, expected, proc):
    """The stripes the run started on are the ones asked for."""
    start = widths_at(report, 0)
    np_, n = report["ranks"], report["grid"][1] - 2
    columns, weights = option_value(args, "--columns"), option_value(args, "--weights")
    if columns is not None:
        expected = [int(w) for w in columns.split(",")]
    elif expected is None and weights in (None, "equal") and "--restart" not in args:
        expected = equal_widths(n, np_)
    if expected is not None and start != expected:
        fail(f"started on columns {start}, expected {expected} from {' '.join(args)}", proc)
    if weights and weights[0].isdigit():
        given = [float(w) for w in weights.split(",")]
        if report["weights"] != given:
            fail(f"report's weights {report['weights']} are not the given {given}", proc)
    w = report["weights"]
    for a in range(np_):
        for b in range(np_):
            if w[a] >= 1.5 * w[b] and start[a] < start[b]:
                fail(f"rank {a} (weight {w[a]}) started narrower than rank {b} (weight {w[b]}): {start}", proc)
    if option_value(args, "--balance") != "diffusive" and report["moved_columns"] != 0:
        fail("columns moved without the diffusive balancer", proc)
    return start


def check_balancing(args, report, checks, proc):
    """Direction and final quality of a diffusive run with steady emulated speeds."""
    start, final = widths_at(report, 0), report["columns"]
    if "moves" in checks and not report["moved_columns"] > 0:
        fail("the diffusive balancer moved no columns on a strong imbalance", proc)
    if "still" in checks and report["moved_columns"] != 0:
        fail(f"moved {report['moved_columns']} columns where nothing is slow", proc)
    speeds_text = option_value(args, "--emulate-speeds")
    if speeds_text is None or ";" in speeds_text or not ({"direction", "moves"} & set(checks) or
                                                         any(c.startswith("quality") for c in checks)):
        return
    speeds = [float(x) for x in speeds_text.split(",")]
    slowest = min(speeds)
    for r, s in enumerate(speeds):
        if s == slowest and final[r] > start[r]:
            fail(f"the slowest rank {r} (speed {s}) was given columns: {start} -> {final}", proc)
    q0, q1 = quality(start, speeds), quality(final, speeds)
    if q1 > q0 + 1e-12:
        fail(f"balancing made the partition worse: {start} (ratio {q0:.3f}) -> {final} (ratio {q1:.3f})", proc)
    for c in checks:
        if c.startswith("quality<=") and q1 > float(c.split("<=")[1]):
            fail(f"final partition {final} has bottleneck ratio {q1:.3f} against the best, above {c}", proc)
    return q0, q1


def parse_case(case):
    """'N:ARGS[ => CHECKS]' -> (N, ARGS words, expected widths or None, check words)."""
    spec, _, check_text = case.partition(" => ")
    np_text, _, args = spec.partition(":")
    checks = check_text.split()
    expected = None
    for c in checks:
        if re.fullmatch(r"\d+(,\d+)*", c):
            expected = [int(w) for w in c.split(",")]
    return int(np_text), shlex.split(args), expected, checks


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lu", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n", help="CMake's MPIEXEC_NUMPROC_FLAG")
    p.add_argument("--preflags", default="", help="CMake's MPIEXEC_PREFLAGS, space-separated")
    p.add_argument("--workdir", required=True)
    p.add_argument("--timeout", type=float, default=1500)
    p.add_argument("mode", choices=["verify", "custom", "same-checksum", "bad-input"])
    p.add_argument("--np", type=int, default=1)
    p.add_argument("--expect", default="")
    p.add_argument("cases", nargs="*", help="same-checksum cases 'N:ARGS'")
    argv = sys.argv[1:]
    # Everything after "--" is passed to lu untouched.
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    ctx = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    ctx.rest = rest if ctx.mode != "same-checksum" else ctx.cases

    if ctx.mode == "verify":
        proc, report, elapsed = run_lu(ctx, ctx.np, ctx.rest, ctx.timeout)
        check_verified(proc, report, ctx.np)
        check_placement(ctx.rest, report, None, proc)
        print(f"verified: class {report['class']} on {ctx.np} ranks, columns {report['columns']}, "
              f"{report['time_s']:.3f} s, {report['mops']:.1f} Mop/s, checksum {report['field_checksum']}")
    elif ctx.mode == "custom":
        proc, report, _ = run_lu(ctx, ctx.np, ctx.rest, ctx.timeout)
        if proc.returncode != 0 or report is None:
            fail("custom run failed", proc)
        if report["class"] != "U" or report["verified"] or report["verification_performed"]:
            fail("a custom size must report class U, unverified", proc)
        if report["iterations_run"] != report["iterations"] or not report["successful"]:
            fail("custom run did not finish its iterations", proc)
        if any(x != x for x in report["xcr"] + report["xce"]):
            fail("NaN in the norms", proc)
        print("custom run finished:", report["grid"], report["xcr"])
    elif ctx.mode == "same-checksum":
        sums = {}
        for case in ctx.rest:
            np_, args, expected, checks = parse_case(case)
            proc, report, _ = run_lu(ctx, np_, args, ctx.timeout)
            check_verified(proc, report, np_)
            start = check_placement(args, report, expected, proc)
            ratios = ""
            if option_value(args, "--balance") == "diffusive":
                q = check_balancing(args, report, checks, proc)
                ratios = f" bottleneck ratio {q[0]:.3f} -> {q[1]:.3f}" if q else ""
            sums[case] = report["field_checksum"]
            print(f"{case:30s} columns {start} -> {report['columns']} moved {report['moved_columns']}{ratios} "
                  f"checksum {sums[case]}")
        if len(set(sums.values())) != 1:
            fail("field checksums differ across partitions: " + json.dumps(sums, indent=1))
        print("all", len(sums), "partitions give field checksum", next(iter(sums.values())))
    elif ctx.mode == "bad-input":
        try:
            proc, report, elapsed = run_lu(ctx, ctx.np, ctx.rest, 60, with_json=False)
        except subprocess.TimeoutExpired:
            fail("bad input made the run hang")
        if proc.returncode == 0:
            fail("bad input was accepted (exit 0)", proc)
        if ctx.expect not in proc.stderr:
            fail(f"stderr does not name the problem ({ctx.expect!r})", proc)
        if "Segmentation" in proc.stderr or "signal" in proc.stderr.lower():
            fail("crashed instead of a clean error", proc)
        if elapsed > 30:
            fail(f"took {elapsed:.1f} s to reject bad input", proc)
        print(f"rejected in {elapsed:.2f} s with exit {proc.returncode}: {proc.stderr.strip().splitlines()[0]}")


if __name__ == "__main__":
    main()
