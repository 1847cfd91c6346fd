// lu-sim's schedule of a sweep (sim/sweep_schedule.hpp) against lu's own
// kernels: the same order of "plane needed" and "plane done" events, for a
// stripe swept plane by plane and one swept by hyperplanes; and what that
// order does to the pipeline the model predicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "lu/initial_state.hpp"
#include "lu/sweeps.hpp"
#include "sim/stripe_model.hpp"
#include "sim/sweep_schedule.hpp"

using namespace npblu;
using namespace npblu::sim;

namespace {

/// The kernels' calls, as "n k" (needed) and "d k" (done).
class Recorder final : public SweepNeighbours {
 public:
  void plane_needed(int k) override { events.push_back("n " + std::to_string(k)); }
  void plane_done(int k) override { events.push_back("d " + std::to_string(k)); }
  [[nodiscard]] int pipeline_ranks() const override { return ranks; }
  int ranks = 1;
  std::vector<std::string> events;
};

/// The events a schedule says a sweep has, with planes as k (the sweep's
/// step s is k = 1 + s in the lower sweep, nz - 2 - s in the upper).
std::vector<std::string> scheduled_events(const SweepSchedule& s, int planes, bool lower) {
  auto k = [&](int step) { return std::to_string(lower ? 1 + step : planes - step); };
  std::vector<std::string> events;
  for (const SweepSegment& seg : s.segments) {
    if (seg.needs >= 0) events.push_back("n " + k(seg.needs));
    if (seg.done >= 0) events.push_back("d " + k(seg.done));
  }
  return events;
}

/// One stripe of `width` rows in the middle of a grid, swept by lu's kernels
/// at the level they run as if in a pipeline of `ranks` stripes: the events
/// of its lower or upper sweep.
std::vector<std::string> kernel_events(const GridSize& g, int width, bool lower, int ranks) {
  const Coefficients c = Coefficients::make(g, 0.5);
  const ColumnRange owned{2, 2 + width};
  Field5 u(g.nx, g.nz, stored_columns(g, owned, kStateHalo));
  Field5 rsd(g.nx, g.nz, stored_columns(g, owned, kResidualHalo));
  set_boundary_values(c, g, u);
  set_initial_values(c, g, u);
  SweepWorkspace ws(g);
  SweepTimes t;
  Recorder r;
  r.ranks = ranks;
  (lower ? lower_sweep : upper_sweep)(c, g, owned, u, rsd, ws, t, r);
  return r.events;
}

}  // namespace

TEST(SweepSchedule, NeedsAndDonesInTheKernelsOrder) {
  // 11 planes: at 2, 4 and 8 lanes a partial last block. On one rank the
  // kernel goes by the width; in a pipeline of 64 ranks plane by plane.
  const GridSize g{9, 40, 13};
  const int planes = g.nz - 2;
  for (const int ranks : {1, 64}) {
    for (const int width : {5, kMinHyperplaneRows - 1, kMinHyperplaneRows, 16, 30}) {
      const SweepSchedule s = sweep_schedule(planes, width, sweep_lanes(), ranks);
      double work = 0.0;
      for (const SweepSegment& seg : s.segments) work += seg.work;
      EXPECT_NEAR(work, planes, 1e-12) << width;
      const bool by_hyperplanes = width >= std::max(kMinHyperplaneRows, 2 * sweep_lanes());
      EXPECT_EQ(s.segments.size() > std::size_t(planes), ranks == 1 && by_hyperplanes) << width;
      for (const bool lower : {true, false})
        EXPECT_EQ(scheduled_events(s, planes, lower), kernel_events(g, width, lower, ranks))
            << "width " << width << (lower ? " lower" : " upper") << ", " << sweep_lanes() << " lanes, "
            << ranks << " ranks";
    }
  }
}

TEST(SweepSchedule, HyperplanesWhereTheyPayForThePipelinesWait) {
  // Class A (62 planes, stripes of 31 rows) on 2 ranks at 4 and 8 lanes, as
  // measured (docs/performance.md); class C (160 planes) on 4 ranks (40 rows)
  // at both, on 5 (32 rows) at 4 lanes only; class W (31 planes, 16 rows) on
  // 2 ranks at 4 lanes only; never on 1024 ranks; never under
  // kMinHyperplaneRows (8) rows, even on one rank, nor under twice the lanes.
  for (const int lanes : {4, 8}) {
    EXPECT_TRUE(sweeps_by_hyperplanes(31, 62, 2, lanes)) << lanes;
    EXPECT_TRUE(sweeps_by_hyperplanes(40, 160, 4, lanes)) << lanes;
    EXPECT_FALSE(sweeps_by_hyperplanes(30, 1018, 1024, lanes)) << lanes;
    EXPECT_FALSE(sweeps_by_hyperplanes(kMinHyperplaneRows - 1, 62, 1, lanes)) << lanes;
    EXPECT_FALSE(sweeps_by_hyperplanes(2 * lanes - 1, 62, 1, lanes)) << lanes;
    EXPECT_TRUE(sweeps_by_hyperplanes(std::max(kMinHyperplaneRows, 2 * lanes), 62, 1, lanes)) << lanes;
  }
  EXPECT_TRUE(sweeps_by_hyperplanes(32, 160, 5, 4));
  EXPECT_FALSE(sweeps_by_hyperplanes(32, 160, 5, 8));
  EXPECT_TRUE(sweeps_by_hyperplanes(16, 31, 2, 4));
  EXPECT_FALSE(sweeps_by_hyperplanes(16, 31, 2, 8));
  EXPECT_FALSE(sweeps_by_hyperplanes(9, 62, 1, 16));
}

TEST(SweepSchedule, HyperplanesEndAPlaneWidthStepsAfterItsStart) {
  // 10 planes by 4 lanes, 30 rows: plane q starts at step (q / 4) 31 + q % 4
  // (a lane's round: 30 rows and a rest) and is done after 30 steps, the
  // sweep 31 + 31 + 1 + 30 = 93 steps long: plane 0 is done after step 29,
  // plane 3 after 32, plane 4 after 60.
  const SweepSchedule s = sweep_schedule(10, 30, 4, 1);
  const double step = 10.0 / 93.0;
  double at = 0.0;
  std::vector<double> done_at(10, -1.0);
  for (const SweepSegment& seg : s.segments) {
    at += seg.work;
    if (seg.done >= 0) done_at[seg.done] = at;
  }
  EXPECT_NEAR(done_at[0], 30 * step, 1e-12);
  EXPECT_NEAR(done_at[3], 33 * step, 1e-12);
  EXPECT_NEAR(done_at[4], 61 * step, 1e-12);
  EXPECT_NEAR(done_at[9], 93 * step, 1e-12);
  EXPECT_EQ(s.segment_done.size(), 10u);
  // One lane: plane by plane whatever the width.
  const SweepSchedule one = sweep_schedule(10, 30, 1, 1);
  ASSERT_EQ(one.segments.size(), 10u);
  for (int p = 0; p < 10; ++p) {
    EXPECT_EQ(one.segments[p].needs, p);
    EXPECT_EQ(one.segments[p].done, p);
    EXPECT_NEAR(one.segments[p].work, 1.0, 1e-12);
  }
}

TEST(StripeModel, HyperplanesFillThePipelineAStripesWidthOfStepsAtATime) {
  // Two equal ranks of 30 rows over 40 planes, free messages, lower = upper
  // cost: rank 1 starts the lower sweep when rank 0 has done its first plane
  // (by 4 lanes 30 of the sweep's 9 x 31 + 3 + 30 steps; plane by plane one plane of
  // 40), rank 0 the upper sweep that much after rank 1 ended the lower, and
  // rank 1 waits as long again in the halo exchange: each waits twice the fill.
  const GridSize grid{10, 62, 42};
  for (const int lanes : {1, 4}) {
    CostModel cost{1e-9, 1e-9, 2e-9, 0.0, 0.0, 1e30, lanes};
    StripeModel m(grid, cost, 2);
    std::vector<RankIteration> out;
    m.iterate(std::vector<int>{30, 30}, std::vector<double>{1.0, 1.0}, out);
    const double plane = 1e-9 * 8 * 30;
    const double fill = lanes == 1 ? plane : 30.0 / 312.0 * 40 * plane;
    EXPECT_NEAR(out[0].wait, 2 * fill, 1e-14) << lanes;
    EXPECT_NEAR(out[1].wait, 2 * fill, 1e-14) << lanes;
    EXPECT_NEAR(out[0].compute, 2 * 40 * plane + 2e-9 * 8 * 40 * 30, 1e-14) << lanes;
  }
}
