// The C API over run_benchmark: options collected as command-line words and
// checked by the same parser as the lu command, so both accept the same.
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interop/npblu.h"
#include "lu/app/benchmark.hpp"
#include "lu/app/options.hpp"
#include "lu/communicator.hpp"

struct npblu_solver {
  npblu::Communicator comm;                 // ours: a duplicate of the caller's
  std::vector<std::string> words{"npblu"};  // the problem and options, as lu's command line
  bool has_problem = false;
  bool print_report = true;
  std::optional<npblu::BenchmarkOutcome> outcome;
  std::string error;
};

namespace {

int fail(npblu_solver* h, int status, std::string message) {
  h->error = std::move(message);
  return status;
}

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

template <class F>
int result(const npblu_solver* h, const void* out, F&& f) {
  if (!h || !out) return NPBLU_ERROR_ARGUMENT;
  if (!h->outcome) {
    const_cast<npblu_solver*>(h)->error = "no result: npblu_run has not completed on this handle";
    return NPBLU_ERROR_NO_RESULT;
  }
  f(*h->outcome);
  return NPBLU_OK;
}

// Drops an earlier problem definition so the last one given counts.
void clear_problem(npblu_solver* h) {
  std::vector<std::string> kept{h->words[0]};
  for (std::size_t i = 1; i < h->words.size(); ++i) {
    const std::string& w = h->words[i];
    if (w == "--class") {
      ++i;
    } else if (w == "--size") {
      i += 3;
    } else if (w == "--iterations" || w == "--dt") {
      ++i;
    } else {
      kept.push_back(w);
    }
  }
  h->words = std::move(kept);
}

}  // namespace

extern "C" {

int npblu_version(int* major, int* minor, int* patch) {
  if (major) *major = NPBLU_VERSION_MAJOR;
  if (minor) *minor = NPBLU_VERSION_MINOR;
  if (patch) *patch = NPBLU_VERSION_PATCH;
  return NPBLU_OK;
}

int npblu_create(npblu_solver** handle, MPI_Comm comm) {
  if (!handle) return NPBLU_ERROR_ARGUMENT;
  *handle = nullptr;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized || comm == MPI_COMM_NULL) return NPBLU_ERROR_ARGUMENT;
  try {
    auto h = std::make_unique<npblu_solver>();
    h->comm = npblu::Communicator::duplicate(comm);
    *handle = h.release();
    return NPBLU_OK;
  } catch (...) {
    return NPBLU_ERROR_RUN;
  }
}

int npblu_create_f(npblu_solver** handle, MPI_Fint fortran_comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    if (handle) *handle = nullptr;
    return NPBLU_ERROR_ARGUMENT;
  }
  return npblu_create(handle, MPI_Comm_f2c(fortran_comm));
}

int npblu_destroy(npblu_solver** handle) {
  if (!handle) return NPBLU_ERROR_ARGUMENT;
  delete *handle;
  *handle = nullptr;
  return NPBLU_OK;
}

int npblu_set_class(npblu_solver* h, char problem_class) {
  return guarded(h, [&]() -> int {
    if (!npblu::find_problem_class(problem_class)) {
      return fail(h, NPBLU_ERROR_ARGUMENT,
                  std::string("unknown class '") + problem_class + "' (expected one of S W A B C D E F)");
    }
    clear_problem(h);
    h->words.insert(h->words.end(), {"--class", std::string(1, problem_class)});
    h->has_problem = true;
    return NPBLU_OK;
  });
}

int npblu_set_size(npblu_solver* h, int nx, int ny, int nz, int iterations, double dt) {
  return guarded(h, [&]() -> int {
    clear_problem(h);
    h->words.insert(h->words.end(), {"--size", std::to_string(nx), std::to_string(ny), std::to_string(nz),
                                     "--iterations", std::to_string(iterations), "--dt", std::to_string(dt)});
    h->has_problem = true;
    return NPBLU_OK;
  });
}

int npblu_set_option(npblu_solver* h, const char* name, const char* value) {
  return guarded(h, [&]() -> int {
    if (!name || !*name) return fail(h, NPBLU_ERROR_ARGUMENT, "option name missing");
    h->words.push_back(std::string("--") + name);
    if (value && *value) h->words.emplace_back(value);
    return NPBLU_OK;
  });
}

int npblu_set_report(npblu_solver* h, int print) {
  return guarded(h, [&]() -> int {
    h->print_report = print != 0;
    return NPBLU_OK;
  });
}

int npblu_run(npblu_solver* h) {
  return guarded(h, [&]() -> int {
    h->outcome.reset();
    if (!h->has_problem)
      return fail(h, NPBLU_ERROR_ARGUMENT, "no problem given: set a class or a size first");
    std::vector<const char*> argv;
    for (const auto& w : h->words) argv.push_back(w.c_str());
    const auto parsed = npblu::parse_command_line(static_cast<int>(argv.size()), argv.data());
    if (!parsed.options) return fail(h, NPBLU_ERROR_ARGUMENT, "help was asked for");
    int rank = 0;
    MPI_Comm_rank(h->comm.get(), &rank);
    std::string line;
    for (const auto& w : h->words) line += (line.empty() ? "" : " ") + w;
    h->outcome =
        npblu::run_benchmark(*parsed.options, h->comm.get(), h->print_report ? &std::cout : nullptr, line);
    return NPBLU_OK;
  });
}

int npblu_time(const npblu_solver* h, double* s) {
  return result(h, s, [&](const auto& o) { *s = o.seconds; });
}
int npblu_mops(const npblu_solver* h, double* m) {
  return result(h, m, [&](const auto& o) { *m = o.mops; });
}
int npblu_verified(const npblu_solver* h, int* v) {
  return result(h, v, [&](const auto& o) { *v = o.verified ? 1 : 0; });
}
int npblu_residual_norms(const npblu_solver* h, double norms[5]) {
  return result(h, norms,
                [&](const auto& o) { std::copy(o.computed.xcr.begin(), o.computed.xcr.end(), norms); });
}
int npblu_error_norms(const npblu_solver* h, double norms[5]) {
  return result(h, norms,
                [&](const auto& o) { std::copy(o.computed.xce.begin(), o.computed.xce.end(), norms); });
}
int npblu_surface_integral(const npblu_solver* h, double* v) {
  return result(h, v, [&](const auto& o) { *v = o.computed.xci; });
}
int npblu_imbalance(const npblu_solver* h, double* f) {
  return result(h, f, [&](const auto& o) { *f = o.imbalance; });
}
int npblu_columns(const npblu_solver* h, int* begin, int* end) {
  if (!end) return NPBLU_ERROR_ARGUMENT;
  return result(h, begin, [&](const auto& o) {
    *begin = o.owned.begin;
    *end = o.owned.end;
  });
}

const char* npblu_error_message(const npblu_solver* h) { return h ? h->error.c_str() : "null handle"; }

int npblu_copy_error_message(const npblu_solver* h, char* buf, int length) {
  if (!buf || length < 1) return NPBLU_ERROR_ARGUMENT;
  const char* msg = npblu_error_message(h);
  const std::size_t n = std::min<std::size_t>(std::strlen(msg), std::size_t(length) - 1);
  std::memcpy(buf, msg, n);
  buf[n] = '\0';
  return NPBLU_OK;
}

const char* npblu_status_string(int status) {
  switch (status) {
    case NPBLU_OK:
      return "ok";
    case NPBLU_ERROR_ARGUMENT:
      return "bad argument";
    case NPBLU_ERROR_RUN:
      return "the run could not start";
    case NPBLU_ERROR_NO_RESULT:
      return "no result yet";
    default:
      return "unknown status";
  }
}

}  // extern "C"
