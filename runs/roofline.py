#!/usr/bin/env python3
"""Roofline of lu's kernels: each kernel's achieved bandwidth and flop rate against this machine's own limits.

  runs/roofline.py [--lu build/bin/lu] [--cls A] [--np 1] [--levels v3 v4] [--repeats 3] [--count-lu LU]

- Machine limits: runs/roofline/machine_limits.cpp compiled per level (-march=x86-64, x86-64-v3, x86-64-v4):
  STREAM-like triad bandwidth from memory (one process, and one per core at once) and from L1, and the peak
  double-precision rate of one core at the level's width (independent multiply-add chains).
- Work: runs/roofline/count_flops.py counts the executed floating-point operations of each kernel (callgrind,
  baseline level, the same class). Bytes are the compulsory traffic of the fields: each kernel reads two 5-double
  fields and writes one per grid point (rhs: u, frct -> rsd; the sweeps: u, rsd -> rsd; the update: u, rsd -> u),
  120 bytes a point; what the kernels keep in cache beyond that is not counted.
- Time: the solver's phase timers of `lu --json`, medians of --repeats runs per level (NPBLU_ISA), per iteration.
Prints the CPU, the level and a Markdown table. Run it on a quiet machine (it times things).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from lu_json import count, script_main

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "roofline"))
import count_flops  # noqa: E402

LEVELS = {"baseline": ("x86-64", 2), "v3": ("x86-64-v3", 4), "v4": ("x86-64-v4", 8)}
# kernel -> the phase timers that time it, and count_flops's kernel name
KERNELS = [("rhs", ["rhs"], "rhs"), ("lower sweep (jacld + blts)", ["jacld", "blts"], "lower sweep (jacld, blts)"),
           ("upper sweep (jacu + buts)", ["jacu", "buts"], "upper sweep (jacu, buts)"),
           ("update", ["update"], "update (ssor)")]
BYTES_PER_POINT = 120.0


def machine_limits(level, tmp):
    march, lanes = LEVELS[level]
    exe = os.path.join(tmp, f"limits_{level}")
    cxx = os.environ.get("CXX", "c++")
    subprocess.run([cxx, "-O3", f"-march={march}", f"-DLANES={lanes}", "-std=c++20",
                    os.path.join(HERE, "roofline", "machine_limits.cpp"), "-o", exe], check=True)
    one = json.loads(subprocess.run([exe], capture_output=True, text=True, check=True).stdout)
    cores = os.cpu_count() or 1
    procs = [subprocess.Popen([exe], stdout=subprocess.PIPE, text=True) for _ in range(cores)]
    together = [json.loads(p.communicate()[0]) for p in procs]
    one["triad_memory_all_cores_bytes_per_s"] = sum(t["triad_memory_bytes_per_s"] for t in together)
    return one


def phase_times(lu, cls, np, level, repeats, tmp):
    runs = []
    for r in range(repeats):
        out = os.path.join(tmp, f"{level}_{r}.json")
        cmd = ([lu] if np == 1 else ["mpirun", "--allow-run-as-root", "-np", str(np), lu]) + \
              [cls, "--quiet", "--json", out]
        subprocess.run(cmd, env=dict(os.environ, NPBLU_ISA=level), check=True, capture_output=True)
        with open(out) as f:
            runs.append(json.load(f))
    its = runs[0]["iterations"]
    per_kernel = {name: statistics.median(sum(r["timers"][t]["max"] for t in timers) / its for r in runs)
                  for name, timers, _ in KERNELS}
    total = statistics.median(r["time_s"] / its for r in runs)
    return per_kernel, total, runs[0]


def table(level, limits, flops, times, total, points, np):
    peak = limits["peak_flops_per_s"]
    memory = limits["triad_memory_bytes_per_s"] if np == 1 else limits["triad_memory_all_cores_bytes_per_s"] / np
    rows = [f"| kernel | time share | ms / iteration | GB/s | GFlop/s | of triad from memory ({memory / 1e9:.1f} GB/s) "
            f"| of L1 triad ({limits['triad_l1_bytes_per_s'] / 1e9:.0f} GB/s) | of peak ({peak / 1e9:.1f} GFlop/s) "
            f"| flop / byte |", "|---|---|---|---|---|---|---|---|---|"]
    for name, _, counted in KERNELS:
        t = times[name]
        gbs = BYTES_PER_POINT * points / t
        gflops = flops[counted] * points / t
        rows.append(f"| {name} | {t / total:.1%} | {t * 1e3:.2f} | {gbs / 1e9:.1f} | {gflops / 1e9:.1f} | "
                    f"{gbs / memory:.2f} | {gbs / limits['triad_l1_bytes_per_s']:.3f} | {gflops / peak:.2f} | "
                    f"{flops[counted] / BYTES_PER_POINT:.1f} |")
    return "\n".join(rows)


def cpu_model():
    with open("/proc/cpuinfo") as f:
        return next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown CPU")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lu", default=os.path.join(HERE, "..", "build", "bin", "lu"))
    ap.add_argument("--cls", default="A")
    ap.add_argument("--np", type=count(1), default=1)
    ap.add_argument("--levels", nargs="*", default=["v3", "v4"])
    ap.add_argument("--repeats", type=count(1), default=3)
    ap.add_argument("--count-lu", help="the lu callgrind counts (default --lu; one built without "
                    "-DNPBLU_NATIVE=ON: valgrind decodes no AVX-512)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        counted = count_flops.count(a.count_lu or a.lu, a.cls, 1, tmp)
        points = (count_flops.GRID[a.cls] - 2) ** 3 / a.np
        print(f"{cpu_model()}; class {a.cls} on {a.np} rank(s); flops counted per interior point and iteration: "
              + ", ".join(f"{k} {v:.0f}" for k, v in counted.items()))
        for level in a.levels:
            limits = machine_limits(level, tmp)
            times, total, report = phase_times(a.lu, a.cls, a.np, level, a.repeats, tmp)
            print(f"\nlevel {level} (lu ran {report['isa']}), {total * 1e3:.2f} ms per iteration, medians of "
                  f"{a.repeats}; one core: triad {limits['triad_memory_bytes_per_s'] / 1e9:.1f} GB/s from memory, "
                  f"{limits['triad_memory_all_cores_bytes_per_s'] / 1e9:.1f} GB/s all cores together, peak "
                  f"{limits['peak_flops_per_s'] / 1e9:.1f} GFlop/s\n")
            print(table(level, limits, counted, times, total, points, a.np))


if __name__ == "__main__":
    script_main(main)
