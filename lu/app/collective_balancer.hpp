#pragma once
// The DiffusiveBalancer over MPI: every rank summarises its own window of
// iteration timings, the windows are all-gathered, and every rank runs the
// same decision on the same numbers. Shared by the solver's run-time
// balancing (runtime_balancing) and by the C API's balancer of callers' own
// arrays (interop/npblu_balance.h), so both decide alike.
#include <mpi.h>

#include <span>

#include "balance/diffusive_balancer.hpp"
#include "balance/window_summary.hpp"

namespace npblu {

class CollectiveBalancer {
 public:
  CollectiveBalancer(DiffusiveBalancer balancer, MPI_Comm comm)
      : balancer_(std::move(balancer)), comm_(comm) {}

  /// Collective over the communicator (one MPI_Allgather): the decision for
  /// `current` from every rank's window. The first iteration of a window
  /// that follows a migration is left out (see summarize_window).
  [[nodiscard]] BalanceDecision decide(const Partition& current, std::span<const IterationTiming> window);

  [[nodiscard]] const BalancerSettings& settings() const { return balancer_.settings(); }

 private:
  DiffusiveBalancer balancer_;
  MPI_Comm comm_;
  bool migrated_last_step_ = false;
};

}  // namespace npblu
