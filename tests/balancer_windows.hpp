#pragma once
// What the balancer tests feed it: windows of modelled iterations (each rank
// computes its columns times a per-column cost, with seeded noise, and waits
// for the slowest) and the settings they start from.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "balance/partition.hpp"

namespace npblu::balance_test {

// Per-rank noise on compute, AR(1) in time with marginal deviation `noise`.
struct Noise {
  Noise(double level, double correlation) : noise(level), rho(correlation) {}
  double noise = 0.0, rho = 0.0;
  std::mt19937_64 rng{7};
  std::vector<double> state;
  double next(int r) {
    if (noise == 0.0) return 1.0;
    std::normal_distribution<double> g;
    if (state.size() <= std::size_t(r)) state.resize(r + 1, 0.0);
    state[r] = rho * state[r] + std::sqrt(1 - rho * rho) * g(rng);
    return std::max(0.1, 1.0 + noise * state[r]);
  }
};

// A window of k iterations in which each rank computes columns * cost (times
// noise) and waits for the slowest rank.
inline std::vector<RankSamples> window_for(const Partition& p, const std::vector<double>& cost, int k = 5,
                                           Noise* noise = nullptr, std::vector<double> share = {}) {
  std::vector<RankSamples> w(p.ranks());
  for (int t = 0; t < k; ++t) {
    std::vector<double> c(p.ranks());
    double slowest = 0.0;
    for (int r = 0; r < p.ranks(); ++r) {
      const double s = share.empty() ? 1.0 : share[r];
      c[r] = p[r].width() * cost[r] * (noise ? noise->next(r) : 1.0);
      slowest = std::max(slowest, c[r] / s);
    }
    for (int r = 0; r < p.ranks(); ++r) {
      w[r].compute.push_back(c[r]);
      w[r].wait.push_back(slowest - c[r]);
      w[r].core_share = share.empty() ? 1.0 : share[r];
    }
  }
  return w;
}

inline BalancerSettings settings(double threshold = 0.0, double damping = 1.0, int persistence = 1) {
  return {5, threshold, damping, kMinimumColumnWidth, persistence};
}

}  // namespace npblu::balance_test
