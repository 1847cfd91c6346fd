#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "balance/cost_evidence.hpp"
#include "tests/balancer_windows.hpp"

using namespace npblu;
using namespace npblu::balance_test;

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

TEST(CostEvidence, HeldCountsPastTheSegmentUntilTheSpeedsChange) {
  CostEvidence evidence(2);
  const std::vector<std::vector<double>> steady{{1.0, 1.01, 0.99, 1.0, 1.02}, {1.0, 0.98, 1.0, 1.01, 1.0}};
  for (int w = 0; w < 60; ++w) ASSERT_FALSE(evidence.add(steady, 4.0));
  EXPECT_EQ(evidence.samples(), CostEvidence::kMaxSegment);
  EXPECT_EQ(evidence.held(), 300);
  // Rank 1 twice as slow: a change of speeds; the count starts again.
  const std::vector<std::vector<double>> changed{steady[0], {2.0, 1.96, 2.0, 2.02, 2.0}};
  ASSERT_TRUE(evidence.add(changed, 4.0));
  EXPECT_EQ(evidence.held(), 0);
  evidence.add(changed, 4.0);
  EXPECT_EQ(evidence.held(), 5);
}

TEST(CostEvidence, ShortSeriesAreNotOverTrusted) {
  // Before kPriorPeriods samples the correlation is assumed high.
  CostEvidence evidence(2);
  evidence.add(std::vector<std::vector<double>>{{1.0, 1.01, 0.99, 1.0, 1.02}, {1.0, 0.98, 1.0, 1.01, 1.0}},
               100.0);
  EXPECT_GE(evidence.estimate().correlation, CostEvidence::kPriorCorrelation);
}
