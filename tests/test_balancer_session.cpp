#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "balance/balancer_session.hpp"
#include "balance/window_summary.hpp"
#include "tests/balancer_windows.hpp"

using namespace npblu;
using namespace npblu::balance_test;

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
  // After: 43 x 1 and 19 x 2.25 = 42.75, over their own mean (not the
  // stripes' before, whose mean is other: the ranks' costs differ).
  EXPECT_NEAR(rec.predicted_after, 43.0 / 42.875, 1e-9);
  EXPECT_DOUBLE_EQ(rec.price_paid, 4.0);
  EXPECT_DOUBLE_EQ(s.step_price(), 4.0);
}

// The balance quality of a decision, the bottleneck ratio the C API
// reports: equal stripes of 62 columns at per-column costs 1 and 2.25 take
// max(31, 31 x 2.25) = 69.75 where the best whole-column partition, 43,19,
// takes max(43, 19 x 2.25) = 43; the decision moves there in one step.
TEST(BalancerSession, PredictsTheBottleneckRatioBeforeAndAfter) {
  const Partition start = Partition::equal({1, 63}, 2);
  BalancerSession s(settings(), start);
  EXPECT_EQ(predicted_quality(s.last()).before, 0.0);  // no decision yet
  std::vector<WindowReport> reports;
  for (auto& w : window_for(start, {1.0, 2.25})) reports.push_back({w, 0.0});
  const PredictedQuality q = predicted_quality(s.decide(5, reports, 200));
  ASSERT_EQ(s.current().widths(), (std::vector<int>{43, 19}));
  EXPECT_NEAR(q.before, 69.75 / 43, 1e-12);
  EXPECT_NEAR(q.after, 1.0, 1e-12);
  // The log keeps the step's quality (the reports' "decisions" write it).
  ASSERT_EQ(s.log().size(), 1u);
  EXPECT_EQ(s.log()[0].predicted_quality_before, q.before);
  EXPECT_EQ(s.log()[0].predicted_quality_after, q.after);
  // Within limits: rank 0 may hold 40 columns at most, so 40,22 is the best (max(40, 49.5)).
  BalancerSession limited(settings(), start);
  limited.set_max_widths({40, 62});
  const PredictedQuality l = predicted_quality(limited.decide(5, reports, 200));
  EXPECT_NEAR(l.before, 69.75 / 49.5, 1e-12);
  EXPECT_NEAR(l.after, 1.0, 1e-12);
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

TEST(BalancerSession, StatesOfVersions2And3AreRead) {
  // A checkpoint of the version before the count of samples since the
  // speeds changed: that count is read as the samples the segment keeps.
  BalancerSession s(settings(), Partition::equal({1, 40}, 2));
  std::vector<WindowReport> reports;
  for (auto& w : window_for(s.current(), {1.0, 1.0})) reports.push_back({w, 0.0});
  for (int window = 1; window <= 3; ++window) s.decide(5 * window, reports, 100);
  std::vector<double> state = s.saved_state();
  // version, ranks, then the evidence: its rank count, each rank's 15
  // samples (a count and the values), 5 noise sums, the periods seen, held;
  // then windows since the last step, the stripes' error, a step wanted.
  const std::size_t held_at = 3 + 2 * 16 + 5 + 1, wanted_at = held_at + 3;
  ASSERT_EQ(state[0], 4.0);
  ASSERT_EQ(state[held_at], 15.0);
  ASSERT_EQ(state[wanted_at], 0.0);  // equal ranks: no step wanted
  state.erase(state.begin() + static_cast<std::ptrdiff_t>(wanted_at));
  for (const double version : {3.0, 2.0}) {
    state[0] = version;
    if (version == 2.0) state.erase(state.begin() + static_cast<std::ptrdiff_t>(held_at));
    BalancerSession old(settings(), Partition::equal({1, 40}, 2));
    old.restore_state(state);
    EXPECT_EQ(old.saved_state(), s.saved_state()) << version;  // 15 samples kept: 15 held
  }
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
