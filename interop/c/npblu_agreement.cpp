#include "interop/c/npblu_agreement.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>

#include "lu/mpi/agreement.hpp"
#include "lu/mpi/check_mpi.hpp"
#include "lu/mpi/messages.hpp"

namespace npblu::c_api {

namespace {

// One value of an ArgumentText: its setting's name ("" for none) and its text.
struct Argument {
  std::string_view name, value;
};

// The value at `text[at]` on (ArgumentText's encoding: [name=] then
// "length:bytes;" for a string, else up to ';'), advancing `at`.
Argument next_argument(std::string_view text, std::size_t& at) {
  Argument out;
  if (std::isalpha(static_cast<unsigned char>(text[at]))) {
    const std::size_t equals = std::min(text.find('=', at), text.size());
    out.name = text.substr(at, equals - at);
    at = std::min(equals + 1, text.size());
  }
  const std::size_t end = std::min(text.find(';', at), text.size());
  const std::size_t colon = text.find(':', at);
  if (colon < end) {  // a string: its length says where it ends (it may hold ';')
    const std::size_t length = std::strtoull(std::string(text.substr(at, colon - at)).c_str(), nullptr, 10);
    out.value = text.substr(colon + 1, std::min(length, text.size() - colon - 1));
    at = std::min(colon + 1 + out.value.size() + 1, text.size());
  } else {
    out.value = text.substr(at, end - at);
    at = std::min(end + 1, text.size());
  }
  return out;
}

std::string shown(std::string_view value, bool any) { return any ? quote_value(value) : "(none)"; }

}  // namespace

std::string first_difference(std::string_view a, int rank_a, std::string_view b, int rank_b) {
  std::size_t at_a = 0, at_b = 0;
  for (int index = 1; at_a < a.size() || at_b < b.size(); ++index) {
    const bool in_a = at_a < a.size(), in_b = at_b < b.size();
    const Argument x = in_a ? next_argument(a, at_a) : Argument{};
    const Argument y = in_b ? next_argument(b, at_b) : Argument{};
    if (in_a && in_b && x.name == y.name && x.value == y.value) continue;
    const std::string_view name = !x.name.empty() ? x.name : y.name;
    const std::string what = name.empty() ? "argument " + std::to_string(index) : std::string(name);
    return what + " is " + shown(x.value, in_a) + " on rank " + std::to_string(rank_a) + " and " +
           shown(y.value, in_b) + " on rank " + std::to_string(rank_b);
  }
  return "";
}

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
  const std::string root_arguments = broadcast_text(std::string(arguments), 0, comm);
  const std::string other_arguments = broadcast_text(std::string(arguments), differs, comm);
  const std::string difference = first_difference(root_arguments, 0, other_arguments, differs);
  const std::string what =
      root_call == other_call
          ? root_call + ": rank " + std::to_string(differs) + " passed other arguments than rank 0" +
                (difference.empty() ? "" : ": " + difference)
          : "rank 0 called " + root_call + ", rank " + std::to_string(differs) + " called " + other_call;
  // (the same message on every rank: not prefixed with this rank's call)
  throw npblu::UsageError("a collective call refused: the ranks disagree (" + what +
                          "): a collective call needs the same call with the same arguments on every "
                          "rank; nothing was done");
}

}  // namespace npblu::c_api
