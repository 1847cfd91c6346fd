#pragma once
// A modelled run: the StripeModel's ranks, their speeds (an --emulate-speeds
// schedule) and noise, and the REAL balancer: every K iterations each rank's
// records go through the same window summary (balance/window_summary) and
// DiffusiveBalancer::decide that lu uses, and the decision is applied to the
// model's stripes. What migration would move is counted, not modelled.
#include <cstdint>
#include <string>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "lu/app/run_history.hpp"
#include "lu/speed_emulation.hpp"
#include "sim/stripe_model.hpp"

namespace npblu::sim {

enum class BalanceMode {
  off,        // equal stripes
  fixed,      // the stripes given (`columns`), or from the first speeds' weights
  diffusive,  // start like `fixed` and let the balancer move columns
  best        // oracle: at every iteration, the best whole-column partition for the true speeds
};

struct SimConfig {
  GridSize grid{64, 66, 64};
  int ranks = 2;
  int iterations = 250;
  BalanceMode balance = BalanceMode::off;
  BalancerSettings settings{};
  std::vector<int> columns;  // starting widths (empty: equal, or from speeds when fixed)
  SpeedSchedule speeds{};    // empty: every rank at 1
  double noise = 0.0;        // relative standard deviation of a rank's compute, per iteration
  std::uint64_t seed = 1;
  CostModel cost{};
};

struct SimResult {
  RunHistory history;                  // per iteration and rank, as lu's JSON/trace
  std::vector<double> iteration_time;  // seconds between the slowest rank's ends of consecutive iterations
  double time = 0.0;                   // elapsed: the slowest rank's end of the last iteration
  int steps = 0;                       // balancing steps that moved columns
  int moved_columns = 0;               // sum over steps and boundaries of |columns crossing the boundary|
  int migrated_columns = 0;            // columns that changed owner (what migration sends)
  std::vector<BalanceMove> moves;
  std::vector<int> final_columns;
};

/// Throws std::invalid_argument on an inconsistent configuration.
SimResult simulate(const SimConfig& config);

}  // namespace npblu::sim
