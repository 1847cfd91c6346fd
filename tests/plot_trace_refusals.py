#!/usr/bin/env python3
"""runs/plot_trace.py given what it cannot draw or write: one line "plot_trace: ...", exit 1, no traceback,
and no half-written picture.

    plot_trace_refusals.py --lu-sim LU_SIM --workdir DIR

Cases: a directory as the trace; a truncated trace (HDF5 says "sblock": no hint about a live run's
lock); a place no file can be created in (/proc, even for root). Then a picture replaced as a whole,
with no aside file left (it is written aside and renamed).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLOT = os.path.join(HERE, "..", "runs", "plot_trace.py")


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def refused(args, expect):
    proc = subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    if proc.returncode != 1 or len(lines) != 1 or not lines[0].startswith("plot_trace: "):
        fail(f"plot_trace {' '.join(args)}: exit {proc.returncode}, stderr {proc.stderr!r}")
    if expect not in lines[0]:
        fail(f"plot_trace {' '.join(args)}: {lines[0]!r} does not say {expect!r}")
    if "LOCKING" in lines[0] and "cut" in args[0]:
        fail(f"a truncated trace was taken for one a live run holds: {lines[0]!r}")
    print(f"refused: {lines[0]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lu-sim", required=True)
    p.add_argument("--workdir", required=True)
    a = p.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    os.chdir(a.workdir)
    trace = f"pt_{os.getpid()}.h5"
    subprocess.run([a.lu_sim, "-P", "3", "--class", "S", "--trace", trace, "--quiet"], check=True)
    with open(trace, "rb") as f, open("pt_cut.h5", "wb") as cut:
        cut.write(f.read(4000))
    os.makedirs("pt_dir", exist_ok=True)
    refused(["pt_dir", "-o", "x.png"], "is a directory")
    refused(["pt_cut.h5", "-o", "x.png"], "truncated file")
    refused([trace, "-o", "/proc/pt_x.png"], "cannot write a file there")
    with open("keep.png", "wb") as f:
        f.write(b"a previous picture")
    subprocess.run([sys.executable, PLOT, trace, "-o", "keep.png"], check=True, capture_output=True)
    if open("keep.png", "rb").read() == b"a previous picture":
        fail("the picture was not replaced")
    leftovers = [n for n in os.listdir(".") if n.endswith(".tmp")]
    if leftovers:
        fail(f"aside files left: {leftovers}")
    os.remove(trace)
    print("PASS")


if __name__ == "__main__":
    main()
