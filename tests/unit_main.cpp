// Unit tests run as one process; MPI is initialised so that code taking a
// communicator can be exercised on MPI_COMM_SELF / a world of one.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
