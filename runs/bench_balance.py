#!/usr/bin/env python3
"""Quality of the diffusive balancer, as times and ratios to the ideal.

Scenarios (class A, 2 ranks unless said):
  steady    --emulate-speeds 1,0.444 from equal stripes: diffusive vs static
            (exact weights) vs off; window imbalance of iterations 11-20 and
            21-30; time / ideal, ideal = T(equal, no emulation) * P / sum(s)
  changing  --emulate-speeds '1,1;@80:1,0.5': diffusive vs static vs off;
            imbalance of iterations 81-90 and 91-100; ideal integrates
            P / sum(s) over the schedule
  noharm    2 equal ranks, diffusive vs off, alternating, medians; columns
            moved after iteration 20 (must be 0: no oscillation)
  real      3 ranks on 2 cores (rank 0 alone on core 0, ranks 1 and 2
            sharing core 1 via taskset): off vs diffusive, final widths

  runs/bench_balance.py                       # all scenarios, 3 repeats
  runs/bench_balance.py --only noharm --repeats 7
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MPI = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


def run(a, np, args, pin=None):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    cmd = [a.lu, a.cls, "--quiet", "--json", path, *args]
    if pin:  # pin rank r to core pin[r] with taskset
        cores = " ".join(str(c) for c in pin)
        cmd = ["bash", "-c", f'c=({cores}); exec taskset -c ${{c[$OMPI_COMM_WORLD_RANK]}} "$@"', "pin", *cmd]
    try:
        subprocess.run([*MPI, "-np", str(np), *cmd], check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            r = json.load(f)
    finally:
        os.remove(path)
    if not r["verified"]:
        sys.exit(f"run {args} did not verify")
    return r


def window_imbalance(r, first, last):
    """max/mean over ranks of compute summed over 1-based iterations first..last."""
    rows = r["history"]["compute_s"][first - 1:last]
    sums = [sum(row[k] for row in rows) for k in range(len(rows[0]))]
    return max(sums) / (sum(sums) / len(sums))


def median_run(runs):
    t = statistics.median(r["time_s"] for r in runs)
    return min(runs, key=lambda r: abs(r["time_s"] - t))


def late_moves(r, after):
    return sum(abs(m["columns"]) for m in r["balance_moves"] if m["iteration"] > after)


def compare(a, title, variants, ideal_factor, windows, settle):
    """Runs every variant and the unemulated baseline in turn, repeats times.

    The baseline is measured in the same rounds as the variants: this VM's
    cores drift in speed over tens of seconds, so an ideal from a separate
    earlier measurement would be off by as much as the effects measured."""
    results = {name: [] for name in ["baseline", *variants]}
    for _ in range(a.repeats):
        results["baseline"].append(run(a, 2, []))
        for name, (np, args) in variants.items():
            results[name].append(run(a, np, args))
    base = statistics.median(r["time_s"] for r in results.pop("baseline"))
    ideal = base * ideal_factor
    print(f"\n== {title}; T(equal, no emulation) {base:.3f} s, ideal {ideal:.3f} s; medians of {a.repeats}")
    head = "".join(f" imb{w[0]}-{w[1]:<4}" for w in windows)
    print(f"{'variant':12} {'time s':>8} {'/ideal':>7}{head} {'moved':>6} {'late':>5}  final columns")
    for name, runs in results.items():
        r = median_run(runs)
        imbs = "".join(f" {window_imbalance(r, *w):>10.3f}" for w in windows)
        late = [late_moves(x, settle) for x in runs]
        print(f"{name:12} {r['time_s']:8.3f} {r['time_s'] / ideal:7.3f}{imbs} {r['moved_columns']:>6} "
              f"{max(late):>5}  {','.join(map(str, r['columns']))}  (times/ideal "
              f"{[round(x['time_s'] / ideal, 3) for x in runs]})")
    print(f"late: most columns any run moved after iteration {settle}")
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lu", default=os.path.join(HERE, "..", "build", "bin", "lu"))
    p.add_argument("--cls", default="A")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", choices=["steady", "changing", "noharm", "real"])
    a = p.parse_args()
    want = lambda s: a.only in (None, s)

    its = 250 if a.cls in "ABC" else 300

    if want("steady"):
        s = "1,0.444"
        compare(a, f"steady heterogeneity --emulate-speeds {s}", {
            "off": (2, ["--balance", "off", "--emulate-speeds", s]),
            "static": (2, ["--weights", s, "--emulate-speeds", s]),
            "diffusive": (2, ["--balance", "diffusive", "--emulate-speeds", s]),
        }, 2 / 1.444, [(11, 20), (21, 30), (its - 9, its)], settle=30)

    if want("changing"):
        s = "1,1;@80:1,0.5"
        factor = (79 * 2 / 2 + (its - 79) * 2 / 1.5) / its
        compare(a, f"changing load --emulate-speeds '{s}'", {
            "off": (2, ["--balance", "off", "--emulate-speeds", s]),
            "static": (2, ["--balance", "static", "--emulate-speeds", s]),
            "diffusive": (2, ["--balance", "diffusive", "--emulate-speeds", s]),
        }, factor, [(71, 79), (81, 90), (91, 100), (its - 9, its)], settle=100)

    if want("noharm"):
        times = {"off": [], "diffusive": []}
        late = []
        for _ in range(a.repeats):
            times["off"].append(run(a, 2, ["--balance", "off"])["time_s"])
            r = run(a, 2, ["--balance", "diffusive"])
            times["diffusive"].append(r["time_s"])
            late.append(late_moves(r, 20))
        off, dif = statistics.median(times["off"]), statistics.median(times["diffusive"])
        print(f"\n== no harm: 2 equal ranks, alternating, medians of {a.repeats}")
        print(f"off {off:.3f} s  diffusive {dif:.3f} s  ratio diffusive/off {dif / off:.4f}  "
              f"columns moved after iteration 20 per run: {late}")

    def core_shares(r):
        h = r["history"]
        cpu = [sum(row[q] for row in h["on_cpu_s"]) for q in range(r["ranks"])]
        busy = [cpu[q] + sum(row[q] for row in h["run_delay_s"]) for q in range(r["ranks"])]
        return ",".join(f"{c / b:.2f}" if b > 0 else "n/a" for c, b in zip(cpu, busy))

    if want("real"):
        pin = [0, 1, 1]
        print("\n== real heterogeneity: 3 ranks on 2 cores (rank 0 on core 0; ranks 1, 2 share core 1)")
        for name, args in (("off", ["--balance", "off"]), ("diffusive", ["--balance", "diffusive"])):
            runs = [run(a, 3, args, pin) for _ in range(a.repeats)]
            r = median_run(runs)
            print(f"{name:10} {r['time_s']:8.3f} s  imbalance {r['imbalance']:.3f}  moved {r['moved_columns']:>4}  "
                  f"final columns {','.join(map(str, r['columns']))}  core shares {core_shares(r)}  "
                  f"(times {[round(x['time_s'], 2) for x in runs]})")


if __name__ == "__main__":
    main()
