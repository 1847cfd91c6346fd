#include "interop/c/npblu_agreement.hpp"

#include <climits>

#include "lu/mpi/agreement.hpp"
#include "lu/mpi/check_mpi.hpp"

namespace npblu::c_api {

std::uint64_t text_digest(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

std::string agree_call(MPI_Comm comm, std::string_view call, std::string_view arguments,
                       const std::string& problem, WaitMode wait) {
  const std::string mine = std::string(call) + '\0' + std::string(arguments);
  const std::uint64_t digest = text_digest(mine);
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  // (MPICH 4.0's MPI_MIN on MPI_UINT64_T compares as signed: "no problem" is
  // INT64_MAX, above every rank in either reading; the digests' test holds in both)
  constexpr std::uint64_t kNone = INT64_MAX;
  // min of ~d is ~(max of d); the third: the lowest rank with a problem
  std::uint64_t low_high_failing[3] = {digest, ~digest, problem.empty() ? kNone : std::uint64_t(rank)};
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Iallreduce(MPI_IN_PLACE, low_high_failing, 3, MPI_UINT64_T, MPI_MIN, comm, &request),
            "MPI_Iallreduce");
  wait_for(request, wait);
  if (low_high_failing[0] == ~low_high_failing[1]) {
    if (low_high_failing[2] == kNone) return "";
    return broadcast_text(problem, static_cast<int>(low_high_failing[2]), comm);
  }
  // They differ: find the lowest rank that differs from rank 0 and name both calls.
  std::uint64_t root_digest = digest;
  check_mpi(MPI_Bcast(&root_digest, 1, MPI_UINT64_T, 0, comm), "MPI_Bcast");
  int differs = digest != root_digest ? rank : INT_MAX;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  const std::string root_call = broadcast_text(std::string(call), 0, comm);
  const std::string other_call = broadcast_text(std::string(call), differs, comm);
  const std::string what =
      root_call == other_call
          ? root_call + ": rank " + std::to_string(differs) + " passed other arguments than rank 0"
          : "rank 0 called " + root_call + ", rank " + std::to_string(differs) + " called " + other_call;
  // (the same message on every rank: not prefixed with this rank's call)
  throw npblu::UsageError("a collective call refused: the ranks disagree (" + what +
                          "): a collective call needs the same call with the same arguments on every "
                          "rank; nothing was done");
}

}  // namespace npblu::c_api
