#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "balance/min_max_partition.hpp"
#include "balance/partition.hpp"
#include "balance/window_summary.hpp"

namespace npblu::sim {

namespace {

std::vector<double> speeds_at(const SimConfig& c, int iteration) {
  std::vector<double> s(c.ranks, 1.0);
  if (c.speeds.active()) {
    for (int r = 0; r < c.ranks; ++r) s[r] = c.speeds.speed(r, iteration);
  }
  return s;
}

Partition starting_partition(const SimConfig& c) {
  const ColumnRange interior = c.grid.interior_columns();
  if (c.balance == BalanceMode::off) return Partition::equal(interior, c.ranks);
  if (!c.columns.empty()) return Partition::from_widths(interior, c.columns);
  if (c.balance == BalanceMode::diffusive) return Partition::equal(interior, c.ranks);
  return Partition::from_weights(interior, speeds_at(c, 1));  // fixed, best: exact weights
}

// The oracle's stripes for the true speeds, nearest the current ones.
Partition best_for(const Partition& current, const std::vector<double>& speed) {
  std::vector<double> cost(speed.size());
  for (std::size_t r = 0; r < speed.size(); ++r) cost[r] = 1.0 / speed[r];
  const auto widths = best_widths_near(cost, current.widths(), kMinimumColumnWidth);
  return Partition::from_widths(current.interior(), widths);
}

}  // namespace

SimResult simulate(const SimConfig& c) {
  if (c.iterations < 1) throw std::invalid_argument("--iterations must be at least 1");
  if (!(c.noise >= 0.0 && c.noise < 1.0)) throw std::invalid_argument("--noise must be in [0, 1)");
  if (c.grid.nx < 6 || c.grid.ny < 6 || c.grid.nz < 6)
    throw std::invalid_argument("every grid dimension must be >= 6");
  validate(c.settings);
  Partition partition = starting_partition(c);
  StripeModel model(c.grid, c.cost, c.ranks);
  DiffusiveBalancer balancer(c.settings);
  std::mt19937_64 rng(c.seed);
  std::normal_distribution<double> gauss(0.0, 1.0);

  SimResult result;
  result.history = RunHistory(c.ranks, c.iterations);
  RunHistory& h = result.history;
  std::vector<std::vector<IterationTiming>> records(c.ranks);  // per rank, since the last decision
  std::vector<RankIteration> it_out;
  std::vector<double> slowdown(c.ranks);
  bool migrated = false;
  double previous_end = 0.0;
  const int every = c.settings.every;
  for (int it = 1; it <= c.iterations; ++it) {
    const std::vector<double> speed = speeds_at(c, it);
    if (c.balance == BalanceMode::best) partition = best_for(partition, speed);
    const std::vector<int> widths = partition.widths();
    for (int r = 0; r < c.ranks; ++r) {
      const double noise = c.noise > 0.0 ? std::max(0.1, 1.0 + c.noise * gauss(rng)) : 1.0;
      slowdown[r] = noise / speed[r];
    }
    model.iterate(widths, slowdown, it_out);
    const bool decide = c.balance == BalanceMode::diffusive && it % every == 0 && it < c.iterations;
    // lu all-gathers the windows before deciding: every rank waits for the last.
    if (decide) model.synchronise(c.cost.latency * std::max(1.0, std::ceil(std::log2(c.ranks))), it_out);
    for (int r = 0; r < c.ranks; ++r) {
      const std::size_t i = h.index(it - 1, r);
      h.column_begin[i] = partition[r].begin;
      h.column_end[i] = partition[r].end;
      h.compute[i] = it_out[r].compute;
      h.wait[i] = it_out[r].wait;
      h.speed[i] = speed[r];
      h.on_cpu[i] = it_out[r].compute + it_out[r].wait;  // a dedicated core: MPI polls on it
      h.run_delay[i] = 0.0;
      records[r].push_back({it_out[r].compute, it_out[r].wait, h.on_cpu[i], 0.0});
    }
    const double end = model.elapsed();
    result.iteration_time.push_back(end - previous_end);
    previous_end = end;
    if (!decide) continue;
    std::vector<RankWindow> windows(c.ranks);
    for (int r = 0; r < c.ranks; ++r) {
      windows[r] = summarize_window(
          std::span(records[r]).last(std::min<std::size_t>(every, records[r].size())), migrated);
      records[r].clear();
    }
    const BalanceDecision d = balancer.decide(partition, windows);
    migrated = d.moved_columns > 0;
    if (!migrated) continue;
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
    partition = d.partition;
  }
  result.time = model.elapsed();
  result.final_columns = partition.widths();
  return result;
}

}  // namespace npblu::sim
