// lu/sampled_split.hpp: the sweeps' phase times are the plane's wall-clock
// seconds split as on the sampled rows, so the parts must add up to the
// interval, follow the time each part took on the sampled rows, and ignore
// the rows not sampled.
#include <gtest/gtest.h>

#include <numeric>

#include "lu/sampled_split.hpp"
#include "lu/speed_emulation.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {
namespace {

TEST(SampledSplit, PartsAddUpToTheIntervalAndFollowTheSampledRows) {
  const double before = wall_seconds();
  SampledSplit<3> clock;
  clock.start_row(true);  // sampled: 3 ms, 1 ms, nothing
  spin_for(0.003);
  clock.charge(0);
  spin_for(0.001);
  clock.charge(2);
  clock.charge(1);
  clock.start_row(false);  // not sampled: only the total sees it
  spin_for(0.004);
  clock.charge(1);
  clock.charge(2);
  const auto parts = clock.seconds();
  const double after = wall_seconds();
  const double sum = std::accumulate(parts.begin(), parts.end(), 0.0);
  EXPECT_GE(sum, 0.008);
  EXPECT_LE(sum, after - before);
  // The interval split 3 : 1 : 0 (wide margins for a busy machine): part 1
  // took 4 ms on the unsampled row and nothing on the sampled one.
  EXPECT_GT(parts[0], 2.0 * parts[2]);
  EXPECT_LT(parts[0], 4.0 * parts[2]);
  EXPECT_LT(parts[1], 0.05 * sum);
}

TEST(SampledSplit, AnIntervalWithoutSamplesGoesToPartZero) {
  SampledSplit<2> clock;
  clock.start_row(false);
  spin_for(0.001);
  clock.charge(1);
  const auto parts = clock.seconds();
  EXPECT_GE(parts[0], 0.001);
  EXPECT_EQ(parts[1], 0.0);
}

}  // namespace
}  // namespace npblu
