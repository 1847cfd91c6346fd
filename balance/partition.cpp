#include "balance/partition.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "balance/min_max_partition.hpp"
#include "balance/parse_number.hpp"

namespace npblu {

namespace {

// A column's cost on a rank 1e-200 (or less) of the heaviest's weight: held
// at the minimum width anyway, and finite so that width * cost is.
constexpr double kLargestCost = 1e200;

void check_fits(ColumnRange interior, int ranks, int min_width) {
  if (ranks < 1) throw std::invalid_argument("a partition needs at least one rank");
  if (min_width < 1) throw std::invalid_argument("minimum column width must be at least 1");
  const int max = Partition::max_ranks(interior, min_width);
  if (ranks > max) {
    throw std::invalid_argument("too many ranks: " + std::to_string(ranks) + " ranks cannot split " +
                                std::to_string(interior.width()) + " interior columns with at least " +
                                std::to_string(min_width) + " columns each (at most " + std::to_string(max) +
                                (max == 1 ? " rank)" : " ranks)"));
  }
}

}  // namespace

Partition::Partition(ColumnRange interior, std::span<const int> widths) : interior_(interior) {
  ranges_.reserve(widths.size());
  int begin = interior.begin;
  for (int w : widths) {
    ranges_.push_back({begin, begin + w});
    begin += w;
  }
}

int Partition::max_ranks(ColumnRange interior, int min_width) {
  return min_width > 0 ? interior.width() / min_width : 0;
}

Partition Partition::equal(ColumnRange interior, int ranks, int min_width) {
  check_fits(interior, ranks, min_width);
  const int n = interior.width();
  std::vector<int> widths(ranks, n / ranks);
  for (int r = 0; r < n % ranks; ++r) ++widths[r];
  return Partition(interior, widths);
}

Partition Partition::from_weights(ColumnRange interior, std::span<const double> weights, int min_width) {
  const int ranks = static_cast<int>(weights.size());
  check_fits(interior, ranks, min_width);
  for (std::size_t r = 0; r < weights.size(); ++r) {
    if (!std::isfinite(weights[r]) || weights[r] <= 0.0) {
      throw std::invalid_argument("weight of rank " + std::to_string(r) +
                                  " must be a positive finite number, got " + number_text(weights[r]));
    }
  }
  // Relative to the heaviest, in (0, 1]: their sum cannot overflow (1e308
  // twice) and the costs below stay finite where it can (1e300 and 1e-300).
  const double heaviest = *std::max_element(weights.begin(), weights.end());
  std::vector<double> relative(ranks);
  for (int r = 0; r < ranks; ++r) relative[r] = weights[r] / heaviest;  // may underflow to 0
  const double total = std::accumulate(relative.begin(), relative.end(), 0.0);
  const int n = interior.width();
  std::vector<int> widths(ranks);
  std::vector<double> remainder(ranks);
  int assigned = 0;
  for (int r = 0; r < ranks; ++r) {
    const double share = n * (relative[r] / total);
    widths[r] = static_cast<int>(std::floor(share));
    remainder[r] = share - widths[r];
    assigned += widths[r];
  }
  // Largest remainder first; stable so ties go to the lower rank.
  std::vector<int> order(ranks);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return remainder[a] > remainder[b]; });
  for (int t = 0; assigned < n; ++t, ++assigned) ++widths[order[t % ranks]];
  // Raise thin stripes to the minimum, one column at a time from the rank
  // furthest over its share (largest width / weight; lowest rank among
  // equals, so the result stays deterministic). Taking from the widest
  // instead could leave a heavier rank narrower than a lighter one: the
  // min-max step below keeps that whenever a raised rank is the bottleneck.
  const auto most_over_share = [&] {
    int most = -1;
    for (int r = 0; r < ranks; ++r) {
      if (widths[r] <= min_width) continue;
      if (most < 0 || widths[r] / weights[r] > widths[most] / weights[most]) most = r;
    }
    return most;
  };
  for (int r = 0; r < ranks; ++r) {
    while (widths[r] < min_width) {
      --widths[most_over_share()];  // some rank is above the minimum: check_fits
      ++widths[r];
    }
  }
  // Rounding can leave the slowest rank a column more than it needs: the
  // best whole-column partition for costs 1 / weight, nearest the rounded
  // widths (which it keeps wherever they are already optimal, so equal
  // weights still give Partition::equal).
  std::vector<double> cost(ranks);
  for (int r = 0; r < ranks; ++r) cost[r] = std::min(1.0 / relative[r], kLargestCost);
  widths = best_widths_near(cost, widths, min_width);
  return Partition(interior, widths);
}

Partition Partition::from_widths(ColumnRange interior, std::span<const int> widths, int min_width) {
  const int ranks = static_cast<int>(widths.size());
  check_fits(interior, ranks, min_width);
  long long sum = 0;
  for (std::size_t r = 0; r < widths.size(); ++r) {
    if (widths[r] < min_width) {
      throw std::invalid_argument("column width " + std::to_string(widths[r]) + " of rank " +
                                  std::to_string(r) + " is below the minimum width " +
                                  std::to_string(min_width));
    }
    sum += widths[r];
  }
  if (sum != interior.width()) {
    throw std::invalid_argument("column widths sum to " + std::to_string(sum) + " but the grid has " +
                                std::to_string(interior.width()) + " interior columns");
  }
  return Partition(interior, widths);
}

std::vector<int> Partition::widths() const {
  std::vector<int> w;
  w.reserve(ranges_.size());
  for (const auto& r : ranges_) w.push_back(r.width());
  return w;
}

int Partition::owner_of(int j) const {
  const auto it = std::upper_bound(ranges_.begin(), ranges_.end(), j,
                                   [](int col, const ColumnRange& r) { return col < r.end; });
  if (it == ranges_.end() || !it->contains(j)) throw std::out_of_range("column outside the interior");
  return static_cast<int>(it - ranges_.begin());
}

std::string Partition::to_string() const {
  std::string s;
  for (const auto& r : ranges_) {
    if (!s.empty()) s += ',';
    s += std::to_string(r.width());
  }
  return s;
}

}  // namespace npblu
