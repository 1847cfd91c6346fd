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
// How far host jitter on a shared machine moves the equalising shift, as a
// fraction of the pair's columns (measured: up to 0.085 for tens of iterations).
constexpr double kJitterFraction = 0.1;
// Floor of a boundary's adaptive gain: even a boundary that keeps reversing
// can still follow a real change, at an eighth of the speed.
constexpr double kMinimumGain = 0.125;
// A rank that gets less of its core than kSharedCore is time-sharing it;
// one that gets more than kWholeCore has it to itself.
constexpr double kSharedCore = 0.8;
constexpr double kWholeCore = 0.9;
}  // namespace

void validate(const BalancerSettings& s) {
  if (s.every < 1) throw std::invalid_argument("--balance-every must be at least 1");
  if (!(s.threshold >= 0.0) || !std::isfinite(s.threshold)) {
    throw std::invalid_argument("--balance-threshold must be a non-negative number");
  }
  if (!(s.damping > 0.0 && s.damping <= 1.0))
    throw std::invalid_argument("--balance-damping must be in (0, 1]");
  if (s.persistence < 1) throw std::invalid_argument("balancer persistence must be at least 1 window");
}

DiffusiveBalancer::DiffusiveBalancer(BalancerSettings settings) : settings_(settings) { validate(settings_); }

RankWindow DiffusiveBalancer::effective(const RankWindow& measured, double share) {
  // Daemons and the launcher take a few percent of any core now and then:
  // below a tenth that is noise, not a shared core.
  share = std::isfinite(share) && share < kWholeCore ? std::max(share, 0.05) : 1.0;
  const double compute = measured.compute / share;
  return {compute, std::max(0.0, measured.compute + measured.wait - compute), 1.0};
}

double DiffusiveBalancer::equalising_shift(int width_r, const RankWindow& r, int width_next,
                                           const RankWindow& next) {
  const double cost_r = r.compute / width_r;  // seconds per column
  const double cost_next = next.compute / width_next;
  if (!(cost_r > 0.0) || !(cost_next > 0.0)) return 0.0;
  // (width_r - d) cost_r == (width_next + d) cost_next
  return (width_r * cost_r - width_next * cost_next) / (cost_r + cost_next);
}

BalanceDecision DiffusiveBalancer::decide(const Partition& current, std::span<const RankWindow> measured) {
  const int ranks = current.ranks();
  if (static_cast<int>(measured.size()) != ranks) throw std::invalid_argument("one window per rank needed");
  const std::vector<int> widths = current.widths();
  double window_time = 0.0;
  for (const auto& w : measured) window_time = std::max(window_time, w.compute + w.wait);

  std::vector<int> moves(std::max(0, ranks - 1), 0);
  boundary_.resize(moves.size());
  for (int b = 0; b + 1 < ranks; ++b) {
    BoundaryState& state = boundary_[b];
    // Two ranks that both get only part of a core are most likely sharing
    // one: each one's share is then set by the other's load (the busier
    // one gets more), so it says nothing about their relative speed, and
    // following it would feed back. Such a pair is compared at one share.
    double share_left = measured[b].core_share, share_right = measured[b + 1].core_share;
    if (share_left < kSharedCore && share_right < kSharedCore) {
      share_left = share_right = 0.5 * (share_left + share_right);
    }
    const RankWindow left = effective(measured[b], share_left);
    const RankWindow right = effective(measured[b + 1], share_right);
    // The faster neighbour waits longer; too small a difference is noise.
    const double wait_gap = right.wait - left.wait;  // > 0: left is the slower one
    const double shift = equalising_shift(widths[b], left, widths[b + 1], right);
    const int direction = shift > 0 ? 1 : -1;
    // Act only when the compute costs agree with the wait signal, and on
    // at least the dead band of imbalance (a move of round(shift) columns
    // then leaves under half a column, so a balanced pair never trades a
    // column back and forth).
    const bool asks = std::fabs(wait_gap) > settings_.threshold * window_time &&
                      std::fabs(shift) >= kDeadBand && (shift > 0) == (wait_gap > 0);
    if (!asks) {
      state.streak = 0;
      continue;
    }
    if (state.streak > 0 && state.streak_direction == direction) {
      ++state.streak;
      state.smallest_shift = std::min(state.smallest_shift, std::fabs(shift));
    } else {
      state.streak = 1;
      state.streak_direction = direction;
      state.smallest_shift = std::fabs(shift);
    }
    // Host jitter on a shared machine reaches about a tenth of a pair's
    // columns and can last tens of iterations: the evidence needed grows
    // as the imbalance shrinks, from one window (a gross imbalance, acted
    // on at once) to twice `persistence` (one near the jitter's size).
    const double jitter = kJitterFraction * (widths[b] + widths[b + 1]);
    const int required =
        std::clamp(static_cast<int>(std::lround(settings_.persistence * jitter / state.smallest_shift)), 1,
                   2 * settings_.persistence);
    if (state.streak < required) continue;
    // One reversal is a return after a transient; a second in a row is
    // the start of an oscillation.
    if (direction == state.last_direction) {
      state.reversals = 0;
      state.gain = std::min(1.0, 2.0 * state.gain);
    } else if (state.last_direction != 0 && ++state.reversals >= 2) {
      state.gain = std::max(kMinimumGain, 0.5 * state.gain);
    }
    const double step = settings_.damping * state.gain * state.smallest_shift;
    const int columns = std::max(1, static_cast<int>(std::lround(step)));
    moves[b] = direction * columns;
    state.streak = 0;  // the next move needs fresh evidence about the new stripes
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
    if (moves[b] != 0) boundary_[b].last_direction = moves[b] > 0 ? 1 : -1;
  }
  return {Partition::from_widths(current.interior(), next, settings_.min_width), moves, moved};
}

}  // namespace npblu
