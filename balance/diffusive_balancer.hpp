#pragma once
// DiffusiveBalancer: the AFIT thesis's section 5.2 idea. Every few
// iterations, across every boundary (r, r+1) at once, shift whole columns
// from the slower neighbour to the faster one when their MPI wait times
// differ by more than a threshold. Global balance emerges from local moves;
// load that must travel several hops gets there over successive steps.
//
// Pure arithmetic on measurements every rank holds identically (they are
// all-gathered first), so every rank computes the same decision.
#include <span>
#include <vector>

#include "balance/partition.hpp"

namespace npblu {

/// One rank's totals over the measurement window.
struct RankWindow {
  double compute = 0.0;  // seconds computing (emulated slowdown included)
  double wait = 0.0;     // seconds blocked in MPI (pipeline and halo)
};

struct BalancerSettings {
  int every = 5;            // balance every K iterations
  double threshold = 0.02;  // wait difference, as a fraction of the window's time, that triggers a move
  double damping = 1.0;     // 0 < a <= 1: fraction of the equalising shift applied per step
  int min_width = kMinimumColumnWidth;
};

struct BalanceDecision {
  Partition partition;     // the new stripes (equal to the current ones when nothing moves)
  std::vector<int> moves;  // per boundary (r, r+1): columns moved from r to r+1 (negative: from r+1 to r)
  int moved_columns = 0;   // sum of |moves|
};

class DiffusiveBalancer {
 public:
  explicit DiffusiveBalancer(BalancerSettings settings);
  [[nodiscard]] const BalancerSettings& settings() const { return settings_; }

  /// The shift that would equalise the compute time of ranks r and r+1 at
  /// their measured per-column costs: positive when r is slower.
  static double equalising_shift(int width_r, const RankWindow& r, int width_next, const RankWindow& next);

  /// Decides the next stripes from every rank's window (indexed by rank).
  /// Remembers each boundary's last move: reversing it needs twice the
  /// imbalance (hysteresis), so a pair whose optimum lies between two whole
  /// columns settles instead of trading a column back and forth.
  [[nodiscard]] BalanceDecision decide(const Partition& current, std::span<const RankWindow> window);

 private:
  BalancerSettings settings_;
  std::vector<int> last_direction_;  // per boundary: +1, -1 or 0
};

/// Throws std::invalid_argument unless 1 <= every, 0 <= threshold, 0 < damping <= 1.
void validate(const BalancerSettings& s);

}  // namespace npblu
