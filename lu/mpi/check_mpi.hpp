#pragma once
// The one check of an MPI return code: every MPI call whose failure npblu
// reports goes through it. With MPI's default error handler
// (MPI_ERRORS_ARE_FATAL) a failing call aborts before it returns; where a
// caller set MPI_ERRORS_RETURN, the failure becomes an exception naming
// what failed and MPI's own text for the code.
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace npblu {

/// Throws std::runtime_error("MPI failure in <what>: <MPI's error string>")
/// unless `code` is MPI_SUCCESS.
inline void check_mpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  std::string message = std::string("MPI failure in ") + what;
  if (MPI_Error_string(code, text, &length) == MPI_SUCCESS && length > 0)
    message += ": " + std::string(text, length);
  throw std::runtime_error(message);
}

}  // namespace npblu
