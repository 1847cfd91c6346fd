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

/// Collective: advances `session` to its end, writing checkpoints as
/// `checkpoint` asks (path non-empty). Throws RunInterrupted after a signal
/// (unless that was the last iteration: the run then ends normally).
void advance_with_checkpoints(BenchmarkSession& session, const CheckpointConfig& checkpoint, MPI_Comm comm);

}  // namespace npblu
