// lu-sim's time-shared model: ranks that may share cores (--cores), cores
// of other speeds, and ranks a scheduler places (--unpinned).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "lu/io/run_history.hpp"
#include "sim/simulation.hpp"
#include "sim/stripe_model.hpp"
#include "sim/time_shared_model.hpp"
#include "tests/sim_chain.hpp"

using namespace npblu;
using namespace npblu::sim;
using npblu::sim_test::chain;

// TimeSharedModel: ranks that may share cores (sim/time_shared_model.hpp).

namespace {

// Unequal stripes and speeds, messages that cost, the next iteration known
// (ranks that end early start it) and a collective between two iterations:
// with a core each the time-shared model gives StripeModel's times.
void expect_stripe_models_times(const GridSize& grid, const std::vector<int> (&widths)[3]) {
  const CostModel cost{1.1e-9, 1.3e-9, 2.9e-9, 0.4e-9, 2e-7, 1e9};
  StripeModel dedicated(grid, cost, 4);
  TimeSharedModel shared(grid, cost, {7, 3, 0, 5}, 3e-3);
  const std::vector<double> slow[] = {{1.0, 1.5, 0.9, 2.0}, {1.2, 1.0, 1.0, 1.7}, {0.8, 1.1, 1.3, 1.0}};
  std::vector<RankIteration> a, b;
  for (int it = 0; it < 3; ++it) {
    const IterationLoad now{widths[it], slow[it]};
    const IterationLoad next = it == 1 ? IterationLoad{widths[2], slow[2]} : IterationLoad{};
    dedicated.iterate(now, nullptr, a);
    shared.iterate(now, it == 1 ? &next : nullptr, b);
    if (it == 0) {
      dedicated.synchronise(3e-6, a);
      shared.synchronise(3e-6, b);
    }
    for (int r = 0; r < 4; ++r) {
      EXPECT_NEAR(b[r].compute, a[r].compute, 1e-15) << it << " " << r;
      EXPECT_NEAR(b[r].wait, a[r].wait, 1e-15) << it << " " << r;
      EXPECT_NEAR(b[r].on_cpu, a[r].compute + a[r].wait, 1e-15) << it << " " << r;
      EXPECT_EQ(b[r].run_delay, 0.0);
    }
    EXPECT_NEAR(shared.elapsed(), dedicated.elapsed(), 1e-15) << it;
  }
}

}  // namespace

TEST(TimeSharedModel, ACoreEachGivesStripeModelsTimes) {
  expect_stripe_models_times({12, 20, 10}, {{2, 7, 5, 4}, {3, 6, 5, 4}, {3, 6, 5, 4}});
}

TEST(TimeSharedModel, ACoreEachGivesStripeModelsTimesWithHyperplanes) {
  // Stripes of 8 rows or more pipeline by hyperplanes (sim/sweep_schedule.hpp),
  // narrower ones plane by plane, and a stripe changes kernel between iterations.
  // (80 planes: enough for 4 ranks to pick hyperplanes at 4 lanes.)
  expect_stripe_models_times({12, 102, 82}, {{60, 7, 25, 8}, {8, 59, 26, 7}, {7, 60, 20, 13}});
}

TEST(TimeSharedModel, TwoRanksOnOneCoreKeepItBusy) {
  // Free messages: one of the two ranks always computes, so an iteration
  // takes both ranks' work, and between them they are on the core all along.
  const GridSize grid{10, 12, 8};
  const CostModel cost{1e-9, 1e-9, 2e-9, 0.5e-9, 0.0, 1e30};
  TimeSharedModel m(grid, cost, {0, 0}, 1e-6);
  std::vector<RankIteration> out;
  const std::vector<int> widths{4, 6};
  const std::vector<double> slow{1.0, 1.0};
  m.iterate({widths, slow}, nullptr, out);
  const double work = (1e-9 + 1e-9 + 0.5e-9 + 2e-9) * 8 * 6 * 10;  // every interior point of both stripes
  EXPECT_NEAR(m.elapsed(), work, 1e-15);
  EXPECT_NEAR(out[0].on_cpu + out[1].on_cpu, work, 1e-15);
  // The wider stripe ends last; the other rank ends before, once its rhs is done.
  EXPECT_NEAR(out[1].compute + out[1].wait, work, 1e-15);
  EXPECT_LT(out[0].compute + out[0].wait, work);
  for (const auto& r : out) {
    EXPECT_NEAR(r.on_cpu + r.run_delay, r.compute + r.wait, 1e-15);
    EXPECT_GT(r.run_delay, 0.1 * work);  // the other rank had the core
  }
}

TEST(TimeSharedModel, ARankKeepsItsCoreForASlice) {
  // Two ranks on one core, free messages: the core is busy all along
  // whatever the slice. A rank that keeps the core until it must wait
  // computes its own work in compute time; with slices far shorter than a
  // task, the two alternate within their rhs and each one's wall-clock
  // compute also counts the other's turns (as lu's timers would).
  const GridSize grid{10, 12, 8};
  const CostModel cost{1e-9, 1e-9, 2e-9, 0.5e-9, 0.0, 1e30};
  const std::vector<int> widths{5, 5};
  const std::vector<double> slow{1.0, 1.0};
  const double own = (1e-9 + 1e-9 + 0.5e-9 + 2e-9) * 8 * 5 * 6;  // one stripe's interior points
  std::vector<RankIteration> out;
  TimeSharedModel whole(grid, cost, {0, 0}, 1e30);
  whole.iterate({widths, slow}, nullptr, out);
  EXPECT_NEAR(whole.elapsed(), 2 * own, 1e-15);
  for (const auto& r : out) EXPECT_NEAR(r.compute, own, 1e-15);
  TimeSharedModel sliced(grid, cost, {0, 0}, 1e-8);
  sliced.iterate({widths, slow}, nullptr, out);
  EXPECT_NEAR(sliced.elapsed(), 2 * own, 1e-15);
  for (const auto& r : out)
    EXPECT_GT(r.compute, own + 0.5 * 2e-9 * 8 * 5 * 6);  // half the other's rhs, at least
}

TEST(TimeSharedModel, SimulationWithACoreEachIsTheDedicatedRun) {
  // The same decisions, moves and times, through simulate()'s lookahead.
  SimConfig c = chain(8, BalanceMode::diffusive, "1,1,0.5,1,1,1,1,0.3", 0.05);
  c.iterations = 60;
  const SimResult dedicated = simulate(c);
  c.cores = {0, 1, 2, 3, 4, 5, 6, 7};
  const SimResult shared = simulate(c);
  EXPECT_GT(dedicated.moved_columns, 0);
  EXPECT_EQ(shared.final_columns, dedicated.final_columns);
  EXPECT_EQ(shared.moved_columns, dedicated.moved_columns);
  EXPECT_NEAR(shared.time, dedicated.time, 1e-12 * dedicated.time);
}

TEST(TimeSharedModel, TwoRanksSharingACoreAreSeenByTheirCoreShare) {
  // 3 ranks on 2 cores (ranks 1 and 2 share core 1), equal stripes: the
  // shared core does two stripes' work, and what ranks 1 and 2 report to
  // the balancer says they got about half a core while computing.
  SimConfig c = chain(3, BalanceMode::off, "1,1,1", 0.0);
  c.iterations = 20;
  const SimResult alone = simulate(c);
  c.cores = {0, 1, 1};
  const SimResult shared = simulate(c);
  EXPECT_GT(shared.time, 1.7 * alone.time);
  EXPECT_LT(shared.time, 2.1 * alone.time);
  const auto& h = shared.history;
  for (int it = 5; it < 20; ++it) {
    const auto share = [&](int r) {
      const double on = h.at(RecordField::on_cpu, it, r), delay = h.at(RecordField::run_delay, it, r);
      return on / (on + delay);
    };
    EXPECT_GT(share(0), 0.99) << it;
    EXPECT_LT(share(1), 0.8) << it;
    EXPECT_LT(share(2), 0.8) << it;
  }
}

TEST(TimeSharedModel, RefusesACoreMapOfTheWrongLength) {
  SimConfig c = chain(3, BalanceMode::off, "1,1,1", 0.0);
  c.cores = {0, 1};
  EXPECT_THROW(simulate(c), std::invalid_argument);
  c.cores = {0, -1, 1};
  EXPECT_THROW(simulate(c), std::invalid_argument);
}

// Ranks the scheduler places (SchedulerMoves, --unpinned).

namespace {
// Each rank's core share, on-CPU over on-CPU plus run-queue time, per iteration.
std::vector<std::vector<double>> shares_by_iteration(TimeSharedModel& m, int iterations, int ranks) {
  std::vector<std::vector<double>> shares;
  std::vector<RankIteration> out;
  const std::vector<int> widths(ranks, 20);
  const std::vector<double> slow(ranks, 1.0);
  for (int it = 0; it < iterations; ++it) {
    m.iterate({widths, slow}, nullptr, out);
    std::vector<double> s;
    for (const auto& r : out) s.push_back(r.on_cpu / (r.on_cpu + r.run_delay));
    shares.push_back(std::move(s));
  }
  return shares;
}
}  // namespace

TEST(TimeSharedModel, TheSchedulerPassesAWholeCoreFromRankToRank) {
  // 3 ranks on 2 cores of one node: pinned, rank 1 keeps its core to itself;
  // placed by a scheduler that moves a rank every 20 ms or so (an iteration
  // is about 8 ms), each rank has a core to itself now and then, and over
  // the run each gets about 2/3 of a core.
  const GridSize grid{64, 62, 64};
  const CostModel cost{14e-9, 17e-9, 20e-9, 3e-9, 1e-4, 4e9};
  TimeSharedModel pinned(grid, cost, {0, 1, 0}, 6e-3);
  TimeSharedModel placed(grid, cost, {0, 1, 0}, 6e-3, SchedulerMoves{{0, 0, 0}, 0.02, 5});
  const auto fixed = shares_by_iteration(pinned, 200, 3), moving = shares_by_iteration(placed, 200, 3);
  std::vector<int> whole(3, 0);
  std::vector<double> mean(3, 0.0);
  for (int it = 0; it < 200; ++it) {
    EXPECT_GT(fixed[it][1], 0.99) << it;
    for (int r = 0; r < 3; ++r) {
      whole[r] += moving[it][r] > 0.9 ? 1 : 0;
      mean[r] += moving[it][r] / 200;
    }
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_GT(whole[r], 20) << r;
    EXPECT_LT(whole[r], 120) << r;
    EXPECT_NEAR(mean[r], 2.0 / 3.0, 0.12) << r;
  }
}

TEST(TimeSharedModel, RefusesSchedulerMovesAcrossNodesOrWithoutAPeriod) {
  const GridSize grid{12, 20, 10};
  const CostModel cost{};
  EXPECT_THROW(TimeSharedModel(grid, cost, {0, 0}, 6e-3, SchedulerMoves{{0, 1}, 0.1, 1}),
               std::invalid_argument);
  EXPECT_THROW(TimeSharedModel(grid, cost, {0, 1}, 6e-3, SchedulerMoves{{0}, 0.1, 1}), std::invalid_argument);
  EXPECT_THROW(TimeSharedModel(grid, cost, {0, 1}, 6e-3, SchedulerMoves{{0, 0}, 0.0, 1}),
               std::invalid_argument);
}

TEST(TimeSharedModel, UnpinnedRanksReadAtTheirPoolsShareStayPut) {
  // 3 ranks the scheduler places on 2 cores, class A's grid: read rank by
  // rank (share pools off, the balancer before them) the balancer follows
  // the placement of the moment and moves columns back and forth, as real
  // runs did (columns moved 57 median of 5 against 0, class A); read at the
  // pool's share (on) it moves none. Five seeds each.
  SimConfig c = chain(3, BalanceMode::diffusive, "1,1,1", 0.0);
  c.grid = {64, 64, 64};
  c.iterations = 100;
  c.unpinned = {3, 2, 0.13};
  EXPECT_EQ(starting_cores(c), (std::vector<int>{0, 1, 0}));
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    c.seed = seed;
    c.share_pools = true;
    const SimResult pooled = simulate(c);
    EXPECT_EQ(pooled.share_pools, (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(pooled.moved_columns, 0) << "seed " << seed;
    c.share_pools = false;
    const SimResult one_by_one = simulate(c);
    EXPECT_TRUE(one_by_one.share_pools.empty());
    EXPECT_GT(one_by_one.moved_columns, 20) << "seed " << seed;
  }
}

TEST(TimeSharedModel, UnpinnedNodesArePoolsOfTheirOwn) {
  // Nodes of 3 ranks on 2 cores, the last one partial (7 ranks: 3, 3, 1):
  // one pool per crowded node, none for a rank with a node to itself.
  SimConfig c = chain(7, BalanceMode::off, "1,1,1,1,1,1,1", 0.0);
  c.iterations = 3;
  c.unpinned = {3, 2, 0.13};
  EXPECT_EQ(starting_cores(c), (std::vector<int>{0, 1, 0, 2, 3, 2, 4}));
  EXPECT_EQ(simulate(c).share_pools, (std::vector<int>{0, 0, 0, 3, 3, 3, -1}));
  c.unpinned = {2, 2, 0.13};  // as many cores as ranks: no pools
  EXPECT_TRUE(simulate(c).share_pools.empty());
  c.cores = {0, 1, 0, 2, 3, 2, 4};
  EXPECT_THROW(simulate(c), std::invalid_argument);  // cores or unpinned nodes, not both
}

TEST(TimeSharedModel, ACoreOfHalfTheSpeedTakesTwiceTheTime) {
  // A rank each on cores 3 and 8 (labels), core 8 at half speed: the same
  // stripe computes twice as long there; a label without a speed, or a speed
  // of 0, is refused.
  const GridSize grid{12, 20, 10};
  const CostModel cost{1.1e-9, 1.3e-9, 2.9e-9, 0.4e-9, 0.0, 1e30};
  TimeSharedModel m(grid, cost, {3, 8}, 6e-3);
  std::vector<double> speeds(9, 1.0);
  speeds[8] = 0.5;
  m.set_core_speeds(speeds);
  std::vector<RankIteration> out;
  const std::vector<int> widths{9, 9};
  const std::vector<double> slow{1.0, 1.0};
  m.iterate({widths, slow}, nullptr, out);
  EXPECT_NEAR(out[1].compute, 2.0 * out[0].compute, 1e-12 * out[0].compute);
  EXPECT_THROW(m.set_core_speeds(std::vector<double>(8, 1.0)), std::invalid_argument);
  speeds[3] = 0.0;
  EXPECT_THROW(m.set_core_speeds(speeds), std::invalid_argument);
}
