/* MPI integration test of npblu_balance.h's edges, in C (2 ranks), each found by a randomized trial:
 *  - fed times the contract accepts (finite, non-negative) however extreme: a subnormal compute
 *    time (whose per-column cost is 0 to the arithmetic) or one near DBL_MAX is never refused;
 *  - migrate refuses a new array that overlaps ANOTHER array's old storage, or another array's new
 *    storage (it checked each array against its own old one only; both were accepted);
 *  - messages name what the caller gave: a column count of -5, a fed time of -1e-300 (once
 *    "-0.000000"), and the Fortran door's widths of the wrong length (once read as zeros).
 * Exit 0 on pass, 1 on failure (every rank; tests/mpi_c_test.h). */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_c_test.h"
#include "npblu.h"

static npblu_balancer* created(int every) {
  npblu_balance_settings s;
  npblu_balance_settings_default(&s);
  s.every = every;
  s.core_share = 0;
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, 20, NULL, NULL, &s, NULL, 0) == NPBLU_OK, "create");
  return h;
}

static void test_extreme_times_accepted(void) {
  const double times[][2] = {{4.9e-324, 1.0}, {1.7e308, 0.01}, {0.0, 1e-300}};
  for (int c = 0; c < 3; ++c) {
    npblu_balancer* h = created(1);
    int refused = 0;
    for (int f = 0; f < 20; ++f) {
      int changed = 0;
      const double compute = times[c][rank == 0 ? 0 : 1];
      if (npblu_balancer_feed(h, compute, 0.0, &changed) != NPBLU_OK) {
        ++refused;
        if (refused == 1) fprintf(stderr, "rank %d: %s\n", rank, npblu_balancer_error_message(h));
      }
      if (changed) npblu_balancer_migrate(h, 0, NULL, NULL, NULL, 0);
    }
    CHECK(refused == 0, "case %d: %d of 20 feeds of %g s refused", c, refused, times[c][rank == 0 ? 0 : 1]);
    npblu_balancer_destroy(&h);
  }
}

static void expect_migrate_refused(npblu_balancer* h, const void* const* old_arrays, void* const* new_arrays,
                                   const char* needle) {
  const size_t bytes[2] = {sizeof(double), sizeof(double)};
  CHECK(npblu_balancer_migrate(h, 2, old_arrays, new_arrays, bytes, 0) == NPBLU_ERROR_ARGUMENT,
        "migrate accepted (%s)", needle);
  CHECK(strstr(npblu_balancer_error_message(h), needle) != NULL, "message '%s' lacks '%s'",
        npblu_balancer_error_message(h), needle);
}

static void test_overlap_across_arrays(void) {
  npblu_balancer* h = created(5);
  const int widths[2] = {4, 16};
  CHECK(npblu_balancer_set_widths(h, widths) == NPBLU_OK, "set widths");
  double a[20], b[20], c[20], d[20];
  for (int j = 0; j < 20; ++j) a[j] = b[j] = c[j] = d[j] = j;
  const void* olds[2] = {a, b};
  void* news[2] = {c, a}; /* array 1 written over array 0's old storage */
  expect_migrate_refused(h, olds, news, "array 1: the new array overlaps old array 0");
  news[1] = c; /* arrays 0 and 1 written to one buffer */
  expect_migrate_refused(h, olds, news, "array 1: the new array overlaps new array 0");
  news[1] = d; /* separate storage: moved */
  const size_t bytes[2] = {sizeof(double), sizeof(double)};
  CHECK(npblu_balancer_migrate(h, 2, olds, news, bytes, 0) == NPBLU_OK, "separate arrays: %s",
        npblu_balancer_error_message(h));
  npblu_balancer_destroy(&h);
}

static void test_messages_name_the_value(void) {
  char message[256] = "";
  npblu_balancer* h = NULL;
  CHECK(npblu_balancer_create(&h, MPI_COMM_WORLD, -5, NULL, NULL, NULL, message, (int)sizeof message) ==
            NPBLU_ERROR_ARGUMENT,
        "columns -5 accepted");
  CHECK(strstr(message, "at least 1, got -5") != NULL, "columns -5: '%s'", message);
  h = created(5);
  CHECK(npblu_balancer_feed(h, -1e-300, 0.0, NULL) == NPBLU_ERROR_ARGUMENT, "feed -1e-300 accepted");
  CHECK(strstr(npblu_balancer_error_message(h), "compute -1e-300 s") != NULL, "feed -1e-300: '%s'",
        npblu_balancer_error_message(h));
  const int three[3] = {6, 7, 7};
  CHECK(npblu_balancer_set_widths_fn(h, three, 3) == NPBLU_ERROR_ARGUMENT, "3 widths for 2 ranks accepted");
  CHECK(strstr(npblu_balancer_error_message(h), "widths holds 3 values for 2 ranks") != NULL, "'%s'",
        npblu_balancer_error_message(h));
  CHECK(npblu_balancer_set_max_widths_fn(h, three, 1) == NPBLU_ERROR_ARGUMENT, "1 max width accepted");
  CHECK(strstr(npblu_balancer_error_message(h), "max_widths holds 1 value for 2 ranks") != NULL, "'%s'",
        npblu_balancer_error_message(h));
  npblu_balancer_destroy(&h);
}

int main(int argc, char** argv) {
  const mpi_c_test tests[] = {test_extreme_times_accepted, test_overlap_across_arrays,
                              test_messages_name_the_value};
  return run_mpi_c_tests(argc, argv, tests, 3);
}
