// The C API over run_benchmark: every setter converts its arguments once,
// at the call, into the same typed RunConfig the lu command line fills
// (lu/run/run_config.hpp), so both accept and refuse the same values and a
// bad one is reported by the call that gave it.
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interop/c/npblu_agreement.hpp"
#include "interop/c/npblu_handle.hpp"
#include "lu/mpi/messages.hpp"
#include "lu/solver.hpp"

namespace npblu::c_api {

std::string config_arguments(const npblu::RunConfig& c) {
  // Every option of the table, named as npblu_set_option names it, so that a refusal names what differs.
  ArgumentText t;
  for (const auto& setting : option_settings(c)) t.add(setting.name, setting.text);
  for (const auto& g : c.given) t.add("options given", g);
  return t.str();
}

namespace {

/// Gives the last run's result to `f`: `call`'s output `out` must not be
/// null, and a run (or a stepped run's finish) must have completed.
template <class F>
int result(const npblu_solver* ch, const char* call, const void* out, F&& f) {
  if (!ch) return NPBLU_ERROR_ARGUMENT;
  auto* h = const_cast<npblu_solver*>(ch);  // only the error message changes
  if (!out) return fail(h, NPBLU_ERROR_ARGUMENT, std::string(call) + ": the output pointer is NULL");
  if (!h->outcome)
    return fail(
        h, NPBLU_ERROR_NO_RESULT,
        std::string(call) + ": no result: npblu_run (or npblu_finish) has not completed on this handle");
  f(*h->outcome);
  return NPBLU_OK;
}

}  // namespace
}  // namespace npblu::c_api

using npblu::c_api::fail;
using npblu::c_api::guarded;
using npblu::c_api::result;

extern "C" {

int npblu_version(int* major, int* minor, int* patch) {
  if (major) *major = NPBLU_VERSION_MAJOR;
  if (minor) *minor = NPBLU_VERSION_MINOR;
  if (patch) *patch = NPBLU_VERSION_PATCH;
  return NPBLU_OK;
}

namespace {
// A failed npblu_create has no handle to hold its message: this thread's
// last one is what npblu_error_message(NULL) gives.
thread_local std::string create_error = "null handle";

int create_failed(int status, std::string message) {
  create_error = "npblu_create: " + std::move(message);
  return status;
}

// The class for both doors, C's letter and Fortran's string (nullopt: a null pointer).
int set_class_named(npblu_solver* h, std::optional<std::string_view> name) {
  return guarded(h, "npblu_set_class", [&]() -> int {
    if (!name) return fail(h, NPBLU_ERROR_ARGUMENT, "the class is a null pointer");
    npblu::RunConfig changed = h->config;
    changed.problem = {};  // the last problem given counts
    npblu::set_class_name(changed, *name);
    h->config = std::move(changed);
    h->settings += " class=" + std::string(*name);
    return NPBLU_OK;
  });
}
}  // namespace

int npblu_create(npblu_solver** handle, MPI_Comm comm) {
  if (!handle)
    return create_failed(NPBLU_ERROR_ARGUMENT, "handle is a null pointer (where the new handle goes)");
  *handle = nullptr;
  // An invalid communicator gives a status, never an abort.
  if (const std::string problem = npblu::c_api::creation_problem(comm); !problem.empty())
    return create_failed(NPBLU_ERROR_ARGUMENT, problem);
  try {
    auto h = std::make_unique<npblu_solver>();
    h->comm = npblu::Communicator::duplicate(comm);
    *handle = h.release();
    return NPBLU_OK;
  } catch (...) {
    std::string message;
    const int status = npblu::c_api::status_of_current_exception(message);
    return create_failed(status, message);
  }
}

int npblu_create_f(npblu_solver** handle, MPI_Fint fortran_comm) {
  return npblu_create(handle, npblu::c_api::from_fortran(fortran_comm));
}

int npblu_destroy(npblu_solver** handle) { return npblu::c_api::destroy_agreed(handle, "npblu_destroy"); }

int npblu_release(npblu_solver** handle) {
  if (!handle) return NPBLU_OK;            // like free(NULL): error paths call it unconditionally
  if (*handle) (*handle)->comm.abandon();  // no MPI call: this rank may be alone, or MPI finalized
  delete *handle;
  *handle = nullptr;
  return NPBLU_OK;
}

int npblu_set_class(npblu_solver* h, char problem_class) {
  return set_class_named(h, std::string_view(&problem_class, 1));
}

int npblu_set_class_fn(npblu_solver* h, const char* problem_class) {
  // The Fortran caller called npblu_set_class: its refusals are named so.
  return set_class_named(h, problem_class ? std::optional<std::string_view>(problem_class) : std::nullopt);
}

int npblu_set_size(npblu_solver* h, int nx, int ny, int nz, int iterations, double dt) {
  return guarded(h, "npblu_set_size", [&]() -> int {
    npblu::RunConfig changed = h->config;
    changed.problem = {};  // the last problem given counts
    npblu::set_size(changed, {nx, ny, nz});
    npblu::set_iterations(changed, iterations);
    npblu::set_dt(changed, dt);  // exactly as given: no text in between
    h->config = std::move(changed);
    h->settings += " size=" + std::to_string(nx) + "," + std::to_string(ny) + "," + std::to_string(nz);
    return NPBLU_OK;
  });
}

int npblu_set_option(npblu_solver* h, const char* name, const char* value) {
  return guarded(h, "npblu_set_option", [&]() -> int {
    if (!name || !*name) return fail(h, NPBLU_ERROR_ARGUMENT, "option name missing");
    npblu::set_option(h->config, name, value ? value : "");
    h->settings += std::string(" ") + name + "=" + (value ? value : "");
    return NPBLU_OK;
  });
}

int npblu_set_report(npblu_solver* h, int print) {
  return guarded(h, "npblu_set_report", [&]() -> int {
    h->print_report = print != 0;
    return NPBLU_OK;
  });
}

int npblu_run(npblu_solver* h) {
  return guarded(h, "npblu_run", [&]() -> int {
    npblu::c_api::agree_call(h->comm.get(), "npblu_run", npblu::c_api::config_arguments(h->config));
    if (h->session && !h->outcome)
      return fail(h, NPBLU_ERROR_ORDER, "npblu_run: a stepped run is open: npblu_finish it first");
    h->session.reset();
    h->outcome.reset();
    if (!npblu::c_api::has_problem(h))
      return fail(h, NPBLU_ERROR_ARGUMENT, "no problem given: set a class or a size first");
    h->outcome = npblu::run_benchmark(h->config, h->comm.get(), h->print_report ? &std::cout : nullptr,
                                      "npblu" + h->settings);
    return NPBLU_OK;
  });
}

int npblu_time(const npblu_solver* h, double* s) {
  return result(h, "npblu_time", s, [&](const auto& o) { *s = o.seconds; });
}
int npblu_mops(const npblu_solver* h, double* m) {
  return result(h, "npblu_mops", m, [&](const auto& o) { *m = o.mops; });
}
int npblu_verified(const npblu_solver* h, int* v) {
  return result(h, "npblu_verified", v, [&](const auto& o) { *v = o.verified ? 1 : 0; });
}
int npblu_residual_norms(const npblu_solver* h, double norms[5]) {
  return result(h, "npblu_residual_norms", norms,
                [&](const auto& o) { std::copy(o.computed.xcr.begin(), o.computed.xcr.end(), norms); });
}
int npblu_error_norms(const npblu_solver* h, double norms[5]) {
  return result(h, "npblu_error_norms", norms,
                [&](const auto& o) { std::copy(o.computed.xce.begin(), o.computed.xce.end(), norms); });
}
int npblu_surface_integral(const npblu_solver* h, double* v) {
  return result(h, "npblu_surface_integral", v, [&](const auto& o) { *v = o.computed.xci; });
}
int npblu_imbalance(const npblu_solver* h, double* f) {
  return result(h, "npblu_imbalance", f, [&](const auto& o) { *f = o.imbalance; });
}
int npblu_columns(const npblu_solver* h, int* begin, int* end) {
  if (h && (!begin || !end))
    return fail(const_cast<npblu_solver*>(h), NPBLU_ERROR_ARGUMENT,
                "npblu_columns: an output pointer is NULL");
  if (h && h->session) {  // a stepped run's current columns (the balancer moves them)
    const npblu::ColumnRange owned = h->session->solver().owned();
    *begin = owned.begin;
    *end = owned.end;
    return NPBLU_OK;
  }
  return result(h, "npblu_columns", begin, [&](const auto& o) {
    *begin = o.owned.begin;
    *end = o.owned.end;
  });
}

const char* npblu_error_message(const npblu_solver* h) { return h ? h->error.c_str() : create_error.c_str(); }

int npblu_copy_error_message(const npblu_solver* h, char* buf, int length) {
  if (!buf || length < 1) return NPBLU_ERROR_ARGUMENT;
  npblu::c_api::copy_message(npblu_error_message(h), buf, length);
  return NPBLU_OK;
}

const char* npblu_status_string(int status) {
  switch (status) {
    case NPBLU_OK:
      return "ok";
    case NPBLU_ERROR_ARGUMENT:
      return "bad argument";
    case NPBLU_ERROR_RUN:
      return "the run could not start, or failed";
    case NPBLU_ERROR_NO_RESULT:
      return "no result yet";
    case NPBLU_ERROR_ORDER:
      return "call out of order";
    default:
      return "unknown status";
  }
}

}  // extern "C"
