#include "lu/mpi/agreement.hpp"

#include <climits>

#include "lu/mpi/communicator.hpp"

namespace npblu {

bool first_failure(bool ok, const std::string& message, MPI_Comm comm, std::string& agreed, Waited wait) {
  const Communicator c = Communicator::borrow(comm);
  const int first = c.all_reduce_min(ok ? INT_MAX : c.rank(), wait);
  if (first == INT_MAX) return false;
  agreed = c.broadcast(c.rank() == first ? message : std::string(), first);
  return true;
}

std::string broadcast_text(std::string text, int root, MPI_Comm comm) {
  return Communicator::borrow(comm).broadcast(std::move(text), root);
}

}  // namespace npblu
