#!/usr/bin/python3
"""Draws a partition trace written by `lu --trace FILE.h5`.

Top: which global columns each rank owned at every iteration, as coloured
bands, with a tick at every balancing move. Below: compute and wait
seconds per rank and iteration, and, when some rank time-shared its core
(the report's rule: over the whole run, on-CPU time over on-CPU plus
run-queue time under 0.9), each rank's core share per iteration. Bottom:
the balance quality of every iteration, the bottleneck ratio (max over
ranks of width / speed over the same for the best whole-column partition;
1: no stripes could do better), on a fixed scale up to 1.5 with a dashed
line at 1.05; iterations above 1.5 are drawn at the top and counted above
the panel (which also says where ranks time-shared their cores: speeds
read by the wall clock then depend on each other's work). Beyond 12 ranks
the bands get alternating shades with every cut drawn as a line, and
compute and wait become rank x iteration maps, so 64 or 1024 ranks stay
readable. Needs Debian's python3-h5py and python3-matplotlib. Traces of
lu-sim (the model) have the same schema.

  /usr/bin/python3 runs/plot_trace.py run.h5 -o run.png   # the Python with h5py and matplotlib
"""
import argparse
import os
import sys
import tempfile

try:
    import h5py
    import numpy as np
    import matplotlib
except ImportError as missing:  # another python3 first on the PATH (a pyenv, a venv): one line, not a traceback
    sys.exit(f"plot_trace: {sys.executable} has no {missing.name}: run it with the Python that has "
             "h5py and matplotlib (Debian: apt install python3-h5py python3-matplotlib, then /usr/bin/python3 "
             "runs/plot_trace.py ...)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# The ratio panel's fixed scale (tests/plot_content_check.py reads it so): ratios above RATIO_TOP
# are drawn at RATIO_TOP; the limits reach a little past 1 and RATIO_TOP so that both are drawn
# clear of the frame.
RATIO_TOP = 1.5
RATIO_LIMITS = (0.98, 1.52)
RATIO_BAR = 1.05
RATIO_COLOUR = "#404040"
# A rank with less of its core than this over the run time-shared it: lu's report says so at the
# same threshold (kWholeCoreShare, balance/diffusive_balancer.hpp), from the same sums.
WHOLE_CORE_SHARE = 0.9


def text(attr):
    return attr.decode() if isinstance(attr, bytes) else str(attr)


def read_trace(path):
    """The trace's datasets and attributes as a dict (exits with a message when it cannot be read)."""
    if os.path.isdir(path):
        sys.exit(f"plot_trace: {path} is a directory, not a trace file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        reason = " ".join(str(e).split())  # (HDF5's text may hold newlines: one line)
        hint = ""
        # HDF5 says "unable to lock file" for a file a live run holds ("sblock", a truncated file's, is no lock).
        if "unable to lock" in reason.lower() and os.environ.get("HDF5_USE_FILE_LOCKING", "").upper() != "FALSE":
            hint = (" (a run is still writing it: HDF5_USE_FILE_LOCKING=FALSE lets this reader draw what it "
                    "has flushed so far, docs/checkpoints.md)")
        sys.exit(f"plot_trace: cannot open {path}: {reason}{hint}")
    with f:
        try:
            return trace_contents(f)
        except KeyError as e:  # a checkpoint, or another HDF5 file
            sys.exit(f"plot_trace: {path} is not a partition trace of lu or lu-sim (no {e.args[0]})")


def trace_contents(f):
    """read_trace's dict from an open trace; KeyError names what it lacks."""
    for name in ("iterations/iteration", "iterations/column_begin", "iterations/column_end",
                 "iterations/compute_seconds", "iterations/wait_seconds", "balance/iteration"):
        if name not in f:
            raise KeyError(name)
    t = {k: f["iterations/" + k][:] for k in ("iteration", "column_begin", "column_end",
                                               "compute_seconds", "wait_seconds")}
    t["moves"] = f["balance/iteration"][:]
    t["share"], t["shared"] = None, False
    if "iterations/on_cpu_seconds" in f:
        cpu = f["iterations/on_cpu_seconds"][:]
        runnable = cpu + f["iterations/run_delay_seconds"][:]
        # The report's rule (RunHistory::lowest_core_share): each rank's share over the whole
        # run, 1 where nothing was measured.
        total_cpu, total_runnable = cpu.sum(axis=0), runnable.sum(axis=0)
        whole_run = np.where(total_runnable > 0, total_cpu / np.maximum(total_runnable, 1e-300), 1.0)
        t["shared"] = bool((whole_run < WHOLE_CORE_SHARE).any())
        if (runnable > 0).all():
            t["share"] = cpu / runnable
    # Traces written before the ratio was recorded have no such dataset: no bottom panel.
    t["ratio"] = f["iterations/bottleneck_ratio"][:] if "iterations/bottleneck_ratio" in f else None
    t["ranks"] = int(f.attrs["ranks"][0])
    for k in ("class", "balance", "emulated_speeds"):
        t[k] = text(f.attrs[k])
    t["grid"] = f.attrs["grid"]
    if len(t["iteration"]) == 0:
        sys.exit("plot_trace: the trace holds no iterations")
    return t


def output_path(name):
    """The PNG that -o names, checked before anything is drawn: a .png name in a directory that
    exists (matplotlib would add .png to a name without it, and fail only after drawing)."""
    if not name.lower().endswith(".png"):
        sys.exit(f"plot_trace: -o {name!r}: the picture is a PNG; give a name ending in .png")
    folder = os.path.dirname(os.path.abspath(name))
    if os.path.isdir(name) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        sys.exit(f"plot_trace: -o {name!r}: cannot write a file there")
    return name


def save_whole(fig, name):
    """Writes the picture beside `name` and renames it into place: a full disk or an unwritable place
    gives one line and leaves a previous picture whole."""
    folder = os.path.dirname(os.path.abspath(name))
    try:
        fd, aside = tempfile.mkstemp(prefix=os.path.basename(name) + ".", suffix=".tmp", dir=folder)
    except OSError as e:
        sys.exit(f"plot_trace: -o {name!r}: cannot write a file there ({e.strerror})")
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.fchmod(fd, 0o666 & ~umask)  # (mkstemp's 0600: the picture is as readable as any new file)
        with os.fdopen(fd, "wb") as out:
            fig.savefig(out, dpi=110, format="png")
        os.replace(aside, name)
    except OSError as e:
        os.unlink(aside)
        sys.exit(f"plot_trace: -o {name!r}: cannot write it ({e.strerror}); a previous picture there is untouched")


def draw_many(fig, axes, t):
    """Beyond 12 ranks: shaded bands with the cuts as lines, compute and wait as rank x iteration maps."""
    top, mid, low = axes[:3]
    it, begin, end, ranks = t["iteration"], t["column_begin"], t["column_end"], t["ranks"]
    shades = plt.get_cmap("viridis")
    for r in range(ranks):
        top.fill_between(it, begin[:, r], end[:, r], step="mid", color=shades(r / max(1, ranks - 1)),
                         alpha=0.55 if r % 2 else 0.9, lw=0)
    for r in range(ranks - 1):
        top.step(it, end[:, r], where="mid", color="black", lw=0.3)
    extent = [it[0] - 0.5, it[-1] + 0.5, -0.5, ranks - 0.5]
    for ax, values, label in ((mid, t["compute_seconds"], "compute (ms)"), (low, t["wait_seconds"], "wait (ms)")):
        image = ax.imshow(values.T * 1e3, aspect="auto", origin="lower", extent=extent, cmap="magma",
                          interpolation="nearest")
        ax.set_ylabel(f"rank\n{label}")
        # outside the map's frame, so the maps keep the width (and iterations) of the panels above and below
        fig.colorbar(image, cax=ax.inset_axes([1.01, 0, 0.015, 1]))
    top.text(0.01, 0.97, f"rank 0 at the bottom, rank {ranks - 1} at the top; lines: the cuts", va="top",
             transform=top.transAxes, fontsize="small")


def draw_few(axes, t, colours):
    """Up to 12 ranks: a coloured band and a compute and a wait line per rank."""
    top, mid, low = axes[:3]
    it = t["iteration"]
    for r in range(t["ranks"]):
        top.fill_between(it, t["column_begin"][:, r], t["column_end"][:, r], step="mid", color=colours(r % 10),
                         alpha=0.8, label=f"rank {r}")
        mid.plot(it, t["compute_seconds"][:, r] * 1e3, color=colours(r % 10), lw=0.8)
        low.plot(it, t["wait_seconds"][:, r] * 1e3, color=colours(r % 10), lw=0.8)
    top.legend(loc="upper right", fontsize="small", ncol=min(t["ranks"], 6))
    mid.set_ylabel("compute (ms)")
    low.set_ylabel("wait (ms)")


def draw_ratio(ax, it, ratio, shared):
    """The bottleneck ratio per iteration on a fixed scale, values above RATIO_TOP at the top.
    `shared`: some rank time-shared its core, where speeds read by the wall clock depend on the
    other ranks' work (as lu's report says), so the ratio measures the run, not the stripes."""
    shown = np.minimum(ratio, RATIO_TOP)
    ax.axhline(RATIO_BAR, color="tab:red", lw=0.8, ls="--")
    ax.plot(it, shown, color=RATIO_COLOUR, lw=0.9)
    ax.set_ylim(*RATIO_LIMITS)
    ax.set_ylabel("bottleneck /\nbest partition")
    finite = ratio[np.isfinite(ratio)]
    above = int((finite > RATIO_TOP).sum())
    if above:  # said above the panel, where no text can be mistaken for the line
        counted = f"{above} iteration{'s' if above > 1 else ''} above {RATIO_TOP}"
        ax.set_title(f"{counted} (at most {finite.max():.2f}), drawn at the top",
                     loc="right", fontsize="small")
    if shared:
        ax.set_title("ranks time-shared cores: wall-clock speeds, not a quality of the stripes",
                     loc="left", fontsize="small")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace")
    p.add_argument("-o", "--output", required=True, help="PNG to write")
    a = p.parse_args()
    output = output_path(a.output)
    t = read_trace(a.trace)
    it, ranks, share, ratio = t["iteration"], t["ranks"], t["share"], t["ratio"]

    shared = t["shared"] and share is not None
    colours = plt.get_cmap("tab10")
    many = ranks > 12
    rows = 3 + int(shared) + int(ratio is not None)
    fig, axes = plt.subplots(rows, 1, figsize=(10, 8 + 2 * (rows - 3)), sharex=True,
                             gridspec_kw={"height_ratios": [2] + [1] * (rows - 1)})
    top = axes[0]
    if many:
        draw_many(fig, axes, t)
    else:
        draw_few(axes, t, colours)
    if shared:
        for r in range(ranks):
            axes[3].plot(it, share[:, r], color=colours(r % 10), lw=0.8)
        axes[3].set_ylabel("core share")
        axes[3].set_ylim(0, 1.05)
    if ratio is not None:
        draw_ratio(axes[-1], it, ratio, shared)
    for m in sorted(set(t["moves"].tolist())):
        top.axvline(m + 0.5, color="red" if many else "black", lw=0.4, alpha=0.5)
    grid = t["grid"]
    top.set_ylabel("owned columns j")
    top.set_ylim(0, grid[1] - 1)
    axes[-1].set_xlabel("iteration")
    title = f"LU class {t['class']} ({grid[0]}x{grid[1]}x{grid[2]}), {ranks} ranks, balance {t['balance']}"
    emulation = t["emulated_speeds"]
    if emulation:
        title += f", emulated speeds {emulation if len(emulation) < 40 else emulation[:37] + '...'}"
    top.set_title(title, fontsize="medium")
    fig.tight_layout()
    save_whole(fig, output)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
