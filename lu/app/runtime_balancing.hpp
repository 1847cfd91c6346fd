#pragma once
// Wires the DiffusiveBalancer (balance/, which decides) to the LuSolver
// (lu/, which computes and migrates): gathers every rank's window, asks for
// a decision, and records what moved.
#include <mpi.h>

#include <optional>
#include <span>
#include <vector>

#include "balance/diffusive_balancer.hpp"
#include "lu/app/collective_balancer.hpp"
#include "lu/app/run_history.hpp"
#include "lu/solver.hpp"

namespace npblu {

class RuntimeBalancing {
 public:
  RuntimeBalancing(DiffusiveBalancer balancer, MPI_Comm comm) : balancer_(std::move(balancer), comm) {}

  /// Collective; the solver's RebalanceHook.
  std::optional<Partition> step(int iteration, const Partition& current,
                                std::span<const IterationRecord> window);

  [[nodiscard]] int steps() const { return steps_; }
  [[nodiscard]] int moved_columns() const { return moved_columns_; }
  [[nodiscard]] const std::vector<BalanceMove>& moves() const { return moves_; }

 private:
  CollectiveBalancer balancer_;
  int steps_ = 0;
  int moved_columns_ = 0;
  std::vector<BalanceMove> moves_;
};

}  // namespace npblu
