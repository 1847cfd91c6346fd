#pragma once
// What every rank did in every timed iteration, gathered to rank 0: the raw
// material of the imbalance report, the JSON history and partition traces.
// Its fields are the per-iteration record's table (iteration_record.hpp).
#include <mpi.h>

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <vector>

#include "lu/io/iteration_record.hpp"
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
  int columns = 0;           // during the last iteration (the final stripe)
  double compute = 0.0;      // seconds, emulated slowdown included
  double wait = 0.0;         // seconds in the pipeline and halo exchange
  int slept_iterations = 0;  // iterations it waited sleeping between polls (the rest: spinning)
};

class RunHistory {
 public:
  RunHistory() : RunHistory(0, 0) {}
  RunHistory(int ranks, int iterations);

  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] int iterations() const { return iterations_; }
  // Row-major [iteration][rank].
  [[nodiscard]] std::size_t index(int iteration, int rank) const {
    return std::size_t(iteration) * ranks_ + rank;
  }

  /// Every field of one rank's record of one iteration, through the table.
  void set(int iteration, int rank, const IterationRecord& record);
  /// Field `field` (the table's row) of every iteration and rank, row-major [iteration][rank].
  [[nodiscard]] std::span<const double> values(std::size_t field) const { return values_[field]; }
  [[nodiscard]] std::span<const double> values(RecordField f) const { return values(std::size_t(f)); }
  [[nodiscard]] double at(RecordField f, int iteration, int rank) const {
    return values_[std::size_t(f)][index(iteration, rank)];
  }

  /// max(compute) / mean(compute) over ranks within one iteration.
  [[nodiscard]] std::vector<double> imbalance_by_iteration() const;
  /// The same over the summed compute of iterations [first, last).
  [[nodiscard]] double window_imbalance(int first, int last) const;
  /// Balance quality over iterations [first, last): the slowest rank's
  /// summed compute over what the best whole-column partition
  /// (balance/min_max_partition; widths >= kMinimumColumnWidth and within
  /// `max_widths` when given) would take at the per-column costs the ranks
  /// measured there (summed compute / summed columns, emulated slowdown
  /// included). 1 is the best any stripes could do; with constant widths it
  /// is max_r width_r / speed_r over the best partition's. NaN when a rank
  /// measured no compute, or `max_widths` fit no partition.
  [[nodiscard]] double window_bottleneck_ratio(int first, int last,
                                               std::span<const int> max_widths = {}) const;
  /// The smallest core share of any rank over the run: its on-CPU time over
  /// on-CPU plus run-queue time (1 where a rank's clock was unavailable).
  [[nodiscard]] double lowest_core_share() const;
  /// The same for each iteration alone.
  [[nodiscard]] std::vector<double> bottleneck_ratio_by_iteration(std::span<const int> max_widths = {}) const;
  /// Per rank, compute and wait summed over all iterations, and the iterations slept.
  [[nodiscard]] std::vector<RankLoad> loads() const;

 private:
  friend RunHistory gather_history(std::span<const IterationRecord> mine, MPI_Comm comm, Waited wait);

  int ranks_ = 0;
  int iterations_ = 0;
  std::vector<std::vector<double>> values_;  // per field of the table
};

/// Collective: every rank's records to rank 0 (empty history elsewhere),
/// every field of the table; waited for as `wait` says (Communicator).
RunHistory gather_history(std::span<const IterationRecord> mine, MPI_Comm comm, Waited wait = {});

/// The JSON reports' "history": per field of the table (its json_name), one
/// array per iteration of one value per rank.
nlohmann::json history_json(const RunHistory& h);

}  // namespace npblu
