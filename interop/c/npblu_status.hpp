#pragma once
// The C API's one map from exceptions to status codes and messages, shared
// by both handles (npblu_solver of npblu.h, npblu_balancer of
// npblu_balance.h), with the last-message copy, the checks of a
// communicator a handle is created on and the agreed destroy. Internal to
// the libraries. Needs only MPI, lu/mpi (the agreed errors) and
// npblu_agreement: it ships in the standalone balance library too, without
// the solver, HDF5 or lu/run.
#include <mpi.h>

#include <string>
#include <string_view>

#include "interop/c/npblu.h"
#include "interop/c/npblu_agreement.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu::c_api {

/// Call inside a catch block: the status of the exception being handled,
/// its message in `message`. Bad input (npblu::UsageError,
/// std::invalid_argument) is NPBLU_ERROR_ARGUMENT; everything else
/// (npblu::RunError, std::bad_alloc, any other) NPBLU_ERROR_RUN.
int status_of_current_exception(std::string& message) noexcept;

/// Records `message` (as one line) as the handle's last error; returns `status`.
template <class Handle>
int fail(Handle* h, int status, std::string_view message) {
  h->error = npblu::one_line_message(message);
  return status;
}

/// Runs `f` (returning a status) for the C function `call` with the
/// handle's last error cleared; an exception becomes its status and message
/// (status_of_current_exception). A refusal's message names the call: "call:
/// " comes first unless the message names it already (the ranks' disagreement
/// names each rank's call, alike on every rank). A null handle is
/// NPBLU_ERROR_ARGUMENT.
template <class Handle, class F>
int guarded(Handle* h, std::string_view call, F&& f) {
  if (!h) return NPBLU_ERROR_ARGUMENT;
  int status = NPBLU_OK;
  try {
    h->error.clear();
    status = f();
  } catch (...) {
    std::string message;
    status = status_of_current_exception(message);  // (first: it fills `message`)
    fail(h, status, message);
  }
  if (status != NPBLU_OK && !h->error.empty() && h->error.find(call) == std::string::npos)
    h->error = std::string(call) + ": " + h->error;
  return status;
}

/// Copies `text` into the caller's `buf` of `length` bytes, cut to fit and
/// NUL-terminated; nothing when `buf` is null or `length` < 1.
void copy_message(std::string_view text, char* buf, int length);

/// "" or why no handle can be created on `comm`: MPI not initialised or
/// finalized, MPI_COMM_NULL, an invalid handle, an intercommunicator. Not
/// collective; never aborts.
std::string creation_problem(MPI_Comm comm);

/// The C communicator of a Fortran handle; MPI_COMM_NULL before MPI_Init
/// (where MPI_Comm_f2c may not be called), so creation_problem refuses it.
MPI_Comm from_fortran(MPI_Fint comm);

/// Collective: frees `*handle` (and its duplicate communicator) once every
/// rank has called `call` (agree_call); otherwise returns the refusal, the
/// same on every rank, with nothing freed. A null `*handle` is freed alike
/// (nothing), a null `handle` is NPBLU_ERROR_ARGUMENT.
template <class Handle>
int destroy_agreed(Handle** handle, const char* call) {
  if (!handle) return NPBLU_ERROR_ARGUMENT;
  if (*handle) {
    Handle* h = *handle;
    const int status = guarded(h, call, [&]() -> int {
      agree_call(h->comm.get(), call, "");
      return NPBLU_OK;
    });
    if (status != NPBLU_OK) return status;  // another call on some rank: nothing freed
  }
  delete *handle;
  *handle = nullptr;
  return NPBLU_OK;
}

}  // namespace npblu::c_api
