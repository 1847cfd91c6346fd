// The C API's checkpoint now (npblu.h, npblu_checkpoint): a checkpoint of a
// run in steps, written between its calls. Checkpoints every N iterations
// and restarts are plain options ("checkpoint", "checkpoint-every",
// "restart"), set with npblu_set_option.
#include <algorithm>
#include <string>
#include <vector>

#include "interop/c/npblu_agreement.hpp"
#include "interop/c/npblu_handle.hpp"
#include "lu/io/checkpoint.hpp"
#include "lu/io/output_files.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/run/run_files.hpp"

using npblu::c_api::fail;

namespace {

// Rank 0's verdict on `path`, agreed: a regular file or none (never a device
// or a FIFO), in a writable directory, a name whose aside name fits, and not
// the run's trace or report (the checkpoint it continues may be replaced).
void agree_output(npblu_solver* h, const char* path) {
  const int rank = h->comm.rank();
  std::string problem;
  if (rank == 0) {
    problem = npblu::check_checkpoint_path(path, "npblu_checkpoint");
    if (problem.empty()) {
      std::vector<npblu::RunFile> files = npblu::run_files(h->config);
      files.erase(std::remove_if(files.begin(), files.end(),
                                 [](const npblu::RunFile& f) { return f.option == "--checkpoint"; }),
                  files.end());
      files.push_back({"npblu_checkpoint", path, true});
      problem = npblu::same_file_problem(files);
    }
  }
  npblu::agree<npblu::UsageError>(problem.empty(), npblu::one_line_message(problem), h->comm.get());
}

}  // namespace
using npblu::c_api::guarded;

extern "C" {

int npblu_checkpoint(npblu_solver* h, const char* path) {
  return guarded(h, "npblu_checkpoint", [&]() -> int {
    // Agreed first: an empty or other name on one rank must not leave the others waiting.
    // (the name is rank 0's, which writes the file: whether one is given must agree)
    npblu::c_api::agree_call(h->comm.get(), "npblu_checkpoint", !path ? "null" : *path ? "name" : "empty");
    if (!path || !*path) return fail(h, NPBLU_ERROR_ARGUMENT, "npblu_checkpoint: no file name given");
    if (!h->session)
      return fail(
          h, NPBLU_ERROR_RUN,
          "npblu_checkpoint: no run in steps: a run in steps must be started (and not finished) first");
    // The run's state before the path's (a finished run refuses whatever the name).
    if (h->outcome)
      return fail(
          h, NPBLU_ERROR_RUN,
          "npblu_checkpoint: the run in steps has been finished (npblu_finish): nothing left to continue");
    if (h->session->finished())  // (as lu writes no checkpoint after its last iteration: the run is complete)
      return fail(h, NPBLU_ERROR_RUN,
                  "npblu_checkpoint: the run in steps has done its last iteration (" +
                      std::to_string(h->session->iterations()) +
                      "): nothing left to continue (npblu_finish gives its results)");
    agree_output(h, path);
    h->session->write_checkpoint(path);
    return NPBLU_OK;
  });
}

}  // extern "C"
