#include "sim/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>

#include "balance/min_max_partition.hpp"
#include "balance/partition.hpp"
#include "balance/share_pools.hpp"
#include "balance/window_summary.hpp"
#include "lu/run/run_config.hpp"  // kMinimumGridPoints, lu's own
#include "sim/time_shared_model.hpp"

namespace npblu::sim {

namespace {

std::vector<double> speeds_at(const SimConfig& c, int iteration) {
  std::vector<double> s(c.ranks, 1.0);
  if (c.speeds.active()) {
    for (int r = 0; r < c.ranks; ++r) s[r] = c.speeds.speed(r, iteration);
  }
  return s;
}

// What a rank computes at, which the oracle and the bottleneck ratio know: its emulated speed (`s`) times
// its core's speed where ranks are pinned (--cores with --core-speeds). Ranks sharing a core get the core's
// whole speed here: their real share depends on the stripes (lu-sim.md). Unpinned ranks move between cores:
// their emulated speed alone.
std::vector<double> true_speeds(const SimConfig& c, std::vector<double> s) {
  if (!c.cores.empty() && !c.core_speeds.empty()) {
    for (int r = 0; r < c.ranks; ++r) s[r] *= c.core_speeds.at(static_cast<std::size_t>(c.cores[r]));
  }
  return s;
}

}  // namespace

Partition starting_partition(const SimConfig& c) {
  const ColumnRange interior = c.grid.interior_columns();
  if (c.balance == BalanceMode::off) return Partition::equal(interior, c.ranks);
  if (!c.columns.empty()) return Partition::from_widths(interior, c.columns);
  if (c.balance == BalanceMode::diffusive) return Partition::equal(interior, c.ranks);
  return Partition::from_weights(interior, true_speeds(c, speeds_at(c, 1)));  // fixed, best: exact weights
}

StartingWeights starting_weights(const SimConfig& c) {
  const std::vector<double> equal(c.ranks, 1.0);
  if (c.balance == BalanceMode::off) return {"equal", equal};
  if (!c.columns.empty()) return {"explicit --columns", equal};
  if (c.balance == BalanceMode::diffusive) return {"equal", equal};
  return {"true speeds", true_speeds(c, speeds_at(c, 1))};
}

std::vector<int> starting_cores(const SimConfig& c) {
  if (c.unpinned.node_ranks <= 0) return c.cores;
  std::vector<int> cores(c.ranks);
  for (int r = 0; r < c.ranks; ++r) {
    const int node = r / c.unpinned.node_ranks, local = r % c.unpinned.node_ranks;
    cores[r] = node * c.unpinned.node_cores + local % c.unpinned.node_cores;
  }
  return cores;
}

namespace {

// The oracle's stripes for the true speeds, nearest the current ones.
Partition best_for(const Partition& current, const std::vector<double>& speed,
                   const std::vector<int>& max_columns) {
  std::vector<double> cost(speed.size());
  for (std::size_t r = 0; r < speed.size(); ++r) cost[r] = 1.0 / speed[r];
  const auto widths = best_widths_near(cost, current.widths(), kMinimumColumnWidth, max_columns);
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
  if (!c.cores.empty() && static_cast<int>(c.cores.size()) != c.ranks)
    throw std::invalid_argument("cores gives " + std::to_string(c.cores.size()) + " cores for " +
                                std::to_string(c.ranks) + " ranks");
  if (c.unpinned.node_ranks != 0) {
    if (!c.cores.empty()) throw std::invalid_argument("give cores or unpinned nodes, not both");
    if (c.unpinned.node_ranks < 1 || c.unpinned.node_cores < 1)
      throw std::invalid_argument("unpinned nodes need at least one rank and one core each");
  }
  if (!c.core_speeds.empty() && c.cores.empty() && c.unpinned.node_ranks == 0)
    throw std::invalid_argument("core speeds need cores or unpinned nodes");
  validate(c.settings);
  check_max_widths(c.max_columns, c.ranks, c.grid.interior_columns().width(), c.settings.min_width);
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

// Columns whose owner differs between `before` and `after`: what
// migrate_columns sends, straight from the old owner to the new one.
int columns_changing_owner(const Partition& before, const Partition& after) {
  int changed = 0;
  for (int r = 0; r < before.ranks(); ++r) {
    const int kept =
        std::max(0, std::min(before[r].end, after[r].end) - std::max(before[r].begin, after[r].begin));
    changed += before[r].width() - kept;
  }
  return changed;
}

// Seconds a step from `before` to `after` costs (see SimConfig).
double migration_seconds(const SimConfig& c, const Partition& before, const Partition& after) {
  const double column =
      (c.cost.lower + c.cost.upper + c.cost.rhs + c.cost.update) * (c.grid.nx - 2.0) * (c.grid.nz - 2.0);
  int widest = 0;
  for (int r = 0; r < before.ranks(); ++r) widest = std::max({widest, before[r].width(), after[r].width()});
  return c.migration_iterations * column * widest +
         c.migration_column_seconds * columns_changing_owner(before, after);
}

// What one iteration runs on: the true speeds, the stripes and each rank's
// factor on its compute (1 / speed, times its noise).
struct IterationPlan {
  std::vector<double> speed;       // emulated: the model applies the cores' speeds itself
  std::vector<double> true_speed;  // with the pinned cores' speeds: the oracle's and the ratio's
  Partition partition;
  std::vector<double> slowdown;
  std::vector<int> widths;
};

class PlanMaker {
 public:
  explicit PlanMaker(const SimConfig& c) : c_(c), noise_(c) {}
  // Draws iteration `it`'s noise: called once an iteration, in order.
  IterationPlan operator()(int it, const Partition& current) {
    IterationPlan p{speeds_at(c_, it), {}, current, std::vector<double>(c_.ranks), {}};
    p.true_speed = true_speeds(c_, p.speed);
    if (c_.balance == BalanceMode::best) p.partition = best_for(current, p.true_speed, c_.max_columns);
    p.widths = p.partition.widths();
    for (int r = 0; r < c_.ranks; ++r) p.slowdown[r] = noise_.next(r) / p.speed[r];
    return p;
  }

 private:
  const SimConfig& c_;
  Noise noise_;
};

std::unique_ptr<IterationModel> make_model(const SimConfig& c) {
  std::vector<int> cores = starting_cores(c);
  if (cores.empty()) return std::make_unique<StripeModel>(c.grid, c.cost, c.ranks);
  SchedulerMoves moves;
  if (c.unpinned.node_ranks > 0) {
    for (int r = 0; r < c.ranks; ++r) moves.node_of_rank.push_back(r / c.unpinned.node_ranks);
    moves.period = c.unpinned.scheduler_period;
    moves.seed = c.seed ^ 0x5c4ed01e5ULL;  // not the noise's stream
  }
  auto model =
      std::make_unique<TimeSharedModel>(c.grid, c.cost, std::move(cores), c.core_slice, std::move(moves));
  if (!c.core_speeds.empty()) model->set_core_speeds(c.core_speeds);
  return model;
}

// The best bottleneck for the speeds, recomputed only when they change (the
// min-max partition is costly at 1024 ranks).
class BestBottleneck {
 public:
  explicit BestBottleneck(std::vector<int> max_columns) : max_columns_(std::move(max_columns)) {}
  double ratio(const std::vector<int>& widths, const std::vector<double>& speed, int columns) {
    if (speed != speeds_) {
      speeds_ = speed;
      cost_.resize(speed.size());
      for (std::size_t r = 0; r < speed.size(); ++r) cost_[r] = 1.0 / speed[r];
      best_ = best_bottleneck(cost_, columns, kMinimumColumnWidth, max_columns_);
    }
    return bottleneck(widths, cost_) / best_;
  }

 private:
  std::vector<int> max_columns_;
  std::vector<double> speeds_, cost_;
  double best_ = 0.0;
};

void record_iteration(SimResult& result, int it, const IterationPlan& plan,
                      const std::vector<RankIteration>& out,
                      std::vector<std::vector<IterationTiming>>& records) {
  for (int r = 0; r < static_cast<int>(out.size()); ++r) {
    IterationRecord rec;
    rec.owned = plan.partition[r];
    rec.compute = out[r].compute;
    rec.wait = out[r].wait;
    rec.speed = plan.speed[r];
    rec.on_cpu = out[r].on_cpu;
    rec.run_delay = out[r].run_delay;
    result.history.set(it - 1, r, rec);
    records[r].push_back(rec);  // the balancer's part of the record
  }
}

// Applies a decision that moved columns to the result; returns the price of the step.
double apply_step(const SimConfig& c, SimResult& result, int it, const Partition& before,
                  const BalanceDecision& d) {
  ++result.steps;
  result.moved_columns += d.moved_columns;
  for (int b = 0; b < static_cast<int>(d.moves.size()); ++b) {
    if (d.moves[b] != 0) result.moves.push_back({it, b, d.moves[b]});
  }
  result.migrated_columns += columns_changing_owner(before, d.partition);
  return migration_seconds(c, before, d.partition);
}

// The oracle's change of stripes before iteration it + 1 (--balance best):
// recorded as a step, so that its moves reach the summary, the JSON and the
// trace; the oracle pays no price.
void record_oracle_step(SimResult& result, int it, const Partition& before, const Partition& after) {
  ++result.steps;
  for (int b = 0; b + 1 < before.ranks(); ++b) {
    const int moved = before[b].end - after[b].end;  // from rank b to b + 1
    if (moved == 0) continue;
    result.moved_columns += std::abs(moved);
    result.moves.push_back({it, b, moved});
  }
  result.migrated_columns += columns_changing_owner(before, after);
}

// The modelled ranks' share pools (balance/share_pools), from the CPUs each
// may run on: ranks on one modelled core are pinned there together, as
// `lu`'s ranks bound two to a core would be; unpinned ranks may run on any
// core of their node, as `mpirun --oversubscribe` starts them.
std::vector<int> modelled_share_pools(const SimConfig& c) {
  if (!c.share_pools) return {};
  std::vector<int> cores = starting_cores(c);
  if (cores.empty()) return {};
  const bool unpinned = c.unpinned.node_ranks > 0;
  std::vector<int> numbers = cores;  // the cores numbered 0, 1, ... (the same pools)
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  const std::size_t words = numbers.size() / 64 + 1;
  std::vector<CpuPlace> places;
  places.reserve(cores.size());
  for (int r = 0; r < c.ranks; ++r) {
    // Pinned: its core alone; unpinned: every core of its node (numbered node by node).
    const int node = unpinned ? r / c.unpinned.node_ranks : 0;
    const int first = unpinned ? node * c.unpinned.node_cores : cores[r];
    const int last = unpinned ? first + c.unpinned.node_cores - 1 : cores[r];
    CpuPlace p{node, std::vector<std::uint64_t>(words, 0)};
    for (auto n = std::lower_bound(numbers.begin(), numbers.end(), first); n != numbers.end() && *n <= last;
         ++n) {
      const auto bit = static_cast<std::size_t>(n - numbers.begin());
      p.cpus[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
    places.push_back(std::move(p));
  }
  std::vector<int> pools = share_pools(places);
  if (std::all_of(pools.begin(), pools.end(), [](int p) { return p < 0; }))
    pools.clear();  // as lu reports none
  return pools;
}

}  // namespace

SimResult simulate(const SimConfig& c, const IterationDone& done) {
  check(c);
  Partition partition = starting_partition(c);
  const std::unique_ptr<IterationModel> model = make_model(c);
  BalancerSession session(c.settings, partition);
  session.set_max_widths(c.max_columns);
  SimResult result;
  result.share_pools = modelled_share_pools(c);
  session.set_share_pools(result.share_pools);
  PlanMaker plan_for(c);
  BestBottleneck best(c.max_columns);

  result.history = RunHistory(c.ranks, c.iterations);
  std::vector<std::vector<IterationTiming>> records(c.ranks);  // per rank, since the last decision
  std::vector<RankIteration> it_out;
  double previous_end = 0.0, price_due = 0.0;
  const int every = c.settings.every;
  IterationPlan now = plan_for(1, partition);
  for (int it = 1; it <= c.iterations; ++it) {
    if (c.balance == BalanceMode::best && it > 1 && now.partition != partition)
      record_oracle_step(result, it - 1, partition, now.partition);
    partition = now.partition;
    result.bottleneck_ratio.push_back(best.ratio(now.widths, now.true_speed, partition.interior().width()));
    const bool decide = c.balance == BalanceMode::diffusive && session.due(it) && it < c.iterations;
    // Ranks that end early start the next iteration, unless a collective comes first.
    std::optional<IterationPlan> next;
    if (!decide && it < c.iterations) next = plan_for(it + 1, partition);
    const IterationLoad next_load = next ? IterationLoad{next->widths, next->slowdown} : IterationLoad{};
    model->iterate({now.widths, now.slowdown}, next ? &next_load : nullptr, it_out);
    // lu all-gathers the windows before deciding: every rank waits for the last.
    if (decide) model->synchronise(c.cost.latency * std::max(1.0, std::ceil(std::log2(c.ranks))), it_out);
    record_iteration(result, it, now, it_out, records);
    const double end = model->elapsed();
    result.iteration_time.push_back(end - previous_end);
    previous_end = end;
    if (decide) {
      std::vector<WindowReport> reports(c.ranks);
      for (int r = 0; r < c.ranks; ++r) {
        reports[r] = {samples_of(std::span(records[r]).last(std::min<std::size_t>(every, records[r].size()))),
                      price_due};
        records[r].clear();
      }
      price_due = 0.0;
      const BalanceDecision& d = session.decide(it, reports, c.iterations - it);
      if (d.moved_columns != 0) {
        price_due = apply_step(c, result, it, partition, d);
        std::vector<RankIteration> none(c.ranks);
        model->synchronise(price_due, none);  // every rank waits for the migration; the session measures it
        partition = d.partition;
      }
    }
    if (done) done(it);
    if (it < c.iterations) now = next ? std::move(*next) : plan_for(it + 1, partition);
  }
  result.time = model->elapsed();
  result.final_columns = partition.widths();
  result.decisions = session.log();
  return result;
}

}  // namespace npblu::sim
