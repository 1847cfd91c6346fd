#include "balance/cost_evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace npblu {

namespace {
double mean_of(std::span<const double> v) {
  double s = 0.0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// Variance inflation of the mean of n samples at lag-1 correlation rho
// (AR(1)): var(mean) = sigma^2 * min(f, n) / n, f = (1 + rho) / (1 - rho).
double inflation(double rho) { return (1.0 + rho) / (1.0 - rho); }

// E[s^2] = sigma^2 (n - f) / (n - 1) for correlated samples: the factor
// that turns a sample variance back into sigma^2 (a series shorter than
// its correlation time counts as one that says little: at most n - 1).
double variance_correction(double n, double f) { return (n - 1.0) / std::max(n - f, 1.0); }
}  // namespace

double CostEstimate::effective_samples() const {
  const double f = inflation(correlation);
  return samples / std::min(f, static_cast<double>(samples));
}

double normal_quantile_upper(double p) {
  double lo = 0.0, hi = 40.0;  // 0.5 erfc(z / sqrt 2) decreases in z
  for (int i = 0; i < 200; ++i) {
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

CostEvidence::NoiseSums CostEvidence::segment_sums() const {
  NoiseSums s;
  for (const auto& x : segment_) {
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

CostEstimate CostEvidence::estimate() const {
  CostEstimate e;
  const int ranks = static_cast<int>(segment_.size());
  e.samples = samples();
  if (e.samples == 0) return e;
  NoiseSums all = closed_;
  all.add(segment_sums());
  e.correlation = correlation(all);
  const double f = inflation(e.correlation);
  const double n = e.samples;
  const double dof = all.count - all.series;
  const double pooled = dof > 0.0 ? all.squares / dof : std::numeric_limits<double>::infinity();
  const double pooled_sigma2 = pooled * variance_correction(all.series > 0 ? all.count / all.series : 1.0, f);
  e.spread = std::sqrt(pooled_sigma2);
  e.cost.resize(ranks);
  e.error.resize(ranks);
  for (int r = 0; r < ranks; ++r) {
    const auto& x = segment_[r];
    const double m = mean_of(x);
    double own = 0.0;
    for (double v : x) own += (v / m - 1.0) * (v / m - 1.0);
    own = n > 1 ? own / (n - 1.0) * variance_correction(n, f) : 0.0;
    const double sigma2 = std::max(own, pooled_sigma2);
    e.cost[r] = m;
    e.error[r] = std::isfinite(sigma2) ? m * std::sqrt(sigma2 * std::min(f, n) / n)
                                       : std::numeric_limits<double>::infinity();
  }
  return e;
}

bool CostEvidence::add(std::span<const std::vector<double>> per_rank, double z) {
  if (segment_.size() != per_rank.size()) segment_.assign(per_rank.size(), {});
  const std::size_t k = per_rank.empty() ? 0 : per_rank[0].size();
  bool changed = false;
  if (k > 0 && samples() >= 2) {
    const CostEstimate old = estimate();
    const double f = inflation(old.correlation);
    for (std::size_t r = 0; r < per_rank.size() && !changed; ++r) {
      const double m_new = mean_of(per_rank[r]);
      const double n_old = old.samples;
      // The old mean's error, and the new window's at the same per-sample spread.
      const double se_old = old.error[r];
      const double se_new = se_old * std::sqrt((std::min(f, double(k)) / k) / (std::min(f, n_old) / n_old));
      const double gap = std::abs(m_new - old.cost[r]);
      changed = gap > z * std::hypot(se_old, se_new) + 1e-9 * old.cost[r];
    }
  }
  if (changed) restart();
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    auto& x = segment_[r];
    x.insert(x.end(), per_rank[r].begin(), per_rank[r].end());
    if (static_cast<int>(x.size()) > kMaxSegment) x.erase(x.begin(), x.end() - kMaxSegment);
  }
  periods_seen_ += static_cast<int>(k);
  return changed;
}

void CostEvidence::restart() {
  closed_.add(segment_sums());
  for (auto& x : segment_) x.clear();
}

}  // namespace npblu
