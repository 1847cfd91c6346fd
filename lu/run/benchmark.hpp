#pragma once
// The whole LU benchmark as a library call on any communicator: what the lu
// command runs, and what the C API and the Fortran bindings call.
#include <mpi.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

#include "lu/io/report.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/run/run_config.hpp"

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
  GridSize grid;  // the problem's, boundary points included
  // This rank's.
  ColumnRange owned;  // final columns
  // Rank 0's: the full report.
  RunReport report;
};

/// Collective over `comm`. With --restart, continues the checkpointed run.
/// With --checkpoint, writes checkpoints as it goes and stops after a
/// SIGTERM/SIGINT, throwing RunInterrupted (checkpoint_schedule.hpp).
/// Validates `config` (run_config.hpp: combination,
/// rank count, output paths) before computing, then runs. Prints the
/// NPB-style report (and progress) to `out` on rank 0 when `out` is non-null;
/// writes the JSON report and the trace as the config asks. Throws, on every
/// rank alike: RunError when the run was refused before computing (bad
/// input, or a problem one rank saw during set-up), RunFailure when it
/// failed after computing started (a trace or report write).
/// What follows the run: the caller goes on (the C API), or the process
/// exits (the lu command: a stop signal after a checkpointed run's end is
/// then ignored until the exit, not left to kill it).
enum class AfterRun { caller_continues, process_exits };
BenchmarkOutcome run_benchmark(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                               const std::string& command_line = "",
                               AfterRun after = AfterRun::caller_continues);

class LuSolver;

/// The same run in steps, for callers that look at it between iterations
/// (the C API's stepping, checkpoints). Every member is collective over
/// `comm`. Constructing it does everything run_benchmark does before the
/// timed iterations (checks, placement, the solver, balancer and trace, the
/// report header, the warm-up and reset); advance() runs timed iterations
/// with balancing and tracing as in a full run; finish() does the rest.
/// Constructed, advanced to the end and finished, it computes exactly what
/// run_benchmark does, bit for bit, however the iterations are split.
/// Throws as run_benchmark does.
class BenchmarkSession {
 public:
  BenchmarkSession(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                   const std::string& command_line = "");
  ~BenchmarkSession();
  BenchmarkSession(const BenchmarkSession&) = delete;
  BenchmarkSession& operator=(const BenchmarkSession&) = delete;

  /// Up to n more timed iterations (fewer at the last or on convergence);
  /// returns how many ran.
  int advance(int n);
  [[nodiscard]] int iterations_done() const;
  [[nodiscard]] int iterations() const;  // the run's total (itmax)
  [[nodiscard]] bool finished() const;
  /// The RMS norms of the current steady-state residual (reading changes nothing).
  [[nodiscard]] Vector5 residual_norms() const;
  /// The solver, for access to its state (see LuSolver::writable_state).
  [[nodiscard]] LuSolver& solver();
  /// Writes a checkpoint of the run as it stands (lu/io/checkpoint.hpp) and
  /// prints a line saying so; a later session with --restart `path`
  /// continues from here. Throws RunFailure on every rank when it fails.
  void write_checkpoint(const std::filesystem::path& path);
  /// Error norms, surface integral, verification and the report of the
  /// iterations run so far (a run finished early does not verify); the
  /// trace is closed. Call once.
  BenchmarkOutcome finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace npblu
