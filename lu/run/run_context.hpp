#pragma once
// What every step of a benchmark run needs to know (benchmark.cpp and the
// files of its concerns: placement, restart, run_report), and the one way
// those steps turn a problem every rank sees alike into a RunError.
#include <mpi.h>

#include <ostream>
#include <string>

#include "lu/mpi/agreement.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/run_config.hpp"
#include "lu/solver.hpp"

namespace npblu {

/// What every step of a run needs to know.
struct RunContext {
  RunConfig config;
  Problem problem;
  SolverConfig solver_config;
  MPI_Comm comm;
  int rank = 0;
  int ranks = 1;
  std::ostream* out = nullptr;  // rank 0's report stream, or null
  std::string command_line;

  [[nodiscard]] bool root() const { return rank == 0; }
};

/// Runs `f`, turning any exception into a RunError. Only for work every rank
/// does identically (so every rank throws the same).
template <class F>
auto as_run_error(F&& f) {
  try {
    return f();
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(one_line_message(e.what()));
  }
}

}  // namespace npblu
