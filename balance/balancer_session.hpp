#pragma once
// BalancerSession: the one loop of run-time balancing, shared by the solver
// (lu/migration/runtime_balancing), the C balance API (interop/c/npblu_balance_c)
// and the model of a striped run (sim/). It owns the cadence (a decision
// every `every` iterations), the windows, the decision (DiffusiveBalancer),
// the previous and new partitions, the price of a step (the measured time
// of the migrations it asked for) and a decision log. MPI-free: the caller
// gathers every rank's WindowReport (lu/migration/collective_balancer does it with
// one all-gather) and times the migration; every rank then holds the same
// reports and takes the same decision.
#include <limits>
#include <span>
#include <vector>

#include "balance/diffusive_balancer.hpp"

namespace npblu {

/// One rank's report of one window, as every rank receives it.
struct WindowReport {
  RankSamples samples;             // per iteration of the window
  double migration_seconds = 0.0;  // this rank's time applying the last step (0: none since)
  double decision_seconds = 0.0;   // this rank's time in the last decision, gather included (0: unmeasured)
};

/// One decision that moved columns, as the log keeps it.
struct DecisionRecord {
  int iteration = 0;       // after this iteration
  std::vector<int> moves;  // per boundary, as BalanceDecision::moves
  int moved_columns = 0;
  // Imbalance, slowest rank's compute over the mean: predicted at the
  // estimated costs for the stripes before and after, and measured over the
  // window decided on and over the next one (0 until it is seen).
  double predicted_before = 0.0, predicted_after = 0.0;
  double measured_before = 0.0, measured_after = 0.0;
  // Balance quality, the bottleneck ratio (predicted_quality): the slowest
  // rank's compute over the best whole-column partition's, at the same costs.
  double predicted_quality_before = 0.0, predicted_quality_after = 0.0;
  double gain = 0.0;        // seconds per iteration counted on, net of uncertainty
  double horizon = 0.0;     // iterations it was counted over
  double price = 0.0;       // seconds the step was priced at
  double price_paid = 0.0;  // seconds the step took (slowest rank), 0 until measured
};

class BalancerSession {
 public:
  static constexpr int kPriceMemory = 4;  // the price is the mean of the last few steps' measured times
  // Deciding costs time every window, moving or not (the gather, the
  // estimates): when two decisions in a row took more than this share of
  // the slowest rank's window, windows double (up to kMaxStride x every),
  // and they halve again below a quarter of it. Iterations of a tenth of a millisecond
  // (a legacy code's small steps) would otherwise pay several percent for a
  // balancer that has nothing to do.
  static constexpr double kMaxDecisionShare = 0.01;
  static constexpr int kMaxStride = 64;

  BalancerSession(BalancerSettings settings, Partition start);

  [[nodiscard]] const BalancerSettings& settings() const { return balancer_.settings(); }
  /// Iterations per window: `every`, times the stride that keeps deciding cheap.
  [[nodiscard]] int window_length() const { return settings().every * stride_; }
  /// Whether iteration `iteration` (1-based) ends a window: a multiple of
  /// `every` (a restarted run decides where the first run would have), at
  /// least window_length() after the last decision.
  [[nodiscard]] bool due(int iteration) const {
    return iteration % settings().every == 0 && iteration - last_decision_ >= window_length();
  }

  /// Every rank's report of the window that ended at `iteration`; `remaining`
  /// is the number of iterations still to run (<= 0: unknown). Moves
  /// current() when the step is worth its price (then previous() is the
  /// partition before). The first iteration after a migration pays page
  /// faults in fresh memory, a transient: it is left out of the window.
  const BalanceDecision& decide(int iteration, std::span<const WindowReport> reports, double remaining);

  /// The most columns each rank may hold (what its memory can; empty: no
  /// limit), for every later decision. Not part of saved_state(): a run
  /// measures its own nodes. Throws std::invalid_argument unless there is one
  /// per rank, each at least min_width, adding up to the columns.
  void set_max_widths(std::vector<int> max_widths) {
    balancer_.set_max_widths(std::move(max_widths), current_.ranks(), current_.interior().width());
  }
  [[nodiscard]] const std::vector<int>& max_widths() const { return balancer_.max_widths(); }
  /// Ranks whose core shares the scheduler hands out among them
  /// (DiffusiveBalancer::set_share_pools), for every later decision. Not part
  /// of saved_state(): a run looks at its own placement.
  void set_share_pools(std::vector<int> pools) {
    balancer_.set_share_pools(std::move(pools), current_.ranks());
  }
  [[nodiscard]] const std::vector<int>& share_pools() const { return balancer_.share_pools(); }

  /// Imposes a partition (the caller's own placement, a restart).
  void set_current(const Partition& p);
  /// A window went by without a decision: previous() becomes current().
  void settle() { previous_ = current_; }

  [[nodiscard]] const Partition& current() const { return current_; }
  [[nodiscard]] const Partition& previous() const { return previous_; }
  [[nodiscard]] const BalanceDecision& last() const { return last_; }
  [[nodiscard]] const std::vector<DecisionRecord>& log() const { return log_; }
  [[nodiscard]] int decisions() const { return decisions_; }
  /// Steps that moved columns, including those before a restored state (log() has this run's).
  [[nodiscard]] int steps() const { return earlier_steps_ + static_cast<int>(log_.size()); }
  [[nodiscard]] int moved_columns() const { return moved_columns_; }
  /// Seconds one step is priced at: the mean of the last kPriceMemory
  /// measured steps; 0 before any was measured (the balancer then assumes
  /// the prior price).
  [[nodiscard]] double step_price() const;
  /// Seconds a step is priced at before one was measured, if more than one
  /// iteration (the default, 0: one iteration). The caller's knowledge of
  /// what its first migration may cost (interop/c/npblu_balance_c.cpp).
  void set_prior_price(double seconds) { prior_price_ = seconds; }

  /// What the session has learnt (cost evidence, measured step prices,
  /// counts) as numbers a checkpoint keeps (balancer_state.hpp). Settings
  /// and partitions are not in it: the checkpoint has them already.
  [[nodiscard]] std::vector<double> saved_state() const;
  /// Continues from saved_state() of a session on as many ranks. Throws
  /// std::invalid_argument (and changes nothing) when the numbers are
  /// damaged, of another version or of another rank count.
  void restore_state(std::span<const double> state);

 private:
  void record_price_and_outcome(std::span<const WindowReport> reports);
  void adapt_stride(std::span<const WindowReport> reports);
  DiffusiveBalancer balancer_;
  Partition current_, previous_;
  BalanceDecision last_;
  std::vector<DecisionRecord> log_;
  std::vector<double> prices_;
  double prior_price_ = 0.0;
  int decisions_ = 0, moved_columns_ = 0, earlier_steps_ = 0;
  int stride_ = 1;  // windows are stride_ x every iterations (a power of two)
  int expensive_in_a_row_ = 0;
  int last_decision_ = std::numeric_limits<int>::min() / 2;  // iteration of the last decision
  bool awaiting_outcome_ =
      false;  // the last decision moved: its price and outcome come with the next reports
};

/// The imbalance a decision predicts (slowest rank's compute over the mean,
/// LAMMPS-style) for the stripes before and after it; 0 and 0 without usable
/// costs. What the decision log records and the C API reports.
struct PredictedImbalance {
  double before = 0.0, after = 0.0;
};
PredictedImbalance predicted_imbalance(const BalanceDecision& d);
/// The balance quality a decision predicts, the bottleneck ratio: the
/// slowest rank's compute at the estimated per-column costs over what the
/// best whole-column partition (within the widths' limits) would take, for
/// the stripes before and after it (1: none could do better); 0 and 0
/// without usable costs. What the C API reports (npblu_balancer_last_quality).
struct PredictedQuality {
  double before = 0.0, after = 0.0;
};
PredictedQuality predicted_quality(const BalanceDecision& d);

/// Slowest rank's compute over the mean, from the reports' totals (0 if none).
double measured_imbalance(std::span<const WindowReport> reports);

}  // namespace npblu
