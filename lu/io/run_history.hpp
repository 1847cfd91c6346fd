#pragma once
// What every rank did in every timed iteration, gathered to rank 0: the raw
// material of the imbalance report, the JSON history and partition traces.
#include <mpi.h>

#include <span>
#include <vector>

#include "lu/solver.hpp"

namespace npblu {

/// One balancing decision on one boundary.
struct BalanceMove {
  int iteration = 0;  // after this timed iteration
  int boundary = 0;   // between rank `boundary` and rank `boundary + 1`
  int columns = 0;    // moved from rank boundary to boundary+1 (negative: the other way)
};

/// One rank's share of the work over the timed iterations.
struct RankLoad {
  int columns = 0;       // during the last iteration (the final stripe)
  double compute = 0.0;  // seconds, emulated slowdown included
  double wait = 0.0;     // seconds in the pipeline and halo exchange
};

class RunHistory {
 public:
  RunHistory() = default;
  RunHistory(int ranks, int iterations);

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int iterations() const { return iterations_; }
  // Row-major [iteration][rank].
  [[nodiscard]] std::size_t index(int iteration, int rank) const {
    return std::size_t(iteration) * ranks_ + rank;
  }

  std::vector<int> column_begin, column_end;
  std::vector<double> compute, wait, migration, speed;
  std::vector<double> on_cpu, run_delay;  // seconds running / runnable but not running

  /// max(compute) / mean(compute) over ranks within one iteration.
  [[nodiscard]] std::vector<double> imbalance_by_iteration() const;
  /// The same over the summed compute of iterations [first, last).
  [[nodiscard]] double window_imbalance(int first, int last) const;
  /// Per rank, compute and wait summed over all iterations.
  [[nodiscard]] std::vector<RankLoad> loads() const;

 private:
  int ranks_ = 0;
  int iterations_ = 0;
};

/// Collective: every rank's records to rank 0 (empty history elsewhere).
/// `first_iteration` numbers the first record (1-based), for the speeds.
RunHistory gather_history(std::span<const IterationRecord> mine, const SpeedSchedule& emulation,
                          MPI_Comm comm, int first_iteration = 1);

}  // namespace npblu
