#pragma once
// Wires the BalancerSession (balance/, which decides) to the LuSolver (lu/,
// which computes and migrates): gathers every rank's window, asks for a
// decision, applies it with the migration timed (the price of the next
// step), and records what moved.
#include <mpi.h>

#include <span>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "lu/io/run_history.hpp"
#include "lu/migration/collective_balancer.hpp"
#include "lu/solver.hpp"

namespace npblu {

class RuntimeBalancing {
 public:
  /// `iterations`: the timed iterations of the run (the horizon of a step).
  RuntimeBalancing(const BalancerSettings& settings, const Partition& start, int iterations, MPI_Comm comm)
      : balancer_(settings, start, comm), iterations_(iterations) {}

  /// Collective; the solver's RebalanceHook, after every timed iteration:
  /// when the session's cadence says a window ended, gathers it, decides,
  /// and migrates the solver's state itself when the stripes move (so the
  /// price is timed). Returns whether a window was decided on.
  bool step(int iteration, std::span<const IterationRecord> history, LuSolver& solver);

  /// The most columns each rank may hold (BalancerSession::set_max_widths).
  void set_max_widths(std::vector<int> max_widths) {
    balancer_.session().set_max_widths(std::move(max_widths));
  }
  [[nodiscard]] const std::vector<int>& max_widths() const { return balancer_.session().max_widths(); }
  /// Ranks the scheduler places on shared cores (BalancerSession::set_share_pools).
  [[nodiscard]] const std::vector<int>& share_pools() const { return balancer_.session().share_pools(); }

  [[nodiscard]] int steps() const { return balancer_.session().steps(); }
  /// What the balancer has learnt, for a checkpoint, and back (a restart on
  /// as many ranks continues it; BalancerSession::restore_state).
  [[nodiscard]] std::vector<double> saved_state() const { return balancer_.session().saved_state(); }
  void restore_state(std::span<const double> state) { balancer_.session().restore_state(state); }
  [[nodiscard]] int moved_columns() const { return balancer_.session().moved_columns(); }
  [[nodiscard]] const std::vector<BalanceMove>& moves() const { return moves_; }
  [[nodiscard]] const std::vector<DecisionRecord>& log() const { return balancer_.session().log(); }

 private:
  CollectiveBalancer balancer_;
  int iterations_;
  std::vector<BalanceMove> moves_;
};

}  // namespace npblu
