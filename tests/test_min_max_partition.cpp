#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "balance/min_max_partition.hpp"
#include "balance/partition.hpp"

using namespace npblu;

namespace {

// Every composition of `columns` into `ranks` widths >= min_width (and <=
// max_width, when given): the brute-force reference.
double brute_force_best(const std::vector<double>& cost, int columns, int min_width,
                        const std::vector<int>& max_width = {}) {
  const int ranks = static_cast<int>(cost.size());
  const auto most = [&](int r) { return max_width.empty() ? columns : max_width[r]; };
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int, int, double)> place = [&](int r, int left, double worst) {
    if (r == ranks - 1) {
      if (left >= min_width && left <= most(r)) best = std::min(best, std::max(worst, left * cost[r]));
      return;
    }
    for (int x = min_width; x <= std::min(most(r), left - min_width * (ranks - 1 - r)); ++x)
      place(r + 1, left - x, std::max(worst, x * cost[r]));
  };
  place(0, columns, 0.0);
  return best;
}

// The greedy one column at a time from the minimum widths, each to the
// rank that would finish it soonest (the exchange argument's order): the
// reference for column counts brute force cannot reach.
double column_by_column_best(const std::vector<double>& cost, int columns, int min_width) {
  std::vector<long long> width(cost.size(), min_width);
  double worst = 0.0;
  for (std::size_t r = 0; r < cost.size(); ++r) worst = std::max(worst, min_width * cost[r]);
  for (long long left = columns - static_cast<long long>(cost.size()) * min_width; left > 0; --left) {
    std::size_t soonest = 0;
    for (std::size_t r = 1; r < cost.size(); ++r)
      if ((width[r] + 1) * cost[r] < (width[soonest] + 1) * cost[soonest]) soonest = r;
    worst = std::max(worst, static_cast<double>(++width[soonest]) * cost[soonest]);
  }
  return worst;
}

}  // namespace

TEST(MinMaxPartition, ManyColumnsMatchTheColumnByColumnGreedy) {
  // best_bottleneck starts from the water level, not from the minimum
  // widths: the same answer, bit for bit, with ties (equal costs), ranks
  // held at the minimum (costs 1000x the others) and every min_width.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> log_cost(-2.0, 2.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 1 + static_cast<int>(rng() % 64), min_width = 1 + trial % 3;
    const int columns = ranks * min_width + static_cast<int>(rng() % 5000);
    std::vector<double> cost(ranks);
    for (auto& c : cost) {
      const unsigned kind = rng() % 8;
      c = kind == 0   ? 1.0
          : kind == 1 ? 1000.0 * std::pow(10.0, log_cost(rng))
                      : std::pow(10.0, log_cost(rng));
    }
    EXPECT_EQ(best_bottleneck(cost, columns, min_width), column_by_column_best(cost, columns, min_width))
        << "trial " << trial << ": " << ranks << " ranks, " << columns << " columns";
  }
}

TEST(MinMaxPartition, MatchesBruteForceOnSmallCases) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> speed(0.2, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int ranks = 1 + trial % 4, columns = 2 * ranks + trial % 13;
    std::vector<double> cost(ranks);
    for (auto& c : cost) c = 1.0 / speed(rng);
    const double expected = brute_force_best(cost, columns, 2);
    EXPECT_DOUBLE_EQ(best_bottleneck(cost, columns, 2), expected) << trial;
    std::vector<int> reference(ranks, 2);
    reference.back() += columns - 2 * ranks;  // everything on the last rank
    const auto w = best_widths_near(cost, reference, 2);
    EXPECT_EQ(std::accumulate(w.begin(), w.end(), 0), columns);
    for (int x : w) EXPECT_GE(x, 2);
    EXPECT_DOUBLE_EQ(bottleneck(w, cost), expected) << trial;
  }
}

TEST(MinMaxPartition, MaximumWidthsMatchBruteForce) {
  // Maximum widths (what each rank's memory holds) that bind on some ranks
  // and not on others: the best under them, and a partition achieving it
  // that keeps within them.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> speed(0.1, 1.0);
  int bound = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int ranks = 1 + trial % 5, columns = 2 * ranks + trial % 17;
    std::vector<double> cost(ranks);
    for (auto& c : cost) c = 1.0 / speed(rng);
    std::vector<int> most(ranks);
    int total = 0;
    for (auto& m : most) total += m = 2 + static_cast<int>(rng() % (columns - 2 * ranks + 3));
    if (total < columns) most.back() += columns - total;
    const double expected = brute_force_best(cost, columns, 2, most);
    bound += expected > brute_force_best(cost, columns, 2) ? 1 : 0;
    EXPECT_DOUBLE_EQ(best_bottleneck(cost, columns, 2, most), expected) << trial;
    std::vector<int> reference(ranks, 2);
    reference.back() += columns - 2 * ranks;
    const auto w = best_widths_near(cost, reference, 2, most);
    EXPECT_EQ(std::accumulate(w.begin(), w.end(), 0), columns) << trial;
    for (int r = 0; r < ranks; ++r) {
      EXPECT_GE(w[r], 2) << trial;
      EXPECT_LE(w[r], most[r]) << trial << " rank " << r;
    }
    EXPECT_DOUBLE_EQ(bottleneck(w, cost), expected) << trial;
  }
  EXPECT_GT(bound, 100);  // the limits changed the answer in many trials
}

TEST(MinMaxPartition, MaximumWidthsAtScaleMatchTheGreedy) {
  // 1024 ranks, a few thousand columns: the capped bisection gives what the
  // column-by-column greedy gives when the limits do not bind, and the
  // fastest ranks stop at their limits when they do.
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> log_cost(-1.0, 1.0);
  std::vector<double> cost(1024);
  for (auto& c : cost) c = std::pow(10.0, log_cost(rng));
  const int columns = 20 * 1024;
  const std::vector<int> loose(1024, columns);
  EXPECT_EQ(best_bottleneck(cost, columns, 2, loose), column_by_column_best(cost, columns, 2));
  const std::vector<int> tight(1024, 24);
  const auto w = best_widths_near(cost, std::vector<int>(1024, 20), 2, tight);
  EXPECT_EQ(std::accumulate(w.begin(), w.end(), 0), columns);
  EXPECT_EQ(*std::max_element(w.begin(), w.end()), 24);
  EXPECT_DOUBLE_EQ(bottleneck(w, cost), best_bottleneck(cost, columns, 2, tight));
  EXPECT_GT(best_bottleneck(cost, columns, 2, tight), best_bottleneck(cost, columns, 2));
}

TEST(MinMaxPartition, MaximumWidthsThatCannotHoldTheColumnsRefused) {
  const std::vector<double> cost{1.0, 1.0};
  EXPECT_THROW(best_bottleneck(cost, 10, 2, std::vector<int>{4, 5}), std::invalid_argument);  // 9 < 10
  EXPECT_THROW(best_bottleneck(cost, 10, 2, std::vector<int>{1, 9}), std::invalid_argument);  // below min
  EXPECT_THROW(best_bottleneck(cost, 10, 2, std::vector<int>{10}), std::invalid_argument);    // one of two
  EXPECT_DOUBLE_EQ(best_bottleneck(cost, 10, 2, std::vector<int>{3, 7}), 7.0);
}

TEST(MinMaxPartition, KeepsCutsThatNeedNotMove) {
  // Rank 3 is slow: only the cut next to it must move; 20,20 of ranks 0
  // and 1 are already as good as anything.
  const std::vector<double> cost{1.0, 1.0, 1.0, 2.0};
  const std::vector<int> now{20, 20, 20, 20};
  const auto w = best_widths_near(cost, now, 2);
  EXPECT_DOUBLE_EQ(bottleneck(w, cost), 23.0);  // 23,23,23,11 -> max(23, 22)
  EXPECT_EQ(w[3], 11);
  EXPECT_LE(w[0], 23);
}

TEST(MinMaxPartition, MultiHopFlowInOneStep) {
  // One slow rank at the end of 64: the ranks far from it must shift too.
  std::vector<double> cost(64, 1.0);
  cost.back() = 1.0 / 0.444;
  std::vector<int> equal(64, 20);
  const auto w = best_widths_near(cost, equal, 2);
  EXPECT_EQ(w.back(), 9);  // 9 * 2.25 = 20.3; the other 1271 columns over 63 ranks: 21 (20.2)
  EXPECT_LE(bottleneck(w, cost), 21.0);
}

TEST(MinMaxPartition, WeightsRoundingNeverWorseAndEqualStaysEqual) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> weight(0.3, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const int ranks = 2 + trial % 7;
    std::vector<double> w(ranks), cost(ranks);
    for (int r = 0; r < ranks; ++r) {
      w[r] = weight(rng);
      cost[r] = 1.0 / w[r];
    }
    const auto p = Partition::from_weights({1, 63}, w);
    const double best = best_bottleneck(cost, 62, 2);
    EXPECT_NEAR(bottleneck(p.widths(), cost), best, 1e-12 * best) << trial;
  }
  for (int ranks = 1; ranks <= 31; ++ranks) {
    EXPECT_EQ(Partition::from_weights({1, 63}, std::vector<double>(ranks, 0.7)),
              Partition::equal({1, 63}, ranks));
  }
}

TEST(MinMaxPartition, BadInputRejected) {
  EXPECT_THROW(best_bottleneck(std::vector<double>{1.0, 0.0}, 10, 2), std::invalid_argument);
  EXPECT_THROW(best_bottleneck(std::vector<double>{1.0, 1.0}, 3, 2), std::invalid_argument);
  EXPECT_THROW(best_bottleneck(std::vector<double>{}, 3, 2), std::invalid_argument);
}
