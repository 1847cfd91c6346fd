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
  double compute = 0.0;     // seconds computing (emulated slowdown included)
  double wait = 0.0;        // seconds blocked in MPI (pipeline and halo)
  double core_share = 1.0;  // share of a core the rank got while runnable: on_cpu / (on_cpu + run delay)
};

struct BalancerSettings {
  int every = 5;            // balance every K iterations
  double threshold = 0.02;  // wait difference, as a fraction of the window's time, that triggers a move
  double damping = 1.0;     // 0 < a <= 1: fraction of the equalising shift applied per step
  int min_width = kMinimumColumnWidth;
  int persistence = 2;  // windows of evidence for an imbalance of a tenth of the pair's columns (see decide)
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

  /// The window as the balancer reads it: a rank that gets only a share s
  /// of its core needs compute / s of wall time for its columns, and what
  /// is left of its window is its real waiting (measured.core_share is
  /// replaced by `share`). Ranks time-sharing a core (with an MPI that
  /// yields while it polls) compute at full speed in turns and spend the
  /// rest "waiting in MPI", so without this a shared core would look
  /// exactly as fast as a dedicated one.
  static RankWindow effective(const RankWindow& measured, double share);

  /// The shift that would equalise the compute time of ranks r and r+1 at
  /// their measured per-column costs: positive when r is slower.
  static double equalising_shift(int width_r, const RankWindow& r, int width_next, const RankWindow& next);

  /// Decides the next stripes from every rank's window (indexed by rank).
  /// Guards that keep a balanced run still on a noisy node:
  ///  - dead band: an imbalance under 1.5 columns is left alone;
  ///  - persistence: a boundary moves only after enough consecutive windows
  ///    ask for the same direction, and then by the smallest shift they
  ///    asked for: persistence * (a tenth of the pair's columns, the size
  ///    host jitter reaches) / shift windows, at least 1 and at most
  ///    2 * persistence. A gross imbalance moves at once; one the size of a
  ///    burst of OS or host jitter must outlast it;
  ///  - adaptive gain: from the second reversal in a row (a single one is a
  ///    return after a transient), each reversal halves the boundary's step
  ///    (down to 1/8 of the damping) and each repeat doubles it back, so a
  ///    pair whose costs react to the move itself (ranks sharing a core)
  ///    stops overshooting instead of oscillating.
  [[nodiscard]] BalanceDecision decide(const Partition& current, std::span<const RankWindow> window);

 private:
  struct BoundaryState {
    int last_direction = 0;  // of the last move: +1, -1 or 0
    int streak = 0;          // consecutive windows asking for `streak_direction`
    int streak_direction = 0;
    double smallest_shift = 0.0;  // smallest |shift| asked for during the streak
    double gain = 1.0;            // multiplies the damping
    int reversals = 0;            // moves in a row that reversed the one before
  };
  BalancerSettings settings_;
  std::vector<BoundaryState> boundary_;
};

/// Throws std::invalid_argument unless 1 <= every, 0 <= threshold, 0 < damping <= 1, 1 <= persistence.
void validate(const BalancerSettings& s);

}  // namespace npblu
