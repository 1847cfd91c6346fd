#include "balance/diffusive_balancer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "balance/min_max_partition.hpp"

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

std::vector<RankWindow> DiffusiveBalancer::effective_windows(std::span<const RankWindow> measured) {
  // Neighbours that all get only part of a core are most likely sharing
  // one: each one's share is then set by the others' load (the busier one
  // gets more), so it says nothing about their relative speed, and
  // following it would feed back. Such a run of ranks is read at one share.
  const int ranks = static_cast<int>(measured.size());
  std::vector<double> share(ranks);
  for (int r = 0; r < ranks; ++r) share[r] = measured[r].core_share;
  for (int first = 0; first < ranks;) {
    int last = first;
    while (last + 1 < ranks && share[first] < kSharedCore && share[last + 1] < kSharedCore) ++last;
    if (last > first) {
      double mean = 0.0;
      for (int r = first; r <= last; ++r) mean += share[r];
      mean /= last - first + 1;
      for (int r = first; r <= last; ++r) share[r] = mean;
    }
    first = last + 1;
  }
  std::vector<RankWindow> out(ranks);
  for (int r = 0; r < ranks; ++r) out[r] = effective(measured[r], share[r]);
  return out;
}

namespace {

// The balance of one candidate target, judged on the whole chain.
struct Assessment {
  std::vector<double> cost;  // seconds per column over the window, per rank
  std::vector<int> target;   // best whole-column widths nearest the current ones
  double now = 0.0;          // slowest rank's predicted compute, current stripes
  double best = 0.0;         // the same for the target
  double mean = 0.0;         // mean compute over ranks (the same for any stripes)
  double excess = 0.0;       // columns' worth of time the slowest rank would lose
  bool waits_agree = false;  // the slowest rank by cost waits measurably less than the most waiting rank
};

// Costs and waits averaged over `windows`; nullopt when some rank measured no compute.
std::optional<Assessment> assess(const std::vector<int>& widths,
                                 std::span<const std::vector<RankWindow>> windows, double threshold,
                                 int min_width) {
  const int ranks = static_cast<int>(widths.size());
  std::vector<double> cost(ranks, 0.0), wait(ranks, 0.0);
  double window_time = 0.0;
  for (const auto& w : windows) {
    for (int r = 0; r < ranks; ++r) {
      cost[r] += w[r].compute / windows.size();
      wait[r] += w[r].wait / windows.size();
    }
  }
  for (int r = 0; r < ranks; ++r) {
    window_time = std::max(window_time, cost[r] + wait[r]);
    if (!(cost[r] > 0.0) || !std::isfinite(cost[r])) return std::nullopt;
    cost[r] /= widths[r];
  }
  Assessment a;
  a.cost = cost;
  a.target = best_widths_near(cost, widths, min_width);
  a.now = bottleneck(widths, cost);
  a.best = bottleneck(a.target, cost);
  int slowest = 0;
  for (int r = 0; r < ranks; ++r) {
    a.mean += widths[r] * cost[r] / ranks;
    if (widths[r] * cost[r] > widths[slowest] * cost[slowest]) slowest = r;
  }
  a.excess = widths[slowest] * (1.0 - a.best / a.now);
  const double most_waiting = *std::max_element(wait.begin(), wait.end());
  a.waits_agree = most_waiting - wait[slowest] > threshold * window_time;
  return a;
}

}  // namespace

BalanceDecision DiffusiveBalancer::decide(const Partition& current, std::span<const RankWindow> measured) {
  const int ranks = current.ranks();
  if (static_cast<int>(measured.size()) != ranks) throw std::invalid_argument("one window per rank needed");
  const std::vector<int> widths = current.widths();
  BalanceDecision none{current, std::vector<int>(std::max(0, ranks - 1), 0), 0};
  if (ranks < 2) return none;
  boundary_.resize(ranks - 1);
  evidence_.push_back(effective_windows(measured));
  while (static_cast<int>(evidence_.size()) > 2 * settings_.persistence) evidence_.pop_front();

  // Host jitter on a shared machine moves a pair's balance by up to a tenth
  // of its columns for tens of iterations: the evidence needed grows as the
  // imbalance shrinks, from one window (gross) to 2 x persistence.
  const double jitter = kJitterFraction * 2.0 * current.interior().width() / ranks;
  const std::vector<std::vector<RankWindow>> windows(evidence_.begin(), evidence_.end());
  std::optional<Assessment> chosen;
  for (int m = 1; m <= static_cast<int>(windows.size()); ++m) {
    const auto recent = std::span(windows).last(m);
    auto a = assess(widths, recent, settings_.threshold, settings_.min_width);
    if (!a) return none;
    if (m == 1) {
      none.predicted_before = none.predicted_after = a->now;
      none.predicted_mean = a->mean;
    }
    if (a->excess < kDeadBand || !a->waits_agree) continue;
    const int required = std::clamp(static_cast<int>(std::lround(settings_.persistence * jitter / a->excess)),
                                    1, 2 * settings_.persistence);
    if (m >= required) {
      chosen = std::move(a);
      break;
    }
  }
  if (!chosen) return none;

  // Every cut moves toward its target by damping x gain (per boundary).
  std::vector<int> moves(ranks - 1, 0);
  int current_cut = 0, target_cut = 0;
  for (int b = 0; b + 1 < ranks; ++b) {
    current_cut += widths[b];
    target_cut += chosen->target[b];
    const int flow = current_cut - target_cut;  // columns from the ranks <= b to the ranks > b
    if (flow == 0) continue;
    BoundaryState& state = boundary_[b];
    const int direction = flow > 0 ? 1 : -1;
    // One reversal is a return after a transient; a second in a row is
    // the start of an oscillation.
    if (direction == state.last_direction) {
      state.reversals = 0;
      state.gain = std::min(1.0, 2.0 * state.gain);
    } else if (state.last_direction != 0 && ++state.reversals >= 2) {
      state.gain = std::max(kMinimumGain, 0.5 * state.gain);
    }
    const double step = settings_.damping * state.gain * std::abs(flow);
    moves[b] = direction * std::max(1, static_cast<int>(std::lround(step)));
  }

  // Partial steps on different boundaries may squeeze a stripe: shrink
  // moves (toward zero) until every stripe keeps the minimum width.
  // Deterministic: lowest rank first.
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
  if (moved > 0) evidence_.clear();  // the next move needs fresh evidence about the new stripes
  BalanceDecision d{Partition::from_widths(current.interior(), next, settings_.min_width), moves, moved};
  d.predicted_before = chosen->now;
  d.predicted_mean = chosen->mean;
  d.predicted_after = bottleneck(next, chosen->cost);
  return d;
}

}  // namespace npblu
