// The C API's checkpoint now (npblu.h, npblu_checkpoint): a checkpoint of a
// run in steps, written between its calls. Checkpoints every N iterations
// and restarts are plain options ("checkpoint", "checkpoint-every",
// "restart"), set with npblu_set_option.
#include <string>

#include "interop/npblu_handle.hpp"

using npblu::c_api::fail;
using npblu::c_api::guarded;

extern "C" {

int npblu_checkpoint(npblu_solver* h, const char* path) {
  return guarded(h, [&]() -> int {
    if (!path || !*path) return fail(h, NPBLU_ERROR_ARGUMENT, "npblu_checkpoint: no file name given");
    if (!h->session)
      return fail(
          h, NPBLU_ERROR_RUN,
          "npblu_checkpoint: no run in steps: a run in steps must be started (and not finished) first");
    h->session->write_checkpoint(path);
    return NPBLU_OK;
  });
}

}  // extern "C"
