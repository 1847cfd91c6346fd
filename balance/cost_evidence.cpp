#include "balance/cost_evidence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace npblu {

namespace {
double mean_of(std::span<const double> v) {
  double s = 0.0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// For n samples of an AR(1) series with lag-1 correlation rho and
// variance sigma^2: S = sum_{k=1}^{n-1} (n - k) rho^k, then
//   var(mean) = sigma^2 (1 + 2 S / n) / n      (the effective sample size is n / (1 + 2 S / n))
//   E[s^2]    = sigma^2 (1 - 2 S / (n (n - 1)))  (a correlated series looks quieter than it is).
double lag_sum(double n, double rho) {
  double s = 0.0, power = 1.0;
  for (int k = 1; k < n; ++k) {
    power *= rho;
    s += (n - k) * power;
  }
  return s;
}
double mean_variance_factor(double n, double rho) { return (1.0 + 2.0 * lag_sum(n, rho) / n) / n; }
// Turns a sample variance of n samples back into sigma^2.
double variance_correction(double n, double rho) {
  if (n < 2) return 1.0;
  return 1.0 / std::max(1.0 - 2.0 * lag_sum(n, rho) / (n * (n - 1.0)), 1.0 / n);
}
}  // namespace

double CostEstimate::effective_samples() const {
  return samples > 0 ? 1.0 / mean_variance_factor(samples, correlation) : 0.0;
}

double CostEstimate::error_ratio_after(int more) const {
  if (samples < 1) return 1.0;
  return std::sqrt(mean_variance_factor(samples + more, correlation) /
                   mean_variance_factor(samples, correlation));
}

double normal_quantile_upper(double p) {
  double lo = 0.0, hi = 40.0;     // 0.5 erfc(z / sqrt 2) decreases in z
  for (int i = 0; i < 64; ++i) {  // 40 / 2^57 is below an ulp of z: the bracket stops moving by then
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void CostEvidence::NoiseSums::add(const NoiseSums& o) {
  squares += o.squares;
  products += o.products;
  count += o.count;
  pairs += o.pairs;
  series += o.series;
}

namespace {
// (`scratch`: reused storage for the partial sort, so that a decision does
// not allocate once per rank and statistic)
double median_of(std::span<const double> x, std::vector<double>& scratch) {
  if (x.empty()) return 0.0;
  scratch.assign(x.begin(), x.end());
  const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
  std::nth_element(scratch.begin(), mid, scratch.end());
  if (scratch.size() % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(scratch.begin(), mid));
}

// The series with every sample beyond kClip robust deviations of its median
// pulled in to that bound (winsorized): a core taken away for a few
// milliseconds makes single iterations several times slower, and one such
// spike would otherwise dominate a mean and a variance of a few samples.
constexpr double kClip = 3.0;
std::vector<double> winsorized(std::span<const double> x, std::vector<double>& scratch) {
  std::vector<double> out(x.begin(), x.end());
  if (x.size() < 3) return out;
  const double m = median_of(x, scratch);
  for (std::size_t t = 0; t < x.size(); ++t) out[t] = std::abs(x[t] - m);  // deviations first
  const double bound = kClip * 1.4826 * median_of(out, scratch);
  for (std::size_t t = 0; t < x.size(); ++t) out[t] = std::clamp(x[t], m - bound, m + bound);
  return out;
}

// Every rank's first `length` samples, winsorized.
CostEvidence::Series winsorized_all(const CostEvidence::Series& series, std::size_t length) {
  CostEvidence::Series out;
  out.reserve(series.size());
  std::vector<double> scratch;
  for (const auto& raw : series)
    out.push_back(winsorized(std::span(raw).first(std::min(length, raw.size())), scratch));
  return out;
}
}  // namespace

CostEvidence::NoiseSums CostEvidence::sums_of(const Series& series) {
  return sums_of_winsorized(winsorized_all(series, SIZE_MAX));
}

CostEvidence::NoiseSums CostEvidence::sums_of_winsorized(const Series& series) {
  NoiseSums s;
  for (const auto& x : series) {
    if (x.size() < 2) continue;
    const double m = mean_of(x);
    if (!(m > 0.0)) continue;
    for (std::size_t t = 0; t < x.size(); ++t) {
      const double d = x[t] / m - 1.0;
      s.squares += d * d;
      if (t + 1 < x.size()) s.products += d * (x[t + 1] / m - 1.0);
    }
    s.count += static_cast<double>(x.size());
    s.pairs += static_cast<double>(x.size() - 1);
    s.series += 1.0;
  }
  return s;
}

double CostEvidence::correlation(const NoiseSums& all) const {
  double rho = 0.0;
  if (all.pairs > 0.0 && all.squares > 0.0) {
    const double raw = (all.products / all.pairs) / (all.squares / all.count);
    // Removing each series' own mean biases rho down by about (1 + 4 rho) / n.
    rho = raw + (1.0 + 4.0 * raw) / (all.count / all.series);
  }
  rho = std::clamp(rho, 0.0, 0.95);
  if (periods_seen_ < kPriorPeriods) rho = std::max(rho, kPriorCorrelation);
  return rho;
}

CostEstimate CostEvidence::estimate() const { return estimate_of(samples()); }

CostEstimate CostEvidence::estimate_of(int length) const {
  CostEstimate e;
  const int ranks = static_cast<int>(segment_.size());
  e.samples = length;
  if (e.samples == 0) return e;
  // Winsorized once: the noise sums and the means read the same samples.
  const Series clipped = winsorized_all(segment_, static_cast<std::size_t>(length));
  NoiseSums all = closed_;
  all.add(sums_of_winsorized(clipped));
  e.correlation = correlation(all);
  const double rho = e.correlation;
  const double n = e.samples;
  const double dof = all.count - all.series;
  const double pooled = dof > 0.0 ? all.squares / dof : std::numeric_limits<double>::infinity();
  const double pooled_sigma2 =
      pooled * variance_correction(all.series > 0 ? all.count / all.series : 1.0, rho);
  const double mean_factor = mean_variance_factor(n, rho);
  const double own_correction = n > 1 ? variance_correction(n, rho) : 0.0;
  e.spread = std::sqrt(pooled_sigma2);
  e.cost.resize(ranks);
  e.error.resize(ranks);
  for (int r = 0; r < ranks; ++r) {
    const std::vector<double>& x = clipped[r];
    const double m = mean_of(x);
    double own = 0.0;
    for (double v : x) own += (v / m - 1.0) * (v / m - 1.0);
    own = n > 1 ? own / (n - 1.0) * own_correction : 0.0;
    // A rank's own spread counts only when it is clearly above the pooled
    // one (a noisier rank: a shared core); otherwise the pooled spread,
    // estimated from all ranks, is the better estimate of it (the largest
    // of P sample variances of a few samples each is far above the truth).
    const bool noisier = n > 2 && own > pooled_sigma2 * (1.0 + 3.0 * std::sqrt(2.0 / (n - 1.0)));
    const double sigma2 = noisier ? own : pooled_sigma2;  // infinite with no spread measured yet
    e.cost[r] = m;
    e.error[r] =
        std::isfinite(sigma2) ? m * std::sqrt(sigma2 * mean_factor) : std::numeric_limits<double>::infinity();
  }
  return e;
}

bool CostEvidence::add(std::span<const std::vector<double>> per_rank, double z) {
  if (segment_.size() != per_rank.size()) segment_.assign(per_rank.size(), {});
  const std::size_t k = per_rank.empty() ? 0 : per_rank[0].size();
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    segment_[r].insert(segment_[r].end(), per_rank[r].begin(), per_rank[r].end());
  }
  periods_seen_ += static_cast<int>(k);
  held_ += static_cast<long>(k);
  // A change of speeds: the median of the newest samples (at least
  // kChangeSamples, so that one spike is no change) is beyond z standard
  // errors of the estimate from the samples before them, on some rank.
  const std::size_t tail = std::max<std::size_t>(k, kChangeSamples);
  const std::size_t n = static_cast<std::size_t>(samples());
  bool changed = false;
  if (k > 0 && n >= tail + 2) {
    const CostEstimate old = estimate_of(static_cast<int>(n - tail));  // the samples before the newest
    const double ratio = std::sqrt(mean_variance_factor(tail, old.correlation) /
                                   mean_variance_factor(old.samples, old.correlation));
    std::vector<double> scratch;
    for (std::size_t r = 0; r < segment_.size() && !changed; ++r) {
      const double m_new = median_of(std::span(segment_[r]).last(tail), scratch);
      // The median's error is about 1.25 times the mean's.
      const double se_new = 1.25 * old.error[r] * ratio;
      changed = std::abs(m_new - old.cost[r]) > z * std::hypot(old.error[r], se_new) + 1e-9 * old.cost[r];
    }
    if (changed) {
      // The newest samples may straddle the change: they belong to
      // neither speed, so they are dropped and the next window starts afresh.
      for (auto& x : segment_) x.resize(n - tail);
      restart();
      held_ = 0;
      return true;
    }
  }
  for (auto& x : segment_) {
    if (static_cast<int>(x.size()) > kMaxSegment) x.erase(x.begin(), x.end() - kMaxSegment);
  }
  return false;
}

void CostEvidence::save(StateWriter& out) const {
  out.put(static_cast<double>(segment_.size()));
  for (const auto& series : segment_) out.put_series(series);
  for (const double v : {closed_.squares, closed_.products, closed_.count, closed_.pairs, closed_.series})
    out.put(v);
  out.put(periods_seen_);
  out.put(static_cast<double>(held_));
}

void CostEvidence::restore(StateReader& in, bool with_held) {
  constexpr long kMaxRanks = 1L << 24;
  Series segment(static_cast<std::size_t>(in.take_count(kMaxRanks, "rank count")));
  for (auto& series : segment) {
    series = in.take_series(kMaxSegment, "segment length");
    if (series.size() != segment[0].size())
      throw std::invalid_argument("balancer state: ranks hold unequal samples");
  }
  NoiseSums closed;
  for (double* v : {&closed.squares, &closed.products, &closed.count, &closed.pairs, &closed.series}) {
    *v = in.take();
    if (!std::isfinite(*v)) throw std::invalid_argument("balancer state: a noise sum is not finite");
  }
  const int periods = static_cast<int>(in.take_count(1L << 30, "sample count"));
  const long kept = segment.empty() ? 0 : static_cast<long>(segment[0].size());
  const long held = with_held ? in.take_count(1L << 40, "samples since the speeds changed") : kept;
  if (held < kept)
    throw std::invalid_argument("balancer state: fewer samples since the speeds changed than kept");
  segment_ = std::move(segment);
  closed_ = closed;
  periods_seen_ = periods;
  held_ = held;
}

void CostEvidence::restart() {
  closed_.add(sums_of(segment_));
  for (auto& x : segment_) x.clear();
}

}  // namespace npblu
