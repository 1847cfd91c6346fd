#pragma once
// When a run writes checkpoints: every --checkpoint-every iterations, and
// after the iteration in which any rank got SIGTERM or SIGINT, after which
// the run stops (RunInterrupted). Only a run with --checkpoint pays for
// this: one MPI_Allreduce of an int per iteration, so that every rank stops
// after the same iteration whichever ranks the signal reached.
#include <mpi.h>

#include <stdexcept>

#include "lu/run/benchmark.hpp"

namespace npblu {

/// The run stopped on a signal after writing its checkpoint; the same on
/// every rank. The lu command exits with status 4 (kExitInterrupted).
struct RunInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Collective: run_benchmark of a run with --checkpoint (path non-empty),
/// writing checkpoints as `config.checkpoint` asks. SIGTERM and SIGINT are
/// caught from before the session starts until it has finished: one during
/// start-up (a restart's read, the warm-up) or an iteration stops the run
/// after that iteration, with a checkpoint (RunInterrupted); one after the
/// last iteration leaves the complete run to finish and report as usual (a
/// scheduler's end-of-job signal must not make a verified run look failed;
/// with AfterRun::process_exits they are ignored from then until the exit).
BenchmarkOutcome run_with_checkpoints(const RunConfig& config, MPI_Comm comm, std::ostream* out,
                                      const std::string& command_line, AfterRun after);

}  // namespace npblu
