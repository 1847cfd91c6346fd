#pragma once
// CostEvidence: each rank's per-column cost and how sure we are of it, from
// per-iteration samples. The balancer moves columns only when the gain it
// predicts survives this uncertainty, so the uncertainty must be honest
// under the noise real nodes have: several percent per iteration, often
// correlated in time (a daemon, a frequency step lasting many iterations).
//
// The mean per-column cost of rank r is taken over its samples since the
// speeds last changed (its "segment"; the stripes moving does not matter:
// costs are per column). Its standard error is that of the mean of n AR(1)
// samples with lag-1 autocorrelation rho (exact for AR(1): the effective
// sample size n / (1 + 2 sum_k (1 - k/n) rho^k)). rho is pooled over ranks
// and over every segment seen (noise is the node's, not the partition's)
// and corrected for the bias of short series; sigma_r^2 is the segment's
// sample variance (at least the pooled one) corrected for the same
// correlation, which makes a short correlated series look quiet. Until
// kPriorPeriods samples of noise have been seen, rho is assumed to be at
// least kPriorCorrelation: a conservative prior, so early windows cannot be
// over-trusted.
#include <span>
#include <vector>

#include "balance/balancer_state.hpp"

namespace npblu {

struct CostEstimate {
  std::vector<double> cost;   // per rank: mean seconds per column per sample
  std::vector<double> error;  // per rank: standard error of `cost`
  double correlation = 0.0;   // rho used (pooled, bias-corrected, prior applied)
  double spread = 0.0;        // pooled relative standard deviation of one sample
  int samples = 0;            // n: samples per rank in the segment
  [[nodiscard]] double effective_samples() const;
  /// How much the standard errors shrink with `more` samples (at the same spread and correlation).
  [[nodiscard]] double error_ratio_after(int more) const;
};

class CostEvidence {
 public:
  using Series = std::vector<std::vector<double>>;  // per rank, oldest first
  static constexpr int kPriorPeriods = 20;
  static constexpr double kPriorCorrelation = 0.9;
  static constexpr int kMaxSegment = 200;   // older samples leave the mean (costs drift)
  static constexpr int kChangeSamples = 5;  // fewest newest samples whose median can show a change

  explicit CostEvidence(int ranks = 0) : segment_(ranks) {}

  /// Appends one window: per rank, its per-column costs, oldest first (every
  /// rank the same count). Returns true when the median of the newest
  /// samples (the window, at least kChangeSamples) contradicts the segment
  /// before them beyond `z` standard errors on some rank (the speeds
  /// changed): the segment then restarts empty (those samples may straddle
  /// the change) and the next window starts it. Samples are winsorized at 3
  /// robust deviations of their rank's median (single slow iterations on a
  /// shared node are spikes, not speed).
  bool add(std::span<const std::vector<double>> per_rank, double z);
  /// The stripes changed: closes the segment (its noise statistics stay).
  void restart();
  [[nodiscard]] CostEstimate estimate() const;
  [[nodiscard]] int samples() const { return segment_.empty() ? 0 : static_cast<int>(segment_[0].size()); }
  /// Samples per rank since the speeds last changed (or since the start):
  /// samples(), but not capped at kMaxSegment.
  [[nodiscard]] long held() const { return held_; }
  /// The evidence as numbers (balancer_state.hpp), and back; a state
  /// without held() (version 2 and before) holds samples().
  void save(StateWriter& out) const;
  void restore(StateReader& in, bool with_held = true);

 private:
  struct NoiseSums {
    double squares = 0.0, products = 0.0;  // sum d_t^2, sum d_t d_{t+1} of relative deviations
    double count = 0.0, pairs = 0.0, series = 0.0;
    void add(const NoiseSums& o);
  };
  [[nodiscard]] static NoiseSums sums_of(const Series& series);
  [[nodiscard]] static NoiseSums sums_of_winsorized(const Series& series);
  [[nodiscard]] double correlation(const NoiseSums& all) const;
  /// The estimate from every rank's first `length` samples of the segment.
  [[nodiscard]] CostEstimate estimate_of(int length) const;
  Series segment_;
  NoiseSums closed_;      // of closed segments
  int periods_seen_ = 0;  // samples per rank ever added
  long held_ = 0;         // samples per rank since the speeds last changed
};

/// The z with P(N(0,1) > z) = p, for 0 < p < 0.5.
double normal_quantile_upper(double p);

}  // namespace npblu
