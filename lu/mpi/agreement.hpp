#pragma once
// Errors every rank agrees on. A problem one rank sees alone (a file it
// cannot read, an allocation that failed, a trace write that failed) is
// agreed collectively at a point every rank reaches, so every rank throws
// the same error and none is left waiting in a collective.
#include <mpi.h>

#include <stdexcept>
#include <string>

#include "lu/mpi/request_wait.hpp"

namespace npblu {

/// Bad input: the message names the option (or setting) and the problem;
/// exit status 2 of `lu`, NPBLU_ERROR_ARGUMENT of the C API. Here, beside
/// the other agreed errors, so that the C API's one status map
/// (interop/c/c_status) needs nothing from lu/run.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The run was refused before computing: thrown on every rank of the
/// communicator with the same message (bad input, or a problem one rank saw
/// during set-up: an unreadable file, an unwritable path, no memory).
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The run failed after it started computing (a trace or report write
/// failed): thrown on every rank with the same message.
struct RunFailure : RunError {
  using RunError::RunError;
};

/// Collective: returns when `ok` holds on every rank; otherwise throws, on
/// every rank, an E with the message of the lowest failing rank. One
/// MPI_Allreduce of an int when all is well, waited for as `wait` says
/// (Communicator's collectives; agreements inside the timed iterations
/// give the solver's wait mode).
template <class E = RunError>
void agree(bool ok, const std::string& message, MPI_Comm comm, Waited wait = {});

/// Collective: whether some rank's `ok` is false; if so `agreed` gets, on
/// every rank, the message of the lowest such rank.
bool first_failure(bool ok, const std::string& message, MPI_Comm comm, std::string& agreed, Waited wait = {});

template <class E>
void agree(bool ok, const std::string& message, MPI_Comm comm, Waited wait) {
  std::string agreed;
  if (first_failure(ok, message, comm, agreed, wait)) throw E(agreed);
}

/// `text` of rank `root`, on every rank (Communicator::broadcast).
std::string broadcast_text(std::string text, int root, MPI_Comm comm);

/// Collective: the text `read()` returns on rank 0 (a file only it reads),
/// on every rank. If it throws, every rank throws an E with
/// `describe(what())`: the file's problem is agreed, never rank 0's alone.
template <class E = RunError, class Read, class Describe>
std::string read_on_rank0(MPI_Comm comm, Read&& read, Describe&& describe) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string text, problem;
  if (rank == 0) {
    try {
      text = read();
    } catch (const std::exception& e) {
      problem = describe(std::string(e.what()));
    }
  }
  agree<E>(problem.empty(), problem, comm);
  return broadcast_text(std::move(text), 0, comm);
}

}  // namespace npblu
