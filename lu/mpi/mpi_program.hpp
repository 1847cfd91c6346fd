#pragma once
// The frame of an MPI program: MPI initialised for the program's life
// (MpiSession, RAII), and for the test and benchmark programs a body whose
// exception on one rank ends the whole job with one line naming the program
// and the rank, rather than leaving the other ranks waiting in a collective.
#include <mpi.h>

#include <cstdio>
#include <exception>

namespace npblu {

class MpiSession {
 public:
  MpiSession(int* argc, char*** argv) { MPI_Init(argc, argv); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

/// Runs body(argc, argv, rank, ranks) between MPI_Init and MPI_Finalize and
/// returns its status; an exception aborts the job (status 1), naming `program`.
template <class Body>
int run_mpi_program(const char* program, int argc, char** argv, Body body) {
  const MpiSession mpi(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    return body(argc, argv, rank, ranks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: rank %d: %s\n", program, rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}

}  // namespace npblu
