#pragma once
// The whole LU benchmark as a library call on any communicator: what the lu
// command runs, and what the C API and the Fortran bindings call.
#include <mpi.h>

#include <ostream>
#include <stdexcept>
#include <string>

#include "lu/app/options.hpp"
#include "lu/app/report.hpp"

namespace npblu {

/// A failure that stops the run before or instead of the solve. Thrown on
/// every rank of the communicator with the same message (bad input, or a
/// problem one rank saw: an unreadable file, an allocation that failed).
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct BenchmarkOutcome {
  // The same on every rank.
  bool successful = false;  // verified, or a custom size that finished
  bool verified = false;
  double seconds = 0.0;
  double mops = 0.0;
  int iterations_run = 0;
  VerifiedQuantities computed;
  double imbalance = 1.0;
  int moved_columns = 0;
  // This rank's.
  ColumnRange owned;  // final columns
  // Rank 0's: the full report.
  RunReport report;
};

/// Collective over `comm`. Prints the NPB-style report (and progress) to `out`
/// on rank 0 when `out` is non-null; writes the JSON report and the trace as
/// the options ask. Throws RunError as described above.
BenchmarkOutcome run_benchmark(const RunOptions& opts, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line = "");

}  // namespace npblu
