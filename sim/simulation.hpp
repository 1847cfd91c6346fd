#pragma once
// A modelled run: the ranks of a StripeModel (a core each) or of a
// TimeSharedModel (--cores), their speeds (an --emulate-speeds
// schedule) and noise (independent, or AR(1) in time), and the REAL
// balancer: every K iterations each rank's records go to the same
// BalancerSession that lu and the C API use, and its decision is applied to
// the model's stripes. A step costs a modelled migration time (calibrated
// from lu's measured one), which every rank waits for and which the session
// is told as the measured price. Judged on the bottleneck ratio: max over
// ranks of width / speed over the same for the best whole-column partition.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "balance/balancer_session.hpp"
#include "lu/io/run_history.hpp"
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
  std::vector<int> columns;        // starting widths (empty: equal, or from speeds when fixed)
  SpeedSchedule speeds{};          // empty: every rank at 1
  double noise = 0.0;              // relative standard deviation of a rank's compute, per iteration
  double noise_correlation = 0.0;  // lag-1 autocorrelation of each rank's noise in time (AR(1)), [0, 1)
  std::uint64_t seed = 1;
  CostModel cost{};
  // The core each rank runs on (equal numbers share one: TimeSharedModel);
  // empty: every rank has a core of its own (StripeModel).
  std::vector<int> cores;
  // With `cores`: seconds a rank keeps a core while another rank of it is
  // ready (the scheduler's slice).
  double core_slice = 6e-3;
  // Ranks the scheduler places instead of `cores` (node_ranks 0: none):
  // nodes of node_ranks consecutive ranks (the last one may hold fewer),
  // each rank free to run on any of its node's node_cores cores; it starts
  // on core (rank within the node) mod node_cores, and a node's scheduler
  // moves a rank every scheduler_period seconds on average.
  struct Unpinned {
    int node_ranks = 0;
    int node_cores = 0;
    double scheduler_period = 0.13;
  } unpinned;
  // With `cores` or `unpinned`: the speed of each core by its number
  // (`cores`' numbers, or the unpinned nodes' cores numbered node by node;
  // empty: every core at 1), e.g. a VM's vCPUs that differ.
  std::vector<double> core_speeds;
  // false: the balancer reads every rank at its own core share, as it did
  // before share pools (for comparison); true: ranks of one pool (pinned to
  // one core together, or placed by one node's scheduler) at their mean.
  bool share_pools = true;
  // The price of a step: every rank waits migration_iterations x the
  // modelled compute of one iteration of the widest stripe before the step
  // (today's migration rebuilds the stripes: measured about one iteration,
  // class A on 2 ranks), plus migration_column_seconds per column that
  // changes owner.
  double migration_iterations = 1.0;
  double migration_column_seconds = 0.0;
  // The most columns each rank's memory holds (empty: no limit): the
  // balancer and the best partition keep within them, and the bottleneck
  // ratio is against the best partition within them.
  std::vector<int> max_columns;
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
  std::vector<double> bottleneck_ratio;   // per iteration: max_r width_r / speed_r over the best partition's
  std::vector<DecisionRecord> decisions;  // the session's log: the steps that moved columns
  std::vector<int> share_pools;           // each rank's pool (balance/share_pools), empty: none
};

/// Called after each modelled iteration with its number (lu-sim's progress lines).
using IterationDone = std::function<void(int iteration)>;

/// Throws std::invalid_argument on an inconsistent configuration.
SimResult simulate(const SimConfig& config, const IterationDone& done = {});

/// The stripes a modelled run starts on (throws std::invalid_argument on bad widths).
Partition starting_partition(const SimConfig& config);
/// What starting_partition placed the stripes from, as the reports' weight_source and weights name it:
/// "equal", "explicit --columns", or "true speeds" (static and best: each rank's speed at iteration 1,
/// its core's included) with those speeds.
struct StartingWeights {
  std::string source;
  std::vector<double> weights;
};
StartingWeights starting_weights(const SimConfig& config);

/// The core each rank starts on: `cores`, or the unpinned nodes' starting
/// places (cores numbered node by node); empty: a core each.
std::vector<int> starting_cores(const SimConfig& config);

}  // namespace npblu::sim
