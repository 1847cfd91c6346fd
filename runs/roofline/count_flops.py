#!/usr/bin/env python3
"""Executed floating-point operations of lu's kernels, per grid point and iteration, counted (not modelled).

Runs `lu` at the baseline level (SSE2: packed `pd` instructions do 2 operations, scalar `sd` ones 1; no FMA,
no masks, so every executed arithmetic instruction counts exactly) under callgrind with per-instruction costs,
twice (N and 2N iterations: the difference is N iterations without the set-up), and weighs each executed
instruction of the kernel functions by its operations: add, sub, mul, div, sqrt (min, max, logic and moves are
not operations). The v3 and v4 kernels do the same operations in wider registers (FMA contracts an add and a
mul into one instruction, still two operations). Needs a `lu` built without -march=native (valgrind decodes no
AVX-512): the default build.

  runs/roofline/count_flops.py --lu build/bin/lu --cls W --iterations 3 [--json flops.json]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from npb_classes import GRID  # noqa: E402  (points per side of each class)

# kernel -> regular expression on the function's name (self costs; helpers inlined into them count with them)
KERNELS = {
    "rhs": r"level_baseline::compute_residual|level_baseline::.*dissipation_weights",
    # both sweep kernels (lu/sweep_planes.cpp, lu/sweep_hyperplanes.cpp) name their loops sweep<lower>;
    # what a compiler keeps out of line (sweep_plane, sweep_step, ...) is a template of the same flag
    "lower sweep (jacld, blts)": r"level_baseline::.*(sweep\w*<true>|lower_sweep)",
    "upper sweep (jacu, buts)": r"level_baseline::.*(sweep\w*<false>|upper_sweep)",
    "sweeps' row loads (half to each)": r"level_baseline::.*(load_state_row|fill_spare_states|carve)",
    "update (ssor)": r"level_baseline::add_scaled_row_interior",
}
FLOPS = {"addsd": 1, "subsd": 1, "mulsd": 1, "divsd": 1, "sqrtsd": 1,
         "addpd": 2, "subpd": 2, "mulpd": 2, "divpd": 2, "sqrtpd": 2}


def self_costs(path, patterns):
    """{kernel: {address: executions}} from a callgrind file with --dump-instr=yes (positions: instr line)."""
    names, out = {}, {k: {} for k in patterns}
    current, skip_next, last = None, False, 0
    with open(path) as f:
        for line in f:
            if line.startswith("cfn="):  # a callee's name may be given here first
                m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.strip())
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)
                continue
            if line.startswith("fn="):
                m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.strip())
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                name = names.get(m.group(1), "")
                current = next((k for k, p in patterns.items() if re.search(p, name)), None)
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if not line or not (line[0] in "+-*" or line.startswith("0x")):
                continue
            parts = line.split()
            a = parts[0]
            addr = last if a == "*" else last + int(a[1:], 0) if a[0] == "+" else last - int(a[1:], 0) \
                if a[0] == "-" else int(a, 16)
            last = addr
            if skip_next:
                skip_next = False
                continue
            if current is not None and len(parts) >= 3:
                out[current][addr] = out[current].get(addr, 0) + int(parts[-1])
    return out


def mnemonics(lu):
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lu], capture_output=True, text=True,
                          check=True).stdout
    table = {}
    for line in text.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
        if m:
            table[int(m.group(1), 16)] = m.group(2)
    return table


def flops_of(counts, table, base):
    return {k: sum(n * FLOPS.get(table.get(a - base, ""), 0) for a, n in c.items()) for k, c in counts.items()}


def load_base(lu, path):
    """valgrind maps a PIE `lu` at some base: found from `main`'s address in the callgrind file."""
    nm = subprocess.run(["nm", lu], capture_output=True, text=True, check=True).stdout
    text_addrs = {l.split()[2]: int(l.split()[0], 16) for l in nm.splitlines() if len(l.split()) == 3}
    counts = self_costs(path, {"main": r"^main$"})["main"]
    return min(counts) - text_addrs["main"] if counts else 0


def run(lu, cls, iterations, tmp):
    out = os.path.join(tmp, f"cg.{iterations}")
    env = dict(os.environ, NPBLU_ISA="baseline")
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}", lu, cls,
                    "--iterations", str(iterations), "--quiet"], env=env, check=True, capture_output=True)
    return out


def count(lu, cls, iterations, tmp):
    """Operations per interior point and iteration, per kernel."""
    table = mnemonics(lu)
    flops = []
    for n in (iterations, 2 * iterations):
        path = run(lu, cls, n, tmp)
        flops.append(flops_of(self_costs(path, KERNELS), table, load_base(lu, path)))
    per_iteration = {k: (flops[1][k] - flops[0][k]) / iterations for k in KERNELS}
    shared = per_iteration.pop("sweeps' row loads (half to each)")
    per_iteration["lower sweep (jacld, blts)"] += shared / 2
    per_iteration["upper sweep (jacu, buts)"] += shared / 2
    points = (GRID[cls] - 2) ** 3  # interior points
    return {k: v / points for k, v in per_iteration.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lu", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "lu"))
    ap.add_argument("--cls", default="W")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        per_point = count(a.lu, a.cls, a.iterations, tmp)
    for k, v in per_point.items():
        print(f"{k:28s} {v:8.1f} flop per interior point per iteration")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"class": a.cls, "flops_per_interior_point": per_point}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
