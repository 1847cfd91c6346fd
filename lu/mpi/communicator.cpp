#include "lu/mpi/communicator.hpp"

#include <utility>

#include "lu/mpi/message_tags.hpp"

namespace npblu {

Communicator Communicator::duplicate(MPI_Comm comm) {
  Communicator c;
  check_mpi(MPI_Comm_dup(comm, &c.comm_), "MPI_Comm_dup");
  c.owned_ = true;
  c.query();
  return c;
}

Communicator Communicator::borrow(MPI_Comm comm) {
  Communicator c;
  c.comm_ = comm;
  c.query();
  return c;
}

Communicator Communicator::node() const {
  Communicator c;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &c.comm_),
            "MPI_Comm_split_type");
  c.owned_ = true;
  c.query();
  return c;
}

void Communicator::query() {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  require_message_tags(comm_);
}

void Communicator::take(Communicator& other) noexcept {
  comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
  owned_ = std::exchange(other.owned_, false);
  rank_ = other.rank_;
  size_ = other.size_;
}

void Communicator::release() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // After MPI_Finalize there is nothing left to free (and freeing is an error).
  if (owned_ && comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
  owned_ = false;
}

std::string Communicator::broadcast(std::string text, int root) const {
  const int length = broadcast(static_cast<int>(text.size()), root);
  text.resize(length);
  check_mpi(MPI_Bcast(text.data(), length, MPI_CHAR, root, comm_), "MPI_Bcast");
  return text;
}

namespace {

// The handlers of MPI_COMM_WORLD and MPI_COMM_SELF set to MPI_ERRORS_RETURN
// while alive, so that an error about an invalid handle returns a code.
class ErrorsReturn {
 public:
  ErrorsReturn() {
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &self_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  ~ErrorsReturn() {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, self_);
    MPI_Errhandler_free(&world_);
    MPI_Errhandler_free(&self_);
  }
  ErrorsReturn(const ErrorsReturn&) = delete;
  ErrorsReturn& operator=(const ErrorsReturn&) = delete;

 private:
  MPI_Errhandler world_ = MPI_ERRHANDLER_NULL, self_ = MPI_ERRHANDLER_NULL;
};

}  // namespace

std::string communicator_problem(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return "the communicator is MPI_COMM_NULL";
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return "MPI has been finalized";
  ErrorsReturn quiet;
  int size = 0, inter = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS || size < 1 ||
      MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return "the communicator is not a valid MPI communicator";
  if (inter) return "the communicator is an intercommunicator (an intracommunicator is needed)";
  return {};
}

}  // namespace npblu
