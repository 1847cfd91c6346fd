"""The best whole-column partition, computed independently of balance/min_max_partition.

bottleneck(widths, speeds) = max_r width_r / speed_r: the time of the slowest stripe.
best_bottleneck(n, speeds, min_width): the smallest bottleneck over all partitions of n
columns into len(speeds) stripes of at least min_width columns. A bottleneck T is reachable
iff every rank can hold min_width columns within T and together they can hold n:
floor(T * s_r) >= min_width for all r and sum_r floor(T * s_r) >= n. The best T is one of
the values w / s_r: a binary search over them.
"""
import math


def bottleneck(widths, speeds):
    return max(w / s for w, s in zip(widths, speeds))


def _fits(t, n, speeds, min_width):
    caps = [math.floor(t * s * (1 + 1e-12)) for s in speeds]
    return all(c >= min_width for c in caps) and sum(caps) >= n


def best_bottleneck(n, speeds, min_width=2):
    candidates = sorted({w / s for s in speeds for w in range(min_width, n + 1)})
    lo, hi = 0, len(candidates) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _fits(candidates[mid], n, speeds, min_width):
            hi = mid
        else:
            lo = mid + 1
    return candidates[lo]


def quality(widths, speeds, min_width=2):
    """The bottleneck ratio: bottleneck(widths) / the best partition's (1.0 is the best)."""
    return bottleneck(widths, speeds) / best_bottleneck(sum(widths), speeds, min_width)


def equal_widths(n, ranks):
    """The default partition: equal widths, the remainder one column each to the lowest ranks."""
    return [n // ranks + (1 if r < n % ranks else 0) for r in range(ranks)]
