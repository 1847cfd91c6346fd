#pragma once
// The BalancerSession over MPI: every rank reports its own window of
// iteration timings (and how long it took to apply the last step), the
// reports are all-gathered, and every rank runs the same decision on the
// same numbers. Shared by the solver's run-time balancing
// (runtime_balancing) and by the C API's balancer of callers' own arrays
// (interop/c/npblu_balance.h), so both decide alike. The price of a step is
// measured here: callers apply a new partition inside timed_apply.
#include <mpi.h>

#include <span>

#include "balance/balancer_session.hpp"
#include "balance/window_summary.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/wall_clock.hpp"

namespace npblu {

class CollectiveBalancer {
 public:
  /// `comm` is borrowed: it must outlive this balancer. Collective over it:
  /// the ranks' CPU affinity masks say which of them the scheduler places on
  /// shared cores (session().share_pools(), balance/share_pools).
  CollectiveBalancer(BalancerSettings settings, Partition start, MPI_Comm comm);

  /// Collective over the communicator (one MPI_Allgather): the decision,
  /// after `iteration`, from every rank's window (at most
  /// session().window_length() iterations; the same count on every rank).
  /// Its own time is reported with the next window (the session keeps
  /// deciding cheap against the windows). `remaining`: iterations
  /// still to run (<= 0: unknown). `wait`: how this rank waits for the
  /// others' windows (the solver's wait mode; Communicator::all_gather, in
  /// its non-blocking form on every rank whatever each one's mode).
  const BalanceDecision& decide(int iteration, std::span<const IterationTiming> window, double remaining,
                                WaitMode wait);

  /// Runs `apply` (the migration to session().current()) and adds its
  /// seconds to the price of the step, reported with the next window.
  template <class F>
  void timed_apply(F&& apply) {
    const double t0 = wall_seconds();
    apply();
    migration_seconds_ += wall_seconds() - t0;
  }

  /// Whether this rank reports its decisions' time (on by default; the
  /// session stretches its windows when deciding is expensive against them).
  void set_time_decisions(bool on) { time_decisions_ = on; }

  [[nodiscard]] BalancerSession& session() { return session_; }
  [[nodiscard]] const BalancerSession& session() const { return session_; }
  [[nodiscard]] const BalancerSettings& settings() const { return session_.settings(); }

 private:
  BalancerSession session_;
  Communicator comm_;
  double migration_seconds_ = 0.0;
  double decision_seconds_ = 0.0;  // the last decision's time on this rank
  bool time_decisions_ = true;
};

}  // namespace npblu
