#pragma once
// DiffusiveBalancer: the AFIT thesis's section 5.2 idea, with the steady
// state of diffusion computed directly. Every few iterations, when MPI wait
// times say the stripes are out of balance, every boundary (r, r+1) moves at
// once by its flow: on a chain, the flow across boundary b that balances the
// ranks at their measured per-column costs is the prefix sum of the ranks'
// excess load (Hu and Blake's optimal diffusion; LAMMPS's `balance shift`
// moves every cut at once from cumulative costs the same way). Columns still
// cross only boundaries between neighbours; a column that must travel
// several hops is relayed in the same step (migration moves it from its old
// owner to its new one directly). The target is the best whole-column
// partition for the measured costs (balance/min_max_partition), nearest the
// current cuts.
//
// Pure arithmetic on measurements every rank holds identically (they are
// all-gathered first), so every rank computes the same decision.
#include <deque>
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
  double damping = 1.0;     // 0 < a <= 1: fraction of each boundary's flow toward the target applied per step
  int min_width = kMinimumColumnWidth;
  int persistence =
      2;  // windows of evidence for an imbalance of a tenth of two stripes' columns (see decide)
};

struct BalanceDecision {
  Partition partition;     // the new stripes (equal to the current ones when nothing moves)
  std::vector<int> moves;  // per boundary (r, r+1): columns moved from r to r+1 (negative: from r+1 to r)
  int moved_columns = 0;   // sum of |moves|
  // The slowest rank's compute over the window at the measured per-column
  // costs, for the current stripes and for the new ones, and the mean over
  // ranks (LAMMPS-style imbalance before/after: max / mean). Zero when the
  // window held no usable costs.
  double predicted_before = 0.0, predicted_after = 0.0, predicted_mean = 0.0;
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
  /// their measured per-column costs: positive when r is slower. On two
  /// ranks this is the flow decide() moves (before whole-column rounding).
  static double equalising_shift(int width_r, const RankWindow& r, int width_next, const RankWindow& next);

  /// Decides the next stripes from every rank's window (indexed by rank).
  /// The imbalance is judged globally, as the columns' worth of time the
  /// slowest rank would lose in the best whole-column partition for the
  /// measured costs: excess = width_slowest * (1 - T_best / T_now). Guards
  /// that keep a balanced run still on a noisy node:
  ///  - wait evidence: the slowest rank by cost must be waiting less than
  ///    the most waiting rank by more than `threshold` of the window;
  ///  - dead band: an excess under 1.5 columns is left alone;
  ///  - persistence: the costs are averaged over the last m windows since
  ///    the last move (m up to 2 * persistence), and the stripes move once
  ///    some m reaches persistence * jitter / excess (at least 1), where
  ///    jitter is a tenth of two stripes' mean columns (what host jitter
  ///    moves a pair's balance by). A gross imbalance moves after one
  ///    window; one the size of noise must persist, and averaging over
  ///    windows shrinks independent noise until it falls in the dead band;
  ///  - adaptive gain per boundary: from the second reversal in a row (a
  ///    single one is a return after a transient), each reversal halves the
  ///    boundary's step (down to 1/8 of the damping) and each repeat doubles
  ///    it back, so costs that react to the move itself (ranks sharing a
  ///    core) settle instead of oscillating.
  [[nodiscard]] BalanceDecision decide(const Partition& current, std::span<const RankWindow> window);

 private:
  struct BoundaryState {
    int last_direction = 0;  // of the last move: +1, -1 or 0
    double gain = 1.0;       // multiplies the damping
    int reversals = 0;       // moves in a row that reversed the one before
  };
  /// Per rank, the window as the balancer reads it (core share applied).
  [[nodiscard]] static std::vector<RankWindow> effective_windows(std::span<const RankWindow> measured);
  BalancerSettings settings_;
  std::vector<BoundaryState> boundary_;
  std::deque<std::vector<RankWindow>> evidence_;  // effective windows since the last move, newest last
};

/// Throws std::invalid_argument unless 1 <= every, 0 <= threshold, 0 < damping <= 1, 1 <= persistence.
void validate(const BalancerSettings& s);

}  // namespace npblu
