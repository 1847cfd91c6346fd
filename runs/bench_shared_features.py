#!/usr/bin/env python3
"""What the balancer, the trace and checkpoints cost when ranks share cores.

More ranks than cores (3 on this 2-core machine): every collective and
migration message inside the timed iterations is a point where a rank that
arrives first waits for one that shares its core. Where the MPI library keeps
the core while it polls (MPICH; Open MPI told not to yield), a spinning rank
holds up the rank it waits for by a time slice. This script runs each feature
(plain, `--balance diffusive`, `--trace`, `--checkpoint --checkpoint-every
25`) with each build (this `lu` and a baseline, e.g. main before a change)
and each library, alternating (the builds' order rotating every repeat), and
prints medians: the time, the feature's time over the same build's plain
run, and this build over the baseline.

  runs/bench_shared_features.py --baseline-lu <old lu> --baseline-lu-mpich <old MPICH lu> \\
      --lu-mpich build-mpich/bin/lu                       # W, 3 ranks, 5 repeats

Without --lu-mpich only Open MPI runs; without a baseline only this build.
Timings: run under `flock /tmp/npblu-timing.lock`.
"""
import argparse
import os
import statistics
import sys
import tempfile

from lu_json import add_shared_core_arguments, median_range, run_report, script_main, shared_core_launchers

FEATURES = {
    "plain": [],
    "diffusive": ["--balance", "diffusive"],
    "trace": ["--trace", "{tmp}/t.h5", "--trace-overwrite"],
    "checkpoint": ["--checkpoint", "{tmp}/c.h5", "--checkpoint-every", "25", "--checkpoint-overwrite"],
}


def cases(args):
    """(library, launcher, {build: lu}) per library."""
    ompi, mpich = shared_core_launchers(args.np)
    out = [("Open MPI", ompi, {"this": args.lu, "baseline": args.baseline_lu})]
    if args.lu_mpich:
        out.append(("MPICH", mpich,
                    {"this": args.lu_mpich, "baseline": args.baseline_lu_mpich}))
    return [(name, launcher, {b: lu for b, lu in builds.items() if lu}) for name, launcher, builds in out]


def run_once(launcher, lu, cls, feature, tmp):
    """Seconds of the timed iterations (the report's time_s) and the columns the balancer moved."""
    extra = [a.format(tmp=tmp) for a in FEATURES[feature]]
    for name in ("t.h5", "c.h5"):
        if os.path.exists(os.path.join(tmp, name)):
            os.remove(os.path.join(tmp, name))
    report = run_report(lambda path: [*launcher, lu, cls, "--quiet", "--json", path, *extra])
    return report["time_s"], report.get("moved_columns", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_shared_core_arguments(ap)
    ap.add_argument("--baseline-lu", help="another lu built against Open MPI")
    ap.add_argument("--baseline-lu-mpich", help="another lu built against MPICH")
    ap.add_argument("--features", nargs="+", choices=list(FEATURES), default=list(FEATURES),
                    help="plain is always run (the ratios' denominator)")
    args = ap.parse_args()
    features = ["plain"] + [f for f in args.features if f != "plain"]
    runs = cases(args)
    times, moved = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):
            for library, launcher, builds in runs:
                names = sorted(builds)
                names = names[rep % len(names):] + names[:rep % len(names)]
                for feature in features:
                    for build in names:
                        seconds, columns = run_once(launcher, builds[build], args.cls, feature, tmp)
                        times.setdefault((library, build, feature), []).append(seconds)
                        moved.setdefault((library, build, feature), []).append(columns)
            print(f"repeat {rep + 1}/{args.repeats} done", file=sys.stderr)
    print(f"class {args.cls}, {args.np} ranks on {os.cpu_count()} cores, medians of {args.repeats} "
          "(min-max); ratios are medians of the paired runs")
    print("| library | build | feature | s | feature / plain (same build) | this / baseline | columns moved |")
    print("|---|---|---|---|---|---|---|")
    for library, _, builds in runs:
        for build in sorted(builds, reverse=True):
            for feature in features:
                t = times[(library, build, feature)]
                plain = times[(library, build, "plain")]
                over_plain = median_range([a / b for a, b in zip(t, plain)]) if feature != "plain" else ""
                base = times.get((library, "baseline", feature))
                over_base = median_range([a / b for a, b in zip(t, base)]) if base and build == "this" else ""
                columns = moved[(library, build, feature)]
                moves = f"{statistics.median(columns):g} ({min(columns)}-{max(columns)})" if feature == "diffusive" else ""
                print(f"| {library} | {build} | {feature} | {median_range(t)} | {over_plain} | {over_base} | {moves} |")


if __name__ == "__main__":
    script_main(main)
