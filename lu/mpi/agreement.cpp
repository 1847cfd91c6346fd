#include "lu/mpi/agreement.hpp"

#include <climits>

namespace npblu {

bool first_failure(bool ok, const std::string& message, MPI_Comm comm, std::string& agreed) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = ok ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return false;
  int length = rank == first ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  agreed = rank == first ? message : std::string(length, ' ');
  MPI_Bcast(agreed.data(), length, MPI_CHAR, first, comm);
  return true;
}

}  // namespace npblu
