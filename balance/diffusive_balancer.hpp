#pragma once
// DiffusiveBalancer: the AFIT thesis's section 5.2 idea (move columns
// between neighbouring stripes when MPI wait times say the stripes are out
// of balance), with the steady state of diffusion computed directly and
// every move priced.
//
// Where to go: on a chain, the flow across boundary b that balances the
// ranks at their estimated per-column costs is the prefix sum of the ranks'
// excess load (Hu and Blake's optimal diffusion; LAMMPS's `balance shift`
// moves every cut at once from cumulative costs the same way). The target
// is the best whole-column partition for the estimated costs
// (balance/min_max_partition) nearest the current cuts; every cut moves
// toward it by ONE fraction (`damping`) for the whole chain, so neighbouring
// boundaries never step by different fractions (which once handed single
// ranks many extra columns). Columns cross only boundaries between
// neighbours; a column that travels several hops is relayed in one step.
//
// Whether to go: the per-column costs come with standard errors
// (balance/cost_evidence: spread and effective sample size under
// correlation in time). With z chosen so that all P ranks' estimates hold at
// once (one-sided, family error kFamilyError) and e_P the expected largest
// of P standard normals, the gain per iteration that can be counted on is
//   gain = max_r w_r (c_r - z se_r)  -  max_r w'_r (c_r + e_P se_r)
// (the slowest rank now, at its least, minus what the slowest rank of the
// new stripes is expected to be: their estimates are equal, and the largest
// of P errors decides). When nothing is out of balance the first term is
// z se below the truth and the second e_P se above it: no move. And a move
// that is worth it waits one more window when the sharper estimates would
// leave enough less imbalance over the horizon to pay for the wait; a marginal step (one that would not pay
// with every error allowed kDecisiveMargin times over) goes only when the window before wanted one too: one
// window of a transient, or of noise correlated in time beyond what the errors allow, is not a slow rank
// (in lu-sim, 9 of 2,400 homogeneous runs moved columns without it, 1 with it). The stripes move only when
// gain x horizon exceeds the price of a step: the measured time of the last migrations, or, before any was
// timed, the caller's prior (StepOutlook::prior_price), at least one iteration. The horizon is the
// iterations that remain, but no more than the speeds have been seen unchanged, counting every sample
// since the last change (what has held for m iterations is expected to hold for about m more: a
// transient is not a slow rank for the rest of the run). MPI wait stays the evidence that the stripes are out
// of balance: the slowest rank by cost must also wait less than the most waiting rank by `threshold` of an
// iteration.
//
// Pure arithmetic on measurements every rank holds identically (they are
// all-gathered first), so every rank computes the same decision.
#include <span>
#include <vector>

#include "balance/cost_evidence.hpp"
#include "balance/partition.hpp"

namespace npblu {

/// A rank's share of its core while runnable: on-CPU time over on-CPU plus
/// run-queue time, 1 where neither was measured (no schedstat clock).
inline double core_share(double on_cpu, double run_delay) {
  const double busy = on_cpu + run_delay;
  return busy > 0.0 ? on_cpu / busy : 1.0;
}
/// A rank that gets at least this share has its core to itself: below it,
/// the balancer reads its compute at its share (DiffusiveBalancer::effective)
/// and the report says its speeds depend on its core's other work.
inline constexpr double kWholeCoreShare = 0.9;

/// One rank's totals over the measurement window.
struct RankWindow {
  double compute = 0.0;     // seconds computing (emulated slowdown included)
  double wait = 0.0;        // seconds blocked in MPI (pipeline and halo)
  double core_share = 1.0;  // share of a core the rank got while runnable: on_cpu / (on_cpu + run delay)
};

/// One rank's window as the balancer reads it: per iteration, oldest first.
struct RankSamples {
  std::vector<double> compute;  // seconds computing, per iteration
  std::vector<double> wait;     // seconds blocked in MPI, per iteration
  std::vector<double> share;    // core share per iteration (empty: core_share for every one)
  double core_share = 1.0;      // over the window (see RankWindow)
};

struct BalancerSettings {
  int every = 5;            // balance every K iterations
  double threshold = 0.02;  // wait gap, as a fraction of an iteration, that must confirm an imbalance
  double damping = 1.0;     // 0 < a <= 1: the one fraction of the way to the target every cut moves per step
  int min_width = kMinimumColumnWidth;
  int persistence = 1;  // windows of evidence about the current stripes before they move again
};

/// What the stripes are worth moving for: the caller's knowledge.
struct StepOutlook {
  double price = 0.0;  // seconds one step costs (measured); <= 0: not measured yet (then the prior)
  double horizon =
      0.0;  // iterations the new stripes would serve (the rest of the run); <= 0: kDefaultHorizon
  double prior_price = 0.0;  // seconds a step is priced at before one was measured, at least one iteration
};

struct BalanceDecision {
  Partition partition;     // the new stripes (equal to the current ones when nothing moves)
  std::vector<int> moves;  // per boundary (r, r+1): columns moved from r to r+1 (negative: from r+1 to r)
  int moved_columns = 0;   // sum of |moves|
  // The slowest rank's compute per iteration at the estimated per-column
  // costs, for the current stripes and for the new ones, and the mean over
  // ranks of each (LAMMPS-style imbalance before/after: max / mean; the mean
  // moves with the stripes, since ranks' per-column costs differ). Zero
  // when no usable costs.
  double predicted_before = 0.0, predicted_after = 0.0;
  double predicted_mean = 0.0, predicted_mean_after = 0.0;
  // The same for the best whole-column partition at those costs (within the
  // widths' limits): predicted_before / predicted_best is the bottleneck
  // ratio of the current stripes, 1 where none could do better.
  double predicted_best = 0.0;
  double gain = 0.0;            // seconds per iteration counted on (net of uncertainty; may be negative)
  double price = 0.0;           // seconds the step was priced at
  double horizon = 0.0;         // iterations the gain was counted over
  double z = 0.0;               // standard errors every estimate was allowed
  double correlation = 0.0;     // lag-1 autocorrelation of the noise used
  double spread = 0.0;          // relative standard deviation of one iteration's cost
  bool speeds_changed = false;  // the new window contradicted the evidence: it restarted
};

class DiffusiveBalancer {
 public:
  static constexpr double kFamilyError = 0.05;   // chance that some rank's estimate is off by more than z se
  static constexpr double kChangeError = 0.001;  // chance per decision of taking noise for a change of speeds
  static constexpr double kDefaultHorizon = 100.0;
  // Stripes set from estimates this many times less sure than today's are
  // re-set on the expected gain (see refresh_gain).
  static constexpr double kRefreshSharper = 2.0;
  // Beyond this lag-1 correlation of the samples, estimates still carry the
  // noise the stripes were set from (see refresh_gain).
  static constexpr double kCorrelatedNoise = 0.5;
  // A step whose gain still pays with every error allowed this many times
  // over is decisive and goes at once; a marginal one needs two windows.
  static constexpr double kDecisiveMargin = 2.0;

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

  /// The most columns each rank may hold (what its memory can; empty: no
  /// limit): no target, and no step toward it, puts more on a rank. Throws
  /// std::invalid_argument unless check_max_widths accepts them for `ranks`
  /// and `columns` (best_widths_near checks them again against each
  /// decision's partition).
  void set_max_widths(std::vector<int> max_widths, int ranks, int columns);
  [[nodiscard]] const std::vector<int>& max_widths() const { return max_widths_; }

  /// Per rank its share pool (balance/share_pools: the lowest rank of the
  /// pool, -1 for none; empty: no pools): each pool's members are read at
  /// their mean core share, iteration by iteration, since the scheduler,
  /// not the rank, decides which of them has a core to itself. Throws
  /// std::invalid_argument unless empty or one per rank, each -1 or a rank
  /// no later than its own that is in that pool too.
  void set_share_pools(std::vector<int> pools, int ranks);
  [[nodiscard]] const std::vector<int>& share_pools() const { return share_pools_; }

  /// Decides the next stripes from every rank's window (indexed by rank,
  /// the same number of iterations each; at least one). Evidence about the
  /// current stripes accumulates over windows until they move.
  [[nodiscard]] BalanceDecision decide(const Partition& current, std::span<const RankSamples> window,
                                       StepOutlook outlook = {});

  /// The evidence and persistence count as numbers (balancer_state.hpp), and back.
  void save(StateWriter& out) const;
  /// `version`: of the balancer state (2 on: the stripes' error; 3 on: samples since the speeds changed;
  /// 4 on: whether a marginal step was wanted).
  void restore(StateReader& in, int version);

 private:
  /// Whether a wanted step goes now: at once when `decisive`, otherwise
  /// only when the decision before this one wanted a step too.
  bool confirmed(bool wants, bool decisive);
  /// Whether one more window of evidence is worth more than moving now:
  /// sharper estimates leave less imbalance for the rest of the horizon.
  static bool better_to_wait(const BalanceDecision& d, const CostEstimate& e, double t_target, int window,
                             double largest_error);
  /// The normal quantiles a decision on `ranks` ranks uses, computed once
  /// per rank count: each is a bisection of erfc, and deciding must stay
  /// cheap next to windows of well under a millisecond.
  struct Quantiles {
    int ranks = 0;
    double family = 0.0;   // z: all ranks' estimates hold at once (kFamilyError)
    double change = 0.0;   // a change of speeds, both directions (kChangeError)
    double largest = 0.0;  // e_P: the expected largest of P standard normals
  };
  const Quantiles& quantiles(int ranks);
  /// The expected gain per iteration of re-setting stripes that were set
  /// from much less sure estimates (0 when they were not).
  [[nodiscard]] double refresh_gain(const BalanceDecision& d, const CostEstimate& e,
                                    const std::vector<int>& target, double largest_error) const;
  [[nodiscard]] std::vector<int> step_toward(const std::vector<int>& widths,
                                             const std::vector<int>& target) const;
  BalancerSettings settings_;
  std::vector<int> max_widths_;   // per rank (empty: none)
  std::vector<int> share_pools_;  // per rank: its pool's lowest rank, or -1 (empty: none)
  CostEvidence evidence_;
  int windows_since_move_ = 0;
  bool wanted_step_ = false;  // the last decision wanted a marginal step (confirmed)
  double set_error_ = 0.0;    // mean relative error of the estimates the stripes were last set from (0: none)
  Quantiles quantiles_;
};

/// Throws std::invalid_argument unless 1 <= every, 0 <= threshold,
/// 0 < damping <= 1, 1 <= min_width, 1 <= persistence. The messages name
/// the settings (`every`, ...); front ends map them to their own option names.
void validate(const BalancerSettings& s);

}  // namespace npblu
