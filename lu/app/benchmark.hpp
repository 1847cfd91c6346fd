#pragma once
// The whole LU benchmark as a library call on any communicator: what the lu
// command runs, and what the C API and the Fortran bindings call.
#include <mpi.h>

#include <ostream>
#include <string>

#include "lu/app/agreement.hpp"
#include "lu/app/report.hpp"
#include "lu/app/run_config.hpp"

namespace npblu {

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

/// Collective over `comm`. Validates `config` (run_config.hpp: combination,
/// rank count, output paths) before computing, then runs. Prints the
/// NPB-style report (and progress) to `out` on rank 0 when `out` is non-null;
/// writes the JSON report and the trace as the config asks. Throws, on every
/// rank alike: RunError when the run was refused before computing (bad
/// input, or a problem one rank saw during set-up), RunFailure when it
/// failed after computing started (a trace or report write).
BenchmarkOutcome run_benchmark(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line = "");

}  // namespace npblu
