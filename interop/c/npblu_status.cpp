#include "interop/c/npblu_status.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>

#include "interop/c/npblu_agreement.hpp"
#include "lu/mpi/agreement.hpp"

namespace npblu::c_api {

int status_of_current_exception(std::string& message) noexcept {
  try {
    throw;
  } catch (const npblu::UsageError& e) {
    message = e.what();
    return NPBLU_ERROR_ARGUMENT;
  } catch (const std::invalid_argument& e) {
    message = e.what();
    return NPBLU_ERROR_ARGUMENT;
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    return NPBLU_ERROR_RUN;
  } catch (const std::exception& e) {  // npblu::RunError and everything else
    message = e.what();
    return NPBLU_ERROR_RUN;
  } catch (...) {
    message = "unknown error";
    return NPBLU_ERROR_RUN;
  }
}

void copy_message(std::string_view text, char* buf, int length) {
  if (!buf || length < 1) return;
  const std::size_t n = std::min<std::size_t>(text.size(), std::size_t(length) - 1);
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
}

std::string creation_problem(MPI_Comm comm) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) return "MPI is not initialised";
  return communicator_problem(comm);  // (finalized MPI included)
}

MPI_Comm from_fortran(MPI_Fint comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized ? MPI_Comm_f2c(comm) : MPI_COMM_NULL;
}

}  // namespace npblu::c_api
