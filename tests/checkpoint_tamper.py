#!/usr/bin/env python3
"""Every header attribute of a checkpoint tampered in turn: each refused, naming it.

  checkpoint_tamper.py --lu LU --mpiexec MPIEXEC [--numproc-flag -n] [--mpiexec-preflags "..."]
                       --workdir DIR [--np 2]

Writes a class S checkpoint at iteration 25 (with an emulation schedule and the diffusive balancer,
so every attribute holds something), then for every root attribute of the file makes a copy with
that one attribute changed (an integer +1, a float scaled, a string with a letter added, an array
with one element changed; header_checksums with one entry dropped) and runs `lu --restart` on it:
exit status 2 on every rank, one "lu: error:" line naming the attribute, within the time limit.
The unchanged copy must restart and verify. Counts are printed: attributes found, refused.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_input_table as bit  # noqa: E402


def tampered(value):
    """The value changed in the smallest way that keeps its type."""
    if isinstance(value, (bytes, str)):
        text = value.decode() if isinstance(value, bytes) else value
        return np.bytes_(text + "x")  # a fixed-length ASCII string, as lu writes them
    array = np.array(value)
    if array.dtype.kind in "SUO":
        out = [v.decode() if isinstance(v, bytes) else str(v) for v in array.ravel()]
        out[-1] = out[-1] + "x"
        return np.array(out, dtype=f"S{max(len(s) for s in out) + 1}")
    out = array.copy().ravel()
    if out.size == 0:
        return np.array([1], dtype=array.dtype)
    if out.dtype.kind == "f":
        out[0] = out[0] * 1.5 + 0.25
    else:
        out[0] = out[0] + 1
    return out.reshape(array.shape)


def continued(ctx, base, work):
    """The restart (no options but outputs) continues the emulation schedule, the balancer and the
    trace's iteration numbers: 26..50, rank 1 slowed to 0.5 from iteration 30."""
    import h5py
    trace = os.path.join(work, "continued.h5")
    proc, _ = bit.launch(ctx, ctx.np, ["--restart", base, "--quiet", "--trace", trace])
    if [s for s, _ in bit.rank_statuses(proc)] != [0] * ctx.np:
        bit.fail("the restart with a trace failed", proc)
    with h5py.File(trace, "r") as f:
        its = list(f["iterations/iteration"][:])
        speeds = f["iterations/emulated_speed"][:]
        balance = f.attrs["balance"]
        balance = balance.decode() if isinstance(balance, bytes) else str(balance)
    if its != list(range(26, 51)):
        bit.fail(f"the restarted trace numbers iterations {its[:2]}..{its[-2:]}, not 26..50")
    at = {it: list(speeds[i]) for i, it in enumerate(its)}
    if at[29] != [1.0, 1.0] or at[30] != [1.0, 0.5] or at[50] != [1.0, 0.5]:
        bit.fail(f"the emulation did not continue: speeds at 29 {at[29]}, 30 {at[30]}, 50 {at[50]}")
    if balance != "diffusive":
        bit.fail(f"the restart's balance is {balance!r}, not the checkpoint's diffusive")
    print("restart: trace iterations 26..50, rank 1 at 0.5 from iteration 30, balance diffusive continued")


def main():
    import h5py
    p = argparse.ArgumentParser()
    bit.add_launch_arguments(p)
    p.add_argument("--workdir", required=True)
    p.add_argument("--np", type=int, default=2)
    ctx = p.parse_args()
    work = os.path.join(os.path.abspath(ctx.workdir), f"tamper_{os.getpid()}")
    os.makedirs(work)
    base = os.path.join(work, "base.h5")
    launcher = [ctx.mpiexec, *shlex.split(ctx.mpiexec_preflags), ctx.numproc_flag, str(ctx.np)]
    made = subprocess.run(launcher + [ctx.lu, "S", "--quiet", "--checkpoint", base, "--checkpoint-every", "25",
                                      "--balance", "diffusive", "--emulate-speeds", "1,1;@30:1,0.5"],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        bit.fail("could not write the checkpoint", made)
    with h5py.File(base, "r") as f:
        names = sorted(f.attrs)
    if "header_checksums" not in names or len(names) < 20:
        bit.fail(f"the checkpoint holds only the attributes {names}")
    refused = 0
    for name in names:
        path = os.path.join(work, f"t_{name}.h5")
        shutil.copyfile(base, path)
        with h5py.File(path, "r+") as f:
            if name == "header_checksums":
                entries = list(f.attrs[name])
                f.attrs[name] = np.array(entries[1:])
                expect = "'header_checksums'"
            else:
                value = f.attrs[name]
                del f.attrs[name]
                # (the class: another valid letter, so that only the checksum can tell)
                f.attrs[name] = np.bytes_("W") if name == "class" else tampered(value)
                expect = f"attribute '{name}'"
        proc, elapsed = bit.launch(ctx, ctx.np, ["--restart", path, "--quiet"])
        line, _ = bit.check_refused(proc, elapsed, ctx.np, expect)
        print(f"{name}: refused: {line}")
        refused += 1
        os.remove(path)
    proc, _ = bit.launch(ctx, ctx.np, ["--restart", base, "--quiet"])
    if [s for s, _ in bit.rank_statuses(proc)] != [0] * ctx.np or "SUCCESSFUL" not in proc.stdout:
        bit.fail("the untouched checkpoint does not restart and verify", proc)
    continued(ctx, base, work)
    shutil.rmtree(work)
    print(f"{len(names)} header attributes tampered in turn, {refused} refused naming the attribute; "
          f"the untouched file restarts")


if __name__ == "__main__":
    main()
