"""runs/roofline's tools measure what they say.

  roofline_check.py --cxx CXX --lu LU [--count]

- machine_limits.cpp, compiled as runs/roofline.py compiles it (baseline level), prints positive bandwidths
  and a peak rate, the L1 triad faster than the one from memory.
- With --count (valgrind present and lu built without -march=native): count_flops.py counts the SSOR update's
  operations on class S exactly: 10 per interior point and iteration (add_scaled_row_interior's multiply and
  add of 5 components; NPB's rsd *= dt rides on the lower sweep's loads and counts with it), and every kernel
  some.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "runs", "roofline"))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--lu", required=True)
    ap.add_argument("--count", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "limits")
        subprocess.run([a.cxx, "-O3", "-march=x86-64", "-DLANES=2", "-std=c++20",
                        os.path.join(ROOT, "runs", "roofline", "machine_limits.cpp"), "-o", exe], check=True)
        limits = json.loads(subprocess.run([exe, "0.01"], capture_output=True, text=True, check=True).stdout)
        print("machine limits (short run):", limits)
        if not all(limits[k] > 0 for k in ("triad_memory_bytes_per_s", "triad_l1_bytes_per_s", "peak_flops_per_s")):
            fail("a limit is not positive")
        if limits["triad_l1_bytes_per_s"] <= limits["triad_memory_bytes_per_s"]:
            fail("L1 triad not faster than the triad from memory")
        if not a.count:
            print("flop count skipped (no valgrind, or lu built with -march=native)")
            return 0
        import count_flops
        per_point = count_flops.count(a.lu, "S", 1, tmp)
    print("flops per interior point and iteration:", per_point)
    if abs(per_point["update (ssor)"] - 10.0) > 1e-9:
        fail(f"the update counted {per_point['update (ssor)']} operations a point, expected 10")
    if not all(v > 100 for k, v in per_point.items() if k != "update (ssor)"):
        fail("a kernel counted (almost) no operations")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
