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

/// A clock the test moves by hand, so that the split is exact whatever else
/// the machine runs (spinning on the wall clock, a preemption inside one part
/// made it that part's time).
double fake_seconds = 0.0;
double fake_now() { return fake_seconds; }

TEST(SampledSplit, PartsAddUpToTheIntervalAndFollowTheSampledRows) {
  fake_seconds = 10.0;
  SampledSplit<3, fake_now> clock;
  fake_seconds += 0.5;    // before the first row: in the total only
  clock.start_row(true);  // sampled: 3 s, 1 s, nothing
  fake_seconds += 3.0;
  clock.charge(0);
  fake_seconds += 1.0;
  clock.charge(2);
  clock.charge(1);
  clock.start_row(false);  // not sampled: only the total sees it
  fake_seconds += 4.0;
  clock.charge(1);
  clock.charge(2);
  const auto parts = clock.seconds();
  // The interval, 8.5 s, split 3 : 0 : 1: part 1 took 4 s on the unsampled
  // row and nothing on the sampled one.
  EXPECT_DOUBLE_EQ(parts[0], 8.5 * 0.75);
  EXPECT_EQ(parts[1], 0.0);
  EXPECT_DOUBLE_EQ(parts[2], 8.5 * 0.25);
}

TEST(SampledSplit, PausedSecondsCountForNoPart) {
  // A sweep pauses its clock while the solver waits for and sends rows.
  fake_seconds = 0.0;
  SampledSplit<2, fake_now> clock;
  clock.start_row(true);
  fake_seconds += 2.0;
  clock.charge(0);
  clock.pause();
  fake_seconds += 5.0;  // waiting for a neighbour
  clock.resume();
  clock.start_row(true);
  fake_seconds += 2.0;
  clock.charge(1);
  const auto parts = clock.seconds();
  EXPECT_DOUBLE_EQ(parts[0], 2.0);
  EXPECT_DOUBLE_EQ(parts[1], 2.0);
}

TEST(SampledSplit, OnTheWallClockThePartsAddUpToTheInterval) {
  const double before = wall_seconds();
  SampledSplit<3> clock;
  clock.start_row(true);
  spin_for(0.003);
  clock.charge(0);
  spin_for(0.001);
  clock.charge(2);
  clock.start_row(false);
  spin_for(0.004);
  clock.charge(1);
  const auto parts = clock.seconds();
  const double after = wall_seconds();
  const double sum = std::accumulate(parts.begin(), parts.end(), 0.0);
  EXPECT_GE(sum, 0.008);
  EXPECT_LE(sum, after - before);
  EXPECT_EQ(parts[1], 0.0);  // charged on the unsampled row only
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
