#!/usr/bin/env python3
"""Mutation check: does the test suite catch small deliberate faults? (Slow; not part of CI.)

  runs/mutation_check.py [--scratch /tmp/npblu-mutation] [--only NAME ...] [--report FILE] [--list]
  runs/mutation_check.py --check-edits BUILD   (seconds: the list still applies; the suite runs it)

Copies the working tree (git's tracked and untracked-but-not-ignored files) to SCRATCH/src,
configures SCRATCH/build once (Release) and reuses it: every fault is an exact text edit (each
`old` must occur exactly once in its file, or the script stops: a fault that no longer applies
is a stale list, not a pass), applied, rebuilt incrementally, tested, and reverted. Per fault it
runs only the tests that matter for it (its list below) plus a quick subset (QUICK), with
`ctest --stop-on-failure`, and reports the first test that fails. Before any fault, the same tests
must all pass on the unmodified tree (else a "catch" would mean nothing). A fault that does not
compile is an error in the list, not a catch. Every fault must be caught; the exit status is 1
if one is not.

The result (the table this prints) goes in tests/README.md, with the command that produced it.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

QUICK = ["verify_S_np2", "checksum_S_partitions"]

# (name, area, [(file, old, new), ...], [tests that matter])
FAULTS = [
    ("ignore --columns", "placement",
     [("lu/run/placement.cpp", ": Partition::from_widths(interior, columns);",
       ": Partition::from_weights(interior, std::vector<double>(columns.size(), 1.0));")],
     ["checksum_S_partitions", "checksum_S_weights"]),
    ("ignore --weights", "placement",
     [("lu/run/placement.cpp", "return columns.empty() ? Partition::from_weights(interior, weights)",
       "return columns.empty() ? Partition::from_weights(interior, std::vector<double>(weights.size(), 1.0))")],
     ["checksum_S_weights"]),
    ("largest-remainder ties to the higher rank", "placement",
     [("balance/partition.cpp", "return remainder[a] > remainder[b]; });", "return remainder[a] >= remainder[b]; });")],
     ["checksum_S_weights", "Partition"]),
    ("move columns the wrong way", "balancing",
     [("balance/diffusive_balancer.cpp", "cut + static_cast<int>(distance > 0 ? step : -step)",
       "cut + static_cast<int>(distance > 0 ? -step : step)")],
     ["sim_balance_strong", "balance_api_np2"]),
    ("moves not priced (move on noise)", "balancing",
     [("balance/diffusive_balancer.cpp", "bool worth_it = d.gain > 0.0 && d.gain * d.horizon > d.price;",
       "bool worth_it = d.gain > 0.0;")],
     ["sim_balance_still", "balance_api_np2", "balance_api_np3", "DiffusiveBalancer"]),
    ("damping ignored", "balancing",
     [("balance/diffusive_balancer.cpp", "std::lround(settings_.damping * std::abs(distance))",
       "std::lround(1.0 * std::abs(distance))")],
     ["DiffusiveBalancer"]),
    ("drop the halo exchange after a migration", "migration",
     [("lu/solver.cpp",
       "  owned_ = partition_[comm_.rank()];\n  halo_exchange(u_, owned_, kStateHalo, comm_, wait_mode());\n}",
       "  owned_ = partition_[comm_.rank()];\n}")],
     ["random_migration_S_np3", "checksum_S_diffusive", "c_api_field_gather_S_diffusive_np3"]),
    ("migration leaves the residual behind", "migration",
     [("lu/solver.cpp", "{&u_, kStateHalo}, {&rsd_, kResidualHalo}, {&frct_, 0}};",
       "{&u_, kStateHalo}, {&frct_, 0}};")],
     ["random_migration_S_np3", "checksum_S_diffusive"]),
    ("skip the checksum on checkpoint read", "checkpoints",
     [("lu/io/checkpoint.cpp", "if (failure.empty() && combine_column_digests(digests) != reader.header().field_checksum)",
       "if (false && combine_column_digests(digests) != reader.header().field_checksum)")],
     ["refuse_restart_corrupt_field", "refuse_restart_corrupt_5"]),
    ("ignore restart (u and iteration not restored)", "checkpoints",
     [("lu/run/restart.cpp", "const CheckpointStats stats = restore_checkpoint(path, header, solver, ctx.comm);",
       "const CheckpointStats stats{};")],
     ["c_api_checkpoint_np2", "fortran_checkpoint_np1", "checkpoint_W100_3_to_2_and_5"]),
    ("restart ignores the saved stripes", "checkpoints",
     [("lu/run/restart.cpp", "    config.placement.columns = h.run.column_widths;\n", "")],
     ["checkpoint_W100_3_to_2_and_5", "checkpoint_W_diffusive_continues"]),
    ("time_s after a restart drops the saved seconds", "checkpoints",
     [("lu/io/checkpoint.cpp", "solver.resume(header.iteration, header.timed_seconds);",
       "solver.resume(header.iteration, 0.0);")],
     ["checkpoint_W100_3_to_2_and_5"]),
    ("a failed checkpoint write ignored", "exit statuses",
     [("lu/io/checkpoint.cpp",
       "agree<RunFailure>(failure.empty(), \"writing the checkpoint failed: \" + one_line_message(failure), comm,\n"
       "                    wait);\n  return {wall_seconds()",
       "agree<RunFailure>(true, \"writing the checkpoint failed: \" + one_line_message(failure), comm,\n"
       "                    wait);\n  return {wall_seconds()")],
     ["exit_status_checkpoint_write_fails"]),
    ("exit 0 instead of 1", "exit statuses",
     [("lu/run/main.cpp", "return outcome.successful ? 0 : kExitFailed;", "return 0;")],
     ["exit_status_not_verified"]),
    ("a failed JSON write ignored", "exit statuses",
     [("lu/run/run_report.cpp", "return \"--json: failed writing the JSON report: \" + std::string(e.what());",
       "return {};")],
     ["exit_status_json_write_fails"]),
    ("no MPI_Abort when one rank fails alone", "exit statuses",
     [("lu/run/main.cpp", "    abort_job(npblu::one_line_message(e.what()));  // not agreed: this rank alone failed",
       "    return exit_with(e, kExitRunFailed);  // as if agreed")],
     ["exit_status_one_rank_fails_aborts"]),
    ("verdict printed SUCCESSFUL when it failed", "verification",
     [("lu/io/report.cpp", "(r.successful() ? \"SUCCESSFUL\" : \"UNSUCCESSFUL\")",
       "(r.successful() ? \"SUCCESSFUL\" : \"SUCCESSFUL\")")],
     ["exit_status_not_verified"]),
    ("verification epsilon 1e-4 instead of 1e-8", "verification",
     [("verify/class_table.hpp", "inline constexpr double kVerificationEpsilon = 1.0e-8;",
       "inline constexpr double kVerificationEpsilon = 1.0e-4;")],
     ["exit_status_not_verified", "Verification"]),
    ("NaN passes verification", "verification",
     [("verify/verification.cpp", "q.passed = q.relative_difference <= epsilon;",
       "q.passed = !(q.relative_difference > epsilon);")],
     ["Verification"]),
    ("ignore the communicator (C API)", "C API",
     [("interop/c/npblu_c.cpp", "h->comm = npblu::Communicator::duplicate(comm);",
       "h->comm = npblu::Communicator::duplicate(MPI_COMM_WORLD);")],
     ["split_communicator_two_solvers"]),
    ("npblu_version's patch off by one", "C API",
     [("interop/c/npblu_c.cpp", "if (patch) *patch = NPBLU_VERSION_PATCH;", "if (patch) *patch = NPBLU_VERSION_PATCH + 1;")],
     ["library_version"]),
    ("npblu_columns one column short (stepped run)", "C API",
     [("interop/c/npblu_c.cpp", "    *end = owned.end;\n    return NPBLU_OK;", "    *end = owned.end - 1;\n    return NPBLU_OK;")],
     ["c_api_field_gather_S_np3", "fortran_kinds_np2"]),
    ("Fortran set_size passes one iteration less", "Fortran API",
     [("interop/fortran/npblu_kind_procedures.inc", "c_int_of(iterations), dt), IK)", "c_int_of(iterations) - 1, dt), IK)")],
     ["fortran_kinds_np1", "fortran_kinds_int8_np1"]),
    ("Fortran columns 0-based", "Fortran API",
     [("interop/fortran/npblu_kind_procedures.inc", "    first = int(b, IK) + 1\n", "    first = int(b, IK)\n")],
     ["fortran_kinds_np2", "fortran_kinds_int8_np2"]),
]


def log(*args):
    print(*args, flush=True)


def sync_tree(source, destination):
    """Copies git's tracked and untracked-but-not-ignored files; only changed ones are written."""
    listed = subprocess.run(["git", "-C", source, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        a, b = os.path.join(source, name), os.path.join(destination, name)
        if not os.path.isfile(a):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        with open(a, "rb") as f:
            content = f.read()
        if not os.path.exists(b) or open(b, "rb").read() != content:
            shutil.copy(a, b)  # now as its time (not copy2's): make must see it newer than the scratch build


def build(build_dir):
    done = subprocess.run(["cmake", "--build", build_dir, "-j", "2"], capture_output=True, text=True)
    return done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def run_tests(build_dir, tests, timeout=1800):
    """Runs the named tests (a name matches a test exactly, or is a gtest suite prefix
    'Suite' matching 'Suite.*'); returns (all passed, first failing test)."""
    pattern = "|".join(f"^{t}$" if not t[0].isupper() else f"^{t}\\." for t in tests)
    done = subprocess.run(["ctest", "--test-dir", build_dir, "-R", pattern, "-j", "2", "--stop-on-failure",
                           "--output-on-failure"], capture_output=True, text=True, timeout=timeout)
    failed = [line.split("-", 1)[1].strip().split(" ")[0] for line in done.stdout.splitlines()
              if line.strip() and line.strip()[0].isdigit() and " - " in line]
    ran = [line for line in done.stdout.splitlines() if "Test #" in line]
    if not ran:
        raise SystemExit(f"no test matched {pattern}:\n{done.stdout[-2000:]}")
    return done.returncode == 0, (failed[0] if failed else None), len(ran)


def apply(src, edits):
    """Applies the edits; returns the original contents to restore."""
    saved = {}
    for path, old, new in edits:
        full = os.path.join(src, path)
        text = saved.get(path) or open(full).read()
        saved.setdefault(path, text)
        current = open(full).read()
        if current.count(old) != 1:
            raise SystemExit(f"fault edit does not apply exactly once in {path}: {old!r}")
        with open(full, "w") as f:
            f.write(current.replace(old, new))
    return saved


def restore(src, saved):
    for path, text in saved.items():
        with open(os.path.join(src, path), "w") as f:
            f.write(text)


def check_edits(tree, build_dir, faults):
    """Every fault's edits apply exactly once to `tree`, and its tests exist in `build_dir`."""
    listed = subprocess.run(["ctest", "-N", "--test-dir", build_dir], capture_output=True, text=True, check=True)
    known = {line.split(":", 1)[1].strip() for line in listed.stdout.splitlines()
             if line.strip().startswith("Test") and ":" in line}
    problems = []
    for name, _, edits, tests in faults:
        for path, old, _ in edits:
            n = open(os.path.join(tree, path)).read().count(old)
            if n != 1:
                problems.append(f"{name!r}: its edit of {path} matches {n} times, not once: {old!r}")
        problems += [f"{name!r}: no test {t!r} in {build_dir}" for t in tests + QUICK
                     if not (t in known if not t[0].isupper() else any(k.startswith(t + ".") for k in known))]
    for problem in problems:
        log(problem)
    log(f"{len(faults)} faults: " + (f"{len(problems)} problems" if problems else "every edit applies once, every test exists"))
    sys.exit(1 if problems else 0)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tree", default=here)
    p.add_argument("--scratch", default="/tmp/npblu-mutation")
    p.add_argument("--only", nargs="*", help="fault names (substrings) to run")
    p.add_argument("--report", help="also write the markdown table here")
    p.add_argument("--list", action="store_true")
    p.add_argument("--check-edits", metavar="BUILD",
                   help="only check, quickly, that every fault applies to TREE and names tests BUILD has (the suite "
                        "runs this, so that the list cannot go stale unnoticed)")
    a = p.parse_args()
    faults = [f for f in FAULTS if not a.only or any(o in f[0] for o in a.only)]
    if a.list:
        for name, area, _, tests in faults:
            log(f"{area:14s} {name:50s} {' '.join(tests)}")
        return
    if a.check_edits:
        return check_edits(a.tree, a.check_edits, faults)
    src, build_dir = os.path.join(a.scratch, "src"), os.path.join(a.scratch, "build")
    started = time.monotonic()
    sync_tree(a.tree, src)
    if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
        subprocess.run(["cmake", "-S", src, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                       capture_output=True)
    ok, out = build(build_dir)
    if not ok:
        raise SystemExit("the unmodified tree does not build:\n" + out)
    every_test = sorted({t for f in faults for t in f[3]} | set(QUICK))
    passed, first, count = run_tests(build_dir, every_test)
    if not passed:
        raise SystemExit(f"the unmodified tree fails {first}: fix it before looking at faults")
    log(f"baseline: the {count} tests involved pass on the unmodified tree ({time.monotonic() - started:.0f} s)")

    rows, missed = [], 0
    for name, area, edits, tests in faults:
        t0 = time.monotonic()
        saved = apply(src, edits)
        try:
            ok, out = build(build_dir)
            if not ok:
                raise SystemExit(f"fault {name!r} does not compile:\n{out}")
            passed, first, count = run_tests(build_dir, tests + [q for q in QUICK if q not in tests])
        finally:
            restore(src, saved)
        caught = not passed
        missed += not caught
        verdict = f"caught by `{first}`" if caught else "NOT CAUGHT"
        rows.append((area, name, verdict, " ".join(tests)))
        log(f"{area:14s} {name:50s} {verdict} ({count} tests run, {time.monotonic() - t0:.0f} s)")
    build(build_dir)  # leave the scratch build unmodified

    table = ["| area | fault | result | tests run (plus " + ", ".join(QUICK) + ") |", "|---|---|---|---|"]
    table += [f"| {area} | {name} | {verdict} | {tests} |" for area, name, verdict, tests in rows]
    summary = (f"{len(rows) - missed} of {len(rows)} faults caught, in {time.monotonic() - started:.0f} s "
               f"(`runs/mutation_check.py`)")
    log("\n".join(table) + "\n\n" + summary)
    if a.report:
        with open(a.report, "w") as f:
            f.write("\n".join(table) + "\n\n" + summary + "\n")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
