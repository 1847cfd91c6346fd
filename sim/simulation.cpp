#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "balance/min_max_partition.hpp"
#include "balance/partition.hpp"
#include "balance/window_summary.hpp"
#include "lu/run/run_config.hpp"  // kMinimumGridPoints, lu's own

namespace npblu::sim {

double bottleneck_ratio(std::span<const int> widths, std::span<const double> speeds) {
  std::vector<double> cost(speeds.size());
  int columns = 0;
  for (std::size_t r = 0; r < speeds.size(); ++r) {
    cost[r] = 1.0 / speeds[r];
    columns += widths[r];
  }
  return bottleneck(widths, cost) / best_bottleneck(cost, columns, kMinimumColumnWidth);
}

namespace {

std::vector<double> speeds_at(const SimConfig& c, int iteration) {
  std::vector<double> s(c.ranks, 1.0);
  if (c.speeds.active()) {
    for (int r = 0; r < c.ranks; ++r) s[r] = c.speeds.speed(r, iteration);
  }
  return s;
}

}  // namespace

Partition starting_partition(const SimConfig& c) {
  const ColumnRange interior = c.grid.interior_columns();
  if (c.balance == BalanceMode::off) return Partition::equal(interior, c.ranks);
  if (!c.columns.empty()) return Partition::from_widths(interior, c.columns);
  if (c.balance == BalanceMode::diffusive) return Partition::equal(interior, c.ranks);
  return Partition::from_weights(interior, speeds_at(c, 1));  // fixed, best: exact weights
}

namespace {

// The oracle's stripes for the true speeds, nearest the current ones.
Partition best_for(const Partition& current, const std::vector<double>& speed) {
  std::vector<double> cost(speed.size());
  for (std::size_t r = 0; r < speed.size(); ++r) cost[r] = 1.0 / speed[r];
  const auto widths = best_widths_near(cost, current.widths(), kMinimumColumnWidth);
  return Partition::from_widths(current.interior(), widths);
}

void check(const SimConfig& c) {
  // The model's settings by their names here; lu-sim's command line
  // (sim_options.cpp) checks them first and names its flags.
  if (c.iterations < 1) throw std::invalid_argument("iterations must be at least 1");
  if (!(c.noise >= 0.0 && c.noise < 1.0)) throw std::invalid_argument("noise must be in [0, 1)");
  if (!(c.noise_correlation >= 0.0 && c.noise_correlation < 1.0))
    throw std::invalid_argument("noise_correlation must be in [0, 1)");
  if (!(c.migration_iterations >= 0.0) || !std::isfinite(c.migration_iterations))
    throw std::invalid_argument("migration_iterations must be a non-negative number");
  if (!(c.migration_column_seconds >= 0.0) || !std::isfinite(c.migration_column_seconds))
    throw std::invalid_argument("migration_column_seconds must be a non-negative number");
  if (c.grid.nx < kMinimumGridPoints || c.grid.ny < kMinimumGridPoints || c.grid.nz < kMinimumGridPoints)
    throw std::invalid_argument("every grid dimension must be >= " + std::to_string(kMinimumGridPoints));
  validate(c.settings);
}

// Each rank's noise: e_t = rho e_{t-1} + sqrt(1 - rho^2) n_t, n_t ~ N(0, 1),
// so every e_t is N(0, 1) and the slowdown is 1 + noise * e_t (at least 0.1).
class Noise {
 public:
  Noise(const SimConfig& c) : noise_(c.noise), rho_(c.noise_correlation), state_(c.ranks), rng_(c.seed) {
    for (double& e : state_) e = gauss_(rng_);
  }
  double next(int r) {
    if (noise_ <= 0.0) return 1.0;
    state_[r] = rho_ * state_[r] + std::sqrt(1.0 - rho_ * rho_) * gauss_(rng_);
    return std::max(0.1, 1.0 + noise_ * state_[r]);
  }

 private:
  double noise_, rho_;
  std::vector<double> state_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> gauss_{0.0, 1.0};
};

// Seconds a step from `before` to `after` costs (see SimConfig).
double migration_seconds(const SimConfig& c, const Partition& before, const Partition& after) {
  const double column =
      (c.cost.lower + c.cost.upper + c.cost.rhs + c.cost.update) * (c.grid.nx - 2.0) * (c.grid.nz - 2.0);
  int widest = 0, changed_owner = 0;
  for (int r = 0; r < before.ranks(); ++r) {
    widest = std::max({widest, before[r].width(), after[r].width()});
    const int kept =
        std::max(0, std::min(before[r].end, after[r].end) - std::max(before[r].begin, after[r].begin));
    changed_owner += before[r].width() - kept;
  }
  return c.migration_iterations * column * widest + c.migration_column_seconds * changed_owner;
}

}  // namespace

SimResult simulate(const SimConfig& c) {
  check(c);
  Partition partition = starting_partition(c);
  StripeModel model(c.grid, c.cost, c.ranks);
  BalancerSession session(c.settings, partition);
  Noise noise(c);

  SimResult result;
  result.history = RunHistory(c.ranks, c.iterations);
  RunHistory& h = result.history;
  std::vector<std::vector<IterationTiming>> records(c.ranks);  // per rank, since the last decision
  std::vector<RankIteration> it_out;
  std::vector<double> slowdown(c.ranks);
  std::vector<double> ratio_speeds, cost;  // the speeds the best bottleneck was last computed for
  double best = 0.0;
  double previous_end = 0.0, price_due = 0.0;
  const int every = c.settings.every;
  for (int it = 1; it <= c.iterations; ++it) {
    const std::vector<double> speed = speeds_at(c, it);
    if (c.balance == BalanceMode::best) partition = best_for(partition, speed);
    const std::vector<int> widths = partition.widths();
    if (speed != ratio_speeds) {  // the min-max partition is costly at 1024 ranks: once per speed change
      ratio_speeds = speed;
      cost.resize(c.ranks);
      for (int r = 0; r < c.ranks; ++r) cost[r] = 1.0 / speed[r];
      best = best_bottleneck(cost, partition.interior().width(), kMinimumColumnWidth);
    }
    result.bottleneck_ratio.push_back(bottleneck(widths, cost) / best);
    for (int r = 0; r < c.ranks; ++r) slowdown[r] = noise.next(r) / speed[r];
    model.iterate(widths, slowdown, it_out);
    const bool decide = c.balance == BalanceMode::diffusive && session.due(it) && it < c.iterations;
    // lu all-gathers the windows before deciding: every rank waits for the last.
    if (decide) model.synchronise(c.cost.latency * std::max(1.0, std::ceil(std::log2(c.ranks))), it_out);
    for (int r = 0; r < c.ranks; ++r) {
      IterationRecord rec;
      rec.owned = partition[r];
      rec.compute = it_out[r].compute;
      rec.wait = it_out[r].wait;
      rec.speed = speed[r];
      rec.on_cpu = it_out[r].compute + it_out[r].wait;  // a dedicated core: MPI polls on it
      h.set(it - 1, r, rec);
      records[r].push_back(rec);  // the balancer's part of the record
    }
    const double end = model.elapsed();
    result.iteration_time.push_back(end - previous_end);
    previous_end = end;
    if (!decide) continue;
    std::vector<WindowReport> reports(c.ranks);
    for (int r = 0; r < c.ranks; ++r) {
      reports[r] = {samples_of(std::span(records[r]).last(std::min<std::size_t>(every, records[r].size()))),
                    price_due};
      records[r].clear();
    }
    price_due = 0.0;
    const BalanceDecision& d = session.decide(it, reports, c.iterations - it);
    if (d.moved_columns == 0) continue;
    ++result.steps;
    result.moved_columns += d.moved_columns;
    for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
      if (d.moves[b] != 0) result.moves.push_back({it, b, d.moves[b]});
    }
    // What migrate_columns would send: every column whose owner changes,
    // straight from the old owner to the new one.
    for (int r = 0; r < c.ranks; ++r) {
      const ColumnRange before = partition[r], after = d.partition[r];
      const int kept = std::max(0, std::min(before.end, after.end) - std::max(before.begin, after.begin));
      result.migrated_columns += before.width() - kept;
    }
    // Every rank waits for the migration; the session measures it.
    price_due = migration_seconds(c, partition, d.partition);
    std::vector<RankIteration> none(c.ranks);
    model.synchronise(price_due, none);
    partition = d.partition;
  }
  result.time = model.elapsed();
  result.final_columns = partition.widths();
  result.decisions = session.log();
  return result;
}

}  // namespace npblu::sim
