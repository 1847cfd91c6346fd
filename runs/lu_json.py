"""Runs build/bin/lu under mpirun and returns its --json report.

Shared by the scripts in runs/: one place that knows how to launch a run,
pin ranks to cores, read the report and refuse a run that did not verify.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LU = os.path.join(HERE, "..", "build", "bin", "lu")
# The instruction-set levels of lu's kernels that NPBLU_ISA forces (lu/isa.hpp).
LEVELS = ["baseline", "v3", "v4"]


def mpirun(bind="none"):
    """mpirun as root, more ranks than cores allowed, ranks bound as asked."""
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", bind]


def shared_core_launchers(np, mca=()):
    """The launchers of the benches of ranks sharing cores, up to the program: Open MPI's mpirun
    (more ranks than cores allowed, its own binding; `mca`: extra `--mca NAME VALUE` words) and
    MPICH's mpiexec.mpich."""
    return (["mpirun", "--allow-run-as-root", "--oversubscribe", *mca, "-np", str(np)],
            ["mpiexec.mpich", "-n", str(np)])


def add_shared_core_arguments(ap):
    """The options the benches of ranks sharing cores take: class, ranks, repeats, the lu builds."""
    ap.add_argument("--cls", default="W")
    ap.add_argument("--np", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--lu", default=DEFAULT_LU)
    ap.add_argument("--lu-mpich", help="lu built against MPICH (launched with mpiexec.mpich)")


def command(lu, cls, np, args, json_path, bind="none", pin=None):
    """The command line; `pin` lists one core per rank (taskset)."""
    cmd = [lu, cls, "--quiet", "--json", json_path, *args]
    if pin:
        cores = " ".join(str(c) for c in pin)
        cmd = ["bash", "-c", f'c=({cores}); exec taskset -c ${{c[$OMPI_COMM_WORLD_RANK]}} "$@"', "pin", *cmd]
    return [*mpirun(bind), "-np", str(np), *cmd]


def core_shares(report):
    """Each rank's share of its core over a run, on-CPU / (on-CPU + run-queue time), from the
    JSON history of lu or lu-sim (None where neither was recorded)."""
    h = report["history"]
    shares = []
    for q in range(len(h["on_cpu_s"][0])):
        on = sum(row[q] for row in h["on_cpu_s"])
        busy = on + sum(row[q] for row in h["run_delay_s"])
        shares.append(on / busy if busy > 0 else None)
    return shares


def run_lu(lu, cls, np, args, bind="none", pin=None, dry_run=False):
    """Runs and returns the report (a dict); exits unless it verified.
    With dry_run, prints the command and returns None."""
    return run_report(lambda path: command(lu, cls, np, args, path, bind, pin), dry_run)


def run_report(make_command, dry_run=False, require_verified=True):
    """Runs make_command(json_path) (any launcher and lu command line writing its --json report
    there) and returns the report; exits unless it verified (require_verified=False: custom
    grids, which have no reference values). With dry_run, prints the command."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    cmd = make_command(path)
    try:
        if dry_run:
            print(" ".join(shlex.quote(c) for c in cmd))
            return None
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            report = json.load(f)
    finally:
        os.remove(path)
    if require_verified and not report["verified"]:
        sys.exit(f"not verified: {' '.join(cmd)}")
    return report


def run_npb(command):
    """Runs NPB's LU (`command`: a launcher and lu.CLASS.x) and returns its time in seconds; exits
    unless it verified."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    if "SUCCESSFUL" not in out:
        sys.exit(f"NPB did not verify: {' '.join(command)}")
    return float(re.search(r"Time in seconds\s*=\s*([0-9.]+)", out).group(1))


def median_range(values, digits=3):
    """'median (min-max)' of values, as the benches print them."""
    v = sorted(values)
    return f"{statistics.median(v):.{digits}f} ({v[0]:.{digits}f}-{v[-1]:.{digits}f})"


def sim_noise_args(noise, rho=0.0, seed=None):
    """lu-sim's noise options for a noise level: none at 0, where lu-sim refuses a correlation and a seed."""
    if noise <= 0:
        return []
    return ["--noise", str(noise), "--noise-correlation", str(rho)] + ([] if seed is None else ["--seed", str(seed)])


def count(minimum=1):
    """An argparse type: a whole number of at least `minimum` (--repeats, --np, ...), so that
    `--repeats 0` or `--np 0` is refused with argparse's one line instead of failing later."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text} is less than {minimum}")
        return value
    parse.__name__ = f"whole number >= {minimum}"
    return parse


def script_main(main):
    """Runs a script's main() and exits with its status; a program the script ran that failed (its
    own message already printed, or captured and printed here) ends the script with one line naming
    it and its exit status, not a traceback."""
    try:
        status = main()
    except subprocess.CalledProcessError as e:
        for captured in (e.stdout, e.stderr):
            if captured:
                text = captured.decode(errors="replace") if isinstance(captured, bytes) else captured
                print("\n".join(text.rstrip().splitlines()[-20:]), file=sys.stderr)
        command = " ".join(shlex.quote(str(c)) for c in e.cmd) if isinstance(e.cmd, list) else str(e.cmd)
        print(f"{os.path.basename(sys.argv[0])}: error: exit status {e.returncode} from {command}",
              file=sys.stderr)
        sys.exit(1)
    sys.exit(status or 0)
