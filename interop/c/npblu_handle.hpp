#pragma once
// What an npblu_solver handle holds. Internal to the library (not
// installed): the C API's sources share it; exceptions become status codes
// and messages through npblu_status.hpp (fail, guarded), as for the balancer.
#include <memory>
#include <optional>
#include <string>

#include "interop/c/npblu.h"
#include "interop/c/npblu_status.hpp"
#include "lu/mpi/communicator.hpp"
#include "lu/run/benchmark.hpp"
#include "lu/run/run_config.hpp"

struct npblu_solver {
  npblu::Communicator comm;  // ours: a duplicate of the caller's
  npblu::RunConfig config;
  std::string settings;  // what was set, for the trace's command_line attribute
  bool print_report = true;
  // A run in steps, between its start and its finish (npblu_run uses none).
  std::unique_ptr<npblu::BenchmarkSession> session;
  std::optional<npblu::BenchmarkOutcome> outcome;  // of the last finished run
  std::string error;
};

namespace npblu::c_api {

/// Whether a problem is given: a class, a size, or a checkpoint to continue (which holds its problem).
inline bool has_problem(const npblu_solver* h) {
  const npblu::RunConfig& c = h->config;
  return c.problem.problem_class || c.problem.size || !c.checkpoint.restart.empty();
}

/// A canonical text of everything in `config` (the arguments of
/// npblu_start and npblu_run, for agree_call): the same on two ranks iff
/// their runs are the same.
std::string config_arguments(const npblu::RunConfig& config);

}  // namespace npblu::c_api
