#!/usr/bin/env python3
"""lu under a real cgroup memory limit smaller than its stripes need: refused before allocating.

  cgroup_limit_check.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                        --np 2 -- ARGS

Creates a child of this process's memory cgroup (v2: memory.max, where the memory controller is
enabled for children; v1: the memory hierarchy's memory.limit_in_bytes) limited to 200 MB, starts
mpiexec inside it and runs lu ARGS (a class needing more than that, e.g. C: 517 MB on 2 ranks). Every
rank must exit 2 with one "lu: error:" line that names the cgroup's limit as what the node has
(lu/run/memory_check.cpp reading the real files). Exits 77 (skipped) where no such cgroup can be made
(not root, no memory controller, cgroup v2 without it delegated).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402  (the launch options, the rank wrapper, the checks)

LIMIT = 200_000_000
SKIPPED = 77


def own_cgroup(controller):
    """This process's path in the hierarchy of `controller` ("" for v2's unified line)."""
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, listed, path = line.rstrip("\n").split(":", 2)
            if (listed == "" and controller == "") or controller in listed.split(","):
                return path
    return None


def mount_point(controller):
    """Where the hierarchy of `controller` ("" for v2) is mounted, from /proc/self/mounts."""
    with open("/proc/self/mounts") as f:
        for line in f:
            _, point, kind, options = line.split()[:4]
            if (controller == "" and kind == "cgroup2") or (kind == "cgroup" and controller in options.split(",")):
                return point
    return None


def make_limited_child():
    """A new child of this process's cgroup limited to LIMIT (v2 first, then v1), or None."""
    name = f"npblu_limit_{os.getpid()}"
    for controller, limit in (("", "memory.max"), ("memory", "memory.limit_in_bytes")):
        path, root = own_cgroup(controller), mount_point(controller)
        if path is None or root is None:
            continue
        child = os.path.join(root, path.lstrip("/"), name)
        try:
            os.mkdir(child)
        except OSError:
            continue
        try:  # v2 gives the child memory.max only where the memory controller is enabled for children
            with open(os.path.join(child, limit), "w") as f:
                f.write(str(LIMIT))
            return child
        except OSError:
            os.rmdir(child)
    return None


def main():
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--np", type=int, default=2)
    argv = sys.argv[1:]
    ctx = p.parse_args(argv[:argv.index("--")])
    args = argv[argv.index("--") + 1:]
    child = make_limited_child() if os.geteuid() == 0 else None
    if not child:
        print("skipped: cannot make a memory-limited cgroup here (needs root and a memory controller)")
        sys.exit(SKIPPED)
    try:
        # The launcher and every rank start inside the child cgroup (children inherit it).
        enter = ["sh", "-c", f'echo $$ > "{child}/cgroup.procs" && exec "$@"', "sh"]
        proc, elapsed = bit.launch(ctx, ctx.np, args + ["--quiet"], outer=enter)
        expect = ("not enough memory on node ... and the node has ... available (the memory limit of cgroup "
                  f"... /{os.path.basename(child)})")
        line, elapsed = bit.check_refused(proc, elapsed, ctx.np, expect)
        print(f"refused under a {LIMIT / 1e6:.0f} MB cgroup limit in {elapsed:.2f} s: {line}")
    finally:
        os.rmdir(child)


if __name__ == "__main__":
    main()
