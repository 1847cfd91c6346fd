#pragma once
// What an npblu_solver handle holds, and the wrappers every C API function
// uses to turn exceptions into status codes and messages. Internal to the
// library (not installed): the C API's sources share it.
#include <memory>
#include <optional>
#include <string>

#include "interop/c/npblu.h"
#include "lu/run/benchmark.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/run/run_config.hpp"
#include "lu/mpi/communicator.hpp"

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

/// Records `message` as the handle's last error and returns `status`.
inline int fail(npblu_solver* h, int status, const std::string& message) {
  h->error = npblu::one_line_message(message);
  return status;
}

/// Runs `f` (returning a status) with the handle's error cleared, turning
/// exceptions into status codes: bad input NPBLU_ERROR_ARGUMENT, anything
/// else NPBLU_ERROR_RUN.
template <class F>
int guarded(npblu_solver* h, F&& f) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  try {
    h->error.clear();
    return f();
  } catch (const npblu::UsageError& e) {
    return fail(h, NPBLU_ERROR_ARGUMENT, e.what());
  } catch (const npblu::RunError& e) {
    return fail(h, NPBLU_ERROR_RUN, e.what());
  } catch (const std::exception& e) {
    return fail(h, NPBLU_ERROR_RUN, e.what());
  }
}

}  // namespace npblu::c_api
