#!/usr/bin/python3
"""Checks what a picture drawn by runs/plot_trace.py shows, against the trace it was drawn from
(Debian's python3-h5py and python3-matplotlib).

  plot_content_check.py TRACE.h5 PICTURE.png

The top panel (found by its frame: the first two dark horizontal lines) maps columns j = 0 ..
NY-1 from bottom to top and iterations left to right.
  - up to 12 ranks: at an iteration around the middle of the run (clear of the legend, at the
    upper right, and where the partition is steady for a few iterations), each rank's band, in
    its tab10 colour, is as tall as its width then (within 2% of the panel and 3 pixels): the
    picture shows the partition;
  - more ranks, at the last iteration:
  - more ranks: the bands cover the interior (1 .. NY-2) and change shade at least once per
    two ranks, and the two maps below (compute and wait per rank and iteration) are filled
    with many colours.
The bottom panel (the last two dark horizontal lines) draws the bottleneck ratio per
iteration on plot_trace's fixed scale (RATIO_LIMITS; values above RATIO_TOP drawn at it): at
five iterations across the run, the line's pixels in that iteration's pixel column span the
trace's ratio (clipped to RATIO_TOP) within 1.5% of the scale.
"""
import os
import sys

import h5py
import matplotlib
import matplotlib.image as mpimg
import numpy as np

TOLERANCE = 0.02
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runs"))
from plot_trace import RATIO_COLOUR, RATIO_LIMITS, RATIO_TOP  # noqa: E402  (the scale and colour the picture uses)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def frame_lines(rgb):
    """The rows of the panels' horizontal frame lines, top to bottom (a line two pixels thick counts once)."""
    dark = rgb.sum(axis=2) < 0.6
    rows = np.where(dark.mean(axis=1) > 0.5)[0]
    return [r for i, r in enumerate(rows) if i == 0 or r != rows[i - 1] + 1]


def top_frame(rgb):
    """(top, bottom, left, right) of the top panel's frame: its first two dark horizontal lines
    and the dark vertical lines between them."""
    dark = rgb.sum(axis=2) < 0.6
    rows = frame_lines(rgb)
    if len(rows) < 2:
        fail("no panel frame found")
    top, bottom = rows[0], rows[1]
    cols = np.where(dark[top + 1:bottom].mean(axis=0) > 0.9)[0]
    if len(cols) < 2 or bottom - top < 100:
        fail("no panel frame found")
    return top, bottom, cols[0], cols[-1]


def data_columns(rgb, frame):
    """The first and last pixel columns of the top panel holding bands."""
    top, bottom, left, right = frame
    white = (rgb[top + 2:bottom - 1] > 0.97).all(axis=2)
    coloured = np.where((~white).mean(axis=0) > 0.5)[0]
    coloured = coloured[(coloured > left + 2) & (coloured < right - 2)]
    if len(coloured) == 0:
        fail("the top panel shows no bands")
    return coloured[0], coloured[-1]


def check_few(rgb, frame, begin, end, ny):
    """begin, end: (iterations, ranks) arrays."""
    top, bottom, _, _ = frame
    first, last = data_columns(rgb, frame)
    n = len(begin)
    for fraction in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2):
        i = round(fraction * (n - 1))
        window = range(max(0, i - 2), min(n, i + 3))
        if all((begin[k] == begin[i]).all() and (end[k] == end[i]).all() for k in window):
            break
    else:
        fail("no steady stretch of iterations to look at")
    x = int(round(first + (last - first) * i / max(1, n - 1)))
    column = rgb[top + 1:bottom, x]
    height = bottom - top - 1
    tab10 = matplotlib.colormaps["tab10"]
    for r in range(begin.shape[1]):
        colour = 0.8 * np.array(tab10(r % 10)[:3]) + 0.2  # alpha 0.8 over white
        pixels = int((np.abs(column - colour).max(axis=1) < 0.06).sum())
        expected = (end[i, r] - begin[i, r]) / (ny - 1) * height
        if abs(pixels - expected) > TOLERANCE * height + 3:
            fail(f"iteration {i + 1}: rank {r}'s band is {pixels} pixels tall, expected {expected:.0f} "
                 f"(columns {begin[i, r]}..{end[i, r] - 1})")
        print(f"iteration {i + 1}, rank {r}: band of {pixels} pixels, expected {expected:.0f} "
              f"for {end[i, r] - begin[i, r]} columns")


def check_many(rgb, frame, ranks, ny):
    top, bottom, left, right = frame
    x = data_columns(rgb, frame)[1] - 2
    column = rgb[top + 1:bottom, x]
    height = bottom - top - 1
    covered = int((~(column > 0.97).all(axis=1)).sum())
    if covered < (ny - 2) / (ny - 1) * height - 3:
        fail(f"the bands cover {covered} of {height} pixels at the last iteration")
    changes = int((np.abs(np.diff(column, axis=0)).max(axis=1) > 0.05).sum())
    if changes < ranks // 2:
        fail(f"only {changes} shade changes across {ranks} ranks' bands")
    # Below: the compute and wait maps (with the white gaps and labels between them), above the ratio panel.
    below = rgb[bottom + 20:frame_lines(rgb)[-2] - 40, left + 2:right - 1].reshape(-1, 3)
    filled = (~(below > 0.97).all(axis=1)).mean()
    colours = len(np.unique(np.round(below * 32), axis=0))
    if filled < 0.6 or colours < 20:
        fail(f"the compute and wait maps are {filled:.0%} filled with {colours} colours")
    print(f"{ranks} ranks: bands cover {covered}/{height} pixels with {changes} shade changes; "
          f"maps {filled:.0%} filled with {colours} colours")


def check_ratio(rgb, frame, ratio):
    """The bottom panel's line passes through each sampled iteration's ratio."""
    lines = frame_lines(rgb)
    top, bottom = lines[-2], lines[-1]
    if len(lines) < 4 or bottom - top < 50:
        fail("no ratio panel found below the others")
    first, last = data_columns(rgb, frame)
    grey = np.array(matplotlib.colors.to_rgb(RATIO_COLOUR))
    n = len(ratio)
    for fraction in (0.1, 0.3, 0.5, 0.7, 0.9):
        i = round(fraction * (n - 1))
        if not np.isfinite(ratio[i]):
            continue
        x = int(round(first + (last - first) * i / max(1, n - 1)))
        column = rgb[top + 2:bottom - 1, x]
        # the line's pixels: its grey, or lighter shades of it where antialiased (not the red bar)
        on_line = (np.abs(column - grey).max(axis=1) < 0.25) & (np.ptp(column, axis=1) < 0.08)
        ys = np.where(on_line)[0] + top + 2
        if len(ys) == 0:
            fail(f"iteration {i + 1}: no ratio line in pixel column {x}")
        low, high = RATIO_LIMITS
        scale = high - low
        values = low + scale * (bottom - ys) / (bottom - top)
        # Where the line is steep, a pixel of rounding in x moves it: the values the line takes
        # within 1.5 pixels either side of the iteration (interpolated as drawn) all count.
        reach = 1.5 * max(1, n - 1) / max(1, last - first)
        near = np.interp([i - reach, i, i + reach], np.arange(n), np.minimum(ratio, RATIO_TOP))
        near = near[np.isfinite(near)]  # the iteration's own value is finite (above)
        slack = 0.015 * scale
        if not (values.min() - slack <= near.max() and near.min() <= values.max() + slack):
            fail(f"iteration {i + 1}: the ratio line spans {values.min():.3f}-{values.max():.3f}, "
                 f"the trace holds {ratio[i]:.4f}")
        print(f"iteration {i + 1}: ratio {ratio[i]:.4f}, line at {values.min():.3f}-{values.max():.3f}")


def main():
    trace, picture = sys.argv[1:3]
    with h5py.File(trace, "r") as f:
        begin = f["iterations/column_begin"][:]
        end = f["iterations/column_end"][:]
        ratio = f["iterations/bottleneck_ratio"][:]
        ny = int(f.attrs["grid"][1])
    rgb = mpimg.imread(picture)[:, :, :3]
    frame = top_frame(rgb)
    if begin.shape[1] <= 12:
        check_few(rgb, frame, begin, end, ny)
    else:
        check_many(rgb, frame, begin.shape[1], ny)
    check_ratio(rgb, frame, ratio)


if __name__ == "__main__":
    main()
