/* The frame of the balance API's C tests on MPI (tests/balance_api.c, tests/balance_quality_api.c):
 * this rank's failures, CHECK, the times of a made-up bulk-synchronous iteration, and the main that
 * runs a file's tests on 2 to 8 ranks and exits 0 on pass, 1 on any rank's failure (on every rank),
 * 2 on another rank count. */
#ifndef NPBLU_TESTS_MPI_C_TEST_H
#define NPBLU_TESTS_MPI_C_TEST_H

#include <math.h>
#include <mpi.h>
#include <stdio.h>

static int rank = 0, size = 1, failures = 0;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      ++failures;                                                 \
    }                                                             \
  } while (0)

/* One bulk-synchronous iteration on the stripes `cuts` (size + 1 entries) at per-column costs
 * `cost`: this rank computes its width times its cost and waits for the slowest rank. Returns the
 * slowest rank's time. */
static double bulk_synchronous_iteration(const int* cuts, const double* cost, double* compute, double* wait) {
  double slowest = 0.0;
  for (int r = 0; r < size; ++r) slowest = fmax(slowest, (cuts[r + 1] - cuts[r]) * cost[r]);
  *compute = (cuts[rank + 1] - cuts[rank]) * cost[rank];
  *wait = slowest - *compute;
  return slowest;
}

typedef void (*mpi_c_test)(void);

static int run_mpi_c_tests(int argc, char** argv, const mpi_c_test* tests, int count) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > 8) {
    if (rank == 0) fprintf(stderr, "run on 2 to 8 ranks\n");
    MPI_Finalize();
    return 2;
  }
  for (int t = 0; t < count; ++t) tests[t]();
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failures\n", total ? "FAIL" : "PASS", total);
  MPI_Finalize();
  return total ? 1 : 0;
}

#endif
