#pragma once
// A communicator the library owns: a duplicate of the one it was given, so
// that none of its messages can match a receive of the caller's (a pending
// MPI_ANY_SOURCE/MPI_ANY_TAG receive on the caller's communicator never sees
// them) and none of the caller's can match ours. Freed when the owner goes.
#include <mpi.h>

#include <stdexcept>
#include <utility>

namespace npblu {

class Communicator {
 public:
  Communicator() = default;
  /// Collective over `comm`.
  static Communicator duplicate(MPI_Comm comm) {
    Communicator c;
    if (MPI_Comm_dup(comm, &c.comm_) != MPI_SUCCESS) throw std::runtime_error("MPI_Comm_dup failed");
    return c;
  }
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  Communicator(Communicator&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  Communicator& operator=(Communicator&& other) noexcept {
    if (this != &other) {
      release();
      comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  ~Communicator() { release(); }

  [[nodiscard]] MPI_Comm get() const { return comm_; }
  /// Forgets the communicator without freeing it, for an owner going away on
  /// one rank alone (MPI_Comm_free is collective); MPI_Finalize reclaims it.
  void abandon() noexcept { comm_ = MPI_COMM_NULL; }

 private:
  void release() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    // After MPI_Finalize there is nothing left to free (and freeing is an error).
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace npblu
