#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "balance/partition.hpp"

using npblu::ColumnRange;
using npblu::Partition;

namespace {

void expect_tiles(const Partition& p) {
  int begin = p.interior().begin;
  for (const auto& r : p.ranges()) {
    EXPECT_EQ(r.begin, begin);
    EXPECT_GE(r.width(), npblu::kMinimumColumnWidth);
    begin = r.end;
  }
  EXPECT_EQ(begin, p.interior().end);
}

}  // namespace

TEST(Partition, EqualSpreadsRemainderToLowestRanks) {
  const Partition p = Partition::equal({1, 11}, 3);  // class S: 10 interior columns
  EXPECT_EQ(p.widths(), (std::vector<int>{4, 3, 3}));
  EXPECT_EQ(p[0], (ColumnRange{1, 5}));
  EXPECT_EQ(p[2], (ColumnRange{8, 11}));
  expect_tiles(p);
}

TEST(Partition, EqualOnOneRankOwnsEverything) {
  const Partition p = Partition::equal({1, 63}, 1);
  EXPECT_EQ(p[0], (ColumnRange{1, 63}));
}

TEST(Partition, AnyRankCountUpToTheMinimumWidth) {
  const ColumnRange interior{1, 31};  // class W: 31 interior columns
  for (int ranks = 1; ranks <= Partition::max_ranks(interior); ++ranks) {
    const Partition p = Partition::equal(interior, ranks);
    ASSERT_EQ(p.ranks(), ranks);
    expect_tiles(p);
    const auto w = p.widths();
    EXPECT_LE(*std::max_element(w.begin(), w.end()) - *std::min_element(w.begin(), w.end()), 1);
  }
  EXPECT_EQ(Partition::max_ranks(interior), 15);
  EXPECT_THROW(Partition::equal(interior, 16), std::invalid_argument);
}

TEST(Partition, TooManyRanksMessageNamesTheLimit) {
  try {
    Partition::equal({1, 11}, 6);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too many ranks"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("at most 5"), std::string::npos);
  }
}

TEST(Partition, ExplicitWidths) {
  const std::vector<int> widths{3, 5, 2};
  const Partition p = Partition::from_widths({1, 11}, widths);
  EXPECT_EQ(p.widths(), widths);
  EXPECT_EQ(p.to_string(), "3,5,2");
  EXPECT_EQ(p.owner_of(1), 0);
  EXPECT_EQ(p.owner_of(3), 0);
  EXPECT_EQ(p.owner_of(4), 1);
  EXPECT_EQ(p.owner_of(8), 1);
  EXPECT_EQ(p.owner_of(9), 2);
  EXPECT_EQ(p.owner_of(10), 2);
  EXPECT_THROW((void)p.owner_of(0), std::out_of_range);
  EXPECT_THROW((void)p.owner_of(11), std::out_of_range);
}

TEST(Partition, ExplicitWidthsRejected) {
  EXPECT_THROW(Partition::from_widths({1, 11}, std::vector<int>{3, 4, 2}), std::invalid_argument);  // sum 9
  EXPECT_THROW(Partition::from_widths({1, 11}, std::vector<int>{9, 1}), std::invalid_argument);  // below min
  EXPECT_THROW(Partition::from_widths({1, 11}, std::vector<int>{12, -2}), std::invalid_argument);
  EXPECT_THROW(Partition::from_widths({1, 11}, std::vector<int>{}), std::invalid_argument);
}

TEST(Partition, WeightsProportionalWithExactSum) {
  const std::vector<double> weights{2.25, 1.0, 1.0};
  const Partition p = Partition::from_weights({1, 63}, weights);  // 62 columns
  // shares 32.82, 14.59, 14.59 -> floors 32,14,14 (60); remainders .82,.59,.59 -> +1 rank0, +1 rank1
  EXPECT_EQ(p.widths(), (std::vector<int>{33, 15, 14}));
  expect_tiles(p);
}

TEST(Partition, TinyWeightRaisedToMinimumFromTheWidest) {
  const std::vector<double> weights{1.0, 1e-9, 1.0};
  const Partition p = Partition::from_weights({1, 11}, weights);
  EXPECT_EQ(p.widths(), (std::vector<int>{4, 2, 4}));
  expect_tiles(p);
}

TEST(Partition, RaisedStripeTakesFromTheRankFurthestOverItsShare) {
  // Calibrated weights of a CI run (a rank slowed 4x): shares 3.98, 0.10,
  // 3.36, 2.56 round to 4, 0, 3, 3. Rank 1 is raised to 2 and, being the
  // bottleneck at any width, leaves every other split optimal: taking from
  // the widest gave 2, 2, 3, 3 (the heaviest rank narrowest).
  const std::vector<double> weights{13734.942453877147, 335.9, 11600.0, 8821.569715546499};
  const Partition p = Partition::from_weights({1, 11}, weights);
  EXPECT_EQ(p.widths(), (std::vector<int>{3, 2, 3, 2}));
  expect_tiles(p);
}

TEST(Partition, WeightsAtTheEndsOfDoubleRange) {
  // Any positive finite weights: their sum may overflow, their ratio too.
  EXPECT_EQ(Partition::from_weights({1, 11}, std::vector<double>{1e308, 1e308}).widths(),
            (std::vector<int>{5, 5}));
  EXPECT_EQ(Partition::from_weights({1, 11}, std::vector<double>{1e300, 1e-300}).widths(),
            (std::vector<int>{8, 2}));
  EXPECT_EQ(Partition::from_weights({1, 11}, std::vector<double>{1e-310, 1.0, 1e-310}).widths(),
            (std::vector<int>{2, 6, 2}));
  EXPECT_EQ(Partition::from_weights({1, 11}, std::vector<double>{2e-320, 1e-320}).widths(),
            (std::vector<int>{7, 3}));
}

TEST(Partition, BadWeightsRejected) {
  const ColumnRange interior{1, 11};
  EXPECT_THROW(Partition::from_weights(interior, std::vector<double>{1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(Partition::from_weights(interior, std::vector<double>{1.0, -1.0}), std::invalid_argument);
  EXPECT_THROW(Partition::from_weights(interior, std::vector<double>{1.0, std::nan("")}),
               std::invalid_argument);
  EXPECT_THROW(
      Partition::from_weights(interior, std::vector<double>{1.0, std::numeric_limits<double>::infinity()}),
      std::invalid_argument);
  EXPECT_THROW(Partition::from_weights(interior, std::vector<double>{}), std::invalid_argument);
  try {
    Partition::from_weights(interior, std::vector<double>{1.0, -1e-9});
    ADD_FAILURE() << "a negative weight was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("got -1e-09"), std::string::npos) << e.what();  // not -0.000000
  }
}

TEST(Partition, EqualWeightsMatchEqualPartition) {
  for (int ranks = 1; ranks <= 5; ++ranks) {
    const std::vector<double> ones(ranks, 1.0);
    EXPECT_EQ(Partition::from_weights({1, 11}, ones), Partition::equal({1, 11}, ranks)) << ranks;
  }
}

TEST(Partition, HeavierRankNeverStartsNarrower) {
  // What the runs check of every placement (tests/lu_runner.py): a rank at
  // least 1.5 times another's weight is at least as wide. Weights spread over
  // five decades, so that some ranks are raised to the minimum width.
  std::uint64_t state = 12345;
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  for (int trial = 0; trial < 20000; ++trial) {
    const int ranks = 2 + static_cast<int>(uniform() * 7);
    const int columns = ranks * npblu::kMinimumColumnWidth + static_cast<int>(uniform() * 40);
    std::vector<double> weights(ranks);
    for (double& w : weights) w = std::pow(10.0, 5.0 * uniform());
    const std::vector<int> widths = Partition::from_weights({1, 1 + columns}, weights).widths();
    for (int a = 0; a < ranks; ++a) {
      for (int b = 0; b < ranks; ++b) {
        if (weights[a] < 1.5 * weights[b]) continue;
        ASSERT_GE(widths[a], widths[b]) << "trial " << trial << ": rank " << a << " weight " << weights[a]
                                        << ", rank " << b << " weight " << weights[b];
      }
    }
  }
}
