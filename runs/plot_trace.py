#!/usr/bin/python3
"""Draws a partition trace written by `lu --trace FILE.h5`.

Top: which global columns each rank owned at every iteration, as coloured
bands, with a tick at every balancing move. Below: compute and wait seconds
per rank and iteration, and, when some rank time-shared its core (a median
core share under 0.9), each rank's core share: on-CPU time over on-CPU plus
run-queue time. Beyond 12 ranks the bands get alternating shades with every
cut drawn as a line, and compute and wait become rank x iteration maps, so
64 or 1024 ranks stay readable. Needs Debian's python3-h5py and
python3-matplotlib. Traces of lu-sim (the model) have the same schema.

  runs/plot_trace.py run.h5 -o run.png
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def text(attr):
    return attr.decode() if isinstance(attr, bytes) else str(attr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    a = p.parse_args()

    try:
        f = h5py.File(a.trace, "r")
    except OSError as e:
        sys.exit(f"plot_trace: cannot open {a.trace}: {e}")
    with f:
        it = f["iterations/iteration"][:]
        begin = f["iterations/column_begin"][:]
        end = f["iterations/column_end"][:]
        compute = f["iterations/compute_seconds"][:]
        wait = f["iterations/wait_seconds"][:]
        moves = f["balance/iteration"][:]
        share = None
        if "iterations/on_cpu_seconds" in f:
            cpu = f["iterations/on_cpu_seconds"][:]
            runnable = cpu + f["iterations/run_delay_seconds"][:]
            if (runnable > 0).all():
                share = cpu / runnable
        ranks = int(f.attrs["ranks"][0])
        cls = text(f.attrs["class"])
        balance = text(f.attrs["balance"])
        grid = f.attrs["grid"]
        emulation = text(f.attrs["emulated_speeds"])
    if len(it) == 0:
        sys.exit("plot_trace: the trace holds no iterations")

    shared = share is not None and any(sorted(share[:, r])[len(it) // 2] < 0.9 for r in range(ranks))
    colours = plt.get_cmap("tab10")
    many = ranks > 12
    rows = 4 if shared else 3
    fig, axes = plt.subplots(rows, 1, figsize=(10, 8 + 2 * (rows - 3)), sharex=True,
                             gridspec_kw={"height_ratios": [2, 1, 1, 1][:rows]})
    top, mid, low = axes[:3]
    if many:
        shades = plt.get_cmap("viridis")
        for r in range(ranks):
            top.fill_between(it, begin[:, r], end[:, r], step="mid", color=shades(r / max(1, ranks - 1)),
                             alpha=0.55 if r % 2 else 0.9, lw=0)
        for r in range(ranks - 1):
            top.step(it, end[:, r], where="mid", color="black", lw=0.3)
        extent = [it[0] - 0.5, it[-1] + 0.5, -0.5, ranks - 0.5]
        for ax, values, label in ((mid, compute, "compute (ms)"), (low, wait, "wait (ms)")):
            image = ax.imshow(values.T * 1e3, aspect="auto", origin="lower", extent=extent, cmap="magma",
                              interpolation="nearest")
            ax.set_ylabel(f"rank\n{label}")
            fig.colorbar(image, ax=ax, pad=0.01, fraction=0.03)
        top.text(0.01, 0.97, f"rank 0 at the bottom, rank {ranks - 1} at the top; lines: the cuts", va="top",
                 transform=top.transAxes, fontsize="small")
    else:
        for r in range(ranks):
            top.fill_between(it, begin[:, r], end[:, r], step="mid", color=colours(r % 10), alpha=0.8,
                             label=f"rank {r}")
            mid.plot(it, compute[:, r] * 1e3, color=colours(r % 10), lw=0.8)
            low.plot(it, wait[:, r] * 1e3, color=colours(r % 10), lw=0.8)
        top.legend(loc="upper right", fontsize="small", ncol=min(ranks, 6))
        mid.set_ylabel("compute (ms)")
        low.set_ylabel("wait (ms)")
    if shared:
        for r in range(ranks):
            axes[3].plot(it, share[:, r], color=colours(r % 10), lw=0.8)
    for m in sorted(set(moves.tolist())):
        top.axvline(m + 0.5, color="red" if many else "black", lw=0.4, alpha=0.5)
    top.set_ylabel("owned columns j")
    top.set_ylim(0, grid[1] - 1)
    if shared:
        axes[3].set_ylabel("core share")
        axes[3].set_ylim(0, 1.05)
    axes[-1].set_xlabel("iteration")
    title = f"LU class {cls} ({grid[0]}x{grid[1]}x{grid[2]}), {ranks} ranks, balance {balance}"
    if emulation:
        title += f", emulated speeds {emulation if len(emulation) < 40 else emulation[:37] + '...'}"
    top.set_title(title, fontsize="medium")
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
