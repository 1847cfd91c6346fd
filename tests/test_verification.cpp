#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "verify/class_table.hpp"
#include "verify/verification.hpp"

using namespace npblu;

namespace {
VerifiedQuantities exact_copy(const ReferenceValues& r) { return {r.xcr, r.xce, r.xci}; }
}  // namespace

TEST(Verification, ReferenceValuesVerify) {
  const auto a = *find_problem_class('A');
  const auto result = verify(exact_copy(a.reference), a.reference);
  EXPECT_TRUE(result.performed);
  EXPECT_TRUE(result.passed);
  EXPECT_EQ(result.checks.size(), 11u);
}

TEST(Verification, WithinAndBeyondEpsilon) {
  const auto s = *find_problem_class('S');
  auto q = exact_copy(s.reference);
  q.xce[2] *= 1.0 + 0.5e-8;
  EXPECT_TRUE(verify(q, s.reference).passed);
  q.xce[2] = s.reference.xce[2] * (1.0 + 2e-8);
  const auto result = verify(q, s.reference);
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.checks[7].passed);
  EXPECT_EQ(result.checks[7].name, "xce[3]");
  EXPECT_TRUE(result.checks[6].passed);
}

TEST(Verification, NaNNeverPasses) {
  const auto s = *find_problem_class('S');
  auto q = exact_copy(s.reference);
  q.xci = std::numeric_limits<double>::quiet_NaN();
  const auto result = verify(q, s.reference);
  EXPECT_FALSE(result.passed);
  EXPECT_FALSE(result.checks.back().passed);
  EXPECT_TRUE(std::isnan(result.checks.back().relative_difference));
  q = exact_copy(s.reference);
  q.xcr[0] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(verify(q, s.reference).passed);
}

TEST(Verification, RelativeDifference) {
  EXPECT_NEAR(relative_difference(1.1, 1.0), 0.1, 1e-15);
  EXPECT_DOUBLE_EQ(relative_difference(-2.0, -1.0), 1.0);
  EXPECT_DOUBLE_EQ(relative_difference(0.5, 0.0), 0.5);
}

TEST(Verification, MopsFormulaMatchesNpb) {
  // NPB 3.4 Fortran, class A on 1 rank here: 19.25 s <-> 6198 Mop/s.
  // (the times are rounded to 4 digits, hence the tolerances)
  EXPECT_NEAR(lu_mops(64, 64, 64, 250, 19.25), 6198.0, 2.0);
  // Class B on 2 ranks: 43.4 s <-> 11486 Mop/s.
  EXPECT_NEAR(lu_mops(102, 102, 102, 250, 43.4), 11486.0, 15.0);
}
