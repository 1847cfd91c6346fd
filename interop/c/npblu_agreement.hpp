#pragma once
// What every collective call of the C API (and so of the Fortran bindings)
// does first: checks that the communicator it is given is one, and that
// every rank made the same call with the same arguments. Internal to the
// library. A call that differs on one rank (another call, another value, a
// class set on rank 0 only) would otherwise pair with an unrelated
// collective and hang or corrupt memory; here every rank meets in one small
// all-reduce of a digest and refuses alike, naming the rank that differs.
#include <mpi.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "lu/mpi/communicator.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu::c_api {

/// (lu/mpi/communicator.hpp)
using npblu::communicator_problem;

/// Collective over `comm`: returns when every rank called `call` with the
/// same `arguments` (any canonical text of them, e.g. ArgumentText); otherwise throws
/// npblu::UsageError on every rank with the same message, naming the
/// lowest rank that differs from rank 0 and the calls made. The same
/// all-reduce also carries each rank's verdict on what only it can check
/// (its own pointers, its own fed times): `problem` ("" if none). Returns
/// "" when no rank has one, else, on every rank, the problem of the lowest
/// rank with one. One MPI_Iallreduce of three 64-bit integers when all
/// agree and none has a problem (every call of the C API meets in this one
/// shape, so a rank in another call pairs with it and is refused, never left
/// hanging), completed the way `wait` says: calls made every iteration of a
/// stepped run wait as its solver does (lu/mpi/request_wait.hpp). Always the
/// non-blocking form, so ranks that wait differently still pair.
std::string agree_call(MPI_Comm comm, std::string_view call, std::string_view arguments,
                       const std::string& problem = "", WaitMode wait = WaitMode::spin);

/// A canonical text of a call's arguments, for agree_call: the same on two
/// ranks iff the values are (doubles in their shortest exact form, strings
/// with their length). A value may carry the name of the setting it comes
/// from: when two ranks disagree, agree_call names the first one that differs.
class ArgumentText {
 public:
  template <class T>
  ArgumentText& add(const T& v) {
    return add("", v);
  }
  template <class T>
  ArgumentText& add(std::string_view name, const T& v) {
    if (!name.empty()) text_.append(name).push_back('=');
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      const std::string_view s(v);
      text_ += std::to_string(s.size()) + ":";
      text_ += s;
    } else if constexpr (std::is_floating_point_v<T>) {
      char digits[32];
      const auto end = std::to_chars(digits, digits + sizeof digits, static_cast<double>(v)).ptr;
      text_.append(digits, end);
    } else {
      text_ += std::to_string(v);
    }
    text_ += ';';
    return *this;
  }
  [[nodiscard]] const std::string& str() const { return text_; }

 private:
  std::string text_;
};

/// Where two ArgumentText texts first differ, for a message: "balance-every
/// is '5' on rank 0 and '20' on rank 1" ("argument 3 is ..." for a value
/// without a name); "" when they are equal.
std::string first_difference(std::string_view a, int rank_a, std::string_view b, int rank_b);

/// 64-bit FNV-1a of `text` (the digest agree_call compares).
std::uint64_t text_digest(std::string_view text);

}  // namespace npblu::c_api
