#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "balance/balancer_session.hpp"
#include "balance/cost_evidence.hpp"
#include "balance/diffusive_balancer.hpp"
#include "balance/min_max_partition.hpp"
#include "balance/window_summary.hpp"

using namespace npblu;

namespace {

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
std::vector<RankSamples> window_for(const Partition& p, const std::vector<double>& cost, int k = 5,
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

BalancerSettings settings(double threshold = 0.0, double damping = 1.0, int persistence = 1) {
  return {5, threshold, damping, kMinimumColumnWidth, persistence};
}

double ratio(const Partition& p, const std::vector<double>& cost) {
  return bottleneck(p.widths(), cost) / best_bottleneck(cost, p.interior().width(), kMinimumColumnWidth);
}

}  // namespace

TEST(DiffusiveBalancer, EqualisingShift) {
  // 31 columns at cost 1 vs 31 at cost 2.25 (speed 0.444).
  EXPECT_NEAR(DiffusiveBalancer::equalising_shift(31, {31.0, 0}, 31, {31 * 2.25, 0}), -11.923, 1e-3);
  EXPECT_NEAR(DiffusiveBalancer::equalising_shift(40, {40.0, 0}, 22, {22.0, 0}), 9.0, 1e-12);
  EXPECT_EQ(DiffusiveBalancer::equalising_shift(40, {0.0, 0}, 22, {22.0, 0}), 0.0);
}

TEST(DiffusiveBalancer, OneStepToTheBestSplitThenStays) {
  DiffusiveBalancer b(settings());
  Partition p = Partition::equal({1, 63}, 2);
  const std::vector<double> cost{1.0, 2.25};
  const auto d = b.decide(p, window_for(p, cost), {0.0, 200.0});
  EXPECT_EQ(d.partition.widths(), (std::vector<int>{43, 19}));
  EXPECT_EQ(d.moves, (std::vector<int>{-12}));
  EXPECT_EQ(d.moved_columns, 12);
  EXPECT_GT(d.gain, 0.0);
  p = d.partition;
  EXPECT_NEAR(ratio(p, cost), 1.0, 1e-12);
  for (int step = 0; step < 20; ++step) {
    EXPECT_EQ(b.decide(p, window_for(p, cost), {0.0, 200.0}).moved_columns, 0) << "step " << step;
  }
}

TEST(DiffusiveBalancer, OneDampingFractionForTheWholeChain) {
  // Half the way for every cut: cut b moves round(0.5 x its flow), never a
  // per-boundary fraction.
  const int ranks = 8;
  std::vector<double> cost(ranks, 1.0);
  cost[5] = 3.0;
  DiffusiveBalancer full(settings()), half(settings(0.0, 0.5));
  const Partition p = Partition::equal({1, 1 + 20 * ranks}, ranks);
  const auto to_target = full.decide(p, window_for(p, cost));
  const auto d = half.decide(p, window_for(p, cost));
  ASSERT_GT(to_target.moved_columns, 0);
  for (int b = 0; b + 1 < ranks; ++b) {
    EXPECT_EQ(d.moves[b], static_cast<int>(std::lround(0.5 * to_target.moves[b]))) << "boundary " << b;
  }
}

TEST(DiffusiveBalancer, BalancedOrUnconfirmedByWaitsDoesNothing) {
  DiffusiveBalancer b(settings(0.02));
  const Partition p = Partition::equal({1, 31}, 3);
  EXPECT_EQ(b.decide(p, window_for(p, {1.0, 1.0, 1.0})).moved_columns, 0);
  // Rank 1 slower by its compute, but the waits do not say so: no move.
  auto w = window_for(p, {1.0, 2.0, 1.0});
  for (auto& r : w) std::fill(r.wait.begin(), r.wait.end(), 1.0);
  DiffusiveBalancer fresh(settings(0.02));
  EXPECT_EQ(fresh.decide(p, w).moved_columns, 0);
}

TEST(DiffusiveBalancer, AStepMustPayItsPrice) {
  // 2 ranks, 20 columns each, rank 1 10% slower: the best split (21, 19)
  // gains 1 s per iteration. Over 5 iterations that does not pay a 9 s
  // step; over 200 it does, once the speeds have held long enough to be
  // expected to last 10 iterations (the horizon is at most the samples
  // seen since the speeds last changed).
  const Partition p = Partition::equal({1, 41}, 2);
  const std::vector<double> cost{1.0, 1.1};
  DiffusiveBalancer short_run(settings()), long_run(settings());
  for (int w = 0; w < 5; ++w)
    EXPECT_EQ(short_run.decide(p, window_for(p, cost), {9.0, 5.0}).moved_columns, 0);
  const auto first = long_run.decide(p, window_for(p, cost), {9.0, 200.0});
  EXPECT_EQ(first.moved_columns, 0);  // 5 iterations of evidence: a horizon of 5
  EXPECT_DOUBLE_EQ(first.horizon, 5.0);
  const auto d = long_run.decide(p, window_for(p, cost), {9.0, 200.0});
  EXPECT_EQ(d.moved_columns, 1);  // 10 iterations of evidence: 10 s gained
  EXPECT_GT(d.gain * d.horizon, 9.0);
  // Unmeasured price: one iteration (22 s here) is the prior.
  DiffusiveBalancer prior(settings());
  EXPECT_EQ(prior.decide(p, window_for(p, cost), {0.0, 20.0}).moved_columns, 0);
  EXPECT_NEAR(prior.decide(p, window_for(p, cost), {0.0, 20.0}).price, 22.0, 1e-9);
}

TEST(DiffusiveBalancer, NoiseAloneNeverMovesAColumn) {
  // 64 equal ranks, 10% independent noise, then 5% correlated at 0.9: 50
  // windows each, not one column moves.
  for (const auto& [level, rho] : {std::pair{0.10, 0.0}, std::pair{0.05, 0.9}}) {
    DiffusiveBalancer b(settings(0.02));
    Noise noise{level, rho};
    const Partition p = Partition::equal({1, 1 + 20 * 64}, 64);
    const std::vector<double> cost(64, 1.0);
    for (int w = 0; w < 50; ++w) {
      EXPECT_EQ(b.decide(p, window_for(p, cost, 5, &noise), {0.0, 250.0 - 5 * w}).moved_columns, 0)
          << "noise " << level << " rho " << rho << " window " << w;
    }
  }
}

TEST(DiffusiveBalancer, NoisySlowRankBalancedWithinAFewSteps) {
  // 64 ranks, rank 32 at speed 0.444, 5% independent noise: within 3 steps
  // the bottleneck ratio is at most 1.05 and stays there.
  const int ranks = 64;
  std::vector<double> cost(ranks, 1.0);
  cost[32] = 1.0 / 0.444;
  DiffusiveBalancer b(settings(0.02));
  Noise noise{0.05, 0.0};
  Partition p = Partition::equal({1, 1 + 20 * ranks}, ranks);
  int steps = 0, reached = -1;
  for (int w = 0; w < 50; ++w) {
    const auto d = b.decide(p, window_for(p, cost, 5, &noise), {0.0, 250.0 - 5 * w});
    steps += d.moved_columns > 0;
    p = d.partition;
    if (reached < 0 && ratio(p, cost) <= 1.05) reached = steps;
    if (reached >= 0) {
      EXPECT_LE(ratio(p, cost), 1.10) << "window " << w;
    }
  }
  EXPECT_GE(reached, 1);
  EXPECT_LE(reached, 3);
  EXPECT_LE(ratio(p, cost), 1.05);
}

TEST(DiffusiveBalancer, ManyRanksKeepMinimumWidthAndTile) {
  DiffusiveBalancer b(settings());
  Partition p = Partition::equal({1, 31}, 3);
  for (int step = 0; step < 5; ++step) p = b.decide(p, window_for(p, {1.0, 1.0, 50.0})).partition;
  int sum = 0;
  for (int w : p.widths()) {
    EXPECT_GE(w, kMinimumColumnWidth);
    sum += w;
  }
  EXPECT_EQ(sum, 30);
  EXPECT_EQ(p.widths()[2], kMinimumColumnWidth);
}

TEST(DiffusiveBalancer, StaircaseOfSpeedsBalancedGloballyInOneStep) {
  const int ranks = 32;
  std::vector<double> cost(ranks);
  for (int r = 0; r < ranks; ++r) cost[r] = 1.0 / (0.444 + (1.0 - 0.444) * r / (ranks - 1));
  DiffusiveBalancer b(BalancerSettings{});
  Partition p = Partition::equal({1, 1 + 20 * ranks}, ranks);
  const auto d = b.decide(p, window_for(p, cost));
  ASSERT_GT(d.moved_columns, 0);
  EXPECT_NEAR(ratio(d.partition, cost), 1.0, 1e-9);
  EXPECT_LT(d.predicted_after, d.predicted_before);
  p = d.partition;
  for (int w = 0; w < 10; ++w) EXPECT_EQ(b.decide(p, window_for(p, cost)).moved_columns, 0);
}

TEST(DiffusiveBalancer, OnlyNeighboursExchangeButFlowsCrossManyBoundaries) {
  const int ranks = 16;
  std::vector<double> cost(ranks, 1.0);
  cost.back() = 1.0 / 0.444;
  DiffusiveBalancer b(BalancerSettings{});
  const Partition p = Partition::equal({1, 1 + 20 * ranks}, ranks);
  const auto d = b.decide(p, window_for(p, cost));
  ASSERT_EQ(d.moves.size(), 15u);
  EXPECT_LT(d.moves.back(), -5);
  for (std::size_t m = 1; m < d.moves.size(); ++m) EXPECT_LE(d.moves[m], d.moves[m - 1]) << m;
}

TEST(DiffusiveBalancer, ChangeOfSpeedsIsFollowed) {
  DiffusiveBalancer b(settings());
  Partition p = Partition::equal({1, 63}, 2);
  for (int w = 0; w < 4; ++w) p = b.decide(p, window_for(p, {1.0, 2.25})).partition;
  ASSERT_EQ(p.widths(), (std::vector<int>{43, 19}));
  // Rank 0 becomes the slow one: the window that shows it restarts the
  // evidence, the next one moves.
  const auto shown = b.decide(p, window_for(p, {2.25, 1.0}));
  EXPECT_TRUE(shown.speeds_changed);
  p = shown.partition;
  for (int w = 0; w < 2; ++w) p = b.decide(p, window_for(p, {2.25, 1.0})).partition;
  EXPECT_EQ(p.widths(), (std::vector<int>{19, 43}));
}

TEST(DiffusiveBalancer, CoreShareMakesASharedCoreLookSlower) {
  const RankWindow shared = DiffusiveBalancer::effective({4.0, 6.0, 0.5}, 0.5);
  EXPECT_DOUBLE_EQ(shared.compute, 8.0);
  EXPECT_DOUBLE_EQ(shared.wait, 2.0);
  const RankWindow whole = DiffusiveBalancer::effective({4.0, 6.0, 0.95}, 0.95);
  EXPECT_DOUBLE_EQ(whole.compute, 4.0);
  EXPECT_DOUBLE_EQ(whole.wait, 6.0);
}

TEST(DiffusiveBalancer, ThreeRanksOnTwoCoresGetCapacityShares) {
  // Rank 0 alone on a core, ranks 1 and 2 sharing the other: capacity split
  // 31 / 15.5 / 15.5; the pair must not drift apart.
  DiffusiveBalancer b(settings());
  Partition p = Partition::equal({1, 63}, 3);
  for (int step = 0; step < 20; ++step) {
    const int w1 = p[1].width(), w2 = p[2].width();
    const double s1 = double(w1) / (w1 + w2), s2 = double(w2) / (w1 + w2);
    p = b.decide(p, window_for(p, {1.0, 1.0, 1.0}, 5, nullptr, {1.0, s1, s2})).partition;
  }
  EXPECT_NEAR(p[0].width(), 31, 2) << p.to_string();
  EXPECT_NEAR(p[1].width(), p[2].width(), 3) << p.to_string();
}

TEST(DiffusiveBalancer, SettingsValidatedNamingTheSetting) {
  auto message = [](BalancerSettings s) {
    try {
      validate(s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message({0, 0.02, 1.0}), "every must be at least 1, got 0");
  EXPECT_EQ(message({10, -1.0, 1.0}).rfind("threshold must", 0), 0u);
  EXPECT_EQ(message({10, 0.02, 0.0}).rfind("damping must be in (0, 1]", 0), 0u);
  EXPECT_EQ(message({10, 0.02, 1.5}).rfind("damping", 0), 0u);
  EXPECT_EQ(message({10, 0.02, 1.0, 0}).rfind("min_width", 0), 0u);
  EXPECT_EQ(message({10, 0.02, 1.0, kMinimumColumnWidth, 0}).rfind("persistence", 0), 0u);
  EXPECT_THROW(DiffusiveBalancer({0, 0.02, 1.0}), std::invalid_argument);
}

TEST(CostEvidence, CorrelationShrinksTheEffectiveSampleSize) {
  // 4 ranks, 200 samples each of AR(1) noise at 5%: the estimated rho is
  // near the truth and the standard error grows with it.
  for (const double rho : {0.0, 0.9}) {
    Noise noise{0.05, rho};
    CostEvidence evidence(4);
    for (int w = 0; w < 40; ++w) {
      std::vector<std::vector<double>> costs(4);
      for (int r = 0; r < 4; ++r)
        for (int t = 0; t < 5; ++t) costs[r].push_back(noise.next(r));
      evidence.add(costs, 100.0);  // (no change detection here)
    }
    const CostEstimate e = evidence.estimate();
    EXPECT_NEAR(e.correlation, rho, 0.1) << rho;
    EXPECT_NEAR(e.spread, 0.05, 0.015) << rho;
    const double independent_error = 0.05 / std::sqrt(200.0);
    if (rho == 0.0) {
      EXPECT_NEAR(e.error[0], independent_error, 0.5 * independent_error);
    } else {
      EXPECT_GT(e.error[0], 3.0 * independent_error);  // (1.9 / 0.1)^0.5 = 4.4 in theory
      EXPECT_LT(e.effective_samples(), 200.0 * 0.2);
    }
  }
}

TEST(CostEvidence, ShortSeriesAreNotOverTrusted) {
  // Before kPriorPeriods samples the correlation is assumed high.
  CostEvidence evidence(2);
  evidence.add(std::vector<std::vector<double>>{{1.0, 1.01, 0.99, 1.0, 1.02}, {1.0, 0.98, 1.0, 1.01, 1.0}},
               100.0);
  EXPECT_GE(evidence.estimate().correlation, CostEvidence::kPriorCorrelation);
}

TEST(BalancerSession, LogsPredictedAndMeasuredImbalanceAndThePricePaid) {
  const Partition start = Partition::equal({1, 63}, 2);
  BalancerSession s(settings(), start);
  std::vector<WindowReport> reports;
  for (auto& w : window_for(start, {1.0, 2.25})) reports.push_back({w, 0.0});
  EXPECT_TRUE(s.due(5));
  EXPECT_FALSE(s.due(6));
  s.decide(5, reports, 200);
  ASSERT_EQ(s.steps(), 1);
  EXPECT_EQ(s.current().widths(), (std::vector<int>{43, 19}));
  EXPECT_EQ(s.previous(), start);
  EXPECT_EQ(s.step_price(), 0.0);
  reports.clear();
  for (auto& w : window_for(s.current(), {1.0, 2.25})) reports.push_back({w, 0.0});
  reports[0].migration_seconds = 3.0;
  reports[1].migration_seconds = 4.0;  // the slowest rank's time is the price
  s.decide(10, reports, 195);
  const DecisionRecord& rec = s.log().at(0);
  EXPECT_EQ(rec.iteration, 5);
  EXPECT_NEAR(rec.predicted_before, 2.25 / 1.625, 1e-9);
  EXPECT_NEAR(rec.measured_before, 2.25 / 1.625, 1e-9);
  EXPECT_LT(rec.measured_after, 1.05);
  EXPECT_LT(rec.predicted_after, 1.05);
  EXPECT_DOUBLE_EQ(rec.price_paid, 4.0);
  EXPECT_DOUBLE_EQ(s.step_price(), 4.0);
}

// A restart continues the balancer: a session restored from another's saved
// state decides, window after window, exactly as the one that went on.
TEST(BalancerSession, RestoredStateContinuesBitForBit) {
  const std::vector<double> cost{1.0, 1.0, 2.0, 1.0};
  Noise noise(0.03, 0.5);
  BalancerSession going_on(settings(0.0, 0.5), Partition::equal({1, 80}, 4));
  int iteration = 0;
  auto next_reports = [&](const BalancerSession& s, double migration) {
    std::vector<WindowReport> reports;
    for (auto& w : window_for(s.current(), cost, 5, &noise)) reports.push_back({w, migration});
    return reports;
  };
  for (int window = 0; window < 6; ++window) {
    iteration += 5;
    going_on.decide(iteration, next_reports(going_on, going_on.steps() > 0 ? 0.01 : 0.0), 400 - iteration);
  }
  ASSERT_GT(going_on.steps(), 0);
  BalancerSession restored(settings(0.0, 0.5), going_on.current());
  restored.restore_state(going_on.saved_state());
  EXPECT_EQ(restored.saved_state(), going_on.saved_state());
  EXPECT_EQ(restored.step_price(), going_on.step_price());
  EXPECT_EQ(restored.moved_columns(), going_on.moved_columns());
  for (int window = 0; window < 30; ++window) {
    iteration += 5;
    const auto reports = next_reports(going_on, 0.0);  // the same windows for both
    const BalanceDecision a = going_on.decide(iteration, reports, 400 - iteration);
    const BalanceDecision b = restored.decide(iteration, reports, 400 - iteration);
    ASSERT_EQ(a.partition, b.partition) << "window " << window;
  }
  EXPECT_EQ(restored.saved_state(), going_on.saved_state());
}

TEST(BalancerSession, DamagedOrForeignStateRefusedAndNothingChanged) {
  BalancerSession s(settings(), Partition::equal({1, 40}, 2));
  std::vector<WindowReport> reports;
  for (auto& w : window_for(s.current(), {1.0, 1.5})) reports.push_back({w, 0.0});
  s.decide(5, reports, 100);
  const std::vector<double> good = s.saved_state();
  BalancerSession other(settings(), Partition::equal({1, 40}, 3));
  EXPECT_THROW(other.restore_state(good), std::invalid_argument);  // another rank count
  BalancerSession fresh(settings(), Partition::equal({1, 40}, 2));
  const std::vector<double> before = fresh.saved_state();
  std::vector<std::vector<double>> bad{{}, {good.begin(), good.end() - 1}, good, good, good};
  bad[2][0] = 99;                            // another version
  bad[3].push_back(0.0);                     // numbers left over
  bad[4][bad[4].size() - 3] = std::nan("");  // a NaN where a count belongs
  for (const auto& state : bad) {
    EXPECT_THROW(fresh.restore_state(state), std::invalid_argument);
    EXPECT_EQ(fresh.saved_state(), before);
  }
}

// Deciding costs time every window: when two decisions in a row took more
// than kMaxDecisionShare of the slowest rank's window, windows double, and
// they halve again once deciding is cheap; unmeasured decisions change nothing.
TEST(BalancerSession, WindowsGrowWhileDecidingIsExpensive) {
  const Partition start = Partition::equal({1, 40}, 2);
  BalancerSession s(settings(), start);
  auto reports_costing = [&](double share_of_window) {
    std::vector<WindowReport> reports;
    for (auto& w : window_for(s.current(), {1.0, 1.0}, s.window_length())) {
      const double busy = std::accumulate(w.compute.begin(), w.compute.end(), 0.0) +
                          std::accumulate(w.wait.begin(), w.wait.end(), 0.0);
      reports.push_back({w, 0.0, busy * share_of_window / (1.0 - share_of_window)});
    }
    reports[1].decision_seconds *= 3;  // waited in the gather: the least time is the cost
    return reports;
  };
  int iteration = 5;
  s.decide(iteration, reports_costing(0.0), 1000);  // not measured: every 5 stays
  EXPECT_EQ(s.window_length(), 5);
  const double expensive = 4 * BalancerSession::kMaxDecisionShare;
  for (const int length : {10, 20, 40}) {
    s.decide(iteration += s.window_length(), reports_costing(expensive), 1000);
    EXPECT_EQ(s.window_length(), length / 2);  // once is no reason
    s.decide(iteration += s.window_length(), reports_costing(expensive), 1000);
    EXPECT_EQ(s.window_length(), length);
    EXPECT_FALSE(s.due(iteration + length / 2));
    EXPECT_TRUE(s.due(iteration + length));
  }
  s.decide(iteration += 40, reports_costing(BalancerSession::kMaxDecisionShare / 2), 1000);
  EXPECT_EQ(s.window_length(), 40);  // between a quarter and the limit: stays
  for (const int length : {20, 10, 5, 5}) {
    s.decide(iteration += s.window_length(), reports_costing(BalancerSession::kMaxDecisionShare / 8), 1000);
    EXPECT_EQ(s.window_length(), length);
  }
  for (int i = 0; i < 20; ++i) s.decide(iteration += s.window_length(), reports_costing(0.5), 1000);
  EXPECT_EQ(s.window_length(), 5 * BalancerSession::kMaxStride);
  EXPECT_EQ(s.steps(), 0);  // equal ranks: nothing moved meanwhile
}

TEST(WindowSummary, EverySampleAndTheCoreShare) {
  const std::vector<IterationTiming> w{
      {9.0, 0.0, 1.0, 1.0}, {1.0, 2.0, 1.0, 0.0}, {1.2, 2.2, 1.0, 0.0}, {1.1, 2.1, 1.0, 0.0}};
  const RankSamples s = samples_of(w);
  EXPECT_EQ(s.compute, (std::vector<double>{9.0, 1.0, 1.2, 1.1}));
  EXPECT_EQ(s.wait, (std::vector<double>{0.0, 2.0, 2.2, 2.1}));
  EXPECT_DOUBLE_EQ(s.core_share, 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(samples_of({}).core_share, 1.0);
}
