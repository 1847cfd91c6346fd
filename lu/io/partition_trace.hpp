#pragma once
// PartitionTrace: collects every rank's per-iteration records on rank 0
// every few iterations and appends them to the HDF5 trace, flushing each
// time, so a killed run leaves a readable file up to its last flush. A write
// that fails on rank 0 is agreed at the same flush (one MPI_Allreduce of an
// int per flush, not per iteration) and ends the run on every rank with a
// RunFailure.
#include <mpi.h>

#include <memory>
#include <span>
#include <vector>

#include "lu/io/trace_writer.hpp"
#include "lu/solver.hpp"

namespace npblu {

class PartitionTrace {
 public:
  /// Collective. `writer` is non-null on rank 0 only.
  /// `iterations_before`: timed iterations done before this trace's first
  /// record (a restarted run's checkpoint iteration): records are numbered on from it.
  /// `max_widths`: the most columns each rank's memory holds (empty: no
  /// limit), which bound the best partition of the bottleneck ratio as in
  /// the report.
  PartitionTrace(std::unique_ptr<TraceWriter> writer, int flush_every, MPI_Comm comm,
                 int iterations_before = 0, std::vector<int> max_widths = {})
      : writer_(std::move(writer)),
        flush_every_(flush_every),
        comm_(comm),
        iterations_before_(iterations_before),
        max_widths_(std::move(max_widths)) {}

  /// Collective; flushes when `iteration` is a multiple of flush_every,
  /// its collectives waited for as `wait` says (the solver's wait mode: the
  /// other ranks wait while rank 0 writes). Throws RunFailure on every rank
  /// when the write failed.
  void on_iteration(int iteration, std::span<const IterationRecord> history,
                    std::span<const BalanceMove> moves, WaitMode wait);
  /// Collective; writes whatever is left and closes the file (RunFailure as above).
  void finish(std::span<const IterationRecord> history, std::span<const BalanceMove> moves);

 private:
  void write(std::span<const IterationRecord> history, std::span<const BalanceMove> moves, Waited wait);
  void append(const RunHistory& rows, int first_iteration, std::span<const BalanceMove> moves);

  std::unique_ptr<TraceWriter> writer_;
  int flush_every_;
  MPI_Comm comm_;
  int iterations_before_ = 0;
  std::vector<int> max_widths_;
  std::size_t iterations_written_ = 0;
  std::size_t moves_written_ = 0;
};

}  // namespace npblu
