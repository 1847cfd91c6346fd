#pragma once
// The one communicator type of npblu: an MPI communicator with its rank,
// size and stripe neighbours, and collectives that return their values
// (after KaMPIng: `double slowest = comm.all_reduce_max(mine);`), every MPI
// return code checked by check_mpi.
//
// Two ways to get one:
//  - duplicate(c): the library's own duplicate of a caller's communicator
//    (the C API's handles), so that none of our messages can match a receive
//    of the caller's (a pending MPI_ANY_SOURCE/MPI_ANY_TAG receive on the
//    caller's communicator never sees them) and none of the caller's can
//    match ours. Freed (collectively) when the owner goes.
//  - borrow(c): c itself, owned and kept alive by whoever gave it (the
//    solver runs on the communicator its caller chose; MPI_Comm_dup is
//    collective, and a solver built on one rank of a failed set-up must not
//    wait for the others). Never freed here.
// Both check that every message tag of message_tags.hpp is valid on it.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lu/mpi/check_mpi.hpp"
#include "lu/mpi/request_wait.hpp"

namespace npblu {

/// The MPI datatype of T (the types npblu's collectives carry).
template <class T>
MPI_Datatype mpi_datatype();
template <>
inline MPI_Datatype mpi_datatype<int>() {
  return MPI_INT;
}
template <>
inline MPI_Datatype mpi_datatype<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_datatype<std::uint64_t>() {
  return MPI_UINT64_T;
}
template <>
inline MPI_Datatype mpi_datatype<char>() {
  return MPI_CHAR;
}

class Communicator {
 public:
  Communicator() = default;  // none (MPI_COMM_NULL)
  /// Collective over `comm`: owns a duplicate of it.
  static Communicator duplicate(MPI_Comm comm);
  /// Not collective: `comm` itself, never freed here.
  static Communicator borrow(MPI_Comm comm);
  /// Collective: the ranks of this one that share memory with this rank (its
  /// node: MPI_COMM_TYPE_SHARED), in this one's rank order; owned.
  [[nodiscard]] Communicator node() const;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  Communicator(Communicator&& other) noexcept { take(other); }
  Communicator& operator=(Communicator&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Communicator() { release(); }

  [[nodiscard]] MPI_Comm get() const { return comm_; }
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// The stripe below ours (owns the columns before ours); MPI_PROC_NULL on rank 0, so
  /// edge ranks run the same code with no branches on their position.
  [[nodiscard]] int previous() const { return rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL; }
  /// The stripe above ours; MPI_PROC_NULL on the last rank.
  [[nodiscard]] int next() const { return rank_ + 1 < size_ ? rank_ + 1 : MPI_PROC_NULL; }
  /// Forgets the communicator without freeing it, for an owner going away on
  /// one rank alone (MPI_Comm_free is collective); MPI_Finalize reclaims it.
  void abandon() noexcept { comm_ = MPI_COMM_NULL; }

  void barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }
  // Given a WaitMode (`Waited`), a collective runs in its non-blocking form
  // and completes the way the mode says (wait_for): WaitMode::sleep polls,
  // sleeping between polls, so that where the library keeps a shared core
  // while it polls, a rank that arrives first does not hold up, by a time
  // slice, the rank on its core that it waits for. The form depends on
  // whether a mode is given, never on which: ranks may wait differently
  // (auto decides per rank), and MPI never matches a blocking collective
  // with a non-blocking one. Without one, the blocking form.
  template <class T>
  [[nodiscard]] T all_reduce_max(T value, Waited wait = {}) const {
    return all_reduce(value, MPI_MAX, wait);
  }
  template <class T>
  [[nodiscard]] T all_reduce_min(T value, Waited wait = {}) const {
    return all_reduce(value, MPI_MIN, wait);
  }
  template <class T>
  [[nodiscard]] T all_reduce_sum(T value, Waited wait = {}) const {
    return all_reduce(value, MPI_SUM, wait);
  }
  /// Element-wise, over whole arrays (one MPI_Allreduce).
  template <class T, std::size_t N>
  [[nodiscard]] std::array<T, N> all_reduce_sum(const std::array<T, N>& values) const {
    return all_reduce_each(values, MPI_SUM);
  }
  template <class T>
  [[nodiscard]] std::vector<T> all_reduce_min(const std::vector<T>& values) const {
    return all_reduce_each(values, MPI_MIN);
  }
  template <class T>
  [[nodiscard]] std::vector<T> all_reduce_max(const std::vector<T>& values) const {
    return all_reduce_each(values, MPI_MAX);
  }
  /// Every rank's `mine` (the same length on every rank), in rank order.
  template <class T>
  [[nodiscard]] std::vector<T> all_gather(std::span<const T> mine, Waited wait = {}) const {
    std::vector<T> all(mine.size() * std::size_t(size_));
    const int n = static_cast<int>(mine.size());
    const MPI_Datatype type = mpi_datatype<T>();
    collective(
        wait, [&] { return MPI_Allgather(mine.data(), n, type, all.data(), n, type, comm_); },
        [&](MPI_Request* r) { return MPI_Iallgather(mine.data(), n, type, all.data(), n, type, comm_, r); },
        "MPI_Allgather");
    return all;
  }
  /// On `root`: every rank's `value`, in rank order (elsewhere: empty).
  template <class T>
  [[nodiscard]] std::vector<T> gather(T value, int root) const {
    return gather_each(std::span<const T>(&value, 1), root);
  }
  /// On `root`: every rank's `mine` (the same length on every rank), in rank
  /// order (elsewhere: empty).
  template <class T>
  [[nodiscard]] std::vector<T> gather_each(std::span<const T> mine, int root, Waited wait = {}) const {
    std::vector<T> all(rank_ == root ? mine.size() * std::size_t(size_) : 0);
    const int n = static_cast<int>(mine.size());
    const MPI_Datatype type = mpi_datatype<T>();
    collective(
        wait, [&] { return MPI_Gather(mine.data(), n, type, all.data(), n, type, root, comm_); },
        [&](MPI_Request* r) {
          return MPI_Igather(mine.data(), n, type, all.data(), n, type, root, comm_, r);
        },
        "MPI_Gather");
    return all;
  }
  /// On `root`: every rank's `mine` (any length), concatenated in rank order (elsewhere: empty).
  template <class T>
  [[nodiscard]] std::vector<T> gather_concatenated(std::span<const T> mine, int root) const;
  /// `value` of rank `root`, on every rank.
  template <class T>
  [[nodiscard]] T broadcast(T value, int root) const {
    check_mpi(MPI_Bcast(&value, 1, mpi_datatype<T>(), root, comm_), "MPI_Bcast");
    return value;
  }
  /// `text` of rank `root`, on every rank.
  [[nodiscard]] std::string broadcast(std::string text, int root) const;

 private:
  void take(Communicator& other) noexcept;
  void release() noexcept;
  void query();  // rank_, size_, and the tag check
  /// Runs a collective: `blocking()` without a wait mode, else
  /// `nonblocking(&request)` completed by wait_for (MPI errors through check_mpi).
  template <class Blocking, class NonBlocking>
  void collective(Waited wait, Blocking&& blocking, NonBlocking&& nonblocking, const char* what) const {
    if (!wait) {
      check_mpi(blocking(), what);
      return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(nonblocking(&request), what);
    wait_for(request, *wait);
  }
  template <class T>
  T all_reduce(T value, MPI_Op op, Waited wait) const {
    T result{};
    const MPI_Datatype type = mpi_datatype<T>();
    collective(
        wait, [&] { return MPI_Allreduce(&value, &result, 1, type, op, comm_); },
        [&](MPI_Request* r) { return MPI_Iallreduce(&value, &result, 1, type, op, comm_, r); },
        "MPI_Allreduce");
    return result;
  }
  template <class Values>
  Values all_reduce_each(const Values& values, MPI_Op op) const {
    Values result = values;
    using T = typename Values::value_type;
    check_mpi(MPI_Allreduce(values.data(), result.data(), static_cast<int>(values.size()), mpi_datatype<T>(),
                            op, comm_),
              "MPI_Allreduce");
    return result;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owned_ = false;  // a duplicate of ours, freed by release()
  int rank_ = 0;
  int size_ = 1;
};

template <class T>
std::vector<T> Communicator::gather_concatenated(std::span<const T> mine, int root) const {
  const int count = static_cast<int>(mine.size());
  const std::vector<int> counts = gather(count, root);
  std::vector<int> displacements(counts.size());
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = total;
    total += counts[r];
  }
  std::vector<T> all(total);
  check_mpi(MPI_Gatherv(mine.data(), count, mpi_datatype<T>(), all.data(), counts.data(),
                        displacements.data(), mpi_datatype<T>(), root, comm_),
            "MPI_Gatherv");
  return all;
}

/// "" or why `comm` cannot be used: MPI_COMM_NULL, MPI finalized, an
/// invalid handle (found with MPI_ERRORS_RETURN set on MPI_COMM_WORLD and
/// MPI_COMM_SELF, where MPI raises errors about invalid handles, restored
/// after), an intercommunicator. Not collective; never aborts. (Asks MPI
/// about a handle, not whether a call succeeded: not check_mpi's job.)
std::string communicator_problem(MPI_Comm comm);

}  // namespace npblu
