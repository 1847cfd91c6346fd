#pragma once
// The communication context of one stripe: the communicator and the two
// neighbouring stripes (MPI_PROC_NULL at the ends of the grid, so edge
// ranks run the same code with no branches on their position).
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "lu/mpi/message_tags.hpp"

namespace npblu {

struct StripeComm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int previous = MPI_PROC_NULL;  // owns the columns below ours
  int next = MPI_PROC_NULL;      // owns the columns above ours

  explicit StripeComm(MPI_Comm c) : comm(c) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    previous = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    next = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    require_message_tags(comm);
  }
};

/// Turns an MPI error code into an exception (the solver's communicator is
/// set to MPI_ERRORS_RETURN by the caller where it wants that).
inline void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("MPI failure in ") + what);
}

}  // namespace npblu
