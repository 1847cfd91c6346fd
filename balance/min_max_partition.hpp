#pragma once
// The best whole-column partition for given per-rank costs: contiguous
// stripes in rank order, every stripe at least `min_width` columns, that
// minimise the slowest rank's time, width_r * cost_r (the min-max, or
// bottleneck, partition). Exact: the reference the balancer is judged
// against and the rounding of --weights.
#include <span>
#include <vector>

namespace npblu {

/// The smallest achievable max_r(width_r * cost_r) over whole-column widths
/// that sum to `columns` with every width >= min_width and, when
/// `max_width` is given (one per rank), width_r <= max_width[r] (what a
/// rank's memory can hold). Costs are seconds (or any unit) per column,
/// finite and > 0. Throws std::invalid_argument on bad costs or when the
/// columns cannot be split that way.
double best_bottleneck(std::span<const double> cost_per_column, int columns, int min_width,
                       std::span<const int> max_width = {});

/// Among the partitions achieving best_bottleneck, the one whose cuts lie
/// nearest the cuts of `reference` (widths summing to the same columns):
/// columns that need not move stay where they are. Each cut is clamped, in
/// rank order, into the interval every optimal partition allows it, so the
/// result moves no cut that an optimal partition can leave in place.
std::vector<int> best_widths_near(std::span<const double> cost_per_column, std::span<const int> reference,
                                  int min_width, std::span<const int> max_width = {});

/// Throws std::invalid_argument unless `max_width` is empty, or holds one
/// width per rank of `ranks`, each at least min_width, adding up to at least
/// `columns` (so that some partition fits under them).
void check_max_widths(std::span<const int> max_width, int ranks, int columns, int min_width);

/// max_r(width_r * cost_r): the time of the slowest rank.
double bottleneck(std::span<const int> widths, std::span<const double> cost_per_column);

}  // namespace npblu
