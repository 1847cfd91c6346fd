// The C API's run in steps (npblu_start, npblu_advance, ..., npblu_finish)
// and its window on the solution field, over BenchmarkSession. A handle is
// idle (no session), stepping (a session, no outcome yet) or finished (a
// session and its outcome: the field stays readable until the next start,
// run or destroy).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

#include "interop/c/npblu_agreement.hpp"
#include "interop/c/npblu_handle.hpp"
#include "lu/mpi/agreement.hpp"
#include "lu/mpi/check_mpi.hpp"
#include "lu/solver.hpp"

using npblu::c_api::fail;
using npblu::c_api::guarded;

namespace {

bool stepping(const npblu_solver* h) { return h->session && !h->outcome; }

int out_of_order(npblu_solver* h, const char* call, const char* what) {
  return fail(h, NPBLU_ERROR_ORDER, std::string(call) + ": " + what);
}

/// Runs `f` on the open stepped run. A failure thrown from it ends the run
/// (every rank throws alike: the session agrees on its failures); a refused
/// argument (UsageError) leaves it open. The calls' agreement waits as the
/// run's solver does (a driver may advance one iteration a call).
template <class F>
int on_open_run(npblu_solver* h, const char* call, const std::string& arguments, F&& f) {
  return guarded(h, call, [&]() -> int {
    const npblu::WaitMode wait = h->session ? h->session->solver().wait_mode() : npblu::WaitMode::spin;
    npblu::c_api::agree_call(h->comm.get(), call, arguments, "", wait);
    if (!stepping(h))
      return out_of_order(h, call,
                          h->session ? "the stepped run has been finished: npblu_start begins another"
                                     : "no stepped run is open: call npblu_start first");
    try {
      return f(*h->session);
    } catch (const npblu::UsageError&) {
      throw;
    } catch (...) {
      h->session.reset();
      throw;
    }
  });
}

/// Runs `f` on the session, open or finished (the field is there in both).
template <class F>
int on_session(const npblu_solver* ch, const char* call, F&& f) {
  auto* h = const_cast<npblu_solver*>(ch);  // only the error message changes
  return guarded(h, call, [&]() -> int {
    if (!h->session) return out_of_order(h, call, "no stepped run: call npblu_start first");
    return f(*h->session);
  });
}

std::int64_t local_field_size(npblu::BenchmarkSession& s) {
  const npblu::LuSolver& solver = s.solver();
  return std::int64_t(solver.state().column_stride()) * solver.owned().width();
}

// Named with the rank: npblu_set_field agrees the lowest failing rank's message on every rank.
std::string size_mismatch(const char* call, std::int64_t given, std::int64_t expected, int rank) {
  return std::string(call) + ": the array holds " + std::to_string(given) + " doubles on rank " +
         std::to_string(rank) + ", whose part of u is " + std::to_string(expected) + " (npblu_field_size)";
}

std::string null_array(const char* call, int rank) {
  return std::string(call) + ": a null array on rank " + std::to_string(rank);
}

/// Largest magnitude npblu_set_field accepts: the flux terms multiply up to
/// three components, and 1e100 cubed still fits a double.
constexpr double kLargestFieldValue = 1e100;

/// "" or the first value of u[0, count) that is not finite or too large, named with its index and rank.
std::string unusable_value(const double* u, std::int64_t count, const npblu::Communicator& comm) {
  for (std::int64_t i = 0; i < count; ++i) {
    if (std::isfinite(u[i]) && std::fabs(u[i]) <= kLargestFieldValue) continue;
    char value[40];
    std::snprintf(value, sizeof value, "%g", u[i]);
    return "npblu_set_field: u[" + std::to_string(i) + "] = " + value + " on rank " +
           std::to_string(comm.rank()) +
           (std::isfinite(u[i]) ? " is larger than 1e100 in magnitude" : " is not finite") +
           " (the solver's state must be finite; nothing was written)";
  }
  return {};
}

}  // namespace

extern "C" {

int npblu_start(npblu_solver* h) {
  return guarded(h, "npblu_start", [&]() -> int {
    npblu::c_api::agree_call(h->comm.get(), "npblu_start", npblu::c_api::config_arguments(h->config));
    if (stepping(h)) return out_of_order(h, "npblu_start", "a stepped run is open: npblu_finish it first");
    if (!npblu::c_api::has_problem(h))
      return fail(h, NPBLU_ERROR_ARGUMENT, "no problem given: set a class or a size first");
    h->session.reset();  // a finished run's memory goes before the next is allocated
    h->outcome.reset();
    h->session = std::make_unique<npblu::BenchmarkSession>(
        h->config, h->comm.get(), h->print_report ? &std::cout : nullptr, "npblu" + h->settings);
    return NPBLU_OK;
  });
}

int npblu_advance(npblu_solver* h, int iterations, int* ran) {
  if (ran) *ran = 0;
  return on_open_run(h, "npblu_advance", npblu::c_api::ArgumentText().add("iterations", iterations).str(),
                     [&](npblu::BenchmarkSession& s) -> int {
                       if (iterations < 0)
                         return fail(
                             h, NPBLU_ERROR_ARGUMENT,
                             "npblu_advance: iterations must be >= 0, got " + std::to_string(iterations));
                       const int n = iterations > 0 ? s.advance(iterations) : 0;
                       if (ran) *ran = n;
                       return NPBLU_OK;
                     });
}

int npblu_iterations_done(const npblu_solver* h, int* done, int* total) {
  return on_session(h, "npblu_iterations_done", [&](npblu::BenchmarkSession& s) -> int {
    if (done) *done = s.iterations_done();
    if (total) *total = s.iterations();
    return NPBLU_OK;
  });
}

int npblu_current_residual_norms(npblu_solver* h, double norms[5]) {
  if (h) {
    const int status = guarded(h, "npblu_current_residual_norms", [&]() -> int {
      npblu::c_api::agree_call(h->comm.get(), "npblu_current_residual_norms", "");
      return NPBLU_OK;
    });
    if (status != NPBLU_OK) return status;
  }
  return on_session(h, "npblu_current_residual_norms", [&](npblu::BenchmarkSession& s) -> int {
    const npblu::Vector5 v = s.residual_norms();  // first: a bad pointer on one rank must not hang the others
    // Then agreed: every rank returns the same status (c-api.md), naming the rank.
    npblu::agree<npblu::UsageError>(
        norms != nullptr,
        "npblu_current_residual_norms: a null array on rank " + std::to_string(h->comm.rank()),
        h->comm.get());
    std::copy(v.begin(), v.end(), norms);
    return NPBLU_OK;
  });
}

int npblu_finish(npblu_solver* h) {
  return on_open_run(h, "npblu_finish", "", [&](npblu::BenchmarkSession& s) -> int {
    h->outcome = s.finish();
    return NPBLU_OK;
  });
}

int npblu_grid(const npblu_solver* h, int* nx, int* ny, int* nz) {
  const auto give = [&](const npblu::GridSize& g) {
    if (nx) *nx = g.nx;
    if (ny) *ny = g.ny;
    if (nz) *nz = g.nz;
    return NPBLU_OK;
  };
  if (h && !h->session && h->outcome) return give(h->outcome->grid);  // after npblu_run
  return on_session(h, "npblu_grid", [&](npblu::BenchmarkSession& s) { return give(s.solver().grid()); });
}

int npblu_field_size(const npblu_solver* h, int64_t* count) {
  return on_session(h, "npblu_field_size", [&](npblu::BenchmarkSession& s) -> int {
    if (!count)
      return fail(const_cast<npblu_solver*>(h), NPBLU_ERROR_ARGUMENT, "npblu_field_size: null count");
    *count = local_field_size(s);
    return NPBLU_OK;
  });
}

int npblu_get_field(const npblu_solver* h, double* u, int64_t count) {
  return on_session(h, "npblu_get_field", [&](npblu::BenchmarkSession& s) -> int {
    const std::int64_t expected = local_field_size(s);
    if (!u || count != expected)
      return fail(const_cast<npblu_solver*>(h), NPBLU_ERROR_ARGUMENT,
                  u ? size_mismatch("npblu_get_field", count, expected, h->comm.rank())
                    : null_array("npblu_get_field", h->comm.rank()));
    const npblu::LuSolver& solver = s.solver();
    if (expected > 0)
      std::memcpy(u, solver.state().column(solver.owned().begin), std::size_t(expected) * sizeof(double));
    return NPBLU_OK;
  });
}

int npblu_set_field(npblu_solver* h, const double* u, int64_t count) {
  return on_open_run(h, "npblu_set_field", "", [&](npblu::BenchmarkSession& s) -> int {
    const std::int64_t expected = local_field_size(s);
    const bool fits = u && count == expected;
    // Agreed first: a rank that wrote alone would wait for halos forever.
    npblu::agree<npblu::UsageError>(fits,
                                    fits ? ""
                                    : u  ? size_mismatch("npblu_set_field", count, expected, h->comm.rank())
                                         : null_array("npblu_set_field", h->comm.rank()),
                                    h->comm.get());
    const std::string bad = unusable_value(u, expected, h->comm);
    npblu::agree<npblu::UsageError>(bad.empty(), bad, h->comm.get());
    npblu::LuSolver& solver = s.solver();
    if (expected > 0)
      std::memcpy(solver.writable_state().column(solver.owned().begin), u,
                  std::size_t(expected) * sizeof(double));
    solver.state_written();
    return NPBLU_OK;
  });
}

int npblu_field_checksum(npblu_solver* h, char* buf, int length) {
  return guarded(h, "npblu_field_checksum", [&]() -> int {
    npblu::c_api::agree_call(h->comm.get(), "npblu_field_checksum", "");
    std::string digest;
    if (h->session)
      digest = h->session->solver().checksum();
    else if (h->outcome)
      digest = h->outcome->report.field_checksum;
    else
      return fail(h, NPBLU_ERROR_NO_RESULT, "npblu_field_checksum: no run on this handle");
    // Collective before the buffer is checked: a bad buffer on one rank must not hang the others.
    digest = npblu::broadcast_text(std::move(digest), 0, h->comm.get());  // rank 0 holds it
    // Then agreed: every rank returns the same status (c-api.md), naming the rank.
    const std::string on_rank = " on rank " + std::to_string(h->comm.rank());
    npblu::agree<npblu::UsageError>(
        buf && length >= 17,
        buf ? "npblu_field_checksum: a buffer of " + std::to_string(length) + " characters" + on_rank +
                  " holds " + std::to_string(std::max(0, length - 1)) +
                  " digits and the terminating null (a Fortran string of length " +
                  std::to_string(std::max(0, length - 1)) +
                  "): the digest has 16 (a C buffer of 17, a Fortran string of 16)"
            : "npblu_field_checksum: a null buffer" + on_rank,
        h->comm.get());
    std::snprintf(buf, std::size_t(length), "%s", digest.c_str());
    return NPBLU_OK;
  });
}

}  // extern "C"
