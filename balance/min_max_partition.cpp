#include "balance/min_max_partition.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace npblu {

namespace {

void check_inputs(std::span<const double> cost, int columns, int min_width) {
  if (cost.empty()) throw std::invalid_argument("a partition needs at least one rank");
  if (min_width < 1) throw std::invalid_argument("minimum column width must be at least 1");
  for (std::size_t r = 0; r < cost.size(); ++r) {
    if (!std::isfinite(cost[r]) || cost[r] <= 0.0) {
      throw std::invalid_argument("cost of rank " + std::to_string(r) + " must be a positive finite number");
    }
  }
  if (static_cast<long long>(cost.size()) * min_width > columns) {
    throw std::invalid_argument("too many ranks: " + std::to_string(cost.size()) + " ranks cannot split " +
                                std::to_string(columns) + " columns with at least " +
                                std::to_string(min_width) + " each");
  }
}

}  // namespace

void check_max_widths(std::span<const int> max_width, int ranks, int columns, int min_width) {
  if (max_width.empty()) return;
  if (static_cast<int>(max_width.size()) != ranks)
    throw std::invalid_argument("one maximum width per rank needed: " + std::to_string(ranks) + " ranks, " +
                                std::to_string(max_width.size()) + " maximum widths");
  long long total = 0;
  for (int r = 0; r < ranks; ++r) {
    if (max_width[r] < min_width)
      throw std::invalid_argument("the maximum width of rank " + std::to_string(r) + " (" +
                                  std::to_string(max_width[r]) + ") is below the minimum width (" +
                                  std::to_string(min_width) + ")");
    total += max_width[r];
  }
  if (total < columns)
    throw std::invalid_argument("the ranks' maximum widths add up to " + std::to_string(total) +
                                " columns, fewer than the " + std::to_string(columns) + " to split");
}

namespace {

// Most columns rank r can take without exceeding `limit` (a hair of relative
// slack so that a limit equal to some width * cost admits that width), at
// most `columns`: compared as a double first, since limit / cost can exceed
// any integer (a cheap rank beside one of cost 1e200).
long long capacity(double cost, double limit, long long columns) {
  const double fit = std::floor(limit / cost * (1.0 + 1e-12));
  return fit >= static_cast<double>(columns) ? columns : static_cast<long long>(fit);
}

}  // namespace

double bottleneck(std::span<const int> widths, std::span<const double> cost) {
  double worst = 0.0;
  for (std::size_t r = 0; r < widths.size(); ++r) worst = std::max(worst, widths[r] * cost[r]);
  return worst;
}

namespace {

// The continuous optimum: the level T at which widths max(min_width,
// T / cost_r) sum to `columns` (water filling; ranks that would get less
// than min_width are held there). No whole-column partition is below it.
double water_level(std::span<const double> cost, int columns, int min_width) {
  std::vector<bool> held(cost.size(), false);
  long long held_count = 0;
  for (;;) {
    double inverse_sum = 0.0;
    for (std::size_t r = 0; r < cost.size(); ++r)
      if (!held[r]) inverse_sum += 1.0 / cost[r];
    const double level = static_cast<double>(columns - held_count * min_width) / inverse_sum;
    bool more = false;
    for (std::size_t r = 0; r < cost.size(); ++r) {
      if (held[r] || level / cost[r] > min_width) continue;
      held[r] = more = true;
      ++held_count;
    }
    // (holding a rank only lowers the level: repeat until none is newly held)
    if (!more || held_count == static_cast<long long>(cost.size())) return level;
  }
}

// The largest time once `left` more columns are handed out greedily to
// ranks already `width` wide, each to the rank that would finish it soonest.
// (Ranks at their maximum width, if any, take no more.)
double greedy_from(std::span<const double> cost, std::vector<long long> width, long long left,
                   std::span<const int> max_width = {}) {
  const auto full = [&](int r) { return !max_width.empty() && width[r] >= max_width[r]; };
  double worst = 0.0;
  using Entry = std::pair<double, int>;  // time with one more column, rank
  std::vector<Entry> entries;
  entries.reserve(cost.size());
  for (int r = 0; r < static_cast<int>(cost.size()); ++r) {
    worst = std::max(worst, static_cast<double>(width[r]) * cost[r]);
    if (!full(r)) entries.push_back({static_cast<double>(width[r] + 1) * cost[r], r});
  }
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> next(std::greater<>{}, std::move(entries));
  for (; left > 0 && !next.empty(); --left) {
    const int r = next.top().second;
    worst = std::max(worst, next.top().first);
    next.pop();
    ++width[r];
    if (!full(r)) next.push({static_cast<double>(width[r] + 1) * cost[r], r});
  }
  return worst;
}

// best_bottleneck under maximum widths. The widths a level T allows,
// clamp(floor(T / cost_r), min_width, max_width_r), grow with T: bisect for
// the highest level whose widths do not exceed the columns (all the times
// up to it are then among the smallest ones handed out), and hand out the
// few columns left greedily, as without maximum widths.
double capped_bottleneck(std::span<const double> cost, int columns, int min_width,
                         std::span<const int> max_width) {
  const auto widths_at = [&](double level, std::vector<long long>& width) {
    long long total = 0;
    for (std::size_t r = 0; r < cost.size(); ++r) {
      const double fit = std::min(std::floor(level / cost[r]), static_cast<double>(max_width[r]));
      width[r] = std::max<long long>(min_width, static_cast<long long>(fit));
      total += width[r];
    }
    return total;
  };
  std::vector<long long> width(cost.size());
  double low = 0.0, high = 0.0;
  for (std::size_t r = 0; r < cost.size(); ++r) high = std::max(high, max_width[r] * cost[r]);
  for (int i = 0; i < 100 && low < high; ++i) {
    const double mid = 0.5 * (low + high);
    if (mid <= low || mid >= high) break;
    (widths_at(mid, width) <= columns ? low : high) = mid;
  }
  const long long given = widths_at(low, width);
  return greedy_from(cost, std::move(width), columns - given, max_width);
}

}  // namespace

double best_bottleneck(std::span<const double> cost, int columns, int min_width,
                       std::span<const int> max_width) {
  check_inputs(cost, columns, min_width);
  check_max_widths(max_width, static_cast<int>(cost.size()), columns, min_width);
  if (!max_width.empty()) return capped_bottleneck(cost, columns, min_width, max_width);
  // Greedy exchange argument: start every rank at the minimum width and
  // give each further column to the rank that would finish it soonest. The
  // max of increasing per-rank times is minimised by exactly this order:
  // the answer is the largest of the `extra` smallest times w * cost_r
  // (w > min_width). All such times at or below the water level are among
  // them (there are at most `extra`): they are taken at once and the heap
  // hands out the few left (about one per rank), O(P log P) work whatever
  // the column count.
  const long long ranks = static_cast<long long>(cost.size());
  const long long extra = columns - ranks * min_width;
  std::vector<long long> width(cost.size(), min_width);
  if (extra == 0) return greedy_from(cost, width, 0);
  const double level = water_level(cost, columns, min_width);
  long long left = extra;
  for (std::size_t r = 0; r < cost.size(); ++r) {
    long long w = std::max<long long>(min_width, static_cast<long long>(std::floor(level / cost[r])));
    while (w > min_width && static_cast<double>(w) * cost[r] > level) --w;  // the division's rounding
    width[r] = w;
    left -= w - min_width;
  }
  // (left < 0 only if the level's own rounding put it above the optimum)
  return left >= 0 ? greedy_from(cost, width, left)
                   : greedy_from(cost, std::vector<long long>(cost.size(), min_width), extra);
}

std::vector<int> best_widths_near(std::span<const double> cost, std::span<const int> reference, int min_width,
                                  std::span<const int> max_width) {
  if (reference.size() != cost.size()) throw std::invalid_argument("one reference width per rank needed");
  const int ranks = static_cast<int>(cost.size());
  const int columns = std::accumulate(reference.begin(), reference.end(), 0);
  const double limit = best_bottleneck(cost, columns, min_width, max_width);
  std::vector<long long> cap(ranks);
  for (int r = 0; r < ranks; ++r) {
    cap[r] = capacity(cost[r], limit, columns);
    if (!max_width.empty()) cap[r] = std::min<long long>(cap[r], max_width[r]);
  }
  // Cut b is the end of rank b's stripe (prefix sum of widths). Every
  // optimal partition has min_width <= width_r <= cap_r, hence cut b within
  // [max(prefix of minima, columns - suffix of capacities),
  //  min(prefix of capacities, columns - suffix of minima)].
  std::vector<long long> suffix_cap(ranks + 1, 0);
  for (int r = ranks - 1; r >= 0; --r) suffix_cap[r] = suffix_cap[r + 1] + cap[r];
  std::vector<int> widths(ranks);
  long long previous = 0, prefix_cap = 0, reference_cut = 0;
  for (int b = 0; b + 1 < ranks; ++b) {
    prefix_cap += cap[b];
    reference_cut += reference[b];
    const long long lo = std::max(
        {static_cast<long long>(b + 1) * min_width, columns - suffix_cap[b + 1], previous + min_width});
    const long long hi = std::min(
        {prefix_cap, columns - static_cast<long long>(ranks - 1 - b) * min_width, previous + cap[b]});
    const long long cut = std::clamp(reference_cut, lo, std::max(lo, hi));
    widths[b] = static_cast<int>(cut - previous);
    previous = cut;
  }
  widths[ranks - 1] = static_cast<int>(columns - previous);
  return widths;
}

}  // namespace npblu
