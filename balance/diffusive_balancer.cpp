#include "balance/diffusive_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npblu {

namespace {
// Imbalance, in columns, below which a boundary stays put: per-iteration
// timings on a shared node jitter by several percent, i.e. about a column.
constexpr double kDeadBand = 1.5;
}  // namespace

void validate(const BalancerSettings& s) {
  if (s.every < 1) throw std::invalid_argument("--balance-every must be at least 1");
  if (!(s.threshold >= 0.0) || !std::isfinite(s.threshold)) {
    throw std::invalid_argument("--balance-threshold must be a non-negative number");
  }
  if (!(s.damping > 0.0 && s.damping <= 1.0))
    throw std::invalid_argument("--balance-damping must be in (0, 1]");
}

DiffusiveBalancer::DiffusiveBalancer(BalancerSettings settings) : settings_(settings) { validate(settings_); }

double DiffusiveBalancer::equalising_shift(int width_r, const RankWindow& r, int width_next,
                                           const RankWindow& next) {
  const double cost_r = r.compute / width_r;  // seconds per column
  const double cost_next = next.compute / width_next;
  if (!(cost_r > 0.0) || !(cost_next > 0.0)) return 0.0;
  // (width_r - d) cost_r == (width_next + d) cost_next
  return (width_r * cost_r - width_next * cost_next) / (cost_r + cost_next);
}

BalanceDecision DiffusiveBalancer::decide(const Partition& current, std::span<const RankWindow> window) {
  const int ranks = current.ranks();
  if (static_cast<int>(window.size()) != ranks) throw std::invalid_argument("one window per rank needed");
  const std::vector<int> widths = current.widths();
  double window_time = 0.0;
  for (const auto& w : window) window_time = std::max(window_time, w.compute + w.wait);

  std::vector<int> moves(std::max(0, ranks - 1), 0);
  last_direction_.resize(moves.size(), 0);
  for (int b = 0; b + 1 < ranks; ++b) {
    const RankWindow& left = window[b];
    const RankWindow& right = window[b + 1];
    // The faster neighbour waits longer; too small a difference is noise.
    const double wait_gap = right.wait - left.wait;  // > 0: left is the slower one
    if (std::fabs(wait_gap) <= settings_.threshold * window_time) continue;
    const double shift = equalising_shift(widths[b], left, widths[b + 1], right);
    // Act only when the compute costs agree with the wait signal, and on at
    // least one whole column of imbalance (the dead band that stops a
    // balanced pair from trading a column back and forth).
    const int direction = shift > 0 ? 1 : -1;
    const double dead_band = direction == -last_direction_[b] ? 2.0 * kDeadBand : kDeadBand;
    if (std::fabs(shift) < dead_band || (shift > 0) != (wait_gap > 0)) continue;
    const int damped = std::max(1, static_cast<int>(std::lround(settings_.damping * std::fabs(shift))));
    moves[b] = shift > 0 ? damped : -damped;
  }

  // All boundaries move at once; shrink moves (toward zero) until every
  // stripe keeps the minimum width. Deterministic: lowest rank first.
  auto width_after = [&](int r) {
    int w = widths[r];
    if (r > 0) w += moves[r - 1];      // positive move at b=r-1 gives r columns
    if (r + 1 < ranks) w -= moves[r];  // positive move at b=r takes columns from r
    return w;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int r = 0; r < ranks; ++r) {
      while (width_after(r) < settings_.min_width) {
        // Undo one column of whichever move takes from r.
        if (r + 1 < ranks && moves[r] > 0) {
          --moves[r];
        } else if (r > 0 && moves[r - 1] < 0) {
          ++moves[r - 1];
        } else {
          break;  // cannot happen from a valid partition
        }
        changed = true;
      }
    }
  }

  std::vector<int> next(ranks);
  int moved = 0;
  for (int r = 0; r < ranks; ++r) next[r] = width_after(r);
  for (std::size_t b = 0; b < moves.size(); ++b) {
    moved += std::abs(moves[b]);
    if (moves[b] != 0) last_direction_[b] = moves[b] > 0 ? 1 : -1;
  }
  return {Partition::from_widths(current.interior(), next, settings_.min_width), moves, moved};
}

}  // namespace npblu
